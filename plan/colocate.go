package plan

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// component is a set of sharded table references whose rows that meet are
// on the same data node: references of one table or of one binding group
// whose sharding columns are compared with `=` (a join condition, a
// correlated subquery's WHERE), or an INSERT … SELECT that writes a table's
// sharding column from the selected table's. anchor is the first reference
// in statement order (the outermost).
type component struct {
	refs    []*tableRef
	anchor  *tableRef
	members map[*tableRef]bool
}

// sameLayout reports whether two sharded tables lay their data nodes out
// alike, so that the i-th data node of one holds the rows of the other's
// i-th data node: the same table, or one binding group.
func sameLayout(a, b *tableInfo) bool {
	if a == b {
		return true
	}
	return a.binding != nil && a.binding == b.binding && len(a.route.Nodes()) == len(b.route.Nodes())
}

// components groups the sharded table references into co-located
// components, in statement order.
func (p *planner) components(sharded []*tableRef) []*component {
	parent := map[*tableRef]*tableRef{}
	var find func(*tableRef) *tableRef
	find = func(r *tableRef) *tableRef {
		if q, ok := parent[r]; ok && q != r {
			root := find(q)
			parent[r] = root
			return root
		}
		return r
	}
	order := map[*tableRef]int{}
	for i, r := range p.allRefs {
		order[r] = i
	}
	type pair struct{ a, b *tableRef }
	matched := map[pair]map[int]bool{}
	match := func(a, b *tableRef, pos int) {
		if order[a] > order[b] {
			a, b = b, a
		}
		k := pair{a, b}
		if matched[k] == nil {
			matched[k] = map[int]bool{}
		}
		matched[k][pos] = true
	}
	colocated := func(a, b *colRef) {
		if a == nil || b == nil || a.ref == b.ref || !a.ref.info.sharded() || !b.ref.info.sharded() || !sameLayout(a.ref.info, b.ref.info) {
			return
		}
		ca, cb := ruleColumns(a.ref.info.rule), ruleColumns(b.ref.info.rule)
		for i := range ca {
			if i < len(cb) && strings.EqualFold(a.col.Name, ca[i]) && strings.EqualFold(b.col.Name, cb[i]) {
				match(a.ref, b.ref, i)
			}
		}
	}
	seen := map[*scope]bool{}
	for _, r := range p.allRefs {
		sc := r.scope
		if seen[sc] {
			continue
		}
		seen[sc] = true
		exprs := append([]sqlparser.Expr{sc.where}, sc.ons...)
		for _, e := range exprs {
			for _, conj := range conjuncts(e) {
				if c, ok := conj.(*sqlparser.ComparisonExpr); ok && c.Operator == sqlparser.EqualOp {
					colocated(p.colOf(c.Left), p.colOf(c.Right))
				}
			}
		}
	}
	// INSERT … SELECT writing the target's sharding column from the
	// selected table's.
	if ins, ok := p.stmt.(*sqlparser.Insert); ok {
		if sel, ok := ins.Rows.(*sqlparser.Select); ok && p.refs[0].info.sharded() {
			target := p.refs[0]
			for i, col := range ruleColumns(target.info.rule) {
				if c := p.copiedShardingColumn(target, ins, sel, i, col); c != nil {
					match(target, c.ref, i)
				}
			}
		}
	}
	for k, pos := range matched {
		if len(pos) == len(ruleColumns(k.a.info.rule)) {
			ra, rb := find(k.a), find(k.b)
			if ra != rb {
				if order[ra] > order[rb] {
					ra, rb = rb, ra
				}
				parent[rb] = ra
			}
		}
	}
	var out []*component
	byRoot := map[*tableRef]*component{}
	for _, r := range sharded {
		root := find(r)
		c := byRoot[root]
		if c == nil {
			c = &component{anchor: r, members: map[*tableRef]bool{}}
			byRoot[root] = c
			out = append(out, c)
		}
		c.refs = append(c.refs, r)
		c.members[r] = true
	}
	return out
}

