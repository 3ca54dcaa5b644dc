package runtime_test

import (
	"context"
	"database/sql"
	"errors"
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

var testStmt = shardrt.Stmt{Name: "GetOrder", LogicSQL: "SELECT v FROM t_order WHERE id = ?"}

func TestSingleUnit(t *testing.T) {
	db, src := openTestSources(t, "")
	createTestTable(t, db, "rt_exec_single")
	ctx := context.Background()

	// Exec on ds_1 and ds_2, then read back through QueryRow and Query.
	res, err := src.Exec(ctx, &testStmt, shardrt.RouteUnit{DataSource: 1, SQL: "INSERT INTO rt_exec_single (id, v) VALUES (?, ?), (?, ?)"}, 1, "one", 5, "five")
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	// Args on the unit replace the call's arguments.
	_, err = src.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 2, SQL: "INSERT INTO rt_exec_single (id, v) VALUES (?, ?)", Args: []any{2, "two"}}, 99, "ignored")
	require.NoError(t, err)
	require.Equal(t, 2, countRows(t, db, "ds_1", "rt_exec_single"))
	require.Equal(t, 1, countRows(t, db, "ds_2", "rt_exec_single"))

	var v string
	require.NoError(t, src.QueryRow(ctx, &testStmt, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT v FROM rt_exec_single WHERE id = ?"}, 5).Scan(&v))
	require.Equal(t, "five", v)

	rows, err := src.Query(ctx, &testStmt, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT v FROM rt_exec_single ORDER BY id"})
	require.NoError(t, err)
	var got []string
	for rows.Next() {
		s, err := scanString(rows)
		require.NoError(t, err)
		got = append(got, s)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	require.Equal(t, []string{"one", "five"}, got)

	// No row: sql.ErrNoRows itself, as *sql.Row.Scan returns it (code
	// written for sqlc compares err == sql.ErrNoRows).
	err = src.QueryRow(ctx, &testStmt, shardrt.RouteUnit{DataSource: 2, SQL: "SELECT v FROM rt_exec_single WHERE id = ?"}, 5).Scan(&v)
	require.True(t, err == sql.ErrNoRows, "got %v", err)

	// As sql.Row, Row refuses *sql.RawBytes.
	var raw sql.RawBytes
	err = src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT v FROM rt_exec_single WHERE id = 1"}).Scan(&raw)
	require.EqualError(t, err, "data node ds_1: sql: RawBytes isn't allowed on Row.Scan")
}

func TestSingleUnitErrors(t *testing.T) {
	_, src := openTestSources(t, "")
	ctx := context.Background()
	bad := shardrt.RouteUnit{DataSource: 3, SQL: "SELECT v FROM rt_exec_no_such_table"}
	const want = "data node ds_3: Error 1146 (42S02): Table 'ds_3.rt_exec_no_such_table' doesn't exist"

	_, err := src.Query(ctx, &testStmt, bad)
	require.EqualError(t, err, want)
	var me *mysql.MySQLError
	require.ErrorAs(t, err, &me)
	require.Equal(t, uint16(1146), me.Number)

	_, err = src.Exec(ctx, &testStmt, bad)
	require.EqualError(t, err, want)

	row := src.QueryRow(ctx, &testStmt, bad)
	require.EqualError(t, row.Err(), want)
	var v string
	require.EqualError(t, row.Scan(&v), want)

	// An index outside the Sources is an error, not a panic; nothing runs.
	out := shardrt.RouteUnit{DataSource: 4, SQL: "SELECT 1"}
	const wantBad = "data node #4: route unit data source index out of range: index 4, 4 data sources"
	_, err = src.Query(ctx, nil, out)
	require.EqualError(t, err, wantBad)
	require.ErrorIs(t, err, shardrt.ErrBadRouteUnit)
	_, err = src.Exec(ctx, nil, shardrt.RouteUnit{DataSource: -1, SQL: "SELECT 1"})
	require.EqualError(t, err, "data node #-1: route unit data source index out of range: index -1, 4 data sources")
	require.EqualError(t, src.QueryRow(ctx, nil, out).Scan(&v), wantBad)
	_, err = shardrt.QueryUnits(ctx, src, nil, []shardrt.RouteUnit{{DataSource: 0, SQL: "SELECT 'x'"}, out}, nil, scanString)
	require.EqualError(t, err, wantBad)

	var zero shardrt.Row
	require.EqualError(t, zero.Scan(&v), "runtime: Scan on a zero Row")
}

func TestQueryUnitsOrder(t *testing.T) {
	_, src := openTestSources(t, "  max-connections-size-per-query: 2\n")
	ctx := context.Background()
	// The first unit is the slowest: results still come in unit order.
	units := []shardrt.RouteUnit{
		{DataSource: 2, SQL: "SELECT CONCAT(DATABASE(), ':', ?) FROM (SELECT SLEEP(0.3)) s"},
		{DataSource: 0, SQL: "SELECT CONCAT(DATABASE(), ':', ?) UNION ALL SELECT CONCAT(DATABASE(), ':', ?, '+')", Args: []any{"a", "b"}},
		{DataSource: 3, SQL: "SELECT CONCAT(DATABASE(), ':', ?) FROM (SELECT SLEEP(0.1)) s"},
		{DataSource: 0, SQL: "SELECT 'none' FROM DUAL WHERE ? = 'never'"},
		{DataSource: 1, SQL: "SELECT CONCAT(DATABASE(), ':', ?)"},
		{DataSource: 2, SQL: "SELECT CONCAT(DATABASE(), ':', ?, '!')"},
	}
	got, err := shardrt.QueryUnits(ctx, src, &testStmt, units, []any{"x"}, scanString)
	require.NoError(t, err)
	require.Equal(t, []string{"ds_2:x", "ds_0:a", "ds_0:b+", "ds_3:x", "ds_1:x", "ds_2:x!"}, got)

	// One unit runs inline; no units gives no rows.
	got, err = shardrt.QueryUnits(ctx, src, &testStmt, units[4:5], []any{"y"}, scanString)
	require.NoError(t, err)
	require.Equal(t, []string{"ds_1:y"}, got)
	got, err = shardrt.QueryUnits(ctx, src, &testStmt, nil, nil, scanString)
	require.NoError(t, err)
	require.Empty(t, got)

	// A scan error is a *NodeError naming the unit's data source.
	_, err = shardrt.QueryUnits(ctx, src, &testStmt, units[4:6], []any{"z"}, func(rows *sql.Rows) (int, error) {
		var s string
		if err := rows.Scan(&s); err != nil {
			return 0, err
		}
		if s == "ds_2:z!" {
			return 0, errors.New("bad row")
		}
		return len(s), nil
	})
	require.EqualError(t, err, "data node ds_2: bad row")

	// A panic in scan on a worker goroutine reaches the caller.
	require.PanicsWithValue(t, "scan panic", func() {
		_, _ = shardrt.QueryUnits(ctx, src, &testStmt, units[3:6], []any{"p"}, func(rows *sql.Rows) (string, error) {
			s, err := scanString(rows)
			if s == "ds_2:p!" {
				panic("scan panic")
			}
			return s, err
		})
	})
}

// numGoroutinesSettles waits until the goroutine count is at most want,
// returning the last count seen.
func numGoroutinesSettles(want int) int {
	deadline := time.Now().Add(2 * time.Second)
	for {
		n := goruntime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestQueryUnitsFirstErrorCancelsAndNoLeak(t *testing.T) {
	var log eventLog
	_, src := openTestSources(t, "  max-connections-size-per-query: 2\n", shardrt.WithObserver(&log))
	ctx := context.Background()
	// Warm the pools so that connection opener goroutines exist before we count.
	var one int
	require.NoError(t, src.QueryRow(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "SELECT 1"}).Scan(&one))
	log.take()
	before := goruntime.NumGoroutine()

	units := []shardrt.RouteUnit{
		{DataSource: 0, SQL: "SELECT SLEEP(5)"},
		{DataSource: 2, SQL: "SELECT SLEEP(5)"},
		{DataSource: 0, SQL: "SELECT SLEEP(5)"},
		{DataSource: 1, SQL: "SELECT broken FROM"},
		{DataSource: 3, SQL: "SELECT 'never reached' FROM (SELECT SLEEP(5)) s"},
	}
	start := time.Now()
	got, err := shardrt.QueryUnits(ctx, src, &testStmt, units, nil, scanString)
	elapsed := time.Since(start)
	require.Nil(t, got)
	require.EqualError(t, err, "data node ds_1: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '' at line 1")
	var ne *shardrt.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "ds_1", ne.DataSource)
	require.Equal(t, "SELECT broken FROM", ne.SQL)
	require.Less(t, elapsed, 4*time.Second, "the sleeping units were not cancelled")

	// Every unit that started had finished (and reported) when QueryUnits
	// returned: no event arrives later.
	events := log.take()
	time.Sleep(300 * time.Millisecond)
	require.Empty(t, log.take(), "a unit outlived QueryUnits")
	require.NotEmpty(t, events)
	for _, ev := range events {
		if ev.DataSource == "ds_1" {
			require.Equal(t, err, ev.Err)
		} else {
			require.ErrorIs(t, ev.Err, context.Canceled, ev.SQL)
		}
	}

	// Every goroutine QueryUnits started has ended.
	require.LessOrEqual(t, numGoroutinesSettles(before), before)

	// A cancelled caller context fails the units with the context error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = shardrt.QueryUnits(cctx, src, &testStmt, units[:2], nil, scanString)
	require.ErrorIs(t, err, context.Canceled)
	require.LessOrEqual(t, numGoroutinesSettles(before), before)
}

func TestQueryUnitsWaitsForEveryUnit(t *testing.T) {
	var log eventLog
	_, src := openTestSources(t, "", shardrt.WithObserver(&log))
	ctx := context.Background()
	// Unit 0 (run on the calling goroutine) fails after 0.2s; unit 1 has
	// already read its row by then and spends 0.6s in scan, which does not
	// watch the context. QueryUnits must wait for it before returning.
	units := []shardrt.RouteUnit{
		{DataSource: 1, SQL: "SELECT IF(SLEEP(0.2) = 0, (SELECT 1 UNION SELECT 2), 0)"},
		{DataSource: 2, SQL: "SELECT 'slow'"},
	}
	_, err := shardrt.QueryUnits(ctx, src, &testStmt, units, nil, func(rows *sql.Rows) (string, error) {
		s, err := scanString(rows)
		if s == "slow" {
			time.Sleep(600 * time.Millisecond)
		}
		return s, err
	})
	require.EqualError(t, err, "data node ds_1: Error 1242 (21000): Subquery returns more than 1 row")
	events := log.take()
	time.Sleep(800 * time.Millisecond)
	require.Empty(t, log.take(), "a unit outlived QueryUnits")
	require.Len(t, events, 2)
}

// TestQueryUnitsConcurrencyPerDataSource: max-connections-size-per-query
// bounds the connections one statement holds on a data source: with 1
// (the default) its units run one after the other on one connection,
// with 3 on three at once (each unit sleeps, so each holds its connection
// while the others start). Counted by the connections' ids, not by time.
func TestQueryUnitsConcurrencyPerDataSource(t *testing.T) {
	units := []shardrt.RouteUnit{
		{DataSource: 0, SQL: "SELECT CONCAT(CONNECTION_ID(), SLEEP(0.5))"},
		{DataSource: 0, SQL: "SELECT CONCAT(CONNECTION_ID(), SLEEP(0.5))"},
		{DataSource: 0, SQL: "SELECT CONCAT(CONNECTION_ID(), SLEEP(0.5))"},
	}
	connections := func(t *testing.T, props string) int {
		_, src := openTestSources(t, props)
		got, err := shardrt.QueryUnits(context.Background(), src, nil, units, nil, scanString)
		require.NoError(t, err)
		require.Len(t, got, 3)
		return len(slices.Compact(slices.Sorted(slices.Values(got))))
	}
	require.Equal(t, 1, connections(t, ""), "max-connections-size-per-query 1 (the default): one connection on ds_0")
	require.Equal(t, 3, connections(t, "  max-connections-size-per-query: 3\n"), "3: all three at once")
}

func TestExecUnits(t *testing.T) {
	db, src := openTestSources(t, "  max-connections-size-per-query: 2\n")
	createTestTable(t, db, "rt_exec_units")
	ctx := context.Background()
	insert := "INSERT INTO rt_exec_units (id, v) VALUES (?, 'x'), (? + 100, 'y')"
	n, err := shardrt.ExecUnits(ctx, src, &testStmt, nil, nil)
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = shardrt.ExecUnits(ctx, src, &testStmt, []shardrt.RouteUnit{
		{DataSource: 0, SQL: insert}, {DataSource: 1, SQL: insert}, {DataSource: 2, SQL: insert},
		{DataSource: 3, SQL: insert}, {DataSource: 0, SQL: "INSERT INTO rt_exec_units (id, v) VALUES (?, 'z')", Args: []any{7}},
	}, []any{1, 1})
	require.NoError(t, err)
	require.Equal(t, int64(9), n)

	all := []shardrt.RouteUnit{
		{DataSource: 0, SQL: "UPDATE rt_exec_units SET v = ? WHERE v <> ?"},
		{DataSource: 1, SQL: "UPDATE rt_exec_units SET v = ? WHERE v <> ?"},
		{DataSource: 2, SQL: "UPDATE rt_exec_units SET v = ? WHERE v <> ?"},
		{DataSource: 3, SQL: "UPDATE rt_exec_units SET v = ? WHERE v <> ?"},
	}
	n, err = shardrt.ExecUnits(ctx, src, &testStmt, all, []any{"x", "x"})
	require.NoError(t, err)
	require.Equal(t, int64(5), n) // 4 'y' + 1 'z'

	_, err = shardrt.ExecUnits(ctx, src, &testStmt, []shardrt.RouteUnit{all[0], {DataSource: 2, SQL: "UPDATE rt_exec_units SET nope = 1"}}, []any{"x", "x"})
	require.EqualError(t, err, "data node ds_2: Error 1054 (42S22): Unknown column 'nope' in 'SET'")
}
