package plan

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// LimitedWriteRefusal is in the planner's refusal of an UPDATE or DELETE
// with LIMIT that reaches several data nodes (limitedWriteError): such a
// statement may run as LimitedWriteSteps.
const LimitedWriteRefusal = "LIMIT over several data nodes of"

// LimitedWriteSteps splits an UPDATE or DELETE of one table with ORDER BY
// … LIMIT n that reaches several data nodes into two statements, as
// StepsSubqueries Steps: the first selects the primary key of the rows to
// change,
//
//	SELECT id FROM t WHERE <where> ORDER BY <order> LIMIT n
//
// merged across data nodes by the ORDER BY (the columns' collations) so it
// is exactly the n rows one MySQL would change; Bind then gives the write
// of exactly those rows, without ORDER BY and LIMIT,
//
//	UPDATE t SET … WHERE (<where>) AND id IN (3, 8, 9)
//
// (FALSE for no row; <where> is kept so a row changed in between is not
// written), which runs on every data node it routes to as one
// all-or-nothing write; its affected rows are the statement's. The ORDER BY
// must be total, or MySQL's choice among equal rows could not be
// reproduced: it must name every column of the primary key or of a unique
// key of NOT NULL columns. Refused (an error wrapping ErrCrossNode, with the
// reason and what would make it run): another statement, several tables,
// no ORDER BY or one that is not total, a table without a primary key, a
// LIMIT that is neither an integer literal nor a parameter (a parameter's
// value is read as each data node reads it: a negative one from the binary
// protocol as an unsigned count, every row; NULL as 0).
func (b *Builder) LimitedWriteSteps(sql string) (*Steps, error) {
	stmt, err := b.parser.Parse(sql)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCrossNode, err)
	}
	var (
		kind    string
		tables  sqlparser.TableExprs
		where   *sqlparser.Where
		orderBy sqlparser.OrderBy
		limit   *sqlparser.Limit
	)
	switch s := stmt.(type) {
	case *sqlparser.Update:
		kind, tables, where, orderBy, limit = "UPDATE", s.TableExprs, s.Where, s.OrderBy, s.Limit
	case *sqlparser.Delete:
		if len(s.Targets) > 0 {
			return nil, fmt.Errorf("%w: a multi-table DELETE has no LIMIT", ErrCrossNode)
		}
		kind, tables, where, orderBy, limit = "DELETE", s.TableExprs, s.Where, s.OrderBy, s.Limit
	default:
		return nil, fmt.Errorf("%w: only UPDATE and DELETE with ORDER BY … LIMIT are split into a SELECT of the keys and a write", ErrCrossNode)
	}
	refuse := func(format string, args ...any) (*Steps, error) {
		return nil, fmt.Errorf("%w: %s … ORDER BY … LIMIT over several data nodes: "+format, append([]any{ErrCrossNode, kind}, args...)...)
	}
	if limit == nil || limit.Offset != nil {
		return refuse("it has no LIMIT n")
	}
	switch l := limit.Rowcount.(type) {
	case *sqlparser.Literal:
		if l.Type != sqlparser.IntVal {
			return refuse("LIMIT %s must be an integer literal or a parameter", sqlparser.String(limit.Rowcount))
		}
	case *sqlparser.Argument: // ?
	case *sqlparser.FuncExpr: // sqlc.arg(n)
		if !strings.EqualFold(l.Qualifier.String(), "sqlc") {
			return refuse("LIMIT %s must be an integer literal or a parameter", sqlparser.String(limit.Rowcount))
		}
	default:
		return refuse("LIMIT %s must be an integer literal or a parameter", sqlparser.String(limit.Rowcount))
	}
	if len(tables) != 1 {
		return refuse("it names several tables")
	}
	at, ok := tables[0].(*sqlparser.AliasedTableExpr)
	tn, isName := sqlparser.TableName{}, false
	if ok {
		tn, isName = at.Expr.(sqlparser.TableName)
	}
	if !isName {
		return refuse("it names several tables")
	}
	info := b.tables()[strings.ToLower(tn.Name.String())]
	if info == nil || info.ddl == nil {
		return refuse("table %q has no DDL", tn.Name.String())
	}
	if info.enc != nil {
		return refuse("table %q has encrypted columns", info.name)
	}
	pk := info.ddl.PrimaryKey
	if len(pk) == 0 {
		return refuse("table %q has no primary key to select the rows by; declare one", info.name)
	}
	// A total ORDER BY names every column of the primary key or of a
	// unique key of NOT NULL columns (several NULLs are not unique).
	ordered := map[string]bool{}
	for _, o := range orderBy {
		if c, ok := o.Expr.(*sqlparser.ColName); ok {
			ordered[strings.ToLower(c.Name.String())] = true
		}
	}
	covers := func(cols []string) bool {
		for _, c := range cols {
			col := info.ddl.Column(c)
			if !ordered[strings.ToLower(c)] || col == nil || col.Nullable {
				return false
			}
		}
		return len(cols) > 0
	}
	total := covers(pk)
	for _, k := range info.ddl.Keys {
		total = total || k.Kind == "unique" && covers(k.Columns)
	}
	if !total {
		return refuse("the ORDER BY must include every column of the primary key (%s) or of a unique key of NOT NULL columns, so that it orders the rows totally and the rows MySQL would change are known; e.g. ORDER BY %s",
			strings.Join(pk, ", "), strings.Join(append(orderColumns(orderBy), pk...), ", "))
	}
	// The keys: SELECT pk FROM t WHERE … ORDER BY … LIMIT n.
	qual := tn
	if !at.As.IsEmpty() {
		qual = sqlparser.TableName{Name: at.As}
	}
	keys := &sqlparser.Select{From: []sqlparser.TableExpr{sqlparser.Clone(at)}, OrderBy: sqlparser.Clone(orderBy), Limit: sqlparser.Clone(limit)}
	var left sqlparser.ValTuple
	keys.SelectExprs = &sqlparser.SelectExprs{}
	for _, c := range pk {
		col := sqlparser.NewColNameWithQualifier(c, qual)
		keys.SelectExprs.Exprs = append(keys.SelectExprs.Exprs, &sqlparser.AliasedExpr{Expr: col})
		left = append(left, sqlparser.Clone(col))
	}
	if where != nil {
		keys.Where = sqlparser.Clone(where)
	}
	sub := &sqlparser.Subquery{Select: keys}
	var lhs sqlparser.Expr = left
	if len(left) == 1 {
		lhs = left[0]
	}
	in := &sqlparser.ComparisonExpr{Operator: sqlparser.InOp, Left: lhs, Right: sub}
	// The write: the statement without ORDER BY and LIMIT, its WHERE
	// ANDed with the keys.
	write := sqlparser.Clone(stmt)
	switch w := write.(type) {
	case *sqlparser.Update:
		w.OrderBy, w.Limit = nil, nil
		w.Where = andWhere(w.Where, in)
	case *sqlparser.Delete:
		w.OrderBy, w.Limit = nil, nil
		w.Where = andWhere(w.Where, in)
	}
	step := subqueryStep(sub, SubqueryIn)
	step.texts = b.subqueryTexts(sub)
	return &Steps{Kind: StepsSubqueries, SQL: sql, Subqueries: []*Subquery{step}, stmt: write, b: b, keys: pk}, nil
}

