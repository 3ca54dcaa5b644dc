package runtime

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMergeIterator(t *testing.T) {
	spec := MergeSpec{Columns: 2, Visible: 1, Kinds: []ColumnKind{kInt, kInt}, Count: NoLimit}
	got := mergeText(t, &spec, nil, msrc(), msrc(mrow(3, 0), mrow(1, 0)), msrc(), msrc(mrow(2, 0)))
	require.Equal(t, [][]string{{"3"}, {"1"}, {"2"}}, got, "route order, derived column dropped")
	require.Equal(t, [][]string{}, mergeText(t, &spec, nil))
	require.Equal(t, [][]string{}, mergeText(t, &spec, nil, msrc(), msrc()))
}

func TestMergeOrderBy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kinds   []ColumnKind
		keys    []SortKey
		sources [][][]Cell
		want    [][]string
	}{
		{
			name:  "NULL first ASC",
			kinds: []ColumnKind{kInt, kGeneral},
			keys:  []SortKey{{Column: 0}},
			sources: [][][]Cell{
				{mrow(nil, "n1"), mrow(1, "a"), mrow(5, "e")},
				{mrow(nil, "n2"), mrow(2, "b")},
				{mrow(0, "z")},
			},
			want: [][]string{{"NULL", "n1"}, {"NULL", "n2"}, {"0", "z"}, {"1", "a"}, {"2", "b"}, {"5", "e"}},
		},
		{
			name:  "NULL last DESC",
			kinds: []ColumnKind{kInt, kGeneral},
			keys:  []SortKey{{Column: 0, Desc: true}},
			sources: [][][]Cell{
				{mrow(5, "e"), mrow(1, "a"), mrow(nil, "n1")},
				{mrow(2, "b"), mrow(nil, "n2")},
			},
			want: [][]string{{"5", "e"}, {"2", "b"}, {"1", "a"}, {"NULL", "n1"}, {"NULL", "n2"}},
		},
		{
			name:  "collation ties keep source order",
			kinds: []ColumnKind{kGeneral, kInt},
			keys:  []SortKey{{Column: 0}},
			sources: [][][]Cell{
				{mrow("a", 0), mrow("À", 1), mrow("b", 2)},
				{mrow("A", 10), mrow("B", 11)},
				{mrow("a ", 20)},
			},
			// 'a', 'À', 'A', 'a ' are equal under utf8mb4_general_ci: source 0's
			// two, then source 1's, then source 2's.
			want: [][]string{{"a", "0"}, {"À", "1"}, {"A", "10"}, {"a ", "20"}, {"b", "2"}, {"B", "11"}},
		},
		{
			name:  "bin collation",
			kinds: []ColumnKind{kBin},
			keys:  []SortKey{{Column: 0}},
			sources: [][][]Cell{
				{mrow("B"), mrow("a")},
				{mrow("A"), mrow("b")},
			},
			want: [][]string{{"A"}, {"B"}, {"a"}, {"b"}},
		},
		{
			name:  "two keys, mixed directions",
			kinds: []ColumnKind{kGeneral, kDec},
			keys:  []SortKey{{Column: 0}, {Column: 1, Desc: true}},
			sources: [][][]Cell{
				{mrow("x", mdec("10.5")), mrow("x", mdec("9.75")), mrow("y", nil)},
				{mrow("X", mdec("10.50")), mrow("x", mdec("2")), mrow("y", mdec("-1"))},
			},
			want: [][]string{{"x", "10.5"}, {"X", "10.50"}, {"x", "9.75"}, {"x", "2"}, {"y", "-1"}, {"y", "NULL"}},
		},
		{
			name:  "numbers numerically, not as text (dble #402)",
			kinds: []ColumnKind{kDec},
			keys:  []SortKey{{Column: 0}},
			sources: [][][]Cell{
				{mrow(mdec("1")), mrow(mdec("10")), mrow(mdec("12"))},
				{mrow(mdec("2")), mrow(mdec("11"))},
			},
			want: [][]string{{"1"}, {"2"}, {"10"}, {"11"}, {"12"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := MergeSpec{Columns: len(tc.kinds), Visible: len(tc.kinds), Kinds: tc.kinds, OrderBy: tc.keys, Count: NoLimit}
			srcs := make([]RowSource, len(tc.sources))
			for i, s := range tc.sources {
				srcs[i] = msrc(s...)
			}
			require.Equal(t, tc.want, mergeText(t, &spec, nil, srcs...))
		})
	}
}

