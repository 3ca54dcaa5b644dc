package runtime

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Props read by Open. Source: ShardingSphere ConfigurationPropertyKey
// (../shared/spec/shardingsphere.md §2, props).
const (
	// PropSQLShow ("sql-show", default false): log the logic SQL and the
	// actual SQL of every route unit (see WithLogger).
	PropSQLShow = "sql-show"
	// PropMaxConnectionsSizePerQuery ("max-connections-size-per-query",
	// default 1): how many route units of one statement may run at once on
	// one data source.
	PropMaxConnectionsSizePerQuery = "max-connections-size-per-query"
)

// DB is the set of connection pools of one logic database: one
// database/sql pool per data source of a Config, plus the execution settings
// read from its props. It is safe for concurrent use by any number of
// goroutines, like *sql.DB. Generated packages and the proxy resolve their
// data source names against it once with Sources.
type DB struct {
	names []string  // data source names, in Config order
	addrs []string  // "host:port/db" of each, for error messages (never the password)
	pools []*sql.DB // one pool per data source, same order
	index map[string]int

	// connectors and configs open the keyed pools of sessions with
	// their own settings (settings.go), one per data source, same order.
	connectors []driver.Connector
	configs    []DataSourceConfig
	// recorders are the outermost connectors of connectors, same order:
	// their last connect timeouts (takeConn).
	recorders []*timeoutRecorder
	settings  settingsPools

	hooks            *hooks       // nil: no logging, no observer
	maxConnsPerQuery int          // max-connections-size-per-query, >= 1
	maxCrossNodeRows int          // max-cross-node-rows, >= 1
	crossNodeJoin    JoinStrategy // cross-node-join

	encryptors map[string]Encryptor // by name, from the !ENCRYPT rule

	groups map[string]*rwGroup // read/write groups by name; nil: none
	health []replicaHealth     // per pool: taken out as a replica (rwsplit.go)
	stmts  []*stmtCache        // per pool: prepared statements of its SQL texts
	xa     xaCoordinator       // distributed transactions (xa.go)

	txType TxType       // Config.TransactionType: how multi-node writes commit
	logger *slog.Logger // WithLogger's logger (nil: slog.Default() for errors)
}

// Option configures Open.
type Option func(*openOptions)

type openOptions struct {
	logger    *slog.Logger
	loggerSet bool
	observer  Observer
	dial      func(ctx context.Context, network, addr string) (net.Conn, error)
	wrap      func(NamedDataSource, driver.Connector) driver.Connector
}

// WithLogger sends sql-show output to logger: one "Logic SQL" record per
// statement and one "Actual SQL" record per route unit, at level Info, with
// attributes stmt, sql, units / stmt, data_source, sql, args. It overrides
// the sql-show prop: WithLogger(nil) turns logging off even when sql-show is
// true. Without WithLogger, sql-show: true logs to slog.Default() (taken at
// Open) and sql-show: false (the default) logs nothing.
func WithLogger(logger *slog.Logger) Option {
	return func(o *openOptions) { o.logger, o.loggerSet = logger, true }
}

// WithDialFunc makes every pool connect with dial (go-sql-driver's
// Config.DialFunc) instead of net.Dial, unless the data source's DSN
// names a dialer of its own; a proxy wraps its back-end connections with
// it. nil: net.Dial.
func WithDialFunc(dial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(o *openOptions) { o.dial = dial }
}

// WithConnector makes every pool, the keyed pools of settings.go
// included, connect through wrap(ds, c), c being the connector of the data
// source ds (go-sql-driver's, its connections bounded by the connect
// timeout): a proxy wraps the driver's connections to learn
// which session each command runs for. wrap must return a connector whose
// connections implement every optional database/sql/driver interface the
// driver's do. nil: the driver's connector.
func WithConnector(wrap func(NamedDataSource, driver.Connector) driver.Connector) Option {
	return func(o *openOptions) { o.wrap = wrap }
}

