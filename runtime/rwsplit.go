package runtime

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Read/write splitting (ShardingSphere !READWRITE_SPLITTING,
// ReadwriteSplittingDataSourceRouter; ../shared/spec/shardingsphere.md §6).
//
// A read/write group is a logic data source name: DB.Sources accepts it
// wherever a data source name is accepted. A route unit on a group runs:
//
//   - on the group's write data source (the primary): every Exec and
//     ExecUnits; every read made with a context from WithPrimary (read your
//     own writes, or a query annotated to read the primary); every read
//     through Sources.Primary() (what generated code uses for locking reads:
//     SELECT ... FOR UPDATE / LOCK IN SHARE MODE); every statement of a
//     transaction, reads included, when the group's transactional strategy
//     is PRIMARY;
//   - otherwise (reads: QueryRow, Query, QueryUnits, QueryMerged, ...) on
//     a replica the group's load balancer picks among the replicas that are
//     up; in a transaction with strategy FIXED the first pick is kept for
//     the transaction's later reads, with DYNAMIC each read picks again.
//     Replica reads run outside the transaction, as in ShardingSphere.
//
// Failure policy. A replica read that fails before the statement returned
// its result set (database/sql hands rows over only after the driver read
// the result header, so no row has reached the caller) with a connection
// error (refused or reset dial, broken or invalid connection, EOF) or a
// server error that says the server cannot serve (1040 too many
// connections, 1044/1045 access denied, 1049 unknown database, 1053
// shutdown in progress, 1203 too many user connections, 1927 connection
// killed, 4031 disconnected by the server) takes that replica out of the
// group for ReplicaDownFor (5 s), then twice as long after each further
// failure that follows its return, at most ReplicaMaxDownFor (60 s); a
// successful read resets it. Error 1146 (no such table: a table the
// replica has not received yet) retries without taking the replica out.
// The read is then retried on another replica that is up, chosen by the
// load balancer, and last on the primary; the caller sees an error only
// when the primary fails too, and that error names every attempt. A
// cancelled context or any other error (a syntax error, a duplicate key
// ...) is returned at once, with no retry. Errors while the caller reads
// rows are the caller's: the read is not retried then.
const (
	// ReplicaDownFor is how long a failed replica first stays out.
	ReplicaDownFor = 5 * time.Second
	// ReplicaMaxDownFor bounds the doubling of ReplicaDownFor.
	ReplicaMaxDownFor = 60 * time.Second
)

// primaryKey is the context key of WithPrimary.
type primaryKey struct{}

// WithPrimary returns a context whose reads of read/write groups go to the
// write data source (the primary), e.g. to read a row just written outside
// a transaction. It has no effect on data sources that are not groups.
func WithPrimary(ctx context.Context) context.Context {
	return context.WithValue(ctx, primaryKey{}, true)
}

// onPrimary reports whether ctx comes from WithPrimary.
func onPrimary(ctx context.Context) bool {
	v, _ := ctx.Value(primaryKey{}).(bool)
	return v
}

// rwGroup is one read/write group resolved against the pools of a DB.
type rwGroup struct {
	db    *DB
	name  string
	write int   // index in db.pools
	reads []int // index in db.pools of each read data source
	all   []int // 0..len(reads)-1: every replica available
	lb    LoadBalancer
	tx    TxReadStrategy
}

// replicaHealth is whether a data source, as a replica, is taken out.
type replicaHealth struct {
	downUntil atomic.Int64 // unix nanoseconds; 0: up
	downFor   atomic.Int64 // the last time out, nanoseconds; 0 after a success
}

// markDown takes the replica out for its next time out. Failures of reads
// that started before the replica was taken out (the same outage, seen by
// several goroutines) do not extend it.
func (h *replicaHealth) markDown(now time.Time) {
	for {
		until := h.downUntil.Load()
		if until > now.UnixNano() {
			return
		}
		d := time.Duration(h.downFor.Load()) * 2
		d = max(d, ReplicaDownFor)
		d = min(d, ReplicaMaxDownFor)
		// Only one of the goroutines that saw the same failure takes the
		// replica out: the others find it out already (a plain store let
		// two concurrent failures double the time out).
		if h.downUntil.CompareAndSwap(until, now.Add(d).UnixNano()) {
			h.downFor.Store(int64(d))
			return
		}
	}
}

// markUp records a success.
func (h *replicaHealth) markUp() {
	if h.downFor.Load() != 0 {
		h.downFor.Store(0)
		h.downUntil.Store(0)
	}
}

// available appends to buf the replicas that are up; when all are, it
// returns g.all without reading the clock.
func (g *rwGroup) available(buf []int) []int {
	var now int64
	for i, ds := range g.reads {
		until := g.db.health[ds].downUntil.Load()
		if until == 0 {
			continue
		}
		if now == 0 {
			now = time.Now().UnixNano()
		}
		if until > now {
			// At least one is down: build the list.
			buf = append(buf, g.all[:i]...)
			for j := i + 1; j < len(g.reads); j++ {
				if u := g.db.health[g.reads[j]].downUntil.Load(); u == 0 || u <= now {
					buf = append(buf, j)
				}
			}
			return buf
		}
	}
	return g.all
}

// query runs a read of a route unit on group g; t is the unit's target
// (t.db the primary's pool, t.tx the transaction when in one).
func (g *rwGroup) query(ctx context.Context, t target, q string, args []any) (*sql.Rows, error) {
	if onPrimary(ctx) || (t.tx != nil && g.tx == TxReadPrimary) {
		return t.primaryQuery(ctx, q, args)
	}
	var failed []rwAttempt
	if t.pin != nil && *t.pin >= 0 { // FIXED, already picked
		i := *t.pin
		if g.reads[i] == g.write {
			return t.primaryQuery(ctx, q, args) // see below
		}
		rows, err := g.db.stmts[g.reads[i]].query(ctx, q, args)
		if err == nil {
			return rows, nil
		}
		if !g.failedReplica(ctx, i, err) {
			return nil, err
		}
		failed = append(failed, rwAttempt{g.reads[i], err})
		*t.pin = -1
	}
	var buf [8]int
	avail := g.available(buf[:0])
	for len(avail) > 0 {
		i := g.lb.Choose(avail)
		if t.tx != nil && g.reads[i] == g.write {
			// The primary listed as its own replica: inside a transaction
			// its reads use the transaction's connection, as ShardingSphere
			// reuses a transaction's connection per data source, so they
			// see the transaction's writes.
			if t.pin != nil {
				*t.pin = i
			}
			return t.primaryQuery(ctx, q, args)
		}
		if !tried(failed, g.reads[i]) {
			ds := g.reads[i]
			rows, err := g.db.stmts[ds].query(ctx, q, args)
			if err == nil {
				g.db.health[ds].markUp()
				if t.pin != nil {
					*t.pin = i
				}
				return rows, nil
			}
			if !g.failedReplica(ctx, i, err) {
				return nil, err
			}
			failed = append(failed, rwAttempt{ds, err})
		}
		avail = without(avail, i, buf[:0])
	}
	rows, err := t.primaryQuery(ctx, q, args)
	if err != nil && len(failed) > 0 {
		return nil, &rwError{group: g, failed: failed, primary: err}
	}
	return rows, err
}

// primaryQuery runs a read on the primary: in the transaction when t has one.
func (t target) primaryQuery(ctx context.Context, q string, args []any) (*sql.Rows, error) {
	if t.tx != nil {
		if st := t.txStmt(ctx, q, args); st != nil {
			return st.QueryContext(ctx, args...)
		}
		return t.tx.QueryContext(ctx, q, args...)
	}
	if t.stmts != nil {
		return t.stmts.query(ctx, q, args)
	}
	return t.db.QueryContext(ctx, q, args...)
}

// failedReplica decides whether err of replica i allows a retry elsewhere,
// and takes the replica out when it should.
func (g *rwGroup) failedReplica(ctx context.Context, i int, err error) bool {
	switch replicaFailure(ctx, err) {
	case failRetry:
		return true
	case failDown:
		g.db.health[g.reads[i]].markDown(time.Now())
		return true
	}
	return false
}

// without returns avail minus i, in buf (avail may alias buf).
func without(avail []int, i int, buf []int) []int {
	out := buf[:0]
	for _, j := range avail {
		if j != i {
			out = append(out, j)
		}
	}
	return out
}

func tried(failed []rwAttempt, ds int) bool {
	for _, f := range failed {
		if f.ds == ds {
			return true
		}
	}
	return false
}

type failClass uint8

const (
	failNone  failClass = iota // the statement's own error: no retry
	failRetry                  // retry elsewhere, keep the replica
	failDown                   // take the replica out, retry elsewhere
)

// replicaFailure classifies a replica's error; see the failure policy.
func replicaFailure(ctx context.Context, err error) failClass {
	if ctx.Err() != nil {
		return failNone
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1040, 1044, 1045, 1049, 1053, 1203, 1927, 4031:
			return failDown
		case 1146:
			return failRetry
		}
		return failNone
	}
	var ne net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return failDown
	}
	return failNone
}