// countingSource counts the rows read from it.
type countingSource struct {
	RowSource
	read int
}

func (c *countingSource) Next() ([]Cell, error) {
	r, err := c.RowSource.Next()
	if err == nil {
		c.read++
	}
	return r, err
}

// TestMergeOrderByLazy checks that the order-by stream reads one row per
// source before returning its first row, and one more per row returned.
func TestMergeOrderByLazy(t *testing.T) {
	spec := MergeSpec{Columns: 1, Visible: 1, Kinds: []ColumnKind{kInt}, OrderBy: []SortKey{{Column: 0}}, Count: NoLimit}
	a := &countingSource{RowSource: msrc(mrow(1), mrow(3), mrow(5))}
	b := &countingSource{RowSource: msrc(mrow(2), mrow(4))}
	m, err := Merge(&spec, nil, []RowSource{a, b})
	require.NoError(t, err)
	require.Zero(t, a.read+b.read, "Merge reads nothing")
	r, err := m.Next()
	require.NoError(t, err)
	require.Equal(t, int64(1), r[0].Int())
	require.Equal(t, [2]int{1, 1}, [2]int{a.read, b.read})
	r, err = m.Next()
	require.NoError(t, err)
	require.Equal(t, int64(2), r[0].Int())
	require.Equal(t, [2]int{2, 1}, [2]int{a.read, b.read})
}

// TestMergeOrderByRandom compares the heap merge with a stable sort of
// all rows by (keys, source) over random sorted sources.
func TestMergeOrderByRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []ColumnKind{kInt, kGeneral, kInt}
	keys := []SortKey{{Column: 0, Desc: true}, {Column: 1}}
	colls := []keyOrder{{col: 0, coll: CollationBinary}, {col: 1, coll: CollationUTF8MB4GeneralCI}}
	letters := []string{"a", "A", "b", "B", "à", "c", ""}
	for iter := range 200 {
		nsrc := 1 + rng.IntN(8)
		var all [][]Cell
		srcs := make([]RowSource, nsrc)
		for s := range nsrc {
			var rs [][]Cell
			for range rng.IntN(30) {
				var v any
				if rng.IntN(5) > 0 {
					v = rng.IntN(6)
				}
				rs = append(rs, mrow(v, letters[rng.IntN(len(letters))], s))
			}
			slices.SortStableFunc(rs, func(a, b []Cell) int { return compareRows(a, b, keys, colls) })
			all = append(all, rs...)
			srcs[s] = msrc(rs...)
		}
		slices.SortStableFunc(all, func(a, b []Cell) int {
			if c := compareRows(a, b, keys, colls); c != 0 {
				return c
			}
			return int(a[2].Int() - b[2].Int())
		})
		spec := MergeSpec{Columns: 3, Visible: 3, Kinds: kinds, OrderBy: keys, Count: NoLimit}
		m, err := Merge(&spec, nil, srcs)
		require.NoError(t, err)
		got, err := ReadAll(m)
		require.NoError(t, err)
		require.Equal(t, len(all), len(got), "iteration %d", iter)
		for i := range all {
			for c := range 3 {
				require.Equal(t, all[i][c].String(), got[i][c].String(), "iteration %d row %d", iter, i)
			}
		}
	}
}

// TestMergeOrderBySourceReusesRow checks that a source that overwrites its
// row buffer on every Next still merges correctly: the merge only advances
// a source after its row was returned.
func TestMergeOrderBySourceReusesRow(t *testing.T) {
	spec := MergeSpec{Columns: 2, Visible: 2, Kinds: []ColumnKind{kInt, kGeneral}, OrderBy: []SortKey{{Column: 0}}, Count: NoLimit}
	var want [][]string
	for i := range 12 {
		want = append(want, []string{strconv.Itoa(i), "payload of a generated row"})
	}
	got := mergeText(t, &spec, nil, newGenSources(3, 4, nil)...)
	require.Equal(t, want, got)
}
