package plan

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// UnionSteps is a UNION whose SELECTs do not co-locate, evaluated SELECT
// by SELECT: each part runs as a statement of its own (routed and merged),
// their rows are concatenated in order, the rows of the first Distinct
// parts deduplicated by the columns' comparisons (MySQL: a UNION DISTINCT
// removes the duplicates of every part to its left, the first row of a
// value class staying), then sorted (OrderBy), paginated and cut to the
// Visible columns.
type UnionSteps struct {
	// Parts are the SELECTs, in order; each returns the Visible columns,
	// then the server sort keys its text keys need (Kinds[i].Weight).
	Parts []*UnionPart `json:"parts"`
	// Distinct is the number of leading parts deduplicated together; 0
	// for UNION ALL throughout.
	Distinct int                  `json:"distinct,omitempty"`
	Visible  int                  `json:"visible"`
	Kinds    []runtime.ColumnKind `json:"kinds"`
	OrderBy  []runtime.SortKey    `json:"order_by,omitempty"`
	// Offset and Count paginate the result; Count -1: no LIMIT.
	Offset int64 `json:"offset,omitempty"`
	Count  int64 `json:"count"`
	// LimitArgs are as JoinSteps.LimitArgs.
	LimitArgs []int `json:"limit_args,omitempty"`
}

// UnionPart is one SELECT of a UnionSteps.
type UnionPart struct {
	SQL string `json:"sql"`

	sel sqlparser.TableStatement
}

// LimitedSQL is the part's SQL reading at most n rows when it is a SELECT
// without a LIMIT of its own.
func (u *UnionPart) LimitedSQL(n int) string {
	return (&Subquery{SQL: u.SQL, sel: u.sel}).LimitedSQL(n)
}

// unionPart is a part while the union is planned.
type unionPart struct {
	sel   sqlparser.TableStatement
	exprs []sqlparser.Expr // visible expressions (nil for a nested UNION)
	names []string
	kinds []mergeKind
	cols  []*colRef // the column of a plain column expression, else nil
}

// flattenUnion lists the parts of a UNION left to right, with for each
// boundary whether it is DISTINCT; a parenthesized UNION with its own ORDER
// BY or LIMIT is one part.
func flattenUnion(u *sqlparser.Union) (parts []sqlparser.TableStatement, distinct []bool) {
	var walk func(ts sqlparser.TableStatement, top bool)
	walk = func(ts sqlparser.TableStatement, top bool) {
		if x, ok := ts.(*sqlparser.Union); ok && (top || len(x.OrderBy) == 0 && x.Limit == nil) {
			walk(x.Left, false)
			distinct = append(distinct, x.Distinct)
			walk(x.Right, false)
			return
		}
		parts = append(parts, ts)
	}
	walk(u, true)
	return parts, distinct
}

