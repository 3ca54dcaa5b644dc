package proxy

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// The pass-through fast path (issue 13). A text-protocol SELECT that
// routes to exactly one data node and needs no merge and no decryption is
// sent, rewritten, on a connection of the data source's packet pool
// (backendPool), and the back end's result packets are relayed to the
// client as they arrive: the column count and the rows as read (only their
// sequence ids change), no value decoded or encoded again, no allocation
// per row. The column definitions are the back end's (type, length,
// flags, charset, decimals, as MariaDB reports them) with four fields
// rewritten to what the client's statement names: the schema is the logic
// database, the table and original table the logic table wherever the
// back end names an actual table of the data source, and the column name
// the one the database/sql path gives it (originalName). The end packets
// are the ones vitess writes on the database/sql path: the proxy's status
// flags (autocommit, in transaction, more results of a multi-statement)
// and no warnings.
//
// Which statements: the text's route is learned on its first execution by
// the database/sql path (query), after every check that path makes from
// the text alone, and kept by text (fastCache); it holds a SELECT of a
// cached plan with one route unit on a data source that has a packet pool,
// no merge, no decryption, no generated key, no read/write group, and not
// a broadcast table (whose read picks a copy each time). Which sessions:
// no reserved connections (user variables), the handshake's character set
// already applied, no NO_BACKSLASH_ESCAPES, no transaction or a LOCAL one
// (txfast.go: relayed on the transaction's own back-end connection), no
// TLS (the relay's end packet is rewritten on the socket, clientConn), and
// Options.DisableFastPath unset. A session on settings pools runs on the
// packet pools of its settings key (backend_keyed.go), the others on the
// data sources' own packet pools. Everything else, and a route whose result
// does not match the plan's columns, takes the database/sql path.
//
// Cancellation: no goroutine or context per statement. The session
// publishes the back-end connection its statement runs on; the server's
// sweeper (sweepFastPath) looks every watchDelay at the sessions whose
// statement has run longer than that, and when the client's socket is
// closed it sends KILL QUERY for that back-end connection, which is then
// closed instead of pooled. A client that goes away while rows are relayed
// fails the write: the back-end connection is killed and closed.

// fastRoute is what a statement text runs on the fast path.
type fastRoute struct {
	pool  *backendPool // the data source's own packet pool
	ds    int          // its data source (an index into the interpreter's names)
	sql   string       // the data node's SQL
	names []string     // the result column names (originalName); nil: the back end's
	// tables maps an actual table of the data source, as the rules spell
	// it and in lower case, to its logic table.
	tables map[string]string
	db     string // the logic database
	// queries and latency are the metrics of the plan's route kind; nil
	// for a statement without a table (not counted on either path).
	queries prometheus.Counter
	latency prometheus.Observer
	off     atomic.Bool // the back end's result did not match the plan
	// write is set for an INSERT, UPDATE or DELETE (writeShape): its OK
	// packet is relayed (relayOK), and it never runs twice.
	write bool
	// noTable is set for a statement without a table (learnNoTable): one
	// that raises no warning keeps the session's (collectWarnings).
	noTable bool
}

// fastCache holds the fast routes by statement text.
type fastCache struct{ fastCacheOf[*fastRoute] }

// fastCacheOf holds values by statement text, safe for concurrent use
// without a lock on reads. It is cleared with the plan cache
// (metadataChanged), and when it holds more than max texts.
type fastCacheOf[T any] struct {
	m   sync.Map // string → T
	n   atomic.Int64
	max int64
}

func (fc *fastCacheOf[T]) get(q string) T {
	if v, ok := fc.m.Load(q); ok {
		return v.(T)
	}
	var zero T
	return zero
}

func (fc *fastCacheOf[T]) put(q string, fr T) {
	if fc.n.Add(1) > fc.max {
		fc.clear()
		fc.n.Add(1)
	}
	fc.m.Store(q, fr)
}

func (fc *fastCacheOf[T]) clear() {
	fc.m.Clear()
	fc.n.Store(0)
}

// fastSession reports whether sess may take the fast path (see above).
func (h *handler) fastSession(c *mysql.Conn, sess *session) bool {
	return h.s.backends != nil && sess.charsetDone && sess.res == nil && (sess.tx == nil && !sess.manual || h.fastTx(sess)) &&
		!sess.noBackslash && sess.cc != nil && !c.TLSEnabled()
}

