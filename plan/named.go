package plan

import (
	"sort"
	"strings"
)

// namedParams rewrites sqlc's named parameter forms to positional `?` and
// returns, for each `?` of the result in order, the name it had ("" for a
// plain `?`). Accepted forms (MySQL engine of sqlc): `sqlc.arg(name)`,
// `sqlc.arg('name')`, `sqlc.narg(name)` (nullable: the parameter takes the
// column's nullable Go type), `sqlc.slice(name)` (a []T parameter whose
// values form an IN list: isSlice marks it). Quoted strings, quoted
// identifiers and comments are left alone. `sqlc.embed(t)` becomes `t.*`
// and t is listed in embeds. shift maps an offset in the result back to the
// input; unsupported lists the offsets of malformed sqlc.embed forms.
func namedParams(sql string) (out string, names []string, nullable, isSlice []bool, embeds []string, shift func(int) int, unsupported []int) {
	var b strings.Builder
	type edit struct{ at, delta int } // at: offset in out after which delta applies
	var edits []edit
	delta := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := skipQuoted(sql, i)
			b.WriteString(sql[i:j])
			i = j
			continue
		case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '#':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			b.WriteString(sql[i : i+j])
			i += j
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				j = len(sql) - i - 2
			} else {
				j += 2
			}
			b.WriteString(sql[i : i+2+j])
			i += 2 + j
			continue
		case c == '?':
			names = append(names, "")
			nullable = append(nullable, false)
			isSlice = append(isSlice, false)
		case (c == 's' || c == 'S') && (i == 0 || !isIdentByte(sql[i-1])):
			if name, n, ok := matchSqlcEmbed(sql[i:]); ok {
				// sqlc.embed(t) selects t.*, its columns then fill t's
				// model struct in the row.
				b.WriteString(name + ".*")
				embeds = append(embeds, name)
				delta += n - len(name) - 2
				edits = append(edits, edit{at: b.Len(), delta: delta})
				i += n
				continue
			} else if hasPrefixFold(sql[i:], "sqlc.embed(") {
				unsupported = append(unsupported, i)
			}
			if name, n, isNull, slice, ok := matchSqlcArg(sql[i:]); ok {
				b.WriteByte('?')
				names = append(names, name)
				nullable = append(nullable, isNull)
				isSlice = append(isSlice, slice)
				delta += n - 1
				edits = append(edits, edit{at: b.Len(), delta: delta})
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	shift = func(off int) int {
		// edits are in increasing order of at: the last one at or before
		// off applies (a binary search, so that shifting every position
		// of a statement with many sqlc.arg stays O(n log n)).
		k := sort.Search(len(edits), func(k int) bool { return edits[k].at > off })
		if k == 0 {
			return off
		}
		return off + edits[k-1].delta
	}
	return b.String(), names, nullable, isSlice, embeds, shift, unsupported
}

// matchSqlcEmbed matches `sqlc.embed(name)` at the start of s
// (case-insensitive, spaces allowed inside the parentheses) and returns the
// table name or alias and the length matched.
func matchSqlcEmbed(s string) (name string, n int, ok bool) {
	if !hasPrefixFold(s, "sqlc.embed(") {
		return "", 0, false
	}
	rest := s[len("sqlc.embed("):]
	end := strings.IndexByte(rest, ')')
	if end < 0 {
		return "", 0, false
	}
	name = strings.TrimSpace(rest[:end])
	if name == "" {
		return "", 0, false
	}
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i]) {
			return "", 0, false
		}
	}
	return name, len(s) - len(rest) + end + 1, true
}

// matchSqlcArg matches `sqlc.arg(name)`, `sqlc.narg(name)` or
// `sqlc.slice(name)` at the start of s (case-insensitive, spaces allowed
// inside the parentheses) and returns the name and the length matched.
func matchSqlcArg(s string) (name string, n int, isNull, isSlice, ok bool) {
	var rest string
	switch {
	case hasPrefixFold(s, "sqlc.arg("):
		rest = s[len("sqlc.arg("):]
	case hasPrefixFold(s, "sqlc.narg("):
		rest = s[len("sqlc.narg("):]
		isNull = true
	case hasPrefixFold(s, "sqlc.slice("):
		rest = s[len("sqlc.slice("):]
		isSlice = true
	default:
		return "", 0, false, false, false
	}
	end := strings.IndexByte(rest, ')')
	if end < 0 {
		return "", 0, false, false, false
	}
	name = strings.TrimSpace(rest[:end])
	name = strings.Trim(name, "'\"`")
	if name == "" {
		return "", 0, false, false, false
	}
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i]) {
			return "", 0, false, false, false
		}
	}
	return name, len(s) - len(rest) + end + 1, isNull, isSlice, true
}

// hasPrefixFold reports whether s begins with prefix, ASCII letters
// compared case-insensitively; it looks at len(prefix) bytes only (lower
// casing all of s at every word made naming a long statement's
// parameters quadratic).
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// skipQuoted returns the offset just past the quoted string or identifier
// that starts at s[i] (MySQL rules: doubled quote and, for strings,
// backslash escapes).
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' && q != '`' {
			j++
			continue
		}
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}
