package gen_test_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	slicedb "github.com/shardgen/shardgen/gen_test/cases/slice/db"
	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestSliceLimit: MySQL's limit of 65,535 placeholders holds per data node.
// 70,000 distinct user ids that all route to ds_0 (user_id MOD 2) fail
// before anything runs, the error naming the data node and the query; the
// same number spread over both data sources (35,000 each) runs on the
// local servers.
func TestSliceLimit(t *testing.T) {
	ctx := context.Background()
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"g40_order_0", "g40_order_1"} {
			_, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+tb+" (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, status VARCHAR(16) NOT NULL, amount INT NOT NULL)")
			require.NoError(t, err)
		}
	}
	cfg, err := shardrt.LoadConfig("cases/slice/rules.yaml")
	require.NoError(t, err)
	rt, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	q, err := slicedb.New(rt)
	require.NoError(t, err)

	const n, base = 70000, 1 << 40 // ids no other test writes
	even, all := make([]int64, n), make([]int64, n)
	for i := range n {
		even[i], all[i] = base+2*int64(i), base+int64(i)
	}
	_, err = q.CountOfUsers(ctx, even)
	require.EqualError(t, err, "CountOfUsers (queries/slice.sql:24): data node ds_0: sqlc.slice list of 70000 distinct values there, 70000 placeholders with the other arguments: more placeholders than MySQL's limit of 65535 for one statement (ER_PS_MANY_PARAM)")
	require.ErrorIs(t, err, shardrt.ErrTooManyPlaceholders)
	var nerr *shardrt.NodeError
	require.True(t, errors.As(err, &nerr))
	require.Equal(t, "ds_0", nerr.DataSource)

	got, err := q.CountOfUsers(ctx, all)
	require.NoError(t, err)
	require.Zero(t, got)
}
