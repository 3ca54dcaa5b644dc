package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// convertRules shard t_user by user_id (HASH_MOD over data sources, MOD
// over tables: a value's Java type matters to HASH_MOD) and t_day by a
// DATE column (INTERVAL).
const convertRules = `databaseName: convert
dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    t_user:
      actualDataNodes: ds_${0..1}.t_user_${0..2}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: user_hash}}
      tableStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: user_mod}}
    t_day:
      actualDataNodes: ds_0.t_day_${['202601', '202602', '202603']}
      tableStrategy: {standard: {shardingColumn: day, shardingAlgorithmName: day_month}}
  shardingAlgorithms:
    user_hash: {type: HASH_MOD, props: {sharding-count: 2}}
    user_mod: {type: MOD, props: {sharding-count: 3}}
    day_month:
      type: INTERVAL
      props:
        datetime-pattern: "yyyy-MM-dd"
        datetime-lower: "2026-01-01"
        datetime-upper: "2026-03-31"
        sharding-suffix-pattern: yyyyMM
        datetime-interval-amount: 1
        datetime-interval-unit: MONTHS
`

const convertDDL = `CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(16) NOT NULL);
CREATE TABLE t_day (id BIGINT NOT NULL PRIMARY KEY, day DATE NOT NULL);
`

