package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// ComPrepare (COM_STMT_PREPARE) plans the statement (the plan is cached by
// its text, so every execution reuses it) and returns its result columns and
// its number of ? placeholders. The columns of a SELECT come from the back
// end: its first route unit as an impossible query (`... where 1 != 1`)
// with every placeholder NULL, on the pools (never inside the session's
// transaction).
func (h *handler) ComPrepare(c *mysql.Conn, query string) ([]*querypb.Field, uint16, error) {
	ctx, end, err := h.begin(c)
	if err != nil {
		return nil, 0, err
	}
	defer end()
	fields, n, err := h.prepare(ctx, c, query)
	if err != nil {
		sessionOf(c).rowCount = -1 // as MariaDB's after a failed prepare (rowcount.go)
		h.s.metrics.errors.Inc()
		return nil, 0, sqlError(h.s.nodeError(err))
	}
	if cc, ok := c.GetRawConn().(*clientConn); ok {
		// vitess numbers the statement c.StatementID+1 as soon as this
		// returns without error (Conn.handleComPrepare).
		cc.prepared(c.StatementID+1, n)
	}
	return fields, n, nil
}

func (h *handler) prepare(ctx context.Context, c *mysql.Conn, query string) ([]*querypb.Field, uint16, error) {
	if err := h.applyHandshakeCharset(ctx, c, sessionOf(c)); err != nil {
		return nil, 0, err
	}
	q := trimStatement(sessionOf(c).fromClient(query))
	if q == "" {
		return nil, 0, sqlerror.NewSQLError(sqlerror.EREmptyQuery, sqlerror.SSClientError, "Query was empty")
	}
	if calls, err := h.countersPrepared(q); err != nil {
		return nil, 0, err
	} else if calls {
		// Run as text with the values in place (stmtExecute), with the
		// session's counters at each execution.
		return nil, uint16(min(countPlaceholders(q), math.MaxUint16)), nil
	}
	if h.sessionPrepared(q) {
		return nil, 0, nil
	}
	if n, ok := h.infoSchemaPrepared(q); ok {
		return nil, n, nil
	}
	if isLoadData(q) {
		// MySQL's ER_UNSUPPORTED_PS.
		return nil, 0, sqlerror.NewSQLError(sqlerror.ErrorCode(1295), sqlerror.SSUnknownSQLState, "This command is not supported in the prepared statement protocol yet")
	}
	if routineStatement(q) {
		// Run as text with the values in place (stmtExecute); the result
		// sets of a CALL are known only when it runs.
		if _, err := h.routineDataSource(statementKind(q)); err != nil {
			return nil, 0, err
		}
		return nil, uint16(min(countPlaceholders(q), math.MaxUint16)), nil
	}
	// A parenthesized SELECT or UNION ("(SELECT …) UNION (SELECT …)")
	// is a SELECT; comments before it (a SHARDINGSPHERE_HINT) are skipped.
	word := ""
	for i := 0; ; {
		var w string
		if w, i = nextWord(q, i); w != "(" {
			word = strings.ToLower(w)
			break
		}
	}
	if word != "select" && word != "with" && word != "insert" && word != "update" && word != "delete" && word != "replace" {
		if err := unsupportedStatement(q); err != nil {
			return nil, 0, err
		}
		return nil, 0, notSupported("preparing " + statementKind(q) + " statements")
	}
	if err := checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName); err != nil {
		return nil, 0, err
	}
	p, err := h.s.plan(ctx, q)
	if err != nil {
		if n, ok := h.s.crossNodePrepared(q, err); ok {
			if plan.ReturnsRows(q) {
				h.s.stepsPlan(q, err, true) // planned once, for every execution (stmtExecute)
			}
			return nil, n, nil // evaluated in steps (stmtExecute)
		}
		return nil, 0, err
	}
	n := len(clientParams(p))
	if n > 65535 {
		return nil, 0, sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, "Prepared statement contains too many placeholders")
	}
	if p.Statement != plan.StmtSelect || len(p.Route.Units) == 0 {
		return nil, uint16(n), nil
	}
	cols, err := h.prepareColumns(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	charset := resultCollation(c)
	fields := make([]*querypb.Field, len(cols))
	for i := range cols {
		fields[i] = cols[i].field(charset)
	}
	return fields, uint16(n), nil
}

