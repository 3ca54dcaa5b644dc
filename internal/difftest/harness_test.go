package difftest

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/proxy"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// env is one sharded layout plus its unsharded reference.
type env struct {
	t       testing.TB
	cfg     *schema.Config
	b       *plan.Builder
	rt      *runtime.DB
	in      *proxy.Interpreter
	ref     *sql.DB
	keys    runtime.KeyGenerator
	queries int
	// adHoc plans statements as the proxy does (plan.AdHocFile): a
	// condition that matches no row plans an empty route instead of a
	// compile-time refusal.
	adHoc bool
	// fold, when set, maps a value of result column col to its collation's
	// equivalence class for query's fold and foldOrder columns (else they
	// are lower-cased).
	fold func(col int, v string) string
}

// rulesYAML returns a ShardingSphere config over the first n of ds_0..ds_3
// of the local test servers followed by rules.
func rulesYAML(rules string, n int) string {
	return rulesYAMLOn(rules, testdb.DataSources()[:n])
}

// rulesYAMLOn is rulesYAML over the databases dbs: data source ds_i is
// database dbs[i].
func rulesYAMLOn(rules string, dbs []string) string {
	var b strings.Builder
	b.WriteString("databaseName: difftest\ndataSources:\n")
	for i, db := range dbs {
		host, port := testdb.Server(db)
		user, pass := os.Getenv("SHARDGEN_DB_USER"), os.Getenv("SHARDGEN_DB_PASSWORD")
		if user == "" {
			user = "shardgen"
		}
		if pass == "" {
			pass = "shardgen"
		}
		fmt.Fprintf(&b, "  ds_%d:\n    url: jdbc:mysql://%s:%d/%s\n    username: %s\n    password: %s\n    maxPoolSize: 8\n", i, host, port, db, user, pass)
	}
	b.WriteString(rules)
	return b.String()
}

// newEnv loads rules and DDL, creates every actual table (dropping old
// ones) and the logic tables in `reference`.
func newEnv(t testing.TB, rules, ddl string) *env {
	return newEnvN(t, rules, ddl, len(testdb.DataSources()))
}

// newEnvN is newEnv over the first n data sources.
func newEnvN(t testing.TB, rules, ddl string, n int) *env {
	return newEnvPhysical(t, rules, ddl, ddl, n)
}

// newEnvPhysical is newEnvN whose actual and reference tables are created
// from physical, the CREATE TABLEs of ddl with other options (e.g. a
// DEFAULT CHARSET the planner's ddl does not name).
func newEnvPhysical(t testing.TB, rules, ddl, physical string, n int) *env {
	return newEnvOn(t, rules, ddl, physical, testdb.DataSources()[:n], testdb.Reference)
}

// newEnvOn is newEnvPhysical whose data source ds_i is database dbs[i]
// and whose unsharded side is database reference.
func newEnvOn(t testing.TB, rules, ddl, physical string, dbs []string, reference string) *env {
	cfg, err := schema.Load("difftest.yaml", []byte(rulesYAMLOn(rules, dbs)))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("difftest.sql", []byte(ddl))
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	dcfg, err := runtime.ParseConfig("difftest.yaml", []byte(rulesYAMLOn(rules, dbs)))
	require.NoError(t, err)
	rt, err := runtime.Open(dcfg)
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })
	in, err := proxy.NewInterpreter(b, rt)
	require.NoError(t, err)
	e := &env{t: t, cfg: cfg, b: b, rt: rt, in: in, ref: testdb.OpenWith(t, reference, map[string]string{"parseTime": "true"})}
	e.keys, err = runtime.NewKeyGenerator("SNOWFLAKE", nil)
	require.NoError(t, err)
	ctx := context.Background()
	// Actual tables: every data node of every sharded table, broadcast
	// tables on every data source.
	for _, tbl := range tables {
		create := func(db *sql.DB, actual string) {
			_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+actual)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, createAs(physical, tbl.Name, actual))
			require.NoError(t, err)
		}
		create(e.ref, tbl.Name)
		placed := false
		if cfg.Sharding != nil {
			for _, r := range cfg.Sharding.Tables {
				if strings.EqualFold(r.LogicTable, tbl.Name) {
					for _, n := range r.DataNodes {
						pool, ok := rt.Pool(n.DataSource)
						require.True(t, ok)
						create(pool, n.Table)
					}
					placed = true
				}
			}
		}
		if !placed {
			for _, ds := range rt.DataSourceNames() {
				pool, _ := rt.Pool(ds)
				create(pool, tbl.Name)
			}
		}
	}
	return e
}

// createAs returns the CREATE TABLE of logic table name in ddl, renamed.
func createAs(ddl, name, actual string) string {
	for _, stmt := range strings.Split(ddl, ";") {
		s := strings.TrimSpace(stmt)
		f := strings.Fields(s)
		if len(f) > 2 && strings.EqualFold(f[2], name) {
			return strings.Replace(s, f[2], actual, 1)
		}
	}
	return ""
}

// plan plans one ad-hoc statement (full routes allowed).
func (e *env) plan(sql string) (*plan.Plan, error) {
	cmd := schema.CmdExecRows
	if plan.ReturnsRows(sql) {
		cmd = schema.CmdMany
	}
	e.queries++
	file := "<corpus>"
	if e.adHoc {
		file = plan.AdHocFile
	}
	return e.b.Build(&schema.Query{Name: fmt.Sprintf("Q%d", e.queries), Cmd: cmd, SQL: sql, AllowFullRoute: true,
		Pos: schema.Pos{File: file, Line: 1}, SQLPos: schema.Pos{File: file, Line: 1, Col: 1}})
}

