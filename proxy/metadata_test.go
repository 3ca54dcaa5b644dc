package proxy

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// mdRules shards px_item as pxRules does, adds md_new (sharded by the
// same db_inline, created through the proxy by the test) and makes every
// other table of ds_1 a single table.
var mdRules = strings.NewReplacer(
	"    tables:\n", "    tables:\n      md_new:\n        actualDataNodes: ds_${0..1}.md_new\n        databaseStrategy:\n          standard:\n            shardingColumn: id\n            shardingAlgorithmName: db_inline\n",
	"authority:\n", "  - !SINGLE\n    tables: [\"ds_1.*\"]\nauthority:\n",
).Replace(pxRules)

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startMdProxy starts a proxy over ds_0 and ds_1 with mdRules and the DDL
// ddl (none: the definitions come from the data sources); its log goes to
// the returned buffer.
func startMdProxy(t *testing.T, ddl string) (*pxEnv, *syncBuffer) {
	t.Helper()
	y := strings.Replace(pxYAML(), pxRules, mdRules, 1)
	cfg, err := ParseConfig("md.yaml", []byte(y))
	require.NoError(t, err)
	if ddl != "" {
		tables, err := schema.ParseDDL("md.sql", []byte(ddl))
		require.NoError(t, err)
		require.NoError(t, cfg.AttachDDL(tables))
	}
	log := &syncBuffer{}
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(log, nil))})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return &pxEnv{srv: srv}, log
}

// execAll runs each statement on db.
func execAll(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
}

