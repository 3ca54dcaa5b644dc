package schema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMigrationFilesAndUp(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"10_later.up.sql":   "ALTER TABLE t ADD COLUMN b INT NULL;",
		"10_later.down.sql": "ALTER TABLE t DROP COLUMN b;",
		"2_first.up.sql":    "CREATE TABLE t (a INT NOT NULL PRIMARY KEY);",
		"notes.txt":         "x",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	files, err := MigrationFiles(dir)
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "2_first.up.sql"), filepath.Join(dir, "10_later.up.sql")}, files)
	tables, err := ParseDDLFiles(files, nil)
	require.NoError(t, err)
	require.Len(t, tables, 1)
	require.Len(t, tables[0].Columns, 2, "the ALTER TABLE of the later file adds b")

	_, err = MigrationFiles(t.TempDir())
	require.Error(t, err)

	goose := "-- +goose Up\nCREATE TABLE t (a INT);\n-- +goose Down\nDROP TABLE t;\n"
	require.Equal(t, "-- +goose Up\nCREATE TABLE t (a INT);\n"+"              \n"+"             \n", string(MigrationUp([]byte(goose))))
	require.Equal(t, "CREATE TABLE t (a INT);", string(MigrationUp([]byte("CREATE TABLE t (a INT);"))))

	// DROP TABLE in a later file removes the table.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "11_drop.up.sql"), []byte("DROP TABLE t;"), 0o644))
	tables, err = ParseDDLFiles(append(files, filepath.Join(dir, "11_drop.up.sql")), nil)
	require.NoError(t, err)
	require.Empty(t, tables)
}
