package runtime

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// envRefStart opens an environment reference.
const envRefStart = "${env:"

// ExpandEnv replaces environment references in s, so secrets such as data
// source passwords need not be written into the YAML file:
//
//	${env:NAME}            the value of environment variable NAME
//	${env:NAME:-default}   the value of NAME, or default when NAME is unset
//	                       or empty (as in the shell); default is literal
//	                       text up to the closing '}' and cannot contain '}'
//	$${env:                a literal "${env:" (the escape for the rare value
//	                       that must contain it)
//
// NAME is a letter or '_' followed by letters, digits and '_'. Anything else
// is left as written: a string without "${env:" is returned unchanged, and
// `${...}` without the `env:` prefix stays untouched because it is inline
// expression syntax elsewhere (`ds_${0..3}`). Expansion is one pass: a
// variable's value is not expanded again.
//
// Errors start with the reference and say what is wrong with it: an unset
// variable without a default (`${env:DB_PASSWORD}: environment variable
// "DB_PASSWORD" is not set and has no default`), an unterminated reference
// (`${env:DB_PASSWORD: reference is not terminated by '}'`, cut after 32
// characters of the name), or an invalid name. The error text never contains
// a variable's value.
//
// Source: shardgen extension, in the spirit of ShardingSphere's
// `$${...}` placeholders and the shell's `${NAME:-default}`.
func ExpandEnv(s string) (string, error) {
	return ExpandEnvFunc(s, os.LookupEnv)
}

// ExpandEnvFunc is ExpandEnv with the environment look-up given: lookup
// returns a variable's value and whether it is set, as os.LookupEnv does.
// Tests pass a map-backed function.
func ExpandEnvFunc(s string, lookup func(name string) (string, bool)) (string, error) {
	if !strings.Contains(s, envRefStart) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	rest := s
	for {
		i := strings.Index(rest, envRefStart)
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		if i > 0 && rest[i-1] == '$' { // $${env: is a literal ${env:
			b.WriteString(rest[:i-1])
			b.WriteString(envRefStart)
			rest = rest[i+len(envRefStart):]
			continue
		}
		b.WriteString(rest[:i])
		body := rest[i+len(envRefStart):]
		end := strings.IndexByte(body, '}')
		if end < 0 {
			return "", errors.New(truncateRef(rest[i:]) + ": reference is not terminated by '}'")
		}
		ref := rest[i : i+len(envRefStart)+end+1]
		name, def, hasDef := strings.Cut(body[:end], ":-")
		if !validEnvName(name) {
			return "", errors.New(ref + ": invalid environment variable name " + strconv.Quote(name) + " (want a letter or '_' followed by letters, digits or '_')")
		}
		val, ok := lookup(name)
		switch {
		case hasDef && val == "":
			val = def
		case !ok:
			return "", errors.New(ref + ": environment variable " + strconv.Quote(name) + " is not set and has no default")
		}
		b.WriteString(val)
		rest = body[end+1:]
	}
}

// truncateRef shortens an unterminated reference for an error message: the
// rest of the string may be long, or a secret.
func truncateRef(ref string) string {
	const max = len(envRefStart) + 32
	if len(ref) > max {
		return ref[:max] + "..."
	}
	return ref
}

// validEnvName reports whether name is a portable environment variable name.
func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
