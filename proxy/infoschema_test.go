package proxy

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// biCase is one metadata statement a BI tool or console sends, as it
// reads through the proxy (logic database px_db) and on the unsharded
// reference database; skip lists result columns whose values are
// statistics of the stored data (sizes, times), which differ between one
// table and several by nature.
type biCase struct {
	proxy, ref string
	skip       []string
}

// biCases are the statements of TestProxyBIMetadata: the queries DBeaver,
// DataGrip and Metabase send over information_schema and the SHOW
// statements of the mariadb CLI, over px_item with an index and a unique
// key besides its primary key.
var biCases = []biCase{
	{proxy: "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'px_db' AND TABLE_NAME = 'px_item' ORDER BY ORDINAL_POSITION",
		ref: "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'reference' AND TABLE_NAME = 'px_item' ORDER BY ORDINAL_POSITION"},
	{proxy: "SELECT * FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'px_item' ORDER BY ordinal_position"},
	{proxy: "SELECT * FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'px_item' ORDER BY INDEX_NAME, SEQ_IN_INDEX"},
	{proxy: "SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, VERSION, ROW_FORMAT, TABLE_COLLATION, CREATE_OPTIONS, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'px\\_item%'"},
	{proxy: "SELECT * FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'px_item'",
		skip: []string{"TABLE_ROWS", "AVG_ROW_LENGTH", "DATA_LENGTH", "INDEX_LENGTH", "DATA_FREE", "CREATE_TIME", "UPDATE_TIME"}},
	{proxy: "SELECT * FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()"},
	{proxy: "SELECT s.SCHEMA_NAME, COUNT(t.TABLE_NAME) FROM information_schema.SCHEMATA s LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME AND t.TABLE_NAME = 'px_item' WHERE s.SCHEMA_NAME = DATABASE() GROUP BY s.SCHEMA_NAME"},
	// DBeaver's key columns, DataGrip's columns with their keys.
	{proxy: "SELECT kcu.CONSTRAINT_NAME, kcu.COLUMN_NAME, kcu.ORDINAL_POSITION, tc.CONSTRAINT_TYPE FROM information_schema.KEY_COLUMN_USAGE kcu JOIN information_schema.TABLE_CONSTRAINTS tc ON tc.CONSTRAINT_SCHEMA = kcu.CONSTRAINT_SCHEMA AND tc.TABLE_NAME = kcu.TABLE_NAME AND tc.CONSTRAINT_NAME = kcu.CONSTRAINT_NAME WHERE kcu.TABLE_SCHEMA = DATABASE() AND kcu.TABLE_NAME = 'px_item' ORDER BY 1, 3"},
	{proxy: "SELECT c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE, c.COLUMN_KEY, s.INDEX_NAME FROM information_schema.COLUMNS c LEFT JOIN information_schema.STATISTICS s ON s.TABLE_SCHEMA = c.TABLE_SCHEMA AND s.TABLE_NAME = c.TABLE_NAME AND s.COLUMN_NAME = c.COLUMN_NAME WHERE c.TABLE_SCHEMA = DATABASE() AND c.TABLE_NAME = 'px_item' ORDER BY c.ORDINAL_POSITION, s.INDEX_NAME"},
	// Metabase: the tables of the database with their comments.
	{proxy: "SELECT TABLE_NAME AS name, TABLE_COMMENT AS description FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type IN ('BASE TABLE', 'VIEW') AND table_name = 'px_item'"},
	{proxy: "SHOW FULL TABLES LIKE 'px\\_item'"},
	{proxy: "SHOW TABLES FROM px_db LIKE 'px\\_i%'", ref: "SHOW TABLES FROM reference LIKE 'px\\_i%'"},
	{proxy: "SHOW FULL TABLES WHERE Table_type = 'BASE TABLE' AND Tables_in_px_db = 'px_item'", ref: "SHOW FULL TABLES WHERE Table_type = 'BASE TABLE' AND Tables_in_reference = 'px_item'"},
	{proxy: "SHOW TABLE STATUS LIKE 'px_item'",
		skip: []string{"Rows", "Avg_row_length", "Data_length", "Index_length", "Data_free", "Create_time", "Update_time"}},
	{proxy: "SHOW TABLE STATUS WHERE Name = 'px_item' AND Engine = 'InnoDB'",
		skip: []string{"Rows", "Avg_row_length", "Data_length", "Index_length", "Data_free", "Create_time", "Update_time"}},
	{proxy: "SHOW FULL COLUMNS FROM px_item"},
	{proxy: "SHOW COLUMNS FROM px_item LIKE 'n%'"},
	{proxy: "SHOW INDEX FROM px_item"},
	{proxy: "SHOW KEYS FROM px_item FROM px_db WHERE Key_name <> 'PRIMARY'", ref: "SHOW KEYS FROM px_item FROM reference WHERE Key_name <> 'PRIMARY'"},
	{proxy: "SELECT @@max_allowed_packet, @@autocommit"},
	{proxy: "SHOW VARIABLES LIKE 'max\\_allowed\\_packet'"},
	{proxy: "SHOW SESSION VARIABLES WHERE Variable_name IN ('autocommit', 'character_set_server', 'lower_case_table_names')"},
	{proxy: "SHOW GLOBAL VARIABLES LIKE 'max_connections'"},
}

