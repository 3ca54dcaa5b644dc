package runtime_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	shardrt "github.com/shardgen/shardgen/runtime"
)

func TestParseConfig(t *testing.T) {
	t.Setenv("SHARDGEN_TEST_DS_PASSWORD", "s3cret")
	tests := []struct {
		name string
		yaml string
		want *shardrt.Config
	}{
		{
			name: "jdbc yaml with rules and hikari keys",
			yaml: `databaseName: sharding_db
mode:
  type: Standalone
dataSources:
  ds_0:
    dataSourceClassName: com.zaxxer.hikari.HikariDataSource
    driverClassName: com.mysql.cj.jdbc.Driver
    jdbcUrl: jdbc:mysql://127.0.0.1:3306/ds_0?serverTimezone=UTC
    username: root
    password: ${env:SHARDGEN_TEST_DS_PASSWORD}
    maximumPoolSize: 50
    minimumIdle: 1
    connectionTimeout: 30000
    idleTimeout: 60000
    maxLifetime: 1800000
  ds_1:
    url: jdbc:mysql://127.0.0.1:3307/ds_1
    username: root
    password: 123456
    maxPoolSize: 10
    minPoolSize: 2
    connectionTimeoutMilliseconds: 500
    idleTimeoutMilliseconds: 1000
    maxLifetimeMilliseconds: 2000
    poolName: ignored
  ds_2:
    dsn: app:pw@tcp(127.0.0.1:3306)/ds_2
rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order_${0..1}
props:
  sql-show: true
  max-connections-size-per-query: 2
`,
			want: &shardrt.Config{
				DatabaseName: "sharding_db",
				DataSources: []shardrt.NamedDataSource{
					{Name: "ds_0", Config: shardrt.DataSourceConfig{
						URL: "jdbc:mysql://127.0.0.1:3306/ds_0?serverTimezone=UTC", Username: "root", Password: "s3cret",
						MaxPoolSize: 50, MinPoolSize: 1, ConnectionTimeout: 30 * time.Second,
						IdleTimeout: time.Minute, MaxLifetime: 30 * time.Minute,
					}},
					{Name: "ds_1", Config: shardrt.DataSourceConfig{
						URL: "jdbc:mysql://127.0.0.1:3307/ds_1", Username: "root", Password: "123456",
						MaxPoolSize: 10, MinPoolSize: 2, ConnectionTimeout: 500 * time.Millisecond,
						IdleTimeout: time.Second, MaxLifetime: 2 * time.Second,
					}},
					{Name: "ds_2", Config: shardrt.DataSourceConfig{DSN: "app:pw@tcp(127.0.0.1:3306)/ds_2"}},
				},
				Props: shardrt.Props{"sql-show": "true", "max-connections-size-per-query": "2"},
			},
		},
		{
			name: "default database name, merge keys, no props",
			yaml: `base: &base
  username: app
  password: pw
  maxPoolSize: 5
dataSources:
  ds_0:
    <<: *base
    url: jdbc:mysql://h:1/ds_0
  ds_1:
    <<: *base
    url: jdbc:mysql://h:1/ds_1
    maxPoolSize: 7
`,
			want: &shardrt.Config{
				DatabaseName: "logic_db",
				DataSources: []shardrt.NamedDataSource{
					{Name: "ds_0", Config: shardrt.DataSourceConfig{URL: "jdbc:mysql://h:1/ds_0", Username: "app", Password: "pw", MaxPoolSize: 5}},
					{Name: "ds_1", Config: shardrt.DataSourceConfig{URL: "jdbc:mysql://h:1/ds_1", Username: "app", Password: "pw", MaxPoolSize: 7}},
				},
			},
		},
		{
			name: "5.1 schemaName",
			yaml: "schemaName: old_db\ndataSources:\n  ds: {dsn: 'u@tcp(h:1)/d'}\nprops:\n",
			want: &shardrt.Config{
				DatabaseName: "old_db",
				DataSources:  []shardrt.NamedDataSource{{Name: "ds", Config: shardrt.DataSourceConfig{DSN: "u@tcp(h:1)/d"}}},
				Props:        shardrt.Props{},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := shardrt.ParseConfig("conf.yaml", []byte(tt.yaml))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"empty", "", "conf.yaml:1: empty configuration: dataSources is required"},
		{"not a mapping", "- a\n- b\n", "conf.yaml:1: the configuration must be a mapping with databaseName, dataSources, rules and props"},
		{"syntax", "databaseName: a\ndataSources:\nprops\nrules: []\n", "conf.yaml:3: could not find expected ':'"},
		{"unclosed flow mapping", "databaseName: a\ndataSources:\n  ds_0:\n    url: jdbc:mysql://h:1/ds_0\n  ds_1: {url: jdbc:mysql://h:1/ds_1\nprops: {}\n", "conf.yaml:5: did not find expected ',' or '}'"},
		{"bad indentation", "databaseName: a\ndataSources:\n  ds_0:\n    url: jdbc:mysql://h:1/ds_0\n   username: u\n", "conf.yaml:5: did not find expected key"},
		{"no data sources", "databaseName: x\nrules: []\n", "conf.yaml:1: dataSources is required"},
		{"data sources not a mapping", "dataSources: [a]\n", "conf.yaml:1: dataSources must be a mapping of data source names to their settings"},
		{
			name: "every problem, one per line",
			yaml: `databaseName: [x]
dataSources:
  ds_0:
    url: jdbc:mysql://h:1/ds_0
    dsn: u@tcp(h:1)/ds_0
    maxPoolSize: ten
  ds_1:
    username: u
  ds_2: jdbc:mysql://h:1/ds_2
  ds_3:
    url: jdbc:mysql://h:1/ds_3
    maxPoolSize: 1
    maximumPoolSize: 2
    idleTimeout: -5
    password: ${env:SHARDGEN_TEST_SURELY_UNSET}
  ds_3:
    url: x
props:
  sql-show: {a: b}
`,
			want: `conf.yaml:1: databaseName must be a scalar, got a sequence
conf.yaml:5: data source "ds_0": both url and dsn are set; give exactly one of url, jdbcUrl or dsn
conf.yaml:6: data source "ds_0": maxPoolSize must be a non-negative integer, got "ten"
conf.yaml:7: data source "ds_1": one of url, jdbcUrl or dsn is required
conf.yaml:9: data source "ds_2" must be a mapping, got a scalar
conf.yaml:13: data source "ds_3": both maxPoolSize and maximumPoolSize are set; give one
conf.yaml:14: data source "ds_3": idleTimeout must be a non-negative integer, got "-5"
conf.yaml:15: data source "ds_3": password: ${env:SHARDGEN_TEST_SURELY_UNSET}: environment variable "SHARDGEN_TEST_SURELY_UNSET" is not set and has no default
conf.yaml:16: duplicate key "ds_3" in dataSources (first at line 10)
conf.yaml:19: props "sql-show" must be a scalar, got a mapping`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := shardrt.ParseConfig("conf.yaml", []byte(tt.yaml))
			require.EqualError(t, err, tt.want)
			require.Nil(t, got)
		})
	}
}

func TestLoadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shard.yaml")
	require.NoError(t, os.WriteFile(path, []byte("dataSources:\n  ds_0:\n    maxPoolSize: x\n    dsn: u@tcp(h:1)/d\n"), 0o600))
	_, err := shardrt.LoadConfig(path)
	require.EqualError(t, err, path+`:3: data source "ds_0": maxPoolSize must be a non-negative integer, got "x"`)

	missing := filepath.Join(t.TempDir(), "missing.yaml")
	_, err = shardrt.LoadConfig(missing)
	require.EqualError(t, err, "open "+missing+": no such file or directory")
}

// TestParseConfigTransactionType: defaultType of the !TRANSACTION rule, or
// of a top-level transaction: mapping (ShardingSphere-Proxy's server.yaml),
// is the transaction type of multi-node writes; LOCAL when absent.
func TestParseConfigTransactionType(t *testing.T) {
	const ds = "dataSources:\n  ds_0:\n    url: jdbc:mysql://h:1/ds_0\n"
	for _, tt := range []struct {
		name, yaml string
		want       shardrt.TxType
	}{
		{"absent", ds, shardrt.TxLocal},
		{"rule XA", ds + "rules:\n- !SHARDING\n  tables: {}\n- !TRANSACTION\n  defaultType: XA\n  providerType: Atomikos\n", shardrt.TxXA},
		{"rule LOCAL", ds + "rules:\n- !TRANSACTION\n  defaultType: LOCAL\n", shardrt.TxLocal},
		{"server.yaml form", ds + "transaction:\n  defaultType: xa\n", shardrt.TxXA},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := shardrt.ParseConfig("conf.yaml", []byte(tt.yaml))
			require.NoError(t, err)
			require.Equal(t, tt.want, got.TransactionType)
		})
	}
	_, err := shardrt.ParseConfig("conf.yaml", []byte(ds+"rules:\n- !TRANSACTION\n  defaultType: BASE\n"))
	require.EqualError(t, err, "conf.yaml:6: !TRANSACTION defaultType must be LOCAL or XA, got BASE")
}
