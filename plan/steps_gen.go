package plan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// listMarker stands for the bound IN list while a step's statement is
// planned: a literal no query contains, replaced by `?` in the planned SQL.
const listMarker = "-7431952860147258369"

// BuildStepsPlan plans a query-file SELECT q that Build refused because its
// tables do not co-locate (planErr) as a statement evaluated in steps
// across data nodes (Plan.Steps): every step's statement is planned here,
// routes, rewritten per-node SQL and merges included, so that generated
// code runs runtime.RunSteps without parsing SQL. Returned errors: planErr
// when q is not refused for that reason, else planErr with the reason the
// steps do not apply (what would make it run) added.
//
// Generated code evaluates: uncorrelated subqueries, any number of them,
// each run first in statement order and bound into the statement
// (runtime.BindOp): `x IN (SELECT y …)` (or `= ANY`) as an IN list,
// `NOT IN` (or `<> ALL`) as a list and a flag, `EXISTS` / `NOT EXISTS` as
// a flag, a scalar subquery as its value typed as its column
// (scalarBinding; NULL without a row, runtime.ErrSubqueryRows, MySQL's
// error 1242, with more than one); a join of two table references (a
// nested-loop join binding the outer side's key values into the inner
// side's statement as an IN list, or a hash join reading the inner side's
// statement without it once, as runtime.JoinStrategy chooses at run time;
// run once when the join has no key column), with GROUP BY, DISTINCT or aggregates over the joined
// rows, and of three or more, split left-deep (the join of all but the
// last, itself evaluated so, is the outer side: runtime.JoinStep.OuterJoin);
// a UNION or UNION ALL; a LIMIT ? / LIMIT ?, ? of a join without
// grouping or of a UNION (JoinStep.LimitArgs). Parameters (? and sqlc.arg / sqlc.narg) may
// stand in any step: each step's plan binds them into its per-node SQL
// (StepQuery.Args), and the plan's Params are the function's; a step
// whose statement compares a sharding column with parameters (`user_id =
// ?`, `IN (?, ?)`) runs only on the route units the sharding algorithm
// picks for their values (StepQuery.Route), every other step on every
// route unit its plan may reach. sqlc.slice, a correlated
// subquery, a scalar subquery whose column type the generator cannot tell
// exactly and a LIMIT ? of a grouped join are refused with the reason.
//
// The proxy plans the shapes this accepts with this same function (an
// ad-hoc q, Pos.File plan.AdHocFile) and runs them with
// runtime.RunStepsWith: one operator set for both.
func (b *Builder) BuildStepsPlan(q *schema.Query, planErr error) (*Plan, error) {
	var pe *schema.Error
	if !errors.As(planErr, &pe) {
		return nil, planErr
	}
	rows := ReturnsRows(q.SQL)
	write := !rows && strings.Contains(pe.Msg, LimitedWriteRefusal)
	if !write && (!strings.Contains(pe.Msg, "across data nodes is not supported yet") || !rows) {
		return nil, planErr
	}
	refuse := func(format string, args ...any) error {
		return &schema.Error{Pos: pe.Pos, Msg: pe.Msg + "; " + fmt.Sprintf(format, args...)}
	}
	switch {
	case write && q.Cmd != schema.CmdExec && q.Cmd != schema.CmdExecRows:
		return nil, refuse("a %s query is not evaluated across data nodes; use :execrows or :exec", q.Cmd)
	case !write && q.Cmd != schema.CmdOne && q.Cmd != schema.CmdMany:
		return nil, refuse("a %s query is not evaluated across data nodes; use :many or :one", q.Cmd)
	}
	logic, names, nulls, isSlice, embeds, _, bad := namedParams(q.SQL)
	switch {
	case len(embeds) > 0:
		return nil, refuse("sqlc.embed(%s) is not supported in a statement evaluated across data nodes (steps) yet; select the table's columns instead (%s.* or each column)", embeds[0], embeds[0])
	case len(bad) > 0:
		return nil, refuse("sqlc.embed takes one table name or alias")
	case slices.Contains(isSlice, true):
		return nil, refuse("a sqlc.slice parameter is not evaluated across data nodes yet; list the values as IN (?, ?, ...)")
	}
	// Each placeholder becomes a parameter of its own, named by its
	// position (stepParamName), so that every step's statement says which
	// of the statement's parameters its placeholders take.
	stepsSQL := logic
	for i := len(names) - 1; i >= 0; i-- {
		at := PlaceholderOffset(logic, i)
		if at < 0 {
			return nil, refuse("parameter %d has no placeholder", i+1)
		}
		form := "sqlc.arg"
		if nulls[i] {
			form = "sqlc.narg"
		}
		stepsSQL = stepsSQL[:at] + form + "(" + stepParamName(i) + ")" + stepsSQL[at+1:]
	}
	var st *Steps
	var err error
	if write {
		st, err = b.LimitedWriteSteps(stepsSQL)
	} else {
		st, err = b.BuildSteps(stepsSQL)
	}
	if err != nil {
		return nil, refuse("%v", err)
	}
	if write {
		if c := st.setSharding(); c != "" {
			return nil, refuse("the UPDATE sets sharding column %s, whose new value generated code does not check against each row's data node across data nodes; set other columns, or compare every sharding column with one value so that the statement routes to one data node", c)
		}
	}
	sp := &stepsPlanner{b: b, q: q, params: make([]*Param, len(names)), write: write}
	pl := &Plan{Name: q.Name, Cmd: q.Cmd, Statement: StmtSelect, LogicSQL: logic, Doc: q.Doc}
	var steps runtime.Steps
	switch st.Kind {
	case StepsSubqueries:
		steps.Bind, pl.Columns, err = sp.bind(st)
		if err == nil && write {
			steps.Bind.Write = true
			steps.Bind.Statement.ListRoute = sp.keyRoute(steps.Bind.Statement, st.keys)
			pl.Statement = sp.writeKind
		}
	case StepsJoin:
		steps.Join, pl.Columns, err = sp.join(st.Join)
	case StepsUnion:
		steps.Union, pl.Columns, err = sp.union(st.Union)
	case StepsFederation:
		// The proxy evaluates it over temporary tables; generated code
		// does not. Say why the other kinds refused it.
		err = fmt.Errorf("it is evaluated only over temporary tables (SQL federation), which the proxy runs and generated code does not: %w", st.federatedBy)
	default:
		err = fmt.Errorf("%s steps", st.Kind)
	}
	if err != nil {
		return nil, refuse("%v", err)
	}
	// A LIMIT ?, ? of a join or UNION: the pagination of the rows in
	// process, BIGINT parameters named as sqlc names them.
	var limitArgs []int
	switch {
	case steps.Join != nil:
		limitArgs = steps.Join.LimitArgs
	case steps.Union != nil:
		limitArgs = steps.Union.LimitArgs
	}
	for k, i := range limitArgs {
		if i >= 0 && i < len(sp.params) && sp.params[i] == nil {
			sp.params[i] = &Param{Name: [...]string{"offset", "limit"}[k], Type: typeInt64}
		}
	}
	// The function's parameters: one per placeholder, or per name of
	// sqlc.arg, typed as the step that takes it compares it.
	byName := map[string]int{}
	used := newNameSet("ctx", "q", "err")
	for i, prm := range sp.params {
		if prm == nil {
			return nil, refuse("parameter %d is in no step's statement (a parameter in a join's ORDER BY or LIMIT, or a UNION's, is not evaluated across data nodes yet)", i+1)
		}
		if names[i] != "" {
			if k, ok := byName[names[i]]; ok {
				pl.Args = append(pl.Args, k)
				continue
			}
			byName[names[i]] = len(pl.Params)
		}
		base := names[i]
		if base == "" {
			base = "arg"
			if _, col, ok := strings.Cut(prm.Column, "."); ok {
				base = col
			} else if prm.Name == "offset" || prm.Name == "limit" {
				base = prm.Name
			}
		}
		pl.Args = append(pl.Args, len(pl.Params))
		pl.Params = append(pl.Params, &Param{Name: used.unique(lowerCamel(base)), Type: prm.Type, Column: prm.Column})
	}
	pl.Steps = &steps
	pl.StepRoutes = sp.routes
	pl.Route = &Route{Kind: runtime.RouteMultiNode, Reason: "evaluated in steps across data nodes (" + st.Kind.String() + "); each step's statement has its own route units", DataSources: sp.dataSources}
	if write {
		pl.Route.LogicTable = sp.writeTable
		pl.Route.Reason = map[StmtKind]string{StmtUpdate: "an UPDATE", StmtDelete: "a DELETE"}[pl.Statement] + " with ORDER BY … LIMIT over several data nodes, evaluated in steps: the keys of its rows selected in its order across data nodes, then the rows with those keys written as one all-or-nothing write"
	}
	return pl, nil
}

