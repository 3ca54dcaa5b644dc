package runtime_test

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// TestReserved: a setting applied to a Reserved holds on every data source
// for its later statements and transactions, a connection taken after the
// setting replays it, and Close discards the connections, so the setting
// never reaches a pooled connection.
func TestReserved(t *testing.T) {
	ctx := context.Background()
	_, src := openTestSources(t, "")
	r := src.Reserve()
	st := &shardrt.Stmt{Name: "reserved"}
	atDS := func(e shardrt.Executor, d int, q string) sql.NullString {
		var v sql.NullString
		require.NoError(t, e.QueryRow(ctx, st, shardrt.RouteUnit{DataSource: d, SQL: q}).Scan(&v))
		return v
	}
	require.NoError(t, r.Apply(ctx, "SET @x = 7"))
	require.NoError(t, r.Apply(ctx, "SET SESSION sql_mode = 'ANSI_QUOTES'"))
	require.Equal(t, []string{"SET @x = 7", "SET SESSION sql_mode = 'ANSI_QUOTES'"}, r.Setup())
	for d := range testDataSources {
		require.Equal(t, "7", atDS(r, d, "SELECT @x").String, testDataSources[d])
		require.Equal(t, "ANSI_QUOTES", atDS(r, d, "SELECT @@sql_mode").String)
	}
	// A failing setting is not recorded and changes nothing.
	err := r.Apply(ctx, "SET SESSION no_such_variable = 1")
	require.ErrorContains(t, err, "Unknown system variable 'no_such_variable'")
	require.Len(t, r.Setup(), 2)
	require.Equal(t, "7", atDS(r, 1, "SELECT @x").String)

	tx, err := r.BeginDistributed(ctx, shardrt.TxOptions{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, "7", atDS(tx, 2, "SELECT @x").String)
	_, err = tx.Exec(ctx, st, shardrt.RouteUnit{DataSource: 2, SQL: "CREATE TEMPORARY TABLE reserved_tmp (id INT)"})
	require.ErrorContains(t, err, "Error 1792 (25006): Cannot execute statement in a READ ONLY transaction")
	require.NoError(t, tx.Rollback())
	_, err = r.BeginDistributed(ctx, shardrt.TxOptions{Type: shardrt.TxXA})
	require.EqualError(t, err, "runtime: a reserved session runs LOCAL transactions only, not XA")

	require.NoError(t, r.Close())
	require.Empty(t, r.Setup())
	for d := range testDataSources {
		require.False(t, atDS(src, d, "SELECT @x").Valid, testDataSources[d])
		require.NotEqual(t, "ANSI_QUOTES", atDS(src, d, "SELECT @@sql_mode").String)
	}
}

// TestReservedDataSourceDown: a setting applied while one data source's
// server is down holds on the others, whose statements keep running (a
// session on the pools would run them too); a statement on the down data
// source fails naming it. A wrong setting still fails on the live ones,
// and with every data source down Apply reports the unreachable one.
func TestReservedDataSourceDown(t *testing.T) {
	ctx := context.Background()
	port := strconv.Itoa(closedPort(t))
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_down",
		"    url: jdbc:mysql://127.0.0.1:"+port+"/ds_0\n    username: u\n    connectionTimeoutMilliseconds: 2000\n"))
	require.NoError(t, err)
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	src, err := db.Sources([]string{"ds_0", "ds_down", "ds_1"})
	require.NoError(t, err)
	st := &shardrt.Stmt{Name: "reserved"}
	r := src.Reserve()
	defer r.Close()
	require.NoError(t, r.Apply(ctx, "SET NAMES latin1"))
	require.NoError(t, r.Apply(ctx, "SET @x = 7"))
	for _, d := range []int{0, 2} {
		var cs, x string
		require.NoError(t, r.QueryRow(ctx, st, shardrt.RouteUnit{DataSource: d, SQL: "SELECT @@character_set_client, @x"}).Scan(&cs, &x))
		require.Equal(t, "latin1 7", cs+" "+x)
	}
	var x string
	err = r.QueryRow(ctx, st, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT @x"}).Scan(&x)
	require.EqualError(t, err, "data node ds_down: dial tcp 127.0.0.1:"+port+": connect: connection refused")
	require.ErrorContains(t, r.Apply(ctx, "SET SESSION no_such_variable = 1"), "data node ds_0: Error 1193 (HY000): Unknown system variable 'no_such_variable'")
	require.Equal(t, []string{"SET NAMES latin1", "SET @x = 7"}, r.Setup())

	down, err := db.Sources([]string{"ds_down"})
	require.NoError(t, err)
	r2 := down.Reserve()
	defer r2.Close()
	require.EqualError(t, r2.Apply(ctx, "SET @x = 7"), "data node ds_down: dial tcp 127.0.0.1:"+port+": connect: connection refused")
	require.Empty(t, r2.Setup())
}

