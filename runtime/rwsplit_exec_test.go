package runtime_test

import (
	"context"
	"database/sql"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

const (
	primaryID = 1 // @@server_id of s0
	replicaID = testdb.ReplicaServerID
)

// openRW opens ds_0 and ds_2 on s0, ds_1 on s1 and their replicas on s2 as
// read/write groups rw_0 and rw_2 with transactional strategy tx.
func openRW(t testing.TB, tx shardrt.TxReadStrategy) *shardrt.DB {
	t.Helper()
	cfg := &shardrt.Config{DatabaseName: "rw"}
	add := func(name, dsn string) {
		cfg.DataSources = append(cfg.DataSources, shardrt.NamedDataSource{Name: name,
			Config: shardrt.DataSourceConfig{DSN: dsn, MaxPoolSize: 16}})
	}
	for _, ds := range []string{"ds_0", "ds_1", "ds_2"} {
		add(ds, testdb.DSN(ds))
	}
	add("ds_0_r", testdb.ReplicaDSN("ds_0"))
	add("ds_2_r", testdb.ReplicaDSN("ds_2"))
	cfg.ReadWriteGroups = []shardrt.ReadWriteGroupConfig{
		{Name: "rw_0", WriteDataSource: "ds_0", ReadDataSources: []string{"ds_0_r"}, TxReads: tx},
		{Name: "rw_2", WriteDataSource: "ds_2", ReadDataSources: []string{"ds_2_r"}, TxReads: tx},
	}
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

var serverIDUnit = func(d int) shardrt.RouteUnit { return shardrt.RouteUnit{DataSource: d, SQL: "SELECT @@server_id"} }

func serverID(t testing.TB, ctx context.Context, e shardrt.Executor, d int) int64 {
	t.Helper()
	var id int64
	require.NoError(t, e.QueryRow(ctx, nil, serverIDUnit(d)).Scan(&id))
	return id
}

func TestReadWriteRouting(t *testing.T) {
	ctx := context.Background()
	db := openRW(t, shardrt.TxReadDynamic)
	src, err := db.Sources([]string{"rw_0", "ds_1", "rw_2"})
	require.NoError(t, err)

	require.EqualValues(t, replicaID, serverID(t, ctx, src, 0), "a read goes to the replica")
	require.EqualValues(t, 2, serverID(t, ctx, src, 1), "ds_1 is a plain data source")
	require.EqualValues(t, primaryID, serverID(t, shardrt.WithPrimary(ctx), src, 0), "WithPrimary")
	require.EqualValues(t, primaryID, serverID(t, ctx, src.Primary(), 0), "the Primary view (locking reads)")
	require.EqualValues(t, replicaID, serverID(t, ctx, src, 0), "the view changed nothing")

	rows, err := src.Query(ctx, nil, serverIDUnit(2))
	require.NoError(t, err)
	require.True(t, rows.Next())
	var id int64
	require.NoError(t, rows.Scan(&id))
	require.NoError(t, rows.Close())
	require.EqualValues(t, replicaID, id)

	scanID := func(r *sql.Rows) (int64, error) {
		var v int64
		return v, r.Scan(&v)
	}
	ids, err := shardrt.QueryUnits(ctx, src, nil, []shardrt.RouteUnit{serverIDUnit(0), serverIDUnit(1), serverIDUnit(2)}, nil, scanID)
	require.NoError(t, err)
	require.Equal(t, []int64{replicaID, 2, replicaID}, ids)
	ids, err = shardrt.QueryUnits(ctx, src.Primary(), nil, []shardrt.RouteUnit{serverIDUnit(0), serverIDUnit(2)}, nil, scanID)
	require.NoError(t, err)
	require.Equal(t, []int64{primaryID, primaryID}, ids)

	// Writes go to the primary: the row is there at once, on the replica
	// after replication.
	primary, replica := testdb.Open(t, "ds_0"), testdb.OpenReplica(t, "ds_0")
	_, err = primary.Exec("CREATE TABLE IF NOT EXISTS rw_t (id BIGINT PRIMARY KEY, v BIGINT)")
	require.NoError(t, err)
	v := time.Now().UnixNano()
	_, err = src.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "REPLACE INTO rw_t VALUES (1, ?)"}, v)
	require.NoError(t, err)
	n, err := shardrt.ExecUnits(ctx, src, nil, []shardrt.RouteUnit{{DataSource: 0, SQL: "REPLACE INTO rw_t VALUES (2, ?)"}, {DataSource: 1, SQL: "DO ?"}}, []any{v})
	require.NoError(t, err)
	require.Positive(t, n, "REPLACE on the primary")
	var got int64
	require.NoError(t, src.QueryRow(shardrt.WithPrimary(ctx), nil, shardrt.RouteUnit{DataSource: 0, SQL: "SELECT SUM(v = ?) FROM rw_t WHERE id IN (1, 2)"}, v).Scan(&got))
	require.EqualValues(t, 2, got)
	testdb.WaitReplicated(t, primary, replica, 10*time.Second)
	require.NoError(t, src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "SELECT SUM(v = ?) FROM rw_t WHERE id IN (1, 2)"}, v).Scan(&got))
	require.EqualValues(t, 2, got)

	write, reads, ok := db.ReadWriteGroup("rw_2")
	require.True(t, ok)
	require.Equal(t, "ds_2", write)
	require.Equal(t, []string{"ds_2_r"}, reads)

	_, err = db.Sources([]string{"rw_9"})
	require.EqualError(t, err, `unknown data source "rw_9" (configured: ds_0, ds_1, ds_2, ds_0_r, ds_2_r; read/write groups: rw_0, rw_2)`)
}