// stepsPlanner plans the statements of one query's steps.
type stepsPlanner struct {
	b *Builder
	q *schema.Query
	// params are the statement's parameters by placeholder, as the first
	// step that takes each plans it (nil: none yet).
	params []*Param
	// dataSources are the data sources of every step's units, in order of
	// first use: RouteUnit.DataSource indexes it (Plan.Route.DataSources).
	dataSources []string
	// routes are the routes of the steps' statements that narrow their
	// units at run time (Plan.StepRoutes).
	routes []*Route
	// extra is the number of arguments after the statement's parameters
	// that the subqueries of a BindStep bind (flags and scalar values):
	// stepParamName(len(params)+i) names argument i of them.
	extra int
	// write says that the statement is an UPDATE or DELETE with ORDER BY
	// … LIMIT (LimitedWriteSteps); writeKind is its kind and writeTable
	// the logic table it writes, once planned.
	write      bool
	writeKind  StmtKind
	writeTable string
	writePlan  *Plan
}

// keyRoute returns the route of the keys of the write's IN list (the
// statement's, q) to their data nodes: set when a key column is a sharding
// column of the table written (so that each data node gets only its rows'
// keys; of a key of several columns, by that column's value in each row,
// StepListRoute.Part), nil otherwise (every unit gets every key). keyCols
// are the key columns (the primary key).
func (sp *stepsPlanner) keyRoute(q *runtime.StepQuery, keyCols []string) *runtime.StepListRoute {
	p := sp.writePlan
	info := sp.b.tables()[strings.ToLower(sp.writeTable)]
	if p == nil || info == nil || !info.sharded() || info.ddl == nil {
		return nil
	}
	// The first key column that is a sharding column routes each key (of
	// a table sharded on several columns, its data nodes for that column
	// alone: the write's WHERE keeps the rest exact).
	part := slices.IndexFunc(keyCols, func(k string) bool { return containsFold(ruleColumns(info.rule), k) })
	if part < 0 {
		return nil
	}
	r := p.Route
	col := info.ddl.Column(keyCols[part])
	if col == nil || r.Fixed != nil || len(r.Units) != len(q.Units) || len(q.Lists) > 0 || sp.b.ShardingTable(r.LogicTable) == nil {
		return nil
	}
	lr := &runtime.StepListRoute{Table: r.LogicTable, Column: col.Name, Class: sp.b.columnClass(r.LogicTable, col.Name, false), Kind: sp.b.goType(info.name, col, false).Kind, Part: part}
	for i := range r.Units {
		lr.Nodes = append(lr.Nodes, i) // a computed route's units are its table's data nodes, in order
	}
	if !slices.ContainsFunc(sp.routes, func(x *Route) bool { return x == r }) {
		sp.routes = append(sp.routes, r) // its router: StepsOptions.Tables
	}
	return lr
}

// dataSource returns the index of data source name in sp.dataSources,
// adding it.
func (sp *stepsPlanner) dataSource(name string) int {
	for i, ds := range sp.dataSources {
		if ds == name {
			return i
		}
	}
	sp.dataSources = append(sp.dataSources, name)
	return len(sp.dataSources) - 1
}

// query plans one step's statement sql (with listMarker where the bound
// IN list goes, when list): a route fixed at generate time (every unit of
// its table when the route depends on the bound values), its merge.
func (sp *stepsPlanner) query(sql, what string, list bool) (*runtime.StepQuery, *Plan, error) {
	text, planned, lists := sql, sql, 0
	if list {
		text = strings.Replace(sql, listMarker, "?", 1)
		if text == sql {
			return nil, nil, fmt.Errorf("%s: no place for the bound values", what)
		}
		// The bound IN list holds any number of values at run time: it is
		// planned as a sqlc.slice, so that `sharding column IN (list)`
		// routes to (and merges the rows of) every data node its values
		// may reach, not as one value's single data node.
		planned, lists = strings.Replace(sql, listMarker, "sqlc.slice("+stepListName(0)+")", 1), 1
	}
	return sp.queryLists(planned, text, what, lists)
}

