package proxy

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStepsFederationSession: a statement evaluated over temporary tables
// (the federation's connection of the first data source) runs with the
// session's settings, as each of its reads does: time_zone (UNIX_TIMESTAMP
// of a DATE), SET NAMES latin1 (text loaded and returned in the session's
// character set), sql_mode, and the session's user and system variables
// named by the statement. Compared with the reference database in a
// session with the same settings; a variable assignment in the statement
// (which would not reach the session) is still refused.
func TestStepsFederationSession(t *testing.T) {
	e, px := newXnEnv(t)
	ctx := context.Background()
	pxc, err := px.Conn(ctx)
	require.NoError(t, err)
	defer pxc.Close()
	refc, err := e.ref.Conn(ctx)
	require.NoError(t, err)
	defer refc.Close()
	for _, c := range []*sql.Conn{pxc, refc} {
		for _, s := range []string{"SET time_zone = '+05:00'", "SET NAMES latin1", "SET sql_mode = 'NO_UNSIGNED_SUBTRACTION'", "SET @lim = 2"} {
			_, err := c.ExecContext(ctx, s)
			require.NoError(t, err, s)
		}
	}
	for _, q := range []string{
		"SELECT a.id, UNIX_TIMESTAMP(a.day) FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.a_id > a.id) ORDER BY a.id",
		"SELECT a.id, a.name, a.lat, CONCAT(a.lat, 'é') FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.a_id > a.id) ORDER BY a.id",
		"SELECT a.id, CAST(0 AS UNSIGNED) - 1 FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.a_id > a.id) ORDER BY a.id",
		"SELECT a.id, @@time_zone, @lim FROM xn_a a WHERE a.id > @lim AND EXISTS (SELECT 1 FROM xn_b b WHERE b.a_id > a.id) ORDER BY a.id",
	} {
		require.Equal(t, rowsOf(t, refc, q), rowsOf(t, pxc, q), q)
	}
	_, err = pxc.QueryContext(ctx, "SELECT a.id, @x := a.id FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.a_id > a.id)")
	require.ErrorContains(t, err, "Error 1235 (42000)")
}

// TestStepsFederationCharset: the rows of the temporary tables are read
// and loaded losslessly (character columns as HEX, loaded as _binary
// literals) whatever the session's character set, and the result is
// converted to it as MariaDB does: under SET NAMES latin1 the CJK names
// no longer all compare equal as '??', under utf8mb3 an emoji no longer
// sorts first as '?'; compared with the unsharded reference database.
func TestStepsFederationCharset(t *testing.T) {
	e, px := newXnEnv(t)
	rows := "INSERT INTO xn_a VALUES (9, 10, '🎉party0', 'a', 1, '2024-01-01'), (10, 10, '北京', 'b', 1, '2024-01-01')"
	execAll(t, px, rows)
	execAll(t, e.ref, rows)
	ctx := context.Background()
	pc, err := px.Conn(ctx)
	require.NoError(t, err)
	defer pc.Close()
	rc, err := e.ref.Conn(ctx)
	require.NoError(t, err)
	defer rc.Close()
	for _, cs := range []string{"latin1", "utf8mb3"} {
		for _, c := range []*sql.Conn{pc, rc} {
			_, err := c.ExecContext(ctx, "SET NAMES "+cs)
			require.NoError(t, err)
		}
		for _, q := range []string{
			"SELECT COUNT(*) FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.day = a.day) AND a.name = (SELECT name FROM xn_a WHERE id = 4)",
			"SELECT a.id, HEX(a.name), a.name, a.lat FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.day = a.day OR b.a_id = a.id) ORDER BY a.name, a.id",
			"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.name = b.name OR a.id = b.a_id ORDER BY a.id, b.bid",
		} {
			sameRowsArgs(t, pc, rc, q)
		}
	}
	for _, c := range []*sql.Conn{pc, rc} {
		_, err := c.ExecContext(ctx, "SET NAMES utf8mb4")
		require.NoError(t, err)
	}
	// A result column holding a subquery is named as the client wrote
	// it, not by the statement over the temporary tables.
	q := "SELECT a.id, a.name = (SELECT name FROM xn_a WHERE id = 4), (SELECT  COUNT(*) FROM xn_b b WHERE b.a_id = a.id) AS n FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.day = a.day) ORDER BY a.id"
	sameRows(t, px, e.ref, q)
	var names [2][]string
	for i, db := range []*sql.DB{px, e.ref} {
		rows, err := db.Query(q)
		require.NoError(t, err)
		names[i], err = rows.Columns()
		require.NoError(t, err)
		require.NoError(t, rows.Close())
	}
	require.Equal(t, names[1], names[0])
}
