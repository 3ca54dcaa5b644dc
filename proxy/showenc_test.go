package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// encDDL is the physical table of the encrypt tests (e9_user on ds_0 and
// ds_1): phone has cipher, assisted-query and like-query columns, email a
// cipher column only; keys name derived columns.
const encDDL = "CREATE TABLE e9_user (\n" +
	"  id BIGINT NOT NULL,\n" +
	"  name VARCHAR(32) NULL,\n" +
	"  phone_cipher VARCHAR(128) NULL COMMENT 'phone, encrypted',\n" +
	"  phone_assisted VARCHAR(64) NULL,\n" +
	"  phone_like VARCHAR(64) NULL,\n" +
	"  email_cipher VARCHAR(256) NOT NULL DEFAULT '',\n" +
	"  PRIMARY KEY (id),\n" +
	"  KEY e9_user_phone (phone_assisted),\n" +
	"  KEY e9_user_both (phone_cipher(8), phone_like, name),\n" +
	"  UNIQUE KEY e9_user_mail (email_cipher, id)\n" +
	")"

// encLogicDDL is what an application sees of e9_user: each encrypted
// column under its logic name with its cipher column's definition, at the
// cipher column's place, derived columns gone, keys over logic columns.
const encLogicDDL = "CREATE TABLE e9_user (\n" +
	"  id BIGINT NOT NULL,\n" +
	"  name VARCHAR(32) NULL,\n" +
	"  phone VARCHAR(128) NULL COMMENT 'phone, encrypted',\n" +
	"  email VARCHAR(256) NOT NULL DEFAULT '',\n" +
	"  PRIMARY KEY (id),\n" +
	"  KEY e9_user_phone (phone),\n" +
	"  KEY e9_user_both (phone(8), name),\n" +
	"  UNIQUE KEY e9_user_mail (email, id)\n" +
	")"

// encRules shards e9_user by id % 2 and encrypts phone and email.
const encRules = `rules:
  - !SHARDING
    tables:
      e9_user:
        actualDataNodes: ds_${0..1}.e9_user
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: e9_mod
    shardingAlgorithms:
      e9_mod:
        type: MOD
        props:
          sharding-count: 2
  - !ENCRYPT
    tables:
      e9_user:
        columns:
          phone:
            cipher: {name: phone_cipher, encryptorName: aes}
            assistedQuery: {name: phone_assisted, encryptorName: md5}
            likeQuery: {name: phone_like, encryptorName: like}
          email:
            cipher: {name: email_cipher, encryptorName: aes}
    encryptors:
      aes: {type: AES, props: {aes-key-value: 123456abc, digest-algorithm-name: SHA-1}}
      md5: {type: MD5, props: {salt: s}}
      like: {type: CHAR_DIGEST_LIKE}
authority:
  users:
    - user: root@%
      password: secret
`

// encEnv is a proxy over e9_user plus the logic table in the reference
// database, to compare what SHOW answers with what MySQL says of a table
// with the logic columns.
type encEnv struct {
	srv *Server
	ref *sql.DB
}

// newEncEnv starts a proxy serving the logic database e9_db with rules
// (after the data sources), over freshly created e9_user tables.
func newEncEnv(t *testing.T, rules string) *encEnv {
	t.Helper()
	return newEncEnvWith(t, nil, rules)
}

// encConfigYAML is the proxy configuration of e9_db: data sources ds_0 and
// ds_1 of the test servers (as change alters them; nil: as they are), then
// rules.
func encConfigYAML(change func(name string, ds *encDataSource), rules string) string {
	var b strings.Builder
	b.WriteString("databaseName: e9_db\ndataSources:\n")
	for _, ds := range testdb.DataSources()[:2] {
		c := testdb.Config(ds)
		d := encDataSource{addr: c.Addr, db: ds, user: c.User, password: c.Passwd}
		if change != nil {
			change(ds, &d)
		}
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 4\n", ds, d.addr, d.db, d.user, d.password)
	}
	return b.String() + rules
}

// encDataSource is the proxy's data source ds (ds_0 or ds_1): the test
// server's address, database and account, as a change may alter them.
type encDataSource struct{ addr, db, user, password string }

