package proxy

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// unitLog is a slog handler that counts the "Actual SQL" records of the
// sql-show prop (runtime's logActual) per data source, of statements
// naming a table with prefix, and keeps their SQL by data source.
type unitLog struct {
	prefix string
	mu     *sync.Mutex
	counts map[string]int
	sqls   []string // "data source: SQL"
}

func newUnitLog(prefix string) *unitLog {
	return &unitLog{prefix: prefix, mu: &sync.Mutex{}, counts: map[string]int{}}
}

func (l *unitLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *unitLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *unitLog) WithGroup(string) slog.Handler            { return l }
func (l *unitLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "Actual SQL" {
		return nil
	}
	var ds, q string
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "data_source":
			ds = a.Value.String()
		case "sql":
			q = a.Value.String()
		}
		return true
	})
	if strings.Contains(q, l.prefix) {
		l.mu.Lock()
		l.counts[ds+" "+q[strings.Index(q, l.prefix):][:len(l.prefix)+1]]++
		l.sqls = append(l.sqls, ds+": "+q)
		l.mu.Unlock()
	}
	return nil
}

// take returns the counts since the last call, by "data source table".
func (l *unitLog) take() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.counts
	l.counts, l.sqls = map[string]int{}, nil

	return out
}

// takeSQL returns the SQL since the last take or takeSQL, as
// "data source: SQL" in the order the data sources ran it.
func (l *unitLog) takeSQL() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sqls
	l.counts, l.sqls = map[string]int{}, nil
	return out
}

// stepsPlanCount is the shardgen_proxy_steps_plans_total metric.
func stepsPlanCount(t testing.TB, srv *Server) float64 {
	t.Helper()
	mfs, err := srv.metrics.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "shardgen_proxy_steps_plans_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatal("no shardgen_proxy_steps_plans_total")
	return 0
}

