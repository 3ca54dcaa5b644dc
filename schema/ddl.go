package schema

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"vitess.io/vitess/go/vt/sqlparser"
)

// ddlMySQLVersion is the server version the DDL parser assumes. It decides
// which /*!NNNNN ... */ comments are live (see notes/vitess-api.md §1.1): a
// MySQL-style version keeps mysqldump's /*!40101 ... */ and /*!80016 ... */
// parts, even when the backend is MariaDB.
const ddlMySQLVersion = "8.0.40"

// ddlParser is the one vitess parser every DDL file shares; a *Parser keeps
// no state between calls.
var ddlParser = sync.OnceValues(func() (*sqlparser.Parser, error) {
	return sqlparser.New(sqlparser.Options{MySQLServerVersion: ddlMySQLVersion})
})

// ParseDDLFile reads the file at path and parses it with ParseDDL, using path
// as the file name of every position. A read error is returned as is.
func ParseDDLFile(path string) ([]*Table, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseDDL(path, src)
}

// ParseDDL parses a MySQL DDL file (a hand-written schema or a mysqldump
// --no-data dump) into its tables, in file order. file names the source in
// positions ("schema/orders.sql"); src is its content.
//
// The file is split into statements with vitess's SplitStatementToPieces and
// each statement is parsed with ParseStrictDDL (a partly parsed CREATE TABLE is
// a syntax error) by a parser that assumes MySQL 8.0.40. What it accepts:
//   - CREATE TABLE [IF NOT EXISTS] [db.]t (...) [table options]: db is
//     ignored; columns, PRIMARY KEY (a column's PRIMARY KEY / KEY attribute or
//     a table-level PRIMARY KEY), UNIQUE / KEY / INDEX / FULLTEXT / SPATIAL
//     keys and the table's CHARSET / COLLATE are kept; FOREIGN KEY and CHECK
//     constraints, partitioning and other table options are ignored.
//   - CREATE TABLE t LIKE u, when u was defined earlier in the same file.
//   - ALTER TABLE t ADD COLUMN ... / ADD {INDEX|KEY|UNIQUE|PRIMARY KEY|
//     FULLTEXT|SPATIAL} ... (and ADD CONSTRAINT ... FOREIGN KEY / CHECK,
//     ignored), and CREATE INDEX, on a table defined earlier in the file.
//   - Skipped: comments, empty statements, DROP TABLE, SET, USE, CREATE
//     DATABASE, and statements written entirely inside /*! ... */ comments:
//     mysqldump's headers (/*!40101 SET NAMES utf8mb4 */), its /*!40000
//     ALTER TABLE t DISABLE KEYS */ lines and its view definitions.
//
// Anything else (INSERT, CREATE VIEW, ALTER TABLE ... DROP COLUMN, CREATE
// TEMPORARY TABLE, CREATE TABLE ... SELECT) is reported as "unsupported
// statement in DDL: ...". So are duplicate tables (compared
// case-insensitively), duplicate columns, several primary keys and keys on
// unknown columns. The error is a schema.Errors holding every problem of the
// file, each as "file:line:col: message"; columns count bytes from 1. A
// vitess syntax error's "at position N" is translated into the line and column
// of the offending token. The tables are returned even when the error is not
// nil, as far as they could be read (a duplicate column is dropped, a
// duplicate table is not returned twice), so that a caller may go on to
// CheckDDL and report more problems in one run.
func ParseDDL(file string, src []byte) ([]*Table, error) {
	set := &ddlSet{byName: map[string]*Table{}}
	err := set.parse(file, src)
	return set.tables, err
}

// ParseDDLFiles parses DDL files in order as one schema, as a migration tool
// applies them: an ALTER TABLE, CREATE INDEX or DROP TABLE in a later file
// changes a table an earlier file created (ParseDDL alone sees one file).
// Each file's content is MigrationUp of it (a goose file's Up part). The
// tables are returned in the order of their CREATE TABLE; errors of every
// file are joined, each "file:line:col: message"; a read error stops.
//
// With an !ENCRYPT rule (nil: none), the files may describe encrypt tables
// in logic form: the history acts on the columns as written and the rule
// applies to the final schema, where a logic column becomes its physical
// columns (EncryptPhysicalColumns). An ALTER TABLE clause naming a logic
// column the table does not have changes its physical columns
// (EncryptAlterTable), and one naming a physical column (MODIFY COLUMN
// phone_cipher ...) of a logic column the table has derives it first (see
// physicalRule), so a column that was plain in older migrations and is
// encrypted later reads as it ran.
func ParseDDLFiles(paths []string, rule *EncryptRule) ([]*Table, error) {
	set := &ddlSet{byName: map[string]*Table{}, encrypt: rule}
	var errs Errors
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := set.parse(path, MigrationUp(src)); err != nil {
			var e Errors
			if !errors.As(err, &e) {
				return nil, err
			}
			errs = append(errs, e...)
		}
	}
	for _, t := range set.tables {
		deriveEncryptTable(rule, t) // the rule on the final schema
	}
	return set.tables, errs.Err()
}