// newEncEnvWith is newEncEnv with each data source's settings passed
// through change (nil: as they are).
func newEncEnvWith(t *testing.T, change func(name string, ds *encDataSource), rules string) *encEnv {
	t.Helper()
	cfg, err := ParseConfig("e9.yaml", []byte(encConfigYAML(change, rules)))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("e9.sql", []byte(encDDL))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	ctx := context.Background()
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS e9_user")
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, encDDL)
		require.NoError(t, err)
		t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS e9_user") })
	}
	ref := testdb.Open(t, "reference")
	_, err = ref.ExecContext(ctx, "DROP TABLE IF EXISTS e9_user")
	require.NoError(t, err)
	_, err = ref.ExecContext(ctx, encLogicDDL)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = ref.Exec("DROP TABLE IF EXISTS e9_user") })
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return &encEnv{srv: srv, ref: ref}
}

// client opens go-sql-driver against the proxy as root, database e9_db.
func (e *encEnv) client(t *testing.T) *sql.DB {
	t.Helper()
	return (&pxEnv{srv: e.srv}).clientDB(t, "root", "secret", "e9_db", nil)
}

// TestProxyShowEncryptedTable: DESCRIBE, SHOW [FULL] COLUMNS and SHOW CREATE
// TABLE of a table with an !ENCRYPT rule show its logic columns, as
// ShardingSphere-Proxy does (EncryptShowColumnsMergedResult,
// EncryptShowCreateTableMergedResult): the cipher column under the logic
// name, assisted-query and like-query columns hidden. The answer equals
// MySQL's for a table created with the logic columns.
func TestProxyShowEncryptedTable(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	for _, q := range []string{
		"SHOW CREATE TABLE e9_user", "show create table `e9_user`", "SHOW CREATE TABLE e9_db.e9_user",
		"SHOW COLUMNS FROM e9_user", "SHOW FULL COLUMNS FROM e9_user", "SHOW FIELDS IN e9_user FROM e9_db",
		"SHOW COLUMNS FROM e9_user LIKE 'ph%'", "SHOW COLUMNS FROM e9_user LIKE 'phone'", "SHOW COLUMNS FROM e9_user LIKE 'phone\\_%'",
		"SHOW FULL COLUMNS FROM e9_user WHERE Field IN ('phone', 'name', 'phone_cipher')",
		"SHOW COLUMNS FROM e9_user WHERE `Type` LIKE 'varchar%' AND `Null` = 'YES'",
		"DESCRIBE e9_user", "DESC e9_user phone", "DESC e9_user 'e%'", "DESC e9_user `email`", "DESC e9_user phone_cipher",
	} {
		ref := strings.Replace(strings.Replace(q, "e9_db.", "", 1), " FROM e9_db", "", 1)
		require.Equal(t, rowsOf(t, e.ref, ref), rowsOf(t, db, q), q)
	}
	_, err := db.Exec("SHOW COLUMNS FROM e9_user WHERE Field =")
	require.EqualError(t, err, "Error 1064 (42000): You have an error in your SQL syntax near 'Field ='")
	var name, create string
	require.NoError(t, db.QueryRow("SHOW CREATE TABLE e9_user").Scan(&name, &create))
	require.Equal(t, "e9_user", name)
	require.NotContains(t, create, "_cipher")
	require.NotContains(t, create, "_assisted")
	require.NotContains(t, create, "_like")
	require.Contains(t, create, "  `phone` varchar(128) DEFAULT NULL COMMENT 'phone, encrypted',\n")

	// The logic columns are what statements use.
	for _, q := range []string{"INSERT INTO e9_user (id, name, phone, email) VALUES (1, 'a', '13800138000', 'a@b.c')",
		"INSERT INTO e9_user (id, name, phone, email) VALUES (2, 'b', NULL, 'b@b.c')"} {
		_, err = db.Exec(q)
		require.NoError(t, err, q)
	}
	require.Equal(t, []string{"int64:1 | string:a | string:13800138000 | string:a@b.c", "int64:2 | string:b | <nil>:<nil> | string:b@b.c"},
		rowsOf(t, db, "SELECT * FROM e9_user ORDER BY id"))
	require.Equal(t, []string{"int64:1"}, rowsOf(t, db, "SELECT id FROM e9_user WHERE phone = '13800138000'"))
}