// copiedShardingColumn returns the column of the selected table an INSERT
// … SELECT writes sharding column col (the i-th of its rule) of target
// from when it is that table's i-th sharding column and the two tables
// are bound (sameLayout); nil otherwise.
func (p *planner) copiedShardingColumn(target *tableRef, ins *sqlparser.Insert, sel *sqlparser.Select, i int, col string) *colRef {
	c := p.insertSelectColumn(ins, sel, col)
	if c == nil || !c.ref.info.sharded() || !sameLayout(target.info, c.ref.info) {
		return nil
	}
	if rc := ruleColumns(c.ref.info.rule); i < len(rc) && strings.EqualFold(rc[i], c.col.Name) {
		return c
	}
	return nil
}

// insertSelectExpr returns the select expression of an INSERT … SELECT that
// gives the target column col (nil when none can be found: a `*` over
// several tables, a column list that omits it).
func (p *planner) insertSelectExpr(ins *sqlparser.Insert, sel *sqlparser.Select, col string) sqlparser.Expr {
	target := p.refs[0].info
	k := -1
	if len(ins.Columns) == 0 {
		for i, c := range target.ddl.VisibleColumns() {
			if strings.EqualFold(c.Name, col) {
				k = i
			}
		}
	} else {
		for i, c := range ins.Columns {
			if strings.EqualFold(c.String(), col) {
				k = i
			}
		}
	}
	if k < 0 || sel.SelectExprs == nil {
		return nil
	}
	exprs := sel.SelectExprs.Exprs
	if len(exprs) == 1 {
		if star, ok := exprs[0].(*sqlparser.StarExpr); ok && star.TableName.IsEmpty() {
			sc := p.scopes[sel]
			if sc == nil || len(sc.refs) != 1 || k >= len(sc.refs[0].info.ddl.VisibleColumns()) {
				return nil
			}
			r := sc.refs[0]
			col := r.info.ddl.VisibleColumns()[k]
			cn := sqlparser.NewColNameWithQualifier(col.Name, sqlparser.NewTableName(r.info.name))
			p.cols[cn] = &colRef{ref: r, col: col}
			return cn
		}
	}
	if k >= len(exprs) {
		return nil
	}
	if ae, ok := exprs[k].(*sqlparser.AliasedExpr); ok {
		return ae.Expr
	}
	return nil
}

// insertSelectColumn is insertSelectExpr when the expression is a column.
func (p *planner) insertSelectColumn(ins *sqlparser.Insert, sel *sqlparser.Select, col string) *colRef {
	if e, ok := p.insertSelectExpr(ins, sel, col).(*sqlparser.ColName); ok {
		return p.cols[e]
	}
	return nil
}

// spreadable reports whether a component may run on several data nodes
// with its rows merged: its anchor is a table of the statement's own level
// and every other table hangs off it through correlated subqueries (or is
// the source of a plain INSERT … SELECT); a derived table or an
// uncorrelated subquery would see only one data node's rows.
func (p *planner) spreadable(c *component) bool {
	if _, union := p.stmt.(*sqlparser.Union); union || c.anchor.scope != p.root {
		return false // a UNION's other SELECTs would repeat on every node
	}
	for _, r := range c.refs {
		sc := r.scope
		if sc.kind == scopeInsertSelect {
			if !plainSelect(p.stmt.(*sqlparser.Insert).Rows) {
				return false
			}
			continue
		}
		for sc != p.root {
			if sc == nil || sc.kind != scopeSubquery {
				return false
			}
			sc = sc.parent
		}
	}
	return true
}

// plainSelect reports whether an INSERT's SELECT maps rows one to one (no
// aggregate, grouping, DISTINCT, LIMIT or subquery), so each data node can
// copy its own rows.
func plainSelect(rows sqlparser.InsertRows) bool {
	s, ok := rows.(*sqlparser.Select)
	if !ok || s.Distinct || s.GroupBy != nil || s.Having != nil || s.Limit != nil || containsAggregate(s.SelectExprs) {
		return false
	}
	sub := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if _, ok := n.(*sqlparser.Subquery); ok {
			sub = true
		}
		return !sub, nil
	}, s)
	return !sub
}

