package plan

import (
	gotoken "go/token"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/schema"
)

// argIndex returns the 0-based ordinal of a positional placeholder (vitess
// names the N-th `?` "vN"), or -1 for anything else.
func argIndex(a *sqlparser.Argument) int {
	if !strings.HasPrefix(a.Name, "v") {
		return -1
	}
	n, err := strconv.Atoi(a.Name[1:])
	if err != nil || n < 1 {
		return -1
	}
	return n - 1
}

// typeParams gives every `?` a Go type from its context and builds
// Plan.Params and Plan.Args.
func (p *planner) typeParams() error {
	p.hints = map[int]argHint{}
	var insertCols []*colRef
	if ins, ok := p.stmt.(*sqlparser.Insert); ok {
		ref := p.refs[0]
		if len(ins.Columns) == 0 {
			for _, c := range ref.info.ddl.VisibleColumns() {
				insertCols = append(insertCols, &colRef{ref: ref, col: c})
			}
		} else {
			for _, ident := range ins.Columns {
				c := ref.info.ddl.Column(ident.String())
				if c == nil {
					return p.errorAt(ident.String(), "unknown column %q in table %q", ident.String(), ref.info.name)
				}
				insertCols = append(insertCols, &colRef{ref: ref, col: c})
			}
		}
		switch rows := ins.Rows.(type) {
		case sqlparser.Values:
			for _, row := range rows {
				if len(row) != len(insertCols) {
					return p.errorIn("VALUES", row, "INSERT has %d columns but a row has %d values", len(insertCols), len(row))
				}
				for i, v := range row {
					p.hintExpr(v, insertCols[i], true)
				}
			}
		case *sqlparser.Select:
			// INSERT … SELECT ?, col …: a selected placeholder takes the
			// type of the column it is written to.
			for i, se := range rows.SelectExprs.Exprs {
				if ae, ok := se.(*sqlparser.AliasedExpr); ok && i < len(insertCols) {
					p.hintExpr(ae.Expr, insertCols[i], true)
				}
			}
		}
	}
	var err error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.ComparisonExpr:
			nullSafe := n.Operator == sqlparser.NullSafeEqualOp
			if n.Operator == sqlparser.LikeOp || n.Operator == sqlparser.NotLikeOp {
				p.hintType(n.Right, typeString)
				p.hintType(n.Left, typeString)
				break
			}
			// BINARY col = ? takes col's type: it routes by the value.
			if c, _ := p.comparedColumn(n.Left); c != nil {
				if tuple, ok := n.Right.(sqlparser.ValTuple); ok {
					for _, v := range tuple {
						p.hintExpr(v, c, false)
					}
				} else {
					p.hintExpr(n.Right, c, nullSafe)
				}
			}
			if c, _ := p.comparedColumn(n.Right); c != nil {
				p.hintExpr(n.Left, c, nullSafe)
			}
			// HAVING SUM(amount) > ?: the aggregate's type.
			for _, side := range [2][2]sqlparser.Expr{{n.Left, n.Right}, {n.Right, n.Left}} {
				if agg, ok := side[0].(sqlparser.AggrFunc); ok {
					if t, ok := p.aggregateParamType(agg); ok {
						p.hintType(side[1], t)
					}
				}
				// HAVING SUM(qty) / COUNT(*) >= ?: the type MySQL gives
				// the arithmetic (kindGoType).
				if b, ok := side[0].(*sqlparser.BinaryExpr); ok {
					if t, ok := kindGoType(p.arithKind(b)); ok {
						p.hintType(side[1], t)
					}
				}
			}
		case *sqlparser.BetweenExpr:
			if c := p.colOf(n.Left); c != nil {
				p.hintExpr(n.From, c, false)
				p.hintExpr(n.To, c, false)
			}
		case *sqlparser.BinaryExpr:
			if c := p.colOf(n.Left); c != nil {
				p.hintExpr(n.Right, c, false)
			}
			if c := p.colOf(n.Right); c != nil {
				p.hintExpr(n.Left, c, false)
			}
		case *sqlparser.UpdateExpr:
			if c := p.cols[n.Name]; c != nil {
				p.hintExpr(n.Expr, c, true)
			}
		case *sqlparser.Limit:
			p.hintNamed(n.Offset, typeInt64, "offset")
			p.hintNamed(n.Rowcount, typeInt64, "limit")
		case *sqlparser.CastExpr:
			p.hintType(n.Expr, convertType(n.Type))
		case *sqlparser.ConvertExpr:
			p.hintType(n.Expr, convertType(n.Type))
		case *sqlparser.ConvertUsingExpr:
			p.hintType(n.Expr, typeString)
		}
		return true, nil
	}, p.stmt)
	if err != nil {
		return err
	}
	// A named parameter is one Go parameter: an occurrence whose context
	// gives no type (sqlc.narg(tag) IS NULL) takes the type of the first
	// occurrence that has one (tag = sqlc.narg(tag)), before or after it.
	named := map[string]argHint{}
	for i, name := range p.names {
		if h, ok := p.hints[i]; ok && name != "" {
			if _, seen := named[name]; !seen {
				named[name] = h
			}
		}
	}
	for i, name := range p.names {
		if _, ok := p.hints[i]; !ok && name != "" {
			if h, ok := named[name]; ok {
				p.hints[i] = h
			}
		}
	}
	// Build the parameter list in order of appearance.
	byName := map[string]int{}
	used := newNameSet("ctx", "q", "err")
	for i := range p.names {
		h, ok := p.hints[i]
		if !ok {
			// A list of rows bound by steps (the keys of a primary key of
			// several columns) stands as a condition of its own and has
			// no type: the steps bind its values.
			if _, list := stepListIndex(p.names[i]); !p.adHoc() && !list {
				return p.errorf(p.placeholderOffset(i), "cannot infer the type of parameter %d: compare it with a column (col = ?), or CAST(? AS type)", i+1)
			}
			// A prepared ad-hoc statement's value comes typed from the
			// client; a parameter that feeds a sharding condition has a
			// hint.
			h = argHint{typ: typeAny}
		}
		name := p.names[i]
		if name != "" {
			if idx, ok := byName[name]; ok {
				p.plan.Args = append(p.plan.Args, idx)
				continue
			}
		}
		typ := h.typ
		if h.col != nil {
			typ = p.b.goType(h.col.ref.info.name, h.col.col, h.null || p.nulls[i])
		}
		if p.nulls[i] {
			typ = nullType(valueType(typ)) // sqlc.narg: the caller may pass NULL
		}
		base := name
		if base == "" {
			base = "arg"
			if h.col != nil {
				base = h.col.col.Name
			} else if h.name != "" {
				base = h.name
			}
		}
		goName := used.unique(lowerCamel(base))
		param := &Param{Name: goName, Type: typ, Column: h.column, Slice: p.slices[i]}
		if p.plan.KeyGenerate != nil && slices.Contains(p.keyArgs, i) {
			param.Generated = true
			if len(p.plan.KeyGenerate.Params) == 0 {
				p.plan.KeyGenerate.Param = len(p.plan.Params)
			}
			p.plan.KeyGenerate.Params = append(p.plan.KeyGenerate.Params, len(p.plan.Params))
		}
		if name != "" {
			byName[name] = len(p.plan.Params)
		}
		p.plan.Args = append(p.plan.Args, len(p.plan.Params))
		p.plan.Params = append(p.plan.Params, param)
	}
	return nil
}

