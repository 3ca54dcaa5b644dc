package plan

import (
	"errors"
	"regexp"

	"vitess.io/vitess/go/vt/sqlparser"
)

// derivedFromRE finds a derived table in FROM: the statements
// mergeDerived may merge.
var derivedFromRE = regexp.MustCompile(`(?i)\bfrom\s*\(\s*select\b`)

// A SELECT whose only FROM item is a derived table that merely picks
// columns of its own FROM and filters its rows,
//
//	SELECT * FROM (SELECT id, content FROM t_user WHERE id = ? AND content IN (SELECT …)) AS temp
//
// returns what the SELECT with the derived table merged into it returns:
// its FROM, its WHERE ANDed with the outer one, the outer column
// references replaced by the derived table's columns. MySQL merges such a
// derived table the same way (the optimizer's derived_merge). When a
// statement does not plan as written (a derived table over several data
// nodes must run whole on one), the planner plans the merged form instead
// (mergeDerived), which routes, merges and evaluates across data nodes as
// any SELECT of those tables does.
//
// Only what is exactly equivalent is merged; anything else keeps the
// statement as written (and its error):
//   - the derived SELECT has no DISTINCT, GROUP BY, HAVING, ORDER BY,
//     LIMIT, window, WITH, INTO, locking or SQL_CALC_FOUND_ROWS, and its
//     select list is `*` over one table or column references (aliased or
//     not), qualified or of a single-table FROM, with distinct names;
//   - the derived table has no column list, the outer FROM is that one
//     table, and the outer statement has no subquery or WITH;
//   - every outer column reference names a column of the derived table,
//     or, unqualified in ORDER BY, a select alias of the outer statement;
//     a name that is both is not merged unless the alias is that column;
//   - an outer select expression that is not a column reference and
//     refers to the derived table has an alias (the result column's name
//     is the text as written).
//
// Parameters keep their order: the derived table's `?` come before the
// outer WHERE's, and so does its WHERE in the merged one.

// mergeDerived merges the derived table of sel as the comment above says
// and reports whether it did; sel is changed only when it did. A derived
// table inside the derived table is merged first.
func mergeDerived(sel *sqlparser.Select) bool {
	if sel.With != nil || len(sel.From) != 1 || sel.SelectExprs == nil {
		return false
	}
	ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !ok || len(ate.Columns) > 0 || len(ate.Hints) > 0 || len(ate.Partitions) > 0 || ate.As.IsEmpty() {
		return false
	}
	dt, ok := ate.Expr.(*sqlparser.DerivedTable)
	if !ok || dt.Lateral {
		return false
	}
	inner, ok := dt.Select.(*sqlparser.Select)
	if !ok || inner.Distinct || inner.GroupBy != nil || inner.Having != nil || len(inner.OrderBy) > 0 ||
		inner.Limit != nil || len(inner.Windows) > 0 || inner.With != nil || inner.Into != nil ||
		inner.Lock != sqlparser.NoLock || inner.SQLCalcFoundRows || inner.SelectExprs == nil || len(inner.From) == 0 {
		return false
	}
	if len(inner.From) == 1 {
		if iat, ok := inner.From[0].(*sqlparser.AliasedTableExpr); ok {
			if _, nested := iat.Expr.(*sqlparser.DerivedTable); nested {
				inner = sqlparser.Clone(inner)
				if !mergeDerived(inner) {
					return false
				}
			}
		}
	}
	d, ok := derivedColumnsOf(inner)
	if !ok || outerSubquery(sel) {
		return false
	}
	alias := ate.As.String()
	outerAliases := map[string]sqlparser.Expr{}
	for _, se := range sel.SelectExprs.Exprs {
		if ae, ok := se.(*sqlparser.AliasedExpr); ok && !ae.As.IsEmpty() {
			outerAliases[ae.As.Lowered()] = ae.Expr
		}
	}
	// A column reference of the outer statement, replaced; ok false: not
	// mergeable. inOrderBy: an unqualified name may be a select alias.
	replace := func(c *sqlparser.ColName, inOrderBy bool) (sqlparser.Expr, bool) {
		if !c.Qualifier.IsEmpty() {
			if !c.Qualifier.Qualifier.IsEmpty() || !(c.Qualifier.Name.String() == alias) {
				return nil, false
			}
			return d.column(c.Name)
		}
		name := c.Name.Lowered()
		target, isAlias := outerAliases[name]
		repl, isCol := d.column(c.Name)
		switch {
		case isAlias && isCol:
			if tc, ok := target.(*sqlparser.ColName); !ok || !tc.Name.Equal(c.Name) ||
				!(tc.Qualifier.IsEmpty() || tc.Qualifier.Name.String() == alias) {
				return nil, false // the alias is another expression
			}
			return repl, true
		case isCol:
			return repl, true
		case isAlias && inOrderBy:
			return c, true // the select alias, resolved first in ORDER BY
		}
		return nil, false
	}
	merged := true
	rewrite := func(e sqlparser.Expr, inOrderBy bool) sqlparser.Expr {
		return sqlparser.Rewrite(sqlparser.Clone(e), func(cur *sqlparser.Cursor) bool {
			if c, ok := cur.Node().(*sqlparser.ColName); ok {
				r, ok := replace(c, inOrderBy)
				if !ok {
					merged = false
					return false
				}
				cur.Replace(sqlparser.Clone(r))
				return false
			}
			return true
		}, nil).(sqlparser.Expr)
	}

	var exprs []sqlparser.SelectExpr
	for _, se := range sel.SelectExprs.Exprs {
		switch se := se.(type) {
		case *sqlparser.StarExpr:
			if !se.TableName.IsEmpty() && (!se.TableName.Qualifier.IsEmpty() || !(se.TableName.Name.String() == alias)) {
				return false
			}
			exprs = append(exprs, d.star()...)
		case *sqlparser.AliasedExpr:
			out := &sqlparser.AliasedExpr{Expr: rewrite(se.Expr, false), As: se.As}
			if c, ok := se.Expr.(*sqlparser.ColName); ok && se.As.IsEmpty() {
				if rc, ok := out.Expr.(*sqlparser.ColName); !ok || rc.Name.String() != c.Name.String() {
					out.As = sqlparser.NewIdentifierCI(c.Name.String()) // the name as the outer statement writes it
				}
			} else if se.As.IsEmpty() && !sqlparser.Equals.Expr(out.Expr, se.Expr) {
				return false // its name is its text, which the merge would change
			}
			exprs = append(exprs, out)
		default:
			return false
		}
	}
	out := sqlparser.Clone(sel)
	out.SelectExprs = &sqlparser.SelectExprs{Exprs: exprs}
	out.From = inner.From
	var where sqlparser.Expr
	if inner.Where != nil {
		where = inner.Where.Expr
	}
	if sel.Where != nil {
		w := rewrite(sel.Where.Expr, false)
		if where == nil {
			where = w
		} else {
			where = &sqlparser.AndExpr{Left: where, Right: w}
		}
	}
	out.Where = nil
	if where != nil {
		out.Where = sqlparser.NewWhere(sqlparser.WhereClause, where)
	}
	if sel.GroupBy != nil {
		for i, e := range sel.GroupBy.Exprs {
			out.GroupBy.Exprs[i] = rewrite(e, false)
		}
	}
	if sel.Having != nil {
		out.Having.Expr = rewrite(sel.Having.Expr, false)
	}
	for i, o := range sel.OrderBy {
		out.OrderBy[i].Expr = rewrite(o.Expr, true)
	}
	if !merged {
		return false
	}
	*sel = *out
	return true
}

