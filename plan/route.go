package plan

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// route decides where the statement runs and fills Plan.Route (without SQL;
// rewrite adds it). The sharded tables of every query level are grouped
// into co-located components (colocate.go): one component whose rows all
// hang off the statement's own tables may run on several data nodes and
// be merged; anything else is pushed down whole to the one data node every
// table routes to.
func (p *planner) route() error {
	p.impliedConditions()
	var sharded, singles []*tableRef
	for _, r := range p.allRefs {
		switch {
		case r.info.derived != nil:
		case r.info.dual && r.scope != p.root: // SELECT 1 in a subquery
		case r.info.sharded():
			sharded = append(sharded, r)
		case r.info.broadcast:
		default:
			singles = append(singles, r)
		}
	}
	if len(sharded) == 0 {
		return p.routeUnsharded(singles)
	}
	sets, err := p.checkShardingKeyUpdate()
	if err != nil {
		return err
	}
	for _, r := range sharded {
		for _, s := range []*schema.Strategy{r.info.rule.DatabaseStrategy, r.info.rule.TableStrategy} {
			if s != nil && s.Kind == schema.StrategyHint && !p.hint.hasValues(r.info.name) {
				return p.errorf(0, "table %q uses a hint strategy: give its values in a comment before the statement, /* SHARDINGSPHERE_HINT: %s.SHARDING_DATABASE_VALUE=v, %s.SHARDING_TABLE_VALUE=v */", r.info.name, r.info.name, r.info.name)
			}
		}
	}
	comps := p.components(sharded)
	if len(comps) == 1 && len(singles) == 0 && p.preservedBroadcast == "" && p.spreadable(comps[0]) {
		return p.routeComponent(comps[0], sets)
	}
	if len(sets) > 0 {
		return sets[0].refusal(p)
	}
	return p.routePushdown(comps, singles)
}

// routeSkeleton returns the route of a sharded table without conditions:
// its data sources, data node layout and strategies.
func (p *planner) routeSkeleton(info *tableInfo) *Route {
	rt := &Route{LogicTable: info.name, DataSources: info.route.DataSources()}
	rt.Database = strategyOf(info.rule.DatabaseStrategy, rt.DataSources, nil)
	tableTargets := make([][]string, len(rt.DataSources))
	for i, n := range info.route.Nodes() {
		d := info.route.DataSourceOf(i)
		tableTargets[d] = append(tableTargets[d], n.Table)
		for len(rt.Nodes) <= d {
			rt.Nodes = append(rt.Nodes, nil)
		}
		rt.Nodes[d] = append(rt.Nodes[d], i)
	}
	rt.Table = strategyOf(info.rule.TableStrategy, nil, tableTargets)
	return rt
}