// exec runs a write on both sides with the same values (generated keys
// taken from the sharded side) and checks the affected rows agree.
func (e *env) exec(sqlText string, params ...any) {
	e.t.Helper()
	p, err := e.plan(sqlText)
	require.NoError(e.t, err, sqlText)
	res, err := e.in.Execute(context.Background(), p, params, e.keys)
	require.NoError(e.t, err, sqlText)
	full := append([]any(nil), params...)
	for len(full) < len(p.Params) {
		full = append(full, nil)
	}
	if p.KeyGenerate != nil {
		// Re-derive the keys the interpreter generated: it fills them in
		// order; ask it to report them instead of guessing.
		e.t.Fatalf("difftest: generated keys are not supported in exec (%s)", sqlText)
	}
	args := make([]any, len(p.Args))
	for i, pi := range p.Args {
		args[i] = full[pi]
	}
	r, err := e.ref.ExecContext(context.Background(), p.LogicSQL, args...)
	require.NoError(e.t, err, sqlText)
	n, _ := r.RowsAffected()
	require.Equal(e.t, n, res.RowsAffected, "affected rows of %s %v", sqlText, params)
}

// query runs a SELECT on both sides and returns a mismatch description, or
// "" when they agree. ordered compares row order too (on the ORDER BY
// projection given by orderCols, since ties may come in any order).
func (e *env) query(sqlText string, orderCols, fold, foldOrder []int, params ...any) string {
	p, err := e.plan(sqlText)
	if err != nil {
		return fmt.Sprintf("plan error: %v", err)
	}
	res, err := e.in.Execute(context.Background(), p, params, nil)
	if err != nil {
		return fmt.Sprintf("sharded error: %v", err)
	}
	args := make([]any, len(p.Args))
	for i, pi := range p.Args {
		args[i] = params[pi]
	}
	rows, err := e.ref.QueryContext(context.Background(), p.LogicSQL, args...)
	if err != nil {
		return fmt.Sprintf("reference error: %v", err)
	}
	want, err := scanRows(rows)
	if err != nil {
		return fmt.Sprintf("reference scan: %v", err)
	}
	var got [][]string
	for _, r := range res.Rows {
		got = append(got, norm(r))
	}
	return e.compare(got, want, orderCols, fold, foldOrder)
}

// compare returns a mismatch description of the sharded rows got against
// the reference's rows want (query's orderCols, fold and foldOrder), or ""
// when they agree.
func (e *env) compare(got, want [][]string, orderCols, fold, foldOrder []int) string {
	for _, rows := range [][][]string{got, want} {
		for _, row := range rows {
			for _, c := range fold {
				row[c] = e.foldText(c, row[c])
			}
			for c := range row {
				row[c] = strings.TrimRight(row[c], " ") // PAD SPACE collations: 'c' = 'c '
			}
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, reference %d\n  sharded:   %v\n  reference: %v", len(got), len(want), got, want)
	}
	if orderCols != nil {
		for i := range got {
			for _, c := range orderCols {
				g, w := got[i][c], want[i][c]
				if slices.Contains(foldOrder, c) {
					g, w = e.foldText(c, g), e.foldText(c, w)
				}
				if g != w {
					return fmt.Sprintf("order differs at row %d (column %d: %q vs %q)\n  sharded:   %v\n  reference: %v", i, c, got[i][c], want[i][c], got, want)
				}
			}
		}
	}
	a, b := sorted(got), sorted(want)
	for i := range a {
		if a[i] != b[i] {
			return fmt.Sprintf("rows differ\n  sharded:   %v\n  reference: %v", got, want)
		}
	}
	return ""
}

// foldText is value v of result column col folded to its equivalence
// class (e.fold), or lower-cased.
func (e *env) foldText(col int, v string) string {
	if e.fold != nil {
		return e.fold(col, v)
	}
	return strings.ToLower(v)
}

// scanRows reads and closes rows, each row printed by norm.
func scanRows(rows *sql.Rows) ([][]string, error) {
	defer rows.Close()
	var out [][]string
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, norm(vals))
	}
	return out, rows.Err()
}

// norm prints values as MySQL would: numbers by value, text as is, NULL as
// "NULL"; a DECIMAL keeps its scale.
func norm(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case nil:
			out[i] = "NULL"
		case []byte:
			out[i] = string(x)
		case string:
			out[i] = x
		case int64:
			out[i] = strconv.FormatInt(x, 10)
		case uint64:
			out[i] = strconv.FormatUint(x, 10)
		case float64:
			out[i] = strconv.FormatFloat(x, 'g', -1, 64)
		case float32:
			out[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
		case time.Time:
			// DATE columns scan as midnight: print them as MySQL does.
			if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
				out[i] = x.Format("2006-01-02")
			} else {
				out[i] = x.Format("2006-01-02 15:04:05")
			}
		case *big.Rat:
			out[i] = x.String()
		default:
			out[i] = fmt.Sprint(x)
		}
	}
	return out
}

func sorted(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "\x00")
	}
	sort.Strings(out)
	return out
}

// startProxy starts a proxy over the first 4 data sources with rules and
// ddl, listening on a free port of 127.0.0.1, closed by t.Cleanup.
func startProxy(t testing.TB, rules, ddl string) *proxy.Server {
	cfg, err := proxy.ParseConfig("difftest.yaml", []byte(rulesYAML(rules, 4)))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("difftest.sql", []byte(ddl))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	srv, err := proxy.NewServer(cfg, proxy.Options{Listen: "127.0.0.1:0", Insecure: true})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { srv.Close() })
	return srv
}
