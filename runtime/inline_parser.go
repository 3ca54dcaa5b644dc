package runtime

import (
	"strconv"
	"strings"
)

// This file parses inline expressions into an AST, once; inline_eval.go
// evaluates the AST. The grammar is written down in
// docs/inline-expressions.md; parse functions below are named after its
// productions.

// iop is the operation of one AST node.
type iop uint8

const (
	opConst     iop = iota // a literal: val
	opName                 // a bound name (sharding column or `value`): slot, name
	opGStr                 // a double-quoted string with placeholders: tpl
	opList                 // [a, b, ...]: kids
	opRange                // kids[0]..kids[1], or ..< when excl
	opNeg                  // -kids[0]
	opPos                  // +kids[0]
	opNot                  // !kids[0]
	opAdd                  // kids[0] + kids[1]
	opSub                  // kids[0] - kids[1]
	opMul                  // kids[0] * kids[1]
	opMod                  // kids[0] % kids[1]
	opEq                   // ==
	opNe                   // !=
	opLt                   // <
	opGt                   // >
	opLe                   // <=
	opGe                   // >=
	opAnd                  // &&
	opOr                   // ||
	opCond                 // kids[0] ? kids[1] : kids[2]
	opAbs                  // Math.abs(kids[0])
	opFormat               // String.format(format, kids...)
	opHash                 // kids[0].hashCode()
	opToString             // kids[0].toString()
	opIntdiv               // kids[0].intdiv(kids[1])
	opSubstring            // kids[0].substring(kids[1] [, kids[2]])
	opPadLeft              // kids[0].padLeft(kids[1] [, kids[2]])
	opPadRight             // kids[0].padRight(kids[1] [, kids[2]])
)

// opSymbols names each operator as the user wrote it, for error messages.
var opSymbols = map[iop]string{
	opAdd: "+", opSub: "-", opMul: "*", opMod: "%", opNeg: "-", opPos: "+", opNot: "!",
	opEq: "==", opNe: "!=", opLt: "<", opGt: ">", opLe: "<=", opGe: ">=", opAnd: "&&", opOr: "||",
	opRange: "..", opAbs: "Math.abs", opFormat: "String.format", opHash: "hashCode",
	opToString: "toString", opIntdiv: "intdiv", opSubstring: "substring", opPadLeft: "padLeft",
	opPadRight: "padRight",
}

// inode is one AST node. off is the byte offset, in the expression source,
// of the token that names the operation (the operator, the method name, the
// literal), so evaluation errors point at it.
type inode struct {
	op   iop
	off  int
	kids []*inode
	val  ival   // opConst
	slot int    // opName: index into the bound values
	name string // opName
	tpl  *itpl  // opGStr
	fmt  []ifmt // opFormat
	excl bool   // opRange: ..< instead of ..
}

// itpl is a GString: literal text and placeholders, in order.
type itpl struct {
	parts []ipart
}

// ipart is literal text (expr == nil) or one placeholder.
type ipart struct {
	lit  string
	expr *inode
	off  int // offset of the text or of the placeholder's "${"
	eoff int // offset of the placeholder's first token, for errors about its value
}

// ifmt is one piece of a String.format format: literal text followed by at
// most one conversion.
type ifmt struct {
	lit   string // text before the conversion, "%%" already decoded
	conv  byte   // 'd', 's', or 0 when only text follows
	width int    // minimum width, 0 for none
	left  bool   // '-' flag: pad on the right
	zero  bool   // '0' flag: pad with zeros after the sign
}

// tplMode says where a template ends.
type tplMode uint8

const (
	tmTop  tplMode = iota // an algorithm expression: the end of the source; commas are text
	tmList                // one element of a list expression: ',' or the end
	tmDQ                  // the body of a double-quoted string: '"'
)

// inlineMaxDepth bounds the nesting of parentheses, lists, unary operators
// and ternaries, so hostile input cannot exhaust the stack.
const inlineMaxDepth = 128

