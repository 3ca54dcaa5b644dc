package proxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"unsafe"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// The fast path before vitess (issue 13: a point select allocates at most
// twice). vitess's command loop allocates for every statement it reads
// (the query as a string, the result callback and the variables it
// shares, the OK packet it writes), so a text-protocol statement the fast
// path takes is answered where the client's packet is read
// (clientConn.Read) and never reaches vitess: when one read holds exactly
// one whole COM_QUERY packet at a packet boundary, of one statement (from a
// client with CLIENT_MULTI_STATEMENTS, a text without ';'), fastQuery runs
// it on the text as read (no copy) and the relay writes the whole answer, its end or error packet
// included, to the socket itself. When fastQuery does not take it, the
// bytes go on to vitess as they came, and the statement runs as before
// (ComQueryMulti, which tries the fast path first too).
//
// A COM_STMT_EXECUTE likewise (directExecute): one whole packet of a
// statement vitess prepared, whose parameter types are the ones vitess
// recorded from the executions it read (so that its record stays right
// for the executions it reads later), of integer, floating-point, string
// or NULL values.
// The packet is followed by the scanner as any other (its types recorded
// for the statement), and its values are decoded here as vitess and
// bindArgs decode them, for the route only: the packet is forwarded.

// directQuery answers the client's packet p (all the bytes of one read)
// on the fast path when it is one whole COM_QUERY the fast path takes,
// and reports whether it did.
func (c *clientConn) directQuery(p []byte) bool {
	if c.h == nil || c.mc == nil || len(p) < 6 || p[3] != 0 || p[4] != mysql.ComQuery ||
		int(p[0])|int(p[1])<<8|int(p[2])<<16 != len(p)-4 || len(p)-4 >= mysql.MaxPacketSize {
		return false
	}
	c.mu.Lock()
	idle := c.commandNext()
	c.mu.Unlock()
	mc := c.mc
	sess, ok := mc.ClientData.(*session)
	text := p[5:]
	if !idle || !ok || sess.cc != c || sess.direct {
		return false
	}
	// The text lives while the statement runs; nothing the fast path keeps
	// refers to it (learning a route happens on vitess's path, with its own
	// copy).
	q := unsafe.String(unsafe.SliceData(text), len(text))
	if k := plainTx(q); k != txNone {
		b, ok := c.h.answerTx(mc, sess, q, k)
		if ok {
			_, _ = c.Write(b)
		}
		return ok
	}
	if mc.Capabilities&mysql.CapabilityClientMultiStatements != 0 && bytes.IndexByte(text, ';') >= 0 {
		return false // several statements, maybe: ComQueryMulti splits them
	}
	sess.direct, sess.seq, sess.out = true, 1, sess.out[:0]
	done, err := c.h.fastQuery(mc, q, nil)
	sess.direct = false
	if !done {
		return false
	}
	// The rest of the answer goes out once the statement is counted (a
	// client that sees it finds the metrics up to date).
	if err != nil {
		sess.out = appendError(sess.out, sess.seq, err)
	}
	_, _ = c.Write(sess.out)
	sess.out = sess.out[:0]
	return true
}

// appendError appends to b the statement's error err as vitess writes it
// (Conn.writeErrorPacketFromError, after sqlError), with sequence id seq.
func appendError(b []byte, seq byte, err error) []byte {
	code, state, msg := sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, ""
	var se *sqlerror.SQLError
	if errors.As(sqlError(err), &se) {
		code, state, msg = se.Num, se.State, se.Message
		if len(state) != 5 {
			state = sqlerror.SSUnknownSQLState
		}
	} else {
		msg = "unknown error: " + err.Error()
	}
	at := len(b)
	b = append(b, 0, 0, 0, seq, mysql.ErrPacket, byte(code), byte(code>>8), '#')
	b = append(append(b, state...), msg...)
	setPacketLen(b[at:])
	return b
}

