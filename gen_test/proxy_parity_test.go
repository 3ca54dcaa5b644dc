package gen_test_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/proxy"
	shardrt "github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// TestProxyParity is the differential test's third leg (issue 7): every
// call of every golden case's diff.json, seed and calls alike, also runs as
// its Plan.LogicSQL with the same arguments through an in-process shardgen
// proxy serving the case's rules.yaml over the same data sources, with
// go-sql-driver over the text protocol (interpolateParams=true) and the
// binary protocol (server-side prepared statements). The proxy must give
// what the generated function gave: the same rows (in order when the query
// has ORDER BY, as a multiset otherwise, the first row of a :one as TestDiff
// takes it), the same affected-row count (for :exec, which returns none,
// the reference's), the same error for a call that must fail, and the same
// rows on the same data nodes after a write. Every query of every case must
// run through the proxy at least once.
//
// It runs the whole of TestDiff (generated functions against the reference
// database) with a proxyLeg joined to every call, so the proxy sees exactly
// the state the generated function saw:
//
//   - a read runs through the proxy right after the generated call, on the
//     same data, and changes nothing;
//   - a write is never applied twice. Before the generated call, every
//     actual table of the logic table it writes is copied aside (<table>_ppre,
//     on the same data source). After the generated call (and TestDiff's
//     comparison with the reference), its result is copied aside too
//     (<table>_ppost); then, for each protocol, the actual tables are reset
//     to the _ppre copy, the proxy runs the write, and its result must equal
//     the generated call's data node by data node. Finally the _ppost copy
//     is restored, so TestDiff goes on from the generated call's state and
//     its own table comparisons stay exact;
//   - an INSERT with a generated key runs twice per protocol: once as
//     LogicSQL with the keys the generated function made (so the rows match
//     exactly), and once as written in the query file, the key column
//     omitted, so the proxy generates its own keys. Those rows must equal
//     the generated call's but for the key column, each on the data node
//     the sharding algorithms pick for it, and the insert id must be the
//     first row's new key.
//
// A write the proxy sends to another logic table than the one it names
// would survive the reset; TestDiff's next table comparison (after each
// call, and after the seed) reports it.
func TestProxyParity(t *testing.T) {
	for _, c := range goldenCases(t) {
		if c.failing() {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			runDiffCase(t, c, newProxyLeg(t, c))
		})
	}
}

// TestDiffJoinStrategies runs the steps case's calls (joins of tables
// sharded on different columns: INNER, LEFT, anti-joins, grouped, on
// latin1_swedish_ci and utf8mb4_unicode_ci text keys, NULL and duplicate
// keys) as TestDiff and TestProxyParity do, once with every join across
// data nodes forced to the nested loop and once to the hash join (props
// cross-node-join), in generated code and through the proxy.
func TestDiffJoinStrategies(t *testing.T) {
	var steps goldenCase
	for _, c := range goldenCases(t) {
		if c.Name == "steps" {
			steps = c
		}
	}
	require.Equal(t, "steps", steps.Name)
	for _, s := range []string{"nested-loop", "hash"} {
		t.Run(s, func(t *testing.T) {
			props := shardrt.Props{shardrt.PropCrossNodeJoin: s}
			runDiffCaseProps(t, steps, newProxyLegProps(t, steps, props), props)
		})
	}
}

// Suffixes of the copies the proxy leg keeps beside each actual table.
const (
	preSuffix  = "_ppre"  // before the generated write
	postSuffix = "_ppost" // after it
)

// proxyClient is one protocol's connection pool to the proxy: "text"
// sends every statement as COM_QUERY with the arguments interpolated by
// go-sql-driver (interpolateParams=true); "binary" prepares every
// statement (COM_STMT_PREPARE), even one without arguments, which
// go-sql-driver would otherwise send as COM_QUERY, and executes it
// (COM_STMT_EXECUTE, rows in the binary protocol).
type proxyClient struct {
	proto string
	db    *sql.DB
}

// query runs q with args and returns its rows as text (queryText).
func (c proxyClient) query(ctx context.Context, q string, args ...any) ([][]*string, error) {
	var rows *sql.Rows
	if c.proto == "binary" {
		st, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		if rows, err = st.QueryContext(ctx, args...); err != nil {
			return nil, err
		}
	} else {
		var err error
		if rows, err = c.db.QueryContext(ctx, q, args...); err != nil {
			return nil, err
		}
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]*string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			row[i] = valueText(reflect.ValueOf(&v).Elem())
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// exec runs the write q with args.
func (c proxyClient) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if c.proto == "binary" {
		st, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		return st.ExecContext(ctx, args...)
	}
	return c.db.ExecContext(ctx, q, args...)
}