// rwAttempt is one replica that failed a read.
type rwAttempt struct {
	ds  int // index in DB.pools
	err error
}

// rwError is the error of a read that no replica and not the primary could
// answer: `read/write group "rw_0": replica "ds_0_r" (127.0.0.1:13308/ds_0):
// <err>; primary "ds_0" (127.0.0.1:13306/ds_0): <err>`. errors.Is and
// errors.As see every cause.
type rwError struct {
	group   *rwGroup
	failed  []rwAttempt
	primary error
}

func (e *rwError) Error() string {
	var b strings.Builder
	db := e.group.db
	b.WriteString("read/write group " + strconv.Quote(e.group.name) + ": ")
	for _, f := range e.failed {
		b.WriteString("replica " + strconv.Quote(db.names[f.ds]) + " (" + db.addrs[f.ds] + "): " + f.err.Error() + "; ")
	}
	w := e.group.write
	b.WriteString("primary " + strconv.Quote(db.names[w]) + " (" + db.addrs[w] + "): " + e.primary.Error())
	return b.String()
}

func (e *rwError) Unwrap() []error {
	out := make([]error, 0, len(e.failed)+1)
	for _, f := range e.failed {
		out = append(out, f.err)
	}
	return append(out, e.primary)
}

// target returns what a unit on source index d runs on outside a
// transaction: the pool (a group's primary), with the group's reads.
func (s *Sources) target(d int) target {
	t := target{db: s.pools[d], stmts: s.stmts[d]}
	if s.rw != nil {
		t.rw = s.rw[d]
	}
	return t
}