// TestStepsPreparedNarrowAndCache: a prepared cross-node join is planned
// in steps once (when prepared) and each execution runs the cached plan
// with its values; the step comparing xn_a's sharding column with the
// parameter runs only on the data node of the value ('3' as 3, NULL on
// one data node), the rows those of the reference database. A text
// statement's steps plan (or the proxy's own operators' steps) is cached
// by its text; an ALTER TABLE through the proxy drops them.
func TestStepsPreparedNarrowAndCache(t *testing.T) {
	units := newUnitLog("xn_")
	e, px := newStepsEnvOpts(t, "  sql-show: true\n", Options{Logger: slog.New(units)}, xnRules, xnDDL, xnRows, "xn_a", "xn_b")
	ctx := context.Background()
	const q = "SELECT a.id, a.name, b.bid FROM xn_a a JOIN xn_b b ON b.a_id = a.id WHERE a.id = ? ORDER BY b.bid"
	plans := stepsPlanCount(t, e.srv)

	// PREVIEW shows the step's run-time route.
	prev := strings.Join(rowsOf(t, px, "PREVIEW "+q), "\n")
	require.Contains(t, prev, "route units: by ? (xn_a.id)")

	conn, err := px.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	stmt, err := conn.PrepareContext(ctx, q)
	require.NoError(t, err)
	defer stmt.Close()
	plans++ // PREVIEW planned it too, with its placeholder
	require.Equal(t, plans, stepsPlanCount(t, e.srv), "planned once when prepared")
	units.take()
	for _, c := range []struct {
		arg  any
		want map[string]int
	}{
		// xn_a by id % 2; xn_b's inner side binds a_id, no sharding column.
		{int64(1), map[string]int{"ds_1 xn_a": 1, "ds_0 xn_b": 1, "ds_1 xn_b": 1}},
		{"4", map[string]int{"ds_0 xn_a": 1, "ds_0 xn_b": 1, "ds_1 xn_b": 1}},
		// NULL: no row, one data node answers (each step without a row
		// asks its first unit again for the columns' types).
		{nil, map[string]int{"ds_0 xn_a": 2, "ds_0 xn_b": 2, "ds_1 xn_b": 1}},
		{int64(2), map[string]int{"ds_0 xn_a": 1, "ds_0 xn_b": 1, "ds_1 xn_b": 1}},
	} {
		rows, err := stmt.QueryContext(ctx, c.arg)
		require.NoError(t, err)
		var got []string
		cols, _ := rows.Columns()
		for rows.Next() {
			got = append(got, scanRendered(t, rows, len(cols)))
		}
		require.NoError(t, rows.Err())
		rows.Close()
		require.Equal(t, rowsOf(t, e.ref, q, c.arg), got, "%#v", c.arg)
		require.Equal(t, c.want, units.take(), "%#v", c.arg)
	}
	require.Equal(t, plans, stepsPlanCount(t, e.srv), "executions run the cached plan")

	// IN (?, ?) on the sharding column of the outer side; the inner side's
	// IN list, on its sharding column, asks only the data nodes of the
	// outer rows' a_id values (runtime.StepListRoute): bid 100 has a_id 1
	// (ds_1), 102 none.
	const qin = "SELECT b.bid, a.name FROM xn_b b JOIN xn_a a ON a.id = b.a_id WHERE b.bid IN (?, ?) ORDER BY b.bid"
	sameRowsArgs(t, px, e.ref, qin, int64(100), int64(102))
	require.Equal(t, map[string]int{"ds_0 xn_b": 1, "ds_1 xn_a": 1}, units.take())
	// a_id 1 and 4: both data nodes of xn_a.
	sameRowsArgs(t, px, e.ref, qin, int64(101), "103")
	require.Equal(t, map[string]int{"ds_1 xn_b": 1, "ds_0 xn_a": 1, "ds_1 xn_a": 1}, units.take())
	sameRowsArgs(t, px, e.ref, qin, int64(101), "104")
	require.Equal(t, map[string]int{"ds_0 xn_b": 1, "ds_1 xn_b": 1, "ds_0 xn_a": 1, "ds_1 xn_a": 1}, units.take())

	// A text statement: planned on its first run, then from the cache.
	const text = "SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON b.a_id = a.id WHERE a.id = 4 ORDER BY b.bid"
	plans = stepsPlanCount(t, e.srv)
	for range 3 {
		sameRows(t, px, e.ref, text)
	}
	require.Equal(t, plans+1, stepsPlanCount(t, e.srv))
	// A join of three tables runs on the proxy's own operators: their
	// steps are cached too.
	const three = "SELECT a.id, b.bid, c.bid FROM xn_a a JOIN xn_b b ON b.a_id = a.id JOIN xn_b c ON c.name = b.name ORDER BY a.id, b.bid, c.bid"
	for range 3 {
		sameRows(t, px, e.ref, three)
	}
	require.Equal(t, plans+2, stepsPlanCount(t, e.srv))
	cached := e.srv.steps.get(three)
	require.Nil(t, cached.pl)
	require.NotNil(t, cached.st)
	plans++

	// DDL drops the cached plans: the next execution plans again.
	execAll(t, px, "ALTER TABLE xn_a ADD COLUMN extra INT NULL")
	execAll(t, e.ref, "ALTER TABLE xn_a ADD COLUMN extra INT NULL")
	rows, err := stmt.QueryContext(ctx, int64(1))
	require.NoError(t, err)
	for rows.Next() {
	}
	require.NoError(t, rows.Err())
	rows.Close()
	require.Equal(t, plans+2, stepsPlanCount(t, e.srv), "re-planned after ALTER TABLE")
	sameRows(t, px, e.ref, text)
	require.Equal(t, plans+3, stepsPlanCount(t, e.srv))
	sameRows(t, px, e.ref, "SELECT a.id, a.extra, b.bid FROM xn_a a JOIN xn_b b ON b.a_id = a.id WHERE a.id = 4 ORDER BY b.bid")
}

