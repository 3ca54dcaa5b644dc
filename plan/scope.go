package plan

import (
	"slices"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/schema"
)

// scope is one query level: the statement itself, a subquery, a derived
// table's SELECT or the SELECT of an INSERT … SELECT, with the tables its
// FROM names. A column resolves in the innermost level that has it, then in
// the enclosing ones (a correlated subquery); a derived table's SELECT and
// an INSERT's SELECT see no enclosing level (parent nil), as in MySQL.
type scope struct {
	parent *scope
	refs   []*tableRef
	// where is the level's WHERE (nil when none); ons every JOIN … ON
	// condition, routeOns those of inner joins.
	where    sqlparser.Expr
	ons      []sqlparser.Expr
	routeOns []sqlparser.Expr
	// outerOns are the ON conditions of outer joins with the tables of
	// their inner side; implied the sharding conditions the enclosing level
	// of a derived table implies on its rows (implied.go).
	outerOns []outerOn
	implied  []sqlparser.Expr
	// aliases are the level's select-list aliases (lower case), which
	// ORDER BY, GROUP BY and HAVING may name.
	aliases map[string]bool
	// kind says what the level is, for messages.
	kind scopeKind
	// using is set when the level's FROM has a JOIN … USING (using.go):
	// star is then the list `*` expands to and by which unqualified names
	// resolve, joinStar the list of each USING join, usingCols the
	// columns of the equalities USING implies (in ons, not in the
	// statement).
	using     bool
	star      []*colRef
	joinStar  map[*sqlparser.JoinTableExpr][]*colRef
	usingCols map[*sqlparser.ColName]*colRef
}

// scopeKind is what a query level is.
type scopeKind uint8

const (
	scopeStatement    scopeKind = iota // the statement itself
	scopeSubquery                      // IN (SELECT …), EXISTS, a scalar subquery
	scopeDerived                       // a derived table (a subquery in FROM)
	scopeInsertSelect                  // the SELECT of INSERT … SELECT
	scopeUnion                         // a SELECT of a UNION other than the first
)

// condition returns the level's WHERE ANDed with the ON conditions of its
// inner joins.
func (s *scope) condition() sqlparser.Expr {
	e := s.where
	for _, on := range append(s.routeOns[:len(s.routeOns):len(s.routeOns)], s.implied...) {
		if e == nil {
			e = on
		} else {
			e = &sqlparser.AndExpr{Left: e, Right: on}
		}
	}
	return e
}

// outerOn is the ON condition of an outer join and the tables of its inner
// side (the right of a LEFT JOIN), the rows that ON filters.
type outerOn struct {
	on    sqlparser.Expr
	inner []*tableRef
}

// derivedTable is a derived table's columns: by lower-case name, the select
// expression of its SELECT that gives the column.
type derivedTable struct {
	exprs map[string]sqlparser.Expr
	// base maps a column of a `*` in the derived SELECT to the table
	// column it is.
	base map[string]*colRef
	// sel is the derived SELECT (the first of a UNION, then union is set)
	// and scope its level.
	sel   *sqlparser.Select
	scope *scope
	union bool
	// parts are the SELECTs of a UNION, in order (nil without one).
	parts []*sqlparser.Select
	// everywhere is set when every table the derived SELECT names, at any
	// depth, is a broadcast table or DUAL (or it names none: SELECT 1 UNION
	// ALL SELECT 2): every data node computes the same rows, as for a
	// broadcast table.
	everywhere bool
}