// unionSteps plans a UNION of SELECTs (see UnionSteps).
func (b *Builder) unionSteps(sql string) (*UnionSteps, error) {
	pos := schema.Pos{File: AdHocFile, Line: 1, Col: 1}
	p := &planner{b: b, tables: b.tables(), q: &schema.Query{Name: "proxy", Cmd: schema.CmdMany, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos}}
	if err := p.bindStatement(); err != nil {
		return nil, joinRefusal("%v", err)
	}
	u, ok := p.stmt.(*sqlparser.Union)
	switch {
	case !ok:
		return nil, joinRefusal("not a UNION")
	case strings.Contains(p.sql, "?") && !p.stepParams():
		return nil, joinRefusal("a UNION across data nodes with placeholders (?) is not evaluated")
	case u.With != nil || u.Into != nil || u.Lock != sqlparser.NoLock:
		return nil, joinRefusal("WITH, INTO and locking reads are not evaluated across data nodes")
	}
	sels, distinct := flattenUnion(u)
	us := &UnionSteps{}
	for i, d := range distinct {
		if d {
			us.Distinct = i + 2
		}
	}
	parts := make([]*unionPart, len(sels))
	for i, ts := range sels {
		up := &unionPart{sel: ts}
		parts[i] = up
		sel, ok := ts.(*sqlparser.Select)
		if !ok {
			continue
		}
		if hasWindow(sel) {
			return nil, joinRefusal("window functions are not evaluated across data nodes")
		}
		for _, se := range sel.SelectExprs.Exprs {
			switch se := se.(type) {
			case *sqlparser.StarExpr:
				sc := p.scopes[sel]
				if sc == nil {
					return nil, joinRefusal("SELECT * of a UNION part")
				}
				for _, r := range sc.refs {
					for _, c := range starColumns(se, r) {
						up.exprs = append(up.exprs, c.expr)
						up.names = append(up.names, c.col.col.Name)
						up.kinds = append(up.kinds, p.columnKind(r.info, c.col.col))
						up.cols = append(up.cols, c.col)
					}
				}
			case *sqlparser.AliasedExpr:
				name := se.As.String()
				if cn, ok := se.Expr.(*sqlparser.ColName); ok && name == "" {
					name = cn.Name.String()
				}
				var cr *colRef
				if cn, ok := se.Expr.(*sqlparser.ColName); ok {
					cr = p.cols[cn]
				}
				up.exprs = append(up.exprs, se.Expr)
				up.names = append(up.names, name)
				up.kinds = append(up.kinds, p.exprKind(se.Expr))
				up.cols = append(up.cols, cr)
			}
		}
	}
	// The column kinds: one per column for every part alike.
	first := parts[0]
	if first.exprs == nil {
		return nil, joinRefusal("the first part of a UNION across data nodes must be a SELECT")
	}
	us.Visible = len(first.exprs)
	for _, up := range parts[1:] {
		if up.exprs == nil {
			continue
		}
		if len(up.exprs) != us.Visible {
			return nil, joinRefusal("the SELECTs of the UNION have different numbers of columns")
		}
		for c := range up.exprs {
			if err := sameUnionKind(first, up, c); err != nil {
				return nil, err
			}
		}
	}
	// Keys: every column when deduplicating, and the ORDER BY columns.
	keys := make([]bool, us.Visible)
	if us.Distinct > 0 {
		for i := range keys {
			keys[i] = true
		}
	}
	for _, o := range u.OrderBy {
		col := -1
		switch e := o.Expr.(type) {
		case *sqlparser.Literal:
			if n, err := strconv.Atoi(e.Val); err == nil && e.Type == sqlparser.IntVal && n >= 1 && n <= us.Visible {
				col = n - 1
			}
		case *sqlparser.ColName:
			for i, name := range first.names {
				if e.Qualifier.IsEmpty() && strings.EqualFold(name, e.Name.String()) {
					col = i
					break
				}
			}
		}
		if col < 0 {
			return nil, joinRefusal("ORDER BY %s of a UNION across data nodes must name a result column or its position", sqlparser.String(o.Expr))
		}
		if first.kinds[col].Type == "" {
			return nil, joinRefusal("ORDER BY %s: the type of the column is not known, so its values cannot be compared as MySQL does", sqlparser.String(o.Expr))
		}
		keys[col] = true
		us.OrderBy = append(us.OrderBy, runtime.SortKey{Column: col, Desc: o.Direction == sqlparser.DescOrder})
	}
	kinds := append([]mergeKind(nil), first.kinds...)
	var weighed []int
	for c, key := range keys {
		k := &kinds[c]
		if !key {
			continue
		}
		if k.Type == "" {
			return nil, joinRefusal("column %d of the UNION: its type is not known, so duplicates cannot be found as MySQL finds them", c+1)
		}
		if k.Type != "string" {
			continue
		}
		if c, err := runtime.ParseCollation(k.Collation); err == nil && (!b.weighText || c == runtime.CollationBinary) {
			continue
		}
		if k.Collation != "" {
			if err := runtime.WeightCollationError(k.Collation); err != nil {
				return nil, joinRefusal("column %d of the UNION: %v", c+1, err)
			}
		}
		k.Weight = len(kinds)
		kinds = append(kinds, mergeKind{Type: "bytes"}, mergeKind{Type: "bytes"})
		weighed = append(weighed, c)
	}
	us.Kinds = columnKinds(kinds, 0)
	for _, up := range parts {
		part := &UnionPart{SQL: sqlparser.String(up.sel), sel: up.sel}
		if len(weighed) > 0 {
			sel, ok := up.sel.(*sqlparser.Select)
			if !ok {
				return nil, joinRefusal("a parenthesized UNION inside a UNION across data nodes whose text columns need the servers' sort keys")
			}
			c := sqlparser.Clone(sel)
			var exprs []sqlparser.SelectExpr
			if len(sel.SelectExprs.Exprs) == len(up.exprs) {
				exprs = append(exprs, c.SelectExprs.Exprs...)
			} else { // a * expanded
				for _, e := range up.exprs {
					exprs = append(exprs, &sqlparser.AliasedExpr{Expr: sqlparser.Clone(e)})
				}
			}
			for n, col := range weighed {
				w, pad := weightExprs(up.exprs[col])
				exprs = append(exprs,
					&sqlparser.AliasedExpr{Expr: w, As: sqlparser.NewIdentifierCI("WEIGHT_STRING_DERIVED_" + strconv.Itoa(n))},
					&sqlparser.AliasedExpr{Expr: pad, As: sqlparser.NewIdentifierCI("WEIGHT_PAD_DERIVED_" + strconv.Itoa(n))})
			}
			c.SelectExprs = &sqlparser.SelectExprs{Exprs: exprs}
			part = &UnionPart{SQL: sqlparser.String(c), sel: c}
		}
		if len(p.names) > 0 {
			part.SQL = p.stepArguments(part.sel)
		}
		us.Parts = append(us.Parts, part)
	}
	var err error
	if us.Offset, us.Count, us.LimitArgs, err = p.stepsLimit(u.Limit); err != nil {
		return nil, err
	}
	return us, nil
}