// sessionPrepared reports whether the prepared statement q is one the
// proxy answers itself (BEGIN, COMMIT, ROLLBACK, SET, USE, SHOW, PREVIEW
// and SELECTs without a table, as in sessionStatement) and has no ?
// placeholder: it is prepared with no parameters and no columns, and each
// execution runs it as a text statement (sysbench prepares BEGIN and
// COMMIT).
func (h *handler) sessionPrepared(q string) bool {
	if strings.Contains(q, "?") {
		return false // a statement with parameters is planned, never a session statement; checked first: parsing here cost 15 % of proxy CPU per prepared point select (docs/benchmarks.md)
	}
	if plainTx(q) != txNone {
		return true // a comment may come first
	}
	word, _ := firstWord(q)
	switch word {
	case "begin", "start", "commit", "rollback", "set", "use", "show", "preview", "do", "savepoint", "release":
	case "select":
		stmt, err := h.s.b.Parser().Parse(q)
		if err != nil || !tableless(stmt) {
			return false
		}
	default:
		return false
	}
	return true
}

// prepareColumns returns the result columns of the SELECT p without its
// parameters.
func (h *handler) prepareColumns(ctx context.Context, p *plan.Plan) ([]column, error) {
	u := p.Route.Units[0]
	stmt, err := h.s.b.Parser().Parse(u.SQL)
	if err != nil {
		return nil, err
	}
	buf := sqlparser.NewTrackedBuffer(func(buf *sqlparser.TrackedBuffer, n sqlparser.SQLNode) {
		if _, ok := n.(*sqlparser.Argument); ok {
			buf.WriteString("null")
			return
		}
		n.Format(buf)
	})
	sqlparser.FormatImpossibleQuery(buf, stmt)
	ds := -1
	for i, name := range h.s.in.names {
		if name == p.Route.DataSources[u.DataSource] {
			ds = i
		}
	}
	if ds < 0 {
		return nil, sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, "data source "+strconv.Quote(p.Route.DataSources[u.DataSource])+" is not configured")
	}
	text := buf.String()
	rows, err := h.s.in.src.Query(ctx, &runtime.Stmt{Name: "prepare", LogicSQL: p.LogicSQL}, runtime.RouteUnit{DataSource: ds, SQL: text})
	if err != nil {
		return nil, err
	}
	cols, _, err := readRows(rows)
	if err != nil {
		return nil, err
	}
	if len(cols) > len(p.Columns) {
		cols = cols[:len(p.Columns)] // derived columns of a merge
	}
	for i := range cols {
		if i < len(p.Columns) {
			cols[i].name = originalName(p.LogicSQL, p.Columns[i].Name)
		}
	}
	return cols, nil
}

// ComStmtExecute (COM_STMT_EXECUTE) runs a prepared statement with the
// values vitess decoded from the binary packet ("v1".."vN"), integers the
// client flagged unsigned read back as unsigned (see clientConn); the rows
// go back in the binary protocol, every value typed as its field.
func (h *handler) ComStmtExecute(c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	// First: every execution takes its packet's types, so the connection's
	// record stays in step even when the statement is refused.
	var unsigned []bool
	var raw, types []byte
	if cc, ok := c.GetRawConn().(*clientConn); ok && !c.TLSEnabled() {
		unsigned, raw, types = cc.takeExecution(prepare.StatementID, prepare.ParamsType)
	}
	if done, err := h.fastExecute(c, prepare, unsigned, raw, types, callback); done {
		if err != nil {
			return sqlError(err)
		}
		return nil
	}
	ctx, end, err := h.begin(c)
	if err != nil {
		return err
	}
	defer end()
	if q := trimStatement(prepare.PrepareStmt); routineStatement(q) {
		return h.stmtExecuteRoutine(ctx, c, prepare, unsigned, q, callback)
	}
	res, err := h.stmtExecute(ctx, c, prepare, unsigned)
	sessionOf(c).answered(res, err)
	h.collectWarnings(sessionOf(c), prepare.PrepareStmt, err)
	if err != nil {
		h.s.metrics.errors.Inc()
		return sqlError(h.s.nodeError(h.txAbort(c, sessionOf(c), err)))
	}
	return callback(res)
}

