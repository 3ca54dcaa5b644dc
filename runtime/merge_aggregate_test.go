package runtime

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// aggCase runs one scalar aggregate over per-node values of one column
// (each inner slice is one node's rows) and returns the merged text.
func aggCase(t *testing.T, a AggregateSpec, kinds []ColumnKind, nodes ...[][]Cell) string {
	t.Helper()
	spec := MergeSpec{Columns: len(kinds), Visible: 1, Kinds: kinds, Aggregates: []AggregateSpec{a}, Count: NoLimit}
	sources := make([]RowSource, len(nodes))
	for i, n := range nodes {
		sources[i] = msrc(n...)
	}
	got := mergeText(t, &spec, nil, sources...)
	require.Len(t, got, 1, "a scalar aggregate returns one row")
	return got[0][0]
}

// TestAggregates runs every aggregate over no rows, NULL-only rows and
// mixed rows spread over nodes.
func TestAggregates(t *testing.T) {
	none := [][]Cell{}
	one := func(vals ...any) [][]Cell {
		out := make([][]Cell, len(vals))
		for i, v := range vals {
			out[i] = mrow(v)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		fn    AggFunc
		kind  ColumnKind
		nodes [][][]Cell
		want  string
	}{
		// COUNT: the nodes' counts summed; no row at all is 0.
		{"count none", AggCount, kInt, [][][]Cell{none, none}, "0"},
		{"count no source", AggCount, kInt, nil, "0"},
		{"count zeros", AggCount, kInt, [][][]Cell{one(0), one(0)}, "0"},
		{"count mixed", AggCount, kInt, [][][]Cell{one(3, 4), none, one(5)}, "12"},
		{"count as decimal text", AggCount, kDec, [][][]Cell{one(mdec("3")), one(mdec("4"))}, "7"},
		{"count NULL ignored", AggCount, kInt, [][][]Cell{one(nil, 2)}, "2"},
		{"count overflow", AggCount, kInt, [][][]Cell{one(int64(math.MaxInt64)), one(1)}, "9223372036854775808"},
		// SUM: NULL unless some node saw a value.
		{"sum none", AggSum, kDec, [][][]Cell{none, none}, "NULL"},
		{"sum NULL only", AggSum, kDec, [][][]Cell{one(nil), one(nil)}, "NULL"},
		{"sum mixed", AggSum, kDec, [][][]Cell{one(mdec("1.50"), nil), one(mdec("-0.25"))}, "1.25"},
		{"sum keeps scale", AggSum, kDec, [][][]Cell{one(mdec("1.50")), one(mdec("2.50"))}, "4.00"},
		{"sum widest scale", AggSum, kDec, [][][]Cell{one(mdec("1.5")), one(mdec("0.125"))}, "1.625"},
		{"sum negative", AggSum, kDec, [][][]Cell{one(mdec("-1.5")), one(mdec("0.25"))}, "-1.25"},
		{"sum int", AggSum, kInt, [][][]Cell{one(2, 3), one(-10)}, "-5"},
		{"sum int overflows to decimal", AggSum, kInt, [][][]Cell{one(int64(math.MaxInt64)), one(int64(math.MaxInt64))}, "18446744073709551614"},
		{"sum uint", AggSum, kUint, [][][]Cell{one(uint64(math.MaxUint64)), one(uint64(0))}, "18446744073709551615"},
		{"sum uint overflow", AggSum, kUint, [][][]Cell{one(uint64(math.MaxUint64)), one(uint64(1))}, "18446744073709551616"},
		{"sum big decimal", AggSum, kDec, [][][]Cell{one(mdec("99999999999999999999999999999.99")), one(mdec("0.01"))}, "100000000000000000000000000000.00"},
		{"sum tiny decimal", AggSum, kDec, [][][]Cell{one(mdec("0.000000000000000000001")), one(mdec("1"))}, "1.000000000000000000001"},
		{"sum float", AggSum, kFloat, [][][]Cell{one(1.5, nil), one(2.25)}, "3.75"},
		{"sum float NULL", AggSum, kFloat, [][][]Cell{one(nil)}, "NULL"},
		// MIN/MAX by the column's comparison, NULL ignored.
		{"min none", AggMin, kInt, [][][]Cell{none}, "NULL"},
		{"min NULL only", AggMin, kInt, [][][]Cell{one(nil), one(nil)}, "NULL"},
		{"min mixed", AggMin, kInt, [][][]Cell{one(nil, 7), one(-3, 9)}, "-3"},
		{"max mixed", AggMax, kInt, [][][]Cell{one(nil, 7), one(-3, 9)}, "9"},
		{"max decimal numerically", AggMax, kDec, [][][]Cell{one(mdec("9.5")), one(mdec("10.25"))}, "10.25"},
		{"min string collation", AggMin, kGeneral, [][][]Cell{one("b", "B")}, "b"},
		{"max string general_ci", AggMax, kGeneral, [][][]Cell{one("a", "Z"), one("z")}, "Z"},
		{"max string bin", AggMax, kBin, [][][]Cell{one("a", "Z")}, "a"},
		{"max time", AggMax, kTime, [][][]Cell{one(mdate(2020, 1, 2)), one(nil, mdate(2021, 5, 1))}, "2021-05-01"},
		// COUNT/SUM/AVG(DISTINCT): over the union of the nodes' values.
		{"count distinct none", AggCountDistinct, kInt, [][][]Cell{none, none}, "0"},
		{"count distinct NULL only", AggCountDistinct, kInt, [][][]Cell{one(nil), one(nil)}, "0"},
		{"count distinct across nodes", AggCountDistinct, kInt, [][][]Cell{one(1, 2), one(2, 3, nil)}, "3"},
		{"count distinct collation", AggCountDistinct, kGeneral, [][][]Cell{one("abc", "x"), one("ABC ", "À", "a")}, "3"},
		{"count distinct decimals", AggCountDistinct, kDec, [][][]Cell{one(mdec("1.50")), one(mdec("1.5"))}, "1"},
		{"sum distinct none", AggSumDistinct, kInt, [][][]Cell{none}, "NULL"},
		{"sum distinct NULL only", AggSumDistinct, kInt, [][][]Cell{one(nil), one(nil)}, "NULL"},
		{"sum distinct", AggSumDistinct, kInt, [][][]Cell{one(100, 1), one(100)}, "101"},
		{"sum distinct decimal", AggSumDistinct, kDec, [][][]Cell{one(mdec("1.5"), mdec("2.25")), one(mdec("1.50"))}, "3.75"},
		{"sum distinct float", AggSumDistinct, kFloat, [][][]Cell{one(1.5), one(1.5, 2.0)}, "3.5"},
		{"avg distinct none", AggAvgDistinct, kInt, [][][]Cell{none}, "NULL"},
		{"avg distinct (#14432)", AggAvgDistinct, kInt, [][][]Cell{one(100), one(100)}, "100.0000"},
		{"avg distinct", AggAvgDistinct, kInt, [][][]Cell{one(1, 2), one(2, 4)}, "2.3333"},
		{"avg distinct float", AggAvgDistinct, kFloat, [][][]Cell{one(1.0), one(2.0, 1.0)}, "1.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := AggregateSpec{Column: 0, Func: tc.fn, Scale: 4}
			require.Equal(t, tc.want, aggCase(t, a, []ColumnKind{tc.kind}, tc.nodes...))
		})
	}
}

