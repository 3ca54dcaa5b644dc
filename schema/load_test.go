package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/runtime"
)

// nodes builds data nodes from "ds.table" strings.
func nodes(t *testing.T, names ...string) []DataNode {
	t.Helper()
	out := make([]DataNode, len(names))
	for i, n := range names {
		ds, table, ok := cutDot(n)
		require.True(t, ok, n)
		out[i] = DataNode{DataSource: ds, Table: table}
	}
	return out
}

func cutDot(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

// strategyShape is the part of a Strategy a test compares.
type strategyShape struct {
	Kind      StrategyKind
	Columns   []string
	Algorithm string
	Type      string
}

func shape(s *Strategy) *strategyShape {
	if s == nil {
		return nil
	}
	out := &strategyShape{Kind: s.Kind, Columns: s.Columns, Algorithm: s.AlgorithmName}
	if s.Algorithm != nil {
		out.Type = s.Algorithm.Type
	}
	return out
}

func table(t *testing.T, cfg *Config, name string) *TableRule {
	t.Helper()
	for _, tr := range cfg.Sharding.Tables {
		if tr.LogicTable == name {
			return tr
		}
	}
	t.Fatalf("no logic table %q", name)
	return nil
}

func TestLoad51(t *testing.T) {
	cfg, err := LoadFile("testdata/rules/sharding-5.1.yaml")
	require.NoError(t, err)
	require.Equal(t, "sharding_db", cfg.DatabaseName)
	require.Nil(t, cfg.Warnings)

	// Data sources: HikariCP keys, merge keys, secrets kept unexpanded.
	require.Len(t, cfg.DataSources, 4)
	ds0 := cfg.DataSources[0]
	require.Equal(t, "write_ds_0", ds0.Name)
	require.Equal(t, runtime.DataSourceConfig{
		URL:         "jdbc:mysql://127.0.0.1:3306/write_ds_0?serverTimezone=UTC&useSSL=false",
		Username:    "root",
		Password:    "${env:DS_PASSWORD}",
		MaxPoolSize: 20,
		MinPoolSize: 2,
	}, ds0.Config)
	require.Equal(t, "jdbc:mysql://127.0.0.1:3307/write_ds_1?serverTimezone=UTC&useSSL=false", cfg.DataSources[3].Config.URL)
	require.Equal(t, "${env:DS_PASSWORD}", cfg.DataSources[3].Config.Password)
	require.Equal(t, []string{"rw_ds_0", "rw_ds_1"}, cfg.LogicDataSources)

	// Read/write splitting, 5.1 Static shape: reads from the primary in a
	// transaction, as 5.1 did.
	require.Equal(t, []*ReadWriteGroup{
		{Name: "rw_ds_0", WriteDataSource: "write_ds_0", ReadDataSources: []string{"read_ds_0"}, TransactionalReadQuery: "PRIMARY", LoadBalancerName: "round_robin", Pos: Pos{"testdata/rules/sharding-5.1.yaml", 31, 5}},
		{Name: "rw_ds_1", WriteDataSource: "write_ds_1", ReadDataSources: []string{"read_ds_1"}, TransactionalReadQuery: "PRIMARY", LoadBalancerName: "round_robin", Pos: Pos{"testdata/rules/sharding-5.1.yaml", 37, 5}},
	}, cfg.ReadWrite.Groups)
	require.Equal(t, "ROUND_ROBIN", cfg.ReadWrite.LoadBalancers["round_robin"].Type)

	// Sharding: data nodes over the read/write groups, the default
	// database strategy, own table strategies.
	sh := cfg.Sharding
	require.Len(t, sh.Tables, 2)
	order := table(t, cfg, "t_order")
	require.Equal(t, nodes(t, "rw_ds_0.t_order_0", "rw_ds_0.t_order_1", "rw_ds_1.t_order_0", "rw_ds_1.t_order_1"), order.DataNodes)
	require.Equal(t, &strategyShape{StrategyStandard, []string{"user_id"}, "database_inline", "INLINE"}, shape(order.DatabaseStrategy))
	require.Same(t, sh.DefaultDatabaseStrategy, order.DatabaseStrategy)
	require.Equal(t, &strategyShape{StrategyStandard, []string{"order_id"}, "t_order_inline", "INLINE"}, shape(order.TableStrategy))
	require.Nil(t, sh.DefaultTableStrategy)
	require.Equal(t, "order_id", order.KeyGenerate.Column)
	require.Equal(t, "snowflake", order.KeyGenerate.GeneratorName)
	require.Equal(t, runtime.Props{"worker-id": "123"}, order.KeyGenerate.Generator.Props)
	require.False(t, order.Auto)
	require.Equal(t, Pos{"testdata/rules/sharding-5.1.yaml", 49, 5}, order.Pos)

	item := table(t, cfg, "t_order_item")
	require.Equal(t, nodes(t, "rw_ds_0.t_order_item_0", "rw_ds_0.t_order_item_1", "rw_ds_1.t_order_item_0", "rw_ds_1.t_order_item_1"), item.DataNodes)
	require.Equal(t, "order_item_id", item.KeyGenerate.Column)
	require.Equal(t, "t_order_item_$->{order_id % 2}", sh.Algorithms["t_order_item_inline"].Props["algorithm-expression"])
	require.NotNil(t, sh.Algorithms["t_order_item_inline"].Sharding)

	require.Len(t, sh.BindingGroups, 1)
	require.Equal(t, []string{"t_order", "t_order_item"}, sh.BindingGroups[0].Tables)
	require.Equal(t, []string{"t_address"}, cfg.Broadcast.Tables)
	require.Nil(t, cfg.Single)

	// Encrypt, 5.1 shape: plain column, the assisted query column falls
	// back to the cipher's encryptor, queryWithCipherColumn on both levels.
	enc := cfg.Encrypt
	require.True(t, enc.QueryWithCipherColumn)
	require.Len(t, enc.Tables, 1)
	require.Equal(t, "t_user", enc.Tables[0].Name)
	require.NotNil(t, enc.Tables[0].QueryWithCipherColumn)
	require.False(t, *enc.Tables[0].QueryWithCipherColumn)
	cols := enc.Tables[0].Columns
	require.Len(t, cols, 2)
	require.Equal(t, "user_name", cols[0].Name)
	require.Equal(t, "user_name_plain", cols[0].Plain)
	require.Equal(t, "user_name_cipher", cols[0].Cipher.Column)
	require.Equal(t, "aes_encryptor", cols[0].Cipher.Encryptor)
	require.Nil(t, cols[0].AssistedQuery)
	require.Equal(t, "pwd_assisted", cols[1].AssistedQuery.Column)
	require.Equal(t, "md5_encryptor", cols[1].AssistedQuery.Encryptor)
	require.Equal(t, runtime.Props{"aes-key-value": "123456abc"}, enc.Encryptors["aes_encryptor"].Props)

	require.Equal(t, runtime.Props{"sql-show": "true", "max-connections-size-per-query": "1"}, cfg.Props)
	require.Equal(t, Pos{"testdata/rules/sharding-5.1.yaml", 119, 3}, cfg.PropsPos["sql-show"])
}

func TestLoad54(t *testing.T) {
	const file = "testdata/rules/sharding-5.4.yaml"
	cfg, err := LoadFile(file)
	require.NoError(t, err)
	require.Equal(t, "sharding_db", cfg.DatabaseName)
	require.Nil(t, cfg.Warnings)

	ds0 := cfg.DataSources[0].Config
	require.Equal(t, runtime.DataSourceConfig{
		URL:               "jdbc:mysql://127.0.0.1:3306/demo_ds_0?useSSL=false",
		Username:          "root",
		Password:          "${env:DS_PASSWORD:-root}",
		MaxPoolSize:       50,
		MinPoolSize:       1,
		ConnectionTimeout: 30 * time.Second,
		IdleTimeout:       time.Minute,
		MaxLifetime:       30 * time.Minute,
	}, ds0)
	require.Equal(t, "root:root@tcp(127.0.0.1:3306)/demo_ds_2", cfg.DataSources[2].Config.DSN)
	// The read/write group comes first, then the data sources in no group
	// (ShardingSphere's aggregated data sources).
	require.Equal(t, []string{"ds_2", "ds_0", "ds_1"}, cfg.LogicDataSources)

	sh := cfg.Sharding
	require.Len(t, sh.Tables, 4)
	order := table(t, cfg, "t_order")
	require.Equal(t, nodes(t, "ds_0.t_order_0", "ds_0.t_order_1", "ds_1.t_order_0", "ds_1.t_order_1", "ds_2.t_order_0", "ds_2.t_order_1"), order.DataNodes)
	require.Equal(t, &strategyShape{StrategyStandard, []string{"user_id"}, "database_mod", "MOD"}, shape(order.DatabaseStrategy))
	// shardingColumn omitted: defaultShardingColumn.
	require.Equal(t, &strategyShape{StrategyStandard, []string{"order_id"}, "t_order_inline", "INLINE"}, shape(order.TableStrategy))
	require.Equal(t, &AuditStrategy{AuditorNames: []string{"sharding_key_required_auditor"}, AllowHintDisable: false, Pos: Pos{file, 44, 9}}, order.Audit)
	require.Equal(t, "snowflake", order.KeyGenerate.GeneratorName)

	item := table(t, cfg, "t_order_item")
	require.Equal(t, "id", item.KeyGenerate.Column)
	require.Equal(t, "uuid", item.KeyGenerate.GeneratorName)
	require.Equal(t, "UUID", item.KeyGenerate.Generator.Type)
	require.Same(t, sh.DefaultAuditStrategy, item.Audit)
	require.True(t, item.Audit.AllowHintDisable)

	// No actualDataNodes: one node per logic data source, in their order.
	log := table(t, cfg, "t_user_log")
	require.Equal(t, nodes(t, "ds_2.t_user_log", "ds_0.t_user_log", "ds_1.t_user_log"), log.DataNodes)
	require.Equal(t, &strategyShape{StrategyHint, nil, "user_hint", "HINT_INLINE"}, shape(log.DatabaseStrategy))
	require.Nil(t, log.TableStrategy)

	// autoTables: <logic>_<i>, data sources round-robin; database strategy none.
	acct := table(t, cfg, "t_account")
	require.True(t, acct.Auto)
	require.Equal(t, nodes(t, "ds_0.t_account_0", "ds_1.t_account_1", "ds_0.t_account_2", "ds_1.t_account_3"), acct.DataNodes)
	require.Nil(t, acct.DatabaseStrategy)
	require.Equal(t, &strategyShape{StrategyStandard, []string{"account_id"}, "account_hash", "HASH_MOD"}, shape(acct.TableStrategy))
	_, isAuto := acct.TableStrategy.Algorithm.Sharding.(runtime.AutoAlgorithm)
	require.True(t, isAuto)

	require.Equal(t, []*BindingGroup{{Name: "order_ref", Tables: []string{"t_order", "t_order_item"}, Pos: Pos{file, 67, 7}}}, sh.BindingGroups)
	require.Equal(t, "order_id", sh.DefaultShardingColumn)
	require.Equal(t, []string{"account_hash", "database_mod", "t_order_inline", "t_order_item_inline", "user_hint"}, sortedKeys(sh.Algorithms))
	require.Equal(t, "DML_SHARDING_CONDITIONS", sh.Auditors["sharding_key_required_auditor"].Type)

	require.Equal(t, &BroadcastRule{Tables: []string{"t_address", "t_dict"}, Pos: Pos{file, 111, 3}}, cfg.Broadcast)
	require.Equal(t, &SingleRule{Tables: []string{"ds_0.*", "ds_2.t_config"}, DefaultDataSource: "ds_0", Pos: Pos{file, 116, 3}}, cfg.Single)

	enc := cfg.Encrypt
	require.Len(t, enc.Tables, 1)
	col := enc.Tables[0].Columns[0]
	require.Equal(t, "username", col.Name)
	require.Equal(t, "username_cipher", col.Cipher.Column)
	require.Equal(t, "aes_encryptor", col.Cipher.Encryptor)
	require.Equal(t, "username_assisted", col.AssistedQuery.Column)
	require.Equal(t, "md5_encryptor", col.AssistedQuery.Encryptor)
	require.Nil(t, col.LikeQuery)
	require.Empty(t, col.Plain)
	require.Equal(t, "${env:AES_KEY}", enc.Encryptors["aes_encryptor"].Props["aes-key-value"])

	require.Equal(t, []*ReadWriteGroup{{
		Name: "ds_2", WriteDataSource: "primary_ds_2", ReadDataSources: []string{"replica_ds_2_0", "replica_ds_2_1"},
		TransactionalReadQuery: "PRIMARY", LoadBalancerName: "weight_lb", Pos: Pos{file, 146, 5},
	}}, cfg.ReadWrite.Groups)
	require.Equal(t, runtime.Props{"replica_ds_2_0": "2", "replica_ds_2_1": "1"}, cfg.ReadWrite.LoadBalancers["weight_lb"].Props)
	require.Equal(t, runtime.Props{"sql-show": "false", "kernel-executor-size": "16"}, cfg.Props)
}

// TestLoadFixturesIdentical checks that loading is deterministic.
func TestLoadDeterministic(t *testing.T) {
	files, err := filepath.Glob("testdata/rules/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		a, errA := Load(f, src)
		b, errB := Load(f, src)
		require.Equal(t, errA, errB)
		require.Equal(t, a, b)
	}
}

// TestLoad52Shapes covers the 5.2/5.3 shapes: staticStrategy read/write
// groups with inline names zipped into several groups, the transaction
// read strategy taken from the load balancer, and 5.3 encrypt columns with
// their own assisted and like encryptors.
func TestLoad52Shapes(t *testing.T) {
	cfg, err := Load("t.yaml", []byte(`dataSources:
  write_ds_0: {url: "jdbc:mysql://h:3306/w0"}
  write_ds_1: {url: "jdbc:mysql://h:3306/w1"}
  read_ds_0: {url: "jdbc:mysql://h:3307/w0"}
  read_ds_1: {url: "jdbc:mysql://h:3307/w1"}
rules:
- !READWRITE_SPLITTING
  dataSources:
    rw_ds_${0..1}:
      staticStrategy:
        writeDataSourceName: write_ds_${0..1}
        readDataSourceNames:
          - read_ds_${0..1}
      loadBalancerName: lb
  loadBalancers:
    lb: {type: RANDOM, props: {transaction-read-query-strategy: DYNAMIC_REPLICA}}
- !ENCRYPT
  tables:
    t_user:
      columns:
        name:
          cipherColumn: name_cipher
          assistedQueryColumn: name_assisted
          likeQueryColumn: name_like
          encryptorName: aes
          assistedQueryEncryptorName: md5
          likeQueryEncryptorName: like
  encryptors:
    aes: {type: AES, props: {aes-key-value: k}}
    md5: {type: MD5}
    like: {type: CHAR_DIGEST_LIKE}
`))
	require.NoError(t, err)
	require.Equal(t, []string{"rw_ds_0", "rw_ds_1"}, cfg.LogicDataSources)
	g := cfg.ReadWrite.Groups
	require.Len(t, g, 2)
	require.Equal(t, "rw_ds_1", g[1].Name)
	require.Equal(t, "write_ds_1", g[1].WriteDataSource)
	require.Equal(t, []string{"read_ds_1"}, g[1].ReadDataSources)
	require.Equal(t, "DYNAMIC", g[1].TransactionalReadQuery)
	c := cfg.Encrypt.Tables[0].Columns[0]
	require.Equal(t, EncryptDerived{Column: "name_cipher", Encryptor: "aes", Pos: Pos{"t.yaml", 22, 25}}, c.Cipher)
	require.Equal(t, "md5", c.AssistedQuery.Encryptor)
	require.Equal(t, "name_like", c.LikeQuery.Column)
	require.Equal(t, "like", c.LikeQuery.Encryptor)
}

// TestLoadDefaultsAndInheritance covers defaults: a table's `none`
// strategy overrides the default, key generate strategies fall back to the
// default generator or the built-in SNOWFLAKE, an empty tagged rule, the
// 5.1 broadcastTables merged with !BROADCAST, and YAML anchors.
func TestLoadDefaultsAndInheritance(t *testing.T) {
	cfg, err := Load("t.yaml", []byte(ds2+`rules:
- !BROADCAST
  tables: [t_dict]
- !SINGLE
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy: {none: }
      keyGenerateStrategy: {column: order_id}
    t_item:
      actualDataNodes: ds_${0..1}.t_item
      keyGenerateStrategy: {column: item_id}
    t_plain:
      actualDataNodes: ds_0.t_plain
  broadcastTables: [t_region]
  defaultDatabaseStrategy: &db
    standard: {shardingColumn: user_id, shardingAlgorithmName: mod2}
  defaultTableStrategy: {none: {}}
  shardingAlgorithms:
`+mod2))
	require.NoError(t, err)
	order, item, plain := table(t, cfg, "t_order"), table(t, cfg, "t_item"), table(t, cfg, "t_plain")
	require.Nil(t, order.DatabaseStrategy)
	require.Equal(t, &strategyShape{StrategyStandard, []string{"user_id"}, "mod2", "MOD"}, shape(item.DatabaseStrategy))
	require.Nil(t, item.TableStrategy)
	require.Equal(t, "order_id", order.KeyGenerate.Column)
	require.Equal(t, "", order.KeyGenerate.GeneratorName)
	require.Equal(t, "SNOWFLAKE", order.KeyGenerate.Generator.Type)
	require.Nil(t, plain.KeyGenerate)
	require.Equal(t, []string{"t_dict", "t_region"}, cfg.Broadcast.Tables)
	require.Equal(t, &SingleRule{Pos: Pos{"t.yaml", 7, 3}}, cfg.Single)
}

// TestLoadWarnings: unused algorithms and global rules are accepted, as
// ShardingSphere accepts them, and reported as warnings; authority, which
// the proxy honours (its users and privilege), is accepted without one.
func TestLoadWarnings(t *testing.T) {
	cfg, err := Load("t.yaml", []byte(ds2+`transaction: {defaultType: LOCAL}
authority: {users: [{user: "root@%", password: secret}], privilege: {type: ALL_PERMITTED}}
rules:
- !SHARDING
  tables:
    t_order: {actualDataNodes: "ds_0.t_order"}
  shardingAlgorithms:
`+mod2+`  keyGenerators:
    snowflake: {type: SNOWFLAKE}
- !READWRITE_SPLITTING
  dataSourceGroups:
    rw: {writeDataSourceName: ds_1, readDataSourceNames: [ds_0]}
  loadBalancers:
    lb: {type: RANDOM}
`))
	require.NoError(t, err)
	require.EqualError(t, cfg.Warnings, `t.yaml:4:1: top level: transaction is a global rule that shardgen ignores
t.yaml:11:5: sharding algorithm "mod2" is defined but no strategy uses it
t.yaml:15:5: key generator "snowflake" is defined but no keyGenerateStrategy uses it
t.yaml:20:5: load balancer "lb" is defined but no group uses it`)
}

// TestLoadAliasBomb: a "billion laughs" file (merge keys that each merge
// ten copies of the level below) ends with an error, not with the memory or
// time exhausted.
func TestLoadAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("x0: &x0 {url: \"jdbc:mysql://h/d\"}\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x%d: &x%d {<<: [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*x%d", i-1)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("dataSources:\n  ds_0: *x9\n")
	_, err := Load("t.yaml", []byte(b.String()))
	require.ErrorContains(t, err, "too many YAML alias references (more than 10000)")
}