// fastStatement runs q, one statement of a COM_QUERY, on the fast path
// when it may; more is whether another statement follows it (its end
// packet then carries SERVER_MORE_RESULTS_EXISTS). done is false when it
// did not run; stop is true when it failed (the error went to the client,
// the statements after it do not run); err is a failure to write to the
// client.
func (h *handler) fastStatement(c *mysql.Conn, q string, more bool, callback func(sqltypes.QueryResponse, bool, bool) error) (done, stop bool, err error) {
	var cbErr error
	done, err = h.fastQuery(c, q, func(r *sqltypes.Result) error {
		cbErr = callback(sqltypes.QueryResponse{QueryResult: r}, more, true)
		return cbErr
	})
	switch {
	case !done:
		return false, false, nil
	case cbErr != nil:
		return true, true, cbErr
	case err != nil:
		return true, true, callback(sqltypes.QueryResponse{QueryError: sqlError(err)}, false, true)
	}
	return true, false, nil
}

// errFastNow is query's answer when it learned the statement's fast route
// and the session may take it: ComQuery then relays it.
var errFastNow = errors.New("proxy: the statement takes the fast path")

// fastNow reports whether the session may take a route learned now.
func (h *handler) fastNow(c *mysql.Conn, sess *session) bool {
	return sess.textQuery && h.fastSession(c, sess)
}

// learnFast records the fast route of the text q with plan p when it has
// one (see above), and reports whether q has one; q passed every check of
// the database/sql path that depends on the text alone.
func (h *handler) learnFast(q string, p *plan.Plan) bool {
	s := h.s
	if fr := s.fast.get(q); fr != nil {
		return !fr.off.Load()
	}
	if diagnostics(q) || counterText(q) || p.Statement != plan.StmtSelect || p.Merge != nil || p.Insert != nil || p.KeyGenerate != nil ||
		p.Route == nil || p.Route.Kind == runtime.RouteBroadcast || len(q) > s.opts.MaxCachedStatementSize {
		return false
	}
	for _, c := range p.Columns {
		if c.Decrypt != "" {
			return false
		}
	}
	for _, na := range p.NodeArgs {
		if na.Encrypt != "" || na.LimitSum {
			return false
		}
	}
	if s.cache.get(q) != p {
		return false // not cached: planned again on every execution
	}
	params, values, _, err := prepareParams(p, nil, nil)
	if err != nil {
		return false
	}
	units, err := s.in.units(p, values, params)
	if err != nil || len(units) != 1 {
		return false
	}
	u := units[0]
	if u.DataSource >= len(s.backends) || s.backends[u.DataSource] == nil {
		return false
	}
	args := u.Args
	if args == nil {
		if args, err = s.in.nodeArgs(p, params); err != nil {
			return false
		}
	}
	sql, err := interpolate(u.SQL, args)
	if err != nil {
		return false
	}
	fr := &fastRoute{pool: s.backends[u.DataSource], ds: u.DataSource, sql: sql, db: s.cfg.Rules.DatabaseName,
		tables: s.actualTables(u.DataSource)}
	for _, c := range p.Columns {
		fr.names = append(fr.names, originalName(p.LogicSQL, c.Name))
	}
	route := p.Route.Kind.String()
	fr.queries = s.metrics.queries.WithLabelValues(route)
	fr.latency = s.metrics.latency.WithLabelValues(route)
	s.fast.put(q, fr)
	return true
}

// learnNoTable records the fast route of q, a statement without a table
// that the database/sql path runs as text on the first data source
// (runNoTable), when that data source has a packet pool, and reports
// whether q has one. Its result columns keep the back end's names.
func (h *handler) learnNoTable(q, text string) bool {
	s := h.s
	if fr := s.fast.get(q); fr != nil {
		return !fr.off.Load()
	}
	if len(s.backends) == 0 || s.backends[0] == nil || len(q) > s.opts.MaxCachedStatementSize || diagnostics(q) || counterText(q) {
		return false
	}
	s.fast.put(q, &fastRoute{pool: s.backends[0], ds: 0, sql: text, db: s.cfg.Rules.DatabaseName, tables: map[string]string{}, noTable: true})
	return true
}

// actualTables maps each actual table of the data source ds (an index into
// the interpreter's names), as the rules spell it and in lower case, to its
// logic table.
func (s *Server) actualTables(ds int) map[string]string {
	out := map[string]string{}
	r := s.cfg.Rules
	if r.Sharding == nil {
		return out
	}
	for _, tr := range r.Sharding.Tables {
		for _, dn := range tr.DataNodes {
			if dn.DataSource == s.in.names[ds] {
				out[dn.Table] = tr.LogicTable
				out[strings.ToLower(dn.Table)] = tr.LogicTable
			}
		}
	}
	return out
}

