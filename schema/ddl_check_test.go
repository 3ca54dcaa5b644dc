package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ddlCheckSQL is the DDL of the CheckDDL tests, in the file "s.sql".
const ddlCheckSQL = `CREATE TABLE t_order (order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, status VARCHAR(20), PRIMARY KEY (order_id));
CREATE TABLE t_order_item (item_id BIGINT NOT NULL, order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, PRIMARY KEY (item_id));
CREATE TABLE t_auto (id BIGINT PRIMARY KEY, v INT);
CREATE TABLE t_dict (code CHAR(2) PRIMARY KEY, label VARCHAR(50));
CREATE TABLE t_config (k VARCHAR(64) PRIMARY KEY, v TEXT);
CREATE TABLE t_user (user_id BIGINT PRIMARY KEY, username VARCHAR(255), username_assisted VARCHAR(64), username_like VARCHAR(255),
  pwd VARCHAR(64), pwd_cipher VARCHAR(255), phone_cipher VARCHAR(255));
`

// y is a position in the rules file "r.yaml".
func ruleAt(line, col int) Pos { return Pos{File: "r.yaml", Line: line, Col: col} }

func ddlCheckTables(t *testing.T) []*Table {
	t.Helper()
	tables, err := ParseDDL("s.sql", []byte(ddlCheckSQL))
	require.NoError(t, err)
	return tables
}

// ddlGoodConfig is a hand-built Config whose rules all match ddlCheckSQL.
func ddlGoodConfig() *Config {
	defTable := &Strategy{Kind: StrategyStandard, Columns: []string{"order_id"}, AlgorithmName: "t_mod", Pos: ruleAt(30, 5)}
	defKey := &KeyGenerateStrategy{Column: "order_id", GeneratorName: "snowflake", Pos: ruleAt(32, 5)}
	return &Config{
		File: "r.yaml",
		Sharding: &ShardingRule{
			Pos: ruleAt(2, 3),
			Tables: []*TableRule{
				{
					LogicTable:       "t_order",
					DatabaseStrategy: &Strategy{Kind: StrategyStandard, Columns: []string{"USER_ID"}, Pos: ruleAt(6, 9)},
					TableStrategy:    defTable,
					KeyGenerate:      &KeyGenerateStrategy{Column: "order_id", Pos: ruleAt(8, 9)},
					Pos:              ruleAt(4, 5),
				},
				{
					LogicTable:       "T_Order_Item",
					DatabaseStrategy: &Strategy{Kind: StrategyComplex, Columns: []string{"user_id", "order_id"}, Pos: ruleAt(11, 9)},
					TableStrategy:    &Strategy{Kind: StrategyHint, Pos: ruleAt(12, 9)},
					KeyGenerate:      &KeyGenerateStrategy{Column: "item_id", Pos: ruleAt(13, 9)},
					Pos:              ruleAt(10, 5),
				},
				{
					LogicTable:    "t_auto",
					TableStrategy: &Strategy{Kind: StrategyStandard, Pos: ruleAt(16, 9)}, // defaultShardingColumn
					KeyGenerate:   &KeyGenerateStrategy{Column: "id", Pos: ruleAt(17, 9)},
					Auto:          true,
					Pos:           ruleAt(15, 5),
				},
			},
			DefaultTableStrategy:  defTable,
			DefaultKeyGenerate:    defKey,
			DefaultShardingColumn: "id",
		},
		Broadcast: &BroadcastRule{Tables: []string{"t_dict"}, Pos: ruleAt(40, 3)},
		Single:    &SingleRule{Tables: []string{"ds_0.t_config", "ds_1.*", "*.*"}, Pos: ruleAt(44, 3)},
		Encrypt: &EncryptRule{
			Pos: ruleAt(50, 3),
			Tables: []*EncryptTable{{
				Name: "t_user",
				Pos:  ruleAt(52, 5),
				Columns: []*EncryptColumn{
					{ // 5.4+: the cipher column carries the logic name
						Name:          "username",
						Cipher:        EncryptDerived{Column: "username", Encryptor: "aes", Pos: ruleAt(55, 11)},
						AssistedQuery: &EncryptDerived{Column: "username_assisted", Encryptor: "md5", Pos: ruleAt(56, 11)},
						LikeQuery:     &EncryptDerived{Column: "username_like", Encryptor: "like", Pos: ruleAt(57, 11)},
						Pos:           ruleAt(54, 9),
					},
					{ // 5.1: the plain column carries the logic name
						Name:   "pwd",
						Cipher: EncryptDerived{Column: "pwd_cipher", Encryptor: "aes", Pos: ruleAt(59, 11)},
						Plain:  "pwd",
						Pos:    ruleAt(58, 9),
					},
					{
						Name:   "phone",
						Cipher: EncryptDerived{Column: "phone_cipher", Encryptor: "aes", Pos: ruleAt(61, 11)},
						Pos:    ruleAt(60, 9),
					},
				},
			}},
		},
	}
}