// sameUnionKind refuses column c of two UNION parts whose values MySQL
// would convert to a common type (changing their text, e.g. an INT
// printed as DECIMAL 5.00) or compare under a collation other than each
// part's own.
func sameUnionKind(a, b *unionPart, c int) error {
	ka, kb := a.kinds[c], b.kinds[c]
	ca, cb := a.cols[c], b.cols[c]
	refuse := func() error {
		return joinRefusal("column %d of the UNION has different types in its SELECTs (%s and %s), which MySQL converts to a common type; evaluating the UNION across data nodes needs one type", c+1, sqlparser.String(a.exprs[c]), sqlparser.String(b.exprs[c]))
	}
	if ka.Type == "" || ka.Type != kb.Type || ka.Collation != kb.Collation {
		return refuse()
	}
	switch ka.Type {
	case "int", "uint", "bytes":
		return nil
	case "string":
		if ka.Collation != "" {
			return nil
		}
		if ca != nil && cb != nil {
			c1, s1 := effectiveCollation(ca)
			c2, s2 := effectiveCollation(cb)
			if strings.EqualFold(c1, c2) && strings.EqualFold(s1, s2) {
				return nil
			}
		}
		_, la := a.exprs[c].(*sqlparser.Literal)
		_, lb := b.exprs[c].(*sqlparser.Literal)
		if la && lb {
			return nil
		}
		return refuse()
	}
	// DECIMAL, DOUBLE, temporal: the same declared type, so the text of
	// the values does not change.
	if ca == nil || cb == nil || !strings.EqualFold(ca.col.Type, cb.col.Type) || !sameIntPtr(ca.col.Scale, cb.col.Scale) || !sameIntPtr(ca.col.Length, cb.col.Length) {
		return refuse()
	}
	return nil
}

// sameIntPtr reports whether two optional integers are equal.
func sameIntPtr(a, b *int) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
