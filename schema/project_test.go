package schema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLoadProject(t *testing.T) {
	dir := filepath.Join("testdata", "project")
	file := filepath.Join(dir, "shardgen.yaml")
	p, err := LoadProject(file)
	require.NoError(t, err)
	j := func(s string) string { return filepath.Join(dir, s) }
	at := func(line, col int) Pos { return Pos{File: file, Line: line, Col: col} }
	yes := true
	require.Equal(t, &Project{
		File:    file,
		Dir:     dir,
		Version: "1",
		Rules:   j("sharding.yaml"),
		DDL: []string{
			j("schema/00_base.sql"), // named first, not repeated by the glob
			j("schema/10_orders.sql"),
			j("schema/20_users.sql"),
			j("schema/extra/dict.sql"),
		},
		Queries: []string{j("queries/orders.sql"), j("queries/users.sql")},
		Out:     j("internal/db"),
		Package: "db",
		Overrides: []*Override{
			{
				Column: "t_order.status", Table: "t_order", ColumnName: "status",
				GoType: GoType{Spec: "github.com/acme/shop/types.OrderStatus", Import: "github.com/acme/shop/types", Name: "OrderStatus"},
				Pos:    at(8, 5),
			},
			{
				DBType: "decimal",
				GoType: GoType{Spec: "github.com/shopspring/decimal.Decimal", Import: "github.com/shopspring/decimal", Name: "Decimal"},
				Pos:    at(10, 5),
			},
			{
				DBType: "decimal", Nullable: &yes,
				GoType: GoType{Spec: "github.com/shopspring/decimal.NullDecimal", Import: "github.com/shopspring/decimal", Name: "NullDecimal"},
				Pos:    at(12, 5),
			},
			{DBType: "bigint", Unsigned: true, GoType: GoType{Spec: "uint64", Name: "uint64"}, Pos: at(15, 5)},
			{DBType: "json", GoType: GoType{Spec: "[]byte", Prefix: "[]", Name: "byte"}, Pos: at(17, 5)},
			{
				Column: "t_user.created_at", Table: "t_user", ColumnName: "created_at",
				GoType: GoType{Spec: "*time.Time", Prefix: "*", Import: "time", Name: "Time"},
				Pos:    at(19, 5),
			},
		},
		Pos: map[string]Pos{
			"version": at(2, 10), "rules": at(3, 8), "ddl": at(4, 6), "queries": at(5, 10),
			"out": at(6, 6), "overrides": at(8, 3),
		},
	}, p)

	// The DDL files it names parse.
	for _, f := range p.DDL {
		_, err := ParseDDLFile(f)
		require.NoError(t, err)
	}

	_, err = LoadProject(filepath.Join(dir, "nope.yaml"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestLoadProjectForms(t *testing.T) {
	file := filepath.Join("testdata", "project", "shardgen.yaml")
	p, err := loadProject(file, []byte(`version: 1
rules: sharding.yaml
ddl: schema/10_orders.sql   # one file, no list
out: gen/shop_db
package: shopdb
migrations_project: github.com/acme/shop/db
overrides:
`))
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join("testdata", "project", "schema", "10_orders.sql")}, p.DDL)
	require.Nil(t, p.Queries)
	require.Equal(t, "shopdb", p.Package)
	require.Equal(t, "github.com/acme/shop/db", p.MigrationsProject)
	require.Nil(t, p.Overrides)

	p, err = loadProject(file, []byte("version: '1'\nrules: sharding.yaml\nddl: [schema/*.sql]\nout: gen/shop_db\n"))
	require.NoError(t, err)
	require.Equal(t, "shop_db", p.Package) // the base name of out
	require.Empty(t, p.MigrationsProject)  // shardgen migrate derives it (migrate.ProjectKey)
}

func TestLoadProjectErrors(t *testing.T) {
	const f = "testdata/project/shardgen.yaml"
	for _, tc := range []struct {
		name, yaml, err string
	}{
		{
			name: "empty",
			yaml: "# nothing\n",
			err:  `testdata/project/shardgen.yaml: the project file is empty; it needs at least version: "1", rules:, ddl: and out:`,
		},
		{
			name: "invalid YAML",
			yaml: "version: \"1\"\nrules: sharding.yaml\n  ddl: x\n",
			err:  "testdata/project/shardgen.yaml:3: invalid YAML: mapping values are not allowed in this context (line 3 is indented under line 2, whose key already has a value: check the indentation of line 2 and of line 3)",
		},
		{
			name: "invalid YAML: unclosed flow sequence",
			yaml: "version: \"1\"\nrules: sharding.yaml\nddl: [schema.sql\nout: db\n",
			err:  "testdata/project/shardgen.yaml:3: invalid YAML: did not find expected ',' or ']'",
		},
		{
			name: "not a mapping",
			yaml: "- a\n- b\n",
			err:  "testdata/project/shardgen.yaml:1:1: the project file must be a mapping of keys (version, rules, ddl, ...), not a list",
		},
		{
			name: "missing, unknown and duplicate keys",
			yaml: "ddls: [schema/*.sql]\nrules: sharding.yaml\nrules: other.yaml\n",
			err: `testdata/project/shardgen.yaml:1:1: unknown key "ddls" (known keys: version, rules, ddl, queries, out, package, migrations_project, overrides, emit_interface, emit_json_tags, json_tags_case_style, emit_empty_slices, emit_exact_table_names, emit_pointers_for_null_types, query_parameter_limit)
testdata/project/shardgen.yaml:1:1: missing key "version", e.g. version: "1"
testdata/project/shardgen.yaml:1:1: missing key "ddl", e.g. ddl: [schema/*.sql]
testdata/project/shardgen.yaml:1:1: missing key "out", e.g. out: internal/db
testdata/project/shardgen.yaml:3:1: duplicate key "rules" (first at testdata/project/shardgen.yaml:2:1)`,
		},
		{
			name: "values",
			yaml: `version: "2"
rules: schema
ddl: [schema/*.sql, "schema/[", schema/*.ddl, schema/ext*, schema/missing.sql, {a: b}, ""]
queries: {a: b}
out: ""
package: 9lives
`,
			err: `testdata/project/shardgen.yaml:1:10: unsupported version "2"; this shardgen reads version: "1"
testdata/project/shardgen.yaml:2:8: rules file "schema" is a directory (testdata/project/schema); name a file
testdata/project/shardgen.yaml:3:21: ddl glob "schema/[": syntax error in pattern
testdata/project/shardgen.yaml:3:33: ddl glob "schema/*.ddl" matches no file (looked in testdata/project)
testdata/project/shardgen.yaml:3:47: ddl glob "schema/ext*" matches no file (looked in testdata/project)
testdata/project/shardgen.yaml:3:60: ddl file "schema/missing.sql" does not exist (looked for testdata/project/schema/missing.sql)
testdata/project/shardgen.yaml:3:80: ddl entry must be a string, not a mapping
testdata/project/shardgen.yaml:3:88: ddl entry must not be empty
testdata/project/shardgen.yaml:4:10: queries must be a file, a glob or a list of them, not a mapping
testdata/project/shardgen.yaml:5:6: out must not be empty
testdata/project/shardgen.yaml:6:10: package "9lives" is not a valid Go package name (a Go identifier such as db)`,
		},
		{
			name: "package from out",
			yaml: "version: \"1\"\nrules: sharding.yaml\nddl: []\nout: internal/shop-db\n",
			err: `testdata/project/shardgen.yaml:3:6: ddl must name at least one file
testdata/project/shardgen.yaml:4:6: the base name "shop-db" of out is not a valid Go package name; set package:, e.g. package: db`,
		},
		{
			name: "keyword package",
			yaml: "version: \"1\"\nrules: sharding.yaml\nddl: [schema/*.sql]\nout: internal/db\npackage: func\n",
			err:  `testdata/project/shardgen.yaml:5:10: package "func" is a Go keyword; choose another package name`,
		},
		{
			name: "overrides",
			yaml: `version: "1"
rules: sharding.yaml
ddl: [schema/*.sql]
out: internal/db
overrides:
  - column: status
    go_type: string
  - db_type: decmial
    go_type: decimal
  - column: t.c
    db_type: int
    go_type: int64
  - go_type: int64
  - column: t.c
  - db_type: int
    nullable: maybe
    go_type: github.com/x/y.lower
  - column: t.c
    nullable: true
    go_type: int64
    color: red
  - db_type: int
    db_type: bigint
    go_type: int
  - just a string
overrides_typo: 1
`,
			err: `testdata/project/shardgen.yaml:6:13: column "status" must be logic_table.column, e.g. t_order.status
testdata/project/shardgen.yaml:8:14: db_type "decmial" is not a MySQL type as ParseDDL names it; write e.g. bigint, "bigint unsigned", varchar, decimal, datetime or json (synonyms: integer is int, real is double, numeric is decimal)
testdata/project/shardgen.yaml:9:14: go_type "decimal" is not a Go type name; write a builtin (int64, []byte), a standard library type (time.Time) or import/path.Name (github.com/shopspring/decimal.Decimal)
testdata/project/shardgen.yaml:10:5: an override has either column: or db_type:, not both
testdata/project/shardgen.yaml:13:5: an override needs column: (logic_table.column) or db_type: (a MySQL type)
testdata/project/shardgen.yaml:14:5: an override needs go_type:, e.g. go_type: github.com/shopspring/decimal.Decimal
testdata/project/shardgen.yaml:16:15: nullable must be true or false, not the scalar "maybe"
testdata/project/shardgen.yaml:17:14: go_type "github.com/x/y.lower" is not a Go type name; write a builtin (int64, []byte), a standard library type (time.Time) or import/path.Name (github.com/shopspring/decimal.Decimal)
testdata/project/shardgen.yaml:19:5: nullable applies to db_type overrides only; a column override follows the column's NULL / NOT NULL
testdata/project/shardgen.yaml:21:5: unknown key "color" in an override (known keys: column, db_type, go_type, nullable)
testdata/project/shardgen.yaml:23:5: duplicate key "db_type" (first at testdata/project/shardgen.yaml:22:5)
testdata/project/shardgen.yaml:25:5: an override must be a mapping with column: or db_type:, and go_type:, not the scalar "just a string"
testdata/project/shardgen.yaml:26:1: unknown key "overrides_typo" (known keys: version, rules, ddl, queries, out, package, migrations_project, overrides, emit_interface, emit_json_tags, json_tags_case_style, emit_empty_slices, emit_exact_table_names, emit_pointers_for_null_types, query_parameter_limit)`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadProject(f, []byte(tc.yaml))
			require.EqualError(t, err, tc.err)
			var list Errors
			require.ErrorAs(t, err, &list)
		})
	}
}

