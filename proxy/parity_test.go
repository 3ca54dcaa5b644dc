package proxy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/examples/orders/db"
	"github.com/shardgen/shardgen/internal/pipeline"
	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// The orders example project (../examples/orders), whose generated package
// the parity test imports.
const (
	ordersDir     = "../examples/orders"
	ordersProject = ordersDir + "/shardgen.yaml"
)

// ordersActual lists the actual tables of every logic table of the orders
// example on each data source (sharding.yaml's actualDataNodes).
var ordersActual = map[string][]string{
	"t_order":      {"t_order_0", "t_order_1", "t_order_2", "t_order_3"},
	"t_order_item": {"t_order_item_0", "t_order_item_1", "t_order_item_2", "t_order_item_3"},
	"t_dict":       {"t_dict"},
}

// parityCase is one read query of the orders example: the arguments in
// the order of its plan's Params, and the call of its generated function.
type parityCase struct {
	params []any
	call   func(ctx context.Context, q *db.Queries) (any, error)
}

// TestParityOrdersExample checks that, for every annotated SELECT of
// examples/orders/queries, the generated function and the proxy return the
// same rows (the same values; in the same order when the query orders),
// with go-sql-driver over the text protocol (interpolateParams) and the
// binary protocol (prepared statements). Both sides run on the same data
// sources; the rows are written through the generated package.
func TestParityOrdersExample(t *testing.T) {
	ctx := context.Background()
	proj, err := pipeline.Load(ordersProject)
	require.NoError(t, err)

	src, err := os.ReadFile(ordersDir + "/sharding.yaml")
	require.NoError(t, err)
	rcfg, err := runtime.ParseConfig("sharding.yaml", src)
	require.NoError(t, err)
	rt, err := runtime.Open(rcfg)
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })
	createOrdersTables(t, ctx, rt)
	q, err := db.New(rt)
	require.NoError(t, err)

	// 120 orders of 12 users, 1..3 items each, a few dictionary entries.
	type order struct{ user, id int64 }
	var orders []order
	for i := 0; i < 120; i++ {
		user := int64(1000 + i%12)
		res, err := q.CreateOrder(ctx, db.CreateOrderParams{
			UserID: user, Status: []string{"NEW", "PAID", "SHIPPED"}[i%3], Amount: fmt.Sprintf("%d.%02d", 10+i%90, i%100),
			Note:      sql.NullString{String: "gift", Valid: i%7 == 0},
			CreatedAt: time.Date(2026, 11, 1+i%28, 12, i%60, 0, 0, time.UTC),
		})
		require.NoError(t, err)
		id, err := res.LastInsertId()
		require.NoError(t, err)
		orders = append(orders, order{user, id})
		for k := 0; k < 1+i%3; k++ {
			require.NoError(t, q.AddItem(ctx, db.AddItemParams{OrderID: id, UserID: user, Sku: fmt.Sprintf("SKU-%03d", (i+k)%50), Quantity: int32(1 + k), Price: "9.90"}))
		}
	}
	for i, code := range []string{"NEW", "PAID", "SHIPPED"} {
		_, err := q.PutDict(ctx, code, "label "+strconv.Itoa(i))
		require.NoError(t, err)
	}
	o, o2, o3 := orders[25], orders[37], orders[49] // the same user (index ≡ 1 mod 12)

	cases := map[string]parityCase{
		"GetDict": {[]any{"PAID"}, func(ctx context.Context, q *db.Queries) (any, error) { return q.GetDict(ctx, "PAID") }},
		"ListOrderItems": {[]any{o.user, o.id}, func(ctx context.Context, q *db.Queries) (any, error) {
			return q.ListOrderItems(ctx, o.user, o.id)
		}},
		"GetOrder": {[]any{o.user, o.id}, func(ctx context.Context, q *db.Queries) (any, error) { return q.GetOrder(ctx, o.user, o.id) }},
		"ListUserOrders": {[]any{o.user}, func(ctx context.Context, q *db.Queries) (any, error) {
			return q.ListUserOrders(ctx, o.user)
		}},
		"GetOrders": {[]any{o.user, o.id, o2.id, o3.id}, func(ctx context.Context, q *db.Queries) (any, error) {
			return q.GetOrders(ctx, o.user, o.id, o2.id, o3.id)
		}},
		"CountOrdersOfUser": {[]any{o.user, o.id}, func(ctx context.Context, q *db.Queries) (any, error) {
			return q.CountOrdersOfUser(ctx, o.user, o.id)
		}},
		"ListAllOrdersForAudit": {[]any{"60.00"}, func(ctx context.Context, q *db.Queries) (any, error) {
			return q.ListAllOrdersForAudit(ctx, "60.00")
		}},
		"ListRecentOrders": {[]any{o.user, int64(4)}, func(ctx context.Context, q *db.Queries) (any, error) {
			return q.ListRecentOrders(ctx, o.user, 4)
		}},
		"CountOrdersByStatus": {nil, func(ctx context.Context, q *db.Queries) (any, error) { return q.CountOrdersByStatus(ctx) }},
	}

	cfg, err := LoadConfig(ordersDir+"/sharding.yaml", []string{ordersDir + "/schema.sql"})
	require.NoError(t, err)
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", Insecure: true, ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	clients := map[string]*sql.DB{}
	for mode, params := range map[string]map[string]string{"text": {"interpolateParams": "true"}, "binary": nil} {
		c := gomysql.NewConfig()
		c.User, c.Net, c.Addr, c.DBName, c.Params = "root", "tcp", srv.Addr(), cfg.Rules.DatabaseName, params
		cdb, err := sql.Open("mysql", c.FormatDSN())
		require.NoError(t, err)
		t.Cleanup(func() { cdb.Close() })
		clients[mode] = cdb
	}

	seen := 0
	for _, f := range proj.Files {
		for _, p := range f.Plans {
			if p.Statement != plan.StmtSelect {
				continue
			}
			seen++
			c, ok := cases[p.Name]
			require.True(t, ok, "no parity case for the query %s (%s): add one", p.Name, p.Source)
			require.Len(t, c.params, len(p.Params), p.Name)
			ordered := strings.Contains(strings.ToUpper(p.LogicSQL), "ORDER BY")
			res, err := c.call(ctx, q)
			if errors.Is(err, sql.ErrNoRows) {
				res, err = nil, nil
			}
			require.NoError(t, err, p.Name)
			want := generatedRows(t, res)
			require.NotEmpty(t, want, "%s returns no rows: the case tests nothing", p.Name)
			args := make([]any, len(p.Args))
			for i, a := range p.Args {
				args[i] = c.params[a]
			}
			for _, mode := range []string{"text", "binary"} {
				got := proxyRows(t, clients[mode], p.LogicSQL, args...)
				w := want
				if !ordered {
					w, got = sortedRows(w), sortedRows(got)
				}
				require.Equal(t, w, got, "%s over the %s protocol: %s", p.Name, mode, p.LogicSQL)
			}
		}
	}
	require.Equal(t, len(cases), seen, "every parity case names a SELECT of the example")
}

