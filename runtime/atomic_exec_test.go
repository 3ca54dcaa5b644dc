package runtime_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// atomicTable is the table of the all-or-nothing write tests, on ds_0 and
// ds_1 (its "copies" when a test treats it as a broadcast table).
const atomicTable = "rt_atomic"

// atomicSeed is what every live data source holds before a test's writes.
const atomicSeed = "1=a,2=b"

// openAtomic opens data sources ds_0 and ds_1 of the test servers and
// ds_down, a data source whose port has no listener, with transaction type
// typ, and creates atomicTable on the live ones with atomicSeed. Index 0, 1,
// 2 of the returned Sources are ds_0, ds_1, ds_down.
func openAtomic(t *testing.T, typ shardrt.TxType, opts ...shardrt.Option) (*shardrt.DB, *shardrt.Sources) {
	t.Helper()
	cfg := &shardrt.Config{TransactionType: typ, DataSources: []shardrt.NamedDataSource{
		{Name: "ds_0", Config: shardrt.DataSourceConfig{DSN: testdb.DSN("ds_0")}},
		{Name: "ds_1", Config: shardrt.DataSourceConfig{DSN: testdb.DSN("ds_1")}},
		{Name: "ds_down", Config: shardrt.DataSourceConfig{DSN: testdb.DownDSN(t, "ds_1")}},
	}}
	db, err := shardrt.Open(cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	for _, ds := range []string{"ds_0", "ds_1"} {
		p, _ := db.Pool(ds)
		for _, q := range []string{
			"DROP TABLE IF EXISTS " + atomicTable,
			"CREATE TABLE " + atomicTable + " (id BIGINT PRIMARY KEY, v VARCHAR(40) NOT NULL)",
			"INSERT INTO " + atomicTable + " VALUES (1, 'a'), (2, 'b')",
		} {
			_, err := p.Exec(q)
			require.NoError(t, err, "the local MariaDB servers must be up: run `make db-up`")
		}
	}
	src, err := db.Sources([]string{"ds_0", "ds_1", "ds_down"})
	require.NoError(t, err)
	return db, src
}

// atomicRows returns the rows of atomicTable on data source ds as
// "id=v,id=v" in id order.
func atomicRows(t *testing.T, db *shardrt.DB, ds string) string {
	t.Helper()
	p, _ := db.Pool(ds)
	rows, err := p.Query("SELECT id, v FROM " + atomicTable + " ORDER BY id")
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var v string
		require.NoError(t, rows.Scan(&id, &v))
		out = append(out, strconv.FormatInt(id, 10)+"="+v)
	}
	require.NoError(t, rows.Err())
	return strings.Join(out, ",")
}

// atomicWrite is one failing write: its units (index 2 is ds_down), whether
// it is a write to a broadcast table (ExecBroadcast), and the data source
// its error must name.
type atomicWrite struct {
	name      string
	units     []shardrt.RouteUnit
	broadcast bool
	fails     string
}

func unitsOn(q string, ds ...int) []shardrt.RouteUnit {
	var out []shardrt.RouteUnit
	for _, d := range ds {
		out = append(out, shardrt.RouteUnit{DataSource: d, SQL: q})
	}
	return out
}

