package gen_test_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/pipeline"
	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/plan"
	shardrt "github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// diffSpec is a case's diff.json: the rows to load and the calls to make,
// each run through the generated function and, as Plan.LogicSQL, on the
// unsharded reference database.
//
//	{"seed":  [{"query": "CreateOrder", "args": [1, "NEW", "9.90", null, "2026-11-01 12:00:00"], "repeat": 8, "save": "o{i}"}],
//	 "calls": [{"query": "GetOrder", "args": [1, "$o3"]},
//	           {"query": "PutOrder", "args": [-1, ...], "error": "..."}]}
type diffSpec struct {
	Comment string     `json:"comment"`
	Seed    []diffCall `json:"seed"`
	Calls   []diffCall `json:"calls"`
}

// diffCall is one call of a generated function.
//
// Args are the function's parameters in order (the fields of its Params
// struct when it takes one), as JSON: numbers and strings convert to the
// parameter's Go type ("2026-11-01 12:00:00" for time.Time, "12.50" for a
// DECIMAL string), null is SQL NULL for sql.Null* types. A string "$name"
// is the generated key saved by an earlier call with "save": "name".
//
// Repeat runs the call Repeat times with i = 0..Repeat-1; every "{i}"
// inside a string argument (or Save) is replaced by i first, so "{i}" also
// makes a number; "{i+1%6}" applies +, -, *, % left to right: (i+1)%6.
//
// Error, when set, is the exact error the generated function must return;
// the reference statement is then not run (the sharded call must have
// changed nothing, which the next table comparison checks).
type diffCall struct {
	Query  string `json:"query"`
	Args   []any  `json:"args"`
	Repeat int    `json:"repeat"`
	Save   string `json:"save"`
	Error  string `json:"error"`
}

// TestDiff runs every golden case's generated package on the local
// MariaDB servers against one unsharded MariaDB database (testdb.Reference):
// it creates the actual tables on their data nodes and the logic tables in
// the reference database, loads the seed rows through the generated write
// functions (and the same logic statements on the reference), then compares
// every call's rows, affected-row counts and, after each write, the
// contents of every table. It also checks that every row sits on the data
// node the bound ShardingSphere algorithm picks for it. It fails (never
// skips) when MariaDB is down.
func TestDiff(t *testing.T) {
	var names []string
	for _, c := range goldenCases(t) {
		if c.failing() {
			continue
		}
		names = append(names, c.Name)
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			runDiffCase(t, c, nil)
		})
	}
	var glue []string
	for n := range newQueries {
		glue = append(glue, n)
	}
	slices.Sort(glue)
	require.Equal(t, names, glue, "newQueries must list exactly the cases that generate a package")
}

// diffEnv is one case under test.
type diffEnv struct {
	t     *testing.T
	ctx   context.Context
	plans map[string]*plan.Plan
	// pointers is emit_pointers_for_null_types: nullable types are *T.
	pointers bool
	// emptySlices is emit_empty_slices: a :many of no row returns []T{},
	// else nil (as sqlc's).
	emptySlices bool
	queries     reflect.Value // *Queries of the generated package
	rt          *shardrt.DB
	ref         *sql.DB
	tables      []*tableLayout
	keys        map[string]int64 // saved generated keys

	calls, rows, compares int // for the summary line

	failures map[string]int // mismatches per query

	// leg, when set, is a third side compared with the generated calls
	// (the proxy, proxy_parity_test.go); refAffected is the affected-row
	// count of the last write on the reference, for it.
	leg         diffLeg
	refAffected int64
}

// diffLeg is an extra side of the differential test. start runs once the
// tables exist; before runs before each generated call, after once that
// call was compared with the reference (out are the generated method's
// results, values the Go value of every Plan.Param, generated keys filled
// in; wantErr the call's expected error); finish runs after the last call.
type diffLeg interface {
	start(e *diffEnv)
	before(pl *plan.Plan)
	after(pl *plan.Plan, repro string, out, values []reflect.Value, wantErr string)
	finish()
}

// maxReports is how many failures of one query are reported in full; the
// rest are counted in the summary.
const maxReports = 2

// fail reports a mismatch of query name, in full for the first maxReports
// of that query.
func (e *diffEnv) fail(name, format string, args ...any) {
	e.t.Helper()
	e.failures[name]++
	if e.failures[name] <= maxReports {
		e.t.Errorf(format, args...)
	}
}

// runDiffCase runs case c; leg, when not nil, joins every call (see
// diffLeg).
func runDiffCase(t *testing.T, c goldenCase, leg diffLeg) {
	runDiffCaseProps(t, c, leg, nil)
}

