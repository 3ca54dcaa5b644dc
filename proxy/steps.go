package proxy

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// PropMaxCrossNodeRows ("max-cross-node-rows", top-level props) is the
// number of rows a statement evaluated in steps across data nodes may hold
// in the proxy at once: a subquery's rows, a join's outer side, a UNION's
// rows. More fails the statement with ErrTooManyRows instead of
// exhausting memory. Default DefaultMaxCrossNodeRows. Generated code reads
// the same prop (runtime.PropMaxCrossNodeRows).
const PropMaxCrossNodeRows = runtime.PropMaxCrossNodeRows

// DefaultMaxCrossNodeRows is max-cross-node-rows when props does not set it.
const DefaultMaxCrossNodeRows = runtime.DefaultMaxCrossNodeRows

// ErrTooManyRows is wrapped by the error of a statement evaluated in steps
// whose step holds more rows than max-cross-node-rows: the runtime's
// ErrCrossNodeRows, which generated code returns too.
var ErrTooManyRows = runtime.ErrCrossNodeRows

// maxStepsDepth bounds the nesting of statements evaluated in steps (a
// subquery of a subquery ...).
const maxStepsDepth = 16

// stepsRun is one statement evaluated in steps for one session.
type stepsRun struct {
	h    *handler
	c    *mysql.Conn
	sess *session
	max  int
	// lossy is the session's character set when it cannot hold every
	// character (lossyCharset): the text the steps bind into a later
	// step's SQL must then hold no '?' (checkBindable).
	lossy string
	// weigh is set when the steps were planned by the weighing view of
	// the planner (weighedSteps: a session whose results are not UTF-8),
	// which nested steps are planned by too: the steps compare text by the
	// data nodes' sort keys, so only the text bound into a later step's
	// SQL is checked. Unset with lossy set, every step's text is checked
	// (checkLossless).
	weigh bool
}

// maxCrossNodeRows returns max-cross-node-rows from the rules' props.
func (s *Server) maxCrossNodeRows() int {
	if s.cfg.Rules == nil {
		return DefaultMaxCrossNodeRows
	}
	n, err := s.cfg.Rules.Props.Int64(PropMaxCrossNodeRows, DefaultMaxCrossNodeRows)
	if err != nil || n < 1 {
		return DefaultMaxCrossNodeRows
	}
	return int(n)
}

// crossNodeJoin returns cross-node-join from the rules' props: how a join
// across data nodes pairs its sides (runtime.JoinStrategy).
func (s *Server) crossNodeJoin() runtime.JoinStrategy {
	if s.cfg.Rules == nil {
		return runtime.JoinAuto
	}
	j, err := runtime.ParseJoinStrategy(s.cfg.Rules.Props[runtime.PropCrossNodeJoin])
	if err != nil {
		return runtime.JoinAuto // the rules' loader refused it
	}
	return j
}

// steps answers a SELECT q the planner refused (planErr) by evaluating it
// in steps across data nodes: as generated code does when
// plan.BuildStepsPlan plans it (stepsPlan), else with the proxy's own
// operators over plan.BuildSteps. ok is false when q has no shape that can
// be evaluated so: planErr then stands.
func (h *handler) steps(ctx context.Context, c *mysql.Conn, sess *session, q string, planErr error) (*sqltypes.Result, bool, error) {
	e := h.s.cachedSteps(q, false)
	if e == nil {
		st, refused := h.s.stepsOf(q, planErr)
		if st == nil {
			return nil, refused != nil, refused
		}
		e = &stepsEntry{pl: h.s.stepsPlan(q, planErr, false)}
		if e.pl == nil {
			e.st = st
			h.s.cacheSteps(q, e)
		}
	}
	res, err := h.runSteps(ctx, c, sess, q, e)
	return res, true, err
}

