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
// statement's executions and repeated ad-hoc statements plan once. Safe for
// concurrent use (one mutex, held for a map look-up and a list move).
type planCache struct {
	mu    sync.Mutex
	max   int
	ll    *list.List // front: most recently used; values are *cacheEntry
	index map[string]*list.Element
	// size is ll.Len(), readable without the mutex (empty).
	size atomic.Int64
}

type cacheEntry struct {
	sql string
	p   *plan.Plan
}

// newPlanCache returns an empty cache holding at most max plans (max >= 1).
func newPlanCache(max int) *planCache {
	if max < 1 {
		max = 1
	}
	return &planCache{max: max, ll: list.New(), index: make(map[string]*list.Element, max)}
}

// get returns the plan of sql and marks it used, or nil.
func (c *planCache) get(sql string) *plan.Plan {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[sql]
	if !ok {
		return nil
	}
	c.ll.MoveToFront(el)
	return el.Value.(*cacheEntry).p
}

// getBytes is get for a statement in a byte slice, without allocating (a
// map index by string(b) does not copy b).
func (c *planCache) getBytes(sql []byte) *plan.Plan {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[string(sql)]
	if !ok {
		return nil
	}
	c.ll.MoveToFront(el)
	return el.Value.(*cacheEntry).p
}

// put stores p for sql, evicting the least recently used plan when full.
func (c *planCache) put(sql string, p *plan.Plan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[sql]; ok {
		el.Value.(*cacheEntry).p = p
		c.ll.MoveToFront(el)
		return
	}
	c.index[sql] = c.ll.PushFront(&cacheEntry{sql: sql, p: p})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.index, last.Value.(*cacheEntry).sql)
	}
	c.size.Store(int64(c.ll.Len()))
}

// empty reports whether the cache holds no plan, without the mutex: a
// caller that rarely finds a plan skips the look-up.
func (c *planCache) empty() bool { return c.size.Load() == 0 }

// len returns the number of cached plans.
// clear drops every cached plan (the planner's metadata changed).
func (c *planCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	clear(c.index)
	c.size.Store(0)
}

func (c *planCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
