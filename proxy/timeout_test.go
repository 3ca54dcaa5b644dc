package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// pausableRelay forwards TCP connections to a MariaDB server; pause(true)
// holds every byte in both directions, as SIGSTOP on the server would
// (the connections stay open), and pause(false) lets the held bytes go.
type pausableRelay struct {
	addr   string
	paused atomic.Bool
}

func newPausableRelay(t *testing.T, target string) *pausableRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &pausableRelay{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); r.pipe(s, c) }()
			go func() { defer wg.Done(); r.pipe(c, s) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		r.paused.Store(false)
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return r
}

// pipe copies from src to dst, holding what it read while paused.
func (r *pausableRelay) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for n > 0 && r.paused.Load() {
			time.Sleep(5 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			return
		}
	}
}

// timeoutProxy starts a proxy over ds_0 (the test server) and ds_1 at
// addr (url parameters params, connectionTimeoutMilliseconds 1000), the
// logic table e9_item sharded by id % 2, and returns a client of it.
func timeoutProxy(t *testing.T, addr, params string) (*Server, *sql.DB) {
	t.Helper()
	return timeoutProxyWith(t, "", addr, params)
}

// timeoutProxyWith is timeoutProxy with url parameters params0 for ds_0.
func timeoutProxyWith(t *testing.T, params0, addr, params string) (*Server, *sql.DB) {
	t.Helper()
	return timeoutProxyKeys(t, params0, addr, params, "    connectionTimeoutMilliseconds: 1000\n")
}

// timeoutProxyKeys is timeoutProxyWith with the YAML keys of ds_1 after
// its maxPoolSize (keys), instead of connectionTimeoutMilliseconds 1000.
func timeoutProxyKeys(t *testing.T, params0, addr, params, keys string) (*Server, *sql.DB) {
	t.Helper()
	const ddl = "CREATE TABLE e9_item (id BIGINT NOT NULL, v VARCHAR(10), PRIMARY KEY (id))"
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		execAll(t, db, "DROP TABLE IF EXISTS e9_item", ddl)
		t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS e9_item") })
	}
	c := testdb.Config("ds_0")
	var b strings.Builder
	b.WriteString("databaseName: e9_db\ndataSources:\n")
	fmt.Fprintf(&b, "  ds_0:\n    url: jdbc:mysql://%s/ds_0%s\n    username: %s\n    password: %s\n    maxPoolSize: 4\n", c.Addr, params0, c.User, c.Passwd)
	fmt.Fprintf(&b, "  ds_1:\n    url: jdbc:mysql://%s/ds_1%s\n    username: %s\n    password: %s\n    maxPoolSize: 4\n%s",
		addr, params, c.User, c.Passwd, keys)
	b.WriteString(`rules:
  - !SHARDING
    tables:
      e9_item:
        actualDataNodes: ds_${0..1}.e9_item
        databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: db_mod}}
    shardingAlgorithms:
      db_mod: {type: INLINE, props: {algorithm-expression: 'ds_${id % 2}'}}
authority:
  users:
    - user: root@%
      password: secret
`)
	srv := startProxy(t, b.String(), ddl)
	return srv, (&pxEnv{srv: srv}).clientDB(t, "root", "secret", "e9_db", nil)
}

// timedError runs fn and checks its error text and that it came after
// about limit (never a hang, never a retry that doubles the wait).
func timedError(t *testing.T, what, want string, limit time.Duration, fn func(ctx context.Context) error) {
	t.Helper()
	took := testdb.TimedError(t, what, want, fn)
	require.GreaterOrEqual(t, took, limit-50*time.Millisecond, what)
	require.Less(t, took, limit+700*time.Millisecond, what)
}

