package proxy

import (
	"strings"
	"sync"

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
	p *plan.Plan
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
	if sh == nil || sh.routes == nil || len(clientParams(p)) != len(sess.norm.spans) {
		return nil, "", false
	}
	ds, sql, ok := h.shapeUnit(sh, sess.norm.values(q))
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
		sh := h.writeShape(p)
		if sh == nil {
			sh = &fastShape{p: p}
		}
		s.shapes.m.Store(p, sh)
		if sh.routes == nil {
			return nil
		}
		return sh
	}
	sh := &fastShape{p: p}
	ok := p.Statement == plan.StmtSelect && p.Merge == nil && p.Insert == nil && p.KeyGenerate == nil &&
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

// shapeUnit returns the data source and the actual SQL of the shape for
// the client values args; ok is false unless it is one unit on a data
// source with a packet pool.
func (h *handler) shapeUnit(sh *fastShape, args []any) (int, string, bool) {
	s := h.s
	params := make([]any, len(sh.p.Params))
	for i, pi := range clientParams(sh.p) {
		if i < len(args) {
			params[pi] = args[i]
		}
	}
	if s.checkAutoIncZero(sh.p, args) != nil {
		return 0, "", false // the database/sql path refuses it
	}
	params, values, _, err := prepareParams(sh.p, params, nil)
	if err != nil {
		return 0, "", false
	}
	units, err := s.in.units(sh.p, values, params)
	if err != nil || len(units) != 1 || units[0].DataSource >= len(s.backends) || s.backends[units[0].DataSource] == nil {
		return 0, "", false
	}
	uargs := units[0].Args
	if uargs == nil {
		if uargs, err = s.in.nodeArgs(sh.p, params); err != nil {
			return 0, "", false
		}
	}
	sql, err := interpolate(units[0].SQL, uargs)
	if err != nil {
		return 0, "", false
	}
	return units[0].DataSource, sql, true
}
