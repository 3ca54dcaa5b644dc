package runtime

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ExprOp is the operation of one Expr node.
type ExprOp uint8

const (
	// ExprColumn is the value of column Column of the merged row (a GROUP
	// BY column, a merged aggregate, or a computed column listed before).
	ExprColumn ExprOp = iota + 1
	// ExprLiteral is the constant Value of type Type (Int, Decimal, Float,
	// String; 0 is NULL).
	ExprLiteral
	// ExprParam is the statement argument at index Param of Merge's args.
	ExprParam
	// ExprAdd .. ExprMod are MySQL's + - * / DIV % on Args[0] and Args[1];
	// ExprNeg is unary minus on Args[0].
	ExprAdd
	ExprSub
	ExprMul
	ExprDiv
	ExprIntDiv
	ExprMod
	ExprNeg
	// ExprEQ .. ExprNullSafeEQ compare Args[0] with Args[1]: 1, 0 or NULL
	// (<=> never NULL). Text compares by Collation.
	ExprEQ
	ExprNE
	ExprLT
	ExprLE
	ExprGT
	ExprGE
	ExprNullSafeEQ
	// ExprAnd, ExprOr, ExprXor, ExprNot are MySQL's three-valued logic.
	ExprAnd
	ExprOr
	ExprXor
	ExprNot
	// ExprIsNull and ExprIsNotNull test Args[0]: 1 or 0.
	ExprIsNull
	ExprIsNotNull
	// ExprIn is Args[0] IN (Args[1:]...): 1 when one is equal, else NULL
	// when one is NULL, else 0. Text compares by Collation.
	ExprIn
	// ExprCast is CAST(Args[0] AS ...): Type Int (SIGNED), Decimal (Scale
	// fraction digits, rounded half up) or Float (DOUBLE).
	ExprCast
	// ExprRound is ROUND(Args[0], Scale) of an exact number, half away
	// from zero.
	ExprRound
	// ExprCoalesce is COALESCE / IFNULL: the first non-NULL argument, as
	// the arguments' common type.
	ExprCoalesce
	exprOpEnd
)

var exprOpNames = [...]string{"", "Column", "Literal", "Param", "Add", "Sub", "Mul", "Div", "IntDiv", "Mod", "Neg",
	"EQ", "NE", "LT", "LE", "GT", "GE", "NullSafeEQ", "And", "Or", "Xor", "Not", "IsNull", "IsNotNull", "In",
	"Cast", "Round", "Coalesce"}

// String returns the operation's name, e.g. "Div".
func (o ExprOp) String() string {
	if o > 0 && o < exprOpEnd {
		return exprOpNames[o]
	}
	return "ExprOp(" + strconv.Itoa(int(o)) + ")"
}

// MarshalJSON encodes the operation as its name.
func (o ExprOp) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(o.String())), nil }

// UnmarshalJSON decodes an operation name.
func (o *ExprOp) UnmarshalJSON(b []byte) error {
	name, err := strconv.Unquote(string(b))
	if err != nil {
		return fmt.Errorf("runtime: ExprOp must be a JSON string, got %s", b)
	}
	for i := ExprOp(1); i < exprOpEnd; i++ {
		if strings.EqualFold(exprOpNames[i], name) {
			*o = i
			return nil
		}
	}
	return fmt.Errorf("runtime: unknown ExprOp %q", name)
}

