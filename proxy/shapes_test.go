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
