package proxy

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestProxySessionsShareStatements: the back-end statements of the
// database/sql path carry no session tag (owner.go), so 64 sessions that
// run the same statement share one prepared statement per back-end
// connection: the data source's server counts at most one COM_STMT_PREPARE
// per connection the proxy's pools had open or opened meanwhile. With the
// tag in the text each session prepared its own (64 prepares), and 64
// sessions evicted each other from the runtime's cache.
func TestProxySessionsShareStatements(t *testing.T) {
	e := newPxEnv(t)
	ds0 := testdb.Open(t, "ds_0")
	prepares := func() int {
		t.Helper()
		var name string
		var n int
		require.NoError(t, ds0.QueryRow("SHOW GLOBAL STATUS LIKE 'Com_stmt_prepare'").Scan(&name, &n))
		return n
	}
	pool, ok := e.srv.db.Pool("ds_0")
	require.True(t, ok)
	// The connections of the database/sql pool ever opened, and those of
	// the fast path's packet pool, which prepares the client's statement
	// there too once it has learned its route (fastpath_stmt.go).
	opened := func() int {
		st := pool.Stats()
		bp := e.srv.backends[0]
		bp.mu.Lock()
		defer bp.mu.Unlock()
		return st.OpenConnections + int(st.MaxIdleClosed+st.MaxIdleTimeClosed+st.MaxLifetimeClosed) + bp.open
	}
	client := e.client(t, "root", "secret", nil)
	ctx := context.Background()
	before, connsBefore := prepares(), opened()
	var sessions []*sql.Conn
	for i := 1; i <= 64; i++ {
		conn, err := client.Conn(ctx) // a session of its own, kept open
		require.NoError(t, err)
		sessions = append(sessions, conn)
		// The same data node each time (one actual SQL text). In a
		// transaction: outside one, a statement of one data node runs
		// on the fast path's packet pool (fastpath_stmt.go).
		tx, err := conn.BeginTx(ctx, nil)
		require.NoError(t, err)
		var name string
		require.ErrorIs(t, tx.QueryRowContext(ctx, "SELECT name FROM px_item WHERE id = ?", 4).Scan(&name), sql.ErrNoRows)
		require.NoError(t, tx.Commit())
	}
	n, conns := prepares()-before, opened()

	t.Logf("64 sessions: %d back-end prepares on ds_0, %d pool connections (%d before)", n, conns, connsBefore)
	require.Positive(t, n, "the statement runs prepared on the back end")
	require.LessOrEqual(t, n, conns, "at most one prepare per back-end connection")
	for _, s := range sessions {
		require.NoError(t, s.Close())
	}
}
