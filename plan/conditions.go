package plan

import (
	"encoding/hex"
	"math/big"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// maxGroups bounds the disjunctive normal form: past it the conditions are
// dropped, which routes to every node the strategies allow (a superset of the
// true route, so still correct).
const maxGroups = 256

// atom is one recognised sharding predicate on a column.
type atom struct {
	col    *colRef
	values []Operand
	rng    *RangeCond
	binary bool // the column is under BINARY (`BINARY col = ?`)
}

// dnf converts a boolean expression into OR-of-AND groups of atoms. An
// unrecognised predicate contributes no atom (it constrains nothing we can
// route on). ok is false when the form grew past maxGroups.
func (p *planner) dnf(e sqlparser.Expr) (groups [][]atom, ok bool) {
	switch e := e.(type) {
	case nil:
		return [][]atom{nil}, true
	case *sqlparser.AndExpr:
		l, ok1 := p.dnf(e.Left)
		r, ok2 := p.dnf(e.Right)
		if !ok1 || !ok2 || len(l)*len(r) > maxGroups {
			return nil, false
		}
		out := make([][]atom, 0, len(l)*len(r))
		for _, a := range l {
			for _, b := range r {
				g := make([]atom, 0, len(a)+len(b))
				out = append(out, append(append(g, a...), b...))
			}
		}
		return out, true
	case *sqlparser.OrExpr:
		l, ok1 := p.dnf(e.Left)
		r, ok2 := p.dnf(e.Right)
		if !ok1 || !ok2 || len(l)+len(r) > maxGroups {
			return nil, false
		}
		return append(l, r...), true
	}
	if a, ok := p.atomOf(e); ok {
		return [][]atom{{a}}, true
	}
	return [][]atom{nil}, true
}

// atomOf recognises `col = v`, `v = col`, `col IN (v, ...)`, `col BETWEEN a
// AND b` and `col <, <=, >, >= v` (either side), where v is a literal or a
// placeholder — ShardingSphere's condition generators.
func (p *planner) atomOf(e sqlparser.Expr) (atom, bool) {
	switch e := e.(type) {
	case *sqlparser.ComparisonExpr:
		col, binary := p.comparedColumn(e.Left)
		val, flipped := e.Right, false
		if col == nil {
			col, binary = p.comparedColumn(e.Right)
			val, flipped = e.Left, true
		}
		if col == nil {
			return atom{}, false
		}
		switch e.Operator {
		case sqlparser.EqualOp:
			if o, ok := p.operand(val); ok {
				return atom{col: col, values: []Operand{o}, binary: binary}, true
			}
		case sqlparser.InOp:
			tuple, ok := e.Right.(sqlparser.ValTuple)
			if !ok || flipped {
				return atom{}, false
			}
			var vals []Operand
			for _, v := range tuple {
				o, ok := p.operand(v)
				if !ok {
					return atom{}, false
				}
				vals = append(vals, o)
			}
			return atom{col: col, values: vals, binary: binary}, true
		case sqlparser.LessThanOp, sqlparser.LessEqualOp, sqlparser.GreaterThanOp, sqlparser.GreaterEqualOp:
			o, ok := p.operand(val)
			if !ok {
				return atom{}, false
			}
			op := e.Operator
			if flipped { // 5 < col  ==  col > 5
				op = map[sqlparser.ComparisonExprOperator]sqlparser.ComparisonExprOperator{
					sqlparser.LessThanOp: sqlparser.GreaterThanOp, sqlparser.LessEqualOp: sqlparser.GreaterEqualOp,
					sqlparser.GreaterThanOp: sqlparser.LessThanOp, sqlparser.GreaterEqualOp: sqlparser.LessEqualOp,
				}[op]
			}
			r := &RangeCond{}
			switch op {
			case sqlparser.LessThanOp:
				r.Upper, r.UpperOpen = &o, true
			case sqlparser.LessEqualOp:
				r.Upper = &o
			case sqlparser.GreaterThanOp:
				r.Lower, r.LowerOpen = &o, true
			case sqlparser.GreaterEqualOp:
				r.Lower = &o
			}
			return atom{col: col, rng: r, binary: binary}, true
		}
	case *sqlparser.BetweenExpr:
		col := p.colOf(e.Left)
		if col == nil || !e.IsBetween {
			return atom{}, false
		}
		lo, ok1 := p.operand(e.From)
		hi, ok2 := p.operand(e.To)
		if !ok1 || !ok2 {
			return atom{}, false
		}
		return atom{col: col, rng: &RangeCond{Lower: &lo, Upper: &hi}}, true
	}
	return atom{}, false
}

// comparedColumn returns the column e is, or the column under BINARY
// (`BINARY col`, which compares the column as a binary string) with binary
// set; nil for anything else.
func (p *planner) comparedColumn(e sqlparser.Expr) (c *colRef, binary bool) {
	if cv, ok := e.(*sqlparser.ConvertExpr); ok && cv.Type != nil && strings.EqualFold(cv.Type.Type, "binary") && cv.Type.Length == nil && cv.Type.Charset.Name == "" {
		return p.colOf(cv.Expr), true
	}
	return p.colOf(e), false
}

// operand turns a literal or placeholder into an Operand. The parameter
// index is filled in later (the ordinal is kept in Param until then).
func (p *planner) operand(e sqlparser.Expr) (Operand, bool) {
	switch e := e.(type) {
	case *sqlparser.Argument:
		if i := argIndex(e); i >= 0 && i < len(p.plan.Args) {
			return Operand{Param: p.plan.Args[i]}, true
		}
	case *sqlparser.Literal:
		if v, ok := literalValue(e.Type, e.Val); ok {
			return Operand{Param: -1, Literal: &v}, true
		}
	case *sqlparser.IntroducerExpr:
		// _binary'5', _utf8mb4'x' (go-sql-driver interpolates []byte as
		// _binary'...'): the string.
		if l, ok := e.Expr.(*sqlparser.Literal); ok && l.Type == sqlparser.StrVal {
			v := runtime.String(l.Val)
			return Operand{Param: -1, Literal: &v}, true
		}
	case *sqlparser.UnaryExpr:
		if l, ok := e.Expr.(*sqlparser.Literal); ok && e.Operator == sqlparser.UMinusOp && (l.Type == sqlparser.IntVal || l.Type == sqlparser.DecimalVal || l.Type == sqlparser.FloatVal) {
			if v, ok := literalValue(l.Type, "-"+l.Val); ok {
				return Operand{Param: -1, Literal: &v}, true
			}
		}
	case *sqlparser.NullVal:
		v := runtime.Null
		return Operand{Param: -1, Literal: &v}, true
	}
	return Operand{}, false
}

// literalValue gives a SQL literal the Java type ShardingSphere gives it:
// integers Integer/Long/BigInteger by size, decimals BigDecimal (a double
// such as 1e0 keeps its exponent, which marks it as a double), strings
// String (../shared/spec §3.2); X'35' is the string of its bytes, 0x05 and
// b'101' KindHexNumber. Values are converted for their column's comparison
// later (runtime.ColumnClass).
func literalValue(t sqlparser.ValType, val string) (runtime.Value, bool) {
	switch t {
	case sqlparser.IntVal:
		return runtime.IntegerLiteral(val), true
	case sqlparser.DecimalVal, sqlparser.FloatVal:
		return runtime.Decimal(val), true
	case sqlparser.StrVal:
		return runtime.String(val), true
	case sqlparser.HexVal:
		if b, err := hex.DecodeString(val); err == nil {
			return runtime.String(string(b)), true
		}
	case sqlparser.HexNum:
		digits := strings.TrimPrefix(strings.ToLower(val), "0x")
		if len(digits)%2 == 1 {
			digits = "0" + digits
		}
		if b, err := hex.DecodeString(digits); err == nil {
			return runtime.Value{Kind: runtime.KindHexNumber, Str: string(b)}, true
		}
	case sqlparser.BitNum:
		if n, ok := new(big.Int).SetString(strings.TrimPrefix(val, "0b"), 2); ok {
			return runtime.Value{Kind: runtime.KindHexNumber, Str: string(n.Bytes())}, true
		}
	}
	return runtime.Value{}, false
}

// sameColumn reports whether c is column name of table t (case-insensitive).
func sameColumn(c *colRef, t *tableInfo, name string) bool {
	return c.ref.info == t && strings.EqualFold(c.col.Name, name)
}
