package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/pipeline"
	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/proxy"
)

// exampleActual lists the actual tables of examples/orders per data source
// (sharding.yaml: t_order and t_order_item over ds_0, ds_1 with four tables
// each, the broadcast t_dict on both).
var exampleActual = []string{
	"t_order_0", "t_order_1", "t_order_2", "t_order_3",
	"t_order_item_0", "t_order_item_1", "t_order_item_2", "t_order_item_3",
	"t_dict",
}

// TestMigrateExample: on data sources without the example's tables,
// `shardgen migrate` creates every actual table of examples/orders, and a
// second run does nothing.
func TestMigrateExample(t *testing.T) {
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range append([]string{"shardgen_schema_migrations"}, exampleActual...) {
			_, err := db.Exec("DROP TABLE IF EXISTS " + tb)
			require.NoError(t, err)
		}
	}
	project := filepath.Join(example, "shardgen.yaml")

	code, out, errOut := runCLI("migrate", "-f", project, "--dry-run")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2*len(exampleActual), out)
	var first struct {
		DataSource string `json:"data_source"`
		Table      string `json:"table"`
		SQL        string `json:"sql"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.Equal(t, "ds_0", first.DataSource)
	require.Equal(t, "t_order_0", first.Table)
	require.True(t, strings.HasPrefix(strings.ToLower(first.SQL), "create table t_order_0 ("), first.SQL)

	code, out, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "applied ds_0: schema.sql (9 statements)\napplied ds_1: schema.sql (9 statements)\n", out)
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range exampleActual {
			var n int
			require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?", tb).Scan(&n))
			require.Equal(t, 1, n, "%s.%s", ds, tb)
		}
	}

	code, out, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "shardgen migrate: nothing to do (2 migrations already applied)\n", out)
}

// TestMigrateDirectory: a goose directory whose second migration adds a
// column and an index; the generator types the added column, migrate
// applies both files once, and a failing statement names its data node and
// the data nodes already changed.
func TestMigrateDirectory(t *testing.T) {
	dir := t.TempDir()
	// The example's data sources and its broadcast table only.
	rules, err := os.ReadFile(filepath.Join(example, "sharding.yaml"))
	require.NoError(t, err)
	head, _, ok := strings.Cut(string(rules), "\nrules:\n")
	require.True(t, ok)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sharding.yaml"), []byte(head+"\nrules:\n- !BROADCAST\n  tables: [t_dict]\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "migrations"), 0o755))
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "migrations", name), []byte(src), 0o644))
	}
	write("00001_init.sql", "-- +goose Up\nCREATE TABLE t_dict (code VARCHAR(32) NOT NULL PRIMARY KEY, label VARCHAR(64) NOT NULL);\n-- +goose Down\nDROP TABLE t_dict;\n")
	write("00002_note.sql", "-- +goose Up\nALTER TABLE t_dict ADD COLUMN note VARCHAR(10) NULL;\nCREATE INDEX idx_label ON t_dict (label);\n-- +goose Down\nALTER TABLE t_dict DROP COLUMN note;\n")
	write("README.md", "not a migration")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "queries"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries", "dict.sql"), []byte("-- name: GetNote :one\nSELECT note FROM t_dict WHERE code = ?;\n"), 0o644))
	project := filepath.Join(dir, "shardgen.yaml")
	require.NoError(t, os.WriteFile(project, []byte("version: \"1\"\nrules: sharding.yaml\nddl: [migrations]\nqueries: [queries/*.sql]\nout: db\n"), 0o644))

	// The generator sees the column the second migration adds.
	code, out, errOut := runCLI("explain", "-f", project, "--format", "json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"type": "database/sql.NullString"`)
	// vet reads the directory as generate does: in order, Up parts only.
	code, out, errOut = runCLI("vet", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "DDL: 1 table(s)")
	code, _, errOut = runCLI("vet", "-c", filepath.Join(dir, "sharding.yaml"), "--ddl", filepath.Join(dir, "migrations", "00001_init.sql"), "--ddl", filepath.Join(dir, "migrations", "00002_note.sql"))
	require.Equal(t, 0, code, errOut)
	// preview, vet and the proxy take a migration directory as --ddl.
	code, out, errOut = runCLI("preview", "-c", filepath.Join(dir, "sharding.yaml"), "--ddl", filepath.Join(dir, "migrations"), "SELECT note FROM t_dict WHERE code = 'a'")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"sql":"SELECT note FROM t_dict WHERE code = 'a'"`)
	code, _, errOut = runCLI("vet", "-c", filepath.Join(dir, "sharding.yaml"), "--ddl", filepath.Join(dir, "migrations"))
	require.Equal(t, 0, code, errOut)
	_, err = proxy.LoadConfig(filepath.Join(dir, "sharding.yaml"), []string{filepath.Join(dir, "migrations")})
	require.NoError(t, err)

	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"shardgen_schema_migrations", "t_dict"} {
			_, err := db.Exec("DROP TABLE IF EXISTS " + tb)
			require.NoError(t, err)
		}
	}
	code, out, errOut = runCLI("migrate", "-f", project, "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 6, strings.Count(out, "\n"), out)
	require.NotContains(t, out, "DROP", "the Down parts are not applied")
	code, out, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "applied ds_0: migrations/00001_init.sql (1 statements)\napplied ds_1: migrations/00001_init.sql (1 statements)\n"+
		"applied ds_0: migrations/00002_note.sql (2 statements)\napplied ds_1: migrations/00002_note.sql (2 statements)\n", out)

	// A query that does not plan keeps generate from running but not
	// migrate: migrating reads no query file.
	bad := filepath.Join(dir, "queries", "bad.sql")
	require.NoError(t, os.WriteFile(bad, []byte("-- name: Bad :one\nSELECT nope FROM t_dict WHERE code = ?;\n"), 0o644))
	code, _, errOut = runCLI("explain", "-f", project)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `bad.sql:2:8: query "Bad": unknown column "nope"`)
	code, out, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "shardgen migrate: nothing to do (4 migrations already applied)\n", out)
	require.NoError(t, os.Remove(bad))

	// A third migration that fails on ds_1 only (its column already exists
	// there): stops, naming the data node and what ran.
	db1 := testdb.Open(t, "ds_1")
	_, err = db1.Exec("ALTER TABLE t_dict ADD COLUMN extra INT NULL")
	require.NoError(t, err)
	write("00003_extra.sql", "ALTER TABLE t_dict ADD COLUMN extra INT NULL;\n")
	code, _, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "migration migrations/00003_extra.sql failed on data node ds_1.t_dict: Error 1060 (42S21): Duplicate column name 'extra' (data nodes already changed by this run: ds_0.t_dict)")
	require.NotContains(t, errOut, "undo", "nothing of it ran on ds_1")
	// A migration whose second statement fails on ds_1: the first ran there,
	// and ds_1 records nothing, so the error lists it to undo; every data
	// node changed is listed once.
	_, err = db1.Exec("ALTER TABLE t_dict DROP COLUMN extra, ADD COLUMN extra2 INT NULL")
	require.NoError(t, err)
	write("00004_extra2.sql", "ALTER TABLE t_dict ADD COLUMN extra3 INT NULL;\nALTER TABLE t_dict ADD COLUMN extra2 INT NULL;\n")
	code, _, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "migration migrations/00004_extra2.sql failed on data node ds_1.t_dict: Error 1060 (42S21): Duplicate column name 'extra2' (data nodes already changed by this run: ds_1.t_dict, ds_0.t_dict); "+
		"ds_1 does not record the migration and the next run applies all of it there again, so first undo the statements of it that ran there: alter table t_dict add column extra3 INT null on ds_1.t_dict\n")
	require.NoError(t, os.Remove(filepath.Join(dir, "migrations", "00004_extra2.sql")))

	// An applied migration that changes is refused.
	write("00001_init.sql", "CREATE TABLE t_dict (code VARCHAR(40) NOT NULL PRIMARY KEY, label VARCHAR(64) NOT NULL);\n")
	code, _, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "migration migrations/00001_init.sql changed since it was applied")
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"shardgen_schema_migrations", "t_dict"} {
			_, err := db.Exec("DROP TABLE IF EXISTS " + tb)
			require.NoError(t, err)
		}
	}
}

// TestMigrateEncryptLogicDDL: the CREATE TABLE of an encrypt table names
// the logic column (phone VARCHAR(32)); the generator types it, migrate
// creates the cipher, assisted query and like query columns on every actual
// table, sized so that the ciphertext of the longest value fits (strict
// mode refuses a value that does not).
func TestMigrateEncryptLogicDDL(t *testing.T) {
	dir := t.TempDir()
	writeEncryptRules(t, dir, "g21_user", `        phone:
          cipher: {name: phone_cipher, encryptorName: aes}
          assistedQuery: {name: phone_md5, encryptorName: md5}
          likeQuery: {name: phone_like, encryptorName: like}