// proxyLeg is the diffLeg of TestProxyParity (see there).
type proxyLeg struct {
	t       *testing.T
	e       *diffEnv
	clients []proxyClient
	// source is each query as its query file writes it (sqlc.arg and
	// sqlc.narg included), by name.
	source map[string]string
	// columns are the column names of each logic table, lower case, in DDL
	// order (SELECT *).
	columns map[string][]string
	// runs counts the calls of each query that ran through the proxy over
	// both protocols.
	runs map[string]int

	calls, rows, writes int // for the summary line
}

var _ diffLeg = (*proxyLeg)(nil)

// newProxyLeg starts a proxy serving case c's rules and DDL on a free local
// port and opens a text and a binary client to it; both close when t ends.
func newProxyLeg(t *testing.T, c goldenCase) *proxyLeg {
	return newProxyLegProps(t, c, nil)
}

// newProxyLegProps is newProxyLeg with the top-level props of the case's
// rules.yaml replaced by those of props.
func newProxyLegProps(t *testing.T, c goldenCase, props shardrt.Props) *proxyLeg {
	pf, err := schema.LoadProject(c.project())
	require.NoError(t, err)
	cfg, err := proxy.LoadConfig(pf.Rules, pf.DDL)
	require.NoError(t, err)
	for k, v := range props {
		if cfg.Rules.Props == nil {
			cfg.Rules.Props = shardrt.Props{}
		}
		cfg.Rules.Props[k] = v
	}
	l := &proxyLeg{t: t, source: map[string]string{}, columns: map[string][]string{}, runs: map[string]int{}}
	for _, f := range pf.Queries {
		qs, err := schema.ParseQueriesFile(f)
		require.NoError(t, err)
		for _, q := range qs {
			l.source[q.Name] = q.SQL
		}
	}
	srv, err := proxy.NewServer(cfg, proxy.Options{
		Listen: "127.0.0.1:0", Insecure: true, ShutdownTimeout: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	for _, proto := range []string{"text", "binary"} {
		mc := gomysql.NewConfig()
		mc.User, mc.Net, mc.Addr, mc.DBName = "root", "tcp", srv.Addr(), cfg.Rules.DatabaseName
		mc.InterpolateParams = proto == "text"
		mc.ParseTime = true // as the reference and the runtime's data sources: DATE values compare
		db, err := sql.Open("mysql", mc.FormatDSN())
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		l.clients = append(l.clients, proxyClient{proto: proto, db: db})
	}
	return l
}

// start creates the two copies of every actual table, and drops them when
// the test ends.
func (l *proxyLeg) start(e *diffEnv) {
	l.e = e
	for _, tl := range e.tables {
		for _, n := range tl.nodes {
			pool := e.pool(n.DataSource)
			for _, sfx := range []string{preSuffix, postSuffix} {
				e.exec(pool, n.DataSource, "DROP TABLE IF EXISTS "+n.Table+sfx)
				e.exec(pool, n.DataSource, "CREATE TABLE "+n.Table+sfx+" LIKE "+n.Table)
			}
		}
		cols, err := queryColumns(e.ctx, e.pool(tl.nodes[0].DataSource), "SELECT "+tl.every+" FROM "+tl.nodes[0].Table+" LIMIT 0")
		require.NoError(l.t, err)
		l.columns[tl.logic] = cols
	}
	l.t.Cleanup(func() {
		for _, tl := range e.tables {
			for _, n := range tl.nodes {
				for _, sfx := range []string{preSuffix, postSuffix} {
					_, _ = e.pool(n.DataSource).ExecContext(context.Background(), "DROP TABLE IF EXISTS "+n.Table+sfx)
				}
			}
		}
	})
}

// before copies the actual tables a write is about to change aside.
func (l *proxyLeg) before(pl *plan.Plan) {
	if pl.Statement != plan.StmtSelect {
		l.copyTables(l.written(pl), "", preSuffix)
	}
}

// after runs the call through the proxy and compares (see TestProxyParity).
// A call the generated function failed unexpectedly, which TestDiff
// reports, has nothing to compare with and is skipped.
func (l *proxyLeg) after(pl *plan.Plan, repro string, out, values []reflect.Value, wantErr string) {
	callErr, _ := out[len(out)-1].Interface().(error)
	noRow := pl.Statement == plan.StmtSelect && pl.Cmd == schema.CmdOne && errors.Is(callErr, sql.ErrNoRows)
	if wantErr == "" && callErr != nil && !noRow {
		return
	}
	var genErr error // the error the call had to fail with
	if wantErr != "" {
		genErr = callErr
	}
	l.calls++
	if pl.Statement == plan.StmtSelect {
		l.read(pl, repro, out, values, genErr)
	} else {
		l.write(pl, repro, out, values, genErr)
	}
	l.runs[pl.Name]++
}

// finish fails listing every query that no call ran through the proxy.
func (l *proxyLeg) finish() {
	var missed []string
	for _, name := range slices.Sorted(maps.Keys(l.e.plans)) {
		if l.runs[name] == 0 {
			missed = append(missed, name+" ("+l.e.plans[name].Source+")")
		}
	}
	if len(missed) > 0 {
		l.t.Errorf("no call of diff.json ran these queries through the proxy: %s", strings.Join(missed, ", "))
	}
	l.t.Logf("proxy: %d calls (%d writes) over the text and the binary protocol, %d result rows compared", l.calls, l.writes, l.rows)
}

// ---- reads ----

// read compares a SELECT's generated rows with the proxy's.
func (l *proxyLeg) read(pl *plan.Plan, repro string, out, values []reflect.Value, genErr error) {
	e := l.e
	var gen [][]*string
	if genErr == nil {
		switch pl.Cmd {
		case schema.CmdOne:
			if err, _ := out[1].Interface().(error); err == nil {
				gen = append(gen, rowText(out[0]))
			}
		case schema.CmdMany:
			for i := 0; i < out[0].Len(); i++ {
				gen = append(gen, rowText(out[0].Index(i)))
			}
		default:
			l.t.Fatalf("%s: a SELECT with %s", repro, pl.Cmd)
		}
	}
	logic, args := refStatement(pl, values)
	ordered := strings.Contains(strings.ToUpper(pl.LogicSQL), "ORDER BY")
	for _, c := range l.clients {
		got, err := c.query(e.ctx, logic, args...)
		if genErr != nil {
			l.compareError(pl, repro, c.proto, genErr, err)
			continue
		}
		if err != nil {
			e.fail(pl.Name, "%s over the proxy (%s): unexpected error: %v\n  logic SQL: %s", repro, c.proto, err, oneLine(pl.LogicSQL))
			continue
		}
		l.rows += len(got)
		if sameRows(pl.Cmd, ordered, gen, got) {
			continue
		}
		how := "as multisets"
		switch {
		case pl.Cmd == schema.CmdOne:
			how = "the generated row must be the proxy's first (any, without ORDER BY)"
		case ordered:
			how = "in order"
		}
		e.fail(pl.Name, "%s: the proxy (%s) returns other rows (%s)\n  logic SQL: %s\n  generated: %s\n  proxy:     %s", repro, c.proto, how, oneLine(pl.LogicSQL), tableText(gen), tableText(got))
	}
}

// sameRows reports whether the proxy's rows got agree with the generated
// function's rows gen, as TestDiff compares the reference's: a :one gives
// the proxy's first row (any of its rows when the query does not order),
// or no row when the proxy has none; a :many gives the same rows, in order
// when ordered.
func sameRows(cmd schema.Cmd, ordered bool, gen, got [][]*string) bool {
	if cmd == schema.CmdOne {
		switch {
		case len(gen) == 0 || len(got) == 0:
			return len(gen) == len(got)
		case ordered || len(got) == 1:
			return rowsEqual(gen[0], got[0])
		default:
			return slices.ContainsFunc(got, func(r []*string) bool { return rowsEqual(r, gen[0]) })
		}
	}
	if ordered {
		return tableEqual(gen, got)
	}
	return tableEqual(sortedRows(gen), sortedRows(got))
}

// ---- writes ----

// nodeRows are the rows of each data node of one logic table, in the order
// of its layout's nodes, each sorted.
type nodeRows [][][]*string

// write compares a write's effect through the proxy with the generated
// call's (see TestProxyParity), then restores the generated call's state.
func (l *proxyLeg) write(pl *plan.Plan, repro string, out, values []reflect.Value, genErr error) {
	e := l.e
	l.writes++
	tl := l.written(pl)
	gen := l.state(tl, "")
	l.copyTables(tl, "", postSuffix)
	defer l.copyTables(tl, postSuffix, "")

	var genN int64
	genSide := "generated"
	if genErr == nil {
		switch pl.Cmd {
		case schema.CmdExec:
			genN, genSide = e.refAffected, "reference" // a generated :exec returns no count
		case schema.CmdExecRows, schema.CmdCopyFrom:
			genN = out[0].Int()
		case schema.CmdExecResult:
			var err error
			genN, err = out[0].Interface().(sql.Result).RowsAffected()
			require.NoError(l.t, err)
		default:
			l.t.Fatalf("%s: a write with %s", repro, pl.Cmd)
		}
	}
	kg := pl.KeyGenerate
	// An INSERT whose generated call failed made no keys to send.
	if kg == nil || genErr == nil {
		logic, args := refStatement(pl, values)
		for _, c := range l.clients {
			if logic == "" {
				break // a :copyfrom of no rows sends nothing
			}
			l.copyTables(tl, preSuffix, "")
			res, err := c.exec(e.ctx, logic, args...)
			what := repro + " over the proxy (" + c.proto + ")"
			if !l.writeResult(pl, what, genErr, res, err, genSide, genN) {
				continue
			}
			l.compareNodes(pl, what, tl, gen)
		}
	}
	if kg == nil {
		return
	}
	// The INSERT as written: the proxy generates the keys.
	src := l.source[pl.Name]
	require.NotContains(l.t, src, "sqlc.", "%s: the proxy leg sends an INSERT with a generated key as written, so its query may use ? only", repro)
	var args []any
	for _, pi := range pl.Args {
		if !pl.Params[pi].Generated {
			args = append(args, values[pi].Interface())
		}
	}
	keyCol := strings.TrimPrefix(strings.ToLower(kg.Column), strings.ToLower(tl.logic)+".")
	key := slices.Index(l.columns[tl.logic], keyCol)
	require.GreaterOrEqual(l.t, key, 0, "%s: table %s has no key column %s", repro, tl.logic, keyCol)
	oldKeys := map[string]bool{}
	for _, rows := range l.state(tl, preSuffix) {
		for _, r := range rows {
			oldKeys[*r[key]] = true
		}
	}
	for _, c := range l.clients {
		l.copyTables(tl, preSuffix, "")
		res, err := c.exec(e.ctx, src, args...)
		what := repro + " as written, keys from the proxy (" + c.proto + ")"
		if !l.writeResult(pl, what, genErr, res, err, genSide, genN) {
			continue
		}
		if genErr != nil {
			l.compareNodes(pl, what, tl, gen) // nothing changed
			continue
		}
		got := l.state(tl, "")
		var newKeys []int64
		for _, rows := range got {
			for _, r := range rows {
				if r[key] == nil || oldKeys[*r[key]] {
					continue
				}
				k, err := strconv.ParseInt(*r[key], 10, 64)
				require.NoError(l.t, err, "%s: key %s", what, *r[key])
				newKeys = append(newKeys, k)
			}
		}
		slices.Sort(newKeys)
		if len(newKeys) != len(kg.Params) {
			e.fail(pl.Name, "%s: %d rows with new keys %v, want %d\n  SQL: %s", what, len(newKeys), newKeys, len(kg.Params), oneLine(src))
			continue
		}
		if id, err := res.LastInsertId(); err != nil || id != newKeys[0] {
			e.fail(pl.Name, "%s: insert id %d (err %v), want the first new key %d\n  SQL: %s", what, id, err, newKeys[0], oneLine(src))
		}
		for i := range tl.nodes {
			e.checkPlacement(what, tl, i)
		}
		if g, w := maskedUnion(got, key), maskedUnion(gen, key); !tableEqual(g, w) {
			e.fail(pl.Name, "%s: table %s (%s masked) differs from the generated call's\n%s", what, tl.logic, keyCol, proxyDiff(g, w))
		}
	}
}

// writeResult checks a write's outcome through the proxy: the error genErr
// when set, else no error and the affected-row count want of side. It
// reports whether the state is worth comparing.
func (l *proxyLeg) writeResult(pl *plan.Plan, what string, genErr error, res sql.Result, err error, side string, want int64) bool {
	e := l.e
	if genErr != nil {
		l.compareError(pl, what, "", genErr, err)
		return true
	}
	if err != nil {
		e.fail(pl.Name, "%s: unexpected error: %v\n  logic SQL: %s", what, err, oneLine(pl.LogicSQL))
		return false
	}
	got, err := res.RowsAffected()
	require.NoError(l.t, err)
	if got != want {
		e.fail(pl.Name, "%s: %d affected rows, the %s call %d\n  logic SQL: %s", what, got, side, want, oneLine(pl.LogicSQL))
	}
	return true
}

// compareNodes requires every data node of tl to hold the rows gen holds
// for it.
func (l *proxyLeg) compareNodes(pl *plan.Plan, what string, tl *tableLayout, gen nodeRows) {
	got := l.state(tl, "")
	for i, n := range tl.nodes {
		if !tableEqual(got[i], gen[i]) {
			l.e.fail(pl.Name, "%s: data node %s differs from the generated call's\n  logic SQL: %s\n%s", what, n, oneLine(pl.LogicSQL), proxyDiff(got[i], gen[i]))
		}
	}
}

// maskedUnion returns the rows of every node, column key replaced by "*",
// sorted.
func maskedUnion(nodes nodeRows, key int) [][]*string {
	star := "*"
	var out [][]*string
	for _, rows := range nodes {
		for _, r := range rows {
			r = slices.Clone(r)
			r[key] = &star
			out = append(out, r)
		}
	}
	return sortedRows(out)
}

// proxyDiff is rowDiff with the proxy's rows as got and the generated
// call's as want.
func proxyDiff(got, want [][]*string) string {
	return strings.NewReplacer("sharded only", "proxy only", "reference only", "generated only", "(sharded", "(proxy", "reference", "generated").Replace(rowDiff(got, want))
}

// written returns the layout of the logic table pl writes.
func (l *proxyLeg) written(pl *plan.Plan) *tableLayout {
	i := slices.IndexFunc(l.e.tables, func(tl *tableLayout) bool { return strings.EqualFold(tl.logic, pl.Route.LogicTable) })
	require.GreaterOrEqual(l.t, i, 0, "%s writes %q, which has no layout", pl.Name, pl.Route.LogicTable)
	return l.e.tables[i]
}

// state reads every data node of tl, every column (the copies with suffix
// sfx, "" for the actual tables).
func (l *proxyLeg) state(tl *tableLayout, sfx string) nodeRows {
	out := make(nodeRows, len(tl.nodes))
	for i, n := range tl.nodes {
		out[i] = sortedRows(queryText(l.t, l.e.ctx, l.e.pool(n.DataSource), "SELECT "+tl.every+" FROM "+n.Table+sfx))
	}
	return out
}

// copyTables replaces the rows of every actual table of tl with suffix to
// by those with suffix from ("" is the actual table itself).
func (l *proxyLeg) copyTables(tl *tableLayout, from, to string) {
	for _, n := range tl.nodes {
		pool := l.e.pool(n.DataSource)
		l.e.exec(pool, n.DataSource, "DELETE FROM "+n.Table+to)
		l.e.exec(pool, n.DataSource, "INSERT INTO "+n.Table+to+" ("+tl.every+") SELECT "+tl.every+" FROM "+n.Table+from)
	}
}

// ---- errors and the proxy's rows ----

// compareError requires the proxy to fail (err) where the generated
// function failed with genErr: an error of a data node's MySQL server
// (duplicate key...) with the same number, SQL state and message; a
// routing refusal (runtime.ErrNoTarget) with that reason in its message;
// anything else with some error.
func (l *proxyLeg) compareError(pl *plan.Plan, what, proto string, genErr, err error) {
	if proto != "" {
		what += " over the proxy (" + proto + ")"
	}
	var want, got *gomysql.MySQLError
	switch {
	case err == nil:
		l.e.fail(pl.Name, "%s: no error, the generated call failed with %q\n  logic SQL: %s", what, genErr, oneLine(pl.LogicSQL))
	case errors.As(genErr, &want):
		if !errors.As(err, &got) || got.Number != want.Number || got.SQLState != want.SQLState || !sameNodeMessage(got.Message, want.Message, genErr) {
			l.e.fail(pl.Name, "%s: error %q, the generated call's data node said %q\n  logic SQL: %s", what, err, want, oneLine(pl.LogicSQL))
		}
	case errors.Is(genErr, shardrt.ErrNoTarget):
		if !strings.Contains(err.Error(), shardrt.ErrNoTarget.Error()) {
			l.e.fail(pl.Name, "%s: error %q, the generated call failed with %q (%s)\n  logic SQL: %s", what, err, genErr, shardrt.ErrNoTarget, oneLine(pl.LogicSQL))
		}
	}
}

// sameNodeMessage reports whether got, the proxy's message of a data
// node's error, is want, the data node's message to the generated call
// (genErr): the same, or, for a write on several data nodes, followed by
// the data node " (data node ds_1.t_order_1)" on the generated call's data
// source.
func sameNodeMessage(got, want string, genErr error) bool {
	if got == want {
		return true
	}
	node, ok := strings.CutPrefix(got, want+" (data node ")
	if !ok || !strings.HasSuffix(node, ")") {
		return false
	}
	var ne *shardrt.NodeError
	return errors.As(genErr, &ne) && strings.HasPrefix(node, ne.DataSource+".")
}

// queryColumns returns the lower-case column names of query's result.
func queryColumns(ctx context.Context, db *sql.DB, query string) ([]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	for i := range cols {
		cols[i] = strings.ToLower(cols[i])
	}
	return cols, err
}