func TestReadWriteTransactions(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		strategy shardrt.TxReadStrategy
		want     int64
	}{
		{shardrt.TxReadPrimary, primaryID},
		{shardrt.TxReadDynamic, replicaID},
		{shardrt.TxReadFixed, replicaID},
	}
	for _, tt := range tests {
		t.Run(tt.strategy.String(), func(t *testing.T) {
			db := openRW(t, tt.strategy)
			src, err := db.Sources([]string{"rw_0"})
			require.NoError(t, err)
			require.NoError(t, src.WithTx(ctx, nil, func(tx *shardrt.Tx) error {
				require.EqualValues(t, tt.want, serverID(t, ctx, tx, 0))
				require.EqualValues(t, tt.want, serverID(t, ctx, tx, 0))
				require.EqualValues(t, primaryID, serverID(t, shardrt.WithPrimary(ctx), tx, 0))
				// Tx.Primary: locking and -- shardgen:primary reads of
				// generated code stay on the primary, in the transaction
				// (found by a fresh-user run: FOR UPDATE ran on the replica).
				require.EqualValues(t, primaryID, serverID(t, ctx, tx.Primary(), 0))
				ids, err := shardrt.QueryUnits(ctx, tx.Primary(), nil, []shardrt.RouteUnit{serverIDUnit(0)}, nil, func(r *sql.Rows) (int64, error) {
					var v int64
					return v, r.Scan(&v)
				})
				require.NoError(t, err)
				require.Equal(t, []int64{primaryID}, ids)
				require.EqualValues(t, tt.want, serverID(t, ctx, tx, 0), "the view changed nothing")
				_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "DO 1"})
				return err
			}))
		})
	}
}

// TestReadWriteSelfReplica: a group whose primary is also one of its read
// data sources reads it, inside a transaction, on the transaction's
// connection (ShardingSphere uses one connection per data source in a
// transaction), so it sees the transaction's own writes.
func TestReadWriteSelfReplica(t *testing.T) {
	ctx := context.Background()
	for _, strategy := range []shardrt.TxReadStrategy{shardrt.TxReadDynamic, shardrt.TxReadFixed} {
		t.Run(strategy.String(), func(t *testing.T) {
			cfg := &shardrt.Config{DatabaseName: "rw"}
			cfg.DataSources = append(cfg.DataSources, shardrt.NamedDataSource{Name: "ds_1",
				Config: shardrt.DataSourceConfig{DSN: testdb.DSN("ds_1"), MaxPoolSize: 4}})
			cfg.ReadWriteGroups = []shardrt.ReadWriteGroupConfig{
				{Name: "rw_1", WriteDataSource: "ds_1", ReadDataSources: []string{"ds_1"}, TxReads: strategy},
			}
			db, err := shardrt.Open(cfg)
			require.NoError(t, err)
			t.Cleanup(func() { _ = db.Close() })
			src, err := db.Sources([]string{"rw_1"})
			require.NoError(t, err)
			pool, ok := db.Pool("ds_1")
			require.True(t, ok)
			_, err = pool.Exec("CREATE TABLE IF NOT EXISTS rw_self (id BIGINT PRIMARY KEY)")
			require.NoError(t, err)
			_, err = pool.Exec("DELETE FROM rw_self")
			require.NoError(t, err)
			tx := src.BeginTx(ctx, nil)
			_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "INSERT INTO rw_self VALUES (?)"}, 7)
			require.NoError(t, err)
			for i := 0; i < 3; i++ {
				var n int
				require.NoError(t, tx.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "SELECT COUNT(*) FROM rw_self WHERE id = ?"}, 7).Scan(&n))
				require.Equal(t, 1, n, "the transaction reads its own write")
			}
			require.NoError(t, tx.Rollback())
			var n int
			require.NoError(t, src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "SELECT COUNT(*) FROM rw_self WHERE id = ?"}, 7).Scan(&n))
			require.Zero(t, n)
			_, err = pool.Exec("DROP TABLE rw_self")
			require.NoError(t, err)
		})
	}
}

