package proxy

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMergeUntypedColumns: a merged SELECT (ORDER BY over several data
// nodes) whose select list has a column the planner cannot type, a
// function such as POW or GREATEST, or a correlated COUNT / MIN looked up
// across data nodes, returns it as MariaDB does. go-sql-driver returns
// such numbers typed (int64, float64) in both protocols, and the merge
// took every untyped column for text: "runtime.DecodeCell: Bytes column got
// a value of Go type float64" (found by a fresh user).
func TestMergeUntypedColumns(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT id, POW(k, 2), GREATEST(k, 1), FLOOR(k / 3), SQRT(k), day + INTERVAL 1 DAY FROM xn_a ORDER BY id",
		"SELECT id, POW(k, 2) FROM xn_a ORDER BY id LIMIT 2, 3",
		"SELECT id, (SELECT COUNT(*) FROM xn_b WHERE xn_b.a_id = xn_a.id) AS n FROM xn_a ORDER BY id",
		"SELECT a.id, (SELECT MIN(b.bid) FROM xn_b b WHERE b.a_id = a.id) AS m FROM xn_a a ORDER BY a.id DESC LIMIT 5",
		"SELECT a.id, (SELECT MAX(b.day) FROM xn_b b WHERE b.a_id = a.id) AS m FROM xn_a a ORDER BY a.id",
	} {
		sameRows(t, px, e.ref, q)
	}
	sameRowsArgs(t, px, e.ref, "SELECT id, POW(k, 2), SQRT(k) FROM xn_a WHERE id IN (?, ?, ?) ORDER BY id", 1, 2, 5)
}

// TestLimitTextParams: a LIMIT placeholder bound to text or a float
// (go-sql-driver sends a Go string as MYSQL_TYPE_STRING) takes the count
// MariaDB takes from it ("3", " 2", "2abc" and "2.6" are 3, 2, 2 and 2; the
// float 2.6 is 3), in a merged SELECT and in a join and a UNION evaluated
// in steps. They failed: "LIMIT row count parameter 0 is string, want an
// integer", "LIMIT '2' must be an integer literal".
func TestLimitTextParams(t *testing.T) {
	e, px := newXnEnv(t)
	for _, v := range []any{"3", " 2", "2abc", "2.6", 2.6, "0", ""} {
		sameRowsArgs(t, px, e.ref, "SELECT id FROM xn_a ORDER BY id LIMIT ?", v)
		sameRowsArgs(t, px, e.ref, "SELECT id FROM xn_a ORDER BY id LIMIT ?, ?", v, v)
		sameRowsArgs(t, px, e.ref, "SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON b.a_id = a.id ORDER BY b.bid LIMIT ?, ?", v, v)
		sameRowsArgs(t, px, e.ref, "SELECT id FROM xn_a UNION ALL SELECT bid FROM xn_b ORDER BY 1 DESC LIMIT ?", v)
	}
}

// sameRowsArgs is sameRows of a statement with arguments (a prepared
// statement on both).
func sameRowsArgs(t *testing.T, px, ref querier, q string, args ...any) {
	t.Helper()
	want, got := rowsOf(t, ref, q, args...), rowsOf(t, px, q, args...)
	if !strings.Contains(strings.ToUpper(q), "ORDER BY") {
		sort.Strings(want)
		sort.Strings(got)
	}
	require.Equal(t, want, got, "%s %v", q, args)
}

// TestLimitNegativeParams: a negative LIMIT placeholder value of a
// prepared statement is what MariaDB reads from the binary protocol, an
// unsigned count (-1 is 2^64-1): every row as the row count, none as the
// offset; no error. Merged, on one data node, through a correlated lookup,
// a join and a UNION in steps. They failed with "runtime.Merge: LIMIT row
// count parameter 0 is -1, want ≥ 0" and a syntax error near '-1'.
func TestLimitNegativeParams(t *testing.T) {
	e, px := newXnEnv(t)
	for _, v := range []any{int64(-1), int64(-7), -1.5, "-2"} {
		sameRowsArgs(t, px, e.ref, "SELECT id FROM xn_a ORDER BY id LIMIT ?", v)
		sameRowsArgs(t, px, e.ref, "SELECT id FROM xn_a ORDER BY id LIMIT ?, 2", v)
		sameRowsArgs(t, px, e.ref, "SELECT id FROM xn_a ORDER BY id LIMIT 2 OFFSET ?", v)
		sameRowsArgs(t, px, e.ref, "SELECT id FROM xn_a WHERE id = 1 LIMIT ?", v)
		sameRowsArgs(t, px, e.ref, "SELECT id, (SELECT COUNT(*) FROM xn_b b WHERE b.a_id = a.id) AS n FROM xn_a a ORDER BY id LIMIT ?", v)
		sameRowsArgs(t, px, e.ref, "SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON b.a_id = a.id ORDER BY b.bid LIMIT ?", v)
		sameRowsArgs(t, px, e.ref, "SELECT id FROM xn_a UNION ALL SELECT bid FROM xn_b ORDER BY 1 DESC LIMIT ?", v)
	}
}