// collectTables resolves every table reference of every query level to a
// logic table (or a derived table) and records the levels.
func (p *planner) collectTables() error {
	p.refs, p.allRefs, p.ons, p.routeOns = nil, nil, nil, nil
	p.root = &scope{kind: scopeStatement, aliases: map[string]bool{}}
	p.scopes = map[sqlparser.SQLNode]*scope{p.stmt: p.root}
	var err error
	switch s := p.stmt.(type) {
	case *sqlparser.Select:
		err = p.fillSelect(s, p.root)
	case *sqlparser.Union:
		// The first SELECT is the statement's level (its columns name the
		// result); every other SELECT is a level of its own.
		var first *scope
		if first, err = p.level(s, nil, scopeUnion); err == nil {
			first.kind = scopeStatement
			p.root = first
			p.scopes[p.stmt] = first
		}
	case *sqlparser.Insert:
		if err = p.addTableExpr(s.Table, p.root); err != nil {
			return err
		}
		switch rows := s.Rows.(type) {
		case sqlparser.Values:
			err = p.subqueries(p.root, rows, s.OnDup)
		case sqlparser.TableStatement:
			if _, err = p.level(rows, nil, scopeInsertSelect); err == nil {
				err = p.subqueries(p.root, s.OnDup)
			}
		default:
			return p.errorf(-1, "unsupported INSERT rows %s", sqlparser.String(s.Rows))
		}
	case *sqlparser.Update:
		for _, e := range s.TableExprs {
			if err = p.addTableExpr(e, p.root); err != nil {
				return err
			}
		}
		p.levelStar(s.TableExprs, p.root)
		if s.Where != nil {
			p.root.where = s.Where.Expr
		}
		err = p.subqueries(p.root, s.Exprs, s.Where, s.OrderBy, s.Limit)
	case *sqlparser.Delete:
		for _, e := range s.TableExprs {
			if err = p.addTableExpr(e, p.root); err != nil {
				return err
			}
		}
		p.levelStar(s.TableExprs, p.root)
		if s.Where != nil {
			p.root.where = s.Where.Expr
		}
		err = p.subqueries(p.root, s.Where, s.OrderBy, s.Limit)
	}
	if err != nil {
		return err
	}
	p.refs, p.ons, p.routeOns = p.root.refs, p.root.ons, p.root.routeOns
	if len(p.allRefs) == 0 {
		return p.errorf(-1, "statement reads no table: there is nothing to route")
	}
	if len(p.refs) == 0 {
		return p.errorf(-1, "statement reads no table at its own level: there is nothing to route")
	}
	return nil
}

// level records the query level of a SELECT (or each SELECT of a UNION)
// under parent and returns the scope of its first SELECT.
func (p *planner) level(st sqlparser.TableStatement, parent *scope, kind scopeKind) (*scope, error) {
	switch s := st.(type) {
	case *sqlparser.Select:
		sc := &scope{parent: parent, kind: kind, aliases: map[string]bool{}}
		p.scopes[s] = sc
		return sc, p.fillSelect(s, sc)
	case *sqlparser.Union:
		first, err := p.level(s.Left, parent, kind)
		if err != nil {
			return nil, err
		}
		if _, err := p.level(s.Right, parent, kind); err != nil {
			return nil, err
		}
		return first, p.subqueries(first, s.OrderBy, s.Limit)
	}
	return nil, p.errorf(-1, "unsupported query %s", sqlparser.String(st))
}

// fillSelect records the tables of a SELECT's FROM in sc and the levels of
// the subqueries in its other clauses.
func (p *planner) fillSelect(s *sqlparser.Select, sc *scope) error {
	if s.With != nil {
		return p.cteRefusal()
	}
	for _, e := range s.From {
		if err := p.addTableExpr(e, sc); err != nil {
			return err
		}
	}
	p.levelStar(s.From, sc)
	if s.Where != nil {
		sc.where = s.Where.Expr
	}
	if s.SelectExprs != nil {
		for _, se := range s.SelectExprs.Exprs {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && !ae.As.IsEmpty() {
				sc.aliases[ae.As.Lowered()] = true
			}
		}
	}
	nodes := []sqlparser.SQLNode{s.SelectExprs, s.Where, s.GroupBy, s.Having, s.OrderBy, s.Limit}
	for _, on := range sc.ons {
		nodes = append(nodes, on)
	}
	return p.subqueries(sc, nodes...)
}

// subqueries records the level of every subquery in nodes (not descending
// into them: each records its own) with parent sc.
func (p *planner) subqueries(sc *scope, nodes ...sqlparser.SQLNode) error {
	var err error
	for _, n := range nodes {
		if n == nil || err != nil {
			continue
		}
		_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			sub, ok := node.(*sqlparser.Subquery)
			if !ok || err != nil {
				return err == nil, nil
			}
			_, err = p.level(sub.Select, sc, scopeSubquery)
			return false, nil
		}, n)
	}
	return err
}

