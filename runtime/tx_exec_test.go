package runtime_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

const txInsert = "INSERT INTO rt_exec_tx (id, v) VALUES (?, ?)"

func TestTxCommitRollback(t *testing.T) {
	db, src := openTestSources(t, "")
	createTestTable(t, db, "rt_exec_tx")
	ctx := context.Background()

	// Nothing ran: commit and rollback succeed without a round trip.
	tx := src.BeginTx(ctx, nil)
	_, bound := tx.DataSource()
	require.False(t, bound)
	require.NoError(t, tx.Commit())
	require.ErrorIs(t, tx.Commit(), sql.ErrTxDone)
	require.NoError(t, src.BeginTx(ctx, nil).Rollback())

	// Commit: both rows land on ds_1; the transaction sees its own rows.
	tx = src.BeginTx(ctx, nil)
	_, err := tx.Exec(ctx, &testStmt, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 1, "a")
	require.NoError(t, err)
	name, bound := tx.DataSource()
	require.True(t, bound)
	require.Equal(t, "ds_1", name)
	_, err = tx.Exec(ctx, &testStmt, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 2, "b")
	require.NoError(t, err)
	var n int
	require.NoError(t, tx.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT COUNT(*) FROM rt_exec_tx"}).Scan(&n))
	require.Equal(t, 2, n)
	require.Equal(t, 0, countRows(t, db, "ds_1", "rt_exec_tx"), "not visible before commit")
	require.NoError(t, tx.Commit())
	require.Equal(t, 2, countRows(t, db, "ds_1", "rt_exec_tx"))
	_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 3, "c")
	require.ErrorIs(t, err, sql.ErrTxDone)

	// Rollback.
	tx = src.BeginTx(ctx, nil)
	_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 2, SQL: txInsert}, 3, "c")
	require.NoError(t, err)
	require.NoError(t, tx.Rollback())
	require.Equal(t, 0, countRows(t, db, "ds_2", "rt_exec_tx"))
	require.ErrorIs(t, tx.Rollback(), sql.ErrTxDone)

	// QueryUnits and ExecUnits run sequentially inside the transaction.
	tx = src.BeginTx(ctx, nil)
	affected, err := shardrt.ExecUnits(ctx, tx, &testStmt, []shardrt.RouteUnit{
		{DataSource: 3, SQL: txInsert, Args: []any{10, "x"}},
		{DataSource: 3, SQL: txInsert, Args: []any{11, "y"}},
	}, nil)
	require.NoError(t, err)
	require.Equal(t, int64(2), affected)
	got, err := shardrt.QueryUnits(ctx, tx, &testStmt, []shardrt.RouteUnit{
		{DataSource: 3, SQL: "SELECT v FROM rt_exec_tx WHERE id = ?", Args: []any{11}},
		{DataSource: 3, SQL: "SELECT v FROM rt_exec_tx WHERE id = ?", Args: []any{10}},
	}, nil, scanString)
	require.NoError(t, err)
	require.Equal(t, []string{"y", "x"}, got)
	require.NoError(t, tx.Commit())
	require.Equal(t, 2, countRows(t, db, "ds_3", "rt_exec_tx"))
}

