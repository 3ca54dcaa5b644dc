package schema

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// Cmd is a query's sqlc command: what the generated function returns.
type Cmd uint8

const (
	CmdOne        Cmd = iota + 1 // :one — one row (sql.ErrNoRows when none)
	CmdMany                      // :many — a slice of rows
	CmdExec                      // :exec — only an error
	CmdExecRows                  // :execrows — affected rows (int64)
	CmdExecResult                // :execresult — sql.Result
	CmdCopyFrom                  // :copyfrom — a bulk INSERT of a slice of rows; the rows inserted (int64)
)

var cmdNames = map[Cmd]string{CmdOne: ":one", CmdMany: ":many", CmdExec: ":exec", CmdExecRows: ":execrows", CmdExecResult: ":execresult", CmdCopyFrom: ":copyfrom"}

// String returns the annotation spelling, e.g. ":one".
func (c Cmd) String() string { return cmdNames[c] }

// MarshalJSON encodes the command as its annotation spelling.
func (c Cmd) MarshalJSON() ([]byte, error) { return []byte(`"` + c.String() + `"`), nil }

// Query is one annotated statement of a query file, in sqlc's format:
//
//	-- name: GetOrder :one
//	-- GetOrder returns one order.          (doc comment lines, optional)
//	-- shardgen:allow-full-route            (optional annotation)
//	SELECT * FROM t_order WHERE order_id = ?;
//
// The statement runs to the next `-- name:` line or the end of the file; one
// trailing semicolon is dropped. `/* name: X :one */` block headers are
// accepted too.
type Query struct {
	Name string
	Cmd  Cmd
	SQL  string   // the statement text, trimmed, without the trailing ';'
	Doc  []string // comment lines after the name line, without "-- "
	// AllowFullRoute is set by `-- shardgen:allow-full-route`: the query may
	// route to every data node of a sharded table (no sharding condition).
	AllowFullRoute bool
	// Primary is set by `-- shardgen:primary`: the query reads from the
	// primary of a read/write group even outside a transaction
	// (read-your-writes).
	Primary bool
	// WeighText makes every text key a merge compares (ORDER BY, GROUP
	// BY, DISTINCT, MIN / MAX, HAVING) compare by the data nodes' sort
	// keys (WEIGHT_STRING) even where the merge could compare the text
	// itself: the proxy sets it for a client session whose character set
	// is not the text's, where the rows hold the text converted to it
	// (and a character it cannot hold as '?').
	WeighText bool
	Pos       Pos // the name line
	SQLPos    Pos // where the statement starts
}

// AnnotationAllowFullRoute is the comment line that lets a query route to
// every data node of a sharded table.
const AnnotationAllowFullRoute = "shardgen:allow-full-route"

// AnnotationPrimary is the comment line that sends a query's reads to the
// primary of its read/write group.
const AnnotationPrimary = "shardgen:primary"

// ParseQueriesFile reads one query file; see ParseQueries.
func ParseQueriesFile(path string) ([]*Query, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseQueries(path, src)
}