func TestParseGoType(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want GoType
		ok   bool
	}{
		{"int64", GoType{Name: "int64"}, true},
		{"[]byte", GoType{Prefix: "[]", Name: "byte"}, true},
		{"*string", GoType{Prefix: "*", Name: "string"}, true},
		{"[]*int", GoType{Prefix: "[]*", Name: "int"}, true},
		{"time.Time", GoType{Import: "time", Name: "Time"}, true},
		{"database/sql.NullString", GoType{Import: "database/sql", Name: "NullString"}, true},
		{"github.com/shopspring/decimal.Decimal", GoType{Import: "github.com/shopspring/decimal", Name: "Decimal"}, true},
		{"gopkg.in/guregu/null.v4.String", GoType{Import: "gopkg.in/guregu/null.v4", Name: "String"}, true},
		{"*github.com/google/uuid.UUID", GoType{Prefix: "*", Import: "github.com/google/uuid", Name: "UUID"}, true},
		{"", GoType{}, false},
		{"Decimal", GoType{}, false},               // not a builtin, no package
		{"error", GoType{}, false},                 // not a column type
		{"time.time", GoType{}, false},             // unexported
		{"time.", GoType{}, false},                 // no name
		{".Time", GoType{}, false},                 // no package
		{"github.com/x/y", GoType{}, false},        // no type name after the last slash
		{"github.com//y.T", GoType{}, false},       // empty path element
		{"github.com/x y/z.T", GoType{}, false},    // space
		{"github.com/x/y.T[int]", GoType{}, false}, // type arguments are not supported
		{"map[string]int", GoType{}, false},        // composite
		{"yaml.v3.Node", GoType{}, false},          // a dotted path needs a slash
		{"github.com/x/../y.T", GoType{}, false},   // dot-dot element
		{"github.com/acme/shop/types.Status", GoType{Import: "github.com/acme/shop/types", Name: "Status"}, true},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			got, ok := ParseGoType(tc.spec)
			require.Equal(t, tc.ok, ok)
			if ok {
				tc.want.Spec = tc.spec
				require.Equal(t, tc.want, got)
			}
		})
	}
}