// Expr is an expression the merge evaluates over one merged row, after the
// aggregates are merged: an expression over aggregates in the select list
// (SUM(a)/COUNT(b), a ComputedColumn) or the HAVING condition
// (MergeSpec.Having). The planner decides it once; generated code keeps it
// as a literal and the proxy with its plan, so both evaluate the same tree
// with no SQL parsing. Example: HAVING SUM(qty) / COUNT(*) > 2.5 over a row
// whose columns 3 and 4 hold the merged SUM and COUNT is
//
//	{Op: ExprGT, Args: []Expr{
//		{Op: ExprDiv, Args: []Expr{{Op: ExprColumn, Column: 3}, {Op: ExprColumn, Column: 4}}},
//		{Op: ExprLiteral, Type: ColumnDecimal, Value: "2.5"}}}
//
// Values follow MariaDB's rules (10.x, div_precision_increment 4): exact
// numbers stay exact, a quotient of exact numbers carries the digits
// MariaDB's decimal library computes (whole 9-digit words, truncated: 2/3
// is 0.666666666 inside an expression) and is shown rounded half up to the
// dividend's scale + 4 (0.6667); integer overflow is an error as in
// MariaDB; a DOUBLE or text operand makes the arithmetic DOUBLE; division
// by zero is NULL.
type Expr struct {
	Op     ExprOp `json:"op"`
	Column int    `json:"column,omitempty"`
	Param  int    `json:"param,omitempty"`
	// Value is an ExprLiteral's text: "12", "-1.50", "2.5e0", "abc".
	Value string `json:"value,omitempty"`
	// Type is an ExprLiteral's type (0: NULL) or an ExprCast's target.
	Type ColumnType `json:"type,omitempty"`
	// Collation compares text operands of a comparison or ExprIn.
	Collation Collation `json:"collation,omitempty"`
	// Scale is the fraction digits of ExprCast to Decimal and ExprRound.
	Scale int `json:"scale,omitempty"`
	// Pad, when > 0, makes a comparison (ExprEQ .. ExprNullSafeEQ) or an
	// ExprIn compare text by the data nodes' sort keys instead of
	// Collation, for a collation the merge cannot compare in process
	// (utf8mb4_unicode_ci, latin1_swedish_ci, ...): every argument then
	// holds the WEIGHT_STRING of a text value in that one collation (a
	// column, e.g. a MAX(name)'s ColumnKind.Weight, or a literal's weight
	// the nodes computed), and column Pad of the row holds the
	// collation's pad weight (empty under NO PAD), compared as
	// ColumnKind.Weight describes.
	Pad  int    `json:"pad,omitempty"`
	Args []Expr `json:"args,omitempty"`
}

// ComputedColumn is a column of the merged row whose value is Expr,
// evaluated after the aggregates (in the order the spec lists them).
type ComputedColumn struct {
	Column int  `json:"column"`
	Expr   Expr `json:"expr"`
}

// exprArity is the number of arguments each operation takes (-1: at least
// one).
var exprArity = [...]int{ExprColumn: 0, ExprLiteral: 0, ExprParam: 0, ExprAdd: 2, ExprSub: 2, ExprMul: 2, ExprDiv: 2,
	ExprIntDiv: 2, ExprMod: 2, ExprNeg: 1, ExprEQ: 2, ExprNE: 2, ExprLT: 2, ExprLE: 2, ExprGT: 2, ExprGE: 2,
	ExprNullSafeEQ: 2, ExprAnd: 2, ExprOr: 2, ExprXor: 2, ExprNot: 1, ExprIsNull: 1, ExprIsNotNull: 1, ExprIn: -2,
	ExprCast: 1, ExprRound: 1, ExprCoalesce: -1}

// validate checks an expression over rows of columns columns.
func (e *Expr) validate(columns int) error {
	if e.Op == 0 || e.Op >= exprOpEnd {
		return fmt.Errorf("unknown expression operation %s", e.Op)
	}
	switch n := exprArity[e.Op]; {
	case n >= 0 && len(e.Args) != n:
		return fmt.Errorf("%s takes %d arguments, has %d", e.Op, n, len(e.Args))
	case n < 0 && len(e.Args) < -n:
		return fmt.Errorf("%s takes at least %d arguments, has %d", e.Op, -n, len(e.Args))
	}
	switch e.Op {
	case ExprColumn:
		if e.Column < 0 || e.Column >= columns {
			return fmt.Errorf("column %d out of range (%d columns)", e.Column, columns)
		}
	case ExprEQ, ExprNE, ExprLT, ExprLE, ExprGT, ExprGE, ExprNullSafeEQ, ExprIn:
		if e.Pad < 0 || e.Pad >= columns {
			return fmt.Errorf("pad weight column %d out of range (%d columns)", e.Pad, columns)
		}
	case ExprParam:
		if e.Param < 0 {
			return fmt.Errorf("parameter index %d is negative", e.Param)
		}
	case ExprLiteral:
		if _, err := literalVal(e); err != nil {
			return err
		}
	case ExprCast:
		if e.Type != ColumnInt && e.Type != ColumnDecimal && e.Type != ColumnFloat {
			return fmt.Errorf("CAST to %s is not supported", e.Type)
		}
		fallthrough
	case ExprRound:
		if e.Scale < 0 || e.Scale > maxAvgScale {
			return fmt.Errorf("scale %d out of range 0..%d", e.Scale, maxAvgScale)
		}
	}
	for i := range e.Args {
		if err := e.Args[i].validate(columns); err != nil {
			return err
		}
	}
	return nil
}

