package runtime

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ColumnType is how the merge engine compares, groups and aggregates one
// result column: the MySQL type family of what the data nodes return for it.
// The planner derives it from the column's DDL type (or the aggregate's
// result type) and prints it by name in `shardgen explain`.
//
// The zero value is invalid, so a MergeSpec whose Kinds were not filled in
// is refused by Merge rather than compared as something arbitrary.
type ColumnType uint8

const (
	// ColumnInt is a signed integer: TINYINT … BIGINT, YEAR, and unsigned
	// types narrower than BIGINT UNSIGNED (go-sql-driver returns them as
	// int64), COUNT(…). Cells are CellInt.
	ColumnInt ColumnType = iota + 1
	// ColumnUint is BIGINT UNSIGNED (go-sql-driver returns uint64 when the
	// column is unsigned). Cells are CellUint, or CellInt for values the
	// driver gave as int64.
	ColumnUint
	// ColumnDecimal is DECIMAL/NUMERIC and MySQL's exact aggregate results
	// (SUM and AVG of exact values). Cells are CellDecimal holding the text
	// the server sent ("18.3333"); they are compared and summed exactly,
	// never through float64.
	ColumnDecimal
	// ColumnFloat is FLOAT or DOUBLE. Cells are CellFloat; FLOAT values keep
	// the float32 they arrived as, so they print as MySQL prints them ("3.3",
	// not 3.299999952316284).
	ColumnFloat
	// ColumnString is CHAR/VARCHAR/TEXT/ENUM/SET text, compared and grouped
	// by the ColumnKind's Collation. Cells are CellBytes. ENUM and SET sort
	// by their text here; MySQL sorts them by member index, so the planner
	// must not send an ORDER BY on them to the merge engine.
	ColumnString
	// ColumnBytes is BINARY/VARBINARY/BLOB/BIT and strings with a binary
	// collation: byte order, no padding. Cells are CellBytes.
	ColumnBytes
	// ColumnTime is DATE, DATETIME and TIMESTAMP. Cells are CellTime (with
	// the DSN's parseTime=true the driver sends time.Time; otherwise the
	// text "2006-01-02 15:04:05.999999" is parsed). The zero date
	// 0000-00-00 is the zero time.Time and sorts first, as in MySQL.
	ColumnTime
	// ColumnDuration is TIME ("-838:59:59" … "838:59:59.000000"), which
	// go-sql-driver always returns as text. Cells are CellDuration.
	ColumnDuration
)

var columnTypeNames = [...]string{"", "Int", "Uint", "Decimal", "Float", "String", "Bytes", "Time", "Duration"}

// String returns the type's name, e.g. "Decimal"; an invalid type gives
// "ColumnType(n)".
func (t ColumnType) String() string {
	if t > 0 && int(t) < len(columnTypeNames) {
		return columnTypeNames[t]
	}
	return "ColumnType(" + strconv.Itoa(int(t)) + ")"
}

// MarshalJSON encodes the type as its name, e.g. "Decimal".
func (t ColumnType) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(t.String())), nil }

// UnmarshalJSON decodes a type name written by MarshalJSON, ignoring case
// (the planner writes "decimal").
func (t *ColumnType) UnmarshalJSON(b []byte) error {
	name, err := strconv.Unquote(string(b))
	if err != nil {
		return fmt.Errorf("runtime: ColumnType must be a JSON string, got %s", b)
	}
	for i := 1; i < len(columnTypeNames); i++ {
		if strings.EqualFold(columnTypeNames[i], name) {
			*t = ColumnType(i)
			return nil
		}
	}
	return fmt.Errorf("runtime: unknown ColumnType %q", name)
}

