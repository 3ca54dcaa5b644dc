package proxy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// counterStep is a statement of TestProxyRowCountFoundRows: text (no
// args), prepared by the driver (args), or prepared explicitly (prep).
type counterStep struct {
	q    string
	args []any
	prep bool
}

// counterAnswer runs st on conn and renders its answer: the error number,
// the affected rows, or the columns (name and type) and rows.
func counterAnswer(ctx context.Context, conn *sql.Conn, st counterStep) string {
	var rows *sql.Rows
	var res sql.Result
	var err error
	returnsRows := strings.HasPrefix(strings.ToUpper(st.q), "SELECT")
	switch {
	case st.prep:
		var ps *sql.Stmt
		if ps, err = conn.PrepareContext(ctx, st.q); err == nil {
			defer ps.Close()
			if returnsRows {
				rows, err = ps.QueryContext(ctx, st.args...)
			} else {
				res, err = ps.ExecContext(ctx, st.args...)
			}
		}
	case returnsRows:
		rows, err = conn.QueryContext(ctx, st.q, st.args...)
	default:
		res, err = conn.ExecContext(ctx, st.q, st.args...)
	}
	if err != nil {
		var me *gomysql.MySQLError
		if errors.As(err, &me) {
			return fmt.Sprintf("error %d", me.Number)
		}
		return "error " + err.Error()
	}
	if res != nil {
		n, err := res.RowsAffected()
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("affected %d", n)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return "error " + err.Error()
	}
	var b strings.Builder
	for _, ct := range types {
		fmt.Fprintf(&b, "%s:%s ", ct.Name(), ct.DatabaseTypeName())
	}
	vals := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "error " + err.Error()
		}
		b.WriteString("|")
		for _, v := range vals {
			if by, ok := v.([]byte); ok {
				v = string(by)
			}
			fmt.Fprintf(&b, " %v", v)
		}
	}
	if err := rows.Err(); err != nil {
		return "error " + err.Error()
	}
	return b.String()
}

