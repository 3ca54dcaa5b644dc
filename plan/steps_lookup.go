package plan

import (
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// lookupSpec is a correlated scalar subquery decorrelated into a lookup
// (SubqueryLookup): a subquery of one aggregate whose WHERE correlates
// with the outer query only by `inner = outer` equalities,
//
//	(SELECT SUM(h_amount) FROM history WHERE h_c_w_id = ? AND h_c_d_id = c.c_d_id AND h_c_id = c.c_id)
//
// runs first as one statement grouped by the inner columns (go-tpc's check
// 3.3.2.10, whose history rows of a customer are on every data node):
//
//	SELECT h_c_d_id, h_c_id, SUM(h_amount) FROM history WHERE h_c_w_id = ? GROUP BY h_c_d_id, h_c_id
//
// and its rows are bound in the subquery's place as a derived table of
// literal rows the outer values are looked up in (Steps.Bind):
//
//	(SELECT shardgen_lookup.v FROM (SELECT 1 AS k1, 3 AS k2, 10.00 AS v UNION ALL …) AS shardgen_lookup
//	 WHERE shardgen_lookup.k1 = c.c_d_id AND shardgen_lookup.k2 = c.c_id)
//
// which is exact: a group holds the rows whose inner columns equal the
// outer values (the keys are not text, so equality is the grouping's), an
// outer row without a group gets NULL as the subquery over no rows does
// (COUNT: 0), and a NULL key matches nothing on either side.
type lookupSpec struct {
	// outer are the outer query's expressions, one per key, in order.
	outer []sqlparser.Expr
	// count is set for COUNT: no group means 0, not NULL.
	count bool
}

// lookupAlias names the derived table of a bound lookup.
const lookupAlias = "shardgen_lookup"

// decorrelate returns the lookup step of a correlated scalar subquery, or
// the reason it cannot be one.
func (b *Builder) decorrelate(sq *sqlparser.Subquery) (*Subquery, string) {
	sel, ok := sq.Select.(*sqlparser.Select)
	switch {
	case !ok:
		return nil, "it is a UNION"
	case sel.GroupBy != nil || sel.Having != nil || sel.Limit != nil || sel.Distinct || len(sel.OrderBy) > 0 || sel.With != nil || sel.Lock != sqlparser.NoLock || hasWindow(sel):
		return nil, "it has GROUP BY, HAVING, DISTINCT, ORDER BY, LIMIT or a window"
	case sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) != 1:
		return nil, "it does not select one aggregate"
	}
	ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, "it does not select one aggregate"
	}
	count := false
	switch ae.Expr.(type) {
	case *sqlparser.Sum, *sqlparser.Min, *sqlparser.Max, *sqlparser.Avg:
	case *sqlparser.Count, *sqlparser.CountStar:
		count = true
	default:
		return nil, "it does not select one SUM, COUNT, MIN, MAX or AVG"
	}
	// The subquery's own tables, by alias (or name).
	inner := map[string]*tableInfo{}
	tables := b.tables()
	var from func(sqlparser.TableExpr) bool
	from = func(e sqlparser.TableExpr) bool {
		switch t := e.(type) {
		case *sqlparser.AliasedTableExpr:
			tn, ok := t.Expr.(sqlparser.TableName)
			info := tables[strings.ToLower(tn.Name.String())]
			if !ok || info == nil {
				return false
			}
			name := t.As.String()
			if name == "" {
				name = tn.Name.String()
			}
			inner[strings.ToLower(name)] = info
			return true
		case *sqlparser.JoinTableExpr:
			return from(t.LeftExpr) && from(t.RightExpr)
		case *sqlparser.ParenTableExpr:
			for _, x := range t.Exprs {
				if !from(x) {
					return false
				}
			}
			return true
		}
		return false
	}
	for _, e := range sel.From {
		if !from(e) {
			return nil, "it reads something other than logic tables"
		}
	}
	// innerCol returns the column a name of the subquery names among its
	// own tables (nil: the outer query's).
	innerCol := func(c *sqlparser.ColName) *tableInfo {
		if q := c.Qualifier.Name.String(); q != "" {
			return inner[strings.ToLower(q)]
		}
		for _, info := range inner {
			if info.ddl.Column(c.Name.String()) != nil {
				return info
			}
		}
		return nil
	}
	outerIn := func(n sqlparser.SQLNode) (found bool) {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch x := n.(type) {
			case *sqlparser.Subquery:
				found = true
			case *sqlparser.ColName:
				if innerCol(x) == nil {
					found = true
				}
			}
			return !found, nil
		}, n)
		return found
	}
	if outerIn(sel.SelectExprs) || outerIn(sqlparser.TableExprs(sel.From)) {
		return nil, "its select list or FROM refers to the outer query"
	}
	var keys, outer []sqlparser.Expr
	var rest []sqlparser.Expr
	if sel.Where != nil {
		for _, conj := range conjuncts(sel.Where.Expr) {
			if cmp, ok := conj.(*sqlparser.ComparisonExpr); ok && cmp.Operator == sqlparser.EqualOp {
				l, lok := cmp.Left.(*sqlparser.ColName)
				r, rok := cmp.Right.(*sqlparser.ColName)
				if lok && rok && (innerCol(l) == nil) != (innerCol(r) == nil) {
					in, out := l, r
					if innerCol(l) == nil {
						in, out = r, l
					}
					col := innerCol(in).ddl.Column(in.Name.String())
					if col == nil || isTextType(col.Type) {
						return nil, fmt.Sprintf("it correlates on text column %s, whose comparison with the outer column depends on both collations", sqlparser.String(in))
					}
					keys, outer = append(keys, in), append(outer, out)
					continue
				}
			}
			if outerIn(conj) {
				return nil, fmt.Sprintf("its condition %s refers to the outer query other than as inner = outer", sqlparser.String(conj))
			}
			rest = append(rest, conj)
		}
	}
	if len(keys) == 0 {
		return nil, "it correlates by no inner = outer equality"
	}
	// SELECT k1 AS k1, …, agg AS v FROM … WHERE rest GROUP BY k1, …
	step := sqlparser.Clone(sel)
	exprs := make([]sqlparser.SelectExpr, 0, len(keys)+1)
	group := make([]sqlparser.Expr, 0, len(keys))
	for i, k := range keys {
		exprs = append(exprs, &sqlparser.AliasedExpr{Expr: k, As: sqlparser.NewIdentifierCI("k" + strconv.Itoa(i+1))})
		group = append(group, k)
	}
	exprs = append(exprs, &sqlparser.AliasedExpr{Expr: ae.Expr, As: sqlparser.NewIdentifierCI("v")})
	step.SelectExprs = &sqlparser.SelectExprs{Exprs: exprs}
	step.Where = nil
	if len(rest) > 0 {
		step.Where = &sqlparser.Where{Type: sqlparser.WhereClause, Expr: sqlparser.AndExpressions(rest...)}
	}
	step.GroupBy = &sqlparser.GroupBy{Exprs: group}
	return &Subquery{Kind: SubqueryLookup, SQL: sqlparser.String(step), sel: step, lookup: &lookupSpec{outer: outer, count: count}}, ""
}

