package main

// Performance measurements of the generated package in ./db (issue 3);
// docs/performance.md records the figures and the commands.
//
// The generated methods call a shardrt.Runner over a shardrt.Executor, a
// sealed interface, so a test cannot put a fake executor under them. Three honest ways in are used
// instead:
//
//   - BenchmarkRoute*/route... run copies of the generated statements (the
//     route units tables, the inlined route, RouteConditions + pickUnits) that
//     TestReplicaMatchesGenerated compares, statement by statement, with
//     db/*.go: the benchmark fails to match the code the moment the
//     generator changes it.
//   - BenchmarkRoute*/generated-cancelled calls the real generated method with
//     a cancelled context: the route, the executor and database/sql run for
//     real up to database/sql's connection acquisition, which returns
//     context.Canceled before any driver call. .../sql-cancelled is the same
//     call on a plain *sql.DB, so the difference is shardgen's pre-driver
//     work (plus the *NodeError of the error path: one allocation).
//   - BenchmarkE2EGetOrder runs GetOrder against MariaDB next to the same
//     SELECT on the same actual table through plain database/sql, also
//     interleaved in one loop.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/examples/orders/db"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// ---------------------------------------------------------------------------
// Copies of generated code. TestReplicaMatchesGenerated checks every
// declaration and statement below against db/orders.sql.go and db/db.go.

// getOrderStmt: copied from db/orders.sql.go.
var getOrderStmt = shardrt.Stmt{Name: "GetOrder", LogicSQL: "SELECT * FROM t_order WHERE user_id = ? AND order_id = ?"}

// getOrderUnits: copied from db/orders.sql.go.
var getOrderUnits = [...]shardrt.RouteUnit{
	{DataSource: 0, SQL: "SELECT * FROM t_order_0 WHERE user_id = ? AND order_id = ?"}, // ds_0.t_order_0
	{DataSource: 0, SQL: "SELECT * FROM t_order_1 WHERE user_id = ? AND order_id = ?"}, // ds_0.t_order_1
	{DataSource: 0, SQL: "SELECT * FROM t_order_2 WHERE user_id = ? AND order_id = ?"}, // ds_0.t_order_2
	{DataSource: 0, SQL: "SELECT * FROM t_order_3 WHERE user_id = ? AND order_id = ?"}, // ds_0.t_order_3
	{DataSource: 1, SQL: "SELECT * FROM t_order_0 WHERE user_id = ? AND order_id = ?"}, // ds_1.t_order_0
	{DataSource: 1, SQL: "SELECT * FROM t_order_1 WHERE user_id = ? AND order_id = ?"}, // ds_1.t_order_1
	{DataSource: 1, SQL: "SELECT * FROM t_order_2 WHERE user_id = ? AND order_id = ?"}, // ds_1.t_order_2
	{DataSource: 1, SQL: "SELECT * FROM t_order_3 WHERE user_id = ? AND order_id = ?"}, // ds_1.t_order_3
}

// getOrdersUnits: copied from db/orders.sql.go.
var getOrdersUnits = [...]shardrt.RouteUnit{
	{DataSource: 0, SQL: "SELECT order_id, user_id, status FROM t_order_0\nWHERE user_id = ? AND order_id IN (?, ?, ?)"}, // ds_0.t_order_0
	{DataSource: 0, SQL: "SELECT order_id, user_id, status FROM t_order_1\nWHERE user_id = ? AND order_id IN (?, ?, ?)"}, // ds_0.t_order_1
	{DataSource: 0, SQL: "SELECT order_id, user_id, status FROM t_order_2\nWHERE user_id = ? AND order_id IN (?, ?, ?)"}, // ds_0.t_order_2
	{DataSource: 0, SQL: "SELECT order_id, user_id, status FROM t_order_3\nWHERE user_id = ? AND order_id IN (?, ?, ?)"}, // ds_0.t_order_3
	{DataSource: 1, SQL: "SELECT order_id, user_id, status FROM t_order_0\nWHERE user_id = ? AND order_id IN (?, ?, ?)"}, // ds_1.t_order_0
	{DataSource: 1, SQL: "SELECT order_id, user_id, status FROM t_order_1\nWHERE user_id = ? AND order_id IN (?, ?, ?)"}, // ds_1.t_order_1
	{DataSource: 1, SQL: "SELECT order_id, user_id, status FROM t_order_2\nWHERE user_id = ? AND order_id IN (?, ?, ?)"}, // ds_1.t_order_2
	{DataSource: 1, SQL: "SELECT order_id, user_id, status FROM t_order_3\nWHERE user_id = ? AND order_id IN (?, ?, ?)"}, // ds_1.t_order_3
}