`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte("CREATE TABLE g21_user (\n  user_id BIGINT NOT NULL PRIMARY KEY,\n  phone VARCHAR(32) NULL,\n  KEY idx_phone (phone)\n);\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "queries"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries", "users.sql"), []byte("-- name: AddUser :exec\nINSERT INTO g21_user (user_id, phone) VALUES (?, ?);\n\n-- name: GetUser :one\nSELECT user_id, phone FROM g21_user WHERE user_id = ?;\n"), 0o644))
	project := filepath.Join(dir, "shardgen.yaml")
	require.NoError(t, os.WriteFile(project, []byte("version: \"1\"\nrules: sharding.yaml\nddl: [schema.sql]\nqueries: [queries/*.sql]\nout: db\n"), 0o644))

	code, out, errOut := runCLI("explain", "-f", project, "--format", "json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "insert into g21_user_0(user_id, phone_cipher, phone_md5, phone_like) values (?, ?, ?, ?)")

	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"shardgen_schema_migrations", "g21_user_0", "g21_user_1"} {
			_, err := db.Exec("DROP TABLE IF EXISTS " + tb)
			require.NoError(t, err)
		}
	}
	code, out, errOut = runCLI("migrate", "-f", project, "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `phone_cipher VARCHAR(192) null,\n\tphone_md5 VARCHAR(32) null,\n\tphone_like VARCHAR(64) null`)
	require.Contains(t, out, "key idx_phone (phone_md5)")
	code, _, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)

	// The ciphertext of 32 four-byte characters fits phone_cipher.
	enc := encryptCLI(t, dir, "g21_user", "phone", strings.Repeat("😀", 32))
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"g21_user_0", "g21_user_1"} {
			var cols string
			require.NoError(t, db.QueryRow("SELECT GROUP_CONCAT(CONCAT(column_name, ' ', column_type) ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?", tb).Scan(&cols))
			require.Equal(t, "user_id bigint(20),phone_cipher varchar(192),phone_md5 varchar(32),phone_like varchar(64)", cols, "%s.%s", ds, tb)
			_, err := db.Exec("SET SESSION sql_mode = 'STRICT_ALL_TABLES'")
			require.NoError(t, err)
			_, err = db.Exec("INSERT INTO "+tb+" (user_id, phone_cipher, phone_md5, phone_like) VALUES (1, ?, ?, ?)", enc["cipher"], enc["assisted"], enc["like"])
			require.NoError(t, err)
			_, err = db.Exec("DROP TABLE " + tb)
			require.NoError(t, err)
		}
		_, err := db.Exec("DROP TABLE shardgen_schema_migrations")
		require.NoError(t, err)
	}
}

// TestMigrateEncryptAlterLogic: a migration directory whose later ALTER
// TABLEs add, modify and drop logic columns of an encrypt table (phone:
// cipher, assisted and like query columns; email: cipher and assisted;
// ssn: cipher), with FIRST / AFTER and an index on a logic column, then
// modify a physical column (email_cipher) by its name. The
// generator types the columns the last migration leaves, and migrate turns
// each clause into clauses on the physical columns, so every actual table
// on the servers ends with exactly the physical columns, in the order and
// of the types the generator derived; the widened cipher column holds the
// ciphertext of the longest value (strict mode); a second run does
// nothing.
func TestMigrateEncryptAlterLogic(t *testing.T) {
	dir := t.TempDir()
	writeEncryptRules(t, dir, "g22_user", `        phone:
          cipher: {name: phone_cipher, encryptorName: aes}
          assistedQuery: {name: phone_md5, encryptorName: md5}
          likeQuery: {name: phone_like, encryptorName: like}
        email:
          cipher: {name: email_cipher, encryptorName: aes}
          assistedQuery: {name: email_md5, encryptorName: md5}
        ssn:
          cipher: {name: ssn_cipher, encryptorName: aes}