// mysqlErrNo returns the MySQL error number of err (0 when it is none).
func mysqlErrNo(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// TestProxyMetadataFromDataSources starts the proxy with the rules alone:
// px_item's definition is its first actual table's (with a column the
// test's DDL lacks), the single tables of "ds_1.*" are found (also one
// created on ds_1 after the start, on its first use), md_new of the rules
// is unknown until a CREATE TABLE through the proxy creates it, and an
// unknown table is ERROR 1146.
func TestProxyMetadataFromDataSources(t *testing.T) {
	ds0, ds1 := testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1")
	for _, db := range []*sql.DB{ds0, ds1} {
		execAll(t, db, "DROP TABLE IF EXISTS md_new", "DROP TABLE IF EXISTS md_single", "DROP TABLE IF EXISTS md_late", "DROP TABLE IF EXISTS md_late2", "DROP TABLE IF EXISTS md_late3")
		for _, tb := range []string{"px_item_0", "px_item_1"} {
			execAll(t, db, "DROP TABLE IF EXISTS "+tb, strings.Replace(pxDDL, "px_item", tb, 1), "ALTER TABLE "+tb+" ADD COLUMN note VARCHAR(20) NULL")
		}
	}
	execAll(t, ds1, "CREATE TABLE md_single (k INT NOT NULL PRIMARY KEY, v VARCHAR(10))", "INSERT INTO md_single VALUES (1, 'one')")
	t.Cleanup(func() {
		for _, db := range []*sql.DB{ds0, ds1} {
			execAll(t, db, "DROP TABLE IF EXISTS md_new", "DROP TABLE IF EXISTS md_single", "DROP TABLE IF EXISTS md_late", "DROP TABLE IF EXISTS md_late2", "DROP TABLE IF EXISTS md_late3")
		}
	})

	e, log := startMdProxy(t, "")
	px := e.client(t, "root", "secret", nil)
	execAll(t, px, "INSERT INTO px_item (id, name, note) VALUES (1, 'a', 'n1'), (2, 'b', 'n2')")
	var note string
	require.NoError(t, px.QueryRow("SELECT note FROM px_item WHERE id = 2").Scan(&note))
	require.Equal(t, "n2", note)
	var v string
	require.NoError(t, px.QueryRow("SELECT v FROM md_single WHERE k = 1").Scan(&v))
	require.Equal(t, "one", v)

	tables := map[string]bool{}
	rows, err := px.Query("SHOW TABLES")
	require.NoError(t, err)
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		tables[name] = true
	}
	require.NoError(t, rows.Err())
	require.True(t, tables["px_item"] && tables["md_single"], "%v", tables)
	require.False(t, tables["px_item_0"] || tables["px_item_1"] || tables["md_new"], "actual tables and tables not created yet are not listed: %v", tables)

	// A table created on ds_1 behind the proxy's back is found on first use.
	execAll(t, ds1, "CREATE TABLE md_late (k INT NOT NULL PRIMARY KEY, w INT)", "INSERT INTO md_late VALUES (7, 70)")
	var w int
	require.NoError(t, px.QueryRow("SELECT w FROM md_late WHERE k = 7").Scan(&w))
	require.Equal(t, 70, w)

	// Also for SHOW CREATE TABLE and DROP TABLE as first statements.
	execAll(t, ds1, "CREATE TABLE md_late2 (k INT NOT NULL PRIMARY KEY)", "CREATE TABLE md_late3 (k INT NOT NULL PRIMARY KEY)")
	var name, create string
	require.NoError(t, px.QueryRow("SHOW CREATE TABLE md_late2").Scan(&name, &create))
	require.Contains(t, create, "CREATE TABLE `md_late2`")
	execAll(t, px, "DROP TABLE md_late2", "DROP TABLE md_late3")
	require.NoError(t, ds1.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'md\\_late_'").Scan(&w))
	require.Zero(t, w)

	_, err = px.Exec("INSERT INTO md_new (id, v) VALUES (1, 'x')")
	require.Equal(t, uint16(1146), mysqlErrNo(err), "%v", err)
	_, err = px.Query("SELECT * FROM md_nowhere")
	require.Equal(t, uint16(1146), mysqlErrNo(err), "%v", err)

	execAll(t, px, "CREATE TABLE md_new (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8))", "INSERT INTO md_new (id, v) VALUES (1, 'x'), (2, 'y')")
	var n int
	require.NoError(t, ds1.QueryRow("SELECT COUNT(*) FROM md_new WHERE id = 1").Scan(&n))
	require.Equal(t, 1, n, "id 1 is on ds_1")
	require.NoError(t, px.QueryRow("SELECT COUNT(*) FROM md_new").Scan(&n))
	require.Equal(t, 2, n)
	require.NotContains(t, log.String(), "level=WARN msg=\"table metadata", "no table of the rules failed to load")
}

// TestProxyDDLChecked: with --ddl the files stay in force, and the start
// logs each way they differ from the first actual tables.
func TestProxyDDLChecked(t *testing.T) {
	ds0, ds1 := testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1")
	for _, db := range []*sql.DB{ds0, ds1} {
		execAll(t, db, "DROP TABLE IF EXISTS md_new")
		for _, tb := range []string{"px_item_0", "px_item_1"} {
			execAll(t, db, "DROP TABLE IF EXISTS "+tb, strings.Replace(pxDDL, "px_item", tb, 1),
				"ALTER TABLE "+tb+" ADD COLUMN note VARCHAR(20) NULL, MODIFY name VARCHAR(80) NULL, ADD KEY k_day (day)")
		}
	}
	ddl := pxDDL + ";\nCREATE TABLE md_new (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8));\n"
	e, log := startMdProxy(t, ddl)
	out := log.String()
	for _, want := range []string{
		`table=px_item data_node=ds_0.px_item_0 difference="column name is varchar(64) in the DDL, varchar(80) on the data source"`,
		`table=px_item data_node=ds_0.px_item_0 difference="column note of the data source is not in the DDL"`,
		`table=px_item data_node=ds_0.px_item_0 difference="index k_day of the data source is not in the DDL"`,
		`table=md_new data_node=ds_0.md_new difference="the actual table does not exist"`,
	} {
		require.Contains(t, out, want)
	}
	require.Equal(t, 4, strings.Count(out, "--ddl differs from the data source"), out)
	// The DDL file's definition is the planner's: note is unknown.
	px := e.client(t, "root", "secret", nil)
	_, err := px.Query("SELECT note FROM px_item WHERE id = 1")
	require.ErrorContains(t, err, `unknown column "note"`)
}

// TestTableDifferences: what the --ddl check reports, and what it does not
// (integer display widths, lengths one side leaves unsaid, BOOL as
// TINYINT).
func TestTableDifferences(t *testing.T) {
	parse := func(sql string) *schema.Table {
		ts, err := schema.ParseDDL("t.sql", []byte(sql))
		require.NoError(t, err)
		return ts[0]
	}
	file := parse("CREATE TABLE t (id BIGINT NOT NULL, n INT, ok BOOL, price DECIMAL(10,2), name VARCHAR(20) NOT NULL, gone INT, PRIMARY KEY (id), KEY k_n (n), UNIQUE KEY u_name (name))")
	actual := parse("CREATE TABLE `t` (`id` bigint(20) NOT NULL, `n` int(11) DEFAULT NULL, `ok` tinyint(1) DEFAULT NULL, `price` decimal(12,2) DEFAULT NULL, `name` varchar(20) DEFAULT NULL, `extra` int(10) unsigned NOT NULL, PRIMARY KEY (`id`, `n`), KEY `k_n` (`n`, `name`), KEY `k_extra` (`extra`))")
	require.Equal(t, []string{
		"column n is NULL in the DDL, NOT NULL on the data source", // a primary key column
		"column price is decimal(10,2) in the DDL, decimal(12,2) on the data source",
		"column name is NOT NULL in the DDL, NULL on the data source",
		"column gone is not on the data source",
		"column extra of the data source is not in the DDL",
		"the primary key is (id) in the DDL, (id, n) on the data source",
		"index k_n is index (n) in the DDL, index (n, name) on the data source",
		"index u_name is not on the data source",
		"index k_extra of the data source is not in the DDL",
	}, tableDifferences(file, actual))
	require.Empty(t, tableDifferences(actual, actual))
}

// TestProxyRuleColumnMissing: a rule naming a sharding column its table
// does not have (a typo in the rules) stops the start when the first
// actual table exists, with the rule's file:line:col as generate and
// --ddl report it; when the table appears only after the start, a
// statement on it says what is wrong instead of ERROR 1146 (the table is
// there). Before, the start logged a warning and every statement on the
// table, INSERTs included, was answered "Table 'md_new' doesn't exist".
func TestProxyRuleColumnMissing(t *testing.T) {
	ds0, ds1 := testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1")
	drop := func() {
		for _, db := range []*sql.DB{ds0, ds1} {
			execAll(t, db, "DROP TABLE IF EXISTS md_new")
		}
	}
	drop()
	t.Cleanup(drop)
	y := strings.Replace(pxYAML(), pxRules, mdRules, 1)
	lines := strings.Split(y, "\n")
	line := 0 // the md_new rule's standard: line
	for i, l := range lines {
		if l == "      md_new:" {
			for j := i + 1; line == 0; j++ {
				if strings.TrimSpace(lines[j]) == "standard:" {
					line = j + 1
				}
			}
		}
	}
	where := fmt.Sprintf("md.yaml:%d:", line)
	start := func() (*Server, error) {
		cfg, err := ParseConfig("md.yaml", []byte(y))
		require.NoError(t, err)
		srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		require.NoError(t, err)
		if err := srv.Start(); err != nil {
			_ = srv.Close()
			return nil, err
		}
		t.Cleanup(func() { require.NoError(t, srv.Close()) })
		return srv, nil
	}

	for _, db := range []*sql.DB{ds0, ds1} {
		execAll(t, db, "CREATE TABLE md_new (k BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8))")
	}
	_, err := start()
	require.Error(t, err, "the rule's sharding column id is not a column of md_new")
	var list schema.Errors
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 1)
	require.Equal(t, where, list[0].Error()[:len(where)], "%v", err)
	require.Contains(t, err.Error(), `sharding column "id" of table "md_new" (databaseStrategy) is not a column of its CREATE TABLE`)

	// Not there at the start: created behind the proxy's back, it is
	// refused with the reason on first use.
	drop()
	srv, err := start()
	require.NoError(t, err)
	px := (&pxEnv{srv: srv}).client(t, "root", "secret", nil)
	_, err = px.Exec("INSERT INTO md_new (id, v) VALUES (1, 'x')")
	require.Equal(t, uint16(1146), mysqlErrNo(err), "%v", err)
	execAll(t, ds0, "CREATE TABLE md_new (k BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8))")
	execAll(t, ds1, "CREATE TABLE md_new (k BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8))")
	for _, q := range []string{"INSERT INTO md_new (k, v) VALUES (1, 'x')", "SELECT * FROM md_new", "SHOW CREATE TABLE md_new"} {
		_, err = px.Exec(q)
		require.Error(t, err, q)
		require.NotEqual(t, uint16(1146), mysqlErrNo(err), "%s: %v", q, err)
		require.Contains(t, err.Error(), where, q)
		require.Contains(t, err.Error(), `sharding column "id" of table "md_new"`, q)
	}
	out := loadInto(t, px, "LOAD DATA LOCAL INFILE {file} INTO TABLE md_new (k, v)", []byte("1\tx\n"))
	require.Contains(t, out, where, "LOAD DATA")
	require.Contains(t, out, `sharding column "id" of table "md_new"`, "LOAD DATA")
	// Fixed on the data sources, the table is used.
	execAll(t, ds0, "ALTER TABLE md_new ADD COLUMN id BIGINT NOT NULL")
	execAll(t, ds1, "ALTER TABLE md_new ADD COLUMN id BIGINT NOT NULL")
	execAll(t, px, "INSERT INTO md_new (k, id, v) VALUES (1, 1, 'x')")
	var n int
	require.NoError(t, ds1.QueryRow("SELECT COUNT(*) FROM md_new WHERE id = 1").Scan(&n))
	require.Equal(t, 1, n, "id 1 is on ds_1")
}