// TestProxyRowCountFoundRows runs the same statements through the proxy
// (px_item over two data sources and two tables each) and on the unsharded
// reference, and after each compares its answer and what ROW_COUNT() and
// FOUND_ROWS() then return (text and prepared reads, alternately): merged
// inserts, updates matching no, one and many rows on several data nodes,
// deletes, SELECTs with and without LIMIT and SQL_CALC_FOUND_ROWS over
// every data node, point statements on the fast path, an error, SET, DO,
// a transaction, prepared statements, a multi-statement, and statements
// using the counters in expressions, conditions and values.
func TestProxyRowCountFoundRows(t *testing.T) {
	y := pxYAML()
	for _, expr := range []string{"ds_${id % 2}", "px_item_${id.intdiv(2) % 2}"} {
		y = strings.Replace(y, "algorithm-expression: "+expr, "algorithm-expression: "+expr+"\n          allow-range-query-with-inline-sharding: true", 1)
	}
	e := newPxEnvYAML(t, y)
	ctx := context.Background()
	multi := map[string]string{"multiStatements": "true"}
	pconn, err := e.client(t, "root", "secret", multi).Conn(ctx)
	require.NoError(t, err)
	defer pconn.Close()
	rconn, err := testdb.OpenWith(t, "reference", multi).Conn(ctx)
	require.NoError(t, err)
	defer rconn.Close()
	steps := []counterStep{
		{q: "SELECT 1"},
		{q: "INSERT INTO px_item (id, name, score) VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3), (4, 'd', 4), (5, 'e', 5), (6, 'f', 6), (7, 'g', 7), (8, 'h', 8)"},
		{q: "UPDATE px_item SET score = score + 1 WHERE id > 100"},
		{q: "UPDATE px_item SET score = 10 WHERE id = 3"},
		{q: "UPDATE px_item SET score = 11 WHERE id = 5"}, // the shape's fast path
		{q: "UPDATE px_item SET name = 'z' WHERE id < 7"},
		{q: "UPDATE px_item SET name = 'z' WHERE id < 7"}, // matched, none changed
		{q: "DELETE FROM px_item WHERE id IN (7, 8)"},
		{q: "DELETE FROM px_item WHERE id = 8"},
		{q: "SELECT id, name FROM px_item ORDER BY id"},
		{q: "SELECT id FROM px_item ORDER BY id LIMIT 2"},
		{q: "SELECT SQL_CALC_FOUND_ROWS id, name FROM px_item ORDER BY id LIMIT 2"},
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item WHERE id > 2 ORDER BY id DESC LIMIT 1, 2"},
		{q: "SELECT SQL_CALC_FOUND_ROWS name, COUNT(*) AS n FROM px_item GROUP BY name ORDER BY name LIMIT 1"},
		{q: "SELECT SQL_CALC_FOUND_ROWS DISTINCT name FROM px_item ORDER BY name LIMIT 1"},
		{q: "SELECT SQL_CALC_FOUND_ROWS COUNT(*) FROM px_item LIMIT 0"},
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item WHERE id = 3"},
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item ORDER BY id LIMIT 10, 5"},
		{q: "SELECT SQL_CALC_FOUND_ROWS a.id, b.id FROM px_item a JOIN px_item b ON a.name = b.name ORDER BY a.id, b.id LIMIT 2"}, // a join across data nodes
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item WHERE name IN (SELECT name FROM px_item WHERE id > 4) ORDER BY id LIMIT 1"},
		{q: "SELECT SQL_CALC_FOUND_ROWS name, SUM(score) AS s FROM px_item GROUP BY name HAVING SUM(score) > 3 ORDER BY name LIMIT 1"},
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item WHERE id IN (2, 5, 6) ORDER BY id LIMIT 1 FOR UPDATE"},
		{q: "SELECT name FROM px_item WHERE id = 2"},
		{q: "SELECT name FROM px_item WHERE id = 4"}, // the fast path
		{q: "SELECT name FROM px_item WHERE id = 999"},
		{q: "INSERT INTO px_item (id) VALUES (1)"}, // duplicate key
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item ORDER BY id LIMIT 1"},
		{q: "SELECT no_such_column FROM px_item"}, // an error: FOUND_ROWS() stays
		{q: "DO 1"},
		{q: "REPLACE INTO px_item (id, name) VALUES (1, 'r')"},
		{q: "INSERT INTO px_item (id, name) VALUES (2, 'x') ON DUPLICATE KEY UPDATE name = 'y'"},
		{q: "BEGIN"},
		{q: "UPDATE px_item SET score = 20 WHERE id IN (1, 2, 3)"},
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item ORDER BY id DESC LIMIT 2"},
		{q: "COMMIT"},
		{q: "UPDATE px_item SET score = ? WHERE id = ?", args: []any{30, 4}},
		{q: "UPDATE px_item SET score = ? WHERE id > ?", args: []any{31, 0}},
		{q: "SELECT id FROM px_item WHERE id > ? ORDER BY id", args: []any{2}},
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item ORDER BY id LIMIT ?", args: []any{2}},
		{q: "SELECT name FROM px_item WHERE id = ?", args: []any{4}},
		{q: "DELETE FROM px_item WHERE id = ?", args: []any{6}},
		{q: "SELECT ROW_COUNT() + 1, Row_Count ( ) AS n, FOUND_ROWS() cnt, found_rows() * 2"},
		{q: "UPDATE px_item SET score = 1 WHERE id IN (1, 2)"},
		{q: "SELECT ROW_COUNT(), FOUND_ROWS()", prep: true},
		{q: "SELECT id, ROW_COUNT() AS rc FROM px_item ORDER BY id"},
		{q: "SELECT id FROM px_item WHERE id > ROW_COUNT() + 3 ORDER BY id"},
		{q: "SELECT id FROM px_item ORDER BY ROW_COUNT(), id DESC LIMIT 3"},
		{q: "SELECT FOUND_ROWS() AS f, COUNT(*) FROM px_item GROUP BY FOUND_ROWS()"},
		{q: "UPDATE px_item SET score = FOUND_ROWS() WHERE id = 1"},
		{q: "SELECT score FROM px_item WHERE id = 1"},
		{q: "UPDATE px_item SET score = 5 WHERE id > ROW_COUNT()"},
		{q: "SELECT id, score FROM px_item WHERE id = ? AND score > ROW_COUNT()", args: []any{2}},
		{q: "SELECT SQL_CALC_FOUND_ROWS id FROM px_item WHERE id > ? ORDER BY id LIMIT 1", prep: true, args: []any{1}},
		{q: "UPDATE px_item SET score = 8 WHERE id IN (3, 4)"},
		{q: "SELECT nocol FROM px_item", prep: true}, // a failed prepare
		{q: "SET @x = 5"},
		{q: "UPDATE px_item SET score = 6 WHERE id IN (3, 4, 5)"},
		{q: "SET @y = ROW_COUNT()"},
		{q: "SELECT @y, ROW_COUNT(), FOUND_ROWS()"},
		{q: "UPDATE px_item SET score = 7 WHERE id IN (1, 2); SET @c := ROW_COUNT()"},
		{q: "SELECT @c"},
		{q: "SELECT id FROM px_item ORDER BY id LIMIT 1; SET @f = FOUND_ROWS()"},
		{q: "SELECT @f"},
		{q: "DO @g := ROW_COUNT()"},
		{q: "SELECT @g"},
	}
	reads := []counterStep{{q: "SELECT ROW_COUNT() AS rc, FOUND_ROWS() AS fr"}, {q: "SELECT ROW_COUNT() AS rc, FOUND_ROWS() AS fr", prep: true}}
	for i, st := range steps {
		want := counterAnswer(ctx, rconn, st)
		got := counterAnswer(ctx, pconn, st)
		require.Equal(t, want, got, "step %d: %s", i, st.q)
		read := reads[i%2]
		want = counterAnswer(ctx, rconn, read)
		got = counterAnswer(ctx, pconn, read)
		require.Equal(t, want, got, "ROW_COUNT(), FOUND_ROWS() after step %d: %s", i, st.q)
	}
}