// TestAggregateBits checks BIT_AND / BIT_OR / BIT_XOR combined across
// nodes, and MySQL's values over no row (18446744073709551615 for
// BIT_AND, 0 for the others: checked on MariaDB 10.11).
func TestAggregateBits(t *testing.T) {
	none := [][]Cell{}
	one := func(vals ...uint64) [][]Cell {
		out := make([][]Cell, len(vals))
		for i, v := range vals {
			out[i] = []Cell{UintCell(v)}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		fn    AggFunc
		nodes [][][]Cell
		want  string
	}{
		{"and none", AggBitAnd, [][][]Cell{none, none}, "18446744073709551615"},
		{"or none", AggBitOr, [][][]Cell{none}, "0"},
		{"xor none", AggBitXor, nil, "0"},
		{"and empty node keeps the others", AggBitAnd, [][][]Cell{one(math.MaxUint64), one(12)}, "12"},
		{"and", AggBitAnd, [][][]Cell{one(0b1110), one(0b0111)}, "6"},
		{"or", AggBitOr, [][][]Cell{one(0b1000), one(0b0001, 0b0100)}, "13"},
		{"xor", AggBitXor, [][][]Cell{one(0b1100), one(0b1010), one(0)}, "6"},
		{"xor high bit", AggBitXor, [][][]Cell{one(1 << 63), one(1)}, "9223372036854775809"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, aggCase(t, AggregateSpec{Column: 0, Func: tc.fn}, []ColumnKind{kUint}, tc.nodes...))
		})
	}
}

