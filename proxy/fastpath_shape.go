package proxy

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// Shapes of the fast path. Clients of the text protocol put values into
// the statement (SELECT c FROM sbtest1 WHERE id=5017), and the database/sql
// path plans such statements once per shape: the text with its literals
// made parameters (normalize.go, planNormalized). A shape's plan that the
// fast path can take (learnShape, decided once per plan) routes and
// rewrites each statement of the shape with its literals' values, as the
// database/sql path executes it, and the result is relayed. Only plans
// that a statement reached through every check of the database/sql path
// are taken (learnShape is called there); another statement of the shape
// finds the plan in the plan cache by its normalized text.

// fastShape is the fast route of a shape's plan.
type fastShape struct {
	p      *plan.Plan
	client []int // clientParams(p)
	// routes are the fast routes of the shape per data source (an index
	// into the interpreter's names; nil where there is no packet pool),
	// their sql unused.
	routes []*fastRoute
}

// shapeCache holds the fast routes of shapes' plans by plan; a plan the
// fast path cannot take maps to a fastShape without routes. Cleared with
// the plan cache.
type shapeCache struct{ m sync.Map }

func (c *shapeCache) get(p *plan.Plan) *fastShape {
	if v, ok := c.m.Load(p); ok {
		return v.(*fastShape)
	}
	return nil
}

func (c *shapeCache) clear() { c.m.Clear() }

// shapeRoute returns the fast route and the actual SQL of the text q when
// its shape's plan is cached and was learned as one the fast path takes;
// ok is false otherwise.
func (h *handler) shapeRoute(sess *session, q string) (*fastRoute, string, bool) {
	if strings.IndexByte(q, '\\') >= 0 || diagnostics(q) {
		return nil, "", false // as planNormalized
	}
	text, ok := sess.norm.normalize(q)
	if !ok {
		return nil, "", false
	}
	p := h.s.cache.getBytes(text)
	if p == nil {
		return nil, "", false
	}
	sh := h.s.shapes.get(p)
	if sh == nil || sh.routes == nil || len(sh.client) != len(sess.norm.spans) {
		return nil, "", false
	}
	ds, sql, ok := h.shapeUnit(sess, sh, sess.norm.values(q))
	if !ok || sh.routes[ds] == nil {
		return nil, "", false
	}
	return sh.routes[ds], sql, true
}

// learnShape returns the fast route of the shape's plan p (planNormalized
// gave it), deciding it the first time: nil when the fast path cannot take
// p (a SELECT under the conditions of learnFast, a write under
// writeShape's).
func (h *handler) learnShape(p *plan.Plan) *fastShape {
	s := h.s
	if sh := s.shapes.get(p); sh != nil {
		if sh.routes == nil {
			return nil
		}
		return sh
	}
	if p.Statement != plan.StmtSelect {
		var sh *fastShape
		if !counterText(p.LogicSQL) {
			sh = h.writeShape(p)
		}
		if sh == nil {
			sh = newFastShape(p)
		}
		s.shapes.m.Store(p, sh)
		if sh.routes == nil {
			return nil
		}
		return sh
	}
	sh := newFastShape(p)
	ok := !counterText(p.LogicSQL) && p.Statement == plan.StmtSelect && p.Merge == nil && p.Insert == nil && p.KeyGenerate == nil &&
		p.Route != nil && p.Route.Kind != runtime.RouteBroadcast && !p.Route.Pushdown
	for _, c := range p.Columns {
		ok = ok && c.Decrypt == ""
	}
	for _, na := range p.NodeArgs {
		ok = ok && na.Encrypt == "" && !na.LimitSum
	}
	for _, prm := range p.Params {
		ok = ok && !prm.Generated
	}
	if ok {
		var names []string
		for _, c := range p.Columns {
			names = append(names, originalName(p.LogicSQL, c.Name))
		}
		route := p.Route.Kind.String()
		sh.routes = make([]*fastRoute, len(s.backends))
		for ds, pool := range s.backends {
			if pool != nil {
				sh.routes[ds] = &fastRoute{pool: pool, ds: ds, names: names, tables: s.actualTables(ds), db: s.cfg.Rules.DatabaseName,
					queries: s.metrics.queries.WithLabelValues(route), latency: s.metrics.latency.WithLabelValues(route)}
			}
		}
	}
	s.shapes.m.Store(p, sh)
	if sh.routes == nil {
		return nil
	}
	return sh
}

// newFastShape returns the fastShape of p without routes.
func newFastShape(p *plan.Plan) *fastShape {
	return &fastShape{p: p, client: clientParams(p)}
}

// routeScratch are a session's buffers for routing a statement on the
// fast path (shapeUnit, stmtUnit), reused from statement to statement so
// that routing allocates nothing once they have grown.
type routeScratch struct {
	client, params, args []any
	values               []runtime.Value
	sql                  []byte
	// exec and unsigned are an execution's values and unsigned flags
	// decoded before vitess (fastpath_direct.go).
	exec     []any
	unsigned []bool
}

// shapeUnit returns the data source and the actual SQL of the shape for
// the client values args; ok is false unless it is one unit on a data
// source with a packet pool. The SQL is in the session's buffer: valid
// until its next statement.
func (h *handler) shapeUnit(sess *session, sh *fastShape, args []any) (int, string, bool) {
	r := &sess.route
	r.client = r.client[:0]
	for range len(sh.p.Params) {
		r.client = append(r.client, nil)
	}
	for i, pi := range sh.client {
		if i < len(args) {
			r.client[pi] = args[i]
		}
	}
	if h.s.checkAutoIncZero(sh.p, args) != nil {
		return 0, "", false // the database/sql path refuses it
	}
	ds, sql, ok := h.routeOf(sess, sh.p, r.client)
	if !ok {
		return 0, "", false
	}
	var err error
	if r.args, err = h.s.in.nodeArgsInto(r.args, sh.p, r.params); err != nil {
		return 0, "", false
	}
	if len(r.args) == 0 {
		return ds, sql, true
	}
	if r.sql, err = appendInterpolated(r.sql[:0], sql, r.args); err != nil {
		return 0, "", false
	}
	return ds, unsafe.String(unsafe.SliceData(r.sql), len(r.sql)), true
}

// routeOf returns the data source and the data node SQL (with its ?
// placeholders) of p for the parameters params (not sharing the
// session's buffers), leaving their values in the session's buffers
// (routeScratch.params); ok is false unless it is one unit on a data
// source with a packet pool.
func (h *handler) routeOf(sess *session, p *plan.Plan, params []any) (int, string, bool) {
	s, r := h.s, &sess.route
	var err error
	if r.params, r.values, _, err = prepareParamsInto(p, params, nil, r.params, r.values); err != nil {
		return 0, "", false
	}
	ds, sql, ok := s.in.unit(p, r.values)
	if !ok || ds >= len(s.backends) || s.backends[ds] == nil {
		return 0, "", false
	}
	return ds, sql, true
}
