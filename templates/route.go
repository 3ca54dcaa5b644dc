package templates

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// shape is how a generated method finds its route units.
type shape uint8

const (
	// shapeFixed: the units are known at generate time (Route.Fixed, or
	// every unit of an AllNodes route); the unit table holds exactly them.
	shapeFixed shape = iota
	// shapeBroadcastWrite: a write to a broadcast table, run on every unit
	// one after the other.
	shapeBroadcastWrite
	// shapeInline: one unit, computed with the inlined algorithms
	// (runtime/inlined.go) and look-up tables.
	shapeInline
	// shapePrecise: one unit, computed by ShardingTable.PreciseNode.
	shapePrecise
	// shapeRouteAll: several units (or none), computed by
	// ShardingTable.RouteConditions over the sharding conditions (RouteAll
	// for an INSERT); also a SingleNode route whose sharding parameter is
	// nullable, since a NULL value reaches no unit.
	shapeRouteAll
	// shapeInsert: a multi-row INSERT; each VALUES row's data node is
	// computed as a nodeRoute, and InsertSplit builds one statement per
	// data node from the rows it received.
	shapeInsert
)

// routePlan is the route shape chosen for one query.
type routePlan struct {
	shape   shape
	emitted []int       // indexes into Route.Units of the unit table's entries
	table   *logicTable // the routed logic table (computed shapes)
	node    nodeRoute   // shapeInline, shapePrecise: how the one unit is found
	rows    []nodeRoute // shapeInsert: how each VALUES row's data node is found
	// update is the routed logic table of an UPDATE that sets sharding
	// columns (Route.Update), whose router checks that rows stay.
	update *logicTable
	// sliceNode is how each value of a routing sqlc.slice finds its one
	// data node (shapeInline or shapePrecise); nil when each value is
	// routed by ShardingTable.RouteConditions.
	sliceNode *nodeRoute
}

// nodeRoute is how generated code finds one data node of the routed table
// from one AND-group of `=` conditions with one value per sharding column:
// the unit of a SingleNode route, or the data node of one row of a
// multi-row INSERT.
type nodeRoute struct {
	// shape is shapeInline, shapePrecise, or (for an INSERT row only)
	// shapeRouteAll: ShardingTable.RouteAll over cond, which must reach
	// exactly one data node (complex strategies).
	shape  shape
	db, tb side // the strategy sides (shapeInline, shapePrecise)
	cond   plan.Condition
	row    int // the INSERT row, 0-based; -1 for a SingleNode route
}

// single reports whether the route always has exactly one unit.
func (r *routePlan) single() bool {
	switch r.shape {
	case shapeInline, shapePrecise:
		return true
	case shapeFixed:
		return len(r.emitted) == 1
	}
	return false
}

// side is one strategy (database or table) of a single-node route.
type side struct {
	strategy *plan.Strategy // nil: no strategy (one target)
	column   string
	operand  *plan.Operand // nil: no condition on the column (one target)
	fn       string        // inlined suffix function, e.g. "Mod"; "" when not inlinable
	index    *indexTable   // nil: the suffix is the target index
}

// constant reports whether the side always picks its only target.
func (s *side) constant() bool { return s.operand == nil }

// planRoute chooses how q finds its units and reserves the package-level
// tables that needs.
func (g *generator) planRoute(q *query) error {
	r := q.p.Route
	for i, u := range r.Units {
		if u.DataSource < 0 || u.DataSource >= len(r.DataSources) {
			return fmt.Errorf("route unit %d (%s) has data source index %d, outside the route's %d data sources", i, u.Node, u.DataSource, len(r.DataSources))
		}
	}
	all := make([]int, len(r.Units))
	for i := range all {
		all[i] = i
	}
	rp := &q.route
	if len(r.Agree) > 0 {
		return agreementError(q.p, r.Agree[0])
	}
	if r.Pushdown && r.Fixed == nil && len(r.Conditions) == 1 {
		for _, cc := range r.Conditions[0].Columns {
			for _, v := range cc.Values {
				if v.Param >= 0 && v.Param < len(q.p.Params) && q.p.Params[v.Param].Type.Nullable {
					return fmt.Errorf("pushed-down statement routes by nullable parameter %s, which generated code does not support yet: pass a non-NULL value type (sqlc.arg)", q.p.Params[v.Param].Name)
				}
			}
		}
	}
	if r.Update != nil {
		t, err := g.table(q)
		if err != nil {
			return err
		}
		if err := g.useRouter(t); err != nil {
			return err
		}
		rp.update = t
	}
	switch {
	case q.p.Cmd == schema.CmdCopyFrom:
		return g.planCopyFrom(q)
	case q.p.Insert != nil:
		return g.planInsert(q)
	case r.Kind == runtime.RouteBroadcast && q.p.Statement != plan.StmtSelect && len(r.Fixed) > 1:
		rp.shape, rp.emitted = shapeBroadcastWrite, r.Fixed
	case r.Fixed != nil:
		rp.shape, rp.emitted = shapeFixed, r.Fixed
	case r.Kind == runtime.RouteAllNodes:
		rp.shape, rp.emitted = shapeFixed, all
	case r.Kind == runtime.RouteSingleNode || r.Kind == runtime.RouteMultiNode:
		t, err := g.table(q)
		if err != nil {
			return err
		}
		rp.table, rp.emitted = t, all
		if r.Kind == runtime.RouteSingleNode {
			var cond plan.Condition
			if len(r.Conditions) == 1 {
				cond = r.Conditions[0]
			}
			nr, err := g.planNode(q, cond, -1)
			if err != nil {
				return err
			}
			if nr.shape != shapeRouteAll {
				rp.shape, rp.node = nr.shape, nr
				return nil
			}
		}
		if len(r.Conditions) == 0 {
			return fmt.Errorf("%s route of table %q has no sharding conditions", r.Kind, r.LogicTable)
		}
		rp.shape = shapeRouteAll
		if s := q.p.Slice; s != nil {
			if s.Routing && len(r.Conditions) == 1 {
				nr, err := g.planNode(q, r.Conditions[0], -1)
				if err != nil {
					return err
				}
				if nr.shape != shapeRouteAll && nodeComplete(r, &nr) {
					rp.sliceNode = &nr
					return nil
				}
			}
		} else {
			g.needPickUnits = true
		}
		return g.useRouter(t)
	default:
		return fmt.Errorf("%s route of table %q has no fixed units", r.Kind, r.LogicTable)
	}
	for _, i := range rp.emitted {
		if i < 0 || i >= len(r.Units) {
			return fmt.Errorf("fixed route unit %d is outside the route's %d units", i, len(r.Units))
		}
	}
	if len(rp.emitted) == 0 {
		return fmt.Errorf("%s route of table %q has no units", r.Kind, r.LogicTable)
	}
	return nil
}

