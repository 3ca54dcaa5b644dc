package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// Logic DDL of encrypted tables. A ShardingSphere user describes the logic
// table: `phone VARCHAR(32)`, not its cipher, assisted query and like query
// columns. As ShardingSphere-Proxy does when it runs such a CREATE TABLE,
// the logic column's definition is replaced by the physical columns the
// !ENCRYPT rule names; unlike the proxy (which copies the logic column's
// type to each), each is sized to hold what its encryptor stores, so a
// value that fits the logic column always fits its ciphertext.
//
//	phone VARCHAR(32) NULL  →  phone_cipher VARCHAR(192) NULL,   (AES: base64 of the padded bytes of 32 utf8mb4 characters)
//	                           phone_md5 VARCHAR(32) NULL,       (MD5: 32 hex digits)
//	                           phone_like VARCHAR(64) NULL       (CHAR_DIGEST_LIKE: one character per UTF-16 unit)
//
// The physical form (a CREATE TABLE that already lists the cipher column)
// stays accepted and is left as it is.

// EncryptPhysicalColumns returns the physical columns that replace the
// logic column c of encrypt column ec (cipher, then assisted query, then
// like query, then the 5.1 plain column), or nil when the table's DDL is
// already physical for ec (c is its cipher or plain column, or c is not
// ec's logic column).
func EncryptPhysicalColumns(rule *EncryptRule, ec *EncryptColumn, c *Column) []*Column {
	if !strings.EqualFold(c.Name, ec.Name) || strings.EqualFold(ec.Name, ec.Cipher.Column) || strings.EqualFold(ec.Name, ec.Plain) {
		return nil
	}
	derive := func(name, encryptor string) *Column {
		typ, length := derivedType(rule, encryptor, c)
		return &Column{Name: name, Type: typ, Length: length, Nullable: c.Nullable, Charset: c.Charset, Collation: c.Collation, Invisible: c.Invisible, Pos: c.Pos}
	}
	out := []*Column{derive(ec.Cipher.Column, ec.Cipher.Encryptor)}
	if ec.AssistedQuery != nil && ec.AssistedQuery.Column != "" {
		out = append(out, derive(ec.AssistedQuery.Column, ec.AssistedQuery.Encryptor))
	}
	if ec.LikeQuery != nil && ec.LikeQuery.Column != "" {
		out = append(out, derive(ec.LikeQuery.Column, ec.LikeQuery.Encryptor))
	}
	if ec.Plain != "" {
		plain := *c
		plain.Name = ec.Plain
		out = append(out, &plain)
	}
	return out
}

// derivedType is the MySQL type of the column an encryptor fills from
// values of logic column c: VARCHAR(n) with n the longest output for the
// longest value c holds, or a TEXT type when that exceeds what a VARCHAR
// of a row can hold (16383 utf8mb4 characters).
func derivedType(rule *EncryptRule, encryptor string, c *Column) (string, *int) {
	typ := ""
	if spec := rule.Encryptors[encryptor]; spec != nil {
		typ = spec.Type
	}
	chars := plainChars(c)
	bytes := chars * bytesPerChar(c.Charset)
	var n int
	switch typ {
	case "MD5":
		n = 32 // hex of 16 bytes
	case "CHAR_DIGEST_LIKE":
		// One character per UTF-16 unit, as Java sees the value: a
		// character outside the BMP (4 bytes in utf8mb4, e.g. an emoji) is
		// two.
		n = chars
		if bytesPerChar(c.Charset) == 4 {
			n = 2 * chars
		}
	case "RC4":
		n = base64Len(bytes) // a stream cipher: as many bytes as the value
	default: // AES (ECB, PKCS5 padding) and unknown encryptors
		n = base64Len((bytes/16 + 1) * 16)
	}
	if n > 16383 {
		switch {
		case n <= 16777215/4:
			return "mediumtext", nil
		default:
			return "longtext", nil
		}
	}
	return "varchar", &n
}

