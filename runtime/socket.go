package runtime

import (
	"context"
	"database/sql/driver"
	"errors"
	"net"
	"reflect"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// A read on an open connection that passes the data source's socket
// timeout makes go-sql-driver close the connection and return
// mysql.ErrInvalidConn ("invalid connection"), which says nothing of the
// limit. When a data source has a socket timeout, its connections are
// therefore dialled through readConn, which notes a read past its
// deadline, and handed to database/sql as a socketConn, which turns that
// ErrInvalidConn, from any call on the connection, its statements, rows
// and transactions, into the data source's *TimeoutError. A data source
// without a socket timeout keeps the driver's connections unwrapped.

// readSlotKey is the context key of the readSlot of one Connect
// (timeoutConnector), which the data source's DialFunc fills.
type readSlotKey struct{}

// readSlot receives the readConn dialled for one connection.
type readSlot struct{ rc *readConn }

// readConn is the network connection of a data source with a socket
// timeout: it notes a read that passed its deadline. go-sql-driver uses
// it from one goroutine at a time.
type readConn struct {
	net.Conn
	timedOut bool // a read passed its deadline: the driver closes the connection
}

// Read reads, noting a deadline that passed.
func (c *readConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil && IsTimeout(err) {
		c.timedOut = true
	}
	return n, err
}

// SyscallConn returns the socket's raw connection, so that go-sql-driver's
// liveness check of an idle connection (checkConnLiveness) still sees a
// connection the server closed.
func (c *readConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("runtime: the data source's connection has no raw socket")
	}
	return sc.SyscallConn()
}

// readDialer returns the DialFunc of a data source with a socket timeout:
// dial (nil: a net.Dialer's, with TCP keep-alives as go-sql-driver sets
// them), its connection wrapped in a readConn that it puts in the
// context's readSlot.
func readDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if dial == nil {
		var d net.Dialer // KeepAlive 0: enabled, at Go's default period
		dial = d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		rc := &readConn{Conn: conn}
		if slot, ok := ctx.Value(readSlotKey{}).(*readSlot); ok {
			slot.rc = rc
		}
		return rc, nil
	}
}

// socketConn is a go-sql-driver connection whose errors after a read past
// the socket timeout are te. It forwards every interface the driver's
// connection implements: driver.Conn, Execer, Queryer, ExecerContext,
// QueryerContext, ConnPrepareContext, ConnBeginTx, Pinger,
// NamedValueChecker, SessionResetter and Validator; its statements, rows
// and transactions are wrapped alike.
type socketConn struct {
	c  driver.Conn
	rc *readConn
	te *TimeoutError
}

var (
	_ driver.Conn               = (*socketConn)(nil)
	_ driver.Execer             = (*socketConn)(nil) //nolint:staticcheck // forwarded as go-sql-driver has it
	_ driver.Queryer            = (*socketConn)(nil) //nolint:staticcheck // forwarded as go-sql-driver has it
	_ driver.ExecerContext      = (*socketConn)(nil)
	_ driver.QueryerContext     = (*socketConn)(nil)
	_ driver.ConnPrepareContext = (*socketConn)(nil)
	_ driver.ConnBeginTx        = (*socketConn)(nil)
	_ driver.Pinger             = (*socketConn)(nil)
	_ driver.NamedValueChecker  = (*socketConn)(nil)
	_ driver.SessionResetter    = (*socketConn)(nil)
	_ driver.Validator          = (*socketConn)(nil)
)

// errNoDriverInterface is returned for an optional driver interface the
// wrapped connection lacks (never with go-sql-driver, which has them all).
var errNoDriverInterface = errors.New("runtime: the driver connection lacks an interface")

// timeout returns err, or a copy of the data source's *TimeoutError when
// err is the driver's answer to a read past the socket timeout.
func (c *socketConn) timeout(err error) error {
	if err != nil && c.rc.timedOut && errors.Is(err, mysql.ErrInvalidConn) {
		te := *c.te
		return &te
	}
	return err
}