func TestCheckDDL(t *testing.T) {
	tables := ddlCheckTables(t)
	cfg := ddlGoodConfig()
	require.NoError(t, CheckDDL(cfg, tables))
	require.Len(t, cfg.Tables, len(tables))
	for _, tb := range tables {
		require.Same(t, tb, cfg.Tables[tb.Name])
	}

	// No rules at all: every table is attached, nothing to check.
	empty := &Config{}
	require.NoError(t, CheckDDL(empty, tables))
	require.Same(t, tables[0], empty.Tables["t_order"])
}

func TestCheckDDLErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tables func(t *testing.T) []*Table
		edit   func(cfg *Config)
		err    string
	}{
		{
			name: "missing tables",
			edit: func(cfg *Config) {
				cfg.Sharding.Tables = append(cfg.Sharding.Tables, &TableRule{LogicTable: "t_payment", Pos: ruleAt(20, 5)})
				cfg.Broadcast.Tables = append(cfg.Broadcast.Tables, "t_region", "t_dict")
				cfg.Single.Tables = append(cfg.Single.Tables, "ds_0.t_log")
				cfg.Encrypt.Tables = append(cfg.Encrypt.Tables, &EncryptTable{Name: "t_card", Pos: ruleAt(62, 5)})
			},
			err: `r.yaml:20:5: sharding table "t_payment" has no CREATE TABLE; add one, named with the logic table name, to a DDL file
r.yaml:40:3: broadcast table "t_region" has no CREATE TABLE; add one to a DDL file
r.yaml:44:3: single table "t_log" ("ds_0.t_log") has no CREATE TABLE; add one to a DDL file
r.yaml:62:5: encrypt table "t_card" has no CREATE TABLE; add the physical table, with its cipher columns, to a DDL file`,
		},
		{
			name: "sharding columns of own and default strategies",
			edit: func(cfg *Config) {
				s := cfg.Sharding
				s.Tables[0].DatabaseStrategy.Columns = []string{"uid"}
				s.DefaultTableStrategy.Columns = []string{"oid"} // t_order's table strategy
				s.Tables[1].DatabaseStrategy.Columns = []string{"user_id", "tenant_id", "region"}
				s.DefaultShardingColumn = "account_id" // t_auto's shardingStrategy
				// t_order_item inherits the default table strategy as a copy.
				s.Tables[1].TableStrategy = &Strategy{Kind: StrategyStandard, Columns: []string{"oid"}, Pos: ruleAt(30, 5)}
			},
			err: `r.yaml:6:9: sharding column "uid" of table "t_order" (databaseStrategy) is not a column of its CREATE TABLE (s.sql:1:1); fix shardingColumn or add the column to the table
r.yaml:11:9: sharding column "tenant_id" of table "T_Order_Item" (databaseStrategy shardingColumns) is not a column of its CREATE TABLE (s.sql:2:1); fix shardingColumns or add the column to the table
r.yaml:11:9: sharding column "region" of table "T_Order_Item" (databaseStrategy shardingColumns) is not a column of its CREATE TABLE (s.sql:2:1); fix shardingColumns or add the column to the table
r.yaml:16:9: defaultShardingColumn "account_id", used by the shardingStrategy of table "t_auto", is not a column of its CREATE TABLE (s.sql:3:1); set shardingColumn or add the column to the table
r.yaml:30:5: sharding column "oid" of table "t_order" (defaultTableStrategy) is not a column of its CREATE TABLE (s.sql:1:1); fix shardingColumn or add the column to the table
r.yaml:30:5: sharding column "oid" of table "T_Order_Item" (defaultTableStrategy) is not a column of its CREATE TABLE (s.sql:2:1); fix shardingColumn or add the column to the table`,
		},
		{
			name: "default database strategy, standard strategy without column and no default column",
			edit: func(cfg *Config) {
				s := cfg.Sharding
				s.DefaultDatabaseStrategy = &Strategy{Kind: StrategyStandard, Columns: []string{"tenant_id"}, Pos: ruleAt(28, 5)}
				s.Tables[2].DatabaseStrategy = s.DefaultDatabaseStrategy
				s.DefaultShardingColumn = "" // t_auto's strategy has no column: the loader reports that
			},
			err: `r.yaml:28:5: sharding column "tenant_id" of table "t_auto" (defaultDatabaseStrategy) is not a column of its CREATE TABLE (s.sql:3:1); fix shardingColumn or add the column to the table`,
		},
		{
			name: "key generate columns",
			edit: func(cfg *Config) {
				s := cfg.Sharding
				s.Tables[0].KeyGenerate.Column = "id"
				s.Tables[1].KeyGenerate = nil // the default: order_id, present
				s.Tables[2].KeyGenerate = nil // the default: order_id, missing
			},
			err: `r.yaml:8:9: keyGenerateStrategy column "id" of table "t_order" is not a column of its CREATE TABLE (s.sql:1:1); fix the column or add it to the table
r.yaml:32:5: defaultKeyGenerateStrategy column "order_id" of table "t_auto" is not a column of its CREATE TABLE (s.sql:3:1); fix the column or add it to the table`,
		},
		{
			name: "encrypt columns",
			edit: func(cfg *Config) {
				cols := cfg.Encrypt.Tables[0].Columns
				cols[0].Cipher.Column = "username_cipher"              // missing: the logic column username is derived (logic DDL)
				cols[0].LikeQuery.Column = "username_assisted"         // also the assisted query column
				cols[1].Plain = "pwd_plain"                            // missing, and pwd stays a physical column
				cols[2].AssistedQuery = &EncryptDerived{Column: "pwd"} // no position: the column's; pwd is pwd's logic name
				cfg.Encrypt.Tables = append(cfg.Encrypt.Tables, &EncryptTable{
					Name: "T_ORDER", Pos: ruleAt(63, 5),
					Columns: []*EncryptColumn{{Name: "note", Cipher: EncryptDerived{Column: "status", Pos: ruleAt(65, 11)}, Pos: ruleAt(64, 9)}},
				})
			},
			err: `r.yaml:57:11: column "username_assisted" of table "t_user" is both the assisted query column of "username" and the like query column of "username"; give each purpose its own physical column
r.yaml:58:9: plain column "pwd_plain" of encrypt column "pwd" (table "t_user") is not a column of its CREATE TABLE (s.sql:6:1); the DDL describes the physical table, so add the column or fix the rule
r.yaml:58:9: logic column "pwd" of encrypt table "t_user" is also a column of its CREATE TABLE (s.sql:6:1); the DDL describes the physical table, where only the column's own cipher column (or 5.1 plainColumn) may carry the logic name: rename the physical column or the logic column`,
		},
		{
			name: "duplicate table across DDL files",
			tables: func(t *testing.T) []*Table {
				more, err := ParseDDL("more.sql", []byte("-- again\ncreate table T_DICT (code char(2));"))
				require.NoError(t, err)
				return append(ddlCheckTables(t), more...)
			},
			err: `more.sql:2:1: table "T_DICT" is already defined at s.sql:4:1 (table names compare case-insensitively); remove one CREATE TABLE`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tables := ddlCheckTables(t)
			if tc.tables != nil {
				tables = tc.tables(t)
			}
			cfg := ddlGoodConfig()
			if tc.edit != nil {
				tc.edit(cfg)
			}
			require.EqualError(t, CheckDDL(cfg, tables), tc.err)
		})
	}
}