// stmtExecuteRoutine runs the prepared routine statement q (see routine)
// with the execution's values in place. Every result set of a CALL but the
// last result goes to the client here (writeBinaryResultSet, flagged
// SERVER_MORE_RESULTS_EXISTS); the last result, or the error, through
// vitess.
func (h *handler) stmtExecuteRoutine(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, unsigned []bool, q string, callback func(*sqltypes.Result) error) error {
	vals, err := bindArgs(prepare, unsigned, int(prepare.ParamsCount))
	var text string
	if err == nil {
		text, err = interpolate(q, vals)
	}
	var results []*sqltypes.Result
	if err == nil {
		results, err = h.routine(ctx, c, sessionOf(c), text)
	}
	sessionOf(c).answeredAll(results, err)
	h.collectWarnings(sessionOf(c), prepare.PrepareStmt, err)
	sent := len(results)
	if err == nil {
		sent-- // the OK that ends a CALL
	}
	for _, r := range results[:sent] {
		if err := writeBinaryResultSet(c, r, h.WarningCount(c)); err != nil {
			return err
		}
	}
	if err != nil {
		h.s.metrics.errors.Inc()
		return sqlError(h.s.nodeError(err))
	}
	return callback(results[sent])
}

func (h *handler) stmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, unsigned []bool) (*sqltypes.Result, error) {
	q := trimStatement(prepare.PrepareStmt)
	if h.sessionPrepared(q) {
		return h.query(ctx, c, q)
	}
	sess := sessionOf(c)
	q = sess.fromClient(q)
	// asText runs q as the text statement with the n values in place.
	asText := func(n uint16) (*sqltypes.Result, error) {
		vals, err := bindArgs(prepare, unsigned, int(n))
		if err != nil {
			return nil, err
		}
		h.s.limitValues(q, vals)
		text, err := interpolate(q, vals)
		if err != nil {
			return nil, err
		}
		return h.queryStandard(ctx, c, sess, text)
	}
	if n, ok := h.infoSchemaPrepared(q); ok {
		return asText(n)
	}
	if calls, err := h.countersPrepared(q); calls || err != nil {
		if err != nil {
			return nil, err
		}
		return asText(prepare.ParamsCount)
	}
	// steps runs q's steps plan (stepsPlan) with the execution's values.
	steps := func(pl *plan.Plan) (*sqltypes.Result, error) {
		if foreignResults(c) != "" {
			// As text, for the proxy's own operators (runSteps).
			return asText(uint16(len(pl.Args)))
		}
		vals, err := bindArgs(prepare, unsigned, len(pl.Args))
		if err != nil {
			return nil, err
		}
		if containsFold(q, "limit") {
			h.s.limitValues(q, vals)
		}
		return h.runStepsPlan(ctx, c, sess, q, pl, vals...)
	}
	if e := h.s.cachedSteps(q, true); e != nil {
		return steps(e.pl)
	}
	p, err := h.s.plan(ctx, q)
	if err != nil {
		if n, ok := h.s.crossNodePrepared(q, err); ok {
			if plan.ReturnsRows(q) {
				if pl := h.s.stepsPlan(q, err, true); pl != nil {
					return steps(pl)
				}
			}
			return asText(n) // evaluated in steps across data nodes, the values in place
		}
		return nil, err
	}
	vals, err := bindArgs(prepare, unsigned, len(clientParams(p)))
	if err != nil {
		return nil, err
	}
	return h.execute(ctx, c, sess, p, vals, false)
}

// bindArgs returns the n parameter values of an execution of prepare as Go
// values (bindValue); unsigned flags the integers the client sent as
// unsigned.
func bindArgs(prepare *mysql.PrepareData, unsigned []bool, n int) ([]any, error) {
	var err error
	vals := make([]any, n)
	for i := range vals {
		bv, ok := prepare.BindVars["v"+strconv.Itoa(i+1)]
		if !ok {
			return nil, sqlerror.NewSQLError(sqlerror.ERWrongArguments, sqlerror.SSUnknownSQLState, "Incorrect arguments to EXECUTE: parameter "+strconv.Itoa(i+1)+" is missing")
		}
		if i < len(unsigned) && unsigned[i] {
			bv = asUnsigned(bv, querypb.Type(prepare.ParamsType[i]))
		}
		if vals[i], err = bindValue(bv); err != nil {
			return nil, sqlerror.NewSQLError(sqlerror.ERWrongArguments, sqlerror.SSUnknownSQLState, "Incorrect arguments to EXECUTE: parameter "+strconv.Itoa(i+1)+": "+err.Error())
		}
	}
	return vals, nil
}