// runSteps answers the SELECT q with its cached steps e (a text
// statement's: no parameter): its plan, else the proxy's own operators.
// In a session whose results are not UTF-8 (foreignResults) the proxy's
// own operators run the steps planned to weigh text (weighedSteps).
func (h *handler) runSteps(ctx context.Context, c *mysql.Conn, sess *session, q string, e *stepsEntry) (*sqltypes.Result, error) {
	st, weigh := e.st, false
	if foreignResults(c) != "" {
		// The steps plan's statements merge text by the UTF-8 collations
		// (its final statement's ORDER BY too); the weighed steps compare
		// every text key by the data nodes' sort keys, and the proxy's own
		// operators merge each step's statement so (stepsRun.query). Steps
		// the weighing planner refuses run unweighed, every step's text
		// then checked (stepsRun.weigh).
		if w, err := h.s.weighedSteps(q); err == nil {
			st, weigh = w, true
		} else if own, err := h.s.b.BuildSteps(q); err == nil {
			st = own
		}
	}
	if st == nil {
		return h.runStepsPlan(ctx, c, sess, q, e.pl)
	}
	r := &stepsRun{h: h, c: c, sess: sess, max: h.s.maxCrossNodeRows(), lossy: h.s.lossyCharset(c, q), weigh: weigh}
	w, err := r.run(ctx, st, 1)
	if err != nil {
		return nil, err
	}
	for i := range w.columns {
		w.columns[i].name = originalName(q, w.columns[i].name)
	}
	return rowsResult(w.columns, w.Rows, resultCollation(c))
}

// weighedSteps returns the steps of the SELECT q planned by the weighing
// view of the planner (plan.Builder.Weighing), from the steps cache under
// a key of their own or planned and cached: the steps a session whose
// results are not UTF-8 runs.
func (s *Server) weighedSteps(q string) (*plan.Steps, error) {
	key := "\x00weigh\x00" + q
	if e := s.steps.get(key); e != nil && e.st != nil {
		return e.st, nil
	}
	st, err := s.b.Weighing().BuildSteps(q)
	if err != nil {
		return nil, err
	}
	s.cacheSteps(key, &stepsEntry{st: st})
	return st, nil
}

// stepsOf returns the steps of a SELECT q the planner refused (planErr, a
// planner refusal), nil when q is not evaluated in steps. refused is then
// planErr with the reason steps do not apply added, when planErr is a
// refusal to evaluate across data nodes (nil otherwise: planErr stands).
func (s *Server) stepsOf(q string, planErr error) (st *plan.Steps, refused error) {
	var pe *schema.Error
	if !plan.ReturnsRows(q) || !errors.As(planErr, &pe) {
		return nil, nil
	}
	st, err := s.b.BuildSteps(q)
	if err != nil {
		if crossNodeRefusal(pe.Msg) && errors.Is(err, plan.ErrCrossNode) {
			return nil, &schema.Error{Pos: pe.Pos, Msg: pe.Msg + "; " + err.Error()}
		}
		return nil, nil
	}
	if st.Kind == plan.StepsFederation && !crossNodeRefusal(pe.Msg) && !mergeRefusal(pe.Msg) {
		return nil, nil
	}
	return st, nil
}

