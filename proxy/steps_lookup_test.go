package proxy

import (
	"testing"
)

// TestStepsLookup: a correlated scalar subquery of one aggregate whose
// tables do not co-locate with the outer query (xn_b sharded by bid,
// correlated on a_id) runs first grouped by its correlated columns, and
// its rows are looked up by the outer values: NULL (COUNT: 0) where no row
// matches, in the select list, WHERE and a derived table, compared with
// the unsharded reference database. Correlations other than inner = outer
// on non-text columns run over temporary tables.
func TestStepsLookup(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT id, (SELECT COUNT(*) FROM xn_b WHERE xn_b.a_id = xn_a.id) AS n FROM xn_a",
		"SELECT a.id, (SELECT SUM(b.price) FROM xn_b b WHERE b.a_id = a.id AND b.price > 1) s, (SELECT AVG(b.price) FROM xn_b b WHERE a.id = b.a_id) FROM xn_a a WHERE a.k = 10",
		"SELECT id FROM xn_a a WHERE (SELECT MAX(b.bid) FROM xn_b b WHERE b.a_id = a.id) > 103 ORDER BY id",
		"SELECT COUNT(*) FROM (SELECT a.id, (SELECT MIN(b.day) FROM xn_b b WHERE b.a_id = a.id) AS m FROM xn_a a WHERE a.id = 4) t WHERE m IS NOT NULL",
		"SELECT id, (SELECT COUNT(*) FROM xn_b b WHERE b.a_id = a.id) AS n FROM xn_a a ORDER BY id",
	} {
		sameRows(t, px, e.ref, q)
	}
	// Other correlations are evaluated over temporary tables
	// (TestStepsFederation).
	for _, q := range []string{
		"SELECT id, (SELECT COUNT(*) FROM xn_b b WHERE b.name = a.name) FROM xn_a a",
		"SELECT id, (SELECT COUNT(*) FROM xn_b b WHERE b.a_id > a.id) FROM xn_a a",
		"SELECT id, (SELECT b.bid FROM xn_b b WHERE b.a_id = a.id ORDER BY b.bid LIMIT 1) FROM xn_a a",
	} {
		sameRows(t, px, e.ref, q)
	}
}

// TestStepsLookupOrderByAlias: ORDER BY the alias of a correlated scalar
// subquery of the select list is an expression of the row: looked up per
// outer row (xn_b does not co-locate with xn_a) and merged by the
// aggregate's type (SUM of DECIMAL compares as a number, not as its text),
// or computed on each data node when the subquery co-locates; compared
// with the unsharded reference database.
func TestStepsLookupOrderByAlias(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT id, (SELECT COUNT(*) FROM xn_b b WHERE b.a_id = a.id) AS n FROM xn_a a ORDER BY n DESC, id",
		"SELECT id, (SELECT SUM(b.price) FROM xn_b b WHERE b.a_id = a.id) AS s FROM xn_a a ORDER BY s, id",
		"SELECT id, (SELECT SUM(b.price) FROM xn_b b WHERE b.a_id = a.id) AS s FROM xn_a a ORDER BY s DESC, id LIMIT 3",
		"SELECT id, (SELECT MAX(b.bid) FROM xn_b b WHERE b.a_id = a.id) AS m FROM xn_a a ORDER BY m DESC, id",
		"SELECT id, (SELECT AVG(b.price) FROM xn_b b WHERE b.a_id = a.id) AS v FROM xn_a a ORDER BY 2, 1",
		"SELECT id, (SELECT MIN(b.day) FROM xn_b b WHERE b.a_id = a.id) AS d FROM xn_a a ORDER BY d, id",
		"SELECT id, (SELECT COUNT(*) FROM xn_a a2 WHERE a2.id = a.id AND a2.k > 10) AS n FROM xn_a a ORDER BY n, id",
		"SELECT id, (SELECT a2.price FROM xn_a a2 WHERE a2.id = a.id) AS p FROM xn_a a ORDER BY p DESC, id",
	} {
		sameRows(t, px, e.ref, q)
	}
}
