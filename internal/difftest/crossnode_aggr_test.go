package difftest

import (
	"context"
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
	var out []string
	for _, ct := range columnTypes(t, db, q) {
		n, _ := ct.Nullable()
		p, s, _ := ct.DecimalSize()
		out = append(out, fmt.Sprintf("%s %s null=%v dec=%d,%d", ct.Name(), ct.DatabaseTypeName(), n, p, s))
	}
	return out
}

// columnTypes returns the column definitions of q's result on db.
func columnTypes(t *testing.T, db *sql.DB, q string) []*sql.ColumnType {
	t.Helper()
	rows, err := db.Query(q)
	require.NoError(t, err, q)
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	require.NoError(t, err, q)
	return cts
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

// TestCrossNodeLimitedWrites: UPDATE and DELETE with ORDER BY … LIMIT n
// over several data nodes change exactly the n rows the unsharded
// reference changes (the keys selected in the merged order, by the text
// columns' collations, then those rows written in one all-or-nothing
// write): the same affected-row counts and then the same table contents.
// A write that fails on one data node changes nothing, as on the
// reference. An ORDER BY that is not total (no unique key in it), or no
// ORDER BY, is refused naming the key to add.
func TestCrossNodeLimitedWrites(t *testing.T) {
	x := newXnodeEnv(t)
	same := func(q string) {
		t.Helper()
		for _, tbl := range []string{"SELECT * FROM xa", "SELECT * FROM xb"} {
			mismatch, refused := x.run(xQuery{sql: tbl})
			require.Empty(t, refused, tbl)
			require.Empty(t, mismatch, "after %s: %s", q, tbl)
		}
	}
	for _, q := range []string{
		"UPDATE xa SET k = k + 100 WHERE k > 0 ORDER BY k DESC, id LIMIT 5",
		"UPDATE xb SET lat = 'zz' ORDER BY uni, bid DESC LIMIT 7",
		"UPDATE xb SET k = -k WHERE uni IS NOT NULL ORDER BY lat DESC, uni, bid LIMIT 9",
		"DELETE FROM xb WHERE a_id IS NOT NULL ORDER BY lat, bid LIMIT 4",
		"DELETE FROM xa ORDER BY uni DESC, id LIMIT 3",
		"UPDATE xa SET k = 1 WHERE id > 1000 ORDER BY id LIMIT 2",
		"UPDATE xa SET k = k ORDER BY id LIMIT 3",
		"UPDATE xa t SET t.g = 9 WHERE t.k IS NULL ORDER BY t.amt, t.id LIMIT 2",
		"DELETE FROM xb ORDER BY bid DESC LIMIT 1",
		"UPDATE xb SET k = 7 WHERE bid = 3 ORDER BY k LIMIT 1", // one data node
	} {
		got, gerr := x.px.Exec(q)
		want, werr := x.e.ref.Exec(q)
		require.NoError(t, werr, q)
		require.NoError(t, gerr, q)
		gn, _ := got.RowsAffected()
		wn, _ := want.RowsAffected()
		require.Equal(t, wn, gn, q)
		same(q)
	}
	// The same as prepared statements (COM_STMT_PREPARE / EXECUTE), with
	// LIMIT ? and parameters in WHERE and SET: each execution runs with
	// its values in place.
	for _, c := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE xa SET k = k + ? WHERE k > ? ORDER BY k DESC, id LIMIT ?", []any{100, 0, 5}},
		{"UPDATE xb SET lat = ? WHERE uni IS NOT NULL ORDER BY uni DESC, bid LIMIT ?", []any{"ÄBC", 4}},
		{"DELETE FROM xb WHERE lat <> ? ORDER BY lat, bid LIMIT ?", []any{"zz", 3}},
		{"DELETE FROM xa WHERE id > ? ORDER BY uni, id DESC LIMIT 2", []any{1}},
		{"UPDATE xb SET k = ? WHERE bid = ? ORDER BY k LIMIT ?", []any{8, 3, 1}}, // one data node
	} {
		for i := 0; i < 2; i++ { // a prepared statement executed twice
			got, gerr := x.px.Exec(c.sql, c.args...)
			want, werr := x.e.ref.Exec(c.sql, c.args...)
			require.NoError(t, werr, c.sql)
			require.NoError(t, gerr, c.sql)
			gn, _ := got.RowsAffected()
			wn, _ := want.RowsAffected()
			require.Equal(t, wn, gn, c.sql)
			same(c.sql)
		}
	}
	_, err := x.px.Exec("UPDATE xa SET k = ? ORDER BY k LIMIT ?", 1, 2)
	require.ErrorContains(t, err, "the ORDER BY must include every column of the primary key (id)")
	same("UPDATE xa SET k = ? ORDER BY k LIMIT ?")
	// One row's value overflows INT on its data node: the reference
	// changes nothing, and neither do the other data nodes.
	ctx := context.Background()
	strict := func(db *sql.DB) *sql.Conn {
		conn, err := db.Conn(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		_, err = conn.ExecContext(ctx, "SET SESSION sql_mode = 'STRICT_ALL_TABLES'")
		require.NoError(t, err)
		return conn
	}
	pc, rc := strict(x.px), strict(x.e.ref)
	var fifth int64 // a row among the 12 written, on one data node
	require.NoError(t, x.e.ref.QueryRow("SELECT id FROM xa ORDER BY id LIMIT 4, 1").Scan(&fifth))
	q := fmt.Sprintf("UPDATE xa SET k = IF(id = %d, 3000000000, 5) ORDER BY id LIMIT 12", fifth)
	_, gerr := pc.ExecContext(ctx, q)
	_, werr := rc.ExecContext(ctx, q)
	require.Error(t, werr, q)
	require.Error(t, gerr, q)
	same(q)
	for _, c := range []struct{ sql, err string }{
		{"UPDATE xa SET k = 1 ORDER BY k LIMIT 2", "the ORDER BY must include every column of the primary key (id) or of a unique key of NOT NULL columns"},
		{"DELETE FROM xb LIMIT 2", "the ORDER BY must include every column of the primary key (bid)"},
	} {
		_, err := x.px.Exec(c.sql)
		require.ErrorContains(t, err, c.err, c.sql)
		same(c.sql)
	}
}

// TestCrossNodeTextGroups: GROUP BY, DISTINCT, COUNT(DISTINCT) and HAVING
// over latin1_swedish_ci and utf8mb4_unicode_ci text whose groups span
// data nodes merge the values those collations call equal ('a', 'A ',
// case, accents, 'ß' and 'ss' under unicode_ci, Ё and Е, the emoji
// UCA 4.0 weighs alike) into one group, as the unsharded reference does,
// and show the spelling MariaDB shows: that of the group's row with the
// least primary key, the first row its full scan reads (and a column
// neither grouped nor aggregated likewise: runtime.MergeSpec.FirstColumn).
// Where MariaDB groups by sorting (an aggregate over DISTINCT values) its
// spelling is the sort's, and MIN/MAX keep a value of the class: those
// are compared by class.
func TestCrossNodeTextGroups(t *testing.T) {
	x := newXnodeEnv(t)
	for _, q := range []xQuery{
		{sql: "SELECT lat, COUNT(*), MIN(id) FROM xa GROUP BY lat"},
		{sql: "SELECT uni, COUNT(*), SUM(k) FROM xb GROUP BY uni"},
		{sql: "SELECT uni, COUNT(*) FROM xa GROUP BY uni HAVING COUNT(*) > 1"},
		{sql: "SELECT lat, MAX(bid) FROM xb WHERE lat IS NOT NULL GROUP BY lat HAVING MAX(bid) > 20"},
		{sql: "SELECT DISTINCT uni FROM xb"},
		{sql: "SELECT DISTINCT lat FROM xa WHERE id BETWEEN 5 AND 40"},
		{sql: "SELECT DISTINCT lat, uni FROM xb"},
		{sql: "SELECT DISTINCT lat, uni FROM xb ORDER BY lat, uni LIMIT 5", ordered: true},
		{sql: "SELECT uni, lat, COUNT(*) FROM xb GROUP BY uni, lat ORDER BY uni DESC, lat", ordered: true},
		{sql: "SELECT k, uni, lat FROM xa GROUP BY k ORDER BY k", ordered: true},
		{sql: "SELECT lat, COUNT(DISTINCT uni) AS n FROM xa GROUP BY lat ORDER BY lat LIMIT 2, 4", fold: []string{"lat"}, ordered: true},
		{sql: "SELECT COUNT(DISTINCT uni), COUNT(DISTINCT lat), COUNT(DISTINCT lat, uni) FROM xb"},
		{sql: "SELECT k, MIN(uni), MAX(lat) FROM xa GROUP BY k", fold: []string{"", "uni", "lat"}},
		// HAVING comparing unicode_ci / latin1_swedish_ci text with a
		// literal: by the data nodes' sort keys.
		{sql: "SELECT uni, COUNT(*) FROM xb GROUP BY uni HAVING uni > 'm'", fold: []string{"uni"}},
		{sql: "SELECT lat, COUNT(*) FROM xa GROUP BY lat HAVING lat >= 'ä'", fold: []string{"lat"}},
		{sql: "SELECT lat AS l, COUNT(*) FROM xa GROUP BY lat HAVING l < 'B' OR l = 'SS'", fold: []string{"l"}},
		{sql: "SELECT uni FROM xb GROUP BY uni HAVING uni = 'a   '", fold: []string{"uni"}},
		{sql: "SELECT uni FROM xb GROUP BY uni HAVING uni IN ('A', 'ss', '中', 'ЁЛКА')", fold: []string{"uni"}},
		{sql: "SELECT uni, COUNT(*) FROM xa GROUP BY uni HAVING uni NOT IN ('a ', 'я') AND COUNT(*) > 0", fold: []string{"uni"}},
		{sql: "SELECT k, MAX(uni) FROM xa GROUP BY k HAVING MAX(uni) = 'ёлка'", fold: []string{"", "uni"}},
		{sql: "SELECT k, MAX(uni) FROM xb GROUP BY k HAVING MAX(uni) >= '日本' OR MAX(uni) = '😀'", fold: []string{"", "uni"}},
		{sql: "SELECT k FROM xa GROUP BY k HAVING MAX(lat) = 'Ä'"},
		{sql: "SELECT k, MIN(lat) FROM xb GROUP BY k HAVING MIN(lat) BETWEEN 'a' AND 'E'", fold: []string{"", "lat"}},
		{sql: "SELECT k, MIN(lat) FROM xb GROUP BY k HAVING MIN(lat) NOT BETWEEN 'b' AND 'ü'", fold: []string{"", "lat"}},
		{sql: "SELECT MAX(uni), MIN(uni) FROM xb HAVING MAX(uni) > 'A' AND MIN(uni) <= ''", fold: []string{"uni", "uni"}},
		{sql: "SELECT k, MAX(uni) > 'e' AS big FROM xa GROUP BY k", fold: []string{"", ""}},
		{sql: "SELECT k FROM xb GROUP BY k HAVING MAX(lat) < '€' AND MIN(lat) <> 'ÿ'"}, // cp1252's 0x80
		// UPPER / LOWER keep the column's collation as merge keys.
		{sql: "SELECT id, uni FROM xa ORDER BY UPPER(uni), id", ordered: true},
		{sql: "SELECT bid, lat FROM xb ORDER BY LOWER(lat) DESC, bid LIMIT 12", ordered: true},
		{sql: "SELECT COUNT(*), MIN(id) FROM xa GROUP BY UPPER(lat)"},
		{sql: "SELECT COUNT(*), MAX(bid) FROM xb GROUP BY LOWER(uni) HAVING COUNT(*) > 1"},
		{sql: "SELECT COUNT(DISTINCT UPPER(uni)), COUNT(DISTINCT LCASE(lat)) FROM xb"},
	} {
		mismatch, refused := x.run(q)
		require.Empty(t, refused, q.sql)
		require.Empty(t, mismatch, q.sql)
	}
	// A literal latin1 cannot hold: MariaDB refuses it (ERROR 1267,
	// illegal mix of collations), and so does the merge, saying why.
	for _, q := range []string{
		"SELECT lat, COUNT(*) FROM xa GROUP BY lat HAVING lat > 'Ж'",
		"SELECT k FROM xa GROUP BY k HAVING MAX(lat) = '中'",
	} {
		_, err := x.e.ref.Exec(q)
		require.ErrorContains(t, err, "Illegal mix of collations", q)
		_, err = x.px.Exec(q)
		require.ErrorContains(t, err, "has characters the latin1 column cannot hold, which MariaDB refuses as an illegal mix of collations", q)
	}
	// Text over merged MIN / MAX that the merge cannot compare by sort
	// keys is refused saying which form runs; that form runs, equal to
	// the reference.
	for _, q := range []struct{ refused, why, runs string }{
		{"SELECT k FROM xa GROUP BY k HAVING UPPER(MAX(lat)) = 'Ä'",
			"(the function UPPER over merged aggregates; write it inside MIN / MAX instead, e.g. MAX(UPPER(x)) for UPPER(MAX(x)): the data nodes compute it before the merge)",
			"SELECT k FROM xa GROUP BY k HAVING MAX(UPPER(lat)) = 'Ä'"},
		{"SELECT k FROM xb GROUP BY k HAVING LCASE(MIN(uni)) < '日本'",
			"(the function LCASE over merged aggregates; write it inside MIN / MAX instead, e.g. MAX(LCASE(x)) for LCASE(MAX(x)): the data nodes compute it before the merge)",
			"SELECT k FROM xb GROUP BY k HAVING MIN(LCASE(uni)) < '日本'"},
		{"SELECT k FROM xa GROUP BY k HAVING IFNULL(MAX(lat), 'x') = 'Ä'",
			"(IFNULL / COALESCE of text in collation latin1_swedish_ci, which the merge compares only by the data nodes' sort keys, WEIGHT_STRING, of a GROUP BY column, MIN, MAX or a text literal; compare each argument instead, e.g. MAX(x) = 'b' OR MAX(x) IS NULL AND 'a' = 'b' for IFNULL(MAX(x), 'a') = 'b')",
			"SELECT k FROM xa GROUP BY k HAVING MAX(lat) = 'Ä' OR MAX(lat) IS NULL AND 'x' = 'Ä'"},
		{"SELECT k FROM xb GROUP BY k HAVING COALESCE(MIN(uni), 'ёлка') >= 'Ёлка'",
			"(IFNULL / COALESCE of text in collation utf8mb4_unicode_ci, which the merge compares only by the data nodes' sort keys, WEIGHT_STRING, of a GROUP BY column, MIN, MAX or a text literal; compare each argument instead, e.g. MAX(x) = 'b' OR MAX(x) IS NULL AND 'a' = 'b' for IFNULL(MAX(x), 'a') = 'b')",
			"SELECT k FROM xb GROUP BY k HAVING MIN(uni) >= 'Ёлка' OR MIN(uni) IS NULL AND 'ёлка' >= 'Ёлка'"},
	} {
		_, err := x.px.Exec(q.refused)
		require.ErrorContains(t, err, q.why, q.refused)
		mismatch, refused := x.run(xQuery{sql: q.runs})
		require.Empty(t, refused, q.runs)
		require.Empty(t, mismatch, q.runs)
	}
}

// TestCrossNodeConcatSeparators: GROUP_CONCAT with a SEPARATOR that latin1
// cannot hold ('、', '→', emoji) over groups that span data nodes: over
// latin1 text MariaDB converts the separator to latin1, each character it
// lacks becoming one '?' (cp1252's '€' stays); with a utf8mb4 argument
// the value is utf8mb4 and the separator stays whole. The rows, the
// column definitions and their lengths (which tell the result's
// character set) equal the unsharded reference's.
func TestCrossNodeConcatSeparators(t *testing.T) {
	x := newXnodeEnv(t)
	lengths := func(db *sql.DB, q string) []int64 {
		var out []int64
		for _, ct := range columnTypes(t, db, q) {
			n, _ := ct.Length()
			out = append(out, n)
		}
		return out
	}
	for _, q := range []string{
		"SELECT k, GROUP_CONCAT(lat ORDER BY bid SEPARATOR '、') AS g FROM xb GROUP BY k",
		"SELECT k, GROUP_CONCAT(lat ORDER BY lat DESC, bid SEPARATOR ' → ') AS g FROM xb GROUP BY k",
		"SELECT GROUP_CONCAT(lat ORDER BY id SEPARATOR '😀€é→') AS g FROM xa",
		"SELECT k, GROUP_CONCAT(lat, '-', k ORDER BY bid SEPARATOR ' 中 ') AS g FROM xb GROUP BY k",
		"SELECT g, GROUP_CONCAT(lat ORDER BY lat, id SEPARATOR '→') AS c FROM xa WHERE lat IN ('ä', 'ü', 'é') GROUP BY g",
		"SELECT k, GROUP_CONCAT(lat, uni ORDER BY bid SEPARATOR '→') AS g FROM xb GROUP BY k",
		"SELECT k, GROUP_CONCAT(uni ORDER BY bid SEPARATOR '、') AS g FROM xb GROUP BY k",
		"SELECT k, GROUP_CONCAT(k ORDER BY bid SEPARATOR '→') AS g FROM xb GROUP BY k",
		"SELECT k, GROUP_CONCAT(lat ORDER BY bid SEPARATOR '、') FROM xb GROUP BY k", // the column's name as written
	} {
		mismatch, refused := x.run(xQuery{sql: q})
		require.Empty(t, refused, q)
		require.Empty(t, mismatch, q)
		require.Equal(t, columnDefs(t, x.e.ref, q), columnDefs(t, x.px, q), q)
		require.Equal(t, lengths(x.e.ref, q), lengths(x.px, q), q)
	}
}