// TestLogicCreateTable: the SHOW CREATE TABLE text of an encrypted table
// names logic columns only; text it cannot take apart stays as it is.
func TestLogicCreateTable(t *testing.T) {
	v := &encryptedView{
		logic:  map[string]string{"phone_cipher": "phone", "mail_c": "mail"},
		hidden: map[string]string{"phone_assisted": "phone", "phone_like": "phone", "phone_plain": "phone"},
	}
	tests := []struct{ name, in, want string }{
		{"columns, keys and constraints",
			"CREATE TABLE `t` (\n" +
				"  `id` bigint(20) NOT NULL,\n" +
				"  `Phone_Cipher` varchar(128) DEFAULT NULL COMMENT 'was `phone_like`, (x)',\n" +
				"  `phone_assisted` varchar(64) DEFAULT NULL,\n" +
				"  `g` int(11) GENERATED ALWAYS AS (octet_length(`phone_cipher`)) VIRTUAL,\n" +
				"  `phone_like` varchar(64) DEFAULT NULL,\n" +
				"  PRIMARY KEY (`id`),\n" +
				"  UNIQUE KEY `phone_assisted` (`phone_assisted`,`id`),\n" +
				"  KEY `k` (`phone_cipher`(10),`phone_like`,`id`),\n" +
				"  CONSTRAINT `fk` FOREIGN KEY (`phone_assisted`) REFERENCES `other` (`phone_assisted`),\n" +
				"  CONSTRAINT `ck` CHECK (`phone_cipher` <> '`phone_like`')\n" +
				") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
			"CREATE TABLE `t` (\n" +
				"  `id` bigint(20) NOT NULL,\n" +
				"  `phone` varchar(128) DEFAULT NULL COMMENT 'was `phone_like`, (x)',\n" +
				"  `g` int(11) GENERATED ALWAYS AS (octet_length(`phone`)) VIRTUAL,\n" +
				"  PRIMARY KEY (`id`),\n" +
				"  UNIQUE KEY `phone_assisted` (`phone`,`id`),\n" +
				"  KEY `k` (`phone`(10),`id`),\n" +
				"  CONSTRAINT `fk` FOREIGN KEY (`phone`) REFERENCES `other` (`phone_assisted`),\n" +
				"  CONSTRAINT `ck` CHECK (`phone` <> '`phone_like`')\n" +
				") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"},
		{"a hidden column last",
			"CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `mail_c` text,\n  `phone_like` text\n)",
			"CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `mail` text\n)"},
		{"quoted names", "CREATE TABLE `t` (\n  `a``b` int(11) DEFAULT NULL,\n  `phone_plain` text,\n  KEY `x``y` (`a``b`)\n)",
			"CREATE TABLE `t` (\n  `a``b` int(11) DEFAULT NULL,\n  KEY `x``y` (`a``b`)\n)"},
		{"not a table definition", "CREATE VIEW `t` AS select 1", "CREATE VIEW `t` AS select 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, logicCreateTable(tt.in, v))
		})
	}
}

// TestProxyEncryptedRefusals: the proxy refuses what cipher text cannot
// answer with ERROR 1235, naming the clause the client wrote.
func TestProxyEncryptedRefusals(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	const why = ": only projections, =, <>, IN, IS [NOT] NULL and LIKE (with a like-query column) work on cipher text"
	tests := []struct{ q, err string }{
		{"SELECT COUNT(DISTINCT phone) FROM e9_user", `encrypted column "phone" cannot be used in COUNT(DISTINCT phone)` + why},
		{"SELECT phone, COUNT(*) FROM e9_user GROUP BY phone", `encrypted column "phone" cannot be used in GROUP BY` + why},
		{"SELECT phone FROM e9_user WHERE id = 1 GROUP BY phone", `encrypted column "phone" cannot be used in GROUP BY` + why},
	}
	for _, tt := range tests {
		_, err := db.Exec(tt.q)
		require.EqualError(t, err, "Error 1235 (42000): "+tt.err, tt.q)
	}
}

