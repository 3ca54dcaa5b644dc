package proxy

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// Deadlocks across data sources. A session transaction holds one back-end
// transaction per data source it touched; two sessions that lock rows in
// opposite orders on two servers wait for each other, and neither server
// sees the cycle (each sees one ordinary lock wait), so InnoDB's deadlock
// detection never fires and both wait for innodb_lock_wait_timeout (50 s
// by default). Profiling sysbench oltp_read_write over two data sources
// at 64 threads found most of the proxy's sessions in such waits: with
// innodb_lock_wait_timeout=1 the servers' row-lock wait time was 60 % of
// the sessions' time and the proxy reached 0.21× the throughput of an
// haproxy hop to one server.
//
// The proxy detects these cycles itself, as a server does for its own:
//
//   - every back-end connection of the database/sql pools is a backConn,
//     which reads its thread id from the server's greeting and records the
//     session tag of the last tagged command it sent (the session whose
//     transaction it runs), in a registry keyed by server address and
//     thread id;
//   - once a statement has run for watchDelay (watch.go), the detector
//     reads the lock waits of every server (INFORMATION_SCHEMA
//     INNODB_LOCK_WAITS and INNODB_TRX, on MySQL 8 performance_schema
//     data_lock_waits) every deadlockInterval while such statements run,
//     maps both threads of each wait to their sessions, and looks for a
//     cycle of sessions that spans at least two servers (a cycle on one
//     server is the server's own to break);
//   - a cycle found is read again once, deadlockRecheck later, and only
//     when the same waits are still there (not a snapshot of waits that
//     ended meanwhile) is it broken: the waiting statement of the session
//     that waited the shortest is stopped with KILL QUERY.
//
// The victim's session then answers as MySQL answers the victim of a
// deadlock (txAbort): its whole transaction is rolled back on every data
// source and the client gets ERROR 1213 (40001) "Deadlock found when
// trying to get lock; try restarting transaction". An ERROR 1213 that a
// data source reports for a statement of a session transaction (a
// deadlock on one server, which rolled back that data source's part of
// the transaction only) rolls back the rest the same way, so a client that
// goes on and commits never commits the other data sources' part alone.

// deadlockInterval is how often the detector reads the servers' lock waits
// while statements run longer than watchDelay. MariaDB refreshes what
// INNODB_TRX and INNODB_LOCK_WAITS show only when they were last read more
// than 100 ms before (trx_i_s_cache), so reading more often would read the
// same snapshot for ever.
const deadlockInterval = 250 * time.Millisecond

// deadlockRecheck is the wait before a cycle found is read again (longer
// than the servers' 100 ms, see deadlockInterval).
const deadlockRecheck = 150 * time.Millisecond

// deadlockQueryTimeout bounds one round of reads (and the KILL).
const deadlockQueryTimeout = 2 * time.Second

// lockWaitQueries read (waiting thread, blocking thread, wait in µs) on
// MariaDB and MySQL 5.7 (information_schema) and on MySQL 8
// (performance_schema); the detector uses the first that works on a server.
var lockWaitQueries = []string{
	"SELECT r.trx_mysql_thread_id, b.trx_mysql_thread_id, IFNULL(TIMESTAMPDIFF(MICROSECOND, r.trx_wait_started, NOW(6)), 0)" +
		" FROM information_schema.INNODB_LOCK_WAITS w" +
		" JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id" +
		" JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id",
	"SELECT r.trx_mysql_thread_id, b.trx_mysql_thread_id, IFNULL(TIMESTAMPDIFF(MICROSECOND, r.trx_wait_started, NOW(6)), 0)" +
		" FROM performance_schema.data_lock_waits w" +
		" JOIN information_schema.INNODB_TRX r ON r.trx_id = w.REQUESTING_ENGINE_TRANSACTION_ID" +
		" JOIN information_schema.INNODB_TRX b ON b.trx_id = w.BLOCKING_ENGINE_TRANSACTION_ID",
}

