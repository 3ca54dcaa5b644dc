package templates

import (
	"go/token"
	"strconv"
	"strings"
	"unicode"

	"github.com/shardgen/shardgen/plan"
)

// exportedName turns a SQL name into an exported Go name: t_order → TOrder,
// order_id → OrderID. Common initialisms stay upper case, as the planner
// spells result fields; a leading digit gets a "C" prefix.
func exportedName(s string) string {
	if out := plan.GoName(s); out != "" {
		return out
	}
	return "X"
}

// unexportedName turns a SQL or Go name into an unexported Go identifier:
// t_order → tOrder, GetOrder → getOrder, ID → id, URLPath → urlPath. A Go
// keyword gets a "_" suffix (type → type_).
func unexportedName(s string) string {
	r := []rune(exportedName(s))
	for i := 0; i < len(r) && unicode.IsUpper(r[i]); i++ {
		if i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) {
			break
		}
		r[i] = unicode.ToLower(r[i])
	}
	return escapeKeyword(string(r))
}

// fieldName turns a parameter name (userID, type_) into an exported struct
// field name (UserID, Type).
func fieldName(param string) string {
	s := strings.TrimSuffix(param, "_")
	if s == "" {
		return "Arg"
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func escapeKeyword(s string) string {
	if token.IsKeyword(s) {
		return s + "_"
	}
	return s
}

// predeclared are Go's predeclared identifiers; a parameter with one of
// these names would shadow it in the generated function body.
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true, "uint8": true,
	"uint16": true, "uint32": true, "uint64": true, "uintptr": true, "true": true, "false": true,
	"iota": true, "nil": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true, "make": true,
	"max": true, "min": true, "new": true, "panic": true, "print": true, "println": true,
	"real": true, "recover": true,
}

// locals are the names generated function bodies declare or refer to
// besides parameters: receiver, context, results, route variables, and the
// packages they import.
var locals = []string{
	"q", "ctx", "arg", "err", "r", "row", "rows", "res", "n", "out", "ds", "t", "node", "nodes",
	"units", "gen", "key", "yield", "i", "merged", "rowNodes",
	"context", "sql", "shardrt", "time", "iter", "sync", "fmt", "io",
}

// nameSet hands out identifiers that are unique within one scope.
type nameSet map[string]bool

// add returns name, or name with "_" appended (then a number) until it is
// not taken, and marks it taken.
func (s nameSet) add(name string) string {
	out := name
	for n := 1; s[out]; n++ {
		out = name + "_"
		if n > 1 {
			out += strconv.Itoa(n)
		}
	}
	s[out] = true
	return out
}