// TestProxyEncryptedMultiRowInsert: a multi-row INSERT into an encrypted
// table, prepared and as text, encrypts every row's values and sends each
// data node its rows; they read back decrypted and are found through the
// assisted query column, as rows inserted one by one.
func TestProxyEncryptedMultiRowInsert(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	for _, c := range []*sql.DB{db, e.ref} {
		_, err := c.Exec("INSERT INTO e9_user (id, name, phone, email) VALUES (?, ?, ?, ?), (?, ?, ?, ?)", 1, "a", "111", "a@x", 2, "b", "222", "b@x")
		require.NoError(t, err)
		_, err = c.Exec("INSERT INTO e9_user (id, name, phone, email) VALUES (3, 'c', '333', 'c@x'), (4, 'd', NULL, 'd@x')")
		require.NoError(t, err)
	}
	for _, q := range []string{"SELECT id, name, phone, email FROM e9_user ORDER BY id", "SELECT id FROM e9_user WHERE phone = '222'"} {
		require.Equal(t, rowsOf(t, e.ref, q), rowsOf(t, db, q), q)
	}
	for i, ds := range []string{"ds_0", "ds_1"} {
		var n int
		require.NoError(t, testdb.Open(t, ds).QueryRow("SELECT COUNT(*) FROM e9_user WHERE id % 2 = ? AND (phone_cipher IS NOT NULL OR id = 4)", i).Scan(&n))
		require.Equal(t, 2, n, "rows on %s", ds)
	}
}

// TestProxyEncryptedFederation: a statement over an encrypted table that
// is evaluated over temporary tables (a self-join with USING) loads the
// decrypted logic column into a column as long as its cipher column; the
// temporary table was created with `phone` VARCHAR NULL (no length), a
// syntax error (ERROR 1064) for every such statement.
func TestProxyEncryptedFederation(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	for _, c := range []*sql.DB{db, e.ref} {
		_, err := c.Exec("INSERT INTO e9_user (id, name, phone, email) VALUES (1, 'a', '111', 'a@x'), (2, 'a', '222', 'b@x'), (3, 'b', '111', 'c@x'), (4, 'b', NULL, 'd@x')")
		require.NoError(t, err)
	}
	for _, q := range []string{
		"SELECT x.id, y.id, x.phone, y.phone FROM e9_user x JOIN e9_user y USING (name) ORDER BY x.id, y.id",
		"SELECT x.id, y.id FROM e9_user x JOIN e9_user y ON x.phone = y.phone AND x.id < y.id ORDER BY x.id, y.id",
		"SELECT x.id, y.id FROM e9_user x JOIN e9_user y ON x.name = y.name AND x.phone < y.phone ORDER BY x.id, y.id", // a residual comparison of an encrypted column
	} {
		require.Equal(t, rowsOf(t, e.ref, q), rowsOf(t, db, q), q)
	}
}

