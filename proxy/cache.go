package proxy

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/shardgen/shardgen/plan"
)

// DefaultPlanCacheSize is the number of plans a Server keeps when
// Options.PlanCacheSize is 0.
const DefaultPlanCacheSize = 1024

// planCache is a bounded LRU of plans keyed by the statement's SQL text (as
// the client sent it, trimmed), shared by every session: a prepared
// statement's executions and repeated ad-hoc statements plan once.
type planCache = lruCache[*plan.Plan]

// lruCache is a bounded LRU of values of V (pointers: nil is "none")
// keyed by a statement's SQL text. Safe for concurrent use (one mutex,
// held for a map look-up and a list move).
type lruCache[V comparable] struct {
	mu    sync.Mutex
	max   int
	ll    *list.List // front: most recently used; values are *cacheEntry[V]
	index map[string]*list.Element
	// size is ll.Len(), readable without the mutex (empty).
	size atomic.Int64
}

type cacheEntry[V comparable] struct {
	sql string
	p   V
}

// newPlanCache returns an empty cache holding at most max plans (max >= 1).
func newPlanCache(max int) *planCache { return newLRUCache[*plan.Plan](max) }

// newLRUCache returns an empty cache holding at most max values (max >= 1).
func newLRUCache[V comparable](max int) *lruCache[V] {
	if max < 1 {
		max = 1
	}
	return &lruCache[V]{max: max, ll: list.New(), index: make(map[string]*list.Element, max)}
}

// get returns the value of sql and marks it used, or the zero V.
func (c *lruCache[V]) get(sql string) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[sql]
	if !ok {
		var zero V
		return zero
	}
	c.ll.MoveToFront(el)
	return el.Value.(*cacheEntry[V]).p
}

// getBytes is get for a statement in a byte slice, without allocating (a
// map index by string(b) does not copy b).
func (c *lruCache[V]) getBytes(sql []byte) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[string(sql)]
	if !ok {
		var zero V
		return zero
	}
	c.ll.MoveToFront(el)
	return el.Value.(*cacheEntry[V]).p
}

// put stores p for sql, evicting the least recently used value when full.
func (c *lruCache[V]) put(sql string, p V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[sql]; ok {
		el.Value.(*cacheEntry[V]).p = p
		c.ll.MoveToFront(el)
		return
	}
	c.index[sql] = c.ll.PushFront(&cacheEntry[V]{sql: sql, p: p})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.index, last.Value.(*cacheEntry[V]).sql)
	}
	c.size.Store(int64(c.ll.Len()))
}

// empty reports whether the cache holds no value, without the mutex: a
// caller that rarely finds one skips the look-up.
func (c *lruCache[V]) empty() bool { return c.size.Load() == 0 }

// clear drops every cached value (the planner's metadata changed).
func (c *lruCache[V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	clear(c.index)
	c.size.Store(0)
}

// len returns the number of cached values.
func (c *lruCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