// TestProxyDataSourceConnectTimeout: a data source that accepts
// connections and never answers (a paused server), and one whose port
// never completes a connection (a full backlog, as a blackholed port):
// a statement for it fails after its connect timeout with an error that
// names it, on the fast path, prepared, and merged over every data node
// (the database/sql path), and no path asks again.
func TestProxyDataSourceConnectTimeout(t *testing.T) {
	for _, tc := range []struct {
		name, addr string
	}{
		{"silent", testdb.SilentListener(t)},
		{"never accepts", testdb.FullListener(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, px := timeoutProxy(t, tc.addr, "")
			const want = "Error 1105 (HY000): data source ds_1 timed out: no connection within its connectionTimeoutMilliseconds of 1000 ms"
			for _, q := range []struct {
				what string
				run  func(ctx context.Context) error
			}{
				{"fast path", func(ctx context.Context) error {
					_, err := px.ExecContext(ctx, "SELECT v FROM e9_item WHERE id = 1")
					return err
				}},
				{"prepared", func(ctx context.Context) error {
					return px.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = ?", 3).Scan(new(sql.NullString))
				}},
				{"merged", func(ctx context.Context) error {
					_, err := px.ExecContext(ctx, "SELECT v FROM e9_item ORDER BY id")
					return err
				}},
				{"write", func(ctx context.Context) error {
					_, err := px.ExecContext(ctx, "INSERT INTO e9_item (id, v) VALUES (5, 'e')")
					return err
				}},
			} {
				timedError(t, q.what, want, time.Second, q.run)
			}
		})
	}
}

