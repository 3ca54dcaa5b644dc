package runtime

import (
	"errors"
	"strconv"
	"strings"
)

// InlineError is a problem in an inline expression. Offset is the 0-based
// byte offset in the expression text where the problem starts, so a caller
// that knows where the expression sits in a file can point at it. Msg is
// the whole message and already ends with "at offset N" (plus advice after
// a colon where there is some), e.g.
// `unsupported method "foo" at offset 12`.
type InlineError struct {
	Offset int
	Msg    string
}

// Error returns Msg, which already names the offset.
func (e *InlineError) Error() string { return e.Msg }

// Inline expression types selected by a leading "<TYPE>" (ShardingSphere
// 5.4+ InlineExpressionParser SPI). Only the Groovy family evaluates
// placeholders.
const (
	inlineGroovy  = "GROOVY"
	inlineLiteral = "LITERAL"
)

// inlineTypes maps each accepted type name (upper case) to the behaviour
// shardgen gives it. HOTSPOT and ESPRESSO are other engines for the same
// Groovy language; PURELIST is 5.4.0's name for LITERAL.
var inlineTypes = map[string]string{
	"GROOVY": inlineGroovy, "HOTSPOT": inlineGroovy, "ESPRESSO": inlineGroovy,
	"LITERAL": inlineLiteral, "PURELIST": inlineLiteral,
}

// splitTypePrefix separates a "<TYPE>" prefix as ShardingSphere's
// InlineExpressionParserFactory does: only when the text starts with '<' and
// has a '>', the type is the text between them (case-insensitive) and the
// expression is the rest. It returns the type, and the offset where the
// expression starts.
func splitTypePrefix(expr string) (string, int, *InlineError) {
	if !strings.HasPrefix(expr, "<") {
		return inlineGroovy, 0, nil
	}
	end := strings.IndexByte(expr, '>')
	if end < 0 {
		return inlineGroovy, 0, nil
	}
	name := expr[1:end]
	if typ, ok := inlineTypes[strings.ToUpper(name)]; ok {
		return typ, end + 1, nil
	}
	if strings.EqualFold(name, "INTERVAL") {
		return "", 0, inlineErrHint(0, `inline expression type "<INTERVAL>" is not supported`, "list the data nodes with ${...} ranges or <LITERAL>")
	}
	return "", 0, inlineErrHint(0, "unknown inline expression type "+strconv.Quote("<"+name+">"), "known types are <GROOVY> and <LITERAL>")
}

// isDynamic reports whether s has a placeholder: ShardingSphere treats text
// without "${" or "$->{" as a constant and never hands it to Groovy.
func isDynamic(s string) bool {
	return strings.Contains(s, "${") || strings.Contains(s, "$->{")
}

