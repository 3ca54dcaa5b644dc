package schema

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ProjectVersion is the only version of the project file this shardgen reads.
const ProjectVersion = "1"

// Project is a shardgen.yaml project file: which ShardingSphere rules, DDL
// and query files `shardgen generate` reads, and where it writes the Go
// package. Relative paths in the file resolve against the directory of the
// file; the paths in Project are those resolved paths (cleaned; relative when
// the project file's path was relative). A complete example:
//
//	version: "1"
//	rules: sharding.yaml            # ShardingSphere YAML, relative to shardgen.yaml
//	ddl: [schema/*.sql]             # files or globs, in order
//	queries: [queries/*.sql]        # sqlc-style annotated query files
//	out: internal/db                # output directory
//	package: db                     # Go package name (default: base name of out)
//	migrations_project: shop        # shardgen migrate's record key (default: out's import path)
//	overrides:                      # type overrides
//	  - column: t_order.status      # a logic table column ...
//	    go_type: github.com/acme/shop/types.OrderStatus
//	  - db_type: decimal            # ... or a MySQL type (+ nullable: true|false)
//	    go_type: github.com/shopspring/decimal.Decimal
type Project struct {
	// File is the path of the project file, as given to LoadProject.
	File string
	// Dir is the directory of File, against which relative paths resolve.
	Dir string

	// Version is `version:`, required; must be "1" (ProjectVersion).
	//	version: "1"
	Version string

	// Rules is `rules:`, required: the ShardingSphere 5.x YAML (JDBC
	// config or proxy database-*.yaml) holding dataSources, rules and props.
	// The file must exist.
	//	rules: sharding.yaml
	Rules string

	// DDL is `ddl:`, required: the CREATE TABLE files, a file or glob or a
	// list of them. A directory stands for its numbered migration files in
	// goose or golang-migrate layout, in version order (MigrationFiles);
	// the generator and `shardgen migrate` read the same files in order, so
	// an ALTER TABLE in a later file changes a table an earlier one created. Globs (filepath.Match syntax: *, ?, [a-z]; no **) expand
	// in sorted order; entries keep their order, and a file named twice is
	// read once, at its first place. A glob that matches no file and a file
	// that does not exist are errors.
	//	ddl: [schema/*.sql]
	//	ddl: [schema/base.sql, schema/more/*.sql]
	DDL []string

	// Queries is `queries:`, optional (default: none): the sqlc-style
	// annotated query files, with the same forms and rules as DDL.
	//	queries: [queries/*.sql]
	Queries []string

	// Out is `out:`, required: the directory the generated package is
	// written to; it need not exist yet.
	//	out: internal/db
	Out string

	// Package is `package:`, optional: the name of the generated Go
	// package. Default: the base name of Out, which must then be a valid Go
	// package name.
	//	package: db
	Package string

	// MigrationsProject is `migrations_project:`, optional: the name under
	// which `shardgen migrate` records this project's migrations in each
	// data source's shardgen_schema_migrations table, so that two projects
	// sharing data sources and migration file names (both with
	// 00001_init.sql) keep apart. Default (empty here): the Go import path
	// of Out (the module path of the nearest go.mod above it, then Out's
	// path inside that module), or, with no go.mod, Out relative to Dir.
	// Changing it makes every migration look unapplied.
	//	migrations_project: github.com/acme/shop/internal/db
	MigrationsProject string

	// Overrides is `overrides:`, optional: Go types to use instead of the
	// default mapping, in file order.
	Overrides []*Override

	// Emit holds sqlc's code generation options, under the names sqlc
	// gives them (emit_interface, emit_json_tags, ...); see EmitOptions.
	Emit EmitOptions

	// Pos holds the position of the value of each top-level key present
	// ("version", "rules", "ddl", "queries", "out", "package", "overrides"),
	// for errors found later (e.g. in the rules file named here).
	Pos map[string]Pos
}

// EmitOptions are sqlc's Go code generation options, top-level keys of the
// project file named as sqlc names them. Every one is optional.
//
//	emit_interface: true            # querier.go: a Querier interface of every method
//	emit_json_tags: true            # json:"..." tags on models, rows and Params
//	json_tags_case_style: camel     # camel, pascal, snake or none (default none: the SQL name)
//	emit_empty_slices: true         # :many returns []T{}, not nil, when no row matches
//	emit_exact_table_names: true    # model structs named as the table (default: singular, as sqlc)
//	emit_pointers_for_null_types: true # nullable columns as *T (nil for NULL) instead of sql.NullT
//	query_parameter_limit: 1        # more parameters than this become a XxxParams struct (default 4)
type EmitOptions struct {
	Interface       bool
	JSONTags        bool
	JSONTagsCase    string // "", "camel", "pascal", "snake" or "none"
	EmptySlices     bool
	ExactTableNames bool
	// PointersForNullTypes: nullable parameters and result columns are *T
	// (nil for NULL) instead of database/sql's NullT.
	PointersForNullTypes bool
	// ParameterLimit is query_parameter_limit; nil means the default, 4
	// (sqlc's default is 1). 0 puts every parameter in a Params struct.
	ParameterLimit *int
}

