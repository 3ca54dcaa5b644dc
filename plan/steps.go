package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// StepsKind says how a statement that no single route can run is
// evaluated across data nodes.
type StepsKind uint8

const (
	// StepsSubqueries evaluates the statement's uncorrelated subqueries
	// first, each a statement of its own, binds their rows into the
	// statement as literal values (Steps.Bind) and then runs the bound
	// statement, which those values may route.
	StepsSubqueries StepsKind = iota + 1
	// StepsJoin is a nested-loop join of table references that do not
	// co-locate (Steps.Join): the last one joined to the join of the others.
	StepsJoin
	// StepsUnion runs each SELECT of a UNION on its own and concatenates
	// (UNION ALL) or deduplicates (UNION) their rows (Steps.Union).
	StepsUnion
	// StepsFederation loads the rows of every table of the statement into
	// temporary tables of one connection and runs it there
	// (Steps.Federation): derived tables, correlated subqueries, HAVING
	// over a join and the other shapes the kinds above refuse.
	StepsFederation
)

var stepsNames = [...]string{"", "subqueries", "join", "union", "federation"}

// String returns the kind's name, e.g. "subqueries".
func (k StepsKind) String() string { return stepsNames[k] }

// MarshalJSON encodes the kind as its name.
func (k StepsKind) MarshalJSON() ([]byte, error) { return []byte(`"` + k.String() + `"`), nil }

// SubqueryKind is how the value of a subquery is used.
type SubqueryKind uint8

const (
	// SubqueryIn is the right side of IN, NOT IN or = ANY: a list of
	// values (rows of values for a row constructor on the left).
	SubqueryIn SubqueryKind = iota + 1
	// SubqueryExists is the operand of EXISTS: TRUE when it has a row.
	SubqueryExists
	// SubqueryScalar is any other subquery: one value, NULL when it has no
	// row, MySQL's error 1242 when it has more than one.
	SubqueryScalar
)

// subqueryQuantified marks a comparison with ANY or ALL other than
// = ANY and <> ALL, which are not evaluated in steps.
const subqueryQuantified SubqueryKind = 4

// SubqueryLookup is a correlated scalar subquery of one aggregate,
// decorrelated: its SQL groups the aggregate by the inner columns the
// subquery compares with the outer query's, and its rows are bound as a
// derived table the outer values are looked up in (steps_lookup.go).
const SubqueryLookup SubqueryKind = 5

var subqueryNames = [...]string{"", "in", "exists", "scalar", "quantified", "lookup"}

// String returns the kind's name, e.g. "in".
func (k SubqueryKind) String() string { return subqueryNames[k] }

// MarshalJSON encodes the kind as its name.
func (k SubqueryKind) MarshalJSON() ([]byte, error) { return []byte(`"` + k.String() + `"`), nil }

// Steps is a SELECT that no single route can run (its tables do not
// co-locate: the planner refused it with ErrCrossNode's reason), split into
// statements that can each be planned and run on their own, with MySQL's
// semantics kept across the steps. It is what `explain` and PREVIEW show
// and what the proxy interprets (the bound statement is planned at run
// time, from the values of the earlier steps).
type Steps struct {
	Kind StepsKind `json:"kind"`
	// SQL is the statement as written.
	SQL string `json:"sql"`
	// Subqueries are the uncorrelated subqueries of SQL, outermost first
	// in statement order (StepsSubqueries); each runs as its own statement.
	Subqueries []*Subquery `json:"subqueries,omitempty"`
	// Join is the nested-loop join (StepsJoin).
	Join *JoinSteps `json:"join,omitempty"`
	// Union is the UNION (StepsUnion).
	Union *UnionSteps `json:"union,omitempty"`
	// Federation is the statement over temporary tables (StepsFederation).
	Federation *FederationSteps `json:"federation,omitempty"`

	stmt sqlparser.Statement // the parsed SQL, never changed
	b    *Builder
	// keys are the key columns a write of LimitedWriteSteps selects.
	keys []string
	// federatedBy is why the other kinds refused the statement
	// (StepsFederation).
	federatedBy error
}

// Subquery is one uncorrelated subquery of a StepsSubqueries statement.
type Subquery struct {
	Kind SubqueryKind `json:"kind"`
	// SQL is the subquery as a statement of its own. For EXISTS it reads
	// one row at most (LIMIT 1 added when it has no LIMIT).
	SQL string `json:"sql"`

	sel    sqlparser.TableStatement
	lookup *lookupSpec // SubqueryLookup
	// extreme, for a scalar MIN(col) or MAX(col) of a text column, is the
	// same value as a SELECT of col (extremeSelect), which HexSQL can read
	// the HEX of; texts are then col's.
	extreme *sqlparser.Select
	// texts are the character set and collation of each result column
	// that is a plain text column of the DDL (zero where unknown): a
	// value of it is bound as text of that character set and collation,
	// so the statement compares it as it compared the column.
	texts []boundText
}

// boundText is the character set and collation of a subquery's text
// column; text is set when the DDL's column type is text (CHAR, VARCHAR,
// TEXT, ENUM, SET: the others take the table's character set too).
type boundText struct {
	charset, collation string
	text               bool
}

