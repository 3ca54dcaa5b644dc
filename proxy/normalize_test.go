package proxy

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/runtime"
)

// TestNormalize lists what the text protocol's literal normalization
// replaces and what it keeps (see normalize.go).
func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		q, want string // want "": not normalized
		args    []any
	}{
		{"SELECT c FROM sbtest1 WHERE id = 5012", "SELECT c FROM sbtest1 WHERE id = ?", []any{int64(5012)}},
		{"select c from t where id=5 and k = 'ab c' order by c limit 10", "select c from t where id=? and k = ? order by c limit 10", []any{int64(5), "ab c"}},
		{"SELECT * FROM t WHERE id IN (1, 2, 3)", "SELECT * FROM t WHERE id IN (?, ?, ?)", []any{int64(1), int64(2), int64(3)}},
		{"SELECT * FROM t WHERE (a = 1 OR b <> 'x') AND c >= 0", "SELECT * FROM t WHERE (a = ? OR b <> ?) AND c >= ?", []any{int64(1), "x", int64(0)}},
		{"UPDATE t SET c = 'x', k = 5 WHERE id = 7", "UPDATE t SET c = 'x', k = 5 WHERE id = ?", []any{int64(7)}},
		{"DELETE FROM t WHERE id = 7", "DELETE FROM t WHERE id = ?", []any{int64(7)}},
		{"INSERT INTO sbtest1 (id, k, c, pad) VALUES (5012, 4988, '68-12', 'p')", "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
			[]any{int64(5012), int64(4988), "68-12", "p"}},
		{"INSERT INTO t (a, b) VALUES (1, NOW()), (2, CONCAT('a', 'b')) ON DUPLICATE KEY UPDATE b = 5", "INSERT INTO t (a, b) VALUES (?, NOW()), (?, CONCAT('a', 'b')) ON DUPLICATE KEY UPDATE b = 5",
			[]any{int64(1), int64(2)}},
		{"SELECT * FROM t WHERE id IN (SELECT a FROM u WHERE b = 3) AND c = 4", "SELECT * FROM t WHERE id IN (SELECT a FROM u WHERE b = ?) AND c = ?", []any{int64(3), int64(4)}},
		{"SELECT * FROM t WHERE CAST(a AS CHAR) = '5' AND b = 6", "SELECT * FROM t WHERE CAST(a AS CHAR) = ? AND b = ?", []any{"5", int64(6)}},
		{"SELECT * FROM t WHERE id = 1 FOR UPDATE", "SELECT * FROM t WHERE id = ? FOR UPDATE", []any{int64(1)}},
		{"SELECT * FROM t WHERE name = 'é'", "SELECT * FROM t WHERE name = ?", []any{"é"}},
		{"INSERT INTO sbtest1 (id, k, c, pad) VALUES (-2147000123, 4988, 'c', 'p')", "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
			[]any{int64(-2147000123), int64(4988), "c", "p"}},
		{"INSERT INTO t (a, b) VALUES (1 -5, - 2), (-0, -3)", "INSERT INTO t (a, b) VALUES (1 -5, - 2), (?, ?)", []any{int64(0), int64(-3)}},
		// Kept as written.
		{"SELECT 1, 'a' FROM t", "", nil},                                                                     // select list
		{"SELECT a = 5 FROM t WHERE b = c", "", nil},                                                          // comparison in the select list
		{"SELECT * FROM t WHERE id = -5", "", nil},                                                            // a sign
		{"SELECT * FROM t WHERE id = 5.0", "", nil},                                                           // not an integer
		{"SELECT * FROM t WHERE id = 007", "", nil},                                                           // leading zero
		{"SELECT * FROM t WHERE id = 1234567890123456789", "", nil},                                           // 19 digits
		{"SELECT * FROM t WHERE id = 0x1f", "", nil},                                                          // hexadecimal
		{"SELECT * FROM t WHERE c = _latin1'x'", "", nil},                                                     // introducer
		{"SELECT * FROM t WHERE c = 'x' COLLATE utf8mb4_bin", "", nil},                                        // COLLATE
		{"SELECT * FROM t WHERE c = 'it''s'", "", nil},                                                        // quote inside
		{"SELECT * FROM t WHERE c = 'a' 'b'", "", nil},                                                        // adjacent strings
		{"SELECT * FROM t WHERE a = 5 + 1", "", nil},                                                          // part of an expression
		{"SELECT * FROM t WHERE a BETWEEN 1 AND 5", "", nil},                                                  // not after a comparison
		{"SELECT * FROM t WHERE a LIKE 'x%'", "", nil},                                                        // LIKE
		{"SELECT * FROM t WHERE a = ABS(5)", "", nil},                                                         // function argument
		{"SELECT * FROM t WHERE a = ? AND b = 5", "", nil},                                                    // a placeholder
		{"SELECT * FROM t WHERE a = 5 /* c */", "", nil},                                                      // a comment
		{"SELECT * FROM t WHERE a = \"x\"", "", nil},                                                          // double quotes
		{"SELECT * FROM t LIMIT 5", "", nil},                                                                  // LIMIT
		{"SELECT * FROM t JOIN u ON t.a = 5 WHERE u.b = c", "", nil},                                          // ON
		{"SELECT * FROM t HAVING a = 5", "", nil},                                                             // HAVING
		{"INSERT INTO t SET a = 1", "", nil},                                                                  // INSERT ... SET
		{"SET @a = 5", "", nil},                                                                               // not a DML statement
		{"WITH x AS (SELECT 1) SELECT * FROM x WHERE a = 1", "", nil},                                         // WITH
		{"SELECT * FROM t WHERE a = 1)", "", nil},                                                             // unbalanced
		{"SELECT * FROM t WHERE a = 'x", "", nil},                                                             // unterminated
		{"SELECT * FROM t WHERE a = 5 ORDER BY 1", "SELECT * FROM t WHERE a = ? ORDER BY 1", []any{int64(5)}}, // ORDER BY position kept
	} {
		var n normalizer
		got, ok := n.normalize(tc.q)
		if tc.want == "" {
			require.False(t, ok, "%s normalized to %s", tc.q, got)
			continue
		}
		require.True(t, ok, tc.q)
		require.Equal(t, tc.want, string(got))
		require.Equal(t, tc.args, n.values(tc.q))
	}
}

