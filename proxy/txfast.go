package proxy

import (
	"database/sql/driver"
	"errors"
	"time"

	"vitess.io/vitess/go/mysql"

	"github.com/shardgen/shardgen/runtime"
)

// The fast path inside a transaction. A session transaction (BEGIN …
// COMMIT, or any statement under autocommit=0) is a runtime.DistTx with
// one branch per data source it touched, each on one go-sql-driver
// connection of the data source's pool. A fast-path statement of a LOCAL
// transaction (fastpath.go, fastpath_stmt.go) is relayed on that
// connection (DistTx.RelayLocal): sql.Conn.Raw hands over the driver
// connection, an ownerConn (owner.go), whose socket is a backConn
// (warnings.go), and the relay writes its command and reads the response
// there (relayConn: a vitess packet connection over that socket, made once
// per back-end connection) while go-sql-driver is idle between two of its
// calls, with nothing of either left in the other's buffer (a server sends
// nothing unasked).
//
// A branch that a fast-path statement begins is begun by the relay, with
// no database/sql transaction: onFastBackend writes START TRANSACTION (READ
// ONLY) and then the statement, and reads both answers. A write waits for
// the first answer before it is sent (it must not run when the transaction
// did not begin, which a pipelined pair cannot promise), and so does a
// text statement: vitess's reader, which reads the text protocol's
// answers, checks sequence ids against the last command written (the
// prepared statements' reader, backendStmts.rd, does not).
// COMMIT and ROLLBACK of such a branch are one command on the connection
// (runtime's endRelayed). So a transaction on one data source whose
// statements all take the fast path costs the round trips of its
// statements and of its COMMIT, as directly on the server (BEGIN is
// answered by the proxy), and no goroutine: neither database/sql's
// transaction watcher nor go-sql-driver's context watcher is woken. When a
// statement of the transaction takes the database/sql path on that data
// source (a merge, a savepoint), the runtime adopts the open transaction
// (ownerConn.BeginTx under runtime.AdoptsTx sends nothing) and goes on as
// with a branch it began: fast-path and database/sql statements of one
// transaction run in the same back-end transaction per data source, each
// sees the other's uncommitted writes, COMMIT and ROLLBACK cover both,
// and a failed statement leaves what MySQL leaves. A transaction that
// reaches a second data source begins a branch there the same way; LOCAL
// commits them one after the other as before.
//
// Only for LOCAL transactions (XA branches end with XA END / PREPARE /
// COMMIT and keep the database/sql path), not for a reserved session (its
// connections are the session's, never pooled: the fast path is off for
// it anyway), and not over a back-end connection with TLS or compression
// (the socket then carries no plain packets). A deadlock (ERROR 1213) or
// the deadlock detector's KILL of a relayed statement aborts the whole
// transaction as on the database/sql path (txAbort). A relay that leaves
// the connection unusable (an I/O error, the client gone mid-result)
// closes it: the back-end transaction is lost on that data source, and the
// next statement of the transaction there reports the bad connection.

// fastTx reports whether a statement of sess's transaction, or the first
// statement of one that autocommit=0 opens, may take the fast path.
func (h *handler) fastTx(sess *session) bool {
	if sess.tx == nil {
		return sess.manual && h.s.in.src.TransactionType() == runtime.TxLocal
	}
	dt, ok := sess.tx.(*runtime.DistTx)
	return ok && dt.Local()
}