// aggregateParamType is the Go type of a parameter compared with aggregate
// a (HAVING SUM(amount) > ?): the type MySQL gives the aggregate, in its
// non-NULL form (a comparison with NULL is never true), as a parameter
// compared with a column takes the column's:
//
//	COUNT                          int64
//	SUM, AVG of FLOAT / DOUBLE     float64 (MySQL: DOUBLE)
//	SUM, AVG of a DECIMAL column   the column's own type (its override, if any)
//	SUM, AVG of anything else      DECIMAL: the db_type decimal override, else string
//	MIN, MAX of a column           the column's type (its override, if any)
//	others                         exprType's, when it has one
func (p *planner) aggregateParamType(a sqlparser.AggrFunc) (GoType, bool) {
	var arg sqlparser.Expr
	switch a := a.(type) {
	case *sqlparser.CountStar, *sqlparser.Count:
		return typeInt64, true
	case *sqlparser.Sum:
		arg = a.Arg
	case *sqlparser.Avg:
		arg = a.Arg
	case *sqlparser.Min:
		if c := p.colOf(a.Arg); c != nil && c.ref.info.derived == nil {
			return p.b.goType(c.ref.info.name, c.col, false), true
		}
	case *sqlparser.Max:
		if c := p.colOf(a.Arg); c != nil && c.ref.info.derived == nil {
			return p.b.goType(c.ref.info.name, c.col, false), true
		}
	}
	if arg == nil {
		t, _, ok := p.exprType(a)
		return t, ok && t.Name != "" && t.Name != "any"
	}
	if c := p.colOf(arg); c != nil && c.ref.info.derived == nil {
		switch strings.ToLower(c.col.Type) {
		case "decimal", "numeric", "dec", "fixed":
			return p.b.goType(c.ref.info.name, c.col, false), true
		}
	}
	if t, _, ok := p.exprType(arg); ok && (t.Name == "float64" || t.Name == "float32" || t.Name == "NullFloat64" || t.Name == "Null[float32]") {
		return typeFloat64, true
	}
	return p.b.goType("", &schema.Column{Type: "decimal"}, false), true
}

