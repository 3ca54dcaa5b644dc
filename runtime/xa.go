package runtime

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// TxType is the type of a distributed transaction (ShardingSphere
// TransactionType; ../shared/spec/shardingsphere.md §12). BASE is not
// offered.
type TxType uint8

const (
	// TxLocal (LOCAL): one ordinary transaction per data source, committed
	// one after the other. Atomic per data source only: when a COMMIT fails
	// (or the process dies) after an earlier data source committed, that
	// data source keeps its changes and the later ones do not. Isolation is
	// each server's own.
	TxLocal TxType = iota
	// TxXA (XA): MySQL/MariaDB XA two-phase commit with a durable
	// coordinator log (see DistTx). All data sources commit or none does,
	// once recovery has run after a failure.
	TxXA
)

// String returns LOCAL or XA.
func (t TxType) String() string {
	switch t {
	case TxLocal:
		return "LOCAL"
	case TxXA:
		return "XA"
	}
	return "TxType(" + strconv.Itoa(int(t)) + ")"
}

// MarshalJSON returns the String form, quoted.
func (t TxType) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(t.String())), nil }

// TxOptions configures BeginDistributed.
type TxOptions struct {
	// Type is LOCAL (the default, as in ShardingSphere) or XA.
	Type TxType
	// BetweenPhases, when set, is called by an XA commit of several
	// branches after every branch is prepared and the commit decision is
	// logged, before the first XA COMMIT: a test hook to crash a server
	// between the phases. Nil in production.
	BetweenPhases func()
	// Isolation and ReadOnly start every LOCAL branch as database/sql's
	// TxOptions do (SET TRANSACTION ISOLATION LEVEL ..., START
	// TRANSACTION READ ONLY); the zero values are the session's default
	// level, read/write.
	Isolation sql.IsolationLevel
	ReadOnly  bool
}

// ErrXAIncomplete is wrapped by the error of an XA commit that was decided
// (logged) but could not reach every branch: the branches not reached stay
// prepared and RecoverXA commits them once their server answers.
var ErrXAIncomplete = errors.New("XA commit decided but not finished on every data source; RecoverXA completes it")

// ErrLocalPartialCommit is wrapped by the error of a LOCAL commit that
// committed some data sources and then failed on another: ShardingSphere's
// LOCAL transactions commit one data source after the other with no
// atomicity across them, so the committed ones stay committed. The error
// names the data sources that did commit.
var ErrLocalPartialCommit = errors.New("LOCAL transaction partly committed")

// DistTx is a transaction across any data sources of a Sources: one
// connection per data source, opened lazily by the first statement routed
// there (so a transaction that touches one data source costs one
// connection). Statements of read/write groups run on the write data
// source. It is an Executor; units run one after the other.
//
// XA protocol. Branch i of transaction g is the xid (g, data source name),
// both sent as hex literals; g is "sg-<unix nanoseconds, hex>-<random>".
// Each branch runs XA START at its first statement. Commit with one branch
// sends XA END and XA COMMIT ... ONE PHASE (no log). With several: XA END and
// XA PREPARE on every branch (any failure: XA ROLLBACK everywhere); then the
// decision, a row (g, branches) in table shardgen_xa_log on the coordinator
// data source (the first data source of the Config), inserted in its own
// auto-committed statement; then XA COMMIT on every branch; then the row is
// deleted. Presumed abort: a prepared branch whose g has no row is rolled
// back by recovery. The log is a table rather than a file because it is as
// durable as the data (InnoDB, same backups, same replication) and any
// process of the application can run recovery, not only the one whose disk
// held the file.
//
// Not safe for concurrent use: a call while another call on the same
// DistTx runs returns ErrTxConcurrentUse; after Commit or Rollback every
// call returns sql.ErrTxDone.
type DistTx struct {
	src  *Sources
	ctx  context.Context
	opts TxOptions
	busy atomic.Bool
	done bool

	// res, when set, is the reserved session whose connections the
	// branches run on (Reserved.BeginDistributed).
	res *Reserved

	gtrid    string
	branches []*txBranch // in order of first use
	byID     []*txBranch // by DB pool index
	// savepoints are the client's savepoints, oldest first, as named
	// (savepoint.go); a branch that begins sets them first.
	savepoints []string
}

