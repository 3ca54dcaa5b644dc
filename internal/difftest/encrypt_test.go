package difftest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// An encrypted, sharded table: the application sees (id, owner, mobile,
// note); the data nodes hold cipher, assisted-query and like-query columns.
const encRules = `rules:
- !SHARDING
  tables:
    de_user:
      actualDataNodes: ds_${0..3}.de_user
      databaseStrategy:
        standard: {shardingColumn: id, shardingAlgorithmName: db_mod}
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 4}}
- !ENCRYPT
  tables:
    de_user:
      columns:
        mobile:
          cipher: {name: mobile_cipher, encryptorName: aes}
          assistedQuery: {name: mobile_md5, encryptorName: md5}
          likeQuery: {name: mobile_like, encryptorName: like}
        note:
          cipher: {name: note_cipher, encryptorName: aes}
  encryptors:
    aes: {type: AES, props: {aes-key-value: "${env:DIFFTEST_AES_KEY:-123456abc}", digest-algorithm-name: SHA-1}}
    md5: {type: MD5, props: {salt: pepper}}
    like: {type: CHAR_DIGEST_LIKE}
`

const encDDL = `CREATE TABLE de_user (id BIGINT NOT NULL PRIMARY KEY, owner VARCHAR(16) NOT NULL,
  mobile_cipher VARCHAR(128) NULL, mobile_md5 VARCHAR(64) NULL, mobile_like VARCHAR(64) NULL, note_cipher VARCHAR(256) NULL)`

const encRefDDL = `CREATE TABLE de_user (id BIGINT NOT NULL PRIMARY KEY, owner VARCHAR(16) NOT NULL, mobile VARCHAR(32) NULL, note VARCHAR(64) NULL)`

// TestEncryptedCorpus writes and reads an encrypted sharded table through
// the planner and runtime and compares every answer with the plain
// reference table: equality, IN, IS NULL, projections, ordering by a plain
// column, updates of encrypted and plain columns together.
func TestEncryptedCorpus(t *testing.T) {
	e := newEnv(t, encRules, encDDL)
	_, err := e.ref.Exec("DROP TABLE IF EXISTS de_user")
	require.NoError(t, err)
	_, err = e.ref.Exec(encRefDDL)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 8))
	mobiles := []string{"555-0100", "555-0101", "555-0199", "13800138000", "", "ünïcode"}
	for id := int64(1); id <= 120; id++ {
		var mobile, note any
		if r.IntN(5) != 0 {
			mobile = mobiles[r.IntN(len(mobiles))]
		}
		if r.IntN(3) != 0 {
			note = fmt.Sprintf("note %d", r.IntN(10))
		}
		e.exec("INSERT INTO de_user (id, owner, mobile, note) VALUES (?, ?, ?, ?)", id, []string{"ann", "bob", "cyd"}[r.IntN(3)], mobile, note)
	}
	e.exec("UPDATE de_user SET mobile = ?, owner = ?, note = ? WHERE mobile = ? AND owner = ?", "555-0200", "dee", nil, "555-0101", "bob")
	e.exec("UPDATE de_user SET note = ? WHERE id IN (?, ?, ?)", "changed", int64(3), int64(4), int64(5))
	queries := []struct {
		sql     string
		params  []any
		ordered []int
	}{
		{"SELECT id, owner, mobile, note FROM de_user WHERE mobile = ?", []any{"555-0100"}, nil},
		{"SELECT * FROM de_user WHERE mobile IN (?, ?)", []any{"555-0199", ""}, nil},
		{"SELECT id, mobile FROM de_user WHERE mobile IS NULL", nil, nil},
		{"SELECT id, note FROM de_user WHERE note IS NOT NULL AND owner = ?", []any{"ann"}, nil},
		{"SELECT id, mobile, note FROM de_user WHERE id = ?", []any{int64(7)}, nil},
		{"SELECT id, mobile FROM de_user WHERE mobile <> ? ORDER BY id LIMIT 5, 10", []any{"555-0100"}, []int{0}},
		{"SELECT owner, mobile AS m FROM de_user WHERE mobile = ? ORDER BY owner, id", []any{"555-0200"}, []int{0}},
		{"SELECT COUNT(*) FROM de_user WHERE mobile = ?", []any{"13800138000"}, nil},
		{"SELECT id FROM de_user WHERE mobile = '555-0199' OR note = 'changed'", nil, nil},
	}
	for _, q := range queries {
		if msg := e.query(q.sql, q.ordered, nil, nil, q.params...); msg != "" {
			t.Errorf("%s %v: %s", q.sql, q.params, msg)
		}
	}
}