// ExpandInlineList expands a list expression such as
// "ds_${0..1}.t_order_${0..3}" or "<LITERAL>a, b" into its elements, in
// ShardingSphere's order: top-level comma-separated elements in order, and
// within one element the cartesian product of its placeholders' values with
// the leftmost varying slowest ("ds_${0..1}.t_${0..1}" gives ds_0.t_0,
// ds_0.t_1, ds_1.t_0, ds_1.t_1). A placeholder that yields a list or range
// contributes each distinct value once, in order (LinkedHashSet); elements
// are trimmed. The grammar is in docs/inline-expressions.md.
//
// Modes, after an optional "<TYPE>" prefix (5.4+):
//   - <LITERAL> (or <PURELIST>): split on every comma, no evaluation;
//   - no placeholder at all: split on commas, empty elements dropped
//     (ShardingSphere's constant shortcut);
//   - otherwise (<GROOVY>, the default): commas inside "${...}" do not split,
//     and each element is evaluated.
//
// An empty expression gives no elements. Errors are *InlineError: syntax,
// an empty element, a name (list expressions bind no column), a nested
// collection, more than 1,048,576 elements.
//
// Source: ShardingSphere GroovyInlineExpressionParser.splitAndEvaluate,
// GroovyUtils.split, LiteralInlineExpressionParser,
// InlineExpressionParserFactory (5.5).
func ExpandInlineList(expr string) ([]string, error) {
	typ, start, ierr := splitTypePrefix(expr)
	if ierr != nil {
		return nil, ierr
	}
	body := expr[start:]
	switch {
	case body == "":
		return nil, nil
	case typ == inlineLiteral:
		return splitLiteralList(expr, start)
	case !isDynamic(body):
		var out []string
		for _, s := range strings.Split(body, ",") {
			if s = javaTrim(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	p := &iparser{src: expr, pos: start}
	var out []string
	for {
		segStart := p.pos
		tpl, err := p.parseTemplate(tmList)
		if err != nil {
			return nil, err
		}
		atEnd := p.pos >= len(expr)
		if atEnd && segStart == len(expr) && segStart > start {
			break // "a, b," : ShardingSphere drops a final zero-length element
		}
		tpl.trimEdges()
		if err := tpl.checkNewlines(); err != nil {
			return nil, err
		}
		if len(p.names) > 0 {
			return nil, inlineErrHint(p.nameOffs[0], "unknown name "+strconv.Quote(p.names[0]), "list expressions bind no names")
		}
		if out, err = expandTemplate(out, tpl, segStart); err != nil {
			return nil, err
		}
		if atEnd {
			return out, nil
		}
		p.pos++ // the ','
	}
	return out, nil
}

// splitLiteralList is the <LITERAL> type: split on every comma and trim.
func splitLiteralList(expr string, start int) ([]string, error) {
	var out []string
	pos := start
	for pos <= len(expr) {
		end := strings.IndexByte(expr[pos:], ',')
		last := end < 0
		if last {
			end = len(expr)
		} else {
			end += pos
		}
		if last && pos == len(expr) && pos > start {
			break // a final zero-length element is dropped
		}
		s := javaTrim(expr[pos:end])
		if s == "" {
			return nil, inlineErr(pos, "empty element")
		}
		out = append(out, s)
		pos = end + 1
	}
	return out, nil
}

// expandTemplate appends the elements of one list element: the cartesian
// product of its placeholders' values, leftmost slowest.
func expandTemplate(out []string, tpl *itpl, segOff int) ([]string, *InlineError) {
	if len(tpl.parts) == 0 {
		return out, inlineErr(segOff, "empty element")
	}
	choices := make([][]string, len(tpl.parts))
	total := 1
	for i, part := range tpl.parts {
		if part.expr == nil {
			choices[i] = []string{part.lit}
			continue
		}
		v, err := part.expr.eval(nil)
		if err != nil {
			return out, err
		}
		if v.k != ivList {
			s, err := textOf(v, part.eoff)
			if err != nil {
				return out, err
			}
			choices[i] = []string{s}
			continue
		}
		seen := make(map[string]bool, len(v.l))
		for _, e := range v.l {
			if e.k == ivList {
				return out, inlineErr(part.eoff, "nested collections are not supported")
			}
			s, err := textOf(e, part.eoff)
			if err != nil {
				return out, err
			}
			if !seen[s] {
				seen[s] = true
				choices[i] = append(choices[i], s)
			}
		}
		if len(choices[i]) == 0 {
			return out, nil // an empty collection: the product is empty
		}
		if total > inlineMaxElements/len(choices[i]) {
			return out, inlineErr(segOff, "element expands to more than "+strconv.Itoa(inlineMaxElements)+" names")
		}
		total *= len(choices[i])
	}
	size := 0
	for _, c := range choices {
		longest := 0
		for _, s := range c {
			longest = max(longest, len(s))
		}
		size += longest
	}
	if size > 0 && total > inlineMaxBytes/size {
		return out, inlineErr(segOff, "element expands to more than "+strconv.Itoa(inlineMaxBytes)+" bytes")
	}
	idx := make([]int, len(choices))
	var b []byte
	for {
		b = b[:0]
		for i, c := range choices {
			b = append(b, c[idx[i]]...)
		}
		s := javaTrim(string(b))
		if s == "" {
			return out, inlineErr(segOff, "empty element")
		}
		out = append(out, s)
		// Advance the odometer: the rightmost placeholder varies fastest.
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(choices[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out, nil
		}
	}
}

// InlineExpr is a compiled algorithm expression such as
// "t_order_${order_id % 16}": parsed once, evaluated many times with the
// sharding column (or the hint `value`) bound. It is immutable and safe for
// concurrent use.
//
// Source: ShardingSphere InlineExpressionParser.evaluateWithArgs — the
// whole text is one Groovy GString (commas are plain text), each name is
// bound to the sharding value's Java object, the result is its toString().
type InlineExpr struct {
	src      string
	tpl      *itpl
	names    []string // bound names in order of first use; EvalValues takes values in this order
	nameOffs []int

	// prefix ${single} suffix: the shape of most algorithm expressions;
	// single is nil otherwise.
	single         *inode
	prefix, suffix string

	// prefix${modName % modN}: see IntegerForm.
	modName string
	modN    int64
}

// CompileInline parses an algorithm expression (algorithm-expression of
// INLINE, COMPLEX_INLINE, HINT_INLINE) into an InlineExpr. A leading
// <GROOVY>, <HOTSPOT> or <ESPRESSO> is dropped, as ShardingSphere 5.4+ drops
// the type before evaluating; other types are refused. Text without any
// "${" or "$->{" is a constant and returned verbatim by Eval. Errors are
// *InlineError, naming the offending token and its offset, e.g.
// `unsupported method "foo" at offset 12`.
func CompileInline(expr string) (*InlineExpr, error) {
	typ, start, ierr := splitTypePrefix(expr)
	if ierr != nil {
		return nil, ierr
	}
	if typ != inlineGroovy {
		return nil, inlineErrHint(0, "inline expression type "+strconv.Quote(expr[:start])+" cannot compute a sharding target", "remove the prefix")
	}
	e := &InlineExpr{src: expr}
	body := expr[start:]
	if !isDynamic(body) {
		e.tpl = &itpl{}
		if body != "" {
			e.tpl.parts = []ipart{{lit: body, off: start}}
		}
		return e, nil
	}
	p := &iparser{src: expr, pos: start}
	tpl, ierr := p.parseTemplate(tmTop)
	if ierr != nil {
		return nil, ierr
	}
	if ierr := tpl.checkNewlines(); ierr != nil {
		return nil, ierr
	}
	e.tpl, e.names, e.nameOffs = tpl, p.names, p.nameOffs
	e.findShapes()
	return e, nil
}

// findShapes records the single-placeholder and integer-modulo shapes. The
// parser merges adjacent text, so one placeholder means the parts are
// [text] ${...} [text].
func (e *InlineExpr) findShapes() {
	idx := -1
	for i, part := range e.tpl.parts {
		if part.expr != nil {
			if idx >= 0 {
				return
			}
			idx = i
		}
	}
	if idx < 0 {
		return
	}
	parts := e.tpl.parts
	e.single = parts[idx].expr
	if idx > 0 {
		e.prefix = parts[idx-1].lit
	}
	if idx+1 < len(parts) {
		e.suffix = parts[idx+1].lit
	}
	n := e.single
	if e.suffix == "" && n.op == opMod && n.kids[0].op == opName && n.kids[1].op == opConst &&
		(n.kids[1].val.k == ivInt || n.kids[1].val.k == ivLong) && n.kids[1].val.n > 0 {
		e.modName, e.modN = n.kids[0].name, n.kids[1].val.n
	}
}

// String returns the expression source as given to CompileInline.
func (e *InlineExpr) String() string { return e.src }

// Names returns the names the expression reads (sharding columns, or
// `value` for HINT_INLINE), in order of first use. EvalValues and
// AppendEval take their values in this order.
func (e *InlineExpr) Names() []string { return append([]string(nil), e.names...) }

// Constant returns the expression's text and true when it has no
// placeholder, so every evaluation gives that text.
func (e *InlineExpr) Constant() (string, bool) {
	if len(e.names) > 0 {
		return "", false
	}
	return e.tpl.constant()
}

// IntegerForm recognises exactly `prefix${column % N}`: literal text without
// placeholders, then one placeholder holding a name, '%', and a positive
// decimal integer literal N (Integer or Long; whitespace, redundant
// parentheses and the $->{ form allowed; no other operators, no text after
// the placeholder). For it the target of an Integer or Long value v is prefix +
// strconv.FormatInt(v % N, 10) with Go's (= Java's) remainder, so a
// negative v gives a negative suffix that matches no target. ok is false for
// any other expression; the generator then calls Eval.
func (e *InlineExpr) IntegerForm() (prefix string, modulus int64, column string, ok bool) {
	if e.modName == "" {
		return "", 0, "", false
	}
	return e.prefix, e.modN, e.modName, true
}

// Eval evaluates the expression with each name bound by bind (bind(name)
// returns the name's value and whether it has one). Errors: an unbound or
// NULL name, an operation Groovy would refuse for the value's Java type
// (e.g. % on a String), division by zero, a collection result; all are
// *InlineError.
func (e *InlineExpr) Eval(bind func(name string) (Value, bool)) (string, error) {
	var buf [4]Value
	env := buf[:0]
	for i, name := range e.names {
		var v Value
		ok := false
		if bind != nil {
			v, ok = bind(name)
		}
		if !ok {
			return "", inlineErr(e.nameOffs[i], "no value bound to "+strconv.Quote(name))
		}
		env = append(env, v)
	}
	b, err := e.AppendEval(nil, env)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// EvalValues is Eval with values[i] bound to Names()[i].
func (e *InlineExpr) EvalValues(values []Value) (string, error) {
	b, err := e.AppendEval(nil, values)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// AppendEval appends the result of the expression, with values[i] bound to
// Names()[i], to dst and returns the extended slice; on error it returns dst
// unchanged. It does not allocate
// when dst has room and the expression needs no intermediate strings
// (e.g. integer arithmetic on Integer or Long values).
func (e *InlineExpr) AppendEval(dst []byte, values []Value) ([]byte, error) {
	if len(values) != len(e.names) {
		return dst, errors.New("inline expression " + strconv.Quote(e.src) + " needs " + strconv.Itoa(len(e.names)) + " values, got " + strconv.Itoa(len(values)))
	}
	n := len(dst)
	for _, part := range e.tpl.parts {
		if part.expr == nil {
			dst = append(dst, part.lit...)
			continue
		}
		v, err := part.expr.eval(values)
		if err != nil {
			return dst[:n], err
		}
		if dst, err = appendText(dst, v, part.eoff); err != nil {
			return dst[:n], err
		}
	}
	return dst, nil
}
