package proxy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// One operator set. A SELECT the planner refuses because its tables do
// not co-locate is planned first as generated code plans it
// (plan.BuildStepsPlan: every step's statement planned whole, routes and
// per-node SQL included) and run by runtime.RunStepsWith, the operators
// generated code runs; the rows become the wire result here. The
// proxy's own operators (steps.go: bound literals, statements planned at
// run time from earlier steps' values; steps_federation.go) remain for
// the shapes runtime.Steps cannot express yet, which BuildStepsPlan
// refuses with the reason:
//
//   - a correlated subquery (a look-up), a scalar subquery whose column
//     type BuildStepsPlan cannot bind exactly (FLOAT, text of no known
//     character set, an expression of unknown type), a row constructor
//     IN (SELECT …), a subquery that itself needs steps or bound into a
//     statement that itself needs steps;
//   - a join of three or more tables (the outer side is itself a join
//     evaluated in steps: generated code runs it as
//     runtime.JoinStep.OuterJoin, the proxy with its own join operator,
//     which reads each side's column types), a join whose side routes by the bound values to
//     one data node for several tables, HAVING or a correlated subquery;
//   - a UNION whose SELECT needs steps of its own;
//   - every shape federation answers (derived tables, correlated
//     subqueries).

// stepsEntry is a SELECT evaluated in steps across data nodes as the
// steps plan cache (Server.steps) keeps it by statement text: pl is its
// plan as generated code evaluates it (stepsPlan), nil when
// BuildStepsPlan refuses it; st are its steps for the proxy's own
// operators, which a text statement that pl does not plan runs (nil
// otherwise).
type stepsEntry struct {
	pl *plan.Plan
	st *plan.Steps
}

// stepsPlan returns the plan of the SELECT q the planner refused (planErr)
// evaluated in steps as generated code evaluates it, its route units'
// data sources numbered as the interpreter's, from the steps plan cache or
// planned and cached (statements longer than
// Options.MaxCachedStatementSize are not cached); nil when BuildStepsPlan
// refuses q (the proxy's own operators then evaluate it), which is cached
// too. prepared says that q is a prepared statement's text, whose
// placeholders each execution's values fill (runStepsPlan's args): its
// steps narrow their route units by the values on sharding columns
// (runtime.StepRoute). A text statement's plan has no parameter.
func (s *Server) stepsPlan(q string, planErr error, prepared bool) *plan.Plan {
	if e := s.steps.get(q); e != nil {
		if e.pl != nil && len(e.pl.Params) > 0 && !prepared {
			return nil
		}
		return e.pl
	}
	pl := s.buildStepsPlan(q, planErr, prepared)
	s.cacheSteps(q, &stepsEntry{pl: pl})
	return pl
}

// cacheSteps stores e as the steps of q, unless q is longer than
// Options.MaxCachedStatementSize.
func (s *Server) cacheSteps(q string, e *stepsEntry) {
	if len(q) <= s.opts.MaxCachedStatementSize {
		s.steps.put(q, e)
	}
}

// cachedSteps returns the cached steps of q that a text statement
// (prepared false) or a prepared statement's execution runs: a plan, or
// for a text statement the proxy's own operators' steps; nil when there
// are none. It does not lock while the cache is empty.
func (s *Server) cachedSteps(q string, prepared bool) *stepsEntry {
	if s.steps.empty() {
		return nil
	}
	e := s.steps.get(q)
	switch {
	case e == nil:
		return nil
	case prepared && e.pl != nil, !prepared && e.pl != nil && len(e.pl.Params) == 0, !prepared && e.pl == nil && e.st != nil:
		return e
	}
	return nil
}

