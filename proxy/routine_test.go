package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

func TestSplitStatements(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"SELECT 1", []string{"SELECT 1"}},
		{"SELECT 1; SELECT 2;", []string{"SELECT 1", " SELECT 2"}},
		{"SELECT ';'; SELECT \"a;\" -- x;\n; SELECT `c;` # y;\n", []string{"SELECT ';'", " SELECT \"a;\" -- x;\n", " SELECT `c;` # y;\n"}},
		{"SELECT 'it''s;\\';'; /* ; */ SELECT 2", []string{"SELECT 'it''s;\\';'", " /* ; */ SELECT 2"}},
		{"BEGIN; SELECT 1; COMMIT", []string{"BEGIN", " SELECT 1", " COMMIT"}},
		{"--", []string{"--"}},
		{"", []string{""}},
		{"SELECT 1; -- done", []string{"SELECT 1"}},
		{"DROP PROCEDURE IF EXISTS p; CREATE PROCEDURE p(n INT)\nBEGIN\n  SELECT n; SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = \"an error;\";\nEND\n; CALL p(1)",
			[]string{"DROP PROCEDURE IF EXISTS p", " CREATE PROCEDURE p(n INT)\nBEGIN\n  SELECT n; SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = \"an error;\";\nEND\n", " CALL p(1)"}},
		{"CREATE DEFINER=`root`@`%` PROCEDURE p() lbl: BEGIN DECLARE x INT DEFAULT CASE WHEN 1 THEN 2 END; " +
			"IF x > 1 THEN BEGIN SELECT 1; END; END IF; CASE x WHEN 2 THEN SELECT 2; ELSE BEGIN END; END CASE; " +
			"WHILE x < 3 DO SET x = x + 1; END WHILE; END lbl; SELECT 3",
			[]string{"CREATE DEFINER=`root`@`%` PROCEDURE p() lbl: BEGIN DECLARE x INT DEFAULT CASE WHEN 1 THEN 2 END; " +
				"IF x > 1 THEN BEGIN SELECT 1; END; END IF; CASE x WHEN 2 THEN SELECT 2; ELSE BEGIN END; END CASE; " +
				"WHILE x < 3 DO SET x = x + 1; END WHILE; END lbl", " SELECT 3"}},
		{"CREATE FUNCTION f(x INT) RETURNS INT DETERMINISTIC RETURN x + 1; SELECT f(1)", []string{"CREATE FUNCTION f(x INT) RETURNS INT DETERMINISTIC RETURN x + 1", " SELECT f(1)"}},
		{"BEGIN NOT ATOMIC SELECT 1; SELECT 2; END; SELECT 3", []string{"BEGIN NOT ATOMIC SELECT 1; SELECT 2; END", " SELECT 3"}},
		{"SELECT CASE WHEN 1 THEN 'begin' END; SELECT 2", []string{"SELECT CASE WHEN 1 THEN 'begin' END", " SELECT 2"}},
	} {
		require.Equal(t, tc.want, splitStatements(tc.in, false), tc.in)
	}
	// NO_BACKSLASH_ESCAPES: a backslash ends no quote.
	require.Equal(t, []string{"SELECT 'a\\'", " SELECT ';'"}, splitStatements("SELECT 'a\\'; SELECT ';'", true))
	require.Equal(t, []string{"SELECT 'a\\'; SELECT '", "'"}, splitStatements("SELECT 'a\\'; SELECT ';'", false))
}

