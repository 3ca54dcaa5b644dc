package runtime

import (
	"fmt"
	"math/big"
	"time"
	"unicode/utf8"
)

// JavaHashCode returns hashCode() of the Java object ShardingSphere holds for
// v (see ValueKind): the number HASH_MOD and INLINE's `x.hashCode()` work on.
//
//   - KindInt: java.lang.Integer.hashCode, the value itself.
//   - KindLong: java.lang.Long.hashCode, (int)(v ^ (v >>> 32)).
//   - KindString: java.lang.String.hashCode, s[0]*31^(n-1) + ... + s[n-1]
//     over the UTF-16 code units of s, in int32 arithmetic (it overflows).
//     Invalid UTF-8 bytes count as U+FFFD, as a Java decoder reads them.
//   - KindBigInteger: java.math.BigInteger.hashCode: h = 31*h + w over the
//     32-bit words w of the magnitude, most significant first, times the
//     signum. Str must be a decimal integer with an optional sign.
//   - KindDecimal: java.math.BigDecimal.hashCode, 31*unscaledValue.hashCode()
//   - scale, where "10.5" has unscaled value 105 and scale 1, so "10.50"
//     (1050, scale 2) hashes differently. Str must follow the grammar of
//     new BigDecimal(String): sign, digits with at most one '.', optional
//     exponent (e.g. "1.5E+3").
//   - KindTime: java.sql.Timestamp.hashCode (java.util.Date's), (int)ms ^
//     (int)(ms >> 32) with ms = getTime(), the epoch milliseconds. The Go
//     instant is used as is: give the Time in the zone the JVM would have
//     read the DATETIME in.
//
// It does not allocate for KindInt, KindLong, KindString and KindTime.
// Errors: ErrNullShardingValue for NULL; an error naming the text when a
// BigInteger or BigDecimal text does not parse (Java's NumberFormatException).
//
// Source: OpenJDK java.lang.{Integer,Long,String}, java.math.{BigInteger,
// BigDecimal}, java.util.Date hashCode; ShardingSphere HashModShardingAlgorithm.
func JavaHashCode(v Value) (int32, error) {
	switch v.Kind {
	case KindInt:
		return int32(v.Int), nil
	case KindLong:
		return javaLongHash(v.Int), nil
	case KindString:
		return javaStringHash(v.Str), nil
	case KindBigInteger:
		n, ok := parseJavaBigInteger(v.Str)
		if !ok {
			return 0, fmt.Errorf("BigInteger %q is not a decimal integer", v.Str)
		}
		return javaBigIntegerHash(n), nil
	case KindDecimal:
		unscaled, scale, ok := parseJavaBigDecimal(v.Str)
		if !ok {
			return 0, fmt.Errorf("BigDecimal %q is not a decimal number", v.Str)
		}
		return 31*javaBigIntegerHash(unscaled) + scale, nil
	case KindTime:
		return javaTimestampHash(v.Time), nil
	case KindNull:
		return 0, ErrNullShardingValue
	}
	return 0, fmt.Errorf("sharding value of unknown kind %s", v.Kind)
}

// javaLongHash is java.lang.Long.hashCode: (int)(v ^ (v >>> 32)).
func javaLongHash(v int64) int32 {
	u := uint64(v)
	return int32(uint32(u ^ u>>32))
}

