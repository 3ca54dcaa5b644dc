package runtime

import (
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