func TestRoutineStatement(t *testing.T) {
	for q, want := range map[string]bool{
		"CALL p()":                      true,
		"call db.p(1)":                  true,
		"/* x */ CALL p":                true,
		"CREATE PROCEDURE p() SELECT 1": true,
		"CREATE OR REPLACE DEFINER = `u`@`%` PROCEDURE p() SELECT 1":      true,
		"CREATE DEFINER=root@localhost FUNCTION f() RETURNS INT RETURN 1": true,
		"CREATE AGGREGATE FUNCTION f RETURNS STRING SONAME 'x.so'":        true,
		"DROP PROCEDURE IF EXISTS p":                                      true,
		"drop function f":                                                 true,
		"ALTER PROCEDURE p COMMENT 'x'":                                   true,
		"CREATE TABLE procedure_log (id INT)":                             false,
		"CREATE TABLE t (`function` INT)":                                 false,
		"DROP TABLE p":                                                    false,
		"CREATE VIEW v AS SELECT 1":                                       false,
		"CREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW SET @a = 1":     false,
		"SELECT 'CALL p()'":                                               false,
		"callx()":                                                         false,
	} {
		require.Equal(t, want, routineStatement(q), q)
	}
	require.Equal(t, 2, countPlaceholders("CALL p(?, '?', `?`, \"?\" /* ? */, ?) -- ?"))
}

// routineYAML is a proxy over the one data source ds_3 where every table
// is a single table.
func routineYAML() string {
	c := testdb.Config("ds_3")
	return fmt.Sprintf(`databaseName: rt_db
dataSources:
  ds_3:
    url: jdbc:mysql://%s/ds_3
    username: %s
    password: %s
    maxPoolSize: 8
rules:
  - !SINGLE
    tables: ["*.*"]
authority:
  users:
    - user: root@%%
      password: secret
`, c.Addr, c.User, c.Passwd)
}

// resultSets reads every result set of q on db: its columns, then each row
// (typed, as rowsOf renders it), then the error that ended them, if any.
func resultSets(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	return readSets(t, rows, err)
}