// atomicWrites are the writes that must change nothing: with ds_down among
// their data sources, or failing late on a live one (a duplicate key).
func atomicWrites() []atomicWrite {
	ins := func(d int, id int) shardrt.RouteUnit {
		return shardrt.RouteUnit{DataSource: d, SQL: "INSERT INTO " + atomicTable + " VALUES (" + strconv.Itoa(id) + ", 'new')"}
	}
	return []atomicWrite{
		{name: "insert one row", units: []shardrt.RouteUnit{ins(2, 100)}, fails: "ds_down"},
		{name: "insert rows", units: []shardrt.RouteUnit{ins(0, 101), ins(1, 102), ins(2, 103)}, fails: "ds_down"},
		{name: "insert broadcast", units: unitsOn("INSERT INTO "+atomicTable+" VALUES (104, 'new')", 0, 1, 2), broadcast: true, fails: "ds_down"},
		{name: "update nodes", units: unitsOn("UPDATE "+atomicTable+" SET v = 'changed'", 0, 1, 2), fails: "ds_down"},
		{name: "update broadcast", units: unitsOn("UPDATE "+atomicTable+" SET v = 'changed' WHERE id = 1", 0, 1, 2), broadcast: true, fails: "ds_down"},
		{name: "delete nodes", units: unitsOn("DELETE FROM "+atomicTable, 0, 1, 2), fails: "ds_down"},
		{name: "delete broadcast", units: unitsOn("DELETE FROM "+atomicTable+" WHERE id = 2", 0, 1, 2), broadcast: true, fails: "ds_down"},
		{name: "insert rows, duplicate key on ds_1", units: []shardrt.RouteUnit{ins(0, 105), ins(1, 106), ins(1, 1)}, fails: "ds_1"},
		{name: "update nodes, bad column on ds_1", units: []shardrt.RouteUnit{
			{DataSource: 0, SQL: "UPDATE " + atomicTable + " SET v = 'changed'"},
			{DataSource: 1, SQL: "UPDATE " + atomicTable + " SET v = 'changed'"},
			{DataSource: 1, SQL: "UPDATE " + atomicTable + " SET nope = 1"},
		}, fails: "ds_1"},
		{name: "insert rows on one data source, duplicate key", units: []shardrt.RouteUnit{ins(1, 107), ins(1, 2)}, fails: "ds_1"},
	}
}

func runAtomicWrite(ctx context.Context, e shardrt.Executor, w atomicWrite) error {
	if w.broadcast {
		_, err := shardrt.ExecBroadcast(ctx, e, nil, w.units, nil)
		return err
	}
	_, err := shardrt.ExecUnits(ctx, e, nil, w.units, nil)
	return err
}

// TestAtomicWriteAutocommit: an auto-committed write with units on several
// data sources that fails (a data source down, or a late error on a live
// one) leaves every live data source as it was, with LOCAL (one transaction
// per data source) and XA, and the error names the data node that failed.
func TestAtomicWriteAutocommit(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []shardrt.TxType{shardrt.TxLocal, shardrt.TxXA} {
		db, src := openAtomic(t, typ)
		for _, w := range atomicWrites() {
			t.Run(typ.String()+"/"+w.name, func(t *testing.T) {
				err := runAtomicWrite(ctx, src, w)
				require.Error(t, err)
				require.ErrorContains(t, err, "data node "+w.fails+":")
				require.Equal(t, atomicSeed, atomicRows(t, db, "ds_0"))
				require.Equal(t, atomicSeed, atomicRows(t, db, "ds_1"))
			})
		}
		// The same writes without ds_down commit everywhere.
		t.Run(typ.String()+"/success", func(t *testing.T) {
			res, err := shardrt.ExecBroadcast(ctx, src, nil, unitsOn("INSERT INTO "+atomicTable+" VALUES (3, 'c')", 0, 1), nil)
			require.NoError(t, err)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			require.Equal(t, int64(1), n)
			n, err = shardrt.ExecUnits(ctx, src, nil, unitsOn("UPDATE "+atomicTable+" SET v = 'z' WHERE id = 3", 0, 1), nil)
			require.NoError(t, err)
			require.Equal(t, int64(2), n)
			require.Equal(t, atomicSeed+",3=z", atomicRows(t, db, "ds_0"))
			require.Equal(t, atomicSeed+",3=z", atomicRows(t, db, "ds_1"))
		})
	}
}

