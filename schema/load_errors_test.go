package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ds2 is the dataSources block most malformed-input cases start with; it
// takes lines 1-3, so a case's own YAML starts on line 4.
const ds2 = `dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:3306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:3306/ds_1"}
`

// mod2 is a MOD algorithm block (4 lines) to append under shardingAlgorithms.
const mod2 = `    mod2:
      type: MOD
      props: {sharding-count: 2}
`

// loadErrorCases are malformed inputs with the exact errors Load reports.
// FuzzLoad is seeded from them.
var loadErrorCases = []struct {
	name string
	yaml string
	err  string
}{
	{"unknown top-level key", ds2 + `databaseNme: x
`, `t.yaml:4:1: top level: unknown key "databaseNme", did you mean "databaseName"? (allowed: databaseName, schemaName, mode, dataSources, rules, props, authority, transaction, sqlParser, sqlFederation, sqlTranslator, traffic, logging, globalClock)`},
	{"typo in strategy key", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy:
        standard:
          shardingColum: user_id
          shardingAlgorithmName: mod2
  shardingAlgorithms:
` + mod2, `t.yaml:11:11: tables.t_order.databaseStrategy.standard: unknown key "shardingColum", did you mean "shardingColumn"? (allowed: shardingColumn, shardingAlgorithmName)`},
	{"duplicate key", ds2 + `rules:
- !SHARDING
  tables:
    t_order: {}
    t_order: {}
`, `t.yaml:8:5: tables: duplicate key "t_order" (first at line 7)`},
	{"duplicate logic table in other case", ds2 + `rules:
- !SHARDING
  tables:
    t_order: {}
  autoTables:
    T_ORDER:
      shardingStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: mod2}}
  shardingAlgorithms:
` + mod2, `t.yaml:9:5: autoTables.T_ORDER: logic table "T_ORDER" is already defined at line 7 (logic table names are case-insensitive)`},
	{"tables is a list", ds2 + `rules:
- !SHARDING
  tables:
    - t_order
`, `t.yaml:7:5: tables must be a mapping, got a sequence`},
	{"mask rule unsupported", ds2 + `rules:
- !MASK
  tables: {}
`, `t.yaml:5:3: rule !MASK is not supported by shardgen`},
	{"unknown rule tag", ds2 + `rules:
- !SHARDNG {}
`, `t.yaml:5:3: unknown rule tag !SHARDNG (known: !SHARDING, !BROADCAST, !SINGLE, !ENCRYPT, !READWRITE_SPLITTING)`},
	{"untagged rule", ds2 + `rules:
- tables: {}
`, `t.yaml:5:3: rules: a rule must start with its tag, one of !SHARDING, !BROADCAST, !SINGLE, !ENCRYPT, !READWRITE_SPLITTING`},
	{"rule given twice", ds2 + `rules:
- !BROADCAST {tables: [a]}
- !BROADCAST {tables: [b]}
`, `t.yaml:6:3: rule !BROADCAST is given twice (first at line 5)`},
	{"undefined algorithm", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod_2}}
  shardingAlgorithms:
` + mod2, `t.yaml:9:85: tables.t_order.databaseStrategy: sharding algorithm "mod_2" is not defined in shardingAlgorithms, did you mean "mod2"?`},
	{"unknown algorithm type", ds2 + `rules:
- !SHARDING
  shardingAlgorithms:
    x: {type: MODULO}
`, `t.yaml:7:15: sharding algorithm "x": unknown sharding algorithm type "MODULO" (known: MOD, HASH_MOD, VOLUME_RANGE, BOUNDARY_RANGE, AUTO_INTERVAL, INTERVAL, INLINE, COMPLEX_INLINE, HINT_INLINE, CLASS_BASED)`},
	{"missing algorithm prop", ds2 + `rules:
- !SHARDING
  shardingAlgorithms:
    x: {type: MOD}
`, `t.yaml:7:15: sharding algorithm "x": property "sharding-count" is required`},
	{"bad algorithm prop", ds2 + `rules:
- !SHARDING
  shardingAlgorithms:
    x:
      type: MOD
      props:
        sharding-count: -4
`, `t.yaml:10:9: sharding algorithm "x": property "sharding-count" must be a positive integer, got -4`},
	{"undefined data source in data nodes", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..2}.t_order
