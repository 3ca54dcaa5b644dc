package proxy

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/mysql"
)

// Client-disconnect cancellation. vitess does not read a client's socket
// while a handler runs, so a client that goes away mid-statement would
// leave the back-end work running (MariaDB does not stop a query when the
// connection that sent it closes, and go-sql-driver only closes its own
// connection on a cancelled context). Every statement therefore
//
//   - runs under its own context, cancelled when the client disconnects;
//   - is owned: its back-end commands run under a context naming the
//     session's tag "/* shardgen-proxy c<N> */ " (N the client connection's
//     id, unique in the server), and every back-end connection records the
//     owner of its last command (owner.go); a session runs one statement at
//     a time, so the connections whose last command it owned run that
//     statement or are idle (where KILL QUERY does nothing);
//   - once it has run for watchDelay, a goroutine waits on the client's
//     socket (a non-blocking MSG_PEEK of one byte: no data is consumed,
//     vitess reads it later). End of file or a reset means the client is
//     gone: the context is cancelled and the back-end threads whose last
//     command the session owned are stopped with KILL QUERY (killThreads;
//     the pool's own user may always kill its threads). Data arriving from the
//     client (a pipelined command) ends the watch without cancelling.
//
// When the statement ends first, the watch is woken by a read deadline in
// the past, waited for, and the deadline cleared before vitess reads the
// next command.

// watchDelay is how long a statement runs before its client's socket is
// watched; faster statements cost no goroutine.
const watchDelay = 50 * time.Millisecond

// killTimeout bounds the KILL QUERY round after a client disconnects.
const killTimeout = 5 * time.Second

// stmtWatch is the disconnect watch of one running statement.
type stmtWatch struct {
	s      *Server
	raw    net.Conn
	tag    string // "/* shardgen-proxy c<N> */ "
	cancel context.CancelFunc
	timer  *time.Timer

	mu      sync.Mutex
	ended   bool
	started bool
	exited  chan struct{} // closed when the watching goroutine returns
}

// watchStatement returns the context of a statement of client c and its
// end function, which must be called when the statement is done.
func (s *Server) watchStatement(c *mysql.Conn, sess *session) (context.Context, func()) {
	ctx, cancel := context.WithCancel(s.ctx)
	s.tagSession(c, sess)
	w := &stmtWatch{s: s, cancel: cancel, tag: sess.tag}
	if c != nil {
		w.raw = c.GetRawConn()
	}
	if w.raw != nil && canPeek(w.raw) {
		w.exited = make(chan struct{})
		w.timer = time.AfterFunc(watchDelay, w.run)
	}
	return ctx, w.end
}

// tagSession sets the session's tag (session.tag) when it has none.
func (s *Server) tagSession(c *mysql.Conn, sess *session) {
	if sess.tag == "" {
		id := s.stmtSeq.Add(1) // connection-less callers (tests)
		if c != nil {
			id = uint64(c.ConnectionID)
		}
		sess.tag = "/* shardgen-proxy c" + strconv.FormatUint(id, 10) + " */ "
	}
}

// run waits for the client to disconnect (see the package comment above).
func (w *stmtWatch) run() {
	w.mu.Lock()
	if w.ended {
		w.mu.Unlock()
		return
	}
	w.started = true
	w.mu.Unlock()
	defer close(w.exited)
	defer w.s.deadlocks.statementLong()()
	if !peekClosed(w.raw) {
		return
	}
	// The threads first: the cancel makes go-sql-driver close its
	// connections, which leaves their statements running on the server.
	threads := w.s.ownedThreads(w.tag)
	w.cancel()
	w.s.log.Info("client disconnected during a statement; stopping its back-end work", "remote", w.raw.RemoteAddr().String(), "tag", w.tag)
	w.s.killThreads(threads)
}

// end stops the watch and cancels the statement's context.
func (w *stmtWatch) end() {
	if w.timer != nil {
		w.timer.Stop()
		w.mu.Lock()
		w.ended = true
		started := w.started
		w.mu.Unlock()
		if started {
			_ = w.raw.SetReadDeadline(time.Unix(1, 0))
			<-w.exited
			_ = w.raw.SetReadDeadline(time.Time{})
		}
	}
	w.cancel()
}

// ownedThreads returns the back-end threads whose connection's last
// command tag owned (owner.go).
func (s *Server) ownedThreads(tag string) []threadKey {
	var threads []threadKey
	d := s.deadlocks
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, bc := range d.conns {
		if bc.lastOwner() == tag {
			threads = append(threads, k)
		}
	}
	return threads
}

// killThreads stops the statements of threads: KILL QUERY for each, sent
// through the pool of a data source on its server (the first whose user
// may).
func (s *Server) killThreads(threads []threadKey) {
	if len(threads) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	for _, th := range threads {
		var err error
		for _, ds := range s.cfg.Deploy.DataSources {
			dsn, derr := ds.Config.DriverDSN()
			if derr != nil {
				continue
			}
			mc, derr := gomysql.ParseDSN(dsn)
			if derr != nil || mc.Addr != th.addr {
				continue
			}
			pool, ok := s.db.Pool(ds.Name)
			if !ok {
				continue
			}
			if _, err = pool.ExecContext(ctx, "KILL QUERY "+strconv.FormatUint(uint64(th.id), 10)); err == nil {
				break
			}
		}
		if err != nil {
			s.log.Warn("cannot stop a back-end statement", "server", th.addr, "thread", th.id, "error", err.Error())
		}
	}
}
