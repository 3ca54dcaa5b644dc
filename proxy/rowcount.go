package proxy

import (
	"context"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// ROW_COUNT() and FOUND_ROWS() are values of a MySQL session: the affected
// rows of its last statement (-1 after a result set or an error), and the
// rows its last SELECT returned (or would have without LIMIT, with
// SQL_CALC_FOUND_ROWS). Run on a data source they would be that back-end
// connection's, which is not the client's session (a table-less SELECT
// runs on one data source, a statement over several data nodes on several
// connections), so the session keeps them (session.rowCount, lastFound),
// as MariaDB 10.11 does, from what the proxy answered the client:
//
//   - an OK packet: ROW_COUNT() is its affected rows (the merged total over
//     the data nodes; for SET, USE, BEGIN, DO, DDL the OK's 0);
//   - a result set: ROW_COUNT() is -1, FOUND_ROWS() its number of rows;
//   - an error: ROW_COUNT() is -1, FOUND_ROWS() is unchanged.
//
// Every answering path records its answer (answered, and the fast path's
// relayAnswer, relayOK, fastError and answerTx), and a statement reading
// them has them replaced by the session's values before it is planned
// (countersStatement), so no data source is asked. A SELECT with
// SQL_CALC_FOUND_ROWS runs without the keyword, and its found rows are
// counted over every data node by the same statement without LIMIT: a
// COUNT(*) in place of its columns when it has no grouping, DISTINCT or
// aggregate, else its merged rows. Statements whose use of them cannot be
// evaluated exactly are refused with the reason.

// counterText reports whether q may read ROW_COUNT() or FOUND_ROWS() or
// use SQL_CALC_FOUND_ROWS: whether it names them at all. A statement
// naming neither is passed without parsing or allocating. It is asked
// where fast routes are learned (once per text), never per fast-path
// statement.
func counterText(q string) bool {
	return containsFold(q, "row_count") || containsFold(q, "found_rows")
}

// answered records in the session's counters the answer of a statement
// of the database/sql path: its last result res, or its error err.
func (sess *session) answered(res *sqltypes.Result, err error) {
	calc := sess.calcPending
	sess.calcPending = false
	switch {
	case err != nil || res == nil:
		sess.rowCount = -1
	case len(res.Fields) > 0:
		sess.rowCount = -1
		if calc {
			sess.lastFound = sess.calcFound
		} else {
			sess.lastFound = uint64(len(res.Rows))
		}
	default:
		sess.rowCount = int64(res.RowsAffected)
	}
}

// answeredAll is answered for the results of a statement (several for a
// CALL): the last one counts.
func (sess *session) answeredAll(results []*sqltypes.Result, err error) {
	var last *sqltypes.Result
	if len(results) > 0 {
		last = results[len(results)-1]
	}
	sess.answered(last, err)
}

// counterUse is what a statement does with the session's counters.
type counterUse struct {
	calls bool              // it calls ROW_COUNT() or FOUND_ROWS()
	calc  *sqlparser.Select // its SELECT with SQL_CALC_FOUND_ROWS (the statement itself)
	err   error             // why it cannot be run exactly
}

// parseCounters parses q, which counterText found naming the counters, for
// countersStatement: stmt is the statement (for DO, the SELECT of its
// expressions: do is set), nil with use.err set when q reads like a call
// the parser cannot read, nil with a zero use when q calls neither.
func (h *handler) parseCounters(q string) (stmt sqlparser.Statement, do bool, use counterUse) {
	word, rest := firstWord(q)
	text := q
	if word == "do" {
		text, do = "SELECT "+rest, true
	}
	stmt, err := h.s.b.Parser().Parse(text)
	if err != nil && word == "set" {
		stmt, err = h.s.b.Parser().Parse(colonEqualsAsEquals(q))
	}
	if _, other := stmt.(*sqlparser.OtherAdmin); err != nil || other {
		// Not read by the parser: refuse when the text reads like a
		// call, rather than let a data source answer it.
		if r := counterCallText(q); r != "" {
			use.err = notSupported(r + " in a statement the proxy's parser does not read")
		}
		return nil, false, use
	}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.FuncExpr:
			if substituted(n) {
				return false, nil
			}
			if counterCall(n) != "" {
				use.calls = true
			}
		case *sqlparser.Select:
			if n.SQLCalcFoundRows {
				if n != stmt || do {
					use.err = notSupported("SQL_CALC_FOUND_ROWS in a subquery, a UNION or a DO: MariaDB counts the found rows of the outermost SELECT only")
					return false, nil
				}
				use.calc = n
			}
		}
		return true, nil
	}, stmt)
	if use.calc != nil && use.calc.Into != nil {
		use.err = notSupported("SELECT ... INTO with SQL_CALC_FOUND_ROWS")
	}
	return stmt, do, use
}

