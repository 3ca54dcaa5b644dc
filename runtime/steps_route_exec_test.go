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
		return runStepsUnits(t, src, st, tables, func(sql string) (string, bool) { return sql[strings.LastIndex(sql, "/* ")+3 : len(sql)-3], true }, args...)
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

// TestRunStepsListRoute: an IN list of values bound from an earlier step
// on a sharding column (StepQuery.ListRoute) is split by data node: each
// unit gets the values its data node can hold, converted as MySQL compares
// them, and a data node that gets none is not asked (the first when none
// gets one); a value that cannot be converted exactly gives every unit the
// whole list. The rows are those of the whole list either way.
func TestRunStepsListRoute(t *testing.T) {
	db, src := openTestSources(t, "")
	stepsTables(t, db) // steps_a: ids 1-6, id MOD 4 over ds_0..ds_3; steps_b: ids 2, 4, …, 12
	tables := stepsRouters(t)
	// statement is `… FROM steps_a WHERE <where>` on steps_a's four data
	// nodes, its IN list split by id.
	statement := func(sel, where string) *shardrt.StepQuery {
		q := &shardrt.StepQuery{Stmt: shardrt.Stmt{Name: "steps", LogicSQL: sel + " FROM steps_a WHERE " + where}, Columns: 1,
			ListRoute: &shardrt.StepListRoute{Table: "steps_a", Nodes: []int{0, 1, 2, 3}, Column: "id", Class: shardrt.ClassInteger, Kind: shardrt.KindLong}}
		for d := range 4 {
			sql := fmt.Sprintf("%s FROM steps_a WHERE %s /* ds%d */", sel, where, d)
			q.Units = append(q.Units, shardrt.RouteUnit{DataSource: d, SQL: sql})
			q.ListAt = append(q.ListAt, strings.IndexByte(sql, '?'))
		}
		return q
	}
	// run returns the rows and the SQL each data source ran (with its
	// list's placeholders).
	run := func(st *shardrt.Steps, tables func(string) *shardrt.ShardingTable) ([][]any, []string) {
		return runStepsUnits(t, src, st, tables, func(sql string) (string, bool) { return sql, strings.Contains(sql, "steps_a") })
	}
	bind := func(sub string, st *shardrt.StepQuery) *shardrt.Steps {
		return &shardrt.Steps{Bind: &shardrt.BindStep{Subquery: stepQuery(sub, 1, false, 0, 1), Statement: st}}
	}
	sorted := func(q *shardrt.StepQuery) *shardrt.StepQuery {
		q.Merge = &shardrt.MergeSpec{Columns: 1, Visible: 1, Kinds: []shardrt.ColumnKind{intKind}, OrderBy: []shardrt.SortKey{{Column: 0}}, Count: shardrt.NoLimit}
		return q
	}

	// 2, 4, …, 12: ids 4, 8, 12 live on ds_0, 2, 6, 10 on ds_2; ds_1 and
	// ds_3 are not asked.
	rows, ran := run(bind("SELECT id FROM steps_b", sorted(statement("SELECT id", "id IN (?) ORDER BY id"))), tables)
	require.Equal(t, [][]any{{int64(2)}, {int64(4)}, {int64(6)}}, rows)
	require.ElementsMatch(t, []string{
		"SELECT id FROM steps_a WHERE id IN (?, ?, ?) ORDER BY id /* ds0 */",
		"SELECT id FROM steps_a WHERE id IN (?, ?, ?) ORDER BY id /* ds2 */",
	}, ran)
	// Without routers every unit gets the whole list.
	rows, ran = run(bind("SELECT id FROM steps_b", sorted(statement("SELECT id", "id IN (?) ORDER BY id"))), nil)
	require.Equal(t, [][]any{{int64(2)}, {int64(4)}, {int64(6)}}, rows)
	require.Len(t, ran, 4)
	require.Contains(t, ran, "SELECT id FROM steps_a WHERE id IN (?, ?, ?, ?, ?, ?) ORDER BY id /* ds1 */")
	// Text values convert as MySQL compares them with a BIGINT: '3' is 3
	// (ds_3); 'b2' is 0 (ds_0), as MySQL reads it.
	rows, ran = run(bind("SELECT CAST(id - 9 AS CHAR) FROM steps_b WHERE id = 12", sorted(statement("SELECT id", "id IN (?) ORDER BY id"))), tables)
	require.Equal(t, [][]any{{int64(3)}}, rows)
	require.Equal(t, []string{"SELECT id FROM steps_a WHERE id IN (?) ORDER BY id /* ds3 */"}, ran)
	rows, ran = run(bind("SELECT v FROM steps_b WHERE id = 2", sorted(statement("SELECT id", "id IN (?) ORDER BY id"))), tables)
	require.Nil(t, rows)
	require.Equal(t, []string{"SELECT id FROM steps_a WHERE id IN (?) ORDER BY id /* ds0 */"}, ran)
	// '2.5' equals no BIGINT: sent nowhere; with no value left the first
	// unit answers the aggregate with the list NULL.
	rows, ran = run(bind("SELECT CAST(id / 4 AS CHAR) FROM steps_b WHERE id = 10", statement("SELECT COUNT(*)", "id IN (?)")), tables)
	require.Equal(t, [][]any{{int64(0)}}, rows)
	require.Equal(t, []string{"SELECT COUNT(*) FROM steps_a WHERE id IN (NULL) /* ds0 */"}, ran)
	// A whole double is its integer; one from 2^53 on may equal several
	// BIGINTs: the whole list goes to every unit.
	rows, ran = run(bind("SELECT id / 2e0 FROM steps_b WHERE id = 4", sorted(statement("SELECT id", "id IN (?) ORDER BY id"))), tables)
	require.Equal(t, [][]any{{int64(2)}}, rows)
	require.Equal(t, []string{"SELECT id FROM steps_a WHERE id IN (?) ORDER BY id /* ds2 */"}, ran)
	rows, ran = run(bind("SELECT id * 9007199254740992e0 FROM steps_b WHERE id = 4", sorted(statement("SELECT id", "id IN (?) ORDER BY id"))), tables)
	require.Nil(t, rows)
	require.Len(t, ran, 4)
}

// runStepsUnits runs st on src with the routers tables and returns its rows
// and what ran returns for the SQL of each unit that ran (when ok).
func runStepsUnits(t *testing.T, src *shardrt.Sources, st *shardrt.Steps, tables func(string) *shardrt.ShardingTable, ran func(sql string) (string, bool), args ...any) ([][]any, []string) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []string
	)
	rows, err := src.RunStepsWith(context.Background(), src, st, &shardrt.StepsOptions{Tables: tables, UnitSQL: func(sql string) string {
		mu.Lock()
		defer mu.Unlock()
		if r, ok := ran(sql); ok {
			seen = append(seen, r)
		}
		return sql
	}}, args...)
	require.NoError(t, err)
	return rows, seen
}
