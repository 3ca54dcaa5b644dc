package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// vet runs `shardgen vet args...` and returns exit code, stdout and stderr.
func vet(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"vet"}, args...), nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func TestVetGood(t *testing.T) {
	code, out, errOut := vet(t, "-c", "../../schema/testdata/rules/sharding-5.4.yaml")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	require.Equal(t, `../../schema/testdata/rules/sharding-5.4.yaml: database sharding_db, 5 data source(s): ds_0, ds_1, primary_ds_2, replica_ds_2_0, replica_ds_2_1
sharding tables (4):
  t_order: 6 data node(s): ds_0.t_order_0, ds_0.t_order_1, ds_1.t_order_0, ..., ds_2.t_order_1
    database strategy: standard on user_id, database_mod (MOD)
    table strategy: standard on order_id, t_order_inline (INLINE)
    key generate: order_id by snowflake (SNOWFLAKE)
    audit: sharding_key_required_auditor (hint may disable: false)
  t_order_item: 6 data node(s): ds_0.t_order_item_0, ds_0.t_order_item_1, ds_1.t_order_item_0, ..., ds_2.t_order_item_1
    database strategy: standard on user_id, database_mod (MOD)
    table strategy: standard on order_id, t_order_item_inline (INLINE)
    key generate: id by uuid (UUID)
    audit: sharding_key_required_auditor (hint may disable: true)
  t_user_log: 3 data node(s): ds_2.t_user_log, ds_0.t_user_log, ds_1.t_user_log
    database strategy: hint, user_hint (HINT_INLINE)
    table strategy: none
    key generate: id by uuid (UUID)
    audit: sharding_key_required_auditor (hint may disable: true)
  t_account: 4 data node(s), auto: ds_0.t_account_0, ds_1.t_account_1, ds_0.t_account_2, ds_1.t_account_3
    database strategy: none
    table strategy: standard on account_id, account_hash (HASH_MOD)
    key generate: id by uuid (UUID)
    audit: sharding_key_required_auditor (hint may disable: true)
binding groups:
  order_ref: t_order, t_order_item
broadcast tables: t_address, t_dict
single tables: ds_0.*, ds_2.t_config (default data source ds_0)
encrypt:
  t_user.username: cipher username_cipher by aes_encryptor (AES), assisted query username_assisted by md5_encryptor (MD5)
read/write splitting:
  ds_2: write primary_ds_2, read replica_ds_2_0, replica_ds_2_1, load balancer weight_lb (WEIGHT), transactional reads PRIMARY
`, out)
}

func TestVet51(t *testing.T) {
	code, out, errOut := vet(t, "-c", "../../schema/testdata/rules/sharding-5.1.yaml")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "  t_order: 4 data node(s): rw_ds_0.t_order_0, rw_ds_0.t_order_1, rw_ds_1.t_order_0, rw_ds_1.t_order_1\n")
	require.Contains(t, out, "  t_user.user_name: cipher user_name_cipher by aes_encryptor (AES), plain user_name_plain\n")
	require.Contains(t, out, "  rw_ds_0: write write_ds_0, read read_ds_0, load balancer round_robin (ROUND_ROBIN), transactional reads PRIMARY\n")
}

func TestVetBad(t *testing.T) {
	path := writeFile(t, "rules.yaml", `dataSources:
  ds_0: {url: "jdbc:mysql://h:3306/d0"}
rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy:
        standard: {shardingColum: user_id, shardingAlgorithmName: mod2}
  shardingAlgorithms:
    mod2: {type: MOD, props: {sharding-count: 2}}
- !MASK {}
`)
	code, out, errOut := vet(t, "-c", path)
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, path+`:7:24: tables.t_order.actualDataNodes: data source "ds_1" of data node "ds_1.t_order" is not defined (defined: ds_0)
`+path+`:9:20: tables.t_order.databaseStrategy.standard: unknown key "shardingColum", did you mean "shardingColumn"? (allowed: shardingColumn, shardingAlgorithmName)
`+path+`:12:3: rule !MASK is not supported by shardgen
`, errOut)
}

func TestVetWarnings(t *testing.T) {
	path := writeFile(t, "rules.yaml", `dataSources:
  ds_0: {url: "jdbc:mysql://h:3306/d0"}
rules:
- !SHARDING
  keyGenerators:
    snowflake: {type: SNOWFLAKE}
`)
	code, out, errOut := vet(t, "-c", path)
	require.Equal(t, 0, code)
	require.Equal(t, path+`:6:5: warning: key generator "snowflake" is defined but no keyGenerateStrategy uses it
`, errOut)
	require.Equal(t, path+`: database logic_db, 1 data source(s): ds_0
sharding tables (0):
`, out)
}

