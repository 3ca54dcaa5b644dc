package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParenthesizedSelect: a statement that starts with a parenthesis is
// a SELECT, prepared or not ("(SELECT …) UNION ALL (SELECT …)" was refused
// as "preparing  statements"), and a parenthesized SELECT with its own
// LIMIT followed by ORDER BY or LIMIT is refused: vitess's grammar set the
// outer ORDER BY and LIMIT on the inner SELECT, dropping its LIMIT, so
// `(SELECT id FROM xn_a ORDER BY id LIMIT 3) ORDER BY id DESC` returned
// every row (found by a fresh user).
func TestParenthesizedSelect(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"(SELECT id FROM xn_a ORDER BY id LIMIT 3) UNION ALL (SELECT bid FROM xn_b ORDER BY bid DESC LIMIT 2) ORDER BY 1",
		"(SELECT id, name FROM xn_a WHERE id = 4)",
		"((SELECT id FROM xn_a WHERE id IN (1, 2, 3)))",
		"(SELECT id FROM xn_a ORDER BY id) ORDER BY id DESC", // no inner LIMIT: the outer order is MySQL's too
	} {
		sameRows(t, px, e.ref, q)
		sameRowsArgs(t, px, e.ref, q+" LIMIT ?", 10) // prepared
	}
	sameRowsArgs(t, px, e.ref, "( SELECT id FROM xn_a WHERE id = ? ) UNION ( SELECT bid FROM xn_b WHERE bid = ? ) ORDER BY 1", 2, 103)
	for _, q := range []string{
		"(SELECT id FROM xn_a ORDER BY id LIMIT 3) ORDER BY id DESC",
		"(SELECT id FROM xn_a ORDER BY id LIMIT 3) LIMIT 5",
		"((SELECT id FROM xn_a ORDER BY id DESC LIMIT 5)) ORDER BY id LIMIT 2",
		"(SELECT id FROM xn_a WHERE id IN (2, 4, 6) ORDER BY id LIMIT 2) ORDER BY id DESC", // one data node
		"SELECT id FROM xn_a WHERE id IN ((SELECT a_id FROM xn_b ORDER BY bid LIMIT 1) ORDER BY a_id)",
	} {
		_, err := px.Query(q)
		require.ErrorContains(t, err, "parenthesized SELECT with its own LIMIT", q)
		_, err = px.Query(q+" /* prepared */ LIMIT ?", 1)
		require.Error(t, err, q)
	}
}