// ddlSet is the schema ParseDDL and ParseDDLFiles build: the tables in
// order of creation, and by lower-case name.
type ddlSet struct {
	tables []*Table
	byName map[string]*Table
	// encrypt, when not nil, is the !ENCRYPT rule the DDL is read under: a
	// CREATE TABLE of an encrypt table in logic form gets its physical
	// columns at once, and an ALTER TABLE naming a logic column changes
	// them (EncryptAlterTable), so later statements may name either.
	encrypt *EncryptRule
}

// parse adds the statements of one file to the set.
func (set *ddlSet) parse(file string, src []byte) error {
	p, err := ddlParser()
	if err != nil {
		return fmt.Errorf("schema: building the DDL parser: %w", err)
	}
	text := string(src)
	if strings.HasPrefix(text, "\ufeff") { // a UTF-8 byte order mark: blank it, keeping every offset
		text = "   " + text[3:]
	}
	d := &ddlFile{file: file, text: text, lines: ddlLineStarts(text), ddlSet: set}
	pieces, err := ddlSplit(p, text)
	if err != nil {
		d.vitessError(0, d.text, nil, err)
	}
	cursor := 0
	for _, piece := range pieces {
		off := ddlPieceOffset(d.text, piece, cursor)
		cursor = off + len(piece)
		d.statement(p, off, piece)
	}
	return d.errs.Err()
}

// ddlFile is the state of one ParseDDL call.
type ddlFile struct {
	file  string
	text  string
	lines []int // byte offset of the start of each line
	errs  Errors
	*ddlSet
}

// pos turns a byte offset of the file into a Pos (line and byte column from 1).
func (d *ddlFile) pos(off int) Pos {
	lo, hi := 0, len(d.lines)
	for hi-lo > 1 { // last line start <= off
		mid := (lo + hi) / 2
		if d.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return Pos{File: d.file, Line: lo + 1, Col: off - d.lines[lo] + 1}
}

func (d *ddlFile) errorf(off int, format string, args ...any) {
	d.errs.Add(d.pos(off), fmt.Sprintf(format, args...))
}

// ddlLineStarts returns the byte offset at which each line of text starts.
func ddlLineStarts(text string) []int {
	lines := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// ddlSplit splits text into statements with vitess's SplitStatementToPieces.
// That function panics on some malformed input (an unterminated quote
// followed by a semicolon, found by FuzzParseDDL); then the statements are
// cut at the semicolons ddlTokenize finds, so that parsing reports a syntax
// error at the right place instead of a crash.
func ddlSplit(p *sqlparser.Parser, text string) (pieces []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			pieces, err = nil, nil
			begin := 0
			for _, t := range ddlTokenize(text) {
				if t.kind == ';' {
					pieces = append(pieces, text[begin:t.start])
					begin = t.end
				}
			}
			if begin < len(text) {
				pieces = append(pieces, text[begin:])
			}
		}
	}()
	return p.SplitStatementToPieces(text)
}

// ddlPieceOffset returns the byte offset of piece in text. The pieces of
// SplitStatementToPieces are substrings of its input, so the offset is the
// distance between the two string data pointers; the search from cursor only
// serves if a future vitess copies its pieces.
func ddlPieceOffset(text, piece string, cursor int) int {
	if len(piece) > 0 && len(text) > 0 {
		off := int(uintptr(unsafe.Pointer(unsafe.StringData(piece))) - uintptr(unsafe.Pointer(unsafe.StringData(text))))
		if off >= 0 && off+len(piece) <= len(text) && text[off:off+len(piece)] == piece {
			return off
		}
	}
	if i := strings.Index(text[cursor:], piece); i >= 0 {
		return cursor + i
	}
	return cursor
}

// statement handles one piece of the file, which starts at byte off.
func (d *ddlFile) statement(p *sqlparser.Parser, off int, piece string) {
	toks := ddlTokenize(piece)
	if len(toks) == 0 {
		return // only blanks and comments
	}
	if ddlAllVersioned(toks) {
		return // a mysqldump header such as /*!40101 SET NAMES utf8mb4 */
	}
	start := off + toks[0].start
	stmt, err := ddlParseStrict(p, piece)
	if err != nil {
		if errors.Is(err, sqlparser.ErrEmpty) {
			return
		}
		d.vitessError(off, piece, toks, err)
		return
	}
	switch st := stmt.(type) {
	case *sqlparser.CreateTable:
		d.createTable(st, off, piece, toks)
	case *sqlparser.AlterTable:
		d.alterTable(st, off, piece, toks)
	case *sqlparser.DropTable:
		// A migration's DROP TABLE removes a table created above (in a
		// dump, DROP TABLE IF EXISTS comes before its CREATE: a no-op).
		for _, t := range st.FromTables {
			d.drop(t.Name.String())
		}
	case *sqlparser.Set, *sqlparser.Use, *sqlparser.CreateDatabase:
		// Session and database housekeeping: nothing to learn about tables.
	default:
		d.unsupported(start, piece, toks, "")
	}
}

