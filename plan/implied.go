package plan

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// impliedConditions gives every derived table's level the sharding
// conditions its enclosing level implies on the derived table's rows, so
// that a derived table without a WHERE of its own routes where the rows
// the statement can use live. TPC-C's consistency checks read this way:
//
//	SELECT COUNT(*) FROM (SELECT d_id, d_w_id, SUM(d_ytd) s1 FROM district
//	    GROUP BY d_id, d_w_id) d, (…) h WHERE … AND d_w_id = ? AND s1 <> s2
//
// Only rows of d with d_w_id = ? can reach the result, and each of them is
// computed from the district rows of that one warehouse, which live on the
// data node of d_w_id = ?: the derived table's level routes as if it had
// `district.d_w_id = ?` (the SQL sent is not changed; the outer WHERE still
// filters). A condition `d.c = v` of the enclosing level passes into the
// derived table when column c is a column of a table of its SELECT
// (pass-through: no expression) and every row of the derived table with
// c = v comes from rows with c = v: its SELECT is not a UNION and has no
// LIMIT and no window function, and when it aggregates it groups by c.
//
// The values come from the level's WHERE and inner-join ON conditions (`=`
// with a literal or a parameter, carried along `=` between columns, as in
// `ON o.no_w_id = c.c_w_id … WHERE c_w_id = ?`), and from the ON of an
// outer join for the tables of its inner side only (a row of the preserved
// side appears whatever its ON says). Nested derived tables pass them on.
// The conditions only narrow the route (scope.condition); nothing else
// reads them.
func (p *planner) impliedConditions() {
	for _, sc := range p.scopes {
		sc.implied = nil
	}
	done := map[*scope]bool{}
	var imply func(sc *scope)
	imply = func(sc *scope) {
		if done[sc] {
			return
		}
		done[sc] = true
		values := p.levelValues(sc)
		for _, r := range sc.refs {
			d := r.info.derived
			if d == nil || d.scope == nil {
				continue
			}
			for _, c := range r.info.ddl.Columns {
				v := values[colKey{r, strings.ToLower(c.Name)}]
				if v == nil {
					continue
				}
				inner := p.passThrough(d, c.Name)
				if inner == nil {
					continue
				}
				cn := &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(inner.col.Name)}
				p.cols[cn] = inner
				d.scope.implied = append(d.scope.implied, &sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp, Left: cn, Right: v})
			}
			imply(d.scope)
		}
	}
	// Outer levels first: a derived table's level learns its values from
	// the level that names it.
	for _, sc := range p.scopes {
		if sc.kind != scopeDerived {
			imply(sc)
		}
	}
}

// colKey names a column of a table reference (lower-case column name).
type colKey struct {
	ref *tableRef
	col string
}

