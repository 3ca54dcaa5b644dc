package plan

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// weighCollation returns the collation a comparison of operands (in a
// HAVING condition or an expression over merged aggregates) compares
// text in, when the merge must compare it by the data nodes' sort keys:
// every operand is text, one is no literal, and its collation (named by
// the DDL) is one the merge does not compare in process but whose
// WEIGHT_STRING is exact (utf8mb4_unicode_ci, latin1_swedish_ci,
// utf8mb4_uca1400_ai_ci, ...). ok is false otherwise (collation then
// decides).
func (x *exprBuilder) weighCollation(operands ...sqlparser.Expr) (coll string, ok bool) {
	for _, o := range operands {
		k := x.kind(o)
		if k.Type != "string" {
			return "", false
		}
		if _, lit := o.(*sqlparser.Literal); lit || coll != "" {
			continue
		}
		coll = k.Collation
	}
	if coll == "" {
		return "", false
	}
	if _, err := runtime.ParseCollation(coll); err == nil && !x.p.weighText() {
		return "", false
	}
	return coll, runtime.WeightCollationError(coll) == nil
}

// weighed builds the comparison o (or ExprIn) of operands in collation
// coll (weighCollation) as MariaDB compares them, by sort keys
// (runtime.Expr.Pad): a text literal becomes a column the data nodes
// compute, its weight in coll,
//
//	WEIGHT_STRING(CONVERT('ÄBC' USING utf8mb4) COLLATE utf8mb4_unicode_ci) AS WEIGHT_LITERAL_DERIVED_0
//
// (the conversion MariaDB makes of a literal compared with a column of
// coll); any other operand must be a merged column (a GROUP BY column,
// MIN or MAX, a column of the groups), which gets its WEIGHT_STRING and
// pad columns (addWeightStrings) that resolveWeighed puts in its place.
// A literal the column's character set cannot hold is refused: MariaDB
// refuses that comparison (illegal mix of collations).
func (x *exprBuilder) weighed(e sqlparser.Expr, o runtime.ExprOp, coll string, operands ...sqlparser.Expr) (runtime.Expr, error) {
	out := runtime.Expr{Op: o, Pad: -1}
	charset, _, _ := strings.Cut(coll, "_")
	for _, a := range operands {
		if l, ok := a.(*sqlparser.Literal); ok {
			if !charsetHolds(charset, l.Val) {
				return out, x.refuse(e, "(the literal "+sqlparser.String(l)+" has characters the "+charset+" column cannot hold, which MariaDB refuses as an illegal mix of collations)")
			}
			w := &sqlparser.WeightStringFuncExpr{Expr: &sqlparser.CollateExpr{
				Expr:      &sqlparser.ConvertUsingExpr{Expr: sqlparser.NewStrLiteral(l.Val), Type: charset},
				Collation: coll,
			}}
			i := x.derived("WEIGHT_LITERAL_DERIVED", w, mergeKind{Type: "bytes"})
			out.Args = append(out.Args, runtime.Expr{Op: runtime.ExprColumn, Column: i})
			continue
		}
		r, err := x.build(a)
		if err != nil {
			return out, err
		}
		if r.Op == runtime.ExprCoalesce {
			return out, x.refuse(e, "(IFNULL / COALESCE of text in collation "+coll+", which the merge compares only by the data nodes' sort keys, WEIGHT_STRING, of a GROUP BY column, MIN, MAX or a text literal; compare each argument instead, e.g. MAX(x) = 'b' OR MAX(x) IS NULL AND 'a' = 'b' for IFNULL(MAX(x), 'a') = 'b')")
		}
		if r.Op != runtime.ExprColumn {
			return out, x.refuse(e, "(it compares text in collation "+coll+", which the merge compares only by the data nodes' sort keys, WEIGHT_STRING, of a GROUP BY column, MIN, MAX or a text literal; compare one of those instead)")
		}
		x.m.weighed = append(x.m.weighed, r.Column)
		out.Args = append(out.Args, r)
	}
	return out, nil
}

// charsetHolds reports whether every character of the UTF-8 text s is one
// of character set cs: the utf8 ones hold all, latin1 (MariaDB's, which
// is cp1252) what runtime.Latin1Has says; other character sets
// only ASCII, conservatively.
func charsetHolds(cs, s string) bool {
	if strings.HasPrefix(cs, "utf8") {
		return true
	}
	for _, r := range s {
		if r < 0x80 || cs == "latin1" && runtime.Latin1Has(r) {
			continue
		}
		return false
	}
	return true
}

// latin1Lossy returns the UTF-8 text s as MariaDB converts it to latin1
// (and back, as a client receives it): each character latin1 lacks
// becomes one '?' (GROUP_CONCAT's SEPARATOR over latin1 text: '、😀→€'
// is '???€').
func latin1Lossy(s string) string {
	return strings.Map(func(r rune) rune {
		if runtime.Latin1Has(r) {
			return r
		}
		return '?'
	}, s)
}

// resolveWeighed replaces, in every comparison by sort keys of m's
// HAVING and computed columns (weighed), each text column by its
// WEIGHT_STRING column and sets Pad to the first one's pad column, once
// addWeightStrings has added them.
func (p *planner) resolveWeighed(m *mergeDraft) error {
	var walk func(e *runtime.Expr) error
	walk = func(e *runtime.Expr) error {
		for i := range e.Args {
			if err := walk(&e.Args[i]); err != nil {
				return err
			}
		}
		if e.Pad >= 0 {
			return nil
		}
		e.Pad = 0
		for i := range e.Args {
			a := &e.Args[i]
			if a.Op != runtime.ExprColumn || m.Kinds[a.Column].Type == "bytes" {
				continue // a literal's weight
			}
			w := m.Kinds[a.Column].Weight
			if w == 0 {
				return p.errorf(-1, "internal error: merged column %d has no WEIGHT_STRING to compare by", a.Column)
			}
			a.Column = w
			if e.Pad == 0 {
				e.Pad = w + 1
			}
		}
		if e.Pad == 0 {
			return p.errorf(-1, "internal error: a comparison by sort keys compares no column")
		}
		return nil
	}
	if m.Having != nil {
		if err := walk(m.Having); err != nil {
			return err
		}
	}
	for i := range m.Computed {
		if err := walk(&m.Computed[i].Expr); err != nil {
			return err
		}
	}
	return nil
}

// kind is the kind of operand o of a comparison: in HAVING, an
// unqualified name of a select-list alias is that column's (as build
// resolves it), else exprKind's.
func (x *exprBuilder) kind(o sqlparser.Expr) mergeKind {
	if c, ok := o.(*sqlparser.ColName); ok && x.having && c.Qualifier.IsEmpty() {
		for _, col := range (*x.cols)[:x.m.Visible] {
			if col.alias != "" && strings.EqualFold(col.alias, c.Name.String()) {
				return col.kind
			}
		}
	}
	return x.p.exprKind(o)
}
