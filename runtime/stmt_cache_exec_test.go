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