// textColumnTypes are the DDL's column types that hold text.
var textColumnTypes = map[string]bool{
	"char": true, "varchar": true, "tinytext": true, "text": true, "mediumtext": true, "longtext": true, "enum": true, "set": true,
}

// defaultCollations are MariaDB's default collations of the character
// sets a text column is commonly declared in.
var defaultCollations = map[string]string{
	"latin1": "latin1_swedish_ci", "utf8mb4": "utf8mb4_general_ci", "utf8mb3": "utf8mb3_general_ci", "utf8": "utf8mb3_general_ci",
	"ascii": "ascii_general_ci", "latin2": "latin2_general_ci", "cp1251": "cp1251_general_ci", "ucs2": "ucs2_general_ci",
}

// subqueryTexts returns the character set and collation of each result
// column of the subquery sq that is a plain text column whose DDL (or
// table) names them; nil when sq does not plan on its own.
func (b *Builder) subqueryTexts(sq *sqlparser.Subquery) []boundText {
	pos := schema.Pos{File: AdHocFile, Line: 1, Col: 1}
	p, err := b.Build(&schema.Query{Name: "subquery", Cmd: schema.CmdMany, SQL: sqlparser.String(sq.Select), AllowFullRoute: true, Pos: pos, SQLPos: pos})
	if err != nil {
		return nil
	}
	out := make([]boundText, len(p.Columns))
	for i, c := range p.Columns {
		tname, cname, ok := strings.Cut(c.Origin, ".")
		info := b.tables()[strings.ToLower(tname)]
		if !ok || info == nil || info.encrypted(cname) || info.derived != nil || info.ddl == nil {
			continue
		}
		out[i], _ = columnText(info, cname)
	}
	return out
}

// encrypted reports whether cname is an encrypted logic column of the
// table (its text is the encryptor's, not the DDL column's).
func (info *tableInfo) encrypted(cname string) bool {
	return info.enc != nil && info.enc.columns[strings.ToLower(cname)] != nil
}

// columnText returns the character set and collation of column cname of
// the table info as its DDL (or its table's) names them; ok is false when
// the column is not known.
func columnText(info *tableInfo, cname string) (t boundText, ok bool) {
	col := info.ddl.Column(cname)
	if col == nil {
		return boundText{}, false
	}
	cs, coll := strings.ToLower(col.Charset), strings.ToLower(col.Collation)
	if cs == "" && coll == "" {
		cs, coll = strings.ToLower(info.ddl.Charset), strings.ToLower(info.ddl.Collation)
	}
	if cs == "" && coll != "" {
		cs, _, _ = strings.Cut(coll, "_")
	}
	if coll == "" {
		coll = defaultCollations[cs]
	}
	if cs == "utf8" {
		cs = "utf8mb3"
	}
	coll = strings.Replace(coll, "utf8_", "utf8mb3_", 1)
	if cs != "" && coll != "" && strings.HasPrefix(coll, cs+"_") {
		t = boundText{charset: cs, collation: coll, text: textColumnTypes[strings.ToLower(col.Type)]}
	}
	return t, true
}

// compareTexts makes each text column of a subquery whose values are
// bound into the statement (texts, of an IN or scalar subquery compared
// with left; left nil: not an operand of a comparison) compare as MariaDB
// compares the subquery's column with left, when the column's collation
// is not its character set's default. Two implicit collations (a column
// against a column) resolve as MariaDB resolves them: equal, the _bin
// one of one character set, the Unicode one of a Unicode and another,
// utf8mb4 over utf8mb3 — else ERROR 1267 (illegal mix). A value is then
// bound with COLLATE of the column's collation when that wins, and as
// CONVERT(… USING cs) alone (cs's default collation, implicit, which
// loses to left's as the column did) when left's wins. An error wrapping
// ErrCrossNode when left's collation is not known or the two do not
// mix: a literal of the connection's character set would compare in
// left's collation, which is another than MariaDB's (latin1_swedish_ci s
// IN (SELECT latin1_bin column) matched 'Cafe' to 'cafe').
func (b *Builder) compareTexts(stmt sqlparser.Statement, left sqlparser.Expr, texts []boundText) error {
	for i := range texts {
		t := &texts[i]
		if !t.text || t.charset == "" || t.collation == defaultCollations[t.charset] || left == nil {
			continue // left nil: a value the statement returns or computes with, of the column's collation
		}
		var l sqlparser.Expr = left
		if tuple, ok := left.(sqlparser.ValTuple); ok {
			l = nil
			if i < len(tuple) {
				l = tuple[i]
			}
		} else if i > 0 {
			l = nil
		}
		o, known := b.outerText(stmt, l)
		if !known {
			return fmt.Errorf("%w: the subquery's column %d is text of collation %s, and how MariaDB compares it depends on the collation of what it is compared with, which is not a column of a table here: compare a column with it, or COLLATE the column in the subquery", ErrCrossNode, i+1, t.collation)
		}
		if !o.text || o.charset == "" {
			continue // not text: the comparison is not by collation
		}
		c, ok := mixCollations(o, *t)
		if !ok {
			return fmt.Errorf("%w: the subquery's column %d (collation %s) and %s (collation %s) do not mix: MariaDB refuses the comparison (ERROR 1267)", ErrCrossNode, i+1, t.collation, sqlparser.String(l), o.collation)
		}
		if c != t.collation {
			d := defaultCollations[t.charset]
			if d == "" {
				return fmt.Errorf("%w: the subquery's column %d is text of character set %s, whose values cannot be bound to compare in collation %s", ErrCrossNode, i+1, t.charset, c)
			}
			t.collation = d
		}
	}
	return nil
}

