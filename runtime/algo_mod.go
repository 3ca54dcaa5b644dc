package runtime

import (
	"fmt"
	"math"
	"math/big"
)

// ModAlgorithm is ShardingSphere's MOD auto sharding algorithm: the target
// suffix is the sharding value modulo sharding-count, as a BigInteger.
//
// Props (validated once, here):
//   - sharding-count (required): Java int > 0; also the auto-table amount.
//   - start-offset, stop-offset (default 0, ≥ 0): when either is set, the
//     value's text (Java toString) is cut to substring(start, len-stop)
//     before it is read as an integer; a text not longer than start+stop is
//     an error (ShardingValueOffsetException).
//   - zero-padding (default false): the suffix is zero-padded to the digits
//     of sharding-count-1 (e.g. count 16: "07").
//
// Precise value → integer as ShardingSphere does: Integer/Long as is;
// BigInteger and BigDecimal through Number.longValue() (a decimal is
// truncated toward zero, anything wider than 64 bits keeps its low 64 bits);
// String and Time through new BigInteger(text), so a non-numeric text is an
// error. The suffix is BigInteger.mod, never negative (-7 mod 4 = 1).
//
// Range: every target when the range has no upper bound, or when it has both
// bounds and (int)(upper-lower) ≥ sharding-count-1 (Java's BigInteger
// intValue, which keeps the low 32 bits); otherwise the targets of the
// residues lower..upper, endpoints included whatever the bound type, read
// with new BigInteger(text) and without the offsets. A range with an upper
// bound and no lower bound (id < 5) reaches every target too: its values
// are unbounded below, so every residue may hold rows (ShardingSphere
// fails there instead, reading the missing endpoint with Guava's
// lowerEndpoint()).
//
// Source: ShardingSphere ModShardingAlgorithm;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/
type ModAlgorithm struct {
	count       int64
	startOffset int
	stopOffset  int
	zeroPadding bool
	padWidth    int // ShardingSphere's maxPaddingSize: digits of count-1, ≥ 1
}

var (
	_ StandardAlgorithm = (*ModAlgorithm)(nil)
	_ AutoAlgorithm     = (*ModAlgorithm)(nil)
)

func newModAlgorithm(props Props) (Algorithm, error) {
	count, err := javaIntProp(props, "sharding-count", true, 0, 1)
	if err != nil {
		return nil, err
	}
	start, err := javaIntProp(props, "start-offset", false, 0, 0)
	if err != nil {
		return nil, err
	}
	stop, err := javaIntProp(props, "stop-offset", false, 0, 0)
	if err != nil {
		return nil, err
	}
	pad, err := props.Bool("zero-padding", false)
	if err != nil {
		return nil, err
	}
	a := &ModAlgorithm{count: count, startOffset: int(start), stopOffset: int(stop), zeroPadding: pad, padWidth: 1}
	for c := count - 1; c >= 10; c /= 10 {
		a.padWidth++
	}
	return a, nil
}

// javaIntProp reads a Java int property: required or defaulting to def, and
// at least lo. Errors are *PropError.
func javaIntProp(props Props, key string, required bool, def, lo int64) (int64, error) {
	if required {
		if _, err := props.Required(key); err != nil {
			return 0, err
		}
	}
	n, err := props.Int64(key, def)
	if err != nil {
		return 0, err
	}
	if n < lo {
		if lo == 1 {
			return 0, &PropError{Prop: key, Msg: fmt.Sprintf("must be a positive integer, got %d", n)}
		}
		return 0, &PropError{Prop: key, Msg: fmt.Sprintf("must not be negative, got %d", n)}
	}
	if n > math.MaxInt32 {
		return 0, &PropError{Prop: key, Msg: fmt.Sprintf("must be at most %d, got %d", math.MaxInt32, n)}
	}
	return n, nil
}

// Type returns "MOD".
func (a *ModAlgorithm) Type() string { return "MOD" }

// AutoTablesAmount returns sharding-count.
func (a *ModAlgorithm) AutoTablesAmount() int { return int(a.count) }

// ShardingCount returns sharding-count, the modulus.
func (a *ModAlgorithm) ShardingCount() int64 { return a.count }

// Offsets returns start-offset and stop-offset (0, 0 when unset).
func (a *ModAlgorithm) Offsets() (start, stop int) { return a.startOffset, a.stopOffset }

// ZeroPadding reports zero-padding and the suffix width it pads to.
func (a *ModAlgorithm) ZeroPadding() (enabled bool, width int) { return a.zeroPadding, a.padWidth }

// BindStandard resolves every suffix 0..sharding-count-1 to its target (see
// autoTargets). Errors: an empty targets list.
func (a *ModAlgorithm) BindStandard(column string, targets []string) (StandardRouter, error) {
	pad := 0
	if a.zeroPadding {
		pad = a.padWidth
	}
	t, err := bindAutoTargets(targets, a.count, pad)
	if err != nil {
		return nil, fmt.Errorf("MOD on %s: %w", column, err)
	}
	return &modRouter{alg: a, column: column, targets: t}, nil
}

type modRouter struct {
	alg     *ModAlgorithm
	column  string
	targets *autoTargets
}

// Precise routes v to target suffix v mod sharding-count. Integer and Long
// values without offsets take a path that does not allocate.
func (r *modRouter) Precise(v Value) (int, error) {
	a := r.alg
	var n int64
	if (v.Kind == KindInt || v.Kind == KindLong) && a.startOffset == 0 && a.stopOffset == 0 {
		n = v.Int % a.count
		if n < 0 {
			n += a.count
		}
	} else {
		var err error
		if n, err = r.suffix(v); err != nil {
			return -1, err
		}
	}
	if i := r.targets.lookup(n); i >= 0 {
		return i, nil
	}
	return -1, r.targets.noTarget("MOD", r.column, v, n)
}

