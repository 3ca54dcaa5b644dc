package runtime_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// openDist opens the named data sources (name → DSN, first one holds the
// coordinator log) and creates table xa_t on each.
func openDist(t *testing.T, dsns ...string) *shardrt.DB {
	t.Helper()
	cfg := &shardrt.Config{}
	for i := 0; i+1 < len(dsns); i += 2 {
		cfg.DataSources = append(cfg.DataSources, shardrt.NamedDataSource{Name: dsns[i], Config: shardrt.DataSourceConfig{DSN: dsns[i+1]}})
	}
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	for i := 0; i+1 < len(dsns); i += 2 {
		p, _ := db.Pool(dsns[i])
		_, err := p.Exec("CREATE TABLE IF NOT EXISTS xa_t (id BIGINT PRIMARY KEY, v VARCHAR(40))")
		require.NoError(t, err)
	}
	return db
}

func xaCount(t *testing.T, db *shardrt.DB, ds, v string) int {
	t.Helper()
	p, _ := db.Pool(ds)
	var n int
	require.NoError(t, p.QueryRow("SELECT COUNT(*) FROM xa_t WHERE v = ?", v).Scan(&n))
	return n
}

func insertUnit(d int, id int64) shardrt.RouteUnit {
	return shardrt.RouteUnit{DataSource: d, SQL: "INSERT INTO xa_t VALUES (" + strconv.FormatInt(id, 10) + ", ?)"}
}

func TestDistributedTx(t *testing.T) {
	ctx := context.Background()
	db := openDist(t, "ds_0", testdb.DSN("ds_0"), "ds_1", testdb.DSN("ds_1"), "ds_2", testdb.DSN("ds_2"))
	src, err := db.Sources([]string{"ds_0", "ds_1", "ds_2"})
	require.NoError(t, err)
	for _, typ := range []shardrt.TxType{shardrt.TxLocal, shardrt.TxXA} {
		for _, commit := range []bool{true, false} {
			for _, nodes := range [][]int{{0}, {0, 1, 2}} {
				name := typ.String() + "/commit=" + strconv.FormatBool(commit) + "/nodes=" + strconv.Itoa(len(nodes))
				t.Run(name, func(t *testing.T) {
					v := name + strconv.FormatInt(time.Now().UnixNano(), 36)
					id := time.Now().UnixNano()
					tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: typ})
					require.NoError(t, err)
					for _, d := range nodes {
						_, err := tx.Exec(ctx, nil, insertUnit(d, id), v)
						require.NoError(t, err)
					}
					n, err := shardrt.QueryUnits(ctx, tx, nil, []shardrt.RouteUnit{{DataSource: nodes[0], SQL: "SELECT COUNT(*) FROM xa_t WHERE v = ?"}}, []any{v},
						func(r *sql.Rows) (int, error) { var n int; return n, r.Scan(&n) })
					require.NoError(t, err)
					require.Equal(t, []int{1}, n, "the transaction sees its own row")
					if commit {
						require.NoError(t, tx.Commit())
					} else {
						require.NoError(t, tx.Rollback())
					}
					want := 0
					if commit {
						want = 1
					}
					for _, d := range nodes {
						require.Equal(t, want, xaCount(t, db, src.Names()[d], v))
					}
					require.ErrorIs(t, tx.Commit(), sql.ErrTxDone)
				})
			}
		}
	}
	t.Run("nested use refused", func(t *testing.T) {
		tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxXA})
		require.NoError(t, err)
		defer tx.Rollback()
		_, err = shardrt.QueryUnits(ctx, tx, nil, []shardrt.RouteUnit{{DataSource: 0, SQL: "SELECT 1"}}, nil,
			func(r *sql.Rows) (int, error) {
				_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "DO 1"})
				return 0, err
			})
		require.ErrorIs(t, err, shardrt.ErrTxConcurrentUse)
	})
}

// TestXACrashBetweenPhases kills a mariadbd after every branch is prepared
// and the commit is logged, before XA COMMIT; after a restart, recovery
// commits its branch: the row is on both nodes exactly once. A branch left
// prepared without a logged decision is rolled back.
func TestXACrashBetweenPhases(t *testing.T) {
	ctx := context.Background()
	priv := testdb.StartPrivateServer(t, "xa_priv")
	db := openDist(t, "ds_0", testdb.DSN("ds_0"), "priv", priv.DSN("xa_priv")+"?timeout=2s")
	src, err := db.Sources([]string{"ds_0", "priv"})
	require.NoError(t, err)

	v := "crash" + strconv.FormatInt(time.Now().UnixNano(), 36)
	id := time.Now().UnixNano()
	tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxXA, BetweenPhases: func() { priv.Kill(t) }})
	require.NoError(t, err)
	for d := range 2 {
		_, err := tx.Exec(ctx, nil, insertUnit(d, id), v)
		require.NoError(t, err)
	}
	err = tx.Commit()
	require.ErrorIs(t, err, shardrt.ErrXAIncomplete)
	require.Equal(t, 1, xaCount(t, db, "ds_0", v), "ds_0 committed")

	priv.Start(t)
	rec, err := db.RecoverXA(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"priv: " + tx.XID()}, rec.Committed)
	require.Equal(t, 1, xaCount(t, db, "ds_0", v))
	require.Equal(t, 1, xaCount(t, db, "priv", v))
	rec, err = db.RecoverXA(ctx, 0)
	require.NoError(t, err)
	require.Empty(t, rec.Committed, "nothing left")

	// Prepared, never decided (the coordinator died before its log write):
	// rolled back.
	p, _ := db.Pool("priv")
	conn, err := p.Conn(ctx)
	require.NoError(t, err)
	gtrid := "sg-" + strconv.FormatInt(time.Now().Add(-time.Hour).UnixNano(), 16) + "-test"
	xid := "X'" + hex.EncodeToString([]byte(gtrid)) + "',X'" + hex.EncodeToString([]byte("priv")) + "'"
	for _, q := range []string{"XA START " + xid, "INSERT INTO xa_t VALUES (" + strconv.FormatInt(id+1, 10) + ", '" + v + "u')", "XA END " + xid, "XA PREPARE " + xid} {
		_, err := conn.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	_ = conn.Close()
	priv.Kill(t)
	priv.Start(t)
	rec, err = db.RecoverXA(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"priv: " + gtrid}, rec.RolledBack)
	require.Equal(t, 0, xaCount(t, db, "priv", v+"u"))
}