// tOrderDataNodes: copied from db/db.go.
var tOrderDataNodes = []shardrt.DataNode{
	{DataSource: "ds_0", Table: "t_order_0"},
	{DataSource: "ds_0", Table: "t_order_1"},
	{DataSource: "ds_0", Table: "t_order_2"},
	{DataSource: "ds_0", Table: "t_order_3"},
	{DataSource: "ds_1", Table: "t_order_0"},
	{DataSource: "ds_1", Table: "t_order_1"},
	{DataSource: "ds_1", Table: "t_order_2"},
	{DataSource: "ds_1", Table: "t_order_3"},
}

// newTOrderTable: body copied from db/db.go.
func newTOrderTable() (*shardrt.ShardingTable, error) {
	database, err := shardrt.NewAlgorithm("MOD", shardrt.Props{"sharding-count": "2"})
	if err != nil {
		return nil, fmt.Errorf("table %q: database sharding algorithm %q: %w", "t_order", "database_mod", err)
	}
	table, err := shardrt.NewAlgorithm("HASH_MOD", shardrt.Props{"sharding-count": "4"})
	if err != nil {
		return nil, fmt.Errorf("table %q: table sharding algorithm %q: %w", "t_order", "table_hash_mod", err)
	}
	t, err := shardrt.NewShardingTable(
		tOrderDataNodes,
		shardrt.StrategyConfig{Kind: shardrt.StandardStrategy, Columns: []string{"user_id"}, Algorithm: database},
		shardrt.StrategyConfig{Kind: shardrt.StandardStrategy, Columns: []string{"order_id"}, Algorithm: table},
	)
	if err != nil {
		return nil, fmt.Errorf("table %q: %w", "t_order", err)
	}
	return t, nil
}

// pickUnits: body copied from db/db.go.
func pickUnits(all []shardrt.RouteUnit, nodes []int) []shardrt.RouteUnit {
	units := make([]shardrt.RouteUnit, len(nodes))
	for i, n := range nodes {
		units[i] = all[n]
	}
	return units
}

// rowExecutor has the method of shardrt.Executor that GetOrder calls, with
// the same signature: the Executor-cancelled benchmark calls it through an
// interface.
type rowExecutor interface {
	QueryRow(ctx context.Context, st *shardrt.Stmt, u shardrt.RouteUnit, args ...any) shardrt.Row
}

// nopRunner has the method of shardrt.Runner that GetOrder calls, with the
// same signature, as a concrete value in replicaQueries.run, as db.Queries.run
// holds a shardrt.Runner, so the call site compiles the same way (variadic
// ...any to a method of a concrete type). It returns a zero Row: it stands
// for the executor without reaching a driver.
type nopRunner struct{}

func (nopRunner) QueryRow(context.Context, *shardrt.Stmt, shardrt.RouteUnit, ...any) shardrt.Row {
	return shardrt.Row{}
}

// replicaQueries has the two fields of db.Queries that the copied
// statements use, under the same names, so they read q.run and q.tOrder.
type replicaQueries struct {
	run    nopRunner
	tOrder *shardrt.ShardingTable
}

// getOrderUnit is GetOrder up to its unit: route and SQL pick. The two
// statements and the returned expression are GetOrder's.
func (q *replicaQueries) getOrderUnit(userID int64, orderID int64) shardrt.RouteUnit {
	ds := shardrt.Mod(userID, 2)
	t := shardrt.HashModLong(orderID, 4)
	return getOrderUnits[ds*4+t]
}