// runDiffCaseProps is runDiffCase with the top-level props of the case's
// rules.yaml replaced by those of props.
func runDiffCaseProps(t *testing.T, c goldenCase, leg diffLeg, props shardrt.Props) {
	ctx := context.Background()
	newQ := newQueries[c.Name]
	require.NotNil(t, newQ, "case %s has no entry in newQueries", c.Name)

	raw, err := os.ReadFile(c.path("diff.json"))
	require.NoError(t, err, "case %s needs a diff.json", c.Name)
	var spec diffSpec
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	require.NoError(t, dec.Decode(&spec), "%s", c.path("diff.json"))

	p, err := pipeline.Load(c.project())
	require.NoError(t, err)
	env := &diffEnv{t: t, ctx: ctx, plans: map[string]*plan.Plan{}, keys: map[string]int64{}, failures: map[string]int{}, leg: leg, pointers: p.File.Emit.PointersForNullTypes, emptySlices: p.File.Emit.EmptySlices}
	defer func() { // also after a t.Fatal
		for _, name := range slices.Sorted(maps.Keys(env.failures)) {
			if n := env.failures[name]; n > maxReports {
				t.Errorf("%s: %d more failures not shown (%d in all)", name, n-maxReports, n)
			}
		}
	}()
	for _, f := range p.Files {
		for _, pl := range f.Plans {
			env.plans[pl.Name] = pl
		}
	}

	// Every query of the case is called at least once.
	called := map[string]bool{}
	for _, call := range append(slices.Clone(spec.Seed), spec.Calls...) {
		require.Contains(t, env.plans, call.Query, "diff.json calls unknown query %q", call.Query)
		called[call.Query] = true
	}
	for name := range env.plans {
		require.True(t, called[name], "diff.json of %s never calls %s", c.Name, name)
	}

	// parseTime as the runtime's data sources have it: DATE and DATETIME
	// values read as time.Time on both sides (text would print a DATE
	// without its 00:00:00).
	env.ref = testdb.OpenWith(t, testdb.Reference, map[string]string{"parseTime": "true"})
	cfg, err := shardrt.LoadConfig(p.File.Rules)
	require.NoError(t, err)
	for k, v := range props {
		if cfg.Props == nil {
			cfg.Props = shardrt.Props{}
		}
		cfg.Props[k] = v
	}
	env.rt, err = shardrt.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.rt.Close() })
	if err := env.rt.Ping(ctx); err != nil {
		t.Fatalf("MariaDB is unreachable: %v; run `make db-up`", err)
	}
	q, err := newQ(env.rt)
	require.NoError(t, err)
	env.queries = reflect.ValueOf(q)

	env.tables = layouts(t, p)
	env.createTables()
	if leg != nil {
		leg.start(env)
	}

	for _, call := range spec.Seed {
		env.run(call, false)
	}
	env.compareTables("after the seed")
	for _, call := range spec.Calls {
		env.run(call, true)
	}
	env.compareTables("at the end")
	if leg != nil {
		leg.finish()
	}
	t.Logf("%s: %d calls, %d result rows compared, %d table comparisons over %d tables", c.Name, env.calls, env.rows, env.compares, len(env.tables))
}

// ---- table layout and creation ----

// tableLayout is where one logic table lives.
type tableLayout struct {
	logic     string
	ddl       string // CREATE TABLE of the logic table
	nameAt    []int  // byte span of the table name in ddl
	nodes     []shardrt.DataNode
	broadcast bool                   // every node holds the whole table
	sharding  *shardrt.ShardingTable // nil unless sharded
	columns   []shardingColumn       // sharding columns (sharded tables)
	// every lists every column, INVISIBLE ones included (`SELECT *` skips
	// them), for reading and copying whole rows; set by createTables.
	every string
}

// shardingColumn is one sharding column and the Java kind of its values.
type shardingColumn struct {
	name string
	kind shardrt.ValueKind
}

var createTableRE = regexp.MustCompile("(?is)^\\s*CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?`?([A-Za-z0-9_]+)`?")

// ddlStatements splits the case's DDL files into CREATE TABLE statements by
// lower-case logic table name. Lines starting with -- are comments; the
// statements hold no ';' inside strings.
func ddlStatements(t *testing.T, files []string) map[string]*tableLayout {
	out := map[string]*tableLayout{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		for _, stmt := range strings.Split(strings.Join(lines, "\n"), ";") {
			stmt = strings.TrimSpace(stmt)
			if stmt == "" {
				continue
			}
			m := createTableRE.FindStringSubmatchIndex(stmt)
			require.NotNil(t, m, "%s: not a CREATE TABLE: %s", f, stmt)
			name := strings.ToLower(stmt[m[2]:m[3]])
			out[name] = &tableLayout{logic: name, ddl: stmt, nameAt: m[2:4]}
		}
	}
	return out
}

// create returns the DDL for table name.
func (l *tableLayout) create(name string) string {
	return l.ddl[:l.nameAt[0]] + name + l.ddl[l.nameAt[1]:]
}