`)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "migrations"), 0o755))
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "migrations", name), []byte(src), 0o644))
	}
	write("00001_init.sql", "-- +goose Up\nCREATE TABLE g22_user (user_id BIGINT NOT NULL PRIMARY KEY, phone VARCHAR(32) NULL, note VARCHAR(10) NULL, ssn CHAR(11) NULL);\n")
	write("00002_contact.sql", "-- +goose Up\n"+
		"ALTER TABLE g22_user MODIFY COLUMN phone VARCHAR(64) NULL AFTER note, ADD COLUMN email VARCHAR(40) NOT NULL AFTER user_id, ADD INDEX idx_email (email);\n"+
		"ALTER TABLE g22_user DROP COLUMN note, DROP COLUMN ssn;\n"+
		"ALTER TABLE g22_user ADD COLUMN ssn CHAR(11) NULL;\n"+
		"-- +goose Down\nALTER TABLE g22_user DROP COLUMN email;\n")
	// A physical column of a logic-form table, by its own name.
	write("00003_cipher.sql", "-- +goose Up\nALTER TABLE g22_user MODIFY email_cipher VARCHAR(300) NOT NULL;\n")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "queries"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries", "users.sql"), []byte("-- name: AddUser :exec\nINSERT INTO g22_user (user_id, email, phone, ssn) VALUES (?, ?, ?, ?);\n"), 0o644))
	project := filepath.Join(dir, "shardgen.yaml")
	require.NoError(t, os.WriteFile(project, []byte("version: \"1\"\nrules: sharding.yaml\nddl: [migrations]\nqueries: [queries/*.sql]\nout: db\n"), 0o644))

	// The generator's columns after the migrations, as column_type reads.
	want := strings.Split(generatorColumns(t, project, "g22_user"), ",")
	require.Equal(t, "user_id bigint,email_cipher varchar(300),email_md5 varchar(32),phone_cipher varchar(364),phone_md5 varchar(32),phone_like varchar(128),ssn_cipher varchar(64)", strings.Join(want, ","))
	code, out, errOut := runCLI("explain", "-f", project, "--format", "json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "insert into g22_user_0(user_id, email_cipher, email_md5, phone_cipher, phone_md5, phone_like, ssn_cipher) values (?, ?, ?, ?, ?, ?, ?)")

	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"shardgen_schema_migrations", "g22_user_0", "g22_user_1"} {
			_, err := db.Exec("DROP TABLE IF EXISTS " + tb)
			require.NoError(t, err)
		}
	}
	code, out, errOut = runCLI("migrate", "-f", project, "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"sql":"alter table g22_user_0 modify column phone_cipher VARCHAR(364) null after note, modify column phone_md5 VARCHAR(32) null after phone_cipher, modify column phone_like VARCHAR(128) null after phone_md5, add column email_cipher VARCHAR(236) not null after user_id, add column email_md5 VARCHAR(32) not null after email_cipher, add key idx_email (email_md5)"`)
	require.Contains(t, out, `"sql":"alter table g22_user_1 drop column note, drop column ssn_cipher"`)
	require.Contains(t, out, `{"data_source":"ds_1","table":"g22_user_0","sql":"alter table g22_user_0 modify column email_cipher VARCHAR(300) not null"}`)
	code, _, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	code, out, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "nothing to do (6 migrations already applied)")

	// The ciphertext of 64 four-byte characters fits the widened phone_cipher.
	enc := encryptCLI(t, dir, "g22_user", "phone", strings.Repeat("😀", 64))
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"g22_user_0", "g22_user_1"} {
			var cols, keys string
			require.NoError(t, db.QueryRow("SELECT GROUP_CONCAT(CONCAT(column_name, ' ', REPLACE(column_type, 'bigint(20)', 'bigint')) ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?", tb).Scan(&cols))
			require.Equal(t, strings.Join(want, ","), cols, "%s.%s", ds, tb)
			require.NoError(t, db.QueryRow("SELECT GROUP_CONCAT(CONCAT(index_name, ' ', column_name)) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? AND index_name <> 'PRIMARY'", tb).Scan(&keys))
			require.Equal(t, "idx_email email_md5", keys, "%s.%s", ds, tb)
			_, err := db.Exec("SET SESSION sql_mode = 'STRICT_ALL_TABLES'")
			require.NoError(t, err)
			_, err = db.Exec("INSERT INTO "+tb+" (user_id, email_cipher, email_md5, phone_cipher, phone_md5, phone_like) VALUES (1, 'e', 'm', ?, ?, ?)", enc["cipher"], enc["assisted"], enc["like"])
			require.NoError(t, err)
			_, err = db.Exec("DROP TABLE " + tb)
			require.NoError(t, err)
		}
		_, err := db.Exec("DROP TABLE shardgen_schema_migrations")
		require.NoError(t, err)
	}
}