// plainChars is the longest text, in characters, a value of c has: its
// length for CHAR / VARCHAR, the maximum of a TEXT type, and 64 for other
// types (numbers and dates as text).
func plainChars(c *Column) int {
	switch c.Type {
	case "char", "varchar", "binary", "varbinary":
		if c.Length != nil {
			return *c.Length
		}
		return 1
	case "tinytext", "tinyblob":
		return 255
	case "text", "blob":
		return 65535
	case "mediumtext", "mediumblob":
		return 16777215
	case "longtext", "longblob", "json":
		return 1 << 30
	}
	return 64
}

// bytesPerChar is the widest character of a character set in bytes (4 when
// the column does not say: the servers' default is utf8mb4).
func bytesPerChar(charset string) int {
	switch charset {
	case "latin1", "ascii", "binary":
		return 1
	case "utf8", "utf8mb3":
		return 3
	case "ucs2", "utf16":
		return 4
	}
	return 4
}

func base64Len(n int) int { return (n + 2) / 3 * 4 }

// deriveEncryptColumns replaces, in each encrypt table's CREATE TABLE, the
// logic columns with their physical columns (deriveEncryptTable). Tables
// already in physical form are left alone.
func deriveEncryptColumns(cfg *Config) {
	if cfg.Encrypt == nil {
		return
	}
	for _, et := range cfg.Encrypt.Tables {
		if t := cfg.Tables[strings.ToLower(et.Name)]; t != nil {
			deriveEncryptTable(cfg.Encrypt, t)
		}
	}
}

// deriveEncryptTable replaces, in t, the logic columns of its encrypt
// table in rule with their physical columns (EncryptPhysicalColumns), and
// keys on a logic column with keys on its assisted query column (or its
// cipher column). Columns already in physical form are left alone, as is a
// table rule does not name.
func deriveEncryptTable(rule *EncryptRule, t *Table) {
	et := encryptTableOf(rule, t.Name)
	if et == nil {
		return
	}
	for _, ec := range et.Columns {
		deriveEncryptColumn(rule, t, ec)
	}
}

// deriveEncryptColumn replaces, in t, the logic column of ec with its
// physical columns, as deriveEncryptTable does for every encrypt column;
// nothing when t has no such logic column or already has ec's cipher
// column.
func deriveEncryptColumn(rule *EncryptRule, t *Table, ec *EncryptColumn) {
	for i, c := range t.Columns {
		phys := EncryptPhysicalColumns(rule, ec, c)
		if phys == nil || t.Column(ec.Cipher.Column) != nil {
			continue
		}
		t.Columns = append(t.Columns[:i:i], append(phys, t.Columns[i+1:]...)...)
		keyCol := ec.Cipher.Column
		if ec.AssistedQuery != nil && ec.AssistedQuery.Column != "" {
			keyCol = ec.AssistedQuery.Column
		}
		renameKeyColumn(t, ec.Name, keyCol)
		return
	}
}

// renameKeyColumn makes the primary key and keys of t that name column
// from name column to instead.
func renameKeyColumn(t *Table, from, to string) {
	rename := func(cols []string) {
		for i, c := range cols {
			if strings.EqualFold(c, from) {
				cols[i] = to
			}
		}
	}
	rename(t.PrimaryKey)
	for _, k := range t.Keys {
		rename(k.Columns)
	}
}

// ColumnSQL renders a column definition for a CREATE TABLE or ALTER TABLE:
// `phone_cipher VARCHAR(192) NULL`, `amount DECIMAL(12, 2) UNSIGNED NOT
// NULL`, `kind ENUM('a', 'b') NULL`.
func ColumnSQL(c *Column) string {
	var b strings.Builder
	b.WriteString("`" + strings.ReplaceAll(c.Name, "`", "``") + "` " + strings.ToUpper(c.Type))
	switch {
	case len(c.EnumValues) > 0:
		vals := make([]string, len(c.EnumValues))
		for i, v := range c.EnumValues {
			vals[i] = "'" + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), "'", "''") + "'"
		}
		b.WriteString("(" + strings.Join(vals, ", ") + ")")
	case c.Length != nil && c.Scale != nil:
		b.WriteString("(" + strconv.Itoa(*c.Length) + ", " + strconv.Itoa(*c.Scale) + ")")
	case c.Length != nil:
		b.WriteString("(" + strconv.Itoa(*c.Length) + ")")
	}
	if c.Unsigned {
		b.WriteString(" UNSIGNED")
	}
	if c.Zerofill {
		b.WriteString(" ZEROFILL")
	}
	if c.Charset != "" {
		b.WriteString(" CHARACTER SET " + c.Charset)
	}
	if c.Collation != "" {
		b.WriteString(" COLLATE " + c.Collation)
	}
	if c.Nullable {
		b.WriteString(" NULL")
	} else {
		b.WriteString(" NOT NULL")
	}
	if c.Invisible {
		b.WriteString(" INVISIBLE")
	}
	return b.String()
}

