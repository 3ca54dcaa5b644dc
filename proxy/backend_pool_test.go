package proxy

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/runtime"
)

// testBackendPool returns a packet pool of the test data source ds_0 with
// the pool keys of c (its URL or DSN is set here).
func testBackendPool(t *testing.T, c runtime.DataSourceConfig) *backendPool {
	t.Helper()
	c.DSN = testdb.DSN("ds_0")
	p, why := newBackendPool("ds_0", c)
	require.Empty(t, why)
	t.Cleanup(p.close)
	return p
}

// TestBackendPoolReuse: a connection put back is the next one taken (the
// same back-end thread), and it runs statements.
func TestBackendPoolReuse(t *testing.T) {
	p := testBackendPool(t, runtime.DataSourceConfig{MaxPoolSize: 2})
	c, err := p.get()
	require.NoError(t, err)
	res, err := c.ExecuteFetch("SELECT CONNECTION_ID(), DATABASE(), @@character_set_client, @@collation_connection", 1, false)
	require.NoError(t, err)
	require.Equal(t, []string{"ds_0", "utf8mb4", "utf8mb4_general_ci"}, []string{res.Rows[0][1].ToString(), res.Rows[0][2].ToString(), res.Rows[0][3].ToString()})
	require.Equal(t, res.Rows[0][0].ToString(), strconv.Itoa(int(c.ConnectionID)))
	id := c.ConnectionID
	p.put(c)
	c2, err := p.get()
	require.NoError(t, err)
	require.Equal(t, id, c2.ConnectionID)
	p.put(c2)
	open, idle := p.stats()
	require.Equal(t, [2]int{1, 1}, [2]int{open, idle})
}

// TestBackendPoolBounded: maxPoolSize connections at most; a get on a full
// pool waits for a put (and gets that connection), or fails naming the
// data source after the connection timeout.
func TestBackendPoolBounded(t *testing.T) {
	p := testBackendPool(t, runtime.DataSourceConfig{MaxPoolSize: 2})
	a, err := p.get()
	require.NoError(t, err)
	b, err := p.get()
	require.NoError(t, err)
	p.wait = 20 * time.Millisecond
	_, err = p.get()
	require.EqualError(t, err, "data source ds_0: no connection free within 20ms (maxPoolSize 2)")
	p.wait = time.Minute
	got := make(chan *backendConn)
	go func() {
		c, err := p.get()
		if err != nil {
			close(got)
			return
		}
		got <- c
	}()
	p.put(a)
	c := <-got
	require.NotNil(t, c)
	require.Equal(t, a.ConnectionID, c.ConnectionID)
	open, _ := p.stats()
	require.Equal(t, 2, open)
	p.discard(b)
	p.put(c)
	open, idle := p.stats()
	require.Equal(t, [2]int{1, 1}, [2]int{open, idle})
}

// TestBackendPoolLimits: a connection past maxLifetime is closed when it
// is put back, one idle past idleTimeout when it would be taken; a fixed
// pool (minPoolSize >= maxPoolSize) keeps idle connections.
func TestBackendPoolLimits(t *testing.T) {
	p := testBackendPool(t, runtime.DataSourceConfig{MaxLifetime: time.Nanosecond})
	c, err := p.get()
	require.NoError(t, err)
	p.put(c)
	open, idle := p.stats()
	require.Equal(t, [2]int{0, 0}, [2]int{open, idle})

	p = testBackendPool(t, runtime.DataSourceConfig{IdleTimeout: time.Hour})
	c, err = p.get()
	require.NoError(t, err)
	id := c.ConnectionID
	p.put(c)
	p.idle[0].lastUsed = time.Now().Add(-2 * time.Hour)
	c, err = p.get()
	require.NoError(t, err)
	require.NotEqual(t, id, c.ConnectionID)
	p.put(c)
	open, idle = p.stats()
	require.Equal(t, [2]int{1, 1}, [2]int{open, idle})

	p = testBackendPool(t, runtime.DataSourceConfig{IdleTimeout: time.Hour, MinPoolSize: 2, MaxPoolSize: 2})
	require.Zero(t, p.idleTimeout)
}

// TestBackendPoolHealthCheck: an idle connection the server closed (KILL)
// is found dead when taken and replaced by a working one.
func TestBackendPoolHealthCheck(t *testing.T) {
	p := testBackendPool(t, runtime.DataSourceConfig{})
	c, err := p.get()
	require.NoError(t, err)
	dead := c.ConnectionID
	p.put(c)
	_, err = testdb.Open(t, "ds_0").Exec("KILL " + strconv.Itoa(int(dead)))
	require.NoError(t, err)
	p.idle[0].lastUsed = time.Now().Add(-time.Second) // past backendAliveBypass
	require.Eventually(t, func() bool { return p.idle[0].ConnCheck() != nil }, 10*time.Second, 10*time.Millisecond)
	c, err = p.get()
	require.NoError(t, err)
	require.NotEqual(t, dead, c.ConnectionID)
	res, err := c.ExecuteFetch("SELECT 1", 1, false)
	require.NoError(t, err)
	require.Equal(t, "1", res.Rows[0][0].ToString())
	p.put(c)
	open, _ := p.stats()
	require.Equal(t, 1, open)
}

