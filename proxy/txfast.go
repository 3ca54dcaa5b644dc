package proxy

import (
	"errors"
	"time"

	"vitess.io/vitess/go/mysql"

	"github.com/shardgen/shardgen/runtime"
)

// The fast path inside a transaction. A session transaction (BEGIN …
// COMMIT, or any statement under autocommit=0) is a runtime.DistTx with
// one branch per data source it touched; a LOCAL branch is a database/sql
// transaction on one go-sql-driver connection of the data source's pool
// (DistTx.LocalConn). A fast-path statement of the transaction (fastpath.go,
// fastpath_stmt.go) is relayed on that same connection: sql.Conn.Raw hands
// over the driver connection, an ownerConn (owner.go), whose socket is a
// backConn (warnings.go), and the relay writes its command and reads the
// response there (relayConn: a vitess packet connection over that socket,
// made once per back-end connection) while go-sql-driver is idle between
// two of its calls, with nothing of either left in the other's buffer (a
// server sends nothing unasked). So fast-path and database/sql statements
// of one transaction run in the same back-end transaction per data source:
// each sees the other's uncommitted writes, COMMIT and ROLLBACK cover
// both, and a failed statement leaves what MySQL leaves. A client's
// savepoints (savepoint.go) are set through database/sql on that same
// connection.
//
// Why not the whole transaction on the packet pools: the merge path reads
// *sql.Rows from runtime executors (database/sql is the runtime's API),
// so a transaction would then need two back-end connections per data
// source, two transactions. Relaying on the database/sql connection keeps
// one, and costs one Raw call per statement.
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

// errNoRelay is onFastBackend's answer inside Raw when the connection
// cannot be relayed on (it is then still usable).
var errNoRelay = errors.New("proxy: the transaction's back-end connection cannot be relayed on")

// onFastBackend runs fn, a fast-path statement of sess on the data source
// ds (an index into the interpreter's names), with the back-end connection
// it runs on: a connection of pool outside a transaction, put back (or
// discarded when broken or killed) afterwards; inside one, the connection
// of the transaction's branch on ds (see the top of the file). done and
// err are fn's; done is false without running fn when there is no such
// connection (the statement then takes the database/sql path).
func (h *handler) onFastBackend(c *mysql.Conn, sess *session, ds int, pool *backendPool, fn func(bc *backendConn) (bool, error)) (done bool, err error) {
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
	conn, ok, err := dt.LocalConn(ds)
	if timedOut(err) {
		return true, err // beginning it again would wait as long again
	}
	if err != nil || !ok {
		return false, nil // the database/sql path begins it again and reports
	}
	rerr := conn.Raw(func(dc any) error {
		oc, ok := dc.(*ownerConn)
		if !ok || oc.bc == nil {
			return errNoRelay
		}
		bc := oc.bc.relayConn(pool)
		if bc == nil {
			return errNoRelay
		}
		oc.bc.ownRelay(sess.tag)
		sess.runStart.Store(time.Now().UnixNano())
		sess.running.Store(bc)
		done, err = fn(bc)
		if !sess.running.CompareAndSwap(bc, nil) || bc.broken {
			// Not driver.ErrBadConn, which makes database/sql close the
			// sql.Conn and wait for the open sql.Tx on it: the socket is
			// closed, and go-sql-driver's next command on it fails.
			_ = oc.bc.Close()
		}
		return nil
	})
	if errors.Is(rerr, errNoRelay) {
		return false, nil
	}
	return done, err
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
	return c.relay
}

// ownRelay records tag as the owner of the relay's commands for the
// deadlock detector and the disconnect watch; their responses are not
// followed (the relay reads the warnings itself, fastWarnings).
func (c *backConn) ownRelay(tag string) {
	c.own(tag)
	c.cur = ""
}