// mergeRefusal reports whether msg, a planner refusal of a SELECT, is one
// of a merge over several data nodes that the merge does not compute
// (mergeRefusals: STDDEV / VARIANCE, WITH ROLLUP, an aggregate window
// function or a window not partitioned by the sharding columns, a key of a
// kind it cannot compare): the proxy then evaluates the statement over
// temporary tables, where MariaDB computes it whole, as for the joins and
// subqueries of crossNodeRefusal. Refusals of text the merge would compare
// wrongly (a literal the column's character set cannot hold, text computed
// from merged groups) stay refusals: their reasons say what runs.
func mergeRefusal(msg string) bool {
	for _, m := range mergeRefusals {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// mergeRefusals are the planner's refusals mergeRefusal lets run over
// temporary tables.
var mergeRefusals = []string{
	"over several data nodes is not supported yet; GROUP BY every sharding column", // an aggregate (STDDEV, VARIANCE)
	"WITH ROLLUP over several data nodes",
	"a window function over several data nodes",
	"an aggregate window function",
	"over several data nodes cannot be merged: shardgen cannot tell how MySQL compares its values",
}

// preparedMergeRefusal is mergeRefusal for a prepared SELECT, which then
// runs as text with its values in place: not for STDDEV / VARIANCE, whose
// DOUBLE result MariaDB sends whole in the binary protocol and rounded to
// the column's decimals in the text one.
func preparedMergeRefusal(msg string) bool {
	return mergeRefusal(msg) && !strings.Contains(msg, mergeRefusals[0])
}

// crossNodePrepared reports whether the prepared statement q, which the
// planner refused (planErr), is a SELECT refused only because its tables
// do not co-locate or for a merge the proxy evaluates over temporary
// tables (preparedMergeRefusal), as the text protocol runs it, or an UPDATE or DELETE with ORDER BY … LIMIT refused
// only because it reaches several data nodes (plan.LimitedWriteRefusal):
// each execution then runs it as a text statement with the values in
// place, evaluated in steps (limitedWrite for the write) when they do not
// make it co-locate. n is the number of its ? placeholders.
func (s *Server) crossNodePrepared(q string, planErr error) (n uint16, ok bool) {
	var pe *schema.Error
	if !errors.As(planErr, &pe) {
		return 0, false
	}
	rows := plan.ReturnsRows(q)
	if rows && !strings.Contains(pe.Msg, "across data nodes is not supported yet") && !preparedMergeRefusal(pe.Msg) ||
		!rows && !strings.Contains(pe.Msg, plan.LimitedWriteRefusal) {
		return 0, false
	}
	stmt, err := s.b.Parser().Parse(q)
	if err != nil {
		return 0, false
	}
	return countArguments(stmt), true
}

// limitValues replaces, in vals (the values of q's placeholders in order),
// each value of a LIMIT placeholder that a client sent as text or a float
// (go-sql-driver sends a Go string as MYSQL_TYPE_STRING) by the integer
// MariaDB reads from it (limitParam): q runs as text with its
// values in place, where LIMIT '2' is a syntax error and MariaDB's own
// execution of the prepared statement takes 2.
func (s *Server) limitValues(q string, vals []any) {
	stmt, err := s.b.Parser().Parse(q)
	if err != nil {
		return
	}
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		l, ok := node.(*sqlparser.Limit)
		if !ok {
			return true, nil
		}
		for _, e := range []sqlparser.Expr{l.Offset, l.Rowcount} {
			a, ok := e.(*sqlparser.Argument)
			if !ok {
				continue
			}
			// The parser names the placeholders v1, v2, … in order.
			if i, err := strconv.Atoi(strings.TrimPrefix(a.Name, "v")); err == nil && i >= 1 && i <= len(vals) {
				if v, ok := limitParam(vals[i-1]); ok {
					vals[i-1] = v
				}
			}
		}
		return true, nil
	}, stmt)
}

// countArguments returns the number of ? placeholders of stmt (at most
// 65535, the protocol's limit).
func countArguments(stmt sqlparser.Statement) uint16 {
	n := 0
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if _, ok := node.(*sqlparser.Argument); ok {
			n++
		}
		return true, nil
	}, stmt)
	return uint16(min(n, 65535))
}

// query evaluates the SELECT q: planned and run as one statement when the
// planner can, else in steps. cache keeps the plan (false for statements
// made with bound values, which rarely repeat).
func (r *stepsRun) query(ctx context.Context, q string, cache bool, depth int) (*wireResult, error) {
	var (
		p   *plan.Plan
		err error
	)
	if cache {
		p, err = r.h.s.plan(ctx, q)
	} else if err = r.h.s.checkSize(q); err == nil {
		p, err = r.h.s.buildUncached(q)
	}
	if err == nil {
		if p.Statement != plan.StmtSelect {
			return nil, fmt.Errorf("a step of a statement evaluated across data nodes is not a SELECT: %s", q)
		}
		if p.ComparesText() && foreignResults(r.c) != "" {
			// A step's own merge (a scalar subquery's MAX, the bound
			// statement's ORDER BY) compares text as execute's does.
			if p, err = r.h.s.weighedPlan(p); err != nil {
				return nil, err
			}
		}
		return r.queryPlan(ctx, p)
	}
	var pe *schema.Error
	if !errors.As(err, &pe) {
		return nil, err
	}
	b := r.h.s.b
	if r.weigh {
		b = b.Weighing()
	}
	st, serr := b.BuildSteps(q)
	if serr != nil || st.Kind == plan.StepsFederation && !crossNodeRefusal(pe.Msg) {
		return nil, err
	}
	return r.run(ctx, st, depth+1)
}

// queryPlan runs the SELECT planned as p on the session's executor.
func (r *stepsRun) queryPlan(ctx context.Context, p *plan.Plan) (*wireResult, error) {
	e, err := r.h.executor(r.c, r.sess)
	if err != nil {
		return nil, err
	}
	return r.h.s.in.executeWire(ctx, e, p, nil, nil, r.sess.tag, false, r.sess.noBackslash)
}

