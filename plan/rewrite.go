package plan

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// token is one lexical token of the statement with its byte span.
type token struct {
	typ        int
	val        string
	start, end int
}

// tokens scans sql with the vitess tokenizer, recording each token's span.
// Identifiers keep their spelling; a back-quoted identifier's span includes
// the quotes.
func (p *planner) tokens(sql string) []token {
	tkn := p.b.parser.NewStringTokenizer(sql)
	var out []token
	for {
		typ, val := tkn.Scan()
		if typ == 0 || typ == sqlparser.LEX_ERROR {
			return out
		}
		end := tkn.Pos
		start := end - len(val)
		if typ == sqlparser.ID && end > 0 && end <= len(sql) && sql[end-1] == '`' {
			start = end - len(val) - 2
		}
		if start < 0 || !strings.EqualFold(unquote(sql[max(start, 0):end]), val) {
			start = -1 // not an identifier-like token whose text we can locate
		}
		out = append(out, token{typ: typ, val: val, start: start, end: end})
	}
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return s[1 : len(s)-1]
	}
	return s
}

// rewrite fills the SQL of every route unit: each logic table name becomes
// the unit's actual table (for the primary table and the tables bound to
// it), and a logic database qualifier is dropped. Everything else stays
// byte for byte as the user wrote it.
func (p *planner) rewrite() error {
	rt := p.plan.Route
	if rt.Kind == runtime.RouteBroadcast || rt.Kind == runtime.RouteSingleTable {
		sql, err := p.rewriteWith(map[string]string{})
		if err != nil {
			return err
		}
		for i := range rt.Units {
			rt.Units[i].SQL = sql
		}
		if p.q.Cmd == schema.CmdCopyFrom {
			p.plan.Insert = &InsertPlan{} // its one row, repeated per row at run time
			return p.splitInsert()
		}
		return nil
	}
	primary := p.tables[strings.ToLower(rt.LogicTable)]
	var bound []*tableInfo
	for _, r := range p.allRefs {
		if r.info.sharded() && r.info != primary && !containsInfo(bound, r.info) {
			bound = append(bound, r.info)
		}
	}
	nodes := primary.route.Nodes()
	rt.Units = make([]Unit, len(nodes))
	for i, n := range nodes {
		m := map[string]string{strings.ToLower(primary.name): n.Table}
		for _, b := range bound {
			bn := b.route.Nodes()
			if p.byDataSource[b] {
				// Its actual table on the unit's data source (the logic
				// name where it has none: such a unit fails its agreement).
				m[strings.ToLower(b.name)] = b.name
				for _, x := range bn {
					if x.DataSource == n.DataSource {
						m[strings.ToLower(b.name)] = x.Table
					}
				}
				continue
			}
			if len(bn) != len(nodes) {
				return p.errorf(-1, "binding tables %q and %q have different numbers of data nodes", primary.name, b.name)
			}
			m[strings.ToLower(b.name)] = bn[i].Table
		}
		sql, err := p.rewriteWith(m)
		if err != nil {
			return err
		}
		rt.Units[i] = Unit{DataSource: primary.route.DataSourceOf(i), Node: n.String(), SQL: sql}
	}
	if p.plan.Insert != nil {
		return p.splitInsert()
	}
	return nil
}