// ddlParseStrict parses one statement, turning a panic inside the parser (bad
// input must give an error, never a crash) into an error.
func ddlParseStrict(p *sqlparser.Parser, sql string) (stmt sqlparser.Statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmt, err = nil, fmt.Errorf("the SQL parser failed on this statement: %v", r)
		}
	}()
	return p.ParseStrictDDL(sql)
}

// unsupported reports a statement that a DDL file may not hold; hint, when
// not empty, follows the quoted statement.
func (d *ddlFile) unsupported(start int, piece string, toks []ddlToken, hint string) {
	msg := "unsupported statement in DDL: " + ddlSnippet(piece[toks[0].start:])
	if hint != "" {
		msg += " (" + hint + ")"
	}
	d.errs.Add(d.pos(start), msg)
}

// ddlSnippet quotes the beginning of a statement for a message: blanks
// collapsed, at most 40 bytes.
func ddlSnippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 40 {
		cut := 40
		for cut > 0 && s[cut]&0xC0 == 0x80 { // keep UTF-8 sequences whole
			cut--
		}
		s = strings.TrimRight(s[:cut], " ") + "..."
	}
	return fmt.Sprintf("%q", s)
}

// vitessError reports a parse error of the piece at off. A PositionedErr
// ("syntax error at position N near 'x'") is placed on the token it names.
func (d *ddlFile) vitessError(off int, piece string, toks []ddlToken, err error) {
	var pe sqlparser.PositionedErr
	if !errors.As(err, &pe) {
		at := off
		if len(toks) > 0 {
			at += toks[0].start
		}
		d.errorf(at, "%s", err.Error())
		return
	}
	// pe.Pos is 1 + the offset just past the token the parser stopped at.
	end := min(max(pe.Pos-1, 0), len(piece))
	at := end
	switch {
	case pe.Near == "" && len(toks) > 0:
		at = toks[len(toks)-1].end
	case pe.Near != "":
		found := false
		for _, t := range toks {
			if t.end == end {
				at, found = t.start, true
				break
			}
		}
		if !found {
			if i := strings.LastIndex(piece[:end], pe.Near); i >= 0 {
				at = i
			}
		}
	}
	msg := pe.Err
	if pe.Near != "" {
		msg += " near '" + ddlNear(pe.Near) + "'"
	}
	d.errorf(off+at, "%s", msg)
}

// ddlNear shortens the "near" text of a syntax error to its first line and at
// most 40 bytes.
func ddlNear(s string) string {
	cut := false
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s, cut = s[:i], true
	}
	if len(s) > 40 {
		n := 40
		for n > 0 && s[n]&0xC0 == 0x80 {
			n--
		}
		s, cut = s[:n], true
	}
	if cut {
		s += "..."
	}
	return s
}

// createTable turns a parsed CREATE TABLE into a Table.
func (d *ddlFile) createTable(st *sqlparser.CreateTable, off int, piece string, toks []ddlToken) {
	start := off + toks[0].start
	switch {
	case st.Temp:
		d.unsupported(start, piece, toks, "a temporary table is not part of the schema")
		return
	case st.Select != nil:
		d.unsupported(start, piece, toks, "CREATE TABLE ... SELECT: write the columns out")
		return
	}
	t := &Table{Name: st.Table.Name.String(), Pos: d.pos(start)}
	if first, ok := d.byName[strings.ToLower(t.Name)]; ok {
		d.errorf(start, "table %q is already defined at %s (table names compare case-insensitively); remove one CREATE TABLE", t.Name, first.Pos)
		return
	}
	if st.OptLike != nil {
		like := st.OptLike.LikeTable.Name.String()
		src, ok := d.byName[strings.ToLower(like)]
		if !ok {
			d.errorf(start, "CREATE TABLE %q LIKE %q: table %q is not defined above in this file", t.Name, like, like)
			return
		}
		ddlCopyTable(t, src)
		d.add(t)
		return
	}
	if st.TableSpec == nil {
		d.unsupported(start, piece, toks, "no column list")
		return
	}
	d.addColumns(t, st.TableSpec.Columns, off, start, ddlElementStarts(toks), 0, -1)
	d.addIndexes(t, st.TableSpec.Indexes, start)
	for _, o := range st.TableSpec.Options {
		switch strings.ToLower(o.Name) {
		case "charset":
			t.Charset = strings.ToLower(ddlOptionText(o))
		case "collate":
			t.Collation = strings.ToLower(ddlOptionText(o))
		}
	}
	for _, c := range t.Columns {
		ddlBinaryCollation(t, c)
	}
	d.add(t)
}

