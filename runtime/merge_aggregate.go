package runtime

import (
	"math"
	"math/big"
	"strconv"
)

// aggState accumulates one aggregate of one group: ShardingSphere's
// AggregationUnit (Comparable for MIN/MAX, Accumulation for COUNT/SUM,
// Average for AVG, Distinct* for the DISTINCT forms), with MySQL's NULL
// rules made explicit: every accumulator records whether it saw a non-NULL
// input, because a zero-valued Go sum would otherwise read as 0 where
// MySQL answers NULL (case C03).
//
//   - COUNT adds the nodes' counts exactly; no input gives 0.
//   - SUM adds exactly (decimalSum) while every input is an exact number,
//     and in float64 from the first FLOAT/DOUBLE input on; all NULL gives
//     NULL.
//   - MIN/MAX keep a copy of the best non-NULL value.
//   - AVG adds the derived SUM and COUNT columns and divides at the end:
//     ΣSUM/ΣCOUNT, HALF_UP to the spec's scale; ΣCOUNT = 0 gives NULL.
//   - BIT_AND / BIT_OR / BIT_XOR combine the nodes' values bitwise; no
//     input gives MySQL's empty-set value (all ones for AND, else 0).
//   - the DISTINCT forms keep a set of the distinct non-NULL values (keyed
//     by appendKey, so equality is the column's) and compute COUNT, SUM or
//     AVG over it at the end.
type aggState struct {
	seen  bool       // a non-NULL input was added
	float bool       // a float input was added: fsum holds the sum
	sum   decimalSum // exact sum (SUM, AVG's ΣSUM) or count (COUNT)
	fsum  float64
	count decimalSum // AVG's ΣCOUNT
	best  Cell       // MIN/MAX
	// bestWeight and bestPad are best's server sort key and pad weight,
	// for a text column compared by WEIGHT_STRING (ColumnKind.Weight).
	bestWeight, bestPad Cell
	bits                uint64 // BIT_AND / BIT_OR / BIT_XOR so far (when seen)
	set                 map[string]struct{}
	vals                []Cell       // the distinct values, first seen first
	items               []concatItem // GROUP_CONCAT's sub-group rows
}

// reset prepares s for a new group (keeping the distinct set's storage).
func (s *aggState) reset() {
	set, vals, items := s.set, s.vals[:0], s.items[:0]
	clear(set)
	clear(s.vals)
	clear(s.items)
	*s = aggState{set: set, vals: vals, items: items}
}

// add accumulates the aggregate a of one row. buf is scratch space for
// distinct keys; the grown buffer is returned.
func (s *aggState) add(a *AggregateSpec, kinds []ColumnKind, row []Cell, buf []byte) []byte {
	c := &row[a.Column]
	switch a.Func {
	case AggCount:
		if !c.IsNull() {
			s.sum.addCell(c)
		}
	case AggSum:
		s.addNumber(c)
	case AggMin, AggMax:
		if c.IsNull() {
			return buf
		}
		w := kinds[a.Column].Weight
		if s.seen {
			var r int
			if w > 0 {
				r = compareWeights(row[w].b, s.bestWeight.b, row[w+1].b)
			} else {
				r = compareCells(c, &s.best, kinds[a.Column].coll())
			}
			if a.Func == AggMin && r >= 0 || a.Func == AggMax && r <= 0 {
				return buf
			}
		}
		s.seen, s.best = true, c.clone()
		if w > 0 {
			s.bestWeight, s.bestPad = row[w].clone(), row[w+1].clone()
		}
	case AggAvg:
		if n := &row[a.CountColumn]; !n.IsNull() {
			s.count.addCell(n)
		}
		s.addNumber(&row[a.SumColumn])
	case AggGroupConcat, AggGroupConcatDistinct:
		s.addConcat(a, row)
	case AggBitAnd, AggBitOr, AggBitXor:
		if c.IsNull() {
			return buf // never from a node: BIT_* is never NULL
		}
		v := uint64(c.n)
		switch {
		case !s.seen:
			s.bits = v
		case a.Func == AggBitAnd:
			s.bits &= v
		case a.Func == AggBitOr:
			s.bits |= v
		default:
			s.bits ^= v
		}
		s.seen = true
	case AggCountDistinct, AggSumDistinct, AggAvgDistinct:
		var one [1]int
		args := a.ArgColumns
		if len(args) == 0 { // a spec without ArgColumns: Column holds the argument
			one[0] = a.Column
			args = one[:]
		}
		c = &row[args[0]]
		buf = buf[:0]
		for _, col := range args {
			if row[col].IsNull() {
				return buf // MySQL counts no tuple with a NULL
			}
			o := keyOrder{col: col, coll: kinds[col].coll(), weight: kinds[col].Weight}
			buf = o.appendKey(buf, row)
		}
		if _, dup := s.set[string(buf)]; dup {
			return buf
		}
		if s.set == nil {
			s.set = make(map[string]struct{})
		}
		s.set[string(buf)] = struct{}{}
		s.vals = append(s.vals, c.clone())
		s.seen = true
	}
	return buf
}

