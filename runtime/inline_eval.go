package runtime

import (
	"math"
	"math/big"
	"strconv"
	"time"
)

// inlineMaxPad bounds padLeft/padRight and String.format widths (UTF-16
// units), so a configuration cannot ask for gigabytes of padding.
const inlineMaxPad = 1 << 16

// inlineMaxElements bounds the size of one range and of the cartesian
// product of one list element: 1,048,576 data nodes is far beyond any real
// topology. A variable so the fuzz test can lower it.
var inlineMaxElements = 1 << 20

// inlineMaxBytes bounds the total text one list expression expands to
// (64 MiB); a variable so the fuzz test can lower it.
var inlineMaxBytes = 64 << 20

// eval evaluates n with env[i] bound to the i-th name of the expression.
// Integer arithmetic on Integer/Long values allocates nothing; errors are
// *InlineError at the offending node. eval only dispatches: each operation
// lives in its own small function, and the integer paths are split from the
// rare ones, which keeps stack frames small and evaluation fast.
func (n *inode) eval(env []Value) (ival, *InlineError) {
	switch n.op {
	case opConst:
		return n.val, nil
	case opName:
		return n.evalName(env)
	case opGStr:
		return n.evalGString(env)
	case opList:
		return n.evalList(env)
	case opCond:
		return n.evalCond(env)
	case opAnd, opOr:
		return n.evalLogic(env)
	case opFormat:
		return n.evalFormat(env)
	case opNeg, opPos, opNot, opAbs, opHash, opToString:
		return n.evalUnary(env)
	case opSubstring, opPadLeft, opPadRight:
		return n.evalStringMethod(env)
	}
	return n.evalBinary(env)
}

// evalName reads a bound name; Integer, Long and String take the short path.
func (n *inode) evalName(env []Value) (ival, *InlineError) {
	if n.slot < len(env) {
		switch v := &env[n.slot]; v.Kind {
		case KindInt:
			return ival{k: ivInt, n: int64(int32(v.Int))}, nil
		case KindLong:
			return ival{k: ivLong, n: v.Int}, nil
		case KindString:
			return ival{k: ivStr, s: v.Str}, nil
		}
	}
	return n.evalNameSlow(env)
}

func (n *inode) evalNameSlow(env []Value) (ival, *InlineError) {
	if n.slot >= len(env) {
		return ival{}, inlineErr(n.off, "no value bound to "+strconv.Quote(n.name))
	}
	return valueToIval(env[n.slot], n.name, n.off)
}

// evalCond is c ? a : b.
func (n *inode) evalCond(env []Value) (ival, *InlineError) {
	c, err := n.kids[0].eval(env)
	if err != nil {
		return ival{}, err
	}
	if truth(c) {
		return n.kids[1].eval(env)
	}
	return n.kids[2].eval(env)
}

// evalLogic is && and ||, short-circuiting, with a Boolean result.
func (n *inode) evalLogic(env []Value) (ival, *InlineError) {
	a, err := n.kids[0].eval(env)
	if err != nil {
		return ival{}, err
	}
	if truth(a) == (n.op == opOr) {
		return boolIval(n.op == opOr), nil
	}
	b, err := n.kids[1].eval(env)
	if err != nil {
		return ival{}, err
	}
	return boolIval(truth(b)), nil
}

// evalUnary is the one-operand operations.
func (n *inode) evalUnary(env []Value) (ival, *InlineError) {
	a, err := n.kids[0].eval(env)
	if err != nil {
		return ival{}, err
	}
	switch n.op {
	case opNeg, opPos:
		return unaryArith(n.op, a, n.off)
	case opNot:
		return boolIval(!truth(a)), nil
	case opAbs:
		return absIval(a, n.off)
	case opHash:
		return hashIval(a, n.off)
	}
	return toStringIval(a, n.off)
}

