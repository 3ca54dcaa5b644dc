package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

const encJoinRules = `databaseName: shop
dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    t_user:
      actualDataNodes: ds_${0..1}.t_user
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_mod}}
    t_order:
      actualDataNodes: ds_${0..1}.t_order
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_mod}}
    t_copy:
      actualDataNodes: ds_${0..1}.t_copy
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_mod}}
    t_acct:
      actualDataNodes: ds_${0..1}.t_acct
      databaseStrategy: {standard: {shardingColumn: acct_id, shardingAlgorithmName: db_mod2}}
  bindingTables: ["t_user, t_order, t_copy"]
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 2}}
    db_mod2: {type: INLINE, props: {algorithm-expression: 'ds_${acct_id % 2}'}}
- !ENCRYPT
  tables:
    t_user:
      columns:
        mobile:
          cipher: {name: mobile_cipher, encryptorName: aes}
          assistedQuery: {name: mobile_md5, encryptorName: md5}
        email:
          cipher: {name: email_cipher, encryptorName: aes}
    t_order:
      columns:
        mobile:
          cipher: {name: mobile_cipher, encryptorName: aes}
          assistedQuery: {name: mobile_md5, encryptorName: md5}
        note:
          cipher: {name: note_cipher, encryptorName: aes2}
    t_copy:
      columns:
        mobile:
          cipher: {name: mobile_cipher, encryptorName: aes}
          assistedQuery: {name: mobile_md5, encryptorName: md5}
  encryptors:
    aes: {type: AES, props: {aes-key-value: "123456abc", digest-algorithm-name: SHA-1}}
    aes2: {type: AES, props: {aes-key-value: "other", digest-algorithm-name: SHA-1}}
    md5: {type: MD5, props: {salt: s}}
`

const encJoinDDL = `CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL,
  mobile_cipher VARCHAR(128), mobile_md5 VARCHAR(64), email_cipher VARCHAR(256));
CREATE TABLE t_order (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, mobile_cipher VARCHAR(128), mobile_md5 VARCHAR(64), note_cipher VARCHAR(256));
CREATE TABLE t_acct (acct_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, label VARCHAR(20));
CREATE TABLE t_copy (user_id BIGINT NOT NULL PRIMARY KEY, mobile_cipher VARCHAR(128), mobile_md5 VARCHAR(64));
CREATE TABLE t_plain (id BIGINT NOT NULL PRIMARY KEY, mobile VARCHAR(20), note VARCHAR(20))`

// encJoinBuilder is the planner over t_user, t_order and t_copy (bound,
// encrypted alike), t_acct (another rule) and t_plain.
func encJoinBuilder(t *testing.T) *plan.Builder { return builderOf(t, encJoinRules, encJoinDDL) }