// mixCollations returns the collation MariaDB compares two implicit
// (column) texts a and b in, and false when it refuses to (ERROR 1267).
func mixCollations(a, b boundText) (string, bool) {
	unicode := func(cs string) bool {
		return cs == "utf8mb4" || cs == "utf8mb3" || cs == "ucs2" || cs == "utf16" || cs == "utf32"
	}
	switch {
	case a.collation == b.collation:
		return a.collation, true
	case a.charset == b.charset:
		if strings.HasSuffix(a.collation, "_bin") {
			return a.collation, true
		}
		if strings.HasSuffix(b.collation, "_bin") {
			return b.collation, true
		}
		return "", false
	case unicode(a.charset) && !unicode(b.charset), a.charset == "utf8mb4" && b.charset == "utf8mb3":
		return a.collation, true
	case unicode(b.charset) && !unicode(a.charset), b.charset == "utf8mb4" && a.charset == "utf8mb3":
		return b.collation, true
	}
	return "", false
}

// outerText returns the character set and collation of e when it is a
// column of a table of stmt's FROM (not of a derived table) whose DDL is
// known; known is false otherwise.
func (b *Builder) outerText(stmt sqlparser.Statement, e sqlparser.Expr) (t boundText, known bool) {
	col, ok := e.(*sqlparser.ColName)
	sel, isSel := stmt.(*sqlparser.Select)
	if !ok || !isSel {
		return boundText{}, false
	}
	var found *tableInfo
	n := 0
	for _, te := range sel.From {
		_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
			switch x := node.(type) {
			case *sqlparser.DerivedTable, *sqlparser.Subquery:
				return false, nil
			case *sqlparser.AliasedTableExpr:
				tn, isTable := x.Expr.(sqlparser.TableName)
				if !isTable {
					return false, nil
				}
				name := tn.Name.String()
				if !x.As.IsEmpty() {
					name = x.As.String()
				}
				info := b.tables()[strings.ToLower(tn.Name.String())]
				if info == nil || info.ddl == nil || info.encrypted(col.Name.String()) {
					return false, nil
				}
				q := col.Qualifier.Name.String()
				if q != "" && !strings.EqualFold(q, name) || q == "" && info.ddl.Column(col.Name.String()) == nil {
					return false, nil
				}
				found = info
				n++
				return false, nil
			}
			return true, nil
		}, te)
	}
	if n != 1 {
		return boundText{}, false
	}
	return columnText(found, col.Name.String())
}

// exprAs is v's literal (Expr) typed as text of t: CONVERT(… USING cs),
// which MariaDB derives as it derives a column (implicit), of cs's default
// collation, and a text of another collation with COLLATE (compareTexts
// chose it). A text of an unknown character set stays a literal of the
// connection's.
func (v BoundValue) exprAs(t boundText) sqlparser.Expr {
	e := v.Expr()
	if v.Kind != BoundString || t.charset == "" {
		return e
	}
	conv := &sqlparser.ConvertUsingExpr{Expr: e, Type: t.charset}
	switch {
	case t.collation == defaultCollations[t.charset]:
		return conv
	case t.collation != "":
		return &sqlparser.CollateExpr{Expr: conv, Collation: t.collation}
	}
	return e
}

// placeholder is a `?` typed as text of t, as exprAs types a value: ""
// (a plain `?`) when t names no character set exprAs converts to.
func (t boundText) placeholder() string {
	switch {
	case t.charset == "":
		return ""
	case t.collation == defaultCollations[t.charset]:
		return "CONVERT(? USING " + t.charset + ")"
	case t.collation != "":
		return "CONVERT(? USING " + t.charset + ") COLLATE " + t.collation
	}
	return ""
}

// TextCharset returns the character set a text value of the subquery's
// result column col is bound as (CONVERT(… USING cs), see Bind): the
// column's own when it is a plain text column of known character set that
// Bind converts to; "" when the value stays a literal of the connection's
// character set, or the column is not of a text type.
func (s *Subquery) TextCharset(col int) string {
	if col < 0 || col >= len(s.texts) {
		return ""
	}
	t := s.texts[col]
	if t.charset == "" || !t.text || t.collation == "" {
		return ""
	}
	return t.charset
}

