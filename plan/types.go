package plan

import (
	"strings"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// Override maps a logic column or a MySQL type to a user's Go type
// (shardgen.yaml `overrides:`). Column is "table.column" (lower case match);
// DBType is a MySQL type name such as "decimal" and applies to columns of
// that type whose nullability matches Nullable (nil: both).
type Override struct {
	Column   string
	DBType   string
	Nullable *bool
	Type     GoType
}

// goType returns the Go type a value of column c scans into (result
// columns, INSERT values, UPDATE SET values) when nullable is true, or the
// non-NULL type used for comparison parameters when nullable is false.
//
// The mapping (nullable form in brackets):
//
//	tinyint(1), bool, boolean  bool        [sql.NullBool]
//	tinyint                    int8        [sql.Null[int8]]   (unsigned: uint8)
//	smallint, year             int16       [sql.NullInt16]    (unsigned: uint16)
//	mediumint, int, integer    int32       [sql.NullInt32]    (unsigned: uint32)
//	bigint                     int64       [sql.NullInt64]    (unsigned: uint64, [sql.Null[uint64]])
//	decimal, numeric           string      [sql.NullString]   (exact text; override for a decimal type)
//	float                      float32     [sql.Null[float32]]
//	double, real               float64     [sql.NullFloat64]
//	date, datetime, timestamp  time.Time   [sql.NullTime]     (the DSN must set parseTime=true)
//	char, varchar, *text, enum, set, time, json
//	                           string      [sql.NullString]
//	binary, varbinary, *blob, bit
//	                           []byte      [[]byte, nil for NULL]
func (b *Builder) goType(table string, c *schema.Column, nullable bool) GoType {
	for _, o := range b.overrides {
		if o.Column != "" && strings.EqualFold(o.Column, table+"."+c.Name) {
			return o.Type
		}
	}
	for _, o := range b.overrides {
		if o.DBType != "" && strings.EqualFold(o.DBType, c.Type) && (o.Nullable == nil || *o.Nullable == (c.Nullable && nullable)) {
			return o.Type
		}
	}
	t := baseType(c)
	if nullable && c.Nullable {
		return nullType(t)
	}
	return t
}

func baseType(c *schema.Column) GoType {
	long := runtime.KindLong
	str := runtime.KindString
	switch strings.ToLower(c.Type) {
	case "bool", "boolean":
		return GoType{Name: "bool", Kind: runtime.KindNull}
	case "tinyint":
		if c.Length != nil && *c.Length == 1 && !c.Unsigned {
			return GoType{Name: "bool", Kind: runtime.KindNull}
		}
		if c.Unsigned {
			return GoType{Name: "uint8", Kind: long}
		}
		return GoType{Name: "int8", Kind: long}
	case "smallint", "year":
		if c.Unsigned {
			return GoType{Name: "uint16", Kind: long}
		}
		return GoType{Name: "int16", Kind: long}
	case "mediumint", "int", "integer":
		if c.Unsigned {
			return GoType{Name: "uint32", Kind: long}
		}
		return GoType{Name: "int32", Kind: long}
	case "bigint":
		if c.Unsigned {
			return GoType{Name: "uint64", Kind: long}
		}
		return GoType{Name: "int64", Kind: long}
	case "decimal", "numeric", "dec", "fixed":
		return GoType{Name: "string", Kind: runtime.KindDecimal}
	case "float":
		return GoType{Name: "float32", Kind: runtime.KindDecimal}
	case "double", "real", "double precision":
		return GoType{Name: "float64", Kind: runtime.KindDecimal}
	case "date", "datetime", "timestamp":
		return GoType{Pkg: "time", Name: "Time", Kind: runtime.KindTime}
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "bit":
		return GoType{Name: "[]byte", Kind: runtime.KindNull, Nullable: true}
	}
	return GoType{Name: "string", Kind: str}
}

// builtinValues are the Go types without a NULL of their own that an
// override may name.
var builtinValues = map[string]bool{
	"bool": true, "string": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "float32": true, "float64": true,
}

// valueType is t, not nullable when t is a builtin value type: an override
// naming int64 is marked nullable (an override's type is used as given,
// NULL or not), yet sqlc.narg of its column needs int64's nullable form
// (sql.NullInt64, or *int64 with emit_pointers_for_null_types), as sqlc
// gives it.
func valueType(t GoType) GoType {
	if t.Pkg == "" && builtinValues[t.Name] {
		t.Nullable = false
	}
	return t
}

func nullType(t GoType) GoType {
	if t.Nullable {
		return t
	}
	n := GoType{Pkg: "database/sql", Kind: t.Kind, Nullable: true}
	switch t.String() {
	case "bool":
		n.Name = "NullBool"
	case "int16":
		n.Name = "NullInt16"
	case "int32":
		n.Name = "NullInt32"
	case "int64":
		n.Name = "NullInt64"
	case "float64":
		n.Name = "NullFloat64"
	case "string":
		n.Name = "NullString"
	case "time.Time":
		n.Name = "NullTime"
	default:
		n.Name = "Null[" + t.Name + "]"
	}
	return n
}

var (
	typeInt64   = GoType{Name: "int64", Kind: runtime.KindLong}
	typeString  = GoType{Name: "string", Kind: runtime.KindString}
	typeFloat64 = GoType{Name: "float64", Kind: runtime.KindDecimal}
	typeNullStr = GoType{Pkg: "database/sql", Name: "NullString", Kind: runtime.KindString, Nullable: true}
)