// TestAggregateCountDistinctTuples checks COUNT(DISTINCT a, b) over the
// arguments' columns: tuples distinct across nodes, a tuple with a NULL
// not counted, text compared by its column's collation; and SUM(DISTINCT)
// reading its argument column while its own column is the nodes' value.
func TestAggregateCountDistinctTuples(t *testing.T) {
	row := func(vals ...any) []Cell { return mrow(append([]any{nil}, vals...)...) }
	kinds := []ColumnKind{kInt, kInt, kGeneral}
	count := AggregateSpec{Column: 0, Func: AggCountDistinct, ArgColumns: []int{1, 2}}
	require.Equal(t, "0", aggCase(t, count, kinds, [][]Cell{}, [][]Cell{}))
	require.Equal(t, "0", aggCase(t, count, kinds, [][]Cell{row(1, nil), row(nil, "a")}))
	require.Equal(t, "3", aggCase(t, count, kinds,
		[][]Cell{row(1, "a"), row(1, "b"), row(2, nil)},
		[][]Cell{row(1, "A "), row(2, "a"), row(nil, nil)}))
	sum := AggregateSpec{Column: 0, Func: AggSumDistinct, ArgColumns: []int{1}}
	require.Equal(t, "5", aggCase(t, sum, []ColumnKind{kDec, kInt}, [][]Cell{mrow(mdec("99"), 2), mrow(nil, 3)}, [][]Cell{mrow(mdec("1"), 2)}))
	// A spec that names ArgColumns for another function, or two for SUM,
	// is refused.
	for _, bad := range []AggregateSpec{
		{Column: 0, Func: AggCount, ArgColumns: []int{1}},
		{Column: 0, Func: AggSumDistinct, ArgColumns: []int{1, 2}},
		{Column: 0, Func: AggCountDistinct, ArgColumns: []int{0}},
	} {
		spec := MergeSpec{Columns: 3, Visible: 1, Kinds: kinds, Aggregates: []AggregateSpec{bad}, Count: NoLimit}
		require.Error(t, spec.Validate(), "%+v", bad)
	}
}

// TestAggregateAvg checks AVG = ΣSUM / ΣCOUNT over the derived columns,
// rounded HALF_UP to the scale as MySQL's decimal division does (checked
// on MariaDB: 1/32 is 0.0313, -1/32 is -0.0313, 3/32 is 0.0938).
func TestAggregateAvg(t *testing.T) {
	avg := func(scale int, sumKind ColumnKind, nodes ...[]Cell) string {
		// Columns: AVG (ignored per node), COUNT, SUM.
		srcs := make([][][]Cell, len(nodes))
		for i, n := range nodes {
			srcs[i] = [][]Cell{n}
		}
		return aggCase(t, AggregateSpec{Column: 0, Func: AggAvg, CountColumn: 1, SumColumn: 2, Scale: scale},
			[]ColumnKind{kDec, kInt, sumKind}, srcs...)
	}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"C02 group a", avg(4, kDec, mrow(mdec("20.0000"), 1, mdec("20")), mrow(mdec("17.5000"), 2, mdec("35"))), "18.3333"},
		{"C02 group b", avg(4, kDec, mrow(mdec("5.0000"), 1, mdec("5")), mrow(nil, 0, nil)), "5.0000"},
		{"no non-NULL value", avg(4, kDec, mrow(nil, 0, nil), mrow(nil, 0, nil)), "NULL"},
		{"no row", avg(4, kDec), "NULL"},
		{"half up", avg(4, kDec, mrow(nil, 16, mdec("1")), mrow(nil, 16, mdec("0"))), "0.0313"},
		{"half up negative", avg(4, kDec, mrow(nil, 32, mdec("-1"))), "-0.0313"},
		{"three 32ths", avg(4, kDec, mrow(nil, 32, mdec("3"))), "0.0938"},
		{"two thirds", avg(4, kDec, mrow(nil, 3, mdec("2"))), "0.6667"},
		{"decimal argument, scale 2+4", avg(6, kDec, mrow(nil, 3, mdec("1.25"))), "0.416667"},
		{"scale below the sum's", avg(1, kDec, mrow(nil, 1, mdec("0.25"))), "0.3"},
		{"scale 0", avg(0, kDec, mrow(nil, 2, mdec("5"))), "3"},
		{"int sums", avg(4, kInt, mrow(nil, 2, 7), mrow(nil, 1, 2)), "3.0000"},
		{"big sum", avg(4, kDec, mrow(nil, 3, mdec("1000000000000000000000000000000")), mrow(nil, 0, mdec("1000000000000000000000000000001"))), "666666666666666666666666666667.0000"},
		{"float sums", avg(4, kFloat, mrow(nil, 2, 1.0), mrow(nil, 1, 0.5)), "0.5"},
		{"decimal counts", avg(4, kDec, mrow(nil, mdec("2"), mdec("3"))), "1.5000"},
	} {
		require.Equal(t, tc.want, tc.got, tc.name)
	}
}