// Override maps a column, or every column of a MySQL type, to a Go type.
// Exactly one of Column and DBType is set.
//
//   - column: t_order.status
//     go_type: github.com/acme/shop/types.OrderStatus
//   - db_type: decimal
//     nullable: true
//     go_type: github.com/shopspring/decimal.NullDecimal
type Override struct {
	// Column is `column:` as written, "logic_table.column"; Table and
	// ColumnName are its two parts. Names compare case-insensitively.
	Column     string
	Table      string
	ColumnName string

	// DBType is `db_type:`: a MySQL type name, lower case, as
	// Column.Type spells it ("bigint", "varchar", "decimal", ...). Written as
	// "bigint unsigned", it sets Unsigned; an override then applies to columns
	// of that type whose UNSIGNED attribute equals Unsigned.
	DBType   string
	Unsigned bool
	// Nullable is `nullable:` (db_type overrides only): nil applies to
	// NULL and NOT NULL columns alike, else only to columns whose
	// nullability equals *Nullable. A column override takes nullability
	// from the column's DDL.
	Nullable *bool

	// GoType is `go_type:`, required.
	GoType GoType

	// Pos is the position of the override in the project file.
	Pos Pos
}

// GoType is a Go type named in a project file. Only its form is checked
// (LoadProject does not load Go packages):
//
//	int64, string, []byte, *string        builtin, with * and [] prefixes
//	time.Time, sql.NullString              a standard library package.Type
//	github.com/shopspring/decimal.Decimal  import/path.Type
//	gopkg.in/guregu/null.v4.String         the last dot after the last slash splits path and name
type GoType struct {
	Spec   string // as written, e.g. "*github.com/shopspring/decimal.Decimal"
	Prefix string // the "*" and "[]" before the name, e.g. "*" or "[]"; "" for none
	Import string // import path, e.g. "github.com/shopspring/decimal"; "" for a builtin
	Name   string // type name, e.g. "Decimal" or "int64"
}

// projKeys are the top-level keys of a project file, in documentation order.
var projKeys = []string{"version", "rules", "ddl", "queries", "out", "package", "migrations_project", "overrides",
	"emit_interface", "emit_json_tags", "json_tags_case_style", "emit_empty_slices", "emit_exact_table_names", "emit_pointers_for_null_types", "query_parameter_limit"}

// LoadProject reads and validates the project file at path (usually
// "shardgen.yaml"). A file that cannot be read gives the *os.PathError
// unchanged; every other problem is reported, all at once, in a
// schema.Errors as "file:line:col: message". Unknown keys are errors, so a
// misspelt key is never silently ignored. Globs are expanded and every named
// file must exist.
func LoadProject(path string) (*Project, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return loadProject(path, src)
}

// loadProject is LoadProject on already read content; paths still resolve
// against the directory of path.
func loadProject(path string, src []byte) (*Project, error) {
	l := &projLoader{p: &Project{File: path, Dir: filepath.Dir(path), Pos: map[string]Pos{}}}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		l.errs = append(l.errs, yamlError(path, src, err))
		return nil, l.errs.Err()
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	root = l.deref(root)
	switch {
	case root.Kind == 0 || root.Kind == yaml.DocumentNode || root.Tag == "!!null":
		l.errs.Add(Pos{File: path}, `the project file is empty; it needs at least version: "1", rules:, ddl: and out:`)
	case root.Kind != yaml.MappingNode:
		l.errorf(root, "the project file must be a mapping of keys (version, rules, ddl, ...), not %s", projKind(root))
	default:
		l.top(root)
	}
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return l.p, nil
}

// projLoader collects the problems of one project file.
type projLoader struct {
	p      *Project
	errs   Errors
	derefs int
}

func (l *projLoader) pos(n *yaml.Node) Pos {
	return Pos{File: l.p.File, Line: n.Line, Col: n.Column}
}

