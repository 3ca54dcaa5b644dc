package templates

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
)

// typeCode returns the jen code naming t, with the package import tracked:
// {"", "int64"} → int64, {"", "[]byte"} → []byte, {"database/sql",
// "NullString"} → sql.NullString, {"database/sql", "Null[int8]"} →
// sql.Null[int8], {"time", "Time"} → time.Time, {"example.com/money",
// "Amount"} → money.Amount. A name it cannot spell is an error.
func typeCode(t plan.GoType) (jen.Code, error) {
	name := t.Name
	switch {
	case strings.HasPrefix(name, "[]"):
		elem, err := typeCode(plan.GoType{Pkg: t.Pkg, Name: name[2:]})
		if err != nil {
			return nil, err
		}
		return jen.Index().Add(elem), nil
	case strings.HasPrefix(name, "*"):
		elem, err := typeCode(plan.GoType{Pkg: t.Pkg, Name: name[1:]})
		if err != nil {
			return nil, err
		}
		return jen.Op("*").Add(elem), nil
	}
	base, args, generic := strings.Cut(name, "[")
	if !token.IsIdentifier(base) {
		return nil, fmt.Errorf("cannot spell Go type %q", t.String())
	}
	var c *jen.Statement
	if t.Pkg == "" {
		c = jen.Id(base)
	} else {
		c = jen.Qual(t.Pkg, base)
	}
	if !generic {
		return c, nil
	}
	if !strings.HasSuffix(args, "]") {
		return nil, fmt.Errorf("cannot spell Go type %q", t.String())
	}
	var targs []jen.Code
	for _, a := range strings.Split(strings.TrimSuffix(args, "]"), ",") {
		a = strings.TrimSpace(a)
		if !token.IsIdentifier(a) {
			return nil, fmt.Errorf("cannot spell Go type %q: type argument %q must be a predeclared type", t.String(), a)
		}
		targs = append(targs, jen.Id(a))
	}
	return c.Types(targs...), nil
}

// zeroCode returns the zero value of t: nil for pointers, slices and
// interfaces, "", false or 0 for the predeclared types, T{} for the
// struct types of database/sql and time, and *new(T) for the types of
// other packages, whose kind the generator does not know.
func zeroCode(t plan.GoType) jen.Code {
	name := t.Name
	switch {
	case strings.HasPrefix(name, "*"), strings.HasPrefix(name, "[]"), t.Pkg == "" && (name == "any" || name == "error"):
		return jen.Nil()
	case t.Pkg == "" && name == "string":
		return jen.Lit("")
	case t.Pkg == "" && name == "bool":
		return jen.False()
	case t.Pkg == "" && (isInteger(t) || name == "float32" || name == "float64" || name == "byte" || name == "rune"):
		return jen.Lit(0)
	}
	c, _ := typeCode(t)
	if t.Pkg == "database/sql" || t.Pkg == "time" {
		return jen.Add(c).Values()
	}
	return jen.Op("*").New(c)
}

// isInteger reports whether t is one of Go's integer types.
func isInteger(t plan.GoType) bool {
	if t.Pkg != "" {
		return false
	}
	switch t.Name {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return true
	}
	return false
}

// nullField returns the value field of a database/sql null type
// (NullInt64 → Int64, Null[int8] → V) and whether t is one.
func nullField(t plan.GoType) (string, bool) {
	if t.Nullable && strings.HasPrefix(t.Name, "*") {
		return "*", true // emit_pointers_for_null_types: *T, nil for NULL
	}
	if t.Pkg != "database/sql" {
		return "", false
	}
	if strings.HasPrefix(t.Name, "Null[") {
		return "V", true
	}
	if f, ok := strings.CutPrefix(t.Name, "Null"); ok && f != "" {
		return f, true
	}
	return "", false
}

// nullElem returns the Go type of a database/sql null type's value field:
// NullInt32 → int32, NullTime → time.Time, Null[uint64] → uint64; of a
// pointer, what it points to.
func nullElem(t plan.GoType) plan.GoType {
	f, _ := nullField(t)
	if f == "*" {
		return plan.GoType{Pkg: t.Pkg, Name: t.Name[1:], Kind: t.Kind}
	}
	if f == "V" {
		return plan.GoType{Name: strings.TrimSuffix(strings.TrimPrefix(t.Name, "Null["), "]"), Kind: t.Kind}
	}
	if f == "Time" {
		return plan.GoType{Pkg: "time", Name: "Time", Kind: t.Kind}
	}
	return plan.GoType{Name: strings.ToLower(f), Kind: t.Kind}
}

// PointerNulls returns p with each database/sql null type of its parameters
// and result columns replaced by a pointer to its value's type (*string for
// sql.NullString, *time.Time for sql.NullTime; nil is NULL), as
// emit_pointers_for_null_types asks; the generator and shardgen explain use
// it. p itself is not changed.
func PointerNulls(p *plan.Plan) *plan.Plan {
	c := *p
	c.Params = make([]*plan.Param, len(p.Params))
	for i, prm := range p.Params {
		x := *prm
		x.Type = pointerNull(prm.Type)
		c.Params[i] = &x
	}
	c.Columns = make([]*plan.Column, len(p.Columns))
	for i, col := range p.Columns {
		x := *col
		x.Type = pointerNull(col.Type)
		c.Columns[i] = &x
	}
	return &c
}

// pointerNull is *T for a database/sql null type of T, else t.
func pointerNull(t plan.GoType) plan.GoType {
	if f, null := nullField(t); !null || f == "*" {
		return t
	}
	e := nullElem(t)
	return plan.GoType{Pkg: e.Pkg, Name: "*" + e.Name, Kind: t.Kind, Nullable: true}
}