// queryLists plans one step's statement planned, whose IN lists of bound
// values are the parameters stepListName(0), stepListName(1), … (lists of
// them, in SQL order): sqlc.slice where the values route, a sqlc.arg where
// they do not (NOT IN). text is the statement as explain shows it.
func (sp *stepsPlanner) queryLists(planned, text, what string, lists int) (*runtime.StepQuery, *Plan, error) {
	cmd := schema.CmdMany
	if sp.write && !ReturnsRows(planned) {
		cmd = schema.CmdExecRows
	}
	q := &schema.Query{Name: sp.q.Name, Cmd: cmd, SQL: planned, AllowFullRoute: true, Pos: sp.q.Pos, SQLPos: sp.q.SQLPos, WeighText: sp.q.WeighText}
	p, err := sp.b.buildStep(q)
	if err != nil {
		var se *schema.Error
		if errors.As(err, &se) {
			err = errors.New(se.Msg)
		}
		return nil, nil, fmt.Errorf("%s (%s): %v", what, text, err)
	}
	r := p.Route
	isWrite := sp.write && (p.Statement == StmtUpdate || p.Statement == StmtDelete)
	switch {
	case p.Statement != StmtSelect && !isWrite:
		return nil, nil, fmt.Errorf("%s is not a SELECT", what)
	case isWrite && r.Update != nil:
		return nil, nil, fmt.Errorf("%s sets sharding column %s, which generated code does not check across data nodes; set other columns, or compare every sharding column with one value so the statement routes to one data node", what, r.Update.ColumnsText())
	}
	if isWrite {
		sp.writeKind, sp.writeTable, sp.writePlan = p.Statement, r.LogicTable, p
	}
	switch {
	case r.Pushdown && r.Fixed == nil, len(r.Agree) > 0:
		return nil, nil, fmt.Errorf("%s routes by the bound values to one data node for several tables, which generated code does not evaluate yet", what)
	case decryptedColumn(p) != "":
		return nil, nil, fmt.Errorf("%s reads encrypted column %s, which generated code does not decrypt in a step across data nodes yet", what, decryptedColumn(p))
	case encryptedNodeArg(p):
		return nil, nil, fmt.Errorf("%s compares an encrypted column with a value, which generated code does not encrypt in a step across data nodes yet; encrypted tables in subqueries are not supported", what)
	case !plainNodeArgs(p) || p.Merge != nil && (p.Merge.Offset.Param || p.Merge.Count.Param && !(sp.write && lists == 0)):
		return nil, nil, fmt.Errorf("%s has a LIMIT over several data nodes that depends on the bound values", what)
	}
	sq := &runtime.StepQuery{Stmt: runtime.Stmt{Name: sp.q.Name, LogicSQL: text}, Columns: len(p.Columns), Merge: p.Merge}
	// listArgs are the number of Args before each list, in SQL order.
	var listArgs []int
	for _, a := range p.Args {
		prm := p.Params[a]
		if k, ok := stepListIndex(prm.Name); ok {
			if k != len(listArgs) {
				return nil, nil, fmt.Errorf("%s takes its lists of bound values in another order than the statement's subqueries", what)
			}
			listArgs = append(listArgs, len(sq.Args))
			continue
		}
		i, ok := stepParamIndex(prm.Name)
		if !ok || i >= len(sp.params)+sp.extra {
			return nil, nil, fmt.Errorf("%s has a placeholder that is no parameter of the statement", what)
		}
		if i < len(sp.params) && sp.params[i] == nil {
			sp.params[i] = prm
		}
		sq.Args = append(sq.Args, i) // i >= len(sp.params): a subquery's flag or value (BindStep)
	}
	if len(listArgs) != lists {
		return nil, nil, fmt.Errorf("%s has %d lists of bound values, want %d", what, len(listArgs), lists)
	}
	if m := p.Merge; m != nil && m.Count.Param {
		// LIMIT ? of a write's keys (no list, no offset): the merge takes
		// the count from the step's arguments (runtime.StepQuery.Args),
		// in which the parameter is at its placeholder's position.
		k := slices.Index(p.Args, int(m.Count.Value))
		if k < 0 {
			return nil, nil, fmt.Errorf("%s: its LIMIT parameter has no placeholder", what)
		}
		c := *m
		c.Count.Value = int64(k)
		sq.Merge = &c
		if i := sq.Args[k]; i < len(sp.params) && sp.params[i] == p.Params[m.Count.Value] {
			named := *sp.params[i] // the function's parameter is named limit
			named.Name = "limit"
			sp.params[i] = &named
		}
	}
	if lists > 0 {
		sq.ListArg = listArgs[0]
		for _, a := range listArgs[1:] {
			sq.Lists = append(sq.Lists, runtime.StepList{Arg: a})
		}
	}
	idx := r.Fixed
	if idx == nil {
		for i := range r.Units {
			idx = append(idx, i)
		}
	}
	if p.Merge != nil {
		sq.Columns = p.Merge.Columns
	}
	for _, i := range idx {
		u := r.Units[i]
		sq.Units = append(sq.Units, runtime.RouteUnit{DataSource: sp.dataSource(r.DataSources[u.DataSource]), SQL: u.SQL})
		for k, a := range listArgs {
			// The lists before it are one placeholder each.
			at := PlaceholderOffset(u.SQL, a+k)
			if at < 0 {
				return nil, nil, fmt.Errorf("%s: the SQL of data node %s has no placeholder", what, u.Node)
			}
			if k == 0 {
				sq.ListAt = append(sq.ListAt, at)
			} else {
				sq.Lists[k-1].At = append(sq.Lists[k-1].At, at)
			}
		}
	}
	if len(sq.Units) == 0 {
		return nil, nil, fmt.Errorf("%s routes to no data node", what)
	}
	if r.Fixed == nil {
		sq.Route = sp.stepRoute(p, len(sq.Units))
		if lists > 0 {
			sq.ListRoute = sp.listRoute(p, len(sq.Units))
		}
		if sq.Route != nil || sq.ListRoute != nil {
			sp.routes = append(sp.routes, r)
		}
	}
	return sq, p, nil
}

