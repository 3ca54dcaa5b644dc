package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/runtime"
)

// TestMergeKeyKinds checks the kind a merge compares an ORDER BY / GROUP BY
// expression with (MySQL's result type of the expression), and that a key
// whose type the planner cannot tell is refused rather than compared as
// text (a fresh-user run found `ORDER BY amount * 2` merged as strings).
func TestMergeKeyKinds(t *testing.T) {
	b := newBuilder(t)
	for _, tc := range []struct {
		sql  string
		want runtime.ColumnType
		err  string
	}{
		{sql: "SELECT amount FROM t_order ORDER BY amount * 2", want: runtime.ColumnDecimal},
		{sql: "SELECT amount FROM t_order ORDER BY amount + 0 DESC", want: runtime.ColumnDecimal},
		{sql: "SELECT amount FROM t_order ORDER BY ABS(amount)", want: runtime.ColumnDecimal},
		{sql: "SELECT order_id FROM t_order ORDER BY status IS NULL, order_id", want: runtime.ColumnInt},
		{sql: "SELECT order_id FROM t_order ORDER BY -order_id", want: runtime.ColumnInt},
		{sql: "SELECT order_id FROM t_order ORDER BY LENGTH(status)", want: runtime.ColumnInt},
		{sql: "SELECT order_id FROM t_order ORDER BY order_id / 3", want: runtime.ColumnDecimal},
		{sql: "SELECT order_id FROM t_order ORDER BY order_id DIV 3", want: runtime.ColumnInt},
		{sql: "SELECT order_id FROM t_order ORDER BY order_id * 1.5e0", want: runtime.ColumnFloat},
		{sql: "SELECT order_id FROM t_order ORDER BY CAST(status AS SIGNED)", want: runtime.ColumnInt},
		{sql: "SELECT COUNT(*) FROM t_order GROUP BY status IS NULL", want: runtime.ColumnInt},
		// UPPER / LOWER keep their argument's collation; DATE(x) and
		// CAST(x AS DATE) are dates.
		{sql: "SELECT order_id FROM t_order ORDER BY UPPER(status)", want: runtime.ColumnString},
		{sql: "SELECT LOWER(status), COUNT(*) FROM t_order GROUP BY LOWER(status)", want: runtime.ColumnString},
		{sql: "SELECT DATE(born), COUNT(*) FROM t_user GROUP BY DATE(born)", want: runtime.ColumnTime},
		{sql: "SELECT COUNT(*) FROM t_user GROUP BY CAST(born AS DATE)", want: runtime.ColumnTime},
		{sql: "SELECT user_id FROM t_user ORDER BY CAST(born AS DATETIME) DESC", want: runtime.ColumnTime},
		{sql: "SELECT order_id FROM t_order ORDER BY CONCAT(status, 'x') COLLATE utf8mb4_bin", want: runtime.ColumnString},
		{sql: "SELECT order_id FROM t_order ORDER BY UPPER(LENGTH(status))",
			err: "ORDER BY UPPER(LENGTH(`status`)) over several data nodes cannot be merged: shardgen cannot tell how MySQL compares its values; CAST it (AS SIGNED, DECIMAL(p,s), DOUBLE), name the collation of text (COLLATE utf8mb4_bin) or use a column"},
		{sql: "SELECT COUNT(*) FROM t_order GROUP BY COALESCE(status, 'x')", want: runtime.ColumnString},
		{sql: "SELECT COUNT(*) FROM t_order GROUP BY COALESCE(status, 1)",
			err: "GROUP BY COALESCE(`status`, 1) over several data nodes cannot be merged"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			p, err := build(t, b, ":many", tc.sql, "shardgen:allow-full-route")
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, p.Merge)
			key := -1
			if len(p.Merge.GroupBy) > 0 {
				key = p.Merge.GroupBy[0]
			} else {
				key = p.Merge.OrderBy[0].Column
			}
			require.Equal(t, tc.want, p.Merge.Kinds[key].Type)
		})
	}
}
