package proxy

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestProxyForgetsSessionStatements: a binary-protocol client's statements run on
// the back end as prepared statements whose text starts with the session's
// tag; after the client disconnects the proxy closes them
// (DB.ForgetStatements), so neither the statement cache nor the server's
// prepared statements grow with every session that ever connected.
func TestProxyForgetsSessionStatements(t *testing.T) {
	e := newPxEnv(t)
	ds0 := testdb.Open(t, "ds_0")
	prepared := func() int {
		t.Helper()
		var name string
		var n int
		require.NoError(t, ds0.QueryRow("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").Scan(&name, &n))
		return n
	}
	before := prepared()
	db := e.client(t, "root", "secret", nil)
	db.SetMaxOpenConns(1)
	// In a transaction: outside one, a statement of one data node runs on
	// the fast path, prepared once per pooled connection of the data
	// source (fastpath_stmt.go, TestFastPathPreparedPerConnection).
	tx, err := db.Begin()
	require.NoError(t, err)
	for i := 1; i <= 5; i++ {
		rows, err := tx.QueryContext(context.Background(), "SELECT id, name FROM px_item WHERE id = ?", 2*i)
		require.NoError(t, err)
		require.NoError(t, rows.Close())
	}
	require.NoError(t, tx.Commit())
	during := prepared()
	require.Greater(t, during, before, "the session's statement is prepared on the back end")
	require.NoError(t, db.Close())
	require.Eventually(t, func() bool { return prepared() < during }, 5*time.Second, 20*time.Millisecond,
		"the session's back-end statements are closed when it disconnects")
}