// evalBinary is the two-operand operations.
func (n *inode) evalBinary(env []Value) (ival, *InlineError) {
	a, err := n.kids[0].eval(env)
	if err != nil {
		return ival{}, err
	}
	b, err := n.kids[1].eval(env)
	if err != nil {
		return ival{}, err
	}
	switch n.op {
	case opAdd, opSub, opMul, opMod, opIntdiv:
		if (a.k == ivInt || a.k == ivLong) && (b.k == ivInt || b.k == ivLong) {
			return intArith(n.op, a, b, n.off)
		}
		return binaryArith(n.op, a, b, n.off)
	case opEq, opNe:
		return boolIval(equalIvals(a, b) == (n.op == opEq)), nil
	case opLt, opGt, opLe, opGe:
		return compareOp(n.op, a, b, n.off)
	case opRange:
		return rangeIval(a, b, n.excl, n.off)
	}
	return ival{}, inlineErr(n.off, "internal error: unknown operation")
}

// evalGString builds a double-quoted string with placeholders.
func (n *inode) evalGString(env []Value) (ival, *InlineError) {
	var b []byte
	for _, part := range n.tpl.parts {
		if part.expr == nil {
			b = append(b, part.lit...)
			continue
		}
		v, err := part.expr.eval(env)
		if err != nil {
			return ival{}, err
		}
		if b, err = appendText(b, v, part.eoff); err != nil {
			return ival{}, err
		}
	}
	return strIval(string(b)), nil
}

// evalList builds a list literal.
func (n *inode) evalList(env []Value) (ival, *InlineError) {
	elems := make([]ival, len(n.kids))
	for i, k := range n.kids {
		v, err := k.eval(env)
		if err != nil {
			return ival{}, err
		}
		elems[i] = v
	}
	return listVal(elems), nil
}

// evalStringMethod evaluates the receiver and arguments of substring,
// padLeft or padRight and calls it.
func (n *inode) evalStringMethod(env []Value) (ival, *InlineError) {
	var buf [3]ival
	args := buf[:len(n.kids)]
	for i := range n.kids {
		v, err := n.kids[i].eval(env)
		if err != nil {
			return ival{}, err
		}
		args[i] = v
	}
	if n.op == opSubstring {
		return substringIval(args, n.off)
	}
	return padIval(n.op, args, n.off)
}

// hashIval is x.hashCode(), an Integer.
func hashIval(x ival, off int) (ival, *InlineError) {
	h, err := inlineHashCode(x, off)
	if err != nil {
		return ival{}, err
	}
	return ival{k: ivInt, n: int64(h)}, nil
}

// toStringIval is x.toString().
func toStringIval(x ival, off int) (ival, *InlineError) {
	s, err := textOf(x, off)
	if err != nil {
		return ival{}, err
	}
	return strIval(s), nil
}

// notSupported is the error for an operation Groovy would not run on these
// operand types (ShardingSphere reports it as a mismatch between the
// expression and the sharding column).
func notSupported(op iop, off int, kinds ...ivKind) *InlineError {
	msg := "operator " + strconv.Quote(opSymbols[op])
	if op >= opAbs {
		msg = "method " + strconv.Quote(opSymbols[op])
	}
	msg += " is not supported for " + kinds[0].String()
	if len(kinds) > 1 {
		msg += " and " + kinds[1].String()
	}
	return inlineErr(off, msg)
}

// unaryArith is Groovy's unary minus/plus on Integer, Long and BigInteger;
// Integer and Long wrap like Java (-Integer.MIN_VALUE is itself).
func unaryArith(op iop, x ival, off int) (ival, *InlineError) {
	switch x.k {
	case ivInt:
		if op == opNeg {
			x.n = int64(-int32(x.n))
		}
		return x, nil
	case ivLong:
		if op == opNeg {
			x.n = -x.n
		}
		return x, nil
	case ivBig:
		if op == opNeg {
			return bigVal(new(big.Int).Neg(x.b)), nil
		}
		return x, nil
	}
	return ival{}, notSupported(op, off, x.k)
}