func TestVetDDL(t *testing.T) {
	rules := writeFile(t, "rules.yaml", `dataSources:
  ds_0: {url: "jdbc:mysql://h:3306/d0"}
  ds_1: {url: "jdbc:mysql://h:3306/d1"}
rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod2}}
  shardingAlgorithms:
    mod2: {type: MOD, props: {sharding-count: 2}}
`)
	ddl := writeFile(t, "schema.sql", "CREATE TABLE t_order (order_id BIGINT PRIMARY KEY, user_id INT NOT NULL);\n")
	code, out, errOut := vet(t, "-c", rules, "--ddl", ddl)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "DDL: 1 table(s)\n")

	// The sharding column is missing from the DDL: CheckDDL reports it.
	noCol := writeFile(t, "nocol.sql", "CREATE TABLE t_order (order_id BIGINT PRIMARY KEY);\n")
	code, out, errOut = vet(t, "-c", rules, "--ddl", noCol)
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Contains(t, errOut, rules+`:9:26: sharding column "user_id" of table "t_order"`)

	bad := writeFile(t, "bad.sql", "CREATE TABLE (;\n")
	code, _, errOut = vet(t, "-c", rules, "--ddl", bad)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, bad+":1")
}

func TestVetUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-c"}, {"-c", "a.yaml", "extra"}, {"--nope"}} {
		code, out, errOut := vet(t, args...)
		require.Equal(t, 2, code, args)
		require.Empty(t, out)
		require.Contains(t, errOut, "usage: shardgen vet -c rules.yaml [--ddl schema.sql]...")
	}
	code, _, errOut := vet(t, "-c", "does-not-exist.yaml")
	require.Equal(t, 1, code)
	require.Equal(t, "open does-not-exist.yaml: no such file or directory\n", errOut)
}

// TestVetTablesInNoRule: vet says where a table in no rule goes: the only
// logic data source (a read/write group here), or, with several, nowhere
// (a warning: statements on it are refused).
func TestVetTablesInNoRule(t *testing.T) {
	ddl := writeFile(t, "schema.sql", "CREATE TABLE t_note (id BIGINT PRIMARY KEY);\nCREATE TABLE t_tag (id BIGINT PRIMARY KEY);\n")
	rw := writeFile(t, "rw.yaml", `dataSources:
  primary_ds: {url: "jdbc:mysql://h:3306/d0"}
  replica_ds: {url: "jdbc:mysql://h:3307/d0"}
rules:
- !READWRITE_SPLITTING
  dataSources:
    rw_ds: {staticStrategy: {writeDataSourceName: primary_ds, readDataSourceNames: [replica_ds]}}
`)
	code, out, errOut := vet(t, "-c", rw, "--ddl", ddl)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	require.Contains(t, out, "tables in no rule, on the only data source rw_ds (as ShardingSphere 5.1-5.3 route them): t_note, t_tag\n")

	two := writeFile(t, "two.yaml", `dataSources:
  ds_0: {url: "jdbc:mysql://h:3306/d0"}
  ds_1: {url: "jdbc:mysql://h:3306/d1"}
rules:
- !SINGLE
  tables: ["ds_1.t_tag"]
`)
	code, out, errOut = vet(t, "-c", two, "--ddl", ddl)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "tables in no rule")
	require.Equal(t, ddl+`:1:1: warning: table "t_note" is in no rule and there are several data sources: statements on it are refused; list it in !SINGLE (e.g. tables: ["ds_0.t_note"]) or !BROADCAST
`, errOut)
}

// TestVetTextShardingColumn: a character sharding column under a collation
// that equates spellings is warned about; one under _nopad_bin is not.
func TestVetTextShardingColumn(t *testing.T) {
	ddl := writeFile(t, "schema.sql", "CREATE TABLE t_tag (name VARCHAR(32) NOT NULL PRIMARY KEY);\nCREATE TABLE t_key (k VARCHAR(32) COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY);\n")
	rules := writeFile(t, "rules.yaml", `dataSources:
  ds_0: {url: "jdbc:mysql://h:3306/d0"}
  ds_1: {url: "jdbc:mysql://h:3306/d1"}
rules:
- !SHARDING
  tables:
    t_tag:
      actualDataNodes: ds_${0..1}.t_tag
      databaseStrategy: {standard: {shardingColumn: name, shardingAlgorithmName: h}}
    t_key:
      actualDataNodes: ds_${0..1}.t_key
      databaseStrategy: {standard: {shardingColumn: k, shardingAlgorithmName: h}}
  shardingAlgorithms:
    h: {type: HASH_MOD, props: {sharding-count: 2}}
`)
	code, _, errOut := vet(t, "-c", rules, "--ddl", ddl)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, ddl+`:1:21: warning: sharding column "name" of "t_tag" compares by the server's default collation, under which other spellings of a value are equal ('AB' = 'ab' when case-insensitive, 'é' = 'e' when accent-insensitive), but a row lives where its own spelling routes: write every value in one spelling, compare with BINARY name = ? (bytes), or give the column a _bin collation
`, errOut)
}