// planInsert plans a multi-row INSERT: every VALUES row's condition
// (Route.Conditions[r]) gets its own nodeRoute, and the unit table holds
// every data node of the table.
func (g *generator) planInsert(q *query) error {
	r, ins, rp := q.p.Route, q.p.Insert, &q.route
	if r.Kind != runtime.RouteMultiNode && r.Kind != runtime.RouteSingleNode {
		return fmt.Errorf("multi-row INSERT with a %s route; it must be routed row by row on a sharded table", r.Kind)
	}
	n := len(ins.Split.Rows)
	switch {
	case n < 2:
		return fmt.Errorf("multi-row INSERT split has %d rows", n)
	case len(ins.RowArgs) != n || len(r.Conditions) != n:
		return fmt.Errorf("multi-row INSERT has %d rows, but %d argument lists and %d row conditions", n, len(ins.RowArgs), len(r.Conditions))
	case len(ins.Split.Heads) != len(r.Units) || len(ins.Split.Tails) != len(r.Units):
		return fmt.Errorf("multi-row INSERT split has %d heads and %d tails for %d data nodes", len(ins.Split.Heads), len(ins.Split.Tails), len(r.Units))
	}
	what, n := "parameter", len(q.p.Params)
	if ins.ByNodeArgs { // an encrypted table: the rows take per-node values
		what, n = "per-node argument", len(q.p.NodeArgs)
	}
	for _, args := range append(slices.Clone(ins.RowArgs), ins.TailArgs) {
		for _, a := range args {
			if a < 0 || a >= n {
				return fmt.Errorf("multi-row INSERT argument refers to %s %d of %d", what, a, n)
			}
		}
	}
	t, err := g.table(q)
	if err != nil {
		return err
	}
	rp.shape, rp.table = shapeInsert, t
	for i := range r.Units {
		rp.emitted = append(rp.emitted, i)
	}
	for i, cond := range r.Conditions {
		nr, err := g.planNode(q, cond, i)
		if err != nil {
			return err
		}
		if nr.shape == shapeRouteAll {
			if err := g.useRouter(t); err != nil {
				return err
			}
		}
		rp.rows = append(rp.rows, nr)
	}
	return nil
}

// planNode chooses how generated code finds the one data node that cond
// selects: shapeInline when every side's algorithm is inlinable for its
// operand, else shapePrecise through ShardingTable.PreciseNode, else
// shapeRouteAll (a side with a complex strategy, or with a strategy but no
// single `=` value in cond). row is the INSERT row (-1: a SingleNode
// route). It reserves the package-level tables the shape needs, except
// the router of shapeRouteAll.
func (g *generator) planNode(q *query, cond plan.Condition, row int) (nodeRoute, error) {
	r, t := q.p.Route, q.route.table
	nr := nodeRoute{shape: shapeRouteAll, cond: cond, row: row}
	mk := func(s *plan.Strategy) (side, bool) {
		if s == nil {
			return side{}, true
		}
		if s.Kind != schema.StrategyStandard || len(s.Columns) != 1 {
			return side{}, false
		}
		sd := side{strategy: s, column: s.Columns[0]}
		for _, cc := range cond.Columns {
			if strings.EqualFold(cc.Column, sd.column) && cc.Range == nil && len(cc.Values) == 1 {
				op := cc.Values[0]
				sd.operand = &op
			}
		}
		return sd, true
	}
	db, ok1 := mk(r.Database)
	tb, ok2 := mk(r.Table)
	if !ok1 || !ok2 {
		return nr, nil
	}
	if q.p.Statement != plan.StmtInsert && (nullable(q.p, db.operand) || nullable(q.p, tb.operand)) {
		// A NULL value matches no row: the route may have no unit, which
		// ShardingTable.RouteConditions computes.
		return nr, nil
	}
	db.fn, tb.fn = inlineFunc(q.p, &db), inlineFunc(q.p, &tb)
	if (db.constant() || db.fn != "") && (tb.constant() || tb.fn != "") {
		nr.shape, nr.db, nr.tb = shapeInline, db, tb
		for i, sd := range []*side{&nr.db, &nr.tb} {
			if sd.constant() || sd.strategy.Inline.Identity {
				continue
			}
			x, err := g.useIndex(t, i == 0, sd.strategy.Inline)
			if err != nil {
				return nr, err
			}
			sd.index = x
		}
		if t.perDS == 0 {
			if err := g.useLayout(t); err != nil {
				return nr, err
			}
		}
		if needsCheck(&nr.db) || needsCheck(&nr.tb) {
			g.needNoTarget = true
		}
		return nr, nil
	}
	for _, sd := range []*side{&db, &tb} {
		if sd.strategy != nil && sd.constant() {
			return nr, nil
		}
		if sd.operand != nil {
			if err := checkValue(q.p, sd.column, sd.operand); err != nil {
				return nr, err
			}
		}
	}
	nr.shape, nr.db, nr.tb = shapePrecise, db, tb
	return nr, g.useRouter(t)
}

