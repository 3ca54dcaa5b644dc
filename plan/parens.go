package plan

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// lostLimit reports whether the parse stmt of sql lost a LIMIT the text
// has. vitess's grammar reads a parenthesized query followed by ORDER BY
// or LIMIT, `(SELECT … ORDER BY a LIMIT 3) ORDER BY a DESC`, by setting
// the outer ORDER BY and LIMIT on the inner SELECT, replacing its own
// (query_expression: query_expression_parens order_by_clause limit_opt):
// the statement would return every row, in MySQL the 3 first. Such a
// statement holds more LIMIT keywords than its parse holds LIMIT clauses.
func lostLimit(parser *sqlparser.Parser, sql string, stmt sqlparser.Statement) bool {
	low := strings.ToLower(sql)
	if !strings.Contains(low, "limit") || !strings.Contains(low, "(") {
		return false
	}
	words := 0
	tkn := parser.NewStringTokenizer(sql)
	for {
		typ, _ := tkn.Scan()
		if typ == 0 || typ == sqlparser.LEX_ERROR {
			break
		}
		if typ == sqlparser.LIMIT {
			words++
		}
	}
	clauses := 0
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if l, ok := n.(*sqlparser.Limit); ok && l != nil {
			clauses++
		}
		return true, nil
	}, stmt)
	return words > clauses
}

// lostLimitReason is the refusal of a statement lostLimit reports.
const lostLimitReason = "a parenthesized SELECT with its own LIMIT followed by ORDER BY or LIMIT, `(SELECT … LIMIT n) ORDER BY …`, is not supported (the parser would drop the inner LIMIT); select from it as a derived table: SELECT * FROM (SELECT … LIMIT n) AS t ORDER BY …"
