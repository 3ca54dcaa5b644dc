package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/shardgen/shardgen/internal/pipeline"
	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// runExplain prints, per query, the route kind, the sharding conditions,
// each data node and its SQL: `shardgen explain [-f shardgen.yaml]
// [--format text|json]`. The output is deterministic so it can be committed
// and diffed in review.
func runExplain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "shardgen.yaml", "project file")
	format := fs.String("format", "text", "output format: text or json")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shardgen explain: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "shardgen explain: --format must be text or json, got %q\n", *format)
		return 2
	}
	p, err := pipeline.Load(*file)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	if *format == "json" {
		return writeJSON(stdout, stderr, explainJSON(p))
	}
	io.WriteString(stdout, ExplainText(p))
	return 0
}

// explainFile is one query file in `explain --format json`.
type explainFile struct {
	File  string       `json:"file"`
	Plans []*plan.Plan `json:"plans"`
}

func explainJSON(p *pipeline.Project) []explainFile {
	out := []explainFile{}
	for _, f := range p.TypedFiles() {
		out = append(out, explainFile{File: f.Path, Plans: f.Plans})
	}
	return out
}

func writeJSON(stdout, stderr io.Writer, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, "shardgen:", err)
		return 1
	}
	stdout.Write(append(b, '\n'))
	return 0
}

// ExplainText renders the plans of a project for people: one block per
// query with its route, conditions and the SQL of each data node (long node
// lists are shortened to their first and last units).
func ExplainText(p *pipeline.Project) string {
	var b strings.Builder
	for _, f := range p.TypedFiles() {
		for _, pl := range f.Plans {
			writePlanText(&b, pl)
		}
	}
	return b.String()
}

const maxUnitsShown = 8

func writePlanText(b *strings.Builder, pl *plan.Plan) {
	rt := pl.Route
	fmt.Fprintf(b, "%s %s (%s)\n", pl.Name, pl.Cmd, pl.Source)
	if pl.Steps != nil {
		writeStepsText(b, pl)
		return
	}
	fmt.Fprintf(b, "  route: %s on %s", rt.Kind, rt.LogicTable)
	if rt.Reason != "" {
		fmt.Fprintf(b, " — %s", rt.Reason)
	}
	b.WriteByte('\n')
	for _, s := range []struct {
		side string
		st   *plan.Strategy
	}{{"database", rt.Database}, {"table", rt.Table}} {
		if s.st == nil {
			continue
		}
		fmt.Fprintf(b, "  %s: %s %s %s (%s)", s.side, s.st.Kind, strings.Join(s.st.Columns, ","), s.st.Type, s.st.Algorithm)
		if s.st.Inline != nil {
			fmt.Fprintf(b, ", inlined as %s(v, %d)", s.st.Inline.Func, s.st.Inline.Modulus)
		}
		b.WriteByte('\n')
	}
	for i, c := range rt.Conditions {
		var parts []string
		for _, cc := range c.Columns {
			parts = append(parts, conditionText(pl, cc))
		}
		fmt.Fprintf(b, "  condition %d: %s\n", i+1, strings.Join(parts, " AND "))
	}
	for _, a := range rt.Agree {
		if a.DataSource != "" {
			fmt.Fprintf(b, "  must meet: single table %s on data source %s (checked at run time)\n", a.Table, a.DataSource)
			continue
		}
		var groups []string
		for _, c := range a.Conditions {
			var parts []string
			for _, cc := range c.Columns {
				parts = append(parts, conditionText(pl, cc))
			}
			groups = append(groups, strings.Join(parts, " AND "))
		}
		fmt.Fprintf(b, "  must meet: %s where %s (checked at run time)\n", a.Table, strings.Join(groups, " OR "))
	}
	if u := rt.Update; u != nil {
		var parts []string
		for _, cc := range u.Set.Columns {
			parts = append(parts, conditionText(pl, cc))
		}
		fmt.Fprintf(b, "  sets sharding columns: %s; refused at run time unless every row stays on its data node\n", strings.Join(parts, ", "))
	}
	if len(pl.Params) > 0 {
		var ps []string
		for _, p := range pl.Params {
			s := p.Name + " " + p.Type.String()
			if p.Generated {
				s += " (generated key)"
			}
			ps = append(ps, s)
		}
		fmt.Fprintf(b, "  params: %s\n", strings.Join(ps, ", "))
	}
	if rt.Fixed != nil {
		fmt.Fprintf(b, "  fixed units: %v\n", rt.Fixed)
	}
	if m := pl.Merge; m != nil {
		fmt.Fprintf(b, "  merge: %s\n", mergeText(pl))
	}
	if pl.Primary && pl.Statement == plan.StmtSelect {
		b.WriteString("  reads: primary (locking read or -- shardgen:primary)\n")
	}
	for i, u := range rt.Units {
		if len(rt.Units) > maxUnitsShown && i == maxUnitsShown/2 {
			fmt.Fprintf(b, "  ... %d more units ...\n", len(rt.Units)-maxUnitsShown)
		}
		if len(rt.Units) > maxUnitsShown && i >= maxUnitsShown/2 && i < len(rt.Units)-maxUnitsShown/2 {
			continue
		}
		fmt.Fprintf(b, "  [%d] %s: %s\n", i, u.Node, oneLine(u.SQL))
	}
	b.WriteByte('\n')
}