// TestEncryptAcrossTables: joins, UNIONs, subqueries and INSERT … SELECT
// over encrypted tables rewrite every level over physical columns (each
// column resolved in its own level) as ShardingSphere does, for query
// files as for the proxy; what cannot be exact is refused with the column
// and the reason.
func TestEncryptAcrossTables(t *testing.T) {
	b := encJoinBuilder(t)
	tests := []struct{ cmd, sql, unit0, nodeArgs string }{
		{":many", "SELECT u.name, u.mobile, o.order_id FROM t_user u JOIN t_order o ON u.user_id = o.user_id WHERE u.user_id = ? AND o.mobile = ?",
			"select u.`name`, u.mobile_cipher as mobile, o.order_id from t_user as u join t_order as o on u.user_id = o.user_id where u.user_id = ? and o.mobile_md5 = ?",
			`[{"param":0},{"param":1,"encrypt":"md5"}]`},
		{":many", "SELECT u.*, o.note FROM t_user u JOIN t_order o ON u.user_id = o.user_id AND u.mobile = o.mobile WHERE u.user_id = 1",
			"select u.user_id, u.`name`, u.mobile_cipher as mobile, u.email_cipher as email, o.note_cipher as note from t_user as u join t_order as o on u.user_id = o.user_id and u.mobile_md5 = o.mobile_md5 where u.user_id = 1", ""},
		{":many", "SELECT user_id, mobile FROM t_user WHERE user_id = 1 UNION ALL SELECT order_id, mobile FROM t_order WHERE user_id = 1",
			"select user_id, mobile_cipher as mobile from t_user where user_id = 1 union all select order_id, mobile_cipher as mobile from t_order where user_id = 1", ""},
		{":many", "SELECT name FROM t_user WHERE user_id = 1 AND user_id IN (SELECT user_id FROM t_order WHERE user_id = 1 AND mobile = ?)",
			"select `name` from t_user where user_id = 1 and user_id in (select user_id from t_order where user_id = 1 and mobile_md5 = ?)",
			`[{"param":0,"encrypt":"md5"}]`},
		{":many", "SELECT name FROM t_user WHERE user_id = 1 AND mobile IN (SELECT mobile FROM t_order WHERE user_id = 1)",
			"select `name` from t_user where user_id = 1 and mobile_md5 in (select mobile_md5 from t_order where user_id = 1)", ""},
		{":exec", "INSERT INTO t_copy (user_id, mobile) SELECT user_id, mobile FROM t_user WHERE user_id = ?",
			"insert into t_copy(user_id, mobile_cipher, mobile_md5) select user_id, mobile_cipher, mobile_md5 from t_user where user_id = ?",
			`[{"param":0}]`},
		{":exec", "INSERT INTO t_copy (user_id, mobile) SELECT user_id, ? FROM t_user WHERE user_id = ?",
			"insert into t_copy(user_id, mobile_cipher, mobile_md5) select user_id, ?, ? from t_user where user_id = ?",
			`[{"param":0,"encrypt":"aes"},{"param":0,"encrypt":"md5"},{"param":1}]`},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			p, err := build(t, b, tt.cmd, tt.sql)
			require.NoError(t, err)
			require.Equal(t, tt.unit0, p.Route.Units[0].SQL)
			if tt.nodeArgs != "" {
				js, err := json.Marshal(p.NodeArgs)
				require.NoError(t, err)
				require.JSONEq(t, tt.nodeArgs, string(js))
			}
		})
	}
	p, err := build(t, b, ":many", "SELECT user_id, mobile FROM t_user WHERE user_id = 1 UNION ALL SELECT order_id, mobile FROM t_order WHERE user_id = 1")
	require.NoError(t, err)
	require.Equal(t, "aes", p.Columns[1].Decrypt)

	refusals := []struct{ sql, err string }{
		{"SELECT user_id, mobile FROM t_user WHERE user_id = 1 UNION SELECT order_id, mobile FROM t_order WHERE user_id = 1",
			`UNION DISTINCT over encrypted column "mobile" would compare its cipher text, not its values: use UNION ALL`},
		{"SELECT user_id, mobile FROM t_user WHERE user_id = 1 UNION ALL SELECT order_id, note FROM t_order WHERE user_id = 1",
			`column 2 of the UNION is encrypted in one SELECT and not alike in another (SELECT 2: note): a result column decrypts one encryptor's cipher text; select the same encrypted column in every SELECT`},
		{"SELECT user_id, name FROM t_user WHERE user_id = 1 UNION ALL SELECT order_id, mobile FROM t_order WHERE user_id = 1",
			`column 2 of the UNION is encrypted in one SELECT and not alike in another (SELECT 2: mobile)`},
		{"SELECT u.name FROM t_user u JOIN t_order o ON u.user_id = o.user_id AND u.email = o.note WHERE u.user_id = 1",
			`encrypted columns u.email and o.note cannot be compared: their data nodes hold them through different encryptors (encryptor aes, encryptor aes2), so equal values have different stored text; compare each with a value instead`},
		{"SELECT u.name FROM t_user u JOIN t_order o ON u.user_id = o.user_id AND u.mobile > o.mobile WHERE u.user_id = 1",
			`encrypted columns "mobile" and "mobile" cannot be compared with >: their cipher text does not keep the order of the values`},
		{"SELECT name FROM t_user WHERE user_id = 1 AND user_id = (SELECT MAX(user_id) FROM t_order WHERE user_id = 1 AND email = mobile)",
			`encrypted columns email and mobile cannot be compared`},
		{"SELECT name FROM t_user WHERE user_id = 1 AND email IN (SELECT note FROM t_order WHERE user_id = 1)",
			`encrypted columns email and note cannot be compared: their data nodes hold them through different encryptors (encryptor aes, encryptor aes2)`},
		{"SELECT name FROM t_user WHERE user_id = 1 AND user_id IN (SELECT COUNT(*) FROM t_order WHERE user_id = 1 GROUP BY mobile)",
			`encrypted column "mobile" cannot be used in GROUP BY`},
		{"SELECT name FROM t_user WHERE user_id = 1 AND user_id IN (SELECT o.user_id FROM t_order o WHERE o.user_id = 1 AND o.mobile IN (SELECT note FROM t_order WHERE user_id = 1))",
			`encrypted columns o.mobile and note cannot be compared`},
		{"SELECT d.mobile FROM (SELECT DISTINCT mobile FROM t_user WHERE user_id = 1) d",
			`a derived table (a subquery in FROM) in a statement over an encrypted table is not supported yet: select from t_user directly`},
		{"INSERT INTO t_copy (user_id, mobile) SELECT user_id, email FROM t_user WHERE user_id = 1",
			`INSERT … SELECT into encrypted column "mobile" of t_copy from encrypted column "email": their encryptors differ (cipher aes, assisted query md5; cipher aes)`},
		{"INSERT INTO t_copy (user_id, mobile) SELECT user_id, name FROM t_user WHERE user_id = 1",
			`INSERT … SELECT into encrypted column "mobile" of t_copy needs a value (a literal or a parameter) or a selected encrypted column with the same encryptors (cipher aes, assisted query md5)`},
		{"INSERT INTO t_copy SELECT * FROM t_user WHERE user_id = 1",
			`INSERT … SELECT * over an encrypted table: list the selected columns`},
	}
	for _, tt := range refusals {
		cmd := ":many"
		if tt.sql[0] == 'I' {
			cmd = ":exec"
		}
		_, err := build(t, b, cmd, tt.sql)
		require.Error(t, err, tt.sql)
		require.Contains(t, err.Error(), tt.err, tt.sql)
	}
	// A derived table of literal rows (as a correlated subquery's lookup
	// rows are bound) holds no cipher text: it plans.
	_, err = build(t, b, ":many", "SELECT u.user_id, u.mobile, (SELECT d.v FROM (SELECT 1 AS k, 2 AS v UNION ALL SELECT 3, 4) AS d WHERE d.k = u.user_id) AS n FROM t_user u WHERE u.user_id = 1")
	require.NoError(t, err)
}

// TestEncryptStepsPlan: a statement evaluated in steps whose step reads an
// encrypted column is refused for generated code with the reason (the
// proxy evaluates it with its own operators, which decrypt).
func TestEncryptStepsPlan(t *testing.T) {
	b := encJoinBuilder(t)
	for sql, want := range map[string]string{
		"SELECT u.name, a.label FROM t_user u JOIN t_acct a ON u.user_id = a.user_id":           "",
		"SELECT u.name, u.mobile, a.label FROM t_user u JOIN t_acct a ON u.user_id = a.user_id": "; the outer side of the join reads encrypted column mobile, which generated code does not decrypt in a step across data nodes yet",
	} {
		qs, err := schema.ParseQueries("q.sql", []byte("-- name: Q :many\n"+sql+";\n"))
		require.NoError(t, err)
		_, perr := b.Build(qs[0])
		require.Error(t, perr)
		p, err := b.BuildStepsPlan(qs[0], perr)
		if want == "" {
			require.NoError(t, err, sql)
			require.NotNil(t, p.Steps)
			continue
		}
		require.ErrorContains(t, err, want, sql)
	}
}