// TestProxyDataSourceSocketTimeout: a data source that stops answering
// on connections already open (a pausable relay in front of the test
// server, paused): a statement on it fails after its socketTimeout with
// an error that names it, on the fast path, prepared, merged, in a
// transaction and for a write; once the data source answers again, the
// next statements answer right: the connections that timed out were not
// put back in a pool (their late answers would be read as the next
// statement's).
func TestProxyDataSourceSocketTimeout(t *testing.T) {
	relay := newPausableRelay(t, testdb.Config("ds_1").Addr)
	_, px := timeoutProxy(t, relay.addr, "?socketTimeout=500")
	ctx := context.Background()
	execAll(t, px, "INSERT INTO e9_item (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	const want = "Error 1105 (HY000): data source ds_1 timed out: no answer within its socketTimeout of 500 ms"
	check := func() {
		t.Helper()
		var v string
		require.NoError(t, px.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = 3").Scan(&v))
		require.Equal(t, "c", v)
		require.NoError(t, px.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = ?", 1).Scan(&v))
		require.Equal(t, "a", v)
		var n int
		require.NoError(t, px.QueryRowContext(ctx, "SELECT COUNT(*) FROM e9_item").Scan(&n))
		require.Equal(t, 3, n)
	}
	check() // the pools hold open connections to ds_1 now
	for _, q := range []struct {
		what string
		run  func(ctx context.Context) error
	}{
		{"fast path", func(ctx context.Context) error {
			var v string
			return px.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = 1").Scan(&v)
		}},
		{"prepared", func(ctx context.Context) error {
			var v string
			return px.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = ?", 3).Scan(&v)
		}},
		{"merged", func(ctx context.Context) error {
			var n int
			return px.QueryRowContext(ctx, "SELECT COUNT(*) FROM e9_item").Scan(&n)
		}},
		{"write", func(ctx context.Context) error {
			_, err := px.ExecContext(ctx, "UPDATE e9_item SET v = 'x' WHERE id = 3")
			return err
		}},
		{"transaction", func(ctx context.Context) error {
			conn, err := px.Conn(ctx)
			require.NoError(t, err)
			defer conn.Close()
			_, err = conn.ExecContext(ctx, "BEGIN")
			require.NoError(t, err)
			_, err = conn.ExecContext(ctx, "UPDATE e9_item SET v = 'y' WHERE id = 2")
			require.NoError(t, err) // ds_0
			_, err = conn.ExecContext(ctx, "UPDATE e9_item SET v = 'y' WHERE id = 1")
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
			return err
		}},
	} {
		relay.paused.Store(true)
		timedError(t, q.what, want, 500*time.Millisecond, q.run)
		relay.paused.Store(false)
		if q.what == "write" {
			// The UPDATE reached the server before the pause ended: it ran.
			require.Eventually(t, func() bool {
				var v string
				return testdb.Open(t, "ds_1").QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = 3").Scan(&v) == nil && v == "x"
			}, 5*time.Second, 20*time.Millisecond)
			execAll(t, testdb.Open(t, "ds_1"), "UPDATE e9_item SET v = 'c' WHERE id = 3")
		}
		check()
	}
	// A wait in the middle of the rows of a merge: ds_1 sends a row of
	// 100 kB, then sleeps on the next.
	timedError(t, "merged, in the rows", want, 500*time.Millisecond, func(ctx context.Context) error {
		rows, err := px.QueryContext(ctx, "SELECT id, IF(id = 3, SLEEP(2), REPEAT('x', 100000)) FROM e9_item ORDER BY id")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	})
	check()
}

// TestProxyIdleTransactionSocketTimeout: a transaction that sits idle
// longer than a data source's socketTimeout goes on (the limit bounds each
// wait for an answer, not the time between statements), with and without
// session settings, text and prepared.
func TestProxyIdleTransactionSocketTimeout(t *testing.T) {
	relay := newPausableRelay(t, testdb.Config("ds_1").Addr)
	_, px := timeoutProxyWith(t, "?socketTimeout=300", relay.addr, "?socketTimeout=300")
	ctx := context.Background()
	execAll(t, px, "INSERT INTO e9_item (id, v) VALUES (1, 'a'), (2, 'b')")
	for _, settings := range [][]string{nil, {"SET NAMES latin1"}, {"SET time_zone = '+08:00'"}} {
		conn, err := px.Conn(ctx)
		require.NoError(t, err)
		for _, s := range settings {
			_, err = conn.ExecContext(ctx, s)
			require.NoError(t, err)
		}
		_, err = conn.ExecContext(ctx, "BEGIN")
		require.NoError(t, err)
		_, err = conn.ExecContext(ctx, "UPDATE e9_item SET v = 'y' WHERE id = 1") // ds_1
		require.NoError(t, err, settings)
		_, err = conn.ExecContext(ctx, "UPDATE e9_item SET v = 'y' WHERE id = 2") // ds_0
		require.NoError(t, err, settings)
		time.Sleep(600 * time.Millisecond)
		var v string
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = 1").Scan(&v), settings)
		require.Equal(t, "y", v)
		time.Sleep(600 * time.Millisecond)
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = ?", 1).Scan(&v), settings)
		require.Equal(t, "y", v)
		time.Sleep(600 * time.Millisecond)
		_, err = conn.ExecContext(ctx, "ROLLBACK")
		require.NoError(t, err, settings)
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = 1").Scan(&v), settings)
		require.Equal(t, "a", v, settings)
		require.NoError(t, conn.Close())
	}
}

// boundedError runs fn and checks its error text and that it came within
// max: a bound on a hang or on a wait repeated, generous enough for a
// loaded machine (not a performance assertion).
func boundedError(t *testing.T, what, want string, max time.Duration, fn func(ctx context.Context) error) {
	t.Helper()
	require.Less(t, testdb.TimedError(t, what, want, fn), max, what)
}

// TestProxyBlackholedTransaction: a write inside a transaction routed to
// a data source that never answers (accepts and stays silent, or never
// completes the TCP handshake) fails once within about its connectTimeout
// (1 s; the bound is 1.8 s where it took 4 s and more), with the error
// naming the data source and the key, not a full pool's, whether
// connectionTimeoutMilliseconds (the wait for a pool connection) equals
// it or is unset (30 s): text and prepared, after BEGIN and under
// autocommit=0.
func TestProxyBlackholedTransaction(t *testing.T) {
	const want = "Error 1105 (HY000): data source ds_1 timed out: no connection within its connectTimeout of 1000 ms"
	for _, hole := range []struct{ name, addr string }{
		{"silent", testdb.SilentListener(t)},
		{"never accepts", testdb.FullListener(t)},
	} {
		for _, keys := range []string{"", "    connectionTimeoutMilliseconds: 1000\n"} {
			t.Run(hole.name+"/"+strings.TrimSpace(keys), func(t *testing.T) {
				_, px := timeoutProxyKeys(t, "", hole.addr, "?connectTimeout=1000&socketTimeout=1000", keys)
				for _, q := range []struct {
					what, begin string
					run         func(ctx context.Context, conn *sql.Conn) error
				}{
					{"text", "BEGIN", func(ctx context.Context, conn *sql.Conn) error {
						_, err := conn.ExecContext(ctx, "INSERT INTO e9_item (id, v) VALUES (1, 'a')")
						return err
					}},
					{"prepared", "BEGIN", func(ctx context.Context, conn *sql.Conn) error {
						_, err := conn.ExecContext(ctx, "INSERT INTO e9_item (id, v) VALUES (?, ?)", 3, "c")
						return err
					}},
					{"autocommit=0", "SET autocommit = 0", func(ctx context.Context, conn *sql.Conn) error {
						_, err := conn.ExecContext(ctx, "INSERT INTO e9_item (id, v) VALUES (5, 'e')")
						return err
					}},
				} {
					ctx := context.Background()
					conn, err := px.Conn(ctx)
					require.NoError(t, err)
					_, err = conn.ExecContext(ctx, q.begin)
					require.NoError(t, err)
					_, err = conn.ExecContext(ctx, "INSERT INTO e9_item (id, v) VALUES (2, 'b')") // ds_0
					require.NoError(t, err)
					boundedError(t, q.what, want, 1800*time.Millisecond, func(ctx context.Context) error { return q.run(ctx, conn) })
					_, err = conn.ExecContext(ctx, "ROLLBACK")
					require.NoError(t, err)
					require.NoError(t, conn.Close())
				}
			})
		}
	}
}

// TestProxyBlackholedSettings: a session that sets things (SET NAMES, a
// user variable, a system variable, the handshake's character set) while
// a data source never answers runs its statements on the other data
// sources without waiting for that one's connect timeout (3 s here; the
// bound of 2 s is far above what a session takes, and every SET used to
// wait the whole timeout): each data source is dialled when a statement
// first needs it, and then with the session's settings. The data source
// that never answers fails the statement routed to it, once.
func TestProxyBlackholedSettings(t *testing.T) {
	srv, px := timeoutProxyKeys(t, "", testdb.SilentListener(t), "?connectTimeout=3000", "")
	execAll(t, testdb.Open(t, "ds_0"), "INSERT INTO e9_item (id, v) VALUES (2, 'b')")
	latin1 := (&pxEnv{srv: srv}).clientDB(t, "root", "secret", "e9_db", map[string]string{"collation": "latin1_swedish_ci"})
	const want = "Error 1105 (HY000): data source ds_1 timed out: no connection within its connectTimeout of 3000 ms"
	for _, tc := range []struct {
		name string
		db   *sql.DB
		sets []string
		v    string // SELECT @v
	}{
		{"SET NAMES", px, []string{"SET NAMES latin1"}, ""},
		{"user variable", px, []string{"SET @v = 5"}, "5"},
		{"settings and user variable", px, []string{"SET NAMES utf8mb3", "SET time_zone = '+08:00'", "SET @v = 6"}, "6"},
		{"handshake latin1", latin1, []string{"SET time_zone = '+07:00'"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			start := time.Now()
			conn, err := tc.db.Conn(ctx)
			require.NoError(t, err)
			defer conn.Close()
			for _, s := range tc.sets {
				_, err := conn.ExecContext(ctx, s)
				require.NoError(t, err, s)
			}
			var v string
			require.NoError(t, conn.QueryRowContext(ctx, "SELECT v FROM e9_item WHERE id = 2").Scan(&v)) // ds_0
			require.Equal(t, "b", v)
			var uv sql.NullString
			require.NoError(t, conn.QueryRowContext(ctx, "SELECT @v").Scan(&uv))
			require.Equal(t, tc.v, uv.String)
			took := time.Since(start)
			t.Logf("settings and a statement on ds_0: %v", took)
			require.Less(t, took, 2*time.Second)
			boundedError(t, "ds_1", want, 4500*time.Millisecond, func(ctx context.Context) error {
				_, err := conn.ExecContext(ctx, "INSERT INTO e9_item (id, v) VALUES (1, 'a')")
				return err
			})
		})
	}
}

// TestProxyBlackholedPoolWait: more statements at once than a silent data
// source's maxPoolSize (4): those that wait for the pool while its dials
// hang fail with the connect timeout too, within about it (1 s; bound
// 1.8 s), not with a full pool's error nor after dialling again.
func TestProxyBlackholedPoolWait(t *testing.T) {
	_, px := timeoutProxy(t, testdb.SilentListener(t), "?connectTimeout=1000")
	const want = "Error 1105 (HY000): data source ds_1 timed out: no connection within its connectTimeout of 1000 ms"
	const n = 7
	errs := make([]error, n)
	took := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			var v string
			errs[i] = px.QueryRowContext(context.Background(), "SELECT v FROM e9_item WHERE id = 1").Scan(&v)
			took[i] = time.Since(start)
		}()
	}
	wg.Wait()
	for i := range n {
		t.Logf("%d: %v %v", i, took[i], errs[i])
	}
	for i := range n {
		require.EqualError(t, errs[i], want, i)
		require.Less(t, took[i], 1800*time.Millisecond, i)
	}
}
