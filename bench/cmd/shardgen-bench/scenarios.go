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
	// target is the minimum ratio issues 8 and 14 ask for (0: none stated).
	target float64
	// refKind names the reference side: refNodes or refUnsharded.
	refKind   string
	reference load.Op
	sharded   load.Op
	reset     func()
}

// The two references of the report. Both are the careful direct path of
// issue 14: plain database/sql with one *sql.Stmt per statement (and data
// source), prepared once and reused, as sqlc's emit_prepared_queries does.
const (
	// refNodes: hand-written code over the sharded side's own data nodes
	// and pools (same servers, rows and pool size), the data source picked
	// by id % 4: what generated code costs over careful code that knows
	// the sharding.
	refNodes = "direct, same data nodes"
	// refUnsharded: one unsharded sbtest table (database reference on the
	// first server): what a full route and its merge cost over one MySQL.
	refUnsharded = "direct, unsharded"
)

type bench struct {
	q       *db.Queries
	ref     *sql.DB
	rows    int
	workers int
	// nodes are the careful direct statements on ds_0..ds_3 (index id %
	// 4), unsharded those on the reference table.
	nodes      []directStmts
	unsharded  directStmts
	rangeStmts [4]*sql.Stmt // refSimple, refSum, refOrder, refDistinct on reference
	// next ids of the insert scenarios, one counter per side; the sides
	// start far apart (sideGap) because refNodes writes the same tables.
	refNext, shNext atomic.Int64
}

// sideGap separates the ids the reference and the generated side insert in
// one scenario.
const sideGap = 1 << 28

// directStmts are the careful direct path's prepared statements on one
// pool.
type directStmts struct {
	point, insert, updIdx, updNon, del *sql.Stmt
}

func prepareDirect(ctx context.Context, p *sql.DB) (directStmts, error) {
	var d directStmts
	for _, x := range []struct {
		dst **sql.Stmt
		sql string
	}{{&d.point, refPoint}, {&d.insert, refInsert}, {&d.updIdx, refUpdIdx}, {&d.updNon, refUpdNon}, {&d.del, refDelete}} {
		st, err := p.PrepareContext(ctx, x.sql)
		if err != nil {
			d.close()
			return directStmts{}, fmt.Errorf("prepare %s: %w", x.sql, err)
		}
		*x.dst = st
	}
	return d, nil
}

func (d directStmts) close() {
	for _, st := range []*sql.Stmt{d.point, d.insert, d.updIdx, d.updNon, d.del} {
		if st != nil {
			_ = st.Close()
		}
	}
}

// prepareStatements prepares the careful direct path: the key statements on
// every data source of rt (in DataSourceNames order, which is id % 4) and
// on the reference table, and the range statements on the reference table.
func (b *bench) prepareStatements(ctx context.Context, rt *shardrt.DB) error {
	for _, ds := range rt.DataSourceNames() {
		p, _ := rt.Pool(ds)
		d, err := prepareDirect(ctx, p)
		if err != nil {
			return fmt.Errorf("%s: %w", ds, err)
		}
		b.nodes = append(b.nodes, d)
	}
	var err error
	if b.unsharded, err = prepareDirect(ctx, b.ref); err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	for i, q := range [...]string{refSimple, refSum, refOrder, refDistinct} {
		if b.rangeStmts[i], err = b.ref.PrepareContext(ctx, q); err != nil {
			return fmt.Errorf("reference: prepare %s: %w", q, err)
		}
	}
	return nil
}

// closeStatements closes what prepareStatements prepared.
func (b *bench) closeStatements() {
	for _, d := range append(b.nodes, b.unsharded) {
		d.close()
	}
	for _, st := range b.rangeStmts {
		if st != nil {
			_ = st.Close()
		}
	}
}

// node returns the careful direct statements of the data source id routes
// to (sbtest is sharded by id MOD 4 over ds_0..ds_3).
func (b *bench) node(id int32) *directStmts { return &b.nodes[id%4] }

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

