package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/vt/sqlparser"
)

// TestEncryptAlterTable: the clauses of an ALTER TABLE that name a logic
// column are rewritten to its physical columns (sized as for CREATE
// TABLE), in place of the logic column; other clauses and tables stay as
// written; renaming a logic column is refused.
func TestEncryptAlterTable(t *testing.T) {
	rule := &EncryptRule{
		Tables: []*EncryptTable{{Name: "t_user", Columns: []*EncryptColumn{
			{Name: "phone", Cipher: EncryptDerived{Column: "phone_cipher", Encryptor: "aes"}, AssistedQuery: &EncryptDerived{Column: "phone_md5", Encryptor: "md5"}, LikeQuery: &EncryptDerived{Column: "phone_like", Encryptor: "like"}},
			{Name: "ssn", Cipher: EncryptDerived{Column: "ssn", Encryptor: "aes"}}, // the cipher column carries the logic name
		}}},
		Encryptors: map[string]*AlgorithmSpec{"aes": {Type: "AES"}, "md5": {Type: "MD5"}, "like": {Type: "CHAR_DIGEST_LIKE"}},
	}
	p, err := ddlParser()
	require.NoError(t, err)
	for _, tc := range []struct{ in, out, err string }{
		{in: "ALTER TABLE t_user ADD COLUMN phone VARCHAR(32) NULL AFTER id, ADD COLUMN note INT, ADD INDEX idx_phone (phone)",
			out: "alter table t_user add column phone_cipher VARCHAR(192) null after id, add column phone_md5 VARCHAR(32) null after phone_cipher, add column phone_like VARCHAR(64) null after phone_md5, add column note INT, add key idx_phone (phone_md5)"},
		{in: "ALTER TABLE t_user ADD COLUMN (a INT, phone VARCHAR(8) NOT NULL, b INT)",
			out: "alter table t_user add column a INT, add column phone_cipher VARCHAR(64) not null, add column phone_md5 VARCHAR(32) not null, add column phone_like VARCHAR(16) not null, add column b INT"},
		{in: "ALTER TABLE t_user MODIFY COLUMN phone VARCHAR(64) NULL, MODIFY note BIGINT AFTER phone",
			out: "alter table t_user modify column phone_cipher VARCHAR(364) null, modify column phone_md5 VARCHAR(32) null, modify column phone_like VARCHAR(128) null, modify column note BIGINT after phone_like"},
		{in: "ALTER TABLE t_user MODIFY phone VARCHAR(16) FIRST",
			out: "alter table t_user modify column phone_cipher VARCHAR(108) null first, modify column phone_md5 VARCHAR(32) null after phone_cipher, modify column phone_like VARCHAR(32) null after phone_md5"},
		{in: "ALTER TABLE t_user DROP COLUMN phone, DROP COLUMN note",
			out: "alter table t_user drop column phone_cipher, drop column phone_md5, drop column phone_like, drop column note"},
		{in: "CREATE INDEX idx_phone ON t_user (phone)",
			out: "alter table t_user add key idx_phone (phone_md5)"},
		// Physical names, another table: as written.
		{in: "ALTER TABLE t_user MODIFY ssn VARCHAR(64), DROP COLUMN phone_like", out: "alter table t_user modify column ssn VARCHAR(64), drop column phone_like"},
		{in: "ALTER TABLE t_order ADD COLUMN phone INT", out: "alter table t_order add column phone INT"},
		{in: "ALTER TABLE t_user CHANGE COLUMN phone mobile VARCHAR(32)",
			err: "ALTER TABLE t_user CHANGE COLUMN phone: phone is the logic column of an encrypt column, whose cipher column phone_cipher the !ENCRYPT rule names; write MODIFY COLUMN to change its type, and rename it in the rule and the DDL together"},
		{in: "ALTER TABLE t_user RENAME COLUMN phone TO mobile",
			err: "ALTER TABLE t_user RENAME COLUMN phone: phone is the logic column of an encrypt column, whose cipher column phone_cipher the !ENCRYPT rule names; rename it in the rule and the DDL together"},
	} {
		stmt, err := p.Parse(tc.in)
		require.NoError(t, err, tc.in)
		st, ok := stmt.(*sqlparser.AlterTable)
		require.True(t, ok, tc.in)
		changed, err := EncryptAlterTable(rule, st)
		if tc.err != "" {
			require.EqualError(t, err, tc.err)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.out, sqlparser.String(st), tc.in)
		require.Equal(t, tc.out != sqlparser.String(stmtOf(t, p, tc.in)), changed, tc.in)
	}
}