type txBranch struct {
	pool int // DB pool index
	// conn is an XA branch's session; tx a LOCAL branch's transaction
	// (begun with database/sql, so its statements may reuse the pool's
	// prepared statements, see target.txStmt).
	conn *sql.Conn
	tx   *sql.Tx
	// local is the connection a LOCAL branch's tx runs on, taken with a
	// bounded wait (Sources.takeConn); closed with the branch. nil for a
	// reserved session's branch, whose connection is the session's.
	local *sql.Conn
}

// xaCoordinator is the XA state of a DB.
type xaCoordinator struct {
	mu        sync.Mutex
	live      map[string]struct{} // gtrids of this process's open XA transactions
	tableOK   bool                // shardgen_xa_log exists
	recovered bool                // start-up recovery done
}

// BeginDistributed starts a transaction across the data sources of s;
// nothing is sent until the first statement. ctx bounds the whole
// transaction. With XA, the first XA transaction of a DB first runs
// RecoverXA(ctx, XARecoveryMinAge) (start-up recovery); its failure is not
// the transaction's (it is retried by the next one).
func (s *Sources) BeginDistributed(ctx context.Context, opts TxOptions) (*DistTx, error) {
	if opts.Type != TxLocal && opts.Type != TxXA {
		return nil, errors.New("runtime: unknown transaction type " + opts.Type.String())
	}
	t := &DistTx{src: s, ctx: ctx, opts: opts, byID: make([]*txBranch, s.ndb)}
	if opts.Type == TxXA {
		db := s.db
		db.xa.mu.Lock()
		done := db.xa.recovered
		db.xa.mu.Unlock()
		if !done {
			if _, err := db.RecoverXA(ctx, XARecoveryMinAge); err == nil {
				db.xa.mu.Lock()
				db.xa.recovered = true
				db.xa.mu.Unlock()
			}
		}
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		t.gtrid = "sg-" + strconv.FormatInt(time.Now().UnixNano(), 16) + "-" + hex.EncodeToString(r[:])
		db.xa.mu.Lock()
		if db.xa.live == nil {
			db.xa.live = map[string]struct{}{}
		}
		db.xa.live[t.gtrid] = struct{}{}
		db.xa.mu.Unlock()
	}
	return t, nil
}

// TransactionType returns the transaction type of the configuration
// (Config.TransactionType): what a proxy's BEGIN starts, and how an
// auto-committed write with units on several data sources commits.
func (s *Sources) TransactionType() TxType {
	if s.db == nil {
		return TxLocal
	}
	return s.db.txType
}

// XID returns the XA global transaction id ("" for LOCAL).
func (t *DistTx) XID() string { return t.gtrid }

// xid is the SQL form of branch b's xid.
func (t *DistTx) xid(pool int) string {
	return xidSQL(t.gtrid, t.src.db.names[pool])
}

func xidSQL(gtrid, bqual string) string {
	return "X'" + hex.EncodeToString([]byte(gtrid)) + "',X'" + hex.EncodeToString([]byte(bqual)) + "'"
}

func (t *DistTx) acquire() error {
	if !t.busy.CompareAndSwap(false, true) {
		return ErrTxConcurrentUse
	}
	if t.done {
		t.busy.Store(false)
		return sql.ErrTxDone
	}
	return nil
}

func (t *DistTx) release() { t.busy.Store(false) }