func (l *projLoader) errorf(n *yaml.Node, format string, args ...any) {
	l.errs.Add(l.pos(n), fmt.Sprintf(format, args...))
}

// deref follows YAML aliases (*name), at most 100 times per file.
func (l *projLoader) deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil && l.derefs < 100 {
		l.derefs++
		n = n.Alias
	}
	return n
}

// projKind describes the kind of a node for messages.
func projKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("the scalar %q", n.Value)
	}
	return "an alias"
}

// top reads the top-level mapping.
func (l *projLoader) top(root *yaml.Node) {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], l.deref(root.Content[i+1])
		if first, dup := seen[k.Value]; dup {
			l.errorf(k, "duplicate key %q (first at %s)", k.Value, l.pos(first))
			continue
		}
		seen[k.Value] = k
		l.p.Pos[k.Value] = l.pos(v)
		switch k.Value {
		case "version":
			if s, ok := l.scalar(k.Value, v); ok && s != ProjectVersion {
				l.errorf(v, "unsupported version %q; this shardgen reads version: %q", s, ProjectVersion)
			} else if ok {
				l.p.Version = s
			}
		case "rules":
			if s, ok := l.scalar(k.Value, v); ok {
				l.p.Rules = l.existingFile("rules", s, v)
			}
		case "ddl":
			l.p.DDL = l.files("ddl", v)
		case "queries":
			l.p.Queries = l.files("queries", v)
		case "out":
			if s, ok := l.scalar(k.Value, v); ok {
				l.p.Out = l.resolve(s)
			}
		case "package":
			if s, ok := l.scalar(k.Value, v); ok {
				if token.IsKeyword(s) {
					l.errorf(v, "package %q is a Go keyword; choose another package name", s)
				} else if !token.IsIdentifier(s) || s == "_" {
					l.errorf(v, "package %q is not a valid Go package name (a Go identifier such as db)", s)
				} else {
					l.p.Package = s
				}
			}
		case "migrations_project":
			if s, ok := l.scalar(k.Value, v); ok {
				l.p.MigrationsProject = s
			}
		case "overrides":
			l.overrides(v)
		case "emit_interface":
			l.p.Emit.Interface = l.boolean(k.Value, v)
		case "emit_json_tags":
			l.p.Emit.JSONTags = l.boolean(k.Value, v)
		case "emit_empty_slices":
			l.p.Emit.EmptySlices = l.boolean(k.Value, v)
		case "emit_exact_table_names":
			l.p.Emit.ExactTableNames = l.boolean(k.Value, v)
		case "emit_pointers_for_null_types":
			l.p.Emit.PointersForNullTypes = l.boolean(k.Value, v)
		case "json_tags_case_style":
			if s, ok := l.scalar(k.Value, v); ok {
				switch s {
				case "camel", "pascal", "snake", "none":
					l.p.Emit.JSONTagsCase = s
				default:
					l.errorf(v, "json_tags_case_style %q: want camel, pascal, snake or none", s)
				}
			}
		case "query_parameter_limit":
			var n int
			if v.Kind != yaml.ScalarNode || v.Decode(&n) != nil || n < 0 {
				l.errorf(v, "query_parameter_limit must be a number of parameters, 0 or more, not %s", projKind(v))
			} else {
				l.p.Emit.ParameterLimit = &n
			}
		default:
			delete(l.p.Pos, k.Value)
			l.errorf(k, "unknown key %q (known keys: %s)", k.Value, strings.Join(projKeys, ", "))
		}
	}
	for _, key := range []struct{ name, example string }{
		{"version", `version: "1"`},
		{"rules", "rules: sharding.yaml"},
		{"ddl", "ddl: [schema/*.sql]"},
		{"out", "out: internal/db"},
	} {
		if _, ok := seen[key.name]; !ok {
			l.errorf(root, "missing key %q, e.g. %s", key.name, key.example)
		}
	}
	if _, ok := seen["package"]; !ok && l.p.Out != "" {
		base := filepath.Base(l.p.Out)
		if !token.IsIdentifier(base) || base == "_" { // IsIdentifier is false for keywords
			l.errs.Add(l.p.Pos["out"], fmt.Sprintf("the base name %q of out is not a valid Go package name; set package:, e.g. package: db", base))
		} else {
			l.p.Package = base
		}
	}
}

// boolean returns the value of a true/false key, or reports why not.
func (l *projLoader) boolean(key string, v *yaml.Node) bool {
	var b bool
	if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
		l.errorf(v, "%s must be true or false, not %s", key, projKind(v))
	}
	return b
}