// nodeComplete reports whether nr picks exactly one data node: every side
// has a value, or has one target (as plan's isSingleNode requires of a
// SingleNode route).
func nodeComplete(r *plan.Route, nr *nodeRoute) bool {
	tables := 0
	for _, n := range r.Nodes {
		tables = max(tables, len(n))
	}
	return (nr.db.operand != nil || len(r.DataSources) == 1) && (nr.tb.operand != nil || tables == 1)
}

// nullable reports whether op is a parameter of a nullable Go type
// (sql.Null*), whose value may be NULL.
func nullable(p *plan.Plan, op *plan.Operand) bool {
	if op == nil || op.Literal != nil || op.Param < 0 || op.Param >= len(p.Params) {
		return false
	}
	_, null := nullField(p.Params[op.Param].Type)
	return null
}

// inlineFunc returns the runtime function that computes sd's suffix from
// its operand, or "" when the operand's Java kind does not fit the
// strategy's inline form (see plan.Inline).
func inlineFunc(p *plan.Plan, sd *side) string {
	if sd.operand == nil || sd.strategy.Inline == nil {
		return ""
	}
	in := sd.strategy.Inline
	var kind runtime.ValueKind
	if op := sd.operand; op.Literal != nil {
		kind = op.Literal.Kind
		if kind == runtime.KindInt && in.Func == "HashModLong" {
			return "" // Integer.hashCode differs from Long.hashCode for negatives
		}
	} else {
		if op.Param < 0 || op.Param >= len(p.Params) {
			return ""
		}
		t := p.Params[op.Param].Type
		switch {
		case t.Kind == runtime.KindLong && isInteger(t):
			kind = runtime.KindLong
		case t.Kind == runtime.KindString && t.Pkg == "" && t.Name == "string":
			kind = runtime.KindString
		default:
			return ""
		}
	}
	switch kind {
	case runtime.KindInt, runtime.KindLong:
		switch in.Func {
		case "Mod", "HashModLong", "JavaRem":
			return in.Func
		}
	case runtime.KindString:
		if in.Func == "HashModLong" {
			return "HashModString"
		}
	}
	return ""
}

// needsCheck reports whether an inlined side can compute "no target".
func needsCheck(sd *side) bool {
	return !sd.constant() && (sd.index != nil || sd.fn == "JavaRem")
}

// fnCtx is the state of one generated function body.
type fnCtx struct {
	q        *query
	scope    nameSet    // names taken in the function
	params   []jen.Code // per plan parameter: the expression of its value
	declared map[string]bool
	// fail returns the statement that makes the function return err
	// wrapped by wrap; ret returns the one that returns err as it is
	// (nil, sql.ErrNoRows).
	fail, ret func(err jen.Code) jen.Code
	// nodeVals are the per-node arguments (Plan.NodeArgs) once
	// nodeArgStatements computed them; hasNodeVals tells an empty list
	// from none.
	nodeVals    []jen.Code
	hasNodeVals bool
	// insertRow is the VALUES row being routed (1-based) in a multi-row
	// INSERT, 0 otherwise: the NULL sharding value error names it.
	insertRow int
	// rowPtr tells decryptStatements that r is a pointer to the row
	// (r := &rows[i]), not the row.
	rowPtr bool
	// resultRows is the named result of a :many method under
	// emit_empty_slices (e.g. items), "" otherwise.
	resultRows string
}

// executor returns the Executor the query runs on: q.primary for a read
// that must see the primary of a read/write group (Plan.Primary: a locking
// read or a query annotated -- shardgen:primary), else q.ex (writes go to
// the primary anyway).
func (fc *fnCtx) executor() *jen.Statement {
	if fc.q.p.Primary && fc.q.isRead() {
		return jen.Id("q").Dot("primary")
	}
	return jen.Id("q").Dot("ex")
}

// runner returns what a single-unit statement of the query runs on:
// q.primary for a read that must see the primary (see executor), else
// q.run, which calls *shardrt.Sources directly outside a transaction.
func (fc *fnCtx) runner() *jen.Statement {
	if fc.q.p.Primary && fc.q.isRead() {
		return jen.Id("q").Dot("primary")
	}
	return jen.Id("q").Dot("run")
}