func stmtOf(t *testing.T, p *sqlparser.Parser, sql string) sqlparser.Statement {
	t.Helper()
	stmt, err := p.Parse(sql)
	require.NoError(t, err)
	return stmt
}

// TestParseDDLFilesEncrypt: read under an !ENCRYPT rule, a logic-form
// CREATE TABLE has its physical columns at once, so a later ALTER TABLE
// may name a physical column (MODIFY phone_cipher) or the logic one
// (MODIFY phone: new sizes; DROP COLUMN phone: its physical columns go).
// CheckDDL then reports an encrypt column the rule still lists though a
// migration dropped it, once, with the DROP's position, apart from its
// errors; without the column in the rule the same files read cleanly.
func TestParseDDLFilesEncrypt(t *testing.T) {
	phone := &EncryptColumn{Name: "phone", Cipher: EncryptDerived{Column: "phone_cipher", Encryptor: "aes"}, AssistedQuery: &EncryptDerived{Column: "phone_md5", Encryptor: "md5"}, LikeQuery: &EncryptDerived{Column: "phone_like", Encryptor: "like"}, Pos: ruleAt(7, 9)}
	rule := func(cols ...*EncryptColumn) *EncryptRule {
		return &EncryptRule{
			Tables:     []*EncryptTable{{Name: "t_user", Columns: cols}},
			Encryptors: map[string]*AlgorithmSpec{"aes": {Type: "AES"}, "md5": {Type: "MD5"}, "like": {Type: "CHAR_DIGEST_LIKE"}},
		}
	}
	dir := t.TempDir()
	var files []string
	write := func(name, src string) {
		files = append(files, filepath.Join(dir, name))
		require.NoError(t, os.WriteFile(files[len(files)-1], []byte(src), 0o644))
	}
	columns := func(r *EncryptRule) (string, *Table) {
		tables, err := ParseDDLFiles(files, r)
		require.NoError(t, err)
		require.Len(t, tables, 1)
		return columnTypes(tables[0]), tables[0]
	}
	write("1.sql", "CREATE TABLE t_user (id BIGINT PRIMARY KEY, phone VARCHAR(32) NULL, note VARCHAR(10), KEY idx_phone (phone));")
	write("2.sql", "ALTER TABLE t_user MODIFY phone_cipher VARCHAR(400) NULL;")
	cols, tb := columns(rule(phone))
	require.Equal(t, "id bigint,phone_cipher varchar400,phone_md5 varchar32,phone_like varchar64,note varchar10", cols)
	require.Equal(t, []string{"phone_md5"}, tb.Keys[0].Columns)
	write("3.sql", "ALTER TABLE t_user MODIFY phone VARCHAR(64) NULL;")
	cols, _ = columns(rule(phone))
	require.Contains(t, cols, "phone_cipher varchar364,phone_md5 varchar32,phone_like varchar128,note")
	write("4.sql", "\nALTER TABLE t_user DROP COLUMN phone;")
	cols, tb = columns(rule(phone))
	require.NotContains(t, cols, "phone")
	require.Empty(t, tb.Keys, "idx_phone goes with phone_md5")

	cfg := &Config{File: "r.yaml", Encrypt: rule(phone)}
	tables, err := ParseDDLFiles(files, cfg.Encrypt)
	require.NoError(t, err)
	require.NoError(t, CheckDDL(cfg, tables))
	require.EqualError(t, cfg.DroppedEncryptColumns.Err(), `r.yaml:7:9: encrypt column "phone" of table "t_user": `+files[3]+`:2:1 drops it (ALTER TABLE t_user DROP COLUMN phone), but the !ENCRYPT rule still lists it; remove phone from the rule's columns of t_user (shardgen migrate drops its physical columns phone_cipher, phone_md5, phone_like on every actual table while the rule lists it, so run it before removing it)`)

	// The rule without phone: 1, 3 and 4 (logic names only) read as a plain
	// column added, modified and dropped.
	files = append(files[:1], files[2:]...)
	cfg = &Config{File: "r.yaml", Encrypt: rule()}
	tables, err = ParseDDLFiles(files, cfg.Encrypt)
	require.NoError(t, err)
	require.NoError(t, CheckDDL(cfg, tables))
	require.Nil(t, cfg.DroppedEncryptColumns)
	require.Len(t, tables[0].Columns, 2)
}

