package pipeline_test

// Generate-time cost (issue 3; figures in docs/performance.md): synthetic
// projects are written into t.TempDir() from the code below, then loaded,
// planned and rendered with pipeline.Load and Project.Generate, as
// `shardgen generate` does.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/pipeline"
)

// synthSpec describes a synthetic project: tables sharded tables, each over
// dataSources data sources × tablesPerDS actual tables, with the queries of
// queryKinds on every table, spread over queryFiles files.
type synthSpec struct {
	tables      int
	dataSources int
	tablesPerDS int
	queryKinds  []string // keys of synthQueries
	queryFiles  int
}

// synthQueries are the annotated queries written for each table; %[1]s is
// the logic table, %[2]s the query name suffix.
var synthQueries = map[string]string{
	// SingleNode point select: both sharding columns with =.
	"get": "-- name: Get%[2]s :one\nSELECT order_id, user_id, status, amount, created_at FROM %[1]s WHERE user_id = ? AND order_id = ?;\n",
	// MultiNode: the table column with IN (RouteAll + pickUnits).
	"list": "-- name: List%[2]s :many\nSELECT order_id, status FROM %[1]s WHERE user_id = ? AND order_id IN (?, ?, ?);\n",
	// SingleNode insert.
	"insert": "-- name: Insert%[2]s :exec\nINSERT INTO %[1]s (order_id, user_id, status, amount, created_at) VALUES (?, ?, ?, ?, ?);\n",
	// SingleNode update.
	"update": "-- name: Update%[2]s :execrows\nUPDATE %[1]s SET status = ? WHERE user_id = ? AND order_id = ?;\n",
	// SingleNode delete.
	"delete": "-- name: Delete%[2]s :exec\nDELETE FROM %[1]s WHERE user_id = ? AND order_id = ?;\n",
}

// writeSynthProject writes a project for spec into dir and returns the path
// of its shardgen.yaml. Table i routes its database side on user_id with MOD,
// HASH_MOD or INLINE (`ds_${user_id % n}`) by i%3, and its table side on
// order_id with MOD, HASH_MOD or INLINE (`t_i_${order_id % n}`) by (i/3)%3,
// so every pair of the three occurs.
func writeSynthProject(t testing.TB, dir string, spec synthSpec) string {
	t.Helper()
	var rules, ddl strings.Builder
	rules.WriteString("databaseName: synth\ndataSources:\n")
	for d := 0; d < spec.dataSources; d++ {
		fmt.Fprintf(&rules, "  ds_%d:\n    url: jdbc:mysql://127.0.0.1:13306/ds_%d\n    username: shardgen\n    password: shardgen\n", d, d)
	}
	rules.WriteString("rules:\n- !SHARDING\n  tables:\n")
	dbAlgos := []string{"db_mod", "db_hash_mod", "db_inline"}
	for i := 0; i < spec.tables; i++ {
		name := synthTable(i)
		tableAlgo := []string{"t_mod", "t_hash_mod", name + "_inline"}[(i/3)%3]
		fmt.Fprintf(&rules, "    %s:\n      actualDataNodes: ds_${0..%d}.%s_${0..%d}\n", name, spec.dataSources-1, name, spec.tablesPerDS-1)
		fmt.Fprintf(&rules, "      databaseStrategy:\n        standard:\n          shardingColumn: user_id\n          shardingAlgorithmName: %s\n", dbAlgos[i%3])
		fmt.Fprintf(&rules, "      tableStrategy:\n        standard:\n          shardingColumn: order_id\n          shardingAlgorithmName: %s\n", tableAlgo)
		fmt.Fprintf(&ddl, "CREATE TABLE %s (\n  order_id BIGINT NOT NULL,\n  user_id BIGINT NOT NULL,\n  status VARCHAR(32) NOT NULL,\n  amount DECIMAL(12,2) NOT NULL,\n  created_at DATETIME NOT NULL,\n  PRIMARY KEY (order_id),\n  KEY idx_user (user_id)\n);\n\n", name)
	}
	rules.WriteString("  shardingAlgorithms:\n")
	fmt.Fprintf(&rules, "    db_mod:\n      type: MOD\n      props:\n        sharding-count: %d\n", spec.dataSources)
	fmt.Fprintf(&rules, "    db_hash_mod:\n      type: HASH_MOD\n      props:\n        sharding-count: %d\n", spec.dataSources)
	fmt.Fprintf(&rules, "    db_inline:\n      type: INLINE\n      props:\n        algorithm-expression: \"ds_${user_id %% %d}\"\n", spec.dataSources)
	fmt.Fprintf(&rules, "    t_mod:\n      type: MOD\n      props:\n        sharding-count: %d\n", spec.tablesPerDS)
	fmt.Fprintf(&rules, "    t_hash_mod:\n      type: HASH_MOD\n      props:\n        sharding-count: %d\n", spec.tablesPerDS)
	for i := 0; i < spec.tables; i++ {
		if (i/3)%3 == 2 {
			name := synthTable(i)
			fmt.Fprintf(&rules, "    %s_inline:\n      type: INLINE\n      props:\n        algorithm-expression: \"%s_${order_id %% %d}\"\n", name, name, spec.tablesPerDS)
		}
	}

	files := make([]strings.Builder, spec.queryFiles)
	for i := 0; i < spec.tables; i++ {
		f := &files[i%spec.queryFiles]
		for _, k := range spec.queryKinds {
			fmt.Fprintf(f, synthQueries[k]+"\n", synthTable(i), synthGoName(i))
		}
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "queries"), 0o755))
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("sharding.yaml", rules.String())
	write("schema.sql", ddl.String())
	for i := range files {
		write(filepath.Join("queries", fmt.Sprintf("q%02d.sql", i)), files[i].String())
	}
	write("shardgen.yaml", "version: \"1\"\nrules: sharding.yaml\nddl: [schema.sql]\nqueries: [queries/*.sql]\nout: db\npackage: db\n")
	return filepath.Join(dir, "shardgen.yaml")
}