// wrap returns err named by the query for the method to return, e.g.
// shardrt.WrapQuery("GetOrder (queries/orders.sql:11)", err): see
// runtime.WrapQuery.
func (fc *fnCtx) wrap(err jen.Code) *jen.Statement {
	return jen.Qual(rt, "WrapQuery").Call(jen.Lit(fc.q.p.Name+" ("+fc.q.p.Source+")"), err)
}

// define returns ":=" when one of names is not yet declared in the
// function (and declares them), else "=".
func (fc *fnCtx) define(names ...string) string {
	op := "="
	for _, n := range names {
		if n != "_" && !fc.declared[n] {
			fc.declared[n] = true
			op = ":="
		}
	}
	return op
}

// temp returns a fresh local name: v0, v1, ...
func (fc *fnCtx) temp() string {
	for i := 0; ; i++ {
		n := "v" + strconv.Itoa(i)
		if !fc.scope[n] {
			fc.scope[n] = true
			return n
		}
	}
}

// routeCode is what routeStatements returns: statements that find the
// unit(s), then the unit expression (single) or units expression.
type routeCode struct {
	stmts []jen.Code
	unit  jen.Code // a shardrt.RouteUnit (single routes)
	units jen.Code // a []shardrt.RouteUnit (multi-unit routes)
	// rowNodes is a []int of every INSERT row's data node (shapeInsert).
	rowNodes jen.Code
}

// routeStatements emits the statements that find q's route unit(s), and,
// for an UPDATE that sets sharding columns, the check that its rows stay
// on their data node.
func (g *generator) routeStatements(fc *fnCtx) (*routeCode, error) {
	q := fc.q
	rp := &q.route
	units := jen.Id(q.unitsVar)
	rc := &routeCode{}
	var nodes jen.Code // the data nodes reached, a []int (Route.Update only)
	switch rp.shape {
	case shapeFixed, shapeBroadcastWrite:
		if rp.single() {
			// e.g.: getDictUnits[0]
			rc.unit = units.Clone().Index(jen.Lit(0))
		} else {
			// e.g.: listAllUnits[:]
			rc.units = units.Clone().Index(jen.Op(":"))
		}
		var lits []jen.Code
		for _, i := range rp.emitted {
			lits = append(lits, jen.Lit(i))
		}
		nodes = jen.Index().Int().Values(lits...)
	case shapeInline, shapePrecise:
		// e.g.: getOrderUnits[ds*4+t]
		stmts, idx, err := g.nodeIndex(fc, &rp.node)
		if err != nil {
			return nil, err
		}
		rc.stmts, rc.unit = stmts, units.Clone().Index(idx)
		nodes = jen.Index().Int().Values(idx)
	case shapeInsert:
		// e.g.:
		//	var rowNodes [2]int
		//	ds := shardrt.Mod(userID, 4)
		//	t := shardrt.Mod(orderID, 4)
		//	rowNodes[0] = ds*4 + t
		//	ds = shardrt.Mod(userID_2, 4)
		//	t = shardrt.Mod(orderID_2, 4)
		//	rowNodes[1] = ds*4 + t
		rc.stmts = append(rc.stmts, jen.Var().Id("rowNodes").Index(jen.Lit(len(rp.rows))).Int())
		for i := range rp.rows {
			fc.insertRow = i + 1
			stmts, idx, err := g.nodeIndex(fc, &rp.rows[i])
			fc.insertRow = 0
			if err != nil {
				return nil, err
			}
			rc.stmts = append(rc.stmts, stmts...)
			rc.stmts = append(rc.stmts, jen.Id("rowNodes").Index(jen.Lit(i)).Op("=").Add(idx))
		}
		rc.rowNodes = jen.Id("rowNodes").Index(jen.Op(":"))
	case shapeRouteAll:
		// e.g.:
		//	nodes, err := q.tOrder.RouteConditions([][]shardrt.ShardingValues{{
		//		{Column: "user_id", Values: []shardrt.Value{shardrt.Long(int64(userID)), shardrt.Long(int64(userID_2))}},
		//	}}, shardrt.HintValues{})
		//	if err != nil {
		//		return nil, err
		//	}
		//	units := pickUnits(listOrdersUnits[:], nodes)
		pre, call, err := g.routeAllCall(fc, q.p.Route.Conditions)
		if err != nil {
			return nil, err
		}
		rc.stmts = append(pre,
			jen.List(jen.Id("nodes"), jen.Id("err")).Op(fc.define("nodes", "err")).Add(call),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
			jen.Id("units").Op(fc.define("units")).Id("pickUnits").Call(units.Clone().Index(jen.Op(":")), jen.Id("nodes")),
		)
		rc.units = jen.Id("units")
		nodes = jen.Id("nodes")
	}
	if u := q.p.Route.Update; u != nil {
		// e.g.:
		//	if err := q.tOrder.UpdateStaysOnNode("t_order", []int{ds*4 + t}, []shardrt.ShardingValues{
		//		{Column: "user_id", Values: []shardrt.Value{shardrt.Long(newUserID)}},
		//	}, [][]shardrt.ShardingValues{{
		//		{Column: "order_id", Values: []shardrt.Value{shardrt.Long(orderID)}},
		//		{Column: "user_id", Values: []shardrt.Value{shardrt.Long(newUserID)}},
		//	}}); err != nil {
		//		return 0, err
		//	}
		if nodes == nil {
			return nil, fmt.Errorf("an UPDATE that sets sharding columns with a %s route", q.p.Route.Kind)
		}
		pre, set, err := g.shardingGroup(fc, u.Set)
		if err != nil {
			return nil, err
		}
		rc.stmts = append(rc.stmts, pre...)
		pre, rows, err := g.shardingValues(fc, u.Conditions)
		if err != nil {
			return nil, err
		}
		rc.stmts = append(rc.stmts, pre...)
		rc.stmts = append(rc.stmts, jen.If(
			jen.Err().Op(":=").Id("q").Dot(rp.update.field).Dot("UpdateStaysOnNode").Call(
				jen.Lit(rp.update.name), nodes, jen.Index().Qual(rt, "ShardingValues").Add(set), rows),
			jen.Err().Op("!=").Nil(),
		).Block(fc.fail(jen.Err())))
	}
	return rc, nil
}

