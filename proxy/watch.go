package proxy

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"

	"vitess.io/vitess/go/mysql"
)

// Client-disconnect cancellation. vitess does not read a client's socket
// while a handler runs, so a client that goes away mid-statement would
// leave the back-end work running (MariaDB does not stop a query when the
// connection that sent it closes, and go-sql-driver only closes its own
// connection on a cancelled context). Every statement therefore
//
//   - runs under its own context, cancelled when the client disconnects;
//   - is tagged: each actual SQL the proxy sends starts with the comment
//     "/* shardgen-proxy c<N> */" (N the client connection's id, unique in
//     the server; a session runs one statement at a time, so the tag names
//     its running statement, and a prepared statement's text stays the same
//     from one execution to the next, which lets the back end keep it
//     prepared);
//   - once it has run for watchDelay, a goroutine waits on the client's
//     socket (a non-blocking MSG_PEEK of one byte: no data is consumed,
//     vitess reads it later). End of file or a reset means the client is
//     gone: the context is cancelled and, on every data source, the
//     back-end threads whose statement carries the tag are stopped with
//     KILL QUERY (found in information_schema.PROCESSLIST; the pool's own
//     user may always see and kill its threads). Data arriving from the
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
	if sess.tag == "" {
		id := s.stmtSeq.Add(1) // connection-less callers (tests)
		if c != nil {
			id = uint64(c.ConnectionID)
		}
		sess.tag = "/* shardgen-proxy c" + strconv.FormatUint(id, 10) + " */ "
	}
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
	w.cancel()
	w.s.log.Info("client disconnected during a statement; stopping its back-end work", "remote", w.raw.RemoteAddr().String(), "tag", w.tag)
	w.s.killTagged(w.tag)
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

// killTagged stops, on every data source, the back-end statements whose
// text starts with tag.
func (s *Server) killTagged(tag string) {
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	for _, ds := range s.db.DataSourceNames() {
		pool, ok := s.db.Pool(ds)
		if !ok {
			continue
		}
		rows, err := pool.QueryContext(ctx, "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE ?", tag+"%")
		if err != nil {
			s.log.Warn("cannot list back-end threads", "data_source", ds, "error", err.Error())
			continue
		}
		var ids []uint64
		for rows.Next() {
			var id uint64
			if rows.Scan(&id) == nil {
				ids = append(ids, id)
			}
		}
		_ = rows.Close()
		for _, id := range ids {
			if _, err := pool.ExecContext(ctx, "KILL QUERY "+strconv.FormatUint(id, 10)); err != nil {
				s.log.Warn("cannot stop a back-end statement", "data_source", ds, "thread", id, "error", err.Error())
			}
		}
	}
}