// binaryArith is + - * % and intdiv. String + anything and Number + String
// concatenate (Groovy's String.plus / Number.plus(String)). On integers the
// result type is the wider operand type (Integer < Long < BigInteger) and
// Integer/Long arithmetic wraps like Java. % on Integer/Long is Java's
// remainder (the sign of the dividend: -3 % 2 == -1); on BigInteger it is
// BigInteger.mod (never negative), as Groovy 2.x-4.x map % to mod().
func binaryArith(op iop, a, b ival, off int) (ival, *InlineError) {
	if op == opAdd && (a.k == ivStr || (b.k == ivStr && (a.isInteger() || a.k == ivDec))) {
		if a.k == ivList || b.k == ivList {
			return ival{}, inlineErr(off, "a collection cannot be used as text")
		}
		sa, err := textOf(a, off)
		if err != nil {
			return ival{}, err
		}
		sb, err := textOf(b, off)
		if err != nil {
			return ival{}, err
		}
		return strIval(sa + sb), nil
	}
	if !a.isInteger() || !b.isInteger() {
		return ival{}, notSupported(op, off, a.k, b.k)
	}
	if a.k != ivBig && b.k != ivBig {
		return intArith(op, a, b, off)
	}
	x, y := a.bigOf(), b.bigOf()
	r := new(big.Int)
	switch op {
	case opAdd:
		r.Add(x, y)
	case opSub:
		r.Sub(x, y)
	case opMul:
		r.Mul(x, y)
	case opMod:
		if y.Sign() <= 0 {
			return ival{}, inlineErr(off, "BigInteger modulus not positive")
		}
		r.Mod(x, y)
	case opIntdiv:
		if y.Sign() == 0 {
			return ival{}, inlineErr(off, "division by zero")
		}
		r.Quo(x, y)
	}
	return bigVal(r), nil
}

// intArith is + - * % intdiv on two Integer/Long operands: Integer when both
// are Integer, else Long; both wrap like Java, % is Java's remainder.
func intArith(op iop, a, b ival, off int) (ival, *InlineError) {
	if a.k == ivInt && b.k == ivInt {
		x, y := int32(a.n), int32(b.n)
		var r int32
		switch op {
		case opAdd:
			r = x + y
		case opSub:
			r = x - y
		case opMul:
			r = x * y
		default:
			if y == 0 {
				return ival{}, divisionByZero(off)
			}
			if op == opMod {
				r = x % y
			} else {
				r = x / y
			}
		}
		return ival{k: ivInt, n: int64(r)}, nil
	}
	x, y := a.n, b.n
	var r int64
	switch op {
	case opAdd:
		r = x + y
	case opSub:
		r = x - y
	case opMul:
		r = x * y
	default:
		if y == 0 {
			return ival{}, divisionByZero(off)
		}
		if op == opMod {
			r = x % y
		} else {
			r = x / y
		}
	}
	return ival{k: ivLong, n: r}, nil
}

func divisionByZero(off int) *InlineError { return inlineErr(off, "division by zero") }

// isNumber reports whether v is Integer, Long, BigInteger or BigDecimal.
func (v ival) isNumber() bool { return v.isInteger() || v.k == ivDec }