// routeAllCall returns the ShardingTable.RouteConditions call (RouteAll for
// an INSERT) over the sharding conditions conds (in disjunctive normal
// form), with the statements that must run first (nullable parameters).
func (g *generator) routeAllCall(fc *fnCtx, conds []plan.Condition) ([]jen.Code, jen.Code, error) {
	pre, groups, err := g.shardingValues(fc, conds)
	if err != nil {
		return nil, nil, err
	}
	method := "RouteConditions" // a NULL value matches no row
	if fc.q.p.Statement == plan.StmtInsert {
		method = "RouteAll" // an INSERT row's NULL is an error
	}
	call := jen.Id("q").Dot(fc.q.route.table.field).Dot(method).Call(groups, jen.Qual(rt, "HintValues").Values())
	return pre, call, nil
}

// shardingValues returns the [][]shardrt.ShardingValues literal of the
// sharding conditions conds (one AND-group each), with the statements that
// must run first (nullable parameters).
func (g *generator) shardingValues(fc *fnCtx, conds []plan.Condition) ([]jen.Code, jen.Code, error) {
	var pre, groups []jen.Code
	for _, c := range conds {
		p, group, err := g.shardingGroup(fc, c)
		if err != nil {
			return nil, nil, err
		}
		pre = append(pre, p...)
		groups = append(groups, group)
	}
	return pre, jen.Index().Index().Qual(rt, "ShardingValues").Values(groups...), nil
}

// shardingGroup returns the braced list of shardrt.ShardingValues of one
// AND-group c, e.g. {{Column: "user_id", Values: ...}, ...}, with the
// statements that must run first.
func (g *generator) shardingGroup(fc *fnCtx, c plan.Condition) ([]jen.Code, jen.Code, error) {
	var pre []jen.Code
	var cols []jen.Code
	for _, cc := range c.Columns {
		// e.g.: {Column: "order_id", Range: &shardrt.Range{Lower: shardrt.Long(orderID), HasLower: true}}
		items := []jen.Code{jen.Id("Column").Op(":").Lit(cc.Column)}
		if len(cc.Values) > 0 {
			var vs []jen.Code
			for i := range cc.Values {
				p, v, err := g.value(fc, cc.Column, &cc.Values[i])
				if err != nil {
					return nil, nil, err
				}
				pre = append(pre, p...)
				vs = append(vs, v)
			}
			items = append(items, jen.Id("Values").Op(":").Index().Qual(rt, "Value").Values(vs...))
		}
		if rg := cc.Range; rg != nil {
			var ri []jen.Code
			for _, b := range []struct {
				op         *plan.Operand
				name, flag string
			}{{rg.Lower, "Lower", "HasLower"}, {rg.Upper, "Upper", "HasUpper"}} {
				if b.op == nil {
					continue
				}
				p, v, err := g.value(fc, cc.Column, b.op)
				if err != nil {
					return nil, nil, err
				}
				pre = append(pre, p...)
				ri = append(ri, jen.Id(b.name).Op(":").Add(v), jen.Id(b.flag).Op(":").True())
			}
			if rg.LowerOpen {
				ri = append(ri, jen.Id("LowerOpen").Op(":").True())
			}
			if rg.UpperOpen {
				ri = append(ri, jen.Id("UpperOpen").Op(":").True())
			}
			items = append(items, jen.Id("Range").Op(":").Op("&").Qual(rt, "Range").Values(ri...))
		}
		cols = append(cols, jen.Values(items...))
	}
	return pre, jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, cols...), nil
}

