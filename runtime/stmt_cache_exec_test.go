package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestStatementCache: a statement with arguments is prepared once per pool
// and then executed with one round trip; results and errors are the same as
// unprepared, and a statement the server rejects still reports its error.
func TestStatementCache(t *testing.T) {
	db, src := openTestSources(t, "")
	createTestTable(t, db, "sc_t")
	ctx := context.Background()
	u := shardrt.RouteUnit{DataSource: 1, SQL: "INSERT INTO sc_t (id, v) VALUES (?, ?)"}
	for i := 0; i < 20; i++ {
		_, err := src.Exec(ctx, nil, u, i, "x")
		require.NoError(t, err)
	}
	var n int
	for i := 0; i < 20; i++ {
		require.NoError(t, src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT COUNT(*) FROM sc_t WHERE id >= ?"}, 0).Scan(&n))
	}
	require.Equal(t, 20, n)
	_, err := src.Exec(ctx, nil, u, 1, "dup")
	require.ErrorContains(t, err, "Error 1062")
	err = src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELEC ?"}, 1).Scan(new(int))
	require.ErrorContains(t, err, "Error 1064")
}

// comStmtPrepare returns the server's count of COM_STMT_PREPARE commands, as
// seen through the pool of data source ds.
func comStmtPrepare(t *testing.T, db *shardrt.DB, ds string) int {
	t.Helper()
	pool, ok := db.Pool(ds)
	require.True(t, ok)
	var name string
	var n int
	require.NoError(t, pool.QueryRow("SHOW GLOBAL STATUS LIKE 'Com_stmt_prepare'").Scan(&name, &n))
	return n
}

// TestStatementCacheInTransactions: statements with arguments inside a
// LOCAL distributed transaction and a single-shard transaction reuse the
// pool's prepared statements (one COM_STMT_PREPARE per connection, not one
// per statement), and ForgetStatements closes the ones with a prefix.
func TestStatementCacheInTransactions(t *testing.T) {
	db, src := openTestSources(t, "")
	createTestTable(t, db, "sct_t")
	ctx := context.Background()
	ins := shardrt.RouteUnit{DataSource: 1, SQL: "/* sct */ INSERT INTO sct_t (id, v) VALUES (?, ?)"}
	sel := shardrt.RouteUnit{DataSource: 1, SQL: "/* sct */ SELECT v FROM sct_t WHERE id = ?"}
	before := comStmtPrepare(t, db, testDataSources[1])
	for round := 0; round < 5; round++ {
		tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
		require.NoError(t, err)
		for i := 0; i < 4; i++ {
			id := round*10 + i
			_, err := tx.Exec(ctx, nil, ins, id, "d")
			require.NoError(t, err)
			var v string
			require.NoError(t, tx.QueryRow(ctx, nil, sel, id).Scan(&v))
			require.Equal(t, "d", v)
		}
		require.NoError(t, tx.Commit())
		stx := src.BeginTx(ctx, nil)
		_, err = stx.Exec(ctx, nil, ins, 1000+round, "s")
		require.NoError(t, err)
		require.NoError(t, stx.Commit())
	}
	// 40 statements in 10 transactions; the pool prepares each text at most
	// once per connection it used (a handful).
	prepared := comStmtPrepare(t, db, testDataSources[1]) - before
	require.Less(t, prepared, 12, "statements in transactions should reuse prepared statements")
	var n int
	require.NoError(t, src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT COUNT(*) FROM sct_t WHERE id >= ?"}, 0).Scan(&n))
	require.Equal(t, 25, n)

	// A rolled-back LOCAL transaction leaves nothing.
	tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
	require.NoError(t, err)
	_, err = tx.Exec(ctx, nil, ins, 999, "r")
	require.NoError(t, err)
	require.NoError(t, tx.Rollback())
	require.NoError(t, src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT COUNT(*) FROM sct_t WHERE id = ?"}, 999).Scan(&n))
	require.Equal(t, 0, n)

	// After ForgetStatements the next use prepares again.
	db.ForgetStatements("/* sct */")
	before = comStmtPrepare(t, db, testDataSources[1])
	var v string
	require.NoError(t, src.QueryRow(ctx, nil, sel, 0).Scan(&v))
	require.Equal(t, 1, comStmtPrepare(t, db, testDataSources[1])-before)
}