// splitInsert cuts every unit's INSERT into its head, rows and tail, and
// maps each row's placeholders to parameters.
func (p *planner) splitInsert() error {
	ip := p.plan.Insert
	orig := p.sql
	defer func() { p.sql = orig }()
	args := p.plan.Args
	if p.plan.NodeArgs != nil {
		// The per-node statement is printed from a rewritten AST (the
		// encrypted columns' derived values): its rows, and its
		// placeholders, which NodeArgs lists in order, are the text to cut.
		ip.ByNodeArgs = true
		p.sql = p.plan.Route.Units[0].SQL
		args = make([]int, len(p.plan.NodeArgs))
		for i := range args {
			args[i] = i
		}
	}
	base := p.sql
	spans, _ := p.insertSpans()
	if len(spans) == 0 {
		return p.errorf(-1, "cannot find the VALUES rows of the INSERT")
	}
	for _, sp := range spans {
		ip.Split.Rows = append(ip.Split.Rows, base[sp[0]:sp[1]])
	}
	ip.Split.Sep = ", " // one row (a :copyfrom): how its copies are joined
	if len(spans) > 1 {
		ip.Split.Sep = base[spans[0][1]:spans[1][0]]
	}
	for i := 1; i < len(spans); i++ {
		if base[spans[i-1][1]:spans[i][0]] != ip.Split.Sep {
			ip.Split.Sep = ", " // rows are separated by a comma and any spacing: normalise
		}
	}
	for _, u := range p.plan.Route.Units {
		p.sql = u.SQL
		us, _ := p.insertSpans()
		if len(us) != len(spans) {
			return p.errorf(-1, "internal error: the rewritten INSERT lost its rows")
		}
		ip.Split.Heads = append(ip.Split.Heads, u.SQL[:us[0][0]])
		ip.Split.Tails = append(ip.Split.Tails, u.SQL[us[len(us)-1][1]:])
	}
	p.sql = orig
	offs := make([]int, 0, 2*len(spans))
	for _, sp := range spans {
		offs = append(offs, sp[0], sp[1])
	}
	ord := placeholderCounts(base, offs) // one pass: a row per scan of the text was quadratic
	for i := range spans {
		var row []int
		for o := ord[2*i]; o < ord[2*i+1]; o++ {
			row = append(row, args[o])
		}
		ip.RowArgs = append(ip.RowArgs, row)
	}
	for o := ord[len(ord)-1]; o < len(args); o++ {
		ip.TailArgs = append(ip.TailArgs, args[o])
	}
	return nil
}

func containsInfo(list []*tableInfo, t *tableInfo) bool {
	for _, x := range list {
		if x == t {
			return true
		}
	}
	return false
}

// rewriteWith renames tables by m (lower-case logic name → actual name) and
// drops qualifiers naming the logic database. It works on tokens of the
// original text, then checks the result against the AST: when the number of
// renamed tokens differs from the table references the parser saw (a column
// spelled like a table, say), it falls back to renaming in the AST and
// printing it.
func (p *planner) rewriteWith(m map[string]string) (string, error) {
	if p.nodeStmt != nil || p.encStmt != nil || p.shadowing {
		return p.rewriteAST(m)
	}
	sql := p.sql
	toks := p.tokens(sql)
	want := p.countTableRefs(m)
	db := strings.ToLower(p.b.cfg.DatabaseName)
	var b strings.Builder
	last := 0
	renamed := 0
	for i, t := range toks {
		if t.start < 0 || t.typ == sqlparser.STRING {
			continue
		}
		lower := strings.ToLower(t.val)
		// A logic-database qualifier: `logic_db` `.` <table>.
		if lower == db && db != "" && i+2 < len(toks) && toks[i+1].typ == '.' && toks[i+2].start >= 0 && p.isLogicTable(toks[i+2].val) {
			b.WriteString(sql[last:t.start])
			last = toks[i+1].end
			continue
		}
		actual, ok := m[lower]
		if !ok {
			continue
		}
		if i > 0 && toks[i-1].typ == '.' && !(i > 1 && strings.EqualFold(toks[i-2].val, db)) {
			continue // `x.t_order`: a column named like the table, not a table
		}
		b.WriteString(sql[last:t.start])
		if sql[t.start] == '`' {
			b.WriteString("`" + actual + "`")
		} else {
			b.WriteString(actual)
		}
		last = t.end
		renamed++
	}
	b.WriteString(sql[last:])
	if renamed == want {
		return b.String(), nil
	}
	return p.rewriteAST(m)
}

func (p *planner) isLogicTable(name string) bool {
	_, ok := p.tables[strings.ToLower(name)]
	return ok
}

