package plan_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

func TestDateTimeValue(t *testing.T) {
	at := func(y, mo, d, h, mi, s, ns int) runtime.Value {
		return runtime.Time(time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC))
	}
	tests := []struct {
		in   string
		want runtime.Value
		ok   bool
	}{
		{"2026-02-01", at(2026, 2, 1, 0, 0, 0, 0), true},
		{"2026-02-01 00:00:00", at(2026, 2, 1, 0, 0, 0, 0), true},
		{"2026-06-30 23:59:59", at(2026, 6, 30, 23, 59, 59, 0), true},
		{"2024-02-29 13:04:05.1", at(2024, 2, 29, 13, 4, 5, 100000000), true},
		{"2024-02-29 13:04:05.123456", at(2024, 2, 29, 13, 4, 5, 123456000), true},
		{"2000-02-29", at(2000, 2, 29, 0, 0, 0, 0), true},
		{"0001-01-01", at(1, 1, 1, 0, 0, 0, 0), true},
		{"9999-12-31 23:59:59.999999", at(9999, 12, 31, 23, 59, 59, 999999000), true},
		// MySQL's relaxed forms (runtime.ParseDateTime).
		{"2026-2-1 0:0:0", at(2026, 2, 1, 0, 0, 0, 0), true},
		// No real date and time, or a form shardgen does not read: a String.
		{"", runtime.Value{}, false},
		{"2026-02-30", runtime.Value{}, false},
		{"2023-02-29", runtime.Value{}, false},
		{"1900-02-29", runtime.Value{}, false},
		{"2026-13-01", runtime.Value{}, false},
		{"0000-00-00", runtime.Value{}, false},
		{"0000-00-00 00:00:00", runtime.Value{}, false},
		{"2026-02-01 24:00:00", runtime.Value{}, false},
		{"2026-02-01 23:60:00", runtime.Value{}, false},
		{"2026-02-01 23:59:60", runtime.Value{}, false},
		{"2026-02-01 00:00:00.", runtime.Value{}, false},
		{"2026-02-01 00:00:00.1234567", runtime.Value{}, false},
		{"2026-02-01 00:00:00.12a", runtime.Value{}, false},
		{"2026-02-01T00:00:00", at(2026, 2, 1, 0, 0, 0, 0), true},
		{"2026-02-01 00:00", runtime.Value{}, false},
		{"2026-2-1", at(2026, 2, 1, 0, 0, 0, 0), true},
		{"2026/02/01", at(2026, 2, 1, 0, 0, 0, 0), true},
		{"20260201", at(2026, 2, 1, 0, 0, 0, 0), true},
		{"+026-02-01", runtime.Value{}, false},
		{"2026-02-01 ", at(2026, 2, 1, 0, 0, 0, 0), true},
		{"2026-02-01x00:00:00", runtime.Value{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := plan.DateTimeValue(tt.in)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

const adHocRules = `databaseName: logs
dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    t_event:
      actualDataNodes: ds_${0..1}.t_event_${0..3}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: user_mod}}
      tableStrategy: {standard: {shardingColumn: event_id, shardingAlgorithmName: event_boundary}}
    t_log:
      actualDataNodes: ds_1.t_log_${['202601', '202602', '202603']}
      tableStrategy: {standard: {shardingColumn: logged_at, shardingAlgorithmName: log_month}}
  shardingAlgorithms:
    user_mod: {type: MOD, props: {sharding-count: 2}}
    event_boundary: {type: BOUNDARY_RANGE, props: {sharding-ranges: "10,20,30"}}
    log_month:
      type: INTERVAL
      props:
        datetime-pattern: "yyyy-MM-dd HH:mm:ss"
        datetime-lower: "2026-01-01 00:00:00"
        datetime-upper: "2026-03-31 23:59:59"
        sharding-suffix-pattern: yyyyMM
        datetime-interval-amount: 1
        datetime-interval-unit: MONTHS
`

const adHocDDL = `CREATE TABLE t_event (event_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, kind VARCHAR(16) NOT NULL);
CREATE TABLE t_log (log_id BIGINT NOT NULL, logged_at DATETIME NOT NULL, day DATE NULL, message VARCHAR(200) NOT NULL, PRIMARY KEY (log_id, logged_at));
`

// buildAdHoc plans sql as the proxy does (plan.AdHocFile, full routes
// allowed).
func buildAdHoc(b *plan.Builder, sql string) (*plan.Plan, error) {
	pos := schema.Pos{File: plan.AdHocFile, Line: 1, Col: 1}
	cmd := schema.CmdExecRows
	if plan.ReturnsRows(sql) {
		cmd = schema.CmdMany
	}
	return b.Build(&schema.Query{Name: "proxy", Cmd: cmd, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos})
}

// TestAdHocStatements plans the same statements as a query file would hold
// them (compile-time checks) and as the proxy plans them (plan.AdHocFile).
func TestAdHocStatements(t *testing.T) {
	b := builderOf(t, adHocRules, adHocDDL)
	adHoc := func(sql string) (*plan.Plan, error) { return buildAdHoc(b, sql) }
	fromFile := func(cmd, sql string) (*plan.Plan, error) {
		return build(t, b, cmd, sql, schema.AnnotationAllowFullRoute)
	}
	// literals returns the literal sharding values of p's conditions as
	// "Kind text", in order.
	literals := func(p *plan.Plan) []string {
		var out []string
		add := func(o *plan.Operand) {
			if o != nil && o.Literal != nil {
				out = append(out, o.Literal.Kind.String()+" "+o.Literal.Text())
			}
		}
		for _, g := range p.Route.Conditions {
			for _, c := range g.Columns {
				for i := range c.Values {
					add(&c.Values[i])
				}
				if c.Range != nil {
					add(c.Range.Lower)
					add(c.Range.Upper)
				}
			}
		}
		return out
	}
	nodes := func(p *plan.Plan) []string {
		out := []string{}
		for _, i := range p.Route.Fixed {
			out = append(out, p.Route.Units[i].Node)
		}
		return out
	}

	tests := []struct {
		name, cmd, sql string
		// The query file's plan: its fixed nodes, or the error.
		fileNodes []string
		fileErr   string
		// The ad-hoc plan: its fixed nodes (never nil when the file's
		// are), its literals, or the error.
		nodes    []string
		literals []string
		err      string
	}{
		{
			name: "empty literal range", cmd: ":many",
			sql:     "SELECT event_id, kind FROM t_event WHERE event_id BETWEEN 30 AND 10",
			fileErr: `q.sql:3:36: query "Q": the sharding conditions on "t_event" reach no data node`,
			nodes:   []string{}, literals: []string{"Long 30", "Long 10"},
		},
		{
			name: "empty literal range of an UPDATE", cmd: ":execrows",
			sql:     "UPDATE t_event SET kind = 'x' WHERE event_id BETWEEN 30 AND 10",
			fileErr: `q.sql:3:31: query "Q": the sharding conditions on "t_event" reach no data node`,
			nodes:   []string{}, literals: []string{"Long 30", "Long 10"},
		},
		{
			name: "empty literal range of a DELETE", cmd: ":execrows",
			sql:     "DELETE FROM t_event WHERE event_id BETWEEN 30 AND 10",
			fileErr: `q.sql:3:21: query "Q": the sharding conditions on "t_event" reach no data node`,
			nodes:   []string{}, literals: []string{"Long 30", "Long 10"},
		},
		{
			name: "literal range that reaches nodes", cmd: ":many",
			sql:       "SELECT event_id FROM t_event WHERE event_id BETWEEN 20 AND 29",
			fileNodes: []string{"ds_0.t_event_2", "ds_1.t_event_2"},
			nodes:     []string{"ds_0.t_event_2", "ds_1.t_event_2"}, literals: []string{"Long 20", "Long 29"},
		},
		{
			name: "midnight date text on a DATETIME sharding column", cmd: ":many",
			sql:       "SELECT log_id FROM t_log WHERE logged_at = '2026-02-01'",
			fileNodes: []string{"ds_1.t_log_202602"},
			nodes:     []string{"ds_1.t_log_202602"}, literals: []string{"Time 2026-02-01 00:00:00.0"},
		},
		{
			name: "datetime text", cmd: ":many",
			sql:       "SELECT log_id FROM t_log WHERE logged_at = '2026-03-31 23:59:59.5'",
			fileNodes: []string{"ds_1.t_log_202603"},
			nodes:     []string{"ds_1.t_log_202603"}, literals: []string{"Time 2026-03-31 23:59:59.5"},
		},
		{
			name: "midnight bounds", cmd: ":many",
			sql:       "SELECT log_id FROM t_log WHERE logged_at BETWEEN '2026-01-01' AND '2026-02-01'",
			fileNodes: []string{"ds_1.t_log_202601", "ds_1.t_log_202602"},
			nodes:     []string{"ds_1.t_log_202601", "ds_1.t_log_202602"}, literals: []string{"Time 2026-01-01 00:00:00.0", "Time 2026-02-01 00:00:00.0"},
		},
		{
			name: "one midnight bound", cmd: ":many",
			sql:       "SELECT log_id FROM t_log WHERE logged_at <= '2026-02-01'",
			fileNodes: []string{"ds_1.t_log_202601", "ds_1.t_log_202602"},
			nodes:     []string{"ds_1.t_log_202601", "ds_1.t_log_202602"}, literals: []string{"Time 2026-02-01 00:00:00.0"},
		},
		{
			name: "one midnight bound, open", cmd: ":many",
			sql:       "SELECT log_id FROM t_log WHERE logged_at < '2026-02-01'",
			fileNodes: []string{"ds_1.t_log_202601"},
			nodes:     []string{"ds_1.t_log_202601"}, literals: []string{"Time 2026-02-01 00:00:00.0"},
		},
		{
			name: "IN list and an OR", cmd: ":many",
			sql:       "SELECT log_id FROM t_log WHERE logged_at IN ('2026-01-15', '2026-03-01 10:00:00') OR (logged_at = '2026-02-02' AND log_id = 1)",
			fileNodes: []string{"ds_1.t_log_202601", "ds_1.t_log_202602", "ds_1.t_log_202603"},
			nodes:     []string{"ds_1.t_log_202601", "ds_1.t_log_202602", "ds_1.t_log_202603"},
			literals:  []string{"Time 2026-01-15 00:00:00.0", "Time 2026-03-01 10:00:00.0", "Time 2026-02-02 00:00:00.0"},
		},
		{
			name: "INSERT at midnight", cmd: ":exec",
			sql:       "INSERT INTO t_log (log_id, logged_at, message) VALUES (11, '2026-02-01', 'm')",
			fileNodes: []string{"ds_1.t_log_202602"},
			nodes:     []string{"ds_1.t_log_202602"}, literals: []string{"Time 2026-02-01 00:00:00.0"},
		},
		{
			name: "INSERT outside the intervals", cmd: ":exec",
			sql:     "INSERT INTO t_log (log_id, logged_at, message) VALUES (99, '2026-07-01 00:00:00', 'm')",
			fileErr: `q.sql:3:48: query "Q": routing table "t_log": INTERVAL on logged_at: sharding value Time 2026-07-01 00:00:00.0 is outside the windows from datetime-lower to datetime-upper: no data node matches the sharding value`,
			err:     `<sql>:1:48: query "proxy": routing table "t_log": INTERVAL on logged_at: sharding value Time 2026-07-01 00:00:00.0 is outside the windows from datetime-lower to datetime-upper: no data node matches the sharding value`,
		},
		{
			name: "a string on a string column stays a String", cmd: ":many",
			sql:       "SELECT event_id FROM t_event WHERE user_id = 3 AND kind = '2026-02-01' AND event_id = 5",
			fileNodes: []string{"ds_1.t_event_0"},
			nodes:     []string{"ds_1.t_event_0"}, literals: []string{"Long 3", "Long 5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp, err := fromFile(tt.cmd, tt.sql)
			if tt.fileErr != "" {
				require.EqualError(t, err, tt.fileErr)
			} else {
				require.NoError(t, err)
				require.Equal(t, tt.fileNodes, nodes(fp))
			}
			p, err := adHoc(tt.sql)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, p.Route.Fixed)
			require.Equal(t, tt.nodes, nodes(p))
			require.Equal(t, tt.literals, literals(p))
			if len(tt.nodes) == 0 {
				require.Equal(t, "the sharding conditions reach no data node: the statement runs on none (no rows)", p.Route.Reason)
			}
			units, err := b.Units(p, nil)
			require.NoError(t, err)
			require.Equal(t, p.Route.Fixed, units)
		})
	}
}

// TestAdHocTimeLiteralWithParam routes an ad-hoc IN list of a parameter
// (a time at run time) and a date literal (a time at plan time).
func TestAdHocTimeLiteralWithParam(t *testing.T) {
	b := builderOf(t, adHocRules, adHocDDL)
	pos := schema.Pos{File: plan.AdHocFile, Line: 1, Col: 1}
	// A parameter and a literal: the route is computed at run time, the
	// literal already a time.
	p, err := b.Build(&schema.Query{Name: "proxy", Cmd: schema.CmdMany, AllowFullRoute: true, Pos: pos, SQLPos: pos,
		SQL: "SELECT log_id FROM t_log WHERE logged_at IN (?, '2026-03-01')"})
	require.NoError(t, err)
	require.Nil(t, p.Route.Fixed)
	day := runtime.Time(time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC))
	units, err := b.Units(p, []runtime.Value{day})
	require.NoError(t, err)
	var got []string
	for _, u := range units {
		got = append(got, p.Route.Units[u].Node)
	}
	require.Equal(t, []string{"ds_1.t_log_202601", "ds_1.t_log_202603"}, got)
}