func TestTxCrossShardRefused(t *testing.T) {
	db, src := openTestSources(t, "")
	createTestTable(t, db, "rt_exec_tx")
	ctx := context.Background()

	tx := src.BeginTx(ctx, nil)
	_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: txInsert}, 1, "a")
	require.NoError(t, err)
	const want = `cross-shard transaction refused: the transaction is bound to data source "ds_0", the statement is routed to data source "ds_1"`
	_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 2, "b")
	require.EqualError(t, err, want)
	require.ErrorIs(t, err, shardrt.ErrCrossShardTx)
	_, err = tx.Query(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT 1"})
	require.EqualError(t, err, want)
	var v string
	require.EqualError(t, tx.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT 1"}).Scan(&v), want)
	// Several units: all are checked before any runs.
	_, err = shardrt.ExecUnits(ctx, tx, nil, []shardrt.RouteUnit{
		{DataSource: 0, SQL: txInsert, Args: []any{5, "e"}},
		{DataSource: 1, SQL: txInsert, Args: []any{6, "f"}},
	}, nil)
	require.EqualError(t, err, want)
	// The transaction stays usable on its data source.
	_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: txInsert}, 3, "c")
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	require.Equal(t, 2, countRows(t, db, "ds_0", "rt_exec_tx"))
	require.Equal(t, 0, countRows(t, db, "ds_1", "rt_exec_tx"))

	// An unbound transaction refuses units on two data sources, and stays unbound.
	tx = src.BeginTx(ctx, nil)
	_, err = shardrt.QueryUnits(ctx, tx, nil, []shardrt.RouteUnit{
		{DataSource: 2, SQL: "SELECT 'a'"}, {DataSource: 3, SQL: "SELECT 'b'"},
	}, nil, scanString)
	require.EqualError(t, err, `cross-shard transaction refused: the statement is routed to data sources "ds_2" and "ds_3", a single-shard transaction runs on one`)
	_, bound := tx.DataSource()
	require.False(t, bound)
	require.NoError(t, tx.Rollback())

	// Two Sources indexes that name the same data source are one shard.
	same, err := db.Sources([]string{"ds_0", "ds_0"})
	require.NoError(t, err)
	tx = same.BeginTx(ctx, nil)
	_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: txInsert}, 20, "a")
	require.NoError(t, err)
	_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 21, "b")
	require.NoError(t, err)
	require.NoError(t, tx.Rollback())
}

func TestTxConcurrentUseRefused(t *testing.T) {
	_, src := openTestSources(t, "")
	ctx := context.Background()
	tx := src.BeginTx(ctx, nil)
	defer tx.Rollback()

	done := make(chan error, 1)
	go func() {
		_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "DO SLEEP(1)"})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // the first Exec is now waiting on the server
	_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "DO 1"})
	require.ErrorIs(t, err, shardrt.ErrTxConcurrentUse)
	require.EqualError(t, err, "transaction used by several goroutines at once")
	require.NoError(t, <-done)
	_, err = tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "DO 1"})
	require.NoError(t, err)
}

func TestWithTx(t *testing.T) {
	db, src := openTestSources(t, "")
	createTestTable(t, db, "rt_exec_tx")
	ctx := context.Background()

	// nil: committed.
	require.NoError(t, src.WithTx(ctx, nil, func(tx *shardrt.Tx) error {
		_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 1, "a")
		return err
	}))
	require.Equal(t, 1, countRows(t, db, "ds_1", "rt_exec_tx"))

	// An error: rolled back and returned.
	boom := errors.New("boom")
	err := src.WithTx(ctx, nil, func(tx *shardrt.Tx) error {
		if _, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 2, "b"); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.EqualError(t, err, "boom")
	require.Equal(t, 1, countRows(t, db, "ds_1", "rt_exec_tx"))

	// A cross-shard statement inside: refused, whole transaction rolled back.
	err = src.WithTx(ctx, nil, func(tx *shardrt.Tx) error {
		if _, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 3, "c"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: txInsert}, 4, "d")
		return err
	})
	require.ErrorIs(t, err, shardrt.ErrCrossShardTx)
	require.Equal(t, 1, countRows(t, db, "ds_1", "rt_exec_tx"))
	require.Equal(t, 0, countRows(t, db, "ds_0", "rt_exec_tx"))

	// A panic: rolled back, then the panic goes on with the same value.
	require.PanicsWithValue(t, "kaput", func() {
		_ = src.WithTx(ctx, nil, func(tx *shardrt.Tx) error {
			if _, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 5, "e"); err != nil {
				return err
			}
			panic("kaput")
		})
	})
	require.Equal(t, 1, countRows(t, db, "ds_1", "rt_exec_tx"))

	// Isolation options reach BEGIN: a read-only transaction refuses writes.
	err = src.WithTx(ctx, &sql.TxOptions{ReadOnly: true}, func(tx *shardrt.Tx) error {
		_, err := tx.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: txInsert}, 6, "f")
		return err
	})
	require.EqualError(t, err, "data node ds_1: Error 1792 (25006): Cannot execute statement in a READ ONLY transaction")
}