// branch returns what units on source index d run on, starting its branch.
func (t *DistTx) branch(d int) (target, error) {
	s := t.src
	if uint(d) >= uint(len(s.pools)) {
		return target{}, badUnit(&RouteUnit{DataSource: d}, len(s.pools))
	}
	id := s.ids[d]
	if b := t.byID[id]; b != nil {
		return b.target(s.stmts[d]), nil
	}
	b := &txBranch{pool: id}
	if t.opts.Type == TxLocal {
		var txo *sql.TxOptions
		if t.opts.Isolation != sql.LevelDefault || t.opts.ReadOnly {
			txo = &sql.TxOptions{Isolation: t.opts.Isolation, ReadOnly: t.opts.ReadOnly}
		}
		var (
			tx  *sql.Tx
			err error
		)
		if t.res != nil {
			var c *sql.Conn
			if c, err = t.res.conn(t.ctx, d); err != nil {
				return target{}, err
			}
			tx, err = c.BeginTx(t.ctx, txo)
			t.res.forget(d, err)
		} else {
			var c *sql.Conn
			if c, err = s.takeConn(t.ctx, d); err != nil {
				return target{}, err
			}
			if tx, err = c.BeginTx(t.ctx, txo); err != nil {
				_ = c.Close()
			}
			b.local = c
		}
		if err != nil {
			return target{}, &NodeError{DataSource: s.names[d], SQL: "START TRANSACTION", Err: err}
		}
		b.tx = tx
	} else {
		conn, err := s.takeConn(t.ctx, d)
		if err != nil {
			return target{}, err
		}
		start := "XA START " + t.xid(id)
		if _, err := conn.ExecContext(t.ctx, start); err != nil {
			_ = conn.Close()
			return target{}, &NodeError{DataSource: s.names[d], SQL: start, Err: err}
		}
		b.conn = conn
	}
	t.byID[id] = b
	t.branches = append(t.branches, b)
	if err := t.replaySavepoints(b); err != nil {
		return target{}, err
	}
	return b.target(s.stmts[d]), nil
}

// Local reports whether t is a LOCAL transaction.
func (t *DistTx) Local() bool { return t.opts.Type == TxLocal }

// LocalConn returns the connection on which the LOCAL branch of source
// index d runs, beginning the branch (START TRANSACTION with t's options)
// when it has not begun: a proxy relays statements of the transaction on
// it (sql.Conn.Raw) between the branch's own statements, which then see
// each other's uncommitted writes. The connection stays the branch's: the
// caller must not close it, nor use it while another call of t runs.
// ok is false for an XA transaction and for a reserved session's branch
// (whose connection is the session's); err is the branch's begin error.
func (t *DistTx) LocalConn(d int) (conn *sql.Conn, ok bool, err error) {
	if t.opts.Type != TxLocal || t.res != nil {
		return nil, false, nil
	}
	if err := t.acquire(); err != nil {
		return nil, false, err
	}
	defer t.release()
	if _, err := t.branch(d); err != nil {
		return nil, false, err
	}
	b := t.byID[t.src.ids[d]]
	return b.local, b.local != nil, nil
}

// target is what a unit of branch b runs on; stmts is the pool's statement
// cache (used by LOCAL branches).
func (b *txBranch) target(stmts *stmtCache) target {
	if b.tx != nil {
		return target{tx: b.tx, stmts: stmts}
	}
	return target{conn: b.conn}
}

// QueryRow runs u in the transaction; see Executor.
func (t *DistTx) QueryRow(ctx context.Context, st *Stmt, u RouteUnit, args ...any) Row {
	if err := t.acquire(); err != nil {
		return Row{err: err}
	}
	defer t.release()
	c, err := t.branch(u.DataSource)
	if err != nil {
		return Row{err: err}
	}
	return queryRow(ctx, t.src.hooks, c, st, t.src.names[u.DataSource], &u, args)
}