// listRoute returns how the first IN list of bound values of a step's
// statement p, whose n units are every unit of its route, splits by data
// node (runtime.StepListRoute): when the list is the values of a sharding
// column of p's table compared with = or IN (the planned
// sqlc.slice(stepListName(0)) among its route's conditions) and the
// column's values convert exactly (an integer, DATE or DATETIME column;
// never text, whose collation may equal other spellings). Each unit then
// gets the values of its data node, and a unit that gets none does not
// run: the list is a condition the WHERE ANDs with the others. nil
// otherwise: every unit gets the whole list.
func (sp *stepsPlanner) listRoute(p *Plan, n int) *runtime.StepListRoute {
	r := p.Route
	if !sp.computed(p, n) {
		return nil
	}
	lr := &runtime.StepListRoute{Table: r.LogicTable}
	found := false
	for _, c := range r.Conditions {
		has := false
		for _, cc := range c.Columns {
			if cc.Range != nil {
				continue
			}
			for _, o := range cc.Values {
				if o.Literal != nil || o.Param < 0 || o.Param >= len(p.Params) {
					continue
				}
				prm := p.Params[o.Param]
				if k, ok := stepListIndex(prm.Name); !ok || k != 0 || !prm.Slice {
					continue
				}
				class := sp.b.columnClass(r.LogicTable, cc.Column, cc.Binary)
				if found && (!strings.EqualFold(lr.Column, cc.Column) || lr.Class != class) {
					return nil // not one column: leave the list whole
				}
				found, has = true, true
				lr.Column, lr.Class, lr.Kind = cc.Column, class, prm.Type.Kind
			}
		}
		if !has {
			// An AND-group without the list matches rows on any data
			// node (the planner keeps the list a condition the WHERE
			// ANDs with the others, so this does not happen).
			return nil
		}
	}
	if !found || lr.Class == runtime.ClassAsIs {
		return nil
	}
	for i := range r.Units {
		lr.Nodes = append(lr.Nodes, i) // a computed route's units are its table's data nodes, in order
	}
	return lr
}

// computed reports whether the route of a step's statement p, whose n
// units are every unit of its route, is computed from the conditions of a
// sharded table: its units are then that table's data nodes, in order,
// which a run-time route (stepRoute, listRoute) narrows.
func (sp *stepsPlanner) computed(p *Plan, n int) bool {
	r := p.Route
	if r.Fixed != nil || r.Update != nil || r.Pushdown || len(r.Conditions) == 0 || len(r.Units) != n || sp.b.ShardingTable(r.LogicTable) == nil {
		return false
	}
	return r.Kind != runtime.RouteAllNodes && r.Kind != runtime.RouteBroadcast
}

// stepRoute returns the run-time route of a step's statement p whose n
// units are every unit of its route (runtime.StepRoute): the `=` and IN
// conditions of its sharding columns on the statement's parameters. A
// column compared with a range, a literal or the bound IN list is left out
// (its side reaches every target); nil when no AND-group keeps a column,
// or the route is not computed from a sharded table's conditions.
func (sp *stepsPlanner) stepRoute(p *Plan, n int) *runtime.StepRoute {
	r := p.Route
	if !sp.computed(p, n) {
		return nil
	}
	rt := &runtime.StepRoute{Table: r.LogicTable}
	for i := range r.Units {
		rt.Nodes = append(rt.Nodes, i) // a computed route's units are its table's data nodes, in order
	}
	narrows := false
	for _, c := range r.Conditions {
		var g runtime.StepConditions
	columns:
		for _, cc := range c.Columns {
			if cc.Range != nil || len(cc.Values) == 0 {
				continue
			}
			sc := runtime.StepCondition{Column: cc.Column, Class: sp.b.columnClass(r.LogicTable, cc.Column, cc.Binary)}
			for _, o := range cc.Values {
				if o.Literal != nil || o.Param < 0 || o.Param >= len(p.Params) {
					continue columns
				}
				prm := p.Params[o.Param]
				i, ok := stepParamIndex(prm.Name)
				if prm.Slice || !ok || i >= len(sp.params) {
					continue columns
				}
				sc.Args = append(sc.Args, i)
				sc.Kinds = append(sc.Kinds, prm.Type.Kind)
			}
			g.Columns = append(g.Columns, sc)
		}
		if len(g.Columns) == 0 {
			// This AND-group reaches every data node: so does the route.
			return nil
		}
		narrows = true
		rt.Conditions = append(rt.Conditions, g)
	}
	if !narrows {
		return nil
	}
	return rt
}

// decryptedColumn returns the name of a result column of p read as cipher
// text (Column.Decrypt), "" when none is.
func decryptedColumn(p *Plan) string {
	for _, c := range p.Columns {
		if c.Decrypt != "" {
			return c.Name
		}
	}
	return ""
}

// encryptedNodeArg reports whether a per-node argument of p is a
// parameter's value encrypted.
func encryptedNodeArg(p *Plan) bool {
	for _, a := range p.NodeArgs {
		if a.Encrypt != "" {
			return true
		}
	}
	return false
}

// plainNodeArgs reports whether the per-node statements of p take the
// arguments of its placeholders as they are (no LIMIT computed, no value
// encrypted).
func plainNodeArgs(p *Plan) bool {
	if p.NodeArgs == nil {
		return true
	}
	if len(p.NodeArgs) != len(p.Args) {
		return false
	}
	for i, a := range p.NodeArgs {
		if a.LimitSum || a.Encrypt != "" || a.Literal != nil || a.Param != p.Args[i] {
			return false
		}
	}
	return true
}