// TestReadWriteFailover stops the replica while reads run, checks that no
// read fails and that the primary answers while the replica is out, then
// restarts it (scripts/db.sh up) and checks that reads return to it.
func TestReadWriteFailover(t *testing.T) {
	ctx := context.Background()
	db := openRW(t, shardrt.TxReadDynamic)
	src, err := db.Sources([]string{"rw_0"})
	require.NoError(t, err)
	require.EqualValues(t, replicaID, serverID(t, ctx, src, 0))

	var (
		wg               sync.WaitGroup
		stop             atomic.Bool
		fromPrimary, all atomic.Int64
		errs             = make(chan error, 8)
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				var id int64
				if err := src.QueryRow(ctx, nil, serverIDUnit(0)).Scan(&id); err != nil {
					errs <- err
					return
				}
				all.Add(1)
				if id == primaryID {
					fromPrimary.Add(1)
				}
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	t.Cleanup(func() { testdb.StartServers(t) }) // also when the test fails
	testdb.KillReplica(t)
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "no read may fail while a primary can answer")
	}
	require.Positive(t, fromPrimary.Load())
	t.Logf("%d reads, %d from the primary", all.Load(), fromPrimary.Load())

	until, down := db.ReplicaDown("ds_0_r")
	require.True(t, down)
	require.WithinDuration(t, time.Now().Add(shardrt.ReplicaDownFor), until, time.Second)
	start := time.Now()
	require.EqualValues(t, primaryID, serverID(t, ctx, src, 0), "the replica is out: the primary answers")
	require.Less(t, time.Since(start), time.Second, "a replica that is out is not tried")

	// A statement's own error is not a replica failure.
	testdb.StartServers(t)
	shardrt.ResetReplicaHealth(db)
	err = src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "SELEC 1"}).Scan(new(int))
	require.ErrorContains(t, err, "Error 1064")
	_, down = db.ReplicaDown("ds_0_r")
	require.False(t, down)
	require.EqualValues(t, replicaID, serverID(t, ctx, src, 0), "back on the replica")
}

func TestReadWriteNothingAnswers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	require.NoError(t, l.Close())
	dsn := "u:p@tcp(127.0.0.1:" + port + ")/x?timeout=1s"
	db, err := shardrt.Open(&shardrt.Config{
		DataSources: []shardrt.NamedDataSource{
			{Name: "w", Config: shardrt.DataSourceConfig{DSN: dsn}},
			{Name: "r", Config: shardrt.DataSourceConfig{DSN: dsn}},
		},
		ReadWriteGroups: []shardrt.ReadWriteGroupConfig{{Name: "g", WriteDataSource: "w", ReadDataSources: []string{"r"}}},
	})
	require.NoError(t, err)
	defer db.Close()
	src, err := db.Sources([]string{"g"})
	require.NoError(t, err)
	refused := "dial tcp 127.0.0.1:" + port + ": connect: connection refused"
	err = src.QueryRow(context.Background(), nil, serverIDUnit(0)).Scan(new(int))
	require.EqualError(t, err, `data node g: read/write group "g": replica "r" (127.0.0.1:`+port+`/x): `+refused+
		`; primary "w" (127.0.0.1:`+port+`/x): `+refused)
	_, down := db.ReplicaDown("r")
	require.True(t, down)
}
