package runtime

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is the lexer for the inside of an inline-expression placeholder
// (`${...}`): the Groovy subset described in docs/inline-expressions.md.
// Literal text outside placeholders and the bodies of double-quoted strings
// are read by the parser itself (inline_parser.go), because they switch
// between text and expressions.

// itokKind classifies one token of a placeholder expression.
type itokKind uint8

const (
	tkEOF   itokKind = iota // end of the source text
	tkInt                   // integer literal, value in tok.num
	tkStr                   // single-quoted string literal, decoded value in tok.str
	tkDQ                    // the opening '"' of a double-quoted string; the parser reads the body
	tkIdent                 // identifier or keyword, text in tok.text
	tkOp                    // operator or punctuation, text in tok.text
	tkErr                   // lexing error, in tok.err
)

// itok is one token. off and end are byte offsets in the expression source.
type itok struct {
	kind itokKind
	off  int
	end  int
	text string // source text of the token
	str  string // tkStr: decoded value
	num  ival   // tkInt: the literal's value (Integer, Long or BigInteger)
	err  *InlineError
}

// inlineOps lists every operator and punctuation token the lexer knows,
// longest first so that "..<" wins over "..". The ones the parser accepts
// are handled there; the others exist so an error can name the whole
// Groovy operator ("**", "?:", "<<") instead of its first character.
var inlineOps = []string{
	"<..<", "**=", "===", "!==", "==~", ">>>", "<=>",
	"..<", "<..",
	"..", "==", "!=", "<=", ">=", "&&", "||",
	"**", "<<", ">>", "?.", "?:", "=~", "++", "--", "+=", "-=", "*=", "/=", "%=", "->", "*.", ".&", ".@",
	"+", "-", "*", "/", "%", "<", ">", "!", "?", ":", "(", ")", "[", "]", ",", ".", "{", "}",
	"&", "|", "^", "~", "=", ";", "@", "#", "\\", "`",
}

// inlineKeywords are Groovy keywords that cannot name a sharding column in a
// placeholder; the parser rejects them by name. true and false are literals.
var inlineKeywords = map[string]bool{
	"as": true, "assert": true, "break": true, "case": true, "catch": true, "class": true,
	"const": true, "continue": true, "def": true, "default": true, "do": true, "else": true,
	"enum": true, "extends": true, "finally": true, "for": true, "goto": true, "if": true,
	"implements": true, "import": true, "in": true, "instanceof": true, "interface": true,
	"new": true, "null": true, "package": true, "return": true, "super": true, "switch": true,
	"this": true, "throw": true, "throws": true, "trait": true, "try": true, "var": true,
	"while": true, "it": true,
}

// inlineErr returns an *InlineError at off whose message ends with the
// offset: "<msg> at offset <off>".
func inlineErr(off int, msg string) *InlineError {
	return &InlineError{Offset: off, Msg: msg + " at offset " + strconv.Itoa(off)}
}

// inlineErrHint is inlineErr with advice appended: "<msg> at offset <off>: <hint>".
func inlineErrHint(off int, msg, hint string) *InlineError {
	return &InlineError{Offset: off, Msg: msg + " at offset " + strconv.Itoa(off) + ": " + hint}
}

func isIdentStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || ('0' <= c && c <= '9') }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// lexToken reads the token that starts at or after pos (whitespace is
// skipped) in placeholder mode.
func lexToken(src string, pos int) itok {
	for pos < len(src) && (src[pos] == ' ' || src[pos] == '\t' || src[pos] == '\n' || src[pos] == '\r') {
		pos++
	}
	if pos >= len(src) {
		return itok{kind: tkEOF, off: pos, end: pos}
	}
	c := src[pos]
	switch {
	case isDigit(c):
		return lexNumber(src, pos)
	case isIdentStart(c):
		end := pos + 1
		for end < len(src) && isIdentPart(src[end]) {
			end++
		}
		if end < len(src) && src[end] == '$' {
			return itok{kind: tkErr, off: end, end: end + 1,
				err: inlineErrHint(pos, "unsupported identifier "+strconv.Quote(src[pos:end+1]), `"$" in names is not supported`)}
		}
		return itok{kind: tkIdent, off: pos, end: end, text: src[pos:end]}
	case c == '\'':
		return lexSingleQuoted(src, pos)
	case c == '"':
		return itok{kind: tkDQ, off: pos, end: pos + 1, text: `"`}
	case c == '$':
		return itok{kind: tkErr, off: pos, end: pos + 1,
			err: inlineErr(pos, `unsupported "$" inside a placeholder`)}
	}
	for _, op := range inlineOps {
		if strings.HasPrefix(src[pos:], op) {
			return itok{kind: tkOp, off: pos, end: pos + len(op), text: op}
		}
	}
	r, size := utf8.DecodeRuneInString(src[pos:])
	return itok{kind: tkErr, off: pos, end: pos + size,
		err: inlineErr(pos, "unexpected character "+strconv.QuoteRune(r))}
}