// nodeIndex emits the statements that find the data node of nr and
// returns them with the expression of its index into Route.Units (an
// int).
func (g *generator) nodeIndex(fc *fnCtx, nr *nodeRoute) ([]jen.Code, jen.Code, error) {
	switch nr.shape {
	case shapeInline:
		return g.inlineRoute(fc, nr)
	case shapePrecise:
		// e.g.:
		//	node, err := q.tOrder.PreciseNode(shardrt.Long(int64(userID)), shardrt.Long(orderID))
		//	if err != nil {
		//		return TOrder{}, err
		//	}
		var stmts []jen.Code
		vals := make([]jen.Code, 2)
		for i, sd := range []*side{&nr.db, &nr.tb} {
			if sd.strategy == nil {
				vals[i] = jen.Qual(rt, "Null")
				continue
			}
			pre, v, err := g.value(fc, sd.column, sd.operand)
			if err != nil {
				return nil, nil, err
			}
			stmts = append(stmts, pre...)
			vals[i] = v
		}
		stmts = append(stmts,
			jen.List(jen.Id("node"), jen.Id("err")).Op(fc.define("node", "err")).Id("q").Dot(fc.q.route.table.field).Dot("PreciseNode").Call(vals...),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))))
		return stmts, jen.Id("node"), nil
	case shapeRouteAll:
		// An INSERT row under a complex strategy, e.g.:
		//	nodes, err := q.tOrder.RouteAll([][]shardrt.ShardingValues{{
		//		{Column: "user_id", Values: []shardrt.Value{shardrt.Long(userID_2)}},
		//		{Column: "order_id", Values: []shardrt.Value{shardrt.Long(orderID_2)}},
		//	}}, shardrt.HintValues{})
		//	if err != nil {
		//		return nil, err
		//	}
		//	if len(nodes) != 1 {
		//		return nil, fmt.Errorf("row 2 of the INSERT into t_order routes to %d data nodes, not one", len(nodes))
		//	}
		// and nodes[0] is the row's data node.
		if nr.row < 0 {
			return nil, nil, errors.New("a single-node route computed by RouteAll")
		}
		pre, call, err := g.routeAllCall(fc, []plan.Condition{nr.cond})
		if err != nil {
			return nil, nil, err
		}
		msg := "row " + strconv.Itoa(nr.row+1) + " of the INSERT into " + fc.q.route.table.name + " routes to %d data nodes, not one"
		stmts := append(pre,
			jen.List(jen.Id("nodes"), jen.Id("err")).Op(fc.define("nodes", "err")).Add(call),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
			jen.If(jen.Len(jen.Id("nodes")).Op("!=").Lit(1)).Block(fc.fail(jen.Qual("fmt", "Errorf").Call(jen.Lit(msg), jen.Len(jen.Id("nodes"))))),
		)
		return stmts, jen.Id("nodes").Index(jen.Lit(0)), nil
	}
	return nil, nil, fmt.Errorf("no data node computation for route shape %d", nr.shape)
}

// inlineRoute emits the straight-line route of shapeInline and returns the
// unit index expression.
func (g *generator) inlineRoute(fc *fnCtx, nr *nodeRoute) ([]jen.Code, jen.Code, error) {
	t := fc.q.route.table
	var stmts []jen.Code
	idx := make([]jen.Code, 2) // ds, t
	for i, sd := range []*side{&nr.db, &nr.tb} {
		if sd.constant() {
			idx[i] = jen.Lit(0)
			continue
		}
		name := [2]string{"ds", "t"}[i]
		arg, err := g.inlineArg(fc, sd)
		if err != nil {
			return nil, nil, err
		}
		// e.g.: shardrt.Mod(int64(userID), 2)
		suffix := jen.Qual(rt, sd.fn).Call(arg, jen.Lit(int(sd.strategy.Inline.Modulus)))
		var value *jen.Statement
		switch {
		case sd.index != nil && sd.index.offset > 0:
			// e.g.: ds := int(tOrderDatabaseIndex[shardrt.JavaRem(userID, 4)+3])
			value = jen.Int().Call(jen.Id(sd.index.name).Index(suffix.Op("+").Lit(int(sd.index.offset))))
		case sd.index != nil:
			// e.g.: ds := int(tOrderDatabaseIndex[shardrt.Mod(int64(userID), 3)])
			value = jen.Int().Call(jen.Id(sd.index.name).Index(suffix))
		case sd.fn == "JavaRem":
			// e.g.: t := int(shardrt.JavaRem(orderID, 4))
			value = jen.Int().Call(suffix)
		default:
			// e.g.: ds := shardrt.Mod(int64(userID), 2)
			value = suffix
		}
		stmts = append(stmts, jen.Id(name).Op(fc.define(name)).Add(value))
		if needsCheck(sd) {
			// e.g.:
			//	if t < 0 {
			//		return TOrder{}, noTarget("t_order", "order_id", shardrt.Long(orderID))
			//	}
			pre, v, err := g.value(fc, sd.column, sd.operand)
			if err != nil {
				return nil, nil, err
			}
			body := append(pre, fc.fail(jen.Id("noTarget").Call(jen.Lit(t.name), jen.Lit(sd.column), v)))
			stmts = append(stmts, jen.If(jen.Id(name).Op("<").Lit(0)).Block(body...))
		}
		idx[i] = jen.Id(name)
	}
	dsConst, tConst := nr.db.constant(), nr.tb.constant()
	switch k := t.perDS; {
	case dsConst && tConst:
		// e.g.: 0
		return stmts, jen.Lit(t.route.Nodes[0][0]), nil
	case k == 0:
		// e.g.: tOrderLayout[ds][t]
		return stmts, jen.Id(t.layout).Index(idx[0]).Index(idx[1]), nil
	case dsConst:
		// e.g.: t
		return stmts, idx[1], nil
	case tConst && k == 1:
		// e.g.: ds
		return stmts, idx[0], nil
	case tConst:
		// e.g.: ds*4
		return stmts, jen.Add(idx[0]).Op("*").Lit(k), nil
	default:
		// e.g.: ds*4+t
		return stmts, jen.Add(idx[0]).Op("*").Lit(k).Op("+").Add(idx[1]), nil
	}
}

