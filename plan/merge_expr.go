package plan

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// exprBuilder turns a HAVING condition, or a select-list or ORDER BY
// expression over aggregates (SUM(a)/COUNT(b)), into a runtime.Expr the
// merge evaluates on each merged group. Every aggregate in it becomes a
// merged column of its own (a derived AGG_DERIVED_i column with its
// aggregate spec, or the selected aggregate itself); AVG(x) becomes
// SUM(x)/COUNT(x) over derived columns, which is how MariaDB computes it,
// digits included; a sub-expression without aggregates (a GROUP BY column,
// UPPER(grp)) is computed by the nodes as a derived column.
type exprBuilder struct {
	p       *planner
	m       *mergeDraft
	cols    *[]mergeCol
	derived func(string, sqlparser.Expr, mergeKind) int
	having  bool // resolve unqualified names to select-list aliases first
	hasAgg  bool // an aggregate was added
	// roundAvg: AVG inside an expression is its value rounded to its
	// scale, as MariaDB computes it when it groups by sorting (an
	// aggregate over DISTINCT values) and then sorts the groups by another
	// ORDER BY; else AVG keeps the digits of its division (1.416666666).
	roundAvg bool
}

// refuse is the error for a part of the expression the merge cannot
// evaluate.
func (x *exprBuilder) refuse(e sqlparser.Expr, why string) error {
	where, clause := "the expression", ""
	if x.having {
		where, clause = "HAVING", "HAVING"
	}
	return x.p.errorIn(clause, e, "%s over several data nodes: %s %s; GROUP BY every sharding column (%s) so each group is on one data node, or route to one data node", where, sqlparser.String(e), why, strings.Join(shardingColumns(x.p.plan.Route), ", "))
}

// aggColumn returns the merged column holding aggregate a: a selected
// aggregate with the same expression, or a new derived one.
func (x *exprBuilder) aggColumn(a sqlparser.AggrFunc) (int, error) {
	e := a.(sqlparser.Expr)
	for _, s := range x.m.Aggregates {
		if x.p.sameExpr((*x.cols)[s.Column].expr, e) && s.Func != runtime.AggAvg && s.Func != runtime.AggAvgDistinct {
			return s.Column, nil
		}
	}
	i := x.derived("AGG_DERIVED", e, x.p.exprKind(e))
	agg, err := x.p.aggregate(a, i, x.derived)
	if err != nil {
		return 0, err
	}
	x.m.Aggregates = append(x.m.Aggregates, agg)
	x.hasAgg = true
	return i, nil
}