// usesArgs reports whether e reads a statement argument.
func (e *Expr) usesArgs() bool {
	if e.Op == ExprParam {
		return true
	}
	for i := range e.Args {
		if e.Args[i].usesArgs() {
			return true
		}
	}
	return false
}

// xkind is the type of an evaluated value.
type xkind uint8

const (
	xNull xkind = iota
	xInt
	xDec // exact: unscaled × 10^-frac, shown with scale digits
	xFloat
	xStr
	xOther // a time or TIME cell, compared as it is
)

// xval is a value during evaluation. An exact number is always held as a
// decimal (d, frac) with its declared scale; isInt marks a BIGINT (scale
// 0), whose arithmetic overflows as MariaDB's does.
type xval struct {
	k     xkind
	isInt bool
	d     *big.Int
	frac  int // digits of d after the point (MariaDB's internal digits)
	scale int // digits shown (the SQL type's scale)
	f     float64
	c     Cell // xStr, xOther
}

var (
	xnull  = xval{}
	xtrue  = xval{k: xDec, isInt: true, d: big.NewInt(1)}
	xfalse = xval{k: xDec, isInt: true, d: big.NewInt(0)}
	minI64 = big.NewInt(math.MinInt64)
	maxI64 = big.NewInt(math.MaxInt64)
)

func xbool(b bool) xval {
	if b {
		return xtrue
	}
	return xfalse
}

// divPrecisionIncrement is MariaDB's default div_precision_increment.
const divPrecisionIncrement = 4

// maxDecimalScale is MariaDB's DECIMAL_MAX_SCALE.
const maxDecimalScale = 38

// errExprOverflow is MariaDB's ER_DATA_OUT_OF_RANGE for BIGINT arithmetic.
var errExprOverflow = errors.New("BIGINT value is out of range")

// cellVal converts a merged cell.
func cellVal(c *Cell) xval {
	switch c.kind {
	case CellNull:
		return xnull
	case CellInt:
		return xval{k: xDec, isInt: true, d: big.NewInt(c.n)}
	case CellUint:
		return xval{k: xDec, d: new(big.Int).SetUint64(uint64(c.n))}
	case CellDecimal:
		return decText(c.b)
	case CellFloat:
		return xval{k: xFloat, f: c.Float()}
	case CellBytes:
		return xval{k: xStr, c: *c}
	}
	return xval{k: xOther, c: *c}
}

// decText parses valid decimal text, keeping its scale ("1.50": 2).
func decText(b []byte) xval {
	frac := 0
	digits := make([]byte, 0, len(b))
	for i, c := range b {
		switch {
		case c == '.':
			frac = len(b) - i - 1
		case c != '+':
			digits = append(digits, c)
		}
	}
	d, ok := new(big.Int).SetString(string(digits), 10)
	if !ok {
		d = new(big.Int)
	}
	return xval{k: xDec, d: d, frac: frac, scale: frac}
}

// literalVal is the value of an ExprLiteral.
func literalVal(e *Expr) (xval, error) {
	switch e.Type {
	case 0:
		return xnull, nil
	case ColumnInt:
		n, err := strconv.ParseInt(e.Value, 10, 64)
		if err != nil {
			return xnull, fmt.Errorf("integer literal %q: %v", e.Value, err)
		}
		return xval{k: xDec, isInt: true, d: big.NewInt(n)}, nil
	case ColumnDecimal:
		if !validDecimal([]byte(e.Value)) {
			return xnull, fmt.Errorf("invalid DECIMAL literal %q", e.Value)
		}
		return decText([]byte(e.Value)), nil
	case ColumnFloat:
		f, err := strconv.ParseFloat(e.Value, 64)
		if err != nil {
			return xnull, fmt.Errorf("DOUBLE literal %q: %v", e.Value, err)
		}
		return xval{k: xFloat, f: f}, nil
	case ColumnString:
		return xval{k: xStr, c: StringCell(e.Value)}, nil
	}
	return xnull, fmt.Errorf("literal of type %s", e.Type)
}