func (d *ddlFile) drop(name string) {
	t, ok := d.byName[strings.ToLower(name)]
	if !ok {
		return
	}
	delete(d.byName, strings.ToLower(name))
	d.tables = slices.DeleteFunc(d.tables, func(o *Table) bool { return o == t })
}

func (d *ddlFile) add(t *Table) {
	d.tables = append(d.tables, t)
	d.byName[strings.ToLower(t.Name)] = t
}

// ddlOptionText returns the value of a table option as written.
func ddlOptionText(o *sqlparser.TableOption) string {
	if o.String != "" {
		return o.String
	}
	if o.Value != nil {
		return o.Value.Val
	}
	return ""
}

// ddlCopyTable fills t with deep copies of src's columns and keys (CREATE
// TABLE t LIKE src); the columns keep their positions in src.
func ddlCopyTable(t, src *Table) {
	for _, c := range src.Columns {
		cc := *c
		cc.EnumValues = append([]string(nil), c.EnumValues...)
		t.Columns = append(t.Columns, &cc)
	}
	t.PrimaryKey = append([]string(nil), src.PrimaryKey...)
	for _, k := range src.Keys {
		kk := *k
		kk.Columns = append([]string(nil), k.Columns...)
		t.Keys = append(t.Keys, &kk)
	}
	t.Charset, t.Collation = src.Charset, src.Collation
}

// addColumns adds defs to t, at index insertAt (-1: at the end). Each
// column's position is the first of elems[next:] (tokens that may start a
// column definition) naming it; the index after the last one used is
// returned, for the next ADD COLUMN of the same statement.
func (d *ddlFile) addColumns(t *Table, defs []*sqlparser.ColumnDefinition, off, start int, elems []ddlToken, next, insertAt int) int {
	var inline []*Key // column-level UNIQUE / KEY attributes
	var pk []string
	for _, cd := range defs {
		c := ddlColumn(cd)
		at := start
		for j := next; j < len(elems); j++ {
			if elems[j].names(c.Name) {
				at, next = off+elems[j].start, j+1
				break
			}
		}
		c.Pos = d.pos(at)
		if prev := t.Column(c.Name); prev != nil {
			d.errorf(at, "duplicate column %q in table %q (first at %s); remove or rename one", c.Name, t.Name, prev.Pos)
			continue
		}
		if insertAt < 0 || insertAt >= len(t.Columns) {
			t.Columns = append(t.Columns, c)
		} else {
			t.Columns = append(t.Columns[:insertAt+1], t.Columns[insertAt:]...)
			t.Columns[insertAt] = c
			insertAt++
		}
		if cd.Type.Options == nil {
			continue
		}
		switch cd.Type.Options.KeyOpt {
		case sqlparser.ColKeyPrimary, sqlparser.ColKey: // "KEY" on a column means PRIMARY KEY
			pk = append(pk, c.Name)
		case sqlparser.ColKeyUnique, sqlparser.ColKeyUniqueKey:
			inline = append(inline, &Key{Kind: "unique", Columns: []string{c.Name}})
		case sqlparser.ColKeyFulltextKey:
			inline = append(inline, &Key{Kind: "fulltext", Columns: []string{c.Name}})
		case sqlparser.ColKeySpatialKey:
			inline = append(inline, &Key{Kind: "spatial", Columns: []string{c.Name}})
		}
	}
	if len(pk) > 0 {
		if len(pk) > 1 || len(t.PrimaryKey) > 0 {
			d.errorf(start, "table %q has more than one primary key; declare one PRIMARY KEY (a, b) for a composite key", t.Name)
		} else {
			ddlSetPrimaryKey(t, pk)
		}
	}
	for _, k := range inline {
		ddlAddKey(t, k)
	}
	return next
}

// addIndexes adds the table-level (or ALTER TABLE ADD / CREATE INDEX) indexes
// of a statement at start.
func (d *ddlFile) addIndexes(t *Table, defs []*sqlparser.IndexDefinition, start int) {
	for _, def := range defs {
		name := def.Info.Name.String()
		cols := make([]string, 0, len(def.Columns))
		for _, ic := range def.Columns {
			if ic.Expression != nil {
				cols = append(cols, "("+sqlparser.String(ic.Expression)+")")
				continue
			}
			col := ic.Column.String()
			c := t.Column(col)
			if c == nil {
				what := fmt.Sprintf("key %q", name)
				if def.Info.Type == sqlparser.IndexTypePrimary {
					what = "the primary key"
				} else if name == "" {
					what = "a key"
				}
				d.errorf(start, "%s of table %q names column %q, which the table does not have", what, t.Name, col)
				continue
			}
			cols = append(cols, c.Name)
		}
		switch def.Info.Type {
		case sqlparser.IndexTypePrimary:
			if len(t.PrimaryKey) > 0 {
				d.errorf(start, "table %q has more than one primary key; declare one PRIMARY KEY (a, b) for a composite key", t.Name)
				continue
			}
			for _, c := range cols {
				if strings.HasPrefix(c, "(") {
					d.errorf(start, "the primary key of table %q has an expression part %s; a primary key holds columns only", t.Name, c)
				}
			}
			ddlSetPrimaryKey(t, cols)
		case sqlparser.IndexTypeUnique:
			ddlAddKey(t, &Key{Name: name, Kind: "unique", Columns: cols})
		case sqlparser.IndexTypeFullText:
			ddlAddKey(t, &Key{Name: name, Kind: "fulltext", Columns: cols})
		case sqlparser.IndexTypeSpatial:
			ddlAddKey(t, &Key{Name: name, Kind: "spatial", Columns: cols})
		default:
			ddlAddKey(t, &Key{Name: name, Kind: "index", Columns: cols})
		}
	}
}