// HexSQL is LimitedSQL(n) with HEX(e) appended, after the subquery's own
// columns, for each of its select expressions e whose text Bind binds as
// its column's (TextCharset): the column's bytes in its own character
// set, as ASCII that no session's character set changes, which a value
// bound from it (BoundValue.Hex) takes as they are. hex[i] is the result
// column holding the HEX of column i, -1 for none (also for an IN
// subquery's text of a collation other than its character set's default,
// which Bind binds with COLLATE). ok is false when no
// column is such text, or when a column more would change the
// subquery's rows or cannot be merged: a look-up, a UNION, *, DISTINCT,
// GROUP BY, HAVING, aggregates, window functions.
func (s *Subquery) HexSQL(n int) (sql string, hex []int, ok bool) {
	sel, isSel := s.sel.(*sqlparser.Select)
	if s.extreme != nil {
		sel, isSel, n = s.extreme, true, 1
	}
	if !isSel || s.lookup != nil || s.Kind != SubqueryIn && s.Kind != SubqueryScalar ||
		sel.GroupBy != nil && len(sel.GroupBy.Exprs) > 0 || sel.Having != nil || hasWindow(sel) ||
		sel.Distinct || sqlparser.ContainsAggregation(sel.SelectExprs) {
		return "", nil, false
	}
	c := sqlparser.Clone(sel)
	exprs := c.SelectExprs.Exprs
	hex = make([]int, len(exprs))
	n0 := len(exprs)
	for i, se := range exprs {
		hex[i] = -1
		ae, isAliased := se.(*sqlparser.AliasedExpr)
		if !isAliased {
			return "", nil, false // *
		}
		if s.TextCharset(i) == "" || s.Kind == SubqueryIn && s.texts[i].collation != defaultCollations[s.texts[i].charset] {
			// An IN list of text with COLLATE (utf8mb4_bin) may compare
			// otherwise than MariaDB's IN subquery over a column of
			// another character set, whose collation depends on its
			// plan (latin1 lat NOT IN (SELECT uni) matched 'ABC' to
			// 'abc' where the list did not: TestCrossNodeCorpusCharsets,
			// seed 9): such values are not bound from HEX.
			continue
		}
		hex[i] = len(c.SelectExprs.Exprs)
		c.SelectExprs.Exprs = append(c.SelectExprs.Exprs, &sqlparser.AliasedExpr{
			Expr: &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("HEX"), Exprs: []sqlparser.Expr{sqlparser.Clone(ae.Expr)}},
			As:   sqlparser.NewIdentifierCI("HEX_DERIVED_" + strconv.Itoa(i)),
		})
	}
	if len(c.SelectExprs.Exprs) == n0 {
		return "", nil, false
	}
	if c.Limit == nil {
		c.SetLimit(&sqlparser.Limit{Rowcount: sqlparser.NewIntLiteral(strconv.Itoa(n))})
	}
	return sqlparser.String(c), hex, true
}

// extremeSelect returns, for a SELECT of MIN(col) or MAX(col) alone (no
// DISTINCT, GROUP BY, HAVING, ORDER BY or LIMIT), the SELECT of col whose
// first row is that value: `SELECT col … WHERE (…) AND col IS NOT NULL
// ORDER BY col [DESC]` (no row: NULL, as MIN and MAX of no value); nil
// for any other statement. Of values equal in col's collation it may
// return another than MIN or MAX would, which compares the same.
func extremeSelect(ts sqlparser.TableStatement) *sqlparser.Select {
	sel, ok := ts.(*sqlparser.Select)
	if !ok || sel.Distinct || sel.GroupBy != nil && len(sel.GroupBy.Exprs) > 0 || sel.Having != nil || len(sel.OrderBy) > 0 ||
		sel.Limit != nil || sel.With != nil || sel.Into != nil || sel.Lock != sqlparser.NoLock || len(sel.SelectExprs.Exprs) != 1 {
		return nil
	}
	ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil
	}
	var (
		arg  sqlparser.Expr
		desc bool
	)
	switch a := ae.Expr.(type) {
	case *sqlparser.Max:
		arg, desc = a.Arg, true
		ok = !a.Distinct && a.OverClause == nil
	case *sqlparser.Min:
		arg = a.Arg
		ok = !a.Distinct && a.OverClause == nil
	default:
		ok = false
	}
	col, isCol := arg.(*sqlparser.ColName)
	if !ok || !isCol {
		return nil
	}
	c := sqlparser.Clone(sel)
	c.SelectExprs = &sqlparser.SelectExprs{Exprs: []sqlparser.SelectExpr{&sqlparser.AliasedExpr{Expr: sqlparser.Clone(col)}}}
	c.AddWhere(&sqlparser.IsExpr{Left: sqlparser.Clone(col), Right: sqlparser.IsNotNullOp})
	dir := sqlparser.AscOrder
	if desc {
		dir = sqlparser.DescOrder
	}
	c.OrderBy = sqlparser.OrderBy{{Expr: sqlparser.Clone(col), Direction: dir}}
	return c
}

// LimitedSQL is SQL reading at most n rows (LIMIT n) when the subquery is
// a SELECT without a LIMIT of its own: a step holds at most n rows, so a
// caller that allows max rows asks for max+1 to tell "too many".
func (s *Subquery) LimitedSQL(n int) string {
	sel, ok := s.sel.(*sqlparser.Select)
	if !ok || sel.Limit != nil {
		return s.SQL
	}
	c := sqlparser.Clone(sel)
	c.SetLimit(&sqlparser.Limit{Rowcount: sqlparser.NewIntLiteral(strconv.Itoa(n))})
	return sqlparser.String(c)
}

// ErrCrossNode is wrapped by the error BuildSteps returns when a statement
// has no shape it can evaluate in steps: the planner's refusal then stands.
var ErrCrossNode = errors.New("the statement cannot be evaluated in steps across data nodes")

