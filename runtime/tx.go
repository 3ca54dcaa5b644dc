package runtime

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"sync/atomic"
)

// Transaction errors.
var (
	// ErrCrossShardTx: a statement of a single-shard transaction was routed
	// to a data source other than the one the transaction is bound to. The
	// statement is refused before anything is sent; the transaction stays
	// open on its data source. The returned error wraps it and names both
	// data sources. ShardingSphere's LOCAL transactions would instead open a
	// second connection and commit each data source separately, without
	// atomicity (../shared/spec/shardingsphere.md §12); shardgen refuses.
	ErrCrossShardTx = errors.New("cross-shard transaction refused")
	// ErrTxConcurrentUse: a *Tx was used by a second goroutine while a call
	// on it was still running. The second call is refused; nothing is sent.
	ErrTxConcurrentUse = errors.New("transaction used by several goroutines at once")
)

// Tx is a single-shard transaction: a transaction on exactly one data
// source, the data source of the first statement executed in it. BEGIN is
// sent lazily, with that first statement, so a Tx whose statements all
// route to one data node needs no distributed transaction. A statement
// routed to another data source fails with ErrCrossShardTx and runs
// nowhere.
//
// A Tx is not safe for concurrent use: a call made while another call on
// the same Tx is still running returns ErrTxConcurrentUse (detected with an
// atomic flag, never a lock). As with *sql.Tx, rows returned by Query must
// be closed before the next statement. After Commit or Rollback every call
// returns sql.ErrTxDone.
type Tx struct {
	src  *Sources
	ctx  context.Context // BeginTx's context: the transaction's lifetime
	opts *sql.TxOptions

	busy atomic.Bool // a call is running
	ds   int         // bound source index; -1 until the first statement
	tx   *sql.Tx     // nil until the first statement
	done bool        // committed or rolled back
	pin  int         // FIXED read/write group: the replica picked (-1: none yet)
}

// BeginTx returns a single-shard transaction on s. Nothing is sent until the
// first statement: BEGIN then goes to that statement's data source, with
// opts (isolation level, read-only; nil: the driver's default). ctx bounds
// the whole transaction, as in sql.DB.BeginTx: when it is done, the
// transaction is rolled back.
func (s *Sources) BeginTx(ctx context.Context, opts *sql.TxOptions) *Tx {
	return &Tx{src: s, ctx: ctx, opts: opts, ds: -1, pin: -1}
}

// WithTx runs fn in a single-shard transaction on s: it commits when fn
// returns nil and rolls back when fn returns an error (which WithTx then
// returns, joined with a rollback error if any) or panics (WithTx rolls back
// and panics again with the same value). fn must not call Commit or
// Rollback itself. A commit error is returned as is (a *NodeError).
func (s *Sources) WithTx(ctx context.Context, opts *sql.TxOptions, fn func(*Tx) error) error {
	tx := s.BeginTx(ctx, opts)
	returned := false
	defer func() {
		if !returned { // fn panicked (or called runtime.Goexit): roll back, let the panic go on
			_ = tx.Rollback()
		}
	}()
	err := fn(tx)
	returned = true
	if err != nil {
		if rbErr := tx.Rollback(); rbErr != nil {
			return errors.Join(err, rbErr)
		}
		return err
	}
	return tx.Commit()
}

// DataSource returns the name of the data source the transaction is bound
// to, and false while no statement has run.
func (t *Tx) DataSource() (string, bool) {
	if t.ds < 0 {
		return "", false
	}
	return t.src.names[t.ds], true
}

// acquire marks t busy, or reports why it cannot be used.
func (t *Tx) acquire() error {
	if !t.busy.CompareAndSwap(false, true) {
		return ErrTxConcurrentUse
	}
	if t.done {
		t.busy.Store(false)
		return sql.ErrTxDone
	}
	return nil
}

func (t *Tx) release() { t.busy.Store(false) }