// suffix is ModShardingAlgorithm's cutShardingValue(v).mod(count).
func (r *modRouter) suffix(v Value) (int64, error) {
	a := r.alg
	if v.Kind == KindNull {
		return 0, nullValueError("MOD", r.column)
	}
	text := v.Text()
	length := javaStringLength(text)
	if length-a.stopOffset <= a.startOffset {
		return 0, fmt.Errorf("MOD on %s: sharding value %s is too short for start-offset %d and stop-offset %d",
			r.column, shardingValueText(v), a.startOffset, a.stopOffset)
	}
	if a.startOffset != 0 || a.stopOffset != 0 {
		cut := javaSubstring(text, a.startOffset, length-a.stopOffset)
		n, ok := decimalMod(cut, a.count)
		if !ok {
			return 0, fmt.Errorf("MOD on %s: sharding value %s cut to %q by start-offset %d and stop-offset %d is not an integer",
				r.column, shardingValueText(v), cut, a.startOffset, a.stopOffset)
		}
		return n, nil
	}
	switch v.Kind {
	case KindInt, KindLong, KindBigInteger, KindDecimal:
		// java.lang.Number: BigInteger.valueOf(longValue()).
		l, ok := javaLongValue(v)
		if !ok {
			return 0, fmt.Errorf("MOD on %s: sharding value %s is not a number", r.column, shardingValueText(v))
		}
		n := l % a.count
		if n < 0 {
			n += a.count
		}
		return n, nil
	}
	n, ok := decimalMod(text, a.count)
	if !ok {
		return 0, fmt.Errorf("MOD on %s: sharding value %s is not an integer", r.column, shardingValueText(v))
	}
	return n, nil
}

// Range appends the targets a range reaches (see ModAlgorithm).
func (r *modRouter) Range(dst []int, rg Range) ([]int, error) {
	c := r.alg.count
	if !rg.HasUpper || !rg.HasLower {
		return r.targets.appendAll(dst), nil
	}
	if rg.Lower.Kind == KindNull || rg.Upper.Kind == KindNull {
		return dst, nullValueError("MOD", r.column)
	}
	l, u := rg.Lower, rg.Upper
	if (l.Kind == KindInt || l.Kind == KindLong) && (u.Kind == KindInt || u.Kind == KindLong) {
		// BigInteger.intValue of upper-lower: the low 32 bits of the
		// difference, which the wrapped int64 difference shares.
		if int64(int32(uint32(uint64(u.Int)-uint64(l.Int)))) >= c-1 {
			return r.targets.appendAll(dst), nil
		}
		if u.Int < l.Int {
			return dst, nil
		}
		span := uint64(u.Int) - uint64(l.Int)
		if span >= uint64(c-1) {
			return r.targets.appendCyclic(dst, 0, c), nil
		}
		start := l.Int % c
		if start < 0 {
			start += c
		}
		return r.targets.appendCyclic(dst, start, int64(span)+1), nil
	}
	return r.rangeBig(dst, l, u)
}

// rangeBig is Range for bounds that are not both Integer/Long.
func (r *modRouter) rangeBig(dst []int, l, u Value) ([]int, error) {
	c := big.NewInt(r.alg.count)
	gu, err := r.numberOrBigInteger(u)
	if err != nil {
		return dst, err
	}
	gl, err := r.numberOrBigInteger(l)
	if err != nil {
		return dst, err
	}
	if int64(int32(low64(new(big.Int).Sub(gu, gl)))) >= r.alg.count-1 {
		return r.targets.appendAll(dst), nil
	}
	il, err := r.bigIntegerOfText(l)
	if err != nil {
		return dst, err
	}
	iu, err := r.bigIntegerOfText(u)
	if err != nil {
		return dst, err
	}
	span := new(big.Int).Sub(iu, il)
	if span.Sign() < 0 {
		return dst, nil
	}
	if span.Cmp(big.NewInt(r.alg.count-1)) >= 0 {
		return r.targets.appendCyclic(dst, 0, r.alg.count), nil
	}
	start := new(big.Int).Mod(il, c).Int64()
	return r.targets.appendCyclic(dst, start, span.Int64()+1), nil
}

// numberOrBigInteger is ModShardingAlgorithm#getBigInteger: a Number through
// longValue(), anything else through new BigInteger(toString()).
func (r *modRouter) numberOrBigInteger(v Value) (*big.Int, error) {
	switch v.Kind {
	case KindInt, KindLong, KindBigInteger, KindDecimal:
		l, ok := javaLongValue(v)
		if !ok {
			return nil, fmt.Errorf("MOD on %s: range bound %s is not a number", r.column, shardingValueText(v))
		}
		return big.NewInt(l), nil
	}
	return r.bigIntegerOfText(v)
}

// bigIntegerOfText is new BigInteger(v.toString()).
func (r *modRouter) bigIntegerOfText(v Value) (*big.Int, error) {
	n, ok := parseJavaBigInteger(v.Text())
	if !ok {
		return nil, fmt.Errorf("MOD on %s: range bound %s is not an integer", r.column, shardingValueText(v))
	}
	return n, nil
}

// decimalMod returns new BigInteger(s).mod(m) for m > 0 without allocating:
// s must match [+-]?[0-9]+ (ASCII digits).
func decimalMod(s string, m int64) (int64, bool) {
	if !isJavaInteger(s) {
		return 0, false
	}
	neg := s[0] == '-'
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	var r int64
	for i := 0; i < len(s); i++ {
		r = (r*10 + int64(s[i]-'0')) % m
	}
	if neg && r != 0 {
		r = m - r
	}
	return r, true
}
