package runtime

import (
	goruntime "runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// groupSpec is GROUP BY column 0 with COUNT in column 1, SUM in column 2
// and MAX in column 3.
func groupSpec(key ColumnKind, stream bool, orderBy ...SortKey) MergeSpec {
	return MergeSpec{
		Columns: 4, Visible: 4, Kinds: []ColumnKind{key, kInt, kDec, kInt},
		GroupBy: []int{0},
		Aggregates: []AggregateSpec{
			{Column: 1, Func: AggCount}, {Column: 2, Func: AggSum}, {Column: 3, Func: AggMax},
		},
		OrderBy: orderBy, StreamGroup: stream, Count: NoLimit,
	}
}

func TestMergeGroupBy(t *testing.T) {
	// The same partial groups, sorted per node by the key (as the rewrite
	// asks for the stream merge; the memory merge does not care).
	nodes := func() []RowSource {
		return []RowSource{
			msrc(mrow("a", 2, mdec("1.5"), 7), mrow("B", 1, nil, nil), mrow("c", 1, mdec("2"), 1)),
			msrc(mrow("A", 3, mdec("0.5"), 9), mrow("b", 2, mdec("4"), 3)),
			msrc(),
			msrc(mrow(nil, 1, mdec("1"), 0), mrow("À", 1, mdec("1"), 10)),
		}
	}
	// NULL is one group and sorts first; 'a', 'A' and 'À' are one group
	// under general_ci, shown with the first value seen.
	for _, tc := range []struct {
		name string
		spec MergeSpec
		srcs []RowSource
		want [][]string
	}{
		{
			name: "memory, no ORDER BY: group key order",
			spec: groupSpec(kGeneral, false),
			srcs: nodes(),
			want: [][]string{{"NULL", "1", "1", "0"}, {"a", "6", "3.0", "10"}, {"B", "3", "4", "3"}, {"c", "1", "2", "1"}},
		},
		{
			name: "memory, ORDER BY COUNT DESC then key",
			spec: groupSpec(kGeneral, false, SortKey{Column: 1, Desc: true}, SortKey{Column: 0}),
			srcs: nodes(),
			want: [][]string{{"a", "6", "3.0", "10"}, {"B", "3", "4", "3"}, {"NULL", "1", "1", "0"}, {"c", "1", "2", "1"}},
		},
		{
			name: "memory, ORDER BY SUM, ties by key",
			spec: groupSpec(kGeneral, false, SortKey{Column: 2}),
			srcs: nodes(),
			want: [][]string{{"NULL", "1", "1", "0"}, {"c", "1", "2", "1"}, {"a", "6", "3.0", "10"}, {"B", "3", "4", "3"}},
		},
		{
			name: "stream, ORDER BY key",
			spec: groupSpec(kGeneral, true, SortKey{Column: 0}),
			srcs: []RowSource{
				msrc(mrow("a", 2, mdec("1.5"), 7), mrow("B", 1, nil, nil), mrow("c", 1, mdec("2"), 1)),
				msrc(mrow("A", 3, mdec("0.5"), 9), mrow("b", 2, mdec("4"), 3)),
				msrc(),
				msrc(mrow(nil, 1, mdec("1"), 0), mrow("À", 1, mdec("1"), 10)),
			},
			want: [][]string{{"NULL", "1", "1", "0"}, {"a", "6", "3.0", "10"}, {"B", "3", "4", "3"}, {"c", "1", "2", "1"}},
		},
		{
			name: "stream, ORDER BY key DESC",
			spec: groupSpec(kGeneral, true, SortKey{Column: 0, Desc: true}),
			srcs: []RowSource{
				msrc(mrow("c", 1, mdec("2"), 1), mrow("B", 1, nil, nil), mrow("a", 2, mdec("1.5"), 7)),
				msrc(mrow("b", 2, mdec("4"), 3), mrow("A", 3, mdec("0.5"), 9)),
				msrc(mrow("À", 1, mdec("1"), 10), mrow(nil, 1, mdec("1"), 0)),
			},
			want: [][]string{{"c", "1", "2", "1"}, {"B", "3", "4", "3"}, {"a", "6", "3.0", "10"}, {"NULL", "1", "1", "0"}},
		},
		{
			name: "stream, bin collation keeps case apart",
			spec: groupSpec(kBin, true, SortKey{Column: 0}),
			srcs: []RowSource{
				msrc(mrow("A", 1, mdec("1"), 1), mrow("a", 1, mdec("1"), 1)),
				msrc(mrow("A", 2, mdec("1"), 5), mrow("a ", 1, mdec("1"), 2)),
			},
			want: [][]string{{"A", "3", "2", "5"}, {"a", "2", "2", "2"}},
		},
		{
			name: "stream, no rows",
			spec: groupSpec(kGeneral, true, SortKey{Column: 0}),
			srcs: []RowSource{msrc(), msrc()},
			want: [][]string{},
		},
		{
			name: "memory, no rows: no groups",
			spec: groupSpec(kGeneral, false),
			srcs: []RowSource{msrc(), msrc()},
			want: [][]string{},
		},
		{
			name: "memory, numeric keys of different forms",
			spec: groupSpec(kDec, false),
			srcs: []RowSource{msrc(mrow(mdec("1.50"), 1, mdec("1"), 1)), msrc(mrow(mdec("1.5"), 1, mdec("1"), 2), mrow(mdec("-0"), 1, mdec("1"), 3)), msrc(mrow(mdec("0.00"), 1, mdec("1"), 4))},
			want: [][]string{{"-0", "2", "2", "4"}, {"1.50", "2", "2", "2"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, mergeText(t, &tc.spec, nil, tc.srcs...))
		})
	}
}

func TestMergeGroupByTwoColumns(t *testing.T) {
	// GROUP BY a, b ORDER BY b, a (the same columns in another order is
	// still a stream group-by), with a hidden GROUP_BY_DERIVED column.
	spec := MergeSpec{
		Columns: 3, Visible: 2, Kinds: []ColumnKind{kInt, kInt, kGeneral},
		GroupBy: []int{2, 0}, Aggregates: []AggregateSpec{{Column: 1, Func: AggCount}},
		OrderBy: []SortKey{{Column: 0}, {Column: 2}}, StreamGroup: true, Count: NoLimit,
	}
	srcs := func() []RowSource {
		return []RowSource{
			msrc(mrow(1, 1, "x"), mrow(1, 2, "y"), mrow(2, 1, "x")),
			msrc(mrow(1, 5, "X"), mrow(2, 1, "y")),
		}
	}
	want := [][]string{{"1", "6"}, {"1", "2"}, {"2", "1"}, {"2", "1"}}
	require.Equal(t, want, mergeText(t, &spec, nil, srcs()...))
	spec.StreamGroup = false
	require.Equal(t, want, mergeText(t, &spec, nil, srcs()...))
}

func TestMergeDistinct(t *testing.T) {
	t.Run("DISTINCT rows, in memory, ORDER BY", func(t *testing.T) {
		spec := MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kGeneral, kInt}, Distinct: true,
			OrderBy: []SortKey{{Column: 1, Desc: true}}, Count: NoLimit}
		got := mergeText(t, &spec, nil,
			msrc(mrow("a", 1), mrow("b", 2), mrow(nil, 3)),
			msrc(mrow("A", 1), mrow("b ", 2), mrow(nil, 3), mrow("c", 1)))
		require.Equal(t, [][]string{{"NULL", "3"}, {"b", "2"}, {"a", "1"}, {"c", "1"}}, got)
	})
	t.Run("DISTINCT rows, no ORDER BY: column order", func(t *testing.T) {
		spec := MergeSpec{Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, Distinct: true, Count: NoLimit}
		got := mergeText(t, &spec, nil, msrc(mrow(3), mrow(1), mrow(3)), msrc(mrow(2), mrow(1)))
		require.Equal(t, [][]string{{"1"}, {"2"}, {"3"}}, got)
	})
	t.Run("DISTINCT rows, streamed", func(t *testing.T) {
		spec := MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kGeneral, kInt}, Distinct: true,
			OrderBy: []SortKey{{Column: 1}, {Column: 0}}, StreamGroup: true, Count: NoLimit}
		got := mergeText(t, &spec, nil,
			msrc(mrow("a", 1), mrow("c", 1), mrow("b", 2)),
			msrc(mrow("A", 1), mrow("b", 2)))
		require.Equal(t, [][]string{{"a", "1"}, {"c", "1"}, {"b", "2"}}, got)
	})
	t.Run("DISTINCT with a hidden ORDER BY column", func(t *testing.T) {
		// Only the visible columns decide duplicates.
		spec := MergeSpec{Columns: 2, Visible: 1, Kinds: []ColumnKind{kInt, kInt}, Distinct: true,
			OrderBy: []SortKey{{Column: 0}}, Count: NoLimit}
		got := mergeText(t, &spec, nil, msrc(mrow(1, 5), mrow(2, 6)), msrc(mrow(1, 7)))
		require.Equal(t, [][]string{{"1"}, {"2"}}, got)
	})
	t.Run("DISTINCT after GROUP BY", func(t *testing.T) {
		// SELECT DISTINCT COUNT(*) FROM t GROUP BY g: the groups' counts,
		// each once, in the groups' order.
		spec := MergeSpec{Columns: 2, Visible: 1, Kinds: []ColumnKind{kInt, kInt}, Distinct: true,
			GroupBy: []int{1}, Aggregates: []AggregateSpec{{Column: 0, Func: AggCount}}, Count: NoLimit}
		got := mergeText(t, &spec, nil, msrc(mrow(2, 10), mrow(1, 20), mrow(3, 30)), msrc(mrow(1, 10), mrow(3, 40)))
		require.Equal(t, [][]string{{"3"}, {"1"}}, got)
	})
	t.Run("DISTINCT of a scalar aggregate", func(t *testing.T) {
		spec := MergeSpec{Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, Distinct: true,
			Aggregates: []AggregateSpec{{Column: 0, Func: AggCount}}, Count: NoLimit}
		require.Equal(t, [][]string{{"5"}}, mergeText(t, &spec, nil, msrc(mrow(2)), msrc(mrow(3))))
	})
}