// paramVal converts a statement argument as MySQL types a bound value.
func paramVal(v any) (xval, error) {
	if n, ok := anyInt(v); ok {
		return xval{k: xDec, isInt: true, d: big.NewInt(n)}, nil
	}
	switch x := v.(type) {
	case nil:
		return xnull, nil
	case uint64:
		return xval{k: xDec, d: new(big.Int).SetUint64(x)}, nil
	case float64:
		return xval{k: xFloat, f: x}, nil
	case float32:
		return xval{k: xFloat, f: float64(x)}, nil
	case bool:
		return xbool(x), nil
	case string:
		return xval{k: xStr, c: StringCell(x)}, nil
	case []byte:
		return xval{k: xStr, c: BytesCell(x)}, nil
	}
	if s, ok := v.(fmt.Stringer); ok { // e.g. a decimal type: its text
		if t := s.String(); validDecimal([]byte(t)) {
			return decText([]byte(t)), nil
		}
	}
	return xnull, fmt.Errorf("parameter of Go type %T", v)
}

// evalExpr evaluates e over row with the statement's args.
func evalExpr(e *Expr, row []Cell, args []any) (xval, error) {
	switch e.Op {
	case ExprColumn:
		return cellVal(&row[e.Column]), nil
	case ExprLiteral:
		return literalVal(e)
	case ExprParam:
		if e.Param >= len(args) {
			return xnull, fmt.Errorf("parameter %d of %d", e.Param, len(args))
		}
		return paramVal(args[e.Param])
	case ExprAnd, ExprOr:
		// MySQL evaluates both sides' truth; NULL only when undecided.
		a, err := evalExpr(&e.Args[0], row, args)
		if err != nil {
			return xnull, err
		}
		ta := xtruth(a)
		if e.Op == ExprAnd && ta == 0 || e.Op == ExprOr && ta == 1 {
			return xbool(ta == 1), nil
		}
		b, err := evalExpr(&e.Args[1], row, args)
		if err != nil {
			return xnull, err
		}
		tb := xtruth(b)
		switch {
		case e.Op == ExprAnd && tb == 0:
			return xfalse, nil
		case e.Op == ExprOr && tb == 1:
			return xtrue, nil
		case ta < 0 || tb < 0:
			return xnull, nil
		}
		return xbool(e.Op == ExprAnd), nil
	}
	vals := make([]xval, len(e.Args))
	for i := range e.Args {
		v, err := evalExpr(&e.Args[i], row, args)
		if err != nil {
			return xnull, err
		}
		vals[i] = v
	}
	switch e.Op {
	case ExprCoalesce:
		return coalesce(vals), nil
	case ExprAdd, ExprSub, ExprMul, ExprDiv, ExprIntDiv, ExprMod:
		return arith(e.Op, vals[0], vals[1])
	case ExprNeg:
		v := vals[0]
		switch v.k {
		case xDec:
			if v.isInt && v.d.Cmp(minI64) == 0 {
				return xnull, errExprOverflow
			}
			v.d = new(big.Int).Neg(v.d)
		case xFloat:
			v.f = -v.f
		case xStr:
			return xval{k: xFloat, f: -strFloat(v.c.b)}, nil
		case xOther:
			return xnull, errors.New("cannot negate a time value")
		}
		return v, nil
	case ExprEQ, ExprNE, ExprLT, ExprLE, ExprGT, ExprGE, ExprNullSafeEQ:
		a, b := vals[0], vals[1]
		if a.k == xNull || b.k == xNull {
			if e.Op == ExprNullSafeEQ {
				return xbool(a.k == b.k), nil
			}
			return xnull, nil
		}
		c, err := compareExprVals(e, row, a, b)
		if err != nil {
			return xnull, err
		}
		switch e.Op {
		case ExprEQ, ExprNullSafeEQ:
			return xbool(c == 0), nil
		case ExprNE:
			return xbool(c != 0), nil
		case ExprLT:
			return xbool(c < 0), nil
		case ExprLE:
			return xbool(c <= 0), nil
		case ExprGT:
			return xbool(c > 0), nil
		}
		return xbool(c >= 0), nil
	case ExprXor:
		ta, tb := xtruth(vals[0]), xtruth(vals[1])
		if ta < 0 || tb < 0 {
			return xnull, nil
		}
		return xbool(ta != tb), nil
	case ExprNot:
		t := xtruth(vals[0])
		if t < 0 {
			return xnull, nil
		}
		return xbool(t == 0), nil
	case ExprIsNull:
		return xbool(vals[0].k == xNull), nil
	case ExprIsNotNull:
		return xbool(vals[0].k != xNull), nil
	case ExprIn:
		if vals[0].k == xNull {
			return xnull, nil
		}
		sawNull := false
		for _, v := range vals[1:] {
			if v.k == xNull {
				sawNull = true
				continue
			}
			c, err := compareExprVals(e, row, vals[0], v)
			if err != nil {
				return xnull, err
			}
			if c == 0 {
				return xtrue, nil
			}
		}
		if sawNull {
			return xnull, nil
		}
		return xfalse, nil
	case ExprCast:
		return castVal(vals[0], e.Type, e.Scale)
	case ExprRound:
		v := vals[0]
		switch v.k {
		case xNull:
			return xnull, nil
		case xDec:
			r := roundDec(v, e.Scale)
			r.isInt = v.isInt
			return r, nil
		}
		return xnull, errors.New("ROUND over merged rows takes an exact number")
	}
	return xnull, fmt.Errorf("unknown expression operation %s", e.Op)
}