// TestShardingValueConversion plans statements whose sharding value has
// another type than its column: each must route where MySQL finds (or
// stores) the row, as the integer or date MySQL compares the column with.
// The node of user 5 is ds_1.t_user_2 (5 mod 2 = 1, 5 mod 3 = 2), of 6
// ds_0.t_user_0, of 7 ds_1.t_user_1, of 0 ds_0.t_user_0, of 2 ds_0.t_user_2.
func TestShardingValueConversion(t *testing.T) {
	b := builderOf(t, convertRules, convertDDL)
	adHoc := func(sql string) (*plan.Plan, error) { return buildAdHoc(b, sql) }
	const all = "every data node"
	for _, tt := range []struct {
		where string
		nodes []string // nil: every data node (no fixed route)
	}{
		{"user_id = 5", []string{"ds_1.t_user_2"}},
		{"user_id = 5.0", []string{"ds_1.t_user_2"}},
		{"user_id = 5.00000", []string{"ds_1.t_user_2"}},
		{"user_id = 5e0", []string{"ds_1.t_user_2"}},
		{"user_id = 0.5e1", []string{"ds_1.t_user_2"}},
		{"user_id = '5'", []string{"ds_1.t_user_2"}},
		{"user_id = ' 5 '", []string{"ds_1.t_user_2"}},
		{"user_id = '5abc'", []string{"ds_1.t_user_2"}},
		{"user_id = '5.0'", []string{"ds_1.t_user_2"}},
		{"user_id = '+5'", []string{"ds_1.t_user_2"}},
		{"user_id = '.5e1'", []string{"ds_1.t_user_2"}},
		{"user_id = 0x05", []string{"ds_1.t_user_2"}},
		{"user_id = X'35'", []string{"ds_1.t_user_2"}},
		{"user_id = b'101'", []string{"ds_1.t_user_2"}},
		{"user_id = _binary'5'", []string{"ds_1.t_user_2"}},
		{"BINARY user_id = '5'", []string{"ds_1.t_user_2"}},
		{"5.0 = user_id", []string{"ds_1.t_user_2"}},
		{"user_id = -0.0", []string{"ds_0.t_user_0"}},
		{"user_id = '-0'", []string{"ds_0.t_user_0"}},
		{"user_id = 'abc'", []string{"ds_0.t_user_0"}},
		{"user_id = ''", []string{"ds_0.t_user_0"}},
		{"user_id IN (5.0, 7.0)", []string{"ds_1.t_user_1", "ds_1.t_user_2"}},
		{"user_id IN ('5', 7e0, 5.5)", []string{"ds_1.t_user_1", "ds_1.t_user_2"}},
		{"user_id = 5.5", []string{}},
		{"user_id = '5.5'", []string{}},
		{"user_id IN (5.5, 6.5)", []string{}},
		{"user_id = 5.5 OR user_id = 6", []string{"ds_0.t_user_0"}},
		{"user_id BETWEEN 4.5 AND '6.5'", []string{"ds_0.t_user_0", "ds_0.t_user_2", "ds_1.t_user_0", "ds_1.t_user_2"}},
		{"user_id = '9007199254740993'", nil},
		{"user_id = 9007199254740993e0", nil},
		{"user_id = '5.0000000000000000001'", nil},
		{"BINARY user_id = '05'", nil},
		{"user_id BETWEEN '9007199254740993' AND 9007199254740994", nil},
		{"day = '2026-02-01'", []string{"ds_0.t_day_202602"}},
		{"day = '20260201'", []string{"ds_0.t_day_202602"}},
		{"day = '2026-2-1 0:0:0'", []string{"ds_0.t_day_202602"}},
		{"day = '2026/02/01'", []string{"ds_0.t_day_202602"}},
		{"day = '26-02-01'", []string{"ds_0.t_day_202602"}},
		{"day = '260201'", []string{"ds_0.t_day_202602"}},
		{"day = 20260201", []string{"ds_0.t_day_202602"}},
		{"day = '2026-02-01T00:00:00'", []string{"ds_0.t_day_202602"}},
		{"day = '2026-02-28 23:59:59'", []string{"ds_0.t_day_202602"}},
		{"day BETWEEN '2026/1/31' AND '20260201'", []string{"ds_0.t_day_202601", "ds_0.t_day_202602"}},
		{"day = '2026-02-01x'", nil},
		{"day BETWEEN '2026-02-02' AND '2026/2/1'", []string{}},
		{"day = '2026-02-30'", nil},
	} {
		t.Run(tt.where, func(t *testing.T) {
			table := "t_user"
			if tt.where[:3] == "day" {
				table = "t_day"
			}
			p, err := adHoc("SELECT * FROM " + table + " WHERE " + tt.where)
			require.NoError(t, err)
			if tt.nodes == nil {
				require.Nil(t, p.Route.Fixed, all)
				units, err := b.Units(p, nil)
				require.NoError(t, err)
				require.Len(t, units, len(p.Route.Units), all)
				return
			}
			var got []string
			for _, i := range p.Route.Fixed {
				got = append(got, p.Route.Units[i].Node)
			}
			if got == nil {
				got = []string{}
			}
			require.Equal(t, tt.nodes, got)
		})
	}

	// Parameters convert at run time, as literals do.
	p, err := adHoc("SELECT * FROM t_user WHERE user_id = ?")
	require.NoError(t, err)
	node := func(v runtime.Value) []string {
		units, err := b.Units(p, []runtime.Value{v})
		require.NoError(t, err)
		out := []string{}
		for _, u := range units {
			out = append(out, p.Route.Units[u].Node)
		}
		return out
	}
	require.Equal(t, []string{"ds_1.t_user_2"}, node(runtime.String("5")))
	require.Equal(t, []string{"ds_1.t_user_2"}, node(runtime.Decimal("5.0")))
	require.Equal(t, []string{"ds_1.t_user_2"}, node(runtime.Decimal("5e+00")))
	require.Equal(t, []string{}, node(runtime.Decimal("5.5e+00")))
	require.Len(t, node(runtime.String("9007199254740993")), 6)
	p, err = adHoc("SELECT * FROM t_user WHERE BINARY user_id = ?")
	require.NoError(t, err)
	require.Equal(t, []string{"ds_1.t_user_2"}, node(runtime.String("5")))
	require.Len(t, node(runtime.String("5.0")), 6)

	// INSERT: the row lands where the server stores its value.
	for _, tt := range []struct{ value, node string }{
		{"'5'", "ds_1.t_user_2"}, {"5.0", "ds_1.t_user_2"}, {"' 5 '", "ds_1.t_user_2"}, {"0x05", "ds_1.t_user_2"},
		{"6.5", "ds_1.t_user_1"}, {"'6.5'", "ds_1.t_user_1"}, {"2.5e0", "ds_0.t_user_2"}, {"'2.5e0'", "ds_1.t_user_0"},
	} {
		p, err := adHoc("INSERT INTO t_user (user_id, name) VALUES (" + tt.value + ", 'x')")
		require.NoError(t, err, tt.value)
		require.Len(t, p.Route.Fixed, 1, tt.value)
		require.Equal(t, tt.node, p.Route.Units[p.Route.Fixed[0]].Node, tt.value)
	}
	_, err = adHoc("INSERT INTO t_user (user_id, name) VALUES ('13abc', 'x')")
	require.EqualError(t, err, `<sql>:1:1: query "proxy": INSERT into sharded table "t_user": sharding column "user_id": String "13abc" is not a number MySQL stores in an integer column`)
	p, err = adHoc("INSERT INTO t_user (user_id, name) VALUES (?, 'x')")
	require.NoError(t, err)
	require.Equal(t, []string{"ds_1.t_user_1"}, node(runtime.String("6.5")))
	_, err = b.Units(p, []runtime.Value{runtime.String("x")})
	require.EqualError(t, err, `sharding column user_id: String "x" is not a number MySQL stores in an integer column`)

	// A query file is told at generate time that no row can match.
	_, err = build(t, b, ":many", "SELECT name FROM t_user WHERE user_id = 5.5")
	require.EqualError(t, err, `q.sql:2:25: query "Q": the sharding conditions on "t_user" compare a sharding column with values no row of it can hold (e.g. 5.5 for an integer column, or a date range whose lower bound is after its upper): the statement would run on no data node`)
	// BINARY user_id = ? takes the column's type: generated code routes
	// the int64 as the value.
	fp, err := build(t, b, ":one", "SELECT name FROM t_user WHERE BINARY user_id = ?")
	require.NoError(t, err)
	require.Equal(t, "int64", fp.Params[0].Type.String())
	require.True(t, fp.Route.Conditions[0].Columns[0].Binary)
	fp, err = build(t, b, ":one", "SELECT name FROM t_user WHERE user_id = '5'")
	require.NoError(t, err)
	require.Len(t, fp.Route.Fixed, 1)
	require.Equal(t, "ds_1.t_user_2", fp.Route.Units[fp.Route.Fixed[0]].Node)
}
