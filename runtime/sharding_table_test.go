package runtime

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShardingTableAutoTable: an autoTable spreads its tables over the data
// sources round-robin and has no database strategy, so a value's table is
// on one data source only; the others are skipped, as ShardingSphere's
// standard strategy drops a data source whose algorithm returns no target.
func TestShardingTableAutoTable(t *testing.T) {
	alg, err := NewAlgorithm("VOLUME_RANGE", Props{"range-lower": "10", "range-upper": "40", "sharding-volume": "10"})
	require.NoError(t, err)
	nodes := []DataNode{{"ds_0", "m_0"}, {"ds_1", "m_1"}, {"ds_0", "m_2"}, {"ds_1", "m_3"}, {"ds_0", "m_4"}}
	st, err := NewShardingTable(nodes, StrategyConfig{}, StrategyConfig{Kind: StandardStrategy, Columns: []string{"v"}, Algorithm: alg})
	require.NoError(t, err)
	got, err := st.RouteAll([][]ShardingValues{{{Column: "v", Values: []Value{Long(25)}}}}, HintValues{})
	require.NoError(t, err)
	require.Equal(t, []int{2}, got) // [20, 30) is m_2 on ds_0
	got, err = st.RouteAll([][]ShardingValues{{{Column: "v", Range: &Range{Lower: Long(5), Upper: Long(15), HasLower: true, HasUpper: true}}}}, HintValues{})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, got)
}

// TestRouteConditionsNull: in conditions, a NULL sharding value matches no
// row, as MySQL compares: it is dropped from IN lists, an AND-group left
// without a value (or with a NULL range bound) reaches no data node, and a
// statement whose every group reaches none runs nowhere. RouteAll (INSERT
// rows) still refuses NULL.
func TestRouteConditionsNull(t *testing.T) {
	mod, err := NewAlgorithm("MOD", Props{"sharding-count": "4"})
	require.NoError(t, err)
	complexAlg, err := NewAlgorithm("COMPLEX_INLINE", Props{"sharding-columns": "a,b", "algorithm-expression": "t_${(a + b) % 4}"})
	require.NoError(t, err)
	nodes := []DataNode{{"ds_0", "t_0"}, {"ds_0", "t_1"}, {"ds_0", "t_2"}, {"ds_0", "t_3"}}
	std, err := NewShardingTable(nodes, StrategyConfig{}, StrategyConfig{Kind: StandardStrategy, Columns: []string{"user_id"}, Algorithm: mod})
	require.NoError(t, err)
	cpx, err := NewShardingTable(nodes, StrategyConfig{}, StrategyConfig{Kind: ComplexStrategy, Columns: []string{"a", "b"}, Algorithm: complexAlg})
	require.NoError(t, err)
	vals := func(col string, v ...Value) ShardingValues { return ShardingValues{Column: col, Values: v} }
	rng := func(lo, hi Value) ShardingValues {
		return ShardingValues{Column: "user_id", Range: &Range{Lower: lo, HasLower: true, Upper: hi, HasUpper: true}}
	}
	for _, tc := range []struct {
		name   string
		table  *ShardingTable
		groups [][]ShardingValues
		want   []int
	}{
		{"no NULL", std, [][]ShardingValues{{vals("user_id", Long(1), Long(6))}}, []int{1, 2}},
		{"NULL dropped from IN", std, [][]ShardingValues{{vals("user_id", Null, Long(4))}}, []int{0}},
		{"= NULL", std, [][]ShardingValues{{vals("user_id", Null)}}, []int{}},
		{"all-NULL IN", std, [][]ShardingValues{{vals("user_id", Null, Null)}}, []int{}},
		{"one OR group of two is NULL", std, [][]ShardingValues{{vals("user_id", Null)}, {vals("user_id", Long(7))}}, []int{3}},
		{"every OR group NULL", std, [][]ShardingValues{{vals("user_id", Null)}, {vals("user_id", Null, Null)}}, []int{}},
		{"NULL lower bound", std, [][]ShardingValues{{rng(Null, Long(3))}}, []int{}},
		{"NULL upper bound", std, [][]ShardingValues{{rng(Long(1), Null)}}, []int{}},
		{"no groups", std, nil, []int{}},
		{"complex: both columns", cpx, [][]ShardingValues{{vals("a", Long(1)), vals("b", Null, Long(2))}}, []int{3}},
		{"complex: one column NULL", cpx, [][]ShardingValues{{vals("a", Long(1)), vals("b", Null)}}, []int{}},
		{"complex: other group", cpx, [][]ShardingValues{{vals("a", Null), vals("b", Long(1))}, {vals("a", Long(2)), vals("b", Long(0))}}, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before [][]ShardingValues
			for _, g := range tc.groups {
				c := make([]ShardingValues, len(g))
				for i := range g {
					c[i] = g[i]
					c[i].Values = append([]Value(nil), g[i].Values...)
				}
				before = append(before, c)
			}
			got, err := tc.table.RouteConditions(tc.groups, HintValues{})
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, before, tc.groups, "the groups must not be modified")
		})
	}
	_, err = std.RouteAll([][]ShardingValues{{vals("user_id", Null, Long(4))}}, HintValues{})
	require.EqualError(t, err, "MOD on user_id: sharding value must not be NULL")
}