// querySplit runs the statement sl with the values vals (raw as read) in
// its IN list, each data node getting only the values its sharding
// algorithm routes there (plan.SplitList.Bind), as generated code's steps
// bind such a list (runtime.StepListRoute).
func (r *stepsRun) querySplit(ctx context.Context, sl *plan.SplitList, raw []any, vals []plan.BoundValue) (*wireResult, error) {
	return r.queryPlan(ctx, sl.Bind(r.h.s.b.ShardingTable, raw, vals))
}

// run evaluates the steps st.
func (r *stepsRun) run(ctx context.Context, st *plan.Steps, depth int) (*wireResult, error) {
	if depth > maxStepsDepth {
		return nil, fmt.Errorf("statement nests more than %d levels of steps across data nodes", maxStepsDepth)
	}
	switch st.Kind {
	case plan.StepsSubqueries:
		return r.subqueries(ctx, st, depth)
	case plan.StepsJoin:
		return r.join(ctx, st.Join, depth)
	case plan.StepsUnion:
		return r.union(ctx, st.Union, depth)
	case plan.StepsFederation:
		return r.federation(ctx, st.Federation, depth)
	}
	return nil, fmt.Errorf("%s steps are not evaluated by the proxy", st.Kind)
}

// subqueries evaluates each subquery of st, binds its rows into the
// statement as values and runs the bound statement.
//
// An IN list on a sharding column of the statement's table is split by
// data node (plan.Steps.SplitBind): each data node gets only the values
// its sharding algorithm routes there, and one that gets none is not
// asked.
func (r *stepsRun) subqueries(ctx context.Context, st *plan.Steps, depth int) (*wireResult, error) {
	rows, raw, err := r.subqueryRows(ctx, st, depth)
	if err != nil {
		return nil, err
	}
	if sl, i := st.SplitBind(rows, foreignResults(r.c) != ""); sl != nil && !hexBound(rows[i]) {
		vals, first := firstColumn(rows[i], raw[i])
		return r.querySplit(ctx, sl, first, vals)
	}
	bound, err := r.bound(st, rows)
	if err != nil {
		return nil, err
	}
	return r.query(ctx, bound, false, depth)
}

// hexBound reports whether a value of the first column of rows is bound
// from its HEX (plan.BoundValue.Hex): its text as read may have lost
// characters, so it cannot route (querySplit routes by the value read).
func hexBound(rows [][]plan.BoundValue) bool {
	for _, row := range rows {
		if len(row) > 0 && row[0].Hex {
			return true
		}
	}
	return false
}

// firstColumn returns the first column of a subquery's rows, bound (rows)
// and as read (raw).
func firstColumn(rows [][]plan.BoundValue, raw [][]any) ([]plan.BoundValue, []any) {
	vals, first := make([]plan.BoundValue, len(rows)), make([]any, len(raw))
	for j := range rows {
		vals[j], first[j] = rows[j][0], raw[j][0]
	}
	return vals, first
}