// WithObserver reports every executed route unit to obs (nil: none).
func WithObserver(obs Observer) Option {
	return func(o *openOptions) { o.observer = obs }
}

// Open opens one connection pool per data source of cfg with
// go-sql-driver/mysql and applies each data source's pool settings. It does
// not connect: the first statement (or Ping) does. Props are read once here:
// sql-show (true/false) and max-connections-size-per-query (an integer >= 1).
//
// Errors name the data source, e.g. `data source "ds_1": ...`, for a DSN
// that cannot be built or parsed; a bad prop, a duplicate or empty data
// source name, or no data sources at all are errors too. On error nothing
// stays open.
func Open(cfg *Config, opts ...Option) (*DB, error) {
	if cfg == nil {
		return nil, errors.New("runtime.Open: nil *Config")
	}
	if len(cfg.DataSources) == 0 {
		return nil, errors.New("runtime.Open: the configuration has no data sources")
	}
	var o openOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	sqlShow, err := cfg.Props.Bool(PropSQLShow, false)
	if err != nil {
		return nil, errors.New("props: " + err.Error())
	}
	maxConns, err := cfg.Props.Int64(PropMaxConnectionsSizePerQuery, 1)
	if err != nil {
		return nil, errors.New("props: " + err.Error())
	}
	if maxConns < 1 || maxConns > 1<<20 {
		return nil, errors.New("props: " + (&PropError{Prop: PropMaxConnectionsSizePerQuery,
			Msg: "must be between 1 and 1048576, got " + strconv.FormatInt(maxConns, 10)}).Error())
	}
	maxRows, err := cfg.Props.Int64(PropMaxCrossNodeRows, DefaultMaxCrossNodeRows)
	if err != nil {
		return nil, errors.New("props: " + err.Error())
	}
	if maxRows < 1 || maxRows > 1<<40 {
		return nil, errors.New("props: " + (&PropError{Prop: PropMaxCrossNodeRows,
			Msg: "must be between 1 and 1099511627776, got " + strconv.FormatInt(maxRows, 10)}).Error())
	}
	crossJoin, err := ParseJoinStrategy(cfg.Props[PropCrossNodeJoin])
	if err != nil {
		return nil, errors.New("props: " + (&PropError{Prop: PropCrossNodeJoin, Msg: err.Error()}).Error())
	}
	if !o.loggerSet && sqlShow {
		o.logger = slog.Default()
	}

	db := &DB{
		names:            make([]string, 0, len(cfg.DataSources)),
		addrs:            make([]string, 0, len(cfg.DataSources)),
		pools:            make([]*sql.DB, 0, len(cfg.DataSources)),
		index:            make(map[string]int, len(cfg.DataSources)),
		maxConnsPerQuery: int(maxConns),
		maxCrossNodeRows: int(maxRows),
		crossNodeJoin:    crossJoin,
		txType:           cfg.TransactionType,
		logger:           o.logger,
	}
	if o.logger != nil || o.observer != nil {
		db.hooks = &hooks{logger: o.logger, observer: o.observer}
	}
	for _, ds := range cfg.DataSources {
		pool, conn, addr, err := openPool(ds, db.index, o.dial, o.wrap)
		if err != nil {
			_ = db.Close()
			return nil, err
		}
		db.index[ds.Name] = len(db.names)
		db.names = append(db.names, ds.Name)
		db.addrs = append(db.addrs, addr)
		db.pools = append(db.pools, pool)
		db.stmts = append(db.stmts, newStmtCache(pool))
		db.connectors = append(db.connectors, conn)
		db.recorders = append(db.recorders, conn)
		db.configs = append(db.configs, ds.Config)
	}
	if err := db.openGroups(cfg); err != nil {
		_ = db.Close()
		return nil, errors.New("runtime.Open: " + err.Error())
	}
	for _, e := range cfg.Encryptors {
		enc, err := NewEncryptor(e.Type, e.Props)
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("encryptor %q: %w", e.Name, err)
		}
		if db.encryptors == nil {
			db.encryptors = map[string]Encryptor{}
		}
		db.encryptors[e.Name] = enc
	}
	return db, nil
}