// layouts places every logic table of the DDL on its data nodes from the
// loaded rules: sharded tables on their actualDataNodes, broadcast tables
// on every logic data source, single tables (and tables in no rule) on
// theirs.
func layouts(t *testing.T, p *pipeline.Project) []*tableLayout {
	byName := ddlStatements(t, p.File.DDL)
	cfg := p.Config
	kinds := paramKinds(p)
	if cfg.Sharding != nil {
		for _, r := range cfg.Sharding.Tables {
			l := byName[strings.ToLower(r.LogicTable)]
			require.NotNil(t, l, "sharded table %s has no CREATE TABLE", r.LogicTable)
			for _, n := range r.DataNodes {
				l.nodes = append(l.nodes, shardrt.DataNode{DataSource: n.DataSource, Table: n.Table})
			}
			var db, tb shardrt.StrategyConfig
			for _, side := range []struct {
				s   *schema.Strategy
				dst *shardrt.StrategyConfig
			}{{r.DatabaseStrategy, &db}, {r.TableStrategy, &tb}} {
				if side.s == nil || side.s.Kind == schema.StrategyNone {
					continue
				}
				require.Contains(t, []schema.StrategyKind{schema.StrategyStandard, schema.StrategyComplex}, side.s.Kind, "table %s: the placement check reads standard and complex strategies only", r.LogicTable)
				*side.dst = shardrt.StrategyConfig{Kind: shardrt.StandardStrategy, Columns: side.s.Columns, Algorithm: side.s.Algorithm.Sharding}
				if side.s.Kind == schema.StrategyComplex {
					side.dst.Kind = shardrt.ComplexStrategy
				}
				for _, col := range side.s.Columns {
					if slices.ContainsFunc(l.columns, func(c shardingColumn) bool { return strings.EqualFold(c.name, col) }) {
						continue // both strategies shard on it
					}
					k, ok := kinds[strings.ToLower(r.LogicTable+"."+col)]
					require.True(t, ok, "table %s: no query binds a parameter to sharding column %s, so its value kind is unknown", r.LogicTable, col)
					l.columns = append(l.columns, shardingColumn{name: col, kind: k})
				}
			}
			st, err := shardrt.NewShardingTable(l.nodes, db, tb)
			require.NoError(t, err)
			l.sharding = st
		}
	}
	if cfg.Broadcast != nil {
		for _, name := range cfg.Broadcast.Tables {
			l := byName[strings.ToLower(name)]
			require.NotNil(t, l, "broadcast table %s has no CREATE TABLE", name)
			l.broadcast = true
			for _, ds := range cfg.LogicDataSources {
				l.nodes = append(l.nodes, shardrt.DataNode{DataSource: ds, Table: name})
			}
		}
	}
	if cfg.Single != nil {
		for _, s := range cfg.Single.Tables {
			ds, name, ok := strings.Cut(s, ".")
			require.True(t, ok && ds != "*" && name != "*", "single table %q: name the data source and the table", s)
			l := byName[strings.ToLower(name)]
			require.NotNil(t, l, "single table %s has no CREATE TABLE", name)
			l.nodes = append(l.nodes, shardrt.DataNode{DataSource: ds, Table: name})
		}
	}
	var out []*tableLayout
	for _, l := range byName {
		if ds, _ := cfg.SingleDataSource(l.logic); len(l.nodes) == 0 && ds != "" {
			l.nodes = append(l.nodes, shardrt.DataNode{DataSource: ds, Table: l.logic}) // in no rule
		}
		require.NotEmpty(t, l.nodes, "table %s is in no rule", l.logic)
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b *tableLayout) int { return strings.Compare(a.logic, b.logic) })
	return out
}

// paramKinds returns the Java kind of the values the plans bind to each
// column ("table.column", lower case).
func paramKinds(p *pipeline.Project) map[string]shardrt.ValueKind {
	out := map[string]shardrt.ValueKind{}
	for _, f := range p.Files {
		for _, pl := range f.Plans {
			for _, prm := range pl.Params {
				if prm.Column != "" && prm.Type.Kind != shardrt.KindNull {
					out[strings.ToLower(prm.Column)] = prm.Type.Kind
				}
			}
		}
	}
	return out
}

// pool returns the pool of a data source; a read/write-splitting group's
// is its write data source's.
func (e *diffEnv) pool(ds string) *sql.DB {
	if write, _, ok := e.rt.ReadWriteGroup(ds); ok {
		ds = write
	}
	p, ok := e.rt.Pool(ds)
	require.True(e.t, ok, "no data source %q", ds)
	return p
}

// createTables drops and creates every actual table and every logic table
// of the reference database.
func (e *diffEnv) createTables() {
	for _, l := range e.tables {
		for _, n := range l.nodes {
			e.exec(e.pool(n.DataSource), n.DataSource, "DROP TABLE IF EXISTS "+n.Table)
			e.exec(e.pool(n.DataSource), n.DataSource, l.create(n.Table))
		}
		e.exec(e.ref, testdb.Reference, "DROP TABLE IF EXISTS "+l.logic)
		e.exec(e.ref, testdb.Reference, l.create(l.logic))
		var cols []string
		for _, r := range e.refRows("SELECT CONCAT('`', COLUMN_NAME, '`') FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", l.logic) {
			cols = append(cols, *r[0])
		}
		l.every = strings.Join(cols, ", ")
	}
}

func (e *diffEnv) exec(db *sql.DB, where, stmt string) {
	_, err := db.ExecContext(e.ctx, stmt)
	require.NoError(e.t, err, "%s: %s", where, stmt)
}

// ---- calls ----

var repeatRE = regexp.MustCompile(`\{i((?:[%*+-]\d+)*)\}`)

var repeatOpRE = regexp.MustCompile(`([%*+-])(\d+)`)

// substitute replaces the {i...} forms of s for iteration i: "{i}", or i
// followed by operations applied left to right, e.g. "{i+1%6}" is
// (i+1)%6.
func substitute(s string, i int) string {
	return repeatRE.ReplaceAllStringFunc(s, func(m string) string {
		v := i
		for _, op := range repeatOpRE.FindAllStringSubmatch(m, -1) {
			n, _ := strconv.Atoi(op[2])
			switch op[1] {
			case "%":
				v %= n
			case "*":
				v *= n
			case "+":
				v += n
			case "-":
				v -= n
			}
		}
		return strconv.Itoa(v)
	})
}

// substituteArg is substitute on a string argument and on every string of a
// list argument (a sqlc.slice).
func substituteArg(a any, i int) any {
	switch a := a.(type) {
	case string:
		return substitute(a, i)
	case []any:
		out := make([]any, len(a))
		for k, x := range a {
			out[k] = substituteArg(x, i)
		}
		return out
	}
	return a
}

