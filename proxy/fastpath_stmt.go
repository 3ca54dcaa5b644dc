package proxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// The fast path of prepared statements (issue 13). A client's
// COM_STMT_EXECUTE of a statement whose plan the fast path takes (a SELECT
// as learnShape decides: one data node, no merge, no decryption, no
// encrypted or generated parameter; or a write as writeShape decides),
// whose data node's SQL takes the client's parameters one for one and in
// order, runs as a prepared
// statement of the data source's packet connection: each connection
// prepares a data node's SQL once, the first time it runs it
// (backendStmts, by text), and keeps it while it lives. The execution
// packet is the client's with the back end's statement id: the NULL bitmap,
// the parameter types (the ones the client sent last when this execution
// sends none) and the values are forwarded as the client sent them, never
// decoded; the route is the one the values decoded by vitess give. The
// binary result is relayed as the text fast path relays its rows (relay):
// the column definitions rewritten where they name actual tables, rows as
// read, the end packet with the proxy's status flags and the statement's
// warning count. A write's OK packet is the back end's (affected rows,
// insert id, warnings, info) with the proxy's status flags (relayOK); a
// session with CLIENT_FOUND_ROWS runs writes the other way, as the packet
// pools count changed rows.
//
// An execution takes the database/sql path instead when the session may
// not take the fast path (fastSession), when clientConn did not keep its
// packet whole (a parameter sent with COM_STMT_SEND_LONG_DATA, a packet
// over maxStmtPacket, TLS, types vitess decodes differently), when it asks
// for a cursor (flags other than 0), when its plan is not one of the above,
// and when the data source refuses to prepare the SQL.
//
// The back end is read here through a reader of the connection's own
// (backendStmts.rd) and written on its socket directly: vitess's client
// Conn has no way to send a command other than COM_QUERY with the
// sequence id 0. Its buffered reader is empty between statements, as the
// back end sends nothing unasked, so the two readers never share bytes.

// maxStmtPacket bounds the COM_STMT_EXECUTE payloads that clientConn keeps
// whole for the fast path.
const maxStmtPacket = 64 << 10

// maxBackendStmts bounds the statements a back-end connection keeps
// prepared; at the bound it closes them all and starts again.
const maxBackendStmts = 256

// MySQL commands the fast path sends to the back end.
const (
	comStmtPrepare = 0x16
	comStmtReset   = 0x1a
	comStmtSend    = 0x18
)

// stmtShape is what a prepared statement's text runs on the fast path.
type stmtShape struct {
	sh    *fastShape // the plan and its fast routes by data source
	n     int        // the client's parameters
	write bool       // an INSERT, UPDATE or DELETE
	off   bool       // a data source refused it, or its result did not match
}

// stmtCache holds, by prepared statement text, its stmtShape or nil when
// the fast path does not take it. Cleared with the plan cache.
type stmtCache struct{ fastCacheOf[*stmtShape] }

// learnStmt returns the stmtShape of the prepared statement text q (as
// the proxy parses it), deciding it once per text; nil when the fast path
// does not take it.
func (h *handler) learnStmt(q string) *stmtShape {
	s := h.s
	if v, ok := s.stmts.m.Load(q); ok {
		return v.(*stmtShape)
	}
	p := s.cache.get(q)
	if p == nil {
		return nil // not planned yet (or never cached): decided later
	}
	var ss *stmtShape
	if !h.sessionPrepared(q) && !routineStatement(q) && !diagnostics(q) && !counterText(q) {
		if _, info := h.infoSchemaPrepared(q); !info && stmtForwardable(p) {
			var sh *fastShape
			if p.Statement == plan.StmtSelect {
				sh = h.learnShape(p)
			} else {
				sh = h.writeShape(p)
			}
			if sh != nil {
				ss = &stmtShape{sh: sh, n: len(p.Params), write: p.Statement != plan.StmtSelect}
			}
		}
	}
	s.stmts.put(q, ss)
	return ss
}

