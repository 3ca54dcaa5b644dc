package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/vt/vtenv"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// Defaults of Options.
const (
	// DefaultListen is ShardingSphere-Proxy's default address (port 3307).
	DefaultListen = "127.0.0.1:3307"
	// DefaultShutdownTimeout bounds how long Close waits for running
	// statements before it cancels them.
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultMaxStatementSize is the longest statement text a client may
	// send (64 MiB, MySQL 8's default max_allowed_packet).
	DefaultMaxStatementSize = 64 << 20
	// DefaultMaxCachedStatementSize is the longest statement text whose
	// plan is kept in the plan cache (1 MiB: a statement of 65,535
	// placeholders is 128 KiB).
	DefaultMaxCachedStatementSize = 1 << 20
	// DefaultServerVersion is the version advertised at handshake and
	// returned by SELECT @@version. It is MySQL-style on purpose: the SQL
	// parser reads /*!NNNNN */ comments by it.
	DefaultServerVersion = "8.0.40-shardgen-proxy"
)

// Options configure a Server. The zero value listens on DefaultListen and
// requires configured users.
type Options struct {
	// Listen is the TCP address, e.g. "127.0.0.1:3307" (default
	// DefaultListen); port 0 picks a free port (see Server.Addr).
	Listen string
	// Insecure lets a configuration without users start: any user name and
	// password is then accepted. Without it, no users is an error.
	Insecure bool
	// ShutdownTimeout bounds Close's wait for running statements (default
	// DefaultShutdownTimeout); then their contexts are cancelled.
	ShutdownTimeout time.Duration
	// PlanCacheSize is the number of plans kept (default
	// DefaultPlanCacheSize).
	PlanCacheSize int
	// MaxStatementSize is the longest statement text, in bytes, the
	// proxy plans (default DefaultMaxStatementSize); a longer one is
	// refused with ERROR 1153 (08S01), as MySQL refuses a packet above
	// max_allowed_packet, naming both sizes.
	MaxStatementSize int
	// MaxCachedStatementSize is the longest statement text, in bytes,
	// whose plan enters the plan cache (default
	// DefaultMaxCachedStatementSize); longer statements are planned on
	// every execution, so that a few huge statements cannot hold the
	// cache's memory.
	MaxCachedStatementSize int
	// ServerVersion is the advertised version (default
	// DefaultServerVersion).
	ServerVersion string
	// TLS, when set, is the listener's TLS configuration; otherwise the
	// props decide (PropFrontendSSLEnabled). Clients choose TLS or not
	// (TestTLS of go-sql-driver uses tls=skip-verify with the self-signed
	// certificate).
	TLS *tls.Config
	// Logger receives the server's own messages and, when the sql-show prop
	// is true, the logic and actual SQL (default slog.Default()).
	Logger *slog.Logger
	// DisableFastPath turns the pass-through fast path off (fastpath.go):
	// every statement is then planned, executed over the database/sql
	// pools and its rows decoded and encoded again. The fast path is also
	// off when the sql-show prop is true (it logs no actual SQL).
	DisableFastPath bool
}

