package runtime

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"

	gomysql "github.com/go-sql-driver/mysql"
)

// Reserved is one client session's own back-end connections, vitess's
// reserved connections: one *sql.Conn per data source, taken from the
// data source's pool at its first use and held until Close, with the
// session's setup statements (SET NAMES ..., SET SESSION sql_mode = ...,
// SET @x = ...) run on it when it is taken. A proxy session whose settings
// differ from the pools' defaults runs every statement on its Reserved, so
// that each setting applies to every later statement on every data source,
// as one server applies it; sessions with default settings stay on the
// pools and pay nothing.
//
// Close discards the connections instead of returning them to the pool: a
// connection that carried a session's settings is never handed to another
// session (the reset is a new connection). A connection that breaks
// (driver.ErrBadConn, go-sql-driver's ErrInvalidConn) is dropped; the next
// statement on that data source takes a new one and replays the setup.
//
// Statements of a read/write group run on its primary (the setup is not
// replayed on replicas). Units run one after the other, each on its data
// source's connection. Not safe for concurrent use: one client session,
// whose statements are serialized.
type Reserved struct {
	src   *Sources
	setup []string
	conns []*sql.Conn  // by DB pool index (Sources.ids)
	stmts []*connStmts // the prepared statements of conns[i]
}

// maxConnStmts bounds the prepared statements kept per reserved
// connection; the cache is emptied when it is full.
const maxConnStmts = 256

// connStmts caches the server-side prepared statements of one reserved
// connection, by SQL text, so that a statement with arguments costs one
// round trip (execute) as on the pools, not three (prepare, execute,
// close). A nil *connStmts caches nothing.
type connStmts struct {
	c *sql.Conn
	m map[string]*sql.Stmt
}

// stmt returns the prepared statement of query, preparing it now; nil
// when args is empty, or query cannot be prepared (the caller then runs it
// as it is, which reports the same error).
func (cs *connStmts) stmt(ctx context.Context, query string, args []any) *sql.Stmt {
	if cs == nil || len(args) == 0 {
		return nil
	}
	if st, ok := cs.m[query]; ok {
		return st
	}
	if len(cs.m) >= maxConnStmts {
		cs.close()
	}
	st, err := cs.c.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if cs.m == nil {
		cs.m = map[string]*sql.Stmt{}
	}
	cs.m[query] = st
	return st
}

// close closes every cached statement.
func (cs *connStmts) close() {
	for q, st := range cs.m {
		_ = st.Close()
		delete(cs.m, q)
	}
}

var _ Executor = (*Reserved)(nil)

// Reserve returns a Reserved over the data sources of s whose setup so
// far is setup, statements known to succeed (a Settings' setup, when a
// session with settings moves to connections of its own): they run on
// each connection when it is taken. No connection is taken until the
// first statement (or Apply).
func (s *Sources) Reserve(setup ...string) *Reserved {
	return &Reserved{src: s.primary, setup: append([]string(nil), setup...), conns: make([]*sql.Conn, s.ndb), stmts: make([]*connStmts, s.ndb)}
}

// Setup returns the setup statements applied so far, in order (a copy).
func (r *Reserved) Setup() []string { return append([]string(nil), r.setup...) }

// Apply runs stmt (a SET statement) on the connections the session holds
// and records it as setup for the connections it takes later: a data
// source's connection is taken when a statement first runs there, and
// runs the setup, in order, before that statement (conn). So a session
// that sets something waits for no data source that none of its
// statements goes to (one that does not answer would hold every SET up
// for its connect timeout). A value the statement computes is computed on
// each data source when its connection is taken (as every SET of the
// session is computed on each data source by that data source).
//
// The statement runs on at least one connection, so that the server
// refuses it now: with none held, a connection of every data source is
// asked for at once and the first one taken is kept (connectAny). On
// error stmt is not recorded, and the connections it already changed are
// discarded, so that every data source keeps the same settings; the error
// is a *NodeError. Apply fails with a connect error only when no data
// source could be reached.
func (r *Reserved) Apply(ctx context.Context, stmt string) error {
	s := r.src
	if !slices.ContainsFunc(r.conns, func(c *sql.Conn) bool { return c != nil }) {
		if err := r.connectAny(ctx); err != nil {
			return err
		}
	}
	done := make([]bool, s.ndb)
	for d := range s.pools {
		id := s.ids[d]
		c := r.conns[id]
		if done[id] || c == nil {
			continue
		}
		if _, err := c.ExecContext(ctx, stmt); err != nil {
			for id2, ok := range done {
				if ok {
					r.drop(id2)
				}
			}
			if badConn(err) {
				r.drop(id)
			}
			return &NodeError{DataSource: s.names[d], SQL: stmt, Err: err}
		}
		done[id] = true
	}
	r.setup = append(r.setup, stmt)
	return nil
}