// run makes one diff.json entry (Repeat times). compare adds a table
// comparison after every write.
func (e *diffEnv) run(c diffCall, compare bool) {
	n := max(c.Repeat, 1)
	for i := 0; i < n; i++ {
		args := make([]any, len(c.Args))
		for k, a := range c.Args {
			if c.Repeat > 0 {
				a = substituteArg(a, i)
			}
			args[k] = a
		}
		save := c.Save
		if c.Repeat > 0 {
			save = substitute(save, i)
		}
		e.call(c.Query, args, save, c.Error)
		if compare && e.plans[c.Query].Statement != plan.StmtSelect {
			e.compareTables(fmt.Sprintf("after %s%s", c.Query, argText(args)))
		}
	}
}

// call runs one query through the generated method and on the reference.
func (e *diffEnv) call(name string, jsonArgs []any, save, wantErr string) {
	t := e.t
	pl := e.plans[name]
	m := e.queries.MethodByName(name)
	require.True(t, m.IsValid(), "the generated package has no method %s", name)
	mt := m.Type()

	// The caller-visible parameters, in Plan.Params order.
	var visible []int
	for i, prm := range pl.Params {
		if !prm.Generated {
			visible = append(visible, i)
		}
	}
	repro := name + argText(jsonArgs)
	e.calls++
	if pl.Cmd != schema.CmdCopyFrom {
		require.Len(t, jsonArgs, len(visible), "%s: %d arguments for %d parameters", repro, len(jsonArgs), len(visible))
	}

	// Go values of every Plan.Param (generated keys filled in later).
	values := make([]reflect.Value, len(pl.Params))
	in := []reflect.Value{reflect.ValueOf(e.ctx)}
	if pl.Cmd == schema.CmdCopyFrom {
		// One argument, the rows: each a list of the visible parameters'
		// values; values[pi] then lists parameter pi of every row.
		require.Len(t, jsonArgs, 1, "%s: a :copyfrom call takes one list of rows", repro)
		list, ok := jsonArgs[0].([]any)
		require.True(t, ok, "%s: a :copyfrom call takes one list of rows", repro)
		require.Equal(t, 2, mt.NumIn(), "%s: a :copyfrom method takes one slice", repro)
		st := mt.In(1)
		rows := reflect.MakeSlice(st, len(list), len(list))
		for k, pi := range visible {
			values[pi] = reflect.MakeSlice(reflect.SliceOf(st.Elem().Field(k).Type), len(list), len(list))
		}
		for r, x := range list {
			row, ok := x.([]any)
			require.True(t, ok && len(row) == len(visible), "%s: row %d must list %d values", repro, r+1, len(visible))
			for k, pi := range visible {
				v, err := e.convert(row[k], st.Elem().Field(k).Type)
				require.NoError(t, err, "%s: row %d, value %d", repro, r+1, k+1)
				rows.Index(r).Field(k).Set(v)
				values[pi].Index(r).Set(v)
			}
		}
		in = append(in, rows)
		if e.leg != nil {
			e.leg.before(pl)
		}
		out := m.Call(in)
		if wantErr != "" {
			callErr, _ := out[len(out)-1].Interface().(error)
			require.Error(t, callErr, "%s: want error %q", repro, wantErr)
			require.EqualError(t, callErr, wantErr, "%s", repro)
		} else {
			e.compareWrite(pl, repro, out, values, save)
		}
		if e.leg != nil {
			e.leg.after(pl, repro, out, values, wantErr)
		}
		return
	}
	structArg := mt.NumIn() == 2 && len(visible) > 1 && mt.In(1).Kind() == reflect.Struct && strings.HasSuffix(mt.In(1).Name(), "Params")
	var params reflect.Value
	if structArg {
		params = reflect.New(mt.In(1)).Elem()
		require.Equal(t, len(visible), params.NumField(), "%s: %s has %d fields for %d parameters", repro, mt.In(1), params.NumField(), len(visible))
	} else {
		require.Equal(t, len(visible)+1, mt.NumIn(), "%s: method has %d parameters, the plan %d", repro, mt.NumIn()-1, len(visible))
	}
	for k, pi := range visible {
		var typ reflect.Type
		if structArg {
			typ = params.Field(k).Type()
		} else {
			typ = mt.In(k + 1)
		}
		want := pl.Params[pi].Type.String()
		if e.pointers {
			want = pointerName(want)
		}
		if pl.Params[pi].Slice {
			want = "[]" + want
		}
		require.Equal(t, want, goTypeName(typ), "%s: parameter %s", repro, pl.Params[pi].Name)
		v, err := e.convert(jsonArgs[k], typ)
		require.NoError(t, err, "%s: argument %d (%s)", repro, k+1, pl.Params[pi].Name)
		values[pi] = v
		if structArg {
			params.Field(k).Set(v)
		} else {
			in = append(in, v)
		}
	}
	if structArg {
		in = append(in, params)
	}

	if e.leg != nil {
		e.leg.before(pl)
	}
	out := m.Call(in)
	callErr, _ := out[len(out)-1].Interface().(error)
	switch {
	case wantErr != "":
		require.Error(t, callErr, "%s: want error %q", repro, wantErr)
		require.EqualError(t, callErr, wantErr, "%s", repro)
	case pl.Statement == plan.StmtSelect:
		e.compareRead(pl, repro, out, values)
	default:
		e.compareWrite(pl, repro, out, values, save)
	}
	if e.leg != nil {
		e.leg.after(pl, repro, out, values, wantErr)
	}
}