func (p *planner) addTableExpr(e sqlparser.TableExpr, sc *scope) error {
	switch t := e.(type) {
	case *sqlparser.AliasedTableExpr:
		if dt, ok := t.Expr.(*sqlparser.DerivedTable); ok {
			return p.addDerived(t, dt, sc)
		}
		tn, ok := t.Expr.(sqlparser.TableName)
		if !ok {
			return p.errorOn(e, "unsupported table expression %s", sqlparser.String(e))
		}
		if q := tn.Qualifier.String(); q != "" && !strings.EqualFold(q, p.b.cfg.DatabaseName) {
			return p.errorAt(q, "table %q is qualified with database %q; the logic database is %q", tn.Name.String(), q, p.b.cfg.DatabaseName)
		}
		name := tn.Name.String()
		info := p.tables[strings.ToLower(name)]
		if info == nil && strings.EqualFold(name, "dual") && tn.Qualifier.IsEmpty() {
			switch p.stmt.(type) {
			case *sqlparser.Select, *sqlparser.Union:
				info = p.b.dual() // SELECT 1, SELECT NOW() FROM dual, a UNION's SELECT 'x'
			}
		}
		if info == nil {
			return p.errorAt(name, "unknown table %q: no CREATE TABLE for it in the DDL", name)
		}
		if !info.sharded() && !info.broadcast && info.singleDS == "" {
			ds := p.b.cfg.LogicDataSources
			return p.errorAt(name, "table %q is in no rule and the logic database has %d data sources (%s): list it in !SHARDING, !BROADCAST or !SINGLE (e.g. tables: [\"%s.%s\"])",
				name, len(ds), strings.Join(ds, ", "), ds[0], name)
		}
		if info.sharded() && info.route == nil {
			return p.errorAt(name, "table %q has a rule that could not be bound", name)
		}
		r := &tableRef{info: info, alias: t.As.String(), scope: sc}
		sc.refs = append(sc.refs, r)
		p.allRefs = append(p.allRefs, r)
	case *sqlparser.JoinTableExpr:
		n := len(sc.refs)
		if err := p.addTableExpr(t.LeftExpr, sc); err != nil {
			return err
		}
		m := len(sc.refs)
		if err := p.addTableExpr(t.RightExpr, sc); err != nil {
			return err
		}
		var inner []*tableRef
		switch t.Join {
		case sqlparser.LeftJoinType, sqlparser.NaturalLeftJoinType:
			inner = sc.refs[m:]
			p.notePreservedBroadcast(sc.refs[n:m], sc.refs[m:])
		case sqlparser.RightJoinType, sqlparser.NaturalRightJoinType:
			inner = sc.refs[n:m]
			p.notePreservedBroadcast(sc.refs[m:], sc.refs[n:m])
		}
		for _, r := range inner {
			r.outer = true
		}
		if inner != nil && t.Condition != nil && t.Condition.On != nil {
			sc.outerOns = append(sc.outerOns, outerOn{on: t.Condition.On, inner: slices.Clone(inner)})
		}
		if t.Condition != nil && len(t.Condition.Using) > 0 {
			if err := p.usingJoin(t, sc, sc.refs[n:m], sc.refs[m:]); err != nil {
				return err
			}
		}
		if t.Condition != nil && t.Condition.On != nil {
			sc.ons = append(sc.ons, t.Condition.On)
			// Only an inner join's ON filters rows of both sides; an outer
			// join keeps unmatched rows, so its ON must not narrow the route.
			if t.Join == sqlparser.NormalJoinType || t.Join == sqlparser.StraightJoinType {
				sc.routeOns = append(sc.routeOns, t.Condition.On)
			}
		}
	case *sqlparser.ParenTableExpr:
		for _, x := range t.Exprs {
			if err := p.addTableExpr(x, sc); err != nil {
				return err
			}
		}
	default:
		return p.errorOn(e, "unsupported table expression %s", sqlparser.String(e))
	}
	return nil
}