// lexNumber reads a decimal integer literal with an optional Groovy type
// suffix: none (Integer if it fits int32, Long if it fits int64, else
// BigInteger), L/l (Long), G/g (BigInteger), I/i (Integer). Octal (leading
// 0), hex, binary, underscores, decimals and exponents are rejected: their
// Groovy meaning (010 is 8, 1.5 is a BigDecimal) is easy to get wrong.
func lexNumber(src string, pos int) itok {
	end := pos
	for end < len(src) && isDigit(src[end]) {
		end++
	}
	digits := src[pos:end]
	bad := func(e int) itok {
		for e < len(src) && (isIdentPart(src[e]) || (src[e] == '.' && e+1 < len(src) && isDigit(src[e+1]))) {
			e++
		}
		return itok{kind: tkErr, off: pos, end: e,
			err: inlineErrHint(pos, "unsupported number literal "+strconv.Quote(src[pos:e]), "only decimal integers (optionally with an L, G or I suffix) are supported")}
	}
	if len(digits) > 1 && digits[0] == '0' {
		return bad(end)
	}
	if end < len(src) && src[end] == '.' && end+1 < len(src) && isDigit(src[end+1]) {
		return bad(end)
	}
	suffix := byte(0)
	if end < len(src) && isIdentPart(src[end]) {
		switch src[end] {
		case 'L', 'l', 'G', 'g', 'I', 'i':
			suffix = src[end]
			end++
			if end < len(src) && isIdentPart(src[end]) {
				return bad(end)
			}
		default:
			return bad(end)
		}
	}
	tok := itok{kind: tkInt, off: pos, end: end, text: src[pos:end]}
	n, err := strconv.ParseInt(digits, 10, 64)
	switch suffix {
	case 0:
		switch {
		case err != nil:
			tok.num = bigIval(digits)
		case n <= 1<<31-1:
			tok.num = ival{k: ivInt, n: n}
		default:
			tok.num = ival{k: ivLong, n: n}
		}
	case 'L', 'l':
		if err != nil {
			return itok{kind: tkErr, off: pos, end: end, err: inlineErr(pos, "number literal "+strconv.Quote(tok.text)+" does not fit a Long")}
		}
		tok.num = ival{k: ivLong, n: n}
	case 'I', 'i':
		if err != nil || n > 1<<31-1 {
			return itok{kind: tkErr, off: pos, end: end, err: inlineErr(pos, "number literal "+strconv.Quote(tok.text)+" does not fit an Integer")}
		}
		tok.num = ival{k: ivInt, n: n}
	default: // G, g
		tok.num = bigIval(digits)
	}
	return tok
}

// lexSingleQuoted reads a Groovy single-quoted string: no interpolation,
// backslash escapes as in decodeEscape. A "$->{" inside is turned into "${"
// because ShardingSphere rewrites it in the whole expression text before
// Groovy sees it.
func lexSingleQuoted(src string, pos int) itok {
	var b strings.Builder
	i := pos + 1
	for i < len(src) {
		c := src[i]
		switch c {
		case '\'':
			return itok{kind: tkStr, off: pos, end: i + 1, text: src[pos : i+1], str: b.String()}
		case '\\':
			s, n, err := decodeEscape(src, i)
			if err != nil {
				return itok{kind: tkErr, off: i, end: i + n, err: err}
			}
			b.WriteString(s)
			i += n
			continue
		case '\n', '\r':
			return itok{kind: tkErr, off: pos, end: i, err: inlineErr(i, "newline in string literal")}
		case '$':
			if strings.HasPrefix(src[i:], "$->{") {
				b.WriteString("${")
				i += 4
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return itok{kind: tkErr, off: pos, end: len(src), err: inlineErr(pos, "unterminated string literal")}
}

// decodeEscape decodes the backslash escape at src[i] (src[i] == '\\'):
// \b \t \n \f \r \" \' \\ \$ and \uXXXX. It returns the decoded text and the
// number of source bytes used.
func decodeEscape(src string, i int) (string, int, *InlineError) {
	if i+1 >= len(src) {
		return "", 1, inlineErr(i, "unterminated escape sequence")
	}
	switch src[i+1] {
	case 'b':
		return "\b", 2, nil
	case 't':
		return "\t", 2, nil
	case 'n':
		return "\n", 2, nil
	case 'f':
		return "\f", 2, nil
	case 'r':
		return "\r", 2, nil
	case '"', '\'', '\\', '$':
		return src[i+1 : i+2], 2, nil
	case 'u':
		if i+6 <= len(src) {
			if v, err := strconv.ParseUint(src[i+2:i+6], 16, 16); err == nil {
				return string(rune(v)), 6, nil
			}
		}
		return "", 2, inlineErr(i, `invalid unicode escape`)
	}
	r, _ := utf8.DecodeRuneInString(src[i+1:])
	return "", 2, inlineErr(i, "unsupported escape "+strconv.Quote(`\`+string(r)))
}