// BuildSteps splits a SELECT the planner refused (Build's error) into
// steps, trying in order: uncorrelated subqueries bound as values, a
// nested-loop join, a UNION of SELECTs, and for what those refuse the
// statement over temporary tables (StepsFederation). It
// returns an error wrapping ErrCrossNode when none applies.
func (b *Builder) BuildSteps(sql string) (*Steps, error) {
	stmt, err := b.parser.Parse(sql)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCrossNode, err)
	}
	if lostLimit(b.parser, sql, stmt) {
		return nil, fmt.Errorf("%w: %s", ErrCrossNode, lostLimitReason)
	}
	s := &Steps{SQL: sql, stmt: stmt, b: b}
	// federated falls back on StepsFederation for a statement the other
	// kinds refuse (err, which stands when it does not apply either).
	federated := func(err error) (*Steps, error) {
		fs, ferr := b.federationSteps(sql)
		if ferr != nil {
			return nil, err
		}
		s.Kind, s.Subqueries, s.Federation, s.federatedBy = StepsFederation, nil, fs, err
		return s, nil
	}
	if subs := topSubqueries(stmt); len(subs) > 0 {
		s.Kind = StepsSubqueries
		for _, sq := range subs {
			if s, ok := sq.sub.Select.(*sqlparser.Select); ok && sq.kind == SubqueryIn && s.Limit != nil {
				return nil, fmt.Errorf("%w: MySQL does not support LIMIT in an IN, ANY or ALL subquery", ErrCrossNode)
			}
			if b.correlated(sq.sub) {
				why := "it is not a scalar subquery"
				if sq.kind == SubqueryScalar {
					lk, reason := b.decorrelate(sq.sub)
					if lk != nil {
						s.Subqueries = append(s.Subqueries, lk)
						continue
					}
					why = reason
				}
				return federated(fmt.Errorf("%w: the subquery %s refers to a column of the outer query (correlated) and cannot be evaluated as a look-up: %s", ErrCrossNode, sqlparser.String(sq.sub), why))
			}
			if sq.kind == subqueryQuantified {
				return federated(fmt.Errorf("%w: a comparison with ANY or ALL of a subquery (other than = ANY and <> ALL) is not evaluated across data nodes; write it with MIN or MAX of the subquery", ErrCrossNode))
			}
			step := subqueryStep(sq.sub, sq.kind)
			if sq.kind == SubqueryIn || sq.kind == SubqueryScalar {
				// A scalar subquery's text too is bound as its column's
				// (CONVERT … USING), as generated code binds it
				// (scalarBinding): its length, character set and
				// collation are the column's, not the connection's.
				step.texts = b.subqueryTexts(sq.sub)
			}
			if ext := extremeSelect(sq.sub.Select); sq.kind == SubqueryScalar && ext != nil {
				if t := b.subqueryTexts(&sqlparser.Subquery{Select: ext}); len(t) == 1 && t[0].text {
					step.extreme, step.texts = ext, t
				}
			}
			if err := b.compareTexts(stmt, sq.left, step.texts); err != nil {
				return federated(err)
			}
			s.Subqueries = append(s.Subqueries, step)
		}
		return s, nil
	}
	if _, ok := stmt.(*sqlparser.Union); ok {
		us, err := b.unionSteps(sql)
		if err != nil {
			return federated(err)
		}
		s.Kind, s.Union = StepsUnion, us
		return s, nil
	}
	if _, ok := stmt.(*sqlparser.Select); ok {
		js, err := b.joinSteps(sql)
		if err != nil {
			return federated(err)
		}
		s.Kind, s.Join = StepsJoin, js
		return s, nil
	}
	return nil, fmt.Errorf("%w: only SELECT statements are evaluated in steps", ErrCrossNode)
}

// correlated reports whether a subquery names a column or table it does
// not define itself: planned on its own, it has an unknown column or
// qualifier.
func (b *Builder) correlated(sq *sqlparser.Subquery) bool {
	pos := schema.Pos{File: AdHocFile, Line: 1, Col: 1}
	_, err := b.Build(&schema.Query{Name: "subquery", Cmd: schema.CmdMany, SQL: sqlparser.String(sq.Select), AllowFullRoute: true, Pos: pos, SQLPos: pos})
	var se *schema.Error
	if !errors.As(err, &se) {
		return false
	}
	return strings.Contains(se.Msg, ": unknown column ") || strings.Contains(se.Msg, ": unknown table or alias ")
}

// subqueryUse is a subquery found in a statement and how it is used.
type subqueryUse struct {
	sub  *sqlparser.Subquery
	kind SubqueryKind
	// left is what the subquery is compared with (the other operand of
	// its comparison), nil when it is not an operand of one.
	left sqlparser.Expr
}

// topSubqueries returns the subqueries of stmt that are not inside another
// subquery (those of derived tables included), in statement order, with
// how each is used.
func topSubqueries(stmt sqlparser.Statement) []subqueryUse {
	var out []subqueryUse
	uses := map[*sqlparser.Subquery]SubqueryKind{}
	lefts := map[*sqlparser.Subquery]sqlparser.Expr{}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.ComparisonExpr:
			if sq, ok := x.Left.(*sqlparser.Subquery); ok {
				lefts[sq] = x.Right
			}
			if sq, ok := x.Right.(*sqlparser.Subquery); ok {
				lefts[sq] = x.Left
				switch {
				case x.Operator == sqlparser.InOp || x.Operator == sqlparser.NotInOp,
					x.Operator == sqlparser.EqualOp && x.Modifier == sqlparser.Any,
					x.Operator == sqlparser.NotEqualOp && x.Modifier == sqlparser.All:
					uses[sq] = SubqueryIn
				case x.Modifier != sqlparser.Missing:
					uses[sq] = subqueryQuantified
				}
			}
		case *sqlparser.ExistsExpr:
			uses[x.Subquery] = SubqueryExists
		case *sqlparser.Subquery:
			k := uses[x]
			if k == 0 {
				k = SubqueryScalar
			}
			out = append(out, subqueryUse{sub: x, kind: k, left: lefts[x]})
			return false, nil
		}
		return true, nil
	}, stmt)
	return out
}

