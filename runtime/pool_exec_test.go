package runtime_test

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

func TestOpenFromYAMLAndPing(t *testing.T) {
	db := openTestDB(t, "  sql-show: false\n  max-connections-size-per-query: 2\n")
	require.Equal(t, testDataSources, db.DataSourceNames())

	ctx := context.Background()
	for _, ds := range testDataSources {
		pool, ok := db.Pool(ds)
		require.True(t, ok, ds)
		var name string
		require.NoError(t, pool.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&name))
		require.Equal(t, ds, name)
	}
	_, ok := db.Pool("ds_9")
	require.False(t, ok)
}

// closedPort returns a TCP port on 127.0.0.1 that nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

func TestPingNamesDownDataSource(t *testing.T) {
	port := strconv.Itoa(closedPort(t))
	path := writeTestYAML(t, "", "ds_down",
		"    url: jdbc:mysql://127.0.0.1:"+port+"/ds_0\n    username: u\n    connectionTimeoutMilliseconds: 2000\n")
	cfg, err := shardrt.LoadConfig(path)
	require.NoError(t, err)
	db, err := shardrt.Open(cfg) // does not connect
	require.NoError(t, err)
	defer db.Close()

	err = db.Ping(context.Background())
	require.EqualError(t, err, `data source "ds_down" (127.0.0.1:`+port+`/ds_0): dial tcp 127.0.0.1:`+port+`: connect: connection refused`)
}

func TestOpenErrors(t *testing.T) {
	ds := func(name, dsn string) shardrt.NamedDataSource {
		return shardrt.NamedDataSource{Name: name, Config: shardrt.DataSourceConfig{DSN: dsn}}
	}
	tests := []struct {
		name string
		cfg  *shardrt.Config
		want string
	}{
		{"nil", nil, "runtime.Open: nil *Config"},
		{"no data sources", &shardrt.Config{}, "runtime.Open: the configuration has no data sources"},
		{"bad sql-show", &shardrt.Config{DataSources: []shardrt.NamedDataSource{ds("a", "u@tcp(h:1)/d")}, Props: shardrt.Props{"sql-show": "yes"}},
			`props: property "sql-show" must be true or false, got "yes"`},
		{"bad max connections", &shardrt.Config{DataSources: []shardrt.NamedDataSource{ds("a", "u@tcp(h:1)/d")}, Props: shardrt.Props{"max-connections-size-per-query": "0"}},
			`props: property "max-connections-size-per-query" must be between 1 and 1048576, got 0`},
		{"duplicate", &shardrt.Config{DataSources: []shardrt.NamedDataSource{ds("a", "u@tcp(h:1)/d"), ds("a", "u@tcp(h:1)/e")}},
			`runtime.Open: data source "a" is configured twice`},
		{"bad dsn", &shardrt.Config{DataSources: []shardrt.NamedDataSource{ds("a", "u@tcp(h:1)/d"), ds("b", "nonsense")}},
			`data source "b": dsn is not a valid go-sql-driver/mysql DSN: invalid DSN: missing the slash separating the database name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := shardrt.Open(tt.cfg)
			require.EqualError(t, err, tt.want)
			require.Nil(t, db)
		})
	}
}

func TestSources(t *testing.T) {
	db := openTestDB(t, "")
	_, err := db.Sources([]string{"ds_0", "ds_9", "ds_1", "x", "ds_9"})
	require.EqualError(t, err, `unknown data sources "ds_9", "x" (configured: ds_0, ds_1, ds_2, ds_3)`)
	_, err = db.Sources([]string{"ds_4"})
	require.EqualError(t, err, `unknown data source "ds_4" (configured: ds_0, ds_1, ds_2, ds_3)`)

	src, err := db.Sources([]string{"ds_3", "ds_1"})
	require.NoError(t, err)
	require.Equal(t, []string{"ds_3", "ds_1"}, src.Names())
	require.Equal(t, 2, src.Len())

	var name string
	require.NoError(t, src.QueryRow(context.Background(), nil, shardrt.RouteUnit{DataSource: 0, SQL: "SELECT DATABASE()"}).Scan(&name))
	require.Equal(t, "ds_3", name)
}
