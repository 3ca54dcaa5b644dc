package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pxPermittedYAML serves px_db to root (every database) and app (px_db),
// but not to guest, whose mapping names another database.
func pxPermittedYAML() string {
	head := strings.Split(pxYAML(), "authority:")[0]
	return head + `authority:
  users:
    - user: root@%
      password: secret
    - user: app@%
      password: app
    - user: guest@%
      password: guest
  privilege:
    type: DATABASE_PERMITTED
    props:
      user-database-mappings: root@%=*, app@%=px_db, guest@%=other_db
`
}

func TestProxyDatabasePermitted(t *testing.T) {
	e := newPxEnvYAML(t, pxPermittedYAML())
	tests := []struct {
		user, pass, db string
		err            string
	}{
		{"root", "secret", "px_db", ""},
		{"root", "secret", "", ""},
		{"app", "app", "PX_DB", ""},
		{"root", "secret", "nope", "Error 1049 (42000): Unknown database 'nope'"},
		{"guest", "guest", "nope", "Error 1049 (42000): Unknown database 'nope'"},
		{"guest", "guest", "px_db", "Error 1044 (42000): Access denied for user 'guest'@'127.0.0.1' to database 'px_db'"},
		{"guest", "guest", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.user+"/"+tt.db, func(t *testing.T) {
			err := e.clientDB(t, tt.user, tt.pass, tt.db, nil).Ping()
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.err)
		})
	}
	// A guest without a database sees no database, cannot USE px_db and
	// cannot query its tables.
	db := e.clientDB(t, "guest", "guest", "", nil)
	require.Empty(t, rowsOf(t, db, "SHOW DATABASES"))
	_, err := db.Exec("USE px_db")
	require.EqualError(t, err, "Error 1044 (42000): Access denied for user 'guest'@'127.0.0.1' to database 'px_db'")
	_, err = db.Exec("SELECT id FROM px_item")
	require.EqualError(t, err, "Error 1044 (42000): Access denied for user 'guest'@'127.0.0.1' to database 'px_db'")
	_, err = db.Exec("SHOW TABLES FROM px_db")
	require.EqualError(t, err, "Error 1044 (42000): Access denied for user 'guest'@'127.0.0.1' to database 'px_db'")
	// app sees px_db.
	require.Equal(t, []string{"string:px_db"}, rowsOf(t, e.client(t, "app", "app", nil), "SHOW DATABASES"))
	conn, err := e.clientDB(t, "app", "app", "", nil).Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(context.Background(), "USE px_db")
	require.NoError(t, err)
}

// pxKeyGenYAML is pxYAML with a SNOWFLAKE key generator on px_item.id.
func pxKeyGenYAML() string {
	y := strings.Replace(pxYAML(), "    shardingAlgorithms:\n", `        keyGenerateStrategy:
          column: id
          keyGeneratorName: snow
    keyGenerators:
      snow:
        type: SNOWFLAKE
    shardingAlgorithms:
`, 1)
	return y
}

