package runtime

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// ColumnClass is how MySQL compares a sharding column with a value of
// another type, which decides the value a sharding algorithm must see: the
// row `user_id = 5` matches `user_id = 5.0`, `= '5'`, `= 5e0` and `= 0x05`
// too, and lives on the data node of the integer 5, so each of those must
// route as 5. The planner picks the class from the column's DDL type.
//
// Source: MySQL "Type Conversion in Expression Evaluation"
// (https://dev.mysql.com/doc/refman/8.0/en/type-conversion.html) and the
// behaviour of MariaDB 10.11 measured by internal/difftest's value corpus.
type ColumnClass uint8

const (
	// ClassAsIs is a column whose values are routed as written (text,
	// DECIMAL, FLOAT, ...): no conversion is known to be exact. A
	// hexadecimal or bit number literal (KindHexNumber) routes to every
	// target of such a column.
	ClassAsIs ColumnClass = iota
	// ClassInteger is TINYINT, SMALLINT, MEDIUMINT, INT or BIGINT, signed
	// or unsigned.
	ClassInteger
	// ClassIntegerText is an integer column under BINARY (`BINARY col =
	// ?`): MySQL compares the column's decimal text byte for byte with a
	// string, and as a double with a number.
	ClassIntegerText
	// ClassDate is DATE: a value routes as the date at midnight.
	ClassDate
	// ClassDateTime is DATETIME or TIMESTAMP.
	ClassDateTime
)

var classNames = [...]string{"AsIs", "Integer", "IntegerText", "Date", "DateTime"}

// String returns the class's name, e.g. "Integer".
func (c ColumnClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "ColumnClass(" + strconv.Itoa(int(c)) + ")"
}

// Conversion is what converting a sharding value for its column's
// comparison gives.
type Conversion uint8

const (
	// Converted: the returned value is the one MySQL compares the column
	// with; route by it.
	Converted Conversion = iota
	// NoRow: no value of the column can equal the value (5.5 or '5.5' with
	// an integer column): the value reaches no data node, like NULL.
	NoRow
	// EveryTarget: the comparison cannot be mirrored exactly (a string
	// MySQL reads as a date in a form shardgen does not parse, an integer
	// beyond 2^53 written as a double): the column's condition must route
	// to every target, never to a guessed one.
	EveryTarget
)

// maxExactDouble is 2^53: every integer of smaller magnitude is a double
// exactly, and no other integer converts to it. MySQL compares an integer
// column with a string or a double as doubles, MariaDB 10.11 exactly; both
// agree below 2^53.
const maxExactDouble = 1 << 53

// Equal converts v, compared with `=` or IN to a column of class c, to the
// value MySQL compares the column with (see Conversion). Integer results
// have the kind an integer literal of that value has (IntegerLiteral: Int
// in int32 range, Long, BigInteger); dates KindTime in UTC. NULL is
// returned as it is.
func (c ColumnClass) Equal(v Value) (Value, Conversion) {
	if v.Kind == KindNull {
		return v, Converted
	}
	switch c {
	case ClassInteger:
		return integerEqual(v)
	case ClassIntegerText:
		if v.Kind == KindString {
			// BINARY col = 'text': the column's decimal text must be
			// exactly text; only a canonical integer spelling can be.
			if canonicalInteger(v.Str) {
				return IntegerLiteral(v.Str), Converted
			}
			return Value{}, EveryTarget
		}
		return doubleEqual(v)
	case ClassDate, ClassDateTime:
		t, ok := timeOf(v)
		if !ok {
			return Value{}, EveryTarget
		}
		if c == ClassDate {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		}
		return Time(t), Converted
	}
	if v.Kind == KindHexNumber {
		return Value{}, EveryTarget
	}
	return v, Converted
}

