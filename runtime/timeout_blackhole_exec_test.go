package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// blackholeSources opens ds_0 (a test server) and ds_1 at addr, a data
// source that never answers, with the YAML body keys of ds_1 after its
// url (e.g. "?connectTimeout=1000"), and returns both as Sources.
func blackholeSources(t *testing.T, addr, params, keys string) *shardrt.Sources {
	t.Helper()
	body := "    url: jdbc:mysql://" + addr + "/ds_1" + params + "\n    username: u\n    maxPoolSize: 4\n" + keys
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_blackhole", body))
	require.NoError(t, err)
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	src, err := db.Sources([]string{"ds_0", "ds_blackhole"})
	require.NoError(t, err)
	return src
}

// boundedError runs fn and checks its error text and that it came within
// max: a bound on a hang (or on a wait repeated), generous enough for a
// loaded machine, not a performance assertion.
func boundedError(t *testing.T, what, want string, max time.Duration, fn func(ctx context.Context) error) {
	t.Helper()
	require.Less(t, testdb.TimedError(t, what, want, fn), max, what)
}

// TestBlackholedDataSourceConnect: a data source that never answers
// (accepts and stays silent, or never completes the TCP handshake) fails
// each kind of statement of generated code once, within about its
// connectTimeout (1 s here; the bound is 1.8 s where the wait used to be
// repeated), with an error naming the data source and the key: a
// statement with arguments (the prepared-statement cache used to wait a
// second time running it unprepared), the first statement of a
// single-shard and of a distributed transaction (whose wait for a pool
// connection used to end as "no connection available in the data
// source's pool" when it equals the connect timeout), and a reserved
// session's.
func TestBlackholedDataSourceConnect(t *testing.T) {
	const want = "data source ds_blackhole timed out: no connection within its connectTimeout of 1000 ms"
	for _, hole := range []struct{ name, addr string }{
		{"silent", testdb.SilentListener(t)},
		{"never accepts", testdb.FullListener(t)},
	} {
		for _, keys := range []string{"", "    connectionTimeoutMilliseconds: 1000\n"} {
			t.Run(hole.name+"/"+keys, func(t *testing.T) {
				src := blackholeSources(t, hole.addr, "?connectTimeout=1000&socketTimeout=1000", keys)
				u := shardrt.RouteUnit{DataSource: 1, SQL: "INSERT INTO t_x (id) VALUES (?)"}
				for _, q := range []struct {
					what string
					run  func(ctx context.Context) error
				}{
					{"exec with arguments", func(ctx context.Context) error {
						_, err := src.Exec(ctx, nil, u, 1)
						return err
					}},
					{"single-shard transaction", func(ctx context.Context) error {
						tx := src.BeginTx(ctx, nil)
						defer func() { _ = tx.Rollback() }()
						_, err := tx.Exec(ctx, nil, u, 1)
						return err
					}},
					{"distributed transaction", func(ctx context.Context) error {
						tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
						require.NoError(t, err)
						defer func() { _ = tx.Rollback() }()
						_, err = tx.Exec(ctx, nil, u, 1)
						return err
					}},
					{"reserved", func(ctx context.Context) error {
						res := src.Reserve()
						defer func() { _ = res.Close() }()
						_, err := res.Exec(ctx, nil, u, 1)
						return err
					}},
				} {
					boundedError(t, q.what, want, 1800*time.Millisecond, q.run)
				}
			})
		}
	}
}

