package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// TestNullShardingLiterals: a NULL literal compared with a sharding column
// in a WHERE matches no row, as in MySQL. Ad hoc (the proxy, preview) the
// statement runs on the nodes of the other values, or on none; a query file
// refuses a statement that would run on none. `<=>` is no sharding
// condition (it matches NULL rows): full route.
func TestNullShardingLiterals(t *testing.T) {
	b := builderOf(t, adHocRules, adHocDDL)
	nodes := func(p *plan.Plan) []string {
		if p.Route.Fixed == nil {
			return nil
		}
		out := []string{}
		for _, i := range p.Route.Fixed {
			out = append(out, p.Route.Units[i].Node)
		}
		return out
	}
	// none is the refusal at line:col, the statement's WHERE.
	none := func(at string) string {
		return `q.sql:` + at + `: query "Q": the sharding conditions on "t_event" compare with NULL, which matches no row (NULL equals nothing; IS NULL tests it): the statement would run on no data node`
	}
	tests := []struct {
		cmd, sql  string
		fileNodes []string // nil: not fixed
		fileErr   string
		nodes     []string
		kind      runtime.RouteKind
	}{
		{":many", "SELECT kind FROM t_event WHERE user_id IN (1, NULL) AND event_id = 5",
			[]string{"ds_1.t_event_0"}, "", []string{"ds_1.t_event_0"}, runtime.RouteSingleNode},
		{":many", "SELECT kind FROM t_event WHERE user_id = NULL AND event_id = 5", nil, none("3:26"), []string{}, runtime.RouteSingleNode},
		{":one", "SELECT kind FROM t_event WHERE user_id IN (NULL, NULL)", nil, none("3:26"), []string{}, runtime.RouteSingleNode},
		{":execrows", "UPDATE t_event SET kind = 'x' WHERE event_id > NULL", nil, none("3:31"), []string{}, runtime.RouteSingleNode},
		{":execrows", "DELETE FROM t_event WHERE event_id BETWEEN 1 AND NULL", nil, none("3:21"), []string{}, runtime.RouteSingleNode},
		{":many", "SELECT kind FROM t_event WHERE user_id = NULL OR (user_id = 0 AND event_id = 25)",
			[]string{"ds_0.t_event_2"}, "", []string{"ds_0.t_event_2"}, runtime.RouteSingleNode},
		{":many", "SELECT kind FROM t_event WHERE user_id = NULL OR kind = 'x'", nil, "", nil, runtime.RouteAllNodes},
		{":many", "SELECT kind FROM t_event WHERE user_id <=> NULL", nil, "", nil, runtime.RouteAllNodes},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			p, err := build(t, b, tt.cmd, tt.sql, schema.AnnotationAllowFullRoute)
			if tt.fileErr != "" {
				require.EqualError(t, err, tt.fileErr)
			} else {
				require.NoError(t, err)
				require.Equal(t, tt.fileNodes, nodes(p))
			}
			pos := schema.Pos{File: plan.AdHocFile, Line: 1, Col: 1}
			cmd := schema.CmdExecRows
			if plan.ReturnsRows(tt.sql) {
				cmd = schema.CmdMany
			}
			p, err = b.Build(&schema.Query{Name: "proxy", Cmd: cmd, SQL: tt.sql, AllowFullRoute: true, Pos: pos, SQLPos: pos})
			require.NoError(t, err)
			require.Equal(t, tt.kind, p.Route.Kind)
			require.Equal(t, tt.nodes, nodes(p))
			units, err := b.Units(p, nil)
			require.NoError(t, err)
			if tt.kind == runtime.RouteAllNodes {
				require.Len(t, units, 8)
			} else {
				require.Len(t, units, len(tt.nodes))
			}
		})
	}
}

// TestNullShardingParams: Builder.Units drops NULL parameter values of a
// SELECT / UPDATE / DELETE condition (no node when none is left) and refuses
// an INSERT row's NULL, naming the query and the column.
func TestNullShardingParams(t *testing.T) {
	b := builderOf(t, adHocRules, adHocDDL)
	node := func(p *plan.Plan, idx []int) []string {
		out := []string{}
		for _, i := range idx {
			out = append(out, p.Route.Units[i].Node)
		}
		return out
	}
	L := runtime.Long
	N := runtime.Null
	tests := []struct {
		cmd, sql string
		params   []runtime.Value
		nodes    []string
		err      string
	}{
		{":many", "SELECT kind FROM t_event WHERE user_id IN (sqlc.narg(a), sqlc.narg(b)) AND event_id = 5", []runtime.Value{N, L(3)}, []string{"ds_1.t_event_0"}, ""},
		{":many", "SELECT kind FROM t_event WHERE user_id IN (sqlc.narg(a), sqlc.narg(b)) AND event_id = 5", []runtime.Value{L(2), L(3)}, []string{"ds_0.t_event_0", "ds_1.t_event_0"}, ""},
		{":many", "SELECT kind FROM t_event WHERE user_id IN (sqlc.narg(a), sqlc.narg(b)) AND event_id = 5", []runtime.Value{N, N}, []string{}, ""},
		{":one", "SELECT kind FROM t_event WHERE user_id = sqlc.narg(a) AND event_id = 5", []runtime.Value{N}, []string{}, ""},
		{":execrows", "UPDATE t_event SET kind = 'x' WHERE user_id = sqlc.narg(a) OR user_id = sqlc.narg(b)", []runtime.Value{N, L(1)},
			[]string{"ds_1.t_event_0", "ds_1.t_event_1", "ds_1.t_event_2", "ds_1.t_event_3"}, ""},
		{":execrows", "DELETE FROM t_event WHERE event_id BETWEEN sqlc.narg(lo) AND 25", []runtime.Value{N}, []string{}, ""},
		{":exec", "INSERT INTO t_event (event_id, user_id, kind) VALUES (?, ?, 'x')", []runtime.Value{L(5), N}, nil,
			"Q: sharding column user_id of t_event is NULL"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			p, err := build(t, b, tt.cmd, tt.sql)
			require.NoError(t, err)
			got, err := b.Units(p, tt.params)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.nodes, node(p, got))
		})
	}

	// A multi-row INSERT names the row; an ad-hoc one has no query name.
	p, err := build(t, b, ":exec", "INSERT INTO t_event (event_id, user_id, kind) VALUES (?, ?, 'x'), (?, ?, 'y')")
	require.NoError(t, err)
	_, err = b.RowNodes(p, []runtime.Value{L(1), L(1), L(2), N})
	require.EqualError(t, err, "Q: sharding column user_id of t_event is NULL in row 2")
	pos := schema.Pos{File: plan.AdHocFile, Line: 1, Col: 1}
	p, err = b.Build(&schema.Query{Name: "proxy", Cmd: schema.CmdExec, SQL: "INSERT INTO t_event (event_id, user_id, kind) VALUES (?, ?, 'x')", Pos: pos, SQLPos: pos})
	require.NoError(t, err)
	_, err = b.Units(p, []runtime.Value{N, L(1)})
	require.EqualError(t, err, "sharding column event_id of t_event is NULL")
}