// subqueryStep prints a subquery as a statement of its own.
func subqueryStep(sq *sqlparser.Subquery, kind SubqueryKind) *Subquery {
	sel := sq.Select
	if kind == SubqueryExists {
		if s, ok := sel.(*sqlparser.Select); ok && s.Limit == nil {
			c := sqlparser.Clone(s)
			c.SetLimit(&sqlparser.Limit{Rowcount: sqlparser.NewIntLiteral("1")})
			sel = c
		}
	}
	return &Subquery{Kind: kind, SQL: sqlparser.String(sel), sel: sel}
}

// BoundKind is the MySQL type class of a value bound into a statement.
type BoundKind uint8

const (
	BoundNull     BoundKind = iota // SQL NULL
	BoundInt                       // an integer (signed or unsigned), YEAR
	BoundDecimal                   // a DECIMAL
	BoundDouble                    // a DOUBLE (the text protocol's shortest round-trip text)
	BoundString                    // text in the connection's character set
	BoundBinary                    // a binary string
	BoundDate                      // a DATE
	BoundDatetime                  // a DATETIME or TIMESTAMP
	BoundTime                      // a TIME
)

// BoundValue is one value of an earlier step bound into a later statement:
// its text as the server printed it and its type class, which decides the
// literal it becomes (so that it compares as the column it came from).
type BoundValue struct {
	Kind BoundKind
	Text string
	// Decimals are the fractional digits of a DATETIME or TIME.
	Decimals int
	// Hex, for a BoundString, says that Text is the HEX of the text's
	// bytes in its column's character set (Subquery.HexSQL), bound as X'…'
	// converted to that character set (CONVERT(X'…' USING cs)): text a
	// session's character set could not carry, bound exactly.
	Hex bool
}

// Expr returns the literal that compares as v: an integer, DECIMAL or
// DOUBLE (1e0 form) literal, a string, _binary X'…', or CAST('…' AS
// DATE / DATETIME(n) / TIME(n)); a Hex text's bytes as X'…', which Bind
// converts to its column's character set.
func (v BoundValue) Expr() sqlparser.Expr {
	cast := func(typ string, dec int) sqlparser.Expr {
		ct := &sqlparser.ConvertType{Type: typ}
		if dec > 0 {
			ct.Length = &dec
		}
		return &sqlparser.CastExpr{Expr: sqlparser.NewStrLiteral(v.Text), Type: ct}
	}
	switch v.Kind {
	case BoundNull:
		return &sqlparser.NullVal{}
	case BoundInt:
		return sqlparser.NewIntLiteral(v.Text)
	case BoundDecimal:
		return sqlparser.NewDecimalLiteral(v.Text)
	case BoundDouble:
		t := v.Text
		if !strings.ContainsAny(t, "eE") {
			t += "e0"
		}
		return sqlparser.NewFloatLiteral(t)
	case BoundBinary:
		return &sqlparser.IntroducerExpr{CharacterSet: "_binary", Expr: sqlparser.NewHexLiteral(fmt.Sprintf("%X", v.Text))}
	case BoundString:
		if v.Hex {
			// The bytes as they are; exprAs converts them to the
			// column's character set.
			return sqlparser.NewHexLiteral(v.Text)
		}
	case BoundDate:
		return cast("date", 0)
	case BoundDatetime:
		return cast("datetime", v.Decimals)
	case BoundTime:
		return cast("time", v.Decimals)
	}
	return sqlparser.NewStrLiteral(v.Text)
}

// SubqueryRowsError is MySQL's error 1242 (21000) for a scalar subquery
// that returned more than one row.
var SubqueryRowsError = errors.New("Subquery returns more than 1 row")

// Bind returns the statement of a StepsSubqueries Steps with the rows of
// each of its subqueries (rows[i] for Subqueries[i]; each row one value
// per column) in place of the subquery: IN (v1, v2, …) or, with no row,
// FALSE (NOT IN: TRUE); EXISTS as TRUE or FALSE; a scalar subquery as its
// value, NULL without a row, SubqueryRowsError with more than one.
func (s *Steps) Bind(rows [][][]BoundValue) (string, error) {
	return s.bind(rows, -1)
}

