package proxy

import (
	"bufio"
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/charset"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shardgen/shardgen/runtime"
)

// LOAD DATA LOCAL INFILE into a logic table.
//
// The proxy asks the client for the file (the protocol's LOCAL INFILE
// request, 0xFB and the file name; the client answers with the file's
// bytes in packets and an empty packet), reads its rows with the
// statement's FIELDS / LINES options and column list as MySQL's LOAD DATA
// reads them, and writes them as multi-row INSERTs of at most
// loadBatchRows rows through the planner and executor, exactly as a
// client's INSERT: each row goes to the data node of its sharding value,
// keys are generated and columns encrypted by the rules. The INSERTs are
// INSERT IGNORE (LOCAL implies IGNORE in MySQL: a duplicate key skips the
// row, a value that does not convert becomes a warning) or REPLACE, and
// all of them run in one transaction (the session's when it has one), so
// that a LOAD that fails part way writes nothing. The answer is the OK of
// one server: the rows inserted (for REPLACE, plus the rows deleted).
//
// What the proxy cannot read exactly as MySQL does is refused, before the
// file is asked for when the statement tells (LOAD DATA without LOCAL:
// the file is on the proxy's host, not the data source's; SET clauses;
// user variables in the column list; PARTITION; fixed-width rows, i.e.
// empty FIELDS TERMINATED BY; empty LINES TERMINATED BY; a CHARACTER SET
// the proxy does not know), else when the row comes (a row with more or
// fewer fields than columns, where MySQL fills or drops fields with a
// warning; nothing is written then).

// loadBatchRows bounds the rows of one INSERT of a LOAD DATA, and
// loadBatchBytes the bytes of their values (a batch ends at the first
// bound reached).
const (
	loadBatchRows  = 500
	loadBatchBytes = 1 << 20
)

// loadStmt is a parsed LOAD DATA statement.
type loadStmt struct {
	local     bool
	file      string
	dup       string // "", "ignore" or "replace"
	table     string
	charset   string   // CHARACTER SET, lower case; "" when not given
	columns   []string // the column list; nil when not given
	fieldTerm string
	enclosed  int // the ENCLOSED BY byte, -1 for none
	escaped   int // the ESCAPED BY byte, -1 for none
	lineStart string
	lineTerm  string
	ignore    int // IGNORE n LINES
}

// isLoadData reports whether q is a LOAD DATA statement.
func isLoadData(q string) bool {
	w := leadingWords(q, 2)
	return w[0] == "load" && w[1] == "data"
}

// errLoadSyntax is the syntax error of a LOAD DATA statement the proxy
// cannot read, naming what it expected.
func errLoadSyntax(what string) error {
	return sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "You have an error in your SQL syntax; LOAD DATA: expected "+what)
}