// Server is the fallback proxy: a MySQL-protocol server (vitess go/mysql)
// that plans every statement with package plan and executes it over the
// runtime's pools. Its methods are safe for concurrent use; each client
// connection is served by its own goroutine, and the calls for one
// connection are serialized (vitess mysql.Handler contract), so a session
// needs no lock.
type Server struct {
	cfg  *Config
	opts Options
	log  *slog.Logger

	env *vtenv.Environment
	db  *runtime.DB
	// foundRows are pools whose connections report matched rather than
	// changed rows (go-sql-driver's clientFoundRows=true) over the same
	// data sources, for clients that set CLIENT_FOUND_ROWS; foundRowsSrc
	// resolves them as in.src resolves db's. No connection is made until
	// such a client runs a statement.
	foundRows    *runtime.DB
	foundRowsSrc *runtime.Sources
	// warns collects the back ends' warnings by session tag (warnings.go).
	warns *warnStore
	b     *plan.Builder
	in    *Interpreter
	cache *planCache
	// steps caches the plans of SELECTs evaluated in steps across data
	// nodes as generated code evaluates them (stepsPlan), by statement
	// text: a prepared statement's with its placeholders, a text
	// statement's as sent. metadataChanged clears it with cache.
	steps *lruCache[*stepsEntry]
	keys  map[string]runtime.KeyGenerator // by key generator name
	// autoInc are the AUTO_INCREMENT sharding columns by lower-case logic
	// table (checkAutoIncZero), derived from the planner's metadata
	// (metadataChanged); autoIncChecks caches, by *plan.Plan, what to
	// check for each INSERT plan (autoIncCheckOf).
	autoInc       atomic.Pointer[map[string][]string]
	autoIncChecks sync.Map
	autoIncCount  atomic.Int64

	// actualDB are the databases of the data sources whose URL names one
	// other than the data source (nodeerr.go).
	actualDB map[string]string

	// deadlocks detects deadlocks across data sources (deadlock.go).
	deadlocks *deadlockDetector

	listener *mysql.Listener
	acceptWG sync.WaitGroup

	ctx    context.Context // cancelled when Close gives up waiting
	cancel context.CancelFunc

	// ddlMu serialises the changes of the planner's metadata (refreshTable,
	// loadMetadata, rereadTable).
	ddlMu sync.Mutex

	// backends are the packet pools of the fast path (fastpath.go) by
	// interpreter data source index, nil where a data source has none; nil
	// when the fast path is off. fast holds the texts that take it.
	backends []*backendPool
	// keyed are the packet pools of sessions on settings pools, by
	// settings key (backend_keyed.go).
	keyed     keyedBackends
	fast      fastCache
	shapes    shapeCache
	stmts     stmtCache // prepared statements on the fast path (fastpath_stmt.go)
	sweepStop chan struct{}

	mu    sync.Mutex
	conns map[*mysql.Conn]*session
	attrs map[*mysql.Conn]connAttrs // of authenticated clients (perfschema.go)
	// setNames is the SET NAMES statement of each handshake collation id
	// (uint32 → string), looked up once (applyHandshakeCharset).
	setNames sync.Map
	inflight atomic.Int64
	stmtSeq  atomic.Uint64 // numbers the tags of connection-less sessions (watchStatement)
	metrics  *metrics
	closing  atomic.Bool
	closed   bool
}

