package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shardgen/shardgen/bench/load"
	"github.com/shardgen/shardgen/bench/sbtest/db"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// rangeSize is sysbench's --range_size default.
const rangeSize = 100

// scenario is one row of the report: the same work done by the reference
// (plain database/sql, one unsharded table) and by the generated code.
type scenario struct {
	name, title string
	// statements describes what one event runs.
	statements string
	// target is issue 8's minimum ratio (0: none stated).
	target    float64
	reference load.Op
	sharded   load.Op
	reset     func()
}

type bench struct {
	q       *db.Queries
	ref     *sql.DB
	rows    int
	workers int
	// next ids of the insert scenario, one counter per side so both sides
	// insert the same ids.
	refNext, shNext atomic.Int64
}

// encIDBase is the first id of the encrypted-insert scenario on both sides,
// far above the ids the plain insert scenario adds to reference.sbtest.
const encIDBase = 1 << 30

// The reference statements: the text of queries/sbtest.sql, on the one
// unsharded table.
const (
	refPoint    = "SELECT c FROM sbtest WHERE id = ?"
	refInsert   = "INSERT INTO sbtest (id, k, c, pad) VALUES (?, ?, ?, ?)"
	refUpdIdx   = "UPDATE sbtest SET k = k + 1 WHERE id = ?"
	refUpdNon   = "UPDATE sbtest SET c = ? WHERE id = ?"
	refDelete   = "DELETE FROM sbtest WHERE id = ?"
	refSimple   = "SELECT c FROM sbtest WHERE id BETWEEN ? AND ?"
	refSum      = "SELECT SUM(k) AS total FROM sbtest WHERE id BETWEEN ? AND ?"
	refOrder    = "SELECT c FROM sbtest WHERE id BETWEEN ? AND ? ORDER BY c"
	refDistinct = "SELECT DISTINCT c FROM sbtest WHERE id BETWEEN ? AND ? ORDER BY c"
)

// sysbenchString fills sysbench's template of groups of 11 random digits
// joined by '-' (c: 10 groups, 119 characters; pad: 5 groups, 59).
func sysbenchString(r *rand.Rand, groups int, buf []byte) []byte {
	buf = buf[:0]
	for g := 0; g < groups; g++ {
		if g > 0 {
			buf = append(buf, '-')
		}
		for i := 0; i < 11; i++ {
			buf = append(buf, byte('0'+r.IntN(10)))
		}
	}
	return buf
}

func (b *bench) randID(w *load.Worker) int32 { return int32(1 + w.Rand.IntN(b.rows)) }

// ownID is a random id of the worker's own residue class (id % workers ==
// worker), so the delete+insert pairs of concurrent workers never collide.
func (b *bench) ownID(w *load.Worker) int32 {
	n := b.rows / b.workers
	if n < 1 {
		n = 1
	}
	return int32(w.ID + b.workers*w.Rand.IntN(n) + b.workers)
}

func (b *bench) rangeStart(w *load.Worker) int32 {
	return int32(1 + w.Rand.IntN(max(1, b.rows-rangeSize+1)))
}

func queryStrings(ctx context.Context, db *sql.DB, q string, args ...any) error {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var c string
	for rows.Next() {
		if err := rows.Scan(&c); err != nil {
			return err
		}
	}
	return rows.Err()
}

// refPointSelect and the other ref* functions are one statement of the
// reference side each; sh* the same through the generated code.
func (b *bench) refPointSelect(ctx context.Context, w *load.Worker) error {
	var c string
	return noRowsOK(b.ref.QueryRowContext(ctx, refPoint, b.randID(w)).Scan(&c))
}