// componentConditions returns the sharding conditions of a component in
// its anchor's sharding columns: for an INSERT the VALUES rows' (or, for
// INSERT … SELECT, the SELECT's WHERE, or the values it writes), otherwise
// the conditions of the anchor's query level on the component's tables.
// Literals are converted as MySQL stores (VALUES) or compares them; none
// reports that every group compares with NULL, noRow that every group
// compares with a value no row can hold.
func (p *planner) componentConditions(c *component) (groups []Condition, none, noRow bool, err error) {
	groups, none, err = p.componentConditionsAsWritten(c)
	if err != nil {
		return nil, false, false, err
	}
	if ins, ok := p.stmt.(*sqlparser.Insert); ok && c.anchor == p.refs[0] {
		if _, values := ins.Rows.(sqlparser.Values); values {
			groups, err = p.storedLiterals(c.anchor.info.name, groups)
			return groups, false, false, err
		}
	}
	if !none {
		groups, noRow = p.b.convertLiterals(c.anchor.info.name, groups)
	}
	return groups, none, noRow, nil
}

// componentConditionsAsWritten is componentConditions before string
// literals become times.
func (p *planner) componentConditionsAsWritten(c *component) ([]Condition, bool, error) {
	where := c.anchor.scope.condition()
	if ins, ok := p.stmt.(*sqlparser.Insert); ok && c.anchor == p.refs[0] {
		cols := ruleColumns(c.anchor.info.rule)
		sel, isSelect := ins.Rows.(*sqlparser.Select)
		if !isSelect {
			if _, values := ins.Rows.(sqlparser.Values); !values {
				return nil, false, p.errorf(-1, "INSERT into sharded table %q must insert VALUES or a SELECT", c.anchor.info.name)
			}
			conds, err := p.insertConditions(c.anchor, ins, cols)
			return conds, false, err
		}
		if len(c.refs) == 1 {
			// The values the SELECT writes into the sharding columns.
			var cond Condition
			for _, col := range cols {
				e := p.insertSelectExpr(ins, sel, col)
				o, ok := p.operand(e)
				if e == nil || !ok {
					return nil, false, p.insertSelectShardingError(c.anchor, ins, sel, col)
				}
				if o.Literal != nil && o.Literal.IsNull() {
					return nil, false, p.errorIn("SELECT", e, "INSERT into sharded table %q: sharding column %q must not be NULL", c.anchor.info.name, col)
				}
				cond.Columns = append(cond.Columns, ColumnCondition{Column: col, Values: []Operand{o}})
			}
			return []Condition{cond}, false, nil
		}
		where = p.scopes[sel].condition()
	}
	return p.shardingConditions(c.anchor, c.members, where)
}

// insertSelectShardingError refuses an INSERT … SELECT into target that
// writes sharding column col from neither a value nor the selected
// table's sharding column. When col is copied from the selected table's
// sharding column, the rows stay on their data node only if every
// sharding column is: the error names the first one that is not (e.g. a
// computed order_id + 1000 beside a copied cust_id).
func (p *planner) insertSelectShardingError(target *tableRef, ins *sqlparser.Insert, sel *sqlparser.Select, col string) error {
	cols := ruleColumns(target.info.rule)
	for i, other := range cols {
		if !strings.EqualFold(other, col) || p.copiedShardingColumn(target, ins, sel, i, col) == nil {
			continue
		}
		for j, bad := range cols {
			if p.copiedShardingColumn(target, ins, sel, j, bad) != nil {
				continue
			}
			e := p.insertSelectExpr(ins, sel, bad)
			what := "does not write sharding column " + strconv.Quote(bad)
			if e != nil {
				what = "writes sharding column " + strconv.Quote(bad) + " from " + sqlparser.String(e)
			}
			return p.errorf(p.clauseNode("SELECT", e), "INSERT … SELECT into sharded table %q %s: it must copy it from the selected table's sharding column (a table bound to it), as it copies %q, so that each row stays on its data node, or write every sharding column from a value (a literal or a parameter)", target.info.name, what, col)
		}
	}
	e := p.insertSelectExpr(ins, sel, col)
	return p.errorf(p.clauseNode("SELECT", e), "INSERT … SELECT into sharded table %q must write sharding column %q from the selected table's sharding column (a table bound to it) or from a value (a literal or a parameter)", target.info.name, col)
}

