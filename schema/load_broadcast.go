package schema

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// singleState is a parsed !SINGLE rule.
type singleState struct {
	rule    *SingleRule
	entries []singleEntry
	defNode *yaml.Node
}

// singleEntry is one "ds.t" of !SINGLE tables, with where it was written.
type singleEntry struct {
	text string
	node *yaml.Node
	off  int // byte offset in node.Value
}

// loadBroadcast parses !BROADCAST (5.4+): `tables: [t_dict, ...]`, tables
// copied to every data source. The 5.1 `broadcastTables:` of !SHARDING joins
// the same list.
func (l *loader) loadBroadcast(st *state, item, body *yaml.Node) {
	o := l.object(body, "!BROADCAST", "tables")
	if o == nil {
		return
	}
	st.bcast = append(st.bcast, l.strList(o.get("tables"), "!BROADCAST tables")...)
	st.bcastPos = l.pos(item)
	st.cfg.Broadcast = &BroadcastRule{Pos: l.pos(item)}
}

// resolveBroadcast builds the BroadcastRule: each table once
// (case-insensitive) and not also a sharding table.
func (l *loader) resolveBroadcast(st *state) {
	if len(st.bcast) == 0 {
		return
	}
	if st.cfg.Broadcast == nil {
		st.cfg.Broadcast = &BroadcastRule{Pos: st.bcastPos}
	}
	seen := map[string]*yaml.Node{}
	for _, b := range st.bcast {
		lower := strings.ToLower(b.name)
		if first := seen[lower]; first != nil {
			l.errorf(b.node, "broadcast table %q is listed twice (first at line %d)", b.name, first.Line)
			continue
		}
		seen[lower] = b.node
		if sh := st.sharding; sh != nil {
			if t := sh.byLower[lower]; t != nil {
				l.errorf(b.node, "broadcast table %q is also a sharding table (%s, line %d)", b.name, t.path, t.key.Line)
				continue
			}
		}
		st.cfg.Broadcast.Tables = append(st.cfg.Broadcast.Tables, b.name)
	}
}

// loadSingle parses !SINGLE (5.4+): `tables: ["ds.t", "ds.*", "*.*"]` and
// `defaultDataSource`. An entry may hold several comma-separated tables, as
// ShardingSphere's SingleTableLoadUtils.splitTableLines allows.
func (l *loader) loadSingle(st *state, item, body *yaml.Node) {
	o := l.object(body, "!SINGLE", "tables", "defaultDataSource")
	if o == nil {
		return
	}
	ss := &singleState{rule: &SingleRule{Pos: l.pos(item)}}
	st.single = ss
	st.cfg.Single = ss.rule
	for _, x := range l.strList(o.get("tables"), "!SINGLE tables") {
		raw := x.node.Value
		off := 0
		for _, part := range strings.Split(raw, ",") {
			lead := len(part) - len(strings.TrimLeft(part, " \t"))
			if t := strings.TrimSpace(part); t != "" {
				ss.entries = append(ss.entries, singleEntry{text: t, node: x.node, off: off + lead})
			}
			off += len(part) + 1
		}
	}
	if o.has("defaultDataSource") {
		ss.rule.DefaultDataSource = l.str(o, "defaultDataSource")
		ss.defNode = o.get("defaultDataSource")
	}
}

// resolveSingle checks the form of each single table entry and that the data
// sources it names exist.
func (l *loader) resolveSingle(st *state) {
	ss := st.single
	if ss == nil {
		return
	}
	seen := map[string]bool{}
	for _, e := range ss.entries {
		at := l.exprPos(e.node, e.off)
		ds, table, ok := strings.Cut(e.text, ".")
		ds, table = strings.TrimSpace(ds), strings.TrimSpace(table)
		switch {
		case !ok || ds == "" || table == "" || strings.Contains(table, "."):
			l.errorAt(at, "!SINGLE tables: %q must be <data source>.<table>, <data source>.* or *.*", e.text)
			continue
		case ds == "*" && table != "*":
			l.errorAt(at, "!SINGLE tables: %q: a table on every data source is written *.*; name one data source for one table", e.text)
			continue
		case ds != "*" && !st.definedDataSource(ds):
			l.errorAt(at, "!SINGLE tables: data source %q of %q is not defined (%s)", ds, e.text, st.dataSourceNames())
			continue
		}
		key := strings.ToLower(ds + "." + table)
		if seen[key] {
			l.errorAt(at, "!SINGLE tables: %q is listed twice", e.text)
			continue
		}
		seen[key] = true
		ss.rule.Tables = append(ss.rule.Tables, ds+"."+table)
	}
	if d := ss.rule.DefaultDataSource; d != "" && !st.definedDataSource(d) {
		l.errorf(ss.defNode, "!SINGLE defaultDataSource: data source %q is not defined (%s)", d, st.dataSourceNames())
	}
}
