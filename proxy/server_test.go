package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// pxDDL is the logic table of the proxy tests (its own name, so that other
// packages' tests on the same servers never touch it).
const pxDDL = `CREATE TABLE px_item (
  id BIGINT NOT NULL,
  name VARCHAR(64) NULL,
  price DECIMAL(10,2) NULL,
  score DOUBLE NULL,
  ratio FLOAT NULL,
  created DATETIME(3) NULL,
  day DATE NULL,
  big BIGINT UNSIGNED NULL,
  data VARBINARY(16) NULL,
  PRIMARY KEY (id)
)`

// pxRules shards px_item over ds_0, ds_1 by id % 2 and over two tables per
// data source by (id / 2) % 2.
const pxRules = `rules:
  - !SHARDING
    tables:
      px_item:
        actualDataNodes: ds_${0..1}.px_item_${0..1}
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: db_inline
        tableStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: t_inline
    shardingAlgorithms:
      db_inline:
        type: INLINE
        props:
          algorithm-expression: ds_${id % 2}
      t_inline:
        type: INLINE
        props:
          algorithm-expression: px_item_${id.intdiv(2) % 2}
authority:
  users:
    - user: root@%
      password: secret
`

// pxYAML returns the proxy configuration over ds_0 and ds_1 of the test
// servers.
func pxYAML() string {
	var b strings.Builder
	b.WriteString("databaseName: px_db\ndataSources:\n")
	for _, ds := range testdb.DataSources()[:2] {
		c := testdb.Config(ds)
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 8\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	b.WriteString(pxRules)
	return b.String()
}

// pxEnv is a running proxy over px_item plus the unsharded reference copy.
type pxEnv struct {
	srv *Server
	ref *sql.DB // the "reference" database, direct
}

func newPxEnv(t testing.TB) *pxEnv {
	t.Helper()
	return newPxEnvYAML(t, pxYAML())
}

// newPxEnvYAML is newPxEnv with the proxy configuration y.
func newPxEnvYAML(t testing.TB, y string) *pxEnv {
	t.Helper()
	return newPxEnvDDL(t, y, "")
}

// newPxEnvDDL is newPxEnvYAML with the CREATE TABLEs extra (for tables of
// y's rules besides px_item) in the planner's DDL after pxDDL.
func newPxEnvDDL(t testing.TB, y, extra string) *pxEnv {
	t.Helper()
	return newPxEnvOpts(t, y, extra, Options{})
}

// newPxEnvOpts is newPxEnvDDL with server options (Listen and
// ShutdownTimeout are set here).
func newPxEnvOpts(t testing.TB, y, extra string, opts Options) *pxEnv {
	t.Helper()
	cfg, err := ParseConfig("px.yaml", []byte(y))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("px.sql", []byte(pxDDL+";\n"+extra))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	ctx := context.Background()
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"px_item_0", "px_item_1"} {
			_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+tb)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, strings.Replace(pxDDL, "px_item", tb, 1))
			require.NoError(t, err)
		}
	}
	ref := testdb.Open(t, "reference")
	_, err = ref.ExecContext(ctx, "DROP TABLE IF EXISTS px_item")
	require.NoError(t, err)
	_, err = ref.ExecContext(ctx, pxDDL)
	require.NoError(t, err)
	opts.Listen, opts.ShutdownTimeout = "127.0.0.1:0", 2*time.Second
	srv, err := NewServer(cfg, opts)
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return &pxEnv{srv: srv, ref: ref}
}

// client opens go-sql-driver against the proxy; params are DSN parameters.
func (e *pxEnv) client(t testing.TB, user, pass string, params map[string]string) *sql.DB {
	t.Helper()
	return e.clientDB(t, user, pass, "px_db", params)
}

// clientDB is client with the database db ("" for none).
func (e *pxEnv) clientDB(t testing.TB, user, pass, dbName string, params map[string]string) *sql.DB {
	t.Helper()
	c := gomysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = user, pass, "tcp", e.srv.Addr(), dbName
	c.Params = params
	db, err := sql.Open("mysql", c.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// refClient opens the reference database with the same DSN parameters.
func refClient(t *testing.T, params map[string]string) *sql.DB {
	return testdb.OpenWith(t, "reference", params)
}

// querier is a client pool (*sql.DB) or one client session (*sql.Conn).
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// rowsOf reads every row of q on db as driver values rendered as "%T:%v"
// text, so that types count in comparisons.
func rowsOf(t *testing.T, db querier, q string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	require.NoError(t, err, q)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		out = append(out, scanRendered(t, rows, len(cols)))
	}
	require.NoError(t, rows.Err())
	return out
}

// scanRendered scans the current row of rows (n columns) and renders its
// values as "%T:%v" text joined by " | " ([]byte as a string).
func scanRendered(t *testing.T, rows *sql.Rows, n int) string {
	t.Helper()
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	require.NoError(t, rows.Scan(ptrs...))
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteString(" | ")
		}
		if bs, ok := v.([]byte); ok {
			v = string(bs)
		}
		fmt.Fprintf(&b, "%T:%v", v, v)
	}
	return b.String()
}