// TestProxyRowCountFoundRowsRefused: what the proxy cannot evaluate
// exactly (SQL_CALC_FOUND_ROWS below the outermost SELECT, a call in text
// the parser does not read) is refused, text and prepared, without ending
// the transaction; text merely naming them runs.
func TestProxyRowCountFoundRowsRefused(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	conn, err := e.client(t, "root", "secret", nil).Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	const nested = "Error 1235 (42000): This version of the shardgen proxy doesn't yet support SQL_CALC_FOUND_ROWS in a subquery, a UNION or a DO: MariaDB counts the found rows of the outermost SELECT only"
	_, err = conn.ExecContext(ctx, "INSERT INTO px_item (id, name) VALUES (70, 'rc')")
	require.NoError(t, err)
	refused := map[string]string{
		"SELECT SQL_CALC_FOUND_ROWS 1 UNION SELECT 2":                                nested,
		"SELECT * FROM (SELECT SQL_CALC_FOUND_ROWS id FROM px_item LIMIT 1) AS t":    nested,
		"SELECT id FROM px_item WHERE id IN (SELECT SQL_CALC_FOUND_ROWS 70) LIMIT 1": nested,
	}
	for q, want := range refused {
		_, err := conn.ExecContext(ctx, q)
		require.EqualError(t, err, want, q)
		_, err = conn.PrepareContext(ctx, q)
		require.EqualError(t, err, want, "prepared "+q)
	}
	// Naming them in text, as a column alias or a qualified stored
	// function runs.
	var s sql.NullString
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT 'row_count() found_rows() sql_calc_found_rows' AS row_count").Scan(&s))
	require.Equal(t, "row_count() found_rows() sql_calc_found_rows", s.String)
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT name FROM px_item WHERE name <> 'found_rows()' AND id = 70").Scan(&s))
	require.Equal(t, "rc", s.String)

	// A refusal inside a transaction leaves it open.
	tx, err := conn.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "UPDATE px_item SET name = 'tx' WHERE id = 70")
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "SELECT SQL_CALC_FOUND_ROWS 1 UNION SELECT 2")
	require.EqualError(t, err, nested)
	var n int64
	require.NoError(t, tx.QueryRowContext(ctx, "SELECT ROW_COUNT()").Scan(&n))
	require.EqualValues(t, -1, n) // after the error
	require.NoError(t, tx.Commit())
	require.Equal(t, []string{"string:tx"}, rowsOf(t, e.client(t, "root", "secret", nil), "SELECT name FROM px_item WHERE id = 70"))
}
