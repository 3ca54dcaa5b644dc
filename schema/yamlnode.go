package schema

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yamlnode.go holds the position-aware helpers the loader uses to walk a
// decoded *yaml.Node tree: every problem is recorded at the line:col of the
// node that caused it, and the walk goes on so that one load reports all
// problems.

// Limits that keep a hostile or broken file from exhausting memory or time.
const (
	// maxAliasDerefs bounds how many times the walk follows a YAML alias
	// (*name). Ordinary configs use a handful; a "billion laughs" file needs
	// exponentially many.
	maxAliasDerefs = 10000
	// maxMergeDepth bounds nested merge keys (<<: *a where a itself merges).
	maxMergeDepth = 32
)

// loader walks one YAML file and collects problems.
type loader struct {
	file   string
	lines  []string // source lines, to place errors inside inline expressions
	errs   Errors
	warns  Errors
	derefs int
}

// pos returns the position of n in the file.
func (l *loader) pos(n *yaml.Node) Pos {
	return Pos{File: l.file, Line: n.Line, Col: n.Column}
}

// errorf records a problem at n.
func (l *loader) errorf(n *yaml.Node, format string, args ...any) {
	l.errs.Add(l.pos(n), fmt.Sprintf(format, args...))
}

// errorAt records a problem at p.
func (l *loader) errorAt(p Pos, format string, args ...any) {
	l.errs.Add(p, fmt.Sprintf(format, args...))
}

// warnf records a warning (something ShardingSphere accepts but that is
// probably a mistake) at n.
func (l *loader) warnf(n *yaml.Node, format string, args ...any) {
	l.warns.Add(l.pos(n), fmt.Sprintf(format, args...))
}

// deref follows aliases. Past maxAliasDerefs it reports one error and
// returns a null scalar at the alias, so callers never see nil.
func (l *loader) deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		if l.derefs >= maxAliasDerefs {
			if l.derefs == maxAliasDerefs {
				l.errorf(n, "too many YAML alias references (more than %d)", maxAliasDerefs)
				l.derefs++
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
		}
		l.derefs++
		if n.Alias == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
		}
		n = n.Alias
	}
	return n
}

// isNull reports whether n is an absent value: `key:`, `key: ~`, `key: null`.
func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// describe names what n is, for "must be a mapping, got ..." messages.
func describe(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a sequence"
	case n.Kind == yaml.ScalarNode:
		return strconv.Quote(n.Value)
	case n.Kind == yaml.DocumentNode:
		return "a document"
	}
	return "an alias"
}

// pair is one key/value entry of a mapping; both nodes are dereferenced.
type pair struct {
	key *yaml.Node
	val *yaml.Node
}

// pairs returns the entries of mapping n in order, with merge keys (<<)
// expanded as YAML 1.1 and SnakeYAML do: explicit keys win over merged ones,
// and earlier merged mappings win over later ones. A key written twice is an
// error (SnakeYAML rejects duplicate keys too). Non-scalar keys are errors.
func (l *loader) pairs(n *yaml.Node, what string) []pair {
	var out []pair
	seen := map[string]*yaml.Node{}
	var merged []pair
	l.collectPairs(n, what, &out, &merged, seen, 0)
	for _, p := range merged {
		if _, dup := seen[p.key.Value]; dup {
			continue
		}
		seen[p.key.Value] = p.key
		out = append(out, p)
	}
	return out
}