// TestRouteConditionsAllocs: without NULL values RouteConditions allocates
// what RouteAll does.
func TestRouteConditionsAllocs(t *testing.T) {
	mod, err := NewAlgorithm("MOD", Props{"sharding-count": "4"})
	require.NoError(t, err)
	nodes := []DataNode{{"ds_0", "t_0"}, {"ds_0", "t_1"}, {"ds_0", "t_2"}, {"ds_0", "t_3"}}
	st, err := NewShardingTable(nodes, StrategyConfig{}, StrategyConfig{Kind: StandardStrategy, Columns: []string{"user_id"}, Algorithm: mod})
	require.NoError(t, err)
	groups := [][]ShardingValues{{{Column: "user_id", Values: []Value{Long(1), Long(6)}}}}
	all := testing.AllocsPerRun(100, func() { _, _ = st.RouteAll(groups, HintValues{}) })
	cond := testing.AllocsPerRun(100, func() { _, _ = st.RouteConditions(groups, HintValues{}) })
	require.Equal(t, all, cond)
}

// availFunc is a CLASS_BASED standard algorithm as ShardingSphere asks one
// to be written: t_<v % 4> for a value, and for a range the available
// targets whose number lies in it.
type availFunc struct{}

func (availFunc) DoSharding(_ []string, v Value) (string, error) {
	return "t_" + strconv.FormatInt(v.Int%4, 10), nil
}

func (availFunc) DoRangeSharding(targets []string, r Range) ([]string, error) {
	var out []string
	for _, n := range targets {
		i, _ := strconv.ParseInt(strings.TrimPrefix(n, "t_"), 10, 64)
		if (!r.HasLower || i >= r.Lower.Int) && (!r.HasUpper || i <= r.Upper.Int) {
			out = append(out, n)
		}
	}
	return out, nil
}

