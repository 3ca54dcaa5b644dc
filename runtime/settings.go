package runtime

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"sync"
	"time"
)

// Settings pools follow vitess's settings pools (go/pools/smartconnpool:
// a connection carries a Setting, applied when it is created, and any
// session with the same setting may reuse it): a proxy session whose
// settings differ from the pools' defaults (SET NAMES latin1, SET sql_mode
// = '', ...) runs on connections drawn from pools keyed by its setup
// statements, the ordered SET statements it ran, instead of taking
// connections of its own (Reserved). Every connection of a keyed pool ran
// the key's statements, in order, right after it connected (setupConnector)
// and is never given to a session with another key, so two sessions that
// set the same things share connections, and a session with settings costs
// what a session on the data source's own pool costs.
//
// Bounds: a DB keeps at most MaxSettingsPools keys. A key no session uses
// stays open for the next session that sets the same things until a new
// key needs its place (least recently used first); a key in use is never
// closed, so when every place is taken by keys in use, Sources.Settings
// fails with ErrNoSettingsPool and the session takes connections of its
// own (Reserved). Each keyed pool of a data source is sized as the data
// source's own pool (maxPoolSize, idleTimeoutMilliseconds,
// maxLifetimeMilliseconds; see DataSourceConfig.Apply) and closes its idle
// connections after SettingsIdleTimeout at the latest, so a data source
// sees at most (1 + MaxSettingsPools) × maxPoolSize connections from one
// DB, and an idle key holds none.
//
// The key is the setup statements as the session sent them, trimmed of
// spaces and trailing semicolons (Sources.Settings): the SET statements
// a client library sends on connect are the same text for each of its
// sessions. Two spellings of the same setting are two keys: correct, one
// pool more.

// MaxSettingsPools is how many keys (distinct lists of setup statements) a
// DB keeps pools for at once.
const MaxSettingsPools = 8

// SettingsIdleTimeout is the longest a keyed pool keeps an idle
// connection (shorter when the data source's idleTimeoutMilliseconds is).
const SettingsIdleTimeout = time.Minute

// ErrNoSettingsPool is returned by Sources.Settings when MaxSettingsPools
// keys are in use by sessions: the caller runs the session on connections
// of its own (Sources.Reserve) instead.
var ErrNoSettingsPool = errors.New("runtime: every settings pool is in use by sessions with other settings")

// Settings is a session's use of the keyed pools of one list of setup
// statements (see the comment above MaxSettingsPools), from
// Sources.Settings until Release. Sources returns the view of the data
// sources whose statements and transactions run on those pools. Not safe
// for concurrent use.
type Settings struct {
	e    *settingsEntry
	db   *DB
	view *Sources
}

// Sources returns the data sources as the session sees them: each
// statement, transaction (LOCAL or XA) and multi-unit write runs on a
// connection of the keyed pools, as *Sources runs them on the data
// sources' own pools. Reads of a read/write group run on its primary (the
// replicas have no keyed pools), as on a Reserved.
func (st *Settings) Sources() *Sources { return st.view }

// Setup returns the setup statements of the key, in order (a copy).
func (st *Settings) Setup() []string { return append([]string(nil), st.e.setup...) }

// Key returns the key of the pools: the setup statements joined with
// ";\n", as SettingsStats names them ("" after Release).
func (st *Settings) Key() string {
	if st.e == nil {
		return ""
	}
	return st.e.key
}

// Release ends the session's use of the pools: they stay open for the
// next session with the same settings (see MaxSettingsPools). Release
// after the first call does nothing.
func (st *Settings) Release() {
	if st.e == nil {
		return
	}
	st.db.settings.release(st.e)
	st.e = nil
}

// settingsPools is a DB's keyed pools, by key.
type settingsPools struct {
	mu      sync.Mutex
	entries map[string]*settingsEntry
	clock   uint64 // counts acquisitions: settingsEntry.used orders the keys
	closed  bool
}