// counterCall returns "ROW_COUNT()" or "FOUND_ROWS()" when f calls it
// (not a stored function of a database: db.row_count()), "" otherwise.
func counterCall(f *sqlparser.FuncExpr) string {
	if !f.Qualifier.IsEmpty() || len(f.Exprs) != 0 {
		return ""
	}
	switch f.Name.Lowered() {
	case "row_count":
		return "ROW_COUNT()"
	case "found_rows":
		return "FOUND_ROWS()"
	}
	return ""
}

// substituted reports whether f is a value countersStatement put in place
// of a counter in a result column: IF(1, value, ROW_COUNT()), typed as the
// call (a BIGINT of 21 digits, NOT NULL) whatever the value, which the
// data source returns without calling the function.
func substituted(f *sqlparser.FuncExpr) bool {
	if !f.Name.EqualString("if") || len(f.Exprs) != 3 {
		return false
	}
	l, ok := f.Exprs[0].(*sqlparser.Literal)
	call, isCall := f.Exprs[2].(*sqlparser.FuncExpr)
	return ok && l.Type == sqlparser.IntVal && l.Val == "1" && isCall && counterCall(call) != ""
}

// counterValue is the session's value of the counter call f (counterCall)
// as a literal.
func (sess *session) counterValue(f *sqlparser.FuncExpr) sqlparser.Expr {
	if f.Name.Lowered() == "row_count" {
		return sqlparser.NewIntLiteral(strconv.FormatInt(sess.rowCount, 10))
	}
	return sqlparser.NewIntLiteral(strconv.FormatUint(sess.lastFound, 10))
}

// counterForm is how replaceCounters writes a counter's value.
type counterForm int

const (
	// plainValue is a literal (a routing condition, an inserted value).
	plainValue counterForm = iota
	// typedValue is IF(1, value, call), typed as the call (a BIGINT of
	// 21 digits, NOT NULL): result columns.
	typedValue
	// castValue is CAST(value AS SIGNED), an expression rather than a
	// column position, of a type the merge compares: ORDER BY and GROUP
	// BY.
	castValue
)

// replaceCounters replaces in node every counter call by the session's
// value, written in the form form.
func (sess *session) replaceCounters(node sqlparser.SQLNode, form counterForm) {
	sqlparser.Rewrite(node, func(cur *sqlparser.Cursor) bool {
		f, ok := cur.Node().(*sqlparser.FuncExpr)
		if !ok {
			return true
		}
		if substituted(f) {
			return false
		}
		if counterCall(f) == "" {
			return true
		}
		v := sess.counterValue(f)
		switch form {
		case typedValue:
			v = &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("IF"), Exprs: []sqlparser.Expr{sqlparser.NewIntLiteral("1"), v, f}}
		case castValue:
			v = &sqlparser.CastExpr{Expr: v, Type: &sqlparser.ConvertType{Type: "signed"}}
		}
		cur.Replace(v)
		return false
	}, nil)
}