// TestMigrateEncryptPlainHistory: a column that was plain in older
// migrations (CREATE TABLE with phone, MODIFY phone) and is encrypted by a
// later one (ADD COLUMN phone_cipher, then DROP COLUMN phone) while the
// !ENCRYPT rule lists phone: generate reads the history as it ran and types
// phone_cipher, and migrate runs every statement as written (it rewrote
// them to phone_cipher: the ADD then failed as a duplicate column, and the
// DROP dropped phone_cipher), so the servers end with the generator's
// columns.
func TestMigrateEncryptPlainHistory(t *testing.T) {
	dir := t.TempDir()
	writeEncryptRules(t, dir, "g22_user", `        phone:
          cipher: {name: phone_cipher, encryptorName: aes}
`)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "migrations"), 0o755))
	for name, src := range map[string]string{
		"00001_init.sql":    "CREATE TABLE g22_user (user_id BIGINT NOT NULL PRIMARY KEY, phone VARCHAR(32) NULL);",
		"00002_widen.sql":   "ALTER TABLE g22_user MODIFY phone VARCHAR(64) NULL;",
		"00003_encrypt.sql": "ALTER TABLE g22_user ADD COLUMN phone_cipher VARCHAR(400) NULL;",
		"00004_plain.sql":   "ALTER TABLE g22_user DROP COLUMN phone;",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "migrations", name), []byte("-- +goose Up\n"+src+"\n"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "queries"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries", "users.sql"), []byte("-- name: GetUser :one\nSELECT user_id, phone FROM g22_user WHERE user_id = ?;\n"), 0o644))
	project := filepath.Join(dir, "shardgen.yaml")
	require.NoError(t, os.WriteFile(project, []byte("version: \"1\"\nrules: sharding.yaml\nddl: [migrations]\nqueries: [queries/*.sql]\nout: db\n"), 0o644))

	want := generatorColumns(t, project, "g22_user")
	require.Equal(t, "user_id bigint,phone_cipher varchar(400)", want)
	code, out, errOut := runCLI("explain", "-f", project, "--format", "json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "select user_id, phone_cipher as phone from g22_user_0")

	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"shardgen_schema_migrations", "g22_user_0", "g22_user_1"} {
			_, err := db.Exec("DROP TABLE IF EXISTS " + tb)
			require.NoError(t, err)
		}
	}
	code, out, errOut = runCLI("migrate", "-f", project, "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"sql":"alter table g22_user_1 modify column phone VARCHAR(64) null"`)
	require.Contains(t, out, `"sql":"alter table g22_user_1 drop column phone"`)
	code, _, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"g22_user_0", "g22_user_1"} {
			var cols string
			require.NoError(t, db.QueryRow("SELECT GROUP_CONCAT(CONCAT(column_name, ' ', REPLACE(column_type, 'bigint(20)', 'bigint')) ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?", tb).Scan(&cols))
			require.Equal(t, want, cols, "%s.%s", ds, tb)
			_, err := db.Exec("DROP TABLE " + tb)
			require.NoError(t, err)
		}
		_, err := db.Exec("DROP TABLE shardgen_schema_migrations")
		require.NoError(t, err)
	}
}

