package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// stepsRouters returns the routers of StepsOptions.Tables: steps_a, id
// MOD 4 over ds_0..ds_3.
func stepsRouters(t *testing.T) func(string) *shardrt.ShardingTable {
	t.Helper()
	mod, err := shardrt.NewAlgorithm("MOD", shardrt.Props{"sharding-count": "4"})
	require.NoError(t, err)
	var nodes []shardrt.DataNode
	for _, ds := range testDataSources[:4] {
		nodes = append(nodes, shardrt.DataNode{DataSource: ds, Table: "steps_a"})
	}
	table, err := shardrt.NewShardingTable(nodes, shardrt.StrategyConfig{Kind: shardrt.StandardStrategy, Columns: []string{"id"}, Algorithm: mod}, shardrt.StrategyConfig{})
	require.NoError(t, err)
	tables := func(name string) *shardrt.ShardingTable {
		if name == "steps_a" {
			return table
		}
		return nil
	}
	return tables
}

// TestRunStepsRoute: a step whose statement compares the sharding column
// with parameters runs only on the data nodes the algorithm picks for
// their values (StepQuery.Route), converted as MySQL compares them; where
// that cannot be exact every unit runs. The rows are the same either way.
func TestRunStepsRoute(t *testing.T) {
	db, src := openTestSources(t, "")
	stepsTables(t, db) // steps_a: id MOD 4 over ds_0..ds_3
	ctx := context.Background()
	tables := stepsRouters(t)
	// part is a UNION part over steps_a's four data nodes, each unit's SQL
	// naming its data source so that the test counts where it ran.
	part := func(where string, args ...int) *shardrt.StepQuery {
		q := &shardrt.StepQuery{Stmt: shardrt.Stmt{Name: "steps", LogicSQL: "SELECT id FROM steps_a WHERE " + where}, Columns: 1, Args: args,
			Route: &shardrt.StepRoute{Table: "steps_a", Nodes: []int{0, 1, 2, 3}, Conditions: []shardrt.StepConditions{{Columns: []shardrt.StepCondition{
				{Column: "id", Class: shardrt.ClassInteger, Args: args, Kinds: make([]shardrt.ValueKind, len(args))}}}}}}
		for i := range q.Route.Conditions[0].Columns[0].Kinds {
			q.Route.Conditions[0].Columns[0].Kinds[i] = shardrt.KindLong
		}
		for d := range 4 {
			q.Units = append(q.Units, shardrt.RouteUnit{DataSource: d, SQL: fmt.Sprintf("SELECT id FROM steps_a WHERE %s /* ds%d */", where, d)})
		}
		return q
	}
	union := func(q *shardrt.StepQuery) *shardrt.Steps {
		return &shardrt.Steps{Union: &shardrt.UnionStep{Parts: []*shardrt.StepQuery{q}, Visible: 1, Kinds: []shardrt.ColumnKind{intKind},
			OrderBy: []shardrt.SortKey{{Column: 0}}, Count: -1}}
	}
	// run returns the rows and the data sources the step ran on.
	run := func(st *shardrt.Steps, tables func(string) *shardrt.ShardingTable, args ...any) ([][]any, []string) {
		var (
			mu  sync.Mutex
			ran []string
		)
		rows, err := src.RunStepsWith(ctx, src, st, &shardrt.StepsOptions{Tables: tables, UnitSQL: func(sql string) string {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, sql[strings.LastIndex(sql, "/* ")+3:len(sql)-3])
			return sql
		}}, args...)
		require.NoError(t, err)
		return rows, ran
	}
	eq := union(part("id = ?", 0))
	for _, c := range []struct {
		arg  any
		rows [][]any
		ran  []string
	}{
		{int64(5), [][]any{{int64(5)}}, []string{"ds1"}},
		{int32(6), [][]any{{int64(6)}}, []string{"ds2"}},
		{"5", [][]any{{int64(5)}}, []string{"ds1"}},                   // '5' compares as 5
		{" 5", [][]any{{int64(5)}}, []string{"ds1"}},                  // so does ' 5'
		{"5.5", nil, []string{"ds0"}},                                 // no BIGINT equals 5.5: one data node answers (none)
		{nil, nil, []string{"ds0"}},                                   // NULL matches no row
		{5.0, [][]any{{int64(5)}}, []string{"ds1"}},                   // a whole double compares as that integer
		{5.5, nil, []string{"ds0"}},                                   // no BIGINT equals the double 5.5
		{float64(1 << 53), nil, []string{"ds0", "ds1", "ds2", "ds3"}}, // from 2^53 on, a double equals several BIGINTs
	} {
		rows, ran := run(eq, tables, c.arg)
		require.Equal(t, c.rows, rows, "%#v", c.arg)
		require.ElementsMatch(t, c.ran, ran, "%#v", c.arg)
	}
	// Without routers every unit runs.
	rows, ran := run(eq, nil, int64(5))
	require.Equal(t, [][]any{{int64(5)}}, rows)
	require.Len(t, ran, 4)

	in := union(part("id IN (?, ?)", 0, 1))
	rows, ran = run(in, tables, int64(1), "6")
	require.Equal(t, [][]any{{int64(1)}, {int64(6)}}, rows)
	require.ElementsMatch(t, []string{"ds1", "ds2"}, ran)
	rows, ran = run(in, tables, int64(1), nil)
	require.Equal(t, [][]any{{int64(1)}}, rows)
	require.ElementsMatch(t, []string{"ds1"}, ran)
}