// EncryptCreateTable rewrites, in place, a CREATE TABLE of an encrypt
// table written in logic form (see EncryptPhysicalColumns): each logic
// column definition becomes its physical column definitions, and index
// columns naming a logic column name its assisted query column (or its
// cipher column). `shardgen migrate` runs the result on every actual
// table, so the servers hold the columns the generator types. It reports
// whether anything changed; a CREATE TABLE of another table, or one in
// physical form, is left alone.
func EncryptCreateTable(rule *EncryptRule, st *sqlparser.CreateTable) (bool, error) {
	if st.TableSpec == nil {
		return false, nil
	}
	et := encryptTableOf(rule, st.Table.Name.String())
	if et == nil {
		return false, nil
	}
	has := func(name string) bool {
		for _, cd := range st.TableSpec.Columns {
			if strings.EqualFold(cd.Name.String(), name) {
				return true
			}
		}
		return false
	}
	changed := false
	for _, ec := range et.Columns {
		if has(ec.Cipher.Column) {
			continue // physical form
		}
		for i, cd := range st.TableSpec.Columns {
			cols, err := physicalDefs(rule, et, ec, cd)
			if err != nil {
				return false, err
			}
			if cols == nil {
				continue
			}
			st.TableSpec.Columns = append(st.TableSpec.Columns[:i], append(cols, st.TableSpec.Columns[i+1:]...)...)
			for _, idx := range st.TableSpec.Indexes {
				indexOnKeyColumn(idx, ec)
			}
			changed = true
			break
		}
	}
	return changed, nil
}

