package runtime

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Executor runs route units: *Sources directly on the pools (auto-commit),
// *Tx inside one single-shard transaction. Generated code takes an Executor
// so that one function serves both. It never parses SQL: each RouteUnit
// carries its actual SQL, precomputed.
//
// The single-unit methods are the hot path of a single-node route: they run
// on the calling goroutine, start no goroutine and, when neither a logger
// nor an observer is configured, add nothing to database/sql but an index
// check and a nil check. Their errors are *NodeError naming the unit's data
// source (for Query and Exec, and from Row.Scan).
//
// Concurrency: *Sources is safe for concurrent use; a *Tx is not (see Tx).
// The interface is sealed: only this package implements it, because the
// multi-unit functions QueryUnits and ExecUnits rely on an unexported
// method.
type Executor interface {
	// QueryRow runs u, which is expected to return at most one row, with
	// args (u.Args when set). Errors are deferred to Row.Scan, as with
	// *sql.Row; no rows gives sql.ErrNoRows itself (err == sql.ErrNoRows,
	// as code written for database/sql or sqlc compares it).
	QueryRow(ctx context.Context, st *Stmt, u RouteUnit, args ...any) Row
	// Query runs u with args (u.Args when set) and returns its rows,
	// streaming; the caller must close them.
	Query(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (*sql.Rows, error)
	// Exec runs u with args (u.Args when set), e.g. an INSERT, UPDATE or
	// DELETE on one data node.
	Exec(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (sql.Result, error)

	// runUnits calls fn once per unit, on the unit's data source; it stops
	// at and returns the first error.
	runUnits(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc) error
}

// Compile-time checks that both executors implement Executor.
var (
	_ Executor = (*Sources)(nil)
	_ Executor = (*Tx)(nil)
)

// target is what a route unit runs on: a pool, or a transaction when tx is
// set. It is a struct of concrete pointers rather than an interface so that
// the compiler sees the database/sql method called: through an interface,
// escape analysis would move every call's argument slice to the heap.
type target struct {
	db *sql.DB
	tx *sql.Tx
	// rw, when set, is the read/write group db (or tx) is the primary of:
	// query picks a replica (rwsplit.go). pin is a transaction's FIXED
	// replica (-1: none yet), nil outside one.
	rw  *rwGroup
	pin *int
	// conn, when set, is a distributed transaction's branch (xa.go) or a
	// reserved session's connection (reserved.go); cstmts, when set,
	// caches the reserved connection's prepared statements.
	conn   *sql.Conn
	cstmts *connStmts
	// stmts, when set, caches db's prepared statements (stmt_cache.go).
	stmts *stmtCache
}

func (t target) query(ctx context.Context, query string, args []any) (*sql.Rows, error) {
	if t.rw != nil {
		return t.rw.query(ctx, t, query, args)
	}
	if t.tx != nil {
		if st := t.txStmt(ctx, query, args); st != nil {
			return st.QueryContext(ctx, args...)
		}
		return t.tx.QueryContext(ctx, query, args...)
	}
	if t.conn != nil {
		if st := t.cstmts.stmt(ctx, query, args); st != nil {
			return st.QueryContext(ctx, args...)
		}
		return t.conn.QueryContext(ctx, query, args...)
	}
	if t.stmts != nil {
		return t.stmts.query(ctx, query, args)
	}
	return t.db.QueryContext(ctx, query, args...)
}

func (t target) exec(ctx context.Context, query string, args []any) (sql.Result, error) {
	if t.tx != nil {
		if st := t.txStmt(ctx, query, args); st != nil {
			return st.ExecContext(ctx, args...)
		}
		return t.tx.ExecContext(ctx, query, args...)
	}
	if t.conn != nil {
		if st := t.cstmts.stmt(ctx, query, args); st != nil {
			return st.ExecContext(ctx, args...)
		}
		return t.conn.ExecContext(ctx, query, args...)
	}
	if t.stmts != nil {
		return t.stmts.exec(ctx, query, args)
	}
	return t.db.ExecContext(ctx, query, args...)
}

// txStmt returns the pool's cached statement for query bound to the
// transaction, or nil when query has no arguments or cannot be cached.
// database/sql reuses the statement already prepared on the transaction's
// connection (Tx.StmtContext), so a transaction's statements cost one round
// trip each, as outside one, instead of prepare, execute and close.
func (t target) txStmt(ctx context.Context, query string, args []any) *sql.Stmt {
	if t.stmts == nil || len(args) == 0 {
		return nil
	}
	st := t.stmts.stmt(ctx, query)
	if st == nil {
		return nil
	}
	return t.tx.StmtContext(ctx, st)
}

// unitFunc runs units[i] on q; name is the unit's data source name and h the
// hooks to log and observe with (nil: none). It returns a *NodeError.
type unitFunc func(ctx context.Context, h *hooks, q target, name string, i int) error

// ErrBadRouteUnit is wrapped by the error for a RouteUnit whose DataSource
// is not a valid index into its Sources: a bug in generated code or a
// Sources built from the wrong names. Nothing is executed.
var ErrBadRouteUnit = errors.New("route unit data source index out of range")

// NodeError is the error of one route unit: which data source it ran on,
// its actual SQL, and the cause (a driver error such as *mysql.MySQLError,
// a context error, sql.ErrNoRows, or a scan error). Error() reads
// "data node ds_1: <cause>"; errors.Is and errors.As see the cause.
type NodeError struct {
	DataSource string // data source name, e.g. "ds_1"
	SQL        string // the actual SQL of the unit
	Err        error  // the cause, never nil
}

// Error returns "data node <data source>: <cause>".
func (e *NodeError) Error() string { return "data node " + e.DataSource + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *NodeError) Unwrap() error { return e.Err }

// Row is the result of QueryRow: what *sql.Row is, with errors wrapped in
// *NodeError. It is returned by value and reads the rows itself (as
// sql.Row.Scan does), so the wrapper costs no allocation over calling
// sql.DB.QueryRowContext directly. As with *sql.Row, Scan must be called
// exactly once: it releases the connection. The zero Row's Scan returns an
// error.
type Row struct {
	rows       *sql.Rows
	err        error // the query's error, already a *NodeError
	dataSource string
	query      string
}

// errRawBytesRow is sql.Row's refusal of *sql.RawBytes: the memory is reused
// once the row's result set is closed.
var errRawBytesRow = errors.New("sql: RawBytes isn't allowed on Row.Scan")

// Scan copies the columns of the first row into dest, as sql.Row.Scan, and
// closes the rows. No row gives sql.ErrNoRows itself, unwrapped, so that
// `err == sql.ErrNoRows` holds as with *sql.Row (it is an answer, not a
// failure of the data node); every other error is a *NodeError.
func (r Row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if r.rows == nil {
		return errors.New("runtime: Scan on a zero Row")
	}
	if err := r.scan(dest); err != nil {
		if err == sql.ErrNoRows {
			return err
		}
		return &NodeError{DataSource: r.dataSource, SQL: r.query, Err: err}
	}
	return nil
}

func (r Row) scan(dest []any) error {
	defer r.rows.Close()
	for _, d := range dest {
		if _, ok := d.(*sql.RawBytes); ok {
			return errRawBytesRow
		}
	}
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	// Read the result to its end so that a late error is not lost.
	return r.rows.Close()
}

// Err returns the error of running the query, if any, without scanning (as
// sql.Row.Err: sql.ErrNoRows is only reported by Scan).
func (r Row) Err() error {
	if r.err == nil && r.rows == nil {
		return errors.New("runtime: Err on a zero Row")
	}
	return r.err
}

// badUnit is the error for a unit whose index is out of range.
func badUnit(u *RouteUnit, n int) error {
	return &NodeError{
		DataSource: "#" + strconv.Itoa(u.DataSource),
		SQL:        u.SQL,
		Err:        fmt.Errorf("%w: index %d, %d data sources", ErrBadRouteUnit, u.DataSource, n),
	}
}

// QueryRow runs u on its data source's pool; see Executor.
func (s *Sources) QueryRow(ctx context.Context, st *Stmt, u RouteUnit, args ...any) Row {
	if uint(u.DataSource) >= uint(len(s.pools)) {
		return Row{err: s.badUnit(&u)}
	}
	return queryRow(ctx, s.hooks, s.target(u.DataSource), st, s.names[u.DataSource], &u, args)
}

// Query runs u on its data source's pool; see Executor.
func (s *Sources) Query(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (*sql.Rows, error) {
	if uint(u.DataSource) >= uint(len(s.pools)) {
		return nil, s.badUnit(&u)
	}
	return query(ctx, s.hooks, s.target(u.DataSource), st, s.names[u.DataSource], &u, args)
}

// Exec runs u on its data source's pool; see Executor.
func (s *Sources) Exec(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (sql.Result, error) {
	if uint(u.DataSource) >= uint(len(s.pools)) {
		return nil, s.badUnit(&u)
	}
	return exec(ctx, s.hooks, target{db: s.pools[u.DataSource], stmts: s.stmts[u.DataSource]}, st, s.names[u.DataSource], &u, args)
}

func (s *Sources) badUnit(u *RouteUnit) error { return badUnit(u, len(s.pools)) }

// queryRow, query and exec run one unit on q and log it as a statement of
// one unit.
func queryRow(ctx context.Context, h *hooks, q target, st *Stmt, name string, u *RouteUnit, args []any) Row {
	rows, err := query(ctx, h, q, st, name, u, args)
	return Row{rows: rows, err: err, dataSource: name, query: u.SQL}
}

func query(ctx context.Context, h *hooks, q target, st *Stmt, name string, u *RouteUnit, args []any) (*sql.Rows, error) {
	args = unitArgs(u, args)
	var start time.Time
	if h != nil {
		start = h.begin(ctx, st, true, name, u.SQL, args)
	}
	rows, err := q.query(ctx, u.SQL, args)
	if err != nil {
		err = &NodeError{DataSource: name, SQL: u.SQL, Err: err}
	}
	if h != nil {
		h.end(ctx, start, st, name, u.SQL, -1, err)
	}
	return rows, err
}

func exec(ctx context.Context, h *hooks, q target, st *Stmt, name string, u *RouteUnit, args []any) (sql.Result, error) {
	args = unitArgs(u, args)
	var start time.Time
	if h != nil {
		start = h.begin(ctx, st, true, name, u.SQL, args)
	}
	res, err := q.exec(ctx, u.SQL, args)
	if err != nil {
		err = &NodeError{DataSource: name, SQL: u.SQL, Err: err}
	}
	if h != nil {
		var n int64
		if err == nil && h.observer != nil {
			n, _ = res.RowsAffected()
		}
		h.end(ctx, start, st, name, u.SQL, n, err)
	}
	return res, err
}

// QueryUnits runs the route units of one statement and returns the rows of
// all of them, scanned by scan (called once per row, on the goroutine that
// read the unit), concatenated in unit order: ShardingSphere's iterator
// merge, the route order. e may be *Sources or *Tx. args are passed to every
// unit that has no Args of its own.
//
// On *Sources the units run in parallel: at most
// max-connections-size-per-query units at once on one data source (the
// rest of that data source's units wait for a free worker, in unit order),
// and never more goroutines than units; one unit runs on the calling
// goroutine. Every unit's rows are read fully before its worker moves on
// (ShardingSphere's CONNECTION_STRICTLY mode: results held in memory). On
// *Tx the units run one after the other on the transaction's connection,
// and all of them must be on its data source (else ErrCrossShardTx, nothing
// runs).
//
// The first error (a *NodeError naming the unit's data source) cancels the
// context of the other units and is returned with no rows; every goroutine
// has finished when QueryUnits returns. A panic in scan stops the other
// units the same way and is re-raised on the calling goroutine. An invalid
// unit index is reported before anything runs.
func QueryUnits[T any](ctx context.Context, e Executor, st *Stmt, units []RouteUnit, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	results, err := QueryUnitsEach(ctx, e, st, units, args, scan)
	if err != nil || len(results) == 0 {
		return nil, err
	}
	if len(results) == 1 {
		return results[0], nil
	}
	total := 0
	for _, r := range results {
		total += len(r)
	}
	out := make([]T, 0, total)
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// QueryUnitsEach is QueryUnits returning each unit's rows apart, in unit
// order: results[i] are the rows of units[i]. Mergers need them so.
func QueryUnitsEach[T any](ctx context.Context, e Executor, st *Stmt, units []RouteUnit, args []any, scan func(*sql.Rows) (T, error)) ([][]T, error) {
	if scan == nil {
		return nil, errors.New("runtime.QueryUnits: nil scan function")
	}
	if len(units) == 0 {
		return nil, nil
	}
	results := make([][]T, len(units))
	err := e.runUnits(ctx, st, units, func(ctx context.Context, h *hooks, q target, name string, i int) error {
		u := &units[i]
		uargs := unitArgs(u, args)
		var start time.Time
		if h != nil {
			start = h.begin(ctx, st, false, name, u.SQL, uargs)
		}
		out, err := queryAll(ctx, q, u.SQL, uargs, scan)
		if err != nil {
			err = &NodeError{DataSource: name, SQL: u.SQL, Err: err}
		}
		results[i] = out
		if h != nil {
			h.end(ctx, start, st, name, u.SQL, int64(len(out)), err)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// queryAll runs one query and scans every row.
func queryAll[T any](ctx context.Context, q target, query string, args []any, scan func(*sql.Rows) (T, error)) (out []T, err error) {
	rows, err := q.query(ctx, query, args)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := rows.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ExecUnits runs the route units of one write statement (e.g. an UPDATE
// routed to several data nodes, or a write to a broadcast table) and
// returns the sum of the rows affected by all units. Parallelism, ordering,
// transactions, cancellation and errors are as in QueryUnits; on error the
// units that already ran are not undone (use a Tx on one data source for
// atomicity).
func ExecUnits(ctx context.Context, e Executor, st *Stmt, units []RouteUnit, args []any) (int64, error) {
	var total atomic.Int64
	err := e.runUnits(ctx, st, units, func(ctx context.Context, h *hooks, q target, name string, i int) error {
		u := &units[i]
		uargs := unitArgs(u, args)
		var start time.Time
		if h != nil {
			start = h.begin(ctx, st, false, name, u.SQL, uargs)
		}
		var n int64
		res, err := q.exec(ctx, u.SQL, uargs)
		if err == nil {
			n, err = res.RowsAffected()
		}
		if err != nil {
			err = &NodeError{DataSource: name, SQL: u.SQL, Err: err}
		} else {
			total.Add(n)
		}
		if h != nil {
			h.end(ctx, start, st, name, u.SQL, n, err)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	return total.Load(), nil
}

// runUnits runs the units on the pools: in parallel, bounded per data
// source by max-connections-size-per-query; see QueryUnits.
func (s *Sources) runUnits(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc) error {
	for i := range units {
		if uint(units[i].DataSource) >= uint(len(s.pools)) {
			return s.badUnit(&units[i])
		}
	}
	if len(units) == 0 {
		return nil
	}
	if s.hooks != nil {
		s.hooks.logLogic(ctx, st, len(units))
	}
	if len(units) == 1 {
		d := units[0].DataSource
		return fn(ctx, s.hooks, s.target(d), s.names[d], 0)
	}

	// Group the unit indexes by data source (stable: unit order within a
	// group). Source indexes that name the same data source share a group.
	groupOf := make([]int32, s.ndb) // DB pool index -> group index + 1
	var groups []*unitGroup
	for i := range units {
		id := s.ids[units[i].DataSource]
		if groupOf[id] == 0 {
			groups = append(groups, &unitGroup{})
			groupOf[id] = int32(len(groups))
		}
		g := groups[groupOf[id]-1]
		g.units = append(g.units, i)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &unitRun{s: s, units: units, fn: fn, cancel: cancel}
	var workers []*unitGroup // one entry per worker, naming its group
	for _, g := range groups {
		for range min(s.limit, len(g.units)) {
			workers = append(workers, g)
		}
	}
	r.wg.Add(len(workers))
	for _, g := range workers[1:] {
		go r.work(ctx, g)
	}
	r.work(ctx, workers[0])
	r.wg.Wait()
	if r.panicked {
		panic(r.panicValue) // a scan function panicked on a worker: re-raised on the caller
	}
	return r.err
}

// unitGroup is the units of one data source, taken in order by its workers.
type unitGroup struct {
	units []int        // unit indexes, ascending
	next  atomic.Int64 // next position in units to take
}

// unitRun is one parallel runUnits call.
type unitRun struct {
	s      *Sources
	units  []RouteUnit
	fn     unitFunc
	cancel context.CancelFunc
	wg     sync.WaitGroup
	failed atomic.Bool

	mu         sync.Mutex
	err        error // the first error
	panicked   bool  // a unit panicked (e.g. in a scan function)
	panicValue any
}

// work runs units of g until none is left or a unit failed. A panic is
// recovered, stops the other units like an error, and is re-raised by
// runUnits on the calling goroutine.
func (r *unitRun) work(ctx context.Context, g *unitGroup) {
	defer r.wg.Done()
	defer func() {
		if p := recover(); p != nil {
			r.mu.Lock()
			if !r.panicked {
				r.panicked, r.panicValue = true, p
			}
			r.mu.Unlock()
			r.failed.Store(true)
			r.cancel()
		}
	}()
	for !r.failed.Load() {
		j := g.next.Add(1) - 1
		if j >= int64(len(g.units)) {
			return
		}
		i := g.units[j]
		d := r.units[i].DataSource
		if err := r.fn(ctx, r.s.hooks, r.s.target(d), r.s.names[d], i); err != nil {
			r.fail(err)
			return
		}
	}
}

func (r *unitRun) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
		r.failed.Store(true)
		r.cancel()
	}
	r.mu.Unlock()
}