// asUnsigned returns the integer parameter bv, which vitess decoded from
// wire type typ (PrepareData.ParamsType) as signed although the client
// flagged it unsigned, as the unsigned value the client sent: vitess
// sign-extends the 1, 2, 4 or 8 bytes it read into an Int64 bind variable
// (Conn.parseStmtArgs), so their low bits give the value back exactly (-1
// from 8 bytes is 18446744073709551615, -55 from 1 byte is 201; an INT24
// is 4 bytes on the wire). Any other bv is returned as it is.
func asUnsigned(bv *querypb.BindVariable, typ querypb.Type) *querypb.BindVariable {
	if bv == nil || !sqltypes.IsSigned(bv.Type) {
		return bv
	}
	var bits uint
	switch typ {
	case sqltypes.Int8:
		bits = 8
	case sqltypes.Int16:
		bits = 16
	case sqltypes.Int24, sqltypes.Int32:
		bits = 32
	case sqltypes.Int64:
		bits = 64
	default:
		return bv
	}
	n, err := strconv.ParseInt(string(bv.Value), 10, 64)
	if err != nil {
		return bv
	}
	u := uint64(n)
	if bits < 64 {
		u &= 1<<bits - 1
	}
	return &querypb.BindVariable{Type: sqltypes.Uint64, Value: strconv.AppendUint(nil, u, 10)}
}

// Client commands and flags clientConn follows (MySQL client/server
// protocol: COM_STMT_EXECUTE, COM_STMT_CLOSE; the parameter type's
// PARAMETER_FLAG_UNSIGNED, the second byte of each type pair).
const (
	comStmtExecute = 0x17
	comStmtClose   = 0x19
	paramUnsigned  = 0x80
	// maxPacketLen is the payload length of a packet that the next one
	// continues.
	maxPacketLen = 1<<24 - 1
	// maxExecPrefix bounds what clientConn keeps of a COM_STMT_EXECUTE
	// payload after its command byte: statement id, flags, iteration
	// count, NULL bitmap, bound flag and the type pairs of 65535
	// parameters; the values are never kept.
	maxExecPrefix = 4 + 1 + 4 + (65535+7)/8 + 1 + 2*65535
	// maxPendingExecs bounds the COM_STMT_EXECUTE packets read ahead of
	// their execution (vitess reads through a 16 KiB buffer).
	maxPendingExecs = 64
)

// connectTimeout bounds a client's handshake and authentication, MySQL's
// connect_timeout default: a client that connects and then sends a partial
// handshake (or nothing) is closed instead of holding a connection for ever.
var connectTimeout = 10 * time.Second

// netWriteTimeout bounds how long the proxy waits for a client to read
// what it sends (MariaDB's net_write_timeout default, 60 s): a client
// that stops reading a result is disconnected, as MariaDB disconnects it,
// instead of holding the result and its back-end connection for ever.
// Linux only (rawsock_linux.go).
var netWriteTimeout = 60 * time.Second

// wrapClientConn is the proxy listener's PreHandleFunc: every client
// connection is read through a clientConn. TCP keep-alive is switched on
// here, as vitess does for a bare *net.TCPConn (newServerConn).
func wrapClientConn(_ context.Context, conn net.Conn, _ uint32) (net.Conn, error) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetKeepAlive(true)
	}
	// A client has connectTimeout to finish the handshake (MySQL's
	// connect_timeout); ConnectionReady lifts the deadline.
	_ = conn.SetDeadline(time.Now().Add(connectTimeout))
	raw := rawTCP(conn)
	setWriteTimeout(raw, netWriteTimeout)
	return &clientConn{Conn: raw}, nil
}