// countTableRefs counts the table references the AST holds whose name m
// renames (table expressions and column qualifiers).
func (p *planner) countTableRefs(m map[string]string) int {
	n := 0
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if t, ok := node.(sqlparser.TableName); ok {
			if _, hit := m[strings.ToLower(t.Name.String())]; hit && !t.Name.IsEmpty() {
				n++
			}
		}
		return true, nil
	}, p.stmt)
	return n
}

// rewriteAST renames tables in a copy of the AST and prints it with `?`
// placeholders. Used only when the token rewrite cannot be trusted.
func (p *planner) rewriteAST(m map[string]string) (string, error) {
	db := strings.ToLower(p.b.cfg.DatabaseName)
	src := p.stmt
	if p.nodeStmt != nil {
		src = p.nodeStmt
	}
	if p.encStmt != nil {
		src = p.encStmt
	}
	renameTable := func(t sqlparser.TableName) (sqlparser.TableName, bool) {
		changed := false
		if strings.ToLower(t.Qualifier.String()) == db && db != "" {
			t.Qualifier = sqlparser.NewIdentifierCS("")
			changed = true
		}
		if actual, hit := m[strings.ToLower(t.Name.String())]; hit {
			t.Name = sqlparser.NewIdentifierCS(actual)
			changed = true
		}
		return t, changed
	}
	stmt := sqlparser.Rewrite(sqlparser.Clone(src), func(c *sqlparser.Cursor) bool {
		switch n := c.Node().(type) {
		case *sqlparser.ColName:
			// A column qualifier: replace the whole column with a new node
			// (vitess's Clone shares *ColName nodes, so editing one in place
			// would leak into the source statement and every other unit).
			if n.Qualifier.Name.IsEmpty() {
				return false
			}
			if r := p.cols[n]; r != nil && r.ref.info.derived != nil {
				return false // a derived table's alias, spelled like a logic table
			}
			if t, changed := renameTable(n.Qualifier); changed {
				c.Replace(&sqlparser.ColName{Name: n.Name, Qualifier: t})
			}
			return false
		case sqlparser.TableName:
			if n.Name.IsEmpty() {
				return true
			}
			if t, changed := renameTable(n); changed {
				c.Replace(t)
			}
		}
		return true
	}, nil)
	var order []string
	buf := sqlparser.NewTrackedBuffer(func(buf *sqlparser.TrackedBuffer, n sqlparser.SQLNode) {
		if a, ok := n.(*sqlparser.Argument); ok {
			order = append(order, a.Name)
			buf.WriteString("?")
			return
		}
		n.Format(buf)
	})
	buf.Myprintf("%v", stmt)
	if p.nodeStmt != nil || p.encStmt != nil {
		if err := p.setNodeArgs(order); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	for i, name := range order {
		if name != "v"+strconv.Itoa(i+1) {
			return "", p.errorf(-1, "cannot rewrite the statement without reordering its parameters; please report this query")
		}
	}
	return buf.String(), nil
}

// setNodeArgs maps the placeholders of a printed per-node statement, in
// order, to parameters (and the computed LIMIT row count). Every unit
// prints the same placeholders; the first call sets Plan.NodeArgs.
func (p *planner) setNodeArgs(order []string) error {
	args := make([]NodeArg, 0, len(order))
	for _, name := range order {
		if name == limitArg {
			args = append(args, NodeArg{Param: -1, LimitSum: true})
			continue
		}
		if ea, ok := p.encArgs[name]; ok {
			args = append(args, NodeArg{Param: ea.param, Encrypt: ea.encrypt, Literal: ea.literal, Store: ea.store})
			continue
		}
		i := -1
		if strings.HasPrefix(name, "v") {
			if n, err := strconv.Atoi(name[1:]); err == nil {
				i = n - 1
			}
		}
		if i < 0 || i >= len(p.plan.Args) {
			return p.errorf(-1, "internal error: unknown placeholder %q in the per-node statement", name)
		}
		args = append(args, NodeArg{Param: p.plan.Args[i]})
	}
	if p.plan.NodeArgs == nil {
		p.plan.NodeArgs = args
	}
	return nil
}