// writeShape returns the fast routes of the write p: an INSERT of one row,
// an UPDATE or a DELETE with no merge, no generated key and no broadcast,
// whose OK packet the fast path relays (relayOK); nil for any other plan.
// learnShape takes them for the text path too.
func (h *handler) writeShape(p *plan.Plan) *fastShape {
	s := h.s
	switch p.Statement {
	case plan.StmtInsert, plan.StmtUpdate, plan.StmtDelete:
	default:
		return nil
	}
	if p.Merge != nil || p.Insert != nil || p.KeyGenerate != nil || p.Route == nil || p.Route.Kind == runtime.RouteBroadcast || p.Route.Pushdown {
		return nil
	}
	for _, na := range p.NodeArgs {
		if na.Encrypt != "" || na.LimitSum {
			return nil
		}
	}
	for _, prm := range p.Params {
		if prm.Generated {
			return nil
		}
	}
	route := p.Route.Kind.String()
	sh := newFastShape(p)
	sh.routes = make([]*fastRoute, len(s.backends))
	for ds, pool := range s.backends {
		if pool != nil {
			sh.routes[ds] = &fastRoute{pool: pool, ds: ds, write: true, tables: s.actualTables(ds), db: s.cfg.Rules.DatabaseName,
				queries: s.metrics.queries.WithLabelValues(route), latency: s.metrics.latency.WithLabelValues(route)}
		}
	}
	return sh
}

// stmtForwardable reports whether the data node SQL of p takes the
// client's parameters one for one, in order, as they are.
func stmtForwardable(p *plan.Plan) bool {
	if p.Slice != nil || p.Insert != nil || p.KeyGenerate != nil || p.Route == nil || len(p.Route.Units) == 0 {
		return false
	}
	for _, prm := range p.Params {
		if prm.Generated || prm.Slice {
			return false
		}
	}
	if p.NodeArgs != nil {
		if len(p.NodeArgs) != len(p.Params) {
			return false
		}
		for i, na := range p.NodeArgs {
			if na.Literal != nil || na.LimitSum || na.Encrypt != "" || na.Param != i {
				return false
			}
		}
		return true
	}
	if len(p.Args) != len(p.Params) {
		return false
	}
	for i, a := range p.Args {
		if a != i {
			return false
		}
	}
	return true
}

// fastExecute runs the execution of prepare whose packet clientConn kept
// (raw: its payload after the command byte, types: the parameter types it
// runs with) on the fast path when it may (see the top of the file). done
// is false when nothing went to the client and the execution must take
// the database/sql path; otherwise err is its error (sent by vitess) or nil.
func (h *handler) fastExecute(c *mysql.Conn, prepare *mysql.PrepareData, unsigned []bool, raw, types []byte, callback func(*sqltypes.Result) error) (done bool, err error) {
	return h.fastExecuteArgs(c, prepare, unsigned, raw, types, nil, callback)
}

// fastExecuteArgs is fastExecute with the parameters' values already
// decoded (vals, one per parameter; nil: from vitess's bind variables).
func (h *handler) fastExecuteArgs(c *mysql.Conn, prepare *mysql.PrepareData, unsigned []bool, raw, types []byte, vals []any, callback func(*sqltypes.Result) error) (done bool, err error) {
	sess, ok := c.ClientData.(*session)
	if !ok || raw == nil || !h.fastSession(c, sess) || h.s.closing.Load() {
		return false, nil
	}
	q := trimStatement(prepare.PrepareStmt)
	ss := h.learnStmt(q)
	if ss == nil || ss.off || int(prepare.ParamsCount) != ss.n || len(raw) < 9 || raw[4] != 0 {
		return false, nil // raw[4]: the cursor flags
	}
	if ss.n > 0 && len(types) != 2*ss.n {
		return false, nil
	}
	if checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName) != nil {
		return false, nil
	}
	if ss.write && sess.foundRows {
		return false, nil // the packet pools count changed rows, not found ones
	}
	if vals == nil {
		if vals, err = bindArgs(prepare, unsigned, ss.n); err != nil {
			return false, nil
		}
	}
	if len(vals) != ss.n {
		return false, nil
	}
	if h.s.checkAutoIncZero(ss.sh.p, vals) != nil {
		return false, nil // the database/sql path refuses it
	}
	ds, sql, ok := h.stmtUnit(sess, ss.sh, vals)
	if !ok {
		return false, nil
	}
	fr := ss.sh.routes[ds]
	pool := fr.pool
	if sess.set != nil {
		var e *keyedBackend
		if e, pool = h.s.acquireKeyed(sess.set, ds); pool == nil {
			return false, nil
		}
		defer h.s.releaseKeyed(e)
	}
	h.s.inflight.Add(1)
	defer h.s.inflight.Add(-1)
	sess.count = fastCount{fr: fr, start: time.Now()}
	done, err = h.onFastBackend(c, sess, ds, pool, !ss.write, func(bc *backendConn) (bool, error) {
		return h.relayStmt(c, sess, ss, fr, sql, raw, types, bc, callback)
	})
	if !done {
		return false, nil
	}
	h.countFast(sess)
	if err != nil {
		sess.rowCount = -1
		h.s.metrics.errors.Inc()
		err = h.txAbort(c, sess, err)
	}
	return true, err
}