// ParseQueries splits src (the contents of file) into annotated queries.
// Errors (schema.Errors): a statement before the first name line, a name line
// without a valid command, a query with no statement, an unknown
// `shardgen:` annotation, more than one statement under one name.
func ParseQueries(file string, src []byte) ([]*Query, error) {
	src = bytes.TrimPrefix(src, []byte("\ufeff")) // a UTF-8 byte order mark
	var errs Errors
	var out []*Query
	var cur *Query
	var body strings.Builder
	inDoc := false
	finish := func() {
		if cur == nil {
			return
		}
		// The statement ends at its first ';' outside strings and comments;
		// only comments may follow it (e.g. between two queries).
		sql := body.String()
		if semi := firstSemicolon(sql); semi >= 0 {
			rest := sql[semi+1:]
			sql = sql[:semi]
			if strings.TrimSpace(stripSQLStringsAndComments(rest)) != "" {
				errs.Add(cur.SQLPos, fmt.Sprintf("query %q holds more than one statement; give each its own -- name: line", cur.Name))
			}
		}
		sql = strings.TrimSpace(trimTrailingComments(sql))
		if sql == "" {
			errs.Add(cur.Pos, fmt.Sprintf("query %q has no statement", cur.Name))
		}
		cur.SQL = sql
		out = append(out, cur)
		cur = nil
		body.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		trimmed := strings.TrimSpace(text)
		if name, cmd, ok, bad := nameLine(trimmed); ok || bad != "" {
			finish()
			pos := Pos{File: file, Line: line, Col: strings.Index(text, trimmed) + 1}
			if bad != "" {
				errs.Add(pos, bad)
				cur = &Query{Name: name, Pos: pos}
				inDoc = true
				continue
			}
			cur = &Query{Name: name, Cmd: cmd, Pos: pos}
			inDoc = true
			continue
		}
		if cur == nil {
			if trimmed == "" || strings.HasPrefix(trimmed, "--") || strings.HasPrefix(trimmed, "#") {
				continue
			}
			errs.Add(Pos{File: file, Line: line, Col: strings.Index(text, trimmed) + 1},
				"statement before the first \"-- name: <Name> <:cmd>\" line")
			// Skip until the next name line.
			cur = nil
			for sc.Scan() {
				line++
				if _, _, ok, bad := nameLine(strings.TrimSpace(sc.Text())); ok || bad != "" {
					// Re-handle this line in the outer loop by simulating it.
					text = sc.Text()
					trimmed = strings.TrimSpace(text)
					name, cmd, _, bad := nameLine(trimmed)
					pos := Pos{File: file, Line: line, Col: strings.Index(text, trimmed) + 1}
					if bad != "" {
						errs.Add(pos, bad)
					}
					cur = &Query{Name: name, Cmd: cmd, Pos: pos}
					inDoc = true
					break
				}
			}
			continue
		}
		if inDoc && strings.HasPrefix(trimmed, "--") {
			c := strings.TrimSpace(strings.TrimPrefix(trimmed, "--"))
			if strings.HasPrefix(c, "shardgen:") {
				switch c {
				case AnnotationAllowFullRoute:
					cur.AllowFullRoute = true
				case AnnotationPrimary:
					cur.Primary = true
				default:
					errs.Add(Pos{File: file, Line: line, Col: strings.Index(text, trimmed) + 1},
						fmt.Sprintf("unknown annotation %q (known: %s, %s)", c, AnnotationAllowFullRoute, AnnotationPrimary))
				}
				continue
			}
			cur.Doc = append(cur.Doc, c)
			continue
		}
		if inDoc && trimmed == "" {
			continue
		}
		if inDoc {
			inDoc = false
			cur.SQLPos = Pos{File: file, Line: line, Col: strings.Index(text, trimmed) + 1}
		}
		body.WriteString(text)
		body.WriteByte('\n')
	}
	finish()
	if err := sc.Err(); err != nil {
		errs.Add(Pos{File: file, Line: line}, err.Error())
	}
	seen := map[string]*Query{}
	for _, q := range out {
		if q.Name == "" {
			continue
		}
		if prev, ok := seen[q.Name]; ok {
			errs.Add(q.Pos, fmt.Sprintf("duplicate query name %q (first defined at %s)", q.Name, prev.Pos))
			continue
		}
		seen[q.Name] = q
	}
	if err := errs.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// nameLine recognises `-- name: X :cmd` and `/* name: X :cmd */`. ok is true
// for a valid line; bad is a message for a name line that is malformed.
func nameLine(s string) (name string, cmd Cmd, ok bool, bad string) {
	var rest string
	switch {
	case strings.HasPrefix(s, "--"):
		rest = strings.TrimSpace(strings.TrimPrefix(s, "--"))
	case strings.HasPrefix(s, "/*") && strings.HasSuffix(s, "*/"):
		rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "/*"), "*/"))
	default:
		return "", 0, false, ""
	}
	if !strings.HasPrefix(rest, "name:") {
		return "", 0, false, ""
	}
	f := strings.Fields(strings.TrimPrefix(rest, "name:"))
	if len(f) != 2 {
		return firstOr(f), 0, false, "a name line must read \"-- name: <Name> <:cmd>\""
	}
	name = f[0]
	if !isGoIdent(name) {
		return name, 0, false, fmt.Sprintf("query name %q is not a Go identifier", name)
	}
	for c, n := range cmdNames {
		if n == f[1] {
			return name, c, true, ""
		}
	}
	return name, 0, false, fmt.Sprintf("query %q: unknown command %q (known: :one, :many, :exec, :execrows, :execresult, :copyfrom)", name, f[1])
}

func firstOr(f []string) string {
	if len(f) > 0 {
		return f[0]
	}
	return ""
}

func isGoIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return true
}

// scanSQL calls fn with the offset of every byte of s that is outside
// quoted strings, quoted identifiers and comments (MySQL rules: doubled
// quotes and, in strings, backslash escapes); fn returns false to stop.
func scanSQL(s string, fn func(i int) bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"' || c == '`':
			q := c
			for i++; i < len(s); i++ {
				if s[i] == '\\' && q != '`' {
					i++
					continue
				}
				if s[i] == q {
					if i+1 < len(s) && s[i+1] == q {
						i++
						continue
					}
					break
				}
			}
		case c == '-' && i+1 < len(s) && s[i+1] == '-', c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return
			}
			i += end + 3
		default:
			if !fn(i) {
				return
			}
		}
	}
}

// stripSQLStringsAndComments blanks out quoted strings, identifiers and
// comments so that a ';' left over is a real statement separator.
func stripSQLStringsAndComments(s string) string {
	var b strings.Builder
	scanSQL(s, func(i int) bool { b.WriteByte(s[i]); return true })
	return b.String()
}

// firstSemicolon returns the offset of the first ';' of s outside quoted
// strings, quoted identifiers and comments, or -1.
func firstSemicolon(s string) int {
	at := -1
	scanSQL(s, func(i int) bool {
		if s[i] == ';' {
			at = i
			return false
		}
		return true
	})
	return at
}

// trimTrailingComments drops comment-only lines at the end of s.
func trimTrailingComments(s string) string {
	lines := strings.Split(strings.TrimRight(s, " \t\r\n"), "\n")
	for len(lines) > 0 {
		l := strings.TrimSpace(lines[len(lines)-1])
		if l != "" && !strings.HasPrefix(l, "--") && !strings.HasPrefix(l, "#") {
			break
		}
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