// Bound converts v, a bound of a range condition (BETWEEN, <, <=, >, >=)
// on a column of class c, like Equal. closed reports that the bound must
// now include its endpoint: a non-whole bound on an integer column becomes
// the next integer inside the range (`id > 5.5` is `id >= 6`, `id < 5.5`
// is `id <= 5`). A conversion that cannot be exact (and a BINARY integer
// column, which compares as text) is EveryTarget; NoRow never results.
func (c ColumnClass) Bound(v Value, lower bool) (out Value, closed bool, conv Conversion) {
	if v.Kind == KindNull {
		return v, false, Converted
	}
	switch c {
	case ClassIntegerText:
		return Value{}, false, EveryTarget
	case ClassInteger:
		switch v.Kind {
		case KindInt, KindLong, KindBigInteger:
			return v, false, Converted
		case KindHexNumber:
			n, err := hexNumber(v.Str)
			if err != nil {
				return Value{}, false, EveryTarget
			}
			return n, false, Converted
		}
		r, exact, ok := numberOf(v)
		if !ok || !exact {
			return Value{}, false, EveryTarget
		}
		if r.IsInt() {
			return integerValue(r.Num()), false, Converted
		}
		n := new(big.Int).Quo(r.Num(), r.Denom()) // truncated toward zero
		if lower == (r.Sign() > 0) {
			if lower {
				n.Add(n, big.NewInt(1))
			} else {
				n.Sub(n, big.NewInt(1))
			}
		}
		return integerValue(n), true, Converted
	case ClassDate, ClassDateTime:
		out, conv := c.Equal(v)
		if conv == Converted && c == ClassDate && !out.Time.Equal(mustTime(v)) {
			// A date bound with a time of day: '2026-02-01 10:00' < d
			// compares as DATETIME; the date itself is still inside.
			return out, true, Converted
		}
		return out, false, conv
	}
	out, conv = c.Equal(v)
	return out, false, conv
}

// EmptyTimeRange reports whether a range of converted date or time bounds
// (both KindTime) holds no value: lower after upper, or equal with an open
// side. MySQL matches no row there; INTERVAL algorithms, as ShardingSphere's,
// refuse such a range, so it must not reach them.
func EmptyTimeRange(r Range) bool {
	if !r.HasLower || !r.HasUpper || r.Lower.Kind != KindTime || r.Upper.Kind != KindTime {
		return false
	}
	c := r.Lower.Time.Compare(r.Upper.Time)
	return c > 0 || c == 0 && (r.LowerOpen || r.UpperOpen)
}

func mustTime(v Value) time.Time {
	t, _ := timeOf(v)
	return t
}

// Stored returns the value MySQL stores when v is written (INSERT) to a
// column of class c in strict mode, which decides the row's data node:
// INSERT of '5' or 5.0 into a BIGINT lands where 5 does. Decimal text and
// strings round half away from zero ('6.5' and 6.5 store 7), doubles
// (1e0, 2.5e0) half to even (2.5e0 stores 2), as the server does. Errors:
// a value the server refuses ('13abc', ” into an integer column) or one
// whose stored value cannot be known exactly.
func (c ColumnClass) Stored(v Value) (Value, error) {
	if v.Kind == KindNull {
		return v, nil
	}
	switch c {
	case ClassInteger, ClassIntegerText:
		switch v.Kind {
		case KindInt, KindLong, KindBigInteger:
			return v, nil
		case KindHexNumber:
			return hexNumber(v.Str)
		}
		s := v.Str
		double := v.Kind == KindDecimal && isDoubleText(s)
		if v.Kind == KindString {
			s = strings.Trim(s, " \t\n\r\v\f")
			if n := strings.TrimPrefix(s, "+"); n != s && canonicalInteger(n) && n[0] != '-' || canonicalInteger(s) {
				return IntegerLiteral(n), nil
			}
			if p, rest := numericPrefix(s); p == "" || rest != "" {
				return Value{}, fmt.Errorf("%s is not a number MySQL stores in an integer column", shardingValueText(v))
			}
		} else if v.Kind != KindDecimal {
			return Value{}, fmt.Errorf("%s cannot be stored in an integer column", shardingValueText(v))
		}
		if double {
			d, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Abs(d) >= 1<<63 {
				return Value{}, fmt.Errorf("%s is out of range of an integer column", shardingValueText(v))
			}
			return IntegerLiteral(strconv.FormatInt(int64(math.RoundToEven(d)), 10)), nil
		}
		r, ok := ratOf(s)
		if !ok {
			return Value{}, fmt.Errorf("%s is not a number MySQL stores in an integer column", shardingValueText(v))
		}
		n := roundHalfAway(r)
		if v.Kind == KindString {
			// The server may read a string with a fraction or an
			// exponent through a double: the exact and the double
			// reading must give the same integer.
			d, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Abs(d) >= 1<<63 || !n.IsInt64() ||
				(r.IsInt() && d != float64(n.Int64())) ||
				(!r.IsInt() && (math.Abs(d) >= maxExactDouble || math.Round(d) != float64(n.Int64()))) {
				return Value{}, fmt.Errorf("%s has no exactly known integer value: write it as an integer", shardingValueText(v))
			}
		}
		return integerValue(n), nil
	case ClassDate, ClassDateTime:
		out, conv := c.Equal(v)
		if conv != Converted {
			return Value{}, fmt.Errorf("%s is not a date and time shardgen can read as MySQL does: write it as 'YYYY-MM-DD hh:mm:ss'", shardingValueText(v))
		}
		return out, nil
	}
	if v.Kind == KindHexNumber {
		return Value{}, errors.New("a hexadecimal or bit literal cannot be a sharding value of this column: write it as a string or an integer")
	}
	return v, nil
}