// copyFromStatement is the reference statement of a :copyfrom call: its
// INSERT with the VALUES row repeated once per row (values[pi] lists
// parameter pi of every row); "" for no rows.
func copyFromStatement(pl *plan.Plan, values []reflect.Value) (string, []any) {
	n := 0
	for _, v := range values {
		if v.IsValid() {
			n = v.Len()
		}
	}
	if n == 0 {
		return "", nil
	}
	sql := pl.LogicSQL
	start := strings.Index(sql, "(") // the column list, then the row
	if i := strings.Index(strings.ToUpper(sql), " VALUES"); i >= 0 {
		start = i + strings.Index(sql[i:], "(")
	}
	end, depth := start, 0
	for ; end < len(sql); end++ {
		if sql[end] == '(' {
			depth++
		} else if sql[end] == ')' {
			if depth--; depth == 0 {
				break
			}
		}
	}
	row := sql[start : end+1]
	var args []any
	for r := range n {
		for _, pi := range pl.Args {
			args = append(args, values[pi].Index(r).Interface())
		}
	}
	return sql[:start] + strings.Repeat(row+", ", n-1) + row + sql[end+1:], args
}

// refStatement returns the reference statement, Plan.LogicSQL, and its
// arguments: the value of Plan.Params[Args[i]] for each `?`. A sqlc.slice
// parameter's `?` becomes one `?` per value, or NULL for an empty slice, as
// sqlc expands it.
func refStatement(pl *plan.Plan, values []reflect.Value) (string, []any) {
	if pl.Cmd == schema.CmdCopyFrom {
		return copyFromStatement(pl, values)
	}
	sql := pl.LogicSQL
	var args []any
	for i, pi := range pl.Args {
		v := values[pi]
		if !pl.Params[pi].Slice {
			args = append(args, refArg(v.Interface()))
			continue
		}
		at := plan.PlaceholderOffset(pl.LogicSQL, i)
		list := "NULL"
		if v.Len() > 0 {
			list = "?" + strings.Repeat(", ?", v.Len()-1)
		}
		sql = pl.LogicSQL[:at] + list + pl.LogicSQL[at+1:]
		for k := 0; k < v.Len(); k++ {
			args = append(args, v.Index(k).Interface())
		}
	}
	return sql, args
}

// refArg is a for the reference database and the proxy's clients, as the
// runtime passes it (driverArgs): a sql.Null[uint64] as its value or nil,
// which database/sql takes past 2^63-1 and the Null itself not.
func refArg(a any) any {
	if n, ok := a.(sql.Null[uint64]); ok {
		if !n.Valid {
			return nil
		}
		return n.V
	}
	return a
}

func (e *diffEnv) compareRead(pl *plan.Plan, repro string, out []reflect.Value, values []reflect.Value) {
	t := e.t
	callErr, _ := out[1].Interface().(error)
	var got [][]*string
	if callErr != nil && !(pl.Cmd == schema.CmdOne && errors.Is(callErr, sql.ErrNoRows)) {
		e.callFailed(pl, repro, callErr)
		return
	}
	switch pl.Cmd {
	case schema.CmdOne:
		if callErr == nil {
			got = append(got, rowText(out[0]))
		}
	case schema.CmdMany:
		for i := 0; i < out[0].Len(); i++ {
			got = append(got, rowText(out[0].Index(i)))
		}
		if out[0].Len() == 0 && out[0].IsNil() == e.emptySlices {
			e.fail(pl.Name, "%s: no row returns a nil slice %v, want %v (emit_empty_slices: %v)", repro, out[0].IsNil(), !e.emptySlices, e.emptySlices)
		}
	default:
		t.Fatalf("%s: a SELECT with %s", repro, pl.Cmd)
	}
	refSQL, args := refStatement(pl, values)
	want := e.refRows(refSQL, args...)
	e.rows += len(want)

	// ORDER BY keys in the cases are unique, so the order is defined: a
	// single node must keep it and several nodes must be merged into it.
	ordered := strings.Contains(strings.ToUpper(pl.LogicSQL), "ORDER BY")
	switch {
	case pl.Cmd == schema.CmdOne && len(want) > 1:
		// :one takes the first row; without ORDER BY any row is right.
		if len(got) == 1 && slices.ContainsFunc(want, func(r []*string) bool { return rowsEqual(r, got[0]) }) {
			return
		}
	case ordered:
		if tableEqual(got, want) {
			return
		}
	default:
		if tableEqual(sortedRows(got), sortedRows(want)) {
			return
		}
	}
	how := "as multisets"
	if ordered {
		how = "in order"
	}
	e.fail(pl.Name, "%s: rows differ (%s)\n  logic SQL: %s\n  route:     %s\n  sharded:   %s\n  reference: %s", repro, how, oneLine(pl.LogicSQL), pl.Route.Kind, tableText(got), tableText(want))
}