// iparser parses one expression source. It keeps one token of lookahead in
// placeholder mode; in text mode it reads bytes directly.
type iparser struct {
	src      string
	pos      int
	look     itok
	hasLook  bool
	names    []string // bound names in order of first use; a name's slot is its index
	nameOffs []int    // offset of each name's first use
	depth    int
}

func (p *iparser) peek() itok {
	if !p.hasLook {
		p.look = lexToken(p.src, p.pos)
		p.hasLook = true
	}
	return p.look
}

func (p *iparser) advance() itok {
	t := p.peek()
	p.hasLook = false
	p.pos = t.end
	return t
}

func (p *iparser) isOp(text string) bool {
	t := p.peek()
	return t.kind == tkOp && t.text == text
}

// supportedOps are the operator tokens the grammar uses somewhere; any other
// operator token is reported as unsupported rather than unexpected.
var supportedOps = map[string]bool{
	"..<": true, "..": true, "==": true, "!=": true, "<=": true, ">=": true, "&&": true, "||": true,
	"+": true, "-": true, "*": true, "%": true, "<": true, ">": true, "!": true, "?": true, ":": true,
	"(": true, ")": true, "[": true, "]": true, ",": true, ".": true, "}": true,
}

// unexpected describes token t where the grammar wanted something else;
// want, when not empty, says what (e.g. `"}"`).
func (p *iparser) unexpected(t itok, want string) *InlineError {
	var msg string
	switch t.kind {
	case tkErr:
		return t.err
	case tkEOF:
		msg = "unexpected end of expression"
	case tkOp:
		if t.text == "/" {
			return inlineErrHint(t.off, `unsupported operator "/"`, `Groovy "/" on integers yields a BigDecimal; use .intdiv(n)`)
		}
		if !supportedOps[t.text] {
			return inlineErr(t.off, "unsupported operator "+strconv.Quote(t.text))
		}
		msg = "unexpected " + strconv.Quote(t.text)
	case tkIdent:
		if inlineKeywords[t.text] {
			return inlineErr(t.off, "unsupported keyword "+strconv.Quote(t.text))
		}
		msg = "unexpected name " + strconv.Quote(t.text)
	case tkDQ:
		msg = "unexpected string"
	default:
		msg = "unexpected " + strconv.Quote(t.text)
	}
	if want != "" {
		return inlineErrHint(t.off, msg, "expected "+want)
	}
	return inlineErr(t.off, msg)
}

// parseTemplate reads literal text and placeholders from p.pos until the end
// the mode defines. In tmList it stops before a ',' (not consumed); in tmDQ
// it consumes the closing '"'.
func (p *iparser) parseTemplate(mode tplMode) (*itpl, *InlineError) {
	tpl := &itpl{}
	var lit strings.Builder
	litOff := p.pos
	flush := func() {
		if lit.Len() > 0 {
			tpl.parts = append(tpl.parts, ipart{lit: lit.String(), off: litOff})
			lit.Reset()
		}
	}
	for {
		if p.pos >= len(p.src) {
			if mode == tmDQ {
				return nil, inlineErr(p.pos, "unterminated string literal")
			}
			flush()
			return tpl, nil
		}
		c := p.src[p.pos]
		switch {
		case c == '$':
			start := p.pos
			switch {
			case strings.HasPrefix(p.src[p.pos:], "${"):
				p.pos += 2
			case strings.HasPrefix(p.src[p.pos:], "$->{"):
				p.pos += 4
			default:
				return nil, inlineErrHint(start, `unsupported "$" without "{"`, `write "${...}" (Groovy's "$name" form is not supported)`)
			}
			flush()
			eoff := lexToken(p.src, p.pos).off
			e, err := p.parsePlaceholder(start)
			if err != nil {
				return nil, err
			}
			tpl.parts = append(tpl.parts, ipart{expr: e, off: start, eoff: eoff})
			litOff = p.pos
			continue
		case c == '"':
			if mode == tmDQ {
				p.pos++
				flush()
				return tpl, nil
			}
			return nil, inlineErrHint(p.pos, `unsupported character '"' in expression text`, "ShardingSphere evaluates the text inside a Groovy string")
		case c == '\\':
			if mode != tmDQ {
				return nil, inlineErrHint(p.pos, `unsupported character '\' in expression text`, "ShardingSphere evaluates the text inside a Groovy string")
			}
			s, n, err := decodeEscape(p.src, p.pos)
			if err != nil {
				return nil, err
			}
			if lit.Len() == 0 {
				litOff = p.pos
			}
			lit.WriteString(s)
			p.pos += n
			continue
		case c == ',' && mode == tmList:
			flush()
			return tpl, nil
		case (c == '\n' || c == '\r') && mode == tmDQ:
			return nil, inlineErr(p.pos, "newline in string literal")
		}
		if lit.Len() == 0 {
			litOff = p.pos
		}
		lit.WriteByte(c)
		p.pos++
	}
}

