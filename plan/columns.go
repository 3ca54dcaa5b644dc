package plan

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// typeAny is the Go type of a result column or parameter of an ad-hoc
// statement (AdHocFile) whose type the planner cannot infer, such as
// LENGTH(note) or `? + 1`: nothing is generated for such a statement, the
// proxy describes a result column with the back end's type and sends a
// parameter as the client typed it. A merge never needs it: merge keys and
// aggregates have their own kinds (exprKind), refused when unknown.
var typeAny = GoType{Name: "any", Kind: runtime.KindString, Nullable: true}

// resultColumns types the select list of a SELECT. A query file's column
// whose Go type cannot be inferred is refused (the generated row needs a
// field type); an ad-hoc statement's is typeAny.
func (p *planner) resultColumns() error {
	sel, ok := p.stmt.(*sqlparser.Select)
	if u, union := p.stmt.(*sqlparser.Union); union {
		if len(p.embeds) > 0 {
			return p.errorAt(p.embeds[0], "sqlc.embed(%s) in a UNION is not supported; select the columns", p.embeds[0])
		}
		if err := p.checkUnionTypes(u); err != nil {
			return err
		}
		sel, ok = firstSelect(u), true
		// Another SELECT may give any column NULL.
		defer func() {
			for _, c := range p.plan.Columns {
				if c.Type != typeAny {
					c.Type = nullType(c.Type)
				}
			}
		}()
	}
	if !ok || sel == nil {
		return nil
	}
	used := newNameSet()
	add := func(name, origin string, t GoType) {
		p.plan.Columns = append(p.plan.Columns, &Column{Name: name, Field: used.unique(fieldName(name)), Type: t, Origin: origin})
	}
	embedded := map[string]int{} // sqlc.embed name → its t.* expressions seen
	// addCol adds column c of table r (a `*` column).
	addCol := func(r *tableRef, c *schema.Column) error {
		t, origin := p.resultType(r, c), r.info.name+"."+c.Name
		if r.info.derived != nil {
			var ok bool
			if t, origin, ok = p.derivedType(&colRef{ref: r, col: c}); !ok {
				if !p.adHoc() {
					return p.errorAt(c.Name, "cannot infer the Go type of column %q of derived table %q: give it a CAST(... AS type)", c.Name, r.info.name)
				}
				t = typeAny
			}
		}
		add(c.Name, origin, t)
		return nil
	}
	for i, se := range sel.SelectExprs.Exprs {
		switch e := se.(type) {
		case *sqlparser.StarExpr:
			q := e.TableName.Name.String()
			embed := q != "" && containsFold(p.embeds, q)
			if embed {
				embedded[strings.ToLower(q)]++
			}
			matched := false
			for _, r := range p.refs {
				if q != "" && !(strings.EqualFold(r.alias, q) || r.alias == "" && strings.EqualFold(r.info.name, q)) {
					continue
				}
				matched = true
				if embed {
					if err := p.embedColumns(r, q); err != nil {
						return err
					}
					continue
				}
				if q == "" {
					break // below, in the order of the level's `*`
				}
				for _, c := range r.info.ddl.VisibleColumns() {
					if err := addCol(r, c); err != nil {
						return err
					}
				}
			}
			if q == "" {
				for _, c := range levelStarColumns(p.refs, "") {
					if err := addCol(c.ref, c.col); err != nil {
						return err
					}
				}
			}
			if !matched {
				return p.errorAt(q, "unknown table or alias %q in %s.*", q, q)
			}
		case *sqlparser.AliasedExpr:
			name := columnName(e)
			t, origin, ok := p.exprType(e.Expr)
			if !ok && !p.adHoc() {
				t, ok = p.kindType(e.Expr)
			}
			if !ok {
				if !p.adHoc() {
					return p.errorOn(e.Expr, "cannot infer the Go type of result column %d (%s): give it a CAST(... AS type)", i+1, sqlparser.String(e.Expr))
				}
				t = typeAny // the proxy takes the column's type from the back end
			}
			add(name, origin, t)
		default:
			return p.errorOn(se, "unsupported select expression %s", sqlparser.String(se))
		}
	}
	for _, name := range p.embeds {
		switch embedded[strings.ToLower(name)] {
		case 0:
			return p.errorAt(name, "sqlc.embed(%s) must be an expression of the statement's select list, not inside another one", name)
		case 1:
		default:
			return p.errorAt(name, "sqlc.embed(%s) and %s.* both select the columns of %s; keep one", name, name, name)
		}
	}
	// Encrypted logic columns read their cipher column: decrypt them.
	for _, c := range p.plan.Columns {
		tbl, col, ok := strings.Cut(c.Origin, ".")
		if !ok {
			continue
		}
		if ti := p.tables[strings.ToLower(tbl)]; ti != nil && ti.enc != nil && ti.enc.queryWithCipher {
			if ec := ti.enc.columns[strings.ToLower(col)]; ec != nil {
				c.Decrypt = ec.Cipher.Encryptor
			}
		}
	}
	// Reuse the table's model struct when the columns are exactly the
	// table's, in DDL order.
	if len(p.refs) == 1 && p.refs[0].info.derived == nil && len(p.embeds) == 0 {
		ddl := p.refs[0].info.ddl
		if len(ddl.Columns) == len(p.plan.Columns) {
			same := true
			for i, c := range ddl.Columns {
				pc := p.plan.Columns[i]
				if pc.Origin != p.refs[0].info.name+"."+c.Name || pc.Name != c.Name {
					same = false
					break
				}
			}
			if same {
				p.plan.RowModel = p.refs[0].info.name
			}
		}
	}
	return nil
}