// Encryptor returns the encryptor named name in the configuration's
// !ENCRYPT rule, built once at Open (keys expanded from the environment).
// Generated code and the proxy look their encryptors up here at start-up,
// so keys never appear in generated code. Error: no such encryptor.
func (db *DB) Encryptor(name string) (Encryptor, error) {
	if e, ok := db.encryptors[name]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("encryptor %q is not configured in the !ENCRYPT rule of the deployment YAML", name)
}

// openPool opens the pool of one data source and returns it with its
// connector and its "host:port/db" address.
func openPool(ds NamedDataSource, seen map[string]int, dial func(ctx context.Context, network, addr string) (net.Conn, error),
	wrap func(NamedDataSource, driver.Connector) driver.Connector) (*sql.DB, *timeoutRecorder, string, error) {
	if ds.Name == "" {
		return nil, nil, "", errors.New("runtime.Open: a data source has an empty name")
	}
	if _, dup := seen[ds.Name]; dup {
		return nil, nil, "", errors.New("runtime.Open: data source " + strconv.Quote(ds.Name) + " is configured twice")
	}
	where := "data source " + strconv.Quote(ds.Name) + ": "
	dsn, err := ds.Config.DriverDSN()
	if err != nil {
		return nil, nil, "", errors.New(where + err.Error())
	}
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, nil, "", errors.New(where + err.Error())
	}
	if mc.DialFunc == nil {
		mc.DialFunc = dial
	}
	mc.Logger = driverLogger{dataSource: ds.Name}
	key, limit, socketKey, socket := ds.Config.Timeouts()
	if socket > 0 {
		mc.DialFunc = readDialer(mc.DialFunc)
	}
	var conn driver.Connector
	if conn, err = mysql.NewConnector(mc); err != nil {
		return nil, nil, "", errors.New(where + err.Error())
	}
	conn = &timeoutConnector{Connector: conn, dataSource: ds.Name, key: key, limit: limit, socketKey: socketKey, socket: socket}
	if wrap != nil {
		conn = wrap(ds, conn)
	}
	rec := &timeoutRecorder{Connector: conn}
	pool := sql.OpenDB(rec)
	ds.Config.Apply(pool)
	return pool, rec, mc.Addr + "/" + mc.DBName, nil
}

// Close closes every pool and returns the errors of those that failed,
// joined. Statements still running finish first (see sql.DB.Close).
func (db *DB) Close() error {
	var errs []error
	db.settings.close()
	for _, c := range db.stmts {
		c.close()
	}
	for i, p := range db.pools {
		if err := p.Close(); err != nil {
			errs = append(errs, db.sourceError(i, err))
		}
	}
	return errors.Join(errs...)
}

// ForgetStatements closes the prepared statements every pool keeps for SQL
// texts that start with prefix, and makes room for others: a proxy calls it
// with a session's tag when the session ends. A statement still running
// finishes first (see sql.Stmt.Close). Generated code never needs it.
func (db *DB) ForgetStatements(prefix string) {
	if prefix == "" {
		return
	}
	for _, c := range db.stmts {
		c.forget(prefix)
	}
	db.settings.forget(prefix)
}

// sourceError names data source i and its address in err, e.g.
// `data source "ds_1" (127.0.0.1:13307/ds_1): connection refused`.
func (db *DB) sourceError(i int, err error) error {
	return &sourceError{name: db.names[i], addr: db.addrs[i], err: err}
}

type sourceError struct {
	name, addr string
	err        error
}

func (e *sourceError) Error() string {
	return "data source " + strconv.Quote(e.name) + " (" + e.addr + "): " + e.err.Error()
}

func (e *sourceError) Unwrap() error { return e.err }