// directExecute answers the client's packet p (all the bytes of one read)
// on the fast path when it is one whole COM_STMT_EXECUTE the fast path
// takes (see the top of the file), and reports whether it did; followed is
// set when the scanner has followed p (the caller then hands it to vitess
// without following it again).
func (c *clientConn) directExecute(p []byte) (done, followed bool) {
	if c.h == nil || c.mc == nil || len(p) < 4+1+9 || p[3] != 0 || p[4] != mysql.ComStmtExecute ||
		int(p[0])|int(p[1])<<8|int(p[2])<<16 != len(p)-4 || len(p)-4 > maxStmtPacket {
		return false, false
	}
	mc := c.mc
	sess, ok := mc.ClientData.(*session)
	if !ok || sess.cc != c {
		return false, false
	}
	id := binary.LittleEndian.Uint32(p[5:])
	prepare := mc.PrepareData[id]
	if prepare == nil || len(prepare.ParamsType) != int(prepare.ParamsCount) {
		return false, false
	}
	c.mu.Lock()
	if !c.commandNext() || sess.direct {
		c.mu.Unlock()
		return false, false
	}
	c.sc.scan(p)
	s := &c.sc
	var e *execTypes
	if s.npending == 1 {
		e = &s.pending[s.head]
	}
	c.mu.Unlock()
	if e == nil || e.stmt != id || !e.known || !e.whole || len(e.types) != 2*len(prepare.ParamsType) {
		return false, true
	}
	if prepare.ParamsCount == 0 && len(e.raw) > 4 && e.raw[4] == 0 {
		// A prepared BEGIN / COMMIT / ROLLBACK (sysbench prepares them).
		if k := plainTx(prepare.PrepareStmt); k != txNone {
			b, ok := c.h.answerTx(mc, sess, prepare.PrepareStmt, k)
			if !ok {
				return false, true
			}
			c.taken(prepare)
			_, _ = c.Write(b)
			return true, true
		}
	}
	unsigned, vals, ok := decodeParams(sess, e.raw, e.types, prepare.ParamsType)
	if !ok {
		return false, true
	}
	sess.direct, sess.seq, sess.out = true, 1, sess.out[:0]
	done, err := c.h.fastExecuteArgs(mc, prepare, unsigned, e.raw, e.types, vals, nil)
	sess.direct = false
	if !done {
		return false, true // vitess runs it, and takes the execution
	}
	c.taken(prepare)
	if err != nil {
		sess.out = appendError(sess.out, sess.seq, err)
	}
	_, _ = c.Write(sess.out)
	sess.out = sess.out[:0]
	return true, true
}

// taken forgets the execution of prepare that the scanner followed last,
// answered before vitess, as vitess does after an execution: the
// execution taken, no bind variable (long data) left for the next one.
func (c *clientConn) taken(prepare *mysql.PrepareData) {
	c.mu.Lock()
	s := &c.sc
	s.head = (s.head + 1) % len(s.pending)
	s.npending--
	c.mu.Unlock()
	clear(prepare.BindVars)
}

// answerTx answers the plain transaction statement q of kind k (plainTx),
// the text of a COM_QUERY or of a prepared statement without parameters
// being executed, before vitess: it runs as on vitess's path (directTx,
// its warnings collected, its error as statement reports it), and b is
// the answer to write, an OK packet with the session's status flags (in
// transaction or not) or the error packet. ok is false, with nothing run,
// when the statement must take vitess's path: TLS (the socket then
// carries no plain packets), the handshake's character set not yet
// applied, the server closing.
func (h *handler) answerTx(c *mysql.Conn, sess *session, q string, k txKind) (b []byte, ok bool) {
	if c.TLSEnabled() || !sess.charsetDone || h.s.closing.Load() {
		return nil, false
	}
	h.s.inflight.Add(1)
	defer h.s.inflight.Add(-1)
	h.s.tagSession(c, sess)
	err := h.directTx(c, sess, k)
	h.collectWarnings(sess, q, err)
	b = sess.out[:0]
	if err != nil {
		sess.rowCount = -1
		h.s.metrics.errors.Inc()
		b = appendError(b, 1, h.s.nodeError(h.txAbort(c, sess, err)))
	} else {
		sess.rowCount = 0
		b = appendOK(b, 1, c, sess.warn.own())
	}
	sess.out = b[:0]
	return b, true
}