// NewServer prepares a server for cfg: it opens the back-end pools (no
// connection is made until the first statement), the planner and the key
// generators. It refuses a configuration without users unless
// opts.Insecure is set. Nothing listens until Start.
func NewServer(cfg *Config, opts Options) (*Server, error) {
	if cfg == nil || cfg.Rules == nil || cfg.Deploy == nil {
		return nil, errors.New("proxy: no configuration")
	}
	if len(cfg.Users) == 0 && !opts.Insecure {
		return nil, errors.New(strings.TrimPrefix(cfg.Rules.File+": ", ": ") + "no users are configured (authority.users); add one or start with --insecure to accept any user")
	}
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.PlanCacheSize <= 0 {
		opts.PlanCacheSize = DefaultPlanCacheSize
	}
	if opts.MaxStatementSize <= 0 {
		opts.MaxStatementSize = DefaultMaxStatementSize
	}
	if opts.MaxCachedStatementSize <= 0 {
		opts.MaxCachedStatementSize = DefaultMaxCachedStatementSize
	}
	if opts.ServerVersion == "" {
		opts.ServerVersion = DefaultServerVersion
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	env, err := vtenv.New(vtenv.Options{MySQLServerVersion: opts.ServerVersion})
	if err != nil {
		return nil, errors.New("proxy: " + err.Error())
	}
	b, err := plan.NewBuilder(cfg.Rules, nil)
	if err != nil {
		return nil, err
	}
	deploy, err := backendConfig(cfg.Deploy)
	if err != nil {
		return nil, err
	}
	warns := &warnStore{}
	deadlocks := newDeadlockDetector()
	ropts := []runtime.Option{runtime.WithDialFunc(dialBackend(warns, deadlocks)), runtime.WithConnector(ownerConnectors())}
	if show, _ := deploy.Props.Bool(runtime.PropSQLShow, false); show {
		ropts = append(ropts, runtime.WithLogger(opts.Logger))
	}
	db, err := runtime.Open(deploy, ropts...)
	if err != nil {
		return nil, err
	}
	in, err := NewInterpreter(b, db)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	foundRows, err := runtime.Open(withFoundRows(deploy), ropts...)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	foundRowsSrc, err := foundRows.Sources(in.names)
	if err != nil {
		_ = db.Close()
		_ = foundRows.Close()
		return nil, err
	}
	s := &Server{cfg: cfg, opts: opts, log: opts.Logger, env: env, db: db, b: b, in: in, foundRows: foundRows, foundRowsSrc: foundRowsSrc, warns: warns, deadlocks: deadlocks,
		cache: newPlanCache(opts.PlanCacheSize), steps: newLRUCache[*stepsEntry](opts.PlanCacheSize), keys: map[string]runtime.KeyGenerator{}, conns: map[*mysql.Conn]*session{}}
	if cfg.Rules.Sharding != nil {
		for name, spec := range cfg.Rules.Sharding.KeyGenerators {
			kg, err := runtime.NewKeyGenerator(spec.Type, spec.Props)
			if err != nil {
				_ = db.Close()
				_ = foundRows.Close()
				return nil, errors.New("proxy: key generator " + name + ": " + err.Error())
			}
			s.keys[name] = kg
		}
	}
	ai := autoIncShardingColumns(cfg.Rules, b.Table)
	s.autoInc.Store(&ai)
	s.metrics = newMetrics(s)
	s.actualDB = actualDatabases(cfg)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if show, _ := deploy.Props.Bool(runtime.PropSQLShow, false); !show && !opts.DisableFastPath {
		s.openBackends()
	}
	return s, nil
}

// backendConfig returns the deployment config the proxy opens its pools
// with: every data source as a go-sql-driver DSN with parseTime=false, so
// DATE and DATETIME values reach the proxy as the text MySQL sent. (The
// proxy interpolates parameters itself, see executeWire, so statements go
// to the back end as COM_QUERY and rows come back in the text protocol.)
func backendConfig(c *runtime.Config) (*runtime.Config, error) {
	out := *c
	out.DataSources = make([]runtime.NamedDataSource, len(c.DataSources))
	for i, ds := range c.DataSources {
		dsn, err := ds.Config.DriverDSN()
		if err != nil {
			return nil, errors.New("data source " + ds.Name + ": " + err.Error())
		}
		if strings.Contains(dsn, "parseTime=true") {
			dsn = strings.Replace(dsn, "parseTime=true", "parseTime=false", 1)
		} else if !strings.Contains(dsn, "parseTime=") {
			if strings.Contains(dsn, "?") {
				dsn += "&parseTime=false"
			} else {
				dsn += "?parseTime=false"
			}
		}
		cfg := ds.Config
		orig := ds.Config
		cfg.URL, cfg.DSN, cfg.Username, cfg.Password, cfg.Origin = "", dsn, "", "", &orig // errors name the timeouts as the user did
		out.DataSources[i] = runtime.NamedDataSource{Name: ds.Name, Config: cfg}
	}
	return &out, nil
}

// withFoundRows returns the back-end configuration c (see backendConfig)
// with clientFoundRows=true in every DSN: an UPDATE on such a connection
// reports the rows it matched, as MySQL reports them to a client that set
// CLIENT_FOUND_ROWS (MySQL Connector/J sets it by default).
func withFoundRows(c *runtime.Config) *runtime.Config {
	out := *c
	out.DataSources = make([]runtime.NamedDataSource, len(c.DataSources))
	for i, ds := range c.DataSources {
		ds.Config.DSN += "&clientFoundRows=true" // backendConfig's DSN has parameters
		out.DataSources[i] = ds
	}
	return &out
}

// clientFlushDelay is how long vitess's connection to a client waits
// after a packet written within a command's answer before it writes out
// its buffer (its flush timer). The end of every answer is written
// without it: vitess flushes when each command that buffers ends
// (endWriterBuffering: COM_QUERY, COM_STMT_PREPARE, COM_STMT_EXECUTE),
// writes the other commands' answers unbuffered, and the proxy flushes
// before it waits for the client (LOAD DATA LOCAL, loaddata.go) or writes
// around vitess (the fast path's relay). So the delay only holds back the
// first packets of a statement still running (and a buffer of 16 KiB
// goes out when full). With 0, every packet reset a timer that fired at
// once: the answer was written from the timer's goroutine, often in
// several writes (TestClientFlushDelay).
var clientFlushDelay = 100 * time.Millisecond

// Start reads the logic tables' metadata from the data sources (see
// loadMetadata: without DDL files every table's definition, with them a
// check that logs each difference), then listens on Options.Listen and
// serves clients in the background until Close. A table whose definition
// the data source gives but the rules do not fit is an error (a
// schema.Errors, each at its rule's file:line:col), and nothing listens.
func (s *Server) Start() error {
	if err := s.loadMetadata(s.ctx); err != nil {
		return err
	}
	var auth mysql.AuthServer
	if len(s.cfg.Users) == 0 {
		auth = mysql.NewAuthServerNone()
	} else {
		auth = newAuthServer(s.cfg.Users)
	}
	tc, err := s.frontendTLS()
	if err != nil {
		return errors.New("proxy: " + err.Error())
	}
	secure, err := s.requireSecureTransport(tc)
	if err != nil {
		return errors.New("proxy: " + err.Error())
	}
	if secure {
		auth = newSecureAuth(auth)
	}
	l, err := mysql.NewListener("tcp", s.opts.Listen, auth, &handler{s: s}, 0, 0, false, false, 0, clientFlushDelay, true) // multiQuery: ComQueryMulti splits statements
	if err != nil {
		return errors.New("proxy: listen on " + s.opts.Listen + ": " + err.Error())
	}
	l.ServerVersion = s.opts.ServerVersion
	if tc != nil {
		l.TLSConfig.Store(tc)
	}
	l.PreHandleFunc = wrapClientConn // keeps the unsigned flags of binary-protocol parameters (clientConn)
	s.listener = l
	if s.backends != nil {
		s.sweepStop = make(chan struct{})
		s.acceptWG.Add(1)
		go func() {
			defer s.acceptWG.Done()
			s.sweepFastPath()
		}()
	}
	s.startDeadlockDetector()
	s.acceptWG.Add(1)
	go func() {
		defer s.acceptWG.Done()
		l.Accept()
	}()
	return nil
}

// Addr returns the address the server listens on (e.g. "127.0.0.1:43121"),
// or "" before Start.
func (s *Server) Addr() string {
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr().String()
}

// Close shuts the server down gracefully: it stops accepting connections,
// waits up to Options.ShutdownTimeout for running statements, cancels the
// ones still running, closes every client connection and the back-end
// pools. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.closing.Store(true)
	if s.listener != nil {
		s.listener.Shutdown()
		if s.sweepStop != nil {
			close(s.sweepStop)
		}
		s.stopDeadlockDetector()
		s.acceptWG.Wait()
	}
	deadline := time.Now().Add(s.opts.ShutdownTimeout)
	for s.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	s.cancel()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	for _, p := range s.backends {
		if p != nil {
			p.close()
		}
	}
	s.closeKeyed()
	return errors.Join(s.db.Close(), s.foundRows.Close())
}

// keyGenerator returns the key generator p needs, or nil.
func (s *Server) keyGenerator(p *plan.Plan) runtime.KeyGenerator {
	if p.KeyGenerate == nil {
		return nil
	}
	if kg, ok := s.keys[p.KeyGenerate.Generator]; ok {
		return kg
	}
	return nil
}

// openBackends opens the fast path's packet pools, one per data source
// that can have one (backendParams); a data source that cannot is logged
// and keeps the database/sql path.
func (s *Server) openBackends() {
	byName := map[string]runtime.DataSourceConfig{}
	for _, ds := range s.cfg.Deploy.DataSources {
		byName[ds.Name] = ds.Config
	}
	s.backends = make([]*backendPool, len(s.in.names))
	for i, name := range s.in.names {
		c, ok := byName[name]
		if !ok {
			continue // a read/write group
		}
		p, why := newBackendPool(name, c)
		if p == nil {
			s.log.Info("data source without the pass-through fast path", "data_source", name, "reason", why)
			continue
		}
		s.backends[i] = p
	}
	s.fast.max = int64(4 * s.opts.PlanCacheSize)
	s.stmts.max = int64(4 * s.opts.PlanCacheSize)
}