// scalar returns the non-empty string value of key, or reports why not.
func (l *projLoader) scalar(key string, v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		l.errorf(v, "%s must be a string, not %s", key, projKind(v))
		return "", false
	}
	if strings.TrimSpace(v.Value) == "" {
		l.errorf(v, "%s must not be empty", key)
		return "", false
	}
	return v.Value, true
}

// resolve makes a path of the project file relative to its directory.
func (l *projLoader) resolve(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(l.p.Dir, p)
}

// existingFile resolves a file name and reports it when it is missing or a
// directory.
func (l *projLoader) existingFile(key, name string, v *yaml.Node) string {
	path := l.resolve(name)
	st, err := os.Stat(path)
	switch {
	case err != nil:
		l.errorf(v, "%s file %q does not exist (looked for %s)", key, name, path)
		return ""
	case st.IsDir():
		l.errorf(v, "%s file %q is a directory (%s); name a file", key, name, path)
		return ""
	}
	return path
}

// files reads a file-or-glob value or a list of them and expands it.
func (l *projLoader) files(key string, v *yaml.Node) []string {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			l.errorf(v, "%s must be a file, a glob or a list of them, not null", key)
			return nil
		}
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		items = v.Content
		if len(items) == 0 && key == "ddl" {
			l.errorf(v, "ddl must name at least one file")
		}
	default:
		l.errorf(v, "%s must be a file, a glob or a list of them, not %s", key, projKind(v))
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		it = l.deref(it)
		s, ok := l.scalar(key+" entry", it)
		if !ok {
			continue
		}
		var paths []string
		if strings.ContainsAny(s, "*?[") {
			matches, err := filepath.Glob(l.resolve(s))
			if err != nil {
				l.errorf(it, "%s glob %q: %v", key, s, err)
				continue
			}
			for _, m := range matches { // sorted by filepath.Glob
				if st, err := os.Stat(m); err == nil && !st.IsDir() {
					paths = append(paths, m)
				}
			}
			if len(paths) == 0 {
				l.errorf(it, "%s glob %q matches no file (looked in %s)", key, s, l.p.Dir)
				continue
			}
		} else if st, err := os.Stat(l.resolve(s)); err == nil && st.IsDir() && key == "ddl" {
			// A migration directory (goose or golang-migrate layout).
			files, err := MigrationFiles(l.resolve(s))
			if err != nil {
				l.errorf(it, "ddl directory %q holds no numbered migration file (NNN_name.sql or NNN_name.up.sql)", s)
				continue
			}
			paths = files
		} else if p := l.existingFile(key, s, it); p != "" {
			paths = []string{p}
		}
		for _, p := range paths {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// overrides reads the overrides list.
func (l *projLoader) overrides(v *yaml.Node) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.SequenceNode {
		l.errorf(v, "overrides must be a list of {column | db_type, go_type, nullable}, not %s", projKind(v))
		return
	}
	for _, it := range v.Content {
		it = l.deref(it)
		if it.Kind != yaml.MappingNode {
			l.errorf(it, "an override must be a mapping with column: or db_type:, and go_type:, not %s", projKind(it))
			continue
		}
		if o := l.override(it); o != nil {
			l.p.Overrides = append(l.p.Overrides, o)
		}
	}
}