// appendOK appends to b the OK packet vitess writes for a statement
// without a result (no rows affected, no insert id, c's status flags,
// warnings), with sequence id seq.
func appendOK(b []byte, seq byte, c *mysql.Conn, warnings int) []byte {
	at := len(b)
	b = append(b, 0, 0, 0, seq, mysql.OKPacket, 0, 0)
	b = binary.LittleEndian.AppendUint16(b, c.StatusFlags)
	b = binary.LittleEndian.AppendUint16(b, uint16(min(warnings, 65535)))
	if c.Capabilities&mysql.CapabilityClientSessionTrack != 0 {
		b = append(b, 0) // the info, an empty length-encoded string
	}
	setPacketLen(b[at:])
	return b
}

// decodeParams returns the parameter values of the execution payload raw
// (after its command byte) with the type pairs types, as bindArgs gets
// them from vitess's bind variables (vitess decodes each by its recorded
// type vt; an integer flagged unsigned is then read unsigned, as
// asUnsigned does), in the session's buffer, and which were flagged
// unsigned (nil: none); ok is false for a value of another type, when a
// pair does not map to vt, or when raw is cut short.
func decodeParams(sess *session, raw, types []byte, vt []int32) (unsigned []bool, vals []any, ok bool) {
	n := len(vt)
	vals = sess.route.exec[:0]
	if n == 0 {
		return nil, vals, true
	}
	nulls := 9
	pos := nulls + (n+7)/8
	if pos >= len(raw) {
		return nil, nil, false
	}
	if raw[pos] == 1 {
		pos += 2 * n
	}
	pos++
	for i := range n {
		t, flags := types[2*i], types[2*i+1]
		if typ, err := sqltypes.MySQLToType(t, int64(flags)); err != nil || int32(typ) != vt[i] {
			return nil, nil, false
		}
		uns := flags&paramUnsigned != 0
		if uns {
			if unsigned == nil {
				unsigned = sess.route.unsigned[:0]
				for range n {
					unsigned = append(unsigned, false)
				}
				sess.route.unsigned = unsigned
			}
			unsigned[i] = true
		}
		if raw[nulls+i/8]&(1<<(i%8)) != 0 || querypbType(vt[i]) == sqltypes.Null {
			vals = append(vals, nil)
			continue
		}
		var size int
		switch querypbType(vt[i]) {
		case sqltypes.Int8, sqltypes.Uint8:
			size = 1
		case sqltypes.Int16, sqltypes.Uint16:
			size = 2
		case sqltypes.Int24, sqltypes.Int32, sqltypes.Uint24, sqltypes.Uint32:
			size = 4
		case sqltypes.Int64, sqltypes.Uint64, sqltypes.Float64:
			size = 8
		case sqltypes.Float32:
			if pos+4 > len(raw) {
				return nil, nil, false
			}
			vals = append(vals, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[pos:]))))
			pos += 4
			continue
		case sqltypes.VarChar, sqltypes.Char, sqltypes.VarBinary, sqltypes.Binary, sqltypes.Text, sqltypes.Blob:
			s, next := lenEncField(raw, pos)
			if next > len(raw) {
				return nil, nil, false
			}
			vals = append(vals, string(s))
			pos = next
			continue
		default:
			return nil, nil, false
		}
		if pos+size > len(raw) {
			return nil, nil, false
		}
		var u uint64
		for k := size - 1; k >= 0; k-- {
			u = u<<8 | uint64(raw[pos+k])
		}
		pos += size
		if querypbType(vt[i]) == sqltypes.Float64 {
			vals = append(vals, math.Float64frombits(u))
			continue
		}
		if uns || sqltypes.IsUnsigned(querypbType(vt[i])) {
			vals = append(vals, u)
			continue
		}
		shift := 64 - 8*size
		vals = append(vals, int64(u<<shift)>>shift)
	}
	sess.route.exec = vals // reused by the next execution
	return unsigned, vals, true
}

// querypbType is vitess's type of a PrepareData.ParamsType entry.
func querypbType(t int32) querypb.Type { return querypb.Type(t) }

// commandNext reports whether the next byte from the client starts a
// command: at a packet boundary, not in a LOCAL INFILE file (whose packets
// are read while a statement runs, their sequence numbers wrapping to 0).
// c.mu is held.
func (c *clientConn) commandNext() bool { return c.sc.idle() && !c.sc.data }
