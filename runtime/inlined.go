package runtime

import "strings"

// Functions that generated code calls in place of a bound algorithm when the
// algorithm is known at generate time. Each computes the numeric suffix the
// algorithm derives from an integer (or string) sharding value; generated
// code then maps the suffix to a target through a table computed at generate
// time with the bound algorithm itself, so both paths agree by construction.

// Mod returns v mod n in [0, n): java.math.BigInteger.mod, which MOD uses
// (ShardingSphere ModShardingAlgorithm; -7 mod 4 = 1). n must be > 0.
func Mod(v, n int64) int {
	r := v % n
	if r < 0 {
		r += n
	}
	return int(r)
}

// HashModLong returns HASH_MOD's suffix for a java.lang.Long value:
// Math.abs((long) Long.hashCode(v)) % n (ShardingSphere
// HashModShardingAlgorithm). n must be > 0.
func HashModLong(v, n int64) int {
	h := int64(int32(v ^ int64(uint64(v)>>32)))
	if h < 0 {
		h = -h
	}
	return int(h % n)
}

// HashModString returns HASH_MOD's suffix for a java.lang.String value:
// Math.abs((long) s.hashCode()) % n, String.hashCode over UTF-16 code units,
// of s without its trailing spaces (padSpace: 'ab ' routes as 'ab').
func HashModString(s string, n int64) int {
	h := int64(javaStringHash(strings.TrimRight(s, " ")))
	if h < 0 {
		h = -h
	}
	return int(h % n)
}

// JavaRem returns Java's remainder v % n for long values (the sign of v),
// which an INLINE expression `prefix${col % n}` uses: a negative result
// names a target such as "t_order_-1" that does not exist. n must be > 0.
func JavaRem(v, n int64) int64 { return v % n }

// Inlinable is implemented by algorithms whose precise route of an integer
// value is a suffix function of the value followed by a target look-up, so
// that generated code can inline it. Fn names the function of this file
// ("Mod", "HashModLong", "JavaRem") and Modulus its n; ok is false when the
// configuration cannot be inlined (e.g. MOD with start/stop offsets).
type Inlinable interface {
	IntegerInline(column string) (fn string, modulus int64, ok bool)
}

// IntegerInline: MOD without offsets is Mod(v, sharding-count).
func (a *ModAlgorithm) IntegerInline(string) (string, int64, bool) {
	if s, e := a.Offsets(); s != 0 || e != 0 {
		return "", 0, false
	}
	return "Mod", a.ShardingCount(), true
}

// IntegerInline: HASH_MOD of a Long is HashModLong(v, sharding-count).
func (a *HashModAlgorithm) IntegerInline(string) (string, int64, bool) {
	return "HashModLong", a.ShardingCount(), true
}

// IntegerInline: an INLINE expression of the form `prefix${column % n}`
// over the strategy's own column is JavaRem(v, n).
func (a *InlineAlgorithm) IntegerInline(column string) (string, int64, bool) {
	e := a.Expression()
	if e == nil {
		return "", 0, false
	}
	_, n, col, ok := e.IntegerForm()
	if !ok || n <= 0 || !strings.EqualFold(col, column) {
		return "", 0, false
	}
	return "JavaRem", n, true
}

var (
	_ Inlinable = (*ModAlgorithm)(nil)
	_ Inlinable = (*HashModAlgorithm)(nil)
	_ Inlinable = (*InlineAlgorithm)(nil)
)