// subqueryRows evaluates each subquery of st and returns their rows as
// the values they are bound as, and as read (raw).
func (r *stepsRun) subqueryRows(ctx context.Context, st *plan.Steps, depth int) (rows [][][]plan.BoundValue, raw [][][]any, err error) {
	rows = make([][][]plan.BoundValue, len(st.Subqueries))
	raw = make([][][]any, len(st.Subqueries))
	for i, sq := range st.Subqueries {
		n := r.max + 1
		if sq.Kind == plan.SubqueryScalar {
			n = 2 // a second row is error 1242
		}
		q, hex := sq.LimitedSQL(n), []int(nil)
		if r.weigh && r.lossy != "" {
			// Text the session's character set may not carry is read as
			// HEX of the column's bytes too, and bound from it.
			if hq, h, ok := sq.HexSQL(n); ok {
				q, hex = hq, h
			}
		}
		w, err := r.query(ctx, q, true, depth)
		if err == nil {
			var cols []int
			if hex != nil {
				for k, h := range hex {
					if h < 0 {
						cols = append(cols, k)
					}
				}
			}
			if hex == nil || len(cols) > 0 {
				err = r.checkBindable(w, cols, func(col int) bool { return sq.TextCharset(col) != "" })
			}
		}
		if err != nil {
			return nil, nil, err
		}
		if len(w.Rows) > r.max {
			return nil, nil, fmt.Errorf("subquery %s: the subquery %w (%d); raise it in props or narrow the subquery", sq.SQL, ErrTooManyRows, r.max)
		}
		if sq.Kind == plan.SubqueryScalar && len(w.Rows) > 1 {
			return nil, nil, sqlerror.NewSQLError(sqlerror.ERSubqueryNo1Row, "21000", "Subquery returns more than 1 row")
		}
		ncols := len(w.columns)
		if hex != nil {
			ncols = len(hex)
		}
		rows[i], raw[i] = make([][]plan.BoundValue, len(w.Rows)), w.Rows
		for j, row := range w.Rows {
			rows[i][j] = make([]plan.BoundValue, ncols)
			for k := range ncols {
				if hex != nil && hex[k] >= 0 && row[k] != nil && row[hex[k]] != nil {
					tv, err := textValue(&w.columns[hex[k]], row[hex[k]])
					if err != nil {
						return nil, nil, fmt.Errorf("subquery %s: %w", sq.SQL, err)
					}
					rows[i][j][k] = plan.BoundValue{Kind: plan.BoundString, Text: tv.ToString(), Hex: true}
					continue
				}
				v, err := boundValue(&w.columns[k], row[k])
				if err != nil {
					return nil, nil, fmt.Errorf("subquery %s: %w", sq.SQL, err)
				}
				rows[i][j][k] = v
			}
		}
	}
	return rows, raw, nil
}

// bound returns the statement of st with the rows of its subqueries
// bound into it as values (plan.Steps.Bind).
func (r *stepsRun) bound(st *plan.Steps, rows [][][]plan.BoundValue) (string, error) {
	bound, err := st.Bind(rows)
	if err != nil {
		if errors.Is(err, plan.SubqueryRowsError) {
			return "", sqlerror.NewSQLError(sqlerror.ERSubqueryNo1Row, "21000", "Subquery returns more than 1 row")
		}
		return "", err
	}
	return bound, nil
}

// boundValue converts a value read for column c into the literal it is
// bound as (plan.BoundValue): its text as the server prints it, and the
// type class of the column. A FLOAT, BIT, JSON or GEOMETRY value is
// refused: no literal compares exactly as it does.
func boundValue(c *column, v any) (plan.BoundValue, error) {
	if v == nil {
		return plan.BoundValue{Kind: plan.BoundNull}, nil
	}
	var text string
	switch x := v.(type) {
	case float64:
		text = strconv.FormatFloat(x, 'g', -1, 64)
	default:
		tv, err := textValue(c, v)
		if err != nil {
			return plan.BoundValue{}, err
		}
		text = tv.ToString()
	}
	switch c.typ {
	case sqltypes.Int8, sqltypes.Uint8, sqltypes.Int16, sqltypes.Uint16, sqltypes.Int24, sqltypes.Uint24,
		sqltypes.Int32, sqltypes.Uint32, sqltypes.Int64, sqltypes.Uint64, sqltypes.Year:
		return plan.BoundValue{Kind: plan.BoundInt, Text: text}, nil
	case sqltypes.Decimal:
		return plan.BoundValue{Kind: plan.BoundDecimal, Text: text}, nil
	case sqltypes.Float64:
		return plan.BoundValue{Kind: plan.BoundDouble, Text: text}, nil
	case sqltypes.Date:
		return plan.BoundValue{Kind: plan.BoundDate, Text: text}, nil
	case sqltypes.Datetime, sqltypes.Timestamp:
		return plan.BoundValue{Kind: plan.BoundDatetime, Text: text, Decimals: c.decimals}, nil
	case sqltypes.Time:
		return plan.BoundValue{Kind: plan.BoundTime, Text: text, Decimals: c.decimals}, nil
	case sqltypes.VarBinary, sqltypes.Binary, sqltypes.Blob:
		return plan.BoundValue{Kind: plan.BoundBinary, Text: text}, nil
	case sqltypes.VarChar, sqltypes.Char, sqltypes.Text, sqltypes.Enum, sqltypes.Set:
		return plan.BoundValue{Kind: plan.BoundString, Text: text}, nil
	}
	return plan.BoundValue{}, fmt.Errorf("a value of column %s (%s) cannot be bound into a statement exactly", c.name, c.typ)
}