// writeStepsText writes the steps of a statement evaluated across data
// nodes (plan.Plan.Steps): each step's statement with its route units in
// the order they run, then how their rows are combined.
func writeStepsText(b *strings.Builder, pl *plan.Plan) {
	s, ds := pl.Steps, pl.Route.DataSources
	fmt.Fprintf(b, "  route: %s\n", pl.Route.Reason)
	n := 0
	step := func(what string, q *runtime.StepQuery) {
		n++
		fmt.Fprintf(b, "  step %d: %s\n", n, what)
		if q.Route != nil {
			fmt.Fprintf(b, "    route units: %s, only the data nodes of their values\n", q.Route)
		}
		if q.Merge != nil && len(q.Units) > 1 {
			mp := &plan.Plan{Merge: q.Merge}
			for i := range q.Merge.Visible {
				mp.Columns = append(mp.Columns, &plan.Column{Name: fmt.Sprintf("#%d", i+1)})
			}
			fmt.Fprintf(b, "    merge: %s\n", mergeText(mp))
		}
		for i, u := range q.Units {
			name := "?"
			if u.DataSource < len(ds) {
				name = ds[u.DataSource]
			}
			fmt.Fprintf(b, "    [%d] %s: %s\n", i, name, oneLine(u.SQL))
		}
	}
	order := func(keys []runtime.SortKey) string {
		if len(keys) == 0 {
			return "none"
		}
		var out []string
		for _, k := range keys {
			t := fmt.Sprintf("#%d", k.Column+1)
			if k.Desc {
				t += " desc"
			}
			out = append(out, t)
		}
		return strings.Join(out, ", ")
	}
	cols := func(c []int) string {
		var out []string
		for _, i := range c {
			out = append(out, fmt.Sprintf("#%d", i+1))
		}
		return strings.Join(out, ", ")
	}
	// limit spells LIMIT offset, count; a parameter's (args: runtime
	// JoinStep.LimitArgs) as "placeholder N".
	limit := func(offset, count int64, args []int) string {
		o, c := fmt.Sprint(offset), fmt.Sprint(count)
		if len(args) == 2 {
			if args[0] >= 0 {
				o = fmt.Sprintf("placeholder %d", args[0]+1)
			}
			if args[1] >= 0 {
				c = fmt.Sprintf("placeholder %d", args[1]+1)
			}
			return ", limit " + o + ", " + c
		}
		switch {
		case count < 0 && offset == 0:
			return ""
		case count < 0:
			return ", offset " + o
		}
		return ", limit " + o + ", " + c
	}
	for _, q := range s.Queries() {
		step(q.What, q.Query)
	}
	switch {
	case s.Join != nil:
		// The joins of the outer sides first (a join of three or more
		// tables), innermost first.
		var chain []*runtime.JoinStep
		for j := s.Join; j != nil; j = j.OuterJoin {
			chain = append([]*runtime.JoinStep{j}, chain...)
		}
		for i, j := range chain {
			then := "then"
			if i < len(chain)-1 {
				then = "then, as the outer side of the next join"
			}
			kind := "inner"
			if j.Spec.Left {
				kind = "left outer"
			}
			on := fmt.Sprintf("on outer %s = inner %s", cols(j.Spec.OuterKeys), cols(j.Spec.InnerKeys))
			if len(j.Spec.OuterKeys) == 0 {
				on = "without key columns"
			}
			for _, r := range j.Spec.Residual {
				ops := [...]string{"=", "<>", "<", "<=", ">", ">="}
				op := "?"
				if int(r.Op) < len(ops) {
					op = ops[r.Op]
				}
				on += fmt.Sprintf(" and outer #%d %s inner #%d", r.Outer+1, op, r.Inner+1)
			}
			if len(j.Null) > 0 {
				on += fmt.Sprintf(", only the joined rows where %s IS NULL", cols(j.Null))
			}
			if j.Merge != nil {
				mp := &plan.Plan{Merge: j.Merge, Columns: pl.Columns}
				fmt.Fprintf(b, "  %s: %s join %s; each joined row (outer columns, then inner) a row of partial aggregates, merged: %s\n", then, kind, on, mergeText(mp))
				continue
			}
			fmt.Fprintf(b, "  %s: %s join %s; joined rows (outer columns, then inner) ordered by %s%s; output %s\n",
				then, kind, on, order(j.OrderBy), limit(j.Offset, j.Count, j.LimitArgs), cols(j.Output))
		}
	case s.Union != nil:
		u := s.Union
		dedup := "UNION ALL"
		if u.Distinct > 0 {
			dedup = fmt.Sprintf("the rows of SELECTs 1-%d deduplicated", u.Distinct)
		}
		fmt.Fprintf(b, "  then: concatenated, %s; ordered by %s%s; output the first %d columns\n", dedup, order(u.OrderBy), limit(u.Offset, u.Count, u.LimitArgs), u.Visible)
	}
	b.WriteByte('\n')
}

