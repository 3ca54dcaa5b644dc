package difftest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPushdownImpliedConditions: a derived table without a sharding
// condition of its own routes by the enclosing level's condition on a
// column that passes its sharding column through (TPC-C's consistency
// checks), also under a derived alias spelled like a logic table, through
// nested derived tables, `=` between columns and the ON of an outer join
// for its inner side; where a row of the derived table could come from
// other data nodes (LIMIT, an aggregate not grouped by the column, an
// outer join's preserved side) the route is not narrowed and the
// statement is refused.
func TestPushdownImpliedConditions(t *testing.T) {
	e := newEnv(t, pushdownRules, pushdownDDL)
	seedPushdown(e)
	for _, q := range []struct {
		sql    string
		params []any
	}{
		{"SELECT COUNT(*) FROM (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM p_line GROUP BY ol_w_id, ol_d_id) AS l WHERE l.ol_w_id = ? AND n > 2", []any{2}},
		{"SELECT p_line.ol_d_id, p_line.n FROM (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM p_line GROUP BY 1, 2) AS p_line WHERE p_line.ol_w_id = 1", nil},
		// Transitively: the derived tables' columns compared with each other
		// and one of them with the warehouse (go-tpc's 3.3.2.9 and 3.3.2.11).
		{"SELECT COUNT(*) FROM (SELECT ol_w_id, ol_d_id, MAX(ol_o_id) AS mo FROM p_line GROUP BY ol_w_id, ol_d_id) AS l, (SELECT s_w_id, SUM(s_quantity) AS q FROM p_stock GROUP BY s_w_id) AS s WHERE l.ol_w_id = s.s_w_id AND s.s_w_id = ? AND mo < q", []any{1}},
		{"SELECT COUNT(*) FROM (SELECT * FROM (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM p_line GROUP BY ol_w_id, ol_d_id) AS p_line JOIN (SELECT s_w_id, COUNT(*) AS k FROM p_stock GROUP BY s_w_id) AS p_stock ON p_line.ol_w_id = p_stock.s_w_id) AS x JOIN (SELECT DISTINCT s_w_id AS w FROM p_stock) AS y ON x.s_w_id = y.w WHERE y.w = 2 AND n <> k", nil},
		// The inner side of a LEFT JOIN takes the ON's values (3.3.2.6).
		{"SELECT s.s_i_id, l.n FROM p_stock s LEFT JOIN (SELECT ol_w_id, ol_i_id, COUNT(*) AS n FROM p_line GROUP BY ol_w_id, ol_i_id) AS l ON l.ol_w_id = s.s_w_id AND l.ol_i_id = s.s_i_id WHERE s.s_w_id = ?", []any{2}},
	} {
		require.Empty(t, e.query(q.sql, nil, nil, nil, q.params...), q.sql)
	}
	for _, q := range []string{
		"SELECT * FROM (SELECT ol_w_id, ol_i_id FROM p_line ORDER BY ol_i_id, ol_w_id LIMIT 3) AS x WHERE x.ol_w_id = 1",
		"SELECT * FROM (SELECT MAX(ol_w_id) AS w, COUNT(*) AS n FROM p_line) AS x WHERE x.w = 2",
		"SELECT * FROM (SELECT ol_d_id, MAX(ol_w_id) AS w FROM p_line GROUP BY ol_d_id) AS x WHERE x.w = 2",
		"SELECT * FROM (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM p_line GROUP BY ol_d_id) AS x WHERE x.ol_w_id = 2",
		"SELECT * FROM (SELECT ol_w_id FROM p_line UNION ALL SELECT s_w_id FROM p_stock) AS x WHERE x.ol_w_id = 2",
		"SELECT COUNT(*) FROM (SELECT ol_w_id, ol_i_id FROM p_line) AS l LEFT JOIN p_stock s ON s.s_w_id = l.ol_w_id AND l.ol_w_id = 1",
	} {
		_, err := e.plan(q)
		require.ErrorContains(t, err, "does not route to one", q)
	}
}