func TestProxySessionVariables(t *testing.T) {
	e := newPxEnvYAML(t, pxKeyGenYAML())
	ctx := context.Background()
	conn, err := e.client(t, "root", "secret", nil).Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	exec := func(q string) error {
		_, err := conn.ExecContext(ctx, q)
		return err
	}
	one := func(q string) string {
		var s sql.NullString
		require.NoError(t, conn.QueryRowContext(ctx, q).Scan(&s), q)
		return s.String
	}
	// LAST_INSERT_ID() is the first generated key of the last INSERT that
	// generated one, as the OK packet said.
	require.Equal(t, "0", one("SELECT LAST_INSERT_ID()"))
	res, err := conn.ExecContext(ctx, "INSERT INTO px_item (name) VALUES ('gen')")
	require.NoError(t, err)
	id, err := res.LastInsertId()
	require.NoError(t, err)
	require.NotZero(t, id)
	require.Equal(t, strconv.FormatInt(id, 10), one("SELECT LAST_INSERT_ID()"))
	require.Equal(t, strconv.FormatInt(id, 10), one("SELECT @@last_insert_id"))
	require.NoError(t, exec("INSERT INTO px_item (id, name) VALUES (40, 'explicit')"))
	require.Equal(t, strconv.FormatInt(id, 10), one("SELECT LAST_INSERT_ID()"))
	require.Equal(t, []string{"string:gen"}, rowsOf(t, e.client(t, "root", "secret", nil), "SELECT name FROM px_item WHERE id = ?", id))

	// SET of the pools' own values changes nothing: the session stays on
	// the pools.
	mode := one("SELECT @@session.sql_mode")
	require.NoError(t, exec("SET sql_mode = '"+mode+"'"))
	require.NoError(t, exec("SET @@session.sql_mode = '"+mode+"'"))
	require.NoError(t, exec("SET SESSION sql_mode = '"+mode+"', NAMES utf8mb4"))
	tests := []struct{ q, err string }{
		{"SET @@session.no_such_var = 1", "Error 1193 (HY000): Unknown system variable 'no_such_var'"},
		{"SET GLOBAL max_connections = 10", "Error 1235 (42000): This version of the shardgen proxy doesn't yet support SET GLOBAL max_connections through the proxy (set it on the data sources)"},
		{"SET autocommit = 2", "Error 1231 (42000): Variable 'autocommit' can't be set to the value of '2'"},
	}
	for _, tt := range tests {
		require.EqualError(t, exec(tt.q), tt.err, tt.q)
	}

	// autocommit=0: statements run in an implicit transaction until
	// COMMIT / ROLLBACK; SET autocommit=1 commits.
	require.Equal(t, "1", one("SELECT @@autocommit"))
	require.NoError(t, exec("SET autocommit = 0"))
	require.Equal(t, "0", one("SELECT @@session.autocommit"))
	other := e.client(t, "root", "secret", nil)
	require.NoError(t, exec("INSERT INTO px_item (id, name) VALUES (50, 'manual')"))
	require.Empty(t, rowsOf(t, other, "SELECT id FROM px_item WHERE id = 50"))
	require.NoError(t, exec("ROLLBACK"))
	require.NoError(t, exec("INSERT INTO px_item (id, name) VALUES (52, 'manual')"))
	require.NoError(t, exec("COMMIT"))
	require.Equal(t, []string{"int64:52"}, rowsOf(t, other, "SELECT id FROM px_item WHERE id IN (50, 52)"))
	require.NoError(t, exec("INSERT INTO px_item (id, name) VALUES (54, 'manual')"))
	require.NoError(t, exec("SET autocommit = 1"))
	require.Equal(t, []string{"int64:54"}, rowsOf(t, other, "SELECT id FROM px_item WHERE id = 54"))
	require.Equal(t, "1", one("SELECT @@autocommit"))
}

func TestProxyPreparedSessionStatements(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	conn, err := e.client(t, "root", "secret", nil).Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	prep := func(q string) *sql.Stmt {
		st, err := conn.PrepareContext(ctx, q)
		require.NoError(t, err, q)
		t.Cleanup(func() { st.Close() })
		return st
	}
	begin, commit, rollback := prep("BEGIN"), prep("COMMIT"), prep("ROLLBACK")
	ins := prep("INSERT INTO px_item (id, name) VALUES (?, ?)")
	other := e.client(t, "root", "secret", nil)
	for i, end := range []*sql.Stmt{rollback, commit} {
		_, err := begin.ExecContext(ctx)
		require.NoError(t, err)
		_, err = ins.ExecContext(ctx, 60+2*i, "prepared")
		require.NoError(t, err)
		_, err = end.ExecContext(ctx)
		require.NoError(t, err)
	}
	require.Equal(t, []string{"int64:62"}, rowsOf(t, other, "SELECT id FROM px_item WHERE id IN (60, 62)"))
	var v string
	require.NoError(t, prep("SELECT @@version").QueryRowContext(ctx).Scan(&v))
	require.Equal(t, DefaultServerVersion, v)
	_, err = prep("SET NAMES utf8mb4").ExecContext(ctx)
	require.NoError(t, err)
	rows, err := prep("SHOW TABLES").QueryContext(ctx)
	require.NoError(t, err)
	require.True(t, rows.Next())
	require.NoError(t, rows.Scan(&v))
	require.Equal(t, "px_item", v)
	require.NoError(t, rows.Close())
	_, err = conn.PrepareContext(ctx, "SET sql_mode = ?")
	require.EqualError(t, err, "Error 1235 (42000): This version of the shardgen proxy doesn't yet support preparing SET statements")
}

