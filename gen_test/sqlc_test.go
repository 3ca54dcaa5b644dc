package gen_test_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	sqlcdb "github.com/shardgen/shardgen/gen_test/cases/sqlc/db"
	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestSqlcOptions runs the generated package of the sqlc case (emit_interface,
// emit_json_tags in camel case, emit_empty_slices, query_parameter_limit: 1,
// a plural table) on the local MariaDB servers: what code written for sqlc
// relies on.
func TestSqlcOptions(t *testing.T) {
	ctx := context.Background()
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, stmt := range []string{"DROP TABLE IF EXISTS g20_orders", "CREATE TABLE g20_orders (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, status VARCHAR(16) NULL)"} {
			_, err := db.ExecContext(ctx, stmt)
			require.NoError(t, err)
		}
	}
	cfg, err := shardrt.LoadConfig("cases/sqlc/rules.yaml")
	require.NoError(t, err)
	rt, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	q, err := sqlcdb.New(rt)
	require.NoError(t, err)
	var querier sqlcdb.Querier = q // emit_interface

	require.NoError(t, querier.AddOrder(ctx, sqlcdb.AddOrderParams{OrderID: 1, UserID: 3, Status: sql.NullString{String: "new", Valid: true}}))
	got, err := querier.GetOrder(ctx, sqlcdb.GetOrderParams{UserID: 3, OrderID: 1})
	require.NoError(t, err)
	js, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, `{"orderId": 1, "userId": 3, "status": {"String": "new", "Valid": true}}`, string(js))

	// :one without a row: sql.ErrNoRows itself.
	_, err = querier.GetOrder(ctx, sqlcdb.GetOrderParams{UserID: 3, OrderID: 2})
	require.True(t, err == sql.ErrNoRows, "got %v", err)

	// :many without a row: an empty slice, not nil, on one data node and
	// on several.
	none, err := querier.ListOrders(ctx, 4)
	require.NoError(t, err)
	require.NotNil(t, none)
	require.Empty(t, none)
	noneOf, err := querier.ListOrdersOf(ctx, sqlcdb.ListOrdersOfParams{UserID: 4, UserID_2: 5})
	require.NoError(t, err)
	require.NotNil(t, noneOf)
	require.Empty(t, noneOf)
	some, err := querier.ListOrdersOf(ctx, sqlcdb.ListOrdersOfParams{UserID: 3, UserID_2: 4})
	require.NoError(t, err)
	require.Equal(t, []sqlcdb.ListOrdersOfRow{{OrderID: 1, UserID: 3}}, some)

	// A data node's error names the query, where it is written and the data
	// node; errors.As still finds the driver's error and the *NodeError,
	// and errors.Is a context error.
	_, err = testdb.Open(t, "ds_1").ExecContext(ctx, "DROP TABLE g20_orders")
	require.NoError(t, err)
	_, err = querier.GetOrder(ctx, sqlcdb.GetOrderParams{UserID: 3, OrderID: 1})
	require.EqualError(t, err, "GetOrder (queries/orders.sql:4): data node ds_1: Error 1146 (42S02): Table 'ds_1.g20_orders' doesn't exist")
	var me *mysql.MySQLError
	require.True(t, errors.As(err, &me) && me.Number == 1146, "errors.As *mysql.MySQLError: %v", err)
	var ne *shardrt.NodeError
	require.True(t, errors.As(err, &ne) && ne.DataSource == "ds_1", "errors.As *shardrt.NodeError: %v", err)
	_, err = querier.ListOrdersOf(ctx, sqlcdb.ListOrdersOfParams{UserID: 3, UserID_2: 4})
	require.ErrorContains(t, err, "ListOrdersOf (queries/orders.sql:10): data node ds_1: Error 1146 (42S02)")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = querier.ListOrdersOf(cancelled, sqlcdb.ListOrdersOfParams{UserID: 3, UserID_2: 4})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "ListOrdersOf (queries/orders.sql:10): ")
}