// rows wraps the driver's rows r (nil stays nil).
func (c *socketConn) rows(r driver.Rows, err error) (driver.Rows, error) {
	if err != nil {
		return nil, c.timeout(err)
	}
	return &socketRows{r: r, c: c}, nil
}

// Prepare forwards driver.Conn.
func (c *socketConn) Prepare(query string) (driver.Stmt, error) {
	st, err := c.c.Prepare(query)
	if err != nil {
		return nil, c.timeout(err)
	}
	return &socketStmt{s: st, c: c}, nil
}

// Close closes the connection.
func (c *socketConn) Close() error { return c.c.Close() }

// Begin forwards driver.Conn.
func (c *socketConn) Begin() (driver.Tx, error) {
	tx, err := c.c.Begin() //nolint:staticcheck // forwarded as go-sql-driver has it
	if err != nil {
		return nil, c.timeout(err)
	}
	return &socketTx{t: tx, c: c}, nil
}

// Exec forwards driver.Execer.
func (c *socketConn) Exec(query string, args []driver.Value) (driver.Result, error) {
	ex, ok := c.c.(driver.Execer) //nolint:staticcheck // forwarded as go-sql-driver has it
	if !ok {
		return nil, driver.ErrSkip
	}
	res, err := ex.Exec(query, args)
	return res, c.timeout(err)
}

// Query forwards driver.Queryer.
func (c *socketConn) Query(query string, args []driver.Value) (driver.Rows, error) {
	q, ok := c.c.(driver.Queryer) //nolint:staticcheck // forwarded as go-sql-driver has it
	if !ok {
		return nil, driver.ErrSkip
	}
	return c.rows(q.Query(query, args))
}

// ExecContext forwards driver.ExecerContext.
func (c *socketConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	ex, ok := c.c.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	res, err := ex.ExecContext(ctx, query, args)
	return res, c.timeout(err)
}

// QueryContext forwards driver.QueryerContext.
func (c *socketConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.c.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return c.rows(q.QueryContext(ctx, query, args))
}

// PrepareContext forwards driver.ConnPrepareContext.
func (c *socketConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	p, ok := c.c.(driver.ConnPrepareContext)
	if !ok {
		return c.Prepare(query)
	}
	st, err := p.PrepareContext(ctx, query)
	if err != nil {
		return nil, c.timeout(err)
	}
	return &socketStmt{s: st, c: c}, nil
}

// BeginTx forwards driver.ConnBeginTx.
func (c *socketConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	b, ok := c.c.(driver.ConnBeginTx)
	if !ok {
		return nil, errNoDriverInterface
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, c.timeout(err)
	}
	return &socketTx{t: tx, c: c}, nil
}

// Ping forwards driver.Pinger.
func (c *socketConn) Ping(ctx context.Context) error {
	if p, ok := c.c.(driver.Pinger); ok {
		return c.timeout(p.Ping(ctx))
	}
	return nil
}