// override reads one override; nil when it has problems.
func (l *projLoader) override(m *yaml.Node) *Override {
	o := &Override{Pos: l.pos(m)}
	ok := true
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], l.deref(m.Content[i+1])
		if first, dup := seen[k.Value]; dup {
			l.errorf(k, "duplicate key %q (first at %s)", k.Value, l.pos(first))
			ok = false
			continue
		}
		seen[k.Value] = k
		switch k.Value {
		case "column":
			s, good := l.scalar("column", v)
			if good {
				table, col, found := strings.Cut(s, ".")
				if !found || table == "" || col == "" || strings.Contains(col, ".") {
					l.errorf(v, "column %q must be logic_table.column, e.g. t_order.status", s)
					good = false
				}
				o.Column, o.Table, o.ColumnName = s, table, col
			}
			ok = ok && good
		case "db_type":
			s, good := l.scalar("db_type", v)
			if good {
				o.DBType, o.Unsigned, good = projDBType(s)
				if !good {
					l.errorf(v, "db_type %q is not a MySQL type as ParseDDL names it; write e.g. bigint, \"bigint unsigned\", varchar, decimal, datetime or json (synonyms: integer is int, real is double, numeric is decimal)", s)
				}
			}
			ok = ok && good
		case "go_type":
			s, good := l.scalar("go_type", v)
			if good {
				o.GoType, good = ParseGoType(s)
				if !good {
					l.errorf(v, "go_type %q is not a Go type name; write a builtin (int64, []byte), a standard library type (time.Time) or import/path.Name (github.com/shopspring/decimal.Decimal)", s)
				}
			}
			ok = ok && good
		case "nullable":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
				l.errorf(v, "nullable must be true or false, not %s", projKind(v))
				ok = false
				continue
			}
			o.Nullable = &b
		default:
			l.errorf(k, "unknown key %q in an override (known keys: column, db_type, go_type, nullable)", k.Value)
			ok = false
		}
	}
	_, hasColumn := seen["column"]
	_, hasDBType := seen["db_type"]
	switch {
	case hasColumn && hasDBType:
		l.errorf(m, "an override has either column: or db_type:, not both")
		ok = false
	case !hasColumn && !hasDBType:
		l.errorf(m, "an override needs column: (logic_table.column) or db_type: (a MySQL type)")
		ok = false
	case hasColumn && o.Nullable != nil:
		l.errorf(seen["nullable"], "nullable applies to db_type overrides only; a column override follows the column's NULL / NOT NULL")
		ok = false
	}
	if _, has := seen["go_type"]; !has {
		l.errorf(m, "an override needs go_type:, e.g. go_type: github.com/shopspring/decimal.Decimal")
		ok = false
	}
	if !ok {
		return nil
	}
	return o
}

// projMySQLTypes are the type names Column.Type can hold (ParseDDL lower-cases
// them and maps integer, real, numeric, bool and float4 to canonical names).
var projMySQLTypes = map[string]bool{
	"tinyint": true, "smallint": true, "mediumint": true, "int": true, "bigint": true,
	"decimal": true, "float": true, "double": true, "bit": true,
	"date": true, "datetime": true, "timestamp": true, "time": true, "year": true,
	"char": true, "varchar": true, "binary": true, "varbinary": true,
	"tinyblob": true, "blob": true, "mediumblob": true, "longblob": true,
	"tinytext": true, "text": true, "mediumtext": true, "longtext": true,
	"enum": true, "set": true, "json": true, "vector": true,
	"geometry": true, "point": true, "linestring": true, "polygon": true, "multipoint": true,
	"multilinestring": true, "multipolygon": true, "geometrycollection": true,
}

// projDBType parses "name" or "name unsigned" (any case and spacing),
// mapping the synonyms ParseDDL maps.
func projDBType(s string) (name string, unsigned, ok bool) {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 2 && f[1] == "unsigned" {
		unsigned = true
		f = f[:1]
	}
	if len(f) != 1 {
		return "", false, false
	}
	name = f[0]
	switch name {
	case "integer":
		name = "int"
	case "real", "float8":
		name = "double"
	case "numeric":
		name = "decimal"
	case "float4":
		name = "float"
	}
	return name, unsigned, projMySQLTypes[name]
}

// projBuiltins are Go's predeclared types that a column may map to.
var projBuiltins = map[string]bool{
	"any": true, "bool": true, "byte": true, "rune": true, "string": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

// ParseGoType checks the form of a go_type value (see GoType) and splits it.
// It reports false for anything else: an unexported or missing type name, an
// empty path element, a space, an unknown builtin.
func ParseGoType(s string) (GoType, bool) {
	g := GoType{Spec: s}
	rest := s
	for {
		switch {
		case strings.HasPrefix(rest, "*"):
			g.Prefix += "*"
			rest = rest[1:]
			continue
		case strings.HasPrefix(rest, "[]"):
			g.Prefix += "[]"
			rest = rest[2:]
			continue
		}
		break
	}
	slash := strings.LastIndexByte(rest, '/')
	dot := strings.LastIndexByte(rest[slash+1:], '.')
	if dot < 0 {
		if slash >= 0 || !projBuiltins[rest] {
			return GoType{}, false
		}
		g.Name = rest
		return g, true
	}
	dot += slash + 1
	g.Import, g.Name = rest[:dot], rest[dot+1:]
	if !token.IsIdentifier(g.Name) || !token.IsExported(g.Name) {
		return GoType{}, false
	}
	if slash < 0 { // a standard library package such as time or sql
		return g, token.IsIdentifier(g.Import)
	}
	for _, elem := range strings.Split(g.Import, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return GoType{}, false
		}
		for i := 0; i < len(elem); i++ {
			c := elem[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
				return GoType{}, false
			}
		}
	}
	return g, true
}