// stmtUnit returns the data source and the data node SQL (with its ?
// placeholders) of sh's plan for the client values args; ok is false
// unless it is one unit with the plan's parameters on a data source with a
// packet pool.
func (h *handler) stmtUnit(sess *session, sh *fastShape, args []any) (int, string, bool) {
	ds, sql, ok := h.routeOf(sess, sh.p, args)
	if !ok || ds >= len(sh.routes) || sh.routes[ds] == nil {
		return 0, "", false
	}
	return ds, sql, true
}

// backendStmts are the statements a back-end connection has prepared, by
// data node SQL, and the reader of its socket for them (see the top of
// the file).
type backendStmts struct {
	rd  *bufio.Reader
	m   map[string]*backendStmt
	out []byte // the packet being written
}

// backendStmt is a statement prepared on one back-end connection.
type backendStmt struct {
	id     uint32
	params int
}

// stmtsOf returns bc's prepared statements, made on first use.
func stmtsOf(bc *backendConn) *backendStmts {
	if bc.stmts == nil {
		bc.stmts = &backendStmts{rd: bufio.NewReaderSize(bc.GetRawConn(), 16<<10), m: map[string]*backendStmt{}}
	}
	return bc.stmts
}

// write sends the command payload p (after a 4-byte header space) with
// sequence id 0.
func (bs *backendStmts) write(bc *backendConn, p []byte) error {
	n := len(p) - 4
	p[0], p[1], p[2], p[3] = byte(n), byte(n>>8), byte(n>>16), 0
	_, err := bc.GetRawConn().Write(p)
	return err
}

// read reads the next packet into buf (header, then payload; see
// readBackend); n is its payload's length.
func (bs *backendStmts) read(bc *backendConn, buf []byte) ([]byte, int, error) {
	if bc.beginPending {
		var err error
		if buf, err = beginAnswer(bc, buf, bs.read); err != nil {
			return buf, 0, err
		}
	}
	if cap(buf) < 4 {
		buf = make([]byte, 4, 512)
	}
	buf = buf[:cap(buf)]
	bc.armRead(bs.rd.Buffered(), 4)
	if _, err := io.ReadFull(bs.rd, buf[:4]); err != nil {
		return buf, 0, bc.readError(err)
	}
	n := int(buf[0]) | int(buf[1])<<8 | int(buf[2])<<16
	if 4+n > len(buf) {
		nb := make([]byte, 4+n)
		copy(nb, buf[:4])
		buf = nb
	}
	if n == 0 {
		buf[4] = 0
		return buf, 0, nil
	}
	for at := 4; at < 4+n; {
		end := 4 + n
		if bc.pool.socketTimeout > 0 {
			end = min(end, at+max(bs.rd.Buffered(), backendReadPiece))
		}
		bc.armRead(bs.rd.Buffered(), end-at)
		if _, err := io.ReadFull(bs.rd, buf[at:end]); err != nil {
			return buf, 0, bc.readError(err)
		}
		at = end
	}
	return buf, n, nil
}

// errStmtRefused is prepare's error when the data source answered the
// prepare with an error: the statement takes the database/sql path.
var errStmtRefused = errors.New("proxy: the data source refused to prepare the statement")

