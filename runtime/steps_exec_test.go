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

// stepsTables fills steps_a (ids 1..6, v "a<id%3>") on ds_0..ds_3 by id%4
// and steps_b (ids 2,4,…,12, v "b<id>") on ds_0, ds_1 by id%2.
func stepsTables(t *testing.T, db *shardrt.DB) {
	t.Helper()
	createTestTable(t, db, "steps_a")
	createTestTable(t, db, "steps_b")
	ctx := context.Background()
	for id := 1; id <= 6; id++ {
		pool, _ := db.Pool(testDataSources[id%4])
		_, err := pool.ExecContext(ctx, "INSERT INTO steps_a VALUES (?, ?)", id, fmt.Sprintf("a%d", id%3))
		require.NoError(t, err)
	}
	for id := 2; id <= 12; id += 2 {
		pool, _ := db.Pool(testDataSources[id/2%2])
		_, err := pool.ExecContext(ctx, "INSERT INTO steps_b VALUES (?, ?)", id, fmt.Sprintf("b%d", id))
		require.NoError(t, err)
	}
}

// stepQuery runs sql on every unit of ds (indexes of testDataSources).
func stepQuery(sql string, cols int, list bool, ds ...int) *shardrt.StepQuery {
	q := &shardrt.StepQuery{Stmt: shardrt.Stmt{Name: "steps", LogicSQL: sql}, Columns: cols}
	for _, d := range ds {
		q.Units = append(q.Units, shardrt.RouteUnit{DataSource: d, SQL: sql})
		if list {
			at := 0
			for sql[at] != '?' {
				at++
			}
			q.ListAt = append(q.ListAt, at)
		}
	}
	return q
}

var intKind = shardrt.ColumnKind{Type: shardrt.ColumnInt}

func TestRunStepsJoinBindUnion(t *testing.T) {
	db, src := openTestSources(t, "")
	stepsTables(t, db)
	ctx := context.Background()

	join := leftJoinSteps("SELECT id, v FROM steps_a") // three batches of the outer side's rows
	join.Join.Build = nil
	rows, err := src.RunSteps(ctx, src, join)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(6), []byte("b6")}, {int64(5), nil}, {int64(4), []byte("b4")}, {int64(3), nil}, {int64(2), []byte("b2")}, {int64(1), nil}}, rows)

	var id, v any
	require.NoError(t, shardrt.ScanValues(rows[0], &id, &v))
	require.Equal(t, int64(6), id)

	bind := &shardrt.Steps{Bind: &shardrt.BindStep{
		Subquery:  stepQuery("SELECT id FROM steps_b WHERE id > 7", 1, false, 0, 1),
		Statement: stepQuery("SELECT COUNT(*) FROM steps_a WHERE id IN (?)", 1, true, 0),
	}}
	rows, err = src.RunSteps(ctx, src, bind)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(0)}}, rows, "ids 8, 10, 12 are not in steps_a; an empty match still counts")

	union := &shardrt.Steps{Union: &shardrt.UnionStep{
		Parts:    []*shardrt.StepQuery{stepQuery("SELECT id FROM steps_a", 1, false, 0, 1, 2, 3), stepQuery("SELECT id FROM steps_b", 1, false, 0, 1)},
		Distinct: 2, Visible: 1, Kinds: []shardrt.ColumnKind{intKind}, OrderBy: []shardrt.SortKey{{Column: 0}}, Offset: 4, Count: 3,
	}}
	rows, err = src.RunSteps(ctx, src, union)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(5)}, {int64(6)}, {int64(8)}}, rows)

	// The memory bound: 6 outer rows with max-cross-node-rows 5; the
	// union's 9 distinct rows with 8.
	_, src5 := openTestSources(t, "  max-cross-node-rows: 5\n")
	_, err = src5.RunSteps(ctx, src5, join)
	require.ErrorIs(t, err, shardrt.ErrCrossNodeRows)
	require.EqualError(t, err, "the outer side of the join (SELECT id, v FROM steps_a) holds more rows than max-cross-node-rows allows (5); raise it in props or narrow the statement")
	_, src8 := openTestSources(t, "  max-cross-node-rows: 8\n")
	_, err = src8.RunSteps(ctx, src8, union)
	require.EqualError(t, err, "the UNION holds more rows than max-cross-node-rows allows (8); raise it in props or narrow the statement")
}

