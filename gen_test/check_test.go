package gen_test_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/pipeline"
)

// copyDir copies the regular files of src (recursively) into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	}))
}

// staleCopy copies case c into a temporary directory and damages its
// generated package the three ways `generate --check` must notice: a
// changed file, a missing file and a generated file no longer produced
// (plus a hand-written file, which must be left alone). It returns the
// copy's directory and the name of the changed file.
func staleCopy(t *testing.T, c goldenCase) (dir, changed string) {
	t.Helper()
	dir = t.TempDir()
	copyDir(t, c.Dir, dir)
	pkg := filepath.Join(dir, "db")
	entries, err := os.ReadDir(pkg)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql.go") {
			changed = e.Name()
			break
		}
	}
	require.NotEmpty(t, changed)
	path := filepath.Join(pkg, changed)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b = bytes.Replace(b, []byte("\nfunc (q *Queries) "), []byte("\n// edited by hand\nfunc (q *Queries) "), 1)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	require.NoError(t, os.Remove(filepath.Join(pkg, "models.go")))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "old.sql.go"), []byte(generatedHeader+"\n\npackage x\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "helper.go"), []byte("package x\n"), 0o644))
	return dir, changed
}

// TestCheckDetectsStale: the committed packages are up to date (that is
// TestGolden), and checkGenerated, the test's mirror of `shardgen generate
// --check`, reports a changed, a missing and a leftover generated file of a
// modified copy, and nothing for a hand-written file.
func TestCheckDetectsStale(t *testing.T) {
	c := goldenCase{Name: "mod4", Dir: filepath.Join(casesDir, "mod4")}
	_, files := generateCase(t, c, cliVersion(t))
	require.Empty(t, checkGenerated(c.path("db"), files))

	dir, changed := staleCopy(t, c)
	problems := checkGenerated(filepath.Join(dir, "db"), files)
	require.Len(t, problems, 3, "%q", problems)
	require.Equal(t, "models.go: missing", problems[0])
	require.Equal(t, "old.sql.go: no longer generated", problems[1])
	require.True(t, strings.HasPrefix(problems[2], changed+": stale (line "), problems[2])
	require.Contains(t, problems[2], `got "// edited by hand"`)
}

// TestCheckCLI runs the real `shardgen generate --check` on every case
// that generates a package (exit 0) and on a damaged copy (exit 1, one line
// per stale, missing or leftover file), so the CLI and the golden test
// agree on what "up to date" means.
func TestCheckCLI(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "shardgen")
	build := exec.Command("go", "build", "-o", bin, "github.com/shardgen/shardgen/cmd/shardgen")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/shardgen: %s", out)

	run := func(project string) (int, string) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "generate", "--check", "-f", project)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, stderr.String()
		case errors.As(err, &exit):
			return exit.ExitCode(), stderr.String()
		}
		require.NoError(t, err)
		return -1, ""
	}
	for _, c := range goldenCases(t) {
		if c.failing() {
			continue
		}
		code, stderr := run(c.project())
		require.Equal(t, 0, code, "shardgen generate --check -f %s: %s", c.project(), stderr)
	}

	c := goldenCase{Name: "mod4", Dir: filepath.Join(casesDir, "mod4")}
	dir, changed := staleCopy(t, c)
	project := filepath.Join(dir, "shardgen.yaml")
	code, stderr := run(project)
	require.Equal(t, 1, code, stderr)
	pkg := filepath.Join(dir, "db")
	require.Equal(t, strings.Join([]string{
		filepath.Join(pkg, "models.go") + " is stale: run shardgen generate -f " + project,
		filepath.Join(pkg, changed) + " is stale: run shardgen generate -f " + project,
		filepath.Join(pkg, "old.sql.go") + " is no longer generated: run shardgen generate -f " + project,
	}, "\n")+"\n", stderr)
}

// TestCommentBetweenQueries: a comment line after a query's `;` and before
// the next `-- name:` line belongs to neither statement (sqlc accepts it),
// so the project loads exactly as without it.
func TestCommentBetweenQueries(t *testing.T) {
	c := goldenCase{Name: "mod4", Dir: filepath.Join(casesDir, "mod4")}
	want, err := pipeline.Load(c.project())
	require.NoError(t, err)

	dir := t.TempDir()
	copyDir(t, c.Dir, dir)
	path := filepath.Join(dir, "queries", "orders.sql")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b = bytes.Replace(b, []byte(";\n\n-- name: "), []byte(";\n-- A note about the query above.\n\n-- name: "), 1)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	got, err := pipeline.Load(filepath.Join(dir, "shardgen.yaml"))
	require.NoError(t, err)
	require.Equal(t, len(want.Files[0].Plans), len(got.Files[0].Plans))
	for i, pl := range want.Files[0].Plans {
		require.Equal(t, pl.LogicSQL, got.Files[0].Plans[i].LogicSQL, pl.Name)
	}
}