// routePushdown routes a statement whose sharded tables form several
// components (or one that cannot spread over data nodes, or that meets
// single tables): each component must reach exactly one data node, and all
// the same one, where the statement is sent whole. Literal conditions are
// checked now; parameters at run time (Route.Agree).
func (p *planner) routePushdown(comps []*component, singles []*tableRef) error {
	why := p.pushdownWhy(comps, singles)
	if len(singles) > 0 {
		p.singleJoined = singles[0].info.name
	}
	type routed struct {
		c    *component
		rt   *Route
		none bool
	}
	var rs []routed
	for _, c := range comps {
		groups, none, noRow, err := p.componentConditions(c)
		if err != nil {
			return err
		}
		rt := p.routeSkeleton(c.anchor.info)
		rt.Conditions = groups
		if none || noRow {
			if !p.adHoc() {
				if noRow {
					return p.errorf(p.conditionsOffset(c.anchor.info), "the sharding conditions on %q compare a sharding column with values no row of it can hold (e.g. 5.5 for an integer column)", c.anchor.info.name)
				}
				return p.errorf(p.conditionsOffset(c.anchor.info), "the sharding conditions on %q compare with NULL, which matches no row (NULL equals nothing; IS NULL tests it)", c.anchor.info.name)
			}
			rs = append(rs, routed{c: c, rt: rt, none: true})
			continue
		}
		if err := p.checkRanges(c.anchor.info, groups); err != nil {
			return err
		}
		if err := p.checkComplexColumns(c.anchor.info, groups); err != nil {
			return err
		}
		if !p.isSingleNode(rt) {
			return p.notColocated(c, comps, why)
		}
		rs = append(rs, routed{c: c, rt: rt})
	}
	ds := ""
	for _, s := range singles {
		if ds == "" {
			ds = s.info.singleDS
		} else if s.info.singleDS != ds {
			return p.errorAt(s.info.name, "single tables %q (data source %q) and %q (data source %q) live on different data sources and cannot be joined", singles[0].info.name, ds, s.info.name, s.info.singleDS)
		}
	}
	// The route follows the first table that has several actual tables on
	// a data source (the others are then named by data source), else the
	// first one; tables whose values match no row follow the others.
	main := -1
	for i := range rs {
		if !rs[i].none && (main < 0 || onePerDataSource(rs[main].c.anchor.info) && !onePerDataSource(rs[i].c.anchor.info)) {
			main = i
		}
	}
	if main < 0 {
		main = 0
	}
	rt := rs[main].rt
	mainInfo := rs[main].c.anchor.info
	rt.Kind = runtime.RouteSingleNode
	rt.Pushdown = true
	rt.Reason = "co-located pushdown (" + why + "): every table routes to one data node, where the statement runs whole"
	p.plan.Route = rt
	p.byDataSource = map[*tableInfo]bool{}
	unitDS := func(unit int) string { return mainInfo.route.Nodes()[unit].DataSource }
	firstOn := func(name string) []int {
		for i, n := range mainInfo.route.Nodes() {
			if n.DataSource == name {
				return []int{i}
			}
		}
		return nil
	}
	switch {
	case rs[main].none:
		rt.Conditions = nil
		rt.Fixed = []int{0}
		if ds != "" {
			rt.Fixed = firstOn(ds)
			if rt.Fixed == nil {
				return p.errorf(-1, "table %q has no data node on data source %q of single table %q", mainInfo.name, ds, singles[0].info.name)
			}
		}
	case literalOnly(rt.Conditions):
		fixed, err := p.nodesOf(mainInfo, rt.Conditions)
		if err != nil {
			return err
		}
		rt.Fixed = fixed
	}
	fixed := len(rt.Fixed) == 1
	for i, r := range rs {
		other := r.c.anchor.info
		same := sameLayout(mainInfo, other)
		for _, ref := range r.c.refs {
			if !same {
				if err := p.checkOnePerDataSource(ref.info, mainInfo, why); err != nil {
					return err
				}
				p.byDataSource[ref.info] = true
			}
		}
		if i == main || r.none {
			continue
		}
		if same {
			mapped := mapConditions(r.rt.Conditions, ruleColumns(other.rule), ruleColumns(mainInfo.rule))
			if reflect.DeepEqual(mapped, rt.Conditions) {
				continue
			}
			if fixed && literalOnly(mapped) {
				nodes, err := p.nodesOf(mainInfo, mapped)
				if err != nil {
					return err
				}
				if len(nodes) != 1 || nodes[0] != rt.Fixed[0] {
					return p.differentNodes(mainInfo.name, other.name, mainInfo.route.Nodes()[rt.Fixed[0]].String(), nodeNames(mainInfo, nodes), why, "")
				}
				continue
			}
			rt.Agree = append(rt.Agree, Agreement{Table: other.name, Router: mainInfo.name, Conditions: mapped, SameNode: true})
			continue
		}
		if fixed && literalOnly(r.rt.Conditions) {
			nodes, err := p.nodesOf(other, r.rt.Conditions)
			if err != nil {
				return err
			}
			if len(nodes) != 1 || other.route.Nodes()[nodes[0]].DataSource != unitDS(rt.Fixed[0]) {
				hint := ""
				if len(rt.Conditions) == 0 && len(r.rt.Conditions) == 0 {
					hint = "put them on one data source, or make one a broadcast table"
				}
				return p.differentNodes(mainInfo.name, other.name, mainInfo.route.Nodes()[rt.Fixed[0]].String(), nodeNames(other, nodes), why, hint)
			}
			continue
		}
		rt.Agree = append(rt.Agree, Agreement{Table: other.name, Router: other.name, Conditions: r.rt.Conditions})
	}
	if ds != "" && !rs[main].none {
		if fixed {
			if unitDS(rt.Fixed[0]) != ds {
				return p.differentNodes(mainInfo.name, singles[0].info.name, mainInfo.route.Nodes()[rt.Fixed[0]].String(), ds+"."+singles[0].info.name, why, fmt.Sprintf("make %q a broadcast table", singles[0].info.name))
			}
		} else {
			rt.Agree = append(rt.Agree, Agreement{Table: singles[0].info.name, DataSource: ds})
		}
	}
	return nil
}