func (p *planner) colOf(e sqlparser.Expr) *colRef {
	if c, ok := e.(*sqlparser.ColName); ok {
		return p.cols[c]
	}
	return nil
}

// hintExpr types e when it is a placeholder compared with or written to c.
func (p *planner) hintExpr(e sqlparser.Expr, c *colRef, null bool) {
	a, ok := e.(*sqlparser.Argument)
	if !ok {
		return
	}
	i := argIndex(a)
	if i < 0 {
		return
	}
	if _, done := p.hints[i]; done {
		return
	}
	if c.ref.info.derived != nil {
		if t, _, ok := p.derivedType(c); ok {
			if b := p.baseCol(c); b != nil {
				c = b
			} else {
				p.hints[i] = argHint{typ: t}
				return
			}
		} else {
			return
		}
	}
	p.hints[i] = argHint{col: c, column: c.ref.info.name + "." + c.col.Name, null: null}
}

// hintType types e when it is a placeholder, with a fixed type.
func (p *planner) hintType(e sqlparser.Expr, t GoType) { p.hintNamed(e, t, "") }

// hintNamed is hintType that also names the parameter (when the query does
// not, with sqlc.arg).
func (p *planner) hintNamed(e sqlparser.Expr, t GoType, name string) {
	a, ok := e.(*sqlparser.Argument)
	if !ok {
		return
	}
	if i := argIndex(a); i >= 0 {
		if _, done := p.hints[i]; !done {
			p.hints[i] = argHint{typ: t, name: name}
		}
	}
}

// convertType maps a CAST/CONVERT target type to a Go type.
func convertType(t *sqlparser.ConvertType) GoType {
	if t == nil {
		return typeString
	}
	switch strings.ToLower(t.Type) {
	case "signed", "signed integer", "unsigned", "unsigned integer", "integer":
		return typeInt64
	case "double", "float", "real":
		return typeFloat64
	case "datetime", "date", "timestamp":
		return GoType{Pkg: "time", Name: "Time"}
	case "binary":
		return GoType{Name: "[]byte", Nullable: true}
	}
	return typeString
}

