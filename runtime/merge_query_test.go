package runtime

import (
	"database/sql"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestScanCells(t *testing.T) {
	when := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	dec, err := DecodeCell(ColumnKind{Type: ColumnDecimal}, []byte("18.3333"))
	require.NoError(t, err)
	var (
		n   int64
		i32 int32
		u   uint64
		s   sql.NullString
		ns  sql.NullString
		f   float64
		tm  time.Time
		nt  sql.NullTime
		b   []byte
		ni  sql.Null[int8]
	)
	require.NoError(t, ScanCells(
		[]Cell{IntCell(7), IntCell(-3), UintCell(1 << 63), dec, NullCell(), FloatCell(1.5), TimeCell(when), NullCell(), NullCell(), IntCell(5)},
		&n, &i32, &u, &s, &ns, &f, &tm, &nt, &b, &ni))
	require.Equal(t, int64(7), n)
	require.Equal(t, int32(-3), i32)
	require.Equal(t, uint64(1<<63), u)
	require.Equal(t, sql.NullString{String: "18.3333", Valid: true}, s)
	require.False(t, ns.Valid)
	require.Equal(t, 1.5, f)
	require.Equal(t, when, tm)
	require.False(t, nt.Valid)
	require.Nil(t, b)
	require.Equal(t, sql.Null[int8]{V: 5, Valid: true}, ni)

	var str string
	require.EqualError(t, ScanCells([]Cell{NullCell()}, &str), "column 1: converting NULL to string is unsupported")
	var small int8
	require.EqualError(t, ScanCells([]Cell{IntCell(300)}, &small), "column 1: value 300 overflows int8")
	require.EqualError(t, ScanCells([]Cell{IntCell(1)}, &small, &str), "runtime.ScanCells: 1 cells into 2 destinations")

	// A BIGINT UNSIGNED read as text: up to 2^64-1.
	var big uint64
	var small32 uint32
	require.NoError(t, ScanCells([]Cell{StringCell("18446744073709551615")}, &big))
	require.Equal(t, uint64(math.MaxUint64), big)
	require.EqualError(t, ScanCells([]Cell{StringCell("4294967296")}, &small32), "column 1: value 4294967296 overflows uint32")
	require.EqualError(t, ScanCells([]Cell{StringCell("-1")}, &big), `column 1: converting Bytes "-1" to an unsigned integer: strconv.ParseUint: parsing "-1": invalid syntax`)
	require.EqualError(t, ScanCells([]Cell{IntCell(-1)}, &big), "column 1: value -1 overflows uint64")

	// *T of emit_pointers_for_null_types: nil for NULL.
	pname, age, born := new(string), new(int32), new(time.Time)
	require.NoError(t, ScanCells([]Cell{NullCell(), IntCell(42), TimeCell(when)}, &pname, &age, &born))
	require.Nil(t, pname)
	require.Equal(t, int32(42), *age)
	require.Equal(t, when, *born)
	require.NoError(t, ScanCells([]Cell{StringCell("ann")}, &pname))
	require.Equal(t, "ann", *pname)
	require.EqualError(t, ScanCells([]Cell{IntCell(300)}, &[]*int8{nil}[0]), "column 1: value 300 overflows int8")

	// Named types of a column override scan as database/sql scans them.
	type email string
	type flag bool
	type score float64
	type blob []byte
	var (
		e  email
		fl flag
		sc score
		bl blob
		pe *email
	)
	require.NoError(t, ScanCells([]Cell{StringCell("a@b.c"), IntCell(1), dec, StringCell("xy"), StringCell("p@q.r")}, &e, &fl, &sc, &bl, &pe))
	require.Equal(t, email("a@b.c"), e)
	require.Equal(t, flag(true), fl)
	require.Equal(t, score(18.3333), sc)
	require.Equal(t, blob("xy"), bl)
	require.Equal(t, email("p@q.r"), *pe)
	require.EqualError(t, ScanCells([]Cell{NullCell()}, &e), "column 1: converting NULL to runtime.email is unsupported")
	require.NoError(t, ScanCells([]Cell{NullCell()}, &bl))
	require.Nil(t, bl)
}
