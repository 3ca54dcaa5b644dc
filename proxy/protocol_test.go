package proxy

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestProxyRequireSecureTransport: with
// proxy-frontend-require-secure-transport a client that does not switch
// to TLS is refused with ERROR 3159 (HY000), as MySQL refuses it under
// require_secure_transport=ON, whatever its password; over TLS it works.
// Without the TLS listener the prop is a start error.
func TestProxyRequireSecureTransport(t *testing.T) {
	y := strings.Replace(pxYAML(), "authority:", "props:\n  proxy-frontend-ssl-enabled: true\n  proxy-frontend-require-secure-transport: true\nauthority:", 1)
	e := newPxEnvYAML(t, y)
	for _, pass := range []string{"secret", "wrong"} {
		db := e.client(t, "root", pass, map[string]string{"tls": "false"})
		err := db.Ping()
		var me *gomysql.MySQLError
		require.True(t, errors.As(err, &me), "%v", err)
		require.Equal(t, uint16(3159), me.Number)
		require.Equal(t, "HY000", string(me.SQLState[:]))
		require.Equal(t, "Connections using insecure transport are prohibited while --require_secure_transport=ON.", me.Message)
	}
	db := e.client(t, "root", "secret", map[string]string{"tls": "skip-verify"})
	require.Equal(t, []string{"int64:1"}, rowsOf(t, db, "SELECT 1"))

	cfg, err := ParseConfig("px.yaml", []byte(strings.Replace(pxYAML(), "authority:", "props:\n  proxy-frontend-require-secure-transport: true\nauthority:", 1)))
	require.NoError(t, err)
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	err = srv.Start()
	require.EqualError(t, err, "proxy: props: proxy-frontend-require-secure-transport needs the TLS listener (proxy-frontend-ssl-enabled: true)")
	require.NoError(t, srv.Close())
}

// TestProxyFoundRows: a client that sets CLIENT_FOUND_ROWS
// (clientFoundRows=true) gets the rows an UPDATE or an INSERT ... ON
// DUPLICATE KEY UPDATE matched, summed over the data nodes, as the
// unsharded reference database gives them; without the flag the rows
// changed. px_item's rows 1..8 spread over all four data nodes.
func TestProxyFoundRows(t *testing.T) {
	e := newPxEnv(t)
	stmts := []string{
		"UPDATE px_item SET name = 'x' WHERE id IN (1, 2, 3, 4)", // 2 of 4 already 'x'
		"UPDATE px_item SET name = 'x' WHERE name <> 'y'",        // every node: 4 changed, 8 matched
		"UPDATE px_item SET name = 'x' WHERE id = 3",
		"UPDATE px_item SET name = 'x' WHERE id = 42",
		"INSERT INTO px_item (id, name) VALUES (5, 'x') ON DUPLICATE KEY UPDATE name = VALUES(name)",
		"INSERT INTO px_item (id, name) VALUES (6, 'y') ON DUPLICATE KEY UPDATE name = VALUES(name)",
		"DELETE FROM px_item WHERE id IN (7, 8)",
	}
	for _, found := range []string{"true", "false"} {
		params := map[string]string{"clientFoundRows": found}
		px, ref := e.client(t, "root", "secret", params), refClient(t, params)
		for _, db := range []*sql.DB{px, ref} {
			_, err := db.Exec("DELETE FROM px_item")
			require.NoError(t, err)
			_, err = db.Exec("INSERT INTO px_item (id, name) VALUES (1, 'x'), (2, 'a'), (3, 'x'), (4, 'b'), (5, 'c'), (6, 'd'), (7, 'e'), (8, 'f')")
			require.NoError(t, err)
		}
		for _, q := range stmts {
			want, err := ref.Exec(q)
			require.NoError(t, err, q)
			got, err := px.Exec(q)
			require.NoError(t, err, q)
			wn, _ := want.RowsAffected()
			gn, _ := got.RowsAffected()
			require.Equal(t, wn, gn, "clientFoundRows=%s: %s", found, q)
		}
	}
}