// placeholderOffset returns the byte offset of the i-th `?` in p.sql.
func (p *planner) placeholderOffset(i int) int {
	n := 0
	for off := 0; off < len(p.sql); off++ {
		c := p.sql[off]
		switch {
		case c == '\'' || c == '"' || c == '`':
			off = skipQuoted(p.sql, off) - 1
		case c == '?':
			if n == i {
				return off
			}
			n++
		}
	}
	return -1
}

// errorAt reports an error at the first occurrence of word (an identifier)
// in the statement, or at the name line when it is not found.
func (p *planner) errorAt(word string, format string, args ...any) error {
	return p.errorf(p.findWord(word), format, args...)
}

// findWord returns the offset of the first occurrence of word as a whole
// identifier outside quoted strings, or -1.
func (p *planner) findWord(word string) int {
	return p.findWordFrom(word, 0)
}

// findWordFrom is findWord from byte offset from of the statement on: the
// first occurrence of word at or after from, or -1 (also when from < 0). A
// clause is found by its keywords in order, each after the one before:
// p.findWordFrom("ROLLUP", p.findWord("GROUP")).
func (p *planner) findWordFrom(word string, from int) int {
	if from < 0 {
		return -1
	}
	s := p.sql
	lw := strings.ToLower(word)
	for off := from; off < len(s); off++ {
		c := s[off]
		if c == '\'' || c == '"' {
			off = skipQuoted(s, off) - 1
			continue
		}
		if off+len(word) <= len(s) && strings.ToLower(s[off:off+len(word)]) == lw &&
			(off == 0 || !isIdentByte(s[off-1])) && (off+len(word) == len(s) || !isIdentByte(s[off+len(word)])) {
			return off
		}
	}
	return -1
}

// errorOn reports an error at node's text in the statement (nodeOffset), or
// at the name line when it cannot be found there.
func (p *planner) errorOn(node sqlparser.SQLNode, format string, args ...any) error {
	return p.errorf(p.nodeOffset(node, 0), format, args...)
}

// errorIn reports an error at node within the clause that starts with
// keyword (ORDER, GROUP, WHERE; "" for the whole statement): node's text
// at or after the keyword's first occurrence, else the keyword, else the
// name line.
func (p *planner) errorIn(keyword string, node sqlparser.SQLNode, format string, args ...any) error {
	return p.errorf(p.clauseNode(keyword, node), format, args...)
}

// clauseNode is the offset errorIn reports at.
func (p *planner) clauseNode(keyword string, node sqlparser.SQLNode) int {
	from := 0
	if keyword != "" {
		from = max(p.findWord(keyword), 0)
	}
	if off := p.nodeOffset(node, from); off >= 0 {
		return off
	}
	if keyword == "" {
		return -1
	}
	return p.findWord(keyword)
}

// nodeOffset returns the offset in the statement of node's text, at or
// after byte offset from: vitess nodes carry no position, so node is
// printed and its tokens are looked up among the statement's (keywords and
// identifiers compared case-insensitively, any placeholder matching any).
// Where the printed form differs from the written one (<> for !=), the
// longest run of matching tokens wins, the first of equal runs; -1 when not
// even the first token is found.
func (p *planner) nodeOffset(node sqlparser.SQLNode, from int) int {
	if node == nil || from < 0 {
		return -1
	}
	want := codeTokens(p.tokens(sqlparser.String(node)))
	src := p.tokens(p.sql)
	starts := p.tokenStarts(src)
	best, bestLen := -1, 0
	for i := range src {
		if starts[i] < from || src[i].typ == sqlparser.COMMENT {
			continue
		}
		n, j := 0, i
		for n < len(want) && j < len(src) {
			if src[j].typ == sqlparser.COMMENT {
				j++
				continue
			}
			if !sameToken(src[j], want[n]) {
				break
			}
			n++
			j++
		}
		if n > bestLen {
			best, bestLen = starts[i], n
			if n == len(want) {
				break
			}
		}
	}
	return best
}

