package proxy

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// ROW_COUNT() and FOUND_ROWS() are values of a MySQL session: the affected
// rows of its last statement (-1 after a result set), and the rows its last
// SELECT returned (or would have without LIMIT, with SQL_CALC_FOUND_ROWS).
// Run on a data source they are that back-end connection's, which is not
// the client's session (a table-less SELECT runs on one data source, a
// statement over several data nodes on several connections). The proxy
// does not keep them per session yet, so it refuses every statement that
// reads them, and SQL_CALC_FOUND_ROWS, rather than answer a wrong value.

// sessionCounterRefusal returns ERROR 1235 when the statement q calls
// ROW_COUNT() or FOUND_ROWS() or has SQL_CALC_FOUND_ROWS, nil otherwise.
// A statement naming neither is passed without parsing or allocating.
func (h *handler) sessionCounterRefusal(q string) error {
	if !containsFold(q, "row_count") && !containsFold(q, "found_rows") {
		return nil
	}
	stmt, err := h.s.b.Parser().Parse(q)
	if _, other := stmt.(*sqlparser.OtherAdmin); err != nil || other {
		// Not parsed here (a SET with :=, ...), or parsed without its
		// expressions (DO): refuse when the text reads like a call,
		// rather than let a data source answer it.
		return counterCallText(q)
	}
	var refusal error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.FuncExpr:
			if !n.Qualifier.IsEmpty() {
				return true, nil // db.row_count(): a stored function
			}
			if r := counterFunc(n.Name.Lowered()); r != nil {
				refusal = r
				return false, nil
			}
		case *sqlparser.Select:
			if n.SQLCalcFoundRows {
				refusal = foundRowsRefusal("SQL_CALC_FOUND_ROWS")
				return false, nil
			}
		}
		return true, nil
	}, stmt)
	return refusal
}

// counterFunc returns the refusal of a call of the function named fn (lower
// case) when it is ROW_COUNT or FOUND_ROWS.
func counterFunc(fn string) error {
	switch fn {
	case "row_count":
		return notSupported("ROW_COUNT(): the proxy does not keep it per session, and a data source's is its own connection's; read the affected rows of the statement's OK packet instead")
	case "found_rows":
		return foundRowsRefusal("FOUND_ROWS()")
	}
	return nil
}

// foundRowsRefusal is ERROR 1235 for what (FOUND_ROWS(),
// SQL_CALC_FOUND_ROWS).
func foundRowsRefusal(what string) error {
	return notSupported(what + ": the proxy does not keep the found rows per session, and a data source's are its own connection's; count the rows with SELECT COUNT(*) and the same conditions instead")
}

// counterCallText is the refusal for the text q that the parser did not
// read: a word ROW_COUNT or FOUND_ROWS followed by "(", or the word
// SQL_CALC_FOUND_ROWS.
func counterCallText(q string) error {
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
				return foundRowsRefusal("SQL_CALC_FOUND_ROWS")
			}
			if strings.HasPrefix(strings.TrimLeft(l[end:], " \t\r\n"), "(") {
				return counterFunc(fn)
			}
		}
	}
	return nil
}
