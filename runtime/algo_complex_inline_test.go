package runtime

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func bindComplexInline(t *testing.T, props Props, columns, targets []string) ComplexRouter {
	t.Helper()
	a, err := NewAlgorithm("COMPLEX_INLINE", props)
	require.NoError(t, err)
	require.Equal(t, "COMPLEX_INLINE", a.Type())
	r, err := a.(ComplexAlgorithm).BindComplex(columns, targets)
	require.NoError(t, err)
	return r
}

func TestComplexInlineRoute(t *testing.T) {
	cols := []string{"user_id", "order_id"}
	targets := tableNames("t_order_", 4)
	expr := Props{"algorithm-expression": "t_order_${(user_id + order_id) % 4}"}
	for _, tc := range []struct {
		name   string
		props  Props
		values [][]Value
		ranges []*Range
		want   []int
		err    string
	}{
		{"one each", expr, [][]Value{{Long(1)}, {Long(2)}}, []*Range{nil, nil}, []int{3}, ""},
		{"product", expr, [][]Value{{Long(1), Long(2)}, {Long(3)}}, []*Range{nil, nil}, []int{0, 1}, ""},
		{"product dedup sorted", expr, [][]Value{{Long(6), Long(1), Long(5)}, {Long(3), Long(7)}}, []*Range{nil, nil}, []int{0, 1}, ""},
		{"no conditions", expr, [][]Value{nil, nil}, []*Range{nil, nil}, []int{0, 1, 2, 3}, ""},
		{"empty IN", expr, [][]Value{{}, {Long(1)}}, []*Range{nil, nil}, nil, ""},
		{"missing read column", expr, [][]Value{{Long(1)}, nil}, []*Range{nil, nil}, nil,
			`COMPLEX_INLINE "t_order_${(user_id + order_id) % 4}" reads "order_id", but the condition gives = or IN values only for user_id: add order_id = ? or order_id IN (…) to it`},
		{"sharding-columns missing", Props{"algorithm-expression": "t_order_${user_id % 4}", "sharding-columns": "user_id, order_id"},
			[][]Value{{Long(1)}, nil}, []*Range{nil, nil}, nil,
			`COMPLEX_INLINE "t_order_${user_id % 4}": sharding-columns lists "order_id", but the condition gives = or IN values only for user_id: add order_id = ? or order_id IN (…) to it`},
		{"unread column ignored", Props{"algorithm-expression": "t_order_${user_id % 4}"},
			[][]Value{{Long(1)}, {String("x"), Long(2)}}, []*Range{nil, nil}, []int{1}, ""},
		{"null", expr, [][]Value{{Long(1)}, {Null}}, []*Range{nil, nil}, nil, "sharding value must not be NULL"},
		{"range refused", expr, [][]Value{{Long(1)}, nil}, []*Range{nil, {Lower: Long(1), HasLower: true}}, nil,
			`range sharding condition is not supported by this algorithm: COMPLEX_INLINE "t_order_${(user_id + order_id) % 4}" needs allow-range-query-with-inline-sharding=true to route a range condition`},
		{"range allowed", Props{"algorithm-expression": expr["algorithm-expression"], "allow-range-query-with-inline-sharding": "true"},
			[][]Value{{Long(1)}, nil}, []*Range{nil, {Lower: Long(1), HasLower: true}}, []int{0, 1, 2, 3}, ""},
		{"no target", expr, [][]Value{{Long(-1)}, {Long(-2)}}, []*Range{nil, nil}, nil,
			`no data node matches the sharding value: COMPLEX_INLINE "t_order_${(user_id + order_id) % 4}" gives "t_order_-3", which is not an available target`},
		{"mismatch", expr, [][]Value{{String("1")}, {Long(2)}}, []*Range{nil, nil}, nil,
			`COMPLEX_INLINE algorithm expression "t_order_${(user_id + order_id) % 4}" and sharding columns user_id, order_id do not match: operator "%" is not supported for String and Integer at offset 31`},
		{"wrong arity", expr, [][]Value{{Long(1)}}, []*Range{nil}, nil, `COMPLEX_INLINE bound to 2 columns got 1 value lists and 1 ranges`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bindComplexInline(t, tc.props, cols, targets)
			got, err := r.Route([]int{}, tc.values, tc.ranges)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			if tc.want == nil {
				require.Empty(t, got)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestComplexInlineDatabaseAndTable(t *testing.T) {
	// A two-column expression that picks a data source from one column and
	// keeps the prefix of dst intact.
	r := bindComplexInline(t, Props{"algorithm-expression": "ds_${user_id % 2}_${order_id % 2}"},
		[]string{"user_id", "order_id"}, []string{"ds_0_0", "ds_0_1", "ds_1_0", "ds_1_1"})
	got, err := r.Route([]int{7}, [][]Value{{Long(1), Long(2)}, {Int(3), Int(4)}}, []*Range{nil, nil})
	require.NoError(t, err)
	require.Equal(t, []int{7, 0, 1, 2, 3}, got)

	_, err = r.Route(nil, [][]Value{{Long(1)}, {Null}}, []*Range{nil, nil})
	require.True(t, errors.Is(err, ErrNullShardingValue))
}

func TestComplexInlineErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props Props
		cols  []string
		err   string
	}{
		{"missing expression", Props{}, nil, `property "algorithm-expression" is required`},
		{"bad expression", Props{"algorithm-expression": "t_${a..}"}, nil, `property "algorithm-expression" is not a valid inline expression: unexpected "}" at offset 7`},
		{"bad range flag", Props{"algorithm-expression": "t_${a}", "allow-range-query-with-inline-sharding": "1"}, nil,
			`property "allow-range-query-with-inline-sharding" must be true or false, got "1"`},
		{"unknown column", Props{"algorithm-expression": "t_${a % 2}_${c % 2}"}, []string{"a", "b"},
			`property "algorithm-expression" "t_${a % 2}_${c % 2}" reads "c" at offset 13, which is not a sharding column (a, b)`},
		{"case differs", Props{"algorithm-expression": "t_${A % 2}"}, []string{"a", "b"},
			`property "algorithm-expression" "t_${A % 2}" reads "A" at offset 4, which is not a sharding column (a, b)`},
		{"sharding-columns unknown", Props{"algorithm-expression": "t_${a % 2}", "sharding-columns": "a,x"}, []string{"a", "b"},
			`property "sharding-columns" lists "x", which is not a sharding column (a, b)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAlgorithm("COMPLEX_INLINE", tc.props)
			if tc.cols == nil {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			_, err = a.(ComplexAlgorithm).BindComplex(tc.cols, tableNames("t_", 2))
			require.EqualError(t, err, tc.err)
		})
	}

	a, err := NewAlgorithm("COMPLEX_INLINE", Props{"algorithm-expression": "t_${A % 2}", "sharding-columns": " A , ,B", "allow-range-query-with-inline-sharding": "true"})
	require.NoError(t, err)
	ci := a.(*ComplexInlineAlgorithm)
	require.Equal(t, []string{"A", "B"}, ci.ShardingColumns())
	require.True(t, ci.AllowRangeQuery())
	require.Equal(t, "t_${A % 2}", ci.Expression().String())
	_, err = ci.BindComplex([]string{"A", "b"}, tableNames("t_", 2))
	require.NoError(t, err, "sharding-columns match strategy columns case-insensitively")
}

func TestComplexInlineAllocs(t *testing.T) {
	r := bindComplexInline(t, Props{"algorithm-expression": "t_${a % 2}_${b % 3}"},
		[]string{"a", "b"}, []string{"t_0_0", "t_1_1", "t_1_2", "t_0_1"})
	dst := make([]int, 0, 8)
	values := [][]Value{{Long(7), Long(8)}, {Long(7)}}
	ranges := []*Range{nil, nil}
	got, err := r.Route(dst, values, ranges)
	require.NoError(t, err)
	require.Equal(t, []int{1, 3}, got)
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _ = r.Route(dst[:0], values, ranges) }))
}

// TestShardingTableCheckColumns: CheckColumns refuses, without values, the
// groups Route refuses for any values: = or IN on some columns of a
// COMPLEX_INLINE strategy but not on one its expression reads or its
// sharding-columns lists; a range on one of its columns, or no condition
// on them, is left to Route.
func TestShardingTableCheckColumns(t *testing.T) {
	alg, err := NewAlgorithm("COMPLEX_INLINE", Props{"algorithm-expression": "t_${(a + b) % 2}", "sharding-columns": "a, b"})
	require.NoError(t, err)
	nodes := []DataNode{{DataSource: "ds_0", Table: "t_0"}, {DataSource: "ds_0", Table: "t_1"}}
	st, err := NewShardingTable(nodes, StrategyConfig{}, StrategyConfig{Kind: ComplexStrategy, Columns: []string{"a", "b", "c"}, Algorithm: alg})
	require.NoError(t, err)
	for _, tc := range []struct {
		valued, ranged []string
		err            string
	}{
		{[]string{"a", "b"}, nil, ""},
		{[]string{"A", "B", "c"}, nil, ""},
		{nil, nil, ""},
		{[]string{"x"}, nil, ""},
		{[]string{"a"}, []string{"b"}, ""},
		{[]string{"a"}, nil, `COMPLEX_INLINE "t_${(a + b) % 2}": sharding-columns lists "b", but the condition gives = or IN values only for a: add b = ? or b IN (…) to it`},
		{[]string{"c"}, nil, `COMPLEX_INLINE "t_${(a + b) % 2}": sharding-columns lists "a", but the condition gives = or IN values only for c: add a = ? or a IN (…) to it`},
	} {
		err := st.CheckColumns(tc.valued, tc.ranged)
		if tc.err == "" {
			require.NoError(t, err, "%v %v", tc.valued, tc.ranged)
		} else {
			require.EqualError(t, err, tc.err, "%v %v", tc.valued, tc.ranged)
		}
		// Route agrees for some values.
		var g []ShardingValues
		for _, c := range tc.valued {
			g = append(g, ShardingValues{Column: c, Values: []Value{Long(1)}})
		}
		for _, c := range tc.ranged {
			g = append(g, ShardingValues{Column: c, Range: &Range{Lower: Long(1), HasLower: true}})
		}
		if _, rerr := st.Route(nil, g, HintValues{}); tc.err != "" {
			require.EqualError(t, rerr, tc.err)
		}
	}
}
