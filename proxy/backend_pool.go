package proxy

import (
	"context"
	"errors"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shardgen/shardgen/runtime"
)

// Defaults of a backendPool where the data source's keys leave them open
// (HikariCP's defaults, which ShardingSphere's data source keys follow).
const (
	// defaultBackendConnectTimeout bounds a connection attempt and the
	// wait for a free connection of a full pool
	// (connectionTimeoutMilliseconds, HikariCP: 30 s).
	defaultBackendConnectTimeout = 30 * time.Second
	// backendAliveBypass is how long an idle connection is trusted without
	// a check when it is taken (HikariCP's aliveBypassWindowMs, 500 ms):
	// one taken sooner is handed out as it is.
	backendAliveBypass = 500 * time.Millisecond
	// backendPoolCollation is the collation the back-end connections ask
	// for at handshake: the database/sql pools' (poolCollation), so that a
	// statement answers the same on either.
	backendPoolCollation = poolCollation
)

// errBackendPoolClosed is returned by backendPool.get after close.
var errBackendPoolClosed = errors.New("the data source's connection pool is closed")

// backendPool is the proxy's packet-level connection pool of one data
// source: vitess go/mysql client connections (mysql.Connect), which keep the
// back end's packets, for the pass-through fast path (fastpath.go).
// Generated code and the proxy's other paths use the runtime's database/sql
// pools; this pool exists beside them, with the same keys:
//
//   - maxPoolSize bounds the open connections (in use and idle); a get on
//     a full pool waits up to the connection timeout for one to be put
//     back (0: unbounded, as the database/sql pool);
//   - connectionTimeoutMilliseconds (or the URL's connectTimeout) bounds
//     the dial with the MySQL handshake, and that wait (default 30 s);
//   - socketTimeout (the URL's; a DSN's readTimeout) bounds each wait for
//     the server on an open connection (armRead). A limit that passes
//     gives a *runtime.TimeoutError naming the data source, and the
//     connection is discarded, never put back (its late answer would be
//     read as the next statement's); the statement is not tried again on
//     the database/sql path, which would wait as long again;
//   - idleTimeoutMilliseconds closes a connection idle for longer
//     (checked when connections are taken and put back), unless
//     minPoolSize >= maxPoolSize (a fixed pool, as HikariCP);
//   - maxLifetimeMilliseconds closes a connection older than that when it
//     is taken or put back (a running statement is never cut).
//
// Health: a connection idle for longer than backendAliveBypass is checked
// with a non-blocking read of its socket (mysql.Conn.ConnCheck) before it
// is handed out; a closed or misbehaving one is discarded and the next
// taken. A connection the caller saw fail (an I/O error, a statement cut
// off) is given back with discard.
//
// Idle connections are a stack (the most recently used first), so a
// steady load reuses few connections and the others age out.
// Safe for concurrent use: one mutex, held for a slice push or pop.
type backendPool struct {
	name   string // the data source's name, for errors
	params mysql.ConnParams
	init   string // run on every new connection first ("": nothing)
	// setup are the settings statements a keyed pool's connections run
	// after init, in order (backend_keyed.go); nil for a data source's
	// own pool.
	setup []string

	max     int
	wait    time.Duration // connect timeout and wait for a free connection
	waitKey string        // the key that set wait, for errors (runtime.DataSourceConfig.Timeouts)
	// socketTimeout bounds each read of an answer (0: none); socketKey
	// is the key that set it (socketTimeout, readTimeout).
	socketTimeout time.Duration
	socketKey     string
	idleTimeout   time.Duration // 0: none
	maxLifetime   time.Duration // 0: none

	// dialTimedOut is when a dial of the pool last passed the connect
	// timeout (UnixNano; 0: never): get fails a wait for a free
	// connection with that timeout when it passed during the wait.
	dialTimedOut atomic.Int64

	mu     sync.Mutex
	idle   []*backendConn // oldest first
	open   int            // connections counted against max (idle, in use, dialling)
	closed bool
	freed  chan struct{} // a connection was put back or closed (1 slot)
}

