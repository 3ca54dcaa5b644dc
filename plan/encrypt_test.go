package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

const encRules = `databaseName: shop
dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    t_user:
      actualDataNodes: ds_${0..1}.t_user
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_mod}}
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 2}}
- !ENCRYPT
  tables:
    t_user:
      columns:
        mobile:
          cipher: {name: mobile_cipher, encryptorName: aes}
          assistedQuery: {name: mobile_md5, encryptorName: md5}
          likeQuery: {name: mobile_like, encryptorName: like}
        email:
          cipher: {name: email_cipher, encryptorName: aes}
  encryptors:
    aes: {type: AES, props: {aes-key-value: "${env:SHOP_AES_KEY:-123456abc}", digest-algorithm-name: SHA-1}}
    md5: {type: MD5, props: {salt: s}}
    like: {type: CHAR_DIGEST_LIKE}
`

const encDDL = `CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL,
  mobile_cipher VARCHAR(128), mobile_md5 VARCHAR(64), mobile_like VARCHAR(64), email_cipher VARCHAR(256))`

func encBuilder(t *testing.T) *plan.Builder {
	cfg, err := schema.Load("enc.yaml", []byte(encRules))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("enc.sql", []byte(encDDL))
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	return b
}

// TestEncryptRewrite: the application writes logic columns; every unit's SQL
// names physical ones, and each placeholder is bound to its parameter and
// encryptor (ShardingSphere's encrypt rewrite, spec §5.D).
func TestEncryptRewrite(t *testing.T) {
	b := encBuilder(t)
	tests := []struct {
		cmd, sql, unit0, nodeArgs string
	}{
		{":exec", "INSERT INTO t_user (user_id, name, mobile, email) VALUES (?, ?, ?, ?)",
			"insert into t_user(user_id, `name`, mobile_cipher, mobile_md5, mobile_like, email_cipher) values (?, ?, ?, ?, ?, ?)",
			`[{"param":0},{"param":1},{"param":2,"encrypt":"aes"},{"param":2,"encrypt":"md5"},{"param":2,"encrypt":"like"},{"param":3,"encrypt":"aes"}]`},
		{":one", "SELECT name, mobile, email AS mail FROM t_user WHERE user_id = ? AND mobile = ?",
			"select `name`, mobile_cipher as mobile, email_cipher as mail from t_user where user_id = ? and mobile_md5 = ?",
			`[{"param":0},{"param":1,"encrypt":"md5"}]`},
		{":many", "SELECT * FROM t_user WHERE user_id = ? AND mobile LIKE ? AND email IS NULL",
			"select t_user.user_id, t_user.`name`, t_user.mobile_cipher as mobile, t_user.email_cipher as email from t_user where user_id = ? and mobile_like like ? and email_cipher is null",
			`[{"param":0},{"param":1,"encrypt":"like"}]`},
		{":execrows", "UPDATE t_user SET email = ?, name = ?, mobile = ? WHERE user_id = ? AND email IN (?, 'x@y')",
			"update t_user set email_cipher = ?, `name` = ?, mobile_cipher = ?, mobile_md5 = ?, mobile_like = ? where user_id = ? and email_cipher in (?, ?)",
			`[{"param":0,"encrypt":"aes"},{"param":1},{"param":2,"encrypt":"aes"},{"param":2,"encrypt":"md5"},{"param":2,"encrypt":"like"},{"param":3},{"param":4,"encrypt":"aes"},{"param":-1,"encrypt":"aes","literal":{"Kind":"String","Int":0,"Str":"x@y","Time":"0001-01-01T00:00:00Z"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			p, err := build(t, b, tt.cmd, tt.sql)
			require.NoError(t, err)
			require.Equal(t, tt.unit0, p.Route.Units[0].SQL)
			js, err := json.Marshal(p.NodeArgs)
			require.NoError(t, err)
			require.JSONEq(t, tt.nodeArgs, string(js))
		})
	}
	p, err := build(t, b, ":one", "SELECT name, mobile, email AS mail FROM t_user WHERE user_id = ?")
	require.NoError(t, err)
	require.Equal(t, "", p.Columns[0].Decrypt)
	require.Equal(t, "aes", p.Columns[1].Decrypt)
	require.Equal(t, "aes", p.Columns[2].Decrypt)
	p, err = build(t, b, ":one", "SELECT name FROM t_user WHERE user_id = ? AND mobile = ?")
	require.NoError(t, err)
	require.Equal(t, "string", p.Params[1].Type.String()) // a logic column's value
}

func TestEncryptRefusals(t *testing.T) {
	b := encBuilder(t)
	tests := []struct{ sql, err string }{
		{"SELECT name FROM t_user WHERE user_id = ? AND mobile > ?",
			`q.sql:2:47: query "Q": encrypted column "mobile" cannot be compared with >: its cipher text does not keep the order of the values`},
		{"SELECT name FROM t_user WHERE user_id = ? AND email LIKE ?",
			`q.sql:2:47: query "Q": LIKE on encrypted column "email" needs a like-query column (likeQuery) in its !ENCRYPT rule`},
		{"SELECT name FROM t_user WHERE user_id = ? ORDER BY mobile",
			`q.sql:2:52: query "Q": encrypted column "mobile" cannot be used in ORDER BY: only projections, =, <>, IN, IS [NOT] NULL and LIKE (with a like-query column) work on cipher text`},
	}
	for _, tt := range tests {
		_, err := build(t, b, ":many", tt.sql)
		require.EqualError(t, err, tt.err, tt.sql)
	}
}