// writeTable returns the name of the table the write of st (steps of
// LimitedWriteSteps) writes, "" when st is no such write.
func (st *Steps) writeTable() string {
	var tables sqlparser.TableExprs
	switch w := st.stmt.(type) {
	case *sqlparser.Update:
		tables = w.TableExprs
	case *sqlparser.Delete:
		tables = w.TableExprs
	}
	if len(tables) != 1 {
		return ""
	}
	if at, ok := tables[0].(*sqlparser.AliasedTableExpr); ok {
		if tn, ok := at.Expr.(sqlparser.TableName); ok {
			return tn.Name.String()
		}
	}
	return ""
}

// setSharding returns the sharding column that the UPDATE of st (steps of
// LimitedWriteSteps) sets, "" when it sets none (or st is a DELETE).
func (st *Steps) setSharding() string {
	u, ok := st.stmt.(*sqlparser.Update)
	if !ok {
		return ""
	}
	info := st.b.tables()[strings.ToLower(st.writeTable())]
	if info == nil || !info.sharded() {
		return ""
	}
	for _, e := range u.Exprs {
		for _, c := range ruleColumns(info.rule) {
			if strings.EqualFold(c, e.Name.Name.String()) {
				return c
			}
		}
	}
	return ""
}

// andWhere returns the WHERE w AND e (e alone without w).
func andWhere(w *sqlparser.Where, e sqlparser.Expr) *sqlparser.Where {
	if w == nil || w.Expr == nil {
		return &sqlparser.Where{Type: sqlparser.WhereClause, Expr: e}
	}
	return &sqlparser.Where{Type: sqlparser.WhereClause, Expr: &sqlparser.AndExpr{Left: w.Expr, Right: e}}
}

// orderColumns returns the ORDER BY items that are columns, as written.
func orderColumns(orderBy sqlparser.OrderBy) []string {
	var out []string
	for _, o := range orderBy {
		if _, ok := o.Expr.(*sqlparser.ColName); ok {
			s := sqlparser.String(o.Expr)
			if o.Direction == sqlparser.DescOrder {
				s += " DESC"
			}
			out = append(out, s)
		}
	}
	return out
}