// Ping checks every data source in parallel, opening a connection to each if
// needed, and returns nil when all answer. Otherwise it returns the errors
// of the failing data sources joined in Config order, each naming the data
// source and its address, e.g.
// `data source "ds_1" (127.0.0.1:13307/ds_1): dial tcp ...: connect: connection refused`.
// ctx bounds the whole check.
func (db *DB) Ping(ctx context.Context) error {
	errs := make([]error, len(db.pools))
	var wg sync.WaitGroup
	for i, p := range db.pools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.PingContext(ctx); err != nil {
				errs[i] = db.sourceError(i, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// DataSourceNames returns the data source names in Config order (a copy).
func (db *DB) DataSourceNames() []string {
	return append([]string(nil), db.names...)
}

// GroupNames returns the names of the read/write groups of the
// !READWRITE_SPLITTING rule, sorted (nil without groups). Each is a logic
// data source that Sources accepts.
func (db *DB) GroupNames() []string {
	var out []string
	for n := range db.groups {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Pool returns the *sql.DB of the data source name, e.g. to run DDL or a
// statement that shardgen does not route. ok is false for an unknown name.
func (db *DB) Pool(name string) (pool *sql.DB, ok bool) {
	i, ok := db.index[name]
	if !ok {
		return nil, false
	}
	return db.pools[i], true
}

// Sources resolves names, the data source names a generated package (or a
// plan) refers to, once, into an indexable set: RouteUnit.DataSource is an
// index into names. Names may repeat. A name may be a read/write group of
// the !READWRITE_SPLITTING rule: its units run on the group's write data
// source or a replica (see rwsplit.go), and it is the same data source as
// its write data source for transactions and parallelism. The error lists
// every name that is neither a data source nor a group, in the order
// given, e.g.
// `unknown data sources "ds_4", "ds_5" (configured: ds_0, ds_1, ds_2, ds_3)`.
func (db *DB) Sources(names []string) (*Sources, error) {
	s := &Sources{
		names: append([]string(nil), names...),
		pools: make([]*sql.DB, len(names)),
		stmts: make([]*stmtCache, len(names)),
		ids:   make([]int, len(names)),
		ndb:   len(db.pools),
		hooks: db.hooks,
		limit: db.maxConnsPerQuery,
		db:    db,
	}
	var missing []string
	for i, n := range names {
		j, ok := db.index[n]
		if g := db.groups[n]; !ok && g != nil {
			if s.rw == nil {
				s.rw = make([]*rwGroup, len(names))
			}
			s.rw[i], j, ok = g, g.write, true
		}
		if !ok {
			if q := strconv.Quote(n); !slices.Contains(missing, q) {
				missing = append(missing, q)
			}
			continue
		}
		s.pools[i] = db.pools[j]
		s.stmts[i] = db.stmts[j]
		s.ids[i] = j
	}
	if len(missing) > 0 {
		word := "data source"
		if len(missing) > 1 {
			word = "data sources"
		}
		configured := strings.Join(db.names, ", ")
		if len(db.groups) > 0 {
			gs := make([]string, 0, len(db.groups))
			for n := range db.groups {
				gs = append(gs, n)
			}
			slices.Sort(gs)
			configured += "; read/write groups: " + strings.Join(gs, ", ")
		}
		return nil, errors.New("unknown " + word + " " + strings.Join(missing, ", ") +
			" (configured: " + configured + ")")
	}
	s.primary = s
	if s.rw != nil {
		p := *s
		p.rw = nil
		p.primary = &p
		s.primary = &p
	}
	return s, nil
}

// Sources is the set of data sources one generated package (or one plan)
// runs on, resolved once by DB.Sources: RouteUnit.DataSource indexes it. It
// executes route units directly on the pools (auto-commit); BeginTx and
// WithTx start a single-shard transaction. Safe for concurrent use.
type Sources struct {
	names []string     // data source name per index
	pools []*sql.DB    // pool per index
	stmts []*stmtCache // prepared statements per index (the pool's)
	ids   []int        // index in DB.pools per index: equal ids are one data source
	ndb   int          // len(DB.pools)
	hooks *hooks       // nil: no logging, no observer
	limit int          // max-connections-size-per-query

	rw      []*rwGroup // read/write group per index (nil entry: a data source); nil: no groups
	primary *Sources   // the view whose reads all go to primaries (s itself without groups)
	db      *DB        // the pools' owner (distributed transactions)
}

// Names returns the data source names, indexed as RouteUnit.DataSource (a
// copy).
func (s *Sources) Names() []string { return append([]string(nil), s.names...) }

// Len returns the number of data sources (valid RouteUnit.DataSource values
// are 0..Len()-1).
func (s *Sources) Len() int { return len(s.names) }

// DefaultConnectionTimeout is how long taking a connection from a full pool
// waits when a data source sets no connectionTimeoutMilliseconds: HikariCP's
// default connectionTimeout (30 s), which ShardingSphere's data sources
// inherit.
const DefaultConnectionTimeout = 30 * time.Second

// ErrPoolTimeout is wrapped by the error of a transaction's first statement
// on a data source whose pool had no free connection within its connection
// timeout (HikariCP's SQLTransientConnectionException "Connection is not
// available, request timed out").
var ErrPoolTimeout = errors.New("no connection available in the data source's pool within its connectionTimeoutMilliseconds")

// takeConn takes a connection of source index d from its pool, waiting at
// most the data source's connectionTimeoutMilliseconds (DefaultConnectionTimeout
// when unset) when every connection is in use. A transaction holds its
// connections until it ends, so two sessions that each hold one data
// source's last connection and wait for the other's would otherwise wait
// forever; with the bound one of them fails and rolls back, as under
// ShardingSphere (HikariCP). ctx still cancels the wait; it is not kept by
// the connection. Errors are *NodeError (SQL "connect"), wrapping
// ErrPoolTimeout when the wait timed out with every connection in use, or
// the data source's *TimeoutError (Connect) when it timed out while the
// data source did not connect (the wait for a new connection is the
// shorter of that wait and the connect timeout, once).
func (s *Sources) takeConn(ctx context.Context, d int) (*sql.Conn, error) {
	wait := DefaultConnectionTimeout
	var rec *timeoutRecorder
	if s.db != nil && s.ids[d] < len(s.db.configs) {
		if t := s.db.configs[s.ids[d]].ConnectionTimeout; t > 0 {
			wait = t
		}
		rec = s.db.recorders[s.ids[d]]
	}
	start := time.Now()
	actx, cancel := context.WithTimeout(context.WithValue(ctx, connectWaitKey{}, wait), wait)
	c, err := s.pools[d].Conn(actx)
	cancel()
	if err != nil {
		var te *TimeoutError
		switch {
		case ctx.Err() != nil: // the caller's own end, not a limit of the data source
			if errors.As(err, &te) {
				err = ctx.Err()
			}
		case errors.As(err, &te):
		case errors.Is(err, context.DeadlineExceeded):
			if te = rec.since(start); te != nil {
				err = te
			} else {
				err = fmt.Errorf("%w (waited %v)", ErrPoolTimeout, wait)
			}
		}
		return nil, &NodeError{DataSource: s.names[d], SQL: connectSQL, Err: err}
	}
	return c, nil
}

// driverLogger is go-sql-driver's logger of a data source's connections
// (Config.Logger): its lines (an I/O error it also returns, as "invalid
// connection" or this package's *TimeoutError; a bad idle connection it
// closed) go to slog.Default() at level Debug with the data source's name,
// not to stderr, where they read as failures the caller has already been
// told of.
type driverLogger struct{ dataSource string }

// Print logs v as one Debug record.
func (l driverLogger) Print(v ...any) {
	slog.Debug("go-sql-driver", "data_source", l.dataSource, "msg", strings.TrimSpace(fmt.Sprintln(v...)))
}