// TestLocalPartialCommit: a LOCAL commit whose second data source fails
// after the first committed says so (ErrLocalPartialCommit, naming the
// committed data source) and leaves the first committed, as ShardingSphere's
// LOCAL transactions do.
func TestLocalPartialCommit(t *testing.T) {
	ctx := context.Background()
	db := openDist(t, "ds_0", testdb.DSN("ds_0"), "ds_1", testdb.DSN("ds_1"))
	src, err := db.Sources([]string{"ds_0", "ds_1"})
	require.NoError(t, err)
	v := "partial" + strconv.FormatInt(time.Now().UnixNano(), 36)
	id := time.Now().UnixNano()
	tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
	require.NoError(t, err)
	_, err = tx.Exec(ctx, nil, insertUnit(0, id), v)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, nil, insertUnit(1, id), v)
	require.NoError(t, err)
	// Kill ds_1's branch connection from another session.
	var conn int64
	require.NoError(t, tx.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT CONNECTION_ID()"}).Scan(&conn))
	p1, _ := db.Pool("ds_1")
	_, err = p1.Exec("KILL " + strconv.FormatInt(conn, 10))
	require.NoError(t, err)
	err = tx.Commit()
	require.ErrorIs(t, err, shardrt.ErrLocalPartialCommit)
	require.ErrorContains(t, err, "LOCAL transaction partly committed: committed on ds_0")
	require.ErrorContains(t, err, "ds_1")
	require.Equal(t, 1, xaCount(t, db, "ds_0", v))
	require.Equal(t, 0, xaCount(t, db, "ds_1", v))
}

// TestDistributedTxPoolTimeout: two transactions that each hold the only
// connection of one data source and then need the other's would wait for
// each other forever; taking a connection waits at most the data source's
// connectionTimeoutMilliseconds, so at least one of them fails with
// ErrPoolTimeout naming the data source and rolls back, and the rows of
// each transaction are all there or all gone. Without the bound (or with
// the statement cache preparing on the full pool) the test hangs.
func TestDistributedTxPoolTimeout(t *testing.T) {
	ctx := context.Background()
	openDist(t, "ds_0", testdb.DSN("ds_0"), "ds_1", testdb.DSN("ds_1")) // creates xa_t
	cfg := &shardrt.Config{}
	for _, ds := range []string{"ds_0", "ds_1"} {
		cfg.DataSources = append(cfg.DataSources, shardrt.NamedDataSource{Name: ds, Config: shardrt.DataSourceConfig{
			DSN: testdb.DSN(ds), MaxPoolSize: 1, ConnectionTimeout: 300 * time.Millisecond}})
	}
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	src, err := db.Sources([]string{"ds_0", "ds_1"})
	require.NoError(t, err)
	base := time.Now().UnixNano()
	v := "pooltimeout" + strconv.FormatInt(base, 36)
	var txs [2]*shardrt.DistTx
	for i := range txs {
		txs[i], err = src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
		require.NoError(t, err)
		_, err = txs[i].Exec(ctx, nil, insertUnit(i, base+int64(i)), v) // tx i holds ds_i
		require.NoError(t, err)
	}
	errs := make(chan error, 2)
	for i := range txs {
		go func() { _, err := txs[i].Exec(ctx, nil, insertUnit(1-i, base+2+int64(i)), v); errs <- err }()
	}
	var got [2]error
	got[0], got[1] = <-errs, <-errs
	timedOut := 0
	for _, err := range got {
		if err != nil {
			require.ErrorIs(t, err, shardrt.ErrPoolTimeout)
			require.ErrorContains(t, err, "data node ds_")
			timedOut++
		}
	}
	require.GreaterOrEqual(t, timedOut, 1)
	// Neither may wait for the other any more: roll both back.
	for _, tx := range txs {
		require.NoError(t, tx.Rollback())
	}
	require.Equal(t, 0, xaCount(t, db, "ds_0", v))
	require.Equal(t, 0, xaCount(t, db, "ds_1", v))
	// The pools work again once the transactions ended.
	tx, err := src.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxLocal})
	require.NoError(t, err)
	for d := range 2 {
		_, err = tx.Exec(ctx, nil, insertUnit(d, base+10+int64(d)), v)
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit())
	require.Equal(t, 1, xaCount(t, db, "ds_0", v))
	require.Equal(t, 1, xaCount(t, db, "ds_1", v))
}