// buildStepsPlan is stepsPlan without the cache.
func (s *Server) buildStepsPlan(q string, planErr error, prepared bool) *plan.Plan {
	s.metrics.stepsPlans.Inc()
	pos := schema.Pos{File: plan.AdHocFile, Line: 1, Col: 1}
	pl, err := s.b.BuildStepsPlan(&schema.Query{Name: "steps", Cmd: schema.CmdMany, SQL: q, AllowFullRoute: true, Pos: pos, SQLPos: pos}, planErr)
	if err != nil || pl.Steps == nil || len(pl.Params) > 0 && !prepared || len(pl.Args) != len(pl.Params) {
		// A text statement with placeholders is refused elsewhere; a
		// prepared statement's named parameters (none: every placeholder
		// is its own parameter) would need their values mapped.
		return nil
	}
	for _, prm := range pl.Params {
		if prm.Generated || prm.Slice {
			return nil
		}
	}
	ds := make([]int, len(pl.Route.DataSources))
	for i, name := range pl.Route.DataSources {
		ds[i] = -1
		for j, n := range s.in.names {
			if n == name {
				ds[i] = j
			}
		}
		if ds[i] < 0 {
			return nil
		}
	}
	st := *pl.Steps
	remap := func(q *runtime.StepQuery) *runtime.StepQuery {
		c := *q
		c.Units = append([]runtime.RouteUnit(nil), q.Units...)
		for i := range c.Units {
			c.Units[i].DataSource = ds[c.Units[i].DataSource]
		}
		return &c
	}
	switch {
	case st.Bind != nil:
		b := *st.Bind
		b.Subquery, b.Statement = remap(b.Subquery), remap(b.Statement)
		b.Then = append([]runtime.BoundSubquery(nil), b.Then...)
		for i := range b.Then {
			b.Then[i].Query = remap(b.Then[i].Query)
		}
		st.Bind = &b
	case st.Join != nil && st.Join.OuterJoin != nil:
		// A join of three or more tables: the proxy's own join operator
		// runs it (steps.go), reading each side's column types.
		return nil
	case st.Join != nil:
		j := *st.Join
		j.Outer, j.Inner = remap(j.Outer), remap(j.Inner)
		if j.Build != nil {
			j.Build = remap(j.Build)
		}
		st.Join = &j
	case st.Union != nil:
		u := *st.Union
		u.Parts = make([]*runtime.StepQuery, len(st.Union.Parts))
		for i, p := range st.Union.Parts {
			u.Parts[i] = remap(p)
		}
		st.Union = &u
	}
	pl.Steps = &st
	return pl
}

// runStepsPlan answers the SELECT q with its plan pl (stepsPlan) and the
// values of its placeholders (args, a prepared statement's): the
// steps run by runtime.RunStepsWith on the session's executor (its
// transaction, when open), owned by the session as executeWire's
// statements are (withOwner), and the rows are sent with the column types
// the back ends gave the steps' statements.
func (h *handler) runStepsPlan(ctx context.Context, c *mysql.Conn, sess *session, q string, pl *plan.Plan, args ...any) (*sqltypes.Result, error) {
	e, err := h.executor(c, sess)
	if err != nil {
		return nil, err
	}
	types := map[*runtime.StepQuery][]*sql.ColumnType{}
	opt := &runtime.StepsOptions{
		MaxRows: h.s.maxCrossNodeRows(),
		Join:    h.s.crossNodeJoin(),
		Columns: func(q *runtime.StepQuery, t []*sql.ColumnType) { types[q] = t },
		Tables:  h.s.b.ShardingTable,
	}
	if sess.noBackslash {
		opt.UnitSQL = standardToNoBackslash
	}
	opt.LossyCharset = h.s.lossyCharset(c, q)
	rows, err := h.s.in.src.RunStepsWith(withOwner(ctx, sess.tag), e, pl.Steps, opt, args...)
	if lt := (*runtime.LossyTextError)(nil); errors.As(err, &lt) {
		return nil, lossyTextError(lt.Charset)
	}
	if re := (*runtime.StepRouteError)(nil); errors.As(err, &re) {
		// The sharding algorithm refused a step's parameters: answered as
		// a statement routed once (units) answers them.
		return nil, &routeError{Table: re.Table, Err: re.Err}
	}
	if err != nil {
		return nil, err
	}
	cols, err := stepsColumns(pl, types)
	if err != nil {
		return nil, err
	}
	for i := range cols {
		cols[i].name = originalName(q, cols[i].name)
	}
	return rowsResult(cols, rows, resultCollation(c))
}

