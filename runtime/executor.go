package runtime

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Executor runs route units: *Sources directly on the pools (auto-commit),
// *Tx inside one single-shard transaction. Generated code takes an Executor
// so that one function serves both (its single-unit statements through a
// Runner, which calls *Sources directly). It never parses SQL: each
// RouteUnit carries its actual SQL, precomputed.
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
	// at and returns the first error. write makes the units all-or-nothing
	// (see ExecUnits): on *Sources one transaction per data source when
	// there are several units, in a transaction a savepoint.
	runUnits(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc, write bool) error
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
	args = driverArgs(args)
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
	args = driverArgs(args)
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

// driverArgs returns args with every sql.Null[uint64] (a nullable BIGINT
// UNSIGNED parameter of generated code) replaced by its value, or nil for
// NULL: database/sql refuses the Null's own Value past 2^63-1 ("uint64
// values with high bit set are not supported": sql.Null[T].Value converts
// with driver.DefaultParameterConverter), while go-sql-driver takes a plain
// uint64 up to 2^64-1. args itself is not changed (units running in
// parallel share it); a copy is made only when there is such a value.
func driverArgs(args []any) []any {
	var out []any
	for i, a := range args {
		n, ok := a.(sql.Null[uint64])
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = nil
		if n.Valid {
			out[i] = n.V
		}
	}
	if out == nil {
		return args
	}
	return out
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
	st := t.stmts.stmtBounded(ctx, query)
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

// Error returns "data node <data source>: <cause>", or the cause alone
// when it is a *TimeoutError of the same data source (which names it).
func (e *NodeError) Error() string {
	if te, ok := e.Err.(*TimeoutError); ok && te.DataSource == e.DataSource {
		return te.Error()
	}
	return "data node " + e.DataSource + ": " + e.Err.Error()
}

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
// merge, the route order (nil when no unit returns a row). e may be
// *Sources or *Tx. args are passed to every unit that has no Args of its own.
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
	total := 0
	for _, r := range results {
		total += len(r)
	}
	if total == 0 {
		return nil, nil // no row: nil, as sqlc's :many returns it
	}
	if len(results) == 1 {
		return results[0], nil
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
	}, false)
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
// routed to several data nodes, or a multi-row INSERT split across data
// sources) and returns the sum of the rows affected by all units.
//
// The statement is all-or-nothing, as one statement on one MySQL is:
//
//   - On *Sources (auto-commit) with more than one unit, each data source's
//     units run in a transaction of their own (one connection per data
//     source; the data sources in parallel, a data source's units in unit
//     order), and the transactions commit only when every unit succeeded.
//     On any error every transaction is rolled back and the error is the
//     failing unit's *NodeError. The commits go one data source after the
//     other: when the first fails, the others are rolled back (nothing
//     changed); when a later one fails, the rest still commit and the error
//     wraps ErrLocalPartialCommit, names the data sources that committed
//     and those that did not, and is logged (see PartialCommitError). With
//     transaction type XA (Config.TransactionType) and units on several
//     data sources, the statement runs as an XA transaction instead
//     (DistTx), whose commit is atomic once RecoverXA has run. One unit
//     runs as an auto-committed statement, as Exec does: it adds nothing to
//     the single-node path.
//   - On *Tx and *DistTx the units run one after the other; with more than
//     one unit a SAVEPOINT is set on every data source the statement
//     touches before its first unit there, and a failure rolls each back to
//     it, so the failed statement leaves the transaction as it was and the
//     transaction goes on (as MySQL does for a failed statement).
//
// A failed unit stops the later units of its data source; the other data
// sources' units run to their end (and are rolled back), and the error is
// the failed unit's that comes first in unit order, so that one failure
// names the same data node every time. Panics are as in QueryUnits. args
// are passed to every unit that has no Args of its own.
func ExecUnits(ctx context.Context, e Executor, st *Stmt, units []RouteUnit, args []any) (int64, error) {
	var total atomic.Int64
	err := e.runUnits(ctx, st, units, func(ctx context.Context, h *hooks, q target, name string, i int) error {
		n, err := execUnit(ctx, h, q, st, name, &units[i], args)
		total.Add(n)
		return err
	}, true)
	if err != nil {
		return 0, finishWrite(ctx, err, args)
	}
	return total.Load(), nil
}