// typesOf returns the column types of q as "name DBTYPE nullable".
func typesOf(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	require.NoError(t, err, q)
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	require.NoError(t, err)
	var out []string
	for _, ct := range cts {
		n, _ := ct.Nullable()
		p, s, _ := ct.DecimalSize()
		out = append(out, fmt.Sprintf("%s %s null=%v dec=%d,%d", ct.Name(), ct.DatabaseTypeName(), n, p, s))
	}
	return out
}

var pxRows = [][]any{
	{int64(1), "alpha", "12.50", 15000000000.0, float32(1.1), "2024-02-29 13:04:05.123", "2024-02-29", uint64(18446744073709551615), []byte{0, 1, 2}},
	{int64(2), "o'hara \\ back", "-0.01", 0.30000000000000004, float32(123456789), "1999-12-31 23:59:59.000", "1999-12-31", uint64(0), []byte("x")},
	{int64(3), nil, nil, nil, nil, nil, nil, nil, nil},
	{int64(4), "Ünïcödé", "99999999.99", 1e-16, float32(-1.5e-7), "2000-01-01 00:00:00.500", "2000-01-01", uint64(42), []byte{}},
	{int64(5), "", "0.00", -1e15, float32(0), "2024-01-01 00:00:00.000", "0000-00-00", uint64(1) << 63, nil},
	{int64(6), "six", "6.06", 6.0, float32(6), "2024-06-06 06:06:06.006", "2024-06-06", uint64(6), []byte("6")},
	{int64(7), "seven", "7.00", 7.5, float32(7.25), "2024-07-07 07:07:07.070", "2024-07-07", uint64(7), []byte("7")},
}

const pxInsert = "INSERT INTO px_item (id, name, price, score, ratio, created, day, big, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"

func TestProxyDriverParity(t *testing.T) {
	e := newPxEnv(t)
	text := map[string]string{"interpolateParams": "true"}
	// Writes: half through the text protocol, half as prepared statements.
	// (BIGINT UNSIGNED values above 2^63-1 go through the text protocol
	// only: vitess v0.24.4 drops the unsigned flag of COM_STMT_EXECUTE
	// parameter types, so the proxy receives them negative.)
	px := e.client(t, "root", "secret", text)
	pxBin := e.client(t, "root", "secret", nil)
	for i, r := range pxRows {
		db := px
		if i%2 == 1 {
			db = pxBin
		}
		res, err := db.Exec(pxInsert, r...)
		require.NoError(t, err, "row %d", i)
		n, err := res.RowsAffected()
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
		_, err = e.ref.Exec(pxInsert, r...)
		require.NoError(t, err)
	}
	queries := []string{
		"SELECT id, name, price, score, ratio, created, day, big, data FROM px_item ORDER BY id",
		"SELECT * FROM px_item WHERE id = 2",
		"SELECT id, score FROM px_item WHERE id IN (1, 4, 5) ORDER BY score DESC",
		"SELECT COUNT(*), SUM(price), MAX(score), MIN(created) FROM px_item",
		"SELECT name FROM px_item WHERE id = 100",
		"SELECT id, name FROM px_item ORDER BY id LIMIT 2, 3",
	}
	modes := []struct {
		name   string
		params map[string]string
	}{
		{"text", text},
		{"binary", nil},
		{"text parseTime", map[string]string{"interpolateParams": "true", "parseTime": "true"}},
		{"binary parseTime", map[string]string{"parseTime": "true"}},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			px := e.client(t, "root", "secret", m.params)
			ref := refClient(t, m.params)
			for _, q := range queries {
				require.Equal(t, rowsOf(t, ref, q), rowsOf(t, px, q), q)
				require.Equal(t, typesOf(t, ref, q), typesOf(t, px, q), q)
			}
			// Parameters, in either protocol.
			q := "SELECT id, name, score FROM px_item WHERE id = ? OR name = ? ORDER BY id"
			require.Equal(t, rowsOf(t, ref, q, 4, "six"), rowsOf(t, px, q, 4, "six"))
		})
	}
}