func (e *diffEnv) compareWrite(pl *plan.Plan, repro string, out []reflect.Value, values []reflect.Value, save string) {
	t := e.t
	callErr, _ := out[len(out)-1].Interface().(error)
	if callErr != nil {
		e.callFailed(pl, repro, callErr) // the reference is left alone, so the tables still agree
		return
	}
	if kg := pl.KeyGenerate; kg != nil {
		require.Equal(t, schema.CmdExecResult, pl.Cmd, "%s: an INSERT with a generated key must be :execresult here, so the test learns the key", repro)
		res := out[0].Interface().(sql.Result)
		id, err := res.LastInsertId()
		require.NoError(t, err)
		values[kg.Param] = reflect.ValueOf(id)
		if len(kg.Params) > 1 {
			keys := e.newKeys(pl, repro)
			require.Len(t, keys, len(kg.Params), "%s: the multi-row INSERT wrote %d rows with new keys, want %d", repro, len(keys), len(kg.Params))
			require.Equal(t, id, keys[0], "%s: LastInsertId must be the first row's generated key", repro)
			for r, pi := range kg.Params {
				values[pi] = reflect.ValueOf(keys[r])
			}
		}
		if save != "" {
			e.keys[save] = id
		}
	} else {
		require.Empty(t, save, "%s: save needs a generated key", repro)
	}
	refSQL, args := refStatement(pl, values)
	var want int64
	if refSQL != "" { // "": a :copyfrom of no rows
		res, err := e.ref.ExecContext(e.ctx, refSQL, args...)
		require.NoError(t, err, "%s on the reference: %s", repro, refSQL)
		want, err = res.RowsAffected()
		require.NoError(t, err)
	}
	e.refAffected = want
	var got int64
	switch pl.Cmd {
	case schema.CmdExec:
		return
	case schema.CmdExecRows, schema.CmdCopyFrom:
		got = out[0].Int()
	case schema.CmdExecResult:
		var err error
		got, err = out[0].Interface().(sql.Result).RowsAffected()
		require.NoError(t, err)
	default:
		t.Fatalf("%s: a write with %s", repro, pl.Cmd)
	}
	if got != want {
		e.fail(pl.Name, "%s: affected rows differ\n  logic SQL: %s\n  route:     %s\n  sharded:   %d\n  reference: %d", repro, oneLine(pl.LogicSQL), pl.Route.Kind, got, want)
	}
}

// newKeys returns the generated keys a multi-row INSERT of pl just wrote,
// in row order: the key column values on the sharded table's data nodes
// that the reference table does not hold yet, ascending (SNOWFLAKE keys
// grow in the order they are generated, and the generated function
// generates them in row order). The call's LastInsertId is only the first.
func (e *diffEnv) newKeys(pl *plan.Plan, repro string) []int64 {
	t := e.t
	kg := pl.KeyGenerate
	require.Equal(t, "SNOWFLAKE", strings.ToUpper(kg.Type), "%s: the test learns the keys of a multi-row INSERT only for SNOWFLAKE keys", repro)
	col := strings.TrimPrefix(strings.ToLower(kg.Column), strings.ToLower(pl.Route.LogicTable)+".")
	idx := slices.IndexFunc(e.tables, func(l *tableLayout) bool { return strings.EqualFold(l.logic, pl.Route.LogicTable) })
	require.GreaterOrEqual(t, idx, 0, "%s: no layout of table %s", repro, pl.Route.LogicTable)
	l := e.tables[idx]
	old := map[string]bool{}
	for _, r := range e.refRows("SELECT " + col + " FROM " + l.logic) {
		old[*r[0]] = true
	}
	var keys []int64
	for _, n := range l.nodes {
		for _, r := range queryText(t, e.ctx, e.pool(n.DataSource), "SELECT "+col+" FROM "+n.Table) {
			if old[*r[0]] {
				continue
			}
			k, err := strconv.ParseInt(*r[0], 10, 64)
			require.NoError(t, err, "%s: key %s", repro, *r[0])
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// callFailed reports an unexpected error of a generated function. The test
// goes on: a failed write changed nothing on either side.
func (e *diffEnv) callFailed(pl *plan.Plan, repro string, err error) {
	e.fail(pl.Name, "%s: unexpected error: %v\n  logic SQL: %s\n  route:     %s", repro, err, oneLine(pl.LogicSQL), pl.Route.Kind)
}

// convert turns one JSON argument into a value of typ.
func (e *diffEnv) convert(a any, typ reflect.Type) (reflect.Value, error) {
	if s, ok := a.(string); ok && strings.HasPrefix(s, "$") {
		k, ok := e.keys[s[1:]]
		if !ok {
			return reflect.Value{}, fmt.Errorf("no saved key %q", s[1:])
		}
		a = json.Number(strconv.FormatInt(k, 10))
	}
	v := reflect.New(typ).Elem()
	if typ == reflect.TypeOf(time.Time{}) {
		s, ok := a.(string)
		if !ok {
			return v, fmt.Errorf("want a DATETIME string for %s, got %v", typ, a)
		}
		tm, err := time.ParseInLocation("2006-01-02 15:04:05", s, time.UTC)
		if err != nil {
			return v, err
		}
		v.Set(reflect.ValueOf(tm))
		return v, nil
	}
	if valid, inner, ok := nullParts(v); ok { // sql.NullString, sql.NullInt64, ...
		if a == nil {
			return v, nil
		}
		iv, err := e.convert(a, inner.Type())
		if err != nil {
			return v, err
		}
		inner.Set(iv)
		valid.SetBool(true)
		return v, nil
	}
	if typ.Kind() == reflect.Pointer { // emit_pointers_for_null_types
		if a == nil {
			return v, nil
		}
		ev, err := e.convert(a, typ.Elem())
		if err != nil {
			return v, err
		}
		v.Set(reflect.New(typ.Elem()))
		v.Elem().Set(ev)
		return v, nil
	}
	if list, ok := a.([]any); ok { // a sqlc.slice parameter
		if typ.Kind() != reflect.Slice {
			return v, fmt.Errorf("a list for %s", typ)
		}
		v = reflect.MakeSlice(typ, len(list), len(list))
		for i, x := range list {
			ev, err := e.convert(x, typ.Elem())
			if err != nil {
				return v, err
			}
			v.Index(i).Set(ev)
		}
		return v, nil
	}
	if a == nil && typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.Uint8 {
		return v, nil // a nil []byte is NULL
	}
	if a == nil {
		return v, fmt.Errorf("null for non-nullable %s", typ)
	}
	text := fmt.Sprint(a)
	switch typ.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, typ.Bits())
		if err != nil {
			return v, err
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(text, 10, typ.Bits())
		if err != nil {
			return v, err
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, typ.Bits())
		if err != nil {
			return v, err
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return v, err
		}
		v.SetBool(b)
	case reflect.Slice:
		if typ.Elem().Kind() != reflect.Uint8 {
			return v, fmt.Errorf("unsupported parameter type %s", typ)
		}
		v.SetBytes([]byte(text))
	default:
		return v, fmt.Errorf("unsupported parameter type %s", typ)
	}
	return v, nil
}

// nullParts returns the Valid field and the value field of a sql.Null*
// struct (or any struct of two fields, one of them `Valid bool`).
func nullParts(v reflect.Value) (valid, inner reflect.Value, ok bool) {
	if v.Kind() != reflect.Struct || v.NumField() != 2 {
		return valid, inner, false
	}
	typ := v.Type()
	for i := 0; i < 2; i++ {
		if typ.Field(i).Name == "Valid" && typ.Field(i).Type.Kind() == reflect.Bool {
			return v.Field(i), v.Field(1 - i), true
		}
	}
	return valid, inner, false
}

// pointerName is the *T that emit_pointers_for_null_types gives for a
// database/sql null type: sql.NullString → *string, sql.Null[int8] → *int8.
func pointerName(t string) string {
	if x, ok := strings.CutPrefix(t, "sql.Null["); ok {
		return "*" + strings.TrimSuffix(x, "]")
	}
	switch x, _ := strings.CutPrefix(t, "sql.Null"); x {
	case t:
		return t
	case "Time":
		return "*time.Time"
	case "Byte":
		return "*byte"
	default:
		return "*" + strings.ToLower(x)
	}
}

// goTypeName spells typ as plan.GoType.String does.
func goTypeName(typ reflect.Type) string {
	if typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.Uint8 && typ.Elem().PkgPath() == "" {
		return "[]byte"
	}
	return typ.String()
}

// ---- rows as MySQL prints them ----

// valueText formats one scanned value as the mysql client prints it: nil
// for NULL, DATETIME as "2026-11-01 12:00:00", integers in decimal, strings
// (DECIMAL included) as they are.
func valueText(v reflect.Value) *string {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	var s string
	switch {
	case v.Type() == reflect.TypeOf(time.Time{}):
		tm := v.Interface().(time.Time)
		s = tm.Format("2006-01-02 15:04:05")
		if ns := tm.Nanosecond(); ns != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%09d", ns), "0")
		}
		return &s
	}
	if valid, inner, ok := nullParts(v); ok {
		if !valid.Bool() {
			return nil
		}
		return valueText(inner)
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s = strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s = strconv.FormatUint(v.Uint(), 10)
	case reflect.String:
		s = v.String()
	case reflect.Bool:
		s = map[bool]string{false: "0", true: "1"}[v.Bool()]
	case reflect.Float32, reflect.Float64:
		s = strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				return nil
			}
			s = string(v.Bytes())
			break
		}
		fallthrough
	default:
		s = fmt.Sprintf("<%s %v>", v.Type(), v.Interface())
	}
	return &s
}

