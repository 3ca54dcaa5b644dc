package runtime_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestReserved: a setting applied to a Reserved holds on every data source
// for its later statements and transactions, a connection taken after the
// setting replays it, and Close discards the connections, so the setting
// never reaches a pooled connection.
func TestReserved(t *testing.T) {
	ctx := context.Background()
	_, src := openTestSources(t, "")
	r := src.Reserve()
	st := &shardrt.Stmt{Name: "reserved"}
	atDS := func(e shardrt.Executor, d int, q string) sql.NullString {
		var v sql.NullString
		require.NoError(t, e.QueryRow(ctx, st, shardrt.RouteUnit{DataSource: d, SQL: q}).Scan(&v))
		return v
	}
	require.NoError(t, r.Apply(ctx, "SET @x = 7"))
	require.NoError(t, r.Apply(ctx, "SET SESSION sql_mode = 'ANSI_QUOTES'"))
	require.Equal(t, []string{"SET @x = 7", "SET SESSION sql_mode = 'ANSI_QUOTES'"}, r.Setup())
	for d := range testDataSources {
		require.Equal(t, "7", atDS(r, d, "SELECT @x").String, testDataSources[d])
		require.Equal(t, "ANSI_QUOTES", atDS(r, d, "SELECT @@sql_mode").String)
	}
	// A failing setting is not recorded and changes nothing.
	err := r.Apply(ctx, "SET SESSION no_such_variable = 1")
	require.ErrorContains(t, err, "Unknown system variable 'no_such_variable'")
	require.Len(t, r.Setup(), 2)
	require.Equal(t, "7", atDS(r, 1, "SELECT @x").String)

	tx, err := r.BeginDistributed(ctx, shardrt.TxOptions{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, "7", atDS(tx, 2, "SELECT @x").String)
	_, err = tx.Exec(ctx, st, shardrt.RouteUnit{DataSource: 2, SQL: "CREATE TEMPORARY TABLE reserved_tmp (id INT)"})
	require.ErrorContains(t, err, "Error 1792 (25006): Cannot execute statement in a READ ONLY transaction")
	require.NoError(t, tx.Rollback())
	_, err = r.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxXA})
	require.EqualError(t, err, "runtime: a reserved session runs LOCAL transactions only, not XA")

	require.NoError(t, r.Close())
	require.Empty(t, r.Setup())
	for d := range testDataSources {
		require.False(t, atDS(src, d, "SELECT @x").Valid, testDataSources[d])
		require.NotEqual(t, "ANSI_QUOTES", atDS(src, d, "SELECT @@sql_mode").String)
	}
}