// TestProxySessionSettings: what a session sets applies to its later
// statements on every data source (px_item rows 1 and 2 live on ds_1 and
// ds_0), and only to that session; SELECT @@x reads the session's value.
func TestProxySessionSettings(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	db := e.client(t, "root", "secret", nil)
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	exec := func(q string) error {
		_, err := conn.ExecContext(ctx, q)
		return err
	}
	one := func(q string) string {
		var s sql.NullString
		require.NoError(t, conn.QueryRowContext(ctx, q).Scan(&s), q)
		return s.String
	}
	long := strings.Repeat("n", 70) // name is VARCHAR(64)
	for _, id := range []int{1, 2} {
		require.ErrorContains(t, exec(fmt.Sprintf("INSERT INTO px_item (id, name) VALUES (%d, '%s')", id, long)), "Error 1406 (22001): Data too long for column 'name'")
	}
	require.NoError(t, exec("SET sql_mode = ''"))
	require.Equal(t, "", one("SELECT @@sql_mode"))
	require.NoError(t, exec("INSERT INTO px_item (id, name) VALUES (1, '"+long+"'), (2, '"+long+"')"))
	require.Equal(t, []string{"int64:1 | int64:64", "int64:2 | int64:64"}, rowsOf(t, db, "SELECT id, LENGTH(name) FROM px_item WHERE id IN (1, 2) ORDER BY id"))
	other := e.client(t, "root", "secret", nil)
	require.NotEqual(t, []string{"string:"}, rowsOf(t, other, "SELECT @@sql_mode"))

	// sql_mode flags that change how statements parse are refused, and the
	// session keeps its mode (with ANSI_QUOTES, SELECT "name" read the
	// string 'name' on merged routes and WHERE "id" = 3 matched nothing).
	for _, m := range []string{"'ANSI_QUOTES'", "'STRICT_TRANS_TABLES,PIPES_AS_CONCAT'", "'ansi'", "CONCAT(@@sql_mode, ',ANSI_QUOTES')", "'oracle'"} {
		require.ErrorContains(t, exec("SET sql_mode = "+m), "Error 1235 (42000): This version of the shardgen proxy doesn't yet support sql_mode ", m)
	}
	require.ErrorContains(t, exec("SET SESSION sql_mode = 'ANSI_QUOTES', time_zone = '+01:00'"), "sql_mode ANSI_QUOTES")
	require.Equal(t, "", one("SELECT @@sql_mode"))
	require.NotEqual(t, "+01:00", one("SELECT @@time_zone"))
	require.NoError(t, exec("SET @ansi_quotes = 1, sql_mode = 'NO_ZERO_DATE'"))
	require.Equal(t, "NO_ZERO_DATE", one("SELECT @@sql_mode"))
	require.NoError(t, exec("SET sql_mode = ''"))
	// User variables, character sets, time zones.
	require.NoError(t, exec("SET @x = 42, time_zone = '+05:00'"))
	require.NoError(t, exec("SET @y := 'a:=b', @w := \"x:=y\""))
	require.NoError(t, exec("SET @z := CONCAT(@y, ':=')"))
	require.Equal(t, "a:=b:=", one("SELECT @z"))
	require.Equal(t, "42", one("SELECT @x"))
	require.Equal(t, "+05:00", one("SELECT @@time_zone"))
	require.NoError(t, exec("SET NAMES latin1"))
	require.Equal(t, "latin1", one("SELECT @@character_set_connection"))

	// The next transaction's access mode; a session's read only; the back
	// end's errors are passed through.
	require.NoError(t, exec("SET TRANSACTION READ ONLY"))
	require.NoError(t, exec("BEGIN"))
	require.EqualError(t, exec("INSERT INTO px_item (id) VALUES (3)"), "Error 1792 (25006): Cannot execute statement in a READ ONLY transaction")
	require.NoError(t, exec("ROLLBACK"))
	require.NoError(t, exec("INSERT INTO px_item (id) VALUES (3)"))
	require.NoError(t, exec("START TRANSACTION READ ONLY"))
	require.EqualError(t, exec("INSERT INTO px_item (id) VALUES (4)"), "Error 1792 (25006): Cannot execute statement in a READ ONLY transaction")
	require.NoError(t, exec("COMMIT"))
	require.NoError(t, exec("SET SESSION TRANSACTION READ ONLY"))
	require.EqualError(t, exec("INSERT INTO px_item (id) VALUES (4)"), "Error 1792 (25006): Cannot execute statement in a READ ONLY transaction")

	// A handshake collation other than the pools' is applied too.
	latin := e.client(t, "root", "secret", map[string]string{"collation": "latin1_swedish_ci"})
	require.Equal(t, []string{"string:latin1 | string:latin1_swedish_ci"}, rowsOf(t, latin, "SELECT @@character_set_client, @@collation_connection"))
}