// Query runs u in the transaction; see Executor.
func (t *DistTx) Query(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (*sql.Rows, error) {
	if err := t.acquire(); err != nil {
		return nil, err
	}
	defer t.release()
	c, err := t.branch(u.DataSource)
	if err != nil {
		return nil, err
	}
	return query(ctx, t.src.hooks, c, st, t.src.names[u.DataSource], &u, args)
}

// Exec runs u in the transaction; see Executor.
func (t *DistTx) Exec(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (sql.Result, error) {
	if err := t.acquire(); err != nil {
		return nil, err
	}
	defer t.release()
	c, err := t.branch(u.DataSource)
	if err != nil {
		return nil, err
	}
	return exec(ctx, t.src.hooks, c, st, t.src.names[u.DataSource], &u, args)
}

// runUnits runs the units one after the other, each on its data source's
// branch. A write of several units sets a savepoint on each branch before
// its first unit there, and when a unit fails rolls every branch the
// statement touched back to it: the failed statement changes nothing and
// the transaction goes on.
func (t *DistTx) runUnits(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc, write bool) error {
	if err := t.acquire(); err != nil {
		return err
	}
	defer t.release()
	s := t.src
	for i := range units {
		if uint(units[i].DataSource) >= uint(len(s.pools)) {
			return badUnit(&units[i], len(s.pools))
		}
	}
	if len(units) > 0 && s.hooks != nil {
		s.hooks.logLogic(ctx, st, len(units))
	}
	write = write && len(units) > 1
	var touched []int // source index of the first unit on each branch the statement touched
	undo := func(err error) error {
		errs := []error{err}
		for _, d := range touched {
			c, _ := t.branch(d)
			errs = append(errs, rollbackToSavepoint(ctx, c, s.names[d]))
		}
		return errors.Join(errs...)
	}
	for i := range units {
		d := units[i].DataSource
		if write && !slices.ContainsFunc(touched, func(e int) bool { return s.ids[e] == s.ids[d] }) {
			c, err := t.branch(d)
			if err == nil {
				err = savepoint(ctx, c, s.names[d])
			}
			if err != nil {
				return undo(err)
			}
			touched = append(touched, d)
		}
		c, err := t.branch(d)
		if err != nil {
			return err
		}
		if err := fn(ctx, s.hooks, c, s.names[d], i); err != nil {
			if write {
				return undo(err)
			}
			return err
		}
	}
	return nil
}

var _ Executor = (*DistTx)(nil)

// Commit commits every branch; see DistTx for XA. LOCAL commits the data
// sources in the order they were first used and returns the COMMIT errors
// joined, each a *NodeError. XA returns a *NodeError when a branch fails
// to prepare (everything is rolled back) and an error wrapping
// ErrXAIncomplete when the decision was logged but a branch could not be
// committed.
func (t *DistTx) Commit() error { return t.finish(true) }

// Rollback rolls every branch back and returns the errors joined.
func (t *DistTx) Rollback() error { return t.finish(false) }

func (t *DistTx) finish(commit bool) error {
	if err := t.acquire(); err != nil {
		return err
	}
	defer t.release()
	t.done = true
	defer t.closeAll()
	if t.opts.Type == TxLocal {
		verb := "ROLLBACK"
		if commit {
			verb = "COMMIT"
		}
		var errs []error
		var committed []string
		for _, b := range t.branches {
			var err error
			if commit {
				err = b.tx.Commit()
			} else {
				err = b.tx.Rollback()
			}
			if err != nil {
				errs = append(errs, &NodeError{DataSource: t.src.db.names[b.pool], SQL: verb, Err: err})
			} else if commit {
				committed = append(committed, t.src.db.names[b.pool])
			}
		}
		if len(errs) > 0 && len(committed) > 0 {
			errs = append([]error{fmt.Errorf("%w: committed on %s", ErrLocalPartialCommit, strings.Join(committed, ", "))}, errs...)
		}
		return errors.Join(errs...)
	}
	defer t.forget()
	switch {
	case !commit:
		return t.xaRollback()
	case len(t.branches) == 0:
		return nil
	case len(t.branches) == 1:
		x := t.xid(t.branches[0].pool)
		return t.each(func(*txBranch) string { return "XA END " + x }, func(*txBranch) string { return "XA COMMIT " + x + " ONE PHASE" })
	}
	if err := t.each(func(b *txBranch) string { return "XA END " + t.xid(b.pool) },
		func(b *txBranch) string { return "XA PREPARE " + t.xid(b.pool) }); err != nil {
		return errors.Join(err, t.xaRollback())
	}
	db := t.src.db
	names := make([]string, len(t.branches))
	for i, b := range t.branches {
		names[i] = db.names[b.pool]
	}
	if err := db.logCommit(t.ctx, t.gtrid, names); err != nil {
		return errors.Join(err, t.xaRollback())
	}
	if t.opts.BetweenPhases != nil {
		t.opts.BetweenPhases()
	}
	var errs []error
	for _, b := range t.branches {
		q := "XA COMMIT " + t.xid(b.pool)
		if _, err := b.conn.ExecContext(t.ctx, q); err != nil {
			// The session may be gone; a new one may commit a prepared xid.
			if _, err2 := db.pools[b.pool].ExecContext(t.ctx, q); err2 != nil {
				errs = append(errs, &NodeError{DataSource: db.names[b.pool], SQL: q, Err: err2})
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(append([]error{ErrXAIncomplete}, errs...)...)
	}
	return db.forgetCommit(t.ctx, t.gtrid)
}

// each runs the statements made by steps, in order, on every branch, and
// returns the errors joined (a branch stops at its first error).
func (t *DistTx) each(steps ...func(*txBranch) string) error {
	var errs []error
	for _, b := range t.branches {
		for _, step := range steps {
			q := step(b)
			if _, err := b.conn.ExecContext(t.ctx, q); err != nil {
				errs = append(errs, &NodeError{DataSource: t.src.db.names[b.pool], SQL: q, Err: err})
				break
			}
		}
	}
	return errors.Join(errs...)
}

// xaRollback ends and rolls back every branch, whatever state it is in.
func (t *DistTx) xaRollback() error {
	var errs []error
	for _, b := range t.branches {
		x := t.xid(b.pool)
		_, _ = b.conn.ExecContext(t.ctx, "XA END "+x) // fails harmlessly when already ended or prepared
		if _, err := b.conn.ExecContext(t.ctx, "XA ROLLBACK "+x); err != nil {
			errs = append(errs, &NodeError{DataSource: t.src.db.names[b.pool], SQL: "XA ROLLBACK " + x, Err: err})
		}
	}
	return errors.Join(errs...)
}

func (t *DistTx) closeAll() {
	for _, b := range t.branches {
		if b.conn != nil {
			_ = b.conn.Close()
		}
		if b.local != nil {
			_ = b.local.Close()
		}
	}
}

func (t *DistTx) forget() {
	db := t.src.db
	db.xa.mu.Lock()
	delete(db.xa.live, t.gtrid)
	db.xa.mu.Unlock()
}

// WithDistributed runs fn in a distributed transaction: commit when fn
// returns nil, rollback when it returns an error or panics (as WithTx).
func (s *Sources) WithDistributed(ctx context.Context, opts TxOptions, fn func(*DistTx) error) error {
	t, err := s.BeginDistributed(ctx, opts)
	if err != nil {
		return err
	}
	returned := false
	defer func() {
		if !returned {
			_ = t.Rollback()
		}
	}()
	err = fn(t)
	returned = true
	if err != nil {
		return errors.Join(err, t.Rollback())
	}
	return t.Commit()
}

// serverOf returns "host:port" of an address "host:port/db".
func serverOf(addr string) string {
	if i := strings.LastIndexByte(addr, '/'); i >= 0 {
		return addr[:i]
	}
	return addr
}
