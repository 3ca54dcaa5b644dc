package proxy

import "testing"

// TestStepsQuestionMarkLiteral: a '?' inside a string literal is no
// placeholder: a correlated EXISTS with LIKE 'a?b' is evaluated across
// data nodes (federation) as with any other literal, same rows as the
// reference database.
func TestStepsQuestionMarkLiteral(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT COUNT(*) FROM xn_b b WHERE EXISTS (SELECT 1 FROM xn_a a WHERE a.id = b.a_id) AND b.name LIKE 'a?b'",
		"SELECT b.bid FROM xn_b b WHERE EXISTS (SELECT 1 FROM xn_a a WHERE a.id = b.a_id) AND b.name <> '?' /* ? */",
	} {
		sameRows(t, px, e.ref, q)
	}
}

// TestStepsJoinSideWithoutColumns: a join across data nodes where a side
// has no column used (COUNT(*) over a comma join, ON 1=1) reads one
// constant per row of that side and pairs every row, as the reference
// database (duplicates counted).
func TestStepsJoinSideWithoutColumns(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT COUNT(*) FROM xn_a a, xn_b b",
		"SELECT COUNT(*) FROM xn_a a JOIN xn_b b ON 1=1",
		"SELECT a.id FROM xn_a a JOIN xn_b b ON 1=1",
		"SELECT b.name FROM xn_a a, xn_b b WHERE a.k = 10",
	} {
		sameRows(t, px, e.ref, q)
	}
}

// TestStepsUnionDual: a UNION with a SELECT without a table (or FROM
// DUAL) reads that constant row once, on the data node of the other parts
// or any one, as the reference database.
func TestStepsUnionDual(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT name FROM xn_a WHERE id = 1 UNION SELECT 'zzz'",
		"SELECT name FROM xn_a WHERE id = 2 UNION ALL SELECT 'zzz' FROM DUAL",
		"SELECT 'zzz' UNION SELECT name FROM xn_a WHERE id = 1",
		"SELECT id FROM xn_a UNION SELECT 42",
		"SELECT id FROM xn_a UNION ALL SELECT 42 ORDER BY 1 DESC",
		"SELECT 1 UNION SELECT 2",
	} {
		sameRows(t, px, e.ref, q)
	}
}
