package plan

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// SliceArg is the sqlc.slice(name) parameter of a query: a []T whose values
// form the list of `col IN (sqlc.slice(name))`, a conjunct of the
// statement's WHERE. The plan keeps one `?` for the list; generated code
// expands it per data node at run time to one `?` per value sent there,
// at the byte offset planned here (it never parses SQL at run time).
//
// Routing: the values are values of a sharding column, so each value is
// routed and every data node gets only the values routed to it (a node
// that gets none runs nothing). Otherwise the route is computed from the
// other conditions and every unit of it gets every value (encrypted per
// value for an encrypted column, as NodeArgs say).
//
// An empty slice matches no row: generated code returns no rows (or
// affects none) without a round trip, except for a SELECT that still
// yields a row over no rows (EmptyRow: aggregates without GROUP BY), which
// runs on one data node with `IN (NULL)` in place of the list, as sqlc
// does for every empty slice.
type SliceArg struct {
	Param int `json:"param"` // index in Plan.Params of the []T parameter
	// Arg is the index of the list's placeholder among the per-node
	// arguments: Plan.NodeArgs when set, else Plan.Args.
	Arg int `json:"arg"`
	// At[u] is the byte offset of that placeholder in Route.Units[u].SQL.
	At       []int `json:"at"`
	Routing  bool  `json:"routing,omitempty"`
	EmptyRow bool  `json:"empty_row,omitempty"`
}

// checkSlices refuses the uses of sqlc.slice the generated code cannot run
// exactly: more than one per query, one that is not the whole list of a
// `col IN (...)` conjunct of the statement's WHERE, one used twice, or in an
// INSERT or UNION. Run after typeParams.
func (p *planner) checkSlices() error {
	ord := -1
	for i, s := range p.slices {
		if !s {
			continue
		}
		if p.adHoc() && !p.stepList {
			return p.errorf(p.placeholderOffset(i), "sqlc.slice is a query-file form: list the values as IN (?, ?, ...)")
		}
		if ord >= 0 {
			if p.names[i] == p.names[ord] {
				return p.errorf(p.placeholderOffset(i), "sqlc.slice(%s) is used twice; a slice may form one IN list", p.names[i])
			}
			return p.errorf(p.placeholderOffset(i), "only one sqlc.slice per query is supported (sqlc.slice(%s) and sqlc.slice(%s))", p.names[ord], p.names[i])
		}
		ord = i
	}
	if ord < 0 {
		return nil
	}
	name := p.names[ord]
	for i, n := range p.names {
		if i != ord && n == name {
			return p.errorf(p.placeholderOffset(i), "sqlc.slice(%s) is also used as a single value; give the slice its own name", name)
		}
	}
	var where *sqlparser.Where
	switch s := p.stmt.(type) {
	case *sqlparser.Select:
		where = s.Where
	case *sqlparser.Update:
		where = s.Where
	case *sqlparser.Delete:
		where = s.Where
	default:
		return p.errorf(p.placeholderOffset(ord), "sqlc.slice(%s) is supported in SELECT, UPDATE and DELETE, not in %s", name, strings.ToUpper(p.plan.Statement.String()))
	}
	if where != nil {
		for _, c := range conjuncts(where.Expr) {
			cmp, ok := c.(*sqlparser.ComparisonExpr)
			if !ok || cmp.Operator != sqlparser.InOp {
				continue
			}
			if t, ok := cmp.Right.(sqlparser.ValTuple); ok && len(t) == 1 {
				if a, ok := t[0].(*sqlparser.Argument); ok && argIndex(a) == ord {
					return nil
				}
			}
		}
	}
	return p.errorf(p.placeholderOffset(ord), "sqlc.slice(%s) must be the whole list of `column IN (sqlc.slice(%s))`, a condition the WHERE ANDs with the others (not under OR or NOT, not in a subquery or ON)", name, name)
}

