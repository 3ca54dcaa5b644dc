package proxy

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/shardgen/shardgen/runtime"
)

// Back-end statements are attributed to their session by the connection
// that runs them, not by their text: the SQL the database/sql path sends
// is the same for every session, so the runtime's prepared-statement cache
// (one per data source, keyed by SQL text) holds one statement that all
// sessions share, instead of one per session that 64 sessions evict from
// each other. A statement of a session runs under a context that names the
// session (withOwner: its tag, "/* shardgen-proxy c<N> */ ", which no
// longer goes into the SQL); every go-sql-driver connection of the pools
// is an ownerConn, which before forwarding a call that sends a command
// copies the owner its context names (none: "") to its socket, a backConn
// (warnings.go). The backConn attributes that command's warnings to the
// owner, records it for the deadlock detector (deadlock.go), and the
// disconnect watch (watch.go) stops the back-end threads whose last
// command was the departed session's.
//
// ownerConnector learns the backConn of each connection it makes: its
// Connect passes a dialSlot in the context that go-sql-driver gives its
// DialFunc (dialBackend), which fills it.

// ownerKey is the context key of a statement's owner (a session tag).
type ownerKey struct{}

// withOwner returns ctx naming tag as the owner of the back-end commands
// run under it; tag "" returns ctx.
func withOwner(ctx context.Context, tag string) context.Context {
	if tag == "" {
		return ctx
	}
	return context.WithValue(ctx, ownerKey{}, tag)
}

// ownerOf returns the owner ctx names, or "".
func ownerOf(ctx context.Context) string {
	s, _ := ctx.Value(ownerKey{}).(string)
	return s
}

// dialSlotKey is the context key of the dialSlot of a Connect.
type dialSlotKey struct{}

// dialSlot receives the backConn dialled for one connection.
type dialSlot struct{ bc *backConn }

// ownerConnector wraps a data source's go-sql-driver connector
// (runtime.WithConnector); see the comment at the top of the file. The
// runtime's connector inside names the data source's timeouts in errors
// (backendConfig's runtime.DataSourceConfig.Origin).
type ownerConnector struct {
	driver.Connector
}

// ownerConnectors returns the runtime.WithConnector wrapper of the proxy's
// pools.
func ownerConnectors() func(runtime.NamedDataSource, driver.Connector) driver.Connector {
	return func(_ runtime.NamedDataSource, c driver.Connector) driver.Connector {
		return &ownerConnector{Connector: c}
	}
}

// Connect connects and wraps the connection in an ownerConn.
func (oc *ownerConnector) Connect(ctx context.Context) (driver.Conn, error) {
	slot := &dialSlot{}
	conn, err := oc.Connector.Connect(context.WithValue(ctx, dialSlotKey{}, slot))
	if err != nil {
		return nil, err
	}
	return &ownerConn{c: conn, bc: slot.bc}, nil
}

// errNoInterface is returned for an optional driver interface the wrapped
// connection lacks (never with go-sql-driver, which has them all).
var errNoInterface = errors.New("proxy: the back-end driver connection lacks an interface")

// ownerConn is a go-sql-driver connection that sets the owner of each
// command on its backConn (nil: the DSN named its own dialer; nothing is
// attributed). It forwards every interface go-sql-driver's connection
// implements: driver.Conn, Execer, Queryer, ExecerContext, QueryerContext,
// ConnPrepareContext, ConnBeginTx, Pinger, NamedValueChecker,
// SessionResetter and Validator. Used by one goroutine at a time, as the
// driver's connection is.
type ownerConn struct {
	c  driver.Conn
	bc *backConn
}

var (
	_ driver.Conn               = (*ownerConn)(nil)
	_ driver.Execer             = (*ownerConn)(nil) //nolint:staticcheck // forwarded as go-sql-driver has it
	_ driver.Queryer            = (*ownerConn)(nil) //nolint:staticcheck // forwarded as go-sql-driver has it
	_ driver.ExecerContext      = (*ownerConn)(nil)
	_ driver.QueryerContext     = (*ownerConn)(nil)
	_ driver.ConnPrepareContext = (*ownerConn)(nil)
	_ driver.ConnBeginTx        = (*ownerConn)(nil)
	_ driver.Pinger             = (*ownerConn)(nil)
	_ driver.NamedValueChecker  = (*ownerConn)(nil)
	_ driver.SessionResetter    = (*ownerConn)(nil)
	_ driver.Validator          = (*ownerConn)(nil)
	_ runtime.TxAdopter         = (*ownerConn)(nil)
)

// own sets the owner of the next command ("": none).
func (c *ownerConn) own(tag string) {
	if c.bc != nil {
		c.bc.own(tag)
	}
}

// Prepare prepares without an owner.
func (c *ownerConn) Prepare(query string) (driver.Stmt, error) {
	c.own("")
	st, err := c.c.Prepare(query)
	if err != nil {
		return nil, err
	}
	return &ownerStmt{s: st, c: c}, nil
}

// Close closes the connection.
func (c *ownerConn) Close() error { return c.c.Close() }

// Begin begins a transaction without an owner.
func (c *ownerConn) Begin() (driver.Tx, error) {
	c.own("")
	return c.c.Begin() //nolint:staticcheck // forwarded as go-sql-driver has it
}

// Exec forwards driver.Execer, without an owner.
func (c *ownerConn) Exec(query string, args []driver.Value) (driver.Result, error) {
	ex, ok := c.c.(driver.Execer) //nolint:staticcheck // forwarded as go-sql-driver has it
	if !ok {
		return nil, driver.ErrSkip
	}
	c.own("")
	return ex.Exec(query, args)
}