// routeComponent routes a statement whose sharded tables form one
// co-located component anchored at a table of the statement's own level:
// by the sharding conditions of that level, possibly on several data
// nodes.
func (p *planner) routeComponent(c *component, sets []keySet) error {
	primary := c.anchor
	info := primary.info
	rt := p.routeSkeleton(info)
	p.plan.Route = rt
	groups, none, noRow, err := p.componentConditions(c)
	if err != nil {
		return err
	}
	if none || noRow {
		// Every OR branch compares a sharding column with NULL (`= NULL`,
		// `IN (NULL)`, `> NULL`) or with a value no row of the column can
		// hold (`user_id = 5.5`): MySQL matches no row.
		fileMsg := "the sharding conditions on %q compare with NULL, which matches no row (NULL equals nothing; IS NULL tests it): the statement would run on no data node"
		rt.Reason = "every sharding condition compares with NULL, which matches no row: the statement runs on no data node (no rows)"
		if noRow {
			fileMsg = "the sharding conditions on %q compare a sharding column with values no row of it can hold (e.g. 5.5 for an integer column, or a date range whose lower bound is after its upper): the statement would run on no data node"
			rt.Reason = "every sharding condition compares with a value no row of the column can hold: the statement runs on no data node (no rows)"
		}
		if !p.adHoc() {
			return p.errorf(p.conditionsOffset(info), fileMsg, info.name)
		}
		rt.Kind = runtime.RouteSingleNode
		rt.Fixed = []int{}
		if p.rowOverNoRows() {
			// COUNT(*) over no rows is a row of 0: the first data node
			// answers it, matching no row either.
			rt.Fixed = []int{0}
			rt.Reason += "; an aggregate without GROUP BY still returns its row, so the first data node answers"
		}
		return nil
	}
	rt.Conditions = groups
	if err := p.checkRanges(info, groups); err != nil {
		return err
	}
	if err := p.checkComplexColumns(info, groups); err != nil {
		return err
	}
	if hasHintStrategy(info) {
		if len(sets) > 0 {
			return sets[0].refusal(p) // hint values say nothing of the rows' new place
		}
		return p.routeHinted(info, rt, groups)
	}
	single := p.isSingleNode(rt) && p.plan.Insert == nil
	switch {
	case len(groups) == 0 && !single:
		rt.Kind = runtime.RouteAllNodes
		if !p.q.AllowFullRoute {
			return p.errorf(p.conditionsOffset(info), "no sharding condition on table %q (sharding columns: %s): it would run on all %d data nodes; add `=` or IN on a sharding column, or annotate the query with -- %s",
				info.name, strings.Join(shardingColumns(rt), ", "), len(info.route.Nodes()), schema.AnnotationAllowFullRoute)
		}
		rt.Reason = "no sharding condition; full route allowed by -- " + schema.AnnotationAllowFullRoute
	case single:
		rt.Kind = runtime.RouteSingleNode
	default:
		rt.Kind = runtime.RouteMultiNode
	}
	if rt.Kind != runtime.RouteSingleNode {
		if err := p.checkNoMerge(info); err != nil {
			return err
		}
	}
	if literalOnly(groups) && len(groups) > 0 {
		fixed, err := p.fixedNodes(info, groups)
		if err != nil {
			return err
		}
		rt.Fixed = fixed
		if len(fixed) == 0 {
			rt.Reason = "the sharding conditions reach no data node: the statement runs on none (no rows)"
		}
	}
	if single && len(groups) == 0 {
		rt.Fixed = []int{0}
	}
	if len(sets) > 0 {
		if sets[0].table != info {
			return sets[0].refusal(p)
		}
		return p.shardingUpdate(info, rt, sets)
	}
	return nil
}

// hasHintStrategy reports whether a sharded table routes a side by hint
// values.
func hasHintStrategy(info *tableInfo) bool {
	for _, s := range []*schema.Strategy{info.rule.DatabaseStrategy, info.rule.TableStrategy} {
		if s != nil && s.Kind == schema.StrategyHint {
			return true
		}
	}
	return false
}

// routeHinted routes a table with a hint strategy by the statement's
// SHARDINGSPHERE_HINT values (and its literal conditions for a side with
// another strategy), at plan time: the route is fixed.
func (p *planner) routeHinted(info *tableInfo, rt *Route, groups []Condition) error {
	if !literalOnly(groups) {
		return p.errorf(p.conditionsOffset(info), "table %q routes by hint values; its other sharding conditions must be literals, not parameters", info.name)
	}
	fixed, err := p.routeFixed(info, groups, p.hint.values(info.name))
	if err != nil {
		return err
	}
	rt.Fixed = fixed
	rt.Reason = "routed by SHARDINGSPHERE_HINT values"
	rt.Kind = runtime.RouteSingleNode
	if len(fixed) != 1 {
		rt.Kind = runtime.RouteMultiNode
		return p.checkNoMerge(info)
	}
	return nil
}