// bind plans a statement with uncorrelated subqueries, each bound as a
// value of the statement (runtime.BindOp): `x IN (SELECT y …)` (or
// `= ANY`) as an IN list, `x NOT IN (SELECT y …)` (or `<> ALL`) as a NOT
// IN list and a flag, `EXISTS (SELECT …)` as a flag, a scalar subquery as
// its value, typed as its column (scalarBinding).
func (sp *stepsPlanner) bind(st *Steps) (*runtime.BindStep, []*Column, error) {
	stmt := sqlparser.Clone(st.stmt)
	subs := topSubqueries(stmt)
	if len(subs) != len(st.Subqueries) {
		return nil, nil, fmt.Errorf("the statement has %d subqueries, planned %d", len(subs), len(st.Subqueries))
	}
	n := len(sp.params)
	index := map[*sqlparser.Subquery]int{}
	ops := make([]runtime.BindOp, len(subs))
	for i, sq := range st.Subqueries {
		index[subs[i].sub] = i
		switch sq.Kind {
		case SubqueryIn:
			ops[i] = runtime.BindIn // BindNotIn: set by its comparison below
		case SubqueryExists:
			ops[i] = runtime.BindExists
		case SubqueryScalar:
			ops[i] = runtime.BindScalar
		case SubqueryLookup:
			return nil, nil, errors.New("a correlated scalar subquery (evaluated as a look-up of its grouped rows) runs through the proxy; generated code evaluates uncorrelated subqueries")
		default:
			return nil, nil, fmt.Errorf("generated code does not evaluate a %s subquery across data nodes", sq.Kind)
		}
	}
	var bad error
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		x, ok := node.(*sqlparser.ComparisonExpr)
		if !ok {
			return true, nil
		}
		sq, ok := x.Right.(*sqlparser.Subquery)
		if i, found := index[sq]; ok && found && ops[i] == runtime.BindIn {
			if _, tuple := x.Left.(sqlparser.ValTuple); tuple && !(st.keys != nil && i == 0) {
				bad = errors.New("generated code evaluates IN (SELECT …) of one column across data nodes, not of a row")
			}
			switch {
			case x.Operator == sqlparser.InOp, x.Operator == sqlparser.EqualOp && x.Modifier == sqlparser.Any:
			case x.Operator == sqlparser.NotInOp, x.Operator == sqlparser.NotEqualOp && x.Modifier == sqlparser.All:
				ops[i] = runtime.BindNotIn
			default:
				bad = fmt.Errorf("generated code evaluates IN, NOT IN and EXISTS of a subquery across data nodes, not %s", sqlparser.String(x))
			}
		}
		return true, nil
	}, stmt)
	if bad != nil {
		return nil, nil, bad
	}
	// The arguments after the statement's parameters (flags and values)
	// and the lists, in subquery order, as runtime.BindStep binds them.
	args, lists := make([]int, len(subs)), make([]int, len(subs))
	nLists := 0
	for i, op := range ops {
		args[i], lists[i] = -1, -1
		if op != runtime.BindIn {
			args[i] = n + sp.extra
			sp.extra++
		}
		if op == runtime.BindIn || op == runtime.BindNotIn {
			lists[i] = nLists
			nLists++
		}
	}
	sqlcArg := func(form, name string) sqlparser.Expr {
		return &sqlparser.FuncExpr{Qualifier: sqlparser.NewIdentifierCS("sqlc"), Name: sqlparser.NewIdentifierCI(form),
			Exprs: []sqlparser.Expr{sqlparser.NewColName(name)}}
	}
	flag := func(i int) sqlparser.Expr {
		return &sqlparser.CastExpr{Expr: sqlcArg("arg", stepParamName(args[i])), Type: &sqlparser.ConvertType{Type: "signed"}}
	}
	values := make([]sqlparser.Expr, len(subs))
	valueTypes := make([]GoType, len(subs))
	for i, op := range ops {
		if op == runtime.BindScalar {
			v, t, err := sp.scalarBinding(subs[i].sub, sqlcArg("narg", stepParamName(args[i])))
			if err != nil {
				return nil, nil, fmt.Errorf("the scalar subquery %s: %w", sqlparser.String(subs[i].sub), err)
			}
			values[i], valueTypes[i] = v, t
		}
	}
	// A result column that is a scalar subquery or an EXISTS keeps the
	// type it has where its statement runs on one data node
	// (sql.Null[uint32] for MIN of an INT UNSIGNED column, int64 for
	// EXISTS, which is never NULL), not the type of the CAST it is bound
	// as: the select-list positions of those columns, before the star, if
	// any.
	resultTypes := map[int]GoType{}
	resultExprs := map[int]*sqlparser.AliasedExpr{}
	if sel, ok := stmt.(*sqlparser.Select); ok && sel.SelectExprs != nil {
		for pos, se := range sel.SelectExprs.Exprs {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				break
			}
			switch x := ae.Expr.(type) {
			case *sqlparser.Subquery:
				if i, found := index[x]; found && ops[i] == runtime.BindScalar && valueTypes[i].Name != "" {
					resultTypes[pos], resultExprs[pos] = valueTypes[i], ae
				}
			case *sqlparser.ExistsExpr:
				if _, found := index[x.Subquery]; found {
					resultTypes[pos], resultExprs[pos] = typeInt64, ae
				}
			}
		}
	}
	out := sqlparser.Rewrite(stmt, func(c *sqlparser.Cursor) bool {
		switch x := c.Node().(type) {
		case *sqlparser.AliasedExpr:
			if x.As.IsEmpty() && hasSubquery(x.Expr) {
				// The result column keeps the name of the expression the
				// client wrote, not the bound value's ("cast(:v1 as signed)").
				x.As = sqlparser.NewIdentifierCI(sqlparser.String(x.Expr))
			}
		case *sqlparser.ExistsExpr:
			if i, ok := index[x.Subquery]; ok {
				c.Replace(flag(i))
				return false
			}
		case *sqlparser.ComparisonExpr:
			sq, ok := x.Right.(*sqlparser.Subquery)
			i, found := index[sq]
			if !ok || !found || ops[i] == runtime.BindScalar {
				return true
			}
			list := &sqlparser.FuncExpr{Qualifier: sqlparser.NewIdentifierCS("sqlc"), Name: sqlparser.NewIdentifierCI("slice"),
				Exprs: []sqlparser.Expr{sqlparser.NewColName(stepListName(lists[i]))}}
			if _, tuple := x.Left.(sqlparser.ValTuple); tuple && lists[i] == 0 {
				// The keys of a primary key of several columns (a write's):
				// the list of rows, a condition of its own
				// (runtime.StepQuery.ListWidth), which does not route.
				list.Name = sqlparser.NewIdentifierCI("arg")
				c.Replace(list)
				return false
			}
			if ops[i] == runtime.BindIn && lists[i] == 0 {
				c.Replace(&sqlparser.ComparisonExpr{Operator: sqlparser.InOp, Left: x.Left, Right: sqlparser.ValTuple{list}})
				return false
			}
			if ops[i] == runtime.BindIn {
				// The planner takes one sqlc.slice per statement: a
				// further IN list is one parameter, which the values
				// replace, in `(x IN (list) OR FALSE)`, which is x IN
				// (list) (TRUE, FALSE or NULL) and not a condition that
				// routes by the one value the planner would see.
				list.Name = sqlparser.NewIdentifierCI("arg")
				c.Replace(&sqlparser.OrExpr{Left: &sqlparser.ComparisonExpr{Operator: sqlparser.InOp, Left: x.Left, Right: sqlparser.ValTuple{list}}, Right: sqlparser.BoolVal(false)})
				return false
			}
			// NOT IN does not route: its list is planned as one
			// parameter, which the values replace.
			list.Name = sqlparser.NewIdentifierCI("arg")
			c.Replace(&sqlparser.OrExpr{Left: flag(i), Right: &sqlparser.ComparisonExpr{Operator: sqlparser.NotInOp, Left: x.Left, Right: sqlparser.ValTuple{list}}})
			return false
		case *sqlparser.Subquery:
			if i, ok := index[x]; ok && values[i] != nil {
				c.Replace(values[i])
			}
			return false
		}
		return true
	}, nil)
	var steps []runtime.BoundSubquery
	for i, sq := range st.Subqueries {
		sql := sq.SQL
		if ops[i] == runtime.BindScalar {
			sql = sq.LimitedSQL(2) // a second row is error 1242
		}
		q, p, err := sp.query(sql, "the subquery", false)
		if err != nil {
			return nil, nil, err
		}
		width := 1 // a write's keys: a column of each key column
		if i == 0 && len(st.keys) > 1 {
			width = len(st.keys)
		}
		if ops[i] != runtime.BindExists && len(p.Columns) != width {
			return nil, nil, fmt.Errorf("the subquery %s must return one column", sq.SQL)
		}
		steps = append(steps, runtime.BoundSubquery{Query: q, Op: ops[i]})
	}
	planned := sqlparser.String(out)
	text := planned
	for k := range nLists {
		text = strings.Replace(text, "sqlc.slice("+stepListName(k)+")", "?", 1)
	}
	if len(st.keys) > 1 {
		text = strings.Replace(text, "sqlc.arg("+stepListName(0)+")", "?", 1) // the rows of keys
	}
	stmtQ, p, err := sp.queryLists(planned, text, "the statement with the subqueries' values bound", nLists)
	if err != nil {
		return nil, nil, err
	}
	for pos, t := range resultTypes {
		if pos < len(p.Columns) && p.Columns[pos].Name == resultExprs[pos].As.String() {
			p.Columns[pos].Type = t
		}
	}
	for i, a := range args {
		if a >= 0 && !slices.Contains(stmtQ.Args, a) {
			return nil, nil, fmt.Errorf("the statement with the subqueries' values bound does not take the %s of subquery %d", map[bool]string{true: "value", false: "flag"}[ops[i] == runtime.BindScalar], i+1)
		}
	}
	if len(st.keys) > 1 {
		// The condition on one row of keys: (`a`, `b`) = (?, CONVERT(?
		// USING latin1)), each value typed as its column.
		texts := st.Subqueries[0].texts
		cols, vals := make([]string, len(st.keys)), make([]string, len(st.keys))
		for c, k := range st.keys {
			cols[c], vals[c] = sqlparser.String(sqlparser.NewColName(k)), "?"
			if c < len(texts) && texts[c].placeholder() != "" {
				vals[c] = texts[c].placeholder()
			}
		}
		stmtQ.ListElem = "(" + strings.Join(cols, ", ") + ") = (" + strings.Join(vals, ", ") + ")"
		stmtQ.ListWidth = len(st.keys)
		lists = nil
	}
	for i, k := range lists {
		texts := st.Subqueries[i].texts
		if k < 0 || len(texts) == 0 {
			continue
		}
		if k == 0 {
			stmtQ.ListElem = texts[0].placeholder()
		} else {
			stmtQ.Lists[k-1].Elem = texts[0].placeholder()
		}
	}
	bs := &runtime.BindStep{Subquery: steps[0].Query, Op: steps[0].Op, Statement: stmtQ}
	if len(steps) > 1 {
		bs.Then = steps[1:]
	}
	return bs, p.Columns, nil
}