// TestStepsLatin1SplitLists: in a latin1 session, where the proxy's own
// operators evaluate the steps (the values bound as literals), an IN list
// bound from an earlier step on the inner table's sharding column (an IN
// subquery's values, a join's outer keys) is split by data node as
// generated code's steps split it: each data node gets only the values
// xn_a's id MOD 2 routes there, one that gets none is not asked, and an
// aggregate with no value left runs once with the list NULL. The rows are
// the reference's (in the same latin1 session).
func TestStepsLatin1SplitLists(t *testing.T) {
	units := newUnitLog("xn_a")
	e, px := newStepsEnvOpts(t, "  sql-show: true\n", Options{Logger: slog.New(units)}, xnRules, xnDDL, xnRows, "xn_a", "xn_b")
	pc, rc := conns(t, px, e.ref)
	setNames(t, "latin1", pc, rc)
	units.take()
	for _, c := range []struct {
		q    string
		want []string // the statements on xn_a, each with its IN list
	}{
		// a_id 4 and 7 (bid 103-105): id 4 on ds_0, 7 on ds_1.
		{"SELECT id, k FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid IN (103, 104, 105)) ORDER BY id",
			[]string{"ds_0: in (4)", "ds_1: in (7)"}},
		// a_id 1 only: ds_0 is not asked.
		{"SELECT COUNT(*), SUM(k) FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid IN (100, 101))",
			[]string{"ds_1: in (1)"}},
		// a_id NULL: no value; the aggregate runs once, the list NULL.
		{"SELECT COUNT(*) FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid = 102)",
			[]string{"ds_0: in (NULL)"}},
		// A join's inner side keyed on xn_a.id: a_id 1 and 4, one each.
		{"SELECT b.bid, a.k FROM xn_b b JOIN xn_a a ON a.id = b.a_id WHERE b.bid IN (100, 101, 103) ORDER BY b.bid",
			[]string{"ds_0: in (4)", "ds_1: in (1)"}},
		{"SELECT b.bid, a.k FROM xn_b b LEFT JOIN xn_a a ON a.id = b.a_id WHERE b.bid IN (105, 106, 102) ORDER BY b.bid",
			[]string{"ds_1: in (7, 99)"}},
	} {
		sameRowsArgs(t, pc, rc, c.q)
		var got []string
		for _, s := range units.takeSQL() {
			ds, q, _ := strings.Cut(s, ": ")
			if !strings.Contains(q, "from xn_a") && !strings.Contains(q, "FROM xn_a") {
				continue
			}
			if i := strings.LastIndex(q, " in ("); i >= 0 {
				// The list, its values sorted (the outer rows come from
				// the data nodes in any order).
				list := strings.Split(q[i+5:i+5+strings.IndexByte(q[i+5:], ')')], ", ")
				slices.Sort(list)
				q = "in (" + strings.Join(list, ", ") + ")"
			}
			got = append(got, ds+": "+q)
		}
		slices.Sort(got)
		require.Equal(t, c.want, got, c.q)
	}
}

// TestLimitedWriteSplitKeys: the proxy's UPDATE and DELETE … ORDER BY …
// LIMIT over several data nodes writes each data node with only the keys
// of its rows when the key is the sharding column (xn_a.id MOD 2), and
// changes exactly the reference's rows.
func TestLimitedWriteSplitKeys(t *testing.T) {
	units := newUnitLog("xn_a")
	e, px := newStepsEnvOpts(t, "  sql-show: true\n", Options{Logger: slog.New(units)}, xnRules, xnDDL, xnRows, "xn_a", "xn_b")
	units.take()
	for _, c := range []struct {
		q    string
		want []string // the writes on xn_a, each with its key list
	}{
		// ids 8 and 7: one on each data node.
		{"UPDATE xn_a SET k = k + 1 ORDER BY id DESC LIMIT 2", []string{"ds_0: in (8)", "ds_1: in (7)"}},
		// k 10 (ids 1, 4, 8 before; 8 is 11 now): ids 1 and 4.
		{"DELETE FROM xn_a WHERE k = 10 ORDER BY k, id LIMIT 5", []string{"ds_0: in (4)", "ds_1: in (1)"}},
		// ids 5 and 7 (k 30, 41): ds_1 only.
		{"UPDATE xn_a SET name = 'odd' WHERE k >= 30 ORDER BY k, id LIMIT 2", []string{"ds_1: in (5, 7)"}},
	} {
		want, err := e.ref.Exec(c.q)
		require.NoError(t, err, c.q)
		got, err := px.Exec(c.q)
		require.NoError(t, err, c.q)
		wn, _ := want.RowsAffected()
		gn, _ := got.RowsAffected()
		require.Equal(t, wn, gn, c.q)
		var writes []string
		for _, s := range units.takeSQL() {
			ds, q, _ := strings.Cut(s, ": ")
			if !strings.HasPrefix(q, "update") && !strings.HasPrefix(q, "delete") {
				continue
			}
			i := strings.LastIndex(q, " in (")
			require.GreaterOrEqual(t, i, 0, q)
			writes = append(writes, ds+": "+q[i+1:i+2+strings.IndexByte(q[i+1:], ')')])
		}
		slices.Sort(writes)
		require.Equal(t, c.want, writes, c.q)
		sameRows(t, px, e.ref, "SELECT id, k, name FROM xn_a ORDER BY id")
	}
}