// parsePlaceholder parses the expression after "${" (or "$->{") and the
// closing "}". start is the offset of the '$'.
func (p *iparser) parsePlaceholder(start int) (*inode, *InlineError) {
	p.hasLook = false
	if p.isOp("}") {
		return nil, inlineErr(start, "empty placeholder")
	}
	if p.peek().kind == tkEOF {
		return nil, inlineErr(start, `unterminated placeholder "${"`)
	}
	e, err := p.parseExpr()
	if err != nil {
		if !strings.Contains(p.src[start:], "}") && !strings.HasPrefix(err.Msg, "unterminated") {
			// "${0..3.t": the missing "}" is the mistake, not what the
			// expression parser tripped on.
			return nil, inlineErrHint(start, `unterminated placeholder "${"`, `no "}" closes it (`+err.Msg+")")
		}
		return nil, err
	}
	t := p.peek()
	if t.kind == tkEOF {
		return nil, inlineErr(start, `unterminated placeholder "${"`)
	}
	if t.kind != tkOp || t.text != "}" {
		return nil, p.unexpected(t, `"}"`)
	}
	p.advance()
	p.hasLook = false
	return e, nil
}

// enter and leave bound the recursion depth.
func (p *iparser) enter() *InlineError {
	p.depth++
	if p.depth > inlineMaxDepth {
		return inlineErr(p.peek().off, "expression nests deeper than "+strconv.Itoa(inlineMaxDepth)+" levels")
	}
	return nil
}

func (p *iparser) leave() { p.depth-- }

// parseExpr: ternary := or ( "?" ternary ":" ternary )?
func (p *iparser) parseExpr() (*inode, *InlineError) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	cond, err := p.parseBinary(0)
	if err != nil {
		return nil, err
	}
	if !p.isOp("?") {
		return cond, nil
	}
	q := p.advance()
	a, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if !p.isOp(":") {
		return nil, p.unexpected(p.peek(), `":"`)
	}
	p.advance()
	b, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	return &inode{op: opCond, off: q.off, kids: []*inode{cond, a, b}}, nil
}

// binLevels lists the binary operators from the loosest to the tightest
// binding level, as Groovy ranks them: || , && , == != , < > <= >= ,
// .. ..< , + - , * % .
var binLevels = []map[string]iop{
	{"||": opOr},
	{"&&": opAnd},
	{"==": opEq, "!=": opNe},
	{"<": opLt, ">": opGt, "<=": opLe, ">=": opGe},
	{"..": opRange, "..<": opRange},
	{"+": opAdd, "-": opSub},
	{"*": opMul, "%": opMod},
}