// parseLoadData reads a LOAD DATA statement (MySQL 8.0 / MariaDB syntax).
func parseLoadData(q string) (*loadStmt, error) {
	st := &loadStmt{fieldTerm: "\t", enclosed: -1, escaped: '\\', lineTerm: "\n"}
	var lx sqlLexer
	lx.init(q)
	var toks []string
	for {
		kind, tok := lx.next()
		if kind == tokEOF {
			break
		}
		if kind == tokSemicolon {
			return nil, errLoadSyntax("one statement")
		}
		toks = append(toks, tok)
	}
	i := 0
	peek := func() string {
		if i < len(toks) {
			return strings.ToLower(toks[i])
		}
		return ""
	}
	accept := func(words ...string) bool {
		for k, w := range words {
			if i+k >= len(toks) || !strings.EqualFold(toks[i+k], w) {
				return false
			}
		}
		i += len(words)
		return true
	}
	str := func(what string) (string, error) {
		if i >= len(toks) {
			return "", errLoadSyntax(what)
		}
		s, ok := sqlStringLiteral(toks[i])
		if !ok {
			return "", errLoadSyntax(what + ", got " + toks[i])
		}
		i++
		return s, nil
	}
	char := func(what string) (int, error) {
		s, err := str(what)
		if err != nil {
			return 0, err
		}
		switch len(s) {
		case 0:
			return -1, nil
		case 1:
			return int(s[0]), nil
		}
		return 0, notSupported("LOAD DATA with a " + what + " of more than one byte")
	}
	if !accept("load", "data") {
		return nil, errLoadSyntax("LOAD DATA")
	}
	accept("low_priority")
	accept("concurrent")
	st.local = accept("local")
	if !accept("infile") {
		return nil, errLoadSyntax("INFILE")
	}
	var err error
	if st.file, err = str("the file name"); err != nil {
		return nil, err
	}
	switch {
	case accept("replace"):
		st.dup = "replace"
	case accept("ignore"):
		st.dup = "ignore"
	}
	if !accept("into", "table") {
		return nil, errLoadSyntax("INTO TABLE")
	}
	if i >= len(toks) {
		return nil, errLoadSyntax("a table name")
	}
	st.table = unquoteIdent(toks[i])
	i++
	if accept(".") {
		if i >= len(toks) {
			return nil, errLoadSyntax("a table name")
		}
		st.table = st.table + "." + unquoteIdent(toks[i])
		i++
	}
	if peek() == "partition" {
		return nil, notSupported("LOAD DATA with PARTITION: name the logic table only")
	}
	if accept("character", "set") || accept("charset") {
		if i >= len(toks) {
			return nil, errLoadSyntax("a character set")
		}
		st.charset = strings.ToLower(strings.Trim(toks[i], "`'\""))
		i++
	}
	if accept("fields") || accept("columns") {
		for {
			switch {
			case accept("terminated", "by"):
				if st.fieldTerm, err = str("FIELDS TERMINATED BY"); err != nil {
					return nil, err
				}
			case accept("optionally", "enclosed", "by"), accept("enclosed", "by"):
				if st.enclosed, err = char("FIELDS ENCLOSED BY"); err != nil {
					return nil, err
				}
			case accept("escaped", "by"):
				if st.escaped, err = char("FIELDS ESCAPED BY"); err != nil {
					return nil, err
				}
			default:
				goto lines
			}
		}
	}
lines:
	if accept("lines") {
		for {
			switch {
			case accept("starting", "by"):
				if st.lineStart, err = str("LINES STARTING BY"); err != nil {
					return nil, err
				}
			case accept("terminated", "by"):
				if st.lineTerm, err = str("LINES TERMINATED BY"); err != nil {
					return nil, err
				}
			default:
				goto ignore
			}
		}
	}
ignore:
	if accept("ignore") {
		if i >= len(toks) {
			return nil, errLoadSyntax("a number of lines")
		}
		n, err := strconv.Atoi(toks[i])
		if err != nil || n < 0 {
			return nil, errLoadSyntax("a number of lines, got " + toks[i])
		}
		i++
		if !accept("lines") && !accept("rows") {
			return nil, errLoadSyntax("LINES or ROWS")
		}
		st.ignore = n
	}
	if accept("(") {
		for {
			if i >= len(toks) {
				return nil, errLoadSyntax(")")
			}
			if accept(")") {
				break
			}
			if toks[i] == "@" || strings.HasPrefix(toks[i], "@") {
				return nil, notSupported("LOAD DATA with user variables in the column list: load into the columns themselves")
			}
			st.columns = append(st.columns, unquoteIdent(toks[i]))
			i++
			if !accept(",") && peek() != ")" {
				return nil, errLoadSyntax(", or ) in the column list")
			}
		}
	}
	if peek() == "set" {
		return nil, notSupported("LOAD DATA with SET: load the values as they are, then UPDATE them")
	}
	if i < len(toks) {
		return nil, errLoadSyntax("the end of the statement, got " + toks[i])
	}
	switch {
	case !st.local:
		return nil, notSupported("LOAD DATA without LOCAL: the file would be read on the proxy's host; use LOAD DATA LOCAL INFILE")
	case st.fieldTerm == "":
		return nil, notSupported("LOAD DATA with an empty FIELDS TERMINATED BY (fixed-width rows)")
	case st.lineTerm == "":
		return nil, notSupported("LOAD DATA with an empty LINES TERMINATED BY")
	}
	return st, nil
}

// unquoteIdent returns an identifier without its backquotes (a doubled
// backquote inside is one).
func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}

