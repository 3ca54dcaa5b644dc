package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/runtime"
)

// preciseRules cover the strategies the fast path of Builder.Units
// (one value of one sharding column) meets: the same column on both sides
// (t_user: HASH_MOD then MOD), different columns per side (t_split), a
// text column with INLINE (t_code, where trailing spaces must not matter),
// a side without strategy over several targets (t_nodb), a complex
// strategy (t_cx) and an INTERVAL over dates (t_day).
const preciseRules = `databaseName: precise
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
    t_split:
      actualDataNodes: ds_${0..1}.t_split_${0..1}
      databaseStrategy: {standard: {shardingColumn: a, shardingAlgorithmName: mod2}}
      tableStrategy: {standard: {shardingColumn: b, shardingAlgorithmName: mod2}}
    t_code:
      actualDataNodes: ds_${0..1}.t_code_${0..2}
      databaseStrategy: {standard: {shardingColumn: code, shardingAlgorithmName: code_hash}}
      tableStrategy: {standard: {shardingColumn: code, shardingAlgorithmName: code_hash3}}
    t_nodb:
      actualDataNodes: ds_${0..1}.t_nodb_${0..1}
      tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: mod2}}
    t_cx:
      actualDataNodes: ds_${0..1}.t_cx
      databaseStrategy: {complex: {shardingColumns: "a,b", shardingAlgorithmName: cx}}
    t_day:
      actualDataNodes: ds_0.t_day_${['202601', '202602', '202603']}
      tableStrategy: {standard: {shardingColumn: day, shardingAlgorithmName: day_month}}
  shardingAlgorithms:
    user_hash: {type: HASH_MOD, props: {sharding-count: 2}}
    user_mod: {type: MOD, props: {sharding-count: 3}}
    mod2: {type: MOD, props: {sharding-count: 2}}
    code_hash: {type: HASH_MOD, props: {sharding-count: 2}}
    code_hash3: {type: HASH_MOD, props: {sharding-count: 3}}
    cx: {type: COMPLEX_INLINE, props: {sharding-columns: "a,b", algorithm-expression: "ds_${(a + b) % 2}"}}
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

const preciseDDL = `CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(16));
CREATE TABLE t_split (a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b));
CREATE TABLE t_code (code VARCHAR(16) NOT NULL PRIMARY KEY, n INT);
CREATE TABLE t_nodb (id INT NOT NULL PRIMARY KEY, n INT);
CREATE TABLE t_cx (a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b));
CREATE TABLE t_day (id BIGINT NOT NULL PRIMARY KEY, day DATE NOT NULL);
`

// TestPreciseUnitMatchesConditions: for every statement and value, Units
// (with its allocation-free path for one value of one sharding column)
// returns what the full conversion and route of the conditions return, the
// same units or the same error.
func TestPreciseUnitMatchesConditions(t *testing.T) {
	b := builderOf(t, preciseRules, preciseDDL)
	values := []runtime.Value{
		runtime.Int(0), runtime.Int(5), runtime.Int(-7), runtime.Int(1 << 30),
		runtime.Long(6), runtime.Long(-1 << 40), runtime.Long(1<<63 - 1),
		runtime.String("5"), runtime.String("5 "), runtime.String("ab"), runtime.String("ab "), runtime.String("ab  "), runtime.String(""),
		runtime.String("2026-02-03"), runtime.String("2027-01-01"),
		runtime.Decimal("5.0"), runtime.Decimal("5.5"), runtime.Null,
		runtime.IntegerLiteral("18446744073709551615"),
	}
	var fast int
	for _, q := range []string{
		"SELECT name FROM t_user WHERE user_id = ?",
		"UPDATE t_user SET name = 'x' WHERE user_id = ?",
		"DELETE FROM t_user WHERE user_id = ?",
		"INSERT INTO t_user (user_id, name) VALUES (?, 'x')",
		"SELECT b FROM t_split WHERE a = ?",
		"SELECT a FROM t_split WHERE b = ?",
		"SELECT n FROM t_code WHERE code = ?",
		"INSERT INTO t_code (code, n) VALUES (?, 1)",
		"SELECT n FROM t_nodb WHERE id = ?",
		"SELECT b FROM t_cx WHERE a = ? AND b = 1", // a = ? alone is refused: sharding-columns lists b
		"SELECT id FROM t_day WHERE day = ?",
		"INSERT INTO t_day (id, day) VALUES (1, ?)",
	} {
		p, err := buildAdHoc(b, q)
		require.NoError(t, err, q)
		for _, v := range values {
			params := []runtime.Value{v}
			want, wantErr := b.ConditionUnits(p, []runtime.Value{v})
			got, gotErr := b.Units(p, params)
			if wantErr != nil {
				require.EqualError(t, gotErr, wantErr.Error(), "%s with %v", q, v)
				continue
			}
			require.NoError(t, gotErr, "%s with %v", q, v)
			if want == nil {
				want = []int{}
			}
			if got == nil {
				got = []int{}
			}
			require.Equal(t, want, got, "%s with %v", q, v)
			if allocs := testing.AllocsPerRun(10, func() { _, _ = b.Units(p, params) }); allocs == 0 {
				fast++
			}
		}
	}
	require.Greater(t, fast, 20, "the allocation-free path was taken %d times", fast)
}
