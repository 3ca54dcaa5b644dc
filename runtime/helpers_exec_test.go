package runtime_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	shardrt "github.com/shardgen/shardgen/runtime"
)

// testDataSources are the data sources of the local MariaDB servers
// (scripts/db.sh): ds_0..ds_3, ds_i on server i%2.
var testDataSources = testdb.DataSources()

// dataSourceYAML returns the body of a ShardingSphere data source entry for
// database db on the local test servers: its url, user and password.
func dataSourceYAML(t testing.TB, db string) string {
	t.Helper()
	cfg := testdb.Config(db)
	return "    url: jdbc:mysql://" + cfg.Addr + "/" + cfg.DBName + "\n" +
		"    username: " + cfg.User + "\n" +
		"    password: " + cfg.Passwd + "\n" +
		"    maxPoolSize: 8\n"
}

// writeTestYAML writes a ShardingSphere YAML with ds_0..ds_3 of the test
// servers, extra data sources (name → body) and props into a temp dir and
// returns its path.
func writeTestYAML(t testing.TB, props string, extra ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("databaseName: sharding_db\ndataSources:\n")
	for _, ds := range testDataSources {
		b.WriteString("  " + ds + ":\n" + dataSourceYAML(t, ds))
	}
	for i := 0; i+1 < len(extra); i += 2 {
		b.WriteString("  " + extra[i] + ":\n" + extra[i+1])
	}
	b.WriteString("rules:\n- !SHARDING\n  tables:\n    t_order:\n      actualDataNodes: ds_${0..3}.t_order\n")
	if props != "" {
		b.WriteString("props:\n" + props)
	}
	path := filepath.Join(t.TempDir(), "config-sharding.yaml")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// openTestDB opens the test servers through a YAML file, pings them (a test
// fails, never skips, when MariaDB is down) and closes them at cleanup.
func openTestDB(t testing.TB, props string, opts ...shardrt.Option) *shardrt.DB {
	t.Helper()
	cfg, err := shardrt.LoadConfig(writeTestYAML(t, props))
	require.NoError(t, err)
	db, err := shardrt.Open(cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	require.NoError(t, db.Ping(context.Background()), "the local MariaDB servers must be up: run `make db-up`")
	return db
}

// openTestSources is openTestDB plus Sources over ds_0..ds_3 (index i is
// ds_i).
func openTestSources(t testing.TB, props string, opts ...shardrt.Option) (*shardrt.DB, *shardrt.Sources) {
	t.Helper()
	db := openTestDB(t, props, opts...)
	src, err := db.Sources(testDataSources)
	require.NoError(t, err)
	return db, src
}

// createTestTable creates table name (columns: id BIGINT PRIMARY KEY, v
// VARCHAR(32)) on every data source, empty, and drops it at cleanup.
func createTestTable(t testing.TB, db *shardrt.DB, name string) {
	t.Helper()
	ctx := context.Background()
	for _, ds := range testDataSources {
		pool, ok := db.Pool(ds)
		require.True(t, ok)
		_, err := pool.ExecContext(ctx, "DROP TABLE IF EXISTS "+name)
		require.NoError(t, err)
		_, err = pool.ExecContext(ctx, "CREATE TABLE "+name+" (id BIGINT PRIMARY KEY, v VARCHAR(32) NOT NULL)")
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, ds := range testDataSources {
			if pool, ok := db.Pool(ds); ok {
				_, _ = pool.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+name)
			}
		}
	})
}

// countRows returns the number of rows of table on data source ds.
func countRows(t testing.TB, db *shardrt.DB, ds, table string) int {
	t.Helper()
	pool, ok := db.Pool(ds)
	require.True(t, ok)
	var n int
	require.NoError(t, pool.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM "+table).Scan(&n))
	return n
}

// scanString scans one string column.
func scanString(rows *sql.Rows) (string, error) {
	var s string
	err := rows.Scan(&s)
	return s, err
}

// eventLog is an Observer that records events.
type eventLog struct {
	mu     sync.Mutex
	events []shardrt.Event
}

func (l *eventLog) Observe(_ context.Context, ev shardrt.Event) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

func (l *eventLog) take() []shardrt.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := l.events
	l.events = nil
	return ev
}

// scanInt64 scans one integer column.
func scanInt64(rows *sql.Rows) (int64, error) {
	var n int64
	err := rows.Scan(&n)
	return n, err
}