// TestMergeScalar checks that a scalar aggregate returns one row,
// non-aggregate columns from the first row (NULL without rows).
func TestMergeScalar(t *testing.T) {
	spec := MergeSpec{Columns: 3, Visible: 3, Kinds: []ColumnKind{kGeneral, kInt, kInt},
		Aggregates: []AggregateSpec{{Column: 1, Func: AggCount}, {Column: 2, Func: AggMin}}, Count: NoLimit}
	require.Equal(t, [][]string{{"first", "5", "-1"}}, mergeText(t, &spec, nil, msrc(mrow("first", 2, 4)), msrc(mrow("second", 3, -1))))
	require.Equal(t, [][]string{{"NULL", "0", "NULL"}}, mergeText(t, &spec, nil, msrc(), msrc()))
	// With LIMIT 1, 1 the one row is skipped, as MySQL does.
	spec.Offset, spec.Count = LimitValue{Value: 1}, LimitValue{Value: 1}
	require.Equal(t, [][]string{}, mergeText(t, &spec, nil, msrc()))
}

// TestMergeStreamGroupMemory checks that the stream group-by holds one
// group: merging 4 sources × 250,000 rows into 1,000,000 groups of one row
// does not grow the heap.
func TestMergeStreamGroupMemory(t *testing.T) {
	spec := MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kInt, kGeneral}, GroupBy: []int{0},
		Aggregates: []AggregateSpec{{Column: 1, Func: AggMax}}, OrderBy: []SortKey{{Column: 0}}, StreamGroup: true, Count: NoLimit}
	var ms goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&ms)
	before, peak, read := ms.HeapAlloc, ms.HeapAlloc, 0
	m, err := Merge(&spec, nil, newGenSources(4, 250_000, func() {
		if read++; read%100_000 == 0 {
			goruntime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}))
	require.NoError(t, err)
	n := 0
	var first, last int64 = -1, -1
	for {
		r, err := m.Next()
		if err != nil {
			break
		}
		if first < 0 {
			first = r[0].Int()
		}
		last = r[0].Int()
		n++
	}
	require.Equal(t, 1_000_000, n)
	require.Equal(t, int64(0), first)
	require.Equal(t, int64(999_999), last)
	t.Logf("1,000,000 groups: heap before %d B, peak %d B (growth %d B)", before, peak, int64(peak)-int64(before))
	require.Less(t, int64(peak)-int64(before), int64(8<<20), "the stream group-by holds one group, not all of them")
}
