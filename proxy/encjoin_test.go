package proxy

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// ejDDL are the actual tables of the encrypted join tests on ds_0 and
// ds_1: ej_user and ej_order (bound, sharded by user id % 2) encrypt phone
// (cipher and assisted query, same encryptors on both) and ej_order's note
// with an encryptor of another key than ej_user's email; ej_acct is sharded
// by another rule; ej_log is a single plain table; ej_copy an encrypted
// target of INSERT … SELECT.
var ejDDL = []string{
	"CREATE TABLE ej_user (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NULL, phone_cipher VARCHAR(128) NULL, phone_md5 VARCHAR(64) NULL, email_cipher VARCHAR(256) NULL)",
	"CREATE TABLE ej_order (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, phone_cipher VARCHAR(128) NULL, phone_md5 VARCHAR(64) NULL, note_cipher VARCHAR(256) NULL)",
	"CREATE TABLE ej_acct (acct_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, phone_cipher VARCHAR(128) NULL, phone_md5 VARCHAR(64) NULL)",
	"CREATE TABLE ej_log (id BIGINT NOT NULL PRIMARY KEY, phone VARCHAR(32) NULL, note VARCHAR(64) NULL)",
	"CREATE TABLE ej_copy (id BIGINT NOT NULL PRIMARY KEY, phone_cipher VARCHAR(128) NULL, phone_md5 VARCHAR(64) NULL, note_cipher VARCHAR(256) NULL)",
}

// ejRefDDL are the same tables holding plain text, in the reference
// database.
var ejRefDDL = []string{
	"CREATE TABLE ej_user (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NULL, phone VARCHAR(128) NULL, email VARCHAR(256) NULL)",
	"CREATE TABLE ej_order (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, phone VARCHAR(128) NULL, note VARCHAR(256) NULL)",
	"CREATE TABLE ej_acct (acct_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, phone VARCHAR(128) NULL)",
	"CREATE TABLE ej_log (id BIGINT NOT NULL PRIMARY KEY, phone VARCHAR(32) NULL, note VARCHAR(64) NULL)",
	"CREATE TABLE ej_copy (id BIGINT NOT NULL PRIMARY KEY, phone VARCHAR(128) NULL, note VARCHAR(256) NULL)",
}

const ejRules = `rules:
  - !SHARDING
    tables:
      ej_user:
        actualDataNodes: ds_${0..1}.ej_user
        databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: ej_mod}}
      ej_order:
        actualDataNodes: ds_${0..1}.ej_order
        databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: ej_mod}}
      ej_acct:
        actualDataNodes: ds_${0..1}.ej_acct
        databaseStrategy: {standard: {shardingColumn: acct_id, shardingAlgorithmName: ej_mod}}
      ej_copy:
        actualDataNodes: ds_${0..1}.ej_copy
        databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: ej_mod}}
    bindingTables: ["ej_user, ej_order, ej_copy"]
    shardingAlgorithms:
      ej_mod: {type: MOD, props: {sharding-count: 2}}
  - !SINGLE
    tables: ["ds_0.ej_log"]
  - !ENCRYPT
    tables:
      ej_user:
        columns:
          phone:
            cipher: {name: phone_cipher, encryptorName: aes}
            assistedQuery: {name: phone_md5, encryptorName: md5}
          email:
            cipher: {name: email_cipher, encryptorName: aes}
      ej_order:
        columns:
          phone:
            cipher: {name: phone_cipher, encryptorName: aes}
            assistedQuery: {name: phone_md5, encryptorName: md5}
          note:
            cipher: {name: note_cipher, encryptorName: aes2}
      ej_acct:
        columns:
          phone:
            cipher: {name: phone_cipher, encryptorName: aes2}
            assistedQuery: {name: phone_md5, encryptorName: md5b}
      ej_copy:
        columns:
          phone:
            cipher: {name: phone_cipher, encryptorName: aes}
            assistedQuery: {name: phone_md5, encryptorName: md5}
          note:
            cipher: {name: note_cipher, encryptorName: aes2}
    encryptors:
      aes: {type: AES, props: {aes-key-value: 123456abc, digest-algorithm-name: SHA-1}}
      aes2: {type: AES, props: {aes-key-value: other-key, digest-algorithm-name: SHA-1}}
      md5: {type: MD5, props: {salt: s}}
      md5b: {type: MD5, props: {salt: t}}
authority:
  users:
    - user: root@%
      password: secret
`