// TestBackendPoolKillQuery: killQuery stops the statement of another
// connection of the pool, even a full one.
func TestBackendPoolKillQuery(t *testing.T) {
	p := testBackendPool(t, runtime.DataSourceConfig{MaxPoolSize: 1})
	c, err := p.get()
	require.NoError(t, err)
	done := make(chan string, 1)
	go func() {
		res, err := c.ExecuteFetch("SELECT SLEEP(60)", 1, false)
		if err != nil {
			done <- err.Error()
			return
		}
		done <- res.Rows[0][0].ToString()
	}()
	db := testdb.Open(t, "ds_0")
	require.Eventually(t, func() bool {
		var n int
		_ = db.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ? AND INFO LIKE 'SELECT SLEEP%'", c.ConnectionID).Scan(&n)
		return n == 1
	}, 10*time.Second, 10*time.Millisecond)
	// The pool is full: its one connection runs the SLEEP.
	require.NoError(t, p.killQuery(c.ConnectionID))
	require.Contains(t, <-done, "Query execution was interrupted (errno 1317)")
	p.put(c)
}

// TestBackendParams: what the packet pool does not do as the database/sql
// pool does leaves the data source without one, with the reason.
func TestBackendParams(t *testing.T) {
	for _, tc := range []struct{ dsn, why string }{
		{"u:p@tcp(127.0.0.1:3306)/ds_0?tls=skip-verify", "TLS"},
		{"u:p@tcp(127.0.0.1:3306)/ds_0?collation=latin1_swedish_ci", "a character set or collation other than utf8mb4_general_ci"},
		{"u:p@tcp(127.0.0.1:3306)/ds_0?charset=latin1", "a character set or collation other than utf8mb4_general_ci"},
		{"u:p@tcp(127.0.0.1:3306)/ds_0", ""},
		{"u:p@unix(/tmp/m.sock)/ds_0", ""},
	} {
		p, _, init, why := backendParams(runtime.DataSourceConfig{DSN: tc.dsn})
		require.Equal(t, tc.why, why, tc.dsn)
		if why == "" {
			require.Equal(t, "u", p.Uname)
			require.Equal(t, "ds_0", p.DbName)
			require.Empty(t, init)
		}
	}
}

// TestBackendPoolSessionVariables: a new connection runs the data
// source's sessionVariables first, as go-sql-driver does.
func TestBackendPoolSessionVariables(t *testing.T) {
	c := runtime.DataSourceConfig{URL: "jdbc:mysql://" + testdb.Config("ds_0").Addr + "/ds_0?sessionVariables=sql_log_bin=0,innodb_lock_wait_timeout=7",
		Username: testdb.Config("ds_0").User, Password: testdb.Config("ds_0").Passwd}
	_, _, init, why := backendParams(c)
	require.Empty(t, why)
	require.Equal(t, "SET innodb_lock_wait_timeout = 7, sql_log_bin = 0", init)
	p, why := newBackendPool("ds_0", c)
	require.Empty(t, why)
	t.Cleanup(p.close)
	bc, err := p.get()
	require.NoError(t, err)
	res, err := bc.ExecuteFetch("SELECT @@innodb_lock_wait_timeout, @@sql_log_bin", 1, false)
	require.NoError(t, err)
	require.Equal(t, "7 0", res.Rows[0][0].ToString()+" "+res.Rows[0][1].ToString())
	p.put(bc)
}

// TestBackendPoolKeyedTimeouts: a keyed pool (a session's settings) keeps
// its data source's timeouts and the keys that set them, so its errors
// name the key ("within its connectTimeout of 2000 ms", never "its  of").
func TestBackendPoolKeyedTimeouts(t *testing.T) {
	p := testBackendPool(t, runtime.DataSourceConfig{ConnectionTimeout: 2 * time.Second})
	p.socketTimeout, p.socketKey = 500*time.Millisecond, "socketTimeout"
	k := p.keyed([]string{"SET time_zone = '+00:00'"})
	t.Cleanup(k.close)
	require.Equal(t, [4]any{p.wait, p.waitKey, p.socketTimeout, p.socketKey}, [4]any{k.wait, k.waitKey, k.socketTimeout, k.socketKey})
	require.NotEmpty(t, k.waitKey)
}
