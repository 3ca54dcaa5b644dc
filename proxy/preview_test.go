package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProxyPreviewTableless: PREVIEW of a SELECT without a table answers
// as the proxy runs that SELECT (selectNoTable): one row, the first data
// source and the statement it runs there. It said unknown table "dual".
// PREVIEW of a statement the proxy answers itself names its kind.
func TestProxyPreviewTableless(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	tests := []struct{ q, actual, result string }{
		{"SELECT 1", "select 1 as `1` from dual", "int64:1"},
		{"select 1 + 1 AS two FROM dual", "select 1 + 1 as two from dual", "int64:2"},
		{"SELECT DATABASE(), @@version_comment", "select 'e9_db' as `DATABASE()`, convert(NULLIF('shardgen proxy', '') using utf8mb3) as `@@version_comment` from dual", "string:e9_db | string:shardgen proxy"},
		{"(SELECT 1)", "select 1 as `1` from dual", "int64:1"},
	}
	for _, tt := range tests {
		require.Equal(t, []string{"string:ds_0 | string:" + tt.actual}, rowsOf(t, db, "PREVIEW "+tt.q), tt.q)
		require.Equal(t, []string{tt.result}, rowsOf(t, db, tt.q), tt.q)
	}
	const prefix = "Error 1235 (42000): This version of the shardgen proxy doesn't yet support "
	refused := []struct{ q, err string }{
		{"PREVIEW SHOW TABLES", prefix + "PREVIEW of SHOW TABLES: the proxy answers it from its logic tables, not by running it on a data node"},
		{"PREVIEW SET autocommit = 0", prefix + "PREVIEW of SET statements"},
		{"PREVIEW CREATE TABLE e9_x (id INT)", `Error 1235 (42000): table e9_x is in no rule and there are several data sources: list it in !SINGLE (e.g. tables: ["ds_0.e9_x"]) or set a defaultDataSource`},
		{"PREVIEW LOAD DATA INFILE 'x' INTO TABLE e9_user", prefix + "LOAD DATA statements: INSERT the rows instead"},
		{"PREVIEW SELECT", "Error 1064 (42000): You have an error in your SQL syntax; syntax error: at position 7"},
	}
	for _, tt := range refused {
		_, err := db.Exec(tt.q)
		require.EqualError(t, err, tt.err, tt.q)
	}
	// DDL on a logic table previews the statement over each actual table,
	// and changes nothing.
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"ALTER TABLE e9_user ADD COLUMN note VARCHAR(8)", []string{"string:ds_0 | string:alter table e9_user add column note VARCHAR(8)", "string:ds_1 | string:alter table e9_user add column note VARCHAR(8)"}},
		{"CREATE INDEX idx_name ON e9_user (name)", []string{"string:ds_0 | string:alter table e9_user add key idx_name (`name`)", "string:ds_1 | string:alter table e9_user add key idx_name (`name`)"}},
		{"DROP TABLE e9_user", []string{"string:ds_0 | string:drop table e9_user", "string:ds_1 | string:drop table e9_user"}},
		{"TRUNCATE TABLE e9_user", []string{"string:ds_0 | string:truncate table e9_user", "string:ds_1 | string:truncate table e9_user"}},
	} {
		require.Equal(t, tt.want, rowsOf(t, db, "PREVIEW "+tt.q), tt.q)
	}
	require.Equal(t, []string{"int64:0"}, rowsOf(t, db, "SELECT COUNT(*) FROM e9_user"))
	// A statement on a table previews its route, as before.
	require.Equal(t, []string{"string:ds_1 | string:select id from e9_user where id = 3"}, rowsOf(t, db, "PREVIEW SELECT id FROM e9_user WHERE id = 3"))
}

// TestProxyPreviewShow: PREVIEW of a SHOW the proxy runs on a data node
// shows that data node and the statement it gets: SHOW CREATE TABLE,
// COLUMNS, INDEX and DESCRIBE of a logic table on its first actual table
// (an encrypted table's column filter over its actual columns), SHOW
// VARIABLES on the first data source; nothing runs.
func TestProxyPreviewShow(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	for _, tt := range []struct{ q, want string }{
		{"SHOW CREATE TABLE e9_user", "string:ds_0 | string:SHOW CREATE TABLE `e9_user`"},
		{"SHOW INDEX FROM e9_user", "string:ds_0 | string:SHOW INDEX FROM `e9_user`"},
		{"SHOW FULL COLUMNS FROM e9_user", "string:ds_0 | string:SHOW FULL COLUMNS FROM `e9_user`"},
		{"SHOW VARIABLES LIKE 'version%'", "string:ds_0 | string:show variables like 'version%'"},
		{"SHOW SESSION STATUS LIKE 'Uptime'", "string:ds_0 | string:show status like 'Uptime'"},
	} {
		require.Equal(t, []string{tt.want}, rowsOf(t, db, "PREVIEW "+tt.q), tt.q)
	}
	rows := rowsOf(t, db, "PREVIEW DESCRIBE e9_user")
	require.Len(t, rows, 1)
	require.Contains(t, rows[0], "string:ds_0 | string:SHOW COLUMNS FROM `e9_user`")
	_, err := db.Exec("PREVIEW SHOW CREATE TABLE e9_nope")
	require.EqualError(t, err, "Error 1146 (42S02): Table 'e9_db.e9_nope' doesn't exist")
}