// previewSteps returns the PREVIEW rows of a SELECT the planner refused
// (planErr) that is evaluated in steps: every step's per-node SQL in the
// order they run, each after a /* step N: … */ comment. A statement run
// as generated code runs it (stepsPlan) shows its IN list of values bound
// from an earlier step as `?`; of the proxy's own operators, a statement
// whose values come from earlier steps (and which they may route) is shown
// as written, with data source "(bound)". ok is false when q is not
// evaluated in steps.
func (h *handler) previewSteps(q string, planErr error) ([]sqltypes.Row, bool, error) {
	var pl *plan.Plan
	if plan.ReturnsRows(q) {
		// Placeholders stand as in a prepared statement.
		pl = h.s.stepsPlan(q, planErr, true)
	}
	st, refused := (*plan.Steps)(nil), error(nil)
	if pl == nil {
		st, refused = h.s.stepsOf(q, planErr)
		if st == nil && refused == nil {
			// An UPDATE or DELETE … ORDER BY … LIMIT over several data
			// nodes (limitedWrite).
			st, refused = h.s.limitedWriteSteps(q, planErr)
		}
		if st == nil {
			return nil, refused != nil, refused
		}
	}
	if pl != nil {
		var rows []sqltypes.Row
		for i, sq := range pl.Steps.Queries() {
			what := sq.What
			if sq.Query.Route != nil {
				what += "; route units: " + sq.Query.Route.String()
			}
			prefix := fmt.Sprintf("/* step %d: %s */ ", i+1, what)
			for _, u := range sq.Query.Units {
				rows = append(rows, sqltypes.Row{sqltypes.NewVarChar(h.s.in.names[u.DataSource]), sqltypes.NewVarChar(prefix + u.SQL)})
			}
		}
		return rows, true, nil
	}
	list, err := h.s.b.StepStatements(st)
	if err != nil {
		return nil, true, err
	}
	var rows []sqltypes.Row
	for _, ss := range list {
		prefix := fmt.Sprintf("/* step %d: %s */ ", ss.Step, ss.What)
		if ss.Bound {
			rows = append(rows, sqltypes.Row{sqltypes.NewVarChar("(bound)"), sqltypes.NewVarChar(prefix + ss.SQL)})
			continue
		}
		r, err := h.previewPlan(ss.Plan, prefix)
		if err != nil {
			return nil, true, err
		}
		rows = append(rows, r...)
	}
	return rows, true, nil
}