// TestNormalizeAllocations: once a session's buffers have grown,
// normalizing a statement and reading its integer literal allocate nothing.
func TestNormalizeAllocations(t *testing.T) {
	var n normalizer
	q := "SELECT c FROM sbtest1 WHERE id = 12"
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := n.normalize(q); !ok {
			t.Fatal("not normalized")
		}
		_ = n.values(q)
	})
	require.Zero(t, allocs)
}

// textRoute is the planner and cache side of a text-protocol statement:
// normalize, look the plan up (planned on a miss), convert the literals and
// route (plan.Builder.Units).
func textRoute(srv *Server, n *normalizer, q string, values []runtime.Value) ([]int, error) {
	p, args, ok := srv.planNormalized(n, q)
	if !ok {
		return nil, errors.New("not normalized: " + q)
	}
	for i, a := range args {
		v, err := ValueOf(p.Params[i].Type, a)
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	return srv.b.Units(p, values[:len(args)])
}

// TestTextPlanCacheHit: text point selects that differ only in their id
// share one cached plan, route where their literal plans route, and a hit
// allocates at most the box of its id (Go boxes 0..255 without one).
func TestTextPlanCacheHit(t *testing.T) {
	e := newPxEnv(t)
	var n normalizer
	values := make([]runtime.Value, 4)
	before := e.srv.cache.len()
	for id := 1000; id < 1040; id++ {
		q := "SELECT name FROM px_item WHERE id = " + strconv.Itoa(id)
		got, err := textRoute(e.srv, &n, q, values)
		require.NoError(t, err)
		p, err := e.srv.buildPlan(q) // as written: a fixed route
		require.NoError(t, err)
		want, err := e.srv.b.Units(p, nil)
		require.NoError(t, err)
		require.Equal(t, "SELECT name FROM px_item_"+strconv.Itoa(id/2%2)+" WHERE id = "+strconv.Itoa(id), p.Route.Units[want[0]].SQL)
		require.Equal(t, want, got, q)
	}
	require.Equal(t, before+41, e.srv.cache.len()) // the normalized plan and the 40 literal ones
	q := "SELECT name FROM px_item WHERE id = 1234"
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, ok := e.srv.planNormalized(&n, q); !ok {
			t.Fatal("not normalized")
		}
	})
	require.LessOrEqual(t, allocs, 1.0)
}

// BenchmarkTextPlanCacheHit is TestTextPlanCacheHit's hit, with the route.
func BenchmarkTextPlanCacheHit(b *testing.B) {
	e := newPxEnv(b)
	var n normalizer
	values := make([]runtime.Value, 4)
	qs := make([]string, 64)
	for i := range qs {
		qs[i] = "SELECT name FROM px_item WHERE id = " + strconv.Itoa(1000+i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := textRoute(e.srv, &n, qs[i%len(qs)], values); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
