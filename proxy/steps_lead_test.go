package proxy

import "testing"

// TestStepsPreservedConstantDerived: a derived table that names no sharded
// table (only DUAL or broadcast tables) on the preserved side of an outer
// join with a sharded table has the same rows on every data node, so
// spreading the statement would return its unmatched rows once per node
// (each row of t twice here before); it runs across data nodes instead,
// compared with the unsharded reference database.
func TestStepsPreservedConstantDerived(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT t.a, x.id FROM (SELECT 1 AS a UNION ALL SELECT 2) t LEFT JOIN xn_a x ON x.k = t.a",
		"SELECT t.a, x.id FROM (SELECT 10 AS a UNION ALL SELECT 20 UNION ALL SELECT 20) t LEFT JOIN xn_a x ON x.k = t.a",
		"SELECT t.a, x.id FROM xn_a x RIGHT JOIN (SELECT 10 AS a UNION SELECT 99) t ON x.k = t.a",
		"SELECT t.a, x.id FROM (SELECT 10 AS a FROM dual) t LEFT JOIN xn_a x ON x.k = t.a",
		"SELECT t.a, x.id FROM (SELECT 10 AS a) t JOIN xn_a x ON x.k = t.a",
		"SELECT t.a, COUNT(x.id) FROM (SELECT 10 AS a UNION ALL SELECT 77) t LEFT JOIN xn_a x ON x.k = t.a GROUP BY t.a",
	} {
		sameRows(t, px, e.ref, q)
	}
}