// getOrderCall is GetOrder up to and including its executor call (route,
// SQL pick and the argument list handed to the executor), without Scan.
func (q *replicaQueries) getOrderCall(ctx context.Context, userID int64, orderID int64) shardrt.Row {
	ds := shardrt.Mod(userID, 2)
	t := shardrt.HashModLong(orderID, 4)
	return q.run.QueryRow(ctx, &getOrderStmt, getOrderUnits[ds*4+t], userID, orderID)
}

// getOrdersRoute is GetOrders up to its units: RouteConditions over the IN list and
// pickUnits. The three statements are GetOrders'.
func (q *replicaQueries) getOrdersRoute(userID int64, orderID int64, orderID_2 int64, orderID_3 int64) ([]shardrt.RouteUnit, error) {
	nodes, err := q.tOrder.RouteConditions([][]shardrt.ShardingValues{{
		{Column: "user_id", Values: []shardrt.Value{shardrt.Long(userID)}},
		{Column: "order_id", Values: []shardrt.Value{shardrt.Long(orderID), shardrt.Long(orderID_2), shardrt.Long(orderID_3)}},
	}}, shardrt.HintValues{})
	if err != nil {
		return nil, shardrt.WrapQuery("GetOrders (queries/orders.sql:14)", err)
	}
	units := pickUnits(getOrdersUnits[:], nodes)
	return units, nil
}

// ---------------------------------------------------------------------------
// Benchmarks without a database.

// Sinks keep the compiler from dropping the measured work.
var (
	sinkUnit  shardrt.RouteUnit
	sinkUnits []shardrt.RouteUnit
	sinkRow   shardrt.Row
	sinkNode  int
)

// benchKey is one order: its user and its snowflake-sized order id.
type benchKey struct{ user, order int64 }

// benchKeys returns 64 keys spread over every data node of t_order: users
// 1000..1199 and order ids the size snowflake gives (about 2^58), so that
// boxing them into `any` allocates as it does in production (Go boxes only
// 0..255 without allocating).
func benchKeys() []benchKey {
	keys := make([]benchKey, 64)
	for i := range keys {
		ms := int64(1_760_000_000_000-1_288_834_974_657) + int64(i)*7919 // SS snowflake epoch
		keys[i] = benchKey{user: 1000 + int64(i*37%200), order: ms<<22 | 1<<12 | int64(i)}
	}
	return keys
}

// benchReplica is the replica Queries of the benchmarks; a package variable,
// so the compiler cannot see the executor's concrete type at the call.
var benchReplica = &replicaQueries{}

// benchExecutor holds the *shardrt.Sources of BenchmarkRouteGetOrder as an
// interface value in a package variable, as db.Queries.ex does in a field, so
// that the compiler cannot devirtualize the call.
var benchExecutor rowExecutor

// openOrders opens the example's data sources from sharding.yaml (without
// connecting) and returns the generated queries over them and the pools by
// data source index.
func openOrders(b testing.TB) (*db.Queries, *shardrt.DB, []*sql.DB) {
	b.Helper()
	cfg, err := shardrt.ParseConfig("sharding.yaml", shardingYAML)
	require.NoError(b, err)
	rt, err := shardrt.Open(cfg)
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, rt.Close()) })
	q, err := db.New(rt)
	require.NoError(b, err)
	var pools []*sql.DB
	for _, name := range []string{"ds_0", "ds_1"} { // dataSourceNames of package db
		p, ok := rt.Pool(name)
		require.True(b, ok, name)
		pools = append(pools, p)
	}
	return q, rt, pools
}