// TestProxyNoBackslashEscapes: a session with sql_mode NO_BACKSLASH_ESCAPES
// writes a backslash in a literal as an ordinary character; through the
// proxy its statements (literals in the text, values go-sql-driver
// interpolates itself, prepared statements; sharded, multi-node and
// tableless) read and write what the unsharded reference database in the
// same mode reads and writes. The driver interpolates correctly only
// because the proxy's OK packets carry SERVER_STATUS_NO_BACKSLASH_ESCAPES.
func TestProxyNoBackslashEscapes(t *testing.T) {
	e := newPxEnv(t)
	stmts := []string{
		`INSERT INTO px_item (id, name) VALUES (1, 'a\b'), (2, 'c\\d'), (3, 'it''s\'), (4, 'x\_y'), (5, 'q"\n'), (6, "d""q\")`,
		`SELECT id, name, LENGTH(name) FROM px_item ORDER BY id`,
		`SELECT id FROM px_item WHERE name = 'a\b'`,
		`SELECT id FROM px_item WHERE name IN ('c\\d', 'it''s\') ORDER BY id`,
		`SELECT id FROM px_item WHERE name LIKE 'x\_%' ORDER BY id`,
		`SELECT id FROM px_item WHERE name LIKE '%\' ORDER BY id`,
		`UPDATE px_item SET name = CONCAT(name, '\') WHERE id IN (1, 2)`,
		`SELECT id, name FROM px_item WHERE id IN (1, 2) ORDER BY id`,
		`SELECT 'a\b', LENGTH('\\'), 'it''s'`,
		`SELECT @@SESSION.sql_mode`,
		`DELETE FROM px_item WHERE name = 'x\_y'`,
		`SELECT COUNT(*) FROM px_item`,
	}
	for _, interpolate := range []string{"false", "true"} {
		params := map[string]string{"sql_mode": "'NO_BACKSLASH_ESCAPES'", "interpolateParams": interpolate}
		px, ref := e.client(t, "root", "secret", params), refClient(t, params)
		px.SetMaxOpenConns(1)
		for _, db := range []*sql.DB{px, ref} {
			_, err := db.Exec("DELETE FROM px_item")
			require.NoError(t, err)
		}
		for _, q := range stmts {
			if strings.HasPrefix(q, "SELECT") {
				require.Equal(t, rowsOf(t, ref, q), rowsOf(t, px, q), "interpolateParams=%s: %s", interpolate, q)
				continue
			}
			_, err := ref.Exec(q)
			require.NoError(t, err, q)
			_, err = px.Exec(q)
			require.NoError(t, err, q)
		}
		for i, v := range []string{"p\\'x\x00\"\n\x1a", `\`, `''\\`} {
			for _, db := range []*sql.DB{px, ref} {
				_, err := db.Exec("INSERT INTO px_item (id, name) VALUES (?, ?)", 10+i, v)
				require.NoError(t, err)
			}
			q := "SELECT id, name FROM px_item WHERE name = ?"
			require.Equal(t, rowsOf(t, ref, q, v), rowsOf(t, px, q, v), "interpolateParams=%s: %q", interpolate, v)
			require.Len(t, rowsOf(t, px, q, v), 1, "%q", v)
		}
		q := "SELECT id, name FROM px_item ORDER BY id"
		require.Equal(t, rowsOf(t, ref, q), rowsOf(t, px, q), "interpolateParams=%s", interpolate)
	}
}

// TestNoBackslashRoundTrip: noBackslashToStandard and
// standardToNoBackslash convert literals only, and back.
func TestNoBackslashRoundTrip(t *testing.T) {
	for nbe, std := range map[string]string{
		`SELECT 'a\b', "c\", 'it''s\'`:                `SELECT 'a\\b', "c\\", 'it''s\\'`,
		"SELECT `a\\b`, 1 /* 'x\\ */ -- 'y\\\n, '\\'": "SELECT `a\\b`, 1 /* 'x\\ */ -- 'y\\\n, '\\\\'",
		`SELECT /*!50000 'v\' */ 1`:                   `SELECT /*!50000 'v\\' */ 1`,
		`SELECT 'no backslash'`:                       `SELECT 'no backslash'`,
	} {
		require.Equal(t, std, noBackslashToStandard(nbe))
		require.Equal(t, nbe, standardToNoBackslash(std))
	}
	require.Equal(t, "SELECT 'it''s', '\x00\n\r\t\b\x1a', '\"', \"'\", '\\%\\_', 'xq'",
		standardToNoBackslash(`SELECT 'it\'s', '\0\n\r\t\b\Z', '\"', "\'", '\%\_', '\x\q'`))
}

// TestProxyConnectionAttributes: performance_schema's
// session_account_connect_attrs and session_connect_attrs show the
// attributes the client sent the proxy at handshake (go-sql-driver's own
// and its connectionAttributes), for PROCESSLIST_ID = CONNECTION_ID(), as
// go-sql-driver's TestConnectionAttributes reads them from a server; a
// session sees another session's in session_connect_attrs.
func TestProxyConnectionAttributes(t *testing.T) {
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", map[string]string{"connectionAttributes": "attr1:value1,fo/o:bo/o"})
	db.SetMaxOpenConns(1)
	other := e.client(t, "root", "secret", map[string]string{"connectionAttributes": "who:other"})
	require.NoError(t, other.Ping())
	got := map[string]string{}
	rows, err := db.Query("SELECT ATTR_NAME, ATTR_VALUE FROM performance_schema.session_account_connect_attrs WHERE PROCESSLIST_ID = CONNECTION_ID()")
	require.NoError(t, err)
	for rows.Next() {
		var k, v string
		require.NoError(t, rows.Scan(&k, &v))
		got[k] = v
	}
	require.NoError(t, rows.Err())
	require.Equal(t, "value1", got["attr1"])
	require.Equal(t, "bo/o", got["fo/o"])
	require.Equal(t, "Go-MySQL-Driver", got["_client_name"])
	require.Equal(t, strconv.Itoa(os.Getpid()), got["_pid"])
	require.Equal(t, "127.0.0.1", got["_server_host"])
	require.NotContains(t, got, "who")
	require.Equal(t, []string{"int64:1"}, rowsOf(t, db, "SELECT COUNT(*) FROM performance_schema.session_connect_attrs a WHERE a.ATTR_NAME = 'who' AND a.ATTR_VALUE = 'other' AND PROCESSLIST_ID <> CONNECTION_ID()"))
	require.Equal(t, []string{"string:attr1 | int64:1"}, rowsOf(t, db, "SELECT ATTR_NAME, COUNT(*) FROM performance_schema.session_connect_attrs WHERE ATTR_NAME LIKE 'attr%' GROUP BY ATTR_NAME"))
}

// changeUser sends COM_CHANGE_USER for user (password) with database db,
// collation utf8mb4_general_ci and the connection attributes attrs,
// answers the proxy's AuthSwitchRequest with the mysql_native_password
// scramble and returns the final packet's error (nil for OK).
func (c *rawClient) changeUser(t *testing.T, user, password, db string, attrs map[string]string) error {
	t.Helper()
	p := append([]byte{0x11}, user...)
	p = append(append(p, 0), 20)
	p = append(p, make([]byte, 20)...) // an answer to the greeting's scramble: the proxy asks again
	p = append(append(p, db...), 0)
	p = append(p, 45, 0)
	p = append(append(p, "mysql_native_password"...), 0)
	var kv []byte
	for k, v := range attrs {
		kv = append(append(append(kv, byte(len(k))), k...), byte(len(v)))
		kv = append(kv, v...)
	}
	p = append(append(p, byte(len(kv))), kv...)
	c.command(t, p)
	sw := c.mustRead(t)
	if sw[0] == mysql.ErrPacket {
		return packetError(sw)
	}
	require.Equal(t, byte(0xfe), sw[0], "AuthSwitchRequest")
	plugin, salt, ok := bytes.Cut(sw[1:], []byte{0})
	require.True(t, ok)
	require.Equal(t, "mysql_native_password", string(plugin))
	require.Len(t, salt, 21)
	require.NoError(t, c.write(mysql.ScrambleMysqlNativePassword(salt[:20], []byte(password))))
	res, err := c.read()
	require.NoError(t, err)
	if res[0] != mysql.OKPacket {
		return packetError(res)
	}
	return nil
}

// query runs q with COM_QUERY and returns its rows, each value as text
// ("NULL" for NULL), or the ERR packet's error.
func (c *rawClient) query(t *testing.T, q string) ([][]string, error) {
	t.Helper()
	c.command(t, append([]byte{0x03}, q...))
	p := c.mustRead(t)
	switch p[0] {
	case mysql.OKPacket:
		return nil, nil
	case mysql.ErrPacket:
		return nil, packetError(p)
	}
	n := int(p[0])
	for i := 0; i < n; i++ {
		c.mustRead(t)
	}
	require.Equal(t, byte(mysql.EOFPacket), c.mustRead(t)[0])
	var rows [][]string
	for {
		p := c.mustRead(t)
		if p[0] == mysql.EOFPacket && len(p) < 9 {
			return rows, nil
		}
		var row []string
		for len(p) > 0 {
			if p[0] == 0xfb {
				row, p = append(row, "NULL"), p[1:]
				continue
			}
			v, rest, ok := lenEncString(p)
			require.True(t, ok)
			row, p = append(row, v), rest
		}
		rows = append(rows, row)
	}
}

// TestProxyChangeUser: COM_CHANGE_USER (which go-sql-driver never sends)
// authenticates the new account on a fresh scramble and starts a new
// session as COM_RESET_CONNECTION does: the open transaction is rolled
// back, user variables and prepared statements are gone, and the packet's
// database and connection attributes apply. A wrong password or a
// database the proxy does not serve is answered with MySQL's error and the
// connection closed.
func TestProxyChangeUser(t *testing.T) {
	y := strings.Replace(pxYAML(), "      password: secret\n", "      password: secret\n    - user: app@%\n      password: apw\n", 1)
	e := newPxEnvYAML(t, y)
	c := dialRaw(t, e.srv.Addr(), "root", "secret", "px_db", mysql.MysqlNativePassword)
	for _, q := range []string{"DELETE FROM px_item", "SET @x = 5", "BEGIN", "INSERT INTO px_item (id, name) VALUES (1, 'cu')"} {
		_, err := c.query(t, q)
		require.NoError(t, err, q)
	}
	stmt, _ := c.prepare(t, "SELECT name FROM px_item WHERE id = ?")
	require.NoError(t, c.changeUser(t, "app", "apw", "px_db", map[string]string{"k": "v"}))
	for q, want := range map[string][][]string{
		"SELECT @x": {{"NULL"}},
		"SELECT COUNT(*) FROM px_item WHERE id = 1": {{"0"}},
		"SELECT DATABASE()":                         {{"px_db"}},
		"SELECT ATTR_VALUE FROM performance_schema.session_connect_attrs WHERE PROCESSLIST_ID = CONNECTION_ID() AND ATTR_NAME = 'k'": {{"v"}},
		"SELECT @@autocommit": {{"1"}},
	} {
		got, err := c.query(t, q)
		require.NoError(t, err, q)
		require.Equal(t, want, got, q)
	}
	err := c.execute(t, stmt, rawParam{typ: rawTypeLongLong, val: []byte{1, 0, 0, 0, 0, 0, 0, 0}})
	require.ErrorContains(t, err, "statement ID is not found") // vitess's answer to an unknown statement
	require.NoError(t, c.changeUser(t, "root", "secret", "", nil))
	_, err = c.query(t, "SELECT COUNT(*) FROM px_item")
	require.NoError(t, err) // the proxy's one logic database needs no USE
	got, err := c.query(t, "SELECT DATABASE()")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"NULL"}}, got)

	require.EqualError(t, c.changeUser(t, "app", "wrong", "px_db", nil), "Error 1045 (28000): Access denied for user 'app'@'127.0.0.1' (using password: YES)")
	_, err = c.read()
	require.ErrorIs(t, err, io.EOF, "the connection is closed")
	c = dialRaw(t, e.srv.Addr(), "root", "secret", "px_db", mysql.MysqlNativePassword)
	require.EqualError(t, c.changeUser(t, "app", "apw", "nope", nil), "Error 1049 (42000): Unknown database 'nope'")
}