func TestMaxCrossNodeRowsProp(t *testing.T) {
	_, src := openTestSources(t, "  max-cross-node-rows: 7\n")
	require.Equal(t, 7, src.MaxCrossNodeRows())
	_, src = openTestSources(t, "")
	require.Equal(t, shardrt.DefaultMaxCrossNodeRows, src.MaxCrossNodeRows())
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "  max-cross-node-rows: 0\n"))
	require.NoError(t, err)
	_, err = shardrt.Open(cfg)
	require.EqualError(t, err, `props: property "max-cross-node-rows" must be between 1 and 1099511627776, got 0`)
}

func TestMergeJoined(t *testing.T) {
	// Joined rows (name, amount): GROUP BY name, COUNT(*), COUNT(amount),
	// SUM(amount), ordered by name.
	joined := [][]any{{[]byte("b"), int64(2)}, {[]byte("a"), nil}, {[]byte("b"), int64(5)}, {[]byte("a"), int64(1)}}
	m := &shardrt.MergeSpec{
		Columns: 4, Visible: 4,
		Kinds:   []shardrt.ColumnKind{{Type: shardrt.ColumnString, Collation: shardrt.CollationUTF8MB4GeneralCI}, intKind, intKind, intKind},
		OrderBy: []shardrt.SortKey{{Column: 0}},
		GroupBy: []int{0},
		Aggregates: []shardrt.AggregateSpec{
			{Column: 1, Func: shardrt.AggCount}, {Column: 2, Func: shardrt.AggCount}, {Column: 3, Func: shardrt.AggSum},
		},
		Count: shardrt.NoLimit,
	}
	cols := []shardrt.JoinMergeColumn{{Op: shardrt.JoinValue, Column: 0}, {Op: shardrt.JoinOne}, {Op: shardrt.JoinNotNull, Column: 1}, {Op: shardrt.JoinValue, Column: 1}}
	rows, err := shardrt.MergeJoined(m, cols, joined)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	var name string
	var n, nn int64
	var sum any
	require.NoError(t, shardrt.ScanValues(rows[0], &name, &n, &nn, &sum))
	require.Equal(t, []any{"a", int64(2), int64(1)}, []any{name, n, nn})
	require.NoError(t, shardrt.ScanValues(rows[1], &name, &n, &nn, &sum))
	require.Equal(t, []any{"b", int64(2), int64(2)}, []any{name, n, nn})
}

// leftJoinSteps is steps_a (the rows of outer: id, v) LEFT JOIN steps_b
// ON id, the output a.id, b.v ordered by a.id DESC, in batches of 2.
func leftJoinSteps(outer string) *shardrt.Steps {
	return &shardrt.Steps{Join: &shardrt.JoinStep{
		Outer: stepQuery(outer, 2, false, 0, 1, 2, 3),
		Inner: stepQuery("SELECT id, v FROM steps_b WHERE id IN (?)", 2, true, 0, 1),
		Build: stepQuery("SELECT id, v FROM steps_b", 2, false, 0, 1),
		Spec: shardrt.JoinSpec{Left: true, OuterKeys: []int{0}, InnerKeys: []int{0},
			OuterKinds: []shardrt.ColumnKind{intKind, {Type: shardrt.ColumnBytes}}, InnerKinds: []shardrt.ColumnKind{intKind, {Type: shardrt.ColumnBytes}}},
		Output:  []int{0, 3},
		Kinds:   []shardrt.ColumnKind{intKind, {Type: shardrt.ColumnBytes}, intKind, {Type: shardrt.ColumnBytes}},
		OrderBy: []shardrt.SortKey{{Column: 0, Desc: true}},
		Count:   -1,
		Batch:   2,
	}}
}

// TestRunStepsLossyCharset: under StepsOptions.LossyCharset a step that
// reads text holding '?' (or, in latin1, a byte beyond ASCII) fails with
// *LossyTextError, in every step; ASCII text gives the rows as without it.
func TestRunStepsLossyCharset(t *testing.T) {
	db, src := openTestSources(t, "")
	stepsTables(t, db)
	ctx := context.Background()
	plain, err := src.RunStepsWith(ctx, src, leftJoinSteps("SELECT id, v FROM steps_a"), nil)
	require.NoError(t, err)
	for _, cs := range []string{"latin1", "utf8mb3"} {
		rows, err := src.RunStepsWith(ctx, src, leftJoinSteps("SELECT id, v FROM steps_a"), &shardrt.StepsOptions{LossyCharset: cs})
		require.NoError(t, err, cs)
		require.Equal(t, plain, rows, cs)
		for _, outer := range []string{"SELECT id, CONCAT(v, '?') FROM steps_a", "SELECT id, CONCAT(v, 'é') FROM steps_a"} {
			_, err = src.RunStepsWith(ctx, src, leftJoinSteps(outer), &shardrt.StepsOptions{LossyCharset: cs})
			var le *shardrt.LossyTextError
			if cs == "utf8mb3" && strings.Contains(outer, "é") {
				require.NoError(t, err, "%s %s: UTF-8 text beyond ASCII compares in process", cs, outer)
				continue
			}
			require.ErrorAs(t, err, &le, "%s %s", cs, outer)
			require.Equal(t, cs, le.Charset)
		}
	}
}