// ColumnKind is one result column's type and, for ColumnString, its
// collation: everything the merge engine needs to compare two of its cells
// (ORDER BY, MIN/MAX) and to decide whether they are equal (GROUP BY,
// DISTINCT). Example (JSON): {"type":"String","collation":"utf8mb4_general_ci"},
// or {"type":"String","weight":3} for text the server's sort key compares.
type ColumnKind struct {
	Type ColumnType `json:"type"`
	// Collation is how a ColumnString compares in process, and must be
	// unset (or CollationBinary) for every other type. A ColumnString has
	// either a Collation or a Weight.
	Collation Collation `json:"collation,omitempty"`
	// Weight, for a ColumnString whose collation has no Collation value
	// (latin1_swedish_ci, utf8mb4_unicode_ci, one the DDL does not name,
	// ...), is the index of the derived column holding the data node's
	// WEIGHT_STRING of this column; the column after it holds the pad
	// weight (see compareWeights). Both are ColumnBytes. 0: none.
	Weight int `json:"weight,omitempty"`
}

// validate reports a kind the merge engine cannot compare.
func (k ColumnKind) validate() error {
	if k.Type == 0 || int(k.Type) >= len(columnTypeNames) {
		return fmt.Errorf("unknown column type %s", k.Type)
	}
	if k.Type == ColumnString {
		if k.Collation == CollationNone && k.Weight == 0 {
			return errors.New("String column has no collation and no weight column")
		}
		if k.Collation != CollationNone && k.Weight != 0 {
			return errors.New("String column has both a collation and a weight column")
		}
		if int(k.Collation) >= len(collationInfo) {
			return fmt.Errorf("unknown collation %s", k.Collation)
		}
	} else if k.Collation != CollationNone && k.Collation != CollationBinary {
		return fmt.Errorf("%s column cannot have collation %s", k.Type, k.Collation)
	} else if k.Weight != 0 {
		return fmt.Errorf("%s column cannot have a weight column", k.Type)
	}
	return nil
}

// coll returns the collation to compare the kind's CellBytes with.
func (k *ColumnKind) coll() Collation {
	if k.Type == ColumnString {
		return k.Collation
	}
	return CollationBinary
}

// Compare orders a and b as MySQL orders values of this column in ORDER BY
// ASC: NULL first, numbers numerically whatever form they arrived in,
// strings by the collation, times chronologically. It returns -1, 0 or +1;
// 0 means MySQL treats them as equal (the same GROUP BY group). Cells of
// kinds MySQL would convert to compare (a string against a number) never
// meet in one column; they are ordered by kind (numbers, times, durations,
// strings). DESC is -Compare: NULL last.
func (k ColumnKind) Compare(a, b Cell) int { return compareCells(&a, &b, k.coll()) }

// CellKind is the representation a Cell holds.
type CellKind uint8

const (
	// CellNull is SQL NULL.
	CellNull CellKind = iota
	// CellInt is a signed 64-bit integer.
	CellInt
	// CellUint is an unsigned 64-bit integer.
	CellUint
	// CellDecimal is an exact decimal held as its text, e.g. "-12.50":
	// optional '-', digits, optionally '.' and digits.
	CellDecimal
	// CellFloat is a float64, or a float32 when it came from a FLOAT column.
	CellFloat
	// CellBytes is a string or binary value (UTF-8 for strings).
	CellBytes
	// CellTime is a DATE/DATETIME/TIMESTAMP as time.Time.
	CellTime
	// CellDuration is a MySQL TIME: a signed number of microseconds plus the
	// text it arrived as.
	CellDuration
)

var cellKindNames = [...]string{"Null", "Int", "Uint", "Decimal", "Float", "Bytes", "Time", "Duration"}

// String returns the kind's name, e.g. "Decimal".
func (k CellKind) String() string {
	if int(k) < len(cellKindNames) {
		return cellKindNames[k]
	}
	return "CellKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalJSON encodes the kind as its name.
func (k CellKind) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(k.String())), nil }

// Cell is one decoded value of a result row, as the merge engine compares,
// groups and aggregates it: a tagged union of NULL, int64, uint64, decimal
// text, float, bytes, time.Time and TIME. It is a small value type (64
// bytes) and holds no pointer besides its byte slice, which it does not own
// exclusively: see RowSource for how long the bytes stay valid. The zero
// Cell is NULL.
type Cell struct {
	kind CellKind
	f32  bool      // CellFloat that came from a float32
	n    int64     // CellInt; CellUint (bits); CellFloat (bits); CellDuration (µs)
	b    []byte    // CellDecimal text; CellBytes; CellDuration text
	t    time.Time // CellTime
}