// TestAtomicWriteInTransaction: inside a distributed transaction (LOCAL or
// XA) a failed write is undone on every data source it touched (savepoint)
// and the transaction goes on: what ran before and after it commits.
func TestAtomicWriteInTransaction(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []shardrt.TxType{shardrt.TxLocal, shardrt.TxXA} {
		db, src := openAtomic(t, shardrt.TxLocal)
		for k, w := range atomicWrites() {
			t.Run(typ.String()+"/"+w.name, func(t *testing.T) {
				before := strconv.Itoa(200 + 2*k)
				after := strconv.Itoa(201 + 2*k)
				tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: typ})
				require.NoError(t, err)
				_, err = shardrt.ExecUnits(ctx, tx, nil, unitsOn("INSERT INTO "+atomicTable+" VALUES ("+before+", 'before')", 0, 1), nil)
				require.NoError(t, err)
				err = runAtomicWrite(ctx, tx, w)
				require.ErrorContains(t, err, "data node "+w.fails+":")
				_, err = shardrt.ExecUnits(ctx, tx, nil, unitsOn("INSERT INTO "+atomicTable+" VALUES ("+after+", 'after')", 0, 1), nil)
				require.NoError(t, err)
				require.NoError(t, tx.Commit())
				want := atomicSeed + "," + before + "=before," + after + "=after"
				require.Equal(t, want, atomicRows(t, db, "ds_0"))
				require.Equal(t, want, atomicRows(t, db, "ds_1"))
				for _, ds := range []string{"ds_0", "ds_1"} {
					p, _ := db.Pool(ds)
					_, err := p.Exec("DELETE FROM " + atomicTable + " WHERE id >= 200")
					require.NoError(t, err)
				}
			})
		}
	}
}

// TestAtomicWriteSingleShardTx: in a single-shard transaction, a write of
// several units on its data source that fails on a later unit is undone
// (savepoint) and the transaction goes on.
func TestAtomicWriteSingleShardTx(t *testing.T) {
	ctx := context.Background()
	db, src := openAtomic(t, shardrt.TxLocal)
	err := src.WithTx(ctx, nil, func(tx *shardrt.Tx) error {
		_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "INSERT INTO " + atomicTable + " VALUES (10, 'before')"})
		require.NoError(t, err)
		_, err = shardrt.ExecUnits(ctx, tx, nil, []shardrt.RouteUnit{
			{DataSource: 1, SQL: "INSERT INTO " + atomicTable + " VALUES (11, 'new')"},
			{DataSource: 1, SQL: "UPDATE " + atomicTable + " SET v = 'changed'"},
			{DataSource: 1, SQL: "INSERT INTO " + atomicTable + " VALUES (1, 'dup')"},
		}, nil)
		require.ErrorContains(t, err, "data node ds_1: Error 1062 (23000): Duplicate entry '1'")
		_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "INSERT INTO " + atomicTable + " VALUES (12, 'after')"})
		return err
	})
	require.NoError(t, err)
	require.Equal(t, atomicSeed+",10=before,12=after", atomicRows(t, db, "ds_1"))
	require.Equal(t, atomicSeed, atomicRows(t, db, "ds_0"))
}

// TestAtomicWriteKilled: a unit whose back-end connection is killed while
// its statement runs (it waits for a row lock held by another session; the
// test kills it from a third) fails the write, and no data source keeps any
// of it: auto-committed (LOCAL and XA) and in a LOCAL transaction, where
// ds_0's unit surely ran before (units run in order).
func TestAtomicWriteKilled(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"autocommit LOCAL", "autocommit XA", "transaction LOCAL"} {
		t.Run(mode, func(t *testing.T) {
			typ := shardrt.TxLocal
			if mode == "autocommit XA" {
				typ = shardrt.TxXA
			}
			db, src := openAtomic(t, typ)
			p1, _ := db.Pool("ds_1")
			// The blocker holds id 1 on ds_1.
			blocker, err := p1.BeginTx(ctx, nil)
			require.NoError(t, err)
			defer func() { _ = blocker.Rollback() }()
			_, err = blocker.Exec("SELECT * FROM " + atomicTable + " WHERE id = 1 FOR UPDATE")
			require.NoError(t, err)

			update := "UPDATE " + atomicTable + " SET v = 'killed' /* atomic-kill */"
			errc := make(chan error, 1)
			var tx *shardrt.DistTx
			go func() {
				var e shardrt.Executor = src
				if mode == "transaction LOCAL" {
					var err error
					if tx, err = src.BeginDistributed(ctx, shardrt.TxOptions{}); err != nil {
						errc <- err
						return
					}
					e = tx
				}
				_, err := shardrt.ExecUnits(ctx, e, nil, unitsOn(update, 0, 1), nil)
				errc <- err
			}()
			testdb.KillStatement(t, p1, "atomic-kill")
			err = <-errc
			require.Error(t, err)
			require.ErrorContains(t, err, "data node ds_1:")
			if tx != nil {
				_ = tx.Rollback()
			}
			require.NoError(t, blocker.Rollback())
			require.Equal(t, atomicSeed, atomicRows(t, db, "ds_0"))
			require.Equal(t, atomicSeed, atomicRows(t, db, "ds_1"))
		})
	}
}