// ejEnv is a proxy over the ej_ tables and the reference database holding
// their plain text; text and binary are clients of the proxy (text
// protocol with the values interpolated, binary protocol).
type ejEnv struct {
	ref, text, binary *sql.DB
}

func newEjEnv(t *testing.T) *ejEnv {
	t.Helper()
	cfg, err := ParseConfig("ej.yaml", []byte(encConfigYAML(nil, ejRules)))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("ej.sql", []byte(strings.Join(ejDDL, ";\n")))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	ctx := context.Background()
	names := []string{"ej_user", "ej_order", "ej_acct", "ej_log", "ej_copy"}
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for i, ddl := range ejDDL {
			_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+names[i])
			require.NoError(t, err)
			if names[i] == "ej_log" && ds != "ds_0" {
				continue
			}
			_, err = db.ExecContext(ctx, ddl)
			require.NoError(t, err)
		}
	}
	ref := testdb.Open(t, "reference")
	for i, ddl := range ejRefDDL {
		_, err := ref.ExecContext(ctx, "DROP TABLE IF EXISTS "+names[i])
		require.NoError(t, err)
		_, err = ref.ExecContext(ctx, ddl)
		require.NoError(t, err)
	}
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	px := &pxEnv{srv: srv}
	e := &ejEnv{ref: ref,
		text:   px.clientDB(t, "root", "secret", "e9_db", map[string]string{"interpolateParams": "true"}),
		binary: px.clientDB(t, "root", "secret", "e9_db", nil)}
	phones := []any{"555-0100", "555-0101", nil, "ünï", ""}
	for id := int64(1); id <= 12; id++ {
		e.exec(t, "INSERT INTO ej_user (id, name, phone, email) VALUES (?, ?, ?, ?)", id, []string{"ann", "bob", "cyd"}[id%3], phones[id%5], []any{"a@x", nil, "c@x"}[id%3])
		e.exec(t, "INSERT INTO ej_order (order_id, user_id, phone, note) VALUES (?, ?, ?, ?)", 100+id, id%7+1, phones[(id+1)%5], []any{"n1", "a@x", nil, "c@x"}[id%4])
		e.exec(t, "INSERT INTO ej_acct (acct_id, user_id, phone) VALUES (?, ?, ?)", 200+id, id%5+1, phones[(id+2)%5])
	}
	e.exec(t, "INSERT INTO ej_log (id, phone, note) VALUES (1, '555-0100', 'x'), (2, NULL, 'y'), (3, '555-0101', NULL)")
	return e
}

// exec runs a write through the proxy (binary protocol) and on the
// reference; both must agree on the rows affected.
func (e *ejEnv) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	r, err := e.binary.Exec(q, args...)
	require.NoError(t, err, q)
	n, err := r.RowsAffected()
	require.NoError(t, err)
	rr, err := e.ref.Exec(q, args...)
	require.NoError(t, err, q)
	m, err := rr.RowsAffected()
	require.NoError(t, err)
	require.Equal(t, m, n, "rows affected by %s", q)
}

// same checks that q answers through both protocols of the proxy what the
// reference answers (as a multiset of rows; in order when ordered).
func (e *ejEnv) same(t *testing.T, ordered bool, q string, args ...any) {
	t.Helper()
	want := rowsOf(t, e.ref, q, args...)
	for _, db := range []*sql.DB{e.text, e.binary} {
		got := rowsOf(t, db, q, args...)
		if !ordered {
			got, want := append([]string(nil), got...), append([]string(nil), want...)
			slices.Sort(got)
			slices.Sort(want)
			require.Equal(t, want, got, q)
			continue
		}
		require.Equal(t, want, got, q)
	}
}

// refused checks that q fails through both protocols with msg.
func (e *ejEnv) refused(t *testing.T, q, msg string, args ...any) {
	t.Helper()
	for _, db := range []*sql.DB{e.text, e.binary} {
		_, err := db.Exec(q, args...)
		require.Error(t, err, q)
		require.Contains(t, err.Error(), msg, q)
	}
}