// backendConn is one pooled connection to a data source.
type backendConn struct {
	*mysql.Conn
	pool     *backendPool
	created  time.Time
	lastUsed time.Time
	// broken is set by the caller when the connection must not be put
	// back (an I/O error, a statement cut off).
	broken bool
	// stmts are the statements prepared on it (fastpath_stmt.go); nil
	// before the first.
	stmts *backendStmts
	// deadline is the read deadline armRead set last (zero: none).
	deadline time.Time
	// beginPending: the START TRANSACTION of a fast-path statement that
	// begins its transaction's branch was sent before the statement and
	// its answer is the next to read (txfast.go); begun: it was read, OK.
	beginPending, begun bool
}

// armRead bounds the next read of c by its pool's socketTimeout when
// fewer than need bytes are buffered (buffered: what its reader holds),
// i.e. when the read waits on the socket. The deadline stays set after
// the read; the next wait re-arms it, so each wait for the server is
// bounded, as Java's SO_TIMEOUT bounds each read (not the statement).
func (c *backendConn) armRead(buffered, need int) {
	if t := c.pool.socketTimeout; t > 0 && buffered < need {
		c.deadline = time.Now().Add(t)
		_ = c.GetRawConn().SetReadDeadline(c.deadline)
	}
}

// readError is the error of a failed read or round trip on c: a
// *runtime.TimeoutError when it is an I/O timeout and the deadline
// armRead set has passed (the data source did not answer in time), else
// err naming the data source. vitess wraps the net error without Unwrap,
// hence its text too. The caller marks c broken either way.
func (c *backendConn) readError(err error) error {
	timeout := runtime.IsTimeout(err) || strings.Contains(err.Error(), "i/o timeout")
	if timeout && !c.deadline.IsZero() && !time.Now().Before(c.deadline) {
		return &runtime.TimeoutError{DataSource: c.pool.name, Key: c.pool.socketKey, Limit: c.pool.socketTimeout}
	}
	return &runtime.NodeError{DataSource: c.pool.name, Err: err}
}

// fetch is ExecuteFetch of query on c with each wait for the answer
// bounded by the pool's socketTimeout (the answers read here are small:
// the deadline is armed once); errors are readError's.
func (c *backendConn) fetch(query string, maxrows int) (*sqltypes.Result, error) {
	c.armRead(0, 1)
	res, err := c.ExecuteFetch(query, maxrows, false)
	if err != nil {
		var se *sqlerror.SQLError
		if errors.As(err, &se) && se.Number() < 2000 { // the server's own error: it answered
			return nil, err
		}
		return nil, c.readError(err)
	}
	return res, nil
}

// backendParams returns the vitess connection parameters of a data source
// config: its go-sql-driver DSN (runtime.DataSourceConfig.DriverDSN) read
// back, with the dial timeout and the statement every new connection runs
// first: the DSN's system variables (sessionVariables) as go-sql-driver
// sets them, `SET name = value, ...` ("" when there are none). why is set
// when the DSN asks for what the packet pool does not do the way the
// database/sql pool does: TLS, a character set or collation other than the
// pools' utf8mb4_general_ci, a network other than TCP or a Unix socket. The
// data source then has no packet pool and its statements take the
// database/sql path.
func backendParams(c runtime.DataSourceConfig) (p mysql.ConnParams, wait time.Duration, init, why string) {
	p, wait, why = backendConnParams(c)
	if why != "" {
		return p, 0, "", why
	}
	dsn, _ := c.DriverDSN()
	cfg, _ := gomysql.ParseDSN(dsn)
	names := make([]string, 0, len(cfg.Params))
	for k := range cfg.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, k := range names {
		if i == 0 {
			init = "SET "
		} else {
			init += ", "
		}
		init += k + " = " + cfg.Params[k]
	}
	return p, wait, init, ""
}