// TestLoadWarnsUnreachedTargets: a modulo that reaches fewer targets than
// the table has (MOD sharding-count 1 over two data sources; an inline
// expression over two of three actual tables) is accepted, as ShardingSphere
// accepts it, with a warning naming the targets no value reaches.
func TestLoadWarnsUnreachedTargets(t *testing.T) {
	cfg, err := Load("t.yaml", []byte(ds2+`rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order_${0..2}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod1}}
      tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: t_inline}}
    t_ok:
      actualDataNodes: ds_${0..1}.t_ok
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod2}}
  shardingAlgorithms:
`+mod2+`    mod1:
      type: MOD
      props: {sharding-count: 1}
    t_inline:
      type: INLINE
      props: {algorithm-expression: "t_order_${order_id % 2}"}
`))
	require.NoError(t, err)
	require.EqualError(t, cfg.Warnings, `t.yaml:9:85: tables.t_order: sharding algorithm "mod1" routes no value of user_id to data source ds_1: no row is ever written there, yet range queries read it; does its sharding count or expression match the 2 data sources it routes over?
t.yaml:10:83: tables.t_order: sharding algorithm "t_inline" routes no value of order_id to table t_order_2 of data source ds_0: no row is ever written there, yet range queries read it; does its sharding count or expression match the 3 tables it routes over?
t.yaml:10:83: tables.t_order: sharding algorithm "t_inline" routes no value of order_id to table t_order_2 of data source ds_1: no row is ever written there, yet range queries read it; does its sharding count or expression match the 3 tables it routes over?`)
}

// TestLoadWarnsValuesRoutedNowhere: a MOD whose sharding count exceeds its
// data sources (3 over ds_0, ds_1) routes some values to a data source
// that does not exist; ShardingSphere accepts the rule and fails such
// statements at run time, vet warns with the first such value.
func TestLoadWarnsValuesRoutedNowhere(t *testing.T) {
	cfg, err := Load("t.yaml", []byte(ds2+`rules:
- !SHARDING
  tables:
    t_user:
      actualDataNodes: ds_${0..1}.t_user
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod3}}
  shardingAlgorithms:
    mod3:
      type: MOD
      props: {sharding-count: 3}
`))
	require.NoError(t, err)
	require.ErrorContains(t, cfg.Warnings, `tables.t_user: sharding algorithm "mod3" routes user_id = 2 to none of the 2 data sources (ds_0, ds_1): `)
	require.ErrorContains(t, cfg.Warnings, "every statement with such a value fails; does its sharding count match the data sources?")
}