// cancelledContext returns a context that is already cancelled: database/sql
// returns context.Canceled from connection acquisition, before any driver
// call.
func cancelledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// BenchmarkRouteGetOrder measures what GetOrder (a single-node point select,
// MOD + HASH_MOD inlined) does before the driver:
//
//   - route: the route and SQL pick (two inlined functions and an array
//     index), on the copied statements;
//   - route+call: the same plus the executor call with its arguments
//     (userID, orderID boxed into a ...any through an interface method),
//     the executor being a no-op;
//   - generated-cancelled: the real db.Queries.GetOrder with a cancelled
//     context: route, executor, database/sql up to connection acquisition,
//     the error wrapped in *NodeError, Row.Scan;
//   - sql-cancelled: the same SELECT on the same actual table through
//     sql.DB.QueryRowContext with a cancelled context, scanned into the same
//     row type: the baseline of generated-cancelled.
func BenchmarkRouteGetOrder(b *testing.B) {
	keys := benchKeys()
	ctx := context.Background()
	b.Run("route", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k := keys[i&63]
			sinkUnit = benchReplica.getOrderUnit(k.user, k.order)
		}
	})
	b.Run("route+call", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k := keys[i&63]
			sinkRow = benchReplica.getOrderCall(ctx, k.user, k.order)
		}
	})
	q, rt, pools := openOrders(b)
	cctx := cancelledContext()
	b.Run("generated-cancelled", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k := keys[i&63]
			if _, err := q.GetOrder(cctx, k.user, k.order); !errors.Is(err, context.Canceled) {
				b.Fatalf("GetOrder with a cancelled context: %v", err)
			}
		}
	})
	// The same route and call as generated-cancelled, on the executor held
	// as a concrete *shardrt.Sources (as db.Queries.run calls it outside a
	// transaction) and as a shardrt.Executor interface value: the
	// difference is the escape of the variadic argument slice through the
	// interface call.
	src, err := rt.Sources([]string{"ds_0", "ds_1"})
	require.NoError(b, err)
	benchExecutor = src
	b.Run("Sources-cancelled", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k := keys[i&63]
			var r db.TOrder
			err := src.QueryRow(cctx, &getOrderStmt, benchReplica.getOrderUnit(k.user, k.order), k.user, k.order).Scan(&r.OrderID, &r.UserID, &r.Status, &r.Amount, &r.Note, &r.CreatedAt)
			if !errors.Is(err, context.Canceled) {
				b.Fatalf("Sources.QueryRow with a cancelled context: %v", err)
			}
		}
	})
	b.Run("Executor-cancelled", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k := keys[i&63]
			var r db.TOrder
			err := benchExecutor.QueryRow(cctx, &getOrderStmt, benchReplica.getOrderUnit(k.user, k.order), k.user, k.order).Scan(&r.OrderID, &r.UserID, &r.Status, &r.Amount, &r.Note, &r.CreatedAt)
			if !errors.Is(err, context.Canceled) {
				b.Fatalf("Executor.QueryRow with a cancelled context: %v", err)
			}
		}
	})
	type plain struct {
		pool *sql.DB
		sql  string
	}
	plains := make([]plain, len(keys))
	for i, k := range keys {
		u := benchReplica.getOrderUnit(k.user, k.order)
		plains[i] = plain{pools[u.DataSource], u.SQL}
	}
	b.Run("sql-cancelled", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k, p := keys[i&63], plains[i&63]
			var r db.TOrder
			err := p.pool.QueryRowContext(cctx, p.sql, k.user, k.order).Scan(&r.OrderID, &r.UserID, &r.Status, &r.Amount, &r.Note, &r.CreatedAt)
			if !errors.Is(err, context.Canceled) {
				b.Fatalf("QueryRowContext with a cancelled context: %v", err)
			}
		}
	})
}

// BenchmarkRouteGetOrders measures the MultiNode path of GetOrders
// (user_id = ? AND order_id IN (?, ?, ?)): ShardingTable.RouteConditions over the
// sharding values built from the arguments, then pickUnits (route), and
// the real generated method with a cancelled context, which adds the
// argument slice and QueryUnits (several units run in parallel, each
// failing at connection acquisition).
func BenchmarkRouteGetOrders(b *testing.B) {
	keys := benchKeys()
	q, _, _ := openOrders(b)
	benchReplica.tOrder = mustTOrderTable(b)
	ins := inTriples(keys)
	b.Run("route", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k, in := keys[i&63], &ins[i&63]
			units, err := benchReplica.getOrdersRoute(k.user, in[0], in[1], in[2])
			if err != nil || len(units) != 3 {
				b.Fatalf("getOrdersRoute: %d units, %v", len(units), err)
			}
			sinkUnits = units
		}
	})
	cctx := cancelledContext()
	b.Run("generated-cancelled", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			k, in := keys[i&63], &ins[i&63]
			if _, err := q.GetOrders(cctx, k.user, in[0], in[1], in[2]); !errors.Is(err, context.Canceled) {
				b.Fatalf("GetOrders with a cancelled context: %v", err)
			}
		}
	})
}