// CheckNamedValue forwards driver.NamedValueChecker.
func (c *socketConn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.c.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// ResetSession forwards driver.SessionResetter.
func (c *socketConn) ResetSession(ctx context.Context) error {
	if r, ok := c.c.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid forwards driver.Validator.
func (c *socketConn) IsValid() bool {
	if v, ok := c.c.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// socketStmt is a prepared statement of a socketConn. It forwards every
// interface go-sql-driver's statement implements: driver.Stmt,
// StmtExecContext, StmtQueryContext, NamedValueChecker and ColumnConverter.
type socketStmt struct {
	s driver.Stmt
	c *socketConn
}

var (
	_ driver.Stmt              = (*socketStmt)(nil)
	_ driver.StmtExecContext   = (*socketStmt)(nil)
	_ driver.StmtQueryContext  = (*socketStmt)(nil)
	_ driver.NamedValueChecker = (*socketStmt)(nil)
	_ driver.ColumnConverter   = (*socketStmt)(nil) //nolint:staticcheck // forwarded as go-sql-driver has it
)

// Close closes the statement.
func (s *socketStmt) Close() error { return s.c.timeout(s.s.Close()) }

// NumInput forwards driver.Stmt.
func (s *socketStmt) NumInput() int { return s.s.NumInput() }

// Exec forwards driver.Stmt.
func (s *socketStmt) Exec(args []driver.Value) (driver.Result, error) {
	res, err := s.s.Exec(args) //nolint:staticcheck // forwarded as go-sql-driver has it
	return res, s.c.timeout(err)
}

// Query forwards driver.Stmt.
func (s *socketStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.c.rows(s.s.Query(args)) //nolint:staticcheck // forwarded as go-sql-driver has it
}

// ExecContext forwards driver.StmtExecContext.
func (s *socketStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	ex, ok := s.s.(driver.StmtExecContext)
	if !ok {
		return nil, errNoDriverInterface
	}
	res, err := ex.ExecContext(ctx, args)
	return res, s.c.timeout(err)
}

// QueryContext forwards driver.StmtQueryContext.
func (s *socketStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := s.s.(driver.StmtQueryContext)
	if !ok {
		return nil, errNoDriverInterface
	}
	return s.c.rows(q.QueryContext(ctx, args))
}

// CheckNamedValue forwards driver.NamedValueChecker.
func (s *socketStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := s.s.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// ColumnConverter forwards driver.ColumnConverter.
func (s *socketStmt) ColumnConverter(idx int) driver.ValueConverter {
	if cc, ok := s.s.(driver.ColumnConverter); ok { //nolint:staticcheck // forwarded as go-sql-driver has it
		return cc.ColumnConverter(idx)
	}
	return driver.DefaultParameterConverter
}

// socketTx is a transaction of a socketConn.
type socketTx struct {
	t driver.Tx
	c *socketConn
}

// Commit forwards driver.Tx.
func (t *socketTx) Commit() error { return t.c.timeout(t.t.Commit()) }

// Rollback forwards driver.Tx; after a read past the socket timeout it
// succeeds without a round trip: the driver closed the connection, and
// the server discards the transaction of a closed connection (the
// statement's error has said why).
func (t *socketTx) Rollback() error {
	if t.c.rc.timedOut {
		return nil
	}
	return t.c.timeout(t.t.Rollback())
}

// socketRows are the rows of a socketConn's query: a read past the socket
// timeout while they arrive is the data source's *TimeoutError. It
// forwards every interface go-sql-driver's rows implement: driver.Rows,
// RowsNextResultSet and the RowsColumnType ones but Length.
type socketRows struct {
	r driver.Rows
	c *socketConn
}

var (
	_ driver.Rows                           = (*socketRows)(nil)
	_ driver.RowsNextResultSet              = (*socketRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*socketRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*socketRows)(nil)
	_ driver.RowsColumnTypeNullable         = (*socketRows)(nil)
	_ driver.RowsColumnTypePrecisionScale   = (*socketRows)(nil)
)

// Columns forwards driver.Rows.
func (r *socketRows) Columns() []string { return r.r.Columns() }

// Close forwards driver.Rows.
func (r *socketRows) Close() error { return r.c.timeout(r.r.Close()) }

// Next forwards driver.Rows.
func (r *socketRows) Next(dest []driver.Value) error { return r.c.timeout(r.r.Next(dest)) }

// HasNextResultSet forwards driver.RowsNextResultSet.
func (r *socketRows) HasNextResultSet() bool {
	n, ok := r.r.(driver.RowsNextResultSet)
	return ok && n.HasNextResultSet()
}

// NextResultSet forwards driver.RowsNextResultSet.
func (r *socketRows) NextResultSet() error {
	n, ok := r.r.(driver.RowsNextResultSet)
	if !ok {
		return errNoDriverInterface
	}
	return r.c.timeout(n.NextResultSet())
}

// ColumnTypeScanType forwards driver.RowsColumnTypeScanType.
func (r *socketRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.r.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

// ColumnTypeDatabaseTypeName forwards driver.RowsColumnTypeDatabaseTypeName.
func (r *socketRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.r.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

// ColumnTypeNullable forwards driver.RowsColumnTypeNullable.
func (r *socketRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.r.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

// ColumnTypePrecisionScale forwards driver.RowsColumnTypePrecisionScale.
func (r *socketRows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	if t, ok := r.r.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}