// readSets is resultSets of rows (err: the query's error).
func readSets(t *testing.T, rows *sql.Rows, err error) []string {
	t.Helper()
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	defer rows.Close()
	var out []string
	for {
		cts, err := rows.ColumnTypes()
		require.NoError(t, err)
		var cols []string
		for _, ct := range cts {
			p, s, _ := ct.DecimalSize()
			cols = append(cols, fmt.Sprintf("%s %s dec=%d,%d", ct.Name(), ct.DatabaseTypeName(), p, s))
		}
		out = append(out, "columns: "+strings.Join(cols, ", "))
		for rows.Next() {
			out = append(out, scanRendered(t, rows, len(cts)))
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		out = append(out, "error: "+err.Error())
	}
	return out
}

// TestProxyRoutines creates stored procedures and a function through a
// proxy over one data source (multi-statement text, bodies with inner ;)
// and directly in the reference database, then compares every result set of
// CALLs, text and prepared (binary rows written by writeBinaryResultSet),
// with the reference: column types, typed values, the error a SIGNAL ends
// them with. Values cover each binary encoding: integers of every width
// signed and unsigned, YEAR, FLOAT, DOUBLE, DECIMAL, DATE, DATETIME(6),
// TIME(6) negative and beyond a day, BIT, text in utf8mb4 and latin1,
// binary, NULL.
func TestProxyRoutines(t *testing.T) {
	cfg, err := ParseConfig("rt.yaml", []byte(routineYAML()))
	require.NoError(t, err)
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0"})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	env := &pxEnv{srv: srv}
	multi := map[string]string{"multiStatements": "true"}
	px := env.clientDB(t, "root", "secret", "rt_db", multi)
	ref := refClient(t, multi)

	setup := []string{
		"DROP TABLE IF EXISTS rt_types",
		"CREATE TABLE rt_types (id INT PRIMARY KEY, ti TINYINT, su SMALLINT UNSIGNED, mi MEDIUMINT, y YEAR, bu BIGINT UNSIGNED, " +
			"f FLOAT, d DOUBLE, dec1 DECIMAL(12,3), dt DATE, ts DATETIME(6), tm TIME(6), b BIT(5), " +
			"u VARCHAR(20) CHARACTER SET utf8mb4, l VARCHAR(20) CHARACTER SET latin1, bin VARBINARY(8), n INT NULL)",
		"INSERT INTO rt_types VALUES (1, -128, 65535, -8388608, 2024, 18446744073709551615, 1.25, -1.5e300, -123456789.125, " +
			"'2024-02-29', '2024-02-29 13:04:05.123456', '-838:59:59.000001', b'10101', '中文😀', 'Ünï', X'00ff', NULL), " +
			"(2, 127, 0, 8388607, 1901, 0, 0, 0, 0, '0000-00-00', '1000-01-01 00:00:00', '25:00:00', b'0', '', '', '', 7)",
		"DROP PROCEDURE IF EXISTS rt_multi; CREATE PROCEDURE rt_multi(k INT)\nBEGIN\n" +
			"  DECLARE x INT DEFAULT CASE WHEN k > 0 THEN 1 ELSE 0 END;\n" +
			"  DO 1;\n" +
			"  SELECT k AS a, x AS b, 'ü;' AS c;\n" +
			"  IF k > 1 THEN\n    SELECT * FROM rt_types ORDER BY id;\n  END IF;\n" +
			"  SELECT COUNT(*) AS n FROM rt_types WHERE id <= k;\nEND",
		"DROP PROCEDURE IF EXISTS rt_sig; CREATE PROCEDURE rt_sig()\nBEGIN\n  SELECT 1 AS one;\n" +
			"  SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = 'an error', MYSQL_ERRNO = 45001;\nEND",
		"DROP PROCEDURE IF EXISTS rt_write; CREATE PROCEDURE rt_write(k INT) UPDATE rt_types SET n = k WHERE id = 2",
		"DROP FUNCTION IF EXISTS rt_f; CREATE FUNCTION rt_f(x INT) RETURNS INT DETERMINISTIC RETURN x * 2",
		"DROP PROCEDURE IF EXISTS rt_warn; CREATE PROCEDURE rt_warn() SELECT CAST('12abc' AS SIGNED) AS v",
	}
	for _, q := range setup {
		_, err := px.Exec(q)
		require.NoError(t, err, q)
		_, err = ref.Exec(q)
		require.NoError(t, err, q)
	}
	t.Cleanup(func() {
		for _, db := range []*sql.DB{px, ref} {
			_, _ = db.Exec("DROP PROCEDURE IF EXISTS rt_multi; DROP PROCEDURE IF EXISTS rt_sig; DROP PROCEDURE IF EXISTS rt_write; DROP PROCEDURE IF EXISTS rt_warn; DROP FUNCTION IF EXISTS rt_f; DROP TABLE IF EXISTS rt_types")
		}
	})
	// The table and routines are on ds_3 itself, not only as the proxy sees them.
	var n int
	require.NoError(t, testdb.Open(t, "ds_3").QueryRow("SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = 'ds_3' AND routine_name LIKE 'rt\\_%'").Scan(&n))
	require.Equal(t, 5, n)

	for _, c := range []struct {
		q    string
		args []any
	}{
		{"CALL rt_multi(0)", nil},
		{"CALL rt_multi(5)", nil},
		{"CALL rt_multi(?)", []any{5}},
		{"CALL rt_multi(?)", []any{1}},
		{"CALL rt_sig()", nil},
		{"CALL rt_sig()", []any{}},
		{"SELECT 1 AS x; CALL rt_multi(2); SELECT rt_f(21) AS y", nil},
		{"CALL rt_write(?)", []any{9}},
		{"UPDATE rt_types SET n = 4 WHERE id IN (1, 2); CALL rt_multi(ROW_COUNT() + 1)", nil}, // the session's ROW_COUNT() (rowcount.go)
		{"UPDATE rt_types SET n = 5 WHERE id = 2; /* c */ CALL rt_multi(ROW_COUNT())", nil},
		{"SELECT n FROM rt_types ORDER BY id", nil},
	} {
		want := resultSets(t, ref, c.q, c.args...)
		if c.args != nil && len(c.args) == 0 {
			// A prepared statement without parameters.
			want = preparedResultSets(t, ref, c.q)
			require.Equal(t, want, preparedResultSets(t, px, c.q), c.q)
			continue
		}
		require.Equal(t, want, resultSets(t, px, c.q, c.args...), c.q)
	}
	// A procedure's warnings are the CALL's, text and prepared.
	for _, q := range []string{"CALL rt_warn()", "CALL rt_warn(/* prepared */)"} {
		var got [2][]string
		for i, db := range []*sql.DB{ref, px} {
			conn, err := db.Conn(context.Background())
			require.NoError(t, err)
			if strings.Contains(q, "prepared") {
				st, err := conn.PrepareContext(context.Background(), q)
				require.NoError(t, err)
				rows, err := st.Query()
				got[i] = readSets(t, rows, err)
				st.Close()
			} else {
				rows, err := conn.QueryContext(context.Background(), q)
				got[i] = readSets(t, rows, err)
			}
			rows, err := conn.QueryContext(context.Background(), "SHOW WARNINGS")
			got[i] = append(got[i], readSets(t, rows, err)...)
			conn.Close()
		}
		require.Equal(t, got[0], got[1], q)
		require.Contains(t, got[0], "string:Warning | int64:1292 | string:Truncated incorrect INTEGER value: '12abc'", q)
	}
	res, err := px.Exec("CALL rt_write(3)")
	require.NoError(t, err)
	_, err = res.RowsAffected()
	require.NoError(t, err)
}

// preparedResultSets is resultSets of q as a prepared statement without
// parameters.
func preparedResultSets(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	st, err := db.Prepare(q)
	require.NoError(t, err, q)
	defer st.Close()
	rows, err := st.Query()
	return readSets(t, rows, err)
}

// TestProxyRoutinesRefused: over a sharded table, routines are refused
// with the reason, text and prepared.
func TestProxyRoutinesRefused(t *testing.T) {
	env := newPxEnv(t)
	db := env.client(t, "root", "secret", map[string]string{"multiStatements": "true"})
	const why = "Error 1235 (42000): This version of the shardgen proxy doesn't yet support %s statements with these rules: " +
		"a stored routine's statements run unrouted on one data source, so routines pass through only when every table is " +
		"a single table of one data source (the rules have 2 data sources: ds_0, ds_1)"
	for q, kind := range map[string]string{
		"CALL p()": "CALL",
		"CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END": "CREATE PROCEDURE",
		"DROP FUNCTION IF EXISTS f":                          "DROP FUNCTION",
	} {
		_, err := db.Exec(q)
		require.EqualError(t, err, fmt.Sprintf(why, kind), q)
	}
	_, err := db.Prepare("CALL p(?)")
	require.EqualError(t, err, fmt.Sprintf(why, "CALL"))
}

// TestProxyMultiStatementSQLMode: the statements of one multi-statement
// query are read one after the other, each in the sql_mode the ones
// before it set (NO_BACKSLASH_ESCAPES: a backslash ends no string), as in
// MySQL.
func TestProxyMultiStatementSQLMode(t *testing.T) {
	env := newPxEnv(t)
	multi := map[string]string{"multiStatements": "true"}
	px := env.client(t, "root", "secret", multi)
	ref := refClient(t, multi)
	const q = `SELECT 'a\'; SELECT ' AS x; SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT 'b\' AS y; SELECT ';' AS z`
	want := resultSets(t, ref, q)
	require.Equal(t, []string{"columns: x VARCHAR dec=0,0", "string:a'; SELECT ", "columns: y VARCHAR dec=0,0", `string:b\`, "columns: z VARCHAR dec=0,0", "string:;"}, want)
	require.Equal(t, want, resultSets(t, px, q))
}