// embedColumns adds the columns of sqlc.embed(name), the table reference
// r: its model's columns, which must be those of its DDL with their own
// types (not the inner side of an outer join, whose columns can be NULL).
func (p *planner) embedColumns(r *tableRef, name string) error {
	if r.info.derived != nil || r.info.dual {
		return p.errorAt(name, "sqlc.embed(%s) names a derived table, which has no model struct; select its columns", name)
	}
	if r.outer {
		return p.errorAt(name, "sqlc.embed(%s): %s is the inner side of an outer join, so its columns can be NULL, which its model struct cannot hold; select its columns", name, name)
	}
	for _, c := range r.info.ddl.VisibleColumns() {
		p.plan.Columns = append(p.plan.Columns, &Column{Name: c.Name, Field: fieldName(c.Name), Type: p.resultType(r, c), Origin: r.info.name + "." + c.Name, Embed: r.info.name})
	}
	return nil
}

// exprType infers the Go type of a select expression: a column keeps its
// column's (nullable) type, COUNT is int64, SUM and AVG are DECIMAL text
// (sql.NullString; DOUBLE columns give sql.NullFloat64), MIN and MAX keep the
// column's type made nullable, string functions (UPPER, CONCAT, SUBSTRING,
// TRIM, ...: stringFuncs) are text, nullable when an argument may be NULL,
// CAST gives the cast's type, literals their own. ok is false when the type
// cannot be inferred.
func (p *planner) exprType(e sqlparser.Expr) (t GoType, origin string, ok bool) {
	switch e := e.(type) {
	case *sqlparser.ColName:
		c := p.cols[e]
		if c == nil {
			return GoType{}, "", false
		}
		if c.ref.info.derived != nil {
			return p.derivedType(c)
		}
		return p.resultType(c.ref, c.col), c.ref.info.name + "." + c.col.Name, true
	case *sqlparser.CountStar, *sqlparser.Count:
		return typeInt64, "", true
	case *sqlparser.Sum:
		return p.sumType(e.Arg), "", true
	case *sqlparser.Avg:
		return p.sumType(e.Arg), "", true
	case *sqlparser.Max:
		return p.minMaxType(e.Arg)
	case *sqlparser.Min:
		return p.minMaxType(e.Arg)
	case *sqlparser.Std, *sqlparser.StdDev, *sqlparser.StdPop, *sqlparser.StdSamp, *sqlparser.VarPop, *sqlparser.VarSamp, *sqlparser.Variance:
		// STDDEV, VARIANCE and their forms: DOUBLE, NULL over no rows (the
		// _SAMP forms over one row too).
		return nullType(typeFloat64), "", true
	case *sqlparser.BitAnd, *sqlparser.BitOr, *sqlparser.BitXor:
		// BIT_AND / BIT_OR / BIT_XOR: BIGINT UNSIGNED, never NULL.
		return GoType{Name: "uint64", Kind: runtime.KindLong}, "", true
	case *sqlparser.GroupConcatExpr:
		return typeNullStr, "", true
	case *sqlparser.ExistsExpr:
		return typeInt64, "", true // 1 or 0, never NULL
	case *sqlparser.Subquery:
		// A scalar subquery: its one column's type, NULL when it finds no
		// row.
		if sel, ok := e.Select.(*sqlparser.Select); ok && sel.SelectExprs != nil && len(sel.SelectExprs.Exprs) == 1 {
			if ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr); ok {
				if t, _, ok := p.exprType(ae.Expr); ok {
					return nullType(t), "", true
				}
			}
		}
	case *sqlparser.FuncExpr:
		if always, ok := stringFuncs[e.Name.Lowered()]; ok && e.Qualifier.IsEmpty() {
			return p.stringResult(always, e.Exprs...), "", true
		}
		if e.Name.EqualString("date") && len(e.Exprs) == 1 && e.Qualifier.IsEmpty() {
			// DATE(x) is CAST(x AS DATE): NULL for a value that is no date.
			return nullType(convertType(&sqlparser.ConvertType{Type: "date"})), "", true
		}
		// The pad weight of a sort key (weightExprs): IF(…, WEIGHT_STRING(…), '').
		if e.Name.EqualString("if") && len(e.Exprs) == 3 {
			if _, ok := e.Exprs[1].(*sqlparser.WeightStringFuncExpr); ok {
				if l, ok := e.Exprs[2].(*sqlparser.Literal); ok && l.Type == sqlparser.StrVal && l.Val == "" {
					return GoType{Name: "[]byte", Kind: runtime.KindNull, Nullable: true}, "", true
				}
			}
		}
	case *sqlparser.SubstrExpr:
		return p.stringResult(false, e.Name, e.From, e.To), "", true
	case *sqlparser.TrimFuncExpr:
		return p.stringResult(false, e.TrimArg, e.StringArg), "", true
	case *sqlparser.CastExpr:
		return nullType(castType(e.Type)), "", true
	case *sqlparser.ConvertExpr:
		return nullType(castType(e.Type)), "", true
	case *sqlparser.ConvertUsingExpr:
		// CONVERT(x USING cs): x's text in cs, NULL when x is.
		return p.stringResult(false, e.Expr), "", true
	case *sqlparser.CollateExpr:
		if t, _, ok := p.exprType(e.Expr); ok && (t == typeString || t == typeNullStr) {
			return t, "", true
		}
	case *sqlparser.WeightStringFuncExpr:
		// A sort key the planner adds (weightExprs): bytes, never shown.
		return GoType{Name: "[]byte", Kind: runtime.KindNull, Nullable: true}, "", true
	case *sqlparser.Literal:
		switch e.Type {
		case sqlparser.IntVal:
			return typeInt64, "", true
		case sqlparser.StrVal:
			return typeString, "", true
		case sqlparser.DecimalVal:
			return typeString, "", true
		case sqlparser.FloatVal:
			return typeFloat64, "", true
		}
	}
	return GoType{}, "", false
}