// TestBlackholedDataSourceSettings: a session's settings (a Reserved's
// SET, a settings pool's key) do not wait for a data source that never
// answers (connectTimeout 3 s; each used to wait for it, the bound is
// 2 s): every data source's connection is taken when a statement first
// goes there, and runs the settings first (checked on ds_1, a live data
// source not yet used); the data source that never answers fails its
// statements with its connect timeout. A setting the servers refuse still
// fails at once.
func TestBlackholedDataSourceSettings(t *testing.T) {
	ctx := context.Background()
	body := "    url: jdbc:mysql://" + testdb.SilentListener(t) + "/ds_1?connectTimeout=3000\n    username: u\n    maxPoolSize: 4\n"
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_blackhole", body))
	require.NoError(t, err)
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	src, err := db.Sources([]string{"ds_0", "ds_blackhole", "ds_1"})
	require.NoError(t, err)
	const want = "data source ds_blackhole timed out: no connection within its connectTimeout of 3000 ms"
	st := &shardrt.Stmt{Name: "settings"}
	at := func(e shardrt.Executor, d int, q string) (string, error) {
		var v string
		err := e.QueryRow(ctx, st, shardrt.RouteUnit{DataSource: d, SQL: q}).Scan(&v)
		return v, err
	}

	start := time.Now()
	r := src.Reserve()
	defer r.Close()
	require.NoError(t, r.Apply(ctx, "SET @x = 7"))
	require.NoError(t, r.Apply(ctx, "SET time_zone = '+08:00'"))
	require.ErrorContains(t, r.Apply(ctx, "SET SESSION no_such_variable = 1"), "Unknown system variable 'no_such_variable'")
	for _, d := range []int{0, 2} {
		v, err := at(r, d, "SELECT CONCAT(@x, ' ', @@time_zone)")
		require.NoError(t, err)
		require.Equal(t, "7 +08:00", v)
	}
	took := time.Since(start)
	t.Logf("reserved: %v", took)
	require.Less(t, took, 2*time.Second)
	boundedError(t, "reserved on the data source that never answers", want, 4500*time.Millisecond, func(ctx context.Context) error {
		_, err := at(r, 1, "SELECT @x")
		return err
	})

	start = time.Now()
	set, err := src.Settings(ctx, []string{"SET time_zone = '+07:00'"})
	require.NoError(t, err)
	defer set.Release()
	for _, d := range []int{0, 2} {
		v, err := at(set.Sources(), d, "SELECT @@time_zone")
		require.NoError(t, err)
		require.Equal(t, "+07:00", v)
	}
	took = time.Since(start)
	t.Logf("settings pools: %v", took)
	require.Less(t, took, 2*time.Second)
	boundedError(t, "settings pool of the data source that never answers", want, 4500*time.Millisecond, func(ctx context.Context) error {
		_, err := at(set.Sources(), 1, "SELECT @@time_zone")
		return err
	})
	_, err = src.Settings(ctx, []string{"SET SESSION no_such_variable = 1"})
	require.ErrorContains(t, err, "Unknown system variable 'no_such_variable'")
}

// TestBlackholedDataSourcePoolWait: with connectionTimeoutMilliseconds
// (500 ms) shorter than the connect timeout (1 s) and a pool of one
// connection, the transaction that dials and the one that waits for the
// pool while that dial hangs both fail after about 500 ms naming the
// data source and connectionTimeoutMilliseconds: the connection was not
// made within it. Both read "no connection available in the data
// source's pool" before, as if the pool were full of connections in use.
func TestBlackholedDataSourcePoolWait(t *testing.T) {
	body := "    url: jdbc:mysql://" + testdb.SilentListener(t) + "/ds_1?connectTimeout=1000\n    username: u\n    maxPoolSize: 1\n" +
		"    connectionTimeoutMilliseconds: 500\n"
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_blackhole", body))
	require.NoError(t, err)
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	src, err := db.Sources([]string{"ds_blackhole"})
	require.NoError(t, err)
	const want = "data source ds_blackhole timed out: no connection within its connectionTimeoutMilliseconds of 500 ms"
	write := func(ctx context.Context) error {
		tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "INSERT INTO t_x (id) VALUES (?)"}, 1)
		return err
	}
	var first error
	var took time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		first = write(context.Background())
		took = time.Since(start)
	}()
	time.Sleep(100 * time.Millisecond)
	boundedError(t, "waiting for the pool", want, 1500*time.Millisecond, write)
	<-done
	require.EqualError(t, first, want, "dialling")
	require.Less(t, took, 1500*time.Millisecond, "dialling")
}
