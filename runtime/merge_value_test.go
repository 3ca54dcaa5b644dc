package runtime

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDecodeCell(t *testing.T) {
	ts := time.Date(2024, 2, 29, 13, 4, 5, 123456000, time.UTC)
	for _, tc := range []struct {
		kind    ColumnKind
		in      any
		kindOut CellKind
		text    string // Cell.String
		value   any    // Cell.Value
	}{
		{kInt, nil, CellNull, "NULL", nil},
		{kInt, int64(-7), CellInt, "-7", int64(-7)},
		{kInt, int(7), CellInt, "7", int64(7)},
		{kInt, int8(-8), CellInt, "-8", int64(-8)},
		{kInt, uint32(4000000000), CellInt, "4000000000", int64(4000000000)},
		{kInt, uint64(math.MaxInt64), CellInt, "9223372036854775807", int64(math.MaxInt64)},
		{kInt, []byte("-42"), CellInt, "-42", int64(-42)},
		{kInt, "42", CellInt, "42", int64(42)},
		{kUint, uint64(math.MaxUint64), CellUint, "18446744073709551615", uint64(math.MaxUint64)},
		{kUint, int64(5), CellUint, "5", uint64(5)},
		{kUint, []byte("18446744073709551615"), CellUint, "18446744073709551615", uint64(math.MaxUint64)},
		{kDec, []byte("-12.50"), CellDecimal, "-12.50", []byte("-12.50")},
		{kDec, "0.001", CellDecimal, "0.001", []byte("0.001")},
		{kDec, int64(12), CellDecimal, "12", []byte("12")},
		{kDec, uint64(math.MaxUint64), CellDecimal, "18446744073709551615", []byte("18446744073709551615")},
		{kFloat, float64(1.5), CellFloat, "1.5", float64(1.5)},
		{kFloat, float32(3.3), CellFloat, "3.3", float32(3.3)},
		{kFloat, []byte("1e3"), CellFloat, "1000", float64(1000)},
		{kFloat, int64(3), CellFloat, "3", float64(3)},
		{kFloat, uint64(3), CellFloat, "3", float64(3)},
		{kGeneral, []byte("Ab c"), CellBytes, "Ab c", []byte("Ab c")},
		{kGeneral, "x", CellBytes, "x", []byte("x")},
		{kBytes, []byte{0, 255}, CellBytes, "\x00\xff", []byte{0, 255}},
		// A column the planner could not type (POW(x, 2), a subquery's
		// value) that the driver returns typed keeps its type.
		{kGeneral, int64(-1), CellInt, "-1", int64(-1)},
		{kBytes, uint64(math.MaxUint64), CellUint, "18446744073709551615", uint64(math.MaxUint64)},
		{kBytes, float64(2.5), CellFloat, "2.5", float64(2.5)},
		{kBytes, float32(0.5), CellFloat, "0.5", float32(0.5)},
		{kBytes, ts, CellTime, "2024-02-29 13:04:05.123456", ts},
		{kTime, ts, CellTime, "2024-02-29 13:04:05.123456", ts},
		{kTime, []byte("2024-02-29"), CellTime, "2024-02-29 00:00:00", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{kTime, []byte("2024-02-29 13:04:05"), CellTime, "2024-02-29 13:04:05", time.Date(2024, 2, 29, 13, 4, 5, 0, time.UTC)},
		{kTime, []byte("2024-02-29 13:04:05.123456"), CellTime, "2024-02-29 13:04:05.123456", ts},
		{kTime, []byte("0000-00-00"), CellTime, "0001-01-01 00:00:00", time.Time{}},
		{kTime, []byte("0000-00-00 00:00:00"), CellTime, "0001-01-01 00:00:00", time.Time{}},
		{ColumnKind{Type: ColumnDuration}, []byte("-838:59:59"), CellDuration, "-838:59:59", []byte("-838:59:59")},
		{ColumnKind{Type: ColumnDuration}, "01:02:03.5", CellDuration, "01:02:03.5", []byte("01:02:03.5")},
	} {
		c, err := DecodeCell(tc.kind, tc.in)
		require.NoError(t, err, "%s %#v", tc.kind.Type, tc.in)
		require.Equal(t, tc.kindOut, c.Kind(), "%s %#v", tc.kind.Type, tc.in)
		require.Equal(t, tc.text, c.String(), "%s %#v", tc.kind.Type, tc.in)
		require.Equal(t, tc.value, c.Value(), "%s %#v", tc.kind.Type, tc.in)
		require.Equal(t, tc.kindOut == CellNull, c.IsNull())
	}

	for _, tc := range []struct {
		kind ColumnKind
		in   any
		want string
	}{
		{kInt, uint64(math.MaxInt64 + 1), "runtime.DecodeCell: Int column got 9223372036854775808, which overflows int64 (declare the column Uint)"},
		{kInt, []byte("1.5"), `runtime.DecodeCell: Int column got text "1.5", not an int64`},
		{kInt, 1.5, "runtime.DecodeCell: Int column got a value of Go type float64"},
		{kInt, true, "runtime.DecodeCell: Int column got a value of Go type bool"},
		{kUint, int64(-1), "runtime.DecodeCell: Uint column got -1"},
		{kUint, []byte("-1"), `runtime.DecodeCell: Uint column got text "-1", not a uint64`},
		{kDec, []byte("1.2.3"), `runtime.DecodeCell: Decimal column got text "1.2.3", not a decimal`},
		{kDec, []byte("1e5"), `runtime.DecodeCell: Decimal column got text "1e5", not a decimal`},
		{kDec, []byte("-"), `runtime.DecodeCell: Decimal column got text "-", not a decimal`},
		{kDec, 1.5, "runtime.DecodeCell: Decimal column got a value of Go type float64"},
		{kFloat, []byte("abc"), `runtime.DecodeCell: Float column got text "abc", not a number`},
		{kGeneral, true, "runtime.DecodeCell: String column got a value of Go type bool"},
		{kBytes, time.Second, "runtime.DecodeCell: Bytes column got a value of Go type time.Duration"},
		{kTime, []byte("2024-13-01"), `runtime.DecodeCell: Time column got text "2024-13-01", not a DATE or DATETIME`},
		{kTime, []byte("0000-00-00 x"), `runtime.DecodeCell: Time column got text "0000-00-00 x", not a DATE or DATETIME`},
		{kTime, []byte("2024-01-01T10:00:00"), `runtime.DecodeCell: Time column got text "2024-01-01T10:00:00", not a DATE or DATETIME`},
		{kTime, int64(1), "runtime.DecodeCell: Time column got a value of Go type int64"},
		{ColumnKind{Type: ColumnDuration}, []byte("1:2:3"), `runtime.DecodeCell: Duration column got text "1:2:3", not a TIME`},
		{ColumnKind{Type: ColumnDuration}, []byte("10:60:00"), `runtime.DecodeCell: Duration column got text "10:60:00", not a TIME`},
		{ColumnKind{Type: ColumnDuration}, []byte("10:00:00.1234567"), `runtime.DecodeCell: Duration column got text "10:00:00.1234567", not a TIME`},
		{ColumnKind{Type: ColumnDuration}, time.Second, "runtime.DecodeCell: Duration column got a value of Go type time.Duration"},
		{ColumnKind{}, int64(1), "runtime.DecodeCell: unknown column type ColumnType(0)"},
	} {
		_, err := DecodeCell(tc.kind, tc.in)
		require.EqualError(t, err, tc.want)
	}
}

func TestCellConstructors(t *testing.T) {
	_, err := DecimalCell([]byte("x"))
	require.EqualError(t, err, `runtime: invalid DECIMAL text "x"`)
	_, err = DurationCell([]byte("x"))
	require.EqualError(t, err, `runtime: invalid TIME text "x"`)
	d, err := DurationCell([]byte("-01:00:00.25"))
	require.NoError(t, err)
	require.Equal(t, -(time.Hour + 250*time.Millisecond), d.Duration())
	require.Equal(t, []byte("-01:00:00.25"), d.Bytes())

	// Accessors give zero values for other kinds.
	n := NullCell()
	require.True(t, n.IsNull())
	require.Zero(t, n.Int())
	require.Zero(t, n.Uint())
	require.Zero(t, n.Float())
	require.Nil(t, n.Bytes())
	require.True(t, n.Time().IsZero())
	require.Zero(t, n.Duration())
	require.Equal(t, int64(3), IntCell(3).Int())
	require.Equal(t, uint64(3), UintCell(3).Uint())
	require.Equal(t, 2.5, FloatCell(2.5).Float())
	require.Equal(t, float32(0.1), Float32Cell(0.1).Value())
}

func TestColumnKindCompare(t *testing.T) {
	d := func(s string) Cell { return mrow(mdec(s))[0] }
	for _, tc := range []struct {
		kind ColumnKind
		a, b Cell
		want int
	}{
		{kInt, NullCell(), NullCell(), 0},
		{kInt, NullCell(), IntCell(math.MinInt64), -1},
		{kInt, IntCell(-1), NullCell(), 1},
		{kInt, IntCell(-2), IntCell(1), -1},
		{kUint, UintCell(math.MaxUint64), UintCell(1), 1},
		{kUint, IntCell(-1), UintCell(0), -1},
		{kUint, UintCell(math.MaxUint64), IntCell(math.MaxInt64), 1},
		{kDec, d("1.50"), d("1.5"), 0},
		{kDec, d("01.5"), d("1.50"), 0},
		{kDec, d("-0.00"), d("0"), 0},
		{kDec, d("+3"), d("3.0"), 0},
		{kDec, d("10"), d("9.99"), 1},
		{kDec, d("0.5"), d("0.51"), -1},
		{kDec, d("0.6"), d("0.51"), 1},
		{kDec, d("-10"), d("-9.99"), -1},
		{kDec, d("-0.5"), d("0.1"), -1},
		{kDec, d(".5"), d("0.5"), 0},
		{kDec, IntCell(5), d("5.00"), 0},
		{kDec, IntCell(5), d("5.01"), -1},
		{kDec, UintCell(math.MaxUint64), d("18446744073709551615.5"), -1},
		{kDec, d("99999999999999999999999"), IntCell(math.MaxInt64), 1},
		{kFloat, FloatCell(1.5), FloatCell(-1), 1},
		{kFloat, FloatCell(2), IntCell(2), 0},
		{kFloat, d("1.25"), FloatCell(1.5), -1},
		{kFloat, Float32Cell(3), FloatCell(3), 0},
		{kGeneral, StringCell("abc"), StringCell("ABC"), 0},
		{kGeneral, StringCell("a"), StringCell("B"), -1},
		{kBin, StringCell("a"), StringCell("B"), 1},
		{kBytes, StringCell("a "), StringCell("a"), 1},
		{kTime, TimeCell(mdate(2020, 1, 1)), TimeCell(time.Time{}), 1},
		{kTime, TimeCell(mdate(2020, 1, 1)), TimeCell(mdate(2020, 1, 1).In(time.FixedZone("x", 3600))), 0},
		{ColumnKind{Type: ColumnDuration}, mustDuration("-01:00:00"), mustDuration("00:59:59"), -1},
		// Kinds MySQL would convert never share a column; they order by kind.
		{kGeneral, IntCell(9), StringCell("1"), -1},
		{kGeneral, TimeCell(mdate(2020, 1, 1)), IntCell(1), 1},
	} {
		require.Equal(t, tc.want, tc.kind.Compare(tc.a, tc.b), "%v vs %v", tc.a, tc.b)
		require.Equal(t, -tc.want, tc.kind.Compare(tc.b, tc.a), "%v vs %v", tc.b, tc.a)
		// The group key agrees with Compare on equality.
		ka := appendKey(nil, &tc.a, tc.kind.coll())
		kb := appendKey(nil, &tc.b, tc.kind.coll())
		if tc.a.Kind() == tc.b.Kind() || kindRank[tc.a.Kind()] == 1 && kindRank[tc.b.Kind()] == 1 && tc.a.Kind() != CellFloat && tc.b.Kind() != CellFloat {
			require.Equal(t, tc.want == 0, string(ka) == string(kb), "keys of %v and %v", tc.a, tc.b)
		}
	}
}

func mustDuration(s string) Cell {
	c, err := DurationCell([]byte(s))
	if err != nil {
		panic(err)
	}
	return c
}

// TestAppendKeyUnambiguous checks that the keys of multi-column groups do
// not run into each other: ("ab", "c") and ("a", "bc") are different.
func TestAppendKeyUnambiguous(t *testing.T) {
	key := func(cells ...Cell) string {
		var k []byte
		for i := range cells {
			k = appendKey(k, &cells[i], CollationUTF8MB4GeneralCI)
		}
		return string(k)
	}
	require.NotEqual(t, key(StringCell("ab"), StringCell("c")), key(StringCell("a"), StringCell("bc")))
	require.NotEqual(t, key(IntCell(12), IntCell(3)), key(IntCell(1), IntCell(23)))
	require.NotEqual(t, key(NullCell(), StringCell("")), key(StringCell(""), NullCell()))
	require.Equal(t, key(FloatCell(0)), key(FloatCell(math.Copysign(0, -1))))
	require.Equal(t, key(StringCell("Ab  ")), key(StringCell("aB")))
}

// TestCompareAllocs checks that comparing cells and building group keys
// (into a buffer with room) do not allocate, whatever the kinds and
// collations: the heap merge and the group-by call them once per row.
func TestCompareAllocs(t *testing.T) {
	pairs := []struct {
		kind ColumnKind
		a, b Cell
	}{
		{kInt, IntCell(1), IntCell(2)},
		{kDec, mrow(mdec("12.50"))[0], IntCell(12)},
		{kUint, UintCell(math.MaxUint64), IntCell(-1)},
		{kFloat, FloatCell(1.5), mrow(mdec("1.5"))[0]},
		{kTime, TimeCell(mdate(2020, 1, 1)), TimeCell(mdate(2021, 1, 1))},
		{kGeneral, StringCell("Straße  "), StringCell("STRASE")},
		{kBin, StringCell("a  "), StringCell("a")},
	}
	buf := make([]byte, 0, 256)
	for _, p := range pairs {
		coll := p.kind.coll()
		allocs := testing.AllocsPerRun(100, func() {
			compareCells(&p.a, &p.b, coll)
			buf = appendKey(buf[:0], &p.a, coll)
		})
		require.Zero(t, allocs, "%s %v vs %v", p.kind.Type, p.a, p.b)
	}
}