// bind checks that source index d may run in t and begins the transaction
// on it if this is the first statement. Errors are ErrCrossShardTx (wrapped)
// and the BEGIN error as *NodeError.
func (t *Tx) bind(d int, sqlText string) (*sql.Tx, error) {
	s := t.src
	if uint(d) >= uint(len(s.pools)) {
		return nil, badUnit(&RouteUnit{DataSource: d, SQL: sqlText}, len(s.pools))
	}
	if t.ds >= 0 {
		if s.ids[d] != s.ids[t.ds] {
			return nil, t.crossShard(d)
		}
		return t.tx, nil
	}
	tx, err := s.pools[d].BeginTx(t.ctx, t.opts)
	if err != nil {
		return nil, &NodeError{DataSource: s.names[d], SQL: "BEGIN", Err: err}
	}
	t.ds, t.tx = d, tx
	return tx, nil
}

func (t *Tx) crossShard(d int) error {
	return &crossShardError{bound: t.src.names[t.ds], routed: t.src.names[d]}
}

// crossShardError names both data sources of a refused statement: the one
// the transaction is bound to and the one the statement is routed to, or,
// in a transaction not bound yet, two data sources the statement is routed
// to.
type crossShardError struct{ bound, routed, routed2 string }

func (e *crossShardError) Error() string {
	if e.bound == "" {
		return ErrCrossShardTx.Error() + ": the statement is routed to data sources " + strconv.Quote(e.routed) +
			" and " + strconv.Quote(e.routed2) + ", a single-shard transaction runs on one"
	}
	return ErrCrossShardTx.Error() + ": the transaction is bound to data source " + strconv.Quote(e.bound) +
		", the statement is routed to data source " + strconv.Quote(e.routed)
}

func (e *crossShardError) Unwrap() error { return ErrCrossShardTx }

// QueryRow runs u in the transaction; see Executor.
func (t *Tx) QueryRow(ctx context.Context, st *Stmt, u RouteUnit, args ...any) Row {
	return t.queryRow(ctx, st, u, args, false)
}