// Query forwards driver.Queryer, without an owner.
func (c *ownerConn) Query(query string, args []driver.Value) (driver.Rows, error) {
	q, ok := c.c.(driver.Queryer) //nolint:staticcheck // forwarded as go-sql-driver has it
	if !ok {
		return nil, driver.ErrSkip
	}
	c.own("")
	return q.Query(query, args)
}

// ExecContext forwards driver.ExecerContext under ctx's owner.
func (c *ownerConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	ex, ok := c.c.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.own(ownerOf(ctx))
	return ex.ExecContext(ctx, query, args)
}

// QueryContext forwards driver.QueryerContext under ctx's owner.
func (c *ownerConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.c.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.own(ownerOf(ctx))
	return q.QueryContext(ctx, query, args)
}

// PrepareContext forwards driver.ConnPrepareContext under ctx's owner;
// the statement's executions take the owner of their own contexts.
func (c *ownerConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.own(ownerOf(ctx))
	var st driver.Stmt
	var err error
	if p, ok := c.c.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = c.c.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &ownerStmt{s: st, c: c}, nil
}

// BeginTx forwards driver.ConnBeginTx under ctx's owner; under a context
// for which runtime.AdoptsTx is true it sends nothing and returns the
// transaction the fast path began on the connection (txfast.go).
func (c *ownerConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if runtime.AdoptsTx(ctx) {
		return adoptedTx{c: c}, nil
	}
	b, ok := c.c.(driver.ConnBeginTx)
	if !ok {
		return nil, errNoInterface
	}
	c.own(ownerOf(ctx))
	return b.BeginTx(ctx, opts)
}

// AdoptsTransactions marks ownerConn a runtime.TxAdopter.
func (c *ownerConn) AdoptsTransactions() bool { return true }

// adoptedTx is a transaction begun on c by the fast path and adopted by
// database/sql (BeginTx): Commit and Rollback send COMMIT and ROLLBACK,
// with no context to watch, as go-sql-driver's own transaction does.
type adoptedTx struct{ c *ownerConn }

// Commit sends COMMIT.
func (t adoptedTx) Commit() error { return t.end("COMMIT") }

// Rollback sends ROLLBACK.
func (t adoptedTx) Rollback() error { return t.end("ROLLBACK") }

func (t adoptedTx) end(verb string) error {
	ex, ok := t.c.c.(driver.ExecerContext)
	if !ok {
		return errNoInterface
	}
	t.c.own("")
	_, err := ex.ExecContext(context.Background(), verb, nil)
	return err
}

// Ping forwards driver.Pinger.
func (c *ownerConn) Ping(ctx context.Context) error {
	p, ok := c.c.(driver.Pinger)
	if !ok {
		return nil
	}
	c.own(ownerOf(ctx))
	return p.Ping(ctx)
}

// CheckNamedValue forwards driver.NamedValueChecker.
func (c *ownerConn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.c.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// ResetSession forwards driver.SessionResetter.
func (c *ownerConn) ResetSession(ctx context.Context) error {
	if r, ok := c.c.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid forwards driver.Validator.
func (c *ownerConn) IsValid() bool {
	if v, ok := c.c.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// ownerStmt is a prepared statement of an ownerConn: each execution runs
// under the owner of its context. It forwards every interface
// go-sql-driver's statement implements: driver.Stmt, StmtExecContext,
// StmtQueryContext, NamedValueChecker and ColumnConverter.
type ownerStmt struct {
	s driver.Stmt
	c *ownerConn
}

var (
	_ driver.Stmt              = (*ownerStmt)(nil)
	_ driver.StmtExecContext   = (*ownerStmt)(nil)
	_ driver.StmtQueryContext  = (*ownerStmt)(nil)
	_ driver.NamedValueChecker = (*ownerStmt)(nil)
	_ driver.ColumnConverter   = (*ownerStmt)(nil) //nolint:staticcheck // forwarded as go-sql-driver has it
)

// Close closes the statement.
func (s *ownerStmt) Close() error { return s.s.Close() }

// NumInput forwards driver.Stmt.
func (s *ownerStmt) NumInput() int { return s.s.NumInput() }

// Exec runs the statement without an owner.
func (s *ownerStmt) Exec(args []driver.Value) (driver.Result, error) {
	s.c.own("")
	return s.s.Exec(args) //nolint:staticcheck // forwarded as go-sql-driver has it
}

// Query runs the statement without an owner.
func (s *ownerStmt) Query(args []driver.Value) (driver.Rows, error) {
	s.c.own("")
	return s.s.Query(args) //nolint:staticcheck // forwarded as go-sql-driver has it
}

// ExecContext forwards driver.StmtExecContext under ctx's owner.
func (s *ownerStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	ex, ok := s.s.(driver.StmtExecContext)
	if !ok {
		return nil, errNoInterface
	}
	s.c.own(ownerOf(ctx))
	return ex.ExecContext(ctx, args)
}

// QueryContext forwards driver.StmtQueryContext under ctx's owner.
func (s *ownerStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := s.s.(driver.StmtQueryContext)
	if !ok {
		return nil, errNoInterface
	}
	s.c.own(ownerOf(ctx))
	return q.QueryContext(ctx, args)
}

// CheckNamedValue forwards driver.NamedValueChecker.
func (s *ownerStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := s.s.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// ColumnConverter forwards driver.ColumnConverter.
func (s *ownerStmt) ColumnConverter(idx int) driver.ValueConverter {
	if cc, ok := s.s.(driver.ColumnConverter); ok { //nolint:staticcheck // forwarded as go-sql-driver has it
		return cc.ColumnConverter(idx)
	}
	return driver.DefaultParameterConverter
}