// settingsEntry is the pools of one key, one per data source of the DB
// (DB.pools order), opened on first use.
type settingsEntry struct {
	key   string
	setup []string
	pools []*sql.DB
	stmts []*stmtCache
	refs  int    // sessions using it; never closed while > 0
	used  uint64 // settingsPools.clock at the last acquisition
	// ready is closed when the first acquirer has checked the setup on
	// every data source; err is the check's error.
	ready chan struct{}
	err   error
}

// SettingsKey returns the key of the setup statements: each one trimmed
// of spaces and trailing semicolons, an empty one dropped, and one equal
// to the statement before it dropped (running it again changes nothing).
func SettingsKey(setup []string) []string {
	out := make([]string, 0, len(setup))
	for _, q := range setup {
		q = strings.TrimRight(strings.TrimSpace(q), "; \t\r\n")
		if q == "" || len(out) > 0 && out[len(out)-1] == q {
			continue
		}
		out = append(out, q)
	}
	return out
}

// Settings returns a session's use of the pools whose connections ran
// setup (normalized by SettingsKey), opening them when no session used
// that key yet. The first use of a key checks it: a connection that runs
// setup is taken from the first data source of s that gives one (all are
// asked at once, see checkSettings) and kept idle in the pool; the other
// data sources' connections run setup when a statement first needs one,
// so a data source that does not answer holds no session up. A statement
// the server refuses is returned as a *NodeError naming its data source
// and the statement, wrapping the server's error, and the key is
// forgotten; no data source reached is a connect error.
// ErrNoSettingsPool: see MaxSettingsPools. The caller calls Release when
// the session ends or changes its settings.
func (s *Sources) Settings(ctx context.Context, setup []string) (*Settings, error) {
	db := s.db
	if db == nil {
		return nil, ErrNoSettingsPool
	}
	setup = SettingsKey(setup)
	e, created, err := db.settings.acquire(db, setup)
	if err != nil {
		return nil, err
	}
	if created {
		e.err = db.checkSettings(ctx, e, s.primary)
		if e.err != nil {
			db.settings.remove(e)
		}
		close(e.ready)
	} else {
		select {
		case <-e.ready:
		case <-ctx.Done():
			db.settings.release(e)
			return nil, ctx.Err()
		}
	}
	if e.err != nil {
		db.settings.release(e)
		return nil, e.err
	}
	return &Settings{e: e, db: db, view: s.settingsView(e)}, nil
}

// settingsView returns a copy of s's primary view whose pools are e's.
func (s *Sources) settingsView(e *settingsEntry) *Sources {
	v := *s.primary
	v.pools = make([]*sql.DB, len(s.ids))
	v.stmts = make([]*stmtCache, len(s.ids))
	for i, id := range s.ids {
		v.pools[i], v.stmts[i] = e.pools[id], e.stmts[id]
	}
	v.rw = nil
	v.primary = &v
	return &v
}