// TestProxyWarnings: after each statement, SHOW WARNINGS, SHOW ERRORS,
// SHOW COUNT(*) WARNINGS and @@warning_count give what the unsharded
// reference database gives (the messages of a statement over several data
// nodes in node order, so compared sorted), and the warning count of the
// OK and EOF packets is the back ends' sum.
func TestProxyWarnings(t *testing.T) {
	e := newPxEnv(t)
	px, ref := e.client(t, "root", "secret", nil), refClient(t, nil)
	px.SetMaxOpenConns(1)
	ref.SetMaxOpenConns(1)
	for _, db := range []*sql.DB{px, ref} {
		_, err := db.Exec("DELETE FROM px_item")
		require.NoError(t, err)
		_, err = db.Exec("INSERT INTO px_item (id, name) VALUES (1, 'a'), (2, '2b'), (3, 'c'), (4, '4d')")
		require.NoError(t, err)
	}
	sorted := func(rows []string) []string { sort.Strings(rows); return rows }
	for _, q := range []string{
		"SELECT 1/0",
		"SELECT CAST('12abc' AS SIGNED), CAST('x' AS SIGNED)",
		"INSERT IGNORE INTO px_item (id, name) VALUES (1, 'dup')",
		"INSERT IGNORE INTO px_item (id, name) VALUES (1, 'dup'), (2, 'dup'), (5, 'e')",
		"SELECT 1", // a statement without tables keeps the warnings
		"SELECT ROW_COUNT()",
		"SET @w = 1",
		"DO 1",
		"SELECT 2 FROM DUAL",
		"SELECT id, CAST(name AS SIGNED) FROM px_item WHERE id IN (1, 2, 3, 4) ORDER BY id",
		"SELECT id FROM px_item WHERE id = 1",
		"INSERT INTO px_item (id, name) VALUES (1, 'dup')",
		"UPDATE px_item SET name = 'z' WHERE id = 3",
	} {
		for _, db := range []*sql.DB{px, ref} {
			rows, err := db.Query(q)
			if err == nil {
				for rows.Next() {
				}
				require.NoError(t, rows.Close())
			}
		}
		for _, d := range []string{"SHOW WARNINGS", "SHOW ERRORS", "SHOW COUNT(*) WARNINGS", "SHOW COUNT(*) ERRORS", "SELECT @@warning_count, @@error_count"} {
			require.Equal(t, sorted(rowsOf(t, ref, d)), sorted(rowsOf(t, px, d)), "%s after %s", d, q)
		}
	}

	// SHOW WARNINGS|ERRORS LIMIT [offset,] n as MariaDB applies it, also
	// past the 64 messages kept (the proxy returned every message).
	casts := make([]string, 70)
	for i := range casts {
		casts[i] = fmt.Sprintf("CAST('%da' AS SIGNED)", i)
	}
	for _, q := range []string{
		"SELECT 1/0, " + strings.Join(casts, ", "),
		"INSERT INTO px_item (id, name) VALUES (1, 'dup')",
	} {
		for _, db := range []*sql.DB{px, ref} {
			if rows, err := db.Query(q); err == nil {
				for rows.Next() {
				}
				require.NoError(t, rows.Close())
			}
		}
		for _, d := range []string{
			"SHOW WARNINGS LIMIT 2", "show warnings limit 1, 2", "SHOW WARNINGS LIMIT 2 OFFSET 1", "SHOW WARNINGS LIMIT 0",
			"SHOW WARNINGS LIMIT 60, 10", "SHOW WARNINGS LIMIT 3 OFFSET 62", "SHOW WARNINGS /* c */ LIMIT\n5", "SHOW WARNINGS LIMIT 18446744073709551615",
			"SHOW ERRORS LIMIT 1", "SHOW ERRORS LIMIT 1, 1", "SHOW ERRORS LIMIT 0, 1", "SHOW COUNT(*) WARNINGS",
		} {
			require.Equal(t, rowsOf(t, ref, d), rowsOf(t, px, d), "%s after %s", d, q)
		}
	}
	// A malformed LIMIT is MariaDB's syntax error, which SHOW WARNINGS
	// then shows.
	for _, d := range []string{"SHOW WARNINGS LIMIT -1", "SHOW WARNINGS LIMIT 1.5", "SHOW ERRORS LIMIT 99999999999999999999", "SHOW WARNINGS x", "SHOW WARNINGS LIMIT 1,\n0x2"} {
		_, perr := px.Query(d)
		_, rerr := ref.Query(d)
		require.Error(t, rerr, d)
		require.EqualError(t, perr, rerr.Error(), d)
		require.Equal(t, rowsOf(t, ref, "SHOW WARNINGS"), rowsOf(t, px, "SHOW WARNINGS"), "SHOW WARNINGS after %s", d)
	}

	rc := testdb.Config("reference")
	proxied, direct := dialRaw(t, e.srv.Addr(), "root", "secret", "px_db", mysql.MysqlNativePassword),
		dialRaw(t, rc.Addr, rc.User, rc.Passwd, "reference", mysql.MysqlNativePassword)
	for _, q := range []string{
		"INSERT IGNORE INTO px_item (id, name) VALUES (1, 'dup'), (2, 'dup')",
		"SELECT id, CAST(name AS SIGNED) FROM px_item WHERE id IN (1, 2, 3, 4)",
		"SELECT id FROM px_item WHERE id = 1",
		"UPDATE IGNORE px_item SET price = CAST(CONCAT(id, 'x') AS DECIMAL(10,2)) WHERE id IN (1, 2, 3, 4, 5)",
	} {
		require.Equal(t, direct.warningCount(t, q), proxied.warningCount(t, q), q)
	}
}