// inlineArg returns the argument of an inlined suffix function: an int64
// for Mod, HashModLong and JavaRem, a string for HashModString.
func (g *generator) inlineArg(fc *fnCtx, sd *side) (jen.Code, error) {
	op := sd.operand
	if l := op.Literal; l != nil {
		if sd.fn == "HashModString" {
			return jen.Lit(l.Str), nil
		}
		return jen.Lit(int(l.Int)), nil
	}
	t := fc.q.p.Params[op.Param].Type
	x := fc.params[op.Param]
	switch {
	case sd.fn == "HashModString":
		return x, nil
	case t.Name == "int64":
		return x, nil
	default:
		return jen.Int64().Call(x), nil
	}
}

// checkValue reports whether the sharding value of op can be built.
func checkValue(p *plan.Plan, column string, op *plan.Operand) error {
	if op.Literal != nil {
		return nil
	}
	if op.Param < 0 || op.Param >= len(p.Params) {
		return fmt.Errorf("sharding column %q: operand refers to parameter %d of %d", column, op.Param, len(p.Params))
	}
	prm := p.Params[op.Param]
	t := prm.Type
	if _, null := nullField(t); null {
		t = nullElem(t)
	}
	if _, err := valueCtor(t, jen.Null()); err != nil {
		return fmt.Errorf("sharding column %q: parameter %s: %w", column, prm.Name, err)
	}
	return nil
}

// value returns the shardrt.Value of a sharding operand, with the
// statements that must run first (for a nullable parameter).
func (g *generator) value(fc *fnCtx, column string, op *plan.Operand) ([]jen.Code, jen.Code, error) {
	if l := op.Literal; l != nil {
		c, err := literalValue(*l)
		return nil, c, err
	}
	if err := checkValue(fc.q.p, column, op); err != nil {
		return nil, nil, err
	}
	t := fc.q.p.Params[op.Param].Type
	x := fc.params[op.Param]
	f, null := nullField(t)
	if !null {
		c, err := valueCtor(t, x)
		return nil, c, err
	}
	// The value, and whether there is one: userID.Int32 and userID.Valid,
	// or *userID and userID != nil for a pointer.
	elem, valid, invalid := jen.Add(x).Dot(f), jen.Add(x).Dot("Valid"), jen.Op("!").Add(x).Dot("Valid")
	if f == "*" {
		elem, valid, invalid = jen.Op("*").Add(x), jen.Add(x).Op("!=").Nil(), jen.Add(x).Op("==").Nil()
	}
	if fc.q.p.Statement == plan.StmtInsert {
		// A row must be placed on a data node: NULL is an error, e.g.
		//	if !userID.Valid {
		//		return nil, shardrt.WrapQuery("InsertPay (queries/pay.sql:3)", errors.New("sharding column user_id of t_pay is NULL"))
		//	}
		// and the value is shardrt.Long(userID.Int64).
		c, err := valueCtor(nullElem(t), elem)
		if err != nil {
			return nil, nil, err
		}
		msg := plan.InsertNullText(column, fc.q.p.Route.LogicTable, fc.insertRow)
		return []jen.Code{
			jen.If(invalid).Block(fc.fail(jen.Qual("errors", "New").Call(jen.Lit(msg)))),
		}, c, nil
	}
	// e.g.:
	//	v0 := shardrt.Null
	//	if userID.Valid {
	//		v0 = shardrt.Long(int64(userID.Int32))
	//	}
	c, err := valueCtor(nullElem(t), elem)
	if err != nil {
		return nil, nil, err
	}
	v := fc.temp()
	return []jen.Code{
		jen.Id(v).Op(":=").Qual(rt, "Null"),
		jen.If(valid).Block(jen.Id(v).Op("=").Add(c)),
	}, jen.Id(v), nil
}

// valueCtor returns the shardrt.Value of Go value x of type t, as the Java
// kind t.Kind that ShardingSphere would see.
func valueCtor(t plan.GoType, x jen.Code) (jen.Code, error) {
	plain := func(name string) bool { return t.Pkg == "" && t.Name == name }
	switch t.Kind {
	case runtime.KindLong:
		if plain("int64") {
			return jen.Qual(rt, "Long").Call(x), nil
		}
		// e.g.: shardrt.Long(int64(userID))
		return jen.Qual(rt, "Long").Call(jen.Int64().Call(x)), nil
	case runtime.KindInt:
		return jen.Qual(rt, "Int").Call(jen.Int32().Call(x)), nil
	case runtime.KindString:
		if plain("string") {
			return jen.Qual(rt, "String").Call(x), nil
		}
		return jen.Qual(rt, "String").Call(jen.String().Call(x)), nil
	case runtime.KindDecimal:
		if plain("string") {
			return jen.Qual(rt, "Decimal").Call(x), nil
		}
	case runtime.KindTime:
		if t.Pkg == "time" && t.Name == "Time" {
			return jen.Qual(rt, "Time").Call(x), nil
		}
	}
	return nil, fmt.Errorf("Go type %s has no sharding value kind shardgen can build (Java kind %s): route on an integer, string, DECIMAL-as-string or time column, or override the column's Go type", t, t.Kind)
}