// planSlice fills Plan.Slice once the units' SQL is final.
func (p *planner) planSlice() error {
	pl := p.plan
	param := -1
	for i, prm := range pl.Params {
		if prm.Slice {
			param = i
		}
	}
	if param < 0 {
		return nil
	}
	name := pl.Params[param].Name
	rt := pl.Route
	switch {
	case rt.Pushdown || len(rt.Agree) > 0:
		return p.errorf(-1, "sqlc.slice(%s) in a statement pushed down whole to one data node is not supported: list the values as IN (?, ?, ...)", p.sliceName())
	case rt.Update != nil:
		return p.errorf(-1, "sqlc.slice(%s) in an UPDATE that sets sharding columns is not supported", p.sliceName())
	case p.hint != nil && (p.hint.skipRewrite || p.hint.dataSource != ""):
		return p.errorf(-1, "sqlc.slice(%s) with a SHARDINGSPHERE_HINT that sends the statement as written is not supported", p.sliceName())
	}
	sa := &SliceArg{Param: param, Arg: -1}
	if pl.NodeArgs != nil {
		for i, a := range pl.NodeArgs {
			if a.Param == param && !a.LimitSum && a.Literal == nil {
				if sa.Arg >= 0 {
					return p.errorf(-1, "sqlc.slice(%s) becomes two placeholders of the per-node statement, which is not supported", p.sliceName())
				}
				sa.Arg = i
			}
		}
	} else {
		for i, a := range pl.Args {
			if a == param {
				sa.Arg = i
			}
		}
	}
	if sa.Arg < 0 {
		return p.errorf(-1, "sqlc.slice(%s): parameter %s has no placeholder in the per-node statement", p.sliceName(), name)
	}
	for _, u := range rt.Units {
		at := PlaceholderOffset(u.SQL, sa.Arg)
		if at < 0 {
			return p.errorf(-1, "sqlc.slice(%s): the SQL of data node %s has no placeholder %d", p.sliceName(), u.Node, sa.Arg+1)
		}
		sa.At = append(sa.At, at)
	}
	for _, g := range rt.Conditions {
		for _, cc := range g.Columns {
			for _, v := range cc.Values {
				sa.Routing = sa.Routing || v.Param == param
			}
		}
	}
	sa.EmptyRow = p.rowOverNoRows()
	pl.Slice = sa
	return nil
}

// rowOverNoRows reports whether the statement is a SELECT that returns a
// row even when its WHERE matches none: aggregates without GROUP BY
// (`SELECT COUNT(*) ... WHERE user_id IN (NULL)` returns 0).
func (p *planner) rowOverNoRows() bool {
	s, ok := p.stmt.(*sqlparser.Select)
	return ok && (s.GroupBy == nil || len(s.GroupBy.Exprs) == 0) && sqlparser.ContainsAggregation(s.SelectExprs)
}

// sliceName is the name the query file gives its sqlc.slice.
func (p *planner) sliceName() string {
	for i, s := range p.slices {
		if s {
			return p.names[i]
		}
	}
	return ""
}

// isSliceOperand reports whether op takes the values of a sqlc.slice
// parameter (several values at run time, though the condition lists one).
func (p *planner) isSliceOperand(op Operand) bool {
	return op.Literal == nil && op.Param >= 0 && op.Param < len(p.plan.Params) && p.plan.Params[op.Param].Slice
}

// PlaceholderOffset returns the byte offset of the k-th (0-based) `?`
// placeholder of sql outside quoted strings, quoted identifiers and
// comments, or -1 when sql has fewer.
func PlaceholderOffset(sql string, k int) int {
	n := 0
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i) - 1
		case c == '#' || c == '-' && strings.HasPrefix(sql[i:], "-- "):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return -1
			}
			i += j
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return -1
			}
			i += j + 3
		case c == '?':
			if n == k {
				return i
			}
			n++
		}
	}
	return -1
}