// xtruth is MySQL's truth value: 1, 0, or -1 for NULL.
func xtruth(v xval) int {
	switch v.k {
	case xNull:
		return -1
	case xDec:
		if v.d.Sign() != 0 {
			return 1
		}
		return 0
	case xFloat:
		if v.f != 0 {
			return 1
		}
		return 0
	case xStr:
		if strFloat(v.c.b) != 0 {
			return 1
		}
		return 0
	}
	return 1
}

// strFloat converts text to a number as MySQL does: its longest numeric
// prefix (after leading spaces), 0 when there is none.
func strFloat(b []byte) float64 {
	s := strings.TrimLeft(string(b), " \t\n\r")
	end := 0
	for i := 1; i <= len(s); i++ {
		if _, err := strconv.ParseFloat(s[:i], 64); err == nil {
			end = i
		} else if !strings.ContainsAny(s[i-1:i], "+-.eE0123456789") {
			break
		}
	}
	f, _ := strconv.ParseFloat(s[:end], 64)
	return f
}

// toFloat converts a number or text to float64.
func (v xval) toFloat() float64 {
	switch v.k {
	case xDec:
		f, _ := new(big.Rat).SetFrac(v.d, bigPow10(v.frac)).Float64()
		return f
	case xFloat:
		return v.f
	case xStr:
		return strFloat(v.c.b)
	}
	return 0
}

// align returns a's and b's unscaled values at a common number of digits.
func align(a, b xval) (*big.Int, *big.Int, int) {
	x, y := a.d, b.d
	switch {
	case a.frac < b.frac:
		x = new(big.Int).Mul(x, bigPow10(b.frac-a.frac))
		return x, y, b.frac
	case a.frac > b.frac:
		y = new(big.Int).Mul(y, bigPow10(a.frac-b.frac))
	}
	return x, y, a.frac
}

// compareVals compares two non-NULL values as MySQL compares them: exact
// numbers exactly at their declared scales, a DOUBLE or a number against text as DOUBLE, text by
// coll, times chronologically.
func compareVals(a, b xval, coll Collation) (int, error) {
	// MariaDB rounds each exact operand to its declared scale before it
	// compares (Arg_comparator::compare_decimal): 1/3 = 0.3333 is true.
	if a.k == xDec {
		a = roundDec(a, a.scale)
	}
	if b.k == xDec {
		b = roundDec(b, b.scale)
	}
	switch {
	case a.k == xDec && b.k == xDec:
		x, y, _ := align(a, b)
		return x.Cmp(y), nil
	case a.k == xStr && b.k == xStr:
		return coll.Compare(a.c.b, b.c.b), nil
	case a.k == xOther && b.k == xOther:
		return compareCells(&a.c, &b.c, CollationBinary), nil
	case a.k == xOther || b.k == xOther:
		return 0, errors.New("comparing a time value with another type is not supported over merged rows")
	}
	fa, fb := a.toFloat(), b.toFloat()
	switch {
	case fa < fb:
		return -1, nil
	case fa > fb:
		return 1, nil
	}
	return 0, nil
}