// kindType is the Go type of a result column exprType cannot type, from
// how MySQL returns its values (exprKind), nullable but for the ranking
// window functions: ROW_NUMBER, RANK, DENSE_RANK and NTILE are BIGINT,
// CUME_DIST and PERCENT_RANK DOUBLE, never NULL; arithmetic
// (SUM(a) / COUNT(b)), comparisons and the other expressions exprKind
// knows as BIGINT (sql.NullInt64), BIGINT UNSIGNED (sql.Null[uint64]),
// DOUBLE (sql.NullFloat64), DECIMAL or text (sql.NullString). ok is false
// for the rest (a date or time, a function exprKind does not know).
func (p *planner) kindType(e sqlparser.Expr) (t GoType, ok bool) {
	switch e := e.(type) {
	case *sqlparser.ArgumentLessWindowExpr:
		if e.Type == sqlparser.CumeDistExprType || e.Type == sqlparser.PercentRankExprType {
			return typeFloat64, true
		}
		return typeInt64, true
	case *sqlparser.NtileExpr:
		return typeInt64, true
	}
	if t, ok := kindGoType(p.exprKind(e)); ok {
		return nullType(t), true
	}
	return GoType{}, false
}

// kindGoType is the non-NULL Go type of values of kind k: int64, uint64,
// float64, or string for DECIMAL and text; ok is false for other kinds.
func kindGoType(k mergeKind) (GoType, bool) {
	switch k.Type {
	case "int":
		return typeInt64, true
	case "uint":
		return GoType{Name: "uint64", Kind: runtime.KindLong}, true
	case "float":
		return typeFloat64, true
	case "decimal", "string":
		return typeString, true
	}
	return GoType{}, false
}

