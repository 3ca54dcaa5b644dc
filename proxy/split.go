package proxy

import "strings"

// splitStatements cuts the text of one COM_QUERY into its statements at
// each ; that ends one, as a MySQL server reads a multi-statement query
// (CLIENT_MULTI_STATEMENTS; see nextStatement), for a session without
// (noBackslash false) or with NO_BACKSLASH_ESCAPES. The pieces keep their
// text as written (no ;); pieces that hold nothing but white space and
// comments are dropped unless there is no other, so the text of a lone
// comment stays one statement.
func splitStatements(q string, noBackslash bool) []string {
	var out []string
	for rest := q; ; {
		stmt, next, ok := nextStatement(rest, noBackslash)
		if !ok {
			break
		}
		out, rest = append(out, stmt), next
	}
	if len(out) == 0 {
		return []string{q}
	}
	return out
}

// nextStatement returns the first statement of q that holds more than
// white space and comments, and the text after the ; that ends it; ok is
// false when there is none. A ; inside a quoted string or identifier
// (backslash escapes unless noBackslash), a comment, or the body of a
// stored program is not an end: in a CREATE PROCEDURE / FUNCTION /
// TRIGGER / EVENT, and in MariaDB's BEGIN NOT ATOMIC block, the statement
// ends only after the END that closes its outermost BEGIN (BEGIN ... END
// blocks nest; CASE ... END [CASE] is followed so that the END of a CASE
// expression closes no block). vitess's SplitStatementToPieces cuts such a
// body at its first inner ;. The caller reads one statement at a time, so
// that a SET of sql_mode applies to the statements after it, as in MySQL.
func nextStatement(q string, noBackslash bool) (stmt, rest string, ok bool) {
	for q != "" {
		stmt, rest = cutStatement(q, noBackslash)
		if w, _ := nextWord(stmt, 0); w != "" {
			return stmt, rest, true
		}
		q = rest
	}
	return "", "", false
}

// cutStatement returns q up to the ; that ends its first statement, and
// the text after it (see nextStatement).
func cutStatement(q string, noBackslash bool) (string, string) {
	var lx sqlLexer
	lx.init(q)
	lx.noBackslash = noBackslash
	compound := false // the statement is a stored program's definition
	var blocks []byte // open BEGIN ('b') and CASE ('c')
	words := 0        // words read of the statement
	routineHead := false
	for {
		kind, tok := lx.next()
		switch kind {
		case tokEOF:
			return q, ""
		case tokWord:
			w := strings.ToLower(tok)
			words++
			switch {
			case words == 1 && w == "create":
				routineHead = true
			case words == 1 && w == "begin":
				if nw := strings.ToLower(lx.peekWord()); nw == "not" {
					compound = true
					blocks = append(blocks, 'b')
				}
			case routineHead && !compound && (w == "procedure" || w == "function" || w == "trigger" || w == "event"):
				compound = true
			case compound && w == "begin":
				blocks = append(blocks, 'b')
			case compound && w == "case":
				blocks = append(blocks, 'c')
			case compound && w == "end" && len(blocks) > 0:
				switch strings.ToLower(lx.peekWord()) {
				case "if", "loop", "while", "repeat":
					lx.next()
				case "case":
					lx.next() // END CASE: not a CASE that opens
					if blocks[len(blocks)-1] == 'c' {
						blocks = blocks[:len(blocks)-1]
					}
				default:
					blocks = blocks[:len(blocks)-1]
				}
			}
		case tokSemicolon:
			if len(blocks) == 0 {
				return q[:lx.pos-1], q[lx.pos:]
			}
		}
	}
}

// countPlaceholders returns the number of ? placeholders of q outside
// quoted strings, quoted identifiers and comments.
func countPlaceholders(q string) int {
	var lx sqlLexer
	lx.init(q)
	n := 0
	for {
		kind, _ := lx.next()
		if kind == tokEOF {
			return n
		}
		if kind == tokPlaceholder {
			n++
		}
	}
}

// Tokens of sqlLexer.
const (
	tokEOF = iota
	tokWord
	tokSemicolon
	tokPlaceholder
	tokOther // a quoted string or identifier, a number, an operator
)

// sqlLexer reads the words, semicolons and placeholders of SQL text,
// skipping white space, comments (-- , #, /* */) and quoted strings and
// identifiers (' " `, with backslash escapes in strings and doubled
// quotes). An unterminated quote or comment runs to the end of the text.
type sqlLexer struct {
	q   string
	pos int
	// noBackslash reads a backslash in a string as itself
	// (NO_BACKSLASH_ESCAPES).
	noBackslash bool
}

func (lx *sqlLexer) init(q string) { lx.q, lx.pos = q, 0 }

// next returns the next token and its text.
func (lx *sqlLexer) next() (int, string) {
	q := lx.q
	for lx.pos < len(q) {
		i := lx.pos
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			lx.pos++
		case c == '#' || dashComment(q[i:]):
			if end := strings.IndexByte(q[i:], '\n'); end >= 0 {
				lx.pos = i + end + 1
			} else {
				lx.pos = len(q)
			}
		case strings.HasPrefix(q[i:], "/*"):
			if end := strings.Index(q[i+2:], "*/"); end >= 0 {
				lx.pos = i + 2 + end + 2
			} else {
				lx.pos = len(q)
			}
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(q) {
				if q[j] == '\\' && c != '`' && !lx.noBackslash {
					j += 2
					continue
				}
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			lx.pos = min(j+1, len(q))
			return tokOther, q[i:lx.pos]
		case c == ';':
			lx.pos++
			return tokSemicolon, ";"
		case c == '?':
			lx.pos++
			return tokPlaceholder, "?"
		case wordByte(c):
			j := i
			for j < len(q) && wordByte(q[j]) {
				j++
			}
			lx.pos = j
			if c >= '0' && c <= '9' {
				return tokOther, q[i:j]
			}
			return tokWord, q[i:j]
		default:
			lx.pos++
			return tokOther, q[i:lx.pos]
		}
	}
	return tokEOF, ""
}

// peekWord returns the next token if it is a word, else "", without
// moving on.
func (lx *sqlLexer) peekWord() string {
	save := lx.pos
	kind, tok := lx.next()
	lx.pos = save
	if kind != tokWord {
		return ""
	}
	return tok
}

// wordByte reports whether c is part of an unquoted word: a letter, a
// digit, _, $ or a byte of a multi-byte UTF-8 character.
func wordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80
}