// clientConn is a client connection as vitess reads it. It follows the
// client's packets to keep what vitess v0.24.4 drops from COM_STMT_EXECUTE:
// the unsigned flag of each parameter type. parseComStmtExecute
// (go/mysql/query.go) maps each type pair with sqltypes.MySQLToType, which
// tests the column-definition flag UNSIGNED_FLAG (32), not the parameter
// flag 0x80 the protocol uses; vitess then decodes an unsigned LONGLONG as
// a signed Int64 (18446744073709551615 arrives as -1) and an unsigned
// TINY/SHORT/LONG as its two's complement. go-sql-driver sends every uint64
// as LONGLONG with that flag.
//
// The record follows the packet stream in order, as the server reads it:
// each prepared statement's parameter count (registered by ComPrepare, see
// prepared), its parameter types from the last execution that sent them
// (new-params-bound-flag 1; an execution without types reuses them, as
// vitess does), and a queue of the executions read but not yet run, each
// with the type pairs it runs with. ComStmtExecute takes the oldest
// execution of its statement (unsignedParams), dropping older ones that
// vitess refused before the handler (a malformed packet, an unknown
// statement), and uses its flags only when its types map to exactly the
// types vitess decoded with. A connection that switches to TLS is no longer
// followed (the proxy's listener offers no TLS today).
//
// Read is called by the connection's goroutine; the handler runs on the
// same goroutine; the mutex guards the record all the same.
type clientConn struct {
	net.Conn

	mu sync.Mutex
	sc packetScanner

	// h and mc are the handler and vitess's connection (set by
	// NewConnection), for COM_CHANGE_USER (changeuser.go); held are bytes
	// read after such a packet, returned by the next Read.
	h    *handler
	mc   *mysql.Conn
	held []byte

	// The fast path's rewrite of vitess's packet after a relay
	// (fastpath.go, rewriteAt): out counts the bytes written to the
	// client, writes the writes to its socket; the packet at endAt is
	// collected in end and rewritten when endArmed.
	wmu          sync.Mutex
	out          int64
	writes       int64
	endAt        int64
	endArmed     bool
	endSeq       int
	endRows      bool
	deprecateEOF bool
	end          []byte
	eof          [9]byte
	pend         []byte // relayed bytes written with the rewritten packet
	repl         []byte // the packet written instead of the armed one (replaceAfter); empty: rewritten as above

	// exec and execTypes hold the execution takeExecution returned last.
	exec, execTypes []byte
}

var _ net.Conn = (*clientConn)(nil)

// Read reads from the client and follows the packets read. A
// COM_CHANGE_USER packet at the start of a read is answered here
// (changeUser) and never reaches vitess, nor does a COM_QUERY that the
// fast path answers (directQuery).
func (c *clientConn) Read(b []byte) (int, error) {
	for {
		var n int
		var err error
		if len(c.held) > 0 {
			n = copy(b, c.held)
			c.held = c.held[n:]
		} else {
			n, err = c.Conn.Read(b)
		}
		if n == 0 {
			return n, err
		}
		if err == nil {
			// A COM_STMT_RESET first (stmtreset.go).
			if n, err = c.resetFirst(b, n); n == 0 && err == nil {
				continue
			}
		}
		if err == nil && c.directQuery(b[:n]) {
			continue // answered before vitess (fastpath_direct.go)
		}
		if err == nil {
			done, followed := c.directExecute(b[:n])
			if done {
				continue
			}
			if followed {
				return n, err // read by the scanner already
			}
		}
		c.mu.Lock()
		change := c.h != nil && n >= 5 && b[3] == 0 && b[4] == comChangeUser && c.sc.idle()
		if !change {
			// A COM_STMT_RESET after other commands waits for the next
			// read (stmtreset.go).
			if k := c.sc.scanTo(b[:n], c.mc != nil && err == nil); k < n {
				c.hold(b[k:n])
				n = k
			}
		}
		c.mu.Unlock()
		if !change {
			return n, err
		}
		c.held = append(b[:n:n], c.held...)
		if cerr := c.changeUser(); cerr != nil {
			return 0, cerr
		}
		if err != nil && len(c.held) == 0 {
			return 0, err
		}
	}
}

// SyscallConn returns the raw connection of the client's socket, so the
// disconnect watch can peek at it (watchStatement).
func (c *clientConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("proxy: the client connection has no file descriptor")
	}
	return sc.SyscallConn()
}

// following switches the following of the client's packets off (false)
// while the client sends a file for LOAD DATA LOCAL INFILE, and on again
// (true): the file's packets are no commands, and their sequence numbers
// wrap to 0 every 256 packets.
func (c *clientConn) following(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sc.data = !on
}

// prepared records that statement id has n parameters.
func (c *clientConn) prepared(id uint32, n uint16) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sc.stmts == nil {
		c.sc.stmts = map[uint32]*stmtTypes{}
	}
	c.sc.stmts[id] = &stmtTypes{n: n}
}

// unsignedParams takes the oldest execution of statement id read from the
// client and returns, per parameter, whether its integer was sent unsigned;
// nil when none is, or when the execution is unknown or its types do not
// map to vitess's types (each a querypb.Type, PrepareData.ParamsType).
func (c *clientConn) unsignedParams(id uint32, types []int32) []bool {
	out, _, _ := c.takeExecution(id, types)
	return out
}

