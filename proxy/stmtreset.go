package proxy

import (
	"encoding/binary"
	"fmt"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// COM_STMT_RESET before vitess. vitess v0.24.4's Conn.handleComStmtReset
// sets the statement's bind variables (the long data sent since its last
// execution) to nil instead of deleting them, and the next
// COM_STMT_SEND_LONG_DATA for such a parameter appends to the nil
// variable: a panic, and the client loses its connection. For an unknown
// statement it writes an error and then dereferences the missing
// statement: the same. So clientConn answers the command where it is
// read, at the start of a read: vitess has then handled every command
// before it (it reads the next command only once the previous one is
// answered, and its buffer is empty when it reads). A read that holds a
// COM_STMT_RESET after other commands returns only the bytes before it
// (resetCut); the rest is returned by the next read. There the
// statement's long data is dropped (its bind variables deleted, as vitess
// leaves them after an execution), and vitess answers the packet with its
// OK; an unknown statement gets MariaDB's error without vitess.

// resetPacketLen is the length of a COM_STMT_RESET packet: the header,
// the command byte and the statement id.
const resetPacketLen = 4 + 1 + 4

// maybeReset reports whether b, bytes from a packet's start, may begin a
// COM_STMT_RESET packet (all of b matches one).
func maybeReset(b []byte) bool {
	head := [...]byte{resetPacketLen - 4, 0, 0, 0, comStmtReset}
	for i := 0; i < len(b) && i < len(head); i++ {
		if b[i] != head[i] {
			return false
		}
	}
	return true
}

// resetFirst handles a COM_STMT_RESET at the start of the client's bytes
// b[:n] (see the top of the file), reading more into b while they are
// the start of one; it returns the bytes that go on to vitess (n; 0
// when none do, the rest of the read held for the next) and the read
// error.
func (c *clientConn) resetFirst(b []byte, n int) (int, error) {
	if c.h == nil || c.mc == nil {
		return n, nil
	}
	c.mu.Lock()
	next := c.commandNext()
	c.mu.Unlock()
	if !next || !maybeReset(b[:n]) {
		return n, nil
	}
	for n < resetPacketLen && n < len(b) {
		m, err := c.Conn.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
		if !maybeReset(b[:n]) {
			return n, nil
		}
	}
	if n < resetPacketLen {
		return n, nil // vitess's buffer is that small: never
	}
	id := binary.LittleEndian.Uint32(b[5:])
	if prepare := c.mc.PrepareData[id]; prepare != nil {
		clear(prepare.BindVars)
		return n, nil
	}
	// An unknown statement: MariaDB's answer (mysqld_stmt_reset).
	c.hold(b[resetPacketLen:n])
	err := sqlerror.NewSQLError(sqlerror.ERUnknownStmtHandler, sqlerror.SSUnknownSQLState,
		fmt.Sprintf("Unknown prepared statement handler (%d) given to mysqld_stmt_reset", id))
	if _, werr := c.Write(appendError(nil, 1, err)); werr != nil {
		return 0, werr
	}
	return 0, nil
}

// hold keeps b (copied) to be read before the bytes already held.
func (c *clientConn) hold(b []byte) {
	if len(b) > 0 {
		c.held = append(append([]byte(nil), b...), c.held...)
	}
}