// prepare returns bc's statement for sql, preparing it the first time.
// Errors other than errStmtRefused leave bc broken.
func (bs *backendStmts) prepare(bc *backendConn, sql string, buf []byte) (*backendStmt, []byte, error) {
	if st := bs.m[sql]; st != nil {
		return st, buf, nil
	}
	if len(bs.m) >= maxBackendStmts {
		for _, st := range bs.m {
			bs.out = append(bs.out[:0], 0, 0, 0, 0, comStmtClose)
			bs.out = binary.LittleEndian.AppendUint32(bs.out, st.id)
			if err := bs.write(bc, bs.out); err != nil { // no answer
				bc.broken = true
				return nil, buf, err
			}
		}
		clear(bs.m)
	}
	bs.out = append(append(bs.out[:0], 0, 0, 0, 0, comStmtPrepare), sql...)
	if err := bs.write(bc, bs.out); err != nil {
		bc.broken = true
		return nil, buf, err
	}
	var n int
	var err error
	if buf, n, err = bs.read(bc, buf); err != nil {
		bc.broken = true
		return nil, buf, err
	}
	p := buf[4 : 4+n]
	if p[0] == mysql.ErrPacket {
		return nil, buf, errStmtRefused
	}
	if p[0] != mysql.OKPacket || n < 9 {
		bc.broken = true
		return nil, buf, errors.New("data source " + bc.pool.name + ": malformed prepare answer")
	}
	st := &backendStmt{id: binary.LittleEndian.Uint32(p[1:]), params: int(binary.LittleEndian.Uint16(p[7:]))}
	cols := int(binary.LittleEndian.Uint16(p[5:]))
	// The parameter and column definitions, each list ended by an EOF
	// packet unless CLIENT_DEPRECATE_EOF.
	skip := 0
	for _, k := range []int{st.params, cols} {
		if k > 0 {
			skip += k
			if bc.Capabilities&mysql.CapabilityClientDeprecateEOF == 0 {
				skip++
			}
		}
	}
	for range skip {
		if buf, _, err = bs.read(bc, buf); err != nil {
			bc.broken = true
			return nil, buf, err
		}
	}
	bs.m[sql] = st
	return st, buf, nil
}

// forget drops sql's statement (the back end no longer knows it).
func (bs *backendStmts) forget(sql string) { delete(bs.m, sql) }

// relayStmt executes sql's statement on bc with the client's execution
// raw and relays the result to the client c. done is false when nothing
// was sent to the client and the execution may take the database/sql
// path.
func (h *handler) relayStmt(c *mysql.Conn, sess *session, ss *stmtShape, fr *fastRoute, sql string, raw, types []byte, bc *backendConn, callback func(*sqltypes.Result) error) (done bool, err error) {
	bs := stmtsOf(bc)
	buf := sess.pkt
	defer func() { sess.pkt = buf }()
	st, buf, err := bs.prepare(bc, sql, buf)
	if err != nil {
		if err == errStmtRefused {
			ss.off = true
		}
		if timedOut(err) {
			return true, err
		}
		return false, nil
	}
	if st.params != ss.n {
		ss.off = true
		return false, nil
	}
	// The execution: the client's, with the back end's statement id and
	// the parameter types always bound.
	out := append(bs.out[:0], 0, 0, 0, 0, comStmtExecute)
	out = binary.LittleEndian.AppendUint32(out, st.id)
	out = append(out, raw[4:9]...) // flags (0), iteration count
	if ss.n > 0 {
		pos := 9 + (ss.n+7)/8
		if pos >= len(raw) {
			return false, nil
		}
		out = append(out, raw[9:pos]...) // NULL bitmap
		out = append(out, 1)
		out = append(out, types...)
		if raw[pos] == 1 {
			pos += 2 * ss.n
		}
		pos++
		if pos > len(raw) {
			return false, nil
		}
		out = append(out, raw[pos:]...)
	}
	bs.out = out
	if err := bs.write(bc, out); err != nil {
		bc.broken = true
		return false, nil
	}
	var n int
	if buf, n, err = bs.read(bc, buf); err != nil {
		bc.broken = true
		if ss.write || timedOut(err) {
			return true, err // it may have run: never twice; a data source that timed out is not asked again
		}
		return false, nil // nothing relayed: it may run again
	}
	if buf[4] == mysql.ErrPacket && n >= 3 && sqlerror.ErrorCode(binary.LittleEndian.Uint16(buf[5:7])) == sqlerror.ERUnknownStmtHandler {
		bs.forget(sql)
		return false, nil
	}
	sess.pkt = buf
	done, mismatch, err := h.relayAnswer(c, sess, fr, answer{bc: bc, bs: bs}, n, 0, callback)
	buf = sess.pkt
	if mismatch {
		ss.off = true
	}
	return done, err
}

// rowsEnd appends to b (empty) the end packet of rows for the client c
// (header space included): with CLIENT_DEPRECATE_EOF an OK packet with the
// EOF header, else an EOF packet; the proxy's status flags and warns.
func rowsEnd(b []byte, c *mysql.Conn, warns uint16) []byte {
	b = append(b, 0, 0, 0, 0, mysql.EOFPacket)
	if c.Capabilities&mysql.CapabilityClientDeprecateEOF != 0 {
		b = append(b, 0, 0)
		b = binary.LittleEndian.AppendUint16(b, c.StatusFlags)
		b = binary.LittleEndian.AppendUint16(b, warns)
	} else {
		b = binary.LittleEndian.AppendUint16(b, warns)
		b = binary.LittleEndian.AppendUint16(b, c.StatusFlags)
	}
	return setPacketLen(b)
}