// onFastBackend runs fn, a fast-path statement of sess on the data source
// ds (an index into the interpreter's names), with the back-end connection
// it runs on: a connection of pool outside a transaction, put back (or
// discarded when broken or killed) afterwards; inside one, the connection
// of the transaction's branch on ds, begun first when it has not (see the
// top of the file; pipeline says the statement may be sent before the
// answer to START TRANSACTION is read). done and
// err are fn's; done is false without running fn when there is no such
// connection (the statement then takes the database/sql path).
func (h *handler) onFastBackend(c *mysql.Conn, sess *session, ds int, pool *backendPool, pipeline bool, fn func(bc *backendConn) (bool, error)) (done bool, err error) {
	if sess.tx == nil && !sess.manual {
		bc, err := pool.get()
		if err != nil {
			if timedOut(err) {
				return true, err // asking again on the database/sql path would wait as long again
			}
			return false, nil // the database/sql path reports it
		}
		sess.runStart.Store(time.Now().UnixNano())
		sess.running.Store(bc)
		done, err = fn(bc)
		if !sess.running.CompareAndSwap(bc, nil) || bc.broken {
			// The sweeper killed the statement (the connection may still
			// see the KILL), or it cannot be reused.
			bc.pool.discard(bc)
		} else {
			bc.pool.put(bc)
		}
		return done, err
	}
	if _, err := h.executor(c, sess); err != nil { // autocommit=0: the transaction begins
		return false, nil
	}
	dt, ok := sess.tx.(*runtime.DistTx)
	if !ok {
		return false, nil
	}
	ok, rerr := dt.RelayLocal(ds, func(dc any, begin string) error {
		oc, ok := dc.(*ownerConn)
		if !ok || oc.bc == nil {
			return runtime.ErrNotBegun
		}
		bc := oc.bc.relayConn(pool)
		if bc == nil {
			return runtime.ErrNotBegun
		}
		oc.bc.ownRelay(sess.tag)
		if begin != "" {
			if werr := bc.WriteComQuery(begin); werr != nil {
				_ = oc.bc.Close()
				return driver.ErrBadConn
			}
			bc.beginPending = true
			if !pipeline {
				var berr error
				if sess.pkt, berr = beginAnswer(bc, sess.pkt, readBackend); berr != nil {
					if timedOut(berr) {
						done, err = true, berr // asking again would wait as long again
					}
					_ = oc.bc.Close()
					return driver.ErrBadConn
				}
			}
		}
		sess.runStart.Store(time.Now().UnixNano())
		sess.running.Store(bc)
		done, err = fn(bc)
		killed := !sess.running.CompareAndSwap(bc, nil)
		if bc.beginPending && !bc.broken && !killed {
			// fn read nothing (it gave up before sending its statement).
			sess.pkt, _ = beginAnswer(bc, sess.pkt, readBackend)
		}
		if killed || bc.broken {
			// Not driver.ErrBadConn for a branch that has begun, which
			// makes database/sql close the sql.Conn and wait for the open
			// sql.Tx on it: the socket is closed, and go-sql-driver's next
			// command on it fails.
			_ = oc.bc.Close()
		}
		if begin != "" && !bc.begun {
			return driver.ErrBadConn // the socket is closed
		}
		return nil
	})
	if !ok || errors.Is(rerr, runtime.ErrNotBegun) {
		return false, nil
	}
	if rerr != nil && !done {
		var ne *runtime.NodeError
		if timedOut(rerr) || errors.As(rerr, &ne) && timedOut(ne.Err) {
			return true, rerr // beginning it again would wait as long again
		}
		return false, nil // the database/sql path begins it again and reports
	}
	return done, err
}

// beginAnswer reads, with read (the reader the statement's answer is read
// with), the answer to the START TRANSACTION that onFastBackend sent
// before the statement and marks bc begun when it is OK. Another answer
// leaves bc broken: the statement after it ran outside a transaction, and
// its answer is not read.
func beginAnswer(bc *backendConn, buf []byte, read func(*backendConn, []byte) ([]byte, int, error)) ([]byte, error) {
	bc.beginPending = false
	buf, n, err := read(bc, buf)
	if err != nil {
		bc.broken = true
		return buf, err
	}
	if buf[4] != mysql.OKPacket {
		bc.broken = true
		if buf[4] == mysql.ErrPacket {
			return buf, backendError(buf[4 : 4+n])
		}
		return buf, errors.New("data source " + bc.pool.name + ": malformed START TRANSACTION answer")
	}
	bc.begun = true
	return buf, nil
}

// relayConn returns the fast path's packet connection over c's socket,
// made on first use, with pool's name in its errors and pool's KILL QUERY
// for it (clientGone); nil when c cannot carry it (TLS or compression, no
// thread id read).
func (c *backConn) relayConn(pool *backendPool) *backendConn {
	if c.off || !c.handshook || c.thread == 0 {
		return nil
	}
	if c.relay == nil {
		// NewConnForTest is vitess's constructor of a Conn over an open
		// socket (newConn with the default settings): no handshake, a
		// read buffer, writes unbuffered.
		vc := mysql.NewConnForTest(c)
		vc.Capabilities = c.caps
		vc.ConnectionID = c.thread
		c.relay = &backendConn{Conn: vc, created: time.Now()}
	}
	c.relay.pool = pool
	c.relay.broken = false
	c.relay.beginPending, c.relay.begun = false, false
	return c.relay
}

// ownRelay records tag as the owner of the relay's commands for the
// deadlock detector and the disconnect watch; their responses are not
// followed (the relay reads the warnings itself, fastWarnings).
func (c *backConn) ownRelay(tag string) {
	c.own(tag)
	c.cur = ""
}