// build converts e.
func (x *exprBuilder) build(e sqlparser.Expr) (runtime.Expr, error) {
	col := func(i int) runtime.Expr { return runtime.Expr{Op: runtime.ExprColumn, Column: i} }
	op := func(o runtime.ExprOp, args ...sqlparser.Expr) (runtime.Expr, error) {
		out := runtime.Expr{Op: o}
		for _, a := range args {
			r, err := x.build(a)
			if err != nil {
				return out, err
			}
			out.Args = append(out.Args, r)
		}
		return out, nil
	}
	if c, ok := e.(*sqlparser.ColName); ok && x.having && c.Qualifier.IsEmpty() {
		for i, col := range (*x.cols)[:x.m.Visible] {
			if col.alias != "" && strings.EqualFold(col.alias, c.Name.String()) {
				return runtime.Expr{Op: runtime.ExprColumn, Column: i}, nil
			}
		}
	}
	switch e := e.(type) {
	case *sqlparser.Avg:
		if e.Distinct {
			return runtime.Expr{}, x.refuse(e, "(AVG(DISTINCT) inside an expression) cannot be merged exactly")
		}
		s, err := x.aggColumn(&sqlparser.Sum{Arg: e.Arg})
		if err != nil {
			return runtime.Expr{}, err
		}
		n, err := x.aggColumn(&sqlparser.Count{Args: []sqlparser.Expr{e.Arg}})
		if err != nil {
			return runtime.Expr{}, err
		}
		avg := runtime.Expr{Op: runtime.ExprDiv, Args: []runtime.Expr{col(s), col(n)}}
		if x.roundAvg {
			// MariaDB stores the groups' results in a temporary table
			// before it sorts them: AVG arrives rounded to its scale.
			k := x.p.exprKind(e)
			avg = runtime.Expr{Op: runtime.ExprCast, Type: runtime.ColumnDecimal, Scale: k.Scale, Args: []runtime.Expr{avg}}
			if k.Type != "decimal" {
				avg = runtime.Expr{Op: runtime.ExprDiv, Args: []runtime.Expr{col(s), col(n)}}
			}
		}
		return avg, nil
	case sqlparser.AggrFunc:
		i, err := x.aggColumn(e)
		return col(i), err
	case *sqlparser.Literal:
		switch e.Type {
		case sqlparser.IntVal:
			if _, err := strconv.ParseInt(e.Val, 10, 64); err == nil {
				return runtime.Expr{Op: runtime.ExprLiteral, Type: runtime.ColumnInt, Value: e.Val}, nil
			}
			return runtime.Expr{Op: runtime.ExprLiteral, Type: runtime.ColumnDecimal, Value: e.Val}, nil
		case sqlparser.DecimalVal:
			v := e.Val
			if strings.HasPrefix(v, ".") {
				v = "0" + v
			}
			return runtime.Expr{Op: runtime.ExprLiteral, Type: runtime.ColumnDecimal, Value: v}, nil
		case sqlparser.FloatVal:
			return runtime.Expr{Op: runtime.ExprLiteral, Type: runtime.ColumnFloat, Value: e.Val}, nil
		case sqlparser.StrVal:
			return runtime.Expr{Op: runtime.ExprLiteral, Type: runtime.ColumnString, Value: e.Val}, nil
		}
		return runtime.Expr{}, x.refuse(e, "(a literal of this kind)")
	case *sqlparser.NullVal:
		return runtime.Expr{Op: runtime.ExprLiteral}, nil
	case sqlparser.BoolVal:
		v := "0"
		if e {
			v = "1"
		}
		return runtime.Expr{Op: runtime.ExprLiteral, Type: runtime.ColumnInt, Value: v}, nil
	case *sqlparser.Argument:
		o, ok := x.p.operand(e)
		if !ok || o.Param < 0 {
			return runtime.Expr{}, x.refuse(e, "(an unknown parameter)")
		}
		return runtime.Expr{Op: runtime.ExprParam, Param: o.Param}, nil
	case *sqlparser.UnaryExpr:
		switch e.Operator {
		case sqlparser.UMinusOp:
			return op(runtime.ExprNeg, e.Expr)
		case sqlparser.UPlusOp:
			return x.build(e.Expr)
		}
	case *sqlparser.BinaryExpr:
		ops := map[sqlparser.BinaryExprOperator]runtime.ExprOp{
			sqlparser.PlusOp: runtime.ExprAdd, sqlparser.MinusOp: runtime.ExprSub, sqlparser.MultOp: runtime.ExprMul,
			sqlparser.DivOp: runtime.ExprDiv, sqlparser.IntDivOp: runtime.ExprIntDiv, sqlparser.ModOp: runtime.ExprMod,
		}
		if o, ok := ops[e.Operator]; ok && containsAggregate(e) {
			if k := x.p.exprKind(e); k.Type == "" || k.Type == "uint" {
				return runtime.Expr{}, x.refuse(e, "(arithmetic whose MySQL type shardgen cannot tell, e.g. on unsigned or BIT_* values)")
			}
			return op(o, e.Left, e.Right)
		}
	case *sqlparser.ComparisonExpr:
		if !containsAggregate(e) && !x.having {
			break
		}
		ops := map[sqlparser.ComparisonExprOperator]runtime.ExprOp{
			sqlparser.EqualOp: runtime.ExprEQ, sqlparser.NotEqualOp: runtime.ExprNE, sqlparser.LessThanOp: runtime.ExprLT,
			sqlparser.LessEqualOp: runtime.ExprLE, sqlparser.GreaterThanOp: runtime.ExprGT, sqlparser.GreaterEqualOp: runtime.ExprGE,
			sqlparser.NullSafeEqualOp: runtime.ExprNullSafeEQ,
		}
		if o, ok := ops[e.Operator]; ok {
			if coll, ok := x.weighCollation(e.Left, e.Right); ok {
				return x.weighed(e, o, coll, e.Left, e.Right)
			}
		} else if t, ok := e.Right.(sqlparser.ValTuple); ok && (e.Operator == sqlparser.InOp || e.Operator == sqlparser.NotInOp) {
			list := append([]sqlparser.Expr{e.Left}, t...)
			if coll, ok := x.weighCollation(list...); ok {
				r, err := x.weighed(e, runtime.ExprIn, coll, list...)
				if err != nil || e.Operator == sqlparser.InOp {
					return r, err
				}
				return runtime.Expr{Op: runtime.ExprNot, Args: []runtime.Expr{r}}, nil
			}
		}
		coll, err := x.collation(e, e.Left, e.Right)
		if err != nil {
			return runtime.Expr{}, err
		}
		if o, ok := ops[e.Operator]; ok {
			r, err := op(o, e.Left, e.Right)
			r.Collation = coll
			return r, err
		}
		if t, ok := e.Right.(sqlparser.ValTuple); ok && (e.Operator == sqlparser.InOp || e.Operator == sqlparser.NotInOp) {
			r, err := op(runtime.ExprIn, append([]sqlparser.Expr{e.Left}, t...)...)
			r.Collation = coll
			if err != nil || e.Operator == sqlparser.InOp {
				return r, err
			}
			return runtime.Expr{Op: runtime.ExprNot, Args: []runtime.Expr{r}}, nil
		}
		return runtime.Expr{}, x.refuse(e, "(the operator "+e.Operator.ToString()+")")
	case *sqlparser.AndExpr:
		return op(runtime.ExprAnd, e.Left, e.Right)
	case *sqlparser.OrExpr:
		return op(runtime.ExprOr, e.Left, e.Right)
	case *sqlparser.XorExpr:
		return op(runtime.ExprXor, e.Left, e.Right)
	case *sqlparser.NotExpr:
		return op(runtime.ExprNot, e.Expr)
	case *sqlparser.IsExpr:
		switch e.Right {
		case sqlparser.IsNullOp:
			return op(runtime.ExprIsNull, e.Left)
		case sqlparser.IsNotNullOp:
			return op(runtime.ExprIsNotNull, e.Left)
		}
		if containsAggregate(e) {
			return runtime.Expr{}, x.refuse(e, "(IS TRUE / IS FALSE)")
		}
	case *sqlparser.BetweenExpr:
		if !containsAggregate(e) && !x.having {
			break
		}
		var lo, hi runtime.Expr
		if wc, ok := x.weighCollation(e.Left, e.From, e.To); ok {
			var err error
			if lo, err = x.weighed(e, runtime.ExprGE, wc, e.Left, e.From); err != nil {
				return lo, err
			}
			if hi, err = x.weighed(e, runtime.ExprLE, wc, e.Left, e.To); err != nil {
				return hi, err
			}
		} else {
			coll, err := x.collation(e, e.Left, e.From, e.To)
			if err != nil {
				return runtime.Expr{}, err
			}
			if lo, err = op(runtime.ExprGE, e.Left, e.From); err != nil {
				return lo, err
			}
			if hi, err = op(runtime.ExprLE, e.Left, e.To); err != nil {
				return hi, err
			}
			lo.Collation, hi.Collation = coll, coll
		}
		r := runtime.Expr{Op: runtime.ExprAnd, Args: []runtime.Expr{lo, hi}}
		if !e.IsBetween {
			r = runtime.Expr{Op: runtime.ExprNot, Args: []runtime.Expr{r}}
		}
		return r, nil
	case *sqlparser.CastExpr:
		if !containsAggregate(e) {
			break
		}
		t := strings.ToLower(e.Type.Type)
		switch {
		case t == "signed" || t == "signed integer" || t == "integer":
			return x.cast(e, runtime.ColumnInt, 0)
		case t == "decimal":
			s := 0
			if e.Type.Scale != nil {
				s = *e.Type.Scale
			}
			return x.cast(e, runtime.ColumnDecimal, s)
		case t == "double" || t == "real":
			return x.cast(e, runtime.ColumnFloat, 0)
		}
		return runtime.Expr{}, x.refuse(e, "(CAST to "+e.Type.Type+")")
	case *sqlparser.FuncExpr:
		if !containsAggregate(e) {
			break
		}
		switch e.Name.Lowered() {
		case "ifnull", "coalesce":
			if e.Name.Lowered() == "ifnull" && len(e.Exprs) != 2 || len(e.Exprs) == 0 {
				break
			}
			return op(runtime.ExprCoalesce, e.Exprs...)
		case "round":
			n := 0
			if len(e.Exprs) == 2 {
				l, ok := e.Exprs[1].(*sqlparser.Literal)
				if !ok || l.Type != sqlparser.IntVal {
					return runtime.Expr{}, x.refuse(e, "(ROUND with digits that are not an integer literal)")
				}
				n, _ = strconv.Atoi(l.Val)
			}
			if k := x.p.exprKind(e.Exprs[0]).Type; len(e.Exprs) > 2 || (k != "int" && k != "decimal") || n > 38 {
				break
			}
			r, err := op(runtime.ExprRound, e.Exprs[0])
			r.Scale = n
			return r, err
		}
		fn := strings.ToUpper(e.Name.String())
		switch e.Name.Lowered() {
		case "upper", "lower", "ucase", "lcase":
			// The nodes compute the function inside MIN / MAX, which the
			// merge then compares under the argument's collation.
			return runtime.Expr{}, x.refuse(e, "(the function "+fn+" over merged aggregates; write it inside MIN / MAX instead, e.g. MAX("+fn+"(x)) for "+fn+"(MAX(x)): the data nodes compute it before the merge)")
		}
		return runtime.Expr{}, x.refuse(e, "(the function "+fn+" over merged aggregates)")
	}
	if containsAggregate(e) {
		return runtime.Expr{}, x.refuse(e, "(this operation over merged aggregates)")
	}
	// No aggregate: each node computes it per row of its groups (a GROUP
	// BY column or an expression of them, the same for the whole group).
	k := x.p.exprKind(e)
	if k.Type == "" {
		return runtime.Expr{}, x.refuse(e, "(shardgen cannot tell how MySQL compares its values; CAST it or use a column)")
	}
	for i, c := range *x.cols {
		if x.p.sameExpr(c.expr, e) && c.kind.Type != "" {
			return col(i), nil
		}
	}
	return col(x.derived("EXPR_DERIVED", e, k)), nil
}