// fastQuery runs the text-protocol statement query on the fast path when
// the session and the text allow it. done is false when the statement has
// not run and must take the database/sql path; otherwise err is the
// statement's error (sent to the client by vitess) or nil once the whole
// result went out.
func (h *handler) fastQuery(c *mysql.Conn, query string, callback func(*sqltypes.Result) error) (done bool, err error) {
	sess, ok := c.ClientData.(*session)
	if !ok || !h.fastSession(c, sess) || h.s.closing.Load() {
		return false, nil
	}
	q := trimStatement(query)
	fr := h.s.fast.get(q)
	sql := ""
	if fr != nil {
		sql = fr.sql
	} else {
		var ok bool
		if fr, sql, ok = h.shapeRoute(sess, q); !ok {
			return false, nil
		}
	}
	if fr.off.Load() || fr.write && sess.foundRows {
		return false, nil // foundRows: the packet pools count changed rows
	}
	if checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName) != nil {
		return false, nil
	}
	pool := fr.pool
	if sess.set != nil {
		var e *keyedBackend
		if e, pool = h.s.acquireKeyed(sess.set, fr.ds); pool == nil {
			return false, nil
		}
		defer h.s.releaseKeyed(e)
	}
	h.s.inflight.Add(1)
	defer h.s.inflight.Add(-1)
	sess.count = fastCount{fr: fr, start: time.Now()}
	done, err = h.onFastBackend(c, sess, fr.ds, pool, false, func(bc *backendConn) (bool, error) {
		return h.relay(c, sess, fr, sql, bc, callback)
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

// fastCount is the accounting of a statement the fast path runs, from
// start: once its answer is certain to be the fast path's, it is counted
// (the pass-through metric; for fr, when planned, its route's queries and
// latency) before the last packet of the answer is written, so that a
// client that has read the answer finds the metrics up to date (vitess
// flushes what the relay writes through it on its own timer, before the
// command ends).
type fastCount struct {
	fr      *fastRoute
	start   time.Time
	counted bool
}

// countFast counts the session's running fast-path statement once (see
// fastCount).
func (h *handler) countFast(sess *session) {
	fc := &sess.count
	if fc.counted || fc.fr == nil {
		return
	}
	fc.counted = true
	h.s.metrics.passThrough.Inc()
	if fc.fr.queries != nil { // a planned statement, counted as on the database/sql path
		fc.fr.queries.Inc()
		fc.fr.latency.Observe(time.Since(fc.start).Seconds())
	}
}

// relay sends sql (fr's, or its shape's for the statement's values) on
// bc and relays the result to the client c (see the comment at the top of
// the file). It marks bc broken when it cannot be reused. done is false
// when nothing was sent to the client and the statement may run again on
// the database/sql path.
func (h *handler) relay(c *mysql.Conn, sess *session, fr *fastRoute, sql string, bc *backendConn, callback func(*sqltypes.Result) error) (done bool, err error) {
	if err := bc.WriteComQuery(sql); err != nil {
		bc.broken = true
		return false, nil
	}
	a := answer{bc: bc}
	var n int
	if sess.pkt, n, err = a.read(sess.pkt); err != nil {
		bc.broken = true
		if fr.write || timedOut(err) {
			return true, err // it may have run: never twice; a data source that timed out is not asked again
		}
		return false, nil // a SELECT: it may run again
	}
	done, mismatch, err := h.relayAnswer(c, sess, fr, a, n, len(sql), callback)
	if mismatch {
		fr.off.Store(true)
	}
	return done, err
}

// answer reads the packets of a statement's answer on bc: through vitess's
// reader for COM_QUERY, through the connection's own (bs) for a prepared
// statement (fastpath_stmt.go).
type answer struct {
	bc *backendConn
	bs *backendStmts // nil: vitess's reader
}

// read reads the next packet into buf (see readBackend).
func (a answer) read(buf []byte) ([]byte, int, error) {
	if a.bs != nil {
		return a.bs.read(a.bc, buf)
	}
	return readBackend(a.bc, buf)
}

// relayAnswer relays to the client c the answer whose first packet (n
// bytes of payload) is in sess.pkt: an error, an OK packet, or a result
// set whose column definitions are rewritten for fr and whose rows are
// relayed as read (in the text or the binary protocol: a.bs is set for the
// binary one, whose rows are numbered from 1 whatever the client's
// capabilities). sqlLen is the length of the statement sent (text
// protocol). mismatch is set when the result does not match the plan
// (nothing was sent; done is false). It marks bc broken when it cannot be
// reused.
func (h *handler) relayAnswer(c *mysql.Conn, sess *session, fr *fastRoute, a answer, n, sqlLen int, callback func(*sqltypes.Result) error) (done, mismatch bool, err error) {
	bc, buf := a.bc, sess.pkt
	defer func() { sess.pkt = buf }()
	switch buf[4] {
	case mysql.ErrPacket:
		return true, false, h.fastError(sess, h.s.backendNodeError(bc.pool.name, backendError(buf[4:4+n])))
	case mysql.OKPacket:
		return true, false, h.relayOK(c, sess, bc, buf[4:4+n], callback)
	case 0xfb: // LOCAL INFILE request: not for a SELECT
		bc.broken = true
		return true, false, errors.New("data source " + fr.pool.name + " asked for a local file")
	}
	count, ok := lenEncInt(buf[4 : 4+n])
	if !ok || fr.names != nil && count != uint64(len(fr.names)) {
		if buf, err = drainAnswer(a, buf); err != nil {
			bc.broken = true
		}
		return false, true, nil
	}
	binaryRows := a.bs != nil
	w := relayWriter{c: c, cc: sess.cc, buf: sess.out[:0], own: sess.direct}
	defer func() {
		if w.own {
			sess.out, sess.seq = w.buf, w.seq // written by directQuery
		} else {
			sess.out = w.buf[:0]
		}
	}()
	if err := w.start(sqlLen); err != nil {
		return true, false, h.clientGone(bc, err)
	}
	if binaryRows {
		w.direct = true // one result: numbered from 1, whatever the client's capabilities
	}
	if err := w.packet(buf[:4+n]); err != nil {
		return true, false, h.clientGone(bc, err)
	}
	for i := 0; i < int(count); i++ {
		if buf, n, err = a.read(buf); err != nil {
			bc.broken = true
			return true, false, w.failed(err)
		}
		pkt := buf[:4+n]
		if fr.needsRewrite(buf[4:4+n], i) {
			sess.col = fr.rewriteColumn(sess.col[:0], buf[4:4+n], i)
			pkt = sess.col
		}
		if err := w.packet(pkt); err != nil {
			return true, false, h.clientGone(bc, err)
		}
	}
	if bc.Capabilities&mysql.CapabilityClientDeprecateEOF == 0 {
		if buf, _, err = a.read(buf); err != nil { // the EOF after the columns
			bc.broken = true
			return true, false, w.failed(err)
		}
	}
	if c.Capabilities&mysql.CapabilityClientDeprecateEOF == 0 {
		eof := sess.eof[:]
		clear(eof)
		eof[4] = mysql.EOFPacket
		binary.LittleEndian.PutUint16(eof[7:], c.StatusFlags)
		if err := w.packet(eof); err != nil {
			return true, false, h.clientGone(bc, err)
		}
	}
	rows := uint64(0) // FOUND_ROWS() after it (rowcount.go)
	for {
		if buf, n, err = a.read(buf); err != nil {
			bc.broken = true
			return true, false, w.failed(err)
		}
		switch {
		case buf[4] == mysql.EOFPacket && n < mysql.MaxPacketSize:
			sess.rowCount, sess.lastFound = -1, rows
			warns := 0
			if bc.Capabilities&mysql.CapabilityClientDeprecateEOF != 0 {
				warns = okWarnings(buf[4 : 4+n])
			} else if n >= 3 {
				warns = int(binary.LittleEndian.Uint16(buf[5:7]))
			}
			if warns > 0 || !fr.noTable {
				h.fastWarnings(sess, bc, warns)
			} else {
				sess.warn.kept = true // the earlier statement's stay (collectWarnings)
			}
			if w.own {
				// Answered before vitess (fastpath_direct.go): the end
				// packet too.
				sess.col = rowsEnd(sess.col[:0], c, uint16(min(sess.warn.own(), 65535)))
				if err := w.packet(sess.col); err != nil {
					return true, false, h.clientGone(bc, err)
				}
				return true, false, nil
			}
			// vitess writes the end packet next (an OK that clientConn
			// turns into it, or replaces) with the session's warning
			// count.
			if binaryRows {
				sess.cc.replaceAfter(w.buf, int(w.seq), rowsEnd(sess.col[:0], c, uint16(min(sess.warn.own(), 65535))))
				w.buf = w.buf[:0]
			} else if err := w.end(true); err != nil {
				return true, false, h.clientGone(bc, err)
			}
			h.countFast(sess) // before vitess writes the end packet
			return true, false, callback(emptyResult)
		case buf[4] == mysql.ErrPacket && n < mysql.MaxPacketSize:
			return true, false, w.failed(h.fastError(sess, h.s.backendNodeError(bc.pool.name, backendError(buf[4:4+n]))))
		}
		if n < mysql.MaxPacketSize {
			rows++ // a row's last packet
		}
		if err := w.packet(buf[:4+n]); err != nil {
			return true, false, h.clientGone(bc, err)
		}
	}
}

// relayWriter writes the relayed packets to the client. A client that
// cannot send several statements in one COM_QUERY
// (CLIENT_MULTI_STATEMENTS) gets them through a buffer of the session,
// numbered from 1 and written to the socket in 16 KiB pieces, without
// vitess (whose WritePacket allocates per packet); vitess's sequence id is
// then behind, which matters only for the packet it writes after the
// relay (corrected by clientConn) since the next command starts again at
// 0. Other clients get them through vitess's WritePacket, which keeps its
// sequence for the next statement of the same COM_QUERY.
type relayWriter struct {
	c  *mysql.Conn
	cc *clientConn
	// own is set when the relay makes the whole answer itself, vitess
	// writing nothing after it (fastpath_direct.go): numbered from 1,
	// through the buffer, whose last bytes directQuery writes.
	own    bool
	direct bool
	seq    byte
	buf    []byte
	at     int64 // byte offset in the client's stream where the relay began
	sent   int64 // bytes relayed through vitess
}

// relayFlushSize is the size at which the relay's buffer is written out.
const relayFlushSize = 16 << 10

// start begins a relay of a statement of n bytes.
func (w *relayWriter) start(n int) error {
	if w.own {
		w.direct, w.seq = true, 1
		return nil
	}
	w.direct = w.c.Capabilities&mysql.CapabilityClientMultiStatements == 0 && n < mysql.MaxPacketSize-1
	w.seq = 1
	if err := w.c.FlushWriteBuffer(); err != nil {
		return err
	}
	w.at = w.cc.written()
	return nil
}

// packet writes pkt (a 4-byte header space, then the payload).
func (w *relayWriter) packet(pkt []byte) error {
	n := len(pkt) - 4
	if !w.direct {
		var err error
		if n == mysql.MaxPacketSize {
			// A part of a long row: WritePacket would add an empty
			// packet after it.
			if err = w.c.WritePacketHeader(n); err == nil {
				err = w.c.WritePacketRaw(pkt[4:])
			}
		} else {
			err = w.c.WritePacket(pkt)
		}
		w.sent += int64(len(pkt))
		return err
	}
	w.buf = append(w.buf, byte(n), byte(n>>8), byte(n>>16), w.seq)
	w.buf = append(w.buf, pkt[4:]...)
	w.seq++
	if len(w.buf) >= relayFlushSize {
		return w.flush()
	}
	return nil
}

func (w *relayWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.cc.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// end hands what is buffered to the client connection and arms it for
// the packet vitess writes next: rows is true when that is the OK after the
// rows (turned into their end packet), false for an error.
func (w *relayWriter) end(rows bool) error {
	if w.direct {
		// What is buffered goes out with vitess's packet: one write.
		w.cc.rewriteAfter(w.buf, int(w.seq), rows, w.c.Capabilities&mysql.CapabilityClientDeprecateEOF != 0)
		w.buf = w.buf[:0]
	} else if rows {
		w.cc.rewriteAt(w.at+w.sent, -1, rows, w.c.Capabilities&mysql.CapabilityClientDeprecateEOF != 0)
	}
	return nil
}

// failed ends the relay before vitess (or, when w.own, the caller)
// writes the error err.
func (w *relayWriter) failed(err error) error {
	if w.own {
		return err
	}
	if ferr := w.end(false); ferr != nil {
		return ferr
	}
	return err
}

// okWarnings reads the warning count of an OK packet (or of an EOF packet
// in OK form, CLIENT_DEPRECATE_EOF).
func okWarnings(p []byte) int {
	i := 1
	i += lenEncLen(p[i:])
	i += lenEncLen(p[i:])
	if i+4 > len(p) {
		return 0
	}
	return int(binary.LittleEndian.Uint16(p[i+2:]))
}

// fastWarnings makes the back end's n warnings of the statement just read
// on bc the session's (warnings.go): its messages are read with SHOW
// WARNINGS on bc, a round trip only when there are some.
func (h *handler) fastWarnings(sess *session, bc *backendConn, n int) {
	sess.warn = warnings{count: n}
	if n == 0 {
		return
	}
	res, err := bc.fetch("SHOW WARNINGS", maxWarnings)
	if err != nil {
		bc.broken = true
		return
	}
	for _, r := range res.Rows {
		if len(r) < 3 {
			continue
		}
		code, _ := strconv.ParseUint(r[1].ToString(), 10, 64)
		sess.warn.list = append(sess.warn.list, warning{level: r[0].ToString(), code: code, msg: r[2].ToString()})
	}
}

// fastError makes the error err of a statement the session's diagnostics
// (as collectWarnings does) and returns it.
func (h *handler) fastError(sess *session, err error) error {
	w := warnings{count: 1}
	var se *sqlerror.SQLError
	if errors.As(err, &se) {
		w.list = []warning{{level: "Error", code: uint64(se.Number()), msg: se.Message}}
	}
	sess.warn = w
	sess.rowCount = -1
	return err
}

// emptyResult is the result the fast path hands vitess after the rows: no
// fields, so vitess writes an OK packet, which clientConn turns into the
// end packet of the rows. vitess only reads it.
var emptyResult = &sqltypes.Result{}

// clientGone handles a failed write to the client: the statement on bc is
// stopped (KILL QUERY) and bc closed.
func (h *handler) clientGone(bc *backendConn, err error) error {
	bc.broken = true
	id, pool := bc.ConnectionID, bc.pool
	go func() { _ = pool.killQuery(id) }()
	return err
}

// readBackend reads the next packet of bc into buf: the 4-byte header,
// then the payload, growing buf as needed; n is the payload's length. Each
// wait for the server is bounded by the data source's socketTimeout
// (armRead; a long payload is read in pieces, each bounded); errors are
// bc.readError's.
func readBackend(bc *backendConn, buf []byte) ([]byte, int, error) {
	if bc.beginPending {
		var err error
		if buf, err = beginAnswer(bc, buf, readBackend); err != nil {
			return buf, 0, err
		}
	}
	if cap(buf) < 4 {
		buf = make([]byte, 4, 512)
	}
	buf = buf[:cap(buf)]
	bc.armRead(bc.Buffered(), 4)
	n, err := bc.ReadHeaderInto(buf[:4])
	if err != nil {
		return buf, 0, bc.readError(err)
	}
	if 4+n > len(buf) {
		nb := make([]byte, 4+n)
		copy(nb, buf[:4])
		buf = nb
	}
	if n == 0 {
		// An empty packet: the end of a payload of a multiple of
		// MaxPacketSize bytes. Give it a payload byte that is neither EOF
		// nor ERR for the caller's switch.
		buf[4] = 0
		return buf, 0, nil
	}
	for at := 4; at < 4+n; {
		end := 4 + n
		if bc.pool.socketTimeout > 0 {
			end = min(end, at+max(bc.Buffered(), backendReadPiece))
		}
		bc.armRead(bc.Buffered(), end-at)
		if err := bc.ReadDataInto(buf[at:end]); err != nil {
			return buf, 0, bc.readError(err)
		}
		at = end
	}
	return buf, n, nil
}

// timedOut reports whether err is a data source's *runtime.TimeoutError.
func timedOut(err error) bool {
	var te *runtime.TimeoutError
	return errors.As(err, &te)
}

// backendReadPiece is the most readBackend reads of a payload under one
// read deadline beyond what is buffered.
const backendReadPiece = 64 << 10

// drainAnswer reads the rest of a result set (after its column count) up
// to its end packet.
func drainAnswer(a answer, buf []byte) ([]byte, error) {
	eofs := 0
	for {
		var n int
		var err error
		if buf, n, err = a.read(buf); err != nil {
			return buf, err
		}
		switch {
		case buf[4] == mysql.ErrPacket && n < mysql.MaxPacketSize:
			return buf, nil
		case buf[4] == mysql.EOFPacket && n < mysql.MaxPacketSize:
			eofs++
			if a.bc.Capabilities&mysql.CapabilityClientDeprecateEOF != 0 || eofs == 2 {
				return buf, nil
			}
		}
	}
}

// backendError is the client's error for a back end's ERR packet: its
// number, SQL state and message, as the database/sql path relays them.
func backendError(p []byte) error {
	if len(p) < 3 {
		return sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, "malformed error packet")
	}
	code := binary.LittleEndian.Uint16(p[1:3])
	state, msg := sqlerror.SSUnknownSQLState, string(p[3:])
	if len(p) >= 9 && p[3] == '#' {
		state, msg = string(p[4:9]), string(p[9:])
	}
	return sqlerror.NewSQLError(sqlerror.ErrorCode(code), state, msg)
}

// okCounts reads the affected rows and the insert id of an OK packet.
func okCounts(p []byte) (affected, insertID uint64) {
	affected, _ = lenEncInt(p[1:])
	rest := p[1+lenEncLen(p[1:]):]
	insertID, _ = lenEncInt(rest)
	return affected, insertID
}

// lenEncLen is the number of bytes of the length-encoded integer at the
// start of p.
func lenEncLen(p []byte) int {
	if len(p) == 0 {
		return 0
	}
	switch p[0] {
	case 0xfc:
		return 3
	case 0xfd:
		return 4
	case 0xfe:
		return 9
	}
	return 1
}

// lenEncField reads the length-encoded string at p[i:]; next is where
// the following field starts (len(p)+1 when it is cut short).
func lenEncField(p []byte, i int) (s []byte, next int) {
	if i >= len(p) {
		return nil, len(p) + 1
	}
	l, ok := lenEncInt(p[i:])
	j := i + lenEncLen(p[i:])
	if !ok || j+int(l) > len(p) {
		return nil, len(p) + 1
	}
	return p[j : j+int(l)], j + int(l)
}

func appendLenEncBytes(b []byte, s []byte) []byte {
	b = appendLenEncInt(b, uint64(len(s)))
	return append(b, s...)
}

func appendLenEncInt(b []byte, v uint64) []byte {
	switch {
	case v < 251:
		return append(b, byte(v))
	case v < 1<<16:
		return append(b, 0xfc, byte(v), byte(v>>8))
	case v < 1<<24:
		return append(b, 0xfd, byte(v), byte(v>>8), byte(v>>16))
	}
	b = append(b, 0xfe)
	return binary.LittleEndian.AppendUint64(b, v)
}

// columnFields splits a column definition packet (Protocol::ColumnDefinition41)
// into catalog, schema, table, org_table, name and the rest (org_name and
// the fixed fields); ok is false when it is malformed.
func columnFields(p []byte) (f [5][]byte, rest []byte, ok bool) {
	i := 0
	for k := range f {
		f[k], i = lenEncField(p, i)
		if i > len(p) {
			return f, nil, false
		}
	}
	return f, p[i:], true
}

// needsRewrite reports whether column definition p (the i-th) names
// something other than what the client's statement names (see the top of
// the file).
func (fr *fastRoute) needsRewrite(p []byte, i int) bool {
	f, _, ok := columnFields(p)
	if !ok {
		return false
	}
	if len(f[1]) > 0 && string(f[1]) != fr.db || fr.names != nil && string(f[4]) != fr.names[i] {
		return true
	}
	for _, t := range f[2:4] {
		if lt, ok := fr.tables[string(t)]; ok && lt != string(t) {
			return true
		}
	}
	return false
}

// rewriteColumn appends to b (a packet with a 4-byte header space) the
// i-th column definition p with the logic database, logic table and column
// name.
func (fr *fastRoute) rewriteColumn(b, p []byte, i int) []byte {
	f, rest, _ := columnFields(p)
	b = append(b, 0, 0, 0, 0)
	b = appendLenEncBytes(b, f[0])
	if len(f[1]) > 0 {
		b = appendLenEncText(b, fr.db)
	} else {
		b = appendLenEncBytes(b, f[1])
	}
	for _, t := range f[2:4] {
		if lt, ok := fr.tables[string(t)]; ok {
			b = appendLenEncText(b, lt)
		} else {
			b = appendLenEncBytes(b, t)
		}
	}
	if fr.names != nil {
		b = appendLenEncText(b, fr.names[i])
	} else {
		b = appendLenEncBytes(b, f[4])
	}
	return append(b, rest...)
}

func appendLenEncText(b []byte, s string) []byte {
	b = appendLenEncInt(b, uint64(len(s)))
	return append(b, s...)
}

// sweepFastPath is the server's one watch over fast-path statements (see
// the top of the file): every watchDelay, until Close, it looks at the
// running statements older than watchDelay and stops those whose client
// has gone.
func (s *Server) sweepFastPath() {
	t := time.NewTicker(watchDelay)
	defer t.Stop()
	var gone []*backendConn
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.sweepStop:
			return
		case now := <-t.C:
			gone = gone[:0]
			long := int64(0)
			s.mu.Lock()
			for _, sess := range s.conns {
				bc := sess.running.Load()
				if bc == nil || now.UnixNano()-sess.runStart.Load() < int64(watchDelay) {
					continue
				}
				long++
				if !peekClosedNow(sess.cc.Conn) {
					continue
				}
				if sess.running.CompareAndSwap(bc, nil) {
					gone = append(gone, bc)
				}
			}
			s.mu.Unlock()
			s.deadlocks.fastStatementsLong(long)
			for _, bc := range gone {
				s.log.Info("client disconnected during a statement; stopping it on its back-end connection", "data_source", bc.pool.name, "thread", bc.ConnectionID)
				if err := bc.pool.killQuery(bc.ConnectionID); err != nil {
					s.log.Warn("cannot stop a back-end statement", "data_source", bc.pool.name, "thread", bc.ConnectionID, "error", err.Error())
				}
			}
		}
	}
}

