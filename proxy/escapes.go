package proxy

import (
	"context"
	"strings"

	"vitess.io/vitess/go/mysql"

	"github.com/shardgen/shardgen/runtime"
)

// A session whose sql_mode has NO_BACKSLASH_ESCAPES writes a backslash in a
// string literal as an ordinary character ('a\b' is three characters) and a
// quote inside a literal only doubled ('it''s'). vitess's parser, and so the
// planner, read literals as MySQL does without the mode. The proxy
// therefore reads such a session's statements through
// noBackslashToStandard (every backslash inside a literal doubled: the same
// values without the mode), and every statement it sends to the session's
// own back-end connections, which run in the session's sql_mode, through
// standardToNoBackslash (the escapes of the rewritten SQL and of the
// literals the proxy writes spelled as that mode reads them). Statements
// the proxy runs on the shared pools (metadata, information_schema, column
// types of a prepared statement) stay in the pools' mode. The session's OK
// and EOF packets carry SERVER_STATUS_NO_BACKSLASH_ESCAPES, so that a
// client that escapes values itself (go-sql-driver's interpolateParams)
// doubles quotes instead of writing backslashes, as it does for MySQL.

// noBackslashToStandard returns q, written under NO_BACKSLASH_ESCAPES, as
// the statement that means the same without the mode: every backslash
// inside a '...' or "..." literal doubled. Comments and `identifiers` are
// copied as they are; q without a backslash is returned as it is.
func noBackslashToStandard(q string) string {
	if strings.IndexByte(q, '\\') < 0 {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	for i := 0; i < len(q); {
		if j := skipNonLiteral(q, i); j > i {
			b.WriteString(q[i:j])
			i = j
			continue
		}
		quote := q[i]
		b.WriteByte(quote)
		i++
		for i < len(q) {
			c := q[i]
			if c == quote {
				if i+1 < len(q) && q[i+1] == quote {
					b.WriteString(q[i : i+2])
					i += 2
					continue
				}
				break
			}
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
			i++
		}
		if i < len(q) {
			b.WriteByte(quote)
			i++
		}
	}
	return b.String()
}

// standardToNoBackslash returns q, written for MySQL without
// NO_BACKSLASH_ESCAPES, as the statement that means the same under it:
// inside a '...' or "..." literal each backslash escape becomes the
// character it stands for (\0 NUL, \b, \n, \r, \t, \Z Ctrl-Z, \\ a
// backslash, \' and \" the quote, doubled when it is the literal's own),
// except \% and \_, which MySQL keeps as two characters in either mode.
// q without a backslash is returned as it is.
func standardToNoBackslash(q string) string {
	if strings.IndexByte(q, '\\') < 0 {
		return q
	}
	var b strings.Builder
	b.Grow(len(q))
	for i := 0; i < len(q); {
		if j := skipNonLiteral(q, i); j > i {
			b.WriteString(q[i:j])
			i = j
			continue
		}
		quote := q[i]
		b.WriteByte(quote)
		i++
		for i < len(q) {
			c := q[i]
			switch {
			case c == quote && i+1 < len(q) && q[i+1] == quote:
				b.WriteString(q[i : i+2])
				i += 2
				continue
			case c == quote:
			case c == '\\' && i+1 < len(q):
				e := q[i+1]
				i += 2
				switch e {
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
					b.WriteByte(0x1a)
				case '%', '_':
					b.WriteByte('\\')
					b.WriteByte(e)
				case quote:
					b.WriteByte(quote)
					b.WriteByte(quote)
				default:
					b.WriteByte(e)
				}
				continue
			default:
				b.WriteByte(c)
				i++
				continue
			}
			break
		}
		if i < len(q) {
			b.WriteByte(quote)
			i++
		}
	}
	return b.String()
}

// skipNonLiteral returns where the text of q from i that is not a string
// literal ends: at the next ' or " outside a comment and a `quoted
// identifier`, or len(q). A /*!...*/ or /*M!...*/ comment is code (MySQL
// and MariaDB run it): its literals are literals.
func skipNonLiteral(q string, i int) int {
	for i < len(q) {
		switch c := q[i]; {
		case c == '\'' || c == '"':
			return i
		case c == '`':
			i++
			for i < len(q) {
				if q[i] == '`' {
					if i+1 < len(q) && q[i+1] == '`' {
						i += 2
						continue
					}
					break
				}
				i++
			}
			i++
		case strings.HasPrefix(q[i:], "/*") && !strings.HasPrefix(q[i:], "/*!") && !strings.HasPrefix(q[i:], "/*M!"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return len(q)
			}
			i += end + 4
		case c == '#' || dashComment(q[i:]):
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				return len(q)
			}
			i += end + 1
		default:
			i++
		}
	}
	if i > len(q) {
		return len(q)
	}
	return i
}

// fromClient returns the statement q of the session's client as the proxy
// parses it (noBackslashToStandard under NO_BACKSLASH_ESCAPES).
func (sess *session) fromClient(q string) string {
	if sess.noBackslash {
		return noBackslashToStandard(q)
	}
	return q
}

// toBackend returns the statement q, written without
// NO_BACKSLASH_ESCAPES, as the session's back-end connections read it
// (standardToNoBackslash under the mode).
func (sess *session) toBackend(q string) string {
	if sess.noBackslash {
		return standardToNoBackslash(q)
	}
	return q
}

// readSQLMode sets the session's noBackslash and lenient, and the status flag of its
// OK packets, from the sql_mode its back end has now (after a SET that
// assigns sql_mode): one query on the first data source, on the session's
// reserved connection, else on the pools.
func (h *handler) readSQLMode(ctx context.Context, c *mysql.Conn, sess *session) error {
	const q = "SELECT @@SESSION.sql_mode"
	var e runtime.Executor = h.base(sess)
	var mode string
	if err := h.onLiveDataSource(nil, func(ds int) error {
		return e.QueryRow(ctx, &runtime.Stmt{Name: "sql_mode", LogicSQL: q}, runtime.RouteUnit{DataSource: ds, SQL: q}).Scan(&mode)
	}); err != nil {
		return err
	}
	sess.noBackslash = false
	sess.lenient = true
	for _, m := range strings.Split(mode, ",") {
		if strings.EqualFold(m, "NO_BACKSLASH_ESCAPES") {
			sess.noBackslash = true
		}
		if strings.EqualFold(m, "STRICT_TRANS_TABLES") || strings.EqualFold(m, "STRICT_ALL_TABLES") {
			sess.lenient = false
		}
	}
	if sess.noBackslash {
		c.StatusFlags |= mysql.ServerStatusNoBackslashEscapes
	} else {
		c.StatusFlags &^= mysql.ServerStatusNoBackslashEscapes
	}
	return nil
}