// addNumber adds a non-NULL number to the sum.
func (s *aggState) addNumber(c *Cell) {
	switch c.kind {
	case CellNull:
		return
	case CellFloat:
		if !s.float {
			s.float, s.fsum = true, 0
		}
		s.fsum += c.Float()
	default:
		s.sum.addCell(c)
	}
	s.seen = true
}

// result returns the merged value of aggregate a; kind is its column's.
func (s *aggState) result(a *AggregateSpec, kind ColumnType) Cell {
	switch a.Func {
	case AggCount:
		return s.sum.cell(ColumnInt)
	case AggSum:
		if !s.seen {
			return Cell{}
		}
		if s.float {
			return FloatCell(s.fsum + s.sum.float())
		}
		return s.sum.cell(kind)
	case AggMin, AggMax:
		return s.best // NULL when nothing was seen
	case AggAvg:
		if !s.seen || s.count.isZero() {
			return Cell{}
		}
		if s.float {
			return FloatCell((s.fsum + s.sum.float()) / s.count.float())
		}
		return s.sum.divide(&s.count, a.Scale)
	case AggCountDistinct:
		return IntCell(int64(len(s.vals)))
	case AggBitAnd, AggBitOr, AggBitXor:
		switch {
		case s.seen:
			return UintCell(s.bits)
		case a.Func == AggBitAnd:
			return UintCell(math.MaxUint64) // MySQL's BIT_AND of no row
		}
		return UintCell(0)
	}
	// SumDistinct, AvgDistinct: add up the set.
	if len(s.vals) == 0 {
		return Cell{}
	}
	var sum aggState
	for i := range s.vals {
		sum.addNumber(&s.vals[i])
	}
	n := decimalSum{small: int64(len(s.vals))}
	switch {
	case a.Func == AggSumDistinct && sum.float:
		return FloatCell(sum.fsum + sum.sum.float())
	case a.Func == AggSumDistinct:
		return sum.sum.cell(ColumnDecimal)
	case sum.float:
		return FloatCell((sum.fsum + sum.sum.float()) / float64(len(s.vals)))
	}
	return sum.sum.divide(&n, a.Scale)
}

// decimalSum is an exact decimal accumulator: the value is unscaled ×
// 10^-scale, where unscaled is small while it fits an int64 and big from
// the first overflow on. Adding text of up to 18 digits does not allocate;
// the scale is the largest scale added, as MySQL's SUM over DECIMAL(m,s)
// keeps scale s.
type decimalSum struct {
	scale int
	small int64
	big   *big.Int
}

// decPow10 holds 10^0 … 10^18, every power of ten an int64 holds.
var decPow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// addCell adds an exact numeric cell (Int, Uint or Decimal); a float is
// truncated toward zero (never the case for a valid spec).
func (d *decimalSum) addCell(c *Cell) {
	switch c.kind {
	case CellInt:
		d.addUnscaled(c.n, 0)
	case CellUint:
		if c.n >= 0 {
			d.addUnscaled(c.n, 0)
		} else {
			d.addBig(new(big.Int).SetUint64(uint64(c.n)), 0)
		}
	case CellDecimal:
		d.addText(c.b)
	case CellFloat:
		d.addUnscaled(int64(c.Float()), 0)
	}
}

// addText adds valid decimal text.
func (d *decimalSum) addText(b []byte) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var v int64
	digits, scale, dot := 0, 0, false
	for _, c := range b {
		if c == '.' {
			dot = true
			continue
		}
		if digits > 0 || c != '0' {
			digits++
		}
		if dot {
			scale++
		}
		v = v*10 + int64(c-'0') // only used while digits <= 18
	}
	if digits <= 18 {
		if neg {
			v = -v
		}
		d.addUnscaled(v, scale)
		return
	}
	text := make([]byte, 0, len(b))
	for _, c := range b {
		if c != '.' {
			text = append(text, c)
		}
	}
	x, _ := new(big.Int).SetString(string(text), 10)
	if neg {
		x.Neg(x)
	}
	d.addBig(x, scale)
}

// addUnscaled adds v × 10^-scale.
func (d *decimalSum) addUnscaled(v int64, scale int) {
	if scale > d.scale {
		d.rescale(scale)
	}
	if d.big == nil {
		if k := d.scale - scale; k < len(decPow10) {
			if w, ok := mulInt64(v, decPow10[k]); ok {
				if s, ok := addInt64(d.small, w); ok {
					d.small = s
					return
				}
			}
		}
	}
	d.addBig(big.NewInt(v), scale)
}

