package proxy

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// ecDDL is the actual table of the encrypted-charset tests on ds_0 and
// ds_1: a latin1 table whose email is encrypted (cipher and assisted
// query) and whose note, a utf8mb4 column, is encrypted too; ecRefDDL the
// same table holding plain text in the reference database.
const (
	ecDDL    = "CREATE TABLE ec_cust (customer_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32), pw VARCHAR(16), country CHAR(2), email_cipher VARCHAR(256) NULL, email_md5 VARCHAR(64) NULL, note_cipher VARCHAR(256) CHARACTER SET utf8mb4 NULL) DEFAULT CHARSET=latin1"
	ecRefDDL = "CREATE TABLE ec_cust (customer_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32), pw VARCHAR(16), country CHAR(2), email VARCHAR(64) NULL, note VARCHAR(64) CHARACTER SET utf8mb4 NULL) DEFAULT CHARSET=latin1"
)

// ecWordDDL is a utf8mb4_unicode_ci table sharded by its text.
const ecWordDDL = "CREATE TABLE ec_word (word VARCHAR(16) NOT NULL PRIMARY KEY) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci"

const ecRules = `rules:
  - !SHARDING
    tables:
      ec_cust:
        actualDataNodes: ds_${0..1}.ec_cust
        databaseStrategy: {standard: {shardingColumn: customer_id, shardingAlgorithmName: ec_mod}}
      ec_word:
        actualDataNodes: ds_${0..1}.ec_word
        databaseStrategy: {standard: {shardingColumn: word, shardingAlgorithmName: ec_hash}}
    shardingAlgorithms:
      ec_mod: {type: MOD, props: {sharding-count: 2}}
      ec_hash: {type: HASH_MOD, props: {sharding-count: 2}}
  - !ENCRYPT
    tables:
      ec_cust:
        columns:
          email:
            cipher: {name: email_cipher, encryptorName: aes}
            assistedQuery: {name: email_md5, encryptorName: md5}
          note:
            cipher: {name: note_cipher, encryptorName: aes}
    encryptors:
      aes: {type: AES, props: {aes-key-value: 123456abc, digest-algorithm-name: SHA-1}}
      md5: {type: MD5, props: {salt: s}}
authority:
  users:
    - user: root@%
      password: secret
`

// sqlErr returns the number and the message of a MySQL error, the
// database in the message (`e9_db`. or `reference`.) written `db`.
func sqlErr(t *testing.T, err error) (uint16, string) {
	t.Helper()
	var me *gomysql.MySQLError
	require.True(t, errors.As(err, &me), "%v", err)
	msg := strings.NewReplacer("`e9_db`.", "`db`.", "`reference`.", "`db`.").Replace(me.Message)
	return me.Number, msg
}