// synthTable is the logic table name of table i: t_00, t_01, ...
func synthTable(i int) string { return fmt.Sprintf("t_%02d", i) }

// synthGoName is the query name suffix of table i: T00, T01, ...
func synthGoName(i int) string { return fmt.Sprintf("T%02d", i) }

// spec200 is the project of BenchmarkGenerate200Queries: 50 tables of 4×8
// data nodes, 4 queries each (point select, IN select, insert, update) in 10
// query files.
var spec200 = synthSpec{tables: 50, dataSources: 4, tablesPerDS: 8, queryKinds: []string{"get", "list", "insert", "update"}, queryFiles: 10}

// spec4x1024 is one table over 4 data sources × 1024 tables with five
// queries (point select, IN select, insert, update, delete).
var spec4x1024 = synthSpec{tables: 1, dataSources: 4, tablesPerDS: 1024, queryKinds: []string{"get", "list", "insert", "update", "delete"}, queryFiles: 1}

// loadAndGenerate is `shardgen generate` without writing: Load, then
// Generate.
func loadAndGenerate(t testing.TB, path string) (*pipeline.Project, map[string][]byte) {
	t.Helper()
	p, err := pipeline.Load(path)
	require.NoError(t, err)
	files, err := p.Generate("bench")
	require.NoError(t, err)
	return p, files
}

// generatedSize returns the total size of files and the size of each,
// sorted by name.
func generatedSize(files map[string][]byte) (int, []string) {
	total := 0
	var each []string
	for name, b := range files {
		total += len(b)
		each = append(each, fmt.Sprintf("%s=%d", name, len(b)))
	}
	sort.Strings(each)
	return total, each
}