// literalValue returns the constructor call of a literal sharding value.
func literalValue(v runtime.Value) (jen.Code, error) {
	switch v.Kind {
	case runtime.KindInt:
		return jen.Qual(rt, "Int").Call(jen.Lit(int(v.Int))), nil
	case runtime.KindLong:
		return jen.Qual(rt, "Long").Call(jen.Lit(int(v.Int))), nil
	case runtime.KindBigInteger:
		return jen.Qual(rt, "BigInteger").Call(jen.Lit(v.Str)), nil
	case runtime.KindDecimal:
		return jen.Qual(rt, "Decimal").Call(jen.Lit(v.Str)), nil
	case runtime.KindString:
		return jen.Qual(rt, "String").Call(jen.Lit(v.Str)), nil
	case runtime.KindTime:
		// e.g.: shardrt.Time(time.Unix(1700000000, 0).UTC())
		return jen.Qual(rt, "Time").Call(jen.Qual("time", "Unix").Call(jen.Lit(int(v.Time.Unix())), jen.Lit(v.Time.Nanosecond())).Dot("UTC").Call()), nil
	case runtime.KindNull:
		return jen.Qual(rt, "Null"), nil
	}
	return nil, errors.New("literal sharding value of unknown kind " + v.Kind.String())
}

// routeDoc describes q's route in one sentence for the method's doc
// comment, e.g. "Route: SingleNode on t_order (database: user_id MOD,
// table: order_id INLINE), computed inline."
func routeDoc(q *query) string {
	r := q.p.Route
	s := "Route: " + r.Kind.String()
	if r.LogicTable != "" {
		s += " on " + r.LogicTable
	}
	var parts []string
	for _, x := range []struct {
		name string
		s    *plan.Strategy
	}{{"database", r.Database}, {"table", r.Table}} {
		if x.s != nil {
			parts = append(parts, x.name+": "+strings.Join(x.s.Columns, ", ")+" "+x.s.Type)
		}
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	switch q.route.shape {
	case shapeInline:
		s += ", computed inline"
	case shapePrecise:
		s += ", computed by the sharding algorithms"
	case shapeRouteAll:
		s += ", computed by the sharding algorithms over the conditions"
	case shapeFixed:
		if r.Kind == runtime.RouteSingleNode || r.Kind == runtime.RouteMultiNode {
			var nodes []string
			for i, u := range q.route.emitted {
				if i == 4 {
					nodes = append(nodes, "and "+strconv.Itoa(len(q.route.emitted)-4)+" more")
					break
				}
				nodes = append(nodes, r.Units[u].Node)
			}
			s += ", fixed at generate time: " + strings.Join(nodes, ", ")
		}
	}
	if r.Reason != "" {
		s += "; " + r.Reason
	}
	return s + "."
}

// agreementError is the refusal of a pushed-down statement whose table
// a.Table routes by its own sharding values (plan.Agreement), which
// generated code does not check at run time. One named parameter for both
// tables helps only where their rules lay the data nodes out alike
// (a.SameNode); otherwise even one value may reach different data nodes,
// which only literals (checked at generate time) or the proxy resolve.
func agreementError(p *plan.Plan, a plan.Agreement) error {
	r := p.Route
	if a.SameNode {
		return fmt.Errorf("tables %q and %q of this pushed-down statement route by different sharding values, which generated code cannot check meet on one data node yet: compare both with the same named parameter (sqlc.arg(name)) or literal, or run the statement through the proxy", r.LogicTable, a.Table)
	}
	if a.DataSource != "" {
		return fmt.Errorf("table %q of this pushed-down statement is a single table on data source %s, and generated code cannot check at run time yet that the route of %q by its parameters reaches that data source: compare the sharding columns of %q with literals (checked when generating), or run the statement through the proxy", a.Table, a.DataSource, r.LogicTable, r.LogicTable)
	}
	same := ""
	if names := sharedParams(p, r.Conditions, a.Conditions); len(names) > 0 {
		same = " (both compared with parameter " + strings.Join(names, ", ") + ")"
	}
	return fmt.Errorf("tables %q and %q of this pushed-down statement are sharded by different rules, so one sharding value%s may send them to different data nodes, which generated code cannot check at run time yet: compare their sharding columns with literals (checked when generating), or run the statement through the proxy", r.LogicTable, a.Table, same)
}

// sharedParams returns the names of the parameters that both condition
// lists compare a sharding column with, in the order of a.
func sharedParams(p *plan.Plan, a, b []plan.Condition) []string {
	params := func(cs []plan.Condition) []int {
		var out []int
		for _, c := range cs {
			for _, cc := range c.Columns {
				for _, v := range cc.Values {
					if v.Param >= 0 && v.Param < len(p.Params) {
						out = append(out, v.Param)
					}
				}
			}
		}
		return out
	}
	inB := params(b)
	var names []string
	for _, i := range params(a) {
		if slices.Contains(inB, i) && !slices.Contains(names, p.Params[i].Name) {
			names = append(names, p.Params[i].Name)
		}
	}
	return names
}
