package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/examples/orders/db"
	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestGeneratedWritesDataSourceDown: with ds_1 down (its port has no
// listener), the generated broadcast write PutDict and the multi-row
// AddItems (one row per data source) fail naming ds_1 and leave ds_0 as it
// was, auto-committed and inside q.Tx, where what ran before the failed
// statement still commits.
func TestGeneratedWritesDataSourceDown(t *testing.T) {
	ctx := context.Background()
	rt, err := shardrt.Open(&shardrt.Config{DataSources: []shardrt.NamedDataSource{
		{Name: "ds_0", Config: shardrt.DataSourceConfig{DSN: testdb.DSN("ds_0")}},
		{Name: "ds_1", Config: shardrt.DataSourceConfig{DSN: testdb.DownDSN(t, "ds_1")}},
	}})
	require.NoError(t, err)
	defer rt.Close()
	q, err := db.New(rt)
	require.NoError(t, err)
	ds0 := testdb.Open(t, "ds_0")
	for _, stmt := range []string{
		"CREATE TABLE IF NOT EXISTS t_dict (code VARCHAR(32) NOT NULL PRIMARY KEY, label VARCHAR(64) NOT NULL)",
		"CREATE TABLE IF NOT EXISTS t_order_item_0 (order_item_id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, sku VARCHAR(64) NOT NULL, quantity INT NOT NULL, price DECIMAL(12,2) NOT NULL)",
	} {
		_, err := ds0.Exec(stmt)
		require.NoError(t, err)
	}
	for i := 1; i < 4; i++ {
		_, err := ds0.Exec("CREATE TABLE IF NOT EXISTS t_order_item_" + strconv.Itoa(i) + " LIKE t_order_item_0")
		require.NoError(t, err)
	}
	mark := "atomic-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	defer func() {
		_, _ = ds0.Exec("DELETE FROM t_dict WHERE code LIKE ?", mark+"%")
		for i := range 4 {
			_, _ = ds0.Exec("DELETE FROM t_order_item_"+strconv.Itoa(i)+" WHERE sku LIKE ?", mark+"%")
		}
	}()
	// count returns how many rows of this test ds_0 holds.
	count := func() string {
		var dict, items int
		require.NoError(t, ds0.QueryRow("SELECT COUNT(*) FROM t_dict WHERE code LIKE ?", mark+"%").Scan(&dict))
		for i := range 4 {
			var n int
			require.NoError(t, ds0.QueryRow("SELECT COUNT(*) FROM t_order_item_"+strconv.Itoa(i)+" WHERE sku LIKE ?", mark+"%").Scan(&n))
			items += n
		}
		return "dict=" + strconv.Itoa(dict) + " items=" + strconv.Itoa(items)
	}
	items := db.AddItemsParams{OrderID: 10, UserID: 2, Sku: mark + "-a", Quantity: 1, Price: "1.00",
		OrderID_2: 11, UserID_2: 3, Sku_2: mark + "-b", Quantity_2: 1, Price_2: "1.00"} // user 2 on ds_0, user 3 on ds_1
	writes := func(q *db.Queries) {
		_, err := q.PutDict(ctx, mark, "x")
		require.ErrorContains(t, err, "data node ds_1:")
		_, err = q.AddItems(ctx, items)
		require.ErrorContains(t, err, "data node ds_1:")
	}

	writes(q)
	require.Equal(t, "dict=0 items=0", count())

	err = q.Tx(ctx, shardrt.TxOptions{}, func(q *db.Queries) error {
		if err := q.AddItem(ctx, db.AddItemParams{OrderID: 12, UserID: 4, Sku: mark + "-before", Quantity: 1, Price: "1.00"}); err != nil {
			return err
		}
		writes(q)
		return q.AddItem(ctx, db.AddItemParams{OrderID: 13, UserID: 4, Sku: mark + "-after", Quantity: 1, Price: "1.00"})
	})
	require.NoError(t, err)
	require.Equal(t, "dict=0 items=2", count())
	var skus []string
	for i := range 4 {
		rows, err := ds0.Query("SELECT sku FROM t_order_item_"+strconv.Itoa(i)+" WHERE sku LIKE ?", mark+"%")
		require.NoError(t, err)
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			skus = append(skus, strings.TrimPrefix(s, mark))
		}
		require.NoError(t, rows.Close())
	}
	require.ElementsMatch(t, []string{"-before", "-after"}, skus)
}