// rewriteAt arms c to rewrite the packet that starts at byte offset at
// of the stream written to the client: when rows is set and it is an OK
// packet (vitess's after relayed rows), into the end packet of the rows:
// with CLIENT_DEPRECATE_EOF an OK packet with the EOF header (0xFE), else
// an EOF packet with the OK packet's status flags and warnings. Its
// sequence id becomes seq unless seq is -1.
func (c *clientConn) rewriteAt(at int64, seq int, rows, deprecateEOF bool) {
	c.wmu.Lock()
	c.endAt, c.endArmed, c.endSeq, c.endRows, c.deprecateEOF, c.end = at, true, seq, rows, deprecateEOF, c.end[:0]
	c.repl = c.repl[:0]
	c.wmu.Unlock()
}

// rewriteAfter is rewriteAt for the packet vitess writes next, with the
// bytes pending (copied) written before it in the same write.
func (c *clientConn) rewriteAfter(pending []byte, seq int, rows, deprecateEOF bool) {
	c.wmu.Lock()
	c.pend = append(c.pend[:0], pending...)
	c.endAt, c.endArmed, c.endSeq, c.endRows, c.deprecateEOF, c.end = c.out+int64(len(c.pend)), true, seq, rows, deprecateEOF, c.end[:0]
	c.repl = c.repl[:0]
	c.wmu.Unlock()
}