// NullCell returns the SQL NULL cell (the zero Cell).
func NullCell() Cell { return Cell{} }

// IntCell returns v as a CellInt.
func IntCell(v int64) Cell { return Cell{kind: CellInt, n: v} }

// UintCell returns v as a CellUint.
func UintCell(v uint64) Cell { return Cell{kind: CellUint, n: int64(v)} }

// FloatCell returns v as a CellFloat (a DOUBLE).
func FloatCell(v float64) Cell { return Cell{kind: CellFloat, n: int64(math.Float64bits(v))} }

// Float32Cell returns v as a CellFloat that remembers it is a FLOAT.
func Float32Cell(v float32) Cell {
	return Cell{kind: CellFloat, f32: true, n: int64(math.Float64bits(float64(v)))}
}

// BytesCell returns b as a CellBytes; b is not copied.
func BytesCell(b []byte) Cell { return Cell{kind: CellBytes, b: b} }

// StringCell returns s as a CellBytes (copying it).
func StringCell(s string) Cell { return Cell{kind: CellBytes, b: []byte(s)} }

// TimeCell returns t as a CellTime.
func TimeCell(t time.Time) Cell { return Cell{kind: CellTime, t: t} }

// DecimalCell returns text as a CellDecimal. text must be MySQL decimal
// text: optional '-' or '+', digits, optionally '.' and digits (at least
// one digit in all); anything else is an error. text is not copied.
func DecimalCell(text []byte) (Cell, error) {
	if !validDecimal(text) {
		return Cell{}, fmt.Errorf("runtime: invalid DECIMAL text %q", text)
	}
	return Cell{kind: CellDecimal, b: text}, nil
}

// DurationCell returns text, a MySQL TIME such as "-838:59:59.5" (hours of
// any length, minutes and seconds of two digits, up to 6 fraction digits),
// as a CellDuration; other text is an error. text is not copied.
func DurationCell(text []byte) (Cell, error) {
	us, ok := parseDuration(text)
	if !ok {
		return Cell{}, fmt.Errorf("runtime: invalid TIME text %q", text)
	}
	return Cell{kind: CellDuration, n: us, b: text}, nil
}

// Kind returns the cell's representation.
func (c Cell) Kind() CellKind { return c.kind }

// IsNull reports whether c is SQL NULL.
func (c Cell) IsNull() bool { return c.kind == CellNull }

// Int returns a CellInt's value (0 for other kinds).
func (c Cell) Int() int64 {
	if c.kind == CellInt {
		return c.n
	}
	return 0
}

// Uint returns a CellUint's value (0 for other kinds).
func (c Cell) Uint() uint64 {
	if c.kind == CellUint {
		return uint64(c.n)
	}
	return 0
}

// Float returns a CellFloat's value (0 for other kinds).
func (c Cell) Float() float64 {
	if c.kind == CellFloat {
		return math.Float64frombits(uint64(c.n))
	}
	return 0
}

// Bytes returns the text of a CellDecimal or CellDuration, or the value of
// a CellBytes (nil for other kinds). The caller must not modify it.
func (c Cell) Bytes() []byte {
	switch c.kind {
	case CellDecimal, CellBytes, CellDuration:
		return c.b
	}
	return nil
}

// Time returns a CellTime's value (the zero time for other kinds).
func (c Cell) Time() time.Time {
	if c.kind == CellTime {
		return c.t
	}
	return time.Time{}
}

// Duration returns a CellDuration's value (0 for other kinds).
func (c Cell) Duration() time.Duration {
	if c.kind == CellDuration {
		return time.Duration(c.n) * time.Microsecond
	}
	return 0
}