// scalarBinding returns the expression the value of the scalar subquery
// sq is bound as in place of it: arg (the value's placeholder) typed as
// the subquery's one column, so that the statement compares and returns it
// as MySQL does the subquery's value: CAST(arg AS SIGNED / UNSIGNED /
// DOUBLE / DECIMAL(65,s) / DATE / DATETIME(n) / TIME(n) / BINARY), or
// CONVERT(arg USING cs) [COLLATE c] for text of the column's character
// set and collation. A column whose type the generator cannot tell
// exactly (a FLOAT, text of no known character set, an expression) is an
// error saying what would make it run. The GoType is the value's type
// as a result column (the zero GoType when exprType cannot tell it).
func (sp *stepsPlanner) scalarBinding(sq *sqlparser.Subquery, arg sqlparser.Expr) (sqlparser.Expr, GoType, error) {
	if _, ok := sq.Select.(*sqlparser.Select); !ok {
		return nil, GoType{}, errors.New("a scalar subquery that is a UNION is evaluated by the proxy, not by generated code")
	}
	q := &schema.Query{Name: sp.q.Name, Cmd: schema.CmdMany, SQL: sqlparser.String(sq.Select), AllowFullRoute: true, Pos: sp.q.Pos, SQLPos: sp.q.SQLPos}
	p := &planner{b: sp.b, tables: sp.b.tables(), q: q, stepList: true}
	if err := p.bindStatement(); err != nil {
		var se *schema.Error
		if errors.As(err, &se) {
			err = errors.New(se.Msg)
		}
		return nil, GoType{}, err
	}
	sel, ok := p.stmt.(*sqlparser.Select)
	if !ok || sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) != 1 {
		return nil, GoType{}, errors.New("a scalar subquery must return one column")
	}
	ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, GoType{}, errors.New("a scalar subquery must return one column")
	}
	e := ae.Expr
	// col is the DDL column whose value the subquery returns: a column,
	// or MIN / MAX of one.
	var col *schema.Column
	base := e
	switch x := e.(type) {
	case *sqlparser.Min:
		base = x.Arg
	case *sqlparser.Max:
		base = x.Arg
	}
	if c, ok := base.(*sqlparser.ColName); ok {
		if cr := p.cols[c]; cr != nil && cr.ref.info.derived == nil {
			col = cr.col
		}
	}
	colType := ""
	if col != nil {
		colType = strings.ToLower(col.Type)
	}
	cast := func(typ string, length, scale *int) sqlparser.Expr {
		return &sqlparser.CastExpr{Expr: arg, Type: &sqlparser.ConvertType{Type: typ, Length: length, Scale: scale}}
	}
	unknown := fmt.Errorf("the generator cannot tell the exact type of its column %s to bind its value as; give it a CAST(… AS type)", sqlparser.String(e))
	// valType is the type of the bound value as a result column: the one a
	// scalar subquery has where its statement runs on one data node
	// (exprType), e.g. sql.Null[uint32] for MIN of an INT UNSIGNED column,
	// not the CAST's (sql.NullInt64, or sql.Null[uint64] for UNSIGNED).
	var valType GoType
	if t, _, ok := p.exprType(e); ok {
		valType = nullType(t)
	}
	k := p.exprKind(e)
	switch k.Type {
	case "int":
		return cast("signed", nil, nil), valType, nil
	case "uint":
		return cast("unsigned", nil, nil), valType, nil
	case "float":
		if colType == "float" {
			return nil, GoType{}, errors.New("a FLOAT value has no literal that compares exactly as it does; CAST it AS DOUBLE or DECIMAL")
		}
		return cast("double", nil, nil), valType, nil
	case "decimal":
		scale := -1
		switch x := e.(type) {
		case *sqlparser.Avg:
			scale = k.Scale
		case *sqlparser.Sum:
			scale = p.argScale(x.Arg)
		case *sqlparser.CastExpr:
			if x.Type.Scale != nil {
				scale = *x.Type.Scale
			} else if x.Type.Length != nil || strings.EqualFold(x.Type.Type, "decimal") {
				scale = 0
			}
		case *sqlparser.Literal:
			if _, frac, ok := strings.Cut(x.Val, "."); ok {
				scale = len(frac)
			}
		default:
			if col != nil {
				scale = 0
				if col.Scale != nil {
					scale = *col.Scale
				}
			}
		}
		if scale < 0 || scale > 38 {
			return nil, GoType{}, unknown
		}
		precision := 65
		return cast("decimal", &precision, &scale), valType, nil
	case "time":
		switch {
		case colType == "date":
			return cast("date", nil, nil), valType, nil
		case colType == "datetime" || colType == "timestamp":
			fsp := 0
			if col.Length != nil {
				fsp = *col.Length
			}
			return cast("datetime", &fsp, nil), valType, nil
		}
		if c, ok := e.(*sqlparser.CastExpr); ok && strings.EqualFold(c.Type.Type, "date") {
			return cast("date", nil, nil), valType, nil
		}
		if f, ok := e.(*sqlparser.FuncExpr); ok && f.Name.EqualString("date") {
			return cast("date", nil, nil), valType, nil
		}
	case "string":
		if colType == "time" {
			fsp := 0
			if col.Length != nil {
				fsp = *col.Length
			}
			return cast("time", &fsp, nil), valType, nil
		}
		if texts := sp.b.subqueryTexts(sq); len(texts) == 1 && texts[0].charset != "" {
			t := texts[0]
			conv := &sqlparser.ConvertUsingExpr{Expr: arg, Type: t.charset}
			switch {
			case t.collation == defaultCollations[t.charset]:
				return conv, valType, nil
			case strings.HasPrefix(t.charset, "utf8"):
				return &sqlparser.CollateExpr{Expr: conv, Collation: t.collation}, valType, nil
			}
		}
		return nil, GoType{}, fmt.Errorf("the generator binds text of a column of a character set and collation the DDL names, not %s; CONVERT(… USING charset) it", sqlparser.String(e))
	case "bytes":
		switch colType {
		case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
			return cast("binary", nil, nil), valType, nil
		}
	}
	return nil, GoType{}, unknown
}

