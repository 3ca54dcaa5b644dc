package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// TestSharedCaseC05 is ../shared/cases C05: `id = ? OR name = ? AND id = ?`
// means id=2 OR (name='a' AND id=1), so both tables are routed — a router
// that binds OR looser than AND reads only _0001 and loses the id=2 row.
func TestSharedCaseC05(t *testing.T) {
	rules := `dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
rules:
- !SHARDING
  tables:
    test_shard_hash:
      actualDataNodes: ds_0.test_shard_hash_${['0000','0001']}
      tableStrategy:
        standard:
          shardingColumn: id
          shardingAlgorithmName: mod2
  shardingAlgorithms:
    mod2:
      type: MOD
      props:
        sharding-count: 2
`
	cfg, err := schema.Load("c05.yaml", []byte(rules))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("c05.sql", []byte("CREATE TABLE test_shard_hash (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,1))"))
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)

	p, err := build(t, b, ":many", "SELECT id, name, price FROM test_shard_hash WHERE id = ? OR name = ? AND id = ?")
	require.NoError(t, err)
	require.Equal(t, runtime.RouteMultiNode, p.Route.Kind)
	units, err := b.Units(p, []runtime.Value{runtime.Long(2), runtime.String("a"), runtime.Long(1)})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, units)
	require.Equal(t, "SELECT id, name, price FROM test_shard_hash_0000 WHERE id = ? OR name = ? AND id = ?", p.Route.Units[0].SQL)

	// The literal form routes at generate time.
	p, err = build(t, b, ":many", "SELECT id, name, price FROM test_shard_hash WHERE id = 2 OR name = 'a' AND id = 1")
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, p.Route.Fixed)

	// NOT BETWEEN is not a range on the sharding column (#39852): the
	// condition routes by id = 11 alone.
	p, err = build(t, b, ":many", "SELECT id FROM test_shard_hash WHERE id = 11 AND id NOT BETWEEN 1 AND 5")
	require.NoError(t, err)
	require.Equal(t, []int{1}, p.Route.Fixed)
}

// TestInlineRangeRefused: INLINE without allow-range-query-with-inline-sharding
// cannot route a range; ShardingSphere fails at run time, shardgen at
// generate time.
func TestInlineRangeRefused(t *testing.T) {
	rules := `dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
rules:
- !SHARDING
  tables:
    t_acct:
      actualDataNodes: ds_0.t_acct_${0..1}
      tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: t_inline}}
  shardingAlgorithms:
    t_inline: {type: INLINE, props: {algorithm-expression: "t_acct_${id % 2}"}}
`
	cfg, err := schema.Load("r.yaml", []byte(rules))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("s.sql", []byte("CREATE TABLE t_acct (id BIGINT NOT NULL PRIMARY KEY)"))
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	_, err = build(t, b, ":many", "SELECT id FROM t_acct WHERE id BETWEEN ? AND ?")
	require.EqualError(t, err, `q.sql:2:8: query "Q": a range condition on sharding column "id" cannot be routed by INLINE algorithm "t_inline": compare it with = or IN, or set allow-range-query-with-inline-sharding: true (then the range reaches every data node)`)
	_, err = build(t, b, ":many", "SELECT id FROM t_acct WHERE id IN (?, ?)")
	require.NoError(t, err)
}