// takeExecution is unsignedParams that also returns the execution's
// payload after its command byte and the parameter type pairs it runs
// with, for the fast path (fastpath_stmt.go): valid until the next
// execution is taken; nil when the payload was not kept whole (see
// packetScanner.execute) or its types do not map to vitess's.
func (c *clientConn) takeExecution(id uint32, types []int32) (unsigned []bool, raw, ptypes []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.sc
	for s.npending > 0 {
		e := &s.pending[s.head]
		s.head = (s.head + 1) % len(s.pending)
		s.npending--
		if e.stmt != id {
			continue // an execution vitess refused before the handler
		}
		if !e.known || len(e.types) != 2*len(types) {
			return nil, nil, nil
		}
		var out []bool
		for i, t := range types {
			vt, err := sqltypes.MySQLToType(e.types[2*i], int64(e.types[2*i+1]))
			if err != nil || int32(vt) != t {
				return nil, nil, nil
			}
			if e.types[2*i+1]&paramUnsigned != 0 {
				if out == nil {
					out = make([]bool, len(types))
				}
				out[i] = true
			}
		}
		if !e.whole {
			return out, nil, nil
		}
		// Copied: the ring slot is reused by the executions read next.
		c.exec = append(c.exec[:0], e.raw...)
		c.execTypes = append(c.execTypes[:0], e.types...)
		return out, c.exec, c.execTypes
	}
	return nil, nil, nil
}

// packetScanner follows the packets a client sends (see clientConn).
type packetScanner struct {
	off     bool // not following: the client asked for TLS
	data    bool // the packets are a LOCAL INFILE file's, not commands (clientConn.following)
	packets int  // packets begun (the first is the handshake response)
	hdr     [4]byte
	nhdr    int  // header bytes read of the next packet
	left    int  // payload bytes still to come of the current packet
	more    bool // the current packet is maxPacketLen long: the next continues its payload
	start   bool // the next payload byte is the first of a payload
	cmd     byte // what the current payload is (scan* below)
	buf     []byte
	size    int                   // payload bytes of the current payload so far
	stmts   map[uint32]*stmtTypes // by statement id
	// pending is a ring of the executions read and not taken, the oldest
	// at head.
	pending  []execTypes
	head     int
	npending int
}

// What a payload being read is, for the scanner.
const (
	scanSkip      byte = iota // not followed
	scanHandshake             // the handshake response (or SSL request)
	scanExecute               // COM_STMT_EXECUTE
	scanClose                 // COM_STMT_CLOSE
	scanLongData              // COM_STMT_SEND_LONG_DATA
	scanReset                 // COM_STMT_RESET
)

// stmtTypes is what the scanner knows of one prepared statement.
type stmtTypes struct {
	n        uint16
	types    []byte // the type pairs last sent, nil before any
	longData bool   // COM_STMT_SEND_LONG_DATA since the last execution
}

// execTypes is one COM_STMT_EXECUTE read: the statement and the type
// pairs it runs with (known false: the packet was too short to tell).
type execTypes struct {
	stmt  uint32
	known bool
	types []byte
	// whole says raw is the execution's payload after the command byte,
	// for the fast path: kept when it is at most maxStmtPacket bytes and
	// sends no parameter as long data.
	whole bool
	raw   []byte
}

// scan follows b, the next bytes from the client.
func (s *packetScanner) scan(b []byte) {
	s.scanTo(b, false)
}

// scanTo follows b and returns how many of its bytes it followed: all,
// or with stopAtReset, those before the first command after the start of
// b that may be a COM_STMT_RESET (stmtreset.go).
func (s *packetScanner) scanTo(b []byte, stopAtReset bool) int {
	all := len(b)
	for len(b) > 0 && !s.off {
		if s.left == 0 {
			if stopAtReset && len(b) < all && s.nhdr == 0 && !s.more && !s.data && s.packets > 0 && maybeReset(b) {
				return all - len(b)
			}
			k := copy(s.hdr[s.nhdr:], b)
			s.nhdr += k
			b = b[k:]
			if s.nhdr < len(s.hdr) {
				return all
			}
			s.nhdr = 0
			n := int(s.hdr[0]) | int(s.hdr[1])<<8 | int(s.hdr[2])<<16
			s.begin(n, s.hdr[3])
			if n == 0 {
				s.end()
			}
			continue
		}
		k := min(s.left, len(b))
		s.payload(b[:k])
		s.left -= k
		b = b[k:]
		if s.left == 0 {
			s.end()
		}
	}
	return all
}