// addDerived records a derived table: its SELECT becomes a level of its
// own, and the table's columns are that SELECT's result columns.
func (p *planner) addDerived(t *sqlparser.AliasedTableExpr, dt *sqlparser.DerivedTable, sc *scope) error {
	alias := t.As.String()
	if alias == "" {
		return p.errorOn(dt, "every derived table must have its own alias")
	}
	if dt.Lateral {
		return p.errorAt("LATERAL", "LATERAL derived tables are not supported")
	}
	if p.tables[strings.ToLower(alias)] != nil {
		// go-tpc's checks name derived tables after the tables they read
		// (`(SELECT … FROM order_line …) AS order_line`): the alias hides the
		// logic table in this level, and the rewrite leaves it and the
		// columns it qualifies as they are (rewriteWith).
		p.shadowing = true
	}
	inner, err := p.level(dt.Select, nil, scopeDerived)
	if err != nil {
		return err
	}
	first := dt.Select
	for {
		u, ok := first.(*sqlparser.Union)
		if !ok {
			break
		}
		first = u.Left
	}
	sel, ok := first.(*sqlparser.Select)
	if !ok {
		return p.errorOn(dt, "unsupported derived table %s", sqlparser.String(dt))
	}
	_, union := dt.Select.(*sqlparser.Union)
	d := &derivedTable{exprs: map[string]sqlparser.Expr{}, base: map[string]*colRef{}, sel: sel, scope: inner, union: union,
		everywhere: p.namesOnlyBroadcast(dt.Select)}
	if union {
		d.parts, _ = unionSelects(dt.Select)
	}
	tbl := &schema.Table{Name: alias}
	add := func(name string, c schema.Column) {
		if _, dup := d.exprs[strings.ToLower(name)]; dup {
			return
		}
		c.Name = name
		tbl.Columns = append(tbl.Columns, &c)
	}
	for i, se := range sel.SelectExprs.Exprs {
		switch e := se.(type) {
		case *sqlparser.StarExpr:
			q := e.TableName.Name.String()
			for _, r := range inner.refs {
				if q != "" && !(strings.EqualFold(r.alias, q) || r.alias == "" && strings.EqualFold(r.info.name, q)) {
					continue
				}
				for _, c := range r.info.ddl.VisibleColumns() {
					add(c.Name, *c)
					d.base[strings.ToLower(c.Name)] = &colRef{ref: r, col: c}
					d.exprs[strings.ToLower(c.Name)] = nil
				}
			}
		case *sqlparser.AliasedExpr:
			name := columnName(e)
			add(name, schema.Column{Nullable: true})
			d.exprs[strings.ToLower(name)] = e.Expr
		default:
			return p.errorf(-1, "unsupported select expression %d of derived table %q", i+1, alias)
		}
	}
	if t.Columns != nil {
		return p.errorOn(t.Columns, "a column list on derived table %q is not supported: alias the columns in its SELECT", alias)
	}
	r := &tableRef{info: &tableInfo{name: alias, ddl: tbl, derived: d}, alias: alias, scope: sc}
	sc.refs = append(sc.refs, r)
	return nil
}

// resolveColumns binds every column reference of every level to a table
// column (innermost level first).
func (p *planner) resolveColumns() error {
	p.cols = map[*sqlparser.ColName]*colRef{}
	for _, sc := range p.scopes {
		for cn, c := range sc.usingCols {
			p.cols[cn] = c
		}
	}
	p.aliases = map[string]sqlparser.Expr{}
	if s, ok := p.stmt.(*sqlparser.Select); ok && s.SelectExprs != nil {
		for _, se := range s.SelectExprs.Exprs {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && !ae.As.IsEmpty() {
				p.aliases[ae.As.Lowered()] = ae.Expr
			}
		}
	}
	var err error
	stack := []*scope{p.root}
	sqlparser.Rewrite(p.stmt, func(c *sqlparser.Cursor) bool {
		if err != nil {
			return false
		}
		n := c.Node()
		if sel, ok := n.(*sqlparser.Select); ok && n != p.stmt {
			if sc := p.scopes[sel]; sc != nil {
				stack = append(stack, sc)
			}
			return true
		}
		col, ok := n.(*sqlparser.ColName)
		if !ok {
			return true
		}
		r, e := p.resolve(col, stack[len(stack)-1])
		if e != nil {
			err = e
			return false
		}
		if r != nil {
			p.cols[col] = r
		}
		return true
	}, func(c *sqlparser.Cursor) bool {
		if sel, ok := c.Node().(*sqlparser.Select); ok && c.Node() != p.stmt {
			if p.scopes[sel] != nil {
				stack = stack[:len(stack)-1]
			}
		}
		return true
	})
	return err
}