// join evaluates a join (plan.JoinSteps): the outer side's rows, then the
// inner side's for each batch of them with their key values bound (nested
// loop) or once whole (hash join, chosen as runtime.JoinStrategy says),
// paired, sorted, paginated and projected.
func (r *stepsRun) join(ctx context.Context, j *plan.JoinSteps, depth int) (*wireResult, error) {
	ow, err := r.query(ctx, j.Outer.LimitedSQL(r.max+1), true, depth)
	if err == nil {
		err = r.checkRead(ow)
	}
	if err != nil {
		return nil, err
	}
	if len(ow.Rows) > r.max {
		return nil, fmt.Errorf("the outer side of the join (%s) %w (%d); raise it in props or narrow the join", j.Outer.SQL, ErrTooManyRows, r.max)
	}
	// An outer key value that cannot be bound (a '?' the session may have
	// lost a character to) is not: the inner side is read whole and
	// paired by the keys' weight strings (the hash join's path). Bytes
	// past ASCII bind exactly: the literal converts to the inner key's
	// character set, and its IN list only narrows the rows paired.
	unbound := len(j.Spec.OuterKeys) > 0 && r.checkBindable(ow, j.Spec.OuterKeys, func(int) bool { return true }) != nil
	var (
		joined [][]any
		icols  []column
		once   *wireResult // the inner side's rows when it binds no key
	)
	step := j.Batch
	if len(j.Spec.OuterKeys) == 0 {
		if once, err = r.query(ctx, j.Inner.LimitedSQL(r.max+1), true, depth); err == nil {
			err = r.checkRead(once)
		}
		if err != nil {
			return nil, err
		}
	} else if unbound {
		build, err := r.query(ctx, j.Inner.LimitedSQL(r.max+1), false, depth)
		switch {
		case err != nil:
			return nil, err
		case len(build.Rows) > r.max:
			return nil, sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000", fmt.Sprintf(
				"a key of the join's outer side holds '?' in this session's character set %s, where it may stand for a character %s cannot hold, so it is not bound into the inner side's statement, and reading that side whole (%s) holds more than max-cross-node-rows (%d) rows; run the statement from a utf8mb4 session (SET NAMES utf8mb4) or narrow the join", r.lossy, r.lossy, j.Inner.SQL, r.max))
		}
		once, step = build, max(len(ow.Rows), 1)
	} else if strategy := r.h.s.crossNodeJoin(); strategy == runtime.JoinHash || strategy == runtime.JoinAuto && len(ow.Rows) > j.Batch {
		// The hash join (runtime.JoinStrategy's rule): the inner side read
		// once with its own conditions, all outer rows paired with it.
		budget := r.max
		if strategy == runtime.JoinAuto {
			budget = min(r.max, runtime.HashJoinBuildFactor*len(ow.Rows))
		}
		build, err := r.query(ctx, j.Inner.LimitedSQL(budget+1), strategy == runtime.JoinHash, depth)
		if err == nil {
			err = r.checkRead(build)
		}
		switch {
		case err != nil:
			return nil, err
		case len(build.Rows) <= budget:
			once, step = build, max(len(ow.Rows), 1)
		case strategy == runtime.JoinHash:
			return nil, fmt.Errorf("the build side of the hash join (%s) %w (%d); raise it in props or narrow the join", j.Inner.SQL, ErrTooManyRows, r.max)
		}
	}
	for start := 0; start == 0 || start < len(ow.Rows); start += step {
		batch := ow.Rows[start:min(start+step, len(ow.Rows))]
		iw := once
		if iw == nil {
			keys := make([][]plan.BoundValue, len(j.Spec.OuterKeys))
			raw := make([][]any, len(j.Spec.OuterKeys)) // keys as read
			for k, c := range j.Spec.OuterKeys {
				seen := map[plan.BoundValue]bool{}
				for _, row := range batch {
					v, err := boundValue(&ow.columns[c], row[c])
					if err != nil {
						return nil, fmt.Errorf("join key: %w", err)
					}
					if v.Kind != plan.BoundNull && !seen[v] {
						seen[v] = true
						keys[k], raw[k] = append(keys[k], v), append(raw[k], row[c])
					}
				}
			}
			// A key on a sharding column of the inner table: each data
			// node gets only its values (plan.JoinSteps.SplitInner).
			if sl, k := j.SplitInner(r.h.s.b, keys, r.max+1, foreignResults(r.c) != ""); sl != nil {
				iw, err = r.querySplit(ctx, sl, raw[k], keys[k])
			} else {
				iw, err = r.query(ctx, j.InnerSQL(keys, r.max+1), false, depth)
			}
			if err == nil {
				err = r.checkRead(iw)
			}
			if err != nil {
				return nil, err
			}
		}
		icols = iw.columns
		if len(iw.Rows) > r.max {
			return nil, fmt.Errorf("the inner side of the join (%s) %w (%d); raise it in props or narrow the join", j.Inner.SQL, ErrTooManyRows, r.max)
		}
		rows, err := runtime.JoinRows(&j.Spec, batch, iw.Rows, r.max-len(joined))
		if err != nil {
			if errors.Is(err, runtime.ErrJoinRows) {
				return nil, fmt.Errorf("the join %w (%d); raise it in props or narrow the join", ErrTooManyRows, r.max)
			}
			return nil, err
		}
		joined = append(joined, runtime.NullRows(rows, j.Null)...)
	}
	cols := append(append([]column(nil), ow.columns...), icols...)
	if j.Spec.Left {
		for i := len(ow.columns); i < len(cols); i++ {
			cols[i].nullable = true
		}
	}
	if j.Merge != nil {
		return mergeJoined(j, joined, cols)
	}
	if err := runtime.SortRows(j.Kinds, j.OrderBy, joined); err != nil {
		return nil, err
	}
	joined = paginate(joined, j.Offset, j.Count)
	res := &wireResult{Result: &Result{}}
	for _, c := range j.Output {
		res.columns = append(res.columns, cols[c])
		res.Columns = append(res.Columns, cols[c].name)
	}
	res.Rows = make([][]any, len(joined))
	for i, row := range joined {
		out := make([]any, len(j.Output))
		for k, c := range j.Output {
			out[k] = row[c]
		}
		res.Rows[i] = out
	}
	return res, nil
}