// TestExecStepsListRoute: the steps of a write (BindStep.Write) select the
// keys in order across data nodes, then write the rows with those keys,
// each data node getting only its own keys (StepQuery.ListRoute) and a
// data node with none not written; without routers every data node gets
// every key. No key writes nothing. The rows affected are the write's.
func TestExecStepsListRoute(t *testing.T) {
	db, src := openTestSources(t, "")
	stepsTables(t, db) // steps_a: id MOD 4 over ds_0..ds_3, ids 1..6
	ctx := context.Background()
	tables := stepsRouters(t)
	// UPDATE steps_a SET v = ? WHERE id > ? ORDER BY id DESC LIMIT 2.
	keys := &shardrt.StepQuery{Stmt: shardrt.Stmt{Name: "steps", LogicSQL: "SELECT id FROM steps_a WHERE id > ? ORDER BY id DESC LIMIT 2"}, Columns: 1, Args: []int{1},
		Merge: &shardrt.MergeSpec{Columns: 1, Visible: 1, Kinds: []shardrt.ColumnKind{intKind}, OrderBy: []shardrt.SortKey{{Column: 0, Desc: true}}, Count: shardrt.LimitValue{Value: 2}}}
	write := &shardrt.StepQuery{Stmt: shardrt.Stmt{Name: "steps", LogicSQL: "UPDATE steps_a SET v = ? WHERE id > ? AND id IN (?)"}, Args: []int{0, 1}, ListArg: 2,
		ListRoute: &shardrt.StepListRoute{Table: "steps_a", Nodes: []int{0, 1, 2, 3}, Column: "id", Class: shardrt.ClassInteger, Kind: shardrt.KindLong}}
	for d := range 4 {
		keys.Units = append(keys.Units, shardrt.RouteUnit{DataSource: d, SQL: fmt.Sprintf("SELECT id FROM steps_a WHERE id > ? ORDER BY id DESC LIMIT 2 /* ds%d */", d)})
		sql := fmt.Sprintf("UPDATE steps_a SET v = ? WHERE id > ? AND id IN (?) /* ds%d */", d)
		write.Units = append(write.Units, shardrt.RouteUnit{DataSource: d, SQL: sql})
		write.ListAt = append(write.ListAt, strings.LastIndex(sql, "?"))
	}
	st := &shardrt.Steps{Bind: &shardrt.BindStep{Subquery: keys, Statement: write, Write: true}}
	// run returns the rows affected and the data sources the write ran on.
	run := func(tables func(string) *shardrt.ShardingTable, args ...any) (int64, []string) {
		var (
			mu  sync.Mutex
			ran []string
		)
		n, err := src.ExecSteps(ctx, src, st, &shardrt.StepsOptions{Tables: tables, UnitSQL: func(sql string) string {
			mu.Lock()
			defer mu.Unlock()
			if strings.HasPrefix(sql, "UPDATE") {
				ran = append(ran, sql[strings.LastIndex(sql, "/* ")+3:len(sql)-3])
			}
			return sql
		}}, args...)
		require.NoError(t, err)
		return n, ran
	}
	values := func() []string {
		var out []string
		for d := range 4 {
			pool, _ := db.Pool(testDataSources[d])
			rows, err := pool.QueryContext(ctx, "SELECT id, v FROM steps_a ORDER BY id")
			require.NoError(t, err)
			for rows.Next() {
				var id int
				var v string
				require.NoError(t, rows.Scan(&id, &v))
				out = append(out, fmt.Sprintf("%d:%s@ds%d", id, v, d))
			}
			require.NoError(t, rows.Err())
			require.NoError(t, rows.Close())
		}
		return out
	}
	n, ran := run(tables, "w", 2) // keys 6, 5: ds2 and ds1 only
	require.Equal(t, int64(2), n)
	require.ElementsMatch(t, []string{"ds1", "ds2"}, ran)
	require.Equal(t, []string{"4:a1@ds0", "1:a1@ds1", "5:w@ds1", "2:a2@ds2", "6:w@ds2", "3:a0@ds3"}, values())
	n, ran = run(tables, "w", 2) // the same rows, unchanged: none affected
	require.Equal(t, int64(0), n)
	require.ElementsMatch(t, []string{"ds1", "ds2"}, ran)
	n, ran = run(nil, "x", 0) // keys 6, 5 again; every data node gets both
	require.Equal(t, int64(2), n)
	require.Len(t, ran, 4)
	n, ran = run(tables, "y", 6) // no key: nothing runs
	require.Equal(t, int64(0), n)
	require.Empty(t, ran)
	require.Equal(t, []string{"4:a1@ds0", "1:a1@ds1", "5:x@ds1", "2:a2@ds2", "6:x@ds2", "3:a0@ds3"}, values())
	_, err := src.RunSteps(ctx, src, st)
	require.ErrorContains(t, err, "ExecSteps")

	// In a single-shard transaction: keys read on several data sources are
	// refused (ErrCrossShardTx), nothing written; on the transaction's one
	// data source the write is the transaction's (rolled back with it).
	tx := src.BeginTx(ctx, nil)
	_, err = src.ExecSteps(ctx, tx, st, &shardrt.StepsOptions{Tables: tables}, "t", 0)
	require.ErrorIs(t, err, shardrt.ErrCrossShardTx)
	require.NoError(t, tx.Rollback())
	one := &shardrt.Steps{Bind: &shardrt.BindStep{Subquery: &shardrt.StepQuery{Stmt: keys.Stmt, Columns: 1, Args: keys.Args, Merge: keys.Merge, Units: keys.Units[:1]},
		Statement: &shardrt.StepQuery{Stmt: write.Stmt, Args: write.Args, ListArg: write.ListArg, Units: write.Units[:1], ListAt: write.ListAt[:1]}, Write: true}}
	tx = src.BeginTx(ctx, nil)
	n, err = src.ExecSteps(ctx, tx, one, nil, "t", 0) // key 4, on ds0
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	require.NoError(t, tx.Rollback())
	require.Equal(t, []string{"4:a1@ds0", "1:a1@ds1", "5:x@ds1", "2:a2@ds2", "6:x@ds2", "3:a0@ds3"}, values())
	tx = src.BeginTx(ctx, nil)
	_, err = src.ExecSteps(ctx, tx, one, nil, "t", 0)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	require.Equal(t, []string{"4:t@ds0", "1:a1@ds1", "5:x@ds1", "2:a2@ds2", "6:x@ds2", "3:a0@ds3"}, values())
}
