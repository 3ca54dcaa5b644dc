package runtime

import (
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMergeLimit(t *testing.T) {
	// Two nodes, ORDER BY column 0; each node already returned its first
	// offset+count rows.
	srcs := func() []RowSource {
		return []RowSource{msrc(mrow(1), mrow(3), mrow(5)), msrc(mrow(2), mrow(4))}
	}
	lit := func(v int64) LimitValue { return LimitValue{Value: v} }
	par := func(i int64) LimitValue { return LimitValue{Value: i, Param: true} }
	for _, tc := range []struct {
		name          string
		offset, count LimitValue
		args          []any
		want          []string
	}{
		{"no limit", lit(0), NoLimit, nil, []string{"1", "2", "3", "4", "5"}},
		{"LIMIT 2", lit(0), lit(2), nil, []string{"1", "2"}},
		{"LIMIT 1, 3", lit(1), lit(3), nil, []string{"2", "3", "4"}},
		{"LIMIT 3, 100", lit(3), lit(100), nil, []string{"4", "5"}},
		{"offset at the end", lit(5), lit(1), nil, []string{}},
		{"offset beyond the rows", lit(50), lit(10), nil, []string{}},
		{"offset beyond, no limit", lit(50), NoLimit, nil, []string{}},
		{"LIMIT 0", lit(0), lit(0), nil, []string{}},
		{"LIMIT ?, ?", par(0), par(1), []any{int64(1), int64(2)}, []string{"2", "3"}},
		{"LIMIT ? OFFSET ? (params in any order)", par(1), par(0), []any{2, int32(3)}, []string{"4", "5"}},
		{"uint64 param", lit(0), par(0), []any{uint64(1)}, []string{"1"}},
		{"huge count", lit(0), lit(math.MaxInt64), nil, []string{"1", "2", "3", "4", "5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := MergeSpec{Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, OrderBy: []SortKey{{Column: 0}}, Offset: tc.offset, Count: tc.count}
			got := mergeText(t, &spec, tc.args, srcs()...)
			flat := []string{}
			for _, r := range got {
				flat = append(flat, r[0])
			}
			require.Equal(t, tc.want, flat)
		})
	}
}

func TestMergeLimitErrors(t *testing.T) {
	spec := MergeSpec{Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, Offset: LimitValue{Value: 1, Param: true}, Count: LimitValue{Value: 0, Param: true}}
	for _, tc := range []struct {
		args []any
		want string
	}{
		{nil, "runtime.Merge: LIMIT offset is parameter 1, but len(args) is 0"},
		{[]any{1}, "runtime.Merge: LIMIT offset is parameter 1, but len(args) is 1"},
		{[]any{1, "2"}, "runtime.Merge: LIMIT offset parameter 1 is string, want an integer"},
		{[]any{1, -2}, "runtime.Merge: LIMIT offset parameter 1 is -2, want ≥ 0"},
		{[]any{1.5, 2}, "runtime.Merge: LIMIT row count parameter 0 is float64, want an integer"},
		{[]any{uint64(math.MaxUint64), 2}, "runtime.Merge: LIMIT row count parameter 0 is 18446744073709551615, too large"},
		{[]any{nil, 2}, "runtime.Merge: LIMIT row count parameter 0 is <nil>, want an integer"},
	} {
		_, err := Merge(&spec, tc.args, nil)
		require.EqualError(t, err, tc.want)
	}
}

// TestMergeLimitStopsReading checks that the pagination decorator reads
// nothing for LIMIT 0 and stops once it has its rows, and that EOF repeats.
func TestMergeLimitStopsReading(t *testing.T) {
	a := &countingSource{RowSource: msrc(mrow(1), mrow(2), mrow(3))}
	spec := MergeSpec{Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, Count: LimitValue{Value: 0}}
	m, err := Merge(&spec, nil, []RowSource{a})
	require.NoError(t, err)
	_, err = m.Next()
	require.Equal(t, io.EOF, err)
	require.Zero(t, a.read)

	spec.Offset, spec.Count = LimitValue{Value: 1}, LimitValue{Value: 1}
	m, err = Merge(&spec, nil, []RowSource{a})
	require.NoError(t, err)
	r, err := m.Next()
	require.NoError(t, err)
	require.Equal(t, int64(2), r[0].Int())
	for range 3 {
		_, err = m.Next()
		require.Equal(t, io.EOF, err)
	}
	require.Equal(t, 2, a.read)

	// An offset beyond the rows: EOF, and EOF again.
	spec.Offset, spec.Count = LimitValue{Value: 10}, NoLimit
	m, err = Merge(&spec, nil, []RowSource{msrc(mrow(1))})
	require.NoError(t, err)
	for range 2 {
		_, err = m.Next()
		require.Equal(t, io.EOF, err)
	}
}

// TestMergeLimitTrims checks that rows are cut to the visible columns
// with no room to grow into the derived ones.
func TestMergeLimitTrims(t *testing.T) {
	spec := MergeSpec{Columns: 3, Visible: 1, Kinds: []ColumnKind{kInt, kInt, kInt}, Count: NoLimit}
	m, err := Merge(&spec, nil, []RowSource{msrc(mrow(1, 2, 3))})
	require.NoError(t, err)
	r, err := m.Next()
	require.NoError(t, err)
	require.Len(t, r, 1)
	require.Equal(t, 1, cap(r))
}
