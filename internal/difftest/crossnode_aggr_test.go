package difftest

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// columnDefs returns the column definitions of q's result as MySQL
// describes them to a client: name, type (with UNSIGNED), nullability and
// the DECIMAL precision and scale.
func columnDefs(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	require.NoError(t, err, q)
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	require.NoError(t, err, q)
	var out []string
	for _, ct := range cts {
		n, _ := ct.Nullable()
		p, s, _ := ct.DecimalSize()
		out = append(out, fmt.Sprintf("%s %s null=%v dec=%d,%d", ct.Name(), ct.DatabaseTypeName(), n, p, s))
	}
	return out
}

// TestCrossNodeAggregates: COUNT(DISTINCT a, b) and BIT_AND / BIT_OR /
// BIT_XOR over groups that span data nodes, in the select list, in
// expressions, in HAVING and ORDER BY, over no row (BIT_AND's
// 18446744073709551615), and beside COUNT/SUM/AVG(DISTINCT x): the rows
// and the column definitions (COUNT(DISTINCT …) BIGINT NOT NULL, BIT_*
// BIGINT UNSIGNED NOT NULL, SUM/AVG(DISTINCT) DECIMAL of MariaDB's
// precision) equal the unsharded reference's.
func TestCrossNodeAggregates(t *testing.T) {
	x := newXnodeEnv(t)
	for _, q := range []string{
		"SELECT COUNT(DISTINCT k) FROM xa",
		"SELECT k, COUNT(DISTINCT uni) FROM xa GROUP BY k",
		"SELECT COUNT(DISTINCT k, lat) FROM xa",
		"SELECT COUNT(DISTINCT k, lat), COUNT(DISTINCT lat, uni), COUNT(DISTINCT uni, k, amt) FROM xa WHERE id > 1000",
		"SELECT g, COUNT(DISTINCT k, lat) AS e0, COUNT(DISTINCT lat, uni) FROM xa GROUP BY g HAVING COUNT(DISTINCT lat, uni) > 3 ORDER BY g",
		"SELECT k, COUNT(DISTINCT lat, uni) AS n FROM xb GROUP BY k ORDER BY COUNT(DISTINCT lat, uni) DESC, k LIMIT 4",
		"SELECT k, COUNT(DISTINCT k, lat) * 10 / COUNT(*) FROM xa GROUP BY k",
		"SELECT BIT_OR(k) FROM xa",
		"SELECT BIT_AND(bits), BIT_OR(bits), BIT_XOR(bits) FROM xa WHERE id > 1000",
		"SELECT BIT_AND(bits), BIT_OR(bits), BIT_XOR(bits), BIT_AND(k), BIT_XOR(k) FROM xa WHERE id BETWEEN 1 AND 9",
		"SELECT g, BIT_AND(bits), BIT_OR(bits), BIT_XOR(bits), BIT_AND(k), BIT_XOR(k) FROM xa GROUP BY g HAVING BIT_OR(k) > 3 ORDER BY g",
		"SELECT k, BIT_XOR(bits) AS x FROM xa GROUP BY k ORDER BY x DESC, k LIMIT 3",
		"SELECT k, BIT_AND(bits) FROM xa WHERE bits IS NULL GROUP BY k ORDER BY k",
		"SELECT SUM(DISTINCT k), AVG(DISTINCT k), SUM(k), AVG(k), MAX(k) FROM xa",
		"SELECT k, SUM(DISTINCT amt), AVG(DISTINCT amt), COUNT(DISTINCT amt, k) FROM xa GROUP BY k ORDER BY k LIMIT 2, 5",
	} {
		mismatch, refused := x.run(xQuery{sql: q})
		require.Empty(t, refused, q)
		require.Empty(t, mismatch, q)
		require.Equal(t, columnDefs(t, x.e.ref, q), columnDefs(t, x.px, q), q)
	}
}