// ExecBroadcast runs a write to a broadcast table: units hold the same
// statement for each data source that has a copy of the table. It is
// all-or-nothing as ExecUnits, so the copies never differ after a failed
// write, and returns the first unit's result (one copy of the table, as one
// unsharded MySQL would report it: rows affected, insert id). The result
// is nil when there are no units.
func ExecBroadcast(ctx context.Context, e Executor, st *Stmt, units []RouteUnit, args []any) (sql.Result, error) {
	var first sql.Result
	err := e.runUnits(ctx, st, units, func(ctx context.Context, h *hooks, q target, name string, i int) error {
		u := &units[i]
		uargs := unitArgs(u, args)
		var start time.Time
		if h != nil {
			start = h.begin(ctx, st, false, name, u.SQL, uargs)
		}
		res, err := q.exec(ctx, u.SQL, uargs)
		var n int64
		if err == nil {
			n, err = res.RowsAffected()
		}
		if err != nil {
			err = &NodeError{DataSource: name, SQL: u.SQL, Err: err}
		} else if i == 0 {
			first = res
		}
		if h != nil {
			h.end(ctx, start, st, name, u.SQL, n, err)
		}
		return err
	}, true)
	if err != nil {
		return nil, finishWrite(ctx, err, args)
	}
	return first, nil
}

// ExecBroadcastUnits runs the statements of one write on every copy of a
// broadcast table, several per copy (a bulk INSERT's batches:
// InsertSplit.Batches with every row for every copy). It is all-or-nothing
// as ExecUnits (one transaction per data source, or XA), so the copies
// never differ after a failed write, and returns the rows affected on the
// first copy, the data source of units[0] (one copy of the table, as one
// unsharded MySQL would count them).
func ExecBroadcastUnits(ctx context.Context, e Executor, st *Stmt, units []RouteUnit) (int64, error) {
	var first atomic.Int64
	err := e.runUnits(ctx, st, units, func(ctx context.Context, h *hooks, q target, name string, i int) error {
		n, err := execUnit(ctx, h, q, st, name, &units[i], nil)
		if units[i].DataSource == units[0].DataSource {
			first.Add(n)
		}
		return err
	}, true)
	if err != nil {
		return 0, finishWrite(ctx, err, nil)
	}
	return first.Load(), nil
}

// execUnit runs unit u of a write on q and returns its rows affected; the
// error is a *NodeError.
func execUnit(ctx context.Context, h *hooks, q target, st *Stmt, name string, u *RouteUnit, args []any) (int64, error) {
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
		n, err = 0, &NodeError{DataSource: name, SQL: u.SQL, Err: err}
	}
	if h != nil {
		h.end(ctx, start, st, name, u.SQL, n, err)
	}
	return n, err
}