// castType is the Go type of the value of CAST(x AS t) or CONVERT(x, t):
// convertType's, except that UNSIGNED is BIGINT UNSIGNED, uint64 as for a
// BIGINT UNSIGNED column (an int64 cannot hold its values past 2^63-1). A
// scalar subquery of an unsigned column evaluated in steps is bound as
// CAST(? AS UNSIGNED) (scalarBinding), so its value is typed so too. A
// parameter in CAST(? AS UNSIGNED) stays int64 (convertType).
func castType(t *sqlparser.ConvertType) GoType {
	if t != nil && strings.HasPrefix(strings.ToLower(t.Type), "unsigned") {
		return GoType{Name: "uint64", Kind: runtime.KindLong}
	}
	return convertType(t)
}

// stringFuncs are the string functions whose result exprType types as
// text: the value is whether the result may be NULL even when no argument
// is (LPAD / RPAD of a negative length). SUBSTRING and TRIM are
// sqlparser nodes of their own.
var stringFuncs = map[string]bool{
	"upper": false, "lower": false, "ucase": false, "lcase": false,
	"concat": false, "concat_ws": false, "replace": false, "reverse": false,
	"left": false, "right": false, "repeat": false, "substring_index": false,
	"ltrim": false, "rtrim": false, "space": false, "md5": false, "sha1": false,
	"hex": false, "to_base64": false, "soundex": false, "quote": false,
	"lpad": true, "rpad": true,
}

// stringResult is the type of a string function of args: string, or
// sql.NullString when always is set or any argument may be NULL (a
// nullable column, NULL, a parameter or an expression of unknown type).
func (p *planner) stringResult(always bool, args ...sqlparser.Expr) GoType {
	for _, a := range args {
		if always {
			break
		}
		switch a := a.(type) {
		case nil:
			continue
		case *sqlparser.Literal:
			continue // never NULL (NULL is a *sqlparser.NullVal)
		case *sqlparser.ColName:
			if c := p.cols[a]; c != nil && c.ref.info.derived == nil {
				always = c.col.Nullable || c.ref.outer
				continue
			}
		}
		t, _, ok := p.exprType(a)
		always = !ok || t.Nullable
	}
	if always {
		return typeNullStr
	}
	return typeString
}

func (p *planner) sumType(arg sqlparser.Expr) GoType {
	if c, ok := arg.(*sqlparser.ColName); ok {
		if cr := p.cols[c]; cr != nil {
			switch strings.ToLower(cr.col.Type) {
			case "double", "float", "real":
				return nullType(typeFloat64)
			}
		}
	}
	return typeNullStr
}