// rowText formats a generated row: the fields of its struct, or the value
// itself for a scalar row.
func rowText(v reflect.Value) []*string {
	if v.Kind() == reflect.Struct && v.Type() != reflect.TypeOf(time.Time{}) {
		if _, _, null := nullParts(v); !null {
			var row []*string
			for i := range v.NumField() {
				if f := v.Field(i); v.Type().Field(i).Type.Name() != "" && f.Kind() == reflect.Struct && v.Type().Field(i).Name == f.Type().Name() {
					row = append(row, rowText(f)...) // a model of sqlc.embed(t)
					continue
				}
				row = append(row, valueText(v.Field(i)))
			}
			return row
		}
	}
	return []*string{valueText(v)}
}

// refRows runs query on the reference database and returns its rows as
// text.
func (e *diffEnv) refRows(query string, args ...any) [][]*string {
	return queryText(e.t, e.ctx, e.ref, query, args...)
}

func queryText(t *testing.T, ctx context.Context, db *sql.DB, query string, args ...any) [][]*string {
	rows, err := db.QueryContext(ctx, query, args...)
	require.NoError(t, err, "%s", query)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var out [][]*string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		row := make([]*string, len(cols))
		for i, v := range vals {
			row[i] = valueText(reflect.ValueOf(&v).Elem())
		}
		out = append(out, row)
	}
	require.NoError(t, rows.Err())
	return out
}

func rowsEqual(a, b []*string) bool {
	return slices.EqualFunc(a, b, func(x, y *string) bool {
		return (x == nil) == (y == nil) && (x == nil || *x == *y)
	})
}

func tableEqual(a, b [][]*string) bool { return slices.EqualFunc(a, b, rowsEqual) }

func rowKey(r []*string) string {
	var b strings.Builder
	for _, v := range r {
		if v == nil {
			b.WriteString("\x00N")
		} else {
			b.WriteString("\x00S" + *v)
		}
	}
	return b.String()
}

func sortedRows(rows [][]*string) [][]*string {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b []*string) int { return strings.Compare(rowKey(a), rowKey(b)) })
	return out
}

