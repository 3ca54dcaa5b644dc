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

// TestRunStepsRoute: a step whose statement compares the sharding column
// with parameters runs only on the data nodes the algorithm picks for
// their values (StepQuery.Route), converted as MySQL compares them; where
// that cannot be exact every unit runs. The rows are the same either way.
func TestRunStepsRoute(t *testing.T) {
	db, src := openTestSources(t, "")
	stepsTables(t, db) // steps_a: id MOD 4 over ds_0..ds_3
	ctx := context.Background()
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
		{"5", [][]any{{int64(5)}}, []string{"ds1"}},                      // '5' compares as 5
		{" 5", [][]any{{int64(5)}}, []string{"ds1"}},                     // so does ' 5'
		{"5.5", nil, []string{"ds0"}},                                    // no BIGINT equals 5.5: one data node answers (none)
		{nil, nil, []string{"ds0"}},                                      // NULL matches no row
		{5.0, [][]any{{int64(5)}}, []string{"ds0", "ds1", "ds2", "ds3"}}, // a float is not narrowed
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