// TestRunStepsHashJoin: the same LEFT join by each JoinStrategy gives the
// same rows; auto runs the hash join when the outer side fills more than
// one batch and falls back to the nested loop when the build side holds
// more rows than it may; a forced hash join fails then with the limit.
func TestRunStepsHashJoin(t *testing.T) {
	db, src := openTestSources(t, "")
	stepsTables(t, db)
	ctx := context.Background()
	join := leftJoinSteps
	// run returns the rows and whether the build side ran (a unit SQL
	// without an IN list of steps_b).
	run := func(src *shardrt.Sources, st *shardrt.Steps, s shardrt.JoinStrategy) ([][]any, bool, error) {
		var mu sync.Mutex
		hashed := false
		rows, err := src.RunStepsWith(ctx, src, st, &shardrt.StepsOptions{Join: s, UnitSQL: func(sql string) string {
			mu.Lock()
			defer mu.Unlock()
			hashed = hashed || sql == "SELECT id, v FROM steps_b"
			return sql
		}})
		return rows, hashed, err
	}
	want := [][]any{{int64(6), []byte("b6")}, {int64(5), nil}, {int64(4), []byte("b4")}, {int64(3), nil}, {int64(2), []byte("b2")}, {int64(1), nil}}
	for _, c := range []struct {
		s    shardrt.JoinStrategy
		hash bool
	}{{shardrt.JoinNestedLoop, false}, {shardrt.JoinHash, true}, {shardrt.JoinAuto, true}} {
		rows, hashed, err := run(src, join("SELECT id, v FROM steps_a"), c.s)
		require.NoError(t, err, c.s)
		require.Equal(t, want, rows, c.s)
		require.Equal(t, c.hash, hashed, c.s)
	}
	// Two outer rows (one batch): auto runs the nested loop.
	rows, hashed, err := run(src, join("SELECT id, v FROM steps_a WHERE id IN (1, 2)"), shardrt.JoinAuto)
	require.NoError(t, err)
	require.False(t, hashed)
	require.Equal(t, want[4:], rows)

	// max-cross-node-rows 5: the build side's 6 rows are too many; auto
	// falls back to the nested loop, a forced hash join fails.
	_, src5 := openTestSources(t, "  max-cross-node-rows: 5\n")
	st := join("SELECT id, v FROM steps_a WHERE id <= 4")
	st.Join.Batch = 1
	rows, hashed, err = run(src5, st, shardrt.JoinAuto)
	require.NoError(t, err)
	require.True(t, hashed, "tried first")
	require.Equal(t, [][]any{{int64(4), []byte("b4")}, {int64(3), nil}, {int64(2), []byte("b2")}, {int64(1), nil}}, rows)
	_, _, err = run(src5, st, shardrt.JoinHash)
	require.ErrorIs(t, err, shardrt.ErrCrossNodeRows)
	require.EqualError(t, err, "the build side of the hash join (SELECT id, v FROM steps_b) holds more rows than max-cross-node-rows allows (5); raise it in props or narrow the statement")

	// The prop.
	_, srcHash := openTestSources(t, "  cross-node-join: hash\n")
	require.Equal(t, shardrt.JoinHash, srcHash.CrossNodeJoin())
	rows, hashed, err = run(srcHash, join("SELECT id, v FROM steps_a WHERE id IN (1, 2)"), shardrt.JoinAuto)
	require.NoError(t, err)
	require.True(t, hashed)
	require.Equal(t, want[4:], rows)
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "  cross-node-join: merge\n"))
	require.NoError(t, err)
	_, err = shardrt.Open(cfg)
	require.EqualError(t, err, `props: property "cross-node-join" must be auto, nested-loop or hash, got "merge"`)
}