// warningCount runs q with COM_QUERY and returns the warning count of its
// last packet (OK, or the EOF after the rows).
func (c *rawClient) warningCount(t *testing.T, q string) uint16 {
	t.Helper()
	c.command(t, append([]byte{0x03}, q...))
	p := c.mustRead(t)
	require.NotEqual(t, byte(mysql.ErrPacket), p[0], "%s", p)
	if p[0] == mysql.OKPacket {
		_, rest, _ := lenEnc(p[1:])
		_, rest, _ = lenEnc(rest)
		return binary.LittleEndian.Uint16(rest[2:4])
	}
	for p[0] != mysql.EOFPacket {
		p = c.mustRead(t)
	}
	for p = c.mustRead(t); p[0] != mysql.EOFPacket || len(p) >= 9; p = c.mustRead(t) {
	}
	return binary.LittleEndian.Uint16(p[1:3])
}

// TestProxyBroadcastWarnings: a write to a broadcast table runs on every
// copy, but its warnings are one copy's, as the unsharded reference
// reports them (they were summed over the copies: twice the warnings).
func TestProxyBroadcastWarnings(t *testing.T) {
	const ddl = "CREATE TABLE px_bcw (code CHAR(2) NOT NULL PRIMARY KEY, name VARCHAR(4) NOT NULL)"
	e := newPxEnvDDL(t, strings.Replace(pxYAML(), "authority:", "  - !BROADCAST\n    tables: [px_bcw]\nauthority:", 1), ddl)
	px, ref := e.client(t, "root", "secret", nil), refClient(t, nil)
	px.SetMaxOpenConns(1)
	ref.SetMaxOpenConns(1)
	for _, db := range []*sql.DB{testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1"), e.ref} {
		execAll(t, db, "DROP TABLE IF EXISTS px_bcw")
		t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS px_bcw") })
	}
	execAll(t, px, ddl, "SET sql_mode = ''")
	execAll(t, ref, ddl, "SET sql_mode = ''")
	for i, q := range []string{
		"INSERT INTO px_bcw VALUES ('SE', 'Sverige'), ('NO', 'Norge')",
		"INSERT IGNORE INTO px_bcw VALUES ('SE', 'x')",
		"UPDATE px_bcw SET name = CONCAT(name, 'long') WHERE code = 'NO'",
	} {
		for _, db := range []*sql.DB{px, ref} {
			execAll(t, db, q)
		}
		for _, d := range []string{"SHOW WARNINGS", "SHOW COUNT(*) WARNINGS", "SELECT @@warning_count"} {
			require.Equal(t, rowsOf(t, ref, d), rowsOf(t, px, d), "%s after %s", d, q)
		}
		if i == 0 {
			continue // a second run is a duplicate key
		}
		stmt, err := px.Prepare(q) // the binary protocol, with its own warnings
		require.NoError(t, err)
		_, err = stmt.Exec()
		require.NoError(t, err)
		require.NoError(t, stmt.Close())
		require.Equal(t, rowsOf(t, ref, "SHOW COUNT(*) WARNINGS"), rowsOf(t, px, "SHOW COUNT(*) WARNINGS"), "prepared %s", q)
	}
	require.Equal(t, rowsOf(t, ref, "SELECT * FROM px_bcw ORDER BY code"), rowsOf(t, px, "SELECT * FROM px_bcw ORDER BY code"))
}

