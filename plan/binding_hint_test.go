package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnboundJoinHint: the refusal of a join of two tables sharded alike
// but not bound suggests bindingTables only where the join compares their
// sharding columns with each other; joined on another column of one it
// says to shard that table by the column, joined on no sharding column it
// says binding cannot help.
func TestUnboundJoinHint(t *testing.T) {
	const rules = `dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:3306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:3306/ds_1"}
rules:
- !SHARDING
  tables:
    h_order: {actualDataNodes: "ds_${0..1}.h_order", databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod2}}}
    h_user: {actualDataNodes: "ds_${0..1}.h_user", databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod2}}}
    h_pay: {actualDataNodes: "ds_${0..1}.h_pay", databaseStrategy: {standard: {shardingColumn: pay_id, shardingAlgorithmName: mod2}}}
  shardingAlgorithms:
    mod2: {type: MOD, props: {sharding-count: 2}}
`
	const ddl = `CREATE TABLE h_order (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL, note VARCHAR(8));
CREATE TABLE h_user (user_id BIGINT PRIMARY KEY, name VARCHAR(8));
CREATE TABLE h_pay (pay_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL, name VARCHAR(8))`
	b := builderOf(t, rules, ddl)
	for _, c := range []struct{ sql, err string }{
		{"SELECT u.name FROM h_order o JOIN h_user u ON u.user_id = o.user_id WHERE o.user_id IN (1, 2)",
			`join of sharded tables "h_order" and "h_user" that are not bound: add bindingTables: ["h_order, h_user"] to the !SHARDING rule and join them on their sharding columns`},
		{"SELECT p.pay_id FROM h_order o JOIN h_pay p ON p.user_id = o.user_id WHERE o.user_id IN (1, 2)",
			`join of sharded tables "h_order" and "h_pay" that are not bound: binding them as they are would not co-locate matching rows (the join does not compare their sharding columns with each other): shard "h_pay" by user_id (the column it joins with h_order.user_id) and bind the two (bindingTables), or compare each table's sharding columns with one value (=)`},
		{"SELECT u.name FROM h_order o, h_user u WHERE o.note = u.name AND o.user_id IN (1, 2) AND u.user_id IN (3, 4)",
			`join of sharded tables "h_order" and "h_user" that are not bound: the join compares no sharding column, so binding them would not co-locate matching rows: make "h_order" or "h_user" a broadcast table, or compare each table's sharding columns with one value (=)`},
	} {
		_, err := build(t, b, ":many", c.sql)
		require.ErrorContains(t, err, c.err, c.sql)
	}
}
