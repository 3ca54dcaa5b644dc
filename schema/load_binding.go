package schema

import (
	"sort"
	"strconv"
	"strings"
)

// bindingGroups resolves bindingTables: each entry is "t_a, t_b" (5.4+ also
// "name:t_a, t_b"), naming sharding tables whose rows with equal sharding
// values live on data nodes of equal index. ShardingSphere's
// ShardingRuleChecker.isValidBindingTableConfiguration requires equal data
// sources and equal actual-table suffixes per data source, and INLINE
// algorithms of the same shape; shardgen also requires the same data source
// at every data node index, since routing pairs data nodes by index.
func (l *loader) bindingGroups(sh *shardingState) {
	var names []string
	for _, t := range sh.tables {
		names = append(names, t.rule.LogicTable)
	}
	for _, b := range sh.bindings {
		raw := b.node.Value
		body, base, name := raw, 0, ""
		if i := strings.IndexByte(raw, ':'); i >= 0 {
			name, body, base = strings.TrimSpace(raw[:i]), raw[i+1:], i+1
		}
		g := &BindingGroup{Name: name, Pos: l.pos(b.node)}
		var members []*tableState
		off := base
		for _, part := range strings.Split(body, ",") {
			at := l.exprPos(b.node, off+len(part)-len(strings.TrimLeft(part, " \t")))
			off += len(part) + 1
			nm := strings.TrimSpace(part)
			if nm == "" {
				l.errorAt(at, "bindingTables: %q has an empty table name", raw)
				continue
			}
			g.Tables = append(g.Tables, nm)
			t := sh.byLower[strings.ToLower(nm)]
			switch {
			case t == nil:
				l.errorAt(at, "bindingTables: %q is not a sharding table (tables or autoTables)%s", nm, didYouMean(nm, names))
				continue
			case t.inBinding == g:
				l.errorAt(at, "bindingTables: %q is listed twice in one binding group", nm)
				continue
			case t.inBinding != nil:
				l.errorAt(at, "bindingTables: %q is already in binding group %q (line %d)", nm, strings.Join(t.inBinding.Tables, ", "), t.inBinding.Pos.Line)
				continue
			}
			t.inBinding = g
			members = append(members, t)
		}
		sh.rule.BindingGroups = append(sh.rule.BindingGroups, g)
		if len(members) < 2 || !members[0].ok {
			continue
		}
		for _, t := range members[1:] {
			if !t.ok {
				continue
			}
			if why := bindingMismatch(sh, members[0], t); why != "" {
				l.errorf(b.node, "bindingTables: %q and %q cannot be bound: %s", members[0].rule.LogicTable, t.rule.LogicTable, why)
			}
		}
	}
}

// bindingMismatch says why tables a and b cannot be binding tables, or "".
func bindingMismatch(sh *shardingState, a, b *tableState) string {
	an, bn := a.rule.DataNodes, b.rule.DataNodes
	an0, bn0 := a.rule.LogicTable, b.rule.LogicTable
	if len(an) != len(bn) {
		return strconv.Quote(an0) + " has " + strconv.Itoa(len(an)) + " data nodes, " + strconv.Quote(bn0) + " has " + strconv.Itoa(len(bn))
	}
	ads, bds := dataSourcesOf(an), dataSourcesOf(bn)
	if !sameSet(ads, bds) {
		return "they are on different data sources (" + strings.Join(ads, ", ") + " and " + strings.Join(bds, ", ") + ")"
	}
	ap, bp := tablePrefix(a.rule.LogicTable, an), tablePrefix(b.rule.LogicTable, bn)
	for _, ds := range ads {
		as, bs := suffixes(tablesOn(an, ds), ap), suffixes(tablesOn(bn, ds), bp)
		if !sameSet(as, bs) {
			return "their actual tables on data source " + ds + " have different suffixes (" + strings.Join(as, ", ") + " and " + strings.Join(bs, ", ") + ")"
		}
	}
	for i := range an {
		if an[i].DataSource != bn[i].DataSource {
			return "data node " + strconv.Itoa(i) + " is " + an[i].String() + " and " + bn[i].String() + "; binding tables need the same data source at every data node index"
		}
	}
	if why := algorithmMismatch(a, b, true, dsPrefix(an), dsPrefix(bn)); why != "" {
		return "their database strategies " + why
	}
	if why := algorithmMismatch(a, b, false, ap, bp); why != "" {
		return "their table strategies " + why
	}
	return ""
}

// algorithmMismatch compares the shape of two effective strategies the way
// ShardingSphere's getAlgorithmStructure does: only INLINE algorithms have a
// shape (the expression without the data node prefix, the sharding column
// and spaces), and both sides must have the same shape or none.
func algorithmMismatch(a, b *tableState, db bool, aPrefix, bPrefix string) string {
	sa, sb := a.effTable, b.effTable
	if db {
		sa, sb = a.effDB, b.effDB
	}
	xa, oka := inlineStructure(sa, aPrefix)
	xb, okb := inlineStructure(sb, bPrefix)
	if oka == okb && xa == xb {
		return ""
	}
	return "shard differently (" + describeAlgorithm(sa) + " and " + describeAlgorithm(sb) + ")"
}

// inlineStructure is InlineShardingAlgorithm.getAlgorithmStructure.
func inlineStructure(ss *strategyState, prefix string) (string, bool) {
	if ss == nil || ss.s == nil || ss.s.Algorithm == nil || ss.s.Algorithm.Type != "INLINE" {
		return "", false
	}
	expr := strings.ReplaceAll(ss.s.Algorithm.Props["algorithm-expression"], "$->{", "${")
	expr = strings.Replace(expr, prefix, "", 1)
	expr = strings.Replace(expr, ss.rawColumn, "", 1)
	return strings.ReplaceAll(expr, " ", ""), true
}

func describeAlgorithm(ss *strategyState) string {
	switch {
	case ss == nil || ss.s == nil:
		return "none"
	case ss.s.Algorithm == nil:
		return strconv.Quote(ss.s.AlgorithmName)
	case ss.s.Algorithm.Type == "INLINE":
		return "INLINE " + strconv.Quote(ss.s.Algorithm.Props["algorithm-expression"])
	}
	return ss.s.Algorithm.Type + " " + strconv.Quote(ss.s.AlgorithmName)
}

// dsPrefix is the data source name prefix of ShardingTable's
// dataSourceDataNode: the first data source without its trailing digits.
func dsPrefix(nodes []DataNode) string {
	return strings.TrimRight(nodes[0].DataSource, "0123456789")
}

// tablePrefix is the actual table prefix of ShardingTable's tableDataNode:
// the logic table name plus the non-digit rest of the first actual table
// when that starts with the logic table name, else the first actual table
// without its trailing digits.
func tablePrefix(logic string, nodes []DataNode) string {
	first := nodes[0].Table
	if rest, ok := strings.CutPrefix(first, logic); ok {
		return logic + strings.TrimRight(rest, "0123456789")
	}
	return strings.TrimRight(first, "0123456789")
}

// suffixes returns each table name with prefix removed (Java
// String.replace: every occurrence), sorted.
func suffixes(tables []string, prefix string) []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		if prefix == "" {
			out[i] = t
		} else {
			out[i] = strings.ReplaceAll(t, prefix, "")
		}
	}
	sort.Strings(out)
	return out
}

// sameSet reports whether a and b hold the same strings, ignoring order and
// repeats.
func sameSet(a, b []string) bool {
	in := func(x []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range x {
			m[s] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	if len(ma) != len(mb) {
		return false
	}
	for s := range ma {
		if !mb[s] {
			return false
		}
	}
	return true
}