// connectAny takes the connection of the data source that gives one
// first, a connection of each asked for at once (firstConn), and runs the
// setup on it. When none gives one, the error is the first data source's
// in order.
func (r *Reserved) connectAny(ctx context.Context) error {
	s := r.src
	ds := s.distinct()
	i, c, errs := firstConn(ctx, len(ds), func(ctx context.Context, i int) (*sql.Conn, error) {
		return s.takeConn(ctx, ds[i])
	}, nil)
	if c == nil {
		return firstError(errs)
	}
	return r.adopt(ctx, ds[i], c)
}

// firstError returns the first non-nil error of errs, or nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// distinct returns one source index of each data source of s (the first
// that names it), in order.
func (s *Sources) distinct() []int {
	seen := make([]bool, s.ndb)
	var out []int
	for d, id := range s.ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, d)
		}
	}
	return out
}

// firstConn runs take(ctx, i) for each i < n at once and returns the
// first connection taken with its i; the other takes are cancelled, and
// a connection one took anyway is closed (given back to its pool). When
// none is taken, c is nil and errs holds each take's error by i. A take
// whose error stop reports (nil: none) ends the wait at once: c is nil,
// errs holds the errors so far.
func firstConn(ctx context.Context, n int, take func(ctx context.Context, i int) (*sql.Conn, error),
	stop func(error) bool) (i int, c *sql.Conn, errs []error) {
	type taken struct {
		i   int
		c   *sql.Conn
		err error
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan taken, n)
	for i := range n {
		go func() {
			c, err := take(cctx, i)
			results <- taken{i, c, err}
		}()
	}
	errs = make([]error, n)
	for k := range n {
		t := <-results
		if t.err == nil || stop != nil && stop(t.err) {
			go func(left int) {
				for ; left > 0; left-- {
					if t := <-results; t.c != nil {
						_ = t.c.Close()
					}
				}
			}(n - k - 1)
			if t.err == nil {
				return t.i, t.c, nil
			}
			errs[t.i] = t.err
			return -1, nil, errs
		}
		errs[t.i] = t.err
	}
	return -1, nil, errs
}

// Close discards every connection (see Reserved) and forgets the setup.
func (r *Reserved) Close() error {
	for id := range r.conns {
		r.drop(id)
	}
	r.setup = nil
	return nil
}

// drop discards the connection of pool id: database/sql closes a
// connection whose Raw callback reports driver.ErrBadConn instead of
// returning it to the pool.
func (r *Reserved) drop(id int) {
	c := r.conns[id]
	if c == nil {
		return
	}
	r.conns[id] = nil
	r.stmts[id].close()
	r.stmts[id] = nil
	_ = c.Raw(func(any) error { return driver.ErrBadConn })
	_ = c.Close()
}

// connectSQL is the SQL of a *NodeError that says no connection could be
// taken from the data source's pool (its server is unreachable).
const connectSQL = "connect"

// conn returns the connection of source index d, taking it from the pool
// and running the setup on it when it has none.
func (r *Reserved) conn(ctx context.Context, d int) (*sql.Conn, error) {
	s := r.src
	if uint(d) >= uint(len(s.pools)) {
		return nil, badUnit(&RouteUnit{DataSource: d}, len(s.pools))
	}
	id := s.ids[d]
	if c := r.conns[id]; c != nil {
		return c, nil
	}
	// A reserved connection is held for a whole client session: with
	// maxPoolSize sessions holding one the next would wait for ever, so
	// the wait is bounded (takeConn, connectionTimeoutMilliseconds).
	c, err := s.takeConn(ctx, d)
	if err != nil {
		return nil, err
	}
	if err := r.adopt(ctx, d, c); err != nil {
		return nil, err
	}
	return c, nil
}

// adopt makes c, taken from the pool of source index d, the session's
// connection there and runs the setup on it; on error c is discarded.
func (r *Reserved) adopt(ctx context.Context, d int, c *sql.Conn) error {
	s := r.src
	id := s.ids[d]
	r.conns[id] = c
	r.stmts[id] = &connStmts{c: c}
	for _, q := range r.setup {
		if _, err := c.ExecContext(ctx, q); err != nil {
			r.drop(id)
			return &NodeError{DataSource: s.names[d], SQL: q, Err: err}
		}
	}
	return nil
}

// target returns what a unit on source index d runs on.
func (r *Reserved) target(ctx context.Context, d int) (target, error) {
	c, err := r.conn(ctx, d)
	if err != nil {
		return target{}, err
	}
	return target{conn: c, cstmts: r.stmts[r.src.ids[d]]}, nil
}