func TestProxySessionStatements(t *testing.T) {
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", nil)
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	ctx := context.Background()
	one := func(q string) string {
		var s sql.NullString
		require.NoError(t, conn.QueryRowContext(ctx, q).Scan(&s), q)
		return s.String
	}
	require.Equal(t, DefaultServerVersion, one("SELECT @@version"))
	require.Equal(t, "shardgen proxy", one("select @@version_comment limit 1"))
	require.Equal(t, "px_db", one("SELECT DATABASE()"))
	require.Equal(t, "2", one("SELECT 1 + 1"))
	require.Equal(t, []string{"string:px_db"}, rowsOf(t, db, "SHOW DATABASES"))
	require.Equal(t, []string{"string:px_item"}, rowsOf(t, db, "SHOW TABLES"))
	for _, q := range []string{"USE px_db", "use `px_db`", "SET NAMES utf8mb4", "SET autocommit=1", "SET character_set_results = NULL"} {
		_, err := conn.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	_, err = conn.ExecContext(ctx, "USE other")
	require.EqualError(t, err, "Error 1049 (42000): Unknown database 'other'")

	// PREVIEW
	require.Equal(t, []string{"string:ds_1 | string:SELECT id, name FROM px_item_1 WHERE id = 3"},
		rowsOf(t, db, "PREVIEW SELECT id, name FROM px_item WHERE id = 3"))

	// Transactions: a rolled back insert is gone, a committed one stays.
	for _, q := range []string{"BEGIN", "INSERT INTO px_item (id, name) VALUES (11, 'tx')", "ROLLBACK",
		"START TRANSACTION", "INSERT INTO px_item (id, name) VALUES (13, 'tx')", "COMMIT"} {
		_, err := conn.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	require.Equal(t, []string{"int64:13"}, rowsOf(t, db, "SELECT id FROM px_item WHERE id IN (11, 13)"))
	// A transaction spans data sources (ShardingSphere LOCAL): rolled back
	// and committed on both.
	for _, end := range []string{"ROLLBACK", "COMMIT"} {
		for _, q := range []string{"BEGIN", "INSERT INTO px_item (id, name) VALUES (21, 'tx')", "INSERT INTO px_item (id, name) VALUES (22, 'tx')",
			"SELECT COUNT(*) FROM px_item", end} {
			_, err := conn.ExecContext(ctx, q)
			require.NoError(t, err, q)
		}
	}
	require.Equal(t, []string{"int64:21", "int64:22"}, rowsOf(t, db, "SELECT id FROM px_item WHERE id IN (21, 22) ORDER BY id"))
}

func TestProxyErrors(t *testing.T) {
	e := newPxEnv(t)
	bad := e.client(t, "root", "wrong", nil)
	err := bad.Ping()
	require.Error(t, err)
	require.Contains(t, err.Error(), "Error 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: YES)")
	unknown := e.client(t, "nobody", "", nil)
	err = unknown.Ping()
	require.Error(t, err)
	require.Contains(t, err.Error(), "Error 1045 (28000): Access denied for user 'nobody'@'127.0.0.1' (using password: NO)")

	db := e.client(t, "root", "secret", nil)
	_, err = db.Exec("SELECT * FROM px_item WHERE")
	require.Error(t, err)
	require.Contains(t, err.Error(), "Error 1064 (42000): You have an error in your SQL syntax; syntax error: at position 28")
	_, err = db.Exec("SELECT * FROM no_such_table")
	require.Error(t, err)
	_, err = db.Exec("INSERT INTO px_item (id, name) VALUES (1, 'dup')")
	require.NoError(t, err)
	_, err = db.Exec("INSERT INTO px_item (id, name) VALUES (1, 'dup')")
	require.EqualError(t, err, "Error 1062 (23000): Duplicate entry '1' for key 'PRIMARY'")
}

func TestProxyNoUsersRefused(t *testing.T) {
	cfg, err := ParseConfig("px.yaml", []byte(strings.Split(pxYAML(), "authority:")[0]))
	require.NoError(t, err)
	_, err = NewServer(cfg, Options{Listen: "127.0.0.1:0"})
	require.EqualError(t, err, "px.yaml: no users are configured (authority.users); add one or start with --insecure to accept any user")
}

func TestProxyMariaDBCLI(t *testing.T) {
	e := newPxEnv(t)
	bin, err := exec.LookPath("mariadb")
	require.NoError(t, err, "the mariadb client is installed by scripts/db.sh")
	host, port, _ := strings.Cut(e.srv.Addr(), ":")
	run := func(sql string) (string, error) {
		out, err := exec.Command(bin, "-h", host, "-P", port, "-uroot", "-psecret", "px_db", "--batch", "-e", sql).CombinedOutput()
		return string(out), err
	}
	out, err := run("INSERT INTO px_item (id, name, score) VALUES (1, 'a', 15000000000), (2, 'b', 0.5); SELECT id, name, score FROM px_item ORDER BY id; SELECT DATABASE()")
	require.NoError(t, err, out)
	require.Equal(t, "id\tname\tscore\n1\ta\t15000000000\n2\tb\t0.5\nDATABASE()\npx_db\n", out)
	out, err = run("SELECT * FROM px_item WHERE")
	require.Error(t, err)
	require.Contains(t, out, "ERROR 1064 (42000)")
}

// startProxy starts a proxy of the rules yaml (authority included) with
// the DDL ddl attached, listening on a free port, and closes it at the
// test's end.
func startProxy(t testing.TB, yaml, ddl string) *Server {
	t.Helper()
	cfg, err := ParseConfig("test.yaml", []byte(yaml))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("test.sql", []byte(ddl))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return srv
}
