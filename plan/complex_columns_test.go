package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// complexRules: t_item routes data sources by MOD on user_id and tables
// by COMPLEX_INLINE over (user_id, item_id), whose expression reads both;
// t_user routes by MOD on user_id; t_pair routes data sources by COMPLEX_INLINE over (a, b, c) whose
// expression reads a and whose sharding-columns lists a and b.
const complexRules = `databaseName: cx
dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    t_item:
      actualDataNodes: ds_${0..1}.t_item_${0..1}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod2}}
      tableStrategy: {complex: {shardingColumns: "user_id,item_id", shardingAlgorithmName: item_cx}}
    t_user:
      actualDataNodes: ds_${0..1}.t_user
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: mod2}}
    t_pair:
      actualDataNodes: ds_${0..1}.t_pair
      databaseStrategy: {complex: {shardingColumns: "a,b,c", shardingAlgorithmName: pair_cx}}
  shardingAlgorithms:
    mod2: {type: MOD, props: {sharding-count: 2}}
    item_cx: {type: COMPLEX_INLINE, props: {algorithm-expression: "t_item_${(user_id + item_id) % 2}"}}
    pair_cx: {type: COMPLEX_INLINE, props: {sharding-columns: "a,b", algorithm-expression: "ds_${a % 2}"}}
`

const complexDDL = `
CREATE TABLE t_item (user_id BIGINT NOT NULL, item_id BIGINT NOT NULL, sku VARCHAR(16) NULL, PRIMARY KEY (user_id, item_id));
CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(16) NULL);
CREATE TABLE t_pair (a BIGINT NOT NULL, b BIGINT NOT NULL, c BIGINT NOT NULL, PRIMARY KEY (a, b, c));
`

// TestComplexInlineMissingColumns: a condition that gives a COMPLEX_INLINE
// strategy = or IN values for some of its columns but not for one its
// expression reads, or its sharding-columns lists, fails every execution
// in ShardingSphere, whatever the values: a query file is refused at
// generate time and the proxy refuses the statement when it plans it
// (parameters and literals alike, in a subquery evaluated in steps too),
// with the column to add. Conditions that give every such column, ranges
// and no condition at all plan.
func TestComplexInlineMissingColumns(t *testing.T) {
	b := builderOf(t, complexRules, complexDDL)
	const readsItem = `routing table "t_item": COMPLEX_INLINE "t_item_${(user_id + item_id) % 2}" reads "item_id", but the condition gives = or IN values only for user_id: add item_id = ? or item_id IN (…) to it`
	const readsUser = `routing table "t_item": COMPLEX_INLINE "t_item_${(user_id + item_id) % 2}" reads "user_id", but the condition gives = or IN values only for item_id: add user_id = ? or user_id IN (…) to it`
	const listsB = `routing table "t_pair": COMPLEX_INLINE "ds_${a % 2}": sharding-columns lists "b", but the condition gives = or IN values only for a: add b = ? or b IN (…) to it`
	const listsAB = `routing table "t_pair": COMPLEX_INLINE "ds_${a % 2}": sharding-columns lists "a", but the condition gives = or IN values only for c: add a = ? or a IN (…) to it`
	for _, c := range []struct{ sql, err string }{
		{"SELECT sku FROM t_item WHERE user_id = ?", readsItem},
		{"SELECT sku FROM t_item WHERE user_id = 1", readsItem},
		{"SELECT sku FROM t_item WHERE user_id IN (?, ?)", readsItem},
		{"SELECT sku FROM t_item WHERE item_id = ?", readsUser},
		{"SELECT sku FROM t_item WHERE user_id = ? AND item_id = ? OR user_id = ?", readsItem},
		{"SELECT sku FROM t_item WHERE UPPER(sku) = 'A' AND user_id = ?", readsItem},
		{"SELECT user_id FROM t_user WHERE user_id = ? AND name IN (SELECT sku FROM t_item WHERE user_id = ?) ORDER BY user_id", readsItem},
		{"UPDATE t_item SET sku = 'x' WHERE user_id = ?", readsItem},
		{"DELETE FROM t_item WHERE user_id = ?", readsItem},
		{"SELECT c FROM t_pair WHERE a = ?", listsB},
		{"SELECT a FROM t_pair WHERE c = ?", listsAB},
		{"SELECT sku FROM t_item WHERE user_id = ? AND item_id IN (?, ?)", ""},
		{"SELECT sku FROM t_item WHERE user_id = ? AND item_id = 3 OR user_id = 2 AND item_id = ?", ""},
		{"SELECT sku FROM t_item WHERE user_id = ? AND item_id > ?", ""}, // a range: every table, or the range's own refusal
		{"SELECT sku FROM t_item", ""},
		{"SELECT c FROM t_pair WHERE a = ? AND b = ?", ""},
		{"SELECT c FROM t_pair WHERE a = ? AND b = ? AND c = ?", ""},
		{"INSERT INTO t_item (user_id, item_id, sku) VALUES (?, ?, ?)", ""},
	} {
		cmd := ":many"
		if c.sql[0] != 'S' {
			cmd = ":execrows"
		}
		_, fileErr := build(t, b, cmd, c.sql, "shardgen:allow-full-route")
		_, adHocErr := buildAdHoc(b, c.sql)
		if c.err == "" {
			require.NoError(t, fileErr, c.sql)
			require.NoError(t, adHocErr, c.sql)
			continue
		}
		require.ErrorContains(t, fileErr, c.err, c.sql)
		require.ErrorContains(t, adHocErr, c.err, c.sql)
	}
}