func (l *loader) collectPairs(n *yaml.Node, what string, out, merged *[]pair, seen map[string]*yaml.Node, depth int) {
	c := n.Content
	for i := 0; i+1 < len(c); i += 2 {
		k, v := l.deref(c[i]), l.deref(c[i+1])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			l.merge(v, what, merged, depth+1)
			continue
		}
		if k.Kind != yaml.ScalarNode || isNull(k) {
			l.errorf(k, "%s: keys must be names, got %s", what, describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			l.errorf(k, "%s: duplicate key %q (first at line %d)", what, k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		*out = append(*out, pair{key: k, val: v})
	}
}

// merge appends the entries of a `<<:` value (a mapping or a sequence of
// mappings) to merged.
func (l *loader) merge(v *yaml.Node, what string, merged *[]pair, depth int) {
	if depth > maxMergeDepth {
		l.errorf(v, "%s: merge keys (<<) nested too deeply", what)
		return
	}
	var srcs []*yaml.Node
	switch v.Kind {
	case yaml.MappingNode:
		srcs = []*yaml.Node{v}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			srcs = append(srcs, l.deref(item))
		}
	default:
		l.errorf(v, "%s: a merge key (<<) needs a mapping or a list of mappings, got %s", what, describe(v))
		return
	}
	for _, s := range srcs {
		if s.Kind != yaml.MappingNode {
			l.errorf(s, "%s: a merge key (<<) needs a mapping or a list of mappings, got %s", what, describe(s))
			continue
		}
		// Entries of one merged mapping are checked for duplicates among
		// themselves; across merged mappings the first one wins.
		var inner []pair
		local := map[string]*yaml.Node{}
		var innerMerged []pair
		l.collectPairs(s, what, &inner, &innerMerged, local, depth)
		for _, p := range innerMerged {
			if _, dup := local[p.key.Value]; !dup {
				local[p.key.Value] = p.key
				inner = append(inner, p)
			}
		}
		*merged = append(*merged, inner...)
	}
}

// object is a mapping whose keys are a fixed set of field names.
type object struct {
	node   *yaml.Node
	what   string
	fields map[string]pair
	order  []pair
	// typo holds the allowed keys that an unknown key was reported as a
	// likely misspelling of, so that the key is not reported missing too.
	typo map[string]bool
}

// object checks that n is a mapping (null counts as an empty one) whose keys
// are all among allowed, reporting unknown keys with the allowed list and a
// suggestion. It returns nil, after reporting, when n is not a mapping.
func (l *loader) object(n *yaml.Node, what string, allowed ...string) *object {
	if n == nil {
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	o := &object{node: n, what: what, fields: map[string]pair{}}
	if isNull(n) {
		return o
	}
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "%s must be a mapping, got %s", what, describe(n))
		return nil
	}
	for _, p := range l.pairs(n, what) {
		if !contains(allowed, p.key.Value) {
			l.errorf(p.key, "%s", unknownKey(what, p.key.Value, allowed))
			if s := suggest(p.key.Value, allowed); s != "" {
				if o.typo == nil {
					o.typo = map[string]bool{}
				}
				o.typo[s] = true
			}
			continue
		}
		o.fields[p.key.Value] = p
		o.order = append(o.order, p)
	}
	return o
}

// unknownKey formats the message for a key that is not allowed.
func unknownKey(what, key string, allowed []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: unknown key %q", what, key)
	if s := suggest(key, allowed); s != "" {
		fmt.Fprintf(&b, ", did you mean %q?", s)
	}
	b.WriteString(" (allowed: ")
	b.WriteString(strings.Join(allowed, ", "))
	b.WriteString(")")
	return b.String()
}

// has reports whether the field is present with a non-null value.
func (o *object) has(name string) bool {
	p, ok := o.fields[name]
	return ok && !isNull(p.val)
}

// present reports whether the field is written at all, even as `name:`.
func (o *object) present(name string) bool {
	_, ok := o.fields[name]
	return ok
}

// get returns the field's value node, or nil when absent.
func (o *object) get(name string) *yaml.Node {
	if p, ok := o.fields[name]; ok {
		return p.val
	}
	return nil
}

// child returns the field's value node; when the field is absent, a null
// node at the object's position, so that problems with it (a required key
// missing) are reported where the object is.
func (o *object) child(name string) *yaml.Node {
	if p, ok := o.fields[name]; ok {
		return p.val
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: o.node.Line, Column: o.node.Column}
}

// key returns the field's key node, or nil when absent.
func (o *object) key(name string) *yaml.Node {
	if p, ok := o.fields[name]; ok {
		return p.key
	}
	return nil
}

// at returns the node to report a problem about a field at: its value when
// present, else the object itself.
func (o *object) at(name string) *yaml.Node {
	if p, ok := o.fields[name]; ok {
		if isNull(p.val) {
			return p.key
		}
		return p.val
	}
	return o.node
}

// scalar returns the text of scalar n. Anything else is reported and gives
// ok == false. A null gives "" and ok == true.
func (l *loader) scalar(n *yaml.Node, what string) (string, bool) {
	if isNull(n) {
		return "", true
	}
	if n.Kind != yaml.ScalarNode {
		l.errorf(n, "%s must be a single value, got %s", what, describe(n))
		return "", false
	}
	return n.Value, true
}

// str returns the trimmed text of an optional scalar field ("" when absent).
func (l *loader) str(o *object, name string) string {
	n := o.get(name)
	if n == nil {
		return ""
	}
	s, _ := l.scalar(n, o.what+": "+name)
	return strings.TrimSpace(s)
}