// nodesOf is fixedNodes, for a table with one data node and no
// conditions that node.
func (p *planner) nodesOf(info *tableInfo, groups []Condition) ([]int, error) {
	if len(groups) == 0 && len(info.route.Nodes()) == 1 {
		return []int{0}, nil
	}
	return p.fixedNodes(info, groups)
}

// nodeNames prints data nodes of info by index, comma-separated.
func nodeNames(info *tableInfo, nodes []int) string {
	var names []string
	for _, n := range nodes {
		names = append(names, info.route.Nodes()[n].String())
	}
	if len(names) == 0 {
		return "no data node"
	}
	return strings.Join(names, ", ")
}

// differentNodes is the error of a pushed-down statement whose tables a
// and b route to different data nodes na and nb at plan time; fixed
// reports that neither has sharding conditions (one data node each), hint
// what else would make it run.
func (p *planner) differentNodes(a, b, na, nb, why, hint string) error {
	if hint != "" {
		hint = "; " + hint
	}
	return p.errorAt(b, "%s, so the statement must run whole on one data node, but %q routes to %s and %q to %s%s; evaluating it across data nodes is not supported yet", why, a, na, b, nb, hint)
}

// onePerDataSource reports whether a sharded table has at most one actual
// table on each data source.
func onePerDataSource(info *tableInfo) bool {
	count := map[string]int{}
	for _, n := range info.route.Nodes() {
		count[n.DataSource]++
		if count[n.DataSource] > 1 {
			return false
		}
	}
	return true
}

// checkOnePerDataSource refuses to push down a table whose actual table on the
// unit's data source is not determined by the data source alone.
func (p *planner) checkOnePerDataSource(info, main *tableInfo, why string) error {
	count := map[string]int{}
	for _, n := range info.route.Nodes() {
		count[n.DataSource]++
		if count[n.DataSource] > 1 {
			return p.errorf(-1, "%s, so the statement must run whole on one data node; %q is not bound to %q and has several actual tables on data source %q, so its actual table there cannot be chosen with the route of %q: bind the tables (bindingTables) or route both by the same table", why, info.name, main.name, n.DataSource, main.name)
		}
	}
	return nil
}

