package plan

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// SplitList is a statement of the proxy's own steps (Steps.Bind's bound
// statement, JoinSteps.InnerSQL's inner side) whose IN list of values bound
// from an earlier step compares a sharding column of its table: planned
// once with the list as a placeholder, as generated code plans such a
// statement (stepsPlanner.query, which gives the list its
// runtime.StepListRoute), so that each route unit gets only the values its
// data node can hold and a unit that gets none does not run, as
// runtime.RunSteps runs generated code's (Bind).
type SplitList struct {
	p     *Plan
	at    []int // per unit of p.Route.Units, the offset in its SQL of the list's `?`
	route *runtime.StepListRoute
	text  boundText // how a text value is typed (BoundValue.exprAs)
}

// SplitBind returns the statement of s (StepsSubqueries, or the write of
// LimitedWriteSteps with its keys' subquery) with the rows of its
// subqueries bound as Bind binds them, but the IN list of subquery sub (an
// IN or = ANY of one column) left to split by data node: nil when no such
// list has values and compares a sharding column whose values convert
// exactly (the statement then runs as Bind binds it). weigh plans it
// comparing text keys by the data nodes' sort keys (schema.Query.WeighText).
func (s *Steps) SplitBind(rows [][][]BoundValue, weigh bool) (sl *SplitList, sub int) {
	if s.Kind != StepsSubqueries || len(rows) != len(s.Subqueries) {
		return nil, -1
	}
	for i, sq := range s.Subqueries {
		if sq.Kind != SubqueryIn || len(rows[i]) == 0 || len(rows[i][0]) != 1 || !s.inList(i) {
			continue
		}
		text, err := s.bind(rows, i)
		if err != nil {
			return nil, -1
		}
		var t boundText
		if len(sq.texts) > 0 {
			t = sq.texts[0]
		}
		if sl := s.b.splitList(text, t, weigh); sl != nil {
			return sl, i
		}
	}
	return nil, -1
}

// inList reports whether subquery i of s is compared by IN (or = ANY)
// with a column named as a sharding column of some table (the list may
// split; planning tells).
func (s *Steps) inList(i int) bool {
	subs := topSubqueries(s.stmt)
	if i >= len(subs) {
		return false
	}
	in := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if x, ok := node.(*sqlparser.ComparisonExpr); ok && x.Right == subs[i].sub {
			in = s.b.shardingName(x.Left) && (x.Operator == sqlparser.InOp || x.Operator == sqlparser.EqualOp && x.Modifier == sqlparser.Any)
		}
		return true, nil
	}, s.stmt)
	return in
}

// shardingName reports whether e is a column named as a sharding column of
// a sharded table: an IN list of it may split by data node.
func (b *Builder) shardingName(e sqlparser.Expr) bool {
	c, ok := e.(*sqlparser.ColName)
	if !ok {
		return false
	}
	for _, info := range b.tables() {
		if info.sharded() && containsFold(ruleColumns(info.rule), c.Name.String()) {
			return true
		}
	}
	return false
}

// SplitInner returns the inner side's statement of j with its keys bound
// as InnerSQL binds them (keys, limit), but the list of the first key
// whose values compare a sharding column of the inner table exactly left
// to split by data node (key is its index); nil when there is none.
// weigh is as SplitBind's.
func (j *JoinSteps) SplitInner(b *Builder, keys [][]BoundValue, limit int, weigh bool) (sl *SplitList, key int) {
	for k, e := range j.Inner.keys {
		if k >= len(keys) || len(keys[k]) == 0 || !b.shardingName(e) {
			continue
		}
		if sl := b.splitList(j.innerSQL(keys, limit, k), boundText{}, weigh); sl != nil {
			return sl, k
		}
	}
	return nil, -1
}

// splitList plans sql, a SELECT with listMarker as its IN list, as a
// SplitList whose values are typed as t; nil when the list does not split
// by data node (no StepListRoute) or the statement does not plan so.
func (b *Builder) splitList(sql string, t boundText, weigh bool) *SplitList {
	pos := schema.Pos{File: AdHocFile, Line: 1, Col: 1}
	write := !ReturnsRows(sql) // the write of an UPDATE or DELETE … ORDER BY … LIMIT (LimitedWriteSteps)
	sp := &stepsPlanner{b: b, q: &schema.Query{Name: "steps", Cmd: schema.CmdMany, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos, WeighText: weigh}, write: write}
	q, p, err := sp.query(sql, "the statement", true)
	if err != nil || q.ListRoute == nil || p.Route.Fixed != nil || len(q.ListAt) != len(p.Route.Units) || len(q.Args) > 0 {
		return nil
	}
	if p.Statement != StmtSelect && !(write && (p.Statement == StmtUpdate || p.Statement == StmtDelete)) {
		return nil
	}
	return &SplitList{p: p, at: q.ListAt, route: q.ListRoute, text: t}
}

// Bind returns the plan of the statement with the values vals in its IN
// list, each route unit's list holding only the values whose data nodes
// include its own (raw[i] is vals[i] as read, which the table's router
// from tables routes: runtime.StepListRoute.Split), as literals in its
// SQL; the plan has no parameter and runs on the units that get values
// (Route.Fixed). When none gets one, the first unit runs with the list
// NULL, as any data node would answer the SELECT (an aggregate returns its
// row; a write changes no row); when a value's data nodes cannot be computed exactly, every unit
// gets every value. NULL values and repeated ones are left out: the list
// is a condition the WHERE ANDs with the others, which NULL never makes
// true.
func (s *SplitList) Bind(tables func(string) *runtime.ShardingTable, raw []any, vals []BoundValue) *Plan {
	var keepRaw []any
	var keepVals []BoundValue
	seen := map[BoundValue]bool{}
	for i, v := range vals {
		if v.Kind != BoundNull && i < len(raw) && !seen[v] {
			seen[v] = true
			keepRaw, keepVals = append(keepRaw, raw[i]), append(keepVals, v)
		}
	}
	units := s.p.Route.Units
	idx, ok := s.route.Split(tables, nil, len(units), 1, keepRaw)
	if !ok {
		idx = make([][]int, len(units))
		for i := range idx {
			for v := range keepVals {
				idx[i] = append(idx[i], v)
			}
		}
	}
	fixed := []int{}
	for i, vs := range idx {
		if vs != nil {
			fixed = append(fixed, i)
		}
	}
	if len(fixed) == 0 {
		fixed = []int{0}
	}
	p := *s.p
	rt := *p.Route
	rt.Units = append([]Unit(nil), rt.Units...)
	for _, i := range fixed {
		var list strings.Builder
		for k, v := range idx[i] {
			if k > 0 {
				list.WriteString(", ")
			}
			list.WriteString(sqlparser.String(keepVals[v].exprAs(s.text)))
		}
		if len(idx[i]) == 0 {
			list.WriteString("NULL")
		}
		sql := rt.Units[i].SQL
		rt.Units[i].SQL = sql[:s.at[i]] + list.String() + sql[s.at[i]+1:]
	}
	rt.Fixed = fixed
	p.Route = &rt
	p.Params, p.Args, p.NodeArgs = nil, nil, nil
	return &p
}
