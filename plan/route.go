package plan

import (
	"fmt"
	"slices"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// route decides where the statement runs and fills Plan.Route (without SQL;
// rewrite adds it).
func (p *planner) route() error {
	var primary *tableRef
	var singles []*tableRef
	for _, r := range p.refs {
		switch {
		case r.info.sharded():
			if primary == nil {
				primary = r
			} else if err := p.checkBound(primary, r); err != nil {
				return err
			}
		case r.info.broadcast:
		default:
			singles = append(singles, r)
		}
	}
	if primary == nil {
		return p.routeUnsharded(singles)
	}
	for _, s := range singles {
		if nodes := primary.info.route.Nodes(); len(nodes) == 1 && nodes[0].DataSource == s.info.singleDS {
			continue // one data node beside the single table: the join runs there
		}
		return p.errorAt(s.info.name, "join of sharded table %q with single table %q (on data source %q) cannot run on one data node: make %q a broadcast table", primary.info.name, s.info.name, s.info.singleDS, s.info.name)
	}
	info := primary.info
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
	p.plan.Route = rt
	for _, s := range []*Strategy{rt.Database, rt.Table} {
		if s != nil && s.Kind == schema.StrategyHint {
			return p.errorf(-1, "table %q uses a hint strategy, which generated code does not support yet", info.name)
		}
	}
	if err := p.checkShardingKeyUpdate(primary); err != nil {
		return err
	}
	groups, none, err := p.shardingConditions(primary)
	if err != nil {
		return err
	}
	noRow := false // every group compares with a value no row can hold
	if p.plan.Statement == StmtInsert {
		if groups, err = p.storedLiterals(info.name, groups); err != nil {
			return err
		}
	} else if !none {
		groups, noRow = p.b.convertLiterals(info.name, groups)
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
			return p.errorf(-1, fileMsg, info.name)
		}
		rt.Kind = runtime.RouteSingleNode
		rt.Fixed = []int{}
		return nil
	}
	rt.Conditions = groups
	if err := p.checkRanges(info, groups); err != nil {
		return err
	}
	single := p.isSingleNode(rt) && p.plan.Insert == nil
	switch {
	case len(groups) == 0 && !single:
		rt.Kind = runtime.RouteAllNodes
		if !p.q.AllowFullRoute {
			return p.errorf(-1, "no sharding condition on table %q (sharding columns: %s): it would run on all %d data nodes; add `=` or IN on a sharding column, or annotate the query with -- %s",
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
	return nil
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

// checkBound refuses a join of two sharded tables that are not in one
// binding group, and a binding-group join that does not compare the tables'
// sharding columns (rows would not be co-located). Two tables that have a
// single data node each need neither: on one data source the join runs
// there as it is (ShardingSphere's route engines give one route unit);
// on two data sources it is refused.
func (p *planner) checkBound(primary, other *tableRef) error {
	a, b := primary.info, other.info
	if a == b {
		return p.errorAt(b.name, "self-join of sharded table %q is not supported yet", a.name)
	}
	if na, nb := a.route.Nodes(), b.route.Nodes(); len(na) == 1 && len(nb) == 1 {
		if na[0].DataSource != nb[0].DataSource {
			return p.errorAt(b.name, "join of tables %q (data node %s) and %q (data node %s) on different data sources cannot run on one data node: put them on one data source, or make one a broadcast table", a.name, na[0], b.name, nb[0])
		}
		return nil
	}
	if a.binding == nil || a.binding != b.binding {
		return p.errorAt(b.name, "join of sharded tables %q and %q that are not bound: add bindingTables: [\"%s, %s\"] to the !SHARDING rule (their data nodes must line up), or make one a broadcast table", a.name, b.name, a.name, b.name)
	}
	colsA, colsB := ruleColumns(a.rule), ruleColumns(b.rule)
	found := false
	check := func(e sqlparser.Expr) {
		for _, conj := range conjuncts(e) {
			c, ok := conj.(*sqlparser.ComparisonExpr)
			if !ok || c.Operator != sqlparser.EqualOp {
				continue
			}
			l, r := p.colOf(c.Left), p.colOf(c.Right)
			if l == nil || r == nil {
				continue
			}
			if l.ref == other {
				l, r = r, l
			}
			if l.ref == primary && r.ref == other {
				for i := range colsA {
					if i < len(colsB) && strings.EqualFold(l.col.Name, colsA[i]) && strings.EqualFold(r.col.Name, colsB[i]) {
						found = true
					}
				}
			}
		}
	}
	for _, on := range p.ons {
		check(on)
	}
	if w := p.whereOf(); w != nil {
		check(w)
	}
	if !found {
		return p.errorAt(b.name, "join of bound tables %q and %q must compare their sharding columns (e.g. ON %s.%s = %s.%s)", a.name, b.name, a.name, first(colsA), b.name, first(colsB))
	}
	return nil
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

// checkShardingKeyUpdate refuses UPDATE ... SET of a sharding column (the
// row would have to move to another data node).
func (p *planner) checkShardingKeyUpdate(primary *tableRef) error {
	var exprs sqlparser.UpdateExprs
	switch s := p.stmt.(type) {
	case *sqlparser.Update:
		exprs = s.Exprs
	case *sqlparser.Insert:
		exprs = sqlparser.UpdateExprs(s.OnDup) // ON DUPLICATE KEY UPDATE
	}
	cols := ruleColumns(primary.info.rule)
	for _, e := range exprs {
		if c := p.cols[e.Name]; c != nil && containsFold(cols, c.col.Name) {
			return p.errorAt(c.col.Name, "UPDATE sets sharding column %q of table %q: the row would have to move to another data node; delete and re-insert it instead", c.col.Name, primary.info.name)
		}
	}
	return nil
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
func (p *planner) shardingConditions(primary *tableRef) (groups []Condition, none bool, err error) {
	cols := ruleColumns(primary.info.rule)
	if ins, ok := p.stmt.(*sqlparser.Insert); ok {
		conds, err := p.insertConditions(primary, ins, cols)
		return conds, false, err
	}
	dnf, ok := p.dnf(p.whereOf())
	if !ok {
		return nil, false, nil
	}
	var out []Condition
	dropped := false
groups:
	for _, g := range dnf {
		var cond Condition
		for _, a := range g {
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
	rows := ins.Rows.(sqlparser.Values)
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
				return nil, p.errorf(-1, "INSERT into sharded table %q must give sharding column %q", primary.info.name, col)
			}
			o, ok := p.operand(row[idx])
			if !ok {
				return nil, p.errorf(-1, "INSERT into sharded table %q: the value of sharding column %q must be a literal or a parameter", primary.info.name, col)
			}
			if o.Literal != nil && o.Literal.IsNull() {
				return nil, p.errorf(-1, "INSERT into sharded table %q: sharding column %q must not be NULL", primary.info.name, col)
			}
			cond.Columns = append(cond.Columns, ColumnCondition{Column: col, Values: []Operand{o}})
		}
		conds = append(conds, cond)
	}
	if len(rows) > 1 {
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
				return cc.Range == nil && len(cc.Values) == 1
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

// checkNoMerge plans the merge of a SELECT that reaches several data nodes
// and needs its results merged, and refuses what ShardingSphere forbids
// across nodes.
func (p *planner) checkNoMerge(info *tableInfo) error {
	why := ""
	switch s := p.stmt.(type) {
	case *sqlparser.Select:
		if why = mergeNeeded(s); why != "" {
			return p.planMerge(s)
		}
	case *sqlparser.Update:
		if s.Limit != nil {
			return p.errorf(-1, "UPDATE ... LIMIT over several data nodes of %q is not supported (each node would apply its own LIMIT)", info.name)
		}
	case *sqlparser.Delete:
		if s.Limit != nil {
			return p.errorf(-1, "DELETE ... LIMIT over several data nodes of %q is not supported (each node would apply its own LIMIT)", info.name)
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
	vals := make([][]runtime.ShardingValues, len(groups))
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
			vals[i] = append(vals[i], sv)
		}
	}
	route := info.route.RouteConditions
	if p.plan.Statement == StmtInsert {
		route = info.route.RouteAll // a row's NULL is an error, not "no row"
	}
	nodes, err := route(vals, runtime.HintValues{})
	if err != nil {
		return nil, p.errorf(-1, "routing table %q: %v", info.name, err)
	}
	if len(nodes) == 0 {
		if p.adHoc() && p.plan.Statement != StmtInsert {
			return []int{}, nil // MySQL returns no rows for `BETWEEN 30 AND 10`
		}
		return nil, p.errorf(-1, "the sharding conditions on %q reach no data node", info.name)
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