// countersStatement answers the statement q when it calls ROW_COUNT() or
// FOUND_ROWS() or has SQL_CALC_FOUND_ROWS (see the top of the file); ok
// is false when it does neither (a column named row_count, a stored
// function db.row_count()): q then runs as any other statement.
func (h *handler) countersStatement(ctx context.Context, c *mysql.Conn, sess *session, q string) (res *sqltypes.Result, ok bool, err error) {
	stmt, do, use := h.parseCounters(q)
	if use.err != nil {
		return nil, true, use.err
	}
	if !use.calls && use.calc == nil {
		return nil, false, nil
	}
	if sel, isSel := stmt.(*sqlparser.Select); isSel && !do {
		// Each column named as the client wrote it, before the values
		// change the expressions.
		nameAsWritten(q, stmt)
		sess.replaceCounters(sel.SelectExprs, typedValue)
	} else if !do {
		nameAsWritten(q, stmt)
	}
	// ORDER BY a counter orders by a constant: the item is dropped. In
	// ORDER BY and GROUP BY a plain integer would name a column by its
	// position: cast there.
	var orders []sqlparser.SQLNode
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.Select:
			n.OrderBy = withoutCounters(n.OrderBy)
		case *sqlparser.Union:
			n.OrderBy = withoutCounters(n.OrderBy)
		case *sqlparser.Update:
			n.OrderBy = withoutCounters(n.OrderBy)
		case *sqlparser.Delete:
			n.OrderBy = withoutCounters(n.OrderBy)
		}
		return true, nil
	}, stmt)
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case sqlparser.OrderBy:
			orders = append(orders, n)
		case *sqlparser.GroupBy:
			orders = append(orders, n)
		}
		return true, nil
	}, stmt)
	for _, n := range orders {
		sess.replaceCounters(n, castValue)
	}
	sess.replaceCounters(stmt, plainValue)
	if r := remainingCounter(stmt); r != "" {
		// A position the rewrite does not reach: never a data source's
		// value (nor the same text planned again).
		return nil, true, notSupported(r + " in this position of a statement")
	}
	calc := use.calc
	if calc != nil {
		calc.SQLCalcFoundRows = false
	}
	text := sqlparser.String(stmt)
	if do {
		text = "DO " + sqlparser.String(stmt.(*sqlparser.Select).SelectExprs)
	}
	// Run as any statement, but never on a fast route learned now: the
	// client's text is not the one learned.
	textQuery := sess.textQuery
	sess.textQuery = false
	defer func() { sess.textQuery = textQuery }()
	if res, err = h.queryStandard(ctx, c, sess, text); err != nil || calc == nil {
		return res, true, err
	}
	found := uint64(len(res.Rows))
	if calc.Limit != nil {
		if found, err = h.countFound(ctx, c, sess, calc); err != nil {
			return nil, true, err
		}
	}
	sess.calcPending, sess.calcFound = true, found
	return res, true, nil
}

// remainingCounter names a counter call left in stmt outside the values
// replaceCounters wrote, "" when there is none.
func remainingCounter(stmt sqlparser.SQLNode) string {
	left := ""
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if f, ok := n.(*sqlparser.FuncExpr); ok {
			if substituted(f) {
				return false, nil
			}
			if r := counterCall(f); r != "" {
				left = r
			}
		}
		return left == "", nil
	}, stmt)
	return left
}