// columnCollations runs q with COM_QUERY and returns the collation id of
// each column definition of its result set (nil for an OK).
func (c *rawClient) columnCollations(t *testing.T, q string) []uint16 {
	t.Helper()
	c.command(t, append([]byte{0x03}, q...))
	p := c.mustRead(t)
	require.NotEqual(t, byte(mysql.ErrPacket), p[0], "%s", p)
	if p[0] == mysql.OKPacket {
		return nil
	}
	n, _, _ := lenEnc(p)
	var ids []uint16
	for i := uint64(0); i < n; i++ {
		rest := c.mustRead(t)
		for f := 0; f < 6; f++ { // catalog, schema, table, org_table, name, org_name
			l, r, _ := lenEnc(rest)
			rest = r[l:]
		}
		ids = append(ids, binary.LittleEndian.Uint16(rest[1:3]))
	}
	for p = c.mustRead(t); p[0] != mysql.EOFPacket; p = c.mustRead(t) {
	}
	for p = c.mustRead(t); p[0] != mysql.EOFPacket || len(p) >= 9; p = c.mustRead(t) {
	}
	return ids
}

// TestProxyResultCharsetAfterSetNames: after SET NAMES (or SET
// character_set_results) the text columns of results carry the collation
// of character_set_results, as the unsharded reference labels them, so a
// client decoding by column character set reads latin1 bytes as latin1
// (they said the handshake's utf8mb4_general_ci before).
func TestProxyResultCharsetAfterSetNames(t *testing.T) {
	e := newPxEnv(t)
	px := e.client(t, "root", "secret", nil)
	for _, db := range []*sql.DB{px, e.ref} {
		execAll(t, db, "DELETE FROM px_item", "INSERT INTO px_item (id, name) VALUES (1, 'Åsa'), (2, 'Öst')")
	}
	rc := testdb.Config("reference")
	proxied, direct := dialRaw(t, e.srv.Addr(), "root", "secret", "px_db", mysql.MysqlNativePassword),
		dialRaw(t, rc.Addr, rc.User, rc.Passwd, "reference", mysql.MysqlNativePassword)
	for _, q := range []string{
		"SELECT id, name FROM px_item WHERE id = 1",
		"SET NAMES latin1",
		"SELECT id, name FROM px_item WHERE id = 1",
		"SELECT name, COUNT(*) FROM px_item GROUP BY name ORDER BY name",
		"SELECT 'x', 1",
		"SHOW WARNINGS",
		"SET character_set_results = cp1251",
		"SELECT name FROM px_item ORDER BY id",
		"SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci",
		"SELECT name FROM px_item ORDER BY id",
		"SET NAMES sjis",
		"SELECT name FROM px_item ORDER BY id",
	} {
		require.Equal(t, direct.columnCollations(t, q), proxied.columnCollations(t, q), q)
	}
	got, err := proxied.query(t, "SELECT HEX(name) FROM px_item WHERE id = 1")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"C3857361"}}, got, "stored as utf8mb4 through the latin1 session")
}