func conditionText(pl *plan.Plan, cc plan.ColumnCondition) string {
	op := func(o plan.Operand) string {
		if o.Literal != nil {
			return o.Literal.Text()
		}
		if o.Param >= 0 && o.Param < len(pl.Params) {
			return pl.Params[o.Param].Name
		}
		return "?"
	}
	if cc.Range != nil {
		s := cc.Column + " in "
		if cc.Range.Lower != nil {
			s += map[bool]string{true: "(", false: "["}[cc.Range.LowerOpen] + op(*cc.Range.Lower)
		} else {
			s += "(-inf"
		}
		s += ", "
		if cc.Range.Upper != nil {
			s += op(*cc.Range.Upper) + map[bool]string{true: ")", false: "]"}[cc.Range.UpperOpen]
		} else {
			s += "+inf)"
		}
		return s
	}
	if len(cc.Values) == 1 {
		return cc.Column + " = " + op(cc.Values[0])
	}
	var vs []string
	for _, v := range cc.Values {
		vs = append(vs, op(v))
	}
	return cc.Column + " IN (" + strings.Join(vs, ", ") + ")"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mergeText summarises a merge spec with the plan's column names, e.g.
// "group by status; count(orders) sum(total); order by status asc".
func mergeText(pl *plan.Plan) string {
	m := pl.Merge
	name := func(i int) string {
		if i < len(pl.Columns) {
			return pl.Columns[i].Name
		}
		return fmt.Sprintf("derived#%d", i-m.Visible+1)
	}
	var parts []string
	if len(m.GroupBy) > 0 {
		var g []string
		for _, i := range m.GroupBy {
			g = append(g, name(i))
		}
		parts = append(parts, "group by "+strings.Join(g, ", "))
	}
	if m.Distinct {
		parts = append(parts, "distinct")
	}
	if len(m.Aggregates) > 0 {
		var a []string
		for _, ag := range m.Aggregates {
			a = append(a, strings.ToLower(ag.Func.String())+"("+name(ag.Column)+")")
		}
		parts = append(parts, strings.Join(a, " "))
	}
	if len(m.OrderBy) > 0 {
		var o []string
		for _, k := range m.OrderBy {
			dir := " asc"
			if k.Desc {
				dir = " desc"
			}
			o = append(o, name(k.Column)+dir)
		}
		parts = append(parts, "order by "+strings.Join(o, ", "))
	}
	limit := func(v runtime.LimitValue) string {
		if v.Param {
			if int(v.Value) < len(pl.Params) {
				return pl.Params[v.Value].Name
			}
			return "?"
		}
		return fmt.Sprint(v.Value)
	}
	if !(m.Count == runtime.NoLimit) {
		parts = append(parts, "skip "+limit(m.Offset)+" take "+limit(m.Count))
	}
	if m.Columns > m.Visible {
		parts = append(parts, fmt.Sprintf("%d derived column(s) hidden", m.Columns-m.Visible))
	}
	if len(parts) == 0 {
		return "concatenate"
	}
	return strings.Join(parts, "; ")
}