// ddlSetPrimaryKey records the primary key; its columns become NOT NULL, as
// in MySQL.
func ddlSetPrimaryKey(t *Table, cols []string) {
	t.PrimaryKey = append(t.PrimaryKey[:0], cols...)
	for _, name := range cols {
		if c := t.Column(name); c != nil {
			c.Nullable = false
		}
	}
}

// ddlAddKey appends k. An unnamed key gets MySQL's name: its first column,
// with _2, _3, ... appended while that name is taken.
func ddlAddKey(t *Table, k *Key) {
	if k.Name == "" && len(k.Columns) > 0 {
		base := k.Columns[0]
		if strings.HasPrefix(base, "(") {
			base = "functional_index"
		}
		name := base
		for i := 2; ddlKeyNamed(t, name); i++ {
			name = fmt.Sprintf("%s_%d", base, i)
		}
		k.Name = name
	}
	t.Keys = append(t.Keys, k)
}

func ddlKeyNamed(t *Table, name string) bool {
	for _, k := range t.Keys {
		if strings.EqualFold(k.Name, name) {
			return true
		}
	}
	return false
}

// ddlColumn converts a vitess column definition. Type synonyms become the
// name MySQL's SHOW CREATE TABLE prints (integer -> int, bool/boolean ->
// tinyint(1), real -> double, numeric -> decimal, float4 -> float, float(p)
// -> float for p <= 24 else double), and ZEROFILL implies UNSIGNED, as in
// MySQL (https://dev.mysql.com/doc/refman/8.0/en/numeric-type-syntax.html).
func ddlColumn(cd *sqlparser.ColumnDefinition) *Column {
	t := cd.Type
	c := &Column{
		Name:     cd.Name.String(),
		Type:     strings.ToLower(t.Type),
		Unsigned: t.Unsigned || t.Zerofill,
		Zerofill: t.Zerofill,
		Length:   ddlIntCopy(t.Length),
		Scale:    ddlIntCopy(t.Scale),
		Nullable: true,
		Charset:  strings.ToLower(t.Charset.Name),
		Binary:   t.Charset.Binary,
	}
	switch c.Type {
	case "integer":
		c.Type = "int"
	case "bool", "boolean":
		c.Type = "tinyint"
		if c.Length == nil {
			one := 1
			c.Length = &one
		}
	case "real", "float8":
		c.Type = "double"
	case "numeric":
		c.Type = "decimal"
	case "float4":
		c.Type = "float"
	case "float":
		if c.Length != nil && c.Scale == nil { // FLOAT(p): p is a precision in bits, not a display width
			if *c.Length > 24 {
				c.Type = "double"
			}
			c.Length = nil
		}
	}
	for _, v := range t.EnumValues {
		c.EnumValues = append(c.EnumValues, ddlUnquote(v))
	}
	if o := t.Options; o != nil {
		if o.Null != nil {
			c.Nullable = *o.Null
		}
		c.AutoIncrement = o.Autoincrement
		if o.Default != nil {
			s := sqlparser.String(o.Default)
			if !o.DefaultLiteral {
				s = "(" + s + ")" // an expression default, written DEFAULT (expr)
			}
			c.Default = &s
		}
		c.Collation = strings.ToLower(o.Collate)
		c.Generated = o.As != nil
		c.Invisible = o.Invisible != nil && *o.Invisible
	}
	return c
}

// ddlBinaryCollation resolves the BINARY attribute of c to the _bin
// collation of the column's (else the table's) character set.
func ddlBinaryCollation(t *Table, c *Column) {
	if !c.Binary || c.Collation != "" {
		return
	}
	cs := c.Charset
	if cs == "" {
		cs = t.Charset
	}
	if cs == "binary" {
		c.Collation = "binary"
	} else if cs != "" {
		c.Collation = cs + "_bin"
	}
}