// bind is Bind, but with the IN list of subquery split (not -1), an IN
// (or = ANY) of one column, as `IN (listMarker)` (SplitBind).
func (s *Steps) bind(rows [][][]BoundValue, split int) (string, error) {
	if s.Kind != StepsSubqueries || len(rows) != len(s.Subqueries) {
		return "", fmt.Errorf("bind: %d results for %d subqueries", len(rows), len(s.Subqueries))
	}
	stmt := sqlparser.Clone(s.stmt)
	subs := topSubqueries(stmt)
	index := map[*sqlparser.Subquery]int{}
	for i, u := range subs {
		index[u.sub] = i
	}
	tuple := func(sub int, row []BoundValue) sqlparser.Expr {
		texts := s.Subqueries[sub].texts
		expr := func(i int) sqlparser.Expr {
			if i < len(texts) {
				return row[i].exprAs(texts[i])
			}
			return row[i].Expr()
		}
		if len(row) == 1 {
			return expr(0)
		}
		t := make(sqlparser.ValTuple, len(row))
		for i := range row {
			t[i] = expr(i)
		}
		return t
	}
	var err error
	out := sqlparser.Rewrite(stmt, func(c *sqlparser.Cursor) bool {
		switch x := c.Node().(type) {
		case *sqlparser.AliasedExpr:
			if x.As.IsEmpty() && hasSubquery(x.Expr) {
				// The result column keeps the name of the expression the
				// client wrote ("(SELECT …)", "EXISTS(SELECT …)",
				// "(SELECT …) + 1"), not the bound value's.
				x.As = sqlparser.NewIdentifierCI(sqlparser.String(x.Expr))
			}
		case *sqlparser.ComparisonExpr:
			sq, ok := x.Right.(*sqlparser.Subquery)
			if !ok {
				return true
			}
			i, ok := index[sq]
			if !ok || subs[i].kind != SubqueryIn {
				return true
			}
			if i == split {
				c.Replace(&sqlparser.ComparisonExpr{Operator: sqlparser.InOp, Left: x.Left, Right: sqlparser.ValTuple{sqlparser.NewIntLiteral(listMarker)}})
				return false
			}
			if len(rows[i]) == 0 {
				c.Replace(sqlparser.BoolVal(x.Operator == sqlparser.NotInOp || x.Operator == sqlparser.NotEqualOp))
				return false
			}
			if len(rows[i][0]) > 1 && hasText(rows[i]) {
				// (a, b) IN ((…), (…)) as (a, b) = (…) OR (a, b) = (…), which
				// SQL defines it to be: MariaDB 10.11's row IN over a list
				// of constants misses rows when a text column and the list's
				// text differ in character set ((lat, k) IN (('ä', 1),
				// ('ß', 2)) of a latin1 lat over a utf8mb4 connection).
				var or sqlparser.Expr
				for _, row := range rows[i] {
					eq := &sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp, Left: sqlparser.Clone(x.Left), Right: tuple(i, row)}
					if or == nil {
						or = eq
					} else {
						or = &sqlparser.OrExpr{Left: or, Right: eq}
					}
				}
				if x.Operator == sqlparser.NotInOp || x.Operator == sqlparser.NotEqualOp {
					or = &sqlparser.NotExpr{Expr: or}
				}
				c.Replace(or)
				return false
			}
			list := make(sqlparser.ValTuple, len(rows[i]))
			for r, row := range rows[i] {
				list[r] = tuple(i, row)
			}
			op := x.Operator
			switch op {
			case sqlparser.EqualOp:
				op = sqlparser.InOp
			case sqlparser.NotEqualOp:
				op = sqlparser.NotInOp
			}
			c.Replace(&sqlparser.ComparisonExpr{Operator: op, Left: x.Left, Right: list})
			return false
		case *sqlparser.ExistsExpr:
			i := index[x.Subquery]
			c.Replace(sqlparser.BoolVal(len(rows[i]) > 0))
			return false
		case *sqlparser.Subquery:
			i, ok := index[x]
			if !ok {
				return false
			}
			if lk := s.Subqueries[i].lookup; lk != nil {
				c.Replace(bindLookup(lk, rows[i]))
				return false
			}
			switch {
			case len(rows[i]) == 0:
				c.Replace(&sqlparser.NullVal{})
			case len(rows[i]) > 1:
				err = SubqueryRowsError
			default:
				c.Replace(tuple(i, rows[i][0]))
			}
			return false
		}
		return true
	}, nil)
	if err != nil {
		return "", err
	}
	return sqlparser.String(out), nil
}

// hasText reports whether rows bind a text value.
func hasText(rows [][]BoundValue) bool {
	for _, row := range rows {
		for _, v := range row {
			if v.Kind == BoundString {
				return true
			}
		}
	}
	return false
}

// StepStatement is one statement a Steps runs, as `shardgen preview` and
// the proxy's PREVIEW show it.
type StepStatement struct {
	// Step numbers the statements in the order they run, nested steps
	// (a subquery that itself runs in steps) included, from 1.
	Step int
	// What the statement is, e.g. "in subquery", "outer side of the join".
	What string
	SQL  string
	// Plan is the statement's plan (ad hoc); nil when the statement is
	// completed at run time with the rows of earlier steps (Bound).
	Plan  *Plan
	Bound bool
}

// StepStatements lists every statement st runs, in order, each planned
// (a nested one that needs steps expanded into its own). Errors: a
// statement that neither plans nor splits into steps (the planner's
// error), nesting deeper than 16 levels.
func (b *Builder) StepStatements(st *Steps) ([]StepStatement, error) {
	var out []StepStatement
	err := b.stepStatements(st, &out, 1)
	return out, err
}