// derivedColumns are the columns a derived table's SELECT exposes: by
// lowercased name, the column reference of its FROM each stands for
// (qualified); isStar when the SELECT is `*` over one table (every column of
// it, qualified by qual).
type derivedColumns struct {
	byName map[string]*sqlparser.ColName
	list   []*sqlparser.AliasedExpr // the select list, qualified, aliases kept
	isStar bool
	qual   sqlparser.TableName
}

// derivedColumnsOf reads the select list of inner, a derived table's
// SELECT; ok is false when it is not one mergeDerived merges.
func derivedColumnsOf(inner *sqlparser.Select) (derivedColumns, bool) {
	d := derivedColumns{byName: map[string]*sqlparser.ColName{}}
	if len(inner.From) == 1 {
		if t, ok := inner.From[0].(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := t.Expr.(sqlparser.TableName); ok {
				d.qual = sqlparser.TableName{Name: tn.Name, Qualifier: tn.Qualifier}
				if !t.As.IsEmpty() {
					d.qual = sqlparser.TableName{Name: t.As}
				}
			}
		}
	}
	for _, se := range inner.SelectExprs.Exprs {
		switch se := se.(type) {
		case *sqlparser.StarExpr:
			if len(inner.SelectExprs.Exprs) != 1 || d.qual.IsEmpty() ||
				!(se.TableName.IsEmpty() || se.TableName.Name.String() == d.qual.Name.String()) {
				return d, false
			}
			d.isStar = true
		case *sqlparser.AliasedExpr:
			c, ok := se.Expr.(*sqlparser.ColName)
			if !ok {
				return d, false
			}
			c = sqlparser.Clone(c)
			if c.Qualifier.IsEmpty() {
				if d.qual.IsEmpty() {
					return d, false
				}
				c.Qualifier = d.qual
			}
			name := c.Name.Lowered()
			if !se.As.IsEmpty() {
				name = se.As.Lowered()
			}
			if _, dup := d.byName[name]; dup {
				return d, false
			}
			d.byName[name] = c
			d.list = append(d.list, &sqlparser.AliasedExpr{Expr: c, As: se.As})
		default:
			return d, false
		}
	}
	return d, true
}

// column returns the column reference the derived table's column name
// stands for.
func (d derivedColumns) column(name sqlparser.IdentifierCI) (sqlparser.Expr, bool) {
	if d.isStar {
		return &sqlparser.ColName{Name: name, Qualifier: d.qual}, true
	}
	c, ok := d.byName[name.Lowered()]
	return c, ok
}

// star returns the select expressions of `*` over the derived table.
func (d derivedColumns) star() []sqlparser.SelectExpr {
	if d.isStar {
		return []sqlparser.SelectExpr{&sqlparser.StarExpr{TableName: d.qual}}
	}
	out := make([]sqlparser.SelectExpr, len(d.list))
	for i, ae := range d.list {
		out[i] = sqlparser.Clone(ae)
	}
	return out
}

// outerSubquery reports whether sel holds a subquery (or a named window)
// outside its FROM.
func outerSubquery(sel *sqlparser.Select) bool {
	if len(sel.Windows) > 0 {
		return true
	}
	found := false
	for _, n := range []sqlparser.SQLNode{sel.SelectExprs, sel.Where, sel.GroupBy, sel.Having, sel.OrderBy, sel.Limit} {
		if n == nil || found {
			continue
		}
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if _, ok := n.(*sqlparser.Subquery); ok {
				found = true
			}
			return !found, nil
		}, n)
	}
	return found
}

// errNotMerged is the error of planning a statement whose derived table
// mergeDerived does not merge with its derived table merged (Builder.build
// then returns the error of the statement as written).
var errNotMerged = errors.New("plan: the derived table is not merged")