// parseBinary parses the binary level `level` and tighter. Relational and
// range operators do not chain (Groovy would compare a Boolean, or build a
// range of ranges); the others associate to the left.
func (p *iparser) parseBinary(level int) (*inode, *InlineError) {
	if level == len(binLevels) {
		return p.parseUnary()
	}
	left, err := p.parseBinary(level + 1)
	if err != nil {
		return nil, err
	}
	chained := false
	for {
		t := p.peek()
		if t.kind == tkOp && t.text == "/" && level == len(binLevels)-1 {
			return nil, p.unexpected(t, "")
		}
		op, ok := binLevels[level][t.text]
		if t.kind != tkOp || !ok {
			return left, nil
		}
		if chained {
			if op == opRange {
				return nil, inlineErr(t.off, "range operators cannot be chained")
			}
			return nil, inlineErr(t.off, "comparison operators cannot be chained")
		}
		p.advance()
		right, err := p.parseBinary(level + 1)
		if err != nil {
			return nil, err
		}
		left = &inode{op: op, off: t.off, kids: []*inode{left, right}, excl: t.text == "..<"}
		chained = op == opRange || (op >= opLt && op <= opGe)
	}
}

// parseUnary: unary := ( "-" | "+" | "!" ) unary | postfix
func (p *iparser) parseUnary() (*inode, *InlineError) {
	t := p.peek()
	if t.kind == tkOp && (t.text == "-" || t.text == "+" || t.text == "!") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		p.advance()
		x, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		op := opNeg
		switch t.text {
		case "+":
			op = opPos
		case "!":
			op = opNot
		}
		return &inode{op: op, off: t.off, kids: []*inode{x}}, nil
	}
	return p.parsePostfix()
}

// methodArity gives the accepted argument counts of each instance method.
var methodArity = map[string]struct {
	op       iop
	min, max int
}{
	"hashCode":  {opHash, 0, 0},
	"toString":  {opToString, 0, 0},
	"intdiv":    {opIntdiv, 1, 1},
	"substring": {opSubstring, 1, 2},
	"padLeft":   {opPadLeft, 1, 2},
	"padRight":  {opPadRight, 1, 2},
}

// parsePostfix: postfix := primary ( "." method "(" args ")" )*
func (p *iparser) parsePostfix() (*inode, *InlineError) {
	x, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind == tkOp && t.text == "[" {
			return nil, inlineErr(t.off, `unsupported subscript "["`)
		}
		if t.kind != tkOp || t.text != "." {
			return x, nil
		}
		p.advance()
		name := p.advance()
		if name.kind != tkIdent {
			return nil, p.unexpected(name, "a method name")
		}
		if !p.isOp("(") {
			return nil, inlineErr(name.off, "unsupported property "+strconv.Quote(name.text))
		}
		m, ok := methodArity[name.text]
		if !ok {
			return nil, inlineErr(name.off, "unsupported method "+strconv.Quote(name.text))
		}
		args, err := p.parseArgs()
		if err != nil {
			return nil, err
		}
		if len(args) < m.min || len(args) > m.max {
			return nil, arityError(name.off, name.text, m.min, m.max, len(args))
		}
		x = &inode{op: m.op, off: name.off, kids: append([]*inode{x}, args...)}
	}
}

func arityError(off int, name string, min, max, got int) *InlineError {
	want := strconv.Itoa(min)
	if max != min {
		want += " or " + strconv.Itoa(max)
	}
	return inlineErr(off, "wrong number of arguments to "+strconv.Quote(name)+": want "+want+", got "+strconv.Itoa(got))
}

// parseArgs parses "(" [ expr { "," expr } ] ")"; the "(" is next.
func (p *iparser) parseArgs() ([]*inode, *InlineError) {
	p.advance() // "("
	var args []*inode
	if p.isOp(")") {
		p.advance()
		return nil, nil
	}
	for {
		a, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		t := p.advance()
		if t.kind == tkOp && t.text == ")" {
			return args, nil
		}
		if t.kind != tkOp || t.text != "," {
			return nil, p.unexpected(t, `"," or ")"`)
		}
	}
}

