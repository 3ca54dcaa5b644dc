package plan

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// keyGenerate handles an INSERT that omits the column of the table's
// keyGenerateStrategy: like ShardingSphere, it appends the column to the
// column list and a value to the row. Here the value is a `?` bound to a
// hidden parameter that the generated function fills from the key generator
// per call. The statement is re-parsed from the extended text.
func (p *planner) keyGenerate() error {
	ins, ok := p.stmt.(*sqlparser.Insert)
	if !ok || len(p.refs) != 1 {
		return nil
	}
	info := p.refs[0].info
	if info.rule == nil || info.rule.KeyGenerate == nil || len(ins.Columns) == 0 {
		return nil
	}
	kg := info.rule.KeyGenerate
	for _, c := range ins.Columns {
		if strings.EqualFold(c.String(), kg.Column) {
			return nil // the statement supplies the key itself
		}
	}
	rows, ok := ins.Rows.(sqlparser.Values)
	for _, row := range rows {
		if len(row) != len(ins.Columns) {
			return nil // refused with the counts as written (checkParams)
		}
	}
	if !ok {
		return p.errorf(p.findWord("SELECT"), "INSERT … SELECT into %q must list its generated key column %q and select its value: a key generated per row cannot be added to a SELECT", info.name, kg.Column)
	}
	spans, colClose := p.insertSpans()
	if colClose < 0 || len(spans) == 0 {
		return p.errorf(-1, "cannot find where to add generated key column %q; list it in the INSERT", kg.Column)
	}
	// Insert ", col" after the column list and ", ?" at the end of every
	// row, back to front so earlier offsets stay valid.
	// Insert ", col" after the column list and ", ?" before every row's
	// ')', in one pass (the column list comes before the rows).
	var b strings.Builder
	b.Grow(len(p.sql) + len(kg.Column) + 2 + 3*len(spans))
	b.WriteString(p.sql[:colClose])
	b.WriteString(", " + kg.Column)
	added := []insertion{{at: colClose, n: len(kg.Column) + 2}}
	last := colClose
	for _, sp := range spans {
		end := sp[1] - 1 // the row's ')'
		b.WriteString(p.sql[last:end])
		b.WriteString(", ?")
		added = append(added, insertion{at: end, n: 3})
		last = end
	}
	b.WriteString(p.sql[last:])
	sql := b.String()
	stmt, err := p.b.parser.Parse(sql)
	if err != nil {
		return p.errorf(-1, "adding generated key column %q: %v", kg.Column, err)
	}
	// The key placeholder of row r is the last one of that row.
	newSpans := func() [][2]int { p.sql = sql; s, _ := p.insertSpans(); return s }()
	ends := make([]int, len(newSpans))
	for i, sp := range newSpans {
		ends[i] = sp[1]
	}
	ordinals := placeholderCounts(sql, ends)
	for i := range ordinals {
		ordinals[i]--
	}
	p.sql, p.stmt = sql, stmt
	p.plan.LogicSQL = sql
	for _, o := range ordinals {
		p.names = append(p.names[:o], append([]string{""}, p.names[o:]...)...)
		p.nulls = append(p.nulls[:o], append([]bool{false}, p.nulls[o:]...)...)
		p.slices = append(p.slices[:o], append([]bool{false}, p.slices[o:]...)...)
	}
	p.keyArgs = ordinals
	// Errors found from here on point into the original text: an offset
	// of the new statement moves back over what was added before it.
	prev := p.shift
	p.shift = func(off int) int {
		cum := 0 // bytes added before off
		for _, a := range added {
			pos := a.at + cum // where a starts in the new text
			if off < pos {
				break
			}
			if off < pos+a.n {
				cum = off - a.at // inside the added text: its place
				break
			}
			cum += a.n
		}
		if prev != nil {
			return prev(off - cum)
		}
		return off - cum
	}
	p.plan.KeyGenerate = &KeyGenerate{Column: kg.Column, Generator: kg.GeneratorName}
	if kg.Generator != nil {
		p.plan.KeyGenerate.Type = kg.Generator.Type
		p.plan.KeyGenerate.Props = kg.Generator.Props
	}
	p.refs, p.ons, p.routeOns = nil, nil, nil
	return p.collectTables()
}

// insertSpans returns the byte spans [start, end) of every VALUES row of
// the INSERT in p.sql, and the offset of the column list's closing ')' (-1
// when there is no column list).
func (p *planner) insertSpans() (rows [][2]int, colClose int) {
	colClose = -1
	depth := 0
	inValues := false
	rowStart := -1
	for _, t := range p.tokens(p.sql) {
		switch {
		case t.typ == '(':
			depth++
			if inValues && depth == 1 {
				rowStart = t.end - 1
			}
		case t.typ == ')':
			depth--
			if depth == 0 && !inValues && colClose < 0 {
				colClose = t.end - 1
			}
			if depth == 0 && inValues && rowStart >= 0 {
				rows = append(rows, [2]int{rowStart, t.end})
				rowStart = -1
			}
		case depth == 0 && (strings.EqualFold(t.val, "values") || strings.EqualFold(t.val, "value")) && t.typ != sqlparser.STRING:
			inValues = true
		case depth == 0 && inValues && t.typ != ',':
			if len(rows) > 0 { // the row list ended (ON DUPLICATE KEY UPDATE ...)
				return rows, colClose
			}
		}
	}
	return rows, colClose
}

// placeholderCounts returns, for each offset of offs (ascending), the
// number of `?` placeholders in s[:off] outside quoted strings and quoted
// identifiers, in one pass over s.
func placeholderCounts(s string, offs []int) []int {
	out := make([]int, len(offs))
	n, i := 0, 0
	for k, off := range offs {
		for i < off {
			switch s[i] {
			case '\'', '"', '`':
				i = skipQuoted(s, i)
				continue
			case '?':
				n++
			}
			i++
		}
		out[k] = n
	}
	return out
}

// insertion is text added to a statement: n bytes at offset at of the
// text it was added to.
type insertion struct{ at, n int }