// TestMigrateEncryptModifyDropLogic: migrations after a logic-form CREATE
// TABLE modify the logic column (phone: new sizes for its cipher, assisted
// and like query columns), then drop it. While the !ENCRYPT rule still lists phone,
// generate refuses with the DROP's file:line and migrate drops the physical
// columns on every actual table (a second run does nothing); with phone
// removed from the rule, generate types the table without it and migrate
// has nothing to do.
func TestMigrateEncryptModifyDropLogic(t *testing.T) {
	dir := t.TempDir()
	phone := `        phone:
          cipher: {name: phone_cipher, encryptorName: aes}
          assistedQuery: {name: phone_md5, encryptorName: md5}
          likeQuery: {name: phone_like, encryptorName: like}
`
	email := `        email:
          cipher: {name: email_cipher, encryptorName: aes}
          assistedQuery: {name: email_md5, encryptorName: md5}
`
	writeEncryptRules(t, dir, "g23_user", phone+email)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "migrations"), 0o755))
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "migrations", name), []byte(src), 0o644))
	}
	write("00001_init.sql", "-- +goose Up\nCREATE TABLE g23_user (user_id BIGINT NOT NULL PRIMARY KEY, phone VARCHAR(32) NULL, email VARCHAR(40) NULL);\n")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "queries"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "queries", "users.sql"), []byte("-- name: AddUser :exec\nINSERT INTO g23_user (user_id, email) VALUES (?, ?);\n"), 0o644))
	project := filepath.Join(dir, "shardgen.yaml")
	require.NoError(t, os.WriteFile(project, []byte("version: \"1\"\nrules: sharding.yaml\nddl: [migrations]\nqueries: [queries/*.sql]\nout: db\n"), 0o644))
	columns := func() string { return generatorColumns(t, project, "g23_user") }
	require.Equal(t, "user_id bigint,phone_cipher varchar(192),phone_md5 varchar(32),phone_like varchar(64),email_cipher varchar(236),email_md5 varchar(32)", columns())
	write("00002_phone.sql", "-- +goose Up\nALTER TABLE g23_user MODIFY phone VARCHAR(64) NULL;\n")
	require.Equal(t, "user_id bigint,phone_cipher varchar(364),phone_md5 varchar(32),phone_like varchar(128),email_cipher varchar(236),email_md5 varchar(32)", columns())
	write("00003_drop.sql", "-- +goose Up\n\nALTER TABLE g23_user DROP COLUMN phone;\n")
	want := "user_id bigint,email_cipher varchar(236),email_md5 varchar(32)"
	require.Equal(t, want, columns())

	// The rule still lists phone: generate names the DROP and the rule.
	code, _, errOut := runCLI("generate", "-f", project)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `sharding.yaml:32:9: encrypt column "phone" of table "g23_user": `+filepath.Join(dir, "migrations", "00003_drop.sql")+`:3:1 drops it (ALTER TABLE g23_user DROP COLUMN phone), but the !ENCRYPT rule still lists it; remove phone from the rule's columns of g23_user`)
	require.NotContains(t, errOut, "is not a column of its CREATE TABLE")

	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"shardgen_schema_migrations", "g23_user_0", "g23_user_1"} {
			_, err := db.Exec("DROP TABLE IF EXISTS " + tb)
			require.NoError(t, err)
		}
	}
	code, out, errOut := runCLI("migrate", "-f", project, "--dry-run")
	require.Equal(t, 0, code, errOut)
	for _, ds := range []string{"ds_0", "ds_1"} {
		for _, tb := range []string{"g23_user_0", "g23_user_1"} {
			for _, sql := range []string{
				"alter table " + tb + " modify column phone_cipher VARCHAR(364) null, modify column phone_md5 VARCHAR(32) null, modify column phone_like VARCHAR(128) null",
				"alter table " + tb + " drop column phone_cipher, drop column phone_md5, drop column phone_like",
			} {
				require.Contains(t, out, `{"data_source":"`+ds+`","table":"`+tb+`","sql":"`+sql+`"}`)
			}
		}
	}
	check := func() {
		t.Helper()
		for _, ds := range []string{"ds_0", "ds_1"} {
			db := testdb.Open(t, ds)
			for _, tb := range []string{"g23_user_0", "g23_user_1"} {
				var cols string
				require.NoError(t, db.QueryRow("SELECT GROUP_CONCAT(CONCAT(column_name, ' ', REPLACE(column_type, 'bigint(20)', 'bigint')) ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?", tb).Scan(&cols))
				require.Equal(t, want, cols, "%s.%s", ds, tb)
			}
		}
	}
	code, out, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "applied")
	check()
	code, out, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "nothing to do (6 migrations already applied)")

	// Without phone in the rule the table is typed without it, and the
	// migrations (recorded by their text) stay applied.
	writeEncryptRules(t, dir, "g23_user", email)
	require.Equal(t, want, columns())
	code, out, errOut = runCLI("explain", "-f", project, "--format", "json")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "insert into g23_user_0(user_id, email_cipher, email_md5) values (?, ?, ?)")
	code, out, errOut = runCLI("migrate", "-f", project)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "nothing to do (6 migrations already applied)")
	check()
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"shardgen_schema_migrations", "g23_user_0", "g23_user_1"} {
			_, err := db.Exec("DROP TABLE " + tb)
			require.NoError(t, err)
		}
	}
}