// threadKey names a back-end thread: its server's address and thread id.
type threadKey struct {
	addr string
	id   uint32
}

// dlServer is one server of the data sources, with a pool to read it.
type dlServer struct {
	addr  string
	name  string // a data source on it, for logs
	pool  *sql.DB
	query int // index into lockWaitQueries that worked (-1: none yet)
}

// deadlockDetector is the server's detector of deadlocks across data
// sources (see above). Safe for concurrent use.
type deadlockDetector struct {
	mu    sync.Mutex
	conns map[threadKey]*backConn
	// victims are the client connection ids whose running statement was
	// stopped to break a deadlock (txAbort takes them).
	victims map[uint32]struct{}

	servers []dlServer
	log     interface {
		Info(string, ...any)
		Warn(string, ...any)
	}
	kick chan struct{} // a statement has run for watchDelay
	long atomic.Int64  // statements running longer than watchDelay
	// fastLong is how many fast-path statements (which have no watch)
	// the sweeper last saw running longer than watchDelay.
	fastLong atomic.Int64
	stop     chan struct{}
	found    atomic.Int64 // deadlocks broken
	enabled  atomic.Bool
}

func newDeadlockDetector() *deadlockDetector {
	return &deadlockDetector{conns: map[threadKey]*backConn{}, victims: map[uint32]struct{}{}, kick: make(chan struct{}, 1)}
}

// register records c, the connection of thread key.
func (d *deadlockDetector) register(k threadKey, c *backConn) {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.conns[k] = c
	d.mu.Unlock()
}

// unregister forgets the connection of thread k.
func (d *deadlockDetector) unregister(k threadKey, c *backConn) {
	if d == nil {
		return
	}
	d.mu.Lock()
	if d.conns[k] == c {
		delete(d.conns, k)
	}
	d.mu.Unlock()
}

// statementLong is called when a statement has run for watchDelay; the
// returned func when it ends.
func (d *deadlockDetector) statementLong() func() {
	if d == nil || !d.enabled.Load() {
		return func() {}
	}
	d.long.Add(1)
	select {
	case d.kick <- struct{}{}:
	default:
	}
	return func() { d.long.Add(-1) }
}

// fastStatementsLong records that n fast-path statements run longer than
// watchDelay (sweepFastPath, every watchDelay): a relayed statement of a
// transaction may wait for a lock too (txfast.go). The first one kicks the
// detector, as statementLong does.
func (d *deadlockDetector) fastStatementsLong(n int64) {
	if d == nil || !d.enabled.Load() {
		return
	}
	if d.fastLong.Swap(n) <= 0 && n > 0 {
		select {
		case d.kick <- struct{}{}:
		default:
		}
	}
}

// takeVictim reports whether client connection id was chosen as the victim
// of a deadlock, and forgets it.
func (d *deadlockDetector) takeVictim(id uint32) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.victims[id]; ok {
		delete(d.victims, id)
		return true
	}
	return false
}

// startDeadlockDetector starts the detector over the data sources of s
// (one entry per server address).
func (s *Server) startDeadlockDetector() {
	d := s.deadlocks
	seen := map[string]bool{}
	for _, ds := range s.cfg.Deploy.DataSources {
		dsn, err := ds.Config.DriverDSN()
		if err != nil {
			continue
		}
		mc, err := gomysql.ParseDSN(dsn)
		if err != nil || seen[mc.Addr] {
			continue
		}
		pool, ok := s.db.Pool(ds.Name)
		if !ok {
			continue
		}
		seen[mc.Addr] = true
		d.servers = append(d.servers, dlServer{addr: mc.Addr, name: ds.Name, pool: pool, query: -1})
	}
	if len(d.servers) < 2 {
		return // one server detects its own deadlocks
	}
	d.log = s.log
	d.stop = make(chan struct{})
	d.enabled.Store(true)
	s.acceptWG.Add(1)
	go func() {
		defer s.acceptWG.Done()
		d.run(s.ctx)
	}()
}

