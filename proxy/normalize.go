package proxy

import (
	"strconv"
	"unicode/utf8"
)

// Normalizing the literals of a text-protocol statement, so that
// statements that differ only in their values share one cached plan (the
// plan cache of issue 13: normalize once, look the normalized text up,
// compare): `SELECT c FROM sbtest1 WHERE id = 5012` and `... id = 77` both
// become `SELECT c FROM sbtest1 WHERE id = ?`, planned once, and the values
// 5012 and 77 are the statement's parameters. What is sent to the data
// sources does not change: the units' SQL gets the literals back as the
// client wrote them (run's textArgs), so the back ends see text as before.
//
// Only literals whose replacement cannot change what the statement means
// or how its result looks are replaced; anything else stays a literal and
// is planned as before:
//
//   - a decimal integer without sign or leading zero, at most 18 digits
//     (an int64, written back with the same digits), with a minus sign
//     right before it as a whole element of a VALUES row, or a single-quoted
//     string of valid UTF-8 without quote, backslash or control character
//     (written back byte for byte, whatever the session's sql_mode);
//   - in a WHERE clause right after a comparison (=, <>, !=, <, <=, >, >=,
//     <=>) or as an element of an IN list, and followed by the end of the
//     statement, ")", AND, OR, or a keyword that ends the clause; or as a
//     whole element of an INSERT or REPLACE's VALUES row;
//   - never in a select list, ORDER BY, GROUP BY, LIMIT, SET, ON or
//     function arguments (a result column is named by its text; LIMIT and
//     positions are not values), never after a charset introducer or
//     before COLLATE (the next token must be one of the above).
//
// A statement with a placeholder, a comment, a backslash (planNormalized),
// a double-quoted string or a
// statement kind other than SELECT, INSERT, REPLACE, UPDATE and DELETE is
// not normalized at all.

// literalSpan is one replaced literal: its bytes q[start:end] and whether
// it is a string.
type literalSpan struct {
	start, end int
	str        bool
}

// normalizer holds one session's buffers, reused by every statement so
// that normalizing allocates nothing once they have grown.
type normalizer struct {
	text  []byte        // the normalized statement
	spans []literalSpan // the replaced literals, in order
	args  []any
	stack []clause // per parenthesis depth
}

// clause is where a token is, for deciding whether a literal is a value.
type clause uint8

const (
	clauseNone   clause = iota
	clauseWhere         // a WHERE condition (and parentheses inside it)
	clauseIn            // the list of an IN inside a WHERE condition
	clauseValues        // after VALUES, between rows
	clauseRow           // inside one VALUES row
	clauseCall          // inside a function call or any other parentheses
)

// token kinds of the normalizer's lexer.
const (
	ntEnd = iota
	ntWord
	ntInt    // a decimal integer that may be replaced
	ntString // a single-quoted string that may be replaced
	ntOther  // any other literal, identifier or operator
	ntOp     // an operator or punctuation, text in the token
)

type token struct {
	kind       int
	start, end int
}

// normalize replaces the literals of q that may become parameters (see
// above) by "?" and returns the normalized text, backed by n's buffer and
// valid until the next call; ok is false when q is not normalized (nothing
// to replace, or a statement it does not handle).
func (n *normalizer) normalize(q string) (text []byte, ok bool) {
	n.text, n.spans, n.stack = n.text[:0], n.spans[:0], append(n.stack[:0], clauseNone)
	first, _ := nextWord(q, 0)
	insert := false
	switch {
	case eqFold(first, "select"), eqFold(first, "update"), eqFold(first, "delete"):
	case eqFold(first, "insert"), eqFold(first, "replace"):
		insert = true
	default:
		return nil, false
	}
	var prev, prev2 token // the two tokens before cur
	cur, err := lex(q, 0)
	if !err {
		return nil, false
	}
	for cur.kind != ntEnd {
		next, ok := lex(q, cur.end)
		if !ok {
			return nil, false
		}
		depth := len(n.stack) - 1
		switch cur.kind {
		case ntWord:
			w := q[cur.start:cur.end]
			switch {
			case eqFold(w, "where"):
				n.stack[depth] = clauseWhere
			case eqFold(w, "values"), eqFold(w, "value"):
				if insert && depth == 0 {
					n.stack[depth] = clauseValues
				}
			case eqFold(w, "select"), eqFold(w, "group"), eqFold(w, "order"), eqFold(w, "limit"), eqFold(w, "having"),
				eqFold(w, "on"), eqFold(w, "set"), eqFold(w, "union"), eqFold(w, "for"), eqFold(w, "lock"),
				eqFold(w, "into"), eqFold(w, "window"), eqFold(w, "from"), eqFold(w, "as"), eqFold(w, "join"):
				n.stack[depth] = clauseNone
			}
		case ntOp:
			switch q[cur.start] {
			case '(':
				inner := clauseCall
				switch {
				case n.stack[depth] == clauseWhere && prev.kind == ntWord && eqFold(q[prev.start:prev.end], "in"):
					inner = clauseIn
				case n.stack[depth] == clauseWhere && prev.kind == ntOp && (isComparison(q, prev) || q[prev.start] == '('):
					inner = clauseWhere // a parenthesised condition or subquery
				case n.stack[depth] == clauseWhere && prev.kind == ntWord && (eqFold(q[prev.start:prev.end], "where") ||
					eqFold(q[prev.start:prev.end], "and") || eqFold(q[prev.start:prev.end], "or") || eqFold(q[prev.start:prev.end], "not")):
					inner = clauseWhere
				case n.stack[depth] == clauseValues && (prev.kind == ntWord || prev.kind == ntOp && q[prev.start] == ','):
					inner = clauseRow
				}
				n.stack = append(n.stack, inner)
			case ')':
				if depth == 0 {
					return nil, false
				}
				n.stack = n.stack[:depth]
			}
		case ntInt, ntString:
			if cur.kind == ntInt && n.stack[depth] == clauseRow && prev.kind == ntOp && q[prev.start:prev.end] == "-" && prev.end == cur.start &&
				n.replaceable(q, clauseRow, prev2, token{}, next) {
				// A negative integer as a whole element of a VALUES row
				// (sysbench's oltp_insert ids): the sign is the literal's.
				n.spans = append(n.spans, literalSpan{start: prev.start, end: cur.end})
			} else if n.replaceable(q, n.stack[depth], prev, prev2, next) {
				n.spans = append(n.spans, literalSpan{start: cur.start, end: cur.end, str: cur.kind == ntString})
			}
		}
		prev2, prev, cur = prev, cur, next
	}
	if len(n.spans) == 0 || len(n.stack) != 1 {
		return nil, false
	}
	at := 0
	for _, s := range n.spans {
		n.text = append(n.text, q[at:s.start]...)
		n.text = append(n.text, '?')
		at = s.end
	}
	n.text = append(n.text, q[at:]...)
	return n.text, true
}