// compareExprVals compares two non-NULL operands of the comparison or
// ExprIn e over row: by the sort keys they hold when e.Pad is set (see
// Expr.Pad), else as compareVals.
func compareExprVals(e *Expr, row []Cell, a, b xval) (int, error) {
	if e.Pad <= 0 {
		return compareVals(a, b, e.Collation)
	}
	if a.k != xStr || b.k != xStr {
		return 0, errors.New("a comparison by sort keys has an operand that is no WEIGHT_STRING")
	}
	return compareWeights(a.c.b, b.c.b, row[e.Pad].b), nil
}

// arith is + - * / DIV % on two values.
func arith(op ExprOp, a, b xval) (xval, error) {
	if a.k == xNull || b.k == xNull {
		return xnull, nil
	}
	if a.k == xOther || b.k == xOther {
		return xnull, errors.New("arithmetic on a time value is not supported over merged rows")
	}
	if a.k != xDec || b.k != xDec {
		x, y := a.toFloat(), b.toFloat()
		var r float64
		switch op {
		case ExprAdd:
			r = x + y
		case ExprSub:
			r = x - y
		case ExprMul:
			r = x * y
		case ExprDiv:
			if y == 0 {
				return xnull, nil
			}
			r = x / y
		case ExprIntDiv:
			if y == 0 {
				return xnull, nil
			}
			q := math.Trunc(x / y)
			if q < math.MinInt64 || q >= math.MaxInt64 {
				return xnull, errExprOverflow
			}
			return xval{k: xDec, isInt: true, d: big.NewInt(int64(q))}, nil
		case ExprMod:
			if y == 0 {
				return xnull, nil
			}
			r = math.Mod(x, y)
		}
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return xnull, errors.New("DOUBLE value is out of range")
		}
		return xval{k: xFloat, f: r}, nil
	}
	isInt := a.isInt && b.isInt
	var r xval
	switch op {
	case ExprAdd, ExprSub:
		x, y, frac := align(a, b)
		d := new(big.Int)
		if op == ExprAdd {
			d.Add(x, y)
		} else {
			d.Sub(x, y)
		}
		r = xval{k: xDec, d: d, frac: frac, scale: max(a.scale, b.scale)}
	case ExprMul:
		r = xval{k: xDec, d: new(big.Int).Mul(a.d, b.d), frac: a.frac + b.frac, scale: min(a.scale+b.scale, maxDecimalScale)}
	case ExprDiv:
		if b.d.Sign() == 0 {
			return xnull, nil
		}
		return divDec(a, b), nil
	case ExprIntDiv:
		if b.d.Sign() == 0 {
			return xnull, nil
		}
		x, y, _ := align(a, b)
		q := new(big.Int).Quo(x, y)
		if q.Cmp(minI64) < 0 || q.Cmp(maxI64) > 0 {
			return xnull, errExprOverflow
		}
		return xval{k: xDec, isInt: true, d: q}, nil
	case ExprMod:
		if b.d.Sign() == 0 {
			return xnull, nil
		}
		x, y, frac := align(a, b)
		r = xval{k: xDec, d: new(big.Int).Rem(x, y), frac: frac, scale: max(a.scale, b.scale)}
	}
	if isInt {
		if r.d.Cmp(minI64) < 0 || r.d.Cmp(maxI64) > 0 {
			return xnull, errExprOverflow
		}
		r.isInt = true
	}
	return r, nil
}