// TestShardingTableSplitLayouts: where the data sources hold different
// actual tables of one logic table (an autoTable, or actualDataNodes that
// spread them round-robin with no database strategy), an IN list whose
// values live on different data sources reaches each value's data node,
// for every algorithm, exactly as routing each value alone does; a range
// reaches at least the data node of every value in it. Before, a data
// source that lacked one value's target was dropped with all of the list's
// values, and `IN (-1, 4294967295)` over HASH_MOD failed.
func TestShardingTableSplitLayouts(t *testing.T) {
	classBased, err := NewAlgorithm("CLASS_BASED", Props{"strategy": "STANDARD", "algorithmClassName": "example.com/x.Avail"})
	require.NoError(t, err)
	require.NoError(t, classBased.(*ClassBasedAlgorithm).Use(availFunc{}))
	newAlg := func(typ string, props Props) Algorithm {
		a, err := NewAlgorithm(typ, props)
		require.NoError(t, err)
		return a
	}
	// roundRobin spreads t_<suffix> over ds_0 and ds_1 like an autoTable.
	roundRobin := func(suffixes ...string) []DataNode {
		var nodes []DataNode
		for i, s := range suffixes {
			nodes = append(nodes, DataNode{DataSource: "ds_" + strconv.Itoa(i%2), Table: "t_" + s})
		}
		return nodes
	}
	nums := func(n int) []string {
		var s []string
		for i := range n {
			s = append(s, strconv.Itoa(i))
		}
		return s
	}
	longs := func(vs ...int64) []Value {
		var out []Value
		for _, v := range vs {
			out = append(out, Long(v))
		}
		return out
	}
	strs := func(vs ...string) []Value {
		var out []Value
		for _, v := range vs {
			out = append(out, String(v))
		}
		return out
	}
	closed := func(l, u Value) *Range { r := rgClosed(l, u); return &r }
	for _, tc := range []struct {
		name    string
		alg     Algorithm
		nodes   []DataNode
		values  []Value
		ranges  []*Range
		inRange func(v Value, r *Range) bool // nil: integer bounds
	}{
		{"MOD", newAlg("MOD", Props{"sharding-count": "4"}), roundRobin(nums(4)...),
			longs(-1, 4294967295, 0, 1, 2, 3, 6, 9), []*Range{closed(Long(1), Long(2)), closed(Long(3), Long(9))}, nil},
		{"HASH_MOD", newAlg("HASH_MOD", Props{"sharding-count": "4"}), roundRobin(nums(4)...),
			longs(-1, 4294967295, 0, 1, 2, 3, 17), []*Range{closed(Long(1), Long(3))}, nil},
		{"VOLUME_RANGE", newAlg("VOLUME_RANGE", Props{"range-lower": "10", "range-upper": "40", "sharding-volume": "10"}), roundRobin(nums(5)...),
			longs(5, 15, 25, 35, 45), []*Range{closed(Long(5), Long(25)), closed(Long(12), Long(38))}, nil},
		{"BOUNDARY_RANGE", newAlg("BOUNDARY_RANGE", Props{"sharding-ranges": "10,20,30"}), roundRobin(nums(4)...),
			longs(1, 11, 21, 31), []*Range{closed(Long(1), Long(11)), closed(Long(15), Long(35))}, nil},
		{"AUTO_INTERVAL", newAlg("AUTO_INTERVAL", Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-04 00:00:00", "sharding-seconds": "86400"}), roundRobin(nums(5)...),
			strs("2020-01-01 10:00:00", "2020-01-02 10:00:00", "2020-01-03 10:00:00", "2020-01-05 10:00:00"),
			[]*Range{closed(String("2020-01-01 10:00:00"), String("2020-01-02 10:00:00"))}, func(v Value, r *Range) bool { return v.Str >= r.Lower.Str && v.Str <= r.Upper.Str }},
		{"INLINE", newAlg("INLINE", Props{"algorithm-expression": "t_${order_id % 4}", "allow-range-query-with-inline-sharding": "true"}), roundRobin(nums(4)...),
			longs(4, 5, 6, 7, 1), []*Range{closed(Long(4), Long(5))}, nil},
		{"INTERVAL", newAlg("INTERVAL", Props{"datetime-pattern": "yyyy-MM-dd HH:mm:ss", "datetime-lower": "2021-01-01 00:00:00", "datetime-upper": "2021-04-30 23:59:59",
			"sharding-suffix-pattern": "yyyyMM", "datetime-interval-unit": "MONTHS"}), roundRobin("202101", "202102", "202103", "202104"),
			strs("2021-01-05 00:00:00", "2021-02-05 00:00:00", "2021-03-05 00:00:00", "2021-04-05 00:00:00"),
			[]*Range{closed(String("2021-01-05 00:00:00"), String("2021-02-05 00:00:00")), closed(String("2021-02-06 00:00:00"), String("2021-04-01 00:00:00"))},
			func(v Value, r *Range) bool { return v.Str >= r.Lower.Str && v.Str <= r.Upper.Str }},
		{"CLASS_BASED", classBased, roundRobin(nums(4)...),
			longs(0, 1, 2, 3, 5), []*Range{closed(Long(1), Long(2))}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := NewShardingTable(tc.nodes, StrategyConfig{}, StrategyConfig{Kind: StandardStrategy, Columns: []string{"order_id"}, Algorithm: tc.alg})
			require.NoError(t, err)
			route := func(vals []Value, rg *Range) ([]int, error) {
				return st.RouteConditions([][]ShardingValues{{{Column: "order_id", Values: vals, Range: rg}}}, HintValues{})
			}
			alone := map[string]int{}
			var want []int
			for _, v := range tc.values {
				got, err := route([]Value{v}, nil)
				require.NoError(t, err, v.Text())
				require.Len(t, got, 1, v.Text())
				alone[v.Text()] = got[0]
				want = append(want, got[0])
			}
			slices.Sort(want)
			want = slices.Compact(want)
			require.Greater(t, len(want), 1, "the values must live on several data nodes")
			got, err := route(tc.values, nil)
			require.NoError(t, err)
			require.Equal(t, want, got)
			for i := range tc.values { // every pair, too
				for j := i + 1; j < len(tc.values); j++ {
					got, err := route([]Value{tc.values[i], tc.values[j]}, nil)
					require.NoError(t, err)
					pair := []int{alone[tc.values[i].Text()], alone[tc.values[j].Text()]}
					slices.Sort(pair)
					require.Equal(t, slices.Compact(pair), got, "%s, %s", tc.values[i].Text(), tc.values[j].Text())
				}
			}
			for _, rg := range tc.ranges {
				got, err := route(nil, rg)
				require.NoError(t, err)
				for _, v := range tc.values {
					in := tc.inRange
					if in == nil {
						in = func(v Value, r *Range) bool { return v.Int >= r.Lower.Int && v.Int <= r.Upper.Int }
					}
					if in(v, rg) {
						require.Contains(t, got, alone[v.Text()], "range %s..%s misses %s", rg.Lower.Text(), rg.Upper.Text(), v.Text())
					}
				}
			}
		})
	}
}