// reqStr returns the trimmed text of a required scalar field, reporting a
// missing or empty one (unless a misspelling of it was reported).
func (l *loader) reqStr(o *object, name string) string {
	n := o.get(name)
	if n == nil || isNull(n) {
		if !o.typo[name] {
			l.errorf(o.at(name), "%s: %s is required", o.what, name)
		}
		return ""
	}
	s, ok := l.scalar(n, o.what+": "+name)
	if !ok {
		return ""
	}
	s = strings.TrimSpace(s)
	if s == "" {
		l.errorf(n, "%s: %s must not be empty", o.what, name)
	}
	return s
}

// boolean returns an optional true/false field (case-insensitive), or def.
func (l *loader) boolean(o *object, name string, def bool) bool {
	n := o.get(name)
	if isNull(n) {
		return def
	}
	s, ok := l.scalar(n, o.what+": "+name)
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true
	case "false":
		return false
	}
	l.errorf(n, "%s: %s must be true or false, got %q", o.what, name, s)
	return def
}

// integer returns an optional decimal integer field in [min, max], or 0.
func (l *loader) integer(o *object, name string, min, max int64) int64 {
	n := o.get(name)
	if isNull(n) {
		return 0
	}
	s, ok := l.scalar(n, o.what+": "+name)
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		l.errorf(n, "%s: %s must be an integer, got %q", o.what, name, s)
		return 0
	}
	if v < min || v > max {
		l.errorf(n, "%s: %s must be between %d and %d, got %d", o.what, name, min, max, v)
		return 0
	}
	return v
}

// strList returns a sequence of scalars (null: empty). Each item is returned
// with its node, trimmed.
func (l *loader) strList(n *yaml.Node, what string) []nameAt {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "%s must be a list, got %s", what, describe(n))
		return nil
	}
	var out []nameAt
	for _, item := range n.Content {
		item = l.deref(item)
		s, ok := l.scalar(item, what+" item")
		if !ok {
			continue
		}
		if isNull(item) || strings.TrimSpace(s) == "" {
			l.errorf(item, "%s: empty item", what)
			continue
		}
		out = append(out, nameAt{name: strings.TrimSpace(s), node: item})
	}
	return out
}

// nameAt is a name with the node it was written at.
type nameAt struct {
	name string
	node *yaml.Node
}

// entries returns the entries of a mapping keyed by user-chosen names (data
// sources, tables, algorithms). null gives none.
func (l *loader) entries(n *yaml.Node, what string) []pair {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "%s must be a mapping, got %s", what, describe(n))
		return nil
	}
	out := l.pairs(n, what)
	for i := range out {
		if strings.TrimSpace(out[i].key.Value) == "" {
			l.errorf(out[i].key, "%s: empty name", what)
		}
	}
	return out
}

// exprPos returns the position of byte offset off inside the scalar n's
// value, when the value sits on one line of the source exactly as written
// (plain, or quoted without escapes); otherwise the scalar's own position.
func (l *loader) exprPos(n *yaml.Node, off int) Pos {
	p := l.pos(n)
	if off < 0 || off > len(n.Value) || n.Kind != yaml.ScalarNode || n.Line < 1 || n.Line > len(l.lines) {
		return p
	}
	skip := 0 // runes before the value starts (the opening quote)
	switch n.Style {
	case 0, yaml.TaggedStyle:
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		skip = 1
	default:
		return p
	}
	line := l.lines[n.Line-1]
	// Column is counted in runes; find the byte where the value starts.
	start := 0
	for i := 1; i < n.Column+skip; i++ {
		if start >= len(line) {
			return p
		}
		_, w := utf8.DecodeRuneInString(line[start:])
		start += w
	}
	if !strings.HasPrefix(line[start:], n.Value) {
		return p
	}
	p.Col += skip + utf8.RuneCountInString(n.Value[:off])
	return p
}

// contains reports whether list holds s exactly.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest returns the allowed word closest to s (case-insensitive equal, or
// edit distance ≤ 2 and less than half the word), or "".
func suggest(s string, allowed []string) string {
	best, bestD := "", 3
	ls := strings.ToLower(s)
	for _, a := range allowed {
		la := strings.ToLower(a)
		if la == ls {
			return a
		}
		d := editDistance(ls, la)
		if d < bestD && d*2 < len(la) {
			best, bestD = a, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes), capped at 3.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 3
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], 3)
}

// sortedKeys returns the keys of m in sorted order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// quoteList formats names as "a", "b".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
