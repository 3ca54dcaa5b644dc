package runtime

import (
	"bytes"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAMLErrorLine returns the line (1-based) of the token that made yaml.v3
// refuse src, and the library's message without its "yaml: line N: " prefix.
// err must be what yaml.Unmarshal returned for src. line is 0 when no line
// can be given.
//
// yaml.v3 does not number the offending token: its "line N" is the start of
// the enclosing construct, counted from 0 for parser errors and from 1 for
// scanner errors (parser.fail in its decode.go). A bad indentation on line 6
// of a mapping that starts on line 4 reads "line 3: did not find expected
// key", and an unclosed `[` on line 34 reads "line 33". So the line is found
// again from the library itself, by bisection: a line L such that the first
// L lines of src fail with exactly the same error and the first L-1 lines do
// not. A prefix that holds the offending token's line fails on it the same
// way, so L is never after that line; a shorter prefix fails, if at all, only
// at its end, which gives the same message about the same construct only
// inside a flow collection left open (`[a, b` on line 34 with more lines
// after it): then L is a line of that collection, from its `[` or `{` on.
//
// A line that YAML reads as the continuation of a plain scalar (a key missing
// its colon, a key indented under a scalar value) is no error by itself: the
// error, and L, is at the next `key:`. When that key is indented under a
// `key: value` line, msg names both lines: the one to fix may be either (a
// key over-indented, or the line above it under-indented; the fresh user's
// `  password: p` between a data source's keys). The error of an undefined alias
// (`*name`), which yaml.v3 gives without a line, is located the same way.
func YAMLErrorLine(src []byte, err error) (line int, msg string) {
	full := err.Error()
	msg = strings.TrimPrefix(full, "yaml: ")
	libLine := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ": "); i > 0 {
			if n, convErr := strconv.Atoi(rest[:i]); convErr == nil {
				libLine, msg = n, rest[i+2:]
			}
		}
	}
	line = libLine
	if l := firstFailingLine(src, full, libLine); l > 0 {
		line = l
	}
	if strings.HasPrefix(msg, "mapping values are not allowed") {
		if p := indentedUnderValue(src, line); p > 0 {
			msg += " (line " + strconv.Itoa(line) + " is indented under line " + strconv.Itoa(p) +
				", whose key already has a value: check the indentation of line " + strconv.Itoa(p) + " and of line " + strconv.Itoa(line) + ")"
		}
	}
	return line, msg
}

// indentedUnderValue returns the line P before line (both 1-based) when
// line is indented deeper than P, the line above it that is neither blank
// nor a comment, and P is a `key: value` line: a mapping key that YAML can
// only read as the continuation of P's value (a sibling of P over-indented,
// or P itself under-indented: YAML cannot tell which). 0 otherwise.
func indentedUnderValue(src []byte, line int) int {
	lines := strings.Split(string(src), "\n")
	if line < 2 || line > len(lines) {
		return 0
	}
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	for p := line - 1; p >= 1; p-- {
		prev := strings.TrimRight(lines[p-1], "\r")
		t := strings.TrimSpace(prev)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		key, value, ok := strings.Cut(strings.TrimPrefix(t, "- "), ": ")
		value = strings.TrimSpace(value)
		if !ok || key == "" || value == "" || strings.HasPrefix(value, "#") || strings.ContainsAny(value[:1], "[{|>&!") ||
			indent(lines[line-1]) <= indent(prev) {
			return 0
		}
		return p
	}
	return 0
}

// firstFailingLine returns a line L ≥ from such that the first L lines of src
// fail to decode with the error text want and the first L-1 lines do not (or
// L = from), or 0 when src is empty or the library panics. It bisects: the
// whole of src fails with want, and the library's line (from) is never after
// the offending token.
func firstFailingLine(src []byte, want string, from int) (line int) {
	defer func() {
		if recover() != nil {
			line = 0
		}
	}()
	// ends[i] is the length of the first i+1 lines (with their line end).
	var ends []int
	for off := 0; off < len(src); {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			off = len(src)
		} else {
			off += i + 1
		}
		ends = append(ends, off)
	}
	if len(ends) == 0 {
		return 0
	}
	// The first lo lines are taken not to fail with want; the first hi do.
	lo, hi := min(max(from, 1), len(ends))-1, len(ends)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		var doc yaml.Node
		if err := yaml.Unmarshal(src[:ends[mid-1]], &doc); err != nil && err.Error() == want {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
