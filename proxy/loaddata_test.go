package proxy

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// loadSeq numbers the go-sql-driver reader handlers of the tests.
var loadSeq atomic.Int64

// loadInto runs the LOAD DATA statement stmt (with {file} standing for the
// file's name) on db with data as the file; it returns the rows affected
// and the codes of the warnings (SHOW WARNINGS on the same connection; the
// messages name the actual table and count rows per data node), or the
// error text.
func loadInto(t *testing.T, db *sql.DB, stmt string, data []byte) string {
	t.Helper()
	name := fmt.Sprintf("shardgen-load-%d", loadSeq.Add(1))
	gomysql.RegisterReaderHandler(name, func() io.Reader { return bytes.NewReader(data) })
	defer gomysql.DeregisterReaderHandler(name)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	res, err := conn.ExecContext(ctx, strings.ReplaceAll(stmt, "{file}", "'Reader::"+name+"'"))
	if err != nil {
		return "error: " + err.Error()
	}
	n, err := res.RowsAffected()
	require.NoError(t, err)
	rows, err := conn.QueryContext(ctx, "SHOW WARNINGS")
	require.NoError(t, err)
	defer rows.Close()
	var codes []string
	for rows.Next() {
		var level, code, msg string
		require.NoError(t, rows.Scan(&level, &code, &msg))
		codes = append(codes, level+" "+code)
	}
	require.NoError(t, rows.Err())
	return fmt.Sprintf("%d rows, warnings %v", n, codes)
}

func TestParseLoadData(t *testing.T) {
	st, err := parseLoadData("LOAD DATA LOCAL INFILE '/tmp/x.csv' REPLACE INTO TABLE `db`.`t` CHARACTER SET latin1 " +
		"FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' LINES STARTING BY 'x:' TERMINATED BY '\\r\\n' IGNORE 2 LINES (a, `b`)")
	require.NoError(t, err)
	require.Equal(t, &loadStmt{local: true, file: "/tmp/x.csv", dup: "replace", table: "db.t", charset: "latin1", columns: []string{"a", "b"},
		fieldTerm: ",", enclosed: '"', escaped: -1, lineStart: "x:", lineTerm: "\r\n", ignore: 2}, st)
	const prefix = "This version of the shardgen proxy doesn't yet support LOAD DATA "
	for q, want := range map[string]string{
		"LOAD DATA INFILE 'x' INTO TABLE t":                                 prefix + "without LOCAL: the file would be read on the proxy's host; use LOAD DATA LOCAL INFILE",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t (a, @b) SET c = @b":        prefix + "with user variables in the column list: load into the columns themselves",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t (a) SET c = 1":             prefix + "with SET: load the values as they are, then UPDATE them",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t PARTITION (p0)":            prefix + "with PARTITION: name the logic table only",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t FIELDS TERMINATED BY ''":   prefix + "with an empty FIELDS TERMINATED BY (fixed-width rows)",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t LINES TERMINATED BY ''":    prefix + "with an empty LINES TERMINATED BY",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t FIELDS ENCLOSED BY 'ab'":   prefix + "with a FIELDS ENCLOSED BY of more than one byte",
		"LOAD DATA LOCAL INFILE x INTO TABLE t":                             "You have an error in your SQL syntax; LOAD DATA: expected the file name, got x",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t IGNORE 1":                  "You have an error in your SQL syntax; LOAD DATA: expected LINES or ROWS",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t (a b)":                     "You have an error in your SQL syntax; LOAD DATA: expected , or ) in the column list",
		"LOAD DATA LOCAL INFILE 'x' INTO TABLE t LINES TERMINATED BY 'x' z": "You have an error in your SQL syntax; LOAD DATA: expected the end of the statement, got z",
	} {
		_, err := parseLoadData(q)
		require.Error(t, err, q)
		require.Contains(t, err.Error(), want, q)
	}
}