// TestShardingTableSplitLayoutsComplex: COMPLEX_INLINE and HINT_INLINE over
// data sources that hold different tables reach the data node of each
// combination of values (each hint value), and a combination whose target
// no data source holds is still refused.
func TestShardingTableSplitLayoutsComplex(t *testing.T) {
	nodes := []DataNode{{"ds_0", "t_0"}, {"ds_1", "t_1"}, {"ds_0", "t_2"}, {"ds_1", "t_3"}}
	cpxAlg, err := NewAlgorithm("COMPLEX_INLINE", Props{"sharding-columns": "a,b", "algorithm-expression": "t_${(a + b) % 4}"})
	require.NoError(t, err)
	cpx, err := NewShardingTable(nodes, StrategyConfig{}, StrategyConfig{Kind: ComplexStrategy, Columns: []string{"a", "b"}, Algorithm: cpxAlg})
	require.NoError(t, err)
	got, err := cpx.RouteConditions([][]ShardingValues{{{Column: "a", Values: []Value{Long(0), Long(1)}}, {Column: "b", Values: []Value{Long(0), Long(2)}}}}, HintValues{})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2, 3}, got) // sums 0, 2, 1, 3
	got, err = cpx.RouteConditions([][]ShardingValues{{{Column: "a", Values: []Value{Long(0), Long(1)}}, {Column: "b", Values: []Value{Long(4)}}}}, HintValues{})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, got)

	hintAlg, err := NewAlgorithm("HINT_INLINE", Props{"algorithm-expression": "t_${value % 4}"})
	require.NoError(t, err)
	hint, err := NewShardingTable(nodes, StrategyConfig{}, StrategyConfig{Kind: HintStrategy, Algorithm: hintAlg})
	require.NoError(t, err)
	got, err = hint.RouteAll([][]ShardingValues{{}}, HintValues{Table: []Value{Long(2), Long(3)}})
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, got)

	mod, err := NewAlgorithm("INLINE", Props{"algorithm-expression": "t_${order_id % 5}"})
	require.NoError(t, err)
	st, err := NewShardingTable(nodes, StrategyConfig{}, StrategyConfig{Kind: StandardStrategy, Columns: []string{"order_id"}, Algorithm: mod})
	require.NoError(t, err)
	_, err = st.RouteConditions([][]ShardingValues{{{Column: "order_id", Values: []Value{Long(1), Long(4), Long(2)}}}}, HintValues{})
	require.EqualError(t, err, `no data node matches the sharding value: INLINE "t_${order_id % 5}" gives "t_4" for Long 4, which is not an available target`)
	require.ErrorIs(t, err, ErrNoTarget)
}