// backendConnParams is backendParams without the session variables.
func backendConnParams(c runtime.DataSourceConfig) (mysql.ConnParams, time.Duration, string) {
	dsn, err := c.DriverDSN()
	if err != nil {
		return mysql.ConnParams{}, 0, err.Error()
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return mysql.ConnParams{}, 0, err.Error()
	}
	switch {
	case cfg.TLS != nil || cfg.TLSConfig != "" && cfg.TLSConfig != "false":
		return mysql.ConnParams{}, 0, "TLS"
	case cfg.Collation != "" && cfg.Collation != "utf8mb4_general_ci", strings.Contains(dsn, "charset="):
		return mysql.ConnParams{}, 0, "a character set or collation other than utf8mb4_general_ci"
	}
	p := mysql.ConnParams{Uname: cfg.User, Pass: cfg.Passwd, DbName: cfg.DBName, Charset: backendPoolCollation}
	switch cfg.Net {
	case "tcp", "tcp4", "tcp6":
		host, port, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			return mysql.ConnParams{}, 0, err.Error()
		}
		p.Host = host
		if p.Port, err = strconv.Atoi(port); err != nil {
			return mysql.ConnParams{}, 0, "port " + port
		}
	case "unix":
		p.UnixSocket = cfg.Addr
	default:
		return mysql.ConnParams{}, 0, "network " + cfg.Net
	}
	wait := cfg.Timeout
	if wait <= 0 {
		wait = defaultBackendConnectTimeout
	}
	p.ConnectTimeoutMs = uint64(wait / time.Millisecond)
	return p, wait, ""
}

// newBackendPool returns the empty packet pool of data source name; nil
// and the reason when its config cannot have one (backendParams).
func newBackendPool(name string, c runtime.DataSourceConfig) (*backendPool, string) {
	params, wait, init, why := backendParams(c)
	if why != "" {
		return nil, why
	}
	connectKey, _, socketKey, socket := c.Timeouts()
	p := &backendPool{name: name, params: params, init: init, max: c.MaxPoolSize, wait: wait, waitKey: connectKey,
		socketTimeout: socket, socketKey: socketKey, maxLifetime: c.MaxLifetime, freed: make(chan struct{}, 1)}
	if c.IdleTimeout > 0 && !(c.MaxPoolSize > 0 && c.MinPoolSize >= c.MaxPoolSize) {
		p.idleTimeout = c.IdleTimeout
	}
	return p, ""
}

// get returns a connection: the most recently used idle one that passes
// the checks above, or a new one while the pool has room; on a full pool
// it waits for one to be put back, up to the connection timeout. A wait
// during which a dial of the pool timed out fails with that
// *runtime.TimeoutError (the connections were dialling a data source that
// does not answer: dialling again would wait as long again). Errors name
// the data source.
func (p *backendPool) get() (*backendConn, error) {
	var deadline, waitStart time.Time
	for {
		now := time.Now()
		if !waitStart.IsZero() && p.dialTimedOut.Load() >= waitStart.UnixNano() {
			return nil, p.connectTimeout()
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, errBackendPoolClosed
		}
		if n := len(p.idle); n > 0 {
			c := p.idle[n-1]
			p.idle[n-1] = nil
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			if p.expired(c, now) || now.Sub(c.lastUsed) > backendAliveBypass && c.ConnCheck() != nil {
				p.discard(c)
				continue
			}
			return c, nil
		}
		if p.max <= 0 || p.open < p.max {
			p.open++
			p.mu.Unlock()
			c, err := p.dial()
			if err != nil {
				p.release()
				return nil, err
			}
			return c, nil
		}
		p.mu.Unlock()
		if deadline.IsZero() {
			deadline, waitStart = now.Add(p.wait), now
		}
		left := deadline.Sub(now)
		if left <= 0 {
			return nil, errors.New("data source " + p.name + ": no connection free within " + p.wait.String() +
				" (maxPoolSize " + strconv.Itoa(p.max) + ")")
		}
		t := time.NewTimer(left)
		select {
		case <-p.freed:
		case <-t.C:
		}
		t.Stop()
	}
}