// integerEqual is Equal for an integer column.
func integerEqual(v Value) (Value, Conversion) {
	switch v.Kind {
	case KindInt, KindLong, KindBigInteger:
		return v, Converted
	case KindHexNumber:
		n, err := hexNumber(v.Str)
		if err != nil {
			return Value{}, EveryTarget
		}
		return n, Converted
	case KindTime:
		return Value{}, EveryTarget
	}
	r, exact, ok := numberOf(v)
	if !ok {
		return Value{}, EveryTarget
	}
	if r.IsInt() {
		if !exact && r.Num().CmpAbs(big.NewInt(maxExactDouble)) >= 0 {
			return Value{}, EveryTarget
		}
		return integerValue(r.Num()), Converted
	}
	if !exact {
		return Value{}, EveryTarget
	}
	return Value{}, NoRow
}

// doubleEqual is Equal for a BINARY integer column compared with a number:
// MySQL compares the column's text and the number as doubles, so only a
// double that is a whole number below 2^53 names one row's value (5.0 and
// 5.0000000000000000001 both name 5), and a non-whole double none.
func doubleEqual(v Value) (Value, Conversion) {
	var d float64
	switch v.Kind {
	case KindInt, KindLong:
		d = float64(v.Int)
	case KindDecimal:
		var err error
		if d, err = strconv.ParseFloat(v.Str, 64); err != nil {
			return Value{}, EveryTarget
		}
	default:
		return Value{}, EveryTarget
	}
	switch {
	case math.Abs(d) >= maxExactDouble || math.IsNaN(d):
		return Value{}, EveryTarget
	case d != math.Trunc(d):
		return Value{}, NoRow
	}
	return integerValue(big.NewInt(int64(d))), Converted
}

// numberOf returns the number MySQL compares an integer column with for v
// (KindDecimal, KindString): exact is true when the comparison surely
// gives that number's result. A decimal literal compares exactly; a
// double (text with an exponent) and a string compare as a double in MySQL
// and exactly in MariaDB, so their value is exact only where both agree:
// a whole number below 2^53, or a non-whole number whose double is not
// whole either. A string is read as MySQL reads it: leading whitespace
// skipped, then the longest number prefix ('5abc' is 5, 'abc' and ” are
// 0, '0x10' is 0).
func numberOf(v Value) (r *big.Rat, exact, ok bool) {
	s := v.Str
	switch v.Kind {
	case KindDecimal:
		if !isDoubleText(s) {
			r, ok := ratOf(s)
			return r, ok, ok
		}
	case KindString:
		s, _ = numericPrefix(strings.TrimLeft(s, " \t\n\r\v\f"))
		if s == "" {
			return new(big.Rat), true, true
		}
	default:
		return nil, false, false
	}
	d, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(d, 0) || math.IsNaN(d) {
		return nil, false, false
	}
	r, ok = ratOf(s)
	if !ok {
		return nil, false, false
	}
	if r.IsInt() {
		return r, r.Num().CmpAbs(big.NewInt(maxExactDouble)) < 0, true
	}
	return r, d != math.Trunc(d), true
}