func rowString(r []*string) string {
	parts := make([]string, len(r))
	for i, v := range r {
		if v == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = strconv.Quote(*v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// tableText prints rows for a failure message, at most 20.
func tableText(rows [][]*string) string {
	if len(rows) == 0 {
		return "no rows"
	}
	parts := []string{fmt.Sprintf("%d rows:", len(rows))}
	for i, r := range rows {
		if i == 20 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, rowString(r))
	}
	return strings.Join(parts, " ")
}

func argText(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case nil:
			parts[i] = "NULL"
		case string:
			parts[i] = strconv.Quote(a)
		default:
			parts[i] = fmt.Sprint(a)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ---- table contents ----

// compareTables compares the contents of every logic table (every column,
// INVISIBLE ones included) with the reference database: sharded and single
// tables as the union of their actual tables, broadcast tables copy by
// copy. It also checks that each
// row of a sharded table sits on the data node its sharding values route
// to with the bound algorithms.
func (e *diffEnv) compareTables(when string) {
	t := e.t
	e.compares++
	for _, l := range e.tables {
		want := sortedRows(e.refRows("SELECT " + l.every + " FROM " + l.logic))
		var union [][]*string
		for i, n := range l.nodes {
			rows := queryText(t, e.ctx, e.pool(n.DataSource), "SELECT "+l.every+" FROM "+n.Table)
			if l.broadcast {
				if got := sortedRows(rows); !tableEqual(got, want) {
					t.Fatalf("%s: broadcast table %s on %s differs from the reference\n%s", when, l.logic, n, rowDiff(got, want))
				}
				continue
			}
			union = append(union, rows...)
			if l.sharding != nil && len(l.columns) > 0 { // no column: one data node
				e.checkPlacement(when, l, i)
			}
		}
		if l.broadcast {
			continue
		}
		if got := sortedRows(union); !tableEqual(got, want) {
			t.Fatalf("%s: table %s (union of %d data nodes) differs from the reference\n%s", when, l.logic, len(l.nodes), rowDiff(got, want))
		}
	}
}

// checkPlacement requires every row of data node i of l to route to i.
func (e *diffEnv) checkPlacement(when string, l *tableLayout, i int) {
	t := e.t
	n := l.nodes[i]
	cols := make([]string, len(l.columns))
	for k, c := range l.columns {
		cols[k] = c.name
	}
	rows := queryText(t, e.ctx, e.pool(n.DataSource), "SELECT "+strings.Join(cols, ", ")+" FROM "+n.Table)
	for _, r := range rows {
		conds := make([]shardrt.ShardingValues, len(l.columns))
		for k, c := range l.columns {
			v, err := shardingValue(c.kind, r[k])
			require.NoError(t, err, "%s: %s.%s", n, l.logic, c.name)
			conds[k] = shardrt.ShardingValues{Column: c.name, Values: []shardrt.Value{v}}
		}
		nodes, err := l.sharding.RouteAll([][]shardrt.ShardingValues{conds}, shardrt.HintValues{})
		if err != nil || len(nodes) != 1 || nodes[0] != i {
			var where []string
			for _, x := range nodes {
				where = append(where, l.nodes[x].String())
			}
			t.Fatalf("%s: row %s %s is on %s, but the sharding algorithms route it to %v (err %v)", when, strings.Join(cols, ","), rowString(r), n, where, err)
		}
	}
}

// shardingValue converts a column's text to the value ShardingSphere
// receives for it.
func shardingValue(kind shardrt.ValueKind, s *string) (shardrt.Value, error) {
	if s == nil {
		return shardrt.Null, nil
	}
	switch kind {
	case shardrt.KindLong, shardrt.KindInt:
		n, err := strconv.ParseInt(*s, 10, 64)
		if err != nil {
			return shardrt.BigInteger(*s), nil // BIGINT UNSIGNED beyond int64
		}
		if kind == shardrt.KindInt {
			return shardrt.Int(int32(n)), nil
		}
		return shardrt.Long(n), nil
	case shardrt.KindBigInteger:
		return shardrt.BigInteger(*s), nil
	case shardrt.KindDecimal:
		return shardrt.Decimal(*s), nil
	case shardrt.KindString:
		return shardrt.String(*s), nil
	case shardrt.KindTime:
		tm, err := time.ParseInLocation("2006-01-02 15:04:05", *s, time.UTC)
		return shardrt.Time(tm), err
	}
	return shardrt.Value{}, fmt.Errorf("unsupported sharding value kind %s", kind)
}

// rowDiff lists the rows only one side has (at most 10 each).
func rowDiff(got, want [][]*string) string {
	count := map[string]int{}
	for _, r := range want {
		count[rowKey(r)]++
	}
	var extra, missing []string
	for _, r := range got {
		if count[rowKey(r)] > 0 {
			count[rowKey(r)]--
			continue
		}
		if len(extra) < 10 {
			extra = append(extra, rowString(r))
		}
	}
	count = map[string]int{}
	for _, r := range got {
		count[rowKey(r)]++
	}
	for _, r := range want {
		if count[rowKey(r)] > 0 {
			count[rowKey(r)]--
			continue
		}
		if len(missing) < 10 {
			missing = append(missing, rowString(r))
		}
	}
	return fmt.Sprintf("  sharded only:   %s\n  reference only: %s\n  (sharded %d rows, reference %d rows)", strings.Join(extra, " "), strings.Join(missing, " "), len(got), len(want))
}