// Primary returns a view of s whose route units all run on the write data
// source of their read/write group (and as before on other data sources):
// what generated code uses for a locking read (FOR UPDATE, LOCK IN SHARE
// MODE) or a query annotated to read the primary. It costs nothing: the
// view is built once by DB.Sources. Without groups it is s itself.
func (s *Sources) Primary() *Sources { return s.primary }

// ReplicaDown reports whether data source name is taken out as a replica
// now, and until when (see the failure policy above). For tests and
// monitoring.
func (db *DB) ReplicaDown(name string) (until time.Time, down bool) {
	i, ok := db.index[name]
	if !ok {
		return time.Time{}, false
	}
	u := db.health[i].downUntil.Load()
	if u == 0 || u <= time.Now().UnixNano() {
		return time.Time{}, false
	}
	return time.Unix(0, u), true
}

// ReadWriteGroup returns the write data source and read data sources of
// group name, and false when name is not a read/write group.
func (db *DB) ReadWriteGroup(name string) (write string, reads []string, ok bool) {
	g, ok := db.groups[name]
	if !ok {
		return "", nil, false
	}
	for _, r := range g.reads {
		reads = append(reads, db.names[r])
	}
	return db.names[g.write], reads, true
}

// openGroups resolves cfg's read/write groups against db's pools.
func (db *DB) openGroups(cfg *Config) error {
	db.health = make([]replicaHealth, len(db.pools))
	if len(cfg.ReadWriteGroups) == 0 {
		return nil
	}
	lbs := map[string]NamedLoadBalancer{}
	shared := map[string]LoadBalancer{} // ROUND_ROBIN and RANDOM: one per name
	for _, lb := range cfg.LoadBalancers {
		if _, dup := lbs[lb.Name]; dup {
			return errors.New("load balancer " + strconv.Quote(lb.Name) + " is configured twice")
		}
		lbs[lb.Name] = lb
		if strings.EqualFold(lb.Type, LoadBalancerWeight) {
			for k := range lb.Props {
				if _, ok := db.index[k]; !ok {
					return errors.New("load balancer " + strconv.Quote(lb.Name) + ": WEIGHT: " + strconv.Quote(k) +
						" is not a configured data source")
				}
			}
		}
	}
	db.groups = make(map[string]*rwGroup, len(cfg.ReadWriteGroups))
	for _, gc := range cfg.ReadWriteGroups {
		where := "read/write group " + strconv.Quote(gc.Name) + ": "
		if _, clash := db.index[gc.Name]; clash {
			return errors.New(where + "the name is also a data source")
		}
		if _, dup := db.groups[gc.Name]; dup {
			return errors.New(where + "configured twice")
		}
		w, ok := db.index[gc.WriteDataSource]
		if !ok {
			return errors.New(where + "write data source " + strconv.Quote(gc.WriteDataSource) + " is not configured")
		}
		if len(gc.ReadDataSources) == 0 {
			return errors.New(where + "no read data sources")
		}
		g := &rwGroup{db: db, name: gc.Name, write: w, tx: gc.TxReads}
		for i, r := range gc.ReadDataSources {
			j, ok := db.index[r]
			if !ok {
				return errors.New(where + "read data source " + strconv.Quote(r) + " is not configured")
			}
			g.reads = append(g.reads, j)
			g.all = append(g.all, i)
		}
		switch lb, ok := lbs[gc.LoadBalancerName]; {
		case gc.LoadBalancerName == "":
			g.lb = &roundRobin{}
		case !ok:
			return errors.New(where + "load balancer " + strconv.Quote(gc.LoadBalancerName) + " is not configured")
		case strings.EqualFold(lb.Type, LoadBalancerWeight):
			bal, err := NewLoadBalancer(lb.Type, lb.Props, gc.ReadDataSources)
			if err != nil {
				return errors.New(where + "load balancer " + strconv.Quote(lb.Name) + ": " + err.Error())
			}
			g.lb = bal
		default:
			if g.lb = shared[lb.Name]; g.lb == nil {
				bal, err := NewLoadBalancer(lb.Type, lb.Props, gc.ReadDataSources)
				if err != nil {
					return errors.New(where + "load balancer " + strconv.Quote(lb.Name) + ": " + err.Error())
				}
				shared[lb.Name], g.lb = bal, bal
			}
		}
		db.groups[gc.Name] = g
	}
	return nil
}

// target returns what a unit on source index d runs on inside t: the
// transaction, and for a read/write group whose transactional strategy is
// not PRIMARY, the group (reads go to a replica, FIXED keeps t's pick),
// unless primary (Tx.Primary) keeps the reads on the primary.
func (t *Tx) target(d int, tx *sql.Tx, primary bool) target {
	q := target{tx: tx, stmts: t.src.stmts[d]}
	if s := t.src; s.rw != nil && !primary {
		if g := s.rw[d]; g != nil && g.tx != TxReadPrimary {
			q.rw = g
			if g.tx == TxReadFixed {
				q.pin = &t.pin
			}
		}
	}
	return q
}