// mapConditions renames the sharding columns of conds from one table's
// (from) to another's at the same position (to).
func mapConditions(conds []Condition, from, to []string) []Condition {
	out := make([]Condition, len(conds))
	for i, c := range conds {
		out[i].Columns = make([]ColumnCondition, len(c.Columns))
		for j, cc := range c.Columns {
			for k, f := range from {
				if strings.EqualFold(f, cc.Column) && k < len(to) {
					cc.Column = to[k]
					break
				}
			}
			out[i].Columns[j] = cc
		}
	}
	return out
}

// pushdownWhy says why a statement must run whole on one data node.
func (p *planner) pushdownWhy(comps []*component, singles []*tableRef) string {
	kinds := map[scopeKind]bool{}
	for _, sc := range p.scopes {
		kinds[sc.kind] = true
	}
	_, union := p.stmt.(*sqlparser.Union)
	switch {
	case union:
		return "the statement is a UNION"
	case kinds[scopeInsertSelect]:
		return "INSERT … SELECT"
	case kinds[scopeDerived]:
		if p.cteInlined {
			return "the statement has a derived table (its common table expression)"
		}
		return "the statement has a derived table"
	case kinds[scopeSubquery]:
		return "the statement has a subquery"
	case p.preservedBroadcast != "":
		return fmt.Sprintf("broadcast table %q is kept whole by an outer join with sharded table %q (every data node would return its unmatched rows)", p.preservedBroadcast, comps[0].anchor.info.name)
	case len(comps) > 1:
		return fmt.Sprintf("%q and %q are joined without comparing their sharding columns", comps[0].anchor.info.name, comps[1].anchor.info.name)
	case len(singles) > 0:
		return fmt.Sprintf("sharded table %q is joined with single table %q", comps[0].anchor.info.name, singles[0].info.name)
	}
	return "the statement cannot spread over data nodes"
}

// notColocated is the error for a component that does not route to one
// data node in a statement that must run whole on one.
func (p *planner) notColocated(c *component, comps []*component, why string) error {
	info := c.anchor.info
	cols := strings.Join(ruleColumns(info.rule), ", ")
	kinds := map[scopeKind]bool{}
	for _, sc := range p.scopes {
		kinds[sc.kind] = true
	}
	if len(p.scopes) == 1 && len(comps) > 1 {
		a, b := comps[0].anchor.info, comps[1].anchor.info
		if c == comps[0] {
			b = comps[1].anchor.info
		} else {
			b = info
		}
		switch {
		case sameLayout(a, b):
			ca, cb := ruleColumns(a.rule), ruleColumns(b.rule)
			return p.errorAt(b.name, "join of %q and %q must compare their sharding columns (e.g. ON %s.%s = %s.%s) so matching rows are on one data node, or compare each table's sharding columns with one value (=) so both route to the same data node; evaluating the join across data nodes is not supported yet",
				a.name, b.name, a.name, first(ca), b.name, first(cb))
		case shardedAlike(a, b):
			if hint := p.bindingHint(a, b); hint != "" {
				return p.errorAt(b.name, "join of sharded tables %q and %q that are not bound: %s, or compare each table's sharding columns with one value (=) so both route to the same data node; evaluating the join across data nodes is not supported yet",
					a.name, b.name, hint)
			}
			return p.errorAt(b.name, "join of sharded tables %q and %q that are not bound: add bindingTables: [\"%s, %s\"] to the !SHARDING rule and join them on their sharding columns, or compare each table's sharding columns with one value (=) so both route to the same data node; evaluating the join across data nodes is not supported yet",
				a.name, b.name, a.name, b.name)
		default:
			return p.errorAt(b.name, "join of sharded tables %q (sharded by %s) and %q (sharded by %s): their rows are placed by different sharding rules, so binding them would not co-locate matching rows; compare each table's sharding columns with one value (=) so both route to one data node, or make one a broadcast table; evaluating the join across data nodes is not supported yet",
				a.name, strings.Join(ruleColumns(a.rule), ", "), b.name, strings.Join(ruleColumns(b.rule), ", "))
		}
	}
	hint := ""
	if p.singleJoined != "" {
		hint = fmt.Sprintf("; or make %q a broadcast table", p.singleJoined)
	}
	return p.errorAt(info.name, "%s, so the statement must run whole on one data node, but %q does not route to one: compare each of its sharding columns (%s) with one value (=) at its query level%s; evaluating it across data nodes is not supported yet", why, info.name, cols, hint)
}

