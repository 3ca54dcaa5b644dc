package proxy

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/vtenv"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// handler implements vitess mysql.Handler for a Server. vitess calls it
// from one goroutine per client connection, serialized per connection, so
// the per-connection session (Conn.ClientData) needs no lock.
type handler struct {
	s *Server
}

var _ mysql.Handler = (*handler)(nil)

// session is the state of one client connection.
type session struct {
	db string      // current database ("" before USE)
	tx *runtime.Tx // open transaction, nil in autocommit
}

// NewConnection registers c (Close closes it).
func (h *handler) NewConnection(c *mysql.Conn) {
	c.ClientData = &session{}
	c.StatusFlags |= mysql.ServerStatusAutocommit
	h.s.mu.Lock()
	h.s.conns[c] = struct{}{}
	h.s.mu.Unlock()
}

// ConnectionReady is called after authentication; nothing to do.
func (h *handler) ConnectionReady(*mysql.Conn) {}

// ConnectionClosed rolls back an open transaction and forgets c.
func (h *handler) ConnectionClosed(c *mysql.Conn) {
	if sess, ok := c.ClientData.(*session); ok && sess.tx != nil {
		_ = sess.tx.Rollback()
		sess.tx = nil
	}
	h.s.mu.Lock()
	delete(h.s.conns, c)
	h.s.mu.Unlock()
}

// ComResetConnection (COM_RESET_CONNECTION) rolls back and clears the
// session, keeping the database as MySQL does.
func (h *handler) ComResetConnection(c *mysql.Conn) {
	sess := sessionOf(c)
	if sess.tx != nil {
		_ = sess.tx.Rollback()
		sess.tx = nil
	}
}

// Env returns the vitess environment (parser, advertised version).
func (h *handler) Env() *vtenv.Environment { return h.s.env }

// WarningCount is always 0: warnings of the back ends are not relayed.
func (h *handler) WarningCount(*mysql.Conn) uint16 { return 0 }

// ComQueryMulti is not used: the listener splits multi-statements.
func (h *handler) ComQueryMulti(c *mysql.Conn, sql string, callback func(qr sqltypes.QueryResponse, more bool, firstPacket bool) error) error {
	return notSupported("multi-statement queries")
}

// ComRegisterReplica refuses replication.
func (h *handler) ComRegisterReplica(*mysql.Conn, string, uint16, string, string) error {
	return notSupported("replication")
}

// ComBinlogDump refuses replication.
func (h *handler) ComBinlogDump(*mysql.Conn, string, uint32) error {
	return notSupported("replication")
}

// ComBinlogDumpGTID refuses replication.
func (h *handler) ComBinlogDumpGTID(*mysql.Conn, string, uint64, replication.GTIDSet, uint16) error {
	return notSupported("replication")
}

func sessionOf(c *mysql.Conn) *session {
	if sess, ok := c.ClientData.(*session); ok {
		return sess
	}
	sess := &session{}
	c.ClientData = sess
	return sess
}

func notSupported(what string) error {
	return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000", "This version of the shardgen proxy doesn't yet support "+what)
}

// begin counts a running statement; the returned func ends it. Close waits
// for running statements.
func (h *handler) begin() (context.Context, func(), error) {
	if h.s.closing.Load() {
		return nil, nil, sqlerror.NewSQLError(sqlerror.ERServerShutdown, sqlerror.SSNetError, "Server shutdown in progress")
	}
	h.s.inflight.Add(1)
	return h.s.ctx, func() { h.s.inflight.Add(-1) }, nil
}

// ComQuery runs one statement of the text protocol.
func (h *handler) ComQuery(c *mysql.Conn, query string, callback func(*sqltypes.Result) error) error {
	ctx, end, err := h.begin()
	if err != nil {
		return err
	}
	defer end()
	res, err := h.query(ctx, c, query)
	if err != nil {
		return sqlError(err)
	}
	return callback(res)
}

// query answers one text-protocol statement.
func (h *handler) query(ctx context.Context, c *mysql.Conn, query string) (*sqltypes.Result, error) {
	sess := sessionOf(c)
	q := trimStatement(query)
	if q == "" {
		return nil, sqlerror.NewSQLError(sqlerror.EREmptyQuery, sqlerror.SSClientError, "Query was empty")
	}
	if res, ok, err := h.sessionStatement(ctx, c, sess, q); ok {
		return res, err
	}
	if err := checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName); err != nil {
		return nil, err
	}
	p, err := h.s.plan(q)
	if err != nil {
		return nil, err
	}
	if len(clientParams(p)) != 0 {
		return nil, sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "placeholders (?) need a prepared statement")
	}
	return h.execute(ctx, c, sess, p, nil)
}

// execute runs p with the clients' parameter values and converts the result.
func (h *handler) execute(ctx context.Context, c *mysql.Conn, sess *session, p *plan.Plan, client []any) (*sqltypes.Result, error) {
	params := make([]any, len(p.Params))
	for i, pi := range clientParams(p) {
		if i < len(client) {
			params[pi] = client[i]
		}
	}
	var e runtime.Executor = h.s.in.src
	if sess.tx != nil {
		e = sess.tx
	}
	w, err := h.s.in.executeWire(ctx, e, p, params, h.s.keyGenerator(p))
	if err != nil {
		return nil, err
	}
	if p.Statement != plan.StmtSelect {
		return &sqltypes.Result{RowsAffected: uint64(w.RowsAffected), InsertID: uint64(w.LastInsertID)}, nil
	}
	for i := range w.columns {
		w.columns[i].name = originalName(p.LogicSQL, w.columns[i].name)
	}
	return rowsResult(w.columns, w.Rows, clientCollation(c.CharacterSet))
}