// dial opens a new connection (the caller counted it in open): the dial
// and the handshake within the connect timeout (wait), then the
// connection's first statements with each wait bounded by socketTimeout.
// A limit that passes gives a *runtime.TimeoutError.
func (p *backendPool) dial() (*backendConn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.wait)
	defer cancel()
	params := p.params
	mc, err := mysql.Connect(ctx, &params)
	if err != nil {
		if ctx.Err() != nil || runtime.IsTimeout(err) {
			p.dialTimedOut.Store(time.Now().UnixNano())
			return nil, p.connectTimeout()
		}
		return nil, &runtime.NodeError{DataSource: p.name, Err: err}
	}
	rawVitess(mc)
	now := time.Now()
	c := &backendConn{Conn: mc, pool: p, created: now, lastUsed: now}
	for i, q := range append([]string{p.init}, p.setup...) {
		if q == "" {
			continue
		}
		if _, err := c.fetch(q, 0); err != nil {
			mc.Close()
			var te *runtime.TimeoutError
			if errors.As(err, &te) {
				return nil, err
			}
			ne := &runtime.NodeError{DataSource: p.name, Err: err}
			errors.As(err, &ne)
			if i > 0 { // the settings statements of a keyed pool name themselves
				ne.SQL = q
			}
			return nil, ne
		}
	}
	return c, nil
}

// connectTimeout is the error of a connection not made within the
// connect timeout.
func (p *backendPool) connectTimeout() error {
	return &runtime.TimeoutError{DataSource: p.name, Key: p.waitKey, Limit: p.wait, Connect: true}
}

// expired reports whether c outlived maxLifetime or idleTimeout at now.
func (p *backendPool) expired(c *backendConn, now time.Time) bool {
	return p.maxLifetime > 0 && now.Sub(c.created) > p.maxLifetime ||
		p.idleTimeout > 0 && now.Sub(c.lastUsed) > p.idleTimeout
}

// put gives c back after a statement that left it ready for the next
// one (its result read to the end). An expired connection, or any after
// close, is closed instead; idle connections past idleTimeout are closed
// from the oldest end.
func (p *backendPool) put(c *backendConn) {
	now := time.Now()
	c.lastUsed = now
	if p.maxLifetime > 0 && now.Sub(c.created) > p.maxLifetime {
		p.discard(c)
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.discard(c)
		return
	}
	var stale []*backendConn
	for len(p.idle) > 0 && p.expired(p.idle[0], now) {
		stale = append(stale, p.idle[0])
		p.idle = p.idle[1:]
	}
	p.idle = append(p.idle, c)
	p.mu.Unlock()
	p.signal()
	for _, s := range stale {
		p.discard(s)
	}
}

// discard closes c and frees its place in the pool.
func (p *backendPool) discard(c *backendConn) {
	c.Close()
	p.release()
}

// release frees one place in the pool.
func (p *backendPool) release() {
	p.mu.Lock()
	p.open--
	p.mu.Unlock()
	p.signal()
}

// signal wakes one waiting get.
func (p *backendPool) signal() {
	select {
	case p.freed <- struct{}{}:
	default:
	}
}

// stats returns the open connections (idle and in use) and the idle ones.
func (p *backendPool) stats() (open, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open, len(p.idle)
}

// close closes the idle connections; connections in use are closed when
// they are put back. get fails from now on.
func (p *backendPool) close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, c := range idle {
		p.discard(c)
	}
}

// killQuery stops the statement running on the back-end connection with
// thread id id: KILL QUERY, sent on a connection of its own (the pool may
// be full, and this is rare: a client went away mid-statement).
func (p *backendPool) killQuery(id uint32) error {
	params := p.params
	ctx, cancel := context.WithTimeout(context.Background(), p.wait)
	defer cancel()
	mc, err := mysql.Connect(ctx, &params)
	if err != nil {
		return &runtime.NodeError{DataSource: p.name, Err: err}
	}
	defer mc.Close()
	_, err = mc.ExecuteFetch("KILL QUERY "+strconv.FormatUint(uint64(id), 10), 0, false)
	return err
}