// EncryptAlterTable rewrites, in place, the clauses of an ALTER TABLE (or
// CREATE INDEX) of an encrypt table that name a logic column, as
// ShardingSphere-Proxy rewrites them, with the physical columns of
// EncryptPhysicalColumns (so the servers change the columns the generator
// types from the same DDL):
//
//	ADD COLUMN phone VARCHAR(32) NULL   →  ADD COLUMN phone_cipher VARCHAR(192) NULL, ADD COLUMN phone_md5 VARCHAR(32) NULL, ADD COLUMN phone_like VARCHAR(64) NULL
//	MODIFY COLUMN phone VARCHAR(64)     →  MODIFY COLUMN phone_cipher VARCHAR(344) NULL, MODIFY COLUMN phone_md5 ..., MODIFY COLUMN phone_like VARCHAR(128) NULL
//	DROP COLUMN phone                   →  DROP COLUMN phone_cipher, DROP COLUMN phone_md5, DROP COLUMN phone_like
//	ADD INDEX idx (phone)               →  ADD INDEX idx (phone_md5)  (the assisted query column, else the cipher column)
//
// FIRST or AFTER places the first physical column, the others follow it;
// AFTER a logic column means after its last physical column. CHANGE COLUMN
// and RENAME COLUMN of a logic column are refused: the !ENCRYPT rule names
// the logic column, so renaming it is a change of the rule as well. It
// reports whether anything changed; other tables and clauses are left
// alone.
func EncryptAlterTable(rule *EncryptRule, st *sqlparser.AlterTable) (bool, error) {
	et := encryptTableOf(rule, st.Table.Name.String())
	if et == nil {
		return false, nil
	}
	logic := func(name string) *EncryptColumn { return logicColumn(et, name) }
	changed := false
	// after maps AFTER a logic column to AFTER its last physical column.
	after := func(c *sqlparser.ColName) *sqlparser.ColName {
		if c == nil {
			return nil
		}
		if ec := logic(c.Name.String()); ec != nil {
			names := physicalNames(ec)
			changed = true
			return &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(names[len(names)-1])}
		}
		return c
	}
	// place gives the physical columns of one clause their positions: the
	// first where the clause put the logic column, each next one after the
	// one before (none when the clause gave no position).
	place := func(cols []*sqlparser.ColumnDefinition, first bool, at *sqlparser.ColName, mk func(*sqlparser.ColumnDefinition, bool, *sqlparser.ColName) sqlparser.AlterOption) []sqlparser.AlterOption {
		out := make([]sqlparser.AlterOption, len(cols))
		for i, cd := range cols {
			if i > 0 && (first || at != nil) {
				first, at = false, &sqlparser.ColName{Name: cols[i-1].Name}
			}
			out[i] = mk(cd, first, at)
		}
		return out
	}
	var opts []sqlparser.AlterOption
	for _, o := range st.AlterOptions {
		switch o := o.(type) {
		case *sqlparser.AddColumns:
			o.After = after(o.After)
			if !slices.ContainsFunc(o.Columns, func(cd *sqlparser.ColumnDefinition) bool { return logic(cd.Name.String()) != nil }) {
				opts = append(opts, o)
				continue
			}
			// One clause per column, each physical column in the place
			// of its logic column; the columns of ADD COLUMN (a, b) follow
			// each other.
			pos, at := o.First, o.After
			for _, cd := range o.Columns {
				cols := []*sqlparser.ColumnDefinition{cd}
				if ec := logic(cd.Name.String()); ec != nil {
					var err error
					if cols, err = physicalDefs(rule, et, ec, cd); err != nil {
						return false, err
					}
				}
				opts = append(opts, place(cols, pos, at, func(c *sqlparser.ColumnDefinition, first bool, at *sqlparser.ColName) sqlparser.AlterOption {
					return &sqlparser.AddColumns{Columns: []*sqlparser.ColumnDefinition{c}, First: first, After: at}
				})...)
				if pos || at != nil {
					pos, at = false, &sqlparser.ColName{Name: cols[len(cols)-1].Name}
				}
			}
			changed = true
		case *sqlparser.ModifyColumn:
			ec := logic(o.NewColDefinition.Name.String())
			if ec == nil {
				o.After = after(o.After)
				opts = append(opts, o)
				continue
			}
			cols, err := physicalDefs(rule, et, ec, o.NewColDefinition)
			if err != nil {
				return false, err
			}
			opts = append(opts, place(cols, o.First, after(o.After), func(c *sqlparser.ColumnDefinition, first bool, at *sqlparser.ColName) sqlparser.AlterOption {
				return &sqlparser.ModifyColumn{NewColDefinition: c, First: first, After: at}
			})...)
			changed = true
		case *sqlparser.DropColumn:
			ec := logic(o.Name.Name.String())
			if ec == nil {
				opts = append(opts, o)
				continue
			}
			for _, n := range physicalNames(ec) {
				opts = append(opts, &sqlparser.DropColumn{Name: &sqlparser.ColName{Name: sqlparser.NewIdentifierCI(n)}})
			}
			changed = true
		case *sqlparser.AddIndexDefinition:
			for _, ec := range et.Columns {
				if logic(ec.Name) != nil && indexOnKeyColumn(o.IndexDefinition, ec) {
					changed = true
				}
			}
			opts = append(opts, o)
		case *sqlparser.ChangeColumn:
			if ec := logic(o.OldColumn.Name.String()); ec != nil {
				return false, fmt.Errorf("ALTER TABLE %s CHANGE COLUMN %s: %s is the logic column of an encrypt column, whose cipher column %s the !ENCRYPT rule names; write MODIFY COLUMN to change its type, and rename it in the rule and the DDL together", et.Name, ec.Name, ec.Name, ec.Cipher.Column)
			}
			o.After = after(o.After)
			opts = append(opts, o)
		case *sqlparser.RenameColumn:
			if ec := logic(o.OldName.Name.String()); ec != nil {
				return false, fmt.Errorf("ALTER TABLE %s RENAME COLUMN %s: %s is the logic column of an encrypt column, whose cipher column %s the !ENCRYPT rule names; rename it in the rule and the DDL together", et.Name, ec.Name, ec.Name, ec.Cipher.Column)
			}
			opts = append(opts, o)
		default:
			opts = append(opts, o)
		}
	}
	st.AlterOptions = opts
	return changed, nil
}