// levelValues returns the value (a literal or a parameter) that the
// conditions of level sc fix for columns of its own tables, by column.
func (p *planner) levelValues(sc *scope) map[colKey]sqlparser.Expr {
	parent := map[colKey]colKey{}
	var find func(colKey) colKey
	find = func(k colKey) colKey {
		q, ok := parent[k]
		if !ok || q == k {
			return k
		}
		root := find(q)
		parent[k] = root
		return root
	}
	value := map[colKey]sqlparser.Expr{}
	seen := map[colKey]bool{}
	own := func(e sqlparser.Expr) (colKey, bool) {
		c := p.colOf(e)
		if c == nil || c.ref.scope != sc {
			return colKey{}, false
		}
		k := colKey{c.ref, strings.ToLower(c.col.Name)}
		seen[k] = true
		return k, true
	}
	constant := func(e sqlparser.Expr) sqlparser.Expr {
		o, ok := p.operand(e)
		if !ok || o.Literal != nil && o.Literal.IsNull() {
			return nil
		}
		return e
	}
	var conds []sqlparser.Expr
	conds = append(conds, conjuncts(sc.where)...)
	for _, on := range sc.routeOns {
		conds = append(conds, conjuncts(on)...)
	}
	for _, e := range sc.implied {
		conds = append(conds, conjuncts(e)...)
	}
	for _, e := range conds {
		cmp, ok := e.(*sqlparser.ComparisonExpr)
		if !ok || cmp.Operator != sqlparser.EqualOp {
			continue
		}
		l, lok := own(cmp.Left)
		r, rok := own(cmp.Right)
		switch {
		case lok && rok:
			a, b := find(l), find(r)
			if a != b {
				parent[b] = a
				if value[a] == nil {
					value[a] = value[b]
				}
			}
		case lok:
			if v := constant(cmp.Right); v != nil && value[find(l)] == nil {
				value[find(l)] = v
			}
		case rok:
			if v := constant(cmp.Left); v != nil && value[find(r)] == nil {
				value[find(r)] = v
			}
		}
	}
	out := map[colKey]sqlparser.Expr{}
	for k := range seen {
		if v := value[find(k)]; v != nil {
			out[k] = v
		}
	}
	// An outer join's ON fixes the columns of its inner side only.
	for _, oo := range sc.outerOns {
		inner := map[*tableRef]bool{}
		for _, r := range oo.inner {
			inner[r] = true
		}
		for _, e := range conjuncts(oo.on) {
			cmp, ok := e.(*sqlparser.ComparisonExpr)
			if !ok || cmp.Operator != sqlparser.EqualOp {
				continue
			}
			for _, side := range [2][2]sqlparser.Expr{{cmp.Left, cmp.Right}, {cmp.Right, cmp.Left}} {
				k, ok := own(side[0])
				if !ok || !inner[k.ref] || out[k] != nil {
					continue
				}
				if v := constant(side[1]); v != nil {
					out[k] = v
				} else if o, ok := own(side[1]); ok && out[o] != nil {
					out[k] = out[o]
				}
			}
		}
	}
	return out
}

// passThrough returns the column of a table of derived table d's SELECT
// that d's column name is, when every row of d with a value v in that
// column comes from rows with v in it (see impliedConditions); else nil.
func (p *planner) passThrough(d *derivedTable, name string) *colRef {
	sel := d.sel
	if d.union || sel == nil || sel.Limit != nil || hasWindow(sel) {
		return nil
	}
	key := strings.ToLower(name)
	var inner *colRef
	if b := d.base[key]; b != nil {
		inner = b
	} else if cn, ok := d.exprs[key].(*sqlparser.ColName); ok {
		inner = p.cols[cn]
	}
	if inner == nil || inner.ref.scope != d.scope {
		return nil
	}
	if sel.GroupBy == nil && !containsAggregate(sel.SelectExprs) && sel.Having == nil {
		return inner
	}
	if sel.GroupBy == nil {
		return nil // one group of every row
	}
	for _, g := range sel.GroupBy.Exprs {
		switch g := g.(type) {
		case *sqlparser.ColName:
			if c := p.cols[g]; c != nil && c.ref == inner.ref && strings.EqualFold(c.col.Name, inner.col.Name) {
				return inner
			}
			if c := p.cols[g]; c == nil && g.Qualifier.IsEmpty() && strings.EqualFold(g.Name.String(), name) {
				return inner // GROUP BY the select-list alias
			}
		case *sqlparser.Literal:
			// GROUP BY 2: the second select expression.
			if n, err := strconv.Atoi(g.Val); err == nil && g.Type == sqlparser.IntVal && n >= 1 && n <= len(sel.SelectExprs.Exprs) {
				if ae, ok := sel.SelectExprs.Exprs[n-1].(*sqlparser.AliasedExpr); ok {
					if cn, ok := ae.Expr.(*sqlparser.ColName); ok {
						if c := p.cols[cn]; c != nil && c.ref == inner.ref && strings.EqualFold(c.col.Name, inner.col.Name) {
							return inner
						}
					}
				}
			}
		}
	}
	return nil
}
