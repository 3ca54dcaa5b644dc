package runtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of parallel
// units.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// textLogger logs to buf as slog text without the time.
func textLogger(buf *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

func TestSQLShowLogger(t *testing.T) {
	var buf syncBuffer
	_, src := openTestSources(t, "", shardrt.WithLogger(textLogger(&buf)))
	ctx := context.Background()

	var v int
	require.NoError(t, src.QueryRow(ctx, &testStmt, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT ? + 1"}, 7).Scan(&v))
	require.Equal(t, 8, v)
	// Two units on one data source with max-connections-size-per-query 1 run
	// in unit order, so the log order is fixed.
	_, err := shardrt.QueryUnits(ctx, src, &testStmt, []shardrt.RouteUnit{
		{DataSource: 2, SQL: "SELECT ?"}, {DataSource: 2, SQL: "SELECT CONCAT(?, '!')", Args: []any{"b"}},
	}, []any{"a"}, scanString)
	require.NoError(t, err)
	_, err = src.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "DO 1"})
	require.NoError(t, err)

	require.Equal(t, `level=INFO msg="Logic SQL" stmt=GetOrder sql="SELECT v FROM t_order WHERE id = ?" units=1
level=INFO msg="Actual SQL" stmt=GetOrder data_source=ds_1 sql="SELECT ? + 1" args=[7]
level=INFO msg="Logic SQL" stmt=GetOrder sql="SELECT v FROM t_order WHERE id = ?" units=2
level=INFO msg="Actual SQL" stmt=GetOrder data_source=ds_2 sql="SELECT ?" args=[a]
level=INFO msg="Actual SQL" stmt=GetOrder data_source=ds_2 sql="SELECT CONCAT(?, '!')" args=[b]
level=INFO msg="Logic SQL" stmt="" sql="" units=1
level=INFO msg="Actual SQL" stmt="" data_source=ds_0 sql="DO 1" args=[]
`, buf.String())
}

func TestSQLShowProp(t *testing.T) {
	var buf syncBuffer
	old := slog.Default()
	slog.SetDefault(textLogger(&buf))
	t.Cleanup(func() { slog.SetDefault(old) })
	ctx := context.Background()
	unit := shardrt.RouteUnit{DataSource: 3, SQL: "DO ?"}

	// sql-show: true logs to slog.Default().
	_, src := openTestSources(t, "  sql-show: true\n")
	_, err := src.Exec(ctx, &testStmt, unit, 1)
	require.NoError(t, err)
	require.Equal(t, `level=INFO msg="Logic SQL" stmt=GetOrder sql="SELECT v FROM t_order WHERE id = ?" units=1
level=INFO msg="Actual SQL" stmt=GetOrder data_source=ds_3 sql="DO ?" args=[1]
`, buf.String())

	// WithLogger(nil) overrides it; sql-show: false logs nothing.
	for _, tc := range []struct {
		props string
		opts  []shardrt.Option
	}{
		{"  sql-show: true\n", []shardrt.Option{shardrt.WithLogger(nil)}},
		{"  sql-show: false\n", nil},
		{"", nil},
	} {
		_, src := openTestSources(t, tc.props, tc.opts...)
		before := buf.String()
		_, err := src.Exec(ctx, &testStmt, unit, 1)
		require.NoError(t, err)
		require.Equal(t, before, buf.String(), tc.props)
	}
}

func TestObserver(t *testing.T) {
	var log eventLog
	_, src := openTestSources(t, "", shardrt.WithObserver(&log))
	ctx := context.Background()

	// stripDurations checks every duration is positive and zeroes it.
	stripDurations := func(events []shardrt.Event) []shardrt.Event {
		for i := range events {
			require.Positive(t, events[i].Duration, "event %d", i)
			events[i].Duration = 0
		}
		return events
	}

	var v int
	require.NoError(t, src.QueryRow(ctx, &testStmt, shardrt.RouteUnit{DataSource: 1, SQL: "SELECT ?"}, 5).Scan(&v))
	_, err := src.Exec(ctx, nil, shardrt.RouteUnit{DataSource: 0, SQL: "DO 1"})
	require.NoError(t, err)
	_, err = src.Query(ctx, &testStmt, shardrt.RouteUnit{DataSource: 2, SQL: "SELECT nope"})
	require.Error(t, err)
	events := stripDurations(log.take())
	require.Len(t, events, 3)
	require.Equal(t, shardrt.Event{Stmt: &testStmt, DataSource: "ds_1", SQL: "SELECT ?", Rows: -1}, events[0])
	require.Equal(t, shardrt.Event{DataSource: "ds_0", SQL: "DO 1", Rows: 0}, events[1])
	require.Equal(t, shardrt.Event{Stmt: &testStmt, DataSource: "ds_2", SQL: "SELECT nope", Rows: -1, Err: err}, events[2])
	require.EqualError(t, events[2].Err, "data node ds_2: Error 1054 (42S22): Unknown column 'nope' in 'SELECT'")

	// Several units: one event per unit with the rows it read.
	_, err = shardrt.QueryUnits(ctx, src, &testStmt, []shardrt.RouteUnit{
		{DataSource: 3, SQL: "SELECT 'a' UNION ALL SELECT 'b'"}, {DataSource: 3, SQL: "SELECT 'c'"},
	}, nil, scanString)
	require.NoError(t, err)
	require.Equal(t, []shardrt.Event{
		{Stmt: &testStmt, DataSource: "ds_3", SQL: "SELECT 'a' UNION ALL SELECT 'b'", Rows: 2},
		{Stmt: &testStmt, DataSource: "ds_3", SQL: "SELECT 'c'", Rows: 1},
	}, stripDurations(log.take()))
}