// Value returns the cell as go-sql-driver would have returned it when
// scanning into *any, so generated code and database/sql's conversion rules
// apply unchanged: nil, int64, uint64, float64, float32 (FLOAT), []byte
// (DECIMAL text, strings, binary, TIME text) or time.Time.
func (c Cell) Value() any {
	switch c.kind {
	case CellInt:
		return c.n
	case CellUint:
		return uint64(c.n)
	case CellFloat:
		if c.f32 {
			return float32(c.Float())
		}
		return c.Float()
	case CellDecimal, CellBytes, CellDuration:
		return c.b
	case CellTime:
		return c.t
	}
	return nil
}

// String returns a readable form for logs and tests: NULL, the number, the
// DECIMAL or TIME text, a float in Go's shortest form (float32 precision
// for FLOAT), the bytes as a string, or the time as "2006-01-02
// 15:04:05.999999999". It is not MySQL's wire text for floats and times.
func (c Cell) String() string {
	switch c.kind {
	case CellInt:
		return strconv.FormatInt(c.n, 10)
	case CellUint:
		return strconv.FormatUint(uint64(c.n), 10)
	case CellFloat:
		if c.f32 {
			return strconv.FormatFloat(c.Float(), 'g', -1, 32)
		}
		return strconv.FormatFloat(c.Float(), 'g', -1, 64)
	case CellDecimal, CellBytes, CellDuration:
		return string(c.b)
	case CellTime:
		return c.t.Format("2006-01-02 15:04:05.999999999")
	}
	return "NULL"
}

// clone returns c with its bytes copied, so that it outlives the row it
// came from.
func (c Cell) clone() Cell {
	if c.b != nil {
		c.b = bytes.Clone(c.b)
	}
	return c
}