// tokenStarts returns the offset in p.sql of each token of p.tokens(p.sql):
// the first non-blank byte after the token before it (p.tokens locates
// identifiers only).
func (p *planner) tokenStarts(toks []token) []int {
	starts := make([]int, len(toks))
	prev := 0
	for i, t := range toks {
		for prev < len(p.sql) && strings.IndexByte(" \t\r\n", p.sql[prev]) >= 0 {
			prev++
		}
		starts[i] = prev
		prev = t.end
	}
	return starts
}

// codeTokens drops the comments of toks.
func codeTokens(toks []token) []token {
	out := toks[:0:0]
	for _, t := range toks {
		if t.typ != sqlparser.COMMENT {
			out = append(out, t)
		}
	}
	return out
}

// sameToken reports whether a statement's token a is b of a printed node.
func sameToken(a, b token) bool {
	if a.typ != b.typ {
		return false
	}
	switch a.typ {
	case sqlparser.VALUE_ARG:
		return true // ? in the statement, :v1 printed
	case sqlparser.STRING, sqlparser.INTEGRAL, sqlparser.FLOAT, sqlparser.DECIMAL:
		return a.val == b.val
	}
	return strings.EqualFold(a.val, b.val)
}

// lowerCamel turns a SQL name (user_id, OrderID) into a Go parameter name
// (userID, orderID), escaping Go keywords.
func lowerCamel(s string) string {
	u := upperCamel(s)
	if u == "" {
		return "arg"
	}
	// Lower the leading run of capitals, keeping the last one of a run
	// followed by a lower-case letter ("IDName" -> "idName", "ID" -> "id").
	r := []rune(u)
	i := 0
	for i < len(r) && unicode.IsUpper(r[i]) {
		if i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) {
			break
		}
		r[i] = unicode.ToLower(r[i])
		i++
	}
	out := string(r)
	if gotoken.IsKeyword(out) {
		out += "_"
	}
	return out
}

// GoName turns a SQL name into an exported Go name: user_id → UserID,
// order_item_count → OrderItemCount, t_order → TOrder. Common initialisms
// (ID, URL, UUID, JSON ...) stay upper case; a leading digit gets a "C"
// prefix; a name with no letters or digits gives "". The planner names
// result fields with it and the generator names types, so both agree.
func GoName(s string) string { return upperCamel(s) }

// upperCamel is GoName.
func upperCamel(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if up := strings.ToUpper(part); initialisms[up] {
			b.WriteString(up)
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	out := b.String()
	if out != "" && unicode.IsDigit([]rune(out)[0]) {
		out = "C" + out
	}
	return out
}

var initialisms = map[string]bool{"ID": true, "URL": true, "UUID": true, "IP": true, "API": true, "JSON": true, "SQL": true, "HTTP": true, "UID": true}

// nameSet hands out distinct names: name, or name_2, name_3 ... when taken.
// The suffix is sqlc's (its Params fields read UserID, UserID_2 for
// `user_id IN (?, ?)`), so code moved from sqlc keeps its argument names.
// It remembers, per base name, the next suffix to try, so that n equal base
// names (a statement of 65,535 placeholders, all "arg") cost O(n), not the
// O(n²) of trying 2, 3, ... each time.
type nameSet struct {
	used map[string]bool
	next map[string]int // by base name: the smallest suffix not yet tried
}

// newNameSet returns a nameSet in which reserved are taken.
func newNameSet(reserved ...string) *nameSet {
	s := &nameSet{used: map[string]bool{}, next: map[string]int{}}
	for _, r := range reserved {
		s.used[r] = true
	}
	return s
}

// unique returns name, or name_2, name_3 ... (the first not taken), and
// marks it taken. Every suffix below next[name] is taken (used only grows),
// so starting there gives the same name as starting at 2.
func (s *nameSet) unique(name string) string {
	out := name
	n := max(s.next[name], 2)
	for s.used[out] {
		out = name + "_" + strconv.Itoa(n)
		n++
	}
	s.next[name] = n
	s.used[out] = true
	return out
}
