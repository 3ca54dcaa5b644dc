package proxy

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// actualColumns returns, per actual table of px_item, its column names.
func actualColumns(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"px_item_0", "px_item_1"} {
			var cols string
			err := db.QueryRow("SELECT COALESCE(GROUP_CONCAT(column_name ORDER BY ordinal_position), '') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?", tb).Scan(&cols)
			require.NoError(t, err)
			out[ds+"."+tb] = cols
		}
	}
	return out
}

func TestProxyDDLFanOut(t *testing.T) {
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", nil)
	all := func(cols string) map[string]string {
		return map[string]string{"ds_0.px_item_0": cols, "ds_0.px_item_1": cols, "ds_1.px_item_0": cols, "ds_1.px_item_1": cols}
	}
	base := "id,name,price,score,ratio,created,day,big,data"
	require.Equal(t, all(base), actualColumns(t))
	for _, q := range []string{"INSERT INTO px_item (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')",
		"ALTER TABLE px_item ADD COLUMN extra INT NULL", "CREATE INDEX px_name ON px_item (name)"} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	require.Equal(t, all(base+",extra"), actualColumns(t))
	require.Equal(t, []string{"int64:4"}, rowsOf(t, db, "SELECT COUNT(*) FROM px_item"))
	// The planner's metadata follows the DDL (refreshTable): the new
	// column is plannable, and gone again after DROP COLUMN.
	_, err := db.Exec("UPDATE px_item SET extra = 7 WHERE id = 2")
	require.NoError(t, err)
	require.Equal(t, []string{"int64:7"}, rowsOf(t, db, "SELECT extra FROM px_item WHERE id = 2"))
	_, err = db.Exec("ALTER TABLE px_item DROP COLUMN extra")
	require.NoError(t, err)
	_, err = db.Exec("SELECT extra FROM px_item WHERE id = 2")
	require.ErrorContains(t, err, `unknown column "extra"`)
	require.Equal(t, all(base), actualColumns(t))
	_, err = db.Exec("TRUNCATE TABLE px_item")
	require.NoError(t, err)
	require.Equal(t, []string{"int64:0"}, rowsOf(t, db, "SELECT COUNT(*) FROM px_item"))
	_, err = db.Exec("DROP TABLE px_item")
	require.NoError(t, err)
	require.Equal(t, all(""), actualColumns(t))
	_, err = db.Exec("DROP TABLE px_item")
	require.EqualError(t, err, "Error 1051 (42S02): Unknown table 'ds_0.px_item_0'")
	_, err = db.Exec("DROP TABLE IF EXISTS px_item")
	require.NoError(t, err)
	_, err = db.Exec(pxDDL)
	require.NoError(t, err)
	require.Equal(t, all(base), actualColumns(t))
	// DDL commits the session's transaction first, as MySQL does.
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	for _, q := range []string{"BEGIN", "INSERT INTO px_item (id, name) VALUES (5, 'tx')", "ALTER TABLE px_item ADD COLUMN more INT NULL"} {
		_, err := conn.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	require.Equal(t, []string{"int64:5"}, rowsOf(t, e.client(t, "root", "secret", nil), "SELECT id FROM px_item"))
	require.Equal(t, all(base+",more"), actualColumns(t))
	_, err = db.Exec("RENAME TABLE px_item TO px_other")
	require.EqualError(t, err, "Error 1235 (42000): This version of the shardgen proxy doesn't yet support RENAME TABLE of a logic table (the rules name its actual tables)")
	_, err = db.Exec("DROP TABLE other_db.px_item")
	require.EqualError(t, err, "Error 1049 (42000): Unknown database 'other_db'")
	_, err = db.Exec("CREATE TABLE px_unknown (id INT)")
	require.EqualError(t, err, `Error 1235 (42000): table px_unknown is in no rule and there are several data sources: list it in !SINGLE (e.g. tables: ["ds_0.px_unknown"]) or set a defaultDataSource`)
}

func TestProxyShowTable(t *testing.T) {
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", nil)
	for _, q := range []string{
		"SHOW CREATE TABLE px_item", "show create table `px_item`", "SHOW CREATE TABLE px_db.px_item",
		"SHOW COLUMNS FROM px_item", "SHOW FULL COLUMNS FROM px_item", "SHOW FIELDS IN px_item FROM px_db",
		"SHOW COLUMNS FROM px_item LIKE 'p%'", "DESCRIBE px_item", "DESC px_item price",
	} {
		ref := strings.Replace(strings.Replace(q, "px_db.", "", 1), " FROM px_db", "", 1)
		require.Equal(t, rowsOf(t, e.ref, ref), rowsOf(t, db, q), q)
	}
	_, err := db.Exec("SHOW CREATE TABLE nope")
	require.EqualError(t, err, "Error 1146 (42S02): Table 'px_db.nope' doesn't exist")
	_, err = db.Exec("SHOW COLUMNS FROM px_item FROM other")
	require.EqualError(t, err, "Error 1049 (42000): Unknown database 'other'")
}

func TestProxyPassThrough(t *testing.T) {
	y := strings.Replace(pxYAML(), "rules:\n", "rules:\n  - !SINGLE\n    defaultDataSource: ds_0\n", 1)
	e := newPxEnvYAML(t, y)
	ds0 := testdb.Open(t, "ds_0")
	_, err := ds0.Exec("DROP TABLE IF EXISTS px_plain")
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = ds0.Exec("DROP TABLE IF EXISTS px_plain") })
	db := e.client(t, "root", "secret", nil)
	// CREATE TABLE of a table in no rule goes to the default data source;
	// so do its statements, unchanged.
	_, err = db.Exec("CREATE TABLE px_plain (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(8))")
	require.NoError(t, err)
	res, err := db.Exec("INSERT INTO px_plain (v) VALUES ('x'), ('y')")
	require.NoError(t, err)
	id, err := res.LastInsertId()
	require.NoError(t, err)
	require.Equal(t, int64(1), id)
	require.Equal(t, []string{"int64:1 | string:x", "int64:2 | string:y"}, rowsOf(t, db, "SELECT id, v FROM px_plain ORDER BY id"))
	require.Equal(t, []string{"int64:2 | string:y"}, rowsOf(t, ds0, "SELECT id, v FROM px_plain WHERE id = 2"))
	require.Equal(t, []string{"int64:2"}, rowsOf(t, db, "SELECT LAST_INSERT_ID() + 1"))
	_, err = db.Exec("UPDATE px_plain SET v = 'z' WHERE id = 1")
	require.NoError(t, err)
	require.Equal(t, []string{"string:z"}, rowsOf(t, db, "SELECT v FROM px_plain WHERE id = 1"))
	// The CREATE TABLE made px_plain known to the planner (refreshTable),
	// so a join of it with a sharded table runs as a join across data
	// nodes.
	_, err = db.Exec("INSERT INTO px_item (id, name) VALUES (1, 'one'), (2, 'two'), (3, 'three')")
	require.NoError(t, err)
	require.Equal(t, []string{"int64:1 | string:z", "int64:2 | string:y"}, rowsOf(t, db, "SELECT px_item.id, px_plain.v FROM px_item JOIN px_plain ON px_item.id = px_plain.id ORDER BY px_item.id"))
	require.Equal(t, []string{"int64:2"}, rowsOf(t, db, "SELECT COUNT(*) FROM px_item JOIN px_plain ON px_item.id = px_plain.id"))
	// HAVING over the join runs over temporary tables.
	require.Equal(t, []string{"string:y"}, rowsOf(t, db, "SELECT px_plain.v FROM px_item JOIN px_plain ON px_item.id = px_plain.id GROUP BY px_plain.v HAVING COUNT(*) = 1 AND px_plain.v < 'z'"))
}