// setPacketLen writes the payload length of the packet b into its header.
func setPacketLen(b []byte) []byte {
	n := len(b) - 4
	b[0], b[1], b[2] = byte(n), byte(n>>8), byte(n>>16)
	return b
}

// relayOK answers a statement whose back end answered the OK packet p: the
// client gets the back end's affected rows, insert id, warning count and
// info with the proxy's status flags, written instead of vitess's OK.
func (h *handler) relayOK(c *mysql.Conn, sess *session, bc *backendConn, p []byte, callback func(*sqltypes.Result) error) error {
	affected, insertID := okCounts(p)
	sess.rowCount = int64(affected)
	h.fastWarnings(sess, bc, okWarnings(p))
	if insertID != 0 {
		sess.lastInsertID = insertID
	}
	if sess.direct || sess.cc != nil && !c.TLSEnabled() && c.FlushWriteBuffer() == nil {
		b := append(sess.col[:0], 0, 0, 0, 0, mysql.OKPacket)
		b = appendLenEncInt(b, affected)
		b = appendLenEncInt(b, insertID)
		b = binary.LittleEndian.AppendUint16(b, c.StatusFlags)
		b = binary.LittleEndian.AppendUint16(b, uint16(min(sess.warn.own(), 65535)))
		// MariaDB writes the info as a length-encoded string whatever the
		// client's capabilities; MySQL only with CLIENT_SESSION_TRACK.
		maria := bc.IsMariaDB()
		if info := okInfo(p, maria || bc.Capabilities&mysql.CapabilityClientSessionTrack != 0); len(info) > 0 {
			if maria || c.Capabilities&mysql.CapabilityClientSessionTrack != 0 {
				b = appendLenEncBytes(b, info)
			} else {
				b = append(b, info...)
			}
		}
		sess.col = setPacketLen(b)
		if sess.direct {
			// Answered before vitess (fastpath_direct.go), which writes
			// it.
			b[3] = sess.seq
			sess.out = append(sess.out, b...)
			return nil
		}
		sess.cc.replaceAfter(nil, -1, b)
	}
	h.countFast(sess) // before vitess writes the OK packet
	return callback(&sqltypes.Result{RowsAffected: affected, InsertID: insertID})
}

// okInfo returns the human-readable info of the OK packet p ("Rows
// matched: 1  Changed: 1  Warnings: 0"); track says the connection has
// CLIENT_SESSION_TRACK (the info is then a length-encoded string).
func okInfo(p []byte, track bool) []byte {
	i := 1
	i += lenEncLen(p[i:])
	i += lenEncLen(p[i:])
	i += 4 // status flags, warnings
	if i >= len(p) {
		return nil
	}
	if !track {
		return p[i:]
	}
	s, next := lenEncField(p, i)
	if next > len(p) {
		return nil
	}
	return s
}

// replaceAfter arms c to write pkt (a whole packet, header included)
// instead of the next packet vitess writes, with the bytes pending
// (copied) written before it in the same write; its sequence id becomes
// seq unless seq is -1.
func (c *clientConn) replaceAfter(pending []byte, seq int, pkt []byte) {
	c.wmu.Lock()
	c.pend = append(c.pend[:0], pending...)
	c.repl = append(c.repl[:0], pkt...)
	c.endAt, c.endArmed, c.endSeq, c.endRows, c.end = c.out+int64(len(c.pend)), true, seq, false, c.end[:0]
	c.wmu.Unlock()
}

// replacePacket returns repl, the packet written instead of vitess's
// packet pkt (both with their headers), with pkt's sequence id and, when
// both are OK packets, pkt's status flags (SERVER_MORE_RESULTS_EXISTS of a
// multi-statement is set by vitess as it writes).
func replacePacket(repl, pkt []byte) []byte {
	repl[3] = pkt[3]
	if i, j := okStatusAt(pkt), okStatusAt(repl); i > 0 && j > 0 {
		copy(repl[j:j+2], pkt[i:i+2])
	}
	return repl
}

// okStatusAt returns where the status flags of the OK packet pkt (header
// included) are; 0 when it is no OK packet.
func okStatusAt(pkt []byte) int {
	if len(pkt) < 4+7 || pkt[4] != mysql.OKPacket {
		return 0
	}
	i := 5
	i += lenEncLen(pkt[i:])
	i += lenEncLen(pkt[i:])
	if i+2 > len(pkt) {
		return 0
	}
	return i
}
