package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Migration layouts: a project's `ddl:` entry may name a directory of
// numbered migration files, as the migration tools teams use keep them.
//
//	goose:          00001_create_orders.sql   (-- +goose Up ... -- +goose Down ...)
//	golang-migrate: 000001_create_orders.up.sql, 000001_create_orders.down.sql
//
// Only the up parts are schema: .down.sql files are left out, and a goose
// file's Down part is blanked (MigrationUp).

// migrationFile matches a numbered migration file name: its version, then
// "_", then a name.
var migrationFile = regexp.MustCompile(`^([0-9]+)_.*\.sql$`)

// MigrationFiles returns the up migration files of directory dir in version
// order (numerically; equal versions by name): every NNN_name.sql except
// NNN_name.down.sql. Other files are ignored. A directory without any is an
// error naming it.
func MigrationFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type file struct {
		version uint64
		name    string
	}
	var files []file
	for _, e := range entries {
		m := migrationFile.FindStringSubmatch(e.Name())
		if e.IsDir() || m == nil || strings.HasSuffix(e.Name(), ".down.sql") {
			continue
		}
		v, err := strconv.ParseUint(m[1], 10, 64)
		if err != nil {
			continue // more digits than a version holds: not a migration
		}
		files = append(files, file{v, e.Name()})
	}
	if len(files) == 0 {
		return nil, &os.PathError{Op: "read migrations", Path: dir, Err: os.ErrNotExist}
	}
	slices.SortFunc(files, func(a, b file) int {
		if a.version != b.version {
			if a.version < b.version {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Join(dir, f.name)
	}
	return out, nil
}

// gooseUp and gooseDown are goose's section markers.
var (
	gooseUp   = []byte("-- +goose Up")
	gooseDown = []byte("-- +goose Down")
)

// MigrationUp returns the up part of a migration file: for a goose file
// (one with a `-- +goose Up` line) everything before that line and from the
// `-- +goose Down` line on is blanked, keeping newlines, so that positions
// in the result are those of the file; other files are returned as they
// are. goose's `-- +goose StatementBegin/End` lines are comments to the
// DDL parser.
func MigrationUp(src []byte) []byte {
	up := markerLine(src, gooseUp)
	if up < 0 {
		return src
	}
	out := bytes.Clone(src)
	blank(out[:up])
	if down := markerLine(src, gooseDown); down > up {
		blank(out[down:])
	}
	return out
}

// markerLine returns the offset of the first line that starts with marker
// (after blanks), or -1.
func markerLine(src, marker []byte) int {
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src) - off
		}
		if bytes.HasPrefix(bytes.TrimLeft(src[off:off+end], " \t"), marker) {
			return off
		}
		off += end + 1
	}
	return -1
}

// blank replaces every byte but newlines with a space.
func blank(b []byte) {
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
}

// ParseDDLPaths parses DDL given on a command line (--ddl, repeatable) as
// one schema: each path is a DDL file or a directory of migrations
// (MigrationFiles), all read in the order given by ParseDDLFiles. Errors are
// ParseDDLFiles's, and a directory without migrations.
func ParseDDLPaths(paths []string, rule *EncryptRule) ([]*Table, error) {
	var files []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			ms, err := MigrationFiles(p)
			if err != nil {
				return nil, err
			}
			files = append(files, ms...)
			continue
		}
		files = append(files, p)
	}
	return ParseDDLFiles(files, rule)
}