// cast converts CAST(e.Expr AS t(scale)).
func (x *exprBuilder) cast(e *sqlparser.CastExpr, t runtime.ColumnType, scale int) (runtime.Expr, error) {
	a, err := x.build(e.Expr)
	return runtime.Expr{Op: runtime.ExprCast, Type: t, Scale: scale, Args: []runtime.Expr{a}}, err
}

// collation is how a comparison of operands compares text: the collation
// of its first operand that is not a literal, which the merge must know in
// process (binary, *_bin, utf8mb4_general_ci); other collations are
// refused (the nodes would have to weigh the merged values).
func (x *exprBuilder) collation(e sqlparser.Expr, operands ...sqlparser.Expr) (runtime.Collation, error) {
	text := false
	for _, o := range operands {
		k := x.kind(o)
		if k.Type != "string" {
			continue
		}
		text = true
		if _, lit := o.(*sqlparser.Literal); lit {
			continue
		}
		c, err := runtime.ParseCollation(k.Collation)
		if err != nil {
			what := "collation " + k.Collation
			if k.Collation == "" {
				what = "the database's default collation (the DDL names none)"
			}
			return 0, x.refuse(e, "(it compares text in "+what+", which the merge cannot compare in process; name a _bin or utf8mb4_general_ci collation)")
		}
		return c, nil
	}
	if text {
		return runtime.CollationBinary, nil
	}
	return 0, nil
}