// parsePrimary: integer | 'string' | "gstring" | true | false | name |
// "(" expr ")" | "[" [ expr { "," expr } [","] ] "]" | Math.abs(expr) |
// String.format('format', expr...)
func (p *iparser) parsePrimary() (*inode, *InlineError) {
	t := p.advance()
	switch t.kind {
	case tkInt:
		return &inode{op: opConst, off: t.off, val: t.num}, nil
	case tkStr:
		return &inode{op: opConst, off: t.off, val: strIval(t.str)}, nil
	case tkDQ:
		tpl, err := p.parseTemplate(tmDQ)
		if err != nil {
			return nil, err
		}
		if s, ok := tpl.constant(); ok {
			return &inode{op: opConst, off: t.off, val: strIval(s)}, nil
		}
		return &inode{op: opGStr, off: t.off, tpl: tpl}, nil
	case tkIdent:
		switch t.text {
		case "true":
			return &inode{op: opConst, off: t.off, val: boolIval(true)}, nil
		case "false":
			return &inode{op: opConst, off: t.off, val: boolIval(false)}, nil
		case "Math", "String":
			if p.isOp(".") {
				return p.parseStatic(t)
			}
		}
		if inlineKeywords[t.text] {
			return nil, inlineErr(t.off, "unsupported keyword "+strconv.Quote(t.text))
		}
		return &inode{op: opName, off: t.off, name: t.text, slot: p.slot(t.text, t.off)}, nil
	case tkOp:
		switch t.text {
		case "(":
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			x, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if c := p.advance(); c.kind != tkOp || c.text != ")" {
				return nil, p.unexpected(c, `")"`)
			}
			return x, nil
		case "[":
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			return p.parseList(t)
		}
	}
	return nil, p.unexpected(t, "")
}

// parseList parses the rest of a list literal after "[".
func (p *iparser) parseList(open itok) (*inode, *InlineError) {
	n := &inode{op: opList, off: open.off}
	for {
		if p.isOp("]") {
			p.advance()
			return n, nil
		}
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, x)
		t := p.advance()
		if t.kind == tkOp && t.text == "]" {
			return n, nil
		}
		if t.kind != tkOp || t.text != "," {
			return nil, p.unexpected(t, `"," or "]"`)
		}
	}
}

// parseStatic parses Math.abs(x) and String.format('fmt', args...); cls is
// the class name token and "." is next.
func (p *iparser) parseStatic(cls itok) (*inode, *InlineError) {
	p.advance() // "."
	name := p.advance()
	if name.kind != tkIdent {
		return nil, p.unexpected(name, "a method name")
	}
	full := cls.text + "." + name.text
	if !p.isOp("(") {
		return nil, inlineErr(name.off, "unsupported property "+strconv.Quote(full))
	}
	switch full {
	case "Math.abs":
		args, err := p.parseArgs()
		if err != nil {
			return nil, err
		}
		if len(args) != 1 {
			return nil, arityError(name.off, full, 1, 1, len(args))
		}
		return &inode{op: opAbs, off: cls.off, kids: args}, nil
	case "String.format":
		args, err := p.parseArgs()
		if err != nil {
			return nil, err
		}
		if len(args) == 0 || args[0].op != opConst || args[0].val.k != ivStr {
			return nil, inlineErr(name.off, "String.format needs a string literal as its format")
		}
		spec, nconv, ferr := parseFormat(args[0].val.s, args[0].off)
		if ferr != nil {
			return nil, ferr
		}
		if nconv > len(args)-1 {
			return nil, inlineErr(name.off, "String.format has "+strconv.Itoa(nconv)+" conversions but "+strconv.Itoa(len(args)-1)+" arguments")
		}
		return &inode{op: opFormat, off: cls.off, kids: args[1:], fmt: spec}, nil
	}
	return nil, inlineErr(name.off, "unsupported method "+strconv.Quote(full))
}

