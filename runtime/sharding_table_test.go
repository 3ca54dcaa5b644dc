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