// generatorColumns lists the columns the generator types for table of
// project (pipeline.LoadSchema) as information_schema's column_type reads
// them: "user_id bigint,phone_cipher varchar(192)".
func generatorColumns(t *testing.T, project, table string) string {
	t.Helper()
	p, err := pipeline.LoadSchema(project)
	require.NoError(t, err)
	var cols []string
	for _, c := range p.Config.Tables[table].Columns {
		typ := c.Type
		if c.Length != nil {
			typ += "(" + strconv.Itoa(*c.Length) + ")"
		}
		cols = append(cols, c.Name+" "+typ)
	}
	return strings.Join(cols, ",")
}

// writeEncryptRules writes dir/sharding.yaml: the example's data sources,
// table sharded by user_id (MOD 2 over ds_0, ds_1; two tables each) and
// the !ENCRYPT rule of table with columns (YAML under "columns:", indented
// 8) and the encryptors aes, md5 and like.
func writeEncryptRules(t *testing.T, dir, table, columns string) {
	t.Helper()
	rules, err := os.ReadFile(filepath.Join(example, "sharding.yaml"))
	require.NoError(t, err)
	head, _, ok := strings.Cut(string(rules), "\nrules:\n")
	require.True(t, ok)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sharding.yaml"), []byte(head+`
rules:
- !SHARDING
  tables:
    `+table+`:
      actualDataNodes: ds_${0..1}.`+table+`_${0..1}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: ds_mod}}
      tableStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: t_inline}}
  shardingAlgorithms:
    ds_mod: {type: MOD, props: {sharding-count: 2}}
    t_inline: {type: INLINE, props: {algorithm-expression: "`+table+`_${user_id.intdiv(2) % 2}"}}