func ddlIntCopy(p *int) *int {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// ddlUnquote decodes an ENUM/SET member as vitess stores it: single-quoted,
// with backslash escapes (sqltypes.EncodeStringSQL).
func ddlUnquote(s string) string {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return s
	}
	s = s[1 : len(s)-1]
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch != '\\' || i+1 == len(s) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch e := s[i]; e {
		case '0':
			b.WriteByte(0)
		case 'b':
			b.WriteByte('\b')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'Z':
			b.WriteByte(26)
		case '%', '_': // MySQL keeps the backslash of \% and \_
			b.WriteByte('\\')
			b.WriteByte(e)
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

// alterTable applies ALTER TABLE ... ADD COLUMN / MODIFY COLUMN / DROP
// COLUMN / ADD INDEX and CREATE INDEX (which vitess parses as an ALTER
// TABLE) to a table defined above.
func (d *ddlFile) alterTable(st *sqlparser.AlterTable, off int, piece string, toks []ddlToken) {
	start := off + toks[0].start
	for _, o := range st.AlterOptions {
		switch o.(type) {
		case *sqlparser.AddColumns, *sqlparser.ModifyColumn, *sqlparser.AddIndexDefinition, *sqlparser.AddConstraintDefinition, *sqlparser.DropColumn:
		default:
			d.unsupported(start, piece, toks, "ALTER TABLE may only ADD COLUMN, MODIFY COLUMN, DROP COLUMN, ADD INDEX/KEY or ADD CONSTRAINT; edit the CREATE TABLE instead")
			return
		}
	}
	if st.PartitionSpec != nil || st.PartitionOption != nil {
		d.unsupported(start, piece, toks, "ALTER TABLE may only ADD COLUMN, MODIFY COLUMN, DROP COLUMN, ADD INDEX/KEY or ADD CONSTRAINT; edit the CREATE TABLE instead")
		return
	}
	name := st.Table.Name.String()
	t, ok := d.byName[strings.ToLower(name)]
	if !ok {
		d.errorf(start, "ALTER TABLE / CREATE INDEX on table %q, which no CREATE TABLE above defines", name)
		return
	}
	d.plainEncrypt(t, st)
	var droppedLogic []string
	if rule := d.physicalRule(t, st); rule != nil {
		// Clauses on a logic column whose physical columns the table has
		// change those, as shardgen migrate sends them to the servers.
		et := encryptTableOf(rule, name)
		for _, o := range st.AlterOptions {
			if o, ok := o.(*sqlparser.DropColumn); ok && logicColumn(et, o.Name.Name.String()) != nil {
				droppedLogic = append(droppedLogic, o.Name.Name.String())
			}
		}
		if _, err := EncryptAlterTable(rule, st); err != nil {
			d.errorf(start, "%v", err)
			return
		}
	}
	defer func() {
		for _, col := range droppedLogic {
			d.dropped(t, col, start)
		}
	}()
	idents, next := ddlIdents(toks), 0
	for _, o := range st.AlterOptions {
		switch o := o.(type) {
		case *sqlparser.AddColumns:
			at := -1
			switch {
			case o.First:
				at = 0
			case o.After != nil:
				after := o.After.Name.String()
				at = ddlColumnIndex(t, after)
				if at < 0 {
					d.errorf(start, "ALTER TABLE %q ADD COLUMN ... AFTER %q: the table has no column %q", t.Name, after, after)
					continue
				}
				at++
			}
			next = d.addColumns(t, o.Columns, off, start, idents, next, at)
			for _, c := range t.Columns {
				ddlBinaryCollation(t, c)
			}
		case *sqlparser.ModifyColumn:
			// The column's new definition, where it was or where FIRST /
			// AFTER puts it; its keys keep it (same name).
			col := o.NewColDefinition.Name.String()
			i := ddlColumnIndex(t, col)
			if i < 0 {
				d.errorf(start, "ALTER TABLE %q MODIFY COLUMN %q: the table has no column %q", t.Name, col, col)
				continue
			}
			t.Columns = slices.Delete(slices.Clone(t.Columns), i, i+1)
			at := i
			switch {
			case o.First:
				at = 0
			case o.After != nil:
				after := o.After.Name.String()
				if at = ddlColumnIndex(t, after); at < 0 {
					d.errorf(start, "ALTER TABLE %q MODIFY COLUMN %q ... AFTER %q: the table has no column %q", t.Name, col, after, after)
					continue
				}
				at++
			}
			next = d.addColumns(t, []*sqlparser.ColumnDefinition{o.NewColDefinition}, off, start, idents, next, at)
			for _, c := range t.Columns {
				ddlBinaryCollation(t, c)
			}
			if slices.ContainsFunc(t.PrimaryKey, func(k string) bool { return strings.EqualFold(k, col) }) {
				t.Column(col).Nullable = false // a primary key column is NOT NULL, as MySQL makes it
			}
		case *sqlparser.AddIndexDefinition:
			d.addIndexes(t, []*sqlparser.IndexDefinition{o.IndexDefinition}, start)
		case *sqlparser.DropColumn:
			col := o.Name.Name.String()
			if !dropColumn(t, col) {
				d.errorf(start, "ALTER TABLE %q DROP COLUMN %q: the table has no column %q", t.Name, col, col)
				continue
			}
			d.dropped(t, col, start)
		}
	}
}

// plainEncrypt records in t.PlainEncrypt the encrypt columns whose cipher
// column st adds while t has a column of their logic name.
func (d *ddlFile) plainEncrypt(t *Table, st *sqlparser.AlterTable) {
	et := encryptTableOf(d.encrypt, t.Name)
	if et == nil {
		return
	}
	for _, o := range st.AlterOptions {
		add, ok := o.(*sqlparser.AddColumns)
		if !ok {
			continue
		}
		for _, cd := range add.Columns {
			for _, ec := range et.Columns {
				if strings.EqualFold(cd.Name.String(), ec.Cipher.Column) && t.Column(ec.Name) != nil && logicColumn(et, ec.Name) != nil {
					plain := maps.Clone(t.PlainEncrypt) // t's may be shared with a copy made before
					if plain == nil {
						plain = map[string]bool{}
					}
					plain[strings.ToLower(ec.Name)] = true
					t.PlainEncrypt = plain
				}
			}
		}
	}
}

// physicalRule returns the !ENCRYPT rule an ALTER TABLE st of t is read
// under (nil: as written), so that the DDL history acts on the physical
// columns as they stand and the rule describes the final schema
// (deriveEncryptColumns): a column written in logic form (phone) stays as
// written while the table has it, so that a migration from before phone was
// encrypted (MODIFY phone VARCHAR(64)), one that adds its cipher column
// (ADD COLUMN phone_cipher) and one that drops the plain column afterwards
// read as they ran. Only an encrypt column whose logic column the table
// does not have is translated (ADD / MODIFY / DROP COLUMN phone of a table
// in physical form, EncryptAlterTable). A clause that names a physical
// column of an encrypt column other than as the column it adds (MODIFY
// COLUMN phone_cipher, ADD COLUMN note AFTER phone_cipher, ADD INDEX
// (phone_md5)) while the table still has its logic column first gives the
// table that column's physical columns.
func (d *ddlFile) physicalRule(t *Table, st *sqlparser.AlterTable) *EncryptRule {
	et := encryptTableOf(d.encrypt, t.Name)
	if et == nil {
		return nil
	}
	named := map[string]bool{} // lower-case columns named other than by ADD COLUMN
	after := func(c *sqlparser.ColName) {
		if c != nil {
			named[strings.ToLower(c.Name.String())] = true
		}
	}
	for _, o := range st.AlterOptions {
		switch o := o.(type) {
		case *sqlparser.AddColumns:
			after(o.After)
		case *sqlparser.ModifyColumn:
			named[strings.ToLower(o.NewColDefinition.Name.String())] = true
			after(o.After)
		case *sqlparser.DropColumn:
			named[strings.ToLower(o.Name.Name.String())] = true
		case *sqlparser.AddIndexDefinition:
			for _, c := range o.IndexDefinition.Columns {
				named[strings.ToLower(c.Column.String())] = true
			}
		}
	}
	var cols []*EncryptColumn
	for _, ec := range et.Columns {
		if t.Column(ec.Name) != nil && logicColumn(et, ec.Name) != nil {
			for _, n := range physicalNames(ec) {
				if named[strings.ToLower(n)] && t.Column(n) == nil {
					deriveEncryptColumn(d.encrypt, t, ec)
					break
				}
			}
		}
		if t.Column(ec.Name) == nil {
			cols = append(cols, ec)
		}
	}
	view := *et
	view.Columns = cols
	rule := *d.encrypt
	rule.Tables = []*EncryptTable{&view}
	return &rule
}

// dropped records in t.Dropped that the statement at byte start dropped
// column col.
func (d *ddlFile) dropped(t *Table, col string, start int) {
	dropped := maps.Clone(t.Dropped) // t's may be shared with a copy made before
	if dropped == nil {
		dropped = map[string]Pos{}
	}
	dropped[strings.ToLower(col)] = d.pos(start)
	t.Dropped = dropped
}

// dropColumn removes column name from t as MySQL does: from its columns and
// from every index, an index left with no column going too. It reports
// whether t had the column.
func dropColumn(t *Table, name string) bool {
	i := ddlColumnIndex(t, name)
	if i < 0 {
		return false
	}
	// New slices and keys: t's may be shared with a copy made before.
	t.Columns = slices.Delete(slices.Clone(t.Columns), i, i+1)
	drop := func(cols []string) []string {
		return slices.DeleteFunc(slices.Clone(cols), func(c string) bool { return strings.EqualFold(c, name) })
	}
	t.PrimaryKey = drop(t.PrimaryKey)
	var keys []*Key
	for _, k := range t.Keys {
		if cols := drop(k.Columns); len(cols) > 0 {
			keys = append(keys, &Key{Name: k.Name, Kind: k.Kind, Columns: cols})
		}
	}
	t.Keys = keys
	return true
}

func ddlColumnIndex(t *Table, name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// ddlToken is one token of a statement, found by ddlTokenize for positions
// only (vitess's AST carries none).
type ddlToken struct {
	start, end int    // byte offsets in the statement
	kind       byte   // 'w' word, 'q' `quoted identifier`, 's' string, or the punctuation byte
	text       string // word or unquoted identifier
	depth      int    // parenthesis depth before the token
	versioned  bool   // inside a /*! ... */ comment
}

// names reports whether the token can be the identifier name: a quoted
// identifier equal to it, or a bare word equal to it that is not one of the
// reserved words that start an index or constraint definition.
func (t ddlToken) names(name string) bool {
	switch t.kind {
	case 'q':
		return strings.EqualFold(t.text, name)
	case 'w':
		if !strings.EqualFold(t.text, name) {
			return false
		}
		switch strings.ToLower(t.text) {
		case "primary", "key", "index", "unique", "fulltext", "spatial", "constraint", "foreign", "check", "add", "column":
			return false
		}
		return true
	}
	return false
}

// ddlTokenize splits a statement into tokens, skipping blanks and comments.
// The content of a /*!NNNNN ... */ comment is scanned as code, as MySQL does.
func ddlTokenize(s string) []ddlToken {
	var toks []ddlToken
	depth, versioned := 0, false
	n := len(s)
	for i := 0; i < n; {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || (c == '-' && i+1 < n && s[i+1] == '-' && (i+2 == n || s[i+2] <= ' ')):
			for i < n && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && s[i+1] == '*':
			if i+2 < n && s[i+2] == '!' {
				i += 3
				for k := 0; k < 6 && i < n && s[i] >= '0' && s[i] <= '9'; k++ {
					i++
				}
				versioned = true
				continue
			}
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += 2 + j + 2
			} else {
				i = n
			}
		case versioned && c == '*' && i+1 < n && s[i+1] == '/':
			versioned = false
			i += 2
		case c == '\'' || c == '"' || c == '`':
			j, text := ddlScanQuoted(s, i)
			kind := byte('s')
			if c == '`' {
				kind = 'q'
			}
			toks = append(toks, ddlToken{start: i, end: j, kind: kind, text: text, depth: depth, versioned: versioned})
			i = j
		case ddlWordByte(c):
			j := i + 1
			for j < n && ddlWordByte(s[j]) {
				j++
			}
			toks = append(toks, ddlToken{start: i, end: j, kind: 'w', text: s[i:j], depth: depth, versioned: versioned})
			i = j
		default:
			toks = append(toks, ddlToken{start: i, end: i + 1, kind: c, depth: depth, versioned: versioned})
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
			i++
		}
	}
	return toks
}

// ddlScanQuoted scans the quoted token at s[i] and returns the offset just
// past it and its content. A doubled quote stands for itself; in strings a
// backslash escapes the next byte. An unterminated token runs to the end.
func ddlScanQuoted(s string, i int) (int, string) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == q:
			if j+1 < len(s) && s[j+1] == q {
				b.WriteByte(q)
				j++
				continue
			}
			return j + 1, b.String()
		case c == '\\' && q != '`' && j+1 < len(s):
			b.WriteByte(s[j+1])
			j++
		default:
			b.WriteByte(c)
		}
	}
	return len(s), b.String()
}

func ddlWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// ddlAllVersioned reports whether every token sits inside /*! ... */.
func ddlAllVersioned(toks []ddlToken) bool {
	for _, t := range toks {
		if !t.versioned {
			return false
		}
	}
	return true
}

// ddlElementStarts returns the first token of each element of the CREATE
// TABLE's parenthesised list: the token after its opening parenthesis and
// after each comma at depth 1.
func ddlElementStarts(toks []ddlToken) []ddlToken {
	var out []ddlToken
	open := -1
	for i, t := range toks {
		if t.kind == '(' && t.depth == 0 {
			open = i
			break
		}
	}
	if open < 0 {
		return nil
	}
	for i := open + 1; i < len(toks); i++ {
		t := toks[i]
		if t.depth == 0 { // the closing parenthesis
			break
		}
		if t.depth == 1 && (i == open+1 || toks[i-1].kind == ',' && toks[i-1].depth == 1) {
			out = append(out, t)
		}
	}
	return out
}

// ddlIdents returns the tokens of an ALTER TABLE that may name a column it
// adds: an identifier after ADD, COLUMN, "(" or ",".
func ddlIdents(toks []ddlToken) []ddlToken {
	var out []ddlToken
	for i := 3; i < len(toks); i++ {
		t, prev := toks[i], toks[i-1]
		if t.kind != 'w' && t.kind != 'q' {
			continue
		}
		if prev.kind == '(' || prev.kind == ',' ||
			prev.kind == 'w' && (strings.EqualFold(prev.text, "add") || strings.EqualFold(prev.text, "column")) {
			out = append(out, t)
		}
	}
	return out
}