// Query runs u in the transaction; see Executor.
func (t *Tx) Query(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (*sql.Rows, error) {
	return t.query(ctx, st, u, args, false)
}

// queryRow is QueryRow; primary keeps reads of a read/write group on the
// primary, in the transaction (Tx.Primary).
func (t *Tx) queryRow(ctx context.Context, st *Stmt, u RouteUnit, args []any, primary bool) Row {
	if err := t.acquire(); err != nil {
		return Row{err: err}
	}
	defer t.release()
	tx, err := t.bind(u.DataSource, u.SQL)
	if err != nil {
		return Row{err: err}
	}
	return queryRow(ctx, t.src.hooks, t.target(u.DataSource, tx, primary), st, t.src.names[u.DataSource], &u, args)
}

// query is Query; primary as in queryRow.
func (t *Tx) query(ctx context.Context, st *Stmt, u RouteUnit, args []any, primary bool) (*sql.Rows, error) {
	if err := t.acquire(); err != nil {
		return nil, err
	}
	defer t.release()
	tx, err := t.bind(u.DataSource, u.SQL)
	if err != nil {
		return nil, err
	}
	return query(ctx, t.src.hooks, t.target(u.DataSource, tx, primary), st, t.src.names[u.DataSource], &u, args)
}

// Primary returns a view of t for reads that must see the primary: its
// reads of a read/write group run on the group's primary inside t, whatever
// the group's transactionalReadQueryStrategy (generated code runs locking
// reads and queries annotated -- shardgen:primary through it, as it uses
// Sources.Primary outside a transaction). It shares t's state: statements
// through either are the same transaction.
func (t *Tx) Primary() Executor { return txPrimary{t} }

// txPrimary is Tx.Primary's view.
type txPrimary struct{ t *Tx }

func (p txPrimary) QueryRow(ctx context.Context, st *Stmt, u RouteUnit, args ...any) Row {
	return p.t.queryRow(ctx, st, u, args, true)
}

func (p txPrimary) Query(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (*sql.Rows, error) {
	return p.t.query(ctx, st, u, args, true)
}

func (p txPrimary) Exec(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (sql.Result, error) {
	return p.t.Exec(ctx, st, u, args...)
}

func (p txPrimary) runUnits(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc, write bool) error {
	return p.t.runUnitsOn(ctx, st, units, fn, true, write)
}

// Exec runs u in the transaction; see Executor.
func (t *Tx) Exec(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (sql.Result, error) {
	if err := t.acquire(); err != nil {
		return nil, err
	}
	defer t.release()
	tx, err := t.bind(u.DataSource, u.SQL)
	if err != nil {
		return nil, err
	}
	return exec(ctx, t.src.hooks, target{tx: tx, stmts: t.src.stmts[u.DataSource]}, st, t.src.names[u.DataSource], &u, args)
}

// runUnits runs the units one after the other in the transaction, after
// checking that all of them are on its data source. A write of several
// units sets a savepoint first and rolls back to it when a unit fails, so
// the failed statement changes nothing and the transaction goes on.
func (t *Tx) runUnits(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc, write bool) error {
	return t.runUnitsOn(ctx, st, units, fn, false, write)
}

// runUnitsOn is runUnits; primary as in queryRow.
func (t *Tx) runUnitsOn(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc, primary, write bool) error {
	if err := t.acquire(); err != nil {
		return err
	}
	defer t.release()
	if len(units) == 0 {
		return nil
	}
	s := t.src
	for i := range units {
		if d := units[i].DataSource; uint(d) >= uint(len(s.pools)) {
			return badUnit(&units[i], len(s.pools))
		}
	}
	first := units[0].DataSource
	if t.ds >= 0 {
		first = t.ds
	}
	for i := range units {
		if d := units[i].DataSource; s.ids[d] != s.ids[first] {
			if t.ds < 0 {
				return &crossShardError{routed: s.names[first], routed2: s.names[d]}
			}
			return t.crossShard(d)
		}
	}
	tx, err := t.bind(units[0].DataSource, units[0].SQL)
	if err != nil {
		return err
	}
	if s.hooks != nil {
		s.hooks.logLogic(ctx, st, len(units))
	}
	write = write && len(units) > 1
	if write {
		if err := savepoint(ctx, target{tx: tx}, s.names[units[0].DataSource]); err != nil {
			return err
		}
	}
	for i := range units {
		if err := fn(ctx, s.hooks, t.target(units[i].DataSource, tx, primary), s.names[units[i].DataSource], i); err != nil {
			if write {
				return errors.Join(err, rollbackToSavepoint(ctx, target{tx: tx}, s.names[units[0].DataSource]))
			}
			return err
		}
	}
	return nil
}

// Commit commits the transaction; a Tx in which nothing ran commits
// successfully without any round trip. A second Commit or Rollback returns
// sql.ErrTxDone. A COMMIT error is a *NodeError naming the data source.
func (t *Tx) Commit() error { return t.finish(true) }

// Rollback rolls the transaction back; a Tx in which nothing ran rolls back
// successfully without any round trip. A second Commit or Rollback returns
// sql.ErrTxDone. A ROLLBACK error is a *NodeError naming the data source.
func (t *Tx) Rollback() error { return t.finish(false) }

func (t *Tx) finish(commit bool) error {
	if err := t.acquire(); err != nil {
		return err
	}
	defer t.release()
	t.done = true
	if t.tx == nil {
		return nil
	}
	var err error
	verb := "COMMIT"
	if commit {
		err = t.tx.Commit()
	} else {
		verb = "ROLLBACK"
		err = t.tx.Rollback()
	}
	if err != nil {
		return &NodeError{DataSource: t.src.names[t.ds], SQL: verb, Err: err}
	}
	return nil
}
