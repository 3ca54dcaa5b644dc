package schema

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary YAML to Load, seeded from the malformed-input
// table and the fixtures. Load must never panic; it returns either a Config
// or an Errors whose every entry is positioned in the file.
func FuzzLoad(f *testing.F) {
	for _, tc := range loadErrorCases {
		f.Add([]byte(tc.yaml))
	}
	files, _ := filepath.Glob("testdata/rules/*.yaml")
	for _, file := range files {
		if src, err := os.ReadFile(file); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, err := Load("f.yaml", src)
		if err == nil {
			if cfg == nil {
				t.Fatal("nil Config without error")
			}
			return
		}
		var list Errors
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error is not a non-empty Errors: %v", err)
		}
		for _, e := range list {
			if e.Pos.File != "f.yaml" || e.Msg == "" {
				t.Fatalf("unpositioned or empty error: %#v", e)
			}
		}
	})
}
