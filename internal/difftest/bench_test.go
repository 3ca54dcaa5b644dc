package difftest

// Scatter-gather benchmarks (issue 4): full-route aggregates over 4 data
// nodes against the same query on one unsharded table, and ORDER BY with
// and without LIMIT, with the Go heap each merge holds. They run only with
// -bench; their tables (bench_agg: 100,000 rows; bench_sort: 1,000,000
// rows) are loaded by the first benchmark that needs them and kept between
// runs, reloaded only when a row count is off. See docs/performance.md.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/proxy"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// Both tables are sharded by id with ShardingSphere's MOD algorithm over
// ds_0..ds_3, one actual table per data source: row id lives on
// ds_${id % 4}. The reference database holds the same rows unsharded.
const benchRules = `rules:
- !SHARDING
  tables:
    bench_agg:
      actualDataNodes: ds_${0..3}.bench_agg
      databaseStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: bench_mod}
    bench_sort:
      actualDataNodes: ds_${0..3}.bench_sort
      databaseStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: bench_mod}
  shardingAlgorithms:
    bench_mod: {type: MOD, props: {sharding-count: 4}}
`

const benchDDL = `CREATE TABLE bench_agg (
  id BIGINT NOT NULL PRIMARY KEY,
  grp INT NOT NULL,
  v INT NOT NULL
);
CREATE TABLE bench_sort (
  id BIGINT NOT NULL PRIMARY KEY,
  k BIGINT NOT NULL,
  v INT NOT NULL,
  KEY bench_sort_k (k)
)`

// benchTable is one benchmark table: its row count and the SELECT list
// that fills it from MariaDB's SEQUENCE engine column seq (the row id), so
// both sides hold exactly the same rows without sending them from Go.
type benchTable struct {
	name string
	rows int64
	fill string
}

var (
	// bench_agg: 100 groups (grp), v in 0..99999; the hash spreads every
	// group over every data node.
	benchAgg = benchTable{"bench_agg", 100_000, "seq, CRC32(seq) % 100, CRC32(CONCAT('v', seq)) % 100000"}
	// bench_sort: k (indexed) and v (not indexed) in hash order.
	benchSort = benchTable{"bench_sort", 1_000_000, "seq, CRC32(seq), CRC32(CONCAT('v', seq)) % 1000000"}
)

// benchLoaded records the tables checked or loaded in this process.
var (
	benchLoadMu sync.Mutex
	benchLoaded = map[string]bool{}
)

// benchEnv is env without dropping tables, plus the executors the
// benchmarks call.
type benchEnv struct {
	*env
	src *runtime.Sources
}

// openBench plans over ds_0..ds_3 and makes sure the given tables hold
// their rows on both sides.
func openBench(b *testing.B, tables ...benchTable) *benchEnv {
	b.Helper()
	yaml := rulesYAML(benchRules, 4)
	cfg, err := schema.Load("bench.yaml", []byte(yaml))
	require.NoError(b, err)
	ddl, err := schema.ParseDDL("bench.sql", []byte(benchDDL))
	require.NoError(b, err)
	require.NoError(b, schema.CheckDDL(cfg, ddl))
	builder, err := plan.NewBuilder(cfg, nil)
	require.NoError(b, err)
	dcfg, err := runtime.ParseConfig("bench.yaml", []byte(yaml))
	require.NoError(b, err)
	rt, err := runtime.Open(dcfg)
	require.NoError(b, err)
	b.Cleanup(func() { rt.Close() })
	in, err := proxy.NewInterpreter(builder, rt)
	require.NoError(b, err)
	src, err := rt.Sources(rt.DataSourceNames())
	require.NoError(b, err)
	e := &benchEnv{env: &env{t: b, cfg: cfg, b: builder, rt: rt, in: in, ref: testdb.Open(b, testdb.Reference)}, src: src}
	benchLoadMu.Lock()
	defer benchLoadMu.Unlock()
	for _, t := range tables {
		if benchLoaded[t.name] {
			continue
		}
		e.checkPlacement(t.name)
		start := time.Now()
		loaded, err := e.ensureRows(t)
		require.NoError(b, err, t.name)
		if loaded {
			b.Logf("loaded %s: %d rows on each side in %v", t.name, t.rows, time.Since(start).Round(time.Millisecond))
		}
		benchLoaded[t.name] = true
	}
	return e
}

