package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEncryptRefusalContext: a refusal to use an encrypted column names the
// clause or expression the user wrote, on one data node and over several
// (whose per-node statement has clauses the merge added: COUNT(DISTINCT x)
// runs as GROUP BY x on every node).
func TestEncryptRefusalContext(t *testing.T) {
	b := encBuilder(t)
	const why = ": only projections, =, <>, IN, IS [NOT] NULL and LIKE (with a like-query column) work on cipher text"
	tests := []struct{ sql, col, used, at string }{
		{"SELECT COUNT(DISTINCT mobile) FROM t_user", "mobile", "COUNT(DISTINCT mobile)", "3:8"},
		{"SELECT COUNT(DISTINCT mobile) FROM t_user WHERE user_id = ?", "mobile", "COUNT(DISTINCT mobile)", "3:8"},
		{"SELECT name, count(distinct email) FROM t_user GROUP BY name", "email", "COUNT(DISTINCT email)", "3:14"},
		{"SELECT mobile, COUNT(*) FROM t_user GROUP BY mobile", "mobile", "GROUP BY", "3:46"},
		{"SELECT mobile, COUNT(*) FROM t_user WHERE user_id = ? GROUP BY mobile", "mobile", "GROUP BY", "3:64"},
		{"SELECT MAX(mobile) FROM t_user", "mobile", "MAX(mobile)", "3:8"},
		{"SELECT SUM(email) FROM t_user WHERE user_id = ?", "email", "SUM(email)", "3:8"},
		{"SELECT name FROM t_user ORDER BY mobile", "mobile", "ORDER BY", "3:34"},
		{"SELECT name FROM t_user WHERE user_id = ? ORDER BY email DESC", "email", "ORDER BY", "3:52"},
		{"SELECT name FROM t_user WHERE mobile BETWEEN 'a' AND 'b'", "mobile", "BETWEEN", "3:31"},
		{"SELECT name FROM t_user WHERE user_id = ? AND LENGTH(mobile) = 3", "mobile", "LENGTH(mobile)", "3:47"},
		{"SELECT name FROM t_user WHERE user_id = ? AND email + 1 = 2", "email", "arithmetic", "3:47"},
		// By alias or position: the nodes would sort by the cipher text.
		{"SELECT mobile AS m FROM t_user ORDER BY m", "mobile", "ORDER BY", "3:41"},
		{"SELECT name, mobile FROM t_user WHERE user_id = ? ORDER BY 2 DESC", "mobile", "ORDER BY", "3:60"},
		{"SELECT * FROM t_user ORDER BY 3", "mobile", "ORDER BY", "3:31"},
	}
	for _, tt := range tests {
		_, err := build(t, b, ":many", tt.sql, "shardgen:allow-full-route")
		require.EqualError(t, err, `q.sql:`+tt.at+`: query "Q": encrypted column "`+tt.col+`" cannot be used in `+tt.used+why, tt.sql)
	}
}

// TestEncryptOrderByPlain: ORDER BY a column that is not read as cipher
// text, by name, alias or position, still plans.
func TestEncryptOrderByPlain(t *testing.T) {
	b := encBuilder(t)
	for _, q := range []string{
		"SELECT name AS n, mobile FROM t_user ORDER BY n",
		"SELECT name, mobile FROM t_user ORDER BY 1",
		"SELECT * FROM t_user ORDER BY 2, user_id",
		"SELECT mobile, COUNT(*) AS c FROM t_user WHERE user_id = ? GROUP BY user_id ORDER BY c",
	} {
		_, err := build(t, b, ":many", q, "shardgen:allow-full-route")
		require.NoError(t, err, q)
	}
}