- !ENCRYPT
  tables:
    `+table+`:
      columns:
`+columns+`  encryptors:
    aes: {type: AES, props: {aes-key-value: 123456abc}}
    md5: {type: MD5}
    like: {type: CHAR_DIGEST_LIKE}
`), 0o644))
}

// encryptCLI runs `shardgen encrypt` for value and returns its outputs by
// name (cipher, assisted, like).
func encryptCLI(t *testing.T, dir, table, column, value string) map[string]string {
	t.Helper()
	code, out, errOut := runCLI("encrypt", "-c", filepath.Join(dir, "sharding.yaml"), "--table", table, "--column", column, value)
	require.Equal(t, 0, code, errOut)
	enc := map[string]string{} // VALUE\tcipher=...\tassisted=...\tlike=...
	for _, f := range strings.Split(strings.TrimSpace(out), "\t")[1:] {
		k, v, _ := strings.Cut(f, "=")
		enc[k] = v
	}
	require.NotEmpty(t, enc["cipher"], out)
	return enc
}

// TestMigrateProjects: two projects whose migrations share a file name
// (migrations/00001_init.sql) on the same data sources, one keyed by its
// go.mod (example.com/shop-a/db), one by migrations_project:. A
// shardgen_schema_migrations table of the old layout (no project column)
// is upgraded and keeps its rows; its row of 00001_init.sql is refused to
// the project whose file differs and taken by the one whose file matches;
// then both projects apply their own 00001_init.sql and a second run of
// each does nothing.
func TestMigrateProjects(t *testing.T) {
	rules, err := os.ReadFile(filepath.Join(example, "sharding.yaml"))
	require.NoError(t, err)
	head, _, ok := strings.Cut(string(rules), "\nrules:\n")
	require.True(t, ok)
	mkProject := func(table, extra string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "sharding.yaml"), []byte(head+"\nrules:\n- !BROADCAST\n  tables: ["+table+"]\n"), 0o644))
		require.NoError(t, os.Mkdir(filepath.Join(dir, "migrations"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "migrations", "00001_init.sql"), []byte("CREATE TABLE "+table+" (code VARCHAR(32) NOT NULL PRIMARY KEY);\n"), 0o644))
		project := filepath.Join(dir, "shardgen.yaml")
		require.NoError(t, os.WriteFile(project, []byte("version: \"1\"\nrules: sharding.yaml\nddl: [migrations]\nout: db\n"+extra), 0o644))
		return project
	}
	a := mkProject("mk_a_dict", "")
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(a), "go.mod"), []byte("module example.com/shop-a\n\ngo 1.24\n"), 0o644))
	b := mkProject("mk_b_dict", "migrations_project: shop-b\n")
	sumA := sha256.Sum256([]byte("CREATE TABLE mk_a_dict (code VARCHAR(32) NOT NULL PRIMARY KEY);\n"))
	const applied = "applied ds_0: migrations/00001_init.sql (1 statements)\napplied ds_1: migrations/00001_init.sql (1 statements)\n"
	const nothing = "shardgen migrate: nothing to do (2 migrations already applied)\n"
	migrate := func(project, want string) {
		t.Helper()
		code, out, errOut := runCLI("migrate", "-f", project)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, want, out)
	}
	drop := func(db *sql.DB, ifExists string) {
		for _, tb := range []string{"shardgen_schema_migrations", "mk_a_dict", "mk_b_dict"} {
			_, err := db.Exec("DROP TABLE " + ifExists + tb)
			require.NoError(t, err)
		}
	}

	// Project a ran under the old layout: its table and its record exist,
	// beside a record of some other file.
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		drop(db, "IF EXISTS ")
		for _, q := range []string{
			"CREATE TABLE shardgen_schema_migrations (id VARCHAR(255) NOT NULL PRIMARY KEY, checksum CHAR(64) NOT NULL, applied_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP)",
			"CREATE TABLE mk_a_dict (code VARCHAR(32) NOT NULL PRIMARY KEY)",
			"INSERT INTO shardgen_schema_migrations (id, checksum, applied_at) VALUES ('migrations/00001_init.sql', '" + hex.EncodeToString(sumA[:]) + "', '2026-01-02 03:04:05'), ('schema.sql', '" + strings.Repeat("0", 64) + "', '2026-01-02 03:04:05')",
		} {
			_, err := db.Exec(q)
			require.NoError(t, err)
		}
	}

	// b first: the old row of its file name has another checksum; which
	// project it is cannot be told, so b is refused, with what to do.
	code, out, errOut := runCLI("migrate", "-f", b)
	require.Equal(t, 1, code, out)
	require.Empty(t, out)
	require.Contains(t, errOut, "data source ds_0: migration migrations/00001_init.sql: shardgen_schema_migrations records it from before migrations were kept per project")
	require.Contains(t, errOut, "UPDATE shardgen_schema_migrations SET project = 'that project' WHERE project = '' AND id = 'migrations/00001_init.sql'")

	// a takes the old row: nothing to do.
	migrate(a, nothing)
	// Now b applies its own 00001_init.sql; a second run of each does nothing.
	migrate(b, applied)
	migrate(a, nothing)
	migrate(b, nothing)
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		var rows string
		require.NoError(t, db.QueryRow("SELECT GROUP_CONCAT(CONCAT(project, '|', id, '|', applied_at < '2026-02-01') ORDER BY project, id SEPARATOR ', ') FROM shardgen_schema_migrations").Scan(&rows))
		require.Equal(t, "|schema.sql|1, example.com/shop-a/db|migrations/00001_init.sql|1, shop-b|migrations/00001_init.sql|0", rows, ds)
		drop(db, "")
	}

	// On empty data sources both projects apply their 00001_init.sql.
	migrate(a, applied)
	migrate(b, applied)
	migrate(a, nothing)
	migrate(b, nothing)
	for _, ds := range []string{"ds_0", "ds_1"} {
		drop(testdb.Open(t, ds), "")
	}
}