// inTriples returns, for each key, three order ids (its own first) that
// HASH_MOD sends to three different tables, so that GetOrders routes to
// three data nodes of one data source.
func inTriples(keys []benchKey) [][3]int64 {
	out := make([][3]int64, len(keys))
	for i, k := range keys {
		out[i][0] = k.order
		used := map[int]bool{shardrt.HashModLong(k.order, 4): true}
		n := 1
		for j := 1; n < 3; j++ {
			o := keys[(i+j)%len(keys)].order
			if t := shardrt.HashModLong(o, 4); !used[t] {
				used[t] = true
				out[i][n] = o
				n++
			}
		}
	}
	return out
}

// mustTOrderTable is newTOrderTable for tests.
func mustTOrderTable(t testing.TB) *shardrt.ShardingTable {
	t.Helper()
	tbl, err := newTOrderTable()
	require.NoError(t, err)
	return tbl
}

// preciseCase is one non-inlined single-node route: a ShardingTable whose
// algorithms the generator cannot inline, so generated code calls
// PreciseNode and indexes its units table with the node:
//
//	node, err := q.tOrder.PreciseNode(shardrt.Long(userID), shardrt.Time(createdAt))
//	if err != nil {
//		return TOrder{}, err
//	}
//	... xUnits[node] ...
type preciseCase struct {
	name   string
	table  *shardrt.ShardingTable
	units  []shardrt.RouteUnit // one per data node
	values func(i int) (db, table shardrt.Value)
}

// preciseCases builds the tables of BenchmarkRoutePreciseNode: database MOD
// on user_id over ds_0, ds_1, and as table strategy INTERVAL by month (Time
// and String values), INLINE with hashCode() (String and Long values), and
// HASH_MOD through the bound algorithm (the path GetOrder inlines).
func preciseCases(t testing.TB) []preciseCase {
	t.Helper()
	keys := benchKeys()
	months := make([]string, 12)
	for m := range months {
		months[m] = fmt.Sprintf("t_order_2026%02d", m+1)
	}
	quarters := []string{"t_order_0", "t_order_1", "t_order_2", "t_order_3"}
	mk := func(name, column string, tables []string, typ string, props shardrt.Props, values func(i int) (shardrt.Value, shardrt.Value)) preciseCase {
		var nodes []shardrt.DataNode
		var units []shardrt.RouteUnit
		for d, ds := range []string{"ds_0", "ds_1"} {
			for _, tb := range tables {
				nodes = append(nodes, shardrt.DataNode{DataSource: ds, Table: tb})
				units = append(units, shardrt.RouteUnit{DataSource: d, SQL: "SELECT * FROM " + tb + " WHERE user_id = ? AND " + column + " = ?"})
			}
		}
		database, err := shardrt.NewAlgorithm("MOD", shardrt.Props{"sharding-count": "2"})
		require.NoError(t, err)
		table, err := shardrt.NewAlgorithm(typ, props)
		require.NoError(t, err, name)
		tbl, err := shardrt.NewShardingTable(nodes,
			shardrt.StrategyConfig{Kind: shardrt.StandardStrategy, Columns: []string{"user_id"}, Algorithm: database},
			shardrt.StrategyConfig{Kind: shardrt.StandardStrategy, Columns: []string{column}, Algorithm: table})
		require.NoError(t, err, name)
		return preciseCase{name: name, table: tbl, units: units, values: values}
	}
	interval := shardrt.Props{
		"datetime-pattern": "yyyy-MM-dd HH:mm:ss", "datetime-lower": "2026-01-01 00:00:00", "datetime-upper": "2026-12-31 23:59:59",
		"sharding-suffix-pattern": "yyyyMM", "datetime-interval-amount": "1", "datetime-interval-unit": "MONTHS",
	}
	times := make([]time.Time, 64)
	texts := make([]string, 64)
	orderNos := make([]string, 64)
	for i := range times {
		times[i] = time.Date(2026, time.Month(1+i%12), 1+i%28, i%24, i, 0, 0, time.UTC)
		texts[i] = times[i].Format(time.DateTime)
		orderNos[i] = "ORD" + strconv.FormatInt(keys[i].order, 10)
	}
	return []preciseCase{
		mk("INTERVAL/Time", "created_at", months, "INTERVAL", interval, func(i int) (shardrt.Value, shardrt.Value) {
			return shardrt.Long(keys[i&63].user), shardrt.Time(times[i&63])
		}),
		mk("INTERVAL/String", "created_at", months, "INTERVAL", interval, func(i int) (shardrt.Value, shardrt.Value) {
			return shardrt.Long(keys[i&63].user), shardrt.String(texts[i&63])
		}),
		mk("INLINE-hashCode/String", "order_no", quarters, "INLINE", shardrt.Props{"algorithm-expression": "t_order_${Math.abs(order_no.hashCode()) % 4}"}, func(i int) (shardrt.Value, shardrt.Value) {
			return shardrt.Long(keys[i&63].user), shardrt.String(orderNos[i&63])
		}),
		mk("INLINE-hashCode/Long", "order_id", quarters, "INLINE", shardrt.Props{"algorithm-expression": "t_order_${Math.abs(order_id.hashCode()) % 4}"}, func(i int) (shardrt.Value, shardrt.Value) {
			return shardrt.Long(keys[i&63].user), shardrt.Long(keys[i&63].order)
		}),
		mk("HASH_MOD/Long", "order_id", quarters, "HASH_MOD", shardrt.Props{"sharding-count": "4"}, func(i int) (shardrt.Value, shardrt.Value) {
			return shardrt.Long(keys[i&63].user), shardrt.Long(keys[i&63].order)
		}),
	}
}

