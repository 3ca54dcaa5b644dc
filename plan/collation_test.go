package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMergeCollations checks which text keys the merge compares in process
// (the DDL names binary, a _bin or a general_ci collation) and which by the
// data nodes' WEIGHT_STRING (any other collation, or none named: the
// server's default applies), and that collations whose WEIGHT_STRING is
// not exact are refused.
func TestMergeCollations(t *testing.T) {
	const ddl = `CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY,
		name VARCHAR(32) NOT NULL,
		g VARCHAR(8) COLLATE utf8mb4_general_ci, bn VARCHAR(8) COLLATE utf8mb4_bin,
		sw VARCHAR(8) CHARACTER SET latin1 COLLATE latin1_swedish_ci, l1 VARCHAR(8) CHARACTER SET latin1,
		lb VARCHAR(8) CHARACTER SET latin1 COLLATE latin1_bin, uca VARCHAR(8) COLLATE utf8mb4_uca1400_ai_ci,
		cs VARCHAR(8) COLLATE utf8mb4_uca1400_as_cs, b5 VARCHAR(8) CHARACTER SET big5) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
		CREATE TABLE t_order (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, status VARCHAR(16), amount DECIMAL(10,2) NOT NULL);
		CREATE TABLE t_order_item (item_id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, sku VARCHAR(32) NOT NULL);
		CREATE TABLE t_dict (code VARCHAR(16) NOT NULL PRIMARY KEY, label VARCHAR(64));
		CREATE TABLE t_config (k VARCHAR(16) NOT NULL PRIMARY KEY, v VARCHAR(64));`
	b := builderOf(t, testRules, ddl)
	for _, tc := range []struct{ col, kind string }{
		{"name", `{"type":"String","collation":"utf8mb4_general_ci"}`}, // the table's collation
		{"g", `{"type":"String","collation":"utf8mb4_general_ci"}`},
		{"bn", `{"type":"String","collation":"utf8mb4_bin"}`},
		{"sw", `{"type":"String","weight":2}`},
		{"l1", `{"type":"String","weight":2}`}, // latin1's default, not the table's utf8mb4 collation
		{"lb", `{"type":"String","weight":2}`}, // latin1 is cp1252: its byte order is not UTF-8's
		{"uca", `{"type":"String","weight":2}`},
	} {
		p, err := build(t, b, ":many", "SELECT user_id, "+tc.col+" FROM t_user WHERE user_id IN (1, 2) ORDER BY "+tc.col)
		require.NoError(t, err, tc.col)
		js, err := json.Marshal(p.Merge.Kinds[1])
		require.NoError(t, err)
		require.JSONEq(t, tc.kind, string(js), tc.col)
		if p.Merge.Kinds[1].Weight > 0 {
			require.Equal(t, 4, p.Merge.Columns)
			require.Equal(t, 2, p.Merge.Visible, "the sort keys are never returned")
			require.Contains(t, p.Route.Units[0].SQL, "weight_string("+tc.col+") as WEIGHT_STRING_DERIVED_0, IF(LEFT("+tc.col+", 0) = ' ', weight_string(CONCAT(LEFT("+tc.col+", 0), ' ')), '') as WEIGHT_PAD_DERIVED_0")
		}
	}
	// MIN/MAX, GROUP BY and DISTINCT get theirs; a column no merge compares does not.
	p, err := build(t, b, ":many", "SELECT sw, MIN(uca), COUNT(DISTINCT l1), name FROM t_user WHERE user_id IN (1, 2) GROUP BY sw")
	require.NoError(t, err)
	require.Equal(t, "select sw, min(uca), count(distinct l1), `name`, l1 as DISTINCT_DERIVED_0, weight_string(sw) as WEIGHT_STRING_DERIVED_0, IF(LEFT(sw, 0) = ' ', weight_string(CONCAT(LEFT(sw, 0), ' ')), '') as WEIGHT_PAD_DERIVED_0, "+
		"weight_string(min(uca)) as WEIGHT_STRING_DERIVED_1, IF(LEFT(min(uca), 0) = ' ', weight_string(CONCAT(LEFT(min(uca), 0), ' ')), '') as WEIGHT_PAD_DERIVED_1, "+
		"weight_string(l1) as WEIGHT_STRING_DERIVED_2, IF(LEFT(l1, 0) = ' ', weight_string(CONCAT(LEFT(l1, 0), ' ')), '') as WEIGHT_PAD_DERIVED_2 from t_user where user_id in (1, 2) group by sw, l1",
		p.Route.Units[0].SQL)
	for _, tc := range []struct{ sql, err string }{
		{"SELECT cs FROM t_user WHERE user_id IN (1, 2) ORDER BY cs",
			`q.sql:2:8: query "Q": cs over several data nodes cannot be merged: collation "utf8mb4_uca1400_as_cs" compares accents and case on separate levels, which its WEIGHT_STRING does not keep apart`},
		{"SELECT DISTINCT b5 FROM t_user WHERE user_id IN (1, 2)",
			`q.sql:2:17: query "Q": b5 over several data nodes cannot be merged: collation "big5_chinese_ci" has a WEIGHT_STRING that disagrees with the server's own comparison`},
	} {
		_, err := build(t, b, ":many", tc.sql)
		require.EqualError(t, err, tc.err)
	}
}

