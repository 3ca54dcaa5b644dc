package schema

import "strings"

// Table is a logic table as its CREATE TABLE statement defines it.
type Table struct {
	Name       string
	Columns    []*Column // in DDL order
	PrimaryKey []string  // column names, in key order; empty when none
	Keys       []*Key    // other indexes (UNIQUE, KEY/INDEX, FULLTEXT, SPATIAL)
	Charset    string    // table default charset, lower case; empty when not given
	Collation  string    // table default collation, lower case; empty when not given
	Pos        Pos       // the CREATE TABLE statement
	// Dropped maps the lower-case name of each column an ALTER TABLE ...
	// DROP COLUMN removed to the last such statement (a later ADD COLUMN
	// may have added it again: see Columns); nil when none was dropped.
	Dropped map[string]Pos
	// PlainEncrypt holds the lower-case logic names of the encrypt columns
	// whose cipher column an ALTER TABLE ... ADD COLUMN added while the
	// table had a column of the logic name: a plain column encrypted
	// later, whose statements shardgen migrate runs as written
	// (EncryptRuleAsRun); nil when none.
	PlainEncrypt map[string]bool
}

// Column returns the column named name (case-insensitive, as MySQL compares
// column names), or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

// VisibleColumns returns the columns that `SELECT *` reads and that an
// INSERT without a column list gives values to, in DDL order: every column
// but the INVISIBLE ones (MariaDB 10.3+, MySQL 8.0.23+), as the server
// counts them. It returns t.Columns itself when no column is invisible.
func (t *Table) VisibleColumns() []*Column {
	n := 0
	for _, c := range t.Columns {
		if !c.Invisible {
			n++
		}
	}
	if n == len(t.Columns) {
		return t.Columns
	}
	out := make([]*Column, 0, n)
	for _, c := range t.Columns {
		if !c.Invisible {
			out = append(out, c)
		}
	}
	return out
}

// Column is one column of a Table.
type Column struct {
	Name          string
	Type          string // MySQL type name, lower case: "bigint", "varchar", "decimal", "datetime", ...
	Unsigned      bool
	Zerofill      bool
	Length        *int     // (n) of varchar(n), char(n), int(n), datetime(fsp); nil when not given
	Scale         *int     // decimal(p,s) scale; nil when not given
	EnumValues    []string // enum/set members
	Nullable      bool     // false for NOT NULL and for PRIMARY KEY columns
	Default       *string  // DEFAULT as SQL text, as vitess prints it ("'0.00'", "null", "current_timestamp(6)", "(1 + 2)"); nil when none
	AutoIncrement bool
	Charset       string // lower case; empty when not given
	Collation     string // lower case; empty when not given (the table's applies)
	// Binary is the BINARY attribute of a character column (VARCHAR(10)
	// BINARY): the _bin collation of its character set. Collation holds that
	// collation when the column's or the table's charset is known.
	Binary bool
	// Generated is true for a generated column (GENERATED ALWAYS AS (expr)
	// [VIRTUAL|STORED]), whose value an INSERT or UPDATE may not set.
	Generated bool
	// Invisible is true for an INVISIBLE column (MariaDB 10.3+, MySQL
	// 8.0.23+): `SELECT *` does not read it and an INSERT without a column
	// list gives it no value (see Table.VisibleColumns); named, it is read
	// and written like any column.
	Invisible bool
	Pos       Pos // the column's name in its CREATE TABLE / ALTER TABLE
}

// Key is an index of a Table.
type Key struct {
	Name    string
	Kind    string // "unique", "index", "fulltext", "spatial"
	Columns []string
}