// join plans a join: the inner side gets its first key IN the outer
// side's values for the nested loop (JoinRows compares every key), and
// without the list it is the hash join's build side.
func (sp *stepsPlanner) join(j *JoinSteps) (*runtime.JoinStep, []*Column, error) {
	outer, po, err := sp.query(j.Outer.SQL, "the outer side of the join", false)
	var outerJoin *runtime.JoinStep
	if err != nil {
		// A join of three or more tables, split left-deep: the outer side
		// is the join of the others, which runs in steps of its own when
		// its tables do not co-locate.
		st, serr := sp.b.BuildSteps(j.Outer.SQL)
		if serr != nil || st.Kind != StepsJoin {
			return nil, nil, err
		}
		oj, cols, jerr := sp.join(st.Join)
		if jerr != nil {
			return nil, nil, fmt.Errorf("the outer side of the join, a join across data nodes itself (%s): %w", j.Outer.SQL, jerr)
		}
		outerJoin, po = oj, &Plan{Columns: cols}
	}
	// The inner side binds the outer side's values of its first key (JoinRows
	// compares every key); without a key it runs once, whole.
	c := sqlparser.Clone(j.Inner.sel)
	keyed := len(j.Inner.keys) > 0
	if keyed {
		c.AddWhere(&sqlparser.ComparisonExpr{Operator: sqlparser.InOp, Left: sqlparser.Clone(j.Inner.keys[0]), Right: sqlparser.ValTuple{sqlparser.NewIntLiteral(listMarker)}})
	}
	inner, pi, err := sp.query(sqlparser.String(c), "the inner side of the join", keyed)
	if err != nil {
		return nil, nil, err
	}
	if len(po.Columns) != len(j.Spec.OuterKinds) || len(pi.Columns) != len(j.Spec.InnerKinds) {
		return nil, nil, fmt.Errorf("the sides of the join return %d and %d columns, planned %d and %d", len(po.Columns), len(pi.Columns), len(j.Spec.OuterKinds), len(j.Spec.InnerKinds))
	}
	js := &runtime.JoinStep{Outer: outer, OuterJoin: outerJoin, Inner: inner, Spec: j.Spec, Output: j.Output, Kinds: j.Kinds, OrderBy: j.OrderBy,
		Offset: j.Offset, Count: j.Count, LimitArgs: j.LimitArgs, Batch: j.Batch, Null: j.Null}
	if keyed {
		// The hash join's build side: the inner side with its own
		// conditions only, read once (runtime.JoinStrategy chooses).
		build, pb, err := sp.query(sqlparser.String(sqlparser.Clone(j.Inner.sel)), "the build side of the hash join", false)
		if err != nil {
			return nil, nil, err
		}
		if len(pb.Columns) != len(pi.Columns) {
			return nil, nil, fmt.Errorf("the build side of the hash join returns %d columns, the inner side %d", len(pb.Columns), len(pi.Columns))
		}
		js.Build = build
	}
	joined := append(append([]*Column(nil), po.Columns...), pi.Columns...)
	if j.Spec.Left {
		for i := len(po.Columns); i < len(joined); i++ {
			c := *joined[i]
			if c.Type != typeAny {
				c.Type = nullType(c.Type)
			}
			joined[i] = &c
		}
	}
	used := newNameSet()
	var cols []*Column
	if j.Merge != nil {
		js.Merge = j.Merge
		funcs := map[int]runtime.AggFunc{}
		for _, a := range j.Merge.Aggregates {
			funcs[a.Column] = a.Func
		}
		for i, mc := range j.MergeColumns {
			js.MergeColumns = append(js.MergeColumns, runtime.JoinMergeColumn{Op: runtime.JoinMergeOp(mc.Op), Column: mc.Column})
			if i >= j.Merge.Visible {
				continue
			}
			c := &Column{Name: mc.Name}
			f, agg := funcs[i]
			switch {
			case !agg:
				c.Type, c.Origin = joined[mc.Column].Type, joined[mc.Column].Origin
			case f == runtime.AggCount || f == runtime.AggCountDistinct:
				c.Type = typeInt64
			case f == runtime.AggMin || f == runtime.AggMax:
				c.Type = nullType(joined[mc.Column].Type)
			case j.Merge.Kinds[i].Type == runtime.ColumnFloat:
				c.Type = nullType(typeFloat64)
			default: // SUM and AVG of exact values: DECIMAL
				c.Type = typeNullStr
			}
			if c.Type == typeAny || c.Type.Name == "" {
				return nil, nil, fmt.Errorf("the type of result column %s is not known", mc.Name)
			}
			c.Field = used.unique(fieldName(c.Name))
			cols = append(cols, c)
		}
		return js, cols, nil
	}
	for _, o := range j.Output {
		c := *joined[o]
		c.Field = used.unique(fieldName(c.Name))
		cols = append(cols, &c)
	}
	return js, cols, nil
}