// parseFormat parses a java.util.Formatter format restricted to %d and %s
// with an optional '-' or '0' flag and a width, plus %%. off is the offset
// of the format literal, for errors. It returns the pieces and the number of
// conversions.
func parseFormat(f string, off int) ([]ifmt, int, *InlineError) {
	var out []ifmt
	var lit strings.Builder
	n := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			lit.WriteByte(f[i])
			continue
		}
		j := i + 1
		if j < len(f) && f[j] == '%' {
			lit.WriteByte('%')
			i = j
			continue
		}
		piece := ifmt{}
		for j < len(f) && (f[j] == '-' || f[j] == '0') {
			if (f[j] == '-' && piece.left) || (f[j] == '0' && piece.zero) {
				break
			}
			piece.left = piece.left || f[j] == '-'
			piece.zero = piece.zero || f[j] == '0'
			j++
		}
		w := j
		for j < len(f) && isDigit(f[j]) {
			j++
		}
		if w < j && f[w] == '0' {
			return nil, 0, inlineErrHint(off, "unsupported format "+strconv.Quote(f[i:j]), "duplicate flag")
		}
		if w < j {
			width, err := strconv.Atoi(f[w:j])
			if err != nil || width > inlineMaxPad {
				return nil, 0, inlineErr(off, "format width "+strconv.Quote(f[w:j])+" is too large")
			}
			piece.width = width
		}
		bad := func() *InlineError {
			end := j + 1
			if end > len(f) {
				end = len(f)
			}
			return inlineErrHint(off, "unsupported format "+strconv.Quote(f[i:end]), "only %d, %s, %0Nd, %Nd, %-Nd, %Ns, %-Ns and %% are supported")
		}
		if j >= len(f) || (f[j] != 'd' && f[j] != 's') {
			return nil, 0, bad()
		}
		piece.conv = f[j]
		if (piece.left || piece.zero) && piece.width == 0 || piece.left && piece.zero || piece.zero && piece.conv == 's' {
			return nil, 0, bad()
		}
		piece.lit = lit.String()
		lit.Reset()
		out = append(out, piece)
		n++
		i = j
	}
	if lit.Len() > 0 {
		out = append(out, ifmt{lit: lit.String()})
	}
	return out, n, nil
}

// slot returns the slot of a bound name, adding it on first use.
func (p *iparser) slot(name string, off int) int {
	for i, n := range p.names {
		if n == name {
			return i
		}
	}
	p.names = append(p.names, name)
	p.nameOffs = append(p.nameOffs, off)
	return len(p.names) - 1
}

// constant returns the template's text when it has no placeholders.
func (t *itpl) constant() (string, bool) {
	switch len(t.parts) {
	case 0:
		return "", true
	case 1:
		if t.parts[0].expr == nil {
			return t.parts[0].lit, true
		}
	}
	return "", false
}

// trimEdges strips Java-trim whitespace from the start of the first part and
// the end of the last part when they are literal text, as ShardingSphere
// trims each list element before evaluating it.
func (t *itpl) trimEdges() {
	if len(t.parts) > 0 && t.parts[0].expr == nil {
		s := t.parts[0].lit
		trimmed := strings.TrimLeftFunc(s, func(r rune) bool { return r <= ' ' })
		t.parts[0].off += len(s) - len(trimmed)
		t.parts[0].lit = trimmed
	}
	if n := len(t.parts); n > 0 && t.parts[n-1].expr == nil {
		t.parts[n-1].lit = strings.TrimRightFunc(t.parts[n-1].lit, func(r rune) bool { return r <= ' ' })
	}
	kept := t.parts[:0]
	for _, part := range t.parts {
		if part.expr != nil || part.lit != "" {
			kept = append(kept, part)
		}
	}
	t.parts = kept
}

// checkNewlines refuses a newline inside literal text of a top-level
// template: ShardingSphere puts the text in a one-line Groovy string.
func (t *itpl) checkNewlines() *InlineError {
	for _, part := range t.parts {
		if part.expr == nil {
			if i := strings.IndexAny(part.lit, "\r\n"); i >= 0 {
				return inlineErr(part.off+i, "newline in expression text")
			}
		}
	}
	return nil
}