// resolve binds a column reference in level sc (then its enclosing
// levels). It returns nil for a select-list alias.
func (p *planner) resolve(c *sqlparser.ColName, sc *scope) (*colRef, error) {
	name := c.Name.String()
	q := c.Qualifier.Name.String()
	if db := c.Qualifier.Qualifier.String(); q != "" && db != "" && !strings.EqualFold(db, p.b.cfg.DatabaseName) {
		return nil, p.errorOn(c, "column %s is qualified with database %q; the logic database is %q", sqlparser.String(c), db, p.b.cfg.DatabaseName)
	}
	for s := sc; s != nil; s = s.parent {
		if q != "" {
			for _, r := range s.refs {
				if (r.alias != "" && strings.EqualFold(r.alias, q)) || (r.alias == "" && strings.EqualFold(r.info.name, q)) {
					col := r.info.ddl.Column(name)
					if col == nil {
						return nil, p.errorAt(name, "unknown column %q in table %q", name, r.info.name)
					}
					return &colRef{ref: r, col: col}, nil
				}
			}
			continue
		}
		if s.using {
			if c, ok, err := p.usingColumn(s, name); ok {
				return c, err
			}
		}
		var found *colRef
		for _, r := range s.refs {
			if col := r.info.ddl.Column(name); col != nil {
				if found != nil {
					return nil, p.errorOn(c, "column %q is ambiguous: both %q and %q have it; qualify it", name, found.ref.info.name, r.info.name)
				}
				found = &colRef{ref: r, col: col}
			}
		}
		if found != nil {
			return found, nil
		}
		if s.aliases[strings.ToLower(name)] {
			return nil, nil // a select-list alias (ORDER BY / GROUP BY / HAVING)
		}
	}
	if q != "" {
		return nil, p.errorAt(q, "unknown table or alias %q in column %s", q, sqlparser.String(c))
	}
	if len(p.allRefs) == 1 {
		return nil, p.errorAt(name, "unknown column %q in table %q", name, p.allRefs[0].info.name)
	}
	return nil, p.errorAt(name, "unknown column %q", name)
}

// baseCol follows a column of a derived table to the table column it is
// (through nested derived tables); nil when it is computed by an
// expression. A column of a real table is returned as is.
func (p *planner) baseCol(c *colRef) *colRef {
	for c != nil && c.ref.info.derived != nil {
		d := c.ref.info.derived
		key := strings.ToLower(c.col.Name)
		if b := d.base[key]; b != nil {
			c = b
			continue
		}
		cn, ok := d.exprs[key].(*sqlparser.ColName)
		if !ok {
			return nil
		}
		c = p.cols[cn]
	}
	return c
}

// derivedExpr returns the select expression that computes a derived
// table's column (nil for a `*` column or a real table's column).
func derivedExpr(c *colRef) sqlparser.Expr {
	if d := c.ref.info.derived; d != nil {
		return d.exprs[strings.ToLower(c.col.Name)]
	}
	return nil
}

// notePreservedBroadcast records a broadcast table of the preserved side
// of an outer join (preserved) that has no sharded table, when the other
// side (inner) has one (planner.preservedBroadcast).
func (p *planner) notePreservedBroadcast(preserved, inner []*tableRef) {
	broadcast := ""
	for _, r := range preserved {
		switch {
		case r.info.sharded():
			return
		case r.info.broadcast && broadcast == "":
			broadcast = r.info.name
		case r.info.derived != nil && r.info.derived.everywhere && broadcast == "":
			// (SELECT 1 AS a UNION ALL SELECT 2) t LEFT JOIN sharded: each
			// data node would return t's unmatched rows too.
			broadcast = r.alias
		}
	}
	if broadcast == "" || p.preservedBroadcast != "" {
		return
	}
	for _, r := range inner {
		if r.info.sharded() {
			p.preservedBroadcast = broadcast
			return
		}
	}
}

// namesOnlyBroadcast reports whether every table that stmt names, in any
// clause and subquery, is a broadcast table or DUAL (true when it names
// none).
func (p *planner) namesOnlyBroadcast(stmt sqlparser.SQLNode) bool {
	only := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		tn, ok := n.(sqlparser.TableName)
		if !ok || tn.Name.IsEmpty() {
			return true, nil
		}
		name := tn.Name.String()
		if info := p.tables[strings.ToLower(name)]; info != nil && info.broadcast {
			return true, nil
		}
		if strings.EqualFold(name, "dual") && tn.Qualifier.IsEmpty() {
			return true, nil
		}
		only = false
		return false, nil
	}, stmt)
	return only
}