// rowsResult converts rows of database/sql values to a MySQL result.
func rowsResult(cols []column, rows [][]any, charset uint32) (*sqltypes.Result, error) {
	res := &sqltypes.Result{Fields: make([]*querypb.Field, len(cols)), Rows: make([]sqltypes.Row, 0, len(rows))}
	for i := range cols {
		res.Fields[i] = cols[i].field(charset)
	}
	for _, r := range rows {
		if len(r) < len(cols) {
			return nil, errors.New("a row has " + strconv.Itoa(len(r)) + " columns, the result " + strconv.Itoa(len(cols)))
		}
		row := make(sqltypes.Row, len(cols))
		for i := range cols {
			v, err := textValue(&cols[i], r[i])
			if err != nil {
				return nil, err
			}
			row[i] = v
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// clientParams returns the indexes in p.Params of the values a client
// supplies, in placeholder order: every parameter but generated keys.
func clientParams(p *plan.Plan) []int {
	out := make([]int, 0, len(p.Params))
	for i, prm := range p.Params {
		if !prm.Generated {
			out = append(out, i)
		}
	}
	return out
}

// plan returns the cached plan of the statement q, or builds and caches it.
func (s *Server) plan(q string) (*plan.Plan, error) {
	if p := s.cache.get(q); p != nil {
		return p, nil
	}
	cmd := schema.CmdExec
	if plan.ReturnsRows(q) {
		cmd = schema.CmdMany
	}
	pos := schema.Pos{File: "<sql>", Line: 1, Col: 1}
	p, err := s.b.Build(&schema.Query{Name: "proxy", Cmd: cmd, SQL: q, AllowFullRoute: true, Pos: pos, SQLPos: pos})
	if err != nil {
		return nil, err
	}
	s.cache.put(q, p)
	return p, nil
}

// trimStatement drops surrounding white space and trailing semicolons.
func trimStatement(q string) string {
	q = strings.TrimSpace(q)
	for strings.HasSuffix(q, ";") {
		q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
	}
	return q
}

// sqlError turns an error into the MySQL error a client expects:
//   - a *sqlerror.SQLError as it is;
//   - a back end's error (go-sql-driver *MySQLError, possibly wrapped in a
//     runtime.NodeError) with its own number, SQL state and message;
//   - a planner refusal (*schema.Error) as ERROR 1235 (42000) with the
//     planner's reason, and a syntax error as ERROR 1064 (42000);
//   - anything else as ERROR 1105 (HY000) with its text.
func sqlError(err error) error {
	var se *sqlerror.SQLError
	if errors.As(err, &se) {
		return se
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		state := string(me.SQLState[:])
		if me.SQLState == [5]byte{} {
			state = sqlerror.SSUnknownSQLState
		}
		return sqlerror.NewSQLError(sqlerror.ErrorCode(me.Number), state, me.Message)
	}
	var list schema.Errors
	if errors.As(err, &list) && len(list) > 0 {
		err = list[0]
	}
	var pe *schema.Error
	if errors.As(err, &pe) {
		msg := strings.TrimPrefix(pe.Msg, `query "proxy": `)
		if strings.HasPrefix(msg, "syntax error") {
			return sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "You have an error in your SQL syntax; "+msg)
		}
		return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000", msg)
	}
	if errors.Is(err, context.Canceled) {
		return sqlerror.NewSQLError(sqlerror.ERQueryInterrupted, "70100", "Query execution was interrupted")
	}
	return sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, err.Error())
}

// readRows reads every row of rows with its column types.
func readRows(rows *sql.Rows) ([]column, [][]any, error) {
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, nil, err
	}
	cols := make([]column, len(types))
	for i, t := range types {
		cols[i] = columnOf(t.Name(), t)
	}
	var out [][]any
	for rows.Next() {
		r, err := scanAll(rows)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, r)
	}
	return cols, out, rows.Err()
}

// bindValue converts one parameter of COM_STMT_EXECUTE (decoded by vitess
// from the binary protocol) to the Go value database/sql would carry:
// integers int64/uint64, floats float64, DATE/DATETIME/TIMESTAMP
// time.Time (the text when it is a zero date), NULL nil, and everything
// else (strings, DECIMAL, TIME, blobs) its text as a string.
func bindValue(bv *querypb.BindVariable) (any, error) {
	if bv == nil {
		return nil, nil
	}
	t, v := bv.Type, string(bv.Value)
	switch {
	case t == sqltypes.Null:
		return nil, nil
	case sqltypes.IsSigned(t):
		return strconv.ParseInt(v, 10, 64)
	case sqltypes.IsUnsigned(t):
		return strconv.ParseUint(v, 10, 64)
	case sqltypes.IsFloat(t):
		return strconv.ParseFloat(v, 64)
	case t == sqltypes.Datetime || t == sqltypes.Timestamp || t == sqltypes.Date:
		for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02"} {
			if tm, err := time.Parse(layout, v); err == nil {
				return tm, nil
			}
		}
		return v, nil
	}
	return v, nil
}