// replaceable reports whether the literal between prev and next, in
// clause c, may become a parameter.
func (n *normalizer) replaceable(q string, c clause, prev, prev2, next token) bool {
	isOp := func(t token, s string) bool { return t.kind == ntOp && q[t.start:t.end] == s }
	switch c {
	case clauseWhere:
		if prev.kind != ntOp || !isComparison(q, prev) {
			return false
		}
		if next.kind == ntEnd || isOp(next, ")") {
			return true
		}
		if next.kind != ntWord {
			return false
		}
		w := q[next.start:next.end]
		for _, k := range [...]string{"and", "or", "order", "group", "limit", "having", "for", "lock", "union", "window"} {
			if eqFold(w, k) {
				return true
			}
		}
		return false
	case clauseIn, clauseRow:
		return (isOp(prev, "(") || isOp(prev, ",")) && (isOp(next, ",") || isOp(next, ")"))
	}
	return false
}

// isComparison reports whether t is a comparison operator.
func isComparison(q string, t token) bool {
	switch q[t.start:t.end] {
	case "=", "<>", "!=", "<", "<=", ">", ">=", "<=>":
		return true
	}
	return false
}

// args returns the values of the replaced literals of q (int64 or string),
// in n's buffer.
func (n *normalizer) values(q string) []any {
	n.args = n.args[:0]
	for _, s := range n.spans {
		if s.str {
			n.args = append(n.args, q[s.start+1:s.end-1])
			continue
		}
		v, _ := strconv.ParseInt(q[s.start:s.end], 10, 64) // at most 18 digits
		n.args = append(n.args, v)
	}
	return n.args
}

// lex returns the token of q at or after i; ok is false for what makes a
// statement not normalized (a placeholder, a comment, a double-quoted
// string, an unterminated quote).
func lex(q string, i int) (t token, ok bool) {
	for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r') {
		i++
	}
	if i >= len(q) {
		return token{kind: ntEnd, start: i, end: i}, true
	}
	c := q[i]
	switch {
	case c == '?', c == '#', c == '"':
		return t, false
	case c == '-' && i+1 < len(q) && q[i+1] == '-', c == '/' && i+1 < len(q) && q[i+1] == '*':
		return t, false
	case c == '\'':
		simple := true
		for j := i + 1; j < len(q); j++ {
			switch b := q[j]; {
			case b == '\'':
				if j+1 < len(q) && q[j+1] == '\'' {
					simple = false
					j++
					continue
				}
				kind := ntOther
				if simple && utf8.ValidString(q[i+1:j]) {
					kind = ntString
				}
				return token{kind: kind, start: i, end: j + 1}, true
			case b == '\\':
				simple = false
				j++
			case b < 0x20:
				simple = false
			}
		}
		return t, false
	case c == '`':
		for j := i + 1; j < len(q); j++ {
			if q[j] == '`' {
				if j+1 < len(q) && q[j+1] == '`' {
					j++
					continue
				}
				return token{kind: ntOther, start: i, end: j + 1}, true
			}
		}
		return t, false
	case litWordByte(c):
		j := i
		for j < len(q) && (litWordByte(q[j]) || q[j] == '.' && j+1 < len(q) && isDigit(q[j+1]) && allDigits(q[i:j])) {
			j++
		}
		w := q[i:j]
		switch {
		case allDigits(w):
			if len(w) <= 18 && (w == "0" || w[0] != '0') {
				return token{kind: ntInt, start: i, end: j}, true
			}
			return token{kind: ntOther, start: i, end: j}, true
		case isDigit(c):
			return token{kind: ntOther, start: i, end: j}, true // 5.0, 1e3, 0x1f, 1abc
		}
		return token{kind: ntWord, start: i, end: j}, true
	}
	// Operators: the longest of <=>, <=, >=, <>, !=, :=, ||, &&, <<, >>,
	// else one byte.
	for _, op := range [...]string{"<=>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "<<", ">>"} {
		if len(q)-i >= len(op) && q[i:i+len(op)] == op {
			return token{kind: ntOp, start: i, end: i + len(op)}, true
		}
	}
	return token{kind: ntOp, start: i, end: i + 1}, true
}

func litWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// eqFold is strings.EqualFold for an ASCII keyword k in lower case.
func eqFold(s, k string) bool {
	if len(s) != len(k) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k[i] {
			return false
		}
	}
	return true
}