// createOrdersTables drops and creates every actual table of the orders
// example on every data source of rt, from its logic DDL.
func createOrdersTables(t *testing.T, ctx context.Context, rt *runtime.DB) {
	t.Helper()
	tables, err := schema.ParseDDLFile(ordersDir + "/schema.sql")
	require.NoError(t, err)
	src, err := os.ReadFile(ordersDir + "/schema.sql")
	require.NoError(t, err)
	stmts := map[string]string{}
	for _, s := range strings.Split(string(src), ";") {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		if s = strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			stmts[strings.Fields(s)[2]] = s
		}
	}
	require.Len(t, stmts, len(tables))
	for _, ds := range rt.DataSourceNames() {
		pool, ok := rt.Pool(ds)
		require.True(t, ok, ds)
		for logic, actuals := range ordersActual {
			for _, actual := range actuals {
				_, err := pool.ExecContext(ctx, "DROP TABLE IF EXISTS "+actual)
				require.NoError(t, err)
				_, err = pool.ExecContext(ctx, strings.Replace(stmts[logic], "CREATE TABLE "+logic+" ", "CREATE TABLE "+actual+" ", 1))
				require.NoError(t, err)
			}
		}
	}
}

// generatedRows renders the result of a generated function (a row struct,
// a single column's value, a slice of either, or nil) as rows of text cells: integers in decimal,
// strings as they are, invalid sql.Null* as "NULL", times as MySQL prints
// a DATETIME ("2006-01-02 15:04:05", fractions when non-zero).
func generatedRows(t *testing.T, res any) [][]string {
	t.Helper()
	if res == nil {
		return nil
	}
	v := reflect.ValueOf(res)
	var out [][]string
	row := func(s reflect.Value) {
		if s.Kind() != reflect.Struct || s.Type().PkgPath() == "database/sql" || s.Type().PkgPath() == "time" {
			// A query of one result column returns that column's Go type
			// (int64, string, sql.NullString, time.Time), as sqlc does.
			out = append(out, []string{cellText(t, s.Interface())})
			return
		}
		var cells []string
		for i := 0; i < s.NumField(); i++ {
			cells = append(cells, cellText(t, s.Field(i).Interface()))
		}
		out = append(out, cells)
	}
	if v.Kind() == reflect.Slice {
		for i := 0; i < v.Len(); i++ {
			row(v.Index(i))
		}
	} else {
		row(v)
	}
	return out
}

// cellText renders one field of a generated row struct (see generatedRows).
func cellText(t *testing.T, f any) string {
	switch x := f.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case string:
		return x
	case []byte:
		return string(x)
	case time.Time:
		if x.Nanosecond() != 0 {
			return x.Format("2006-01-02 15:04:05.000000")
		}
		return x.Format("2006-01-02 15:04:05")
	case sql.NullString:
		if !x.Valid {
			return "NULL"
		}
		return x.String
	case sql.NullInt64:
		if !x.Valid {
			return "NULL"
		}
		return strconv.FormatInt(x.Int64, 10)
	case sql.NullTime:
		if !x.Valid {
			return "NULL"
		}
		return cellText(t, x.Time)
	}
	t.Fatalf("cellText: no rendering of %T", f)
	return ""
}

// proxyRows runs q with args on c and returns its rows as text cells,
// NULL as "NULL" (the proxy's client DSN leaves parseTime off, so a
// DATETIME is the text MySQL prints).
func proxyRows(t *testing.T, c *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := c.Query(q, args...)
	require.NoError(t, err, q)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var out [][]string
	for rows.Next() {
		cells := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range cells {
			ptrs[i] = &cells[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		row := make([]string, len(cols))
		for i, c := range cells {
			row[i] = "NULL"
			if c.Valid {
				row[i] = c.String
			}
		}
		out = append(out, row)
	}
	require.NoError(t, rows.Err())
	return out
}

// sortedRows returns rows sorted by their cells joined with a separator.
func sortedRows(rows [][]string) [][]string {
	out := append([][]string(nil), rows...)
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], "\x00") < strings.Join(out[j], "\x00") })
	return out
}
