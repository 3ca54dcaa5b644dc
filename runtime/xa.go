package runtime

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
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
	// relayed: the branch's transaction was begun on local by a caller of
	// DistTx.RelayLocal; tx is nil until a statement of t itself needs
	// it, which adopts the open transaction (adopt).
	relayed bool
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
		if err := t.adopt(b); err != nil {
			return target{}, err
		}
		return b.target(s.stmts[d]), nil
	}
	b := &txBranch{pool: id}
	if t.opts.Type == TxLocal {
		txo := t.txOptions()
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

// txOptions are database/sql's options of a LOCAL branch (nil: none).
func (t *DistTx) txOptions() *sql.TxOptions {
	if t.opts.Isolation != sql.LevelDefault || t.opts.ReadOnly {
		return &sql.TxOptions{Isolation: t.opts.Isolation, ReadOnly: t.opts.ReadOnly}
	}
	return nil
}

// adopt gives a branch begun by a RelayLocal caller its sql.Tx: BeginTx
// under a context marked by adoptContext, which a TxAdopter connection
// answers without sending anything (RelayLocal checked it is one).
func (t *DistTx) adopt(b *txBranch) error {
	if !b.relayed || b.tx != nil {
		return nil
	}
	tx, err := b.local.BeginTx(context.WithValue(t.ctx, adoptKey{}, true), t.txOptions())
	if err != nil {
		return &NodeError{DataSource: t.src.db.names[b.pool], SQL: "START TRANSACTION", Err: err}
	}
	b.tx = tx
	return nil
}

// adoptKey marks the context of a BeginTx that adopts the transaction a
// RelayLocal caller began (AdoptsTx).
type adoptKey struct{}

// AdoptsTx reports whether ctx is the context of a BeginTx by which a
// DistTx adopts the transaction a caller of RelayLocal began on the
// connection: a TxAdopter then sends nothing and returns a driver.Tx whose
// Commit and Rollback send COMMIT and ROLLBACK.
func AdoptsTx(ctx context.Context) bool {
	v, _ := ctx.Value(adoptKey{}).(bool)
	return v
}

// TxAdopter is implemented by a driver connection (the driver.Conn that
// sql.Conn.Raw passes) whose BeginTx adopts an open transaction under a
// context for which AdoptsTx is true. DistTx.RelayLocal begins branches
// itself only on such connections.
type TxAdopter interface {
	// AdoptsTransactions reports whether BeginTx adopts (always true for
	// an implementation; the method marks the interface).
	AdoptsTransactions() bool
}

// ErrNotBegun is returned by a RelayLocal callback that did not begin the
// branch's transaction and left the connection as it found it (nothing
// sent): the connection goes back to its pool.
var ErrNotBegun = errors.New("runtime: the caller did not begin the LOCAL branch")

// RelayLocal runs fn on the driver connection of t's LOCAL branch on source
// index d (sql.Conn.Raw: the connection's own driver.Conn, which fn may
// use to send statements of the transaction by its own means while t is
// idle; t's next call sees their effects). When the branch has begun, fn
// gets begin "". When it has not, RelayLocal takes a connection of the data
// source's pool and fn gets the statement that begins the branch (START
// TRANSACTION, or START TRANSACTION READ ONLY), which it must send before
// its own statements: fn returns nil when it did and the data source
// accepted it (the branch has begun; t commits it with the others),
// ErrNotBegun when it sent nothing (the connection goes back to the pool),
// or another error when the connection is unusable (it is closed; return
// driver.ErrBadConn to have database/sql discard it). Savepoints remembered
// by t, an isolation level, or a connection that is no TxAdopter make
// RelayLocal begin the branch itself first, as t's statements do, and pass
// begin "". ok is false, with fn not run, for an XA transaction and a
// reserved session's branch; err is the error of beginning the branch or
// of taking its connection (ok true, fn not run), or fn's.
func (t *DistTx) RelayLocal(d int, fn func(dc any, begin string) error) (ok bool, err error) {
	if t.opts.Type != TxLocal || t.res != nil {
		return false, nil
	}
	if err := t.acquire(); err != nil {
		return false, err
	}
	defer t.release()
	s := t.src
	if uint(d) >= uint(len(s.pools)) {
		return false, badUnit(&RouteUnit{DataSource: d}, len(s.pools))
	}
	if b := t.byID[s.ids[d]]; b != nil {
		if b.local == nil {
			return false, nil
		}
		return true, b.local.Raw(func(dc any) error { return fn(dc, "") })
	}
	if len(t.savepoints) > 0 || t.opts.Isolation != sql.LevelDefault {
		return t.relayBegun(d, fn)
	}
	begin := "START TRANSACTION"
	if t.opts.ReadOnly {
		begin = "START TRANSACTION READ ONLY"
	}
	c, err := s.takeConn(t.ctx, d)
	if err != nil {
		return true, err
	}
	adopter := false
	err = c.Raw(func(dc any) error {
		if a, ok := dc.(TxAdopter); !ok || !a.AdoptsTransactions() {
			return ErrNotBegun
		}
		adopter = true
		return fn(dc, begin)
	})
	if err != nil {
		_ = c.Close()
		if !adopter {
			return t.relayBegun(d, fn)
		}
		return true, err
	}
	b := &txBranch{pool: s.ids[d], local: c, relayed: true}
	t.byID[b.pool] = b
	t.branches = append(t.branches, b)
	return true, nil
}

// relayBegun begins the branch on d as t's statements do, then runs fn
// on its connection with begin "" (RelayLocal).
func (t *DistTx) relayBegun(d int, fn func(dc any, begin string) error) (bool, error) {
	if _, err := t.branch(d); err != nil {
		return true, err
	}
	b := t.byID[t.src.ids[d]]
	if b.local == nil {
		return false, nil
	}
	return true, b.local.Raw(func(dc any) error { return fn(dc, "") })
}

// Local reports whether t is a LOCAL transaction.
func (t *DistTx) Local() bool { return t.opts.Type == TxLocal }

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
			switch {
			case b.tx == nil: // begun by a RelayLocal caller, never adopted
				err = endRelayed(b.local, verb)
			case commit:
				err = b.tx.Commit()
			default:
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

// endRelayed sends verb (COMMIT or ROLLBACK) on c's driver connection,
// with no context to watch (as database/sql's Tx ends one). Any error
// makes database/sql discard c: its transaction's state is unknown.
func endRelayed(c *sql.Conn, verb string) error {
	var out error
	err := c.Raw(func(dc any) error {
		ex, ok := dc.(driver.ExecerContext)
		if !ok {
			out = errors.New("runtime: the driver connection cannot execute " + verb)
			return driver.ErrBadConn
		}
		if _, out = ex.ExecContext(context.Background(), verb, nil); out != nil {
			return driver.ErrBadConn
		}
		return nil
	})
	if out == nil {
		out = err
	}
	return out
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