// shardingUpdate plans an UPDATE that sets sharding columns (sets, in SET
// order): Route.Update, checked at run time, or, when every value is a
// literal, checked now. A full route over several data nodes is refused
// now: its rows could stay only by chance.
func (p *planner) shardingUpdate(info *tableInfo, rt *Route, sets []keySet) error {
	if rt.Fixed != nil && len(rt.Fixed) == 0 {
		return nil // the statement runs nowhere
	}
	u := &ShardingUpdate{}
	var setCols []string
	for _, s := range sets {
		setCols = append(setCols, s.column)
		u.Set.Columns = append(u.Set.Columns, ColumnCondition{Column: s.column, Values: []Operand{s.value}})
	}
	if rt.Kind == runtime.RouteAllNodes && len(info.route.Nodes()) > 1 {
		return p.errorAt(sets[0].column, "UPDATE sets sharding column %s of table %q with no sharding condition: it would run on all %d data nodes and rows would have to move to other data nodes; compare the sharding columns with = so that it reaches one data node, or delete and re-insert the rows",
			strings.Join(setCols, ", "), info.name, len(info.route.Nodes()))
	}
	groups := rt.Conditions
	if len(groups) == 0 {
		groups = []Condition{{}}
	}
	for _, g := range groups {
		var c Condition
		for _, cc := range g.Columns {
			if !containsFold(setCols, cc.Column) {
				c.Columns = append(c.Columns, cc)
			}
		}
		c.Columns = append(c.Columns, u.Set.Columns...)
		u.Conditions = append(u.Conditions, c)
	}
	// The new values are stored: convert literals as the server stores them.
	set, err := p.storedLiterals(info.name, []Condition{u.Set})
	if err != nil {
		return err
	}
	u.Set = set[0]
	for i := range u.Conditions {
		cols := u.Conditions[i].Columns
		copy(cols[len(cols)-len(u.Set.Columns):], u.Set.Columns)
	}
	if rt.Fixed != nil && literalOnly([]Condition{u.Set}) && literalOnly(u.Conditions) {
		// Known now: refuse a row that would move, else run as it is.
		if err := info.route.UpdateStaysOnNode(info.name, rt.Fixed, runtimeGroups([]Condition{u.Set})[0], runtimeGroups(u.Conditions)); err != nil {
			return p.errorAt(sets[0].column, "%v", err)
		}
		return nil
	}
	rt.Update = u
	return nil
}

// runtimeGroups converts conditions whose operands are all literals to
// the runtime's sharding values.
func runtimeGroups(groups []Condition) [][]runtime.ShardingValues {
	out := make([][]runtime.ShardingValues, len(groups))
	for i, g := range groups {
		for _, c := range g.Columns {
			sv := runtime.ShardingValues{Column: c.Column}
			for _, v := range c.Values {
				sv.Values = append(sv.Values, *v.Literal)
			}
			if c.Range != nil {
				r := &runtime.Range{LowerOpen: c.Range.LowerOpen, UpperOpen: c.Range.UpperOpen}
				if c.Range.Lower != nil {
					r.Lower, r.HasLower = *c.Range.Lower.Literal, true
				}
				if c.Range.Upper != nil {
					r.Upper, r.HasUpper = *c.Range.Upper.Literal, true
				}
				sv.Range = r
			}
			out[i] = append(out[i], sv)
		}
	}
	return out
}

// routeUnsharded routes statements over broadcast and single tables only.
func (p *planner) routeUnsharded(singles []*tableRef) error {
	if len(singles) == 0 { // broadcast tables only
		rt := &Route{Kind: runtime.RouteBroadcast, LogicTable: p.refs[0].info.name, DataSources: p.b.logicDataSources()}
		for i := range rt.DataSources {
			rt.Units = append(rt.Units, Unit{DataSource: i, Node: rt.DataSources[i] + "." + p.refs[0].info.name})
		}
		if p.plan.Statement == StmtSelect {
			rt.Fixed = []int{0}
			rt.Reason = "broadcast table: reads go to one data source"
		} else {
			for i := range rt.Units {
				rt.Fixed = append(rt.Fixed, i)
			}
			rt.Reason = "broadcast table: writes go to every data source"
		}
		p.plan.Route = rt
		return nil
	}
	ds := singles[0].info.singleDS
	for _, s := range singles[1:] {
		if s.info.singleDS != ds {
			return p.errorAt(s.info.name, "single tables %q (data source %q) and %q (data source %q) live on different data sources and cannot be joined", singles[0].info.name, ds, s.info.name, s.info.singleDS)
		}
	}
	p.plan.Route = &Route{
		Kind: runtime.RouteSingleTable, LogicTable: singles[0].info.name, DataSources: []string{ds},
		Units:  []Unit{{DataSource: 0, Node: ds + "." + singles[0].info.name}},
		Fixed:  []int{0},
		Reason: "single table on data source " + ds,
	}
	return nil
}