// runUnits runs the units on the pools: in parallel, bounded per data
// source by max-connections-size-per-query; see QueryUnits. With write and
// more than one unit, each data source's units run in one transaction on
// one connection, committed only when every unit succeeded (see ExecUnits).
func (s *Sources) runUnits(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc, write bool) error {
	for i := range units {
		if uint(units[i].DataSource) >= uint(len(s.pools)) {
			return s.badUnit(&units[i])
		}
	}
	if len(units) == 0 {
		return nil
	}
	if len(units) == 1 {
		if s.hooks != nil {
			s.hooks.logLogic(ctx, st, len(units))
		}
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
	if write && len(groups) > 1 && s.db != nil && s.db.txType == TxXA {
		return s.runXA(ctx, st, units, fn)
	}
	if s.hooks != nil {
		s.hooks.logLogic(ctx, st, len(units))
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &unitRun{s: s, units: units, fn: fn, cancel: cancel, write: write}
	var workers []*unitGroup // one entry per worker, naming its group
	for _, g := range groups {
		n := min(s.limit, len(g.units))
		if write {
			n = 1 // one transaction, one connection
		}
		for range n {
			workers = append(workers, g)
		}
	}
	r.wg.Add(len(workers))
	for _, g := range workers[1:] {
		go r.work(ctx, g)
	}
	r.work(ctx, workers[0])
	r.wg.Wait()
	if write {
		if r.err != nil || r.panicked {
			s.rollbackGroups(groups)
		} else if err := s.commitGroups(st, units, groups); err != nil {
			return err
		}
	}
	if r.panicked {
		panic(r.panicValue) // a scan function panicked on a worker: re-raised on the caller
	}
	return r.err
}

// unitGroup is the units of one data source, taken in order by its workers.
type unitGroup struct {
	units []int        // unit indexes, ascending
	next  atomic.Int64 // next position in units to take
	// tx is the group's transaction in a write (begun by its one worker
	// before the first unit; nil until then or when BEGIN failed).
	tx *sql.Tx
	// conn is the connection tx runs on, taken with a bounded wait
	// (Sources.takeConn) and closed by endTx.
	conn *sql.Conn
}

// endTx returns the group's connection to its pool once its transaction
// has been committed or rolled back.
func (g *unitGroup) endTx() {
	if g.conn != nil {
		_ = g.conn.Close()
		g.conn = nil
	}
}

// unitRun is one parallel runUnits call.
type unitRun struct {
	s      *Sources
	units  []RouteUnit
	fn     unitFunc
	cancel context.CancelFunc
	write  bool // one transaction per group (see ExecUnits)
	wg     sync.WaitGroup
	failed atomic.Bool

	mu         sync.Mutex
	err        error // the first error (of a write: the first failed unit's)
	errUnit    int   // the unit index of err, in a write
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
		q := r.s.target(d)
		if r.write {
			if g.tx == nil {
				c, err := r.s.takeConn(ctx, d)
				if err != nil {
					// The unit's SQL, so that the error says which unit of
					// the route could not run, and takeConn's cause
					// (its error is already this data node's *NodeError:
					// the data node is named once).
					var ne *NodeError
					if errors.As(err, &ne) {
						err = ne.Err
					}
					r.fail(i, &NodeError{DataSource: r.s.names[d], SQL: r.units[i].SQL, Err: err})
					return
				}
				tx, err := c.BeginTx(ctx, nil)
				if err != nil {
					_ = c.Close()
					// The unit's SQL, so that the error says which unit of
					// the route could not run; the cause says why.
					r.fail(i, &NodeError{DataSource: r.s.names[d], SQL: r.units[i].SQL, Err: fmt.Errorf("START TRANSACTION: %w", err)})
					return
				}
				g.tx, g.conn = tx, c
			}
			q = target{tx: g.tx, stmts: r.s.stmts[d]}
		}
		if err := r.fn(ctx, r.s.hooks, q, r.s.names[d], i); err != nil {
			r.fail(i, err)
			return
		}
	}
}

// fail records the error of unit i. A read stops every other unit at the
// first error. A write lets the other data sources' units run to their end
// (their transactions are rolled back anyway) and keeps the error of the
// first failed unit in unit order, so that one failure names the same data
// node every time, as running the units in order would.
func (r *unitRun) fail(i int, err error) {
	r.mu.Lock()
	if r.write {
		if r.err == nil || i < r.errUnit {
			r.err, r.errUnit = err, i
		}
	} else if r.err == nil {
		r.err = err
		r.failed.Store(true)
		r.cancel()
	}
	r.mu.Unlock()
}