`, `t.yaml:8:24: tables.t_order.actualDataNodes: data source "ds_2" of data node "ds_2.t_order" is not defined (defined: ds_0, ds_1)`},
	{"malformed inline expression", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1.t_order
`, `t.yaml:8:27: tables.t_order.actualDataNodes: unterminated placeholder "${" at offset 3: no "}" closes it (unsupported property "t_order" at offset 10)`},
	{"data node without table", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_0
`, `t.yaml:8:24: tables.t_order.actualDataNodes: "ds_0" is not a data node <data source>.<table>`},
	{"binding group with unknown table", ds2 + `rules:
- !SHARDING
  tables:
    t_order: {actualDataNodes: "ds_${0..1}.t_order"}
  bindingTables:
    - t_order, t_order_itme
`, `t.yaml:9:16: bindingTables: "t_order_itme" is not a sharding table (tables or autoTables)`},
	{"binding group with different layouts", ds2 + `rules:
- !SHARDING
  tables:
    t_order: {actualDataNodes: "ds_${0..1}.t_order"}
    t_item: {actualDataNodes: "ds_0.t_item"}
  bindingTables: ["t_order, t_item"]
`, `t.yaml:9:19: bindingTables: "t_order" and "t_item" cannot be bound: "t_order" has 2 data nodes, "t_item" has 1`},
	{"standard strategy without column", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy: {standard: {shardingAlgorithmName: mod2}}
  shardingAlgorithms:
` + mod2, `t.yaml:9:26: tables.t_order.databaseStrategy.standard: shardingColumn is required (no defaultShardingColumn is set)`},
	{"undefined key generator", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      keyGenerateStrategy: {column: id, keyGeneratorName: snowflak}
  keyGenerators:
    snowflake: {type: SNOWFLAKE}
`, `t.yaml:8:59: tables.t_order.keyGenerateStrategy: key generator "snowflak" is not defined in keyGenerators, did you mean "snowflake"?`},
	{"broadcast table also sharded", ds2 + `rules:
- !SHARDING
  tables:
    t_dict: {}
- !BROADCAST
  tables: [T_DICT]
`, `t.yaml:9:12: broadcast table "T_DICT" is also a sharding table (tables.t_dict, line 7)`},
	{"complex strategy with a standard algorithm", ds2 + `rules:
- !SHARDING
  defaultDatabaseStrategy:
    complex: {shardingColumns: "a, b", shardingAlgorithmName: mod2}
  shardingAlgorithms:
` + mod2, `t.yaml:7:63: defaultDatabaseStrategy: a complex strategy needs a complex sharding algorithm, but "mod2" is MOD`},
	{"table strategy without data nodes", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: mod2}}
  shardingAlgorithms:
` + mod2, `t.yaml:7:5: tables.t_order: actualDataNodes is required when tableStrategy is set (ShardingSphere: missing required data nodes)`},
	{"data source without url", `dataSources:
  ds_0: {username: root}
`, `t.yaml:2:9: dataSources.ds_0: one of url, jdbcUrl or dsn is required`},
	{"both url and jdbcUrl", `dataSources:
  ds_0: {url: "jdbc:mysql://h/d", jdbcUrl: "jdbc:mysql://h/d"}
`, `t.yaml:2:35: dataSources.ds_0: give one of url, jdbcUrl or dsn, not both url and jdbcUrl`},
	{"bad environment reference", `dataSources:
  ds_0: {url: "jdbc:mysql://h/d", password: "${env:DB PASS}"}
`, `t.yaml:2:45: dataSources.ds_0: password: ${env:DB PASS}: invalid environment variable name "DB PASS" (want a letter or '_' followed by letters, digits or '_')`},
	{"bad props", ds2 + `props:
  sql-show: yes
  max-connections-size-per-query: 0
  kernel-executor-size: -1
`, `t.yaml:5:13: props: sql-show must be true or false, got "yes"
t.yaml:6:35: props: max-connections-size-per-query must be an integer ≥ 1, got "0"
t.yaml:7:25: props: kernel-executor-size must be an integer ≥ 0, got "-1"`},
	{"no data sources", `rules: []
`, `t.yaml:1:1: top level: dataSources is required`},
	{"yaml syntax error", `dataSources: [
`, `t.yaml:1: invalid YAML: did not find expected node content`},
	// yaml.v3 numbers the start of the enclosing construct, from 0 for
	// parser errors; these are reported at the line to fix.
	{"yaml: unclosed flow sequence", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: [ds_${0..1}.t_order
      tableStrategy: {none: {}}
`, `t.yaml:8: invalid YAML: did not find expected ',' or ']'`},
	{"yaml: unclosed flow mapping", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      tableStrategy: {none: {}
      actualDataNodes: ds_${0..1}.t_order
`, `t.yaml:8: invalid YAML: did not find expected ',' or '}'`},
	{"yaml: bad indentation", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
     tableStrategy: {none: {}}
`, `t.yaml:9: invalid YAML: did not find expected key`},
	{"yaml: tab indentation", ds2 + `props:
  sql-show: true
` + "\tkernel-executor-size: 2\n", `t.yaml:6: invalid YAML: found a tab character that violates indentation`},
	{"yaml: unclosed quote", ds2 + `props:
  sql-show: "true
  kernel-executor-size: 2
`, `t.yaml:5: invalid YAML: found unexpected end of stream`},
	{"yaml: undefined alias", ds2 + `props:
  sql-show: *show
`, `t.yaml:5: invalid YAML: unknown anchor 'show' referenced`},
	{"yaml: duplicate key", ds2 + `props:
  sql-show: true
  sql-show: false
`, `t.yaml:6:3: props: duplicate key "sql-show" (first at line 5)`},
	{"encrypt: undefined encryptor and AES without key", ds2 + `rules:
- !ENCRYPT
  tables:
    t_user:
      columns:
        pwd:
          cipher: {name: pwd_cipher, encryptorName: aes}
  encryptors:
    aes_enc: {type: AES}
`, `t.yaml:10:53: !ENCRYPT tables.t_user.columns.pwd.cipher: encryptor "aes" is not defined in encryptors
t.yaml:12:21: encryptor "aes_enc": AES needs props aes-key-value`},
	{"encrypt: MD5 with unknown prop", ds2 + `rules:
- !ENCRYPT
  tables:
    t_user:
      columns:
        pwd: {cipherColumn: pwd_cipher, encryptorName: md5}
  encryptors:
    md5: {type: MD5, props: {sat: x}}
`, `t.yaml:11:30: encryptor "md5": unknown MD5 prop "sat", did you mean "salt"? (known: salt)`},
	{"readwrite: undefined read data source", `dataSources:
  primary: {url: "jdbc:mysql://h/p"}
  replica: {url: "jdbc:mysql://h/r"}
rules:
- !READWRITE_SPLITTING
  dataSourceGroups:
    rw:
      writeDataSourceName: primary
      readDataSourceNames: [replica, replica_1]
      transactionalReadQueryStrategy: SOMETIMES
`, `t.yaml:9:28: dataSourceGroups.rw: read data source "replica_1" is not defined in dataSources
t.yaml:10:39: dataSourceGroups.rw: transactionalReadQueryStrategy must be one of PRIMARY, FIXED, DYNAMIC, got "SOMETIMES"`},
	{"readwrite: weight names a non-read data source", `dataSources:
  primary: {url: "jdbc:mysql://h/p"}
  replica: {url: "jdbc:mysql://h/r"}
rules:
- !READWRITE_SPLITTING
  dataSourceGroups:
    rw:
      writeDataSourceName: primary
      readDataSourceNames: [replica]
      loadBalancerName: w
  loadBalancers:
    w: {type: WEIGHT, props: {replica: 1, primary: heavy}}
`, `t.yaml:12:43: load balancer "w": "primary" is not a read data source of group "rw" (read: replica)
t.yaml:12:52: load balancer "w": weight of "primary" must be a number, got "heavy"`},
	{"single: bad entries", ds2 + `rules:
- !SINGLE
  tables: ["ds_0.t", "ds_9.*", "*.t", "t"]
  defaultDataSource: ds_2
`, `t.yaml:6:23: !SINGLE tables: data source "ds_9" of "ds_9.*" is not defined (defined: ds_0, ds_1)
t.yaml:6:33: !SINGLE tables: "*.t": a table on every data source is written *.*; name one data source for one table
t.yaml:6:40: !SINGLE tables: "t" must be <data source>.<table>, <data source>.* or *.*
t.yaml:7:22: !SINGLE defaultDataSource: data source "ds_2" is not defined (defined: ds_0, ds_1)`},
	{"auto table with complex strategy", ds2 + `rules:
- !SHARDING
  autoTables:
    t_auto:
      shardingStrategy: {complex: {shardingColumns: a, shardingAlgorithmName: mod2}}
  shardingAlgorithms:
` + mod2, `t.yaml:8:26: autoTables.t_auto.shardingStrategy: an auto table needs a standard strategy, got complex`},
	{"wrong node kinds", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: [ds_0.t_order]
      keyGenerateStrategy: snowflake
  bindingTables: t_order
`, `t.yaml:8:24: tables.t_order: actualDataNodes must be a single value, got a sequence
t.yaml:9:28: tables.t_order.keyGenerateStrategy must be a mapping, got "snowflake"
t.yaml:10:18: bindingTables must be a list, got "t_order"`},
	{"own strategy cannot bind", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order_${0..1}
      tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: t_inline}}
  shardingAlgorithms:
    t_inline: {type: INLINE, props: {algorithm-expression: "t_order_${id % 2}"}}