// equalIvals is Groovy's ==: numbers compare by value across types, strings
// by content, Timestamps by wall-clock time; different kinds are unequal.
func equalIvals(a, b ival) bool {
	switch {
	case a.isInteger() && b.isInteger():
		if a.k != ivBig && b.k != ivBig {
			return a.n == b.n
		}
		return a.bigOf().Cmp(b.bigOf()) == 0
	case a.isNumber() && b.isNumber():
		ra, okA := decRat(a)
		rb, okB := decRat(b)
		return okA && okB && ra.Cmp(rb) == 0
	case a.k != b.k:
		return false
	case a.k == ivStr:
		return a.s == b.s
	case a.k == ivBool:
		return a.n == b.n
	case a.k == ivTime:
		return wallClock(a.t).Equal(wallClock(b.t))
	case a.k == ivList:
		if len(a.l) != len(b.l) {
			return false
		}
		for i := range a.l {
			if !equalIvals(a.l[i], b.l[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// wallClock drops t's location: ShardingSphere ignores time zones.
func wallClock(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// compareOp is < > <= >= on two numbers, two Strings (UTF-16 order), two
// Booleans or two Timestamps; anything else is an error, as in Groovy.
func compareOp(op iop, a, b ival, off int) (ival, *InlineError) {
	var c int
	switch {
	case a.isInteger() && b.isInteger():
		if a.k != ivBig && b.k != ivBig {
			c = cmpInt64(a.n, b.n)
		} else {
			c = a.bigOf().Cmp(b.bigOf())
		}
	case a.isNumber() && b.isNumber():
		ra, okA := decRat(a)
		rb, okB := decRat(b)
		if !okA || !okB {
			return ival{}, inlineErr(off, "cannot compare BigDecimal values this large")
		}
		c = ra.Cmp(rb)
	case a.k == ivStr && b.k == ivStr:
		c = compareUTF16(a.s, b.s)
	case a.k == ivBool && b.k == ivBool:
		c = cmpInt64(a.n, b.n)
	case a.k == ivTime && b.k == ivTime:
		c = wallClock(a.t).Compare(wallClock(b.t))
	default:
		return ival{}, inlineErr(off, "cannot compare "+a.k.String()+" with "+b.k.String())
	}
	switch op {
	case opLt:
		return boolIval(c < 0), nil
	case opGt:
		return boolIval(c > 0), nil
	case opLe:
		return boolIval(c <= 0), nil
	}
	return boolIval(c >= 0), nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// rangeIval builds Groovy's a..b (inclusive) or a..<b (end excluded) over
// Integer or Long bounds. A range whose start is above its end counts down,
// as Groovy's reverse ranges do: 3..0 is [3, 2, 1, 0], 3..<0 is [3, 2, 1].
// Elements are Integer when both bounds are, else Long.
func rangeIval(a, b ival, excl bool, off int) (ival, *InlineError) {
	if (a.k != ivInt && a.k != ivLong) || (b.k != ivInt && b.k != ivLong) {
		return ival{}, inlineErr(off, "range bounds must be Integer or Long, not "+a.k.String()+" and "+b.k.String())
	}
	k := max(a.k, b.k)
	from, to := a.n, b.n
	step := int64(1)
	if from > to {
		step = -1
	}
	// Number of elements, computed without overflow.
	span := uint64(to - from)
	if step < 0 {
		span = uint64(from - to)
	}
	if excl {
		if from == to {
			return listVal(nil), nil
		}
	} else {
		span++
	}
	if span == 0 || span > uint64(inlineMaxElements) {
		return ival{}, inlineErr(off, "range has more than "+strconv.Itoa(inlineMaxElements)+" elements")
	}
	elems := make([]ival, span)
	for i := range elems {
		elems[i] = ival{k: k, n: from + int64(i)*step}
	}
	return listVal(elems), nil
}

// absIval is Java's Math.abs(int) / Math.abs(long): the most negative value
// stays negative.
func absIval(x ival, off int) (ival, *InlineError) {
	switch x.k {
	case ivInt:
		if v := int32(x.n); v < 0 {
			x.n = int64(-v)
		}
		return x, nil
	case ivLong:
		if x.n < 0 {
			x.n = -x.n
		}
		return x, nil
	}
	return ival{}, notSupported(opAbs, off, x.k)
}

// intArg converts a method argument to a Java int; Integer and Long values
// in int range are accepted.
func intArg(v ival, method string, off int) (int, *InlineError) {
	if (v.k == ivInt || v.k == ivLong) && v.n >= math.MinInt32 && v.n <= math.MaxInt32 {
		return int(v.n), nil
	}
	return 0, inlineErr(off, "argument of "+strconv.Quote(method)+" must be an Integer, not "+v.k.String())
}

// substringIval is Java's String.substring(begin[, end]) on UTF-16 indexes.
func substringIval(args []ival, off int) (ival, *InlineError) {
	s := args[0]
	if s.k != ivStr {
		return ival{}, notSupported(opSubstring, off, s.k)
	}
	n := utf16Len(s.s)
	begin, err := intArg(args[1], "substring", off)
	if err != nil {
		return ival{}, err
	}
	end := n
	if len(args) > 2 {
		if end, err = intArg(args[2], "substring", off); err != nil {
			return ival{}, err
		}
	}
	if begin < 0 || end > n || begin > end {
		return ival{}, inlineErr(off, "substring("+strconv.Itoa(begin)+", "+strconv.Itoa(end)+") is out of range for a String of length "+strconv.Itoa(n))
	}
	return strIval(utf16Slice(s.s, begin, end)), nil
}

// padIval is Groovy's CharSequence.padLeft/padRight(n[, padding]): when the
// string is shorter than n UTF-16 units, the padding (default " ") is
// repeated and cut to fill the difference.
func padIval(op iop, args []ival, off int) (ival, *InlineError) {
	s := args[0]
	if s.k != ivStr {
		return ival{}, notSupported(op, off, s.k)
	}
	if !args[1].isInteger() {
		return ival{}, inlineErr(off, "argument of "+strconv.Quote(opSymbols[op])+" must be a number, not "+args[1].k.String())
	}
	var width int64
	if args[1].k == ivBig {
		width = int64(int32(args[1].b.Int64())) // Number.intValue()
	} else {
		width = int64(int32(args[1].n))
	}
	pad := " "
	if len(args) > 2 {
		if args[2].k != ivStr {
			return ival{}, inlineErr(off, "padding of "+strconv.Quote(opSymbols[op])+" must be a String, not "+args[2].k.String())
		}
		pad = args[2].s
	}
	n := int64(utf16Len(s.s))
	if width <= n {
		return s, nil
	}
	if width > inlineMaxPad {
		return ival{}, inlineErr(off, "padding width "+strconv.FormatInt(width, 10)+" is larger than "+strconv.Itoa(inlineMaxPad))
	}
	fill, err := padding(pad, int(width-n), off)
	if err != nil {
		return ival{}, err
	}
	if op == opPadLeft {
		return strIval(fill + s.s), nil
	}
	return strIval(s.s + fill), nil
}

// padding repeats pad and cuts it to exactly n UTF-16 units.
func padding(pad string, n int, off int) (string, *InlineError) {
	pl := utf16Len(pad)
	if pl == 0 {
		return "", inlineErr(off, "padding must not be empty")
	}
	var b []byte
	for i := 0; i <= n/pl; i++ {
		b = append(b, pad...)
	}
	return utf16Slice(string(b), 0, n), nil
}

// evalFormat is java.lang.String.format restricted to the conversions
// parseFormat accepts. %d takes Integer, Long or BigInteger; %s takes any
// scalar's text. Extra arguments are ignored, as in Java.
func (n *inode) evalFormat(env []Value) (ival, *InlineError) {
	var b []byte
	arg := 0
	for _, piece := range n.fmt {
		b = append(b, piece.lit...)
		if piece.conv == 0 {
			continue
		}
		v, err := n.kids[arg].eval(env)
		if err != nil {
			return ival{}, err
		}
		arg++
		var text string
		if piece.conv == 'd' {
			if !v.isInteger() {
				return ival{}, inlineErr(n.off, "String.format: %d needs an integer, not "+v.k.String())
			}
			text, _ = textOf(v, n.off)
		} else if text, err = textOf(v, n.off); err != nil {
			return ival{}, err
		}
		fill := piece.width - utf16Len(text)
		switch {
		case fill <= 0:
			b = append(b, text...)
		case piece.left:
			b = append(b, text...)
			for ; fill > 0; fill-- {
				b = append(b, ' ')
			}
		case piece.zero:
			if text[0] == '-' {
				b = append(b, '-')
				text = text[1:]
			}
			for ; fill > 0; fill-- {
				b = append(b, '0')
			}
			b = append(b, text...)
		default:
			for ; fill > 0; fill-- {
				b = append(b, ' ')
			}
			b = append(b, text...)
		}
	}
	return strIval(string(b)), nil
}