// shardedAlike reports whether two sharded tables place rows by the same
// rule (same data nodes per data source, same algorithm types and
// properties on the same number of sharding columns), so binding them
// would co-locate rows with equal sharding values.
func shardedAlike(a, b *tableInfo) bool {
	if len(a.route.Nodes()) != len(b.route.Nodes()) || !reflect.DeepEqual(a.route.DataSources(), b.route.DataSources()) {
		return false
	}
	ra, rb := a.rule, b.rule
	for _, s := range [][2]*schema.Strategy{{ra.DatabaseStrategy, rb.DatabaseStrategy}, {ra.TableStrategy, rb.TableStrategy}} {
		x, y := strategyOf(s[0], nil, nil), strategyOf(s[1], nil, nil)
		if (x == nil) != (y == nil) {
			return false
		}
		if x != nil && (x.Kind != y.Kind || len(x.Columns) != len(y.Columns) || x.Type != y.Type || !reflect.DeepEqual(x.Props, y.Props)) {
			return false
		}
	}
	return true
}

// bindingHint is what would co-locate the join of a and b, two tables
// sharded alike but not bound, when binding them would not: the join
// compares a sharding column of one with a column of the other that is
// not its sharding column (shard that table by the joined column, then
// bind), or compares no sharding column at all (binding cannot help).
// It is "" when the join compares sharding columns with sharding columns,
// where bindingTables is the fix.
func (p *planner) bindingHint(a, b *tableInfo) string {
	ca, cb := ruleColumns(a.rule), ruleColumns(b.rule)
	shardingCol := func(c *colRef) (int, bool) {
		cols := ca
		if c.ref.info == b {
			cols = cb
		}
		for i, n := range cols {
			if strings.EqualFold(n, c.col.Name) {
				return i, true
			}
		}
		return -1, false
	}
	var exprs []sqlparser.Expr
	for _, sc := range p.scopes {
		exprs = append(append(exprs, conjuncts(sc.where)...), sc.ons...)
	}
	sharding, other := false, ""
	for _, e := range exprs {
		for _, conj := range conjuncts(e) {
			c, ok := conj.(*sqlparser.ComparisonExpr)
			if !ok || c.Operator != sqlparser.EqualOp {
				continue
			}
			l, r := p.colOf(c.Left), p.colOf(c.Right)
			if l == nil || r == nil || l.ref.info == r.ref.info || (l.ref.info != a && l.ref.info != b) || (r.ref.info != a && r.ref.info != b) {
				continue
			}
			il, sl := shardingCol(l)
			ir, sr := shardingCol(r)
			switch {
			case sl && sr && il == ir:
				sharding = true
			case sl && !sr && other == "":
				other = fmt.Sprintf("shard %q by %s (the column it joins with %s.%s) and bind the two (bindingTables)", r.ref.info.name, r.col.Name, l.ref.info.name, l.col.Name)
			case sr && !sl && other == "":
				other = fmt.Sprintf("shard %q by %s (the column it joins with %s.%s) and bind the two (bindingTables)", l.ref.info.name, l.col.Name, r.ref.info.name, r.col.Name)
			}
		}
	}
	switch {
	case sharding:
		return ""
	case other != "":
		return "binding them as they are would not co-locate matching rows (the join does not compare their sharding columns with each other): " + other
	}
	return fmt.Sprintf("the join compares no sharding column, so binding them would not co-locate matching rows: make %q or %q a broadcast table", a.name, b.name)
}
