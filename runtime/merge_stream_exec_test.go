package runtime_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestQueryMergedStreams: with one unit per data source (within
// max-connections-size-per-query) the merge reads from open results, so an
// ORDER BY ... LIMIT stops after a few rows and Close hands every connection
// back; with more units per data source than connections it buffers, with
// the same answer.
func TestQueryMergedStreams(t *testing.T) {
	db, src := openTestSources(t, "")
	createTestTable(t, db, "mq_t")
	ctx := context.Background()
	for i, ds := range []string{"ds_0", "ds_1", "ds_2", "ds_3"} {
		pool, _ := db.Pool(ds)
		for k := 0; k < 50; k++ {
			id := k*4 + i
			_, err := pool.ExecContext(ctx, "INSERT INTO mq_t VALUES (?, ?)", id, fmt.Sprintf("v%03d", id))
			require.NoError(t, err)
		}
	}
	spec := &shardrt.MergeSpec{Columns: 2, Visible: 2,
		Kinds:   []shardrt.ColumnKind{{Type: shardrt.ColumnInt}, {Type: shardrt.ColumnString, Collation: shardrt.CollationUTF8MB4GeneralCI}},
		OrderBy: []shardrt.SortKey{{Column: 0, Desc: true}}, Count: shardrt.LimitValue{Value: 3}}
	units := []shardrt.RouteUnit{
		{DataSource: 0, SQL: "SELECT id, v FROM mq_t ORDER BY id DESC"},
		{DataSource: 1, SQL: "SELECT id, v FROM mq_t ORDER BY id DESC"},
		{DataSource: 2, SQL: "SELECT id, v FROM mq_t ORDER BY id DESC"},
		{DataSource: 3, SQL: "SELECT id, v FROM mq_t ORDER BY id DESC"},
	}
	read := func(m *shardrt.MergedRows) []int64 {
		var ids []int64
		for {
			row, err := m.Next()
			if err == io.EOF {
				return ids
			}
			require.NoError(t, err)
			ids = append(ids, row[0].Int())
		}
	}
	m, err := shardrt.QueryMerged(ctx, src, nil, units, nil, spec, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{199, 198, 197}, read(m))
	for _, ds := range []string{"ds_0", "ds_1", "ds_2", "ds_3"} {
		pool, _ := db.Pool(ds)
		require.Zero(t, pool.Stats().InUse, "connections of %s handed back", ds)
	}

	// Stopping early: Close releases the open results.
	m, err = shardrt.QueryMerged(ctx, src, nil, units, nil, &shardrt.MergeSpec{Columns: 2, Visible: 2, Kinds: spec.Kinds, OrderBy: spec.OrderBy, Count: shardrt.NoLimit}, nil)
	require.NoError(t, err)
	row, err := m.Next()
	require.NoError(t, err)
	require.Equal(t, int64(199), row[0].Int())
	require.NoError(t, m.Close())
	for _, ds := range []string{"ds_0", "ds_1", "ds_2", "ds_3"} {
		pool, _ := db.Pool(ds)
		require.Zero(t, pool.Stats().InUse, "connections of %s handed back after Close", ds)
	}

	// Two units on one data source with one connection per query: buffered,
	// same answer.
	two := append(units, shardrt.RouteUnit{DataSource: 0, SQL: "SELECT id, v FROM mq_t WHERE id < 0 ORDER BY id DESC"})
	m, err = shardrt.QueryMerged(ctx, src, nil, two, nil, spec, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{199, 198, 197}, read(m))
}