// TestRunStepsSeveralSubqueries: a statement with an IN list, a scalar
// value and a second IN list, each bound from its own subquery in order
// (the statement's parameter before, between and after them); a scalar
// subquery of two rows fails with MySQL's error 1242, of none binds NULL;
// a UNION's LIMIT ?, ? takes the arguments.
func TestRunStepsSeveralSubqueries(t *testing.T) {
	db, src := openTestSources(t, "")
	stepsTables(t, db)
	ctx := context.Background()

	// id IN (list 1) AND id > ? (parameter 0) AND id < CAST(? AS SIGNED)
	// (the scalar, argument 1) AND v <> ? (parameter 0 again, as text)
	// AND id IN (list 2).
	const stmt = "SELECT id FROM steps_a WHERE id IN (?) AND id > ? AND id < CAST(? AS SIGNED) AND v <> CAST(? AS CHAR) AND id IN (?) ORDER BY id"
	q := stepQuery(stmt, 1, true, 0, 1, 2, 3)
	q.Args = []int{0, 1, 0}
	q.ListArg = 0
	second := shardrt.StepList{Arg: 3}
	for _, u := range q.Units {
		n, at := 0, 0
		for i := range u.SQL {
			if u.SQL[i] == '?' {
				if n == 4 {
					at = i
				}
				n++
			}
		}
		second.At = append(second.At, at)
	}
	q.Lists = []shardrt.StepList{second}
	scalar := func(sql string, ds ...int) *shardrt.Steps {
		return &shardrt.Steps{Bind: &shardrt.BindStep{
			Subquery:  stepQuery("SELECT id FROM steps_b", 1, false, 0, 1),
			Statement: q,
			Then: []shardrt.BoundSubquery{
				{Query: stepQuery(sql, 1, false, ds...), Op: shardrt.BindScalar},
				{Query: stepQuery("SELECT id - 2 FROM steps_b WHERE id <= 6", 1, false, 0, 1), Op: shardrt.BindIn},
			},
		}}
	}
	// steps_b ids 2..12 on ds_0 hold 4, 8, 12: the scalar is 6; ids in
	// the second list 0, 2, 4; > 1 and < 6: 2 and 4, whose v (a2, a1) is
	// not "1".
	rows, err := src.RunSteps(ctx, src, scalar("SELECT MAX(id) - 6 FROM steps_b", 0), int64(1))
	require.NoError(t, err)
	require.ElementsMatch(t, [][]any{{int64(2)}, {int64(4)}}, rows, "the units' rows, concatenated")
	// No row: the scalar is NULL, id < NULL matches nothing.
	rows, err = src.RunSteps(ctx, src, scalar("SELECT id FROM steps_b WHERE id = 99", 0, 1), int64(1))
	require.NoError(t, err)
	require.Empty(t, rows)
	_, err = src.RunSteps(ctx, src, scalar("SELECT id FROM steps_b WHERE id > 9", 0, 1), int64(1))
	require.ErrorIs(t, err, shardrt.ErrSubqueryRows)
	require.EqualError(t, err, "Error 1242 (21000): Subquery returns more than 1 row")

	union := &shardrt.Steps{Union: &shardrt.UnionStep{
		Parts:    []*shardrt.StepQuery{stepQuery("SELECT id FROM steps_a", 1, false, 0, 1, 2, 3), stepQuery("SELECT id FROM steps_b", 1, false, 0, 1)},
		Distinct: 2, Visible: 1, Kinds: []shardrt.ColumnKind{intKind}, OrderBy: []shardrt.SortKey{{Column: 0}}, Count: -1, LimitArgs: []int{1, 0},
	}}
	rows, err = src.RunSteps(ctx, src, union, int64(3), int64(4))
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(5)}, {int64(6)}, {int64(8)}}, rows)
}

// TestJoinQueriesNested: the statements of a join of three tables are
// numbered in the order they run, the outer join's first, and the outer
// join's rows are named as the steps that make them.
func TestJoinQueriesNested(t *testing.T) {
	q := func(sql string, list bool) *shardrt.StepQuery { return stepQuery(sql, 1, list, 0) }
	inner := &shardrt.JoinStep{Outer: q("SELECT a", false), Inner: q("SELECT b WHERE x IN (?)", true), Build: q("SELECT b", false), Batch: 500}
	j := &shardrt.Steps{Join: &shardrt.JoinStep{OuterJoin: inner, Inner: q("SELECT c", false), Batch: 500}}
	var what []string
	for _, sq := range j.Queries() {
		what = append(what, sq.What+" | "+sq.Query.Stmt.LogicSQL)
	}
	require.Equal(t, []string{
		"outer side (a join): outer side of the join | SELECT a",
		"outer side (a join): build side of the hash join, run once instead of step 3 when the rows of step 1 number more than 500 (reading at most 4 rows per row of step 1), its rows hashed by the join key | SELECT b",
		"outer side (a join): nested loop: inner side of the join, run for every 500 rows of step 1 with their key values as its IN list (?), when step 2 does not run | SELECT b WHERE x IN (?)",
		"inner side of the join, run once (no key columns): every outer row pairs with every inner row | SELECT c",
	}, what)
}
