package plan

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// JOIN … USING (c, …), as MySQL reads it (MySQL 8.0 manual, JOIN Clause):
// the join compares a.c = b.c, and the statement's unqualified c is the
// coalesced column — the left table's (a RIGHT JOIN's: the right one's) —
// so it is not ambiguous. `SELECT *` lists the coalesced columns once, first
// (in the order of the left side; a RIGHT JOIN's: the right side), then the
// other columns of the left side, then those of the right (a RIGHT JOIN:
// right, then left).

// usingJoin records a JOIN … USING of level sc whose sides' tables are
// left and right (in FROM order): the equalities it implies join the ON
// conditions (routing and co-location), and the level's star list
// (scope.star) is the one MySQL's `*` expands to.
func (p *planner) usingJoin(t *sqlparser.JoinTableExpr, sc *scope, left, right []*tableRef) error {
	l, r := p.starOf(t.LeftExpr, sc, left), p.starOf(t.RightExpr, sc, right)
	rightJoin := t.Join == sqlparser.RightJoinType
	named := map[string]bool{}
	var eqs []sqlparser.Expr
	var common []*colRef
	for _, u := range t.Condition.Using {
		name := u.String()
		key := strings.ToLower(name)
		if named[key] {
			return p.errorAt(name, "column %q is named twice in USING", name)
		}
		named[key] = true
		lc, err := p.usingSide(l, name)
		if err != nil {
			return err
		}
		rc, err := p.usingSide(r, name)
		if err != nil {
			return err
		}
		eqs = append(eqs, &sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp, Left: p.usingColName(sc, lc), Right: p.usingColName(sc, rc)})
	}
	first, second := l, r
	if rightJoin {
		first, second = r, l
	}
	var rest []*colRef
	for _, c := range first {
		if named[strings.ToLower(c.col.Name)] {
			common = append(common, c)
		} else {
			rest = append(rest, c)
		}
	}
	for _, c := range second {
		if !named[strings.ToLower(c.col.Name)] {
			rest = append(rest, c)
		}
	}
	if sc.joinStar == nil {
		sc.joinStar = map[*sqlparser.JoinTableExpr][]*colRef{}
	}
	sc.joinStar[t] = append(common, rest...)
	sc.using = true
	on := sqlparser.AndExpressions(eqs...)
	var inner []*tableRef
	switch t.Join {
	case sqlparser.LeftJoinType:
		inner = right
	case sqlparser.RightJoinType:
		inner = left
	}
	if inner != nil {
		sc.outerOns = append(sc.outerOns, outerOn{on: on, inner: inner})
	}
	sc.ons = append(sc.ons, on)
	if t.Join == sqlparser.NormalJoinType || t.Join == sqlparser.StraightJoinType {
		sc.routeOns = append(sc.routeOns, on)
	}
	return nil
}

// usingSide returns the column of one side of a USING join that name
// names: exactly one of side's columns, else MySQL's error.
func (p *planner) usingSide(side []*colRef, name string) (*colRef, error) {
	var found *colRef
	for _, c := range side {
		if strings.EqualFold(c.col.Name, name) {
			if found != nil {
				return nil, p.errorAt(name, "column %q in USING is ambiguous: both %q and %q have it", name, found.ref.info.name, c.ref.info.name)
			}
			found = c
		}
	}
	if found == nil {
		return nil, p.errorAt(name, "unknown column %q in USING: a side of the join has no such column", name)
	}
	return found, nil
}

// usingColName is a qualified name of column c for an equality a USING
// join implies; it is bound to c (the statement does not hold it).
func (p *planner) usingColName(sc *scope, c *colRef) *sqlparser.ColName {
	q := c.ref.alias
	if q == "" {
		q = c.ref.info.name
	}
	cn := sqlparser.NewColNameWithQualifier(c.col.Name, sqlparser.NewTableName(q))
	if sc.usingCols == nil {
		sc.usingCols = map[*sqlparser.ColName]*colRef{}
	}
	sc.usingCols[cn] = c
	return cn
}

// starOf is the list `*` expands to over table expression e of level sc,
// whose tables are refs (in FROM order).
func (p *planner) starOf(e sqlparser.TableExpr, sc *scope, refs []*tableRef) []*colRef {
	switch t := e.(type) {
	case *sqlparser.JoinTableExpr:
		if s, ok := sc.joinStar[t]; ok {
			return s
		}
		n := countRefs(t.LeftExpr)
		return append(p.starOf(t.LeftExpr, sc, refs[:n]), p.starOf(t.RightExpr, sc, refs[n:])...)
	case *sqlparser.ParenTableExpr:
		var out []*colRef
		for _, x := range t.Exprs {
			n := countRefs(x)
			out = append(out, p.starOf(x, sc, refs[:n])...)
			refs = refs[n:]
		}
		return out
	}
	var out []*colRef
	for _, r := range refs {
		for _, c := range r.info.ddl.VisibleColumns() {
			out = append(out, &colRef{ref: r, col: c})
		}
	}
	return out
}

// countRefs is the number of tables (tableRefs) table expression e adds.
func countRefs(e sqlparser.TableExpr) int {
	switch t := e.(type) {
	case *sqlparser.JoinTableExpr:
		return countRefs(t.LeftExpr) + countRefs(t.RightExpr)
	case *sqlparser.ParenTableExpr:
		n := 0
		for _, x := range t.Exprs {
			n += countRefs(x)
		}
		return n
	}
	return 1
}

// levelStar sets sc.star, the list `*` expands to over the FROM of level
// sc, when a USING join changes it from every column of every table.
func (p *planner) levelStar(from sqlparser.TableExprs, sc *scope) {
	if !sc.using {
		return
	}
	refs := sc.refs
	sc.star = nil
	for _, e := range from {
		n := countRefs(e)
		sc.star = append(sc.star, p.starOf(e, sc, refs[:n])...)
		refs = refs[n:]
	}
}

// levelStarColumns returns the columns `q.*` (q "": `*`) expands to over refs,
// the tables of one level.
func levelStarColumns(refs []*tableRef, q string) []*colRef {
	if q == "" && len(refs) > 0 && refs[0].scope != nil && refs[0].scope.star != nil {
		return refs[0].scope.star
	}
	var out []*colRef
	for _, r := range refs {
		if q != "" && !(strings.EqualFold(r.alias, q) || r.alias == "" && strings.EqualFold(r.info.name, q)) {
			continue
		}
		for _, c := range r.info.ddl.VisibleColumns() {
			out = append(out, &colRef{ref: r, col: c})
		}
	}
	return out
}

// usingColumn resolves an unqualified name in a level with USING joins by
// the level's star list: the coalesced column of a USING join, or the one
// column of that name. ok is false when the list has no such column.
func (p *planner) usingColumn(sc *scope, name string) (c *colRef, ok bool, err error) {
	for _, s := range sc.star {
		if strings.EqualFold(s.col.Name, name) {
			if c != nil {
				return nil, true, p.errorf(-1, "column %q is ambiguous: both %q and %q have it; qualify it", name, c.ref.info.name, s.ref.info.name)
			}
			c = s
		}
	}
	return c, c != nil, nil
}