// logicDataSources returns the data sources a broadcast table lives on:
// the configuration's logic data sources (read/write groups in place of
// their members).
func (b *Builder) logicDataSources() []string { return b.cfg.LogicDataSources }

func strategyOf(s *schema.Strategy, targets []string, tableTargets [][]string) *Strategy {
	if s == nil || s.Kind == schema.StrategyNone {
		return nil
	}
	out := &Strategy{Kind: s.Kind, Columns: s.Columns, Algorithm: s.AlgorithmName, Targets: targets, TableTargets: tableTargets}
	if s.Algorithm != nil {
		out.Type = s.Algorithm.Type
		out.Props = s.Algorithm.Props
		if s.Kind == schema.StrategyStandard && len(s.Columns) == 1 {
			lists := tableTargets
			if lists == nil {
				lists = [][]string{targets}
			}
			out.Inline = inlineOf(s.Algorithm.Sharding, s.Columns[0], lists)
		}
	}
	return out
}

// inlineOf computes the inline form of a standard algorithm over every
// target list, or nil when it cannot be inlined or the lists disagree.
func inlineOf(alg runtime.Algorithm, column string, lists [][]string) *Inline {
	in, ok := alg.(runtime.Inlinable)
	if !ok {
		return nil
	}
	std, ok := alg.(runtime.StandardAlgorithm)
	if !ok {
		return nil
	}
	fn, n, ok := in.IntegerInline(column)
	if !ok || n <= 0 || n > 1<<16 {
		return nil
	}
	var index []int
	for li, targets := range lists {
		r, err := std.BindStandard(column, targets)
		if err != nil {
			return nil
		}
		idx := make([]int, n)
		for i := range idx {
			t, err := r.Precise(runtime.Long(int64(i)))
			if err != nil {
				t = -1
			}
			idx[i] = t
		}
		if li == 0 {
			index = idx
		} else if !slices.Equal(index, idx) {
			return nil
		}
	}
	identity := len(index) == len(lists[0])
	for i, t := range index {
		if t != i {
			identity = false
		}
	}
	return &Inline{Func: fn, Modulus: n, Index: index, Identity: identity}
}