func TestRowReader(t *testing.T) {
	read := func(stmt, data string) []string {
		st, err := parseLoadData(stmt)
		require.NoError(t, err, stmt)
		r := newRowReader(strings.NewReader(data), st)
		var out []string
		for {
			fields, err := r.next()
			if err == io.EOF {
				return out
			}
			require.NoError(t, err)
			var parts []string
			for _, f := range fields {
				if f == nil {
					parts = append(parts, "NULL")
				} else {
					parts = append(parts, fmt.Sprintf("%q", *f))
				}
			}
			out = append(out, strings.Join(parts, " "))
		}
	}
	const def = "LOAD DATA LOCAL INFILE 'f' INTO TABLE t"
	require.Equal(t, []string{`"1" "a\tb"`, `"2" NULL`, `"3" "N"`, `"4" "\\N"`, `"5" ""`, `""`, `"7" "x\x00\n\r\x1aq"`},
		read(def, "1\ta\\tb\n2\t\\N\n3\tN\n4\t\\\\N\n5\t\n\n7\tx\\0\\n\\r\\Zq"))
	const csv = def + " FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\r\\n' IGNORE 1 LINES"
	require.Equal(t, []string{`"1" "a,b" "say \"hi\""`, `"2" NULL "NULL"`, `"3" "x\"y" ""`},
		read(csv, "id,name,note\r\n1,\"a,b\",\"say \"\"hi\"\"\"\r\n2,NULL,\"NULL\"\r\n3,\"x\"y\",\"\"\r\n"))
	require.Equal(t, []string{`"1" "a"`, `"2" "b"`},
		read(def+" FIELDS TERMINATED BY '||' LINES STARTING BY 'x:' TERMINATED BY ';;'", "junk x:1||a;;x:2||b;;no prefix;;"))
	require.Equal(t, []string{`"a\\b" "c"`},
		read(def+" FIELDS ESCAPED BY ''", "a\\b\tc\n"))
}

// loadCases are LOAD DATA statements (the table written as {table}) and
// files, run through the proxy and on the reference database.
var loadCases = []struct{ stmt, data string }{
	{"LOAD DATA LOCAL INFILE {file} INTO TABLE {table} (id, name, price, day, big)",
		"1\tCJK 中文字\t12.50\t2024-02-29\t18446744073709551615\n" +
			"2\temoji 😀🎉 and tab\\t, newline\\n, backslash \\\\\t-0.01\t1999-12-31\t0\n" +
			"3\t\\N\t\\N\t\\N\t\\N\n" +
			"4\t\t0\t0000-00-00\t42\n" +
			"5\tnot a price\tabc\t2024-13-45\t-1\n" +
			"6\tÜnïcödé\t99999999.99\t2024-06-06\t6\n"},
	// A duplicate key: LOCAL skips the row (IGNORE).
	{"LOAD DATA LOCAL INFILE {file} INTO TABLE {table} FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' " +
		"LINES TERMINATED BY '\\r\\n' IGNORE 1 LINES (id, name, score)",
		"id,name,score\r\n7,\"seven, \"\"quoted\"\"\",7.5\r\n1,\"dup of 1\",1\r\n8,NULL,-1e300\r\n9,\"中\",\r\n"},
	{"LOAD DATA LOCAL INFILE {file} REPLACE INTO TABLE {table} LINES STARTING BY '>' (id, name)",
		"skipped\n>2\treplaced 2\n>10\tten\n"},
	{"LOAD DATA LOCAL INFILE {file} INTO TABLE {table} (id, name)", ""},
}

// TestProxyLoadData loads files into the sharded px_item (4 data nodes)
// through the proxy and into the reference table directly, and compares
// each statement's rows affected and warnings, the rows afterwards and, for every row,
// the actual table it is on. Text: utf8mb4 with CJK, emoji, escapes;
// values that convert with a warning; NULL; a duplicate key; REPLACE; an
// empty file; CSV with quotes.
func TestProxyLoadData(t *testing.T) {
	env := newPxEnv(t)
	px := env.client(t, "root", "secret", nil)
	ref := refClient(t, nil)
	for _, c := range loadCases {
		want := loadInto(t, ref, strings.ReplaceAll(c.stmt, "{table}", "px_item"), []byte(c.data))
		got := loadInto(t, px, strings.ReplaceAll(c.stmt, "{table}", "px_item"), []byte(c.data))
		require.Equal(t, want, got, c.stmt)
	}
	const all = "SELECT id, name, price, score, day, big FROM px_item ORDER BY id"
	require.Equal(t, rowsOf(t, ref, all), rowsOf(t, px, all))
	require.Len(t, rowsOf(t, ref, all), 10)
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for tb := range 2 {
			var ids []int64
			rows, err := db.QueryContext(context.Background(), fmt.Sprintf("SELECT id FROM px_item_%d", tb))
			require.NoError(t, err)
			for rows.Next() {
				var id int64
				require.NoError(t, rows.Scan(&id))
				ids = append(ids, id)
			}
			require.NoError(t, rows.Err())
			rows.Close()
			for _, id := range ids {
				require.Equal(t, ds, fmt.Sprintf("ds_%d", id%2), "row %d", id)
				require.Equal(t, int64(tb), (id/2)%2, "row %d", id)
			}
		}
	}

	// The file is read in the database's character set whatever the
	// connection's: a client with utf8mb3 or latin1 loads emoji and CJK
	// as they are, as MySQL's LOAD DATA does (the proxy sends them as
	// _utf8mb4 X'...' literals).
	for i, cs := range []string{"utf8mb3", "latin1"} {
		params := map[string]string{"charset": cs}
		stmt := "LOAD DATA LOCAL INFILE {file} INTO TABLE px_item (id, name)"
		data := []byte(fmt.Sprintf("%d\t中文😀 é\n", 30+i))
		require.Equal(t, loadInto(t, refClient(t, params), stmt, data), loadInto(t, env.client(t, "root", "secret", params), stmt, data), cs)
	}
	const hexNames = "SELECT id, HEX(name) FROM px_item WHERE id IN (30, 31) ORDER BY id"
	require.Equal(t, []string{"int64:30 | string:E4B8ADE69687F09F988020C3A9", "int64:31 | string:E4B8ADE69687F09F988020C3A9"}, rowsOf(t, ref, hexNames))
	require.Equal(t, rowsOf(t, ref, hexNames), rowsOf(t, px, hexNames))

	// Refused rows write nothing: the load runs in one transaction.
	before := rowsOf(t, px, all)
	got := loadInto(t, px, "LOAD DATA LOCAL INFILE {file} INTO TABLE px_item (id, name)", []byte("20\ttwenty\n21\n22\ttwenty-two\n"))
	require.Equal(t, "error: Error 1235 (42000): This version of the shardgen proxy doesn't yet support LOAD DATA of row 2: it has 1 fields for 2 columns, "+
		"which MySQL fills or cuts with a warning; the proxy loads only rows with one field per column", got)
	require.Equal(t, before, rowsOf(t, px, all))
	// The connection is usable after a refusal that came mid-file.
	require.Equal(t, []string{"int64:1"}, rowsOf(t, px, "SELECT 1"))
	got = loadInto(t, px, "LOAD DATA LOCAL INFILE {file} INTO TABLE px_nothing", []byte("1\n"))
	require.Equal(t, "error: Error 1146 (42S02): Table 'px_db.px_nothing' doesn't exist", got)
	_, err := px.Prepare("LOAD DATA LOCAL INFILE 'x' INTO TABLE px_item")
	require.EqualError(t, err, "Error 1295 (HY000): This command is not supported in the prepared statement protocol yet")
}