// isDoubleText reports whether decimal text has an exponent (1e0, 5.5E-1):
// a MySQL approximate-value (double) literal.
func isDoubleText(s string) bool { return strings.ContainsAny(s, "eE") }

// ratOf parses s (sign, digits, fraction, exponent) exactly. Text longer
// than 400 bytes and exponents beyond ±400 are refused (the callers then
// route to every target or refuse an INSERT): the exact value would be
// huge to compute.
func ratOf(s string) (*big.Rat, bool) {
	if len(s) > 400 {
		return nil, false // no exactly convertible number is written that long
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 400 || e < -400 {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// numericPrefix splits s into the longest prefix MySQL reads as a number
// (sign, digits, '.', digits, and an exponent when digits follow the e)
// and the rest; the prefix is empty when s has no digit before the rest.
func numericPrefix(s string) (prefix, rest string) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			digits++
		}
		i = j
	}
	if digits == 0 {
		return "", s
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	p := s[:i]
	if p[0] == '+' {
		p = p[1:]
	}
	if strings.HasSuffix(p, ".") {
		p = strings.TrimSuffix(p, ".")
		if p == "" || p == "-" {
			p += "0"
		}
	}
	return p, s[i:]
}

// canonicalInteger reports whether s is an integer written as MySQL
// prints one: "0", or an optional '-' and digits without a leading zero.
func canonicalInteger(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if t == "" || (t[0] == '0' && len(t) > 1) || t == "0" && s != "0" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// integerValue returns n as an integer literal's value (Int, Long or
// BigInteger by size).
func integerValue(n *big.Int) Value {
	if n.IsInt64() {
		x := n.Int64()
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return Value{Kind: KindInt, Int: x}
		}
		return Long(x)
	}
	return BigInteger(n.String())
}

// roundHalfAway rounds r to an integer, halves away from zero.
func roundHalfAway(r *big.Rat) *big.Int {
	a := new(big.Rat).Abs(r)
	a.Add(a, big.NewRat(1, 2))
	n := new(big.Int).Quo(a.Num(), a.Denom())
	if r.Sign() < 0 {
		n.Neg(n)
	}
	return n
}

// hexNumber is the unsigned integer a 0x… or b'…' literal is in numeric
// context; s holds its bytes, big-endian.
func hexNumber(s string) (Value, error) {
	n := new(big.Int).SetBytes([]byte(s))
	if n.BitLen() > 64 {
		return Value{}, errors.New("hexadecimal number wider than 64 bits")
	}
	return integerValue(n), nil
}

// timeOf returns the date and time MySQL reads v as when it compares v
// with a DATE, DATETIME or TIMESTAMP column (ParseDateTime for strings,
// numbers as their digits: 20260201 is 2026-02-01).
func timeOf(v Value) (time.Time, bool) {
	switch v.Kind {
	case KindTime:
		t := v.Time
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC), true
	case KindString:
		return ParseDateTime(v.Str)
	case KindInt, KindLong:
		if v.Int <= 0 {
			return time.Time{}, false
		}
		return parseDigits(strconv.FormatInt(v.Int, 10), "")
	}
	return time.Time{}, false
}