// isTextType reports whether a MySQL type name is a character type.
func isTextType(t string) bool {
	switch t {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set", "json":
		return true
	}
	return false
}

// bindLookup is the expression a lookup subquery becomes with its rows
// (each the keys and then the value): NULL (COUNT: 0) without a row, else
// the look-up of the outer values in the rows as a derived table.
func bindLookup(spec *lookupSpec, rows [][]BoundValue) sqlparser.Expr {
	if len(rows) == 0 {
		if spec.count {
			return sqlparser.NewIntLiteral("0")
		}
		return &sqlparser.NullVal{}
	}
	n := len(spec.outer)
	row := func(r []BoundValue, named bool) *sqlparser.Select {
		exprs := make([]sqlparser.SelectExpr, len(r))
		for i, v := range r {
			ae := &sqlparser.AliasedExpr{Expr: v.Expr()}
			if named {
				name := "v"
				if i < n {
					name = "k" + strconv.Itoa(i+1)
				}
				ae.As = sqlparser.NewIdentifierCI(name)
			}
			exprs[i] = ae
		}
		dual := sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: sqlparser.NewTableName("dual")}}
		return &sqlparser.Select{SelectExprs: &sqlparser.SelectExprs{Exprs: exprs}, From: dual}
	}
	var table sqlparser.TableStatement = row(rows[0], true)
	for _, r := range rows[1:] {
		table = &sqlparser.Union{Left: table, Right: row(r, false), Distinct: false}
	}
	conds := make([]sqlparser.Expr, n)
	for i, o := range spec.outer {
		conds[i] = &sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp,
			Left: sqlparser.NewColNameWithQualifier("k"+strconv.Itoa(i+1), sqlparser.NewTableName(lookupAlias)), Right: o}
	}
	look := &sqlparser.Select{
		SelectExprs: &sqlparser.SelectExprs{Exprs: []sqlparser.SelectExpr{&sqlparser.AliasedExpr{Expr: sqlparser.NewColNameWithQualifier("v", sqlparser.NewTableName(lookupAlias))}}},
		From:        sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: &sqlparser.DerivedTable{Select: table}, As: sqlparser.NewIdentifierCS(lookupAlias)}},
		Where:       &sqlparser.Where{Type: sqlparser.WhereClause, Expr: sqlparser.AndExpressions(conds...)},
	}
	var e sqlparser.Expr = &sqlparser.Subquery{Select: look}
	if spec.count {
		e = &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("ifnull"), Exprs: []sqlparser.Expr{e, sqlparser.NewIntLiteral("0")}}
	}
	return e
}

