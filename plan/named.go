package plan

import (
	"strings"
)

// namedParams rewrites sqlc's named parameter forms to positional `?` and
// returns, for each `?` of the result in order, the name it had ("" for a
// plain `?`). Accepted forms (MySQL engine of sqlc): `sqlc.arg(name)`,
// `sqlc.arg('name')`, `sqlc.narg(name)` (nullable: the parameter takes the
// column's nullable Go type). Quoted strings, quoted identifiers and comments
// are left alone. shift maps an offset in the result back to the input;
// unsupported lists the offsets of sqlc.slice / sqlc.embed, which shardgen
// does not support.
func namedParams(sql string) (out string, names []string, nullable []bool, shift func(int) int, unsupported []int) {
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
		case (c == 's' || c == 'S') && (i == 0 || !isIdentByte(sql[i-1])):
			if strings.HasPrefix(strings.ToLower(sql[i:]), "sqlc.slice(") || strings.HasPrefix(strings.ToLower(sql[i:]), "sqlc.embed(") {
				unsupported = append(unsupported, i)
			}
			if name, n, isNull, ok := matchSqlcArg(sql[i:]); ok {
				b.WriteByte('?')
				names = append(names, name)
				nullable = append(nullable, isNull)
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
		d := 0
		for _, e := range edits {
			if off >= e.at {
				d = e.delta
			}
		}
		return off + d
	}
	return b.String(), names, nullable, shift, unsupported
}

// matchSqlcArg matches `sqlc.arg(name)` / `sqlc.narg(name)` at the start of
// s (case-insensitive, spaces allowed inside the parentheses) and returns the
// name and the length matched.
func matchSqlcArg(s string) (name string, n int, isNull bool, ok bool) {
	lower := strings.ToLower(s)
	var rest string
	switch {
	case strings.HasPrefix(lower, "sqlc.arg("):
		rest = s[len("sqlc.arg("):]
	case strings.HasPrefix(lower, "sqlc.narg("):
		rest = s[len("sqlc.narg("):]
		isNull = true
	default:
		return "", 0, false, false
	}
	end := strings.IndexByte(rest, ')')
	if end < 0 {
		return "", 0, false, false
	}
	name = strings.TrimSpace(rest[:end])
	name = strings.Trim(name, "'\"`")
	if name == "" {
		return "", 0, false, false
	}
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i]) {
			return "", 0, false, false
		}
	}
	return name, len(s) - len(rest) + end + 1, isNull, true
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