// TestProxyBIMetadata runs what BI tools ask about a sharded table through
// the proxy and on one MariaDB holding the same logic table (the
// reference database), and requires the same column names, types and
// values (the logic database's name standing for "reference"), and that
// no actual table is ever shown.
func TestProxyBIMetadata(t *testing.T) {
	// Tables in no rule go to ds_0 (the byte order of SHOW TABLES below).
	e := newPxEnvYAML(t, strings.Replace(pxYAML(), "authority:", "  - !SINGLE\n    defaultDataSource: ds_0\nauthority:", 1))
	px := e.client(t, "root", "secret", nil)
	const keys = "ALTER TABLE px_item ADD KEY px_item_name (name, day), ADD UNIQUE KEY px_item_big (big)"
	execAll(t, px, keys)
	execAll(t, e.ref, keys)
	for _, tc := range biCases {
		refQ := tc.ref
		if refQ == "" {
			refQ = tc.proxy
		}
		// The logic database reads as "reference" in the proxy's answers.
		logicName := strings.NewReplacer("px_db", "reference")
		got := rowsOf(t, px, tc.proxy)
		want := rowsOf(t, e.ref, refQ)
		gotTypes, wantTypes := typesOf(t, px, tc.proxy), typesOf(t, e.ref, refQ)
		for i := range gotTypes {
			gotTypes[i] = logicName.Replace(gotTypes[i])
		}
		require.Equal(t, wantTypes, gotTypes, tc.proxy)
		require.NotEmpty(t, want, refQ)
		skip := map[int]bool{}
		for i, ty := range wantTypes {
			for _, s := range tc.skip {
				if strings.HasPrefix(ty, s+" ") {
					skip[i] = true
				}
			}
		}
		drop := func(rows []string) []string {
			out := make([]string, len(rows))
			for i, r := range rows {
				cells := strings.Split(logicName.Replace(r), " | ")
				for j := range cells {
					if skip[j] {
						cells[j] = "-"
					}
				}
				out[i] = strings.Join(cells, " | ")
			}
			return out
		}
		require.Equal(t, drop(want), drop(got), tc.proxy)
	}

	// SHOW TABLES lists the tables in byte order, as MariaDB does.
	ds0 := testdb.Open(t, "ds_0")
	for _, name := range []string{"Zeta", "alpha", "_u"} {
		execAll(t, ds0, "DROP TABLE IF EXISTS "+name)
		execAll(t, px, "CREATE TABLE "+name+" (id BIGINT NOT NULL PRIMARY KEY)")
		t.Cleanup(func() { execAll(t, ds0, "DROP TABLE IF EXISTS "+name) })
	}

	// Without a filter the proxy shows its logic tables only.
	for _, q := range []string{"SELECT TABLE_NAME FROM information_schema.TABLES", "SELECT DISTINCT TABLE_NAME FROM information_schema.COLUMNS",
		"SELECT DISTINCT TABLE_NAME FROM information_schema.STATISTICS", "SHOW TABLES", "SHOW TABLE STATUS"} {
		rows := rowsOf(t, px, q)
		require.NotEmpty(t, rows, q)
		for _, r := range rows {
			require.NotContains(t, r, "px_item_", q)
		}
	}
	require.Equal(t, []string{"string:px_db"}, rowsOf(t, px, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA"))
	require.Equal(t, []string{"string:Zeta", "string:_u", "string:alpha", "string:px_item"}, rowsOf(t, px, "SHOW TABLES"))
	var names []string
	for _, r := range rowsOf(t, px, "SHOW TABLE STATUS") {
		names = append(names, strings.SplitN(r, " | ", 2)[0])
	}
	require.Equal(t, []string{"string:Zeta", "string:_u", "string:alpha", "string:px_item"}, names)

	// Prepared (go-sql-driver prepares a statement with arguments).
	const prepared = "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION"
	require.Equal(t, rowsOf(t, e.ref, prepared, "reference", "px_item"), rowsOf(t, px, prepared, "px_db", "px_item"))
	// The data sources' servers hold a database "reference"; the proxy
	// shows its logic database alone.
	want := rowsOf(t, e.ref, "SELECT * FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()")
	require.Len(t, want, 1)
	require.Equal(t, []string{strings.Replace(want[0], "string:reference", "string:px_db", 1)},
		rowsOf(t, px, "SELECT * FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'reference' OR SCHEMA_NAME = ?", "px_db"))

	// version and version_comment are the proxy's, autocommit the
	// session's, with the server's column types.
	require.Equal(t, typesOf(t, e.ref, "SELECT @@version_comment, @@autocommit"), typesOf(t, px, "SELECT @@version_comment, @@autocommit"))
	require.Equal(t, []string{"string:shardgen proxy | int64:1"}, rowsOf(t, px, "SELECT @@version_comment, @@autocommit"))
	require.Equal(t, []string{"string:version_comment | string:shardgen proxy"}, rowsOf(t, px, "SHOW VARIABLES LIKE 'version_comment'"))
	conn, err := px.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(context.Background(), "SET autocommit = 0")
	require.NoError(t, err)
	var v, name, value string
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT @@autocommit").Scan(&v))
	require.Equal(t, "0", v)
	require.NoError(t, conn.QueryRowContext(context.Background(), "SHOW VARIABLES LIKE 'autocommit'").Scan(&name, &value))
	require.Equal(t, "OFF", value)
	// The session's own settings (its reserved connection).
	conn2, err := px.Conn(context.Background())
	require.NoError(t, err)
	defer conn2.Close()
	_, err = conn2.ExecContext(context.Background(), "SET sql_mode = 'NO_ZERO_DATE'")
	require.NoError(t, err)
	require.NoError(t, conn2.QueryRowContext(context.Background(), "SHOW SESSION VARIABLES LIKE 'sql_mode'").Scan(&name, &value))
	require.Equal(t, "NO_ZERO_DATE", value)
}

// TestProxyBIMetadataEncrypted: information_schema and SHOW INDEX show an
// encrypted table's logic columns, as SHOW CREATE TABLE does: the cipher
// column under the logic name, derived columns hidden, positions and key
// sequences numbered without them; the same as one server holding the
// table with its logic columns.
func TestProxyBIMetadataEncrypted(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	for _, q := range []string{
		"SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, COLUMN_KEY, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'e9_user' ORDER BY ORDINAL_POSITION",
		"SELECT INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, SUB_PART, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'e9_user' ORDER BY INDEX_NAME, SEQ_IN_INDEX",
		"SELECT CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'e9_user' ORDER BY 1, 3",
		"SHOW INDEX FROM e9_user",
	} {
		require.Equal(t, rowsOf(t, e.ref, q), rowsOf(t, db, q), q)
	}
}

// TestSumTableCounts: a sharded table's information_schema.TABLES row is
// its first actual table's with the row and size counts of the others
// added, the largest AUTO_INCREMENT, and the average row length of the
// sums.
func TestSumTableCounts(t *testing.T) {
	cols := []column{{name: "TABLE_NAME"}, {name: "TABLE_ROWS"}, {name: "AVG_ROW_LENGTH"}, {name: "DATA_LENGTH"}, {name: "INDEX_LENGTH"}, {name: "DATA_FREE"}, {name: "AUTO_INCREMENT"}}
	first := map[string][]any{
		"t_order": {"t_order", []byte("10"), []byte("1638"), []byte("16384"), []byte("0"), []byte("0"), []byte("11")},
		"t_user":  {"t_user", []byte("5"), []byte("3276"), []byte("16384"), []byte("0"), []byte("0"), nil},
	}
	sumTableCounts(cols, first, []logicRow{
		{"t_order", []any{"t_order", []byte("30"), []byte("546"), []byte("16384"), []byte("16384"), []byte("4096"), []byte("31")}},
		{"T_ORDER", []any{"t_order", int64(0), int64(0), int64(16384), int64(0), int64(0), nil}},
	})
	require.Equal(t, []any{"t_order", "40", "1228", "49152", "16384", "4096", "31"}, first["t_order"])
	require.Equal(t, []any{"t_user", []byte("5"), []byte("3276"), []byte("16384"), []byte("0"), []byte("0"), nil}, first["t_user"], "an unsharded table is as its data source has it")
}

// TestProxyBIMetadataPermitted: a user the logic database is not permitted
// to (DATABASE_PERMITTED) sees none of its tables in information_schema.
func TestProxyBIMetadataPermitted(t *testing.T) {
	y := strings.Replace(pxYAML(), "      password: secret\n", `      password: secret
    - user: nosy@%
      password: nosy
  privilege:
    type: DATABASE_PERMITTED
    props:
      user-database-mappings: "root@%=px_db, nosy@%=other_db"
`, 1)
	e := newPxEnvYAML(t, y)
	const q = "SELECT TABLE_NAME FROM information_schema.TABLES"
	require.Equal(t, []string{"string:px_item"}, rowsOf(t, e.clientDB(t, "root", "secret", "", nil), q))
	require.Empty(t, rowsOf(t, e.clientDB(t, "nosy", "nosy", "", nil), q))
}

// TestProxyBIMetadataBroadcast: a broadcast table holds one copy of its
// rows on every data source, so its information_schema.TABLES row and
// SHOW TABLE STATUS count one copy (as one server holding the logic table
// does), not the sum of the copies.
func TestProxyBIMetadataBroadcast(t *testing.T) {
	const ddl = "CREATE TABLE px_bc (code CHAR(2) NOT NULL PRIMARY KEY, name VARCHAR(64) NOT NULL)"
	e := newPxEnvDDL(t, strings.Replace(pxYAML(), "authority:", "  - !BROADCAST\n    tables: [px_bc]\nauthority:", 1), ddl)
	px := e.client(t, "root", "secret", nil)
	const rows = "INSERT INTO px_bc VALUES ('SE', 'Sverige'), ('NO', 'Norge'), ('FI', 'Suomi')"
	dss := []*sql.DB{testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1"), e.ref}
	for _, db := range dss {
		execAll(t, db, "DROP TABLE IF EXISTS px_bc")
		t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS px_bc") })
	}
	execAll(t, px, ddl, rows)
	execAll(t, e.ref, ddl, rows)
	for _, db := range dss {
		execAll(t, db, "ANALYZE TABLE px_bc") // exact TABLE_ROWS for a one-page table
	}
	const q = "SELECT TABLE_ROWS, DATA_LENGTH, AVG_ROW_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'px_bc'"
	want := rowsOf(t, e.ref, q)
	require.Equal(t, []string{"uint64:3 | uint64:16384 | uint64:5461"}, want)
	require.Equal(t, want, rowsOf(t, px, q))
	status := rowsOf(t, px, "SHOW TABLE STATUS LIKE 'px_bc'")
	require.Len(t, status, 1)
	require.Contains(t, status[0], "uint64:3 | uint64:5461 | uint64:16384", "Rows, Avg_row_length, Data_length of one copy")
}

// TestProxyShowTablesDataSourceDown: with data source ds_2 down, SHOW
// [FULL] TABLES [LIKE] lists the logic tables the proxy knows, as
// ShardingSphere-Proxy lists them from its metadata: the same rows as the
// proxy with every data source up.
func TestProxyShowTablesDataSourceDown(t *testing.T) {
	paReset(t) // the logic tables' actual tables on ds_0 and ds_1, whatever ran before
	up := (&pxEnv{srv: newAtomicProxy(t, false)}).clientDB(t, "root", "secret", "pa_db", nil)
	down := (&pxEnv{srv: newAtomicProxy(t, true)}).clientDB(t, "root", "secret", "pa_db", nil)
	for _, q := range []string{"SHOW TABLES", "SHOW FULL TABLES", "SHOW TABLES LIKE 'PA\\_I%'", "SHOW TABLES FROM pa_db LIKE 'pa_dic_'"} {
		want := rowsOf(t, up, q)
		require.NotEmpty(t, want, q)
		require.Equal(t, want, rowsOf(t, down, q), q)
		require.Equal(t, columnsOf(t, up, q), columnsOf(t, down, q), q)
	}
}