// checkPlacement asserts that the planner routes id to ds_${id % 4}, the
// placement ensureRows writes directly.
func (e *benchEnv) checkPlacement(table string) {
	p, err := e.plan("SELECT id FROM " + table + " WHERE id = ?")
	require.NoError(e.t, err)
	for id := int64(1); id <= 8; id++ {
		idx, err := e.b.Units(p, []runtime.Value{runtime.Long(id)})
		require.NoError(e.t, err)
		require.Len(e.t, idx, 1)
		require.Equal(e.t, fmt.Sprintf("ds_%d.%s", id%4, table), p.Route.Units[idx[0]].Node)
	}
}

// ensureRows checks the row count of every actual table and of the
// reference table and (re)loads the ones that are off: ds_k gets the ids
// ≡ k (mod 4) of 1..t.rows, the reference all of them.
func (e *benchEnv) ensureRows(t benchTable) (loaded bool, err error) {
	ctx := context.Background()
	type side struct {
		db   *sql.DB
		want int64
		seq  string
	}
	sides := []side{{e.ref, t.rows, fmt.Sprintf("seq_1_to_%d", t.rows)}}
	for k := int64(0); k < 4; k++ {
		pool, ok := e.rt.Pool(fmt.Sprintf("ds_%d", k))
		if !ok {
			return false, fmt.Errorf("no data source ds_%d", k)
		}
		first := k
		if first == 0 {
			first = 4
		}
		n := (t.rows-first)/4 + 1
		sides = append(sides, side{pool, n, fmt.Sprintf("seq_%d_to_%d_step_4", first, t.rows)})
	}
	create := createAs(benchDDL, t.name, t.name)
	errs := make([]error, len(sides))
	var wg sync.WaitGroup
	var reloaded atomic.Bool
	for i, s := range sides {
		wg.Go(func() {
			var n int64
			err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t.name).Scan(&n)
			if err == nil && n == s.want {
				return
			}
			reloaded.Store(true)
			for _, q := range []string{"DROP TABLE IF EXISTS " + t.name, create,
				"INSERT INTO " + t.name + " SELECT " + t.fill + " FROM " + s.seq, "ANALYZE TABLE " + t.name} {
				if _, err := s.db.ExecContext(ctx, q); err != nil {
					errs[i] = fmt.Errorf("%s: %w", q, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return reloaded.Load(), errors.Join(errs...)
}

// merged is one full-route SELECT prepared as generated code holds it: the
// plan's every unit with its SQL, and its merge spec.
type merged struct {
	p     *plan.Plan
	st    *runtime.Stmt
	units []runtime.RouteUnit
}

// prepare plans sqlText and checks that it is a merged full route.
func (e *benchEnv) prepare(sqlText string) *merged {
	p, err := e.plan(sqlText)
	require.NoError(e.t, err, sqlText)
	require.NotNil(e.t, p.Merge, sqlText)
	require.Empty(e.t, p.Params, sqlText)
	names := e.rt.DataSourceNames()
	idx, err := e.b.Units(p, nil)
	require.NoError(e.t, err)
	m := &merged{p: p, st: &runtime.Stmt{Name: p.Name, LogicSQL: p.LogicSQL}}
	for _, i := range idx {
		u := p.Route.Units[i]
		ds := slices.Index(names, p.Route.DataSources[u.DataSource])
		require.GreaterOrEqual(e.t, ds, 0)
		m.units = append(m.units, runtime.RouteUnit{DataSource: ds, SQL: u.SQL})
	}
	require.Len(e.t, m.units, 4, sqlText)
	return m
}

// sharded runs m as generated code does (runtime.QueryMerged: units in
// parallel, each unit's rows decoded and held, then merged) and reads
// every merged row; it returns the rows read.
func (e *benchEnv) sharded(ctx context.Context, m *merged, each func([]runtime.Cell)) (int, error) {
	rs, err := runtime.QueryMerged(ctx, e.src, m.st, m.units, nil, m.p.Merge, nil)
	if err != nil {
		return 0, err
	}
	return drainCells(rs, each)
}

// streamed runs m with one streaming runtime.SQLRows per unit (queries
// sent in parallel) fed straight to runtime.Merge: what a streaming
// QueryMerged would do. It is not the path generated code takes; it shows
// what the per-unit buffering costs.
func (e *benchEnv) streamed(ctx context.Context, m *merged, each func([]runtime.Cell)) (int, error) {
	srcs := make([]*runtime.SQLRows, len(m.units))
	errs := make([]error, len(m.units))
	var wg sync.WaitGroup
	for i, u := range m.units {
		wg.Go(func() {
			rows, err := e.src.Query(ctx, m.st, u)
			if err != nil {
				errs[i] = err
				return
			}
			srcs[i] = runtime.NewSQLRows(rows, m.p.Merge.Kinds)
		})
	}
	wg.Wait()
	defer func() {
		for _, s := range srcs {
			if s != nil {
				s.Close()
			}
		}
	}()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	sources := make([]runtime.RowSource, len(srcs))
	for i, s := range srcs {
		sources[i] = s
	}
	rs, err := runtime.Merge(m.p.Merge, nil, sources)
	if err != nil {
		return 0, err
	}
	return drainCells(rs, each)
}

// interpreted runs m's plan through the proxy's Interpreter (route
// evaluation, database/sql values, merge, Go values out).
func (e *benchEnv) interpreted(ctx context.Context, m *merged) (int, error) {
	res, err := e.in.Execute(ctx, m.p, nil, nil)
	if err != nil {
		return 0, err
	}
	return len(res.Rows), nil
}

// direct runs m's logic SQL on the unsharded reference table and scans
// every row into []any, as the merge path scans a node's rows.
func (e *benchEnv) direct(ctx context.Context, m *merged, each func([]any)) (int, error) {
	rows, err := e.ref.QueryContext(ctx, m.p.LogicSQL)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		if each != nil {
			each(vals)
		}
		n++
	}
	return n, rows.Err()
}

// drainCells reads rs to its end.
func drainCells(rs runtime.RowSource, each func([]runtime.Cell)) (int, error) {
	n := 0
	for {
		row, err := rs.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if each != nil {
			each(row)
		}
		n++
	}
}

// checkSame runs m on both sides once and requires the same rows (in the
// same order when ordered).
func (e *benchEnv) checkSame(m *merged, ordered bool) {
	ctx := context.Background()
	var got, want []string
	_, err := e.sharded(ctx, m, func(r []runtime.Cell) {
		s := make([]string, len(r))
		for i, c := range r {
			s[i] = c.String()
		}
		got = append(got, strings.Join(s, "|"))
	})
	require.NoError(e.t, err)
	_, err = e.direct(ctx, m, func(r []any) { want = append(want, strings.Join(norm(r), "|")) })
	require.NoError(e.t, err)
	if !ordered {
		slices.Sort(got)
		slices.Sort(want)
	}
	require.Equal(e.t, want, got, m.p.LogicSQL)
}

// heapObjects is the runtime/metrics sample of live and unswept heap
// object bytes (what HeapAlloc reports, read without stopping the world).
const heapObjects = "/memory/classes/heap/objects:bytes"

// heapUse measures one run of op: held is the heap reachable (after a
// forced GC) once mid has been called — op calls it at the point where its
// result is in memory and not yet read; peak is the highest heap-object
// sample (every 50µs, garbage included) during the whole of op. Both are
// relative to the heap after a forced GC before op; the largest of reps
// runs is returned.
func heapUse(b *testing.B, reps int, op func(mid func()) error) (held, peak uint64) {
	b.Helper()
	sample := []metrics.Sample{{Name: heapObjects}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	for range reps {
		goruntime.GC()
		base := read()
		var top atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			s := []metrics.Sample{{Name: heapObjects}}
			for {
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > top.Load() {
					top.Store(v)
				}
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Microsecond):
				}
			}
		}()
		var h uint64
		err := op(func() {
			goruntime.GC()
			h = sub(read(), base)
		})
		close(stop)
		<-done
		require.NoError(b, err)
		held = max(held, h)
		peak = max(peak, sub(top.Load(), base))
	}
	return held, peak
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// reportHeap adds held-B and peak-B to the benchmark's line.
func reportHeap(b *testing.B, held, peak uint64) {
	b.ReportMetric(float64(held), "held-B")
	b.ReportMetric(float64(peak), "peak-B")
}

// benchSide is one sub-benchmark: a way to run a query, and the same way
// with a hook at the point its result is in memory and not yet read.
type benchSide struct {
	name string
	run  func(ctx context.Context, m *merged) (int, error)
	mid  func(ctx context.Context, m *merged, mid func()) error
}

// sides are the ways the benchmarks run a merged query.
func (e *benchEnv) sides(withStream, withInterp bool) []benchSide {
	out := []benchSide{{
		name: "sharded",
		run:  func(ctx context.Context, m *merged) (int, error) { return e.sharded(ctx, m, nil) },
		mid: func(ctx context.Context, m *merged, mid func()) error {
			rs, err := runtime.QueryMerged(ctx, e.src, m.st, m.units, nil, m.p.Merge, nil)
			if err != nil {
				return err
			}
			mid()
			_, err = drainCells(rs, nil)
			return err
		},
	}}
	if withStream {
		out = append(out, benchSide{
			name: "streamed",
			run:  func(ctx context.Context, m *merged) (int, error) { return e.streamed(ctx, m, nil) },
			mid: func(ctx context.Context, m *merged, mid func()) error {
				first := true
				_, err := e.streamed(ctx, m, func([]runtime.Cell) {
					if first {
						mid()
						first = false
					}
				})
				return err
			},
		})
	}
	if withInterp {
		out = append(out, benchSide{
			name: "interpreter",
			run:  func(ctx context.Context, m *merged) (int, error) { return e.interpreted(ctx, m) },
		})
	}
	out = append(out, benchSide{
		name: "direct",
		run:  func(ctx context.Context, m *merged) (int, error) { return e.direct(ctx, m, nil) },
		mid: func(ctx context.Context, m *merged, mid func()) error {
			first := true
			_, err := e.direct(ctx, m, func([]any) {
				if first {
					mid()
					first = false
				}
			})
			return err
		},
	})
	return out
}

// runSides runs one sub-benchmark per side of m, in order, so that -count
// interleaves them (A, B, A, B, ...). Each checks its row count, then
// measures its heap (when it has a mid hook, untimed), then times the
// query.
func runSides(b *testing.B, m *merged, rows int, sides []benchSide) {
	ctx := context.Background()
	for _, s := range sides {
		b.Run(s.name, func(b *testing.B) {
			n, err := s.run(ctx, m)
			require.NoError(b, err)
			require.Equal(b, rows, n)
			var held, peak uint64
			if s.mid != nil {
				held, peak = heapUse(b, 3, func(mid func()) error { return s.mid(ctx, m, mid) })
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.run(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
			// After the loop: b.Loop's first call resets reported metrics.
			if s.mid != nil {
				reportHeap(b, held, peak)
			}
		})
	}
}

// BenchmarkFullRouteAggregate runs aggregates over 100,000 rows on all 4
// data nodes (sharded: runtime.QueryMerged over the plan's units and merge
// spec; interpreter: the proxy's proxy.Interpreter on the same plan) and on
// the same rows in one unsharded table of `reference` (direct).
func BenchmarkFullRouteAggregate(b *testing.B) {
	e := openBench(b, benchAgg)
	for _, q := range []struct {
		name, sql string
		rows      int
	}{
		{"max", "SELECT MAX(id) FROM bench_agg", 1},
		{"count", "SELECT COUNT(*) FROM bench_agg", 1},
		{"group100", "SELECT grp, COUNT(*), SUM(v), AVG(v) FROM bench_agg GROUP BY grp", 100},
	} {
		m := e.prepare(q.sql)
		e.checkSame(m, false)
		b.Run(q.name, func(b *testing.B) { runSides(b, m, q.rows, e.sides(false, true)) })
	}
}

// BenchmarkOrderByLimit runs ORDER BY ... LIMIT 10 over 1,000,000 rows
// (250,000 per data node): on the indexed k and on the unindexed v. Every
// node returns at most 10 rows (the rewrite sends LIMIT 10), so the merge
// holds at most 40.
func BenchmarkOrderByLimit(b *testing.B) {
	e := openBench(b, benchSort)
	for _, q := range []struct{ name, sql string }{
		{"indexed", "SELECT id, k, v FROM bench_sort ORDER BY k LIMIT 10"},
		{"unindexed", "SELECT id, k, v FROM bench_sort ORDER BY v, id LIMIT 10"},
	} {
		m := e.prepare(q.sql)
		e.checkSame(m, true)
		b.Run(q.name, func(b *testing.B) { runSides(b, m, 10, e.sides(true, false)) })
	}
}

// BenchmarkOrderByAll runs ORDER BY without LIMIT over 100,000 rows: every
// node returns its 25,000 rows, which runtime.QueryMerged holds in memory
// (QueryUnitsEach reads every unit fully) before the merge; "streamed"
// reads them as it merges.
func BenchmarkOrderByAll(b *testing.B) {
	e := openBench(b, benchAgg)
	m := e.prepare("SELECT id, grp, v FROM bench_agg ORDER BY v, id")
	e.checkSame(m, true)
	runSides(b, m, int(benchAgg.rows), e.sides(true, false))
}