// withoutCounters returns the items of ob but those ordering by a counter
// call alone (a constant within the statement).
func withoutCounters(ob sqlparser.OrderBy) sqlparser.OrderBy {
	out := ob[:0]
	for _, o := range ob {
		if f, ok := o.Expr.(*sqlparser.FuncExpr); ok && counterCall(f) != "" {
			continue
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// countFound counts the rows the SELECT sel (with its counters replaced)
// finds without its LIMIT, over every data node it routes to: a COUNT(*)
// with the same FROM and WHERE when it has no grouping, DISTINCT,
// aggregate or window, else its rows without LIMIT (merged by the proxy as
// they would be with it). sel is changed.
func (h *handler) countFound(ctx context.Context, c *mysql.Conn, sess *session, sel *sqlparser.Select) (uint64, error) {
	sel.Limit, sel.OrderBy = nil, nil
	simple := len(sel.From) > 0 && !sel.Distinct && sel.GroupBy == nil && sel.Having == nil && len(sel.Windows) == 0 &&
		!sqlparser.ContainsAggregation(sel.SelectExprs)
	if simple {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if _, over := n.(*sqlparser.OverClause); over {
				simple = false
			}
			return simple, nil
		}, sel.SelectExprs)
	}
	if simple {
		count := sqlparser.CloneRefOfSelect(sel)
		count.SelectExprs = &sqlparser.SelectExprs{Exprs: []sqlparser.SelectExpr{&sqlparser.AliasedExpr{Expr: &sqlparser.CountStar{}}}}
		res, err := h.queryStandard(ctx, c, sess, sqlparser.String(count))
		if err == nil && len(res.Rows) == 1 && len(res.Rows[0]) == 1 {
			if n, perr := res.Rows[0][0].ToUint64(); perr == nil {
				return n, nil
			}
		}
		// Refused as a count (a shape the planner takes only with its
		// columns): count its rows.
	}
	res, err := h.queryStandard(ctx, c, sess, sqlparser.String(sel))
	if err != nil {
		return 0, err
	}
	return uint64(len(res.Rows)), nil
}

// countersPrepared reports whether the prepared statement q calls
// ROW_COUNT() or FOUND_ROWS() or has SQL_CALC_FOUND_ROWS: it is then
// prepared without columns, and each execution runs as the text statement
// with its values in place (stmtExecute), whose counters are the
// session's at that time. err is the refusal of a use that cannot be
// evaluated exactly.
func (h *handler) countersPrepared(q string) (bool, error) {
	if !counterText(q) {
		return false, nil
	}
	_, _, use := h.parseCounters(q)
	return use.err != nil || use.calls || use.calc != nil, use.err
}

// counterCallText names the counter (ROW_COUNT(), FOUND_ROWS(),
// SQL_CALC_FOUND_ROWS) that the text q the parser did not read seems to
// use: a word ROW_COUNT or FOUND_ROWS followed by "(", or the word
// SQL_CALC_FOUND_ROWS; "" when none.
func counterCallText(q string) string {
	l := strings.ToLower(q)
	for _, fn := range [...]string{"row_count", "found_rows", "sql_calc_found_rows"} {
		for i := 0; ; {
			j := strings.Index(l[i:], fn)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(fn)
			i = end
			if start > 0 && identByte(l[start-1]) || end < len(l) && identByte(l[end]) {
				continue
			}
			if fn == "sql_calc_found_rows" {
				return "SQL_CALC_FOUND_ROWS"
			}
			if strings.HasPrefix(strings.TrimLeft(l[end:], " \t\r\n"), "(") {
				return strings.ToUpper(fn) + "()"
			}
		}
	}
	return ""
}

// callCounters returns the routine statement q with the session's values
// in place of ROW_COUNT() and FOUND_ROWS() when it is a CALL passing them
// (CALL p(ROW_COUNT())); a routine's body (CREATE PROCEDURE ... BEGIN
// ... END) runs on its data source, where they are its own statements'.
func (h *handler) callCounters(sess *session, q string) (string, error) {
	if !counterText(q) {
		return q, nil
	}
	if w, _ := nextWord(q, 0); !strings.EqualFold(w, "call") {
		return q, nil // comments before it skipped
	}
	stmt, err := h.s.b.Parser().Parse(q)
	if err != nil {
		if r := counterCallText(q); r != "" {
			return "", notSupported(r + " in a statement the proxy's parser does not read")
		}
		return q, nil
	}
	calls := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if f, ok := n.(*sqlparser.FuncExpr); ok && counterCall(f) != "" {
			calls = true
		}
		return !calls, nil
	}, stmt)
	if !calls {
		return q, nil
	}
	sess.replaceCounters(stmt, plainValue)
	return sqlparser.String(stmt), nil
}
