package migrate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/schema"
)

// TestProjectKey: migrations_project when set, else out's import path
// from the nearest go.mod (out need not exist), else out relative to the
// project file's directory.
func TestProjectKey(t *testing.T) {
	dir := t.TempDir()
	p := &schema.Project{Dir: dir, Out: filepath.Join(dir, "internal", "db")}
	if _, err := os.Stat("/go.mod"); err == nil {
		t.Fatal("a /go.mod makes every directory part of a module")
	}
	key, err := ProjectKey(p)
	require.NoError(t, err)
	require.Equal(t, "internal/db", key)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/shop\n\ngo 1.24\n"), 0o644))
	key, err = ProjectKey(p)
	require.NoError(t, err)
	require.Equal(t, "example.com/shop/internal/db", key)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("go 1.24\n"), 0o644))
	_, err = ProjectKey(p)
	require.ErrorContains(t, err, "go.mod: no module line; set migrations_project:")

	p.MigrationsProject = "shop"
	key, err = ProjectKey(p)
	require.NoError(t, err)
	require.Equal(t, "shop", key)
}