// TestProxyCreateEncryptedTable: a CREATE TABLE of an encrypted table in
// logic form through the proxy creates the cipher, assisted-query and
// like-query columns on every actual table (as ShardingSphere-Proxy and
// `shardgen migrate` do), so rows written through the proxy then land
// encrypted and read back; it created the logic column before, and every
// INSERT failed with "Unknown column 'phone_cipher'". ALTER TABLE ...
// MODIFY / DROP / ADD of the logic column then change the physical columns.
func TestProxyCreateEncryptedTable(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	_, err := db.Exec("DROP TABLE e9_user")
	require.NoError(t, err)
	_, err = db.Exec(encLogicDDL)
	require.NoError(t, err)
	for _, ds := range []string{"ds_0", "ds_1"} {
		require.Equal(t, []string{"string:id", "string:name", "string:phone_cipher", "string:phone_assisted", "string:phone_like", "string:email_cipher"},
			rowsOf(t, testdb.Open(t, ds), "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'e9_user' ORDER BY ORDINAL_POSITION"), ds)
	}
	for _, c := range []*sql.DB{db, e.ref} {
		_, err = c.Exec("INSERT INTO e9_user (id, name, phone, email) VALUES (1, 'a', '13800138000', 'a@b.c'), (2, 'b', NULL, 'b@b.c')")
		require.NoError(t, err)
	}
	for _, q := range []string{"SELECT * FROM e9_user ORDER BY id", "SELECT id FROM e9_user WHERE phone = '13800138000'", "SELECT id FROM e9_user WHERE phone LIKE '138%'"} {
		require.Equal(t, rowsOf(t, e.ref, q), rowsOf(t, db, q), q)
	}
	var n int
	require.NoError(t, testdb.Open(t, "ds_1").QueryRow("SELECT COUNT(*) FROM e9_user WHERE phone_cipher IS NOT NULL AND phone_cipher <> '13800138000'").Scan(&n))
	require.Equal(t, 1, n)

	// ALTER TABLE on the logic column changes its physical columns: MODIFY
	// widens each for 64 characters, DROP and ADD remove and add all three.
	_, err = db.Exec("ALTER TABLE e9_user MODIFY COLUMN phone VARCHAR(64) NULL")
	require.NoError(t, err)
	for _, ds := range []string{"ds_0", "ds_1"} {
		require.Equal(t, []string{"string:phone_like varchar(128)"},
			rowsOf(t, testdb.Open(t, ds), "SELECT CONCAT(COLUMN_NAME, ' ', COLUMN_TYPE) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'e9_user' AND COLUMN_NAME = 'phone_like'"), ds)
	}
	_, err = db.Exec("ALTER TABLE e9_user DROP COLUMN phone")
	require.NoError(t, err)
	_, err = db.Exec("ALTER TABLE e9_user ADD COLUMN phone VARCHAR(32) NULL AFTER name")
	require.NoError(t, err)
	for _, ds := range []string{"ds_0", "ds_1"} {
		require.Equal(t, []string{"string:id", "string:name", "string:phone_cipher", "string:phone_assisted", "string:phone_like", "string:email_cipher"},
			rowsOf(t, testdb.Open(t, ds), "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'e9_user' ORDER BY ORDINAL_POSITION"), ds)
	}
}

// TestProxyAlterEncryptedPlainHistory: ALTER TABLE through the proxy on
// an encrypted table whose actual tables still have phone as a plain
// column (older migrations ran before the !ENCRYPT rule listed it) runs
// the clauses naming phone as written, as generate and `shardgen migrate`
// read such a history: MODIFY phone widens the plain column (it was
// rewritten to MODIFY phone_cipher, phone_assisted, phone_like: Unknown
// column), ADD COLUMN phone_cipher adds the cipher column, and DROP COLUMN
// phone then drops the plain column (it dropped phone_cipher, phone_assisted
// and phone_like, with the cipher text). A table in logic form keeps the
// rewrite (TestProxyCreateEncryptedTable).
func TestProxyAlterEncryptedPlainHistory(t *testing.T) {
	e := newEncEnv(t, encRules)
	db := e.client(t)
	_, err := db.Exec("DROP TABLE e9_user")
	require.NoError(t, err)
	columns := func(ds string) []string {
		return rowsOf(t, testdb.Open(t, ds), "SELECT CONCAT(COLUMN_NAME, ' ', COLUMN_TYPE) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'e9_user' ORDER BY ORDINAL_POSITION")
	}
	for _, ds := range []string{"ds_0", "ds_1"} {
		_, err := testdb.Open(t, ds).Exec("CREATE TABLE e9_user (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NULL, phone VARCHAR(32) NULL, email_cipher VARCHAR(512) NULL)")
		require.NoError(t, err)
	}
	for _, c := range []struct {
		alter string
		want  []string
	}{
		{"ALTER TABLE e9_user MODIFY COLUMN phone VARCHAR(64) NULL",
			[]string{"string:id bigint(20)", "string:name varchar(32)", "string:phone varchar(64)", "string:email_cipher varchar(512)"}},
		{"ALTER TABLE e9_user ADD COLUMN phone_cipher VARCHAR(400) NULL AFTER phone",
			[]string{"string:id bigint(20)", "string:name varchar(32)", "string:phone varchar(64)", "string:phone_cipher varchar(400)", "string:email_cipher varchar(512)"}},
		{"ALTER TABLE e9_user DROP COLUMN phone",
			[]string{"string:id bigint(20)", "string:name varchar(32)", "string:phone_cipher varchar(400)", "string:email_cipher varchar(512)"}},
	} {
		pv := rowsOf(t, db, "PREVIEW "+c.alter)
		require.Len(t, pv, 2, c.alter)
		require.NotContains(t, strings.Join(pv, "\n"), "phone_assisted", c.alter)
		_, err := db.Exec(c.alter)
		require.NoError(t, err, c.alter)
		for _, ds := range []string{"ds_0", "ds_1"} {
			require.Equal(t, c.want, columns(ds), "%s: %s", ds, c.alter)
		}
	}
}