// BenchmarkRoutePreciseNode measures the non-inlined single-node route:
// ShardingTable.PreciseNode on the database and table sharding values, then
// the units table indexed by the node (what generated code does for
// algorithms it cannot inline).
func BenchmarkRoutePreciseNode(b *testing.B) {
	for _, c := range preciseCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				dbv, tv := c.values(i)
				node, err := c.table.PreciseNode(dbv, tv)
				if err != nil {
					b.Fatal(err)
				}
				sinkUnit = c.units[node]
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Guards: the copies match the generated code, and the route allocates
// nothing.

// goSource is a set of parsed Go files.
type goSource struct {
	fset  *token.FileSet
	files []*ast.File
}

func parseGoFiles(t *testing.T, paths ...string) *goSource {
	t.Helper()
	s := &goSource{fset: token.NewFileSet()}
	for _, p := range paths {
		f, err := parser.ParseFile(s.fset, p, nil, 0)
		require.NoError(t, err)
		s.files = append(s.files, f)
	}
	return s
}

// text prints n without comments.
func (s *goSource) text(t *testing.T, n ast.Node) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, printer.Fprint(&buf, s.fset, n))
	return buf.String()
}

// texts prints each statement.
func (s *goSource) texts(t *testing.T, stmts []ast.Stmt) []string {
	t.Helper()
	out := make([]string, len(stmts))
	for i, st := range stmts {
		out[i] = s.text(t, st)
	}
	return out
}

// fn returns the body of the function or method name.
func (s *goSource) fn(t *testing.T, name string) []ast.Stmt {
	t.Helper()
	for _, f := range s.files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
				return fd.Body.List
			}
		}
	}
	t.Fatalf("no function %s", name)
	return nil
}

// value returns the text of the value of package-level variable name.
func (s *goSource) value(t *testing.T, name string) string {
	t.Helper()
	for _, f := range s.files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				if len(vs.Names) == 1 && vs.Names[0].Name == name && len(vs.Values) == 1 {
					return s.text(t, vs.Values[0])
				}
			}
		}
	}
	t.Fatalf("no variable %s", name)
	return ""
}

// returned returns the text of the results of the last statement of body, a
// return statement.
func (s *goSource) returned(t *testing.T, body []ast.Stmt) []string {
	t.Helper()
	ret, ok := body[len(body)-1].(*ast.ReturnStmt)
	require.True(t, ok, "last statement is not a return")
	var out []string
	for _, r := range ret.Results {
		out = append(out, s.text(t, r))
	}
	return out
}