// lookupKind is the merge kind of a bound lookup (bindLookup): the common
// kind of its literal values, as MySQL types the column of the UNION ALL
// of literal rows (integers; DECIMAL when one is DECIMAL; DOUBLE when one
// is a DOUBLE; text in the connection's collation; DATE and DATETIME). ok is false when sq is
// not a bound lookup; the kind is unknown (Type "") for values of other or
// mixed kinds (dates, binary strings, text next to numbers).
func lookupKind(sq *sqlparser.Subquery) (k mergeKind, ok bool) {
	sel, isSel := sq.Select.(*sqlparser.Select)
	if !isSel || sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) != 1 || len(sel.From) != 1 {
		return mergeKind{}, false
	}
	at, isAT := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !isAT || at.As.String() != lookupAlias {
		return mergeKind{}, false
	}
	dt, isDT := at.Expr.(*sqlparser.DerivedTable)
	if !isDT {
		return mergeKind{}, false
	}
	var rows []*sqlparser.Select
	var walk func(sqlparser.TableStatement) bool
	walk = func(t sqlparser.TableStatement) bool {
		switch t := t.(type) {
		case *sqlparser.Select:
			rows = append(rows, t)
			return true
		case *sqlparser.Union:
			return walk(t.Left) && walk(t.Right)
		}
		return false
	}
	if !walk(dt.Select) {
		return mergeKind{}, false
	}
	for _, r := range rows {
		exprs := r.SelectExprs.Exprs
		ae, isAE := exprs[len(exprs)-1].(*sqlparser.AliasedExpr)
		if !isAE {
			return mergeKind{}, true
		}
		var t string
		switch v := ae.Expr.(type) {
		case *sqlparser.NullVal:
			continue
		case *sqlparser.Literal:
			switch v.Type {
			case sqlparser.IntVal:
				t = "int"
			case sqlparser.DecimalVal:
				t = "decimal"
			case sqlparser.FloatVal:
				t = "float"
			case sqlparser.StrVal:
				t = "string"
			}
		case *sqlparser.CastExpr:
			if n := strings.ToLower(v.Type.Type); n == "date" || n == "datetime" {
				t = "time"
			}
		}
		switch {
		case t == "":
			return mergeKind{}, true
		case k.Type == "", k.Type == t:
			k.Type = t
		case k.Type == "string" || t == "string" || k.Type == "time" || t == "time":
			return mergeKind{}, true
		case k.Type == "float" || t == "float":
			k.Type = "float"
		default:
			k.Type = "decimal"
		}
	}
	return k, true
}