// idle reports whether the next byte read starts a packet that begins a
// command (the client's packets so far all complete), the handshake done.
func (s *packetScanner) idle() bool {
	return !s.off && s.packets > 0 && s.left == 0 && s.nhdr == 0 && !s.more
}

// begin starts a packet of n payload bytes and sequence number seq.
func (s *packetScanner) begin(n int, seq byte) {
	s.packets++
	if !s.more {
		s.start = true
		s.buf = s.buf[:0]
		s.size = 0
		switch {
		case s.packets == 1:
			s.cmd = scanHandshake
		case s.data:
			s.cmd = scanSkip
			s.start = false
		case seq == 0:
			s.cmd = scanSkip // a command: its first byte tells which
		default:
			s.cmd = scanSkip // an authentication exchange
			s.start = false
		}
	}
	s.more = n == maxPacketLen
	s.left = n
}

// payload follows the payload bytes p of the current packet.
func (s *packetScanner) payload(p []byte) {
	if s.start {
		s.start = false
		if s.cmd != scanHandshake {
			switch p[0] {
			case comStmtExecute:
				s.cmd = scanExecute
			case comStmtClose:
				s.cmd = scanClose
			case comStmtSend:
				s.cmd = scanLongData
			case comStmtReset:
				s.cmd = scanReset
			}
			p = p[1:]
		}
	}
	if s.cmd == scanSkip {
		return
	}
	limit := maxExecPrefix
	if s.cmd == scanLongData || s.cmd == scanReset {
		limit = 4 // the statement id
	}
	if room := limit - len(s.buf); room > 0 {
		s.buf = append(s.buf, p[:min(room, len(p))]...)
	}
	s.size += len(p)
}

// end ends the current packet; a payload that the next packet does not
// continue is complete.
func (s *packetScanner) end() {
	if s.more {
		return
	}
	switch s.cmd {
	case scanHandshake:
		if len(s.buf) >= 4 && binary.LittleEndian.Uint32(s.buf)&mysql.CapabilityClientSSL != 0 {
			s.off = true // TLS follows: no more packets in the clear
			s.stmts, s.pending, s.npending = nil, nil, 0
		}
	case scanExecute:
		s.execute(s.buf)
	case scanClose:
		if len(s.buf) >= 4 {
			delete(s.stmts, binary.LittleEndian.Uint32(s.buf))
		}
	case scanLongData, scanReset:
		// Long data goes with the next execution (vitess merges it into
		// its values), which the fast path then leaves; a reset drops it.
		if len(s.buf) >= 4 {
			if st := s.stmts[binary.LittleEndian.Uint32(s.buf)]; st != nil {
				st.longData = s.cmd == scanLongData
			}
		}
	}
	s.cmd = scanSkip
}

// execute records a COM_STMT_EXECUTE payload (after its command byte) the
// way vitess's parseComStmtExecute reads it.
func (s *packetScanner) execute(p []byte) {
	if len(p) < 4 {
		return // vitess refuses it without a statement id
	}
	id := binary.LittleEndian.Uint32(p)
	st := s.stmts[id]
	if st == nil {
		return // vitess refuses an unknown statement before the handler
	}
	n := int(st.n)
	pos := 4 + 1 + 4
	if n > 0 {
		pos += (n + 7) / 8
	}
	known := true
	if pos < len(p) && p[pos] == 1 { // new-params-bound-flag
		pos++
		if len(p) < pos+2*n {
			known = false
		} else {
			st.types = append(st.types[:0], p[pos:pos+2*n]...)
		}
	}
	if known && st.types == nil && n > 0 {
		known = false // never sent: vitess decodes with zero types
	}
	if s.pending == nil {
		s.pending = make([]execTypes, maxPendingExecs)
	}
	if s.npending == len(s.pending) { // drop the oldest
		s.head = (s.head + 1) % len(s.pending)
		s.npending--
	}
	e := &s.pending[(s.head+s.npending)%len(s.pending)]
	s.npending++
	e.stmt, e.known = id, known
	e.types = append(e.types[:0], st.types...)
	e.whole = known && !st.longData && s.size == len(p) && len(p) <= maxStmtPacket
	e.raw = e.raw[:0]
	if e.whole {
		e.raw = append(e.raw, p...)
	}
	st.longData = false
}