// DecodeCell turns v, one column value as go-sql-driver/mysql returns it
// when a row is scanned into *any (text or binary protocol), into the Cell
// the merge engine works on for a column of kind. Accepted, per type:
//
//   - any type: nil → NULL.
//   - ColumnInt: int64 (and other Go integer types), uint64 up to
//     MaxInt64, or decimal integer text ([]byte or string).
//   - ColumnUint: uint64, a non-negative int64 (or other Go integer), or
//     decimal integer text.
//   - ColumnDecimal: []byte or string decimal text ("-12.50"), or an
//     integer (a DECIMAL(n,0) some drivers send as one). Never a float:
//     the value would no longer be exact.
//   - ColumnFloat: float64, float32 (a FLOAT, remembered as such), an
//     integer, or text.
//   - ColumnString, ColumnBytes: []byte or string; an integer, a float or
//     a time.Time (a column the planner could not type, such as POW(x, 2),
//     which the driver returns typed) keeps its type: Value returns it
//     unchanged.
//   - ColumnTime: time.Time (DSN parseTime=true), or text "2006-01-02",
//     "2006-01-02 15:04:05" with up to 6 fraction digits, the zero date
//     "0000-00-00[ 00:00:00]" giving the zero time.Time.
//   - ColumnDuration: TIME text "[-]h…h:mm:ss[.ffffff]".
//
// Byte slices are kept, not copied: database/sql gives every scan into *any
// its own copy. Anything else is an error naming the type and the value's
// Go type; DecodeCell never panics.
func DecodeCell(kind ColumnKind, v any) (Cell, error) {
	if v == nil {
		return Cell{}, nil
	}
	switch kind.Type {
	case ColumnInt:
		if n, ok := anyInt(v); ok {
			return IntCell(n), nil
		}
		if u, ok := v.(uint64); ok {
			return Cell{}, fmt.Errorf("runtime.DecodeCell: Int column got %d, which overflows int64 (declare the column Uint)", u)
		}
		if b, ok := anyText(v); ok {
			n, err := strconv.ParseInt(string(b), 10, 64)
			if err != nil {
				return Cell{}, fmt.Errorf("runtime.DecodeCell: Int column got text %q, not an int64", b)
			}
			return IntCell(n), nil
		}
	case ColumnUint:
		if u, ok := v.(uint64); ok {
			return UintCell(u), nil
		}
		if n, ok := anyInt(v); ok {
			if n < 0 {
				return Cell{}, fmt.Errorf("runtime.DecodeCell: Uint column got %d", n)
			}
			return UintCell(uint64(n)), nil
		}
		if b, ok := anyText(v); ok {
			u, err := strconv.ParseUint(string(b), 10, 64)
			if err != nil {
				return Cell{}, fmt.Errorf("runtime.DecodeCell: Uint column got text %q, not a uint64", b)
			}
			return UintCell(u), nil
		}
	case ColumnDecimal:
		if b, ok := anyText(v); ok {
			if !validDecimal(b) {
				return Cell{}, fmt.Errorf("runtime.DecodeCell: Decimal column got text %q, not a decimal", b)
			}
			return Cell{kind: CellDecimal, b: b}, nil
		}
		if n, ok := anyInt(v); ok {
			return Cell{kind: CellDecimal, b: strconv.AppendInt(nil, n, 10)}, nil
		}
		if u, ok := v.(uint64); ok {
			return Cell{kind: CellDecimal, b: strconv.AppendUint(nil, u, 10)}, nil
		}
	case ColumnFloat:
		switch f := v.(type) {
		case float64:
			return FloatCell(f), nil
		case float32:
			return Float32Cell(f), nil
		case uint64:
			return FloatCell(float64(f)), nil
		}
		if n, ok := anyInt(v); ok {
			return FloatCell(float64(n)), nil
		}
		if b, ok := anyText(v); ok {
			f, err := strconv.ParseFloat(string(b), 64)
			if err != nil {
				return Cell{}, fmt.Errorf("runtime.DecodeCell: Float column got text %q, not a number", b)
			}
			return FloatCell(f), nil
		}
	case ColumnString, ColumnBytes:
		if b, ok := anyText(v); ok {
			return Cell{kind: CellBytes, b: b}, nil
		}
		// A number or a time where the planner expected text: a column
		// it could not type (POW(x, 2), a subquery's value), which
		// go-sql-driver returns typed in both protocols. The cell keeps
		// the value's own type, so Value gives it back as scanned and
		// cells compare as the values do.
		switch x := v.(type) {
		case uint64:
			return UintCell(x), nil
		case float64:
			return FloatCell(x), nil
		case float32:
			return Float32Cell(x), nil
		case time.Time:
			return TimeCell(x), nil
		}
		if n, ok := anyInt(v); ok {
			return IntCell(n), nil
		}
	case ColumnTime:
		if t, ok := v.(time.Time); ok {
			return TimeCell(t), nil
		}
		if b, ok := anyText(v); ok {
			t, ok := parseDateTime(b)
			if !ok {
				return Cell{}, fmt.Errorf("runtime.DecodeCell: Time column got text %q, not a DATE or DATETIME", b)
			}
			return TimeCell(t), nil
		}
	case ColumnDuration:
		if b, ok := anyText(v); ok {
			us, ok := parseDuration(b)
			if !ok {
				return Cell{}, fmt.Errorf("runtime.DecodeCell: Duration column got text %q, not a TIME", b)
			}
			return Cell{kind: CellDuration, n: us, b: b}, nil
		}
	default:
		return Cell{}, fmt.Errorf("runtime.DecodeCell: unknown column type %s", kind.Type)
	}
	return Cell{}, fmt.Errorf("runtime.DecodeCell: %s column got a value of Go type %T", kind.Type, v)
}

// anyInt returns v as int64 when it is a Go signed integer or an unsigned
// one narrower than 64 bits.
func anyInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int16:
		return int64(n), true
	case int8:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint8:
		return int64(n), true
	case uint64:
		if n <= math.MaxInt64 {
			return int64(n), true
		}
	case uint:
		if uint64(n) <= math.MaxInt64 {
			return int64(n), true
		}
	}
	return 0, false
}

// anyText returns v as bytes when it is []byte or string.
func anyText(v any) ([]byte, bool) {
	switch b := v.(type) {
	case []byte:
		return b, true
	case string:
		return []byte(b), true
	}
	return nil, false
}