// TestProxyEncryptedJoinUnion: joins, UNIONs and subqueries over
// encrypted tables answer through the text and the binary protocol what
// the reference holding plain text answers: encrypted result columns are
// decrypted (on one data node, and in steps across data nodes), equality
// filters compare assisted-query columns, a join of two encrypted columns
// that one encryptor writes compares their assisted-query columns. What
// cannot be exact is refused with the column and the reason.
func TestProxyEncryptedJoinUnion(t *testing.T) {
	e := newEjEnv(t)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		// Bound tables, pushed down whole.
		{"SELECT u.id, u.name, u.phone, o.order_id, o.note FROM ej_user u JOIN ej_order o ON u.id = o.user_id", nil},
		{"SELECT u.id, u.phone, o.order_id FROM ej_user u JOIN ej_order o ON u.id = o.user_id WHERE u.phone = ?", []any{"555-0100"}},
		{"SELECT u.id, u.phone, o.phone FROM ej_user u JOIN ej_order o ON u.id = o.user_id AND u.phone = o.phone", nil},
		{"SELECT u.id, o.order_id FROM ej_user u LEFT JOIN ej_order o ON u.id = o.user_id AND u.phone <> o.phone WHERE u.id = ?", []any{int64(5)}},
		{"SELECT u.*, o.note FROM ej_user u, ej_order o WHERE u.id = o.user_id AND o.note IN ('n1', 'c@x')", nil},
		// Across data nodes (steps).
		{"SELECT u.id, u.phone, a.acct_id, a.phone FROM ej_user u JOIN ej_acct a ON u.id = a.user_id", nil},
		{"SELECT u.id, u.phone, a.acct_id, a.phone FROM ej_user u JOIN ej_acct a ON u.id = a.user_id WHERE a.phone = '555-0101'", nil},
		{"SELECT u.id, u.email, l.note FROM ej_user u JOIN ej_log l ON u.id = l.id", nil},
		{"SELECT id, phone FROM ej_user UNION ALL SELECT order_id, phone FROM ej_order", nil},
		{"SELECT id, phone FROM ej_user WHERE id = 5 UNION ALL SELECT order_id, note FROM ej_order WHERE user_id = 5", nil},
		{"SELECT id, email FROM ej_user WHERE id = 5 UNION ALL SELECT id, phone FROM ej_log", nil},
		// Joined on encrypted columns across data nodes: over temporary
		// tables of decrypted rows (federation).
		{"SELECT u.id, o.order_id FROM ej_user u JOIN ej_order o ON u.phone = o.phone", nil},
		{"SELECT u.id, a.acct_id FROM ej_user u JOIN ej_acct a ON u.phone = a.phone", nil},
		{"SELECT u.phone, COUNT(*) FROM ej_user u JOIN ej_acct a ON u.phone = a.phone GROUP BY u.phone", nil},
		// Subqueries.
		{"SELECT id, phone FROM ej_user WHERE id IN (SELECT user_id FROM ej_order WHERE phone = '555-0101')", nil},
		{"SELECT id, name FROM ej_user WHERE id = 5 AND id IN (SELECT user_id FROM ej_order WHERE user_id = 5 AND phone = ?)", []any{"555-0100"}},
		{"SELECT id, name FROM ej_user WHERE id = 5 AND phone IN (SELECT phone FROM ej_order WHERE user_id = 5)", nil},
		// Correlated scalar subqueries looked up (their rows bound as a
		// derived table of literals, which holds no cipher text) or
		// evaluated over temporary tables.
		{"SELECT id, (SELECT COUNT(*) FROM ej_acct a WHERE a.user_id = u.id) n FROM ej_user u ORDER BY id", nil},
		{"SELECT id, phone, email, (SELECT COUNT(*) FROM ej_acct a WHERE a.user_id = u.id) n FROM ej_user u ORDER BY id", nil},
		{"SELECT id, (SELECT MAX(a.acct_id) FROM ej_acct a WHERE a.user_id = u.id) n FROM ej_user u WHERE u.phone = '555-0101' ORDER BY id", nil},
		{"SELECT id, (SELECT COUNT(*) FROM ej_log l WHERE l.id = u.id) n FROM ej_user u ORDER BY id", nil},
		{"SELECT id, (SELECT COUNT(*) FROM ej_acct a WHERE a.phone = u.phone) n FROM ej_user u ORDER BY id", nil},
	} {
		e.same(t, false, q.sql, q.args...)
	}
	for _, q := range []struct{ sql, msg string }{
		{"SELECT u.id, o.order_id FROM ej_user u JOIN ej_order o ON u.id = o.user_id AND u.email = o.note WHERE u.id = 5",
			"encrypted columns u.email and o.note cannot be compared: their data nodes hold them through different encryptors (encryptor aes, encryptor aes2)"},
		{"SELECT u.id, a.acct_id FROM ej_user u JOIN ej_acct a ON u.id = a.user_id AND u.phone = a.phone WHERE u.id = 4 AND a.acct_id = 204",
			"encrypted columns u.phone and a.phone cannot be compared: their data nodes hold them through different encryptors (encryptor md5, encryptor md5b)"},
		{"SELECT u.id FROM ej_user u JOIN ej_log l ON u.phone = l.phone WHERE u.id = 4",
			`encrypted column "phone" cannot be compared with plain column l.phone: the data node holds its cipher text`},
		{"SELECT phone FROM ej_user UNION SELECT phone FROM ej_order",
			`encrypted column "phone" cannot be compared across data nodes`},
		{"SELECT id, phone FROM ej_user WHERE id = 4 ORDER BY phone",
			`encrypted column "phone" cannot be used in ORDER BY`},
		{"SELECT u.id FROM ej_user u JOIN ej_order o ON u.id = o.user_id ORDER BY o.note",
			`encrypted column "note" cannot be compared across data nodes (a UNION's deduplication, a join key, DISTINCT or ORDER BY)`},
	} {
		e.refused(t, q.sql, q.msg)
	}
}

