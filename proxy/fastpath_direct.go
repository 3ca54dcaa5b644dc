package proxy

import (
	"errors"
	"unsafe"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// The fast path before vitess (issue 13: a point select allocates at most
// twice). vitess's command loop allocates for every statement it reads
// (the query as a string, the result callback and the variables it
// shares, the OK packet it writes), so a text-protocol statement the fast
// path takes is answered where the client's packet is read
// (clientConn.Read) and never reaches vitess: when one read holds exactly
// one whole COM_QUERY packet at a packet boundary, from a client without
// CLIENT_MULTI_STATEMENTS, fastQuery runs it on the text as read (no
// copy) and the relay writes the whole answer, its end or error packet
// included, to the socket itself. When fastQuery does not take it, the
// bytes go on to vitess as they came, and the statement runs as before
// (ComQueryMulti, which tries the fast path first too).

// directQuery answers the client's packet p (all the bytes of one read)
// on the fast path when it is one whole COM_QUERY the fast path takes,
// and reports whether it did.
func (c *clientConn) directQuery(p []byte) bool {
	if c.h == nil || c.mc == nil || len(p) < 6 || p[3] != 0 || p[4] != mysql.ComQuery ||
		int(p[0])|int(p[1])<<8|int(p[2])<<16 != len(p)-4 || len(p)-4 >= mysql.MaxPacketSize {
		return false
	}
	c.mu.Lock()
	idle := c.sc.idle()
	c.mu.Unlock()
	mc := c.mc
	sess, ok := mc.ClientData.(*session)
	if !idle || !ok || sess.cc != c || mc.Capabilities&mysql.CapabilityClientMultiStatements != 0 {
		return false
	}
	text := p[5:]
	// The text lives while the statement runs; nothing the fast path keeps
	// refers to it (learning a route happens on vitess's path, with its own
	// copy).
	q := unsafe.String(unsafe.SliceData(text), len(text))
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