// parseDateTime parses MySQL DATE/DATETIME text in UTC (as go-sql-driver
// does with its default loc).
func parseDateTime(b []byte) (time.Time, bool) {
	if len(b) >= 10 && string(b[:10]) == "0000-00-00" {
		for _, c := range b[10:] {
			if c != '0' && c != ' ' && c != ':' && c != '.' {
				return time.Time{}, false
			}
		}
		return time.Time{}, true
	}
	layout := "2006-01-02"
	switch {
	case len(b) == 10:
	case len(b) == 19:
		layout = "2006-01-02 15:04:05"
	case len(b) > 20 && len(b) <= 26 && b[19] == '.':
		layout = "2006-01-02 15:04:05.999999"
	default:
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(layout, string(b), time.UTC)
	return t, err == nil
}

// parseDuration parses MySQL TIME text "[-]h…h:mm:ss[.ffffff]" into
// microseconds.
func parseDuration(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	i := 0
	var h int64
	for i < len(b) && isDigit(b[i]) && i < 9 {
		h = h*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 || len(b) < i+6 || b[i] != ':' || b[i+3] != ':' ||
		!isDigit(b[i+1]) || !isDigit(b[i+2]) || !isDigit(b[i+4]) || !isDigit(b[i+5]) {
		return 0, false
	}
	m := int64(b[i+1]-'0')*10 + int64(b[i+2]-'0')
	s := int64(b[i+4]-'0')*10 + int64(b[i+5]-'0')
	if m > 59 || s > 59 {
		return 0, false
	}
	us := ((h*60+m)*60 + s) * 1e6
	rest := b[i+6:]
	if len(rest) > 0 {
		if rest[0] != '.' || len(rest) == 1 || len(rest) > 7 {
			return 0, false
		}
		scale := int64(1e5)
		for _, c := range rest[1:] {
			if !isDigit(c) {
				return 0, false
			}
			us += int64(c-'0') * scale
			scale /= 10
		}
	}
	if neg {
		us = -us
	}
	return us, true
}

// validDecimal reports whether b is decimal text: optional sign, digits,
// optional '.' and digits, at least one digit.
func validDecimal(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	digits, dot := 0, false
	for _, c := range b {
		switch {
		case isDigit(c):
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// splitDecimal splits valid decimal text into its sign and its integer and
// fraction digits, without leading zeros in the integer part and trailing
// zeros in the fraction (so that equal values split equally). Zero is never
// negative.
func splitDecimal(b []byte) (neg bool, ip, fp []byte) {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	ip = b
	if i := bytes.IndexByte(b, '.'); i >= 0 {
		ip, fp = b[:i], b[i+1:]
	}
	for len(ip) > 0 && ip[0] == '0' {
		ip = ip[1:]
	}
	for len(fp) > 0 && fp[len(fp)-1] == '0' {
		fp = fp[:len(fp)-1]
	}
	if len(ip) == 0 && len(fp) == 0 {
		neg = false
	}
	return neg, ip, fp
}

// compareDecimal compares two valid decimal texts numerically, without
// allocating.
func compareDecimal(a, b []byte) int {
	an, ai, af := splitDecimal(a)
	bn, bi, bf := splitDecimal(b)
	if an != bn {
		if an {
			return -1
		}
		return 1
	}
	c := cmp.Compare(len(ai), len(bi))
	if c == 0 {
		c = bytes.Compare(ai, bi)
	}
	if c == 0 {
		c = bytes.Compare(af, bf) // trailing zeros stripped: "5" < "51" < "6"
	}
	if an {
		return -c
	}
	return c
}

// appendDecimalKey appends the canonical form of valid decimal text: equal
// values give equal bytes ("1.50", "01.5" and "1.5" all give "1.5").
func appendDecimalKey(dst, b []byte) []byte {
	neg, ip, fp := splitDecimal(b)
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, ip...)
	if len(fp) > 0 {
		dst = append(dst, '.')
		dst = append(dst, fp...)
	}
	return dst
}

// kindRank orders cells of kinds that cannot be compared by value.
var kindRank = [...]uint8{CellNull: 0, CellInt: 1, CellUint: 1, CellDecimal: 1, CellFloat: 1, CellTime: 2, CellDuration: 3, CellBytes: 4}

// compareCells is ColumnKind.Compare on pointers (cells are 64 bytes); coll
// compares CellBytes.
func compareCells(a, b *Cell, coll Collation) int {
	if a.kind == b.kind {
		switch a.kind {
		case CellNull:
			return 0
		case CellInt:
			return cmp.Compare(a.n, b.n)
		case CellUint:
			return cmp.Compare(uint64(a.n), uint64(b.n))
		case CellDecimal:
			return compareDecimal(a.b, b.b)
		case CellFloat:
			return cmp.Compare(a.Float(), b.Float())
		case CellBytes:
			return coll.Compare(a.b, b.b)
		case CellTime:
			return a.t.Compare(b.t)
		case CellDuration:
			return cmp.Compare(a.n, b.n)
		}
		return 0
	}
	if a.kind == CellNull {
		return -1
	}
	if b.kind == CellNull {
		return 1
	}
	ra, rb := kindRank[a.kind], kindRank[b.kind]
	if ra != rb || ra != 1 {
		return cmp.Compare(ra, rb)
	}
	// Two numbers of different representations.
	if a.kind == CellFloat || b.kind == CellFloat {
		return cmp.Compare(a.toFloat(), b.toFloat())
	}
	var ab, bb [24]byte
	return compareDecimal(a.exactText(ab[:0]), b.exactText(bb[:0]))
}

// toFloat converts a numeric cell to float64 (as MySQL does to compare an
// exact value with a DOUBLE).
func (c *Cell) toFloat() float64 {
	switch c.kind {
	case CellInt:
		return float64(c.n)
	case CellUint:
		return float64(uint64(c.n))
	case CellFloat:
		return c.Float()
	case CellDecimal:
		f, _ := strconv.ParseFloat(string(c.b), 64)
		return f
	}
	return 0
}

// exactText appends an exact numeric cell's decimal text to dst (a
// CellDecimal's own text is returned as is).
func (c *Cell) exactText(dst []byte) []byte {
	switch c.kind {
	case CellInt:
		return strconv.AppendInt(dst, c.n, 10)
	case CellUint:
		return strconv.AppendUint(dst, uint64(c.n), 10)
	}
	return c.b
}

// appendKey appends an encoding of c to dst such that two cells of one
// column get equal encodings exactly when compareCells says they are equal:
// the GROUP BY / DISTINCT identity. Exact numbers share one canonical
// decimal form (so the int64 5 and the DECIMAL "5.00" are one group);
// strings are encoded by their collation weights.
func appendKey(dst []byte, c *Cell, coll Collation) []byte {
	switch c.kind {
	case CellNull:
		return append(dst, 'n')
	case CellInt, CellUint, CellDecimal:
		dst = append(dst, 'e', 0)
		start := len(dst)
		switch c.kind {
		case CellInt:
			dst = strconv.AppendInt(dst, c.n, 10)
		case CellUint:
			dst = strconv.AppendUint(dst, uint64(c.n), 10)
		default:
			dst = appendDecimalKey(dst, c.b)
		}
		dst[start-1] = byte(len(dst) - start) // decimal text is at most 131 bytes
		return dst
	case CellFloat:
		f := c.Float()
		if f == 0 {
			f = 0 // -0 == 0
		}
		return binary.BigEndian.AppendUint64(append(dst, 'f'), math.Float64bits(f))
	case CellTime:
		dst = binary.BigEndian.AppendUint64(append(dst, 't'), uint64(c.t.Unix()))
		return binary.BigEndian.AppendUint32(dst, uint32(c.t.Nanosecond()))
	case CellDuration:
		return binary.BigEndian.AppendUint64(append(dst, 'd'), uint64(c.n))
	case CellBytes:
		dst = append(dst, 's', 0, 0, 0, 0)
		start := len(dst)
		dst = coll.appendKey(dst, c.b)
		binary.BigEndian.PutUint32(dst[start-4:start], uint32(len(dst)-start))
		return dst
	}
	return dst
}