`, `t.yaml:9:83: tables.t_order: sharding algorithm "t_inline" cannot route over tables t_order_0, t_order_1 of data source ds_0: property "algorithm-expression" "t_order_${id % 2}" reads "id" at offset 10, but the sharding column is "order_id"`},
	{"inherited strategy does not match the data nodes", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
  defaultDatabaseStrategy:
    standard: {shardingColumn: user_id, shardingAlgorithmName: db_inline}
  shardingAlgorithms:
    db_inline: {type: INLINE, props: {algorithm-expression: "db_${user_id % 2}"}}
`, `t.yaml:7:5: tables.t_order: sharding algorithm "db_inline" (from defaultDatabaseStrategy) does not match the data nodes: for user_id = 1 it gives data source "db_1", which does not start with "ds_"`},
	{"inline expression routes nowhere (stray brace)", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_inline}}
  shardingAlgorithms:
    db_inline: {type: INLINE, props: {algorithm-expression: "ds_${user_id % 2}}"}}
`, `t.yaml:9:85: tables.t_order: sharding algorithm "db_inline" routes no value of user_id 0..15 to a data source of the table (e.g. it gives "ds_0}")`},
	{"inline expression divides by zero", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_inline}}
  shardingAlgorithms:
    db_inline: {type: INLINE, props: {algorithm-expression: "ds_${user_id % 0}"}}
`, `t.yaml:9:85: tables.t_order: sharding algorithm "db_inline" cannot route any value of user_id: division by zero at offset 13`},
	{"range algorithm with inverted bounds", ds2 + `rules:
- !SHARDING
  shardingAlgorithms:
    range:
      type: VOLUME_RANGE
      props: {range-lower: 100, range-upper: 10, sharding-volume: 10}
`, `t.yaml:9:33: sharding algorithm "range": property "range-upper" must be greater than range-lower 100, got 10`},
	{"binding tables with different inline algorithms", ds2 + `rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order_${0..1}
      tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: a}}
    t_item:
      actualDataNodes: ds_${0..1}.t_item_${0..1}
      tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: b}}
  bindingTables: ["t_order, t_item"]
  shardingAlgorithms:
    a: {type: INLINE, props: {algorithm-expression: "t_order_${order_id % 2}"}}
    b: {type: INLINE, props: {algorithm-expression: "t_item_${(order_id + 1) % 2}"}}
`, `t.yaml:13:19: bindingTables: "t_order" and "t_item" cannot be bound: their table strategies shard differently (INLINE "t_order_${order_id % 2}" and INLINE "t_item_${(order_id + 1) % 2}")`},
	{"binding tables with other layouts", ds2 + `rules:
- !SHARDING
  tables:
    t_a: {actualDataNodes: "ds_${0..1}.t_a_${0..1}"}
    t_x: {actualDataNodes: "ds_1.t_x_${0..1},ds_0.t_x_${0..1}"}
    t_b: {actualDataNodes: "ds_${0..1}.t_b_${0..1}"}
    t_y: {actualDataNodes: "ds_${0..1}.t_y_${[0,2]}"}
    t_c: {actualDataNodes: "ds_${0..1}.t_c_${0..1}"}
    t_z: {actualDataNodes: "ds_0.t_z_${0..3}"}
  bindingTables: ["t_a, t_x", "t_b, t_y", "t_c,t_z", "t_a, t_b"]
`, `t.yaml:13:19: bindingTables: "t_a" and "t_x" cannot be bound: data node 0 is ds_0.t_a_0 and ds_1.t_x_0; binding tables need the same data source at every data node index
t.yaml:13:31: bindingTables: "t_b" and "t_y" cannot be bound: their actual tables on data source ds_0 have different suffixes (0, 1 and 0, 2)
t.yaml:13:43: bindingTables: "t_c" and "t_z" cannot be bound: they are on different data sources (ds_0, ds_1 and ds_0)
t.yaml:13:55: bindingTables: "t_a" is already in binding group "t_a, t_x" (line 13)
t.yaml:13:60: bindingTables: "t_b" is already in binding group "t_b, t_y" (line 13)`},
	{"errors from every rule, sorted", `props: {sql-show: maybe}
rules:
- !READWRITE_SPLITTING
  dataSourceGroups:
    rw: {writeDataSourceName: nowhere, readDataSourceNames: [ds_0]}
- !SHARDING
  tables:
    t_order: {actualDataNodes: "rw.t_order, ds_7.t_order"}
- !SINGLE
  tables: ["rw.t_single", "nowhere.t"]
- !ENCRYPT {tables: {t: {columns: {c: {cipher: {name: c_cipher, encryptorName: none}}}}}}
dataSources:
  ds_0: {dsn: "root@tcp(h)"}
`, `t.yaml:1:19: props: sql-show must be true or false, got "maybe"
t.yaml:5:31: dataSourceGroups.rw: write data source "nowhere" is not defined in dataSources
t.yaml:8:32: tables.t_order.actualDataNodes: data source "ds_7" of data node "ds_7.t_order" is not defined (defined: rw)
t.yaml:10:28: !SINGLE tables: data source "nowhere" of "nowhere.t" is not defined (defined: rw)
t.yaml:11:80: !ENCRYPT tables.t.columns.c.cipher: encryptor "none" is not defined in encryptors
t.yaml:13:15: dataSources.ds_0: dsn is not a go-sql-driver/mysql DSN (user:password@tcp(host:port)/db): invalid DSN: missing the slash separating the database name`},
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range loadErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load("t.yaml", []byte(tc.yaml))
			require.EqualError(t, err, tc.err)
			require.Nil(t, cfg)
		})
	}
}