// sqlStringLiteral returns the value of a quoted SQL string literal ('...'
// or "..."): a doubled quote is one, and a backslash escapes the next
// character as MySQL reads it (\0 \b \n \r \t \Z, else the character
// itself; \% and \_ keep their backslash).
func sqlStringLiteral(tok string) (string, bool) {
	if len(tok) < 2 || (tok[0] != '\'' && tok[0] != '"') || tok[len(tok)-1] != tok[0] {
		return "", false
	}
	q := tok[0]
	s := tok[1 : len(tok)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && i+1 < len(s) && s[i+1] == q:
			i++
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '%' || s[i] == '_' {
				b.WriteByte('\\')
			}
			c = unescapeLoad(s[i])
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// loadData answers LOAD DATA LOCAL INFILE q (see above).
func (h *handler) loadData(ctx context.Context, c *mysql.Conn, sess *session, q string) (*sqltypes.Result, error) {
	if err := h.ownStatementChecks(ctx, c, sess, q); err != nil {
		return nil, err
	}
	st, err := parseLoadData(sess.fromClient(q)) // its literals as without NO_BACKSLASH_ESCAPES
	if err != nil {
		return nil, err
	}
	if db, t, ok := strings.Cut(st.table, "."); ok {
		if !strings.EqualFold(db, h.s.cfg.Rules.DatabaseName) {
			return nil, sqlerror.NewSQLError(sqlerror.ERNoSuchTable, "42S02", "Table '"+st.table+"' doesn't exist")
		}
		st.table = t
	}
	nodes, _, err := h.s.knownTableNodes(ctx, st.table)
	table := h.s.b.Table(st.table)
	if err == nil && table == nil {
		// A table of the rules created on the data sources after Start,
		// or one the rules do not fit (said instead of ERROR 1146).
		ok, rerr := h.s.rereadTable(ctx, st.table)
		if rerr != nil {
			return nil, rerr
		}
		if ok {
			table = h.s.b.Table(st.table)
		}
	}
	if err != nil || table == nil || len(nodes) == 0 {
		return nil, sqlerror.NewSQLError(sqlerror.ERNoSuchTable, "42S02", "Table '"+h.s.cfg.Rules.DatabaseName+"."+st.table+"' doesn't exist")
	}
	cols := st.columns
	if cols == nil {
		for _, col := range table.Columns {
			cols = append(cols, col.Name)
		}
	}
	for _, col := range cols {
		if table.Column(col) == nil {
			return nil, sqlerror.NewSQLError(sqlerror.ERBadFieldError, "42S22", "Unknown column '"+col+"' in 'field list'")
		}
	}
	cs, err := h.loadCharset(ctx, sess, st.charset, nodes[0].ds)
	if err != nil {
		return nil, err
	}

	// The exchange: ask for the file, read it to its end whatever happens.
	if cc, ok := c.GetRawConn().(*clientConn); ok {
		cc.following(false)
		defer cc.following(true)
	}
	req := append(packetStart(), 0xfb)
	if err := c.WritePacket(append(req, st.file...)); err != nil {
		return nil, err
	}
	if err := c.FlushWriteBuffer(); err != nil {
		return nil, err
	}
	in := &infileReader{c: c}
	n, err := h.loadRows(ctx, c, sess, st, cols, cs, in)
	if derr := in.drain(); derr != nil {
		return nil, derr
	}
	if err != nil {
		return nil, err
	}
	return &sqltypes.Result{RowsAffected: n}, nil
}

// loadCharset returns the character set of the file's text: the
// statement's CHARACTER SET, else the character_set_database of the data
// source ds (MySQL reads the file in the database's character set).
func (h *handler) loadCharset(ctx context.Context, sess *session, name string, ds int) (fileCharset, error) {
	if name == "" {
		rows, err := h.base(sess).Query(withOwner(ctx, sess.tag), &runtime.Stmt{Name: "load-data-charset", LogicSQL: "SELECT @@character_set_database"},
			runtime.RouteUnit{DataSource: ds, SQL: "SELECT @@character_set_database"})
		if err != nil {
			return fileCharset{}, err
		}
		_, vals, err := readRows(rows)
		if err != nil {
			return fileCharset{}, err
		}
		if len(vals) == 1 && len(vals[0]) == 1 {
			switch v := vals[0][0].(type) {
			case []byte:
				name = string(v)
			case string:
				name = v
			}
		}
	}
	if name == "utf8" {
		name = "utf8mb3"
	}
	id := collations.MySQL8().DefaultCollationForCharset(name)
	if coll := colldata.Lookup(id); id != collations.Unknown && coll != nil && sysVarName(name) {
		return fileCharset{name: name, cs: coll.Charset()}, nil
	}
	return fileCharset{}, notSupported("LOAD DATA with CHARACTER SET " + name)
}

// fileCharset is the character set a LOAD DATA file is read in: its
// MySQL name and vitess's implementation.
type fileCharset struct {
	name string
	cs   charset.Charset
}

// fileText is one field of a LOAD DATA file: its bytes in the file's
// character set (cs, a MySQL character set name) and, for routing, key
// checks and encryption, the same text in UTF-8. It goes to the data
// sources as _cs X'...' (appendLiteral), which the server converts to the
// column's character set as LOAD DATA does, whatever the character set of
// the connection.
type fileText struct {
	cs   string
	raw  []byte
	text string
}

var _ driver.Valuer = fileText{}

// Value returns the field's UTF-8 text (what an encryptor encrypts).
func (f fileText) Value() (driver.Value, error) { return f.text, nil }

// loadRows reads the rows of in and inserts them into st's logic table in
// one transaction (the session's when it has one); it returns the rows
// affected.
func (h *handler) loadRows(ctx context.Context, c *mysql.Conn, sess *session, st *loadStmt, cols []string, cs fileCharset, in io.Reader) (uint64, error) {
	own := sess.tx == nil
	if own && sess.manual {
		if _, err := h.executor(c, sess); err != nil { // opens the session's transaction
			return 0, err
		}
		own = false
	}
	if own {
		tx, err := h.beginTx(sess)
		if err != nil {
			return 0, err
		}
		sess.tx = tx
		defer func() {
			if sess.tx != nil {
				_ = sess.tx.Rollback()
				sess.tx = nil
			}
		}()
	}
	verb := "INSERT IGNORE INTO "
	if st.dup == "replace" {
		verb = "REPLACE INTO "
	}
	var head strings.Builder
	head.WriteString(verb + "`" + strings.ReplaceAll(st.table, "`", "``") + "` (")
	for i, col := range cols {
		if i > 0 {
			head.WriteString(", ")
		}
		head.WriteString("`" + strings.ReplaceAll(col, "`", "``") + "`")
	}
	head.WriteString(") VALUES ")
	rowText := "(" + strings.Repeat("?, ", len(cols)-1) + "?)"
	maxRows := max(1, min(loadBatchRows, 65535/len(cols)))

	var total uint64
	var args []any
	rows, size := 0, 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		text := head.String() + rowText + strings.Repeat(", "+rowText, rows-1)
		p, err := h.s.plan(ctx, text)
		if err != nil {
			return err
		}
		// In the text protocol: each value a literal of the file's
		// character set (fileText), which a server-side prepared
		// statement's string argument, read in the connection's
		// character set, would not keep.
		res, err := h.execute(ctx, c, sess, p, args, true)
		if err != nil {
			return err
		}
		total += res.RowsAffected
		args, rows, size = args[:0], 0, 0
		return nil
	}
	r := newRowReader(in, st)
	for n := 1; ; n++ {
		fields, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		if len(fields) != len(cols) {
			return 0, notSupported("LOAD DATA of row " + strconv.Itoa(n) + ": it has " + strconv.Itoa(len(fields)) + " fields for " +
				strconv.Itoa(len(cols)) + " columns, which MySQL fills or cuts with a warning; the proxy loads only rows with one field per column")
		}
		for _, f := range fields {
			if f == nil {
				args = append(args, nil)
				continue
			}
			v, err := fieldValue(*f, cs)
			if err != nil {
				return 0, errors.New("LOAD DATA of row " + strconv.Itoa(n) + ": " + err.Error())
			}
			args = append(args, v)
			size += len(*f)
		}
		rows++
		if rows == maxRows || size >= loadBatchBytes {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	if own {
		tx := sess.tx
		sess.tx = nil
		if err := tx.Commit(); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// fieldValue returns the field f of a file in character set cs as the
// parameter an INSERT gets (fileText).
func fieldValue(f string, cs fileCharset) (any, error) {
	text := []byte(f)
	if _, ok := cs.cs.(charset.Charset_binary); !ok {
		var err error
		if text, err = charset.Convert(nil, charset.Charset_utf8mb4{}, text, cs.cs); err != nil {
			return nil, err
		}
	}
	return fileText{cs: cs.name, raw: []byte(f), text: string(text)}, nil
}

// infileReader reads the file a client sends after a LOCAL INFILE
// request: the payloads of its packets up to the empty packet that ends
// it (io.EOF).
type infileReader struct {
	c    *mysql.Conn
	buf  []byte
	done bool
}

func (r *infileReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.done {
			return 0, io.EOF
		}
		data, err := r.c.ReadPacket()
		if err != nil {
			r.done = true
			return 0, err
		}
		if len(data) == 0 {
			r.done = true
			return 0, io.EOF
		}
		r.buf = data
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// drain reads the rest of the file, so that the connection is at the
// client's next command again.
func (r *infileReader) drain() error {
	for !r.done {
		data, err := r.c.ReadPacket()
		if err != nil {
			r.done = true
			return err
		}
		r.done = len(data) == 0
	}
	return nil
}

// rowReader cuts LOAD DATA input into rows of fields as MySQL's LOAD
// DATA reads them: LINES STARTING BY skips up to and including its prefix
// (a line without it is skipped), a field ends at FIELDS TERMINATED BY, a
// row at LINES TERMINATED BY or the end of the input; a field that starts
// with the ENCLOSED BY byte runs to that byte followed by a terminator (a
// doubled one is one); the ESCAPED BY byte makes the next byte a literal
// one, or \0 \b \n \r \t \Z their control characters; an unenclosed \N
// (and, with ENCLOSED BY, an unenclosed NULL) is NULL.
type rowReader struct {
	r     *bufio.Reader
	st    *loadStmt
	lines int // lines skipped by IGNORE n LINES so far
}

func newRowReader(in io.Reader, st *loadStmt) *rowReader {
	return &rowReader{r: bufio.NewReaderSize(in, 64<<10), st: st}
}

// at reports whether the input continues with s, and consumes it if so.
func (rr *rowReader) at(s string) bool {
	b, _ := rr.r.Peek(len(s))
	if string(b) != s {
		return false
	}
	_, _ = rr.r.Discard(len(s))
	return true
}

// next returns the fields of the next row (nil for NULL), io.EOF after
// the last.
func (rr *rowReader) next() ([]*string, error) {
	st := rr.st
	for rr.lines < st.ignore {
		rr.lines++
		if err := rr.skipLine(); err != nil {
			return nil, err
		}
	}
	if st.lineStart != "" {
		for !rr.at(st.lineStart) {
			if _, err := rr.r.ReadByte(); err != nil {
				return nil, err // io.EOF: no more rows
			}
		}
	} else if _, err := rr.r.Peek(1); err != nil {
		return nil, err
	}
	var fields []*string
	var b []byte
	for {
		enclosed, rowEnd := false, false
		escapedN := false
		b = b[:0]
		if st.enclosed >= 0 && rr.at(string([]byte{byte(st.enclosed)})) {
			enclosed = true
		}
	field:
		for {
			ch, err := rr.r.ReadByte()
			if err == io.EOF {
				rowEnd = true
				break
			}
			if err != nil {
				return nil, err
			}
			switch {
			case st.escaped >= 0 && int(ch) == st.escaped:
				e, err := rr.r.ReadByte()
				if err == io.EOF {
					b = append(b, ch)
					continue
				}
				if err != nil {
					return nil, err
				}
				if e == 'N' && len(b) == 0 && !enclosed {
					escapedN = true
				}
				b = append(b, unescapeLoad(e))
				continue
			case enclosed && int(ch) == st.enclosed:
				if rr.at(string([]byte{ch})) {
					b = append(b, ch)
					continue
				}
				if rr.at(st.lineTerm) {
					rowEnd = true
					break field
				}
				if rr.at(st.fieldTerm) {
					break field
				}
				if _, err := rr.r.Peek(1); err == io.EOF {
					rowEnd = true
					break field
				}
				b = append(b, ch)
				continue
			case !enclosed:
				if err := rr.r.UnreadByte(); err != nil {
					return nil, err
				}
				if rr.at(st.lineTerm) {
					rowEnd = true
					break field
				}
				if rr.at(st.fieldTerm) {
					break field
				}
				_, _ = rr.r.ReadByte()
			}
			b = append(b, ch)
		}
		switch {
		case !enclosed && escapedN && len(b) == 1:
			fields = append(fields, nil)
		case !enclosed && st.enclosed >= 0 && string(b) == "NULL":
			fields = append(fields, nil)
		default:
			s := string(b)
			fields = append(fields, &s)
		}
		if rowEnd {
			return fields, nil
		}
	}
}

// skipLine skips the input up to and including the next LINES TERMINATED
// BY.
func (rr *rowReader) skipLine() error {
	for !rr.at(rr.st.lineTerm) {
		if _, err := rr.r.ReadByte(); err != nil {
			return err
		}
	}
	return nil
}

// unescapeLoad returns the byte an escape sequence of LOAD DATA stands
// for: \0 \b \n \r \t \Z their control characters, \N (NULL when alone)
// N, any other byte itself.
func unescapeLoad(e byte) byte {
	switch e {
	case '0':
		return 0
	case 'b':
		return '\b'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'Z':
		return 0x1a
	}
	return e
}