// stopDeadlockDetector stops the detector's goroutine (Close).
func (s *Server) stopDeadlockDetector() {
	if d := s.deadlocks; d.stop != nil {
		close(d.stop)
	}
}

// run checks for deadlocks while statements run longer than watchDelay.
func (d *deadlockDetector) run(ctx context.Context) {
	t := time.NewTicker(deadlockInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.stop:
			return
		case <-d.kick:
		case <-t.C:
			if d.long.Load() <= 0 && d.fastLong.Load() <= 0 {
				continue
			}
		}
		d.check(ctx)
	}
}

// lockWait is one lock wait of a server: a thread waiting for a lock that
// another thread's transaction holds.
type lockWait struct {
	waiter, blocker threadKey
	waitMicros      int64
}

// readWaits returns the lock waits of every server.
func (d *deadlockDetector) readWaits(ctx context.Context) []lockWait {
	var out []lockWait
	for i := range d.servers {
		sv := &d.servers[i]
		for q := max(sv.query, 0); q < len(lockWaitQueries); q++ {
			rows, err := sv.pool.QueryContext(ctx, lockWaitQueries[q])
			if err != nil {
				if sv.query < 0 && q+1 < len(lockWaitQueries) {
					continue
				}
				break
			}
			sv.query = q
			for rows.Next() {
				var w, b uint64
				var us int64
				if rows.Scan(&w, &b, &us) == nil {
					out = append(out, lockWait{waiter: threadKey{sv.addr, uint32(w)}, blocker: threadKey{sv.addr, uint32(b)}, waitMicros: us})
				}
			}
			_ = rows.Close()
			break
		}
	}
	return out
}

// edge is a session waiting for another: its waiting thread and how long
// it has waited.
type edge struct {
	to     string // the blocking session's tag
	thread threadKey
	micros int64
}

// graph maps the lock waits to sessions: for each waiting session, the
// sessions it waits for.
func (d *deadlockDetector) graph(waits []lockWait) map[string][]edge {
	g := map[string][]edge{}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range waits {
		wc, bc := d.conns[w.waiter], d.conns[w.blocker]
		if wc == nil || bc == nil {
			continue
		}
		from, to := wc.ownerTag(), bc.ownerTag()
		if from == "" || to == "" || from == to {
			continue
		}
		g[from] = append(g[from], edge{to: to, thread: w.waiter, micros: w.waitMicros})
	}
	return g
}