// stepsColumns returns the wire columns of the result of pl.Steps from
// the back ends' column types of its statements (types): the statement's
// of a bound subquery; a join's projected from the outer side's and the
// inner side's (nullable on the inner side of an outer join), or computed
// for its aggregates; a UNION's first SELECT's, nullable where any
// SELECT's is.
func stepsColumns(pl *plan.Plan, types map[*runtime.StepQuery][]*sql.ColumnType) ([]column, error) {
	st := pl.Steps
	read := func(q *runtime.StepQuery, n int) ([]column, error) {
		t := types[q]
		if len(t) < n {
			return nil, fmt.Errorf("a step of the statement returned %d columns, want %d", len(t), n)
		}
		cols := make([]column, n)
		for i := range cols {
			cols[i] = columnOf(t[i].Name(), t[i])
		}
		return cols, nil
	}
	var (
		cols []column
		err  error
	)
	switch {
	case st.Bind != nil:
		cols, err = read(st.Bind.Statement, len(pl.Columns))
	case st.Union != nil:
		u := st.Union
		for i, part := range u.Parts {
			pc, perr := read(part, u.Visible)
			if perr != nil {
				return nil, perr
			}
			if i == 0 {
				cols = pc
				continue
			}
			for k := range cols {
				cols[k].nullable = cols[k].nullable || pc[k].nullable
			}
		}
	case st.Join != nil:
		j := st.Join
		oc, oerr := read(j.Outer, len(j.Spec.OuterKinds))
		if oerr != nil {
			return nil, oerr
		}
		ic, ierr := read(j.Inner, len(j.Spec.InnerKinds))
		if ierr != nil {
			return nil, ierr
		}
		if j.Spec.Left {
			for i := range ic {
				ic[i].nullable = true
			}
		}
		joined := append(oc, ic...)
		if j.Merge != nil {
			names := make([]string, len(pl.Columns))
			for i, c := range pl.Columns {
				names[i] = c.Name
			}
			cols = mergedColumns(j.Merge, j.MergeColumns, names, joined)
			break
		}
		for _, o := range j.Output {
			cols = append(cols, joined[o])
		}
	default:
		return nil, fmt.Errorf("empty steps")
	}
	if err != nil {
		return nil, err
	}
	if len(cols) != len(pl.Columns) {
		return nil, fmt.Errorf("the steps return %d columns, planned %d", len(cols), len(pl.Columns))
	}
	for i, c := range pl.Columns {
		cols[i].name = c.Name
	}
	return cols, nil
}

// mergedColumns returns the visible columns of a join grouped over its
// joined rows (m, mcs: runtime.JoinStep.Merge and MergeColumns), named
// names, from the columns of the joined row: a group key's and MIN's or
// MAX's argument's own, COUNT's BIGINT, SUM's and AVG's DOUBLE or DECIMAL.
func mergedColumns(m *runtime.MergeSpec, mcs []runtime.JoinMergeColumn, names []string, joined []column) []column {
	funcs := map[int]runtime.AggregateSpec{}
	for _, a := range m.Aggregates {
		funcs[a.Column] = a
	}
	var out []column
	for i := 0; i < m.Visible; i++ {
		mc := mcs[i]
		a, agg := funcs[i]
		var c column
		switch {
		case !agg || a.Func == runtime.AggMin || a.Func == runtime.AggMax:
			c = joined[mc.Column]
		case a.Func == runtime.AggCount || a.Func == runtime.AggCountDistinct:
			c = column{typ: sqltypes.Int64, length: 21}
		case m.Kinds[i].Type == runtime.ColumnFloat || mc.Op == runtime.JoinValue && joined[mc.Column].typ == sqltypes.Float64:
			c = column{typ: sqltypes.Float64, length: 23, decimals: notFixedDec}
		default: // SUM and AVG of exact values: DECIMAL
			c = column{typ: sqltypes.Decimal, length: 66}
			if a.Func == runtime.AggAvg || a.Func == runtime.AggAvgDistinct {
				c.decimals = a.Scale
			} else if mc.Op == runtime.JoinValue {
				c.decimals = joined[mc.Column].decimals
			}
		}
		if i < len(names) {
			c.name = names[i]
		}
		c.nullable = mc.Op != runtime.JoinOne && mc.Op != runtime.JoinNotNull
		out = append(out, c)
	}
	return out
}
