package templates

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// loadCase plans the golden case in testdata/<name>: shardgen.yaml,
// schema.sql and queries/*.sql.
func loadCase(t *testing.T, name string) Input {
	t.Helper()
	dir := filepath.Join("testdata", name)
	src, err := os.ReadFile(filepath.Join(dir, "shardgen.yaml"))
	require.NoError(t, err)
	ddl, err := os.ReadFile(filepath.Join(dir, "schema.sql"))
	require.NoError(t, err)
	return planCase(t, src, ddl, readQueries(t, dir))
}

func readQueries(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "queries", "*.sql"))
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out["queries/"+filepath.Base(p)] = b
	}
	return out
}

// planCase loads a configuration and DDL (schema.Load, ParseDDL, CheckDDL)
// and plans every query file with plan.Builder.
func planCase(t *testing.T, yaml, ddl []byte, queries map[string][]byte) Input {
	t.Helper()
	cfg, err := schema.Load("shardgen.yaml", yaml)
	require.NoError(t, err)
	tables, err := schema.ParseDDL("schema.sql", ddl)
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	in := Input{Package: "gen", Source: "shardgen.yaml", Config: cfg, Version: "v0.0.0-test"}
	names := make([]string, 0, len(queries))
	for n := range queries {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		qs, err := schema.ParseQueries(n, queries[n])
		require.NoError(t, err)
		qf := QueryFile{Name: n}
		for _, q := range qs {
			p, err := b.Build(q)
			require.NoError(t, err, q.Name)
			qf.Plans = append(qf.Plans, p)
		}
		in.Files = append(in.Files, qf)
	}
	return in
}