// minMaxType is the type of MIN(arg) / MAX(arg): arg's own type, nullable
// (no row gives NULL): a column's (its override included), else the
// expression's, e.g. sql.NullString for MAX(UPPER(name)).
func (p *planner) minMaxType(arg sqlparser.Expr) (GoType, string, bool) {
	if c, ok := arg.(*sqlparser.ColName); ok {
		if cr := p.cols[c]; cr != nil {
			return nullType(p.resultType(cr.ref, cr.col)), "", true
		}
		return GoType{}, "", false
	}
	if t, _, ok := p.exprType(arg); ok && t.Name != "" && t.Name != "any" {
		return nullType(t), "", true
	}
	return GoType{}, "", false
}

// fieldName turns a result column name into a Go field name.
func fieldName(s string) string {
	f := upperCamel(s)
	if f == "" {
		return "Column"
	}
	return f
}

// resultType is the Go type a result column of table reference r scans
// into: the column's nullable type, forced nullable on the inner side of an
// outer join.
func (p *planner) resultType(r *tableRef, c *schema.Column) GoType {
	if r.info.derived != nil {
		t, _, ok := p.derivedType(&colRef{ref: r, col: c})
		if !ok {
			return typeAny
		}
		return t
	}
	t := p.b.goType(r.info.name, c, true)
	if r.outer {
		t = nullType(t)
	}
	return t
}

// derivedType is exprType of a derived table's column: the type of the
// expression its SELECT computes it with, nullable when the derived table
// is the inner side of an outer join.
func (p *planner) derivedType(c *colRef) (GoType, string, bool) {
	var t GoType
	origin := ""
	if b := p.baseCol(c); b != nil {
		t, origin = p.resultType(b.ref, b.col), b.ref.info.name+"."+b.col.Name
	} else if e := derivedExpr(c); e != nil {
		var ok bool
		if t, _, ok = p.exprType(e); !ok {
			return GoType{}, "", false
		}
	} else {
		return GoType{}, "", false
	}
	if c.ref.outer {
		t = nullType(t)
	}
	return t, origin, true
}

// columnName is the name MySQL gives a select expression's result column:
// its alias, a column's name, else the expression's text.
func columnName(e *sqlparser.AliasedExpr) string {
	if !e.As.IsEmpty() {
		return e.As.String()
	}
	if c, ok := e.Expr.(*sqlparser.ColName); ok {
		return c.Name.String()
	}
	return sqlparser.String(e.Expr)
}

// firstSelect returns the leftmost SELECT of a UNION (nil for a VALUES
// statement).
func firstSelect(st sqlparser.TableStatement) *sqlparser.Select {
	for {
		switch s := st.(type) {
		case *sqlparser.Union:
			st = s.Left
		case *sqlparser.Select:
			return s
		default:
			return nil
		}
	}
}

// checkUnionTypes refuses, in a query file, a UNION whose SELECTs give a
// result column different Go types (MySQL gives the column a type that
// holds both; CAST it in every SELECT), or list different numbers of
// columns.
func (p *planner) checkUnionTypes(u *sqlparser.Union) error {
	var sels []*sqlparser.Select
	var walk func(sqlparser.TableStatement)
	walk = func(st sqlparser.TableStatement) {
		switch s := st.(type) {
		case *sqlparser.Union:
			walk(s.Left)
			walk(s.Right)
		case *sqlparser.Select:
			sels = append(sels, s)
		}
	}
	walk(u)
	if p.adHoc() || len(sels) < 2 {
		return nil
	}
	typesOf := func(s *sqlparser.Select) []GoType {
		var out []GoType
		for _, se := range s.SelectExprs.Exprs {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				return nil
			}
			t, _, _ := p.exprType(ae.Expr)
			out = append(out, nullType(t))
		}
		return out
	}
	first := typesOf(sels[0])
	for _, s := range sels[1:] {
		other := typesOf(s)
		if first == nil || other == nil || len(other) != len(first) {
			return p.errorAt("UNION", "the SELECTs of a UNION must list the same number of columns, without *")
		}
		for i := range first {
			if first[i].Name == "" || first[i].Name != other[i].Name || first[i].Pkg != other[i].Pkg {
				return p.errorAt("UNION", "column %d of the UNION has different types in its SELECTs: CAST it in every SELECT to one type", i+1)
			}
		}
	}
	return nil
}