// TestDecimalSum exercises the exact accumulator across the int64 /
// big.Int boundary and mixed scales.
func TestDecimalSum(t *testing.T) {
	for _, tc := range []struct {
		add  []string
		want string
	}{
		{nil, "0"},
		{[]string{"1", "2"}, "3"},
		{[]string{"0.1", "0.2"}, "0.3"},
		{[]string{"+1.0", "-1.00"}, "0.00"},
		{[]string{"999999999999999999", "1"}, "1000000000000000000"},
		{[]string{"9223372036854775807", "1"}, "9223372036854775808"},
		{[]string{"-9223372036854775808", "-1"}, "-9223372036854775809"},
		{[]string{"0.000000000000000001", "9"}, "9.000000000000000001"},
		{[]string{"92233720368547758.07", "0.001"}, "92233720368547758.071"},
		{[]string{strings.Repeat("9", 40), "1"}, "1" + strings.Repeat("0", 40)},
		{[]string{"-" + strings.Repeat("9", 40), strings.Repeat("9", 40) + ".5"}, "0.5"},
		{[]string{"00012.500", "0.5"}, "13.000"},
	} {
		var d decimalSum
		for _, s := range tc.add {
			d.addText([]byte(s))
		}
		require.Equal(t, tc.want, string(d.appendText(nil)), "%v", tc.add)
	}
	var d decimalSum
	d.addCell(&Cell{kind: CellUint, n: -1}) // MaxUint64
	d.addCell(&Cell{kind: CellInt, n: 1})
	require.Equal(t, "18446744073709551616", string(d.appendText(nil)))
	require.Equal(t, float64(1<<64), d.float())
	require.Equal(t, "18446744073709551616", d.cell(ColumnUint).String(), "too big for Uint: Decimal")
	require.Equal(t, CellDecimal, d.cell(ColumnUint).Kind())
	var u decimalSum
	u.addBig(new(big.Int).SetUint64(math.MaxUint64), 0)
	require.Equal(t, CellUint, u.cell(ColumnUint).Kind())
	require.Equal(t, "0.005", string(appendScaled(nil, []byte("5"), 3)))
	require.Equal(t, "-12.34", string(appendScaled(nil, []byte("-1234"), 2)))
}

// TestAggregateAllocs checks that accumulating exact sums and counts of
// small values does not allocate per row.
func TestAggregateAllocs(t *testing.T) {
	spec := MergeSpec{Columns: 3, Visible: 3, Kinds: []ColumnKind{kInt, kInt, kDec},
		Aggregates: []AggregateSpec{{Column: 1, Func: AggCount}, {Column: 2, Func: AggSum}}}
	g := newGrouper(&spec, nil, nil)
	var gr group
	r := mrow(1, 2, mdec("12.25"))
	g.start(&gr, r)
	allocs := testing.AllocsPerRun(1000, func() { g.add(&gr, r) })
	require.Zero(t, allocs)
}

// TestFirstColumn: a group's non-aggregate columns are those of its node
// row with the least FirstColumn (MIN(pk)), whichever node is read first;
// without FirstColumn, the first row read.
func TestFirstColumn(t *testing.T) {
	kinds := []ColumnKind{kGeneral, kInt, kInt}
	node0 := [][]Cell{mrow("A ", 2, 30), mrow("b", 1, 5)}
	node1 := [][]Cell{mrow("a", 3, 10), mrow("B", 1, 2)}
	spec := MergeSpec{Columns: 3, Visible: 2, Kinds: kinds, GroupBy: []int{0}, OrderBy: []SortKey{{Column: 0}},
		Aggregates: []AggregateSpec{{Column: 1, Func: AggCount}}, Count: NoLimit, FirstColumn: 2}
	require.Equal(t, [][]string{{"a", "5"}, {"B", "2"}}, mergeText(t, &spec, nil, msrc(node0...), msrc(node1...)))
	spec.FirstColumn = 0
	require.Equal(t, [][]string{{"A ", "5"}, {"b", "2"}}, mergeText(t, &spec, nil, msrc(node0...), msrc(node1...)))
	spec.FirstColumn = 1
	require.Error(t, spec.Validate(), "FirstColumn must be beyond the visible columns")
}