// killObserver kills, once, the connection of the first unit it sees on
// data source ds after the unit ran: that data source's COMMIT then fails.
// The unit's SQL stores its CONNECTION_ID() in row id 300, which the
// observer reads uncommitted.
type killObserver struct {
	t    *testing.T
	pool *sql.DB
	ds   string
	once sync.Once
}

func (o *killObserver) Observe(ctx context.Context, ev shardrt.Event) {
	if ev.DataSource != o.ds || ev.Err != nil {
		return
	}
	o.once.Do(func() {
		conn, err := o.pool.Conn(ctx)
		require.NoError(o.t, err)
		defer conn.Close()
		_, err = conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED")
		require.NoError(o.t, err)
		var id string
		require.NoError(o.t, conn.QueryRowContext(ctx, "SELECT v FROM "+atomicTable+" WHERE id = 300").Scan(&id))
		_, err = conn.ExecContext(ctx, "KILL CONNECTION "+id)
		require.NoError(o.t, err)
		// KILL only marks the connection: wait until it is gone, so that
		// the COMMIT cannot slip in before.
		for range 100000 {
			var n int
			require.NoError(o.t, conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE id = "+id).Scan(&n))
			if n == 0 {
				return
			}
		}
		o.t.Errorf("connection %s survived KILL", id)
	})
}

// TestAtomicWritePartialCommit: when the COMMIT of a later data source
// fails after the first committed, the error wraps ErrLocalPartialCommit,
// names the committed data source and the one that did not commit, carries
// the units to repair it, and is logged with the statement.
func TestAtomicWritePartialCommit(t *testing.T) {
	ctx := context.Background()
	var logBuf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logBuf, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelError}))
	obs := &killObserver{t: t, ds: "ds_1"}
	db, src := openAtomic(t, shardrt.TxLocal, shardrt.WithLogger(logger), shardrt.WithObserver(obs))
	obs.pool, _ = db.Pool("ds_1")
	st := &shardrt.Stmt{Name: "AddRows", LogicSQL: "INSERT INTO t (id, v) VALUES (?, ?), (?, ?)"}
	_, err := shardrt.ExecUnits(ctx, src, st, []shardrt.RouteUnit{
		{DataSource: 0, SQL: "INSERT INTO " + atomicTable + " VALUES (?, 'x')"},
		{DataSource: 1, SQL: "INSERT INTO " + atomicTable + " VALUES (?, CONNECTION_ID())"},
	}, []any{300})
	require.ErrorIs(t, err, shardrt.ErrLocalPartialCommit)
	var pc *shardrt.PartialCommitError
	require.True(t, errors.As(err, &pc))
	require.Equal(t, []string{"ds_0"}, pc.Committed)
	require.Equal(t, []shardrt.RouteUnit{{DataSource: 1, SQL: "INSERT INTO " + atomicTable + " VALUES (?, CONNECTION_ID())", Args: []any{300}}}, pc.Units)
	require.ErrorContains(t, err, "LOCAL transaction partly committed: committed on ds_0; not committed: data node ds_1: ")
	require.ErrorContains(t, err, "; statement: INSERT INTO t (id, v) VALUES (?, ?), (?, ?)")
	var ne *shardrt.NodeError
	require.True(t, errors.As(err, &ne))
	require.Equal(t, "ds_1", ne.DataSource)
	require.Equal(t, atomicSeed+",300=x", atomicRows(t, db, "ds_0"))
	require.Equal(t, atomicSeed, atomicRows(t, db, "ds_1"))
	mu.Lock()
	logged := logBuf.String()
	mu.Unlock()
	require.Contains(t, logged, `level=ERROR msg="shardgen: write partly committed; repair the data sources not committed" stmt=AddRows sql="INSERT INTO t (id, v) VALUES (?, ?), (?, ?)" committed=ds_0 not_committed.data_source=ds_1`)
	require.Contains(t, logged, "not_committed.args=[300]")
}

// lockedWriter serializes writes of a log handler.
type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