// TestProxyEncryptedLatin1Session: a session whose character set is latin1
// (the mariadb CLI with --default-character-set=latin1) gets ERROR 1235 for
// statements that encrypt values or decrypt columns, instead of storing the
// latin1 bytes' cipher text, which a UTF-8 session could never find again
// ('café' sent as caf\xe9); statements on the table's plain columns run,
// and a utf8mb4 session still reads and writes the encrypted columns.
func TestProxyEncryptedLatin1Session(t *testing.T) {
	e := newEncEnv(t, encRules)
	utf := e.client(t)
	_, err := utf.Exec("INSERT INTO e9_user (id, name, phone, email) VALUES (1, 'a', 'café', 'x@y')")
	require.NoError(t, err)
	latin := (&pxEnv{srv: e.srv}).clientDB(t, "root", "secret", "e9_db", map[string]string{"charset": "latin1"})
	_, err = latin.Exec("INSERT INTO e9_user (id, name, phone, email) VALUES (2, 'b', 'café', 'x@y')")
	require.ErrorContains(t, err, "Error 1235 (42000): the statement reads or writes an encrypted column in a session with character set latin1")
	err = latin.QueryRow("SELECT phone FROM e9_user WHERE id = 1").Scan(new(string))
	require.ErrorContains(t, err, "Error 1235 (42000)")
	var name string
	require.NoError(t, latin.QueryRow("SELECT name FROM e9_user WHERE id = 1").Scan(&name))
	require.Equal(t, "a", name)
	var phone string
	require.NoError(t, utf.QueryRow("SELECT phone FROM e9_user WHERE phone = 'café'").Scan(&phone))
	require.Equal(t, "café", phone)
	var n int
	require.NoError(t, utf.QueryRow("SELECT COUNT(*) FROM e9_user").Scan(&n))
	require.Equal(t, 1, n, "the refused INSERT wrote nothing")
}

// TestLoadConfigDroppedEncryptColumn: --ddl migrations in logic form that
// drop phone while the !ENCRYPT rule still lists it are refused when the
// proxy loads them, naming the DROP, as generate refuses them; without the
// DROP they load, the logic columns read as their physical columns.
func TestLoadConfigDroppedEncryptColumn(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "e9.yaml")
	require.NoError(t, os.WriteFile(rules, []byte(encConfigYAML(nil, encRules)), 0o644))
	mig := filepath.Join(dir, "migrations")
	require.NoError(t, os.Mkdir(mig, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mig, "1_init.up.sql"), []byte(encLogicDDL), 0o644))
	cfg, err := LoadConfig(rules, []string{mig})
	require.NoError(t, err)
	require.NotNil(t, cfg.Rules.Tables["e9_user"].Column("phone_like"))
	require.NoError(t, os.WriteFile(filepath.Join(mig, "2_drop.up.sql"), []byte("ALTER TABLE e9_user DROP COLUMN phone;"), 0o644))
	_, err = LoadConfig(rules, []string{mig})
	require.ErrorContains(t, err, `encrypt column "phone" of table "e9_user": `+filepath.Join(mig, "2_drop.up.sql")+`:1:1 drops it (ALTER TABLE e9_user DROP COLUMN phone), but the !ENCRYPT rule still lists it`)
}