func TestProxyShowShardingTableRules(t *testing.T) {
	e := newPxEnvYAML(t, pxKeyGenYAML())
	db := e.client(t, "root", "secret", nil)
	rows, err := db.Query("SHOW SHARDING TABLE RULES")
	require.NoError(t, err)
	cols, err := rows.Columns()
	require.NoError(t, err)
	require.NoError(t, rows.Close())
	require.Equal(t, shardingTableRuleColumns, cols)
	want := []string{"string:px_item | string:ds_0.px_item_0,ds_0.px_item_1,ds_1.px_item_0,ds_1.px_item_1 | string: | " +
		"string:STANDARD | string:id | string:INLINE | string:{\"algorithm-expression\":\"ds_${id % 2}\"} | " +
		"string:STANDARD | string:id | string:INLINE | string:{\"algorithm-expression\":\"px_item_${id.intdiv(2) % 2}\"} | " +
		"string:id | string:SNOWFLAKE | string: | string: | string:"}
	for _, q := range []string{"SHOW SHARDING TABLE RULES", "show sharding table rules from px_db", "SHOW SHARDING TABLE RULE px_item", "SHOW SHARDING TABLE RULE `px_item` FROM `px_db`"} {
		require.Equal(t, want, rowsOf(t, db, q), q)
	}
	require.Empty(t, rowsOf(t, db, "SHOW SHARDING TABLE RULE other"))
	_, err = db.Exec("SHOW SHARDING TABLE RULES FROM nope")
	require.EqualError(t, err, "Error 1049 (42000): Unknown database 'nope'")
}

// TestProxyDDLPartialFailure: a DDL statement that fails on one actual
// table after others changed says which data nodes it ran on and which it
// failed on, keeps the back end's error code, and the planner follows the
// first actual table (as SHOW CREATE TABLE does).
func TestProxyDDLPartialFailure(t *testing.T) {
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", nil)
	ds1 := testdb.Open(t, "ds_1")
	_, err := ds1.Exec("ALTER TABLE px_item_0 ADD COLUMN dup INT NULL")
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, ds := range []string{"ds_0", "ds_1"} {
			c := testdb.Open(t, ds)
			for _, tb := range []string{"px_item_0", "px_item_1"} {
				_, _ = c.Exec("ALTER TABLE " + tb + " DROP COLUMN dup")
			}
		}
	})
	_, err = db.Exec("ALTER TABLE px_item ADD COLUMN dup INT NULL")
	require.EqualError(t, err, "Error 1060 (42S21): the statement ran on ds_0.px_item_0, ds_0.px_item_1 and failed on ds_1.px_item_0 (the data nodes after it were not changed): Duplicate column name 'dup'")
	_, err = db.Exec("SELECT dup FROM px_item WHERE id = 2")
	require.NoError(t, err, "the planner follows the first actual table")
}