// forget drops the connection of source index d when err says it broke.
func (r *Reserved) forget(d int, err error) {
	if err != nil && badConn(err) && uint(d) < uint(len(r.src.ids)) {
		r.drop(r.src.ids[d])
	}
}

// badConn reports whether err says the connection it came from is broken.
func badConn(err error) bool {
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, gomysql.ErrInvalidConn)
}

// QueryRow runs u on the session's connection; see Executor.
func (r *Reserved) QueryRow(ctx context.Context, st *Stmt, u RouteUnit, args ...any) Row {
	c, err := r.target(ctx, u.DataSource)
	if err != nil {
		return Row{err: err}
	}
	return queryRow(ctx, r.src.hooks, c, st, r.src.names[u.DataSource], &u, args)
}

// Query runs u on the session's connection; see Executor.
func (r *Reserved) Query(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (*sql.Rows, error) {
	c, err := r.target(ctx, u.DataSource)
	if err != nil {
		return nil, err
	}
	rows, err := query(ctx, r.src.hooks, c, st, r.src.names[u.DataSource], &u, args)
	r.forget(u.DataSource, err)
	return rows, err
}

// Exec runs u on the session's connection; see Executor.
func (r *Reserved) Exec(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (sql.Result, error) {
	c, err := r.target(ctx, u.DataSource)
	if err != nil {
		return nil, err
	}
	res, err := exec(ctx, r.src.hooks, c, st, r.src.names[u.DataSource], &u, args)
	r.forget(u.DataSource, err)
	return res, err
}

// runUnits runs the units one after the other, each on its data source's
// connection (one connection cannot stream two results at once). A write
// of several units runs in a transaction on each connection it touches,
// committed only when every unit succeeded (see ExecUnits; LOCAL even when
// the configuration asks for XA, which a reserved session does not run).
func (r *Reserved) runUnits(ctx context.Context, st *Stmt, units []RouteUnit, fn unitFunc, write bool) error {
	s := r.src
	for i := range units {
		if uint(units[i].DataSource) >= uint(len(s.pools)) {
			return badUnit(&units[i], len(s.pools))
		}
	}
	if len(units) > 0 && s.hooks != nil {
		s.hooks.logLogic(ctx, st, len(units))
	}
	if write && len(units) > 1 {
		return r.runWrite(ctx, units, st, fn)
	}
	for i := range units {
		d := units[i].DataSource
		c, err := r.target(ctx, d)
		if err != nil {
			return err
		}
		if err := fn(ctx, s.hooks, c, s.names[d], i); err != nil {
			r.forget(d, err)
			return err
		}
	}
	return nil
}

// runWrite runs the units of a write in one transaction per connection,
// begun at its first unit; any failure rolls every one back.
func (r *Reserved) runWrite(ctx context.Context, units []RouteUnit, st *Stmt, fn unitFunc) error {
	s := r.src
	groupOf := make([]*unitGroup, s.ndb)
	var groups []*unitGroup
	var err error
	failed := -1 // source index whose connection gave err
	for i := range units {
		d := units[i].DataSource
		g := groupOf[s.ids[d]]
		if g == nil {
			var c *sql.Conn
			if c, err = r.conn(ctx, d); err != nil {
				break
			}
			var tx *sql.Tx
			if tx, err = c.BeginTx(ctx, nil); err != nil {
				failed = d
				err = &NodeError{DataSource: s.names[d], SQL: units[i].SQL, Err: fmt.Errorf("START TRANSACTION: %w", err)}
				break
			}
			g = &unitGroup{tx: tx}
			groupOf[s.ids[d]] = g
			groups = append(groups, g)
		}
		g.units = append(g.units, i)
		if err = fn(ctx, s.hooks, target{tx: g.tx}, s.names[d], i); err != nil {
			failed = d
			break
		}
	}
	if err != nil {
		// Roll back first: a connection cannot be dropped while a
		// transaction holds it.
		s.rollbackGroups(groups)
		if failed >= 0 {
			r.forget(failed, err)
		}
		return err
	}
	return s.commitGroups(st, units, groups)
}

// BeginDistributed starts a LOCAL transaction whose branches run on the
// session's connections (see Sources.BeginDistributed); XA is refused.
func (r *Reserved) BeginDistributed(ctx context.Context, opts TxOptions) (*DistTx, error) {
	if opts.Type != TxLocal {
		return nil, errors.New("runtime: a reserved session runs LOCAL transactions only, not " + opts.Type.String())
	}
	t, err := r.src.BeginDistributed(ctx, opts)
	if err != nil {
		return nil, err
	}
	t.res = r
	return t, nil
}