// TestReservedPoolFull: a reserved connection is held for a whole
// session, so with maxPoolSize sessions holding one, the next session's
// first statement on that data source waits connectionTimeoutMilliseconds
// (HikariCP's meaning) and fails naming the data node and the full pool;
// it waited for ever before (64 proxy sessions with SET @v over pools of
// 32 hung). Once a session closes, the next one gets its connection.
func TestReservedPoolFull(t *testing.T) {
	ctx := context.Background()
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_small",
		strings.Replace(dataSourceYAML(t, "ds_0"), "maxPoolSize: 8", "maxPoolSize: 1", 1)+"    connectionTimeoutMilliseconds: 200\n"))
	require.NoError(t, err)
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	src, err := db.Sources([]string{"ds_small"})
	require.NoError(t, err)
	first := src.Reserve()
	require.NoError(t, first.Apply(ctx, "SET @x = 1"))
	second := src.Reserve()
	defer second.Close()
	err = second.Apply(ctx, "SET @x = 2")
	require.ErrorIs(t, err, shardrt.ErrPoolTimeout)
	require.EqualError(t, err, "data node ds_small: no connection available in the data source's pool within its connectionTimeoutMilliseconds (waited 200ms)")
	require.Empty(t, second.Setup())
	require.NoError(t, first.Close())
	require.NoError(t, second.Apply(ctx, "SET @x = 2"))
	var x string
	require.NoError(t, second.QueryRow(ctx, &shardrt.Stmt{Name: "reserved"}, shardrt.RouteUnit{DataSource: 0, SQL: "SELECT @x"}).Scan(&x))
	require.Equal(t, "2", x)
}

// TestExecUnitsDataSourceDown: a write over several data sources whose
// transaction on one cannot start because its server is down fails naming
// that data node once ("data node ds_down: START TRANSACTION: data node
// ds_down: dial ..." before), and changes nothing on the others.
func TestExecUnitsDataSourceDown(t *testing.T) {
	ctx := context.Background()
	port := strconv.Itoa(closedPort(t))
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, "", "ds_down",
		"    url: jdbc:mysql://127.0.0.1:"+port+"/ds_0\n    username: u\n    connectionTimeoutMilliseconds: 2000\n"))
	require.NoError(t, err)
	db, err := shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	src, err := db.Sources([]string{"ds_0", "ds_down"})
	require.NoError(t, err)
	ds0 := testdb.Open(t, "ds_0")
	for _, q := range []string{"DROP TABLE IF EXISTS g23_down", "CREATE TABLE g23_down (id INT PRIMARY KEY)"} {
		_, err := ds0.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	t.Cleanup(func() { _, _ = ds0.Exec("DROP TABLE g23_down") })
	_, err = shardrt.ExecUnits(ctx, src, &shardrt.Stmt{Name: "down"}, []shardrt.RouteUnit{
		{DataSource: 0, SQL: "INSERT INTO g23_down (id) VALUES (1)"},
		{DataSource: 1, SQL: "INSERT INTO g23_down (id) VALUES (2)"},
	}, nil)
	require.EqualError(t, err, "data node ds_down: dial tcp 127.0.0.1:"+port+": connect: connection refused")
	var n int
	require.NoError(t, ds0.QueryRowContext(ctx, "SELECT COUNT(*) FROM g23_down").Scan(&n))
	require.Zero(t, n)
}