// TestProxyLoadDataLatin1 loads into a table sharded over two latin1
// databases: a latin1 file without CHARACTER SET (read in the database's
// character set, as MySQL does), and a utf8mb4 file with CJK and emoji
// (CHARACTER SET utf8mb4: what latin1 cannot hold becomes ?), compared
// with the latin1 reference database.
func TestProxyLoadDataLatin1(t *testing.T) {
	var b strings.Builder
	b.WriteString("databaseName: lt_db\ndataSources:\n")
	for _, ds := range testdb.Latin1DataSources()[:2] {
		c := testdb.Config(ds)
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 4\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	dss := testdb.Latin1DataSources()[:2]
	fmt.Fprintf(&b, `rules:
  - !SHARDING
    tables:
      lt_item:
        actualDataNodes: %s.lt_item,%s.lt_item
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: lt_mod
    shardingAlgorithms:
      lt_mod:
        type: MOD
        props:
          sharding-count: 2
authority:
  users:
    - user: root@%%
      password: secret
`, dss[0], dss[1])
	const ddl = "CREATE TABLE lt_item (id INT PRIMARY KEY, name VARCHAR(20))"
	for _, ds := range append(dss, "latin1_reference") {
		db := testdb.Open(t, ds)
		_, err := db.Exec("DROP TABLE IF EXISTS lt_item")
		require.NoError(t, err)
		_, err = db.Exec(ddl)
		require.NoError(t, err)
	}
	cfg, err := ParseConfig("lt.yaml", []byte(b.String()))
	require.NoError(t, err)
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0"})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	px := (&pxEnv{srv: srv}).clientDB(t, "root", "secret", "lt_db", nil)
	ref := testdb.Open(t, "latin1_reference")

	latin1 := []byte("1\t\xdcn\xefc\xf6d\xe9\n2\tcaf\xe9 \x80\n3\tplain\n")
	for _, c := range []struct {
		stmt string
		data []byte
	}{
		{"LOAD DATA LOCAL INFILE {file} INTO TABLE lt_item", latin1},
		{"LOAD DATA LOCAL INFILE {file} INTO TABLE lt_item CHARACTER SET latin1", []byte("4\tna\xefve\n")},
		{"LOAD DATA LOCAL INFILE {file} INTO TABLE lt_item CHARACTER SET utf8mb4", []byte("5\t中文😀\n6\tÜber\n7\tcafé\n")},
	} {
		require.Equal(t, loadInto(t, ref, c.stmt, c.data), loadInto(t, px, c.stmt, c.data), c.stmt)
	}
	const all = "SELECT id, name, HEX(name) FROM lt_item ORDER BY id"
	require.Equal(t, rowsOf(t, ref, all), rowsOf(t, px, all))
	require.Len(t, rowsOf(t, px, all), 7)
}