// divDec divides exact numbers as MariaDB's decimal_div does
// (strings/decimal.c do_div_mod): each operand's fraction is counted in
// whole 9-digit words, the increment is what div_precision_increment adds
// beyond that padding, and the quotient has as many whole words of
// fraction as the two fractions plus the increment need, truncated. It is
// shown with the dividend's scale + div_precision_increment digits.
func divDec(a, b xval) xval {
	const word = 9
	up := func(n int) int { return (n + word - 1) / word * word }
	f1, f2 := up(a.frac), up(b.frac)
	incr := max(divPrecisionIncrement-(f1-a.frac)-(f2-b.frac), 0)
	frac := up(f1 + f2 + incr)
	// a/b = (A/10^fa) / (B/10^fb); at frac digits: A·10^(fb+frac-fa) / B.
	num := new(big.Int).Set(a.d)
	den := new(big.Int).Set(b.d)
	if k := b.frac + frac - a.frac; k >= 0 {
		num.Mul(num, bigPow10(k))
	} else {
		den.Mul(den, bigPow10(-k))
	}
	return xval{k: xDec, d: num.Quo(num, den), frac: frac, scale: min(a.scale+divPrecisionIncrement, maxDecimalScale)}
}

// roundDec rounds v half away from zero to scale digits (MariaDB's
// HALF_UP), or pads it.
func roundDec(v xval, scale int) xval {
	d := v.d
	switch {
	case v.frac > scale:
		p := bigPow10(v.frac - scale)
		q, r := new(big.Int).QuoRem(d, p, new(big.Int))
		if r.Abs(r).Lsh(r, 1).Cmp(p) >= 0 {
			if d.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		d = q
	case v.frac < scale:
		d = new(big.Int).Mul(d, bigPow10(scale-v.frac))
	}
	return xval{k: xDec, d: d, frac: scale, scale: scale}
}

// castVal is CAST(v AS SIGNED | DECIMAL(p, scale) | DOUBLE).
func castVal(v xval, t ColumnType, scale int) (xval, error) {
	if v.k == xNull {
		return xnull, nil
	}
	if v.k == xOther {
		return xnull, errors.New("CAST of a time value is not supported over merged rows")
	}
	switch t {
	case ColumnFloat:
		return xval{k: xFloat, f: v.toFloat()}, nil
	case ColumnDecimal, ColumnInt:
		if v.k != xDec {
			r, ok := new(big.Rat).SetString(strconv.FormatFloat(v.toFloat(), 'g', -1, 64))
			if !ok {
				return xnull, errors.New("CAST of a non-finite DOUBLE")
			}
			prec := scale
			if t == ColumnInt {
				prec = 0
			}
			v = roundDec(xval{k: xDec, d: new(big.Int).Quo(new(big.Int).Mul(r.Num(), bigPow10(prec+1)), r.Denom()), frac: prec + 1}, prec)
		}
		if t == ColumnInt {
			r := roundDec(v, 0)
			if r.d.Cmp(minI64) < 0 || r.d.Cmp(maxI64) > 0 {
				return xnull, errExprOverflow
			}
			r.isInt = true
			return r, nil
		}
		return roundDec(v, scale), nil
	}
	return xnull, fmt.Errorf("CAST to %s", t)
}

// coalesce returns the first non-NULL value, converted to the arguments'
// common type (exact with the largest scale, else DOUBLE, else text).
func coalesce(vals []xval) xval {
	exact, text, scale, isInt := true, false, 0, true
	for _, v := range vals {
		switch v.k {
		case xDec:
			scale = max(scale, v.scale)
			isInt = isInt && v.isInt
		case xFloat:
			exact = false
		case xStr, xOther:
			text = true
		}
	}
	for _, v := range vals {
		if v.k == xNull {
			continue
		}
		switch {
		case text || v.k == xStr:
			return v
		case !exact:
			return xval{k: xFloat, f: v.toFloat()}
		}
		r := v
		r.scale = scale // cell() pads or rounds to it
		r.isInt = isInt
		return r
	}
	return xnull
}

// cell converts a result value to the Cell the merge returns: an exact
// integer as Int, another exact number as Decimal text with its scale's
// digits (rounded half up), a DOUBLE as Float, text as Bytes.
func (v xval) cell() Cell {
	switch v.k {
	case xDec:
		if v.isInt && v.frac == 0 && v.d.IsInt64() {
			return IntCell(v.d.Int64())
		}
		r := roundDec(v, v.scale)
		return Cell{kind: CellDecimal, b: appendScaled(nil, r.d.Append(nil, 10), r.scale)}
	case xFloat:
		return FloatCell(v.f)
	case xStr, xOther:
		return v.c.clone()
	}
	return Cell{}
}