func shardingColumns(rt *Route) []string {
	var cols []string
	for _, s := range []*Strategy{rt.Database, rt.Table} {
		if s != nil {
			for _, c := range s.Columns {
				if !containsFold(cols, c) {
					cols = append(cols, c)
				}
			}
		}
	}
	return cols
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func first(s []string) string {
	if len(s) == 0 {
		return "?"
	}
	return s[0]
}

// ruleColumns lists a table rule's sharding columns, database side first.
func ruleColumns(r *schema.TableRule) []string {
	var out []string
	for _, s := range []*schema.Strategy{r.DatabaseStrategy, r.TableStrategy} {
		if s != nil {
			for _, c := range s.Columns {
				if !containsFold(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

func conjuncts(e sqlparser.Expr) []sqlparser.Expr {
	if a, ok := e.(*sqlparser.AndExpr); ok {
		return append(conjuncts(a.Left), conjuncts(a.Right)...)
	}
	if e == nil {
		return nil
	}
	return []sqlparser.Expr{e}
}

// keySet is one sharding column a single-table UPDATE sets, and its new
// value.
type keySet struct {
	table  *tableInfo
	column string // as the rule names it
	value  Operand
}

// refusal is the error of a SET of the column where it cannot stay.
func (k keySet) refusal(p *planner) error {
	return p.errorAt(k.column, "UPDATE sets sharding column %q of table %q: the row would have to move to another data node; delete and re-insert it instead", k.column, k.table.name)
}

// checkShardingKeyUpdate returns the sharding columns a single-table UPDATE
// sets to a literal or a parameter, which ShardingSphere allows where the
// row stays on its data node (shardingUpdate plans the check). Setting one
// to an expression or to NULL, in a multi-table UPDATE or in ON DUPLICATE
// KEY UPDATE is refused (the row would have to move to another data node).
func (p *planner) checkShardingKeyUpdate() ([]keySet, error) {
	var exprs sqlparser.UpdateExprs
	upd := false
	switch s := p.stmt.(type) {
	case *sqlparser.Update:
		exprs, upd = s.Exprs, len(p.refs) == 1
	case *sqlparser.Insert:
		exprs = sqlparser.UpdateExprs(s.OnDup) // ON DUPLICATE KEY UPDATE
	}
	var sets []keySet
	for _, e := range exprs {
		c := p.cols[e.Name]
		if c == nil && len(p.refs) == 1 {
			if col := p.refs[0].info.ddl.Column(e.Name.Name.String()); col != nil {
				c = &colRef{ref: p.refs[0], col: col}
			}
		}
		if c == nil || !c.ref.info.sharded() {
			continue
		}
		cols := ruleColumns(c.ref.info.rule)
		i := slices.IndexFunc(cols, func(s string) bool { return strings.EqualFold(s, c.col.Name) })
		if i < 0 {
			continue
		}
		k := keySet{table: c.ref.info, column: cols[i]}
		o, ok := p.operand(e.Expr)
		if !upd || !ok || o.Literal != nil && o.Literal.IsNull() {
			k.column = c.col.Name
			return nil, k.refusal(p)
		}
		k.value = o
		sets = append(sets, k)
	}
	return sets, nil
}

// shardingConditions extracts the sharding conditions on the primary table
// (and its binding tables) in disjunctive normal form. An empty result
// means no usable condition: every OR branch must constrain a sharding column
// or the whole condition is dropped (ShardingSphere's rule).
//
// In a WHERE, a NULL literal compared with a sharding column matches no
// row, as in MySQL: it is dropped from an IN list, and an OR branch where a
// sharding column is left with no value (`= NULL`, `IN (NULL, NULL)`) or has
// a NULL range bound is dropped; none reports that every branch was dropped
// (the statement reaches no data node). An INSERT's NULL sharding value is an
// error.
//
// Only atoms on the tables of members count (nil: every table); where is
// the condition of the query level the rows come from.
func (p *planner) shardingConditions(primary *tableRef, members map[*tableRef]bool, where sqlparser.Expr) (groups []Condition, none bool, err error) {
	cols := ruleColumns(primary.info.rule)
	dnf, ok := p.dnf(where)
	if !ok {
		return nil, false, nil
	}
	var out []Condition
	dropped := false
groups:
	for _, g := range dnf {
		var cond Condition
		for _, a := range g {
			if members != nil && !members[a.col.ref] {
				continue
			}
			col, ok := p.primaryColumn(primary, a.col, cols)
			if !ok {
				continue
			}
			values, unsatisfiable := nonNullOperands(a)
			if unsatisfiable {
				dropped = true
				continue groups // `col = NULL` is never true: this branch matches no row
			}
			if hasColumn(cond, col) {
				continue // a second predicate on the same column: keep the first (a superset route)
			}
			cond.Columns = append(cond.Columns, ColumnCondition{Column: col, Values: values, Range: a.rng, Binary: a.binary})
		}
		if len(cond.Columns) == 0 {
			return nil, false, nil // one OR branch without a sharding condition: full route
		}
		if slices.ContainsFunc(out, func(c Condition) bool { return reflect.DeepEqual(c, cond) }) {
			// user_id = ? AND (tag = ? OR score > 3) is two OR branches
			// with the same sharding condition: one route, one data node.
			continue
		}
		out = append(out, cond)
	}
	return out, dropped && len(out) == 0, nil
}

// nonNullOperands returns the values of a without its NULL literals, and
// whether a can match no row: every value was NULL, or a range bound is
// NULL (MySQL's comparison with NULL is never true). a.values is not
// modified.
func nonNullOperands(a atom) ([]Operand, bool) {
	isNull := func(o *Operand) bool { return o != nil && o.Literal != nil && o.Literal.IsNull() }
	if r := a.rng; r != nil && (isNull(r.Lower) || isNull(r.Upper)) {
		return nil, true
	}
	var out []Operand
	for i := range a.values {
		if !isNull(&a.values[i]) {
			out = append(out, a.values[i])
		}
	}
	if len(out) == len(a.values) {
		return a.values, false
	}
	return out, len(out) == 0
}

// insertConditions returns one condition per VALUES row of an INSERT: the
// value of every sharding column, which must be given, be a literal or a
// parameter, and not be the NULL literal.
func (p *planner) insertConditions(primary *tableRef, ins *sqlparser.Insert, cols []string) ([]Condition, error) {
	rows, ok := ins.Rows.(sqlparser.Values)
	if !ok {
		return nil, p.errorf(-1, "internal error: INSERT … SELECT has no VALUES rows")
	}
	var conds []Condition
	for _, row := range rows {
		var cond Condition
		for _, col := range cols {
			idx := -1
			for i, c := range ins.Columns {
				if strings.EqualFold(c.String(), col) {
					idx = i
				}
			}
			if len(ins.Columns) == 0 {
				for i, c := range primary.info.ddl.VisibleColumns() {
					if strings.EqualFold(c.Name, col) {
						idx = i
					}
				}
			}
			if idx < 0 {
				return nil, p.errorAt(primary.info.name, "INSERT into sharded table %q must give sharding column %q", primary.info.name, col)
			}
			o, ok := p.operand(row[idx])
			if !ok {
				return nil, p.errorIn("VALUES", row[idx], "INSERT into sharded table %q: the value of sharding column %q must be a literal or a parameter", primary.info.name, col)
			}
			if o.Literal != nil && o.Literal.IsNull() {
				return nil, p.errorIn("VALUES", row[idx], "INSERT into sharded table %q: sharding column %q must not be NULL", primary.info.name, col)
			}
			cond.Columns = append(cond.Columns, ColumnCondition{Column: col, Values: []Operand{o}})
		}
		conds = append(conds, cond)
	}
	if len(rows) > 1 || p.q.Cmd == schema.CmdCopyFrom {
		// :copyfrom: its one row is repeated per row at run time.
		p.plan.Insert = &InsertPlan{}
	}
	return conds, nil
}

func hasColumn(c Condition, col string) bool {
	for _, cc := range c.Columns {
		if strings.EqualFold(cc.Column, col) {
			return true
		}
	}
	return false
}

// primaryColumn maps a column of the primary table or of a table bound to it
// onto the primary's sharding column at the same position.
func (p *planner) primaryColumn(primary *tableRef, c *colRef, cols []string) (string, bool) {
	if c.ref.info == primary.info {
		for _, col := range cols {
			if strings.EqualFold(col, c.col.Name) {
				return col, true
			}
		}
		return "", false
	}
	if c.ref.info.sharded() && c.ref.info.binding != nil && c.ref.info.binding == primary.info.binding {
		other := ruleColumns(c.ref.info.rule)
		for i, col := range other {
			if strings.EqualFold(col, c.col.Name) && i < len(cols) {
				return cols[i], true
			}
		}
	}
	return "", false
}

// isSingleNode reports whether the route surely reaches one data node: one
// AND-group giving every standard sharding column exactly one value, and any
// side without a condition having one target.
func (p *planner) isSingleNode(rt *Route) bool {
	if len(rt.Conditions) > 1 {
		return false
	}
	var cond Condition
	if len(rt.Conditions) == 1 {
		cond = rt.Conditions[0]
	}
	side := func(s *Strategy, targets int) bool {
		if s == nil {
			return targets == 1
		}
		if s.Kind != schema.StrategyStandard {
			return false
		}
		for _, cc := range cond.Columns {
			if strings.EqualFold(cc.Column, s.Columns[0]) {
				return cc.Range == nil && len(cc.Values) == 1 && !p.isSliceOperand(cc.Values[0])
			}
		}
		return targets == 1
	}
	maxTables := 0
	for _, n := range rt.Nodes {
		maxTables = max(maxTables, len(n))
	}
	return side(rt.Database, len(rt.DataSources)) && side(rt.Table, maxTables)
}

// limitedWriteError refuses an UPDATE or DELETE with LIMIT (and ORDER BY)
// that reaches several data nodes of info: each node would apply its own
// LIMIT, so up to LIMIT rows per node would change instead of LIMIT rows in
// all (and not the first ones in the ORDER BY), and a write that changes
// some nodes and then fails cannot be made exact afterwards. It names what
// runs instead.
func (p *planner) limitedWriteError(kind string, info *tableInfo) error {
	return p.errorAt("LIMIT", "%s ... LIMIT over several data nodes of %q is not supported: each data node would apply its own LIMIT, changing more rows than one MySQL would; compare every sharding column (%s) with one value so it routes to one data node, or SELECT the keys ... ORDER BY ... LIMIT first and %s those rows by key", kind, info.name, strings.Join(ruleColumns(info.rule), ", "), strings.ToLower(kind))
}

// checkNoMerge plans the merge of a SELECT that reaches several data nodes
// and needs its results merged, and refuses what ShardingSphere forbids
// across nodes.
func (p *planner) checkNoMerge(info *tableInfo) error {
	why := ""
	switch s := p.stmt.(type) {
	case *sqlparser.Select:
		if hasWindow(s) && !p.windowsColocated(s, info) {
			return p.errorAt("OVER", "a window function over several data nodes of %q needs a PARTITION BY of every sharding column (%s), so that each partition is on one data node; or compare the sharding columns with one value so the statement routes to one data node", info.name, strings.Join(ruleColumns(info.rule), ", "))
		}
		dropOrderByNull(s)
		if why = mergeNeeded(s); why != "" {
			return p.planMerge(s)
		}
	case *sqlparser.Update:
		if s.Limit != nil {
			return p.limitedWriteError("UPDATE", info)
		}
	case *sqlparser.Delete:
		if s.Limit != nil {
			return p.limitedWriteError("DELETE", info)
		}
	}
	return nil
}

func literalOnly(groups []Condition) bool {
	for _, g := range groups {
		for _, c := range g.Columns {
			for _, v := range c.Values {
				if v.Literal == nil {
					return false
				}
			}
			if c.Range != nil {
				for _, b := range []*Operand{c.Range.Lower, c.Range.Upper} {
					if b != nil && b.Literal == nil {
						return false
					}
				}
			}
		}
	}
	return true
}

// fixedNodes computes the route of literal-only conditions at generate time.
func (p *planner) fixedNodes(info *tableInfo, groups []Condition) ([]int, error) {
	return p.routeFixed(info, groups, runtime.HintValues{})
}

// routeFixed is fixedNodes with hint values.
func (p *planner) routeFixed(info *tableInfo, groups []Condition, hints runtime.HintValues) ([]int, error) {
	vals := runtimeGroups(groups)
	route := info.route.RouteConditions
	if p.plan.Statement == StmtInsert {
		route = info.route.RouteAll // a row's NULL is an error, not "no row"
	}
	if len(vals) == 0 {
		vals = [][]runtime.ShardingValues{nil} // no condition: the hint values alone decide
	}
	nodes, err := route(vals, hints)
	if err != nil {
		return nil, p.errorf(p.conditionsOffset(info), "routing table %q: %v", info.name, err)
	}
	if len(nodes) == 0 {
		if p.adHoc() && p.plan.Statement != StmtInsert {
			return []int{}, nil // MySQL returns no rows for `BETWEEN 30 AND 10`
		}
		return nil, p.errorf(p.conditionsOffset(info), "the sharding conditions on %q reach no data node", info.name)
	}
	return nodes, nil
}

// AdHocFile is the Pos.File of a statement that comes from no query file:
// one the proxy or `shardgen preview` plans at run time. The planner treats
// such a statement as MySQL would any statement, where a query file gets
// compile-time checks:
//   - literal sharding conditions that reach no data node (`id BETWEEN 30
//     AND 10`) plan an empty fixed route (Route.Fixed empty, not nil): no
//     rows, nothing changed; an INSERT is still refused;
//   - literal sharding conditions that match no row (`user_id = 5.5` on an
//     integer column) plan the same empty route.
//
// In every statement a literal is converted for its sharding column as
// MySQL compares it (Builder.convertLiterals): `user_id = '5'` routes as 5,
// a string compared with a DATE column as its date.
const AdHocFile = "<sql>"

// adHoc reports whether the statement is an ad-hoc one (AdHocFile).
func (p *planner) adHoc() bool { return p.q.Pos.File == AdHocFile }

// DateTimeValue returns the time MySQL converts the string s to when it
// compares it with a DATE, DATETIME or TIMESTAMP column, as a KindTime
// sharding value in UTC (runtime.ParseDateTime lists the forms it reads:
// '2026-02-01', '20260201', '2026/2/1 0:0:0', ...). ok is false for any
// other form, zero dates and impossible dates, which stay a String (and
// route to every target of such a column).
func DateTimeValue(s string) (v runtime.Value, ok bool) {
	t, ok := runtime.ParseDateTime(s)
	if !ok {
		return runtime.Value{}, false
	}
	return runtime.Time(t), true
}

// describe is used in error messages about literal operands.
func (o Operand) describe(params []*Param) string {
	if o.Literal != nil {
		return o.Literal.Text()
	}
	if o.Param >= 0 && o.Param < len(params) {
		return params[o.Param].Name
	}
	return fmt.Sprint(o.Param)
}

// checkRanges refuses a range condition (BETWEEN, <, >) on a column whose
// INLINE algorithm does not allow ranges: ShardingSphere would fail every
// execution; shardgen says so at generate time.
func (p *planner) checkRanges(info *tableInfo, groups []Condition) error {
	for _, s := range []*schema.Strategy{info.rule.DatabaseStrategy, info.rule.TableStrategy} {
		if s == nil || s.Kind != schema.StrategyStandard || s.Algorithm == nil || len(s.Columns) != 1 {
			continue
		}
		alg, ok := s.Algorithm.Sharding.(*runtime.InlineAlgorithm)
		if !ok || alg.AllowRangeQuery() {
			continue
		}
		for _, g := range groups {
			for _, c := range g.Columns {
				if c.Range != nil && strings.EqualFold(c.Column, s.Columns[0]) {
					return p.errorAt(c.Column, "a range condition on sharding column %q cannot be routed by INLINE algorithm %q: compare it with = or IN, or set allow-range-query-with-inline-sharding: true (then the range reaches every data node)", c.Column, s.AlgorithmName)
				}
			}
		}
	}
	return nil
}

// checkComplexColumns refuses an AND-group that gives a complex strategy
// of table info = or IN values for some of its columns but not for one its
// COMPLEX_INLINE expression reads or its sharding-columns lists
// (runtime.ShardingTable.CheckColumns): ShardingSphere would fail every
// execution, whatever the values, so shardgen says so at generate time, and
// the proxy when it plans the statement. An INSERT's rows give every
// sharding column (insertConditions refuses one that does not).
func (p *planner) checkComplexColumns(info *tableInfo, groups []Condition) error {
	if p.plan.Statement == StmtInsert || info.route == nil {
		return nil
	}
	for _, g := range groups {
		var valued, ranged []string
		for _, c := range g.Columns {
			if c.Range != nil {
				ranged = append(ranged, c.Column)
			}
			if len(c.Values) > 0 {
				valued = append(valued, c.Column)
			}
		}
		if err := info.route.CheckColumns(valued, ranged); err != nil {
			return p.errorf(p.conditionsOffset(info), "routing table %q: %v", info.name, err)
		}
	}
	return nil
}

// conditionsOffset is where an error about the sharding conditions of
// table info points: the VALUES (or SELECT) of an INSERT, else the WHERE
// after the table's name, else the name (a statement without WHERE).
func (p *planner) conditionsOffset(info *tableInfo) int {
	if p.plan.Statement == StmtInsert {
		if off := p.findWord("VALUES"); off >= 0 {
			return off
		}
		return p.findWord("SELECT")
	}
	name := p.findWord(info.name)
	if off := p.findWordFrom("WHERE", name); off >= 0 {
		return off
	}
	return name
}