// TestReplicaMatchesGenerated checks that the code the Route benchmarks run
// is the generated code: the tables and helpers are equal to those of db/,
// and the replica methods start with GetOrder's and GetOrders' own
// statements. When it fails, copy the new generated code into this file.
func TestReplicaMatchesGenerated(t *testing.T) {
	gen := parseGoFiles(t, "db/orders.sql.go", "db/db.go")
	rep := parseGoFiles(t, "bench_test.go")
	for _, name := range []string{"getOrderStmt", "getOrderUnits", "getOrdersUnits", "tOrderDataNodes"} {
		require.Equal(t, gen.value(t, name), rep.value(t, name), name)
	}
	for _, name := range []string{"newTOrderTable", "pickUnits"} {
		require.Equal(t, gen.texts(t, gen.fn(t, name)), rep.texts(t, rep.fn(t, name)), name)
	}

	// GetOrder: ds := ...; t := ...; var r TOrder; err := q.run.QueryRow(...).Scan(...); return r, shardrt.WrapQuery(..., err)
	getOrder := gen.fn(t, "GetOrder")
	require.Len(t, getOrder, 5)
	call := getOrder[3].(*ast.AssignStmt).Rhs[0].(*ast.CallExpr).Fun.(*ast.SelectorExpr).X.(*ast.CallExpr)
	require.Equal(t, "q.run.QueryRow", gen.text(t, call.Fun))
	unitOnly := rep.fn(t, "getOrderUnit")
	withCall := rep.fn(t, "getOrderCall")
	require.Equal(t, gen.texts(t, getOrder[:2]), rep.texts(t, unitOnly[:len(unitOnly)-1]))
	require.Equal(t, gen.texts(t, getOrder[:2]), rep.texts(t, withCall[:len(withCall)-1]))
	require.Equal(t, []string{gen.text(t, call.Args[2])}, rep.returned(t, unitOnly))
	require.Equal(t, []string{gen.text(t, call)}, rep.returned(t, withCall))

	// GetOrders: nodes, err := q.tOrder.RouteConditions(...); if err != nil {...}; units := pickUnits(...);
	// rows, err := shardrt.QueryUnits(...); return rows, shardrt.WrapQuery(...)
	getOrders := gen.fn(t, "GetOrders")
	require.Len(t, getOrders, 5)
	route := rep.fn(t, "getOrdersRoute")
	require.Equal(t, gen.texts(t, getOrders[:3]), rep.texts(t, route[:len(route)-1]))
}

// TestRouteDoesNotAllocate: the single-node route and SQL pick of GetOrder
// allocate nothing.
func TestRouteDoesNotAllocate(t *testing.T) {
	keys := benchKeys()
	allocs := testing.AllocsPerRun(1000, func() {
		for _, k := range keys {
			sinkUnit = benchReplica.getOrderUnit(k.user, k.order)
		}
	})
	require.Zero(t, allocs)
}

// TestBenchKeysSpreadOverNodes: the benchmark keys reach every data node of
// t_order, and the replica route agrees with the bound algorithms
// (PreciseNode) on each of them.
func TestBenchKeysSpreadOverNodes(t *testing.T) {
	tbl := mustTOrderTable(t)
	seen := map[int]bool{}
	for _, k := range benchKeys() {
		node, err := tbl.PreciseNode(shardrt.Long(k.user), shardrt.Long(k.order))
		require.NoError(t, err)
		require.Equal(t, getOrderUnits[node], benchReplica.getOrderUnit(k.user, k.order))
		seen[node] = true
	}
	require.Len(t, seen, len(getOrderUnits))
}

// ---------------------------------------------------------------------------
// End to end on MariaDB.

// e2eOrder is one order created for the end-to-end benchmark, with the pool
// and actual SQL a hand-written program would use for it.
type e2eOrder struct {
	user, order int64
	pool        *sql.DB
	sql         string
}