// TestParseDDLPathsEncryptHistory: a migration directory whose older
// migrations ran while a column was plain reads as it ran, the !ENCRYPT
// rule applying to the final schema: goose migrations create t_user with a
// plain phone, MODIFY it, then add the cipher column the rule names now and
// drop the plain one (generate failed with a duplicate phone_cipher: the
// rule turned the first CREATE TABLE's phone into phone_cipher). Without
// the DROP the table has both the logic column and its cipher column,
// which CheckDDL refuses as before. The reverse, a cipher column MODIFYed
// before the rule lists it, or after the rule dropped it, reads as a
// physical column either way.
func TestParseDDLPathsEncryptHistory(t *testing.T) {
	phone := &EncryptColumn{Name: "phone", Cipher: EncryptDerived{Column: "phone_cipher", Encryptor: "aes"}, Pos: ruleAt(7, 9)}
	rule := func(cols ...*EncryptColumn) *EncryptRule {
		return &EncryptRule{Tables: []*EncryptTable{{Name: "t_user", Columns: cols}}, Encryptors: map[string]*AlgorithmSpec{"aes": {Type: "AES"}}}
	}
	read := func(r *EncryptRule, migrations ...string) (string, *Config, error) {
		dir := t.TempDir()
		for i, m := range migrations {
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d_m.sql", i+1)), []byte("-- +goose Up\n"+m+"\n-- +goose Down\nSELECT 1;\n"), 0o644))
		}
		tables, err := ParseDDLPaths([]string{dir}, r)
		require.NoError(t, err)
		require.Len(t, tables, 1)
		cfg := &Config{File: "r.yaml", Encrypt: r}
		err = CheckDDL(cfg, tables)
		return columnTypes(tables[0]), cfg, err
	}
	create := "CREATE TABLE t_user (id INT NOT NULL, phone VARCHAR(32) NULL, PRIMARY KEY (id));"
	widen := "ALTER TABLE t_user MODIFY phone VARCHAR(64) NULL;"
	addCipher := "ALTER TABLE t_user ADD COLUMN phone_cipher VARCHAR(400) NULL AFTER phone;"

	cols, cfg, err := read(rule(phone), create, widen, addCipher+"\nALTER TABLE t_user DROP COLUMN phone;")
	require.NoError(t, err)
	require.Nil(t, cfg.DroppedEncryptColumns)
	require.Equal(t, "id int,phone_cipher varchar400", cols)

	cols, _, err = read(rule(phone), create, widen, addCipher)
	require.Equal(t, "id int,phone varchar64,phone_cipher varchar400", cols)
	require.ErrorContains(t, err, `logic column "phone" of encrypt table "t_user" is also a column of its CREATE TABLE`)

	// Logic form throughout: the final phone VARCHAR(64) is derived.
	cols, _, err = read(rule(phone), create, widen)
	require.NoError(t, err)
	require.Equal(t, "id int,phone_cipher varchar364", cols)

	// A logic-form table whose later migration places a column after the
	// cipher column, or indexes it.
	cols, _, err = read(rule(phone), create, "ALTER TABLE t_user ADD COLUMN note VARCHAR(8) NULL AFTER phone_cipher, ADD INDEX idx (phone_cipher);")
	require.NoError(t, err)
	require.Equal(t, "id int,phone_cipher varchar192,note varchar8", cols)

	// The reverse: the cipher column exists first and is MODIFYed.
	physical := []string{"CREATE TABLE t_user (id INT NOT NULL, phone_cipher VARCHAR(200) NULL, PRIMARY KEY (id));", "ALTER TABLE t_user MODIFY phone_cipher VARCHAR(300) NULL;"}
	for _, r := range []*EncryptRule{rule(phone), rule()} {
		cols, _, err = read(r, physical...)
		require.NoError(t, err)
		require.Equal(t, "id int,phone_cipher varchar300", cols)
	}
}

// columnTypes lists t's columns as "name type[length]", comma-separated.
func columnTypes(t *Table) string {
	var out []string
	for _, c := range t.Columns {
		typ := c.Type
		if c.Length != nil {
			typ += fmt.Sprint(*c.Length)
		}
		out = append(out, c.Name+" "+typ)
	}
	return strings.Join(out, ",")
}
