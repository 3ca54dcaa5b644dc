package runtime

import (
	"context"
	"database/sql/driver"
	"errors"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TimeoutError is the error of a data source that did not answer within
// one of its limits: its socket timeout (a read on an open connection
// waited longer: the server is paused, its host is gone, a firewall drops
// the packets) or its connect timeout (no connection, or no finished
// handshake, in time). The connection it happened on is never reused.
// Error() reads e.g. "data source ds_1 timed out: no answer within its
// socketTimeout of 500 ms".
//
// Java's socketTimeout (SO_TIMEOUT) bounds each read, not a whole
// statement: a long result whose packets keep coming is never cut.
type TimeoutError struct {
	DataSource string        // e.g. "ds_1"
	Key        string        // the data source key that set Limit (see DataSourceConfig.Timeouts)
	Limit      time.Duration // the limit that passed
	Connect    bool          // true: connecting timed out; false: a read on an open connection
}

// Error returns "data source <name> timed out: no answer within its
// <key> of <n> ms" ("no connection" when connecting).
func (e *TimeoutError) Error() string {
	what := "no answer"
	if e.Connect {
		what = "no connection"
	}
	return "data source " + e.DataSource + " timed out: " + what + " within its " + e.Key + " of " +
		strconv.FormatInt(e.Limit.Milliseconds(), 10) + " ms"
}

// Timeouts returns the data source's two I/O limits, each with the key
// that set it: connect bounds dialing and the handshake of a new
// connection (the URL's connectTimeout, the DSN's timeout, else
// connectionTimeoutMilliseconds, else DefaultConnectionTimeout under that
// key, as HikariCP's connectionTimeout bounds its getConnection); socket
// bounds each read of an answer on an open connection (the URL's
// socketTimeout, the DSN's readTimeout; 0 and "": none, reads wait as long
// as the server takes, as Connector/J's default). A config with an Origin
// returns the Origin's.
func (c DataSourceConfig) Timeouts() (connectKey string, connect time.Duration, socketKey string, socket time.Duration) {
	if c.Origin != nil {
		return c.Origin.Timeouts()
	}
	connectKey, connect, socketKey = connectionTimeoutKey, c.ConnectionTimeout, "socketTimeout"
	var own time.Duration
	switch {
	case c.URL != "":
		if cfg, err := jdbcConfig(c.URL); err == nil {
			own, socket = cfg.Timeout, cfg.ReadTimeout
		}
		if own > 0 {
			connectKey = "connectTimeout"
		}
	case c.DSN != "":
		if cfg, err := dsnConfig(c.DSN); err == nil {
			own, socket = cfg.Timeout, cfg.ReadTimeout
		}
		socketKey = "readTimeout"
		if own > 0 && own != c.ConnectionTimeout { // equal: the pool setting's, which DriverDSN writes as timeout
			connectKey = "timeout"
		}
	}
	if own > 0 {
		connect = own
	}
	if connect <= 0 {
		connect = DefaultConnectionTimeout
	}
	if socket <= 0 {
		socketKey = ""
	}
	return connectKey, connect, socketKey, socket
}

// IsTimeout reports whether err is an I/O deadline passing (a net.Conn
// read or dial past its deadline).
func IsTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}

// timeoutConnector bounds a data source's new connections, dial and
// MySQL handshake together, by its connect timeout (go-sql-driver bounds
// the dial alone with the DSN's timeout, and the handshake's reads only
// when readTimeout is set): the connector's context gets that deadline,
// which go-sql-driver watches during the handshake. Passing it gives
// *TimeoutError (Connect) unless the caller's own context ended first; a
// handshake read that go-sql-driver cut at the socket timeout (it reports
// ErrInvalidConn) gives the socket timeout's *TimeoutError when that is
// the shorter limit (else the connect timeout's: the two race). With a
// socket timeout, its connections are socketConns (socket.go); without,
// the driver's, unwrapped.
type timeoutConnector struct {
	driver.Connector
	dataSource string
	key        string
	limit      time.Duration
	socketKey  string
	socket     time.Duration // 0: none
}

// Connect connects within the connect timeout. With a socket timeout, the
// connection is a socketConn (socket.go).
func (c *timeoutConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, c.limit)
	defer cancel()
	var slot readSlot
	if c.socket > 0 {
		cctx = context.WithValue(cctx, readSlotKey{}, &slot)
	}
	conn, err := c.Connector.Connect(cctx)
	if err == nil {
		if slot.rc == nil {
			return conn, nil
		}
		return &socketConn{c: conn, rc: slot.rc, te: &TimeoutError{DataSource: c.dataSource, Key: c.socketKey, Limit: c.socket}}, nil
	}
	if ctx.Err() == nil {
		switch {
		case cctx.Err() != nil || IsTimeout(err):
			return nil, c.connectError(c.key, c.limit)
		case slot.rc != nil && slot.rc.timedOut && errors.Is(err, mysql.ErrInvalidConn):
			if c.socket >= c.limit { // the read deadline passed with the connect timeout
				return nil, c.connectError(c.key, c.limit)
			}
			return nil, &TimeoutError{DataSource: c.dataSource, Key: c.socketKey, Limit: c.socket}
		}
		return nil, err
	}
	// The caller's context ended first. When it is a wait for a pool
	// connection (takeConn) whose limit passed, the data source did not
	// connect within that limit or its own connect timeout, whichever is
	// shorter: say so, rather than let the wait read as a full pool.
	if wait, ok := ctx.Value(connectWaitKey{}).(time.Duration); ok && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		if wait < c.limit {
			return nil, c.connectError(connectionTimeoutKey, wait)
		}
		return nil, c.connectError(c.key, c.limit)
	}
	return nil, err
}

// connectError is the data source's *TimeoutError of a connection not
// made within limit, set by key.
func (c *timeoutConnector) connectError(key string, limit time.Duration) error {
	return &TimeoutError{DataSource: c.dataSource, Key: key, Limit: limit, Connect: true}
}

// connectionTimeoutKey is the data source key of the wait for a pool
// connection (DataSourceConfig.ConnectionTimeout).
const connectionTimeoutKey = "connectionTimeoutMilliseconds"

// connectWaitKey is the context key of a wait for a connection of a data
// source's pool (Sources.takeConn); its value is the wait's limit, a
// time.Duration.
type connectWaitKey struct{}

// timeoutRecorder is a data source's outermost connector: it keeps the
// last connect timeout (*TimeoutError, Connect) any of its connections
// returned, after the wrappers of WithConnector named it. A wait for a
// connection of a full pool that passes while the data source's dials
// time out is then reported as that timeout, not as a full pool
// (Sources.takeConn): the connections were all dialling.
type timeoutRecorder struct {
	driver.Connector
	last atomic.Pointer[recordedTimeout]
}

// recordedTimeout is a connect timeout and when it was returned.
type recordedTimeout struct {
	at  time.Time
	err *TimeoutError
}

// Connect connects, recording a connect timeout.
func (r *timeoutRecorder) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := r.Connector.Connect(ctx)
	var te *TimeoutError
	if err != nil && errors.As(err, &te) && te.Connect {
		r.last.Store(&recordedTimeout{at: time.Now(), err: te})
	}
	return conn, err
}

// since returns a copy of the last connect timeout returned at or after
// start; nil when there was none (or r is nil).
func (r *timeoutRecorder) since(start time.Time) *TimeoutError {
	if r == nil {
		return nil
	}
	if rt := r.last.Load(); rt != nil && !rt.at.Before(start) {
		te := *rt.err
		return &te
	}
	return nil
}