// union plans a UNION part by part; a column is nullable when any part's
// is.
func (sp *stepsPlanner) union(u *UnionSteps) (*runtime.UnionStep, []*Column, error) {
	us := &runtime.UnionStep{Distinct: u.Distinct, Visible: u.Visible, Kinds: u.Kinds, OrderBy: u.OrderBy, Offset: u.Offset, Count: u.Count, LimitArgs: u.LimitArgs}
	var cols []*Column
	for i, part := range u.Parts {
		sq, p, err := sp.query(part.SQL, fmt.Sprintf("SELECT %d of the UNION", i+1), false)
		if err != nil {
			return nil, nil, err
		}
		if len(p.Columns) < u.Visible {
			return nil, nil, fmt.Errorf("SELECT %d of the UNION returns %d columns, the first %d", i+1, len(p.Columns), u.Visible)
		}
		us.Parts = append(us.Parts, sq)
		if i == 0 {
			for _, c := range p.Columns[:u.Visible] {
				cc := *c
				cols = append(cols, &cc)
			}
			continue
		}
		for k, c := range p.Columns[:u.Visible] {
			if c.Type.Nullable && !cols[k].Type.Nullable && cols[k].Type != typeAny {
				cols[k].Type = nullType(cols[k].Type)
			}
		}
	}
	return us, cols, nil
}

// stepParamName is the name placeholder i of a statement evaluated in
// steps takes in its steps' statements (stepParamIndex reads it back from
// the Go name the planner gives it).
func stepParamName(i int) string { return "shardgenstep" + strconv.Itoa(i) }

// stepListName is the name of the parameter that stands for IN list k
// of bound values (in SQL order) of a step's statement (stepListIndex
// reads it back).
func stepListName(k int) string { return "shardgenlist" + strconv.Itoa(k) }

// stepListIndex returns k of a step's parameter named stepListName(k).
func stepListIndex(goName string) (int, bool) {
	n, ok := strings.CutPrefix(goName, "shardgenlist")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(n)
	return k, err == nil && k >= 0
}

// stepParamIndex returns the placeholder index of a step's parameter
// named stepParamName(i).
func stepParamIndex(goName string) (int, bool) {
	n, ok := strings.CutPrefix(goName, "shardgenstep")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	return i, err == nil && i >= 0
}

// stepParams reports whether every placeholder of the statement being
// split into steps is a parameter BuildStepsPlan named (stepParamName),
// whose placeholders stepArguments can name again in each step's SQL; a
// plain ? is not (the proxy binds values in place).
func (p *planner) stepParams() bool {
	for _, n := range p.names {
		if _, ok := stepParamIndex(n); !ok {
			return false
		}
	}
	return true
}

// stepArguments turns the placeholders of node, a statement of one step
// (a join side, a UNION part), back into the parameters BuildStepsPlan
// named (sqlc.arg(shardgenstepI)), so that its SQL says which parameter
// each takes, and returns the SQL.
func (p *planner) stepArguments(node sqlparser.SQLNode) string {
	sqlparser.Rewrite(node, func(c *sqlparser.Cursor) bool {
		a, isArg := c.Node().(*sqlparser.Argument)
		if !isArg {
			return true
		}
		k, err := strconv.Atoi(strings.TrimPrefix(a.Name, "v")) // the parser names them v1, v2, …
		if err != nil || k < 1 || k > len(p.names) {
			return false // planned as it is: the step's plan then has a placeholder of no parameter
		}
		form := "arg"
		if p.nulls[k-1] {
			form = "narg"
		}
		c.Replace(&sqlparser.FuncExpr{Qualifier: sqlparser.NewIdentifierCS("sqlc"), Name: sqlparser.NewIdentifierCI(form),
			Exprs: []sqlparser.Expr{sqlparser.NewColName(p.names[k-1])}})
		return false
	}, nil)
	return sqlparser.String(node)
}