// TestCharsetDefaultCollation: a column whose DDL names only a character
// set (its own, or the table's DEFAULT CHARSET) compares in that character
// set's default collation (latin1: latin1_swedish_ci), so a HAVING
// comparison of its text with a literal runs by the nodes' sort keys
// instead of being refused as an unknown collation; utf8mb4, whose default
// differs between MySQL 8 and MariaDB, keeps the database's default.
func TestCharsetDefaultCollation(t *testing.T) {
	const ddl = `CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY,
		name VARCHAR(32) NOT NULL, m3 VARCHAR(8) CHARACTER SET utf8mb3, u4 VARCHAR(8) CHARACTER SET utf8mb4) DEFAULT CHARSET=latin1;
		CREATE TABLE t_order (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, status VARCHAR(16), amount DECIMAL(10,2) NOT NULL);
		CREATE TABLE t_order_item (item_id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, sku VARCHAR(32) NOT NULL);
		CREATE TABLE t_dict (code VARCHAR(16) NOT NULL PRIMARY KEY, label VARCHAR(64));
		CREATE TABLE t_config (k VARCHAR(16) NOT NULL PRIMARY KEY, v VARCHAR(64));`
	b := builderOf(t, testRules, ddl)
	for _, sql := range []string{
		"SELECT name, MIN(name) FROM t_user WHERE user_id IN (1, 2) GROUP BY name HAVING MIN(name) = 'cafe'",
		"SELECT name, COUNT(*) FROM t_user WHERE user_id IN (1, 2) GROUP BY name HAVING name > 'M'",
		"SELECT m3, COUNT(*) FROM t_user WHERE user_id IN (1, 2) GROUP BY m3 HAVING m3 > 'M'",
	} {
		_, err := build(t, b, ":many", sql)
		require.NoError(t, err, sql)
	}
	p, err := build(t, b, ":many", "SELECT user_id, m3 FROM t_user WHERE user_id IN (1, 2) ORDER BY m3")
	require.NoError(t, err)
	js, err := json.Marshal(p.Merge.Kinds[1])
	require.NoError(t, err)
	require.JSONEq(t, `{"type":"String","collation":"utf8mb4_general_ci"}`, string(js), "utf8mb3's default, utf8mb3_general_ci, compared in process")
	_, err = build(t, b, ":many", "SELECT u4, COUNT(*) FROM t_user WHERE user_id IN (1, 2) GROUP BY u4 HAVING u4 > 'M'")
	require.ErrorContains(t, err, "the database's default collation (the DDL names none)")
}
