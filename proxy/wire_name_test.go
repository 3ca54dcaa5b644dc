package proxy

import (
	"context"
	"database/sql"

	"testing"

	"github.com/stretchr/testify/require"
)

// TestOriginalName: an expression column is named by the client's own
// spelling of it, as MySQL names it, whatever quoting and spacing the
// planner prints.
func TestOriginalName(t *testing.T) {
	for _, tc := range []struct{ q, name, want string }{
		{"SELECT COUNT(*) FROM t", "count(*)", "COUNT(*)"},
		{"SELECT LENGTH(name) FROM t WHERE id = 1", "LENGTH(`name`)", "LENGTH(name)"},
		{"select length( `name` ) from t", "LENGTH(`name`)", "length( `name` )"},
		{"SELECT a+b FROM t", "a + b", "a+b"},
		{"SELECT SUM(x),  MAX(y) FROM t", "MAX(`y`)", "MAX(y)"},
		{"SELECT id FROM t", "id", "id"},
		{"SELECT COALESCE(a, 'x') FROM t", "coalesce(`a`, 'x')", "COALESCE(a, 'x')"},
		{"SELECT 1", "not there (`z`)", "not there (`z`)"},
		{"SELECT count( * ) FROM t", "count(*)", "count( * )"},
		{"SELECT 'it''s'", `'it\'s'`, "it's"},
		{"SELECT _latin1 'w'", "_latin1'w'", "w"},
		{"SELECT 'a' = 'b'", "'a' = 'b'", "'a' = 'b'"},
		{"SELECT null", "null", "NULL"},
		{"SELECT date '2020-01-01'", "date'2020-01-01'", "date '2020-01-01'"},
		{"SELECT @@Session.time_zone", "@@time_zone", "@@Session.time_zone"},
		{"SELECT @@global.time_zone", "@@global.time_zone", "@@global.time_zone"},
		{"SELECT k, GROUP_CONCAT(name ORDER BY name SEPARATOR ',') FROM t GROUP BY k", "group_concat(`name` order by `name` asc separator ',')", "GROUP_CONCAT(name ORDER BY name SEPARATOR ',')"},
		{"SELECT GROUP_CONCAT(name ORDER BY name Asc, id DESC) FROM t", "group_concat(`name` order by `name` asc, id desc)", "GROUP_CONCAT(name ORDER BY name Asc, id DESC)"},
		{"SELECT id, (SELECT 5) FROM t", "(select 5 from dual)", "(SELECT 5)"},
		{"SELECT id, (select 5 FROM dual) FROM t", "(select 5 from dual)", "(select 5 FROM dual)"},
		{"SELECT ascii(x) FROM t", "ascii(x)", "ascii(x)"},
		{"SELECT ?+1, id FROM t WHERE id = ?", ":v1 + 1", "?+1"},
		{"SELECT k, GROUP_CONCAT(lat ORDER BY bid SEPARATOR '、') FROM t GROUP BY k", "group_concat(lat order by bid asc separator '、')", "GROUP_CONCAT(lat ORDER BY bid SEPARATOR '、')"},
		{"SELECT LENGTH(Ärger) FROM t", "length(`ärger`)", "LENGTH(Ärger)"},
	} {
		require.Equal(t, tc.want, originalName(tc.q, tc.name), tc.q)
	}
}

// TestProxyColumnNamesAsWritten: result columns are named as one MariaDB
// names them (the reference database), on the proxy's own answers, single-
// and multi-node routes and merged aggregates: a string literal by its
// value, other expressions by the client's spelling, whatever spacing,
// case or scope it used.
func TestProxyColumnNamesAsWritten(t *testing.T) {
	e := newPxEnv(t)
	px := e.client(t, "root", "secret", nil)
	for _, q := range []string{
		"SELECT '', 'a' 'b', _latin1'w', X'41', 0x41, -1, 1.50, NULL, TRUE, false, 'it''s', \"q\", DATE '2020-01-01', 1e3",
		"SELECT @@SESSION.time_zone, @@session.autocommit, @@LOCAL.sql_mode, @@global.max_connections > 0",
		"SELECT 'x', id, NULL FROM px_item WHERE id = 1",
		"SELECT 'x', id FROM px_item WHERE id IN (1, 2) ORDER BY id",
		"SELECT 'x', COUNT( * ), Max( id ), count(name) FROM px_item",
		"SELECT 'x' AS y, COUNT(*) AS n FROM px_item",
		"SELECT id, (SELECT 5) FROM px_item WHERE id IN (1, 2) ORDER BY id",
		"SELECT name, GROUP_CONCAT(id ORDER BY id SEPARATOR ';') FROM px_item GROUP BY name ORDER BY name",
	} {
		require.Equal(t, columnsOf(t, e.ref, q), columnsOf(t, px, q), q)
	}
}

// columnsOf returns the names of q's result columns on db.
func columnsOf(t *testing.T, db *sql.DB, q string) []string {
	rows, err := db.Query(q)
	require.NoError(t, err, q)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err, q)
	return cols
}

// TestProxyColumnNamesLatin1Session: after SET NAMES latin1 a column named
// by non-ASCII text (a string literal, an expression holding one) has the
// name MariaDB gives it in the same session — bytes of the session's
// character set, no quotes — with or without a table, and the values are
// MariaDB's. Text as latin1 bytes ('caf\xe9') and as UTF-8 bytes read as
// latin1 ('café'), also under an introducer.
func TestProxyColumnNamesLatin1Session(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	pxc, err := e.client(t, "root", "secret", nil).Conn(ctx)
	require.NoError(t, err)
	defer pxc.Close()
	refc, err := e.ref.Conn(ctx)
	require.NoError(t, err)
	defer refc.Close()
	for _, c := range []*sql.Conn{pxc, refc} {
		_, err := c.ExecContext(ctx, "SET NAMES latin1")
		require.NoError(t, err)
	}
	for _, q := range []string{
		"SELECT 'caf\xe9'",
		"SELECT 'café'",
		"SELECT _utf8mb4'café', _latin1'caf\xe9'",
		"SELECT CONCAT('\xe9', 'a'), UPPER('café')",
		"SELECT 'x\xe9' AS y",
		"SELECT 'caf\xe9', id FROM px_item WHERE id = 1",
		"SELECT 'café', COUNT(*) FROM px_item",
		"SELECT 'caf\xe9' FROM px_item WHERE id IN (1, 2)",
	} {
		require.Equal(t, connColumns(t, refc, q), connColumns(t, pxc, q), "%q", q)
		require.Equal(t, rowsOf(t, refc, q), rowsOf(t, pxc, q), "%q", q)
	}
}

// connColumns returns the names of q's result columns on one session.
func connColumns(t *testing.T, c *sql.Conn, q string) []string {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), q)
	require.NoError(t, err, q)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err, q)
	return cols
}