// TestUpdateStaysOnNode: an UPDATE may set sharding columns where every
// row stays on its data node: a side that reads no set column keeps each
// row's target, a side that reads only set columns must route the new
// values to the target of every data node reached, and a complex strategy
// that reads set and other columns is decided on one data node only.
func TestUpdateStaysOnNode(t *testing.T) {
	mod, err := NewAlgorithm("MOD", Props{"sharding-count": "2"})
	require.NoError(t, err)
	boundary, err := NewAlgorithm("BOUNDARY_RANGE", Props{"sharding-ranges": "10"})
	require.NoError(t, err)
	nodes := []DataNode{{"ds_0", "t_0"}, {"ds_0", "t_1"}, {"ds_1", "t_0"}, {"ds_1", "t_1"}}
	st, err := NewShardingTable(nodes,
		StrategyConfig{Kind: StandardStrategy, Columns: []string{"user_id"}, Algorithm: mod},
		StrategyConfig{Kind: StandardStrategy, Columns: []string{"order_id"}, Algorithm: boundary})
	require.NoError(t, err)
	set := func(col string, v Value) []ShardingValues { return []ShardingValues{{Column: col, Values: []Value{v}}} }
	rows := func(g ...ShardingValues) [][]ShardingValues { return [][]ShardingValues{g} }
	eq := func(col string, v int64) ShardingValues { return ShardingValues{Column: col, Values: []Value{Long(v)}} }
	const moves = ": the row would have to move to another data node; delete and re-insert it instead"
	for _, tc := range []struct {
		name     string
		nodes    []int
		assigned []ShardingValues
		rows     [][]ShardingValues
		err      string
	}{
		{"same value", []int{1}, set("user_id", Long(2)), rows(eq("user_id", 2), eq("order_id", 15)), ""},
		{"other value, same data source", []int{1}, set("user_id", Long(4)), rows(eq("user_id", 4), eq("order_id", 15)), ""},
		{"another data source", []int{1}, set("user_id", Long(3)), rows(eq("user_id", 3), eq("order_id", 15)),
			"UPDATE sets sharding column user_id of t to a value that routes to ds_1.t_1, not to the row's data node ds_0.t_1" + moves},
		{"table column, same table", []int{1}, set("order_id", Long(11)), rows(eq("user_id", 2), eq("order_id", 11)), ""},
		{"table column, another table", []int{1}, set("order_id", Long(5)), rows(eq("user_id", 2), eq("order_id", 5)),
			"UPDATE sets sharding column order_id of t to a value that routes to ds_0.t_0, not to the row's data node ds_0.t_1" + moves},
		{"every table of one data source", []int{0, 1}, set("user_id", Long(6)), rows(eq("user_id", 6)), ""},
		{"every table, another data source", []int{0, 1}, set("user_id", Long(1)), rows(eq("user_id", 1)),
			"UPDATE sets sharding column user_id of t to a value that routes to ds_1.t_0, ds_1.t_1, not to the row's data node ds_0.t_0" + moves},
		{"two data sources", []int{1, 3}, set("user_id", Long(2)), rows(eq("user_id", 2), eq("order_id", 15)),
			"UPDATE sets sharding column user_id of t to a value that routes to ds_0.t_1, not to the row's data node ds_1.t_1" + moves},
		{"no data node", []int{}, set("user_id", Long(3)), rows(eq("user_id", 3)), ""},
		{"NULL", []int{1}, set("user_id", Null), rows(eq("order_id", 15), ShardingValues{Column: "user_id", Values: []Value{Null}}),
			"UPDATE sets sharding column user_id of t: MOD on user_id: sharding value must not be NULL"},
		{"bad node", []int{9}, set("user_id", Long(2)), rows(eq("user_id", 2)), "UPDATE of t: data node 9 is outside its 4 data nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := st.UpdateStaysOnNode("t", tc.nodes, tc.assigned, tc.rows)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.err)
		})
	}
	require.ErrorIs(t, st.UpdateStaysOnNode("t", []int{1}, set("user_id", Long(3)), rows(eq("user_id", 3))), ErrShardingValueMoves)

	// An autoTable: the new value's table is on the other data source.
	hash, err := NewAlgorithm("MOD", Props{"sharding-count": "4"})
	require.NoError(t, err)
	auto, err := NewShardingTable([]DataNode{{"ds_0", "a_0"}, {"ds_1", "a_1"}, {"ds_0", "a_2"}, {"ds_1", "a_3"}}, StrategyConfig{},
		StrategyConfig{Kind: StandardStrategy, Columns: []string{"id"}, Algorithm: hash})
	require.NoError(t, err)
	require.NoError(t, auto.UpdateStaysOnNode("a", []int{2}, set("id", Long(6)), rows(eq("id", 6))))
	require.EqualError(t, auto.UpdateStaysOnNode("a", []int{2}, set("id", Long(5)), rows(eq("id", 5))),
		"UPDATE sets sharding column id of a to a value that routes to ds_1.a_1, not to the row's data node ds_0.a_2"+moves)

	// A complex strategy that reads a set column and another one.
	cpxAlg, err := NewAlgorithm("COMPLEX_INLINE", Props{"sharding-columns": "a,b", "algorithm-expression": "c_${(a + b) % 2}"})
	require.NoError(t, err)
	cpx, err := NewShardingTable([]DataNode{{"ds_0", "c_0"}, {"ds_0", "c_1"}}, StrategyConfig{},
		StrategyConfig{Kind: ComplexStrategy, Columns: []string{"a", "b"}, Algorithm: cpxAlg})
	require.NoError(t, err)
	require.NoError(t, cpx.UpdateStaysOnNode("c", []int{1}, set("a", Long(3)), rows(eq("b", 2), eq("a", 3))))
	require.EqualError(t, cpx.UpdateStaysOnNode("c", []int{1}, set("a", Long(2)), rows(eq("b", 2), eq("a", 2))),
		"UPDATE sets sharding column a of c to a value that routes to ds_0.c_0, not to the row's data node ds_0.c_1"+moves)
	require.EqualError(t, cpx.UpdateStaysOnNode("c", []int{0, 1}, set("a", Long(3)), rows(eq("a", 3))),
		"UPDATE sets sharding column a of c, which a complex strategy reads with other columns, on 2 data nodes (ds_0.c_0, ds_0.c_1); it may do so only where it reaches one data node"+moves)
}

