package proxy

import (
	"context"
	"database/sql"
	"strings"
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
	e, px, pc, rc := xnCJKEnv(t)
	for _, cs := range []string{"latin1", "utf8mb3"} {
		setNames(t, cs, pc, rc)
		for _, q := range []string{
			"SELECT COUNT(*) FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.day = a.day) AND a.name = (SELECT name FROM xn_a WHERE id = 4)",
			"SELECT a.id, HEX(a.name), a.name, a.lat FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.day = a.day OR b.a_id = a.id) ORDER BY a.name, a.id",
			"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.name = b.name OR a.id = b.a_id ORDER BY a.id, b.bid",
		} {
			sameRowsArgs(t, pc, rc, q)
		}
	}
	setNames(t, "utf8mb4", pc, rc)
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

// TestStepsLossyCharset: in a session whose character set cannot hold
// the data's characters (latin1, utf8mb3), the steps that compare text
// themselves (a join's keys, an IN subquery's values, a UNION's
// duplicates) compare it by the data nodes' weight strings and get the
// reference's rows, as a utf8mb4 session does (they were refused for
// text read as '?'); TestStepsWeighedSession has what stays refused.
func TestStepsLossyCharset(t *testing.T) {
	_, _, pc, rc := xnCJKEnv(t)
	queries := []string{
		"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.name = b.name ORDER BY a.id, b.bid",
		"SELECT id FROM xn_a WHERE name IN (SELECT name FROM xn_b) ORDER BY id",
		"SELECT name FROM xn_a WHERE k > 30 OR k IS NULL OR id > 8 UNION SELECT name FROM xn_b WHERE a_id >= 4 ORDER BY 1",
	}
	for _, cs := range []string{"latin1", "utf8mb3"} {
		setNames(t, cs, pc, rc)
		for _, q := range queries {
			if strings.Contains(q, "IN (SELECT name") {
				// xn_b's names read as '?' are not bound (checkBindable).
				sameRowsOrLossy(t, pc, rc, cs, q)
				continue
			}
			sameRowsArgs(t, pc, rc, q)
		}
	}
	// Text that no step compares or binds (an IN subquery of numbers, the
	// final rows) is not refused: the reference's rows, '?' and all.
	for _, cs := range []string{"latin1", "utf8mb3"} {
		setNames(t, cs, pc, rc)
		sameRowsArgs(t, pc, rc, "SELECT id, name FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE a_id > ?) ORDER BY id", 0)
		sameRowsArgs(t, pc, rc, "SELECT id, name FROM xn_a WHERE id IN (SELECT a_id FROM xn_b) ORDER BY id")
	}
	setNames(t, "utf8mb4", pc, rc)
	for _, q := range queries {
		sameRowsArgs(t, pc, rc, q)
	}
}

// TestStepsLatin1SessionOverLatin1: a latin1 session over tables whose text
// is all latin1 loses nothing, so text holding a real '?' joins, binds and
// deduplicates across data nodes as on the reference (no refusal).
func TestStepsLatin1SessionOverLatin1(t *testing.T) {
	ddl := strings.ReplaceAll(xnDDL, "CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", "CHARACTER SET latin1")
	rows := []string{
		"INSERT INTO xn_a VALUES (1, 10, 'why?', 'é', 1.50, '2024-01-01'), (2, 20, '?', 'e', 2.00, '2024-02-02'), (3, NULL, 'Ärger', NULL, NULL, NULL)",
		"INSERT INTO xn_b VALUES (100, 1, 'WHY?', 'E', 1.50, '2024-02-02'), (101, 2, '?', 'é', NULL, NULL), (102, NULL, 'ärger', NULL, 2.00, '2024-01-01'), (103, 3, '??', 'x', NULL, NULL)",
	}
	e, px := newStepsEnv(t, "", xnRules, ddl, rows, "xn_a", "xn_b")
	pc, rc := conns(t, px, e.ref)
	setNames(t, "latin1", pc, rc)
	for _, q := range []string{
		"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.name = b.name ORDER BY a.id, b.bid",
		"SELECT id FROM xn_a WHERE name IN (SELECT name FROM xn_b) ORDER BY id",
		"SELECT name FROM xn_a UNION SELECT name FROM xn_b ORDER BY 1",
	} {
		sameRowsArgs(t, pc, rc, q)
	}
}

// xnCJKEnv is newXnEnv with an emoji and a Chinese name added to xn_a
// (through the proxy and in the reference), and one connection to each.
func xnCJKEnv(t *testing.T) (e *pxEnv, px *sql.DB, pc, rc *sql.Conn) {
	t.Helper()
	e, px = newXnEnv(t)
	rows := "INSERT INTO xn_a VALUES (9, 10, '🎉party0', 'a', 1, '2024-01-01'), (10, 10, '北京', 'b', 1, '2024-01-01')"
	execAll(t, px, rows)
	execAll(t, e.ref, rows)
	pc, rc = conns(t, px, e.ref)
	return e, px, pc, rc
}

// conns returns a connection of the proxy px and one of the reference
// ref, closed when t ends.
func conns(t *testing.T, px, ref *sql.DB) (pc, rc *sql.Conn) {
	t.Helper()
	out := make([]*sql.Conn, 2)
	for i, db := range []*sql.DB{px, ref} {
		c, err := db.Conn(context.Background())
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		out[i] = c
	}
	return out[0], out[1]
}

// setNames runs SET NAMES cs on every connection.
func setNames(t *testing.T, cs string, cc ...*sql.Conn) {
	t.Helper()
	for _, c := range cc {
		_, err := c.ExecContext(context.Background(), "SET NAMES "+cs)
		require.NoError(t, err)
	}
}

// TestStepsFederationMerges: a SELECT over several data nodes whose merge
// the planner refuses (STDDEV, WITH ROLLUP, a window not partitioned by
// the sharding column, an aggregate window, ORDER BY a key it cannot
// compare) runs over temporary tables
// and answers as the reference does; generated code still refuses them.
func TestStepsFederationMerges(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT k, STDDEV_POP(price), VAR_SAMP(price) FROM xn_a GROUP BY k ORDER BY k",
		"SELECT k, COUNT(*), SUM(price) FROM xn_a GROUP BY k WITH ROLLUP",
		"SELECT id, ROW_NUMBER() OVER (ORDER BY price DESC, id) AS rn, SUM(price) OVER (PARTITION BY k) AS s FROM xn_a ORDER BY id",
		"SELECT id FROM xn_a ORDER BY UPPER(LENGTH(name)), id",
	} {
		sameRows(t, px, e.ref, q)
	}
	// The same as prepared statements (binary protocol, a parameter), as
	// the text protocol runs them (fresh user: refused with 1235).
	for _, q := range []string{
		"SELECT id, ROW_NUMBER() OVER (ORDER BY price DESC, id) AS rn FROM xn_a WHERE price >= ? ORDER BY id",
		"SELECT id FROM xn_a WHERE price > ? ORDER BY UPPER(LENGTH(name)), id",
		"SELECT id, IF(price > ?, 'a', 'b') AS c FROM xn_a ORDER BY c, id",
		"WITH t AS (SELECT id, k FROM xn_a WHERE price > ?) SELECT id FROM t ORDER BY id",
		"WITH t AS (SELECT k, COUNT(*) AS n FROM xn_a WHERE price > ? GROUP BY k) SELECT k, n FROM t ORDER BY k",
	} {
		require.Equal(t, rowsOf(t, e.ref, q, 0), rowsOf(t, px, q, 0), q)
	}
	// STDDEV / VARIANCE stay refused prepared: run as text, their DOUBLE
	// would arrive rounded to the column's decimals.
	_, err := px.Query("SELECT k, STDDEV_POP(price) FROM xn_a WHERE k >= ? GROUP BY k", 0)
	require.ErrorContains(t, err, "Error 1235 (42000)")
	// A range over an INLINE sharding column is still refused: the
	// rows of a table are read by its conditions, routed as written.
	_, err = px.Query("SELECT k, STDDEV(price) FROM xn_a WHERE id > 2 GROUP BY k")
	require.ErrorContains(t, err, "Error 1235 (42000)")
}