// noRowsOK: a point select may miss the id another worker's delete+insert
// has just deleted (sysbench without transactions sees the same), which is
// not an error.
func noRowsOK(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

func (b *bench) shPointSelect(ctx context.Context, w *load.Worker) error {
	_, err := b.q.PointSelect(ctx, b.randID(w))
	return noRowsOK(err)
}

func (b *bench) values(w *load.Worker) (k int32, c, pad string) {
	w.Buf = sysbenchString(w.Rand, 10, w.Buf)
	c = string(w.Buf)
	w.Buf = sysbenchString(w.Rand, 5, w.Buf)
	return int32(1 + w.Rand.IntN(b.rows)), c, string(w.Buf)
}

// refWrites / shWrites: sysbench's index update, non-index update and
// delete+insert of one id.
func (b *bench) refWrites(ctx context.Context, w *load.Worker) error {
	if _, err := b.ref.ExecContext(ctx, refUpdIdx, b.randID(w)); err != nil {
		return err
	}
	k, c, pad := b.values(w)
	if _, err := b.ref.ExecContext(ctx, refUpdNon, c, b.randID(w)); err != nil {
		return err
	}
	id := b.ownID(w)
	if _, err := b.ref.ExecContext(ctx, refDelete, id); err != nil {
		return err
	}
	_, err := b.ref.ExecContext(ctx, refInsert, id, k, c, pad)
	return err
}

func (b *bench) shWrites(ctx context.Context, w *load.Worker) error {
	if _, err := b.q.UpdateIndex(ctx, b.randID(w)); err != nil {
		return err
	}
	k, c, pad := b.values(w)
	if _, err := b.q.UpdateNonIndex(ctx, c, b.randID(w)); err != nil {
		return err
	}
	id := b.ownID(w)
	if _, err := b.q.DeleteRow(ctx, id); err != nil {
		return err
	}
	return b.q.InsertRow(ctx, id, k, c, pad)
}

func (b *bench) refRanges(ctx context.Context, w *load.Worker) error {
	for _, q := range [...]string{refSimple, refSum, refOrder, refDistinct} {
		lo := b.rangeStart(w)
		if err := queryAny(ctx, b.ref, q, lo, lo+rangeSize-1); err != nil {
			return err
		}
	}
	return nil
}

func queryAny(ctx context.Context, d *sql.DB, q string, args ...any) error {
	if q == refSum {
		var s sql.NullString
		return d.QueryRowContext(ctx, q, args...).Scan(&s)
	}
	return queryStrings(ctx, d, q, args...)
}

func (b *bench) shRanges(ctx context.Context, w *load.Worker) error {
	lo := b.rangeStart(w)
	if _, err := b.q.SimpleRange(ctx, lo, lo+rangeSize-1); err != nil {
		return err
	}
	lo = b.rangeStart(w)
	if _, err := b.q.SumRange(ctx, lo, lo+rangeSize-1); err != nil {
		return err
	}
	lo = b.rangeStart(w)
	if _, err := b.q.OrderRange(ctx, lo, lo+rangeSize-1); err != nil {
		return err
	}
	lo = b.rangeStart(w)
	_, err := b.q.DistinctRange(ctx, lo, lo+rangeSize-1)
	return err
}

func (b *bench) scenarios() []scenario {
	points := func(op load.Op) load.Op {
		return func(ctx context.Context, w *load.Worker) error {
			for i := 0; i < 10; i++ {
				if err := op(ctx, w); err != nil {
					return err
				}
			}
			return nil
		}
	}
	seq := func(ops ...load.Op) load.Op {
		return func(ctx context.Context, w *load.Worker) error {
			for _, op := range ops {
				if err := op(ctx, w); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return []scenario{
		{
			name: "point_select", title: "point select by sharding key", target: 0.97,
			statements: "1 × `SELECT c FROM sbtest WHERE id = ?` (sysbench oltp_point_select)",
			reference:  b.refPointSelect, sharded: b.shPointSelect,
		},
		{
			name: "read_write_pk", title: "oltp_read_write, key statements only", target: 0.95,
			statements: "10 point selects, index update, non-index update, delete + insert of one id (oltp_read_write without its 4 range queries)",
			reference:  seq(points(b.refPointSelect), b.refWrites),
			sharded:    seq(points(b.shPointSelect), b.shWrites),
		},
		{
			name: "read_write", title: "oltp_read_write (--skip-trx)", target: 0.95,
			statements: "sysbench oltp_read_write's 18 statements without BEGIN/COMMIT: 10 point selects, simple/sum/order/distinct ranges of 100 ids (each a full route under MOD), index update, non-index update, delete + insert",
			reference:  seq(points(b.refPointSelect), b.refRanges, b.refWrites),
			sharded:    seq(points(b.shPointSelect), b.shRanges, b.shWrites),
		},
		{
			name: "sum_range", title: "full-route aggregate over 4 nodes", target: 0.9,
			statements: "1 × `SELECT SUM(k) AS total FROM sbtest WHERE id BETWEEN ? AND ?` over 100 ids (sysbench sum_ranges; all 4 data nodes, merged SUM)",
			reference: func(ctx context.Context, w *load.Worker) error {
				lo := b.rangeStart(w)
				var s sql.NullString
				return b.ref.QueryRowContext(ctx, refSum, lo, lo+rangeSize-1).Scan(&s)
			},
			sharded: func(ctx context.Context, w *load.Worker) error {
				lo := b.rangeStart(w)
				_, err := b.q.SumRange(ctx, lo, lo+rangeSize-1)
				return err
			},
		},
		{
			name: "insert", title: "single-row insert",
			statements: "1 × `INSERT INTO sbtest (id, k, c, pad) VALUES (?, ?, ?, ?)` with new ids (sysbench oltp_insert)",
			reset: func() {
				b.refNext.Store(int64(2 * b.rows))
				b.shNext.Store(int64(2 * b.rows))
			},
			reference: func(ctx context.Context, w *load.Worker) error {
				k, c, pad := b.values(w)
				_, err := b.ref.ExecContext(ctx, refInsert, int32(b.refNext.Add(1)), k, c, pad)
				return err
			},
			sharded: func(ctx context.Context, w *load.Worker) error {
				k, c, pad := b.values(w)
				return b.q.InsertRow(ctx, int32(b.shNext.Add(1)), k, c, pad)
			},
		},
		{
			name: "insert_enc", title: "encrypted single-row insert vs plain insert direct", target: 0.85,
			statements: "reference: the plain `INSERT INTO sbtest (id, k, c, pad)` direct; shardgen: `INSERT INTO sbtest_enc (id, k, c, pad) VALUES (?, ?, ?, ?)` through the generated `InsertEncRow`, c AES-encrypted into c_cipher (issue 8: encrypted insert through generated code vs the plain insert direct)",
			reset: func() {
				b.refNext.Store(encIDBase)
				b.shNext.Store(encIDBase)
			},
			reference: func(ctx context.Context, w *load.Worker) error {
				k, c, pad := b.values(w)
				_, err := b.ref.ExecContext(ctx, refInsert, int32(b.refNext.Add(1)), k, c, pad)
				return err
			},
			sharded: func(ctx context.Context, w *load.Worker) error {
				k, c, pad := b.values(w)
				return b.q.InsertEncRow(ctx, int32(b.shNext.Add(1)), k, c, pad)
			},
		},
	}
}

// splitStatements returns the statements of a DDL file without comments.
func splitStatements(ddl string) []string {
	var out []string
	for _, s := range strings.Split(ddl, ";") {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		if s = strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// prepare (re)creates sbtest on ds_0..ds_3 and in reference, loads ids
// 1..rows with the same values on both sides (the sharded side through the
// generated InsertRow, so every row lands where the MOD rule puts it), and
// checks the placement and a few sums.
func prepare(ctx context.Context, rt *shardrt.DB, q *db.Queries, ref *sql.DB, ddl string, rows int) error {
	if rows < rangeSize {
		return fmt.Errorf("-rows must be at least %d, got %d", rangeSize, rows)
	}
	stmts := append([]string{"DROP TABLE IF EXISTS sbtest", "DROP TABLE IF EXISTS sbtest_enc"}, splitStatements(ddl)...)
	pools := map[string]*sql.DB{"reference": ref}
	for _, ds := range rt.DataSourceNames() {
		p, _ := rt.Pool(ds)
		pools[ds] = p
	}
	for name, p := range pools {
		for _, s := range stmts {
			if _, err := p.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("%s: %s: %w", name, s, err)
			}
		}
	}
	type row struct {
		id, k  int32
		c, pad string
	}
	all := make([]row, rows)
	r := rand.New(rand.NewPCG(42, 42))
	var buf []byte
	for i := range all {
		buf = sysbenchString(r, 10, buf)
		c := string(buf)
		buf = sysbenchString(r, 5, buf)
		all[i] = row{int32(i + 1), int32(1 + r.IntN(rows)), c, string(buf)}
	}
	// Reference: multi-row INSERTs of 500.
	for i := 0; i < rows; i += 500 {
		end := min(i+500, rows)
		var sb strings.Builder
		args := make([]any, 0, 4*(end-i))
		sb.WriteString("INSERT INTO sbtest (id, k, c, pad) VALUES ")
		for j := i; j < end; j++ {
			if j > i {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?, ?, ?)")
			args = append(args, all[j].id, all[j].k, all[j].c, all[j].pad)
		}
		if _, err := ref.ExecContext(ctx, sb.String(), args...); err != nil {
			return fmt.Errorf("reference load: %w", err)
		}
	}
	// Sharded: the generated InsertRow from 8 goroutines.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < rows; i += 8 {
				if err := q.InsertRow(ctx, all[i].id, all[i].k, all[i].c, all[i].pad); err != nil {
					errs[g] = err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sharded load: %w", err)
	}
	// Placement: ds_i holds exactly the ids with id % 4 == i.
	total := 0
	for i, ds := range rt.DataSourceNames() {
		var n, wrong int
		if err := pools[ds].QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(SUM(MOD(id, 4) <> "+strconv.Itoa(i)+"), 0) FROM sbtest").Scan(&n, &wrong); err != nil {
			return fmt.Errorf("%s: %w", ds, err)
		}
		if wrong != 0 {
			return fmt.Errorf("%s holds %d rows whose id %% 4 != %d", ds, wrong, i)
		}
		total += n
	}
	if total != rows {
		return fmt.Errorf("sharded side holds %d rows, want %d", total, rows)
	}
	// Same answers: a few sums and ordered ranges on both sides.
	for lo := int32(1); int(lo)+rangeSize-1 <= rows; lo += int32(rows / 7) {
		hi := lo + rangeSize - 1
		var want sql.NullString
		if err := ref.QueryRowContext(ctx, refSum, lo, hi).Scan(&want); err != nil {
			return err
		}
		got, err := q.SumRange(ctx, lo, hi)
		if err != nil {
			return err
		}
		if got.Total != want {
			return fmt.Errorf("SumRange(%d, %d) = %v, reference %v", lo, hi, got.Total, want)
		}
		ordered, err := q.OrderRange(ctx, lo, hi)
		if err != nil {
			return err
		}
		if len(ordered) != rangeSize {
			return fmt.Errorf("OrderRange(%d, %d) returned %d rows, want %d", lo, hi, len(ordered), rangeSize)
		}
	}
	return nil
}

// cleanupInserts deletes the rows the insert scenarios added (ids > rows,
// and every row of sbtest_enc).
func cleanupInserts(ctx context.Context, rt *shardrt.DB, ref *sql.DB, rows int) error {
	pools := []*sql.DB{ref}
	for _, ds := range rt.DataSourceNames() {
		p, _ := rt.Pool(ds)
		pools = append(pools, p)
	}
	for _, p := range pools {
		if _, err := p.ExecContext(ctx, "DELETE FROM sbtest WHERE id > ?", rows); err != nil {
			return err
		}
		if p != ref {
			if _, err := p.ExecContext(ctx, "DELETE FROM sbtest_enc"); err != nil {
				return err
			}
		}
	}
	return nil
}