// TestProxyEncryptedInsertSelect: INSERT … SELECT between encrypted tables
// copies the stored text where the same encryptors write both columns,
// encrypts the statement's own values, and refuses what it would have to
// encrypt on a data node or would write as cipher text into a plain
// column; the target then holds what the reference holds.
func TestProxyEncryptedInsertSelect(t *testing.T) {
	e := newEjEnv(t)
	for _, q := range []string{
		"INSERT INTO ej_copy (id, phone) SELECT id, phone FROM ej_user WHERE id = 5",
		"INSERT INTO ej_copy (id, note, phone) SELECT id, 'x', phone FROM ej_user WHERE id = 3",
		"INSERT INTO ej_copy (id, phone) SELECT u.id, u.phone FROM ej_user u JOIN ej_order o ON u.id = o.user_id WHERE o.order_id = 103",
		"INSERT INTO ej_copy (id, phone) SELECT id, phone FROM ej_user WHERE id > 6 AND phone IS NOT NULL",
	} {
		e.exec(t, q)
	}
	e.exec(t, "INSERT INTO ej_copy (id, note, phone) SELECT id, ?, phone FROM ej_user WHERE id = ?", "y", int64(1))
	e.same(t, false, "SELECT id, phone, note FROM ej_copy")
	e.same(t, false, "SELECT id FROM ej_copy WHERE phone = '555-0100' OR note = 'x'")
	for _, q := range []struct{ sql, msg string }{
		{"INSERT INTO ej_log (id, phone) SELECT id, phone FROM ej_user WHERE id = 4",
			`INSERT … SELECT would write the cipher text of encrypted column "phone" into plain column "phone" of ej_log`},
		{"INSERT INTO ej_copy (id, phone) SELECT 2, phone FROM ej_log WHERE id = 1",
			`INSERT … SELECT into encrypted column "phone" of ej_copy needs a value (a literal or a parameter) or a selected encrypted column with the same encryptors (cipher aes, assisted query md5)`},
		{"INSERT INTO ej_copy (id, phone) SELECT 4, phone FROM ej_acct WHERE acct_id = 204",
			`INSERT … SELECT into encrypted column "phone" of ej_copy from encrypted column "phone": their encryptors differ (cipher aes, assisted query md5; cipher aes2, assisted query md5b)`},
		{"INSERT INTO ej_copy SELECT id, phone, email FROM ej_user WHERE id = 1",
			`INSERT … SELECT into encrypted column "note" of ej_copy from encrypted column "email": their encryptors differ (cipher aes2; cipher aes)`},
		{"INSERT INTO ej_copy (id, phone) SELECT id, CONCAT(phone, '') FROM ej_user WHERE id = 1",
			`INSERT … SELECT into encrypted column "phone" of ej_copy needs a value`},
	} {
		e.refused(t, q.sql, q.msg)
	}
	e.same(t, false, "SELECT id, phone, note FROM ej_copy")
}
