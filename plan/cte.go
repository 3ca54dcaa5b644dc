package plan

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// inlineCTEs rewrites a SELECT (or UNION) that starts with WITH into the
// same statement without it, each common table expression replaced by its
// derived table where the statement names it: `WITH o AS (SELECT …) SELECT
// … FROM o JOIN t …` becomes `SELECT … FROM (SELECT …) AS o JOIN t …`. MySQL
// evaluates a non-recursive common table expression that is referenced once
// exactly as that derived table (it merges or materializes both alike), so
// the statement means the same; it then runs wherever such a derived table
// runs. It applies when every expression is not recursive, has no column
// list, and is named once as a table of the statement after WITH (not by
// another expression, and not elsewhere as a word: a column or alias of the
// same name keeps the statement as it is), and when the placeholders keep
// their order (a ? written before the reference would come after the
// expression's own). The text is rewritten, not the AST, so the per-node
// statements keep the user's spelling; p.sql and p.shift follow it.
//
// It returns the statement to plan (stmt itself when nothing was inlined)
// and, when stmt has a WITH it leaves, why (for the refusal).
func (p *planner) inlineCTEs(stmt sqlparser.Statement) (sqlparser.Statement, string) {
	var with *sqlparser.With
	switch s := stmt.(type) {
	case *sqlparser.Select:
		with = s.With
	case *sqlparser.Union:
		with = s.With
	}
	if with == nil {
		return stmt, ""
	}
	if with.Recursive {
		return stmt, "WITH RECURSIVE is not supported"
	}
	names := map[string]int{} // lower-case name → index in with.CTEs
	for i, c := range with.CTEs {
		if len(c.Columns) > 0 {
			return stmt, fmt.Sprintf("%s names its columns (a column list, which MariaDB's derived tables do not take): alias them in its SELECT instead", c.ID.String())
		}
		names[strings.ToLower(c.ID.String())] = i
	}
	// References as tables: exactly one per expression, in the statement
	// after WITH; none inside the expressions, and no WITH nested anywhere.
	refs := make([]int, len(with.CTEs))
	aliased := make([]bool, len(with.CTEs))
	nested := false
	count := func(inMain bool) func(sqlparser.SQLNode) (bool, error) {
		return func(n sqlparser.SQLNode) (bool, error) {
			switch n := n.(type) {
			case *sqlparser.With:
				if n != with {
					nested = true
				}
			case *sqlparser.AliasedTableExpr:
				if tn, ok := n.Expr.(sqlparser.TableName); ok && tn.Qualifier.IsEmpty() {
					if i, ok := names[strings.ToLower(tn.Name.String())]; ok {
						if inMain {
							refs[i]++
							aliased[i] = !n.As.IsEmpty()
						} else {
							refs[i] += 2 // a reference from another expression is not inlined
						}
					}
				}
			}
			return true, nil
		}
	}
	for _, c := range with.CTEs {
		_ = sqlparser.Walk(count(false), c.Subquery)
	}
	main := sqlparser.Clone(stmt)
	switch s := main.(type) {
	case *sqlparser.Select:
		s.With = nil
	case *sqlparser.Union:
		s.With = nil
	}
	_ = sqlparser.Walk(count(true), main)
	if nested {
		return stmt, "a WITH inside a subquery is not inlined"
	}
	for i, n := range refs {
		if n != 1 {
			return stmt, fmt.Sprintf("%s is referenced %d times, or by another common table expression (one reference by the statement after WITH runs as a derived table)", with.CTEs[i].ID.String(), n)
		}
	}
	// The text: WITH name AS (body) [, name AS (body)]... main.
	toks := p.tokens(p.sql)
	starts := p.tokenStarts(toks)
	var code []int // indexes of toks without comments
	for i, t := range toks {
		if t.typ != sqlparser.COMMENT {
			code = append(code, i)
		}
	}
	bail := "its text could not be read back"
	k := 0
	next := func() (token, int, bool) {
		if k >= len(code) {
			return token{}, 0, false
		}
		i := code[k]
		k++
		return toks[i], starts[i], true
	}
	t, withStart, ok := next()
	if !ok || t.typ != sqlparser.WITH {
		return stmt, bail
	}
	bodies := make([]string, len(with.CTEs))
	bodyStart := make([]int, len(with.CTEs))
	for i := range with.CTEs {
		if t, _, ok := next(); !ok || !strings.EqualFold(t.val, with.CTEs[i].ID.String()) {
			return stmt, bail
		}
		if t, _, ok := next(); !ok || t.typ != sqlparser.AS {
			return stmt, bail
		}
		t, open, ok := next()
		if !ok || t.typ != '(' {
			return stmt, bail
		}
		depth := 1
		for depth > 0 {
			t, _, ok = next()
			if !ok {
				return stmt, bail
			}
			switch t.typ {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		bodies[i], bodyStart[i] = p.sql[open:t.end], open
		if i < len(with.CTEs)-1 {
			if t, _, ok := next(); !ok || t.typ != ',' {
				return stmt, bail
			}
		}
	}
	if k >= len(code) {
		return stmt, bail
	}
	mainStart := starts[code[k]]
	// Each expression's one reference: its name as an identifier not
	// qualified and qualifying nothing (o.col is a column of the derived
	// table, and stays).
	refAt := make([]int, len(with.CTEs))
	for i := range refAt {
		refAt[i] = -1
	}
	for j := k; j < len(code); j++ {
		t := toks[code[j]]
		i, ok := names[strings.ToLower(t.val)]
		// A name, plain or a non-reserved keyword (code, status), or
		// back-quoted; not a string.
		if at := starts[code[j]]; !ok || t.typ == sqlparser.STRING || t.typ == sqlparser.NCHAR_STRING ||
			at >= len(p.sql) || p.sql[at] != '`' && !isIdentByte(p.sql[at]) {
			continue
		}
		if j+1 < len(code) && toks[code[j+1]].typ == '.' || j > 0 && toks[code[j-1]].typ == '.' {
			continue
		}
		if refAt[i] >= 0 {
			return stmt, fmt.Sprintf("%s also names something else in the statement", with.CTEs[i].ID.String())
		}
		refAt[i] = code[j]
	}
	for i, at := range refAt {
		if at < 0 {
			return stmt, fmt.Sprintf("the reference to %s could not be found in its text", with.CTEs[i].ID.String())
		}
	}
	// The new text, with a map of its spans back to the old one's, and the
	// order of its placeholders.
	var b strings.Builder
	// New [from, to) comes from old [old, old+to-from), or is added
	// before old.
	type span struct {
		from, to, old int
		added         bool
	}
	var spans []span
	copyOld := func(from, to int) {
		spans = append(spans, span{from: b.Len(), to: b.Len() + to - from, old: from})
		b.WriteString(p.sql[from:to])
	}
	copyOld(0, withStart)
	last := mainStart
	var order []int // the old ordinal of each placeholder of the new text
	ordinal := func(from, to int) {
		n := 0
		for j, t := range toks {
			if t.typ == sqlparser.VALUE_ARG {
				if starts[j] >= from && starts[j] < to {
					order = append(order, n)
				}
				n++
			}
		}
	}
	for _, j := range refSorted(refAt) {
		i := names[strings.ToLower(toks[j].val)]
		ordinal(last, starts[j])
		copyOld(last, starts[j])
		ordinal(bodyStart[i], bodyStart[i]+len(bodies[i]))
		copyOld(bodyStart[i], bodyStart[i]+len(bodies[i]))
		if !aliased[i] {
			spans = append(spans, span{from: b.Len(), to: b.Len() + 4, old: starts[j], added: true})
			b.WriteString(" AS ")
			copyOld(starts[j], toks[j].end)
		}
		last = toks[j].end
	}
	ordinal(last, len(p.sql))
	copyOld(last, len(p.sql))
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			return stmt, "a placeholder (?) written before a reference would come after the common table expression's own"
		}
	}
	sql := b.String()
	out, err := p.b.parser.Parse(sql)
	if err != nil {
		return stmt, bail
	}
	prev, oldLen := p.shift, len(p.sql)
	p.shift = func(off int) int {
		old := oldLen
		for _, s := range spans {
			if off >= s.from && off < s.to {
				old = s.old
				if !s.added {
					old += off - s.from
				}
				break
			}
		}
		if prev != nil {
			return prev(old)
		}
		return old
	}
	p.sql, p.cteInlined = sql, true
	return out, ""
}

// cteRefusal is the error for a WITH that inlineCTEs left in the
// statement.
func (p *planner) cteRefusal() error {
	why := p.cteWhy
	if why == "" {
		why = "a WITH inside a subquery is not inlined"
	}
	return p.errorAt("WITH", "WITH (common table expressions) is not supported here: %s. A WITH at the start of a SELECT runs when its common table expressions are not recursive, name no columns and are each referenced once, as a table of the statement after WITH (each runs as that derived table); or write each one as a derived table where it is used, SELECT … FROM (SELECT …) AS name", why)
}

// refSorted returns the token indexes of refAt in text order.
func refSorted(refAt []int) []int {
	out := append([]int(nil), refAt...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