// findCycle returns the edges of a cycle of g that spans at least two
// servers, or nil.
func findCycle(g map[string][]edge) []edge {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var nodes []string // the DFS path: nodes[i] --path[i]--> nodes[i+1]
	var path []edge
	var found []edge
	var visit func(n string) bool
	visit = func(n string) bool {
		color[n] = grey
		nodes = append(nodes, n)
		for _, e := range g[n] {
			switch color[e.to] {
			case grey:
				k := len(nodes) - 1
				for nodes[k] != e.to {
					k--
				}
				cyc := append(append([]edge(nil), path[k:]...), e)
				if spansServers(cyc) {
					found = cyc
					return true
				}
			case white:
				path = append(path, e)
				if visit(e.to) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		nodes = nodes[:len(nodes)-1]
		color[n] = black
		return false
	}
	for n := range g {
		if color[n] == white && visit(n) {
			return found
		}
	}
	return nil
}

// spansServers reports whether the waiting threads of cyc are on at least
// two servers.
func spansServers(cyc []edge) bool {
	for _, e := range cyc[1:] {
		if e.thread.addr != cyc[0].thread.addr {
			return true
		}
	}
	return false
}

// check reads the lock waits, and breaks a cycle across servers that is
// still there on a second read.
func (d *deadlockDetector) check(parent context.Context) {
	ctx, cancel := context.WithTimeout(parent, deadlockQueryTimeout)
	defer cancel()
	cyc := findCycle(d.graph(d.readWaits(ctx)))
	if cyc == nil {
		return
	}
	select {
	case <-time.After(deadlockRecheck):
	case <-ctx.Done():
		return
	}
	again := d.readWaits(ctx)
	for _, e := range cyc {
		if !waitsStill(again, e.thread) {
			return
		}
	}
	victim := cyc[0]
	for _, e := range cyc[1:] {
		if e.micros < victim.micros {
			victim = e
		}
	}
	d.mu.Lock()
	bc := d.conns[victim.thread]
	tag := ""
	if bc != nil {
		tag = bc.ownerTag()
	}
	id, ok := tagConnID(tag)
	if ok {
		d.victims[id] = struct{}{}
	}
	d.mu.Unlock()
	if !ok {
		return
	}
	for _, sv := range d.servers {
		if sv.addr != victim.thread.addr {
			continue
		}
		d.found.Add(1)
		d.log.Info("deadlock across data sources; rolling back one transaction", "data_source", sv.name, "thread", victim.thread.id, "session", strings.TrimSpace(tag), "cycle", len(cyc))
		if _, err := sv.pool.ExecContext(ctx, "KILL QUERY "+strconv.FormatUint(uint64(victim.thread.id), 10)); err != nil {
			d.log.Warn("cannot stop a deadlocked back-end statement", "data_source", sv.name, "thread", victim.thread.id, "error", err.Error())
			d.takeVictim(id)
		}
		return
	}
}

// waitsStill reports whether thread waits in waits.
func waitsStill(waits []lockWait, thread threadKey) bool {
	for _, w := range waits {
		if w.waiter == thread {
			return true
		}
	}
	return false
}

// tagConnID reads the client connection id N of a session tag
// "/* shardgen-proxy c<N> */ ".
func tagConnID(tag string) (uint32, bool) {
	const prefix = "/* shardgen-proxy c"
	if !strings.HasPrefix(tag, prefix) {
		return 0, false
	}
	rest := tag[len(prefix):]
	i := strings.IndexByte(rest, ' ')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseUint(rest[:i], 10, 32)
	return uint32(n), err == nil
}

// errDeadlock is the error of a session transaction rolled back as the
// victim of a deadlock (MySQL's ER_LOCK_DEADLOCK).
func errDeadlock() error {
	return sqlerror.NewSQLError(sqlerror.ERLockDeadlock, "40001", "Deadlock found when trying to get lock; try restarting transaction")
}

// txAbort is called with the error err of a statement of c's session:
// when the session has a transaction and err is a deadlock (ERROR 1213 of
// a data source, or the statement was stopped by the detector above), the
// transaction is rolled back on every data source it touched and the
// client gets ERROR 1213, as from MySQL; otherwise err is returned as is.
func (h *handler) txAbort(c *mysql.Conn, sess *session, err error) error {
	if err == nil || sess.tx == nil {
		return err
	}
	var se *sqlerror.SQLError
	if !errors.As(sqlError(err), &se) {
		return err
	}
	switch se.Number() {
	case sqlerror.ERLockDeadlock:
	case sqlerror.ERQueryInterrupted:
		if h.s.deadlocks == nil || !h.s.deadlocks.takeVictim(c.ConnectionID) {
			return err
		}
	default:
		return err
	}
	tx := sess.tx
	sess.tx = nil
	c.StatusFlags &^= mysql.ServerStatusInTrans
	if rerr := tx.Rollback(); rerr != nil {
		h.s.log.Warn("rollback after a deadlock failed", "error", rerr.Error())
	}
	return errDeadlock()
}

// txBegun forgets a deadlock victim mark left from the session's previous
// transaction (a KILL that came after its statement ended).
func (h *handler) txBegun(c *mysql.Conn) {
	if h.s.deadlocks != nil && c != nil {
		h.s.deadlocks.takeVictim(c.ConnectionID)
	}
}