// TestProxyEncryptedCharset: a value an INSERT or UPDATE writes to an
// encrypted column must fit the logic column's character set as the
// reference's plain column refuses it in a strict sql_mode (error 1366,
// the same message, nothing written on any data node), a non-strict
// session is refused as not supported (MySQL would store '?'), and
// decrypted text reaches a utf8mb3 session as the reference's column
// does, '?' for the characters utf8mb3 lacks.
func TestProxyEncryptedCharset(t *testing.T) {
	cfg, err := ParseConfig("ec.yaml", []byte(encConfigYAML(nil, ecRules)))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("ec.sql", []byte(ecDDL+";\n"+ecWordDDL))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	ctx := context.Background()
	var nodes []*sql.DB
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS ec_cust")
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, ecDDL)
		require.NoError(t, err)
		nodes = append(nodes, db)
	}
	ref := testdb.Open(t, "reference")
	_, err = ref.ExecContext(ctx, "DROP TABLE IF EXISTS ec_cust")
	require.NoError(t, err)
	_, err = ref.ExecContext(ctx, ecRefDDL)
	require.NoError(t, err)
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	px := &pxEnv{srv: srv}
	text := px.clientDB(t, "root", "secret", "e9_db", map[string]string{"interpolateParams": "true", "charset": "utf8mb4"})
	binary := px.clientDB(t, "root", "secret", "e9_db", map[string]string{"charset": "utf8mb4"})
	stored := func() int {
		n := 0
		for _, db := range nodes {
			var c int
			require.NoError(t, db.QueryRowContext(ctx, "SELECT COUNT(*) FROM ec_cust").Scan(&c))
			n += c
		}
		return n
	}

	// sameError runs q on the reference and through the proxy in both
	// protocols: each fails with the reference's number and message.
	sameError := func(q string, args ...any) {
		t.Helper()
		_, rerr := ref.ExecContext(ctx, q, args...)
		require.Error(t, rerr, q)
		wn, wmsg := sqlErr(t, rerr)
		for _, db := range []*sql.DB{text, binary} {
			_, perr := db.ExecContext(ctx, q, args...)
			require.Error(t, perr, q)
			n, msg := sqlErr(t, perr)
			require.Equal(t, wn, n, q)
			require.Equal(t, wmsg, msg, q)
		}
	}

	// Strict (the default sql_mode): 1366 as the reference, nothing written.
	for _, w := range []struct {
		q    string
		args []any
	}{
		{"INSERT INTO ec_cust VALUES (100,'emo','x','FR','😀@x.fr','n'),(101,'cyr','x','RU','жук@x.ru','n')", nil},
		{"INSERT INTO ec_cust VALUES (100,'emo','x','FR','a@x.fr','n'),(101,'cyr','x','RU','жук@x.ru','n')", nil},
		{"INSERT INTO ec_cust VALUES (?,'emo','x','FR',?,'n'),(?,'cyr','x','RU',?,'n')", []any{100, "é@x.fr", 101, "жук@x.ru"}},
	} {
		sameError(w.q, w.args...)
		require.Equal(t, 0, stored(), w.q)
	}

	// Values the columns hold: é in latin1, an emoji in the utf8mb4 note.
	for _, db := range []*sql.DB{ref, binary} {
		_, err := db.ExecContext(ctx, "INSERT INTO ec_cust VALUES (1,'a','x','FR','é@x.fr','😀 note'),(2,'b','x','RU','b@x.ru','жук')")
		require.NoError(t, err)
	}
	for _, w := range []struct {
		q    string
		args []any
	}{
		{"UPDATE ec_cust SET email = 'жук@x.ru' WHERE customer_id = 2", nil},
		// INSERT … SELECT with a value for the encrypted column: checked
		// as a VALUES row's (the reference: 1366 before the duplicate key).
		{"INSERT INTO ec_cust (customer_id, name, pw, country, email, note) SELECT customer_id, name, pw, country, 'жук@x.ru', note FROM ec_cust WHERE customer_id = 2", nil},
		{"INSERT INTO ec_cust (customer_id, name, pw, country, email, note) SELECT customer_id, name, pw, country, ?, note FROM ec_cust WHERE customer_id = ?", []any{"жук@x.ru", 2}},
	} {
		sameError(w.q, w.args...)
	}

	// A non-strict session: the reference stores '?', the proxy refuses.
	pc, err := binary.Conn(ctx)
	require.NoError(t, err)
	defer pc.Close()
	_, err = pc.ExecContext(ctx, "SET sql_mode = ''")
	require.NoError(t, err)
	_, perr := pc.ExecContext(ctx, "INSERT INTO ec_cust VALUES (100,'emo','x','FR','😀@x.fr','n')")
	require.Error(t, perr)
	n, msg := sqlErr(t, perr)
	require.Equal(t, uint16(1235), n, msg)
	require.Equal(t, 2, stored())
	_, err = pc.ExecContext(ctx, "INSERT INTO ec_cust VALUES (3,'c','x','FR','c@x.fr','ok')")
	require.NoError(t, err)
	_, err = ref.ExecContext(ctx, "INSERT INTO ec_cust VALUES (3,'c','x','FR','c@x.fr','ok')")
	require.NoError(t, err)

	// Reads in utf8mb4 and utf8mb3 sessions answer as the reference; a
	// latin1 session is refused.
	sel := "SELECT customer_id, name, email, note FROM ec_cust ORDER BY customer_id"
	for _, names := range []string{"utf8mb4", "utf8mb3"} {
		rc, err := ref.Conn(ctx)
		require.NoError(t, err)
		_, err = rc.ExecContext(ctx, "SET NAMES "+names)
		require.NoError(t, err)
		want := rowsOf(t, rc, sel)
		rc.Close()
		for _, db := range []*sql.DB{text, binary} {
			c, err := db.Conn(ctx)
			require.NoError(t, err)
			_, err = c.ExecContext(ctx, "SET NAMES "+names)
			require.NoError(t, err)
			require.Equal(t, want, rowsOf(t, c, sel), names)
			c.Close()
		}
	}
	c, err := text.Conn(ctx)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.ExecContext(ctx, "SET NAMES latin1")
	require.NoError(t, err)
	_, err = c.QueryContext(ctx, sel)
	require.ErrorContains(t, err, "encryption works on UTF-8 text")

	// A plain text column of an encrypted table, bound from one step to
	// the next in a latin1 session: its character set is the DDL's
	// (fresh user: refused, "its column's character set is not known").
	for _, db := range []*sql.DB{ref, binary} {
		_, err := db.ExecContext(ctx, "INSERT INTO ec_cust VALUES (4,'Zoë','x','DE','z@x.de','n'),(5,'ZOË','x','FR','y@x.fr','n')")
		require.NoError(t, err)
	}
	rc, err := ref.Conn(ctx)
	require.NoError(t, err)
	defer rc.Close()
	_, err = rc.ExecContext(ctx, "SET NAMES latin1")
	require.NoError(t, err)
	// ec_word, a utf8mb4_unicode_ci table sharded by word: its IN
	// subquery over ec_cust is a step whose values are bound.
	for _, db := range append(nodes, ref) {
		execAll(t, db, "DROP TABLE IF EXISTS ec_word", ecWordDDL)
		t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS ec_word") })
	}
	for _, db := range []*sql.DB{ref, binary} {
		_, err := db.ExecContext(ctx, "INSERT INTO ec_word VALUES ('zoe'), ('x'), ('Äpfel'), ('B')")
		require.NoError(t, err)
	}
	for _, in := range []string{
		"SELECT word FROM ec_word WHERE word IN (SELECT name FROM ec_cust) ORDER BY word",
		"SELECT customer_id FROM ec_cust WHERE name IN (SELECT name FROM ec_cust WHERE country = 'DE') ORDER BY customer_id",
		"SELECT customer_id FROM ec_cust WHERE name = (SELECT MAX(name) FROM ec_cust WHERE country = 'DE') ORDER BY customer_id",
		"SELECT customer_id, (SELECT MAX(name) FROM ec_cust WHERE country = 'DE') AS m FROM ec_cust ORDER BY customer_id",
		"SELECT name FROM ec_cust WHERE country = 'DE' UNION SELECT name FROM ec_cust WHERE country = 'FR'",
	} {
		require.Equal(t, rowsOf(t, rc, in), rowsOf(t, c, in), in)
	}
}