// EncryptRuleAsRun returns rule without the encrypt columns of t that were
// plain columns encrypted later (t.PlainEncrypt): the rule shardgen
// migrate rewrites t's statements under, so that a migration from before
// phone was encrypted (CREATE TABLE with a plain phone, MODIFY phone) and
// the one adding phone_cipher and dropping phone run as written, as the
// generator reads them. rule itself when t (nil: unknown) has none.
func EncryptRuleAsRun(rule *EncryptRule, t *Table) *EncryptRule {
	if rule == nil || t == nil || len(t.PlainEncrypt) == 0 {
		return rule
	}
	et := encryptTableOf(rule, t.Name)
	if et == nil {
		return rule
	}
	view := *et
	view.Columns = slices.DeleteFunc(slices.Clone(et.Columns), func(ec *EncryptColumn) bool { return t.PlainEncrypt[strings.ToLower(ec.Name)] })
	out := *rule
	out.Tables = make([]*EncryptTable, len(rule.Tables))
	for i, o := range rule.Tables {
		out.Tables[i] = o
		if o == et {
			out.Tables[i] = &view
		}
	}
	return &out
}

// logicColumn returns the encrypt column of et whose logic column is name,
// when it stands for physical columns of other names, or nil.
func logicColumn(et *EncryptTable, name string) *EncryptColumn {
	for _, ec := range et.Columns {
		if strings.EqualFold(ec.Name, name) && !strings.EqualFold(ec.Name, ec.Cipher.Column) && !strings.EqualFold(ec.Name, ec.Plain) {
			return ec
		}
	}
	return nil
}

// encryptTableOf returns the encrypt table of rule named table, or nil.
func encryptTableOf(rule *EncryptRule, table string) *EncryptTable {
	if rule == nil {
		return nil
	}
	for _, t := range rule.Tables {
		if strings.EqualFold(t.Name, table) {
			return t
		}
	}
	return nil
}

// physicalDefs returns the column definitions that replace cd when it
// defines the logic column of ec (EncryptPhysicalColumns), or nil.
func physicalDefs(rule *EncryptRule, et *EncryptTable, ec *EncryptColumn, cd *sqlparser.ColumnDefinition) ([]*sqlparser.ColumnDefinition, error) {
	phys := EncryptPhysicalColumns(rule, ec, ddlColumn(cd))
	if phys == nil {
		return nil, nil
	}
	defs := make([]string, len(phys))
	for k, c := range phys {
		defs[k] = ColumnSQL(c)
	}
	p, err := ddlParser()
	if err != nil {
		return nil, err
	}
	parsed, err := p.ParseStrictDDL("CREATE TABLE x (" + strings.Join(defs, ", ") + ")")
	if err != nil {
		return nil, fmt.Errorf("encrypt column %s.%s: deriving its physical columns: %w", et.Name, ec.Name, err)
	}
	return parsed.(*sqlparser.CreateTable).TableSpec.Columns, nil
}

// physicalNames are the physical columns of ec in EncryptPhysicalColumns'
// order: cipher, assisted query, like query, plain.
func physicalNames(ec *EncryptColumn) []string {
	out := []string{ec.Cipher.Column}
	if ec.AssistedQuery != nil && ec.AssistedQuery.Column != "" {
		out = append(out, ec.AssistedQuery.Column)
	}
	if ec.LikeQuery != nil && ec.LikeQuery.Column != "" {
		out = append(out, ec.LikeQuery.Column)
	}
	if ec.Plain != "" {
		out = append(out, ec.Plain)
	}
	return out
}

// indexOnKeyColumn makes the columns of idx that name the logic column of
// ec name its assisted query column (or its cipher column) and reports
// whether it changed any.
func indexOnKeyColumn(idx *sqlparser.IndexDefinition, ec *EncryptColumn) bool {
	keyCol := ec.Cipher.Column
	if ec.AssistedQuery != nil && ec.AssistedQuery.Column != "" {
		keyCol = ec.AssistedQuery.Column
	}
	changed := false
	for _, ic := range idx.Columns {
		if ic.Column.EqualString(ec.Name) {
			ic.Column = sqlparser.NewIdentifierCI(keyCol)
			changed = true
		}
	}
	return changed
}
