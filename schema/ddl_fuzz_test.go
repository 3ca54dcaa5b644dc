package schema

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseDDL feeds ParseDDL mutations of the table tests and the dumps in
// testdata/ddl. ParseDDL must never panic, every error must be a schema.Errors
// whose positions lie inside the input, and every table and column it returns
// must have a name and a position.
func FuzzParseDDL(f *testing.F) {
	for _, tc := range ddlCases {
		f.Add(tc.sql)
	}
	for _, tc := range ddlErrorCases {
		f.Add(tc.sql)
	}
	dumps, _ := filepath.Glob(filepath.Join("testdata", "ddl", "*.sql"))
	for _, name := range dumps {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(string(src))
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		tables, err := ParseDDL("f.sql", []byte(sql))
		lines := strings.Count(sql, "\n") + 1
		inside := func(p Pos) bool {
			return p.File == "f.sql" && p.Line >= 1 && p.Line <= lines && p.Col >= 1 && p.Col <= len(sql)+1
		}
		if err != nil {
			var list Errors
			if !errors.As(err, &list) {
				t.Fatalf("error %T is not schema.Errors: %v", err, err)
			}
			for _, e := range list {
				if !inside(e.Pos) || e.Msg == "" {
					t.Fatalf("bad error %q at %+v for %q", e.Msg, e.Pos, sql)
				}
			}
		}
		for _, tb := range tables {
			if tb.Name == "" || !inside(tb.Pos) {
				t.Fatalf("bad table %q at %+v for %q", tb.Name, tb.Pos, sql)
			}
			for _, c := range tb.Columns {
				if c.Name == "" || !inside(c.Pos) || c.Type == "" {
					t.Fatalf("bad column %q %q at %+v for %q", c.Name, c.Type, c.Pos, sql)
				}
			}
		}
	})
}