// TestSynthProjects: both synthetic projects load, plan every query and
// render; the single-node queries of the 200-query project are inlined
// (MOD, HASH_MOD and INLINE `x_${col % n}` all have an inline form), so
// what BenchmarkGenerate200Queries measures is the code the Route
// benchmarks of examples/orders measure.
func TestSynthProjects(t *testing.T) {
	p, files := loadAndGenerate(t, writeSynthProject(t, t.TempDir(), spec200))
	n := 0
	for _, f := range p.Files {
		n += len(f.Plans)
	}
	require.Equal(t, 200, n)
	require.Len(t, p.Files, 10)
	var all strings.Builder
	for _, b := range files {
		all.Write(b)
	}
	src := strings.ReplaceAll(all.String(), "\n// ", " ") // unwrap doc comments
	require.Equal(t, 150, strings.Count(src, " computed inline."), "point selects, inserts and updates are inlined")
	require.Equal(t, 50, strings.Count(src, " computed by the sharding algorithms over the conditions."), "IN selects use RouteAll")

	p, files = loadAndGenerate(t, writeSynthProject(t, t.TempDir(), spec4x1024))
	require.Len(t, p.Files, 1)
	require.Len(t, p.Files[0].Plans, 5)
	require.Contains(t, files, "q00.sql.go")
}

// BenchmarkGenerate200Queries: pipeline.Load + Project.Generate (parse the
// rules, the DDL and 200 queries, plan them, render and gofmt the Go
// package) for 50 tables of 4×8 data nodes, in process, files not written.
// Reports the generated size too.
func BenchmarkGenerate200Queries(b *testing.B) {
	path := writeSynthProject(b, b.TempDir(), spec200)
	var files map[string][]byte
	b.ReportAllocs()
	for b.Loop() {
		_, files = loadAndGenerate(b, path)
	}
	total, _ := generatedSize(files)
	b.ReportMetric(float64(total), "out-bytes")
	b.ReportMetric(float64(total)/200, "out-bytes/query")
}

// BenchmarkGenerate200QueriesStages splits BenchmarkGenerate200Queries:
// load (read the project, rules and DDL, parse and plan the 200 queries)
// and generate (render and format the Go files from the plans).
func BenchmarkGenerate200QueriesStages(b *testing.B) {
	path := writeSynthProject(b, b.TempDir(), spec200)
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := pipeline.Load(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generate", func(b *testing.B) {
		p, err := pipeline.Load(path)
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.Generate("bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGenerate4x1024: the same for one table over 4 data sources × 1024
// tables with 5 queries: every single-node and IN query carries a route
// unit table of 4096 entries. Reports the generated size in total, per
// query (the query file's size / 5) and per file.
func BenchmarkGenerate4x1024(b *testing.B) {
	path := writeSynthProject(b, b.TempDir(), spec4x1024)
	var files map[string][]byte
	b.ReportAllocs()
	for b.Loop() {
		_, files = loadAndGenerate(b, path)
	}
	total, each := generatedSize(files)
	b.ReportMetric(float64(total), "out-bytes")
	b.ReportMetric(float64(len(files["q00.sql.go"]))/5, "query-file-bytes/query")
	b.Logf("generated files: %s", strings.Join(each, " "))
}

// BenchmarkGenerate200QueriesCLI is the wall time of the command itself,
// `shardgen generate -f shardgen.yaml` on the 200-query project: the binary
// is built once (go build ./cmd/shardgen), then run once per iteration with
// its output directory removed first (outside the timer), so every run
// writes every file. Process start-up is included.
func BenchmarkGenerate200QueriesCLI(b *testing.B) {
	dir := b.TempDir()
	path := writeSynthProject(b, dir, spec200)
	bin := filepath.Join(b.TempDir(), "shardgen")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	build := exec.Command(gobin, "build", "-o", bin, "github.com/shardgen/shardgen/cmd/shardgen")
	out, err := build.CombinedOutput()
	require.NoError(b, err, "go build ./cmd/shardgen: %s", out)
	for b.Loop() {
		b.StopTimer()
		require.NoError(b, os.RemoveAll(filepath.Join(dir, "db")))
		b.StartTimer()
		out, err := exec.Command(bin, "generate", "-f", path).CombinedOutput()
		if err != nil {
			b.Fatalf("shardgen generate: %v: %s", err, out)
		}
	}
}
