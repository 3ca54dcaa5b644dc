package runtime

import (
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// ivKind is the Java/Groovy type of a value inside an inline expression.
type ivKind uint8

const (
	ivInt  ivKind = iota // java.lang.Integer, in n
	ivLong               // java.lang.Long, in n
	ivBig                // java.math.BigInteger, in b
	ivDec                // java.math.BigDecimal, its text in s
	ivStr                // java.lang.String, in s
	ivBool               // java.lang.Boolean, n is 0 or 1
	ivTime               // java.sql.Timestamp, in t
	ivList               // a Groovy list or range, elements in l
)

var ivKindNames = [...]string{"Integer", "Long", "BigInteger", "BigDecimal", "String", "Boolean", "Timestamp", "List"}

// String returns the Java type name, e.g. "Long".
func (k ivKind) String() string { return ivKindNames[k] }

// ival is one value during evaluation. It is kept small (40 bytes) because
// evaluation passes it by value: Integer, Long, String, BigDecimal and
// Boolean live in n and s; the rare BigInteger, Timestamp and List values
// hang off *ivx. Integer arithmetic therefore allocates nothing.
type ival struct {
	k ivKind
	n int64
	s string
	*ivx
}

// ivx holds the payload of BigInteger (b), Timestamp (t) and List (l).
type ivx struct {
	b *big.Int
	t time.Time
	l []ival
}

func bigVal(b *big.Int) ival   { return ival{k: ivBig, ivx: &ivx{b: b}} }
func listVal(l []ival) ival    { return ival{k: ivList, ivx: &ivx{l: l}} }
func timeVal(t time.Time) ival { return ival{k: ivTime, ivx: &ivx{t: t}} }

func bigIval(digits string) ival {
	b, _ := new(big.Int).SetString(digits, 10)
	return bigVal(b)
}

func strIval(s string) ival { return ival{k: ivStr, s: s} }

func boolIval(v bool) ival {
	if v {
		return ival{k: ivBool, n: 1}
	}
	return ival{k: ivBool}
}

// isInteger reports whether v is Integer, Long or BigInteger.
func (v ival) isInteger() bool { return v.k <= ivBig }

// bigOf returns v (an integer kind) as a *big.Int.
func (v ival) bigOf() *big.Int {
	if v.k == ivBig {
		return v.b
	}
	return big.NewInt(v.n)
}

// valueToIval converts a bound sharding value to the Java object
// ShardingSphere hands to Groovy (§3.2 of the spec). off is the offset of the
// name being bound, for errors.
func valueToIval(v Value, name string, off int) (ival, *InlineError) {
	switch v.Kind {
	case KindInt:
		return ival{k: ivInt, n: int64(int32(v.Int))}, nil
	case KindLong:
		return ival{k: ivLong, n: v.Int}, nil
	case KindBigInteger:
		b, ok := new(big.Int).SetString(v.Str, 10)
		if !ok {
			return ival{}, inlineErr(off, strconv.Quote(name)+" is bound to an invalid BigInteger "+strconv.Quote(v.Str))
		}
		return bigVal(b), nil
	case KindDecimal:
		return ival{k: ivDec, s: v.Str}, nil
	case KindString:
		return ival{k: ivStr, s: v.Str}, nil
	case KindTime:
		return timeVal(v.Time), nil
	case KindNull:
		return ival{}, inlineErr(off, strconv.Quote(name)+" is bound to NULL")
	}
	return ival{}, inlineErr(off, strconv.Quote(name)+" is bound to a value of unknown kind "+v.Kind.String())
}

// appendText appends Groovy's toString of v (what a GString interpolates).
// Collections are refused: Groovy would print "[0, 1]", which never names a
// data node.
func appendText(dst []byte, v ival, off int) ([]byte, *InlineError) {
	switch v.k {
	case ivInt, ivLong:
		return strconv.AppendInt(dst, v.n, 10), nil
	case ivBig:
		return v.b.Append(dst, 10), nil
	case ivDec, ivStr:
		return append(dst, v.s...), nil
	case ivBool:
		if v.n != 0 {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case ivTime:
		return append(dst, timestampText(v.t)...), nil
	}
	return dst, inlineErr(off, "a collection cannot be used as text")
}

// textOf is appendText returning a string.
func textOf(v ival, off int) (string, *InlineError) {
	if v.k == ivStr || v.k == ivDec {
		return v.s, nil
	}
	b, err := appendText(nil, v, off)
	return string(b), err
}

// truth is Groovy truth: false, 0, "" and [] are false.
func truth(v ival) bool {
	switch v.k {
	case ivInt, ivLong, ivBool:
		return v.n != 0
	case ivBig:
		return v.b.Sign() != 0
	case ivDec:
		u, _, ok := parseJavaBigDecimal(v.s)
		return !ok || u.Sign() != 0
	case ivStr:
		return v.s != ""
	case ivList:
		return len(v.l) != 0
	}
	return true
}

// javaTrim is String.trim: it strips every char <= U+0020 at both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// isASCII reports whether s has only 7-bit bytes, so UTF-16 indexes equal
// byte indexes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// utf16Len is Java's String.length(): the number of UTF-16 code units.
func utf16Len(s string) int {
	if isASCII(s) {
		return len(s)
	}
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// utf16Slice is Java's s.substring(begin, end) with 0 <= begin <= end <=
// utf16Len(s). A surrogate pair cut in half becomes U+FFFD.
func utf16Slice(s string, begin, end int) string {
	if isASCII(s) {
		return s[begin:end]
	}
	u := utf16.Encode([]rune(s))
	return string(utf16.Decode(u[begin:end]))
}

// compareUTF16 is Java's String.compareTo: order by UTF-16 code units.
func compareUTF16(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return strings.Compare(a, b)
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}

// decRat parses BigDecimal text as an exact rational, for comparisons.
func decRat(v ival) (*big.Rat, bool) {
	if v.k == ivDec {
		u, scale, ok := parseJavaBigDecimal(v.s)
		if !ok || abs64(int64(scale)) > 4096 {
			return nil, false
		}
		r := new(big.Rat).SetInt(u)
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(int64(scale))), nil)
		if scale > 0 {
			r.Quo(r, new(big.Rat).SetInt(p))
		} else {
			r.Mul(r, new(big.Rat).SetInt(p))
		}
		return r, true
	}
	return new(big.Rat).SetInt(v.bigOf()), true
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// quoteShort quotes s for an error message, cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}

// describeValue renders a sharding value for an error message: its kind and
// text, e.g. `Long -3` or `String "abc"`.
func describeValue(v Value) string {
	switch v.Kind {
	case KindInt, KindLong, KindBigInteger, KindDecimal:
		return v.Kind.String() + " " + v.Text()
	}
	return v.Kind.String() + " " + quoteShort(v.Text())
}