// openE2E connects to the local MariaDB servers (`make db-up`; it fails, never
// skips, when they are down), creates the actual tables of t_order if they
// are missing (it never drops: the demo's rows stay), inserts 64 orders
// through the generated CreateOrder and deletes them at cleanup.
func openE2E(b *testing.B) (*db.Queries, []e2eOrder) {
	b.Helper()
	q, rt, pools := openOrders(b)
	ctx := context.Background()
	require.NoError(b, rt.Ping(ctx), "the local MariaDB servers must be up: run `make db-up`")
	start := strings.Index(schemaSQL, "CREATE TABLE t_order (")
	require.GreaterOrEqual(b, start, 0, "schema.sql has no CREATE TABLE t_order")
	ddl := schemaSQL[start : start+strings.Index(schemaSQL[start:], ";")]
	for _, pool := range pools {
		for _, actual := range actualTables["t_order"] {
			_, err := pool.ExecContext(ctx, strings.Replace(ddl, "CREATE TABLE t_order (", "CREATE TABLE IF NOT EXISTS "+actual+" (", 1))
			require.NoError(b, err)
		}
	}
	orders := make([]e2eOrder, 64)
	for i := range orders {
		user := int64(5_000_000 + i) // outside the demo's users
		res, err := q.CreateOrder(ctx, db.CreateOrderParams{
			UserID: user, Status: "NEW", Amount: "12.34", Note: sql.NullString{String: "bench", Valid: i%2 == 0},
			CreatedAt: time.Date(2026, 11, 1+i%28, 12, 0, 0, 0, time.UTC),
		})
		require.NoError(b, err)
		id, err := res.LastInsertId()
		require.NoError(b, err)
		u := benchReplica.getOrderUnit(user, id)
		orders[i] = e2eOrder{user: user, order: id, pool: pools[u.DataSource], sql: u.SQL}
	}
	b.Cleanup(func() {
		for _, o := range orders {
			require.NoError(b, q.DeleteOrder(context.Background(), o.user, o.order))
		}
	})
	// Both paths read the same row; this also warms the pools.
	for _, o := range orders {
		got, err := q.GetOrder(ctx, o.user, o.order)
		require.NoError(b, err)
		want, err := plainGetOrder(ctx, o)
		require.NoError(b, err)
		require.Equal(b, want, got)
	}
	return q, orders
}

// plainGetOrder is GetOrder written by hand with database/sql for a program
// that already knows the actual table.
func plainGetOrder(ctx context.Context, o e2eOrder) (db.TOrder, error) {
	var r db.TOrder
	err := o.pool.QueryRowContext(ctx, o.sql, o.user, o.order).Scan(&r.OrderID, &r.UserID, &r.Status, &r.Amount, &r.Note, &r.CreatedAt)
	return r, err
}

// BenchmarkE2EGetOrder runs GetOrder on MariaDB (two round trips per call:
// the driver prepares and executes, as interpolateParams is off) through the
// generated code and through plain database/sql on the same pool, row and
// actual table. generated and database_sql run one after the other;
// interleaved alternates them in one loop (ABBA order) and reports each
// side's ns/op and their ratio as custom metrics, so drift of the servers
// over the run affects both alike. Its ns/op is that of one pair.
func BenchmarkE2EGetOrder(b *testing.B) {
	q, orders := openE2E(b)
	ctx := context.Background()
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			o := orders[i&63]
			if _, err := q.GetOrder(ctx, o.user, o.order); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("database_sql", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := plainGetOrder(ctx, orders[i&63]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		b.ReportAllocs()
		var gen, plain time.Duration
		n := 0
		run := func(o e2eOrder, generated bool) time.Duration {
			start := time.Now()
			var err error
			if generated {
				_, err = q.GetOrder(ctx, o.user, o.order)
			} else {
				_, err = plainGetOrder(ctx, o)
			}
			d := time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			return d
		}
		for i := 0; b.Loop(); i++ {
			o := orders[i&63]
			first := i&1 == 0
			d1 := run(o, first)
			d2 := run(o, !first)
			if first {
				gen, plain = gen+d1, plain+d2
			} else {
				gen, plain = gen+d2, plain+d1
			}
			n++
		}
		b.ReportMetric(float64(gen.Nanoseconds())/float64(n), "gen-ns/op")
		b.ReportMetric(float64(plain.Nanoseconds())/float64(n), "sql-ns/op")
		b.ReportMetric(float64(gen)/float64(plain), "gen/sql")
	})
}