// TestProxyNoTableStatements: DO, a UNION without a table (text and
// prepared) and a query of comments only answer as MySQL does; DO of a
// table is refused with the reason.
func TestProxyNoTableStatements(t *testing.T) {
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", nil)
	for _, q := range []string{"DO 1", "DO 1, SLEEP(0)", "--", "/* nothing */"} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	_, err := db.Exec("DO (SELECT id FROM px_item)")
	require.EqualError(t, err, "Error 1235 (42000): This version of the shardgen proxy doesn't yet support DO statements that read tables")
	require.Equal(t, []string{"int64:1", "int64:0"}, rowsOf(t, db, "SELECT 1 UNION SELECT 0"))
	stmt, err := db.Prepare("SELECT 1 UNION SELECT 0")
	require.NoError(t, err)
	defer stmt.Close()
	rows, err := stmt.Query()
	require.NoError(t, err)
	n := 0
	for rows.Next() {
		n++
	}
	require.NoError(t, rows.Close())
	require.Equal(t, 2, n)
	do, err := db.Prepare("DO 1")
	require.NoError(t, err)
	_, err = do.Exec()
	require.NoError(t, err)
	require.NoError(t, do.Close())
}

// TestProxyTLS: with proxy-frontend-ssl-enabled the listener offers TLS
// (a self-signed certificate); clients choose it or a plain connection
// (go-sql-driver's tls=skip-verify fails with "TLS requested but server
// does not support TLS" on a listener without it).
func TestProxyTLS(t *testing.T) {
	e := newPxEnvYAML(t, strings.Replace(pxYAML(), "authority:", "props:\n  proxy-frontend-ssl-enabled: true\nauthority:", 1))
	for mode, cipher := range map[string]string{"skip-verify": "string:TLS_AES_128_GCM_SHA256", "false": "string:"} {
		db := e.client(t, "root", "secret", map[string]string{"tls": mode})
		require.Equal(t, []string{"string:Ssl_cipher | " + cipher}, rowsOf(t, db, "SHOW STATUS LIKE 'Ssl_cipher'"), mode)
		require.Equal(t, []string{"int64:1"}, rowsOf(t, db, "SELECT 1"), mode)
	}
}
