package proxy

import "testing"

// TestJoinUsing: JOIN … USING (c) as MySQL reads it: an unqualified c
// anywhere in the statement is the coalesced column (the left table's; a
// RIGHT JOIN's right one), not ambiguous; `*` lists it once, first; the
// USING equality makes a self-join on the sharding column co-locate.
// Compared with the unsharded reference database.
func TestJoinUsing(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT id, a.k, b.name FROM xn_a a JOIN xn_a b USING (id) WHERE id IN (1, 4, 7) ORDER BY id",
		"SELECT id, k FROM xn_a a JOIN xn_a b USING (id, k) ORDER BY id DESC",
		"SELECT * FROM xn_a a JOIN xn_a b USING (id) ORDER BY id",
		"SELECT * FROM xn_a a JOIN xn_a b USING (k, id) WHERE k > 10 ORDER BY id LIMIT 2",
		"SELECT id, COUNT(*) FROM xn_a a LEFT JOIN xn_a b USING (id) GROUP BY id ORDER BY id",
		"SELECT * FROM xn_a a RIGHT JOIN xn_a b USING (id) WHERE id = 4",
		"SELECT b.*, id FROM xn_a a JOIN xn_a b USING (id) WHERE id = 2",
		"SELECT id FROM xn_a a JOIN xn_a b USING (id) WHERE id IN (SELECT a_id FROM xn_b) ORDER BY id",
	} {
		sameRows(t, px, e.ref, q)
	}
}