// written returns the number of bytes written to the client so far.
func (c *clientConn) written() int64 {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.out
}

// Write writes to the client, rewriting the packet rewriteAt armed.
func (c *clientConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.endArmed || c.out+int64(len(c.pend))+int64(len(p)) <= c.endAt && len(c.end) == 0 {
		n, err := c.Conn.Write(p)
		c.out += int64(n)
		c.writes++
		return n, err
	}
	total := len(p)
	if len(c.end) == 0 {
		if before := int(c.endAt - c.out - int64(len(c.pend))); before > 0 {
			c.pend = append(c.pend, p[:before]...)
			p = p[before:]
		}
	}
	// Collect the armed packet.
	need := 4
	if len(c.end) >= 4 {
		need = 4 + int(uint32(c.end[0])|uint32(c.end[1])<<8|uint32(c.end[2])<<16)
	}
	for len(p) > 0 && len(c.end) < need {
		k := min(need-len(c.end), len(p))
		c.end = append(c.end, p[:k]...)
		p = p[k:]
		if len(c.end) == 4 {
			need = 4 + int(uint32(c.end[0])|uint32(c.end[1])<<8|uint32(c.end[2])<<16)
		}
	}
	if len(c.end) < need {
		return total, nil // the rest comes with the next write
	}
	c.endArmed = false
	pkt := c.end
	if len(c.repl) > 0 {
		pkt = replacePacket(c.repl, c.end)
	} else if c.endRows {
		pkt = endOfRows(pkt, c.deprecateEOF, &c.eof)
	}
	if c.endSeq >= 0 {
		pkt[3] = byte(c.endSeq)
	}
	c.end = c.end[:0]
	c.repl = c.repl[:0]
	// What the relay left, the rewritten packet and what follows it go
	// out in one write.
	c.pend = append(c.pend, pkt...)
	c.pend = append(c.pend, p...)
	n, err := c.Conn.Write(c.pend)
	c.out += int64(n)
	c.writes++
	if cap(c.pend) > relayFlushSize {
		c.pend = nil
	} else {
		c.pend = c.pend[:0]
	}
	if err != nil {
		return 0, err
	}
	return total, nil
}

// endOfRows turns the OK packet pkt (header included) into the end packet
// of rows: in place with CLIENT_DEPRECATE_EOF, else written into eof (see
// endRowsAt). Any other packet is returned as it is.
func endOfRows(pkt []byte, deprecateEOF bool, eof *[9]byte) []byte {
	if len(pkt) < 4+7 || pkt[4] != mysql.OKPacket || pkt[5] != 0 || pkt[6] != 0 {
		return pkt
	}
	if deprecateEOF {
		pkt[4] = mysql.EOFPacket
		return pkt
	}
	status, warnings := pkt[7:9], pkt[9:11]
	*eof = [9]byte{5, 0, 0, pkt[3], mysql.EOFPacket, warnings[0], warnings[1], status[0], status[1]}
	return eof[:]
}

var _ io.Writer = (*clientConn)(nil)