// TestPadSpaceRouting: a string sharding value routes without its trailing
// spaces (padSpace), on every path: PreciseNode, Route with IN lists and
// ranges, and the inlined HASH_MOD of generated code.
func TestPadSpaceRouting(t *testing.T) {
	alg, err := NewAlgorithm("HASH_MOD", map[string]string{"sharding-count": "4"})
	require.NoError(t, err)
	nodes := []DataNode{{"ds_0", "t"}, {"ds_1", "t"}, {"ds_2", "t"}, {"ds_3", "t"}}
	st, err := NewShardingTable(nodes, StrategyConfig{Kind: StandardStrategy, Columns: []string{"code"}, Algorithm: alg}, StrategyConfig{})
	require.NoError(t, err)
	for _, code := range []string{"a", "ab", "x y", "", "端末"} {
		want, err := st.PreciseNode(String(code), Null)
		require.NoError(t, err)
		for _, pad := range []string{" ", "   "} {
			got, err := st.PreciseNode(String(code+pad), Null)
			require.NoError(t, err)
			require.Equal(t, want, got, "%q", code+pad)
			require.Equal(t, HashModString(code, 4), HashModString(code+pad, 4), "%q", code+pad)
			units, err := st.RouteConditions([][]ShardingValues{{{Column: "code", Values: []Value{String(code + pad)}}}}, HintValues{})
			require.NoError(t, err)
			require.Equal(t, []int{want}, units, "%q", code+pad)
		}
	}
	// A tab is not padding: 'a\t' < 'a' under PAD SPACE.
	require.Equal(t, "a\t", padSpace(String("a\t")).Str)
	require.Equal(t, "a \t", padSpace(String("a \t  ")).Str)
}
