package runtime

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxCachedStmts bounds the prepared statements kept per pool. database/sql
// prepares a cached statement once per connection that runs it, and MariaDB
// allows max_prepared_stmt_count (16,382 by default) per server, so the
// bound keeps pools × connections × statements well below it; past it,
// statements run unprepared-and-cached as before (prepare, execute, close).
const maxCachedStmts = 256

// stmtCache keeps one *sql.Stmt per SQL text of one pool, so a statement
// with arguments costs one round trip (COM_STMT_EXECUTE) instead of three
// commands (prepare, execute, close) per call: what a JDBC application gets
// from a PreparedStatement cache. Generated code runs a bounded set of
// precomputed SQL texts, which is what makes caching them safe. Safe for
// concurrent use; statements are closed with the pool.
type stmtCache struct {
	db *sql.DB
	m  sync.Map // SQL text → *sql.Stmt
	n  atomic.Int32
}

func newStmtCache(db *sql.DB) *stmtCache { return &stmtCache{db: db} }

// txPrepareWait bounds how long a transaction's statement waits for a
// free pool connection to prepare its cached statement on (stmtBounded).
const txPrepareWait = 100 * time.Millisecond

// stmt returns the cached statement for q, preparing it on first use, or
// nil when it cannot be cached (full cache, or the prepare failed: the
// caller then runs q unprepared and reports the server's error). err is
// set, and the caller must return it, when the prepare failed because the
// data source did not connect or answer within its limit (*TimeoutError):
// running q unprepared would wait as long again.
func (c *stmtCache) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	return c.prepare(ctx, q, 0)
}

// stmtBounded is stmt for a statement of a transaction, which already
// holds one of the pool's connections: preparing takes another, and when
// every connection is held by a transaction waiting the same way, none is
// ever returned. So the prepare waits at most txPrepareWait for one and
// gives nil after it (the caller runs q unprepared on the transaction's
// own connection); a later call tries again.
func (c *stmtCache) stmtBounded(ctx context.Context, q string) *sql.Stmt {
	st, _ := c.prepare(ctx, q, txPrepareWait)
	return st
}

// prepare is stmt with the prepare's wait bounded by wait (0: by ctx only).
func (c *stmtCache) prepare(ctx context.Context, q string, wait time.Duration) (*sql.Stmt, error) {
	if v, ok := c.m.Load(q); ok {
		return v.(*sql.Stmt), nil
	}
	if c.n.Load() >= maxCachedStmts {
		return nil, nil
	}
	pctx := ctx
	if wait > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	st, err := c.db.PrepareContext(pctx, q)
	if err != nil {
		var te *TimeoutError
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, nil
	}
	if v, loaded := c.m.LoadOrStore(q, st); loaded {
		_ = st.Close()
		return v.(*sql.Stmt), nil
	}
	c.n.Add(1)
	return st, nil
}

// query runs q on the pool, through its cached statement when it has
// arguments.
func (c *stmtCache) query(ctx context.Context, q string, args []any) (*sql.Rows, error) {
	if len(args) > 0 {
		st, err := c.stmt(ctx, q)
		if err != nil {
			return nil, err
		}
		if st != nil {
			return st.QueryContext(ctx, args...)
		}
	}
	return c.db.QueryContext(ctx, q, args...)
}

// exec runs q on the pool, through its cached statement when it has
// arguments.
func (c *stmtCache) exec(ctx context.Context, q string, args []any) (sql.Result, error) {
	if len(args) > 0 {
		st, err := c.stmt(ctx, q)
		if err != nil {
			return nil, err
		}
		if st != nil {
			return st.ExecContext(ctx, args...)
		}
	}
	return c.db.ExecContext(ctx, q, args...)
}

// forget closes and drops the cached statements whose SQL starts with
// prefix.
func (c *stmtCache) forget(prefix string) {
	c.m.Range(func(k, v any) bool {
		if strings.HasPrefix(k.(string), prefix) {
			if _, loaded := c.m.LoadAndDelete(k); loaded {
				_ = v.(*sql.Stmt).Close()
				c.n.Add(-1)
			}
		}
		return true
	})
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.m.Range(func(_, v any) bool {
		_ = v.(*sql.Stmt).Close()
		return true
	})
}
