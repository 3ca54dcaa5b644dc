package proxy

import (
	"sync"

	"github.com/shardgen/shardgen/runtime"
)

// Keyed packet pools: the fast path of a session on settings pools
// (settings.go, runtime.Settings). Such a session's statements must run on
// connections that ran its settings, so its fast-path statements take a
// connection of packet pools keyed by the same key as its database/sql
// settings pools (runtime.Settings.Key, the setup statements in order):
// every connection of a keyed packet pool ran the data source's own
// session variables and then the key's setup statements, in order, right
// after it connected (backendPool.dial), and is never given to a session
// with another key. A setup statement the data source refuses fails the
// dial: the statement then takes the database/sql path, which reports the
// error.
//
// Bounds, as the database/sql settings pools: at most
// runtime.MaxSettingsPools keys; a new key takes the place of the least
// recently used key with no statement running on it, whose pools are
// closed (a connection still in use is closed when it is put back). When
// every place is taken by keys with a running statement, the statement
// takes the database/sql path. Each keyed pool of a data source is sized
// as the data source's own packet pool (maxPoolSize, idle and lifetime
// limits), with an idle limit of runtime.SettingsIdleTimeout at the
// latest.

// keyedBackends is a Server's keyed packet pools, by key. Safe for
// concurrent use: one mutex, held for a map look-up.
type keyedBackends struct {
	mu      sync.Mutex
	entries map[string]*keyedBackend
	clock   uint64 // counts acquisitions: keyedBackend.used orders the keys
	closed  bool
}

// keyedBackend is the packet pools of one key, by data source (nil where
// the data source has no packet pool of its own).
type keyedBackend struct {
	key     string
	pools   []*backendPool
	used    uint64 // keyedBackends.clock at the last acquisition
	running int    // statements between acquire and release
}

// acquireKeyed returns the keyed pool of data source ds for the session
// settings set, counting one running statement on its key until release;
// nil when there is none (the data source has no packet pool, the server
// is closing, or every key is busy): the statement then takes the
// database/sql path.
func (s *Server) acquireKeyed(set *runtime.Settings, ds int) (*keyedBackend, *backendPool) {
	if ds >= len(s.backends) || s.backends[ds] == nil {
		return nil, nil
	}
	key := set.Key()
	if key == "" {
		return nil, nil
	}
	kb := &s.keyed
	kb.mu.Lock()
	defer kb.mu.Unlock()
	if kb.closed {
		return nil, nil
	}
	kb.clock++
	e := kb.entries[key]
	if e == nil {
		if len(kb.entries) >= runtime.MaxSettingsPools {
			var lru *keyedBackend
			for _, o := range kb.entries {
				if o.running == 0 && (lru == nil || o.used < lru.used) {
					lru = o
				}
			}
			if lru == nil {
				return nil, nil
			}
			delete(kb.entries, lru.key)
			lru.close()
		}
		e = &keyedBackend{key: key, pools: make([]*backendPool, len(s.backends))}
		setup := set.Setup()
		for i, p := range s.backends {
			if p != nil {
				e.pools[i] = p.keyed(setup)
			}
		}
		if kb.entries == nil {
			kb.entries = map[string]*keyedBackend{}
		}
		kb.entries[key] = e
	}
	e.used = kb.clock
	e.running++
	return e, e.pools[ds]
}

// releaseKeyed ends a statement acquireKeyed counted on e.
func (s *Server) releaseKeyed(e *keyedBackend) {
	s.keyed.mu.Lock()
	e.running--
	s.keyed.mu.Unlock()
}

// closeKeyed closes every keyed pool (Server.Close).
func (s *Server) closeKeyed() {
	kb := &s.keyed
	kb.mu.Lock()
	defer kb.mu.Unlock()
	for k, e := range kb.entries {
		e.close()
		delete(kb.entries, k)
	}
	kb.closed = true
}

// keyedStats returns the open connections of data source ds's keyed
// pools, by key (for tests and diagnostics).
func (s *Server) keyedStats(ds int) map[string]int {
	kb := &s.keyed
	kb.mu.Lock()
	defer kb.mu.Unlock()
	out := map[string]int{}
	for k, e := range kb.entries {
		if p := e.pools[ds]; p != nil {
			out[k], _ = p.stats()
		}
	}
	return out
}

// close closes e's pools (the caller holds keyedBackends.mu).
func (e *keyedBackend) close() {
	for _, p := range e.pools {
		if p != nil {
			p.close()
		}
	}
}

// keyed returns an empty pool of p's data source whose connections run
// setup after p's own session variables (see the top of the file).
func (p *backendPool) keyed(setup []string) *backendPool {
	k := &backendPool{name: p.name, params: p.params, init: p.init, setup: setup, max: p.max, wait: p.wait,
		waitKey: p.waitKey, socketTimeout: p.socketTimeout, socketKey: p.socketKey,
		idleTimeout: p.idleTimeout, maxLifetime: p.maxLifetime, freed: make(chan struct{}, 1)}
	if k.idleTimeout <= 0 || k.idleTimeout > runtime.SettingsIdleTimeout {
		k.idleTimeout = runtime.SettingsIdleTimeout
	}
	return k
}
