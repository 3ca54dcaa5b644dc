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
	rows, _ := ins.Rows.(sqlparser.Values)
	if len(rows) != 1 {
		return nil // refused later with the multi-row reason
	}
	toks := p.tokens(p.sql)
	colClose, rowClose := -1, -1
	depth, stage := 0, 0 // stage 0: before the column list, 1: in it, 2: before the row, 3: in the row
	for _, t := range toks {
		switch {
		case t.typ == '(':
			depth++
			if stage == 0 && depth == 1 {
				stage = 1
			} else if stage == 2 && depth == 1 {
				stage = 3
			}
		case t.typ == ')':
			depth--
			if depth == 0 && stage == 1 {
				colClose, stage = t.end-1, 2
			} else if depth == 0 && stage == 3 {
				rowClose, stage = t.end-1, 4
			}
		}
		if stage == 4 {
			break
		}
	}
	if colClose < 0 || rowClose < 0 {
		return p.errorf(-1, "cannot find where to add generated key column %q; list it in the INSERT", kg.Column)
	}
	ordinal := strings.Count(stripQuotedForCount(p.sql[:rowClose]), "?")
	sql := p.sql[:colClose] + ", " + kg.Column + p.sql[colClose:rowClose] + ", ?" + p.sql[rowClose:]
	stmt, err := p.b.parser.Parse(sql)
	if err != nil {
		return p.errorf(-1, "adding generated key column %q: %v", kg.Column, err)
	}
	p.sql, p.stmt = sql, stmt
	p.plan.LogicSQL = sql
	p.names = append(p.names[:ordinal], append([]string{""}, p.names[ordinal:]...)...)
	p.nulls = append(p.nulls[:ordinal], append([]bool{false}, p.nulls[ordinal:]...)...)
	p.keyArg = ordinal
	p.shift = nil
	p.plan.KeyGenerate = &KeyGenerate{Column: kg.Column, Generator: kg.GeneratorName}
	if kg.Generator != nil {
		p.plan.KeyGenerate.Type = kg.Generator.Type
		p.plan.KeyGenerate.Props = kg.Generator.Props
	}
	p.refs, p.ons, p.routeOns = nil, nil, nil
	return p.collectTables()
}

// stripQuotedForCount blanks quoted strings so `?` inside them do not count.
func stripQuotedForCount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\'' || c == '"' || c == '`' {
			i = skipQuoted(s, i) - 1
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
