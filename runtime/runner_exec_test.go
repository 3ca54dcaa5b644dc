package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestRunner: a Runner of the Sources runs each single-unit statement on
// the pools (auto-commit), a Runner of a Tx or a DistTx inside the
// transaction (a rollback leaves nothing), Query, QueryRow and Exec alike;
// on the Sources a statement allocates no more than Sources.Exec called
// directly, whose argument slice stays on the caller's stack.
func TestRunner(t *testing.T) {
	ctx := context.Background()
	db, src := openTestSources(t, "")
	createTestTable(t, db, "g23_runner")
	ins := shardrt.RouteUnit{DataSource: 1, SQL: "INSERT INTO g23_runner (id, v) VALUES (?, ?)"}
	one := shardrt.RouteUnit{DataSource: 1, SQL: "SELECT v FROM g23_runner WHERE id = ?"}
	count := func() (n int) {
		require.NoError(t, src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT COUNT(*) FROM g23_runner"}).Scan(&n))
		return n
	}

	pools := shardrt.RunnerOf(src)
	_, err := pools.Exec(ctx, nil, ins, 1, "a")
	require.NoError(t, err)
	var v string
	require.NoError(t, pools.QueryRow(ctx, nil, one, 1).Scan(&v))
	require.Equal(t, "a", v)
	rows, err := pools.Query(ctx, nil, one, 1)
	require.NoError(t, err)
	require.True(t, rows.Next())
	require.NoError(t, rows.Close())

	tx := src.BeginTx(ctx, nil)
	in := shardrt.RunnerOf(tx)
	_, err = in.Exec(ctx, nil, ins, 2, "b")
	require.NoError(t, err)
	require.NoError(t, in.QueryRow(ctx, nil, one, 2).Scan(&v))
	require.Equal(t, "b", v)
	rows, err = in.Query(ctx, nil, one, 2)
	require.NoError(t, err)
	require.True(t, rows.Next())
	require.NoError(t, rows.Close())
	require.Equal(t, 1, count(), "the transaction's row is not committed yet")
	require.NoError(t, tx.Rollback())
	require.Equal(t, 1, count())

	dtx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
	require.NoError(t, err)
	_, err = shardrt.RunnerOf(dtx).Exec(ctx, nil, ins, 3, "c")
	require.NoError(t, err)
	require.NoError(t, dtx.Rollback())
	require.Equal(t, 1, count())

	upd := shardrt.RouteUnit{DataSource: 1, SQL: "UPDATE g23_runner SET v = ? WHERE id = ?"}
	id := int64(1001)
	direct := testing.AllocsPerRun(100, func() { _, _ = src.Exec(ctx, nil, upd, "x", id) })
	runner := testing.AllocsPerRun(100, func() { _, _ = pools.Exec(ctx, nil, upd, "x", id) })
	require.LessOrEqual(t, runner, direct)
}