// queryStrings reads every row of st's result as one string column.
func queryStrings(ctx context.Context, st *sql.Stmt, args ...any) error {
	rows, err := st.QueryContext(ctx, args...)
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

// pointSelect and the other methods of directStmts are one statement of
// the careful direct path each; sh* the same through the generated code.
func (d *directStmts) pointSelect(ctx context.Context, id int32) error {
	var c string
	return noRowsOK(d.point.QueryRowContext(ctx, id).Scan(&c))
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

// nodesPointSelect is the point select of refNodes, unshardedPointSelect of
// refUnsharded.
func (b *bench) nodesPointSelect(ctx context.Context, w *load.Worker) error {
	id := b.randID(w)
	return b.node(id).pointSelect(ctx, id)
}

func (b *bench) unshardedPointSelect(ctx context.Context, w *load.Worker) error {
	return b.unsharded.pointSelect(ctx, b.randID(w))
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

// writes / shWrites: sysbench's index update, non-index update and
// delete+insert of one id; pick gives the direct statements of an id
// (refNodes: its data source; refUnsharded: the reference table).
func (b *bench) writes(pick func(id int32) *directStmts) load.Op {
	return func(ctx context.Context, w *load.Worker) error {
		id := b.randID(w)
		if _, err := pick(id).updIdx.ExecContext(ctx, id); err != nil {
			return err
		}
		k, c, pad := b.values(w)
		id = b.randID(w)
		if _, err := pick(id).updNon.ExecContext(ctx, c, id); err != nil {
			return err
		}
		id = b.ownID(w)
		d := pick(id)
		if _, err := d.del.ExecContext(ctx, id); err != nil {
			return err
		}
		_, err := d.insert.ExecContext(ctx, id, k, c, pad)
		return err
	}
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

// unshardedRanges are sysbench's four range statements on the reference
// table (refUnsharded; shRanges runs them as full routes).
func (b *bench) unshardedRanges(ctx context.Context, w *load.Worker) error {
	for i, st := range b.rangeStmts {
		lo := b.rangeStart(w)
		if i == 1 { // refSum
			var s sql.NullString
			if err := st.QueryRowContext(ctx, lo, lo+rangeSize-1).Scan(&s); err != nil {
				return err
			}
			continue
		}
		if err := queryStrings(ctx, st, lo, lo+rangeSize-1); err != nil {
			return err
		}
	}
	return nil
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
	unsharded := func(int32) *directStmts { return &b.unsharded }
	insertRef := func(ctx context.Context, w *load.Worker) error {
		k, c, pad := b.values(w)
		id := int32(b.refNext.Add(1))
		_, err := b.node(id).insert.ExecContext(ctx, id, k, c, pad)
		return err
	}
	return []scenario{
		{
			name: "point_select", title: "point select by sharding key", target: 0.97, refKind: refNodes,
			statements: "1 × `SELECT c FROM sbtest WHERE id = ?` (sysbench oltp_point_select)",
			reference:  b.nodesPointSelect, sharded: b.shPointSelect,
		},
		{
			name: "read_write_pk", title: "oltp_read_write, key statements only", target: 0.95, refKind: refNodes,
			statements: "10 point selects, index update, non-index update, delete + insert of one id (oltp_read_write without its 4 range queries)",
			reference:  seq(points(b.nodesPointSelect), b.writes(b.node)),
			sharded:    seq(points(b.shPointSelect), b.shWrites),
		},
		{
			name: "read_write", title: "oltp_read_write (--skip-trx)", target: 0.95, refKind: refUnsharded,
			statements: "sysbench oltp_read_write's 18 statements without BEGIN/COMMIT: 10 point selects, simple/sum/order/distinct ranges of 100 ids (each a full route under MOD), index update, non-index update, delete + insert",
			reference:  seq(points(b.unshardedPointSelect), b.unshardedRanges, b.writes(unsharded)),
			sharded:    seq(points(b.shPointSelect), b.shRanges, b.shWrites),
		},
		{
			name: "sum_range", title: "full-route aggregate over 4 nodes", target: 0.9, refKind: refUnsharded,
			statements: "1 × `SELECT SUM(k) AS total FROM sbtest WHERE id BETWEEN ? AND ?` over 100 ids (sysbench sum_ranges; all 4 data nodes, merged SUM)",
			reference: func(ctx context.Context, w *load.Worker) error {
				lo := b.rangeStart(w)
				var s sql.NullString
				return b.rangeStmts[1].QueryRowContext(ctx, lo, lo+rangeSize-1).Scan(&s)
			},
			sharded: func(ctx context.Context, w *load.Worker) error {
				lo := b.rangeStart(w)
				_, err := b.q.SumRange(ctx, lo, lo+rangeSize-1)
				return err
			},
		},
		{
			name: "insert", title: "single-row insert", target: 0.95, refKind: refNodes,
			statements: "1 × `INSERT INTO sbtest (id, k, c, pad) VALUES (?, ?, ?, ?)` with new ids (sysbench oltp_insert)",
			reset: func() {
				b.refNext.Store(int64(2 * b.rows))
				b.shNext.Store(int64(2*b.rows) + sideGap)
			},
			reference: insertRef,
			sharded: func(ctx context.Context, w *load.Worker) error {
				k, c, pad := b.values(w)
				return b.q.InsertRow(ctx, int32(b.shNext.Add(1)), k, c, pad)
			},
		},
		{
			name: "insert_enc", title: "encrypted single-row insert vs plain insert direct", target: 0.85, refKind: refNodes,
			statements: "reference: the plain `INSERT INTO sbtest (id, k, c, pad)`; shardgen: `INSERT INTO sbtest_enc (id, k, c, pad) VALUES (?, ?, ?, ?)` through the generated `InsertEncRow`, c AES-encrypted into c_cipher (issue 8: encrypted insert through generated code vs the plain insert direct)",
			reset: func() {
				b.refNext.Store(encIDBase)
				b.shNext.Store(encIDBase)
			},
			reference: insertRef,
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
		if got != want {
			return fmt.Errorf("SumRange(%d, %d) = %v, reference %v", lo, hi, got, want)
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
