package proxy

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProxyRowCountFoundRowsRefused: ROW_COUNT(), FOUND_ROWS() and
// SQL_CALC_FOUND_ROWS are refused in every shape (a data source would
// answer its own connection's value: 0 or -1 after an UPDATE the proxy
// answered 1 to), text and prepared, without ending the transaction;
// text merely naming them runs.
func TestProxyRowCountFoundRowsRefused(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	conn, err := e.client(t, "root", "secret", nil).Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	const rowCount = "Error 1235 (42000): This version of the shardgen proxy doesn't yet support ROW_COUNT(): the proxy does not keep it per session, and a data source's is its own connection's; read the affected rows of the statement's OK packet instead"
	foundRows := func(what string) string {
		return "Error 1235 (42000): This version of the shardgen proxy doesn't yet support " + what + ": the proxy does not keep the found rows per session, and a data source's are its own connection's; count the rows with SELECT COUNT(*) and the same conditions instead"
	}
	_, err = conn.ExecContext(ctx, "INSERT INTO px_item (id, name) VALUES (70, 'rc')")
	require.NoError(t, err)
	res, err := conn.ExecContext(ctx, "UPDATE px_item SET name = 'rc2' WHERE id = 70")
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	refused := map[string]string{
		"SELECT ROW_COUNT()":                            rowCount,
		"select row_count() AS n":                       rowCount,
		"SELECT Row_Count ( ) + 1":                      rowCount,
		"SELECT id, ROW_COUNT() FROM px_item":           rowCount,
		"SELECT id FROM px_item WHERE id = ROW_COUNT()": rowCount,
		"SET @x = ROW_COUNT()":                          rowCount,
		"DO ROW_COUNT()":                                rowCount,
		"DO @x := FOUND_ROWS()":                         foundRows("FOUND_ROWS()"),
		"SET @x := ROW_COUNT()":                         rowCount,
		"SELECT 1 UNION SELECT ROW_COUNT()":             rowCount,
		"SELECT FOUND_ROWS()":                           foundRows("FOUND_ROWS()"),
		"select found_rows() cnt":                       foundRows("FOUND_ROWS()"),
		"SELECT SQL_CALC_FOUND_ROWS name FROM px_item ORDER BY id LIMIT 2":   foundRows("SQL_CALC_FOUND_ROWS"),
		"SELECT SQL_CALC_FOUND_ROWS name FROM px_item WHERE id IN (1, 2, 3)": foundRows("SQL_CALC_FOUND_ROWS"),
		"UPDATE px_item SET name = ROW_COUNT() WHERE id = 70":                rowCount,
	}
	for q, want := range refused {
		_, err := conn.ExecContext(ctx, q)
		require.EqualError(t, err, want, q)
		_, err = conn.PrepareContext(ctx, q)
		require.EqualError(t, err, want, "prepared "+q)
	}
	// Naming them in text, or as a column alias, runs.
	var s sql.NullString
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT 'row_count() found_rows() sql_calc_found_rows' AS row_count").Scan(&s))
	require.Equal(t, "row_count() found_rows() sql_calc_found_rows", s.String)
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT name FROM px_item WHERE name <> 'found_rows()' AND id = 70").Scan(&s))
	require.Equal(t, "rc2", s.String)

	// A refusal inside a transaction leaves it open.
	tx, err := conn.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "UPDATE px_item SET name = 'tx' WHERE id = 70")
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "SELECT ROW_COUNT()")
	require.EqualError(t, err, rowCount)
	require.NoError(t, tx.Commit())
	require.Equal(t, []string{"string:tx"}, rowsOf(t, e.client(t, "root", "secret", nil), "SELECT name FROM px_item WHERE id = 70"))
}