// javaStringHash is java.lang.String.hashCode over the UTF-16 code units of
// s (a supplementary rune counts as its surrogate pair).
func javaStringHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			h = 31*h + int32(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// javaStringLength returns the length of s in UTF-16 code units: Java's
// String.length() of the same text.
func javaStringLength(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// javaSubstring returns Java's s.substring(begin, end) where begin and end
// count UTF-16 code units; 0 <= begin <= end <= javaStringLength(s). A cut through a
// surrogate pair keeps the whole rune on the side of its first half.
func javaSubstring(s string, begin, end int) string {
	if allASCII(s) {
		return s[begin:end]
	}
	b, e := len(s), len(s)
	n := 0
	for i := 0; i < len(s); {
		if n >= begin && b == len(s) {
			b = i
		}
		if n >= end {
			e = i
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	if b > e {
		b = e
	}
	return s[b:e]
}

func allASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// javaBigIntegerHash is java.math.BigInteger.hashCode of n.
func javaBigIntegerHash(n *big.Int) int32 {
	mag := new(big.Int).Abs(n).Bytes() // big-endian, no leading zero byte
	var h int32
	// The first word holds the len%4 leading bytes (or 4).
	first := len(mag) % 4
	if first == 0 {
		first = 4
	}
	for i := 0; i < len(mag); {
		end := i + 4
		if i == 0 {
			end = first
		}
		var w uint32
		for _, b := range mag[i:end] {
			w = w<<8 | uint32(b)
		}
		h = 31*h + int32(w)
		i = end
	}
	return h * int32(n.Sign())
}

// javaTimestampHash is java.sql.Timestamp.hashCode (inherited from
// java.util.Date): the epoch milliseconds folded with an arithmetic shift.
func javaTimestampHash(t time.Time) int32 {
	ms := t.UnixMilli()
	return int32(ms) ^ int32(ms>>32)
}

// parseJavaBigInteger parses s as new BigInteger(s) does for ASCII input: an
// optional '+' or '-' followed by one or more decimal digits.
func parseJavaBigInteger(s string) (*big.Int, bool) {
	if !isJavaInteger(s) {
		return nil, false
	}
	if s[0] == '+' {
		s = s[1:]
	}
	n, ok := new(big.Int).SetString(s, 10)
	return n, ok
}

// isJavaInteger reports whether s matches [+-]?[0-9]+.
func isJavaInteger(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i == len(s) {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseJavaBigDecimal parses s with the grammar of new BigDecimal(String):
// [+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?, and
// returns the unscaled value and the scale (fraction digits minus exponent).
func parseJavaBigDecimal(s string) (unscaled *big.Int, scale int32, ok bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	digits := make([]byte, 0, len(s))
	frac := int64(0)
	seenPoint := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
			if seenPoint {
				frac++
			}
			continue
		case c == '.' && !seenPoint:
			seenPoint = true
			continue
		}
		break
	}
	if len(digits) == 0 {
		return nil, 0, false
	}
	exp := int64(0)
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return nil, 0, false
		}
		rest := s[i+1:]
		if !isJavaInteger(rest) {
			return nil, 0, false
		}
		e, ok := new(big.Int).SetString(trimPlus(rest), 10)
		if !ok || !e.IsInt64() || e.Int64() > 1<<31 || e.Int64() < -(1<<31) {
			return nil, 0, false
		}
		exp = e.Int64()
	}
	sc := frac - exp
	if sc > 1<<31-1 || sc < -(1<<31) {
		return nil, 0, false
	}
	n, _ := new(big.Int).SetString(string(digits), 10)
	if neg {
		n.Neg(n)
	}
	return n, int32(sc), true
}

func trimPlus(s string) string {
	if len(s) > 0 && s[0] == '+' {
		return s[1:]
	}
	return s
}

// javaLongValue returns Number.longValue() of a BigInteger or BigDecimal
// value: the integer part (truncated toward zero) reduced to its low 64 bits
// in two's complement, as BigInteger.longValue and BigDecimal.longValue do.
func javaLongValue(v Value) (int64, bool) {
	var n *big.Int
	switch v.Kind {
	case KindBigInteger:
		var ok bool
		if n, ok = parseJavaBigInteger(v.Str); !ok {
			return 0, false
		}
	case KindDecimal:
		unscaled, scale, ok := parseJavaBigDecimal(v.Str)
		if !ok {
			return 0, false
		}
		n = unscaled
		switch {
		case scale > 0:
			n.Quo(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
		case scale < 0:
			if scale <= -64 {
				// 10^64 is a multiple of 2^64: the low 64 bits are zero.
				return 0, true
			}
			n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
		}
	default:
		return v.Int, true
	}
	return low64(n), true
}

// low64 returns the low 64 bits of n's two's complement representation.
func low64(n *big.Int) int64 {
	abs := new(big.Int).Abs(n)
	var u uint64
	if w := abs.Bits(); len(w) > 0 {
		u = uint64(w[0])
		if strconvIntSize == 32 && len(w) > 1 {
			u |= uint64(w[1]) << 32
		}
	}
	if n.Sign() < 0 {
		u = -u
	}
	return int64(u)
}

// strconvIntSize is the size of big.Word in bits.
const strconvIntSize = 32 << (^uint(0) >> 63)