// checkSettings checks e's setup on the data sources of s (see
// Sources.Settings): a connection of e's pool of every data source is
// asked for at once, and the first one taken, which ran the setup, ends
// the check; the others are cancelled, so a data source that does not
// answer holds no session up, and each data source's connections run the
// setup when a statement first needs one. A data source that refuses a
// setup statement before one is taken fails the check.
func (db *DB) checkSettings(ctx context.Context, e *settingsEntry, s *Sources) error {
	ds := s.distinct()
	isSetup := func(err error) bool {
		var se *setupError
		return errors.As(err, &se)
	}
	_, c, errs := firstConn(ctx, len(ds), func(ctx context.Context, i int) (*sql.Conn, error) {
		return e.pools[s.ids[ds[i]]].Conn(ctx)
	}, isSetup)
	if c != nil {
		_ = c.Close()
		return nil
	}
	for i, err := range errs {
		var se *setupError
		if errors.As(err, &se) {
			return &NodeError{DataSource: s.names[ds[i]], SQL: se.sql, Err: se.err}
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for i, err := range errs {
		if err != nil {
			return &NodeError{DataSource: s.names[ds[i]], SQL: connectSQL, Err: err}
		}
	}
	return nil
}

// acquire returns the entry of setup with one more session, creating it
// (created: the caller checks it and closes ready) when there is none.
func (p *settingsPools) acquire(db *DB, setup []string) (e *settingsEntry, created bool, err error) {
	key := strings.Join(setup, ";\n")
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, false, errors.New("sql: database is closed")
	}
	p.clock++
	if e := p.entries[key]; e != nil {
		e.refs++
		e.used = p.clock
		return e, false, nil
	}
	if len(p.entries) >= MaxSettingsPools {
		var lru *settingsEntry
		for _, o := range p.entries {
			if o.refs == 0 && (lru == nil || o.used < lru.used) {
				lru = o
			}
		}
		if lru == nil {
			return nil, false, ErrNoSettingsPool
		}
		delete(p.entries, lru.key)
		lru.close()
	}
	e = &settingsEntry{key: key, setup: setup, refs: 1, used: p.clock, ready: make(chan struct{})}
	for i, c := range db.connectors {
		pool := sql.OpenDB(&setupConnector{Connector: c, setup: setup})
		cfg := db.configs[i]
		cfg.Apply(pool)
		if cfg.IdleTimeout <= 0 || cfg.IdleTimeout > SettingsIdleTimeout {
			pool.SetConnMaxIdleTime(SettingsIdleTimeout)
		}
		e.pools = append(e.pools, pool)
		e.stmts = append(e.stmts, newStmtCache(pool))
	}
	if p.entries == nil {
		p.entries = map[string]*settingsEntry{}
	}
	p.entries[key] = e
	return e, true, nil
}

// release ends one session's use of e; e closes when it was removed and
// this was its last session.
func (p *settingsPools) release(e *settingsEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.refs--
	if e.refs == 0 && p.entries[e.key] != e {
		e.close()
	}
}

// remove forgets e (its check failed); it closes with its last session.
func (p *settingsPools) remove(e *settingsEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.entries[e.key] == e {
		delete(p.entries, e.key)
	}
}

// forget closes the prepared statements of every keyed pool whose SQL
// starts with prefix (see DB.ForgetStatements).
func (p *settingsPools) forget(prefix string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.entries {
		for _, c := range e.stmts {
			c.forget(prefix)
		}
	}
}

// close closes every keyed pool; sessions still using one get "sql:
// database is closed", as on the DB's own pools.
func (p *settingsPools) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, e := range p.entries {
		e.close()
		delete(p.entries, k)
	}
	p.closed = true
}

// close closes e's statements and pools.
func (e *settingsEntry) close() {
	for _, c := range e.stmts {
		c.close()
	}
	for _, pool := range e.pools {
		_ = pool.Close()
	}
}

// SettingsStats returns the database/sql statistics of the keyed pools of
// the data source name, by key (the setup statements joined with ";\n"),
// e.g. to count the connections sessions with settings hold. ok is false
// for an unknown name.
func (db *DB) SettingsStats(name string) (stats map[string]sql.DBStats, ok bool) {
	i, ok := db.index[name]
	if !ok {
		return nil, false
	}
	db.settings.mu.Lock()
	defer db.settings.mu.Unlock()
	stats = make(map[string]sql.DBStats, len(db.settings.entries))
	for k, e := range db.settings.entries {
		stats[k] = e.pools[i].Stats()
	}
	return stats, true
}

// setupConnector is a data source's connector whose connections run the
// setup statements right after they connect, in order. A statement the
// server refuses closes the connection and returns a *setupError.
type setupConnector struct {
	driver.Connector
	setup []string
}

// Connect connects and runs the setup; see setupConnector.
func (c *setupConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		_ = conn.Close()
		return nil, errors.New("runtime: the driver's connections cannot run setup statements")
	}
	for _, q := range c.setup {
		if _, err := ex.ExecContext(ctx, q, nil); err != nil {
			_ = conn.Close()
			return nil, &setupError{sql: q, err: err}
		}
	}
	return conn, nil
}

// setupError is a setup statement's error on a new connection of a keyed
// pool.
type setupError struct {
	sql string
	err error
}

func (e *setupError) Error() string { return e.sql + ": " + e.err.Error() }

func (e *setupError) Unwrap() error { return e.err }