func (b *Builder) stepStatements(st *Steps, out *[]StepStatement, depth int) error {
	if depth > 16 {
		return fmt.Errorf("statement nests more than 16 levels of steps across data nodes")
	}
	add := func(sql, what string) error {
		pos := schema.Pos{File: AdHocFile, Line: 1, Col: 1}
		p, err := b.Build(&schema.Query{Name: "proxy", Cmd: schema.CmdMany, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos})
		if err == nil {
			*out = append(*out, StepStatement{Step: len(*out) + 1, What: what, SQL: sql, Plan: p})
			return nil
		}
		if sql == st.SQL {
			return err // the step is the statement itself: the planner's reason stands
		}
		inner, serr := b.BuildSteps(sql)
		if serr != nil {
			return err
		}
		return b.stepStatements(inner, out, depth+1)
	}
	bound := func(what, sql string) {
		*out = append(*out, StepStatement{Step: len(*out) + 1, What: what, SQL: sql, Bound: true})
	}
	switch st.Kind {
	case StepsSubqueries:
		first := len(*out) + 1
		for _, sq := range st.Subqueries {
			if err := add(sq.SQL, sq.Kind.String()+" subquery"); err != nil {
				return err
			}
		}
		steps := fmt.Sprintf("steps %d-%d", first, len(*out))
		if first == len(*out) {
			steps = fmt.Sprintf("step %d", first)
		}
		switch st.stmt.(type) {
		case *sqlparser.Update, *sqlparser.Delete:
			// LimitedWriteSteps: the write with its key subquery.
			bound("the write of exactly the rows whose keys "+steps+" selected (their keys bound as the IN list), without ORDER BY and LIMIT, as one all-or-nothing write over their data nodes, routed by them", sqlparser.String(st.stmt))
		default:
			bound("the statement with the rows of "+steps+" bound as values, routed by them", st.SQL)
		}
	case StepsJoin:
		first := len(*out) + 1
		if err := add(st.Join.Outer.SQL, "outer side of the join"); err != nil {
			return err
		}
		if len(st.Join.Spec.InnerKeys) == 0 {
			return add(st.Join.Inner.SQL, "inner side of the join, run once (no equality of a column of each side to bind), every row paired with every outer row")
		}
		steps := fmt.Sprintf("steps %d-%d", first, len(*out))
		if first == len(*out) {
			steps = fmt.Sprintf("step %d", first)
		}
		if err := add(st.Join.Inner.SQL, fmt.Sprintf("build side of the hash join, run once instead of the next step when the rows of %s number more than %d (reading at most %d rows per row of them), its rows hashed by the join key", steps, st.Join.Batch, runtime.HashJoinBuildFactor)); err != nil {
			return err
		}
		bound(fmt.Sprintf("nested loop: inner side of the join, run with the key values of every %d rows of %s bound as IN lists, routed by them", st.Join.Batch, steps), st.Join.Inner.SQL)
	case StepsFederation:
		first := len(*out) + 1
		for _, t := range st.Federation.Tables {
			if err := add(t.SQL, "rows of "+t.Table+" for the temporary table "+t.Temp); err != nil {
				return err
			}
		}
		bound(fmt.Sprintf("the statement over the temporary tables of steps %d-%d, run on one connection of the first data source", first, len(*out)), st.Federation.SQL)
	case StepsUnion:
		for i, part := range st.Union.Parts {
			if err := add(part.SQL, fmt.Sprintf("SELECT %d of the UNION", i+1)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s steps cannot be listed", st.Kind)
	}
	return nil
}

// hasSubquery reports whether e contains a subquery.
func hasSubquery(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if _, ok := n.(*sqlparser.Subquery); ok {
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// TextCharsets returns, each once, the character set of every text column
// (CHAR, VARCHAR, TEXT, ENUM, SET, JSON) of the logic tables named (names
// that are no logic table are skipped; none named: every logic table):
// the column's own, else its collation's, else its table's; "" for a
// column whose DDL names none (the database's default, which the planner
// does not know). The proxy uses it to tell whether a session's character
// set can hold every value the steps read (see proxy's lossyCharset).
func (b *Builder) TextCharsets(tables ...string) []string {
	all := b.tables()
	infos := make([]*tableInfo, 0, len(tables))
	for _, name := range tables {
		if info := all[strings.ToLower(name)]; info != nil {
			infos = append(infos, info)
		}
	}
	if len(tables) == 0 {
		for _, info := range all {
			infos = append(infos, info)
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, info := range infos {
		if info.ddl == nil || info.derived != nil || info.dual || seen["\x00"+info.name] {
			continue
		}
		seen["\x00"+info.name] = true
		for _, c := range info.ddl.Columns {
			if !isTextType(c.Type) {
				continue
			}
			cs, coll := c.Charset, c.Collation
			if cs == "" && coll == "" {
				cs, coll = info.ddl.Charset, info.ddl.Collation
			}
			if cs == "" && coll != "" {
				cs, _, _ = strings.Cut(coll, "_")
			}
			if c.Type == "json" {
				cs = "utf8mb4" // MariaDB's JSON is LONGTEXT utf8mb4_bin
			}
			if !seen[cs] {
				seen[cs] = true
				out = append(out, cs)
			}
		}
	}
	return out
}