// addBig adds x × 10^-scale (x is consumed).
func (d *decimalSum) addBig(x *big.Int, scale int) {
	if scale > d.scale {
		d.rescale(scale)
	}
	if d.big == nil {
		d.big = big.NewInt(d.small)
	}
	if k := d.scale - scale; k > 0 {
		x.Mul(x, bigPow10(k))
	}
	d.big.Add(d.big, x)
}

// rescale raises the scale to s, multiplying the unscaled value.
func (d *decimalSum) rescale(s int) {
	k := s - d.scale
	d.scale = s
	if d.big == nil {
		if k < len(decPow10) {
			if w, ok := mulInt64(d.small, decPow10[k]); ok {
				d.small = w
				return
			}
		}
		d.big = big.NewInt(d.small)
	}
	d.big.Mul(d.big, bigPow10(k))
}

// isZero reports whether the sum is 0.
func (d *decimalSum) isZero() bool {
	if d.big != nil {
		return d.big.Sign() == 0
	}
	return d.small == 0
}

// unscaled returns the unscaled value as a big.Int (a new one).
func (d *decimalSum) unscaled() *big.Int {
	if d.big != nil {
		return new(big.Int).Set(d.big)
	}
	return big.NewInt(d.small)
}

// float returns the sum as a float64.
func (d *decimalSum) float() float64 {
	if d.big == nil && d.scale == 0 {
		return float64(d.small)
	}
	f, _ := strconv.ParseFloat(string(d.appendText(nil)), 64)
	return f
}

// cell returns the sum as a cell of the given column type: Int or Uint
// while the value is integral and fits, else Decimal text at the sum's
// scale.
func (d *decimalSum) cell(t ColumnType) Cell {
	if d.scale == 0 && d.big == nil {
		switch {
		case t == ColumnInt:
			return IntCell(d.small)
		case t == ColumnUint && d.small >= 0:
			return UintCell(uint64(d.small))
		}
	}
	if d.scale == 0 && d.big != nil && t == ColumnUint && d.big.Sign() >= 0 && d.big.IsUint64() {
		return UintCell(d.big.Uint64())
	}
	return Cell{kind: CellDecimal, b: d.appendText(nil)}
}

// appendText appends the sum as decimal text with exactly scale fraction
// digits.
func (d *decimalSum) appendText(dst []byte) []byte {
	var buf [24]byte
	var digits []byte
	if d.big != nil {
		digits = d.big.Append(buf[:0], 10)
	} else {
		digits = strconv.AppendInt(buf[:0], d.small, 10)
	}
	return appendScaled(dst, digits, d.scale)
}

// appendScaled appends the integer text digits (optional '-') divided by
// 10^scale: "-1234", 2 gives "-12.34"; "5", 3 gives "0.005".
func appendScaled(dst, digits []byte, scale int) []byte {
	if len(digits) > 0 && digits[0] == '-' {
		dst = append(dst, '-')
		digits = digits[1:]
	}
	if scale == 0 {
		return append(dst, digits...)
	}
	if len(digits) <= scale {
		dst = append(dst, '0', '.')
		for range scale - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-scale:]...)
}

// divide returns d / n (n > 0, integral) as a Decimal cell with scale
// fraction digits, rounded HALF_UP (half away from zero), as MySQL's
// decimal division and ShardingSphere's BigDecimal.divide(…, HALF_UP) do.
func (d *decimalSum) divide(n *decimalSum, scale int) Cell {
	num, den := d.unscaled(), n.unscaled()
	if n.scale > 0 { // a count never has a fraction, but stay exact if it does
		num.Mul(num, bigPow10(n.scale))
	}
	if k := scale - d.scale; k >= 0 {
		num.Mul(num, bigPow10(k))
	} else {
		den.Mul(den, bigPow10(-k))
	}
	if den.Sign() < 0 {
		num.Neg(num)
		den.Neg(den)
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() != 0 {
		r.Abs(r)
		if r.Lsh(r, 1).Cmp(den) >= 0 {
			if num.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	return Cell{kind: CellDecimal, b: appendScaled(nil, q.Append(nil, 10), scale)}
}

// bigPow10 returns 10^k as a new big.Int.
func bigPow10(k int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
}

// addInt64 returns a+b and whether it did not overflow.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// mulInt64 returns a×b (b > 0) and whether it did not overflow.
func mulInt64(a, b int64) (int64, bool) {
	if b == 1 || a == 0 {
		return a * b, true
	}
	if a > math.MaxInt64/b || a < math.MinInt64/b {
		return 0, false
	}
	return a * b, true
}