// groupConcat plans a GROUP_CONCAT whose groups span data nodes
// (runtime.GroupConcatSpec): the nodes return, grouped by the statement's
// keys, the value's bytes and the ORDER BY items, e.g. for
// GROUP_CONCAT(name ORDER BY k DESC SEPARATOR '-')
//
//	CONCAT(name) AS GROUP_CONCAT_DERIVED_VALUE_0, count(*) AS ..._COUNT_0,
//	LENGTH(CONCAT(name)), CHAR_LENGTH(CONCAT(name)),
//	LENGTH(CONCAT(LEFT(CONCAT(name), 0), '-')), @@group_concat_max_len, k
//	... GROUP BY <keys>, CAST(CONCAT(name) AS BINARY), k
//
// and the merge sorts, joins and cuts them.
func (p *planner) groupConcat(a *sqlparser.GroupConcatExpr, agg runtime.AggregateSpec, derived func(string, sqlparser.Expr, mergeKind) int) (runtime.AggregateSpec, error) {
	refuse := func(why string) (runtime.AggregateSpec, error) {
		return agg, p.errorOn(a, "GROUP_CONCAT over several data nodes: %s; GROUP BY every sharding column (%s) so each group is on one data node, or route to one data node", why, strings.Join(shardingColumns(p.plan.Route), ", "))
	}
	if a.Limit != nil {
		return refuse("its LIMIT is not supported")
	}
	if a.Distinct && len(a.Exprs) > 1 {
		return refuse("DISTINCT over several arguments is not supported")
	}
	sep := ","
	sepLit := sqlparser.Expr(sqlparser.NewStrLiteral(","))
	if a.Separator != "" {
		st, err := p.b.parser.Parse("SELECT " + a.Separator)
		if err != nil {
			return refuse("its SEPARATOR " + a.Separator + " does not parse")
		}
		lit, ok := st.(*sqlparser.Select).SelectExprs.Exprs[0].(*sqlparser.AliasedExpr).Expr.(*sqlparser.Literal)
		if !ok || lit.Type != sqlparser.StrVal {
			return refuse("its SEPARATOR is not a string")
		}
		sep, sepLit = lit.Val, lit
	}
	if strings.IndexFunc(sep, func(r rune) bool { return r > 0x7f }) >= 0 {
		// MySQL converts the separator to the value's character set,
		// each character it cannot hold becoming '?'. The value is
		// utf8mb4 when one argument is (it holds the separator whole),
		// latin1 when every text argument is latin1 (a literal or a
		// number takes the others' character set): the merge joins with
		// the separator as latin1 holds it, as the client receives it.
		utf8, latin1 := false, false
		for _, e := range a.Exprs {
			if _, lit := e.(*sqlparser.Literal); lit {
				continue
			}
			k := p.exprKind(e)
			if k.Type != "string" {
				continue
			}
			switch cs := strings.ToLower(k.Collation); {
			case strings.HasPrefix(cs, "utf8mb4"):
				utf8 = true
			case strings.HasPrefix(cs, "latin1_"):
				latin1 = true
			default:
				return refuse("its SEPARATOR " + a.Separator + " is not ASCII and " + sqlparser.String(e) + " is not known to be utf8mb4 or latin1 text (MySQL writes the characters of the separator its character set lacks as '?')")
			}
		}
		if latin1 && !utf8 {
			sep = latin1Lossy(sep)
			sepLit = sqlparser.NewStrLiteral(sep)
		}
	}
	value := func() sqlparser.Expr {
		args := make([]sqlparser.Expr, len(a.Exprs))
		for i, e := range a.Exprs {
			args[i] = sqlparser.Clone(e)
		}
		return &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("CONCAT"), Exprs: args}
	}
	fn := func(name string, args ...sqlparser.Expr) sqlparser.Expr {
		return &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI(name), Exprs: args}
	}
	intKind := mergeKind{Type: "int"}
	valueKind := mergeKind{Type: "bytes"}
	agg.Func = runtime.AggGroupConcat
	if a.Distinct {
		agg.Func = runtime.AggGroupConcatDistinct
		switch valueKind = p.exprKind(a.Exprs[0]); valueKind.Type {
		case "string", "bytes", "int", "decimal":
		default:
			return refuse("DISTINCT of " + sqlparser.String(a.Exprs[0]) + " is not supported (compare a column or CAST it AS CHAR)")
		}
	}
	gc := &runtime.GroupConcatSpec{Separator: sep}
	gc.ValueColumn = derived("GROUP_CONCAT_DERIVED_VALUE", value(), valueKind)
	agg.CountColumn = derived("GROUP_CONCAT_DERIVED_COUNT", &sqlparser.CountStar{}, intKind)
	gc.LengthColumn = derived("GROUP_CONCAT_DERIVED_LENGTH", fn("LENGTH", value()), intKind)
	gc.CharLengthColumn = derived("GROUP_CONCAT_DERIVED_CHARS", fn("CHAR_LENGTH", value()), intKind)
	gc.SeparatorLengthColumn = derived("GROUP_CONCAT_DERIVED_SEPARATOR", fn("LENGTH", fn("CONCAT", fn("LEFT", value(), sqlparser.NewIntLiteral("0")), sepLit)), intKind)
	gc.MaxLengthColumn = derived("GROUP_CONCAT_DERIVED_MAX", &sqlparser.Variable{Scope: sqlparser.SessionScope, Name: sqlparser.NewIdentifierCI("group_concat_max_len")}, intKind)
	p.concatGroup = append(p.concatGroup, &sqlparser.CastExpr{Expr: value(), Type: &sqlparser.ConvertType{Type: "binary"}})
	for _, o := range a.OrderBy {
		if l, ok := o.Expr.(*sqlparser.Literal); ok && l.Type == sqlparser.IntVal {
			return refuse("ORDER BY a position is not supported")
		}
		k := p.exprKind(o.Expr)
		if k.Type == "" {
			return refuse("its ORDER BY " + sqlparser.String(o.Expr) + ": shardgen cannot tell how MySQL compares its values; CAST it or use a column")
		}
		i := derived("GROUP_CONCAT_DERIVED_ORDER", o.Expr, k)
		gc.OrderBy = append(gc.OrderBy, runtime.SortKey{Column: i, Desc: o.Direction == sqlparser.DescOrder})
		p.concatGroup = append(p.concatGroup, sqlparser.Clone(o.Expr))
	}
	agg.GroupConcat = gc
	return agg, nil
}