// ParseDateTime reads s as MySQL reads a DATE or DATETIME string, in UTC:
//   - delimited: year (4 digits, or 2: 70-99 is 19xx, 00-69 20xx), month
//     and day of 1 or 2 digits, each pair separated by one punctuation
//     character ('2026-02-01', '2026/2/1', '2026.02.01'); then optionally
//     'T' or spaces and hour, minute and second of 1 or 2 digits separated
//     by punctuation, and a '.' with 1 to 6 fraction digits
//     ('2026-2-1 0:0:0', '2026-02-01T10:20:30.5');
//   - digits only: YYYYMMDD, YYMMDD, YYYYMMDDhhmmss, YYMMDDhhmmss (the last
//     two with an optional fraction).
//
// Spaces around s are ignored. ok is false for every other form, for zero
// or impossible dates ('2026-02-30') and times, and for a missing second or
// more than 6 fraction digits (which MySQL reads, rounds or warns about):
// the caller then routes to every target.
func ParseDateTime(s string) (t time.Time, ok bool) {
	s = strings.Trim(s, " ")
	if isDigits(s) {
		return parseDigits(s, "")
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && (i == 12 || i == 14) && isDigits(s[:i]) && isDigits(s[i+1:]) {
		return parseDigits(s[:i], s[i+1:])
	}
	// Delimited: runs of digits separated by single punctuation marks,
	// with 'T' or spaces between the date and the time.
	var parts []string
	i := 0
	for i < len(s) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return time.Time{}, false
		}
		parts = append(parts, s[i:j])
		if j == len(s) {
			break
		}
		sep := s[j]
		if len(parts) == 3 {
			if sep != 'T' && sep != ' ' {
				return time.Time{}, false
			}
			j++
			for sep == ' ' && j < len(s) && s[j] == ' ' {
				j++
			}
		} else if len(parts) == 6 {
			if sep != '.' {
				return time.Time{}, false
			}
			j++
		} else {
			if sep > 0x7f || !isPunct(sep) {
				return time.Time{}, false
			}
			j++
		}
		if j == len(s) {
			return time.Time{}, false
		}
		i = j
	}
	if len(parts) != 3 && len(parts) != 6 && len(parts) != 7 {
		return time.Time{}, false
	}
	year := parts[0]
	switch len(year) {
	case 2:
		year = century(year) + year
	case 4:
	default:
		return time.Time{}, false
	}
	for _, p := range parts[1:min(6, len(parts))] {
		if len(p) > 2 {
			return time.Time{}, false
		}
	}
	f := ""
	if len(parts) == 7 {
		f = parts[6]
	}
	clock := []string{"0", "0", "0"}
	if len(parts) >= 6 {
		clock = parts[3:6]
	}
	return dateTime(year, parts[1], parts[2], clock[0], clock[1], clock[2], f)
}

// parseDigits reads YYYYMMDD, YYMMDD, YYYYMMDDhhmmss or YYMMDDhhmmss
// (frac only with a time).
func parseDigits(s, frac string) (time.Time, bool) {
	switch len(s) {
	case 6, 12:
		s = century(s[:2]) + s
	case 8, 14:
	default:
		return time.Time{}, false
	}
	if len(s) == 8 {
		if frac != "" {
			return time.Time{}, false
		}
		return dateTime(s[0:4], s[4:6], s[6:8], "0", "0", "0", "")
	}
	return dateTime(s[0:4], s[4:6], s[6:8], s[8:10], s[10:12], s[12:14], frac)
}

// century is MySQL's rule for a two-digit year: 70-99 are 19xx, 00-69 20xx.
func century(yy string) string {
	if yy >= "70" {
		return "19"
	}
	return "20"
}

func dateTime(y, mo, d, h, mi, s, frac string) (time.Time, bool) {
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	year, month, day := num(y), num(mo), num(d)
	hour, minute, sec := num(h), num(mi), num(s)
	if year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	if len(frac) > 6 || frac != "" && !isDigits(frac) {
		return time.Time{}, false
	}
	ns := 0
	if frac != "" {
		ns = num(frac)
		for range 9 - len(frac) {
			ns *= 10
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, ns, time.UTC), true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isPunct reports whether c is ASCII punctuation, which MySQL accepts
// between the parts of a date or a time.
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
