package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

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

// TestAdHocStatements plans the same statements as a query file would hold
// them (compile-time checks) and as the proxy plans them (plan.AdHocFile).
func TestAdHocStatements(t *testing.T) {
	cfg, err := schema.Load("rules.yaml", []byte(adHocRules))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("schema.sql", []byte(adHocDDL))
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	adHoc := func(sql string) (*plan.Plan, error) {
		pos := schema.Pos{File: plan.AdHocFile, Line: 1, Col: 1}
		cmd := schema.CmdExecRows
		if plan.ReturnsRows(sql) {
			cmd = schema.CmdMany
		}
		return b.Build(&schema.Query{Name: "proxy", Cmd: cmd, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos})
	}
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
			fileErr: `q.sql:1:1: query "Q": the sharding conditions on "t_event" reach no data node`,
			nodes:   []string{}, literals: []string{"Int 30", "Int 10"},
		},
		{
			name: "empty literal range of an UPDATE", cmd: ":execrows",
			sql:     "UPDATE t_event SET kind = 'x' WHERE event_id BETWEEN 30 AND 10",
			fileErr: `q.sql:1:1: query "Q": the sharding conditions on "t_event" reach no data node`,
			nodes:   []string{}, literals: []string{"Int 30", "Int 10"},
		},
		{
			name: "empty literal range of a DELETE", cmd: ":execrows",
			sql:     "DELETE FROM t_event WHERE event_id BETWEEN 30 AND 10",
			fileErr: `q.sql:1:1: query "Q": the sharding conditions on "t_event" reach no data node`,
			nodes:   []string{}, literals: []string{"Int 30", "Int 10"},
		},
		{
			name: "literal range that reaches nodes", cmd: ":many",
			sql:       "SELECT event_id FROM t_event WHERE event_id BETWEEN 20 AND 29",
			fileNodes: []string{"ds_0.t_event_2", "ds_1.t_event_2"},
			nodes:     []string{"ds_0.t_event_2", "ds_1.t_event_2"}, literals: []string{"Int 20", "Int 29"},
		},
		{
			name: "a string on a string column stays a String", cmd: ":many",
			sql:       "SELECT event_id FROM t_event WHERE user_id = 3 AND kind = '2026-02-01' AND event_id = 5",
			fileNodes: []string{"ds_1.t_event_0"},
			nodes:     []string{"ds_1.t_event_0"}, literals: []string{"Int 3", "Int 5"},
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