// union evaluates a UNION SELECT by SELECT (plan.UnionSteps): the parts'
// rows concatenated, those of the first Distinct parts deduplicated,
// sorted, paginated and cut to the visible columns.
func (r *stepsRun) union(ctx context.Context, u *plan.UnionSteps, depth int) (*wireResult, error) {
	var (
		rows [][]any
		cols []column
		key  []byte
	)
	seen := map[string]bool{}
	all := make([]int, u.Visible)
	for i := range all {
		all[i] = i
	}
	for i, part := range u.Parts {
		w, err := r.query(ctx, part.LimitedSQL(r.max+1), true, depth)
		if err == nil {
			err = r.checkRead(w)
		}
		if err != nil {
			return nil, err
		}
		if len(w.columns) < u.Visible {
			return nil, fmt.Errorf("SELECT %d of the UNION returned %d columns, the first %d", i+1, len(w.columns), u.Visible)
		}
		if i == 0 {
			cols = append(cols, w.columns[:u.Visible]...)
		}
		for c := range cols {
			cols[c].nullable = cols[c].nullable || w.columns[c].nullable
		}
		for _, row := range w.Rows {
			if i < u.Distinct {
				if key, err = runtime.RowKey(key[:0], u.Kinds, row, all); err != nil {
					return nil, err
				}
				if seen[string(key)] {
					continue
				}
				seen[string(key)] = true
			}
			rows = append(rows, row)
			if len(rows) > r.max {
				return nil, fmt.Errorf("the UNION %w (%d); raise it in props or narrow the SELECTs", ErrTooManyRows, r.max)
			}
		}
	}
	if err := runtime.SortRows(u.Kinds, u.OrderBy, rows); err != nil {
		return nil, err
	}
	rows = paginate(rows, u.Offset, u.Count)
	res := &wireResult{Result: &Result{}, columns: cols}
	for _, c := range cols {
		res.Columns = append(res.Columns, c.name)
	}
	for i, row := range rows {
		rows[i] = row[:u.Visible]
	}
	res.Rows = rows
	return res, nil
}

// paginate applies LIMIT offset, count to rows (count < 0: no LIMIT).
func paginate(rows [][]any, offset, count int64) [][]any {
	if offset > 0 {
		rows = rows[min(int(offset), len(rows)):]
	}
	if count >= 0 && int64(len(rows)) > count {
		rows = rows[:count]
	}
	return rows
}

// mergeJoined groups the joined rows of a join with GROUP BY, DISTINCT or
// aggregates (plan.JoinSteps.Merge): each joined row becomes a row of
// partial aggregates, which runtime.Merge combines. cols describe the
// joined row's columns.
func mergeJoined(j *plan.JoinSteps, joined [][]any, cols []column) (*wireResult, error) {
	rows := make([][]any, len(joined))
	for r, jr := range joined {
		row := make([]any, len(j.MergeColumns))
		for i, mc := range j.MergeColumns {
			switch mc.Op {
			case plan.JoinValue:
				row[i] = jr[mc.Column]
			case plan.JoinOne:
				row[i] = int64(1)
			case plan.JoinNotNull:
				row[i] = int64(0)
				if jr[mc.Column] != nil {
					row[i] = int64(1)
				}
			}
		}
		rows[r] = row
	}
	if err := runtime.SortRows(j.Merge.Kinds, j.Merge.OrderBy, rows); err != nil {
		return nil, err
	}
	merged, err := mergeRows(j.Merge, nil, [][][]any{rows})
	if err != nil {
		return nil, err
	}
	mcs := make([]runtime.JoinMergeColumn, len(j.MergeColumns))
	names := make([]string, len(j.MergeColumns))
	for i, mc := range j.MergeColumns {
		mcs[i] = runtime.JoinMergeColumn{Op: runtime.JoinMergeOp(mc.Op), Column: mc.Column}
		names[i] = mc.Name
	}
	res := &wireResult{Result: &Result{Rows: merged}, columns: mergedColumns(j.Merge, mcs, names, cols)}
	for _, c := range res.columns {
		res.Columns = append(res.Columns, c.name)
	}
	return res, nil
}
