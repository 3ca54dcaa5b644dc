package proxy

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// hjDDL are two logic tables sharded on different columns (hj_a by id,
// hj_b by bid) whose text keys are of the collations a join across data
// nodes compares in process (utf8mb4_general_ci) or by the servers'
// WEIGHT_STRING (utf8mb4_unicode_ci, MariaDB's utf8mb4_uca1400_ai_ci,
// which MySQL spells utf8mb4_0900_ai_ci, and latin1_swedish_ci), with
// numeric keys of two scales.
const hjDDL = `CREATE TABLE hj_a (
  id BIGINT NOT NULL,
  g VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  u VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
  c VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NULL,
  l VARCHAR(16) CHARACTER SET latin1 COLLATE latin1_swedish_ci NULL,
  n INT NULL,
  d DECIMAL(6,2) NULL,
  PRIMARY KEY (id)
);
CREATE TABLE hj_b (
  bid BIGINT NOT NULL,
  a_id BIGINT NULL,
  g VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  u VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
  c VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NULL,
  l VARCHAR(16) CHARACTER SET latin1 COLLATE latin1_swedish_ci NULL,
  n INT NULL,
  d DECIMAL(8,3) NULL,
  PRIMARY KEY (bid)
)`

// hjRules shards hj_a by id % 2 and hj_b by bid % 2 over ds_0 and ds_1.
const hjRules = `      hj_a:
        actualDataNodes: ds_${0..1}.hj_a
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: hj_a_mod
      hj_b:
        actualDataNodes: ds_${0..1}.hj_b
        databaseStrategy:
          standard:
            shardingColumn: bid
            shardingAlgorithmName: hj_b_mod
    shardingAlgorithms:
      hj_a_mod:
        type: INLINE
        props:
          algorithm-expression: ds_${id % 2}
      hj_b_mod:
        type: INLINE
        props:
          algorithm-expression: ds_${bid % 2}
`

// hjRows: every text key in case, accent and trailing-space variants
// ('a', 'A', 'á', 'à', 'a ', 'ss', 'ß', 'Ä', 'ae'), NULL keys on both
// sides, duplicate keys on both sides, rows that match nothing.
var hjRows = []string{
	"INSERT INTO hj_a VALUES (1, 'a', 'a', 'a', 'a', 1, 1.50), (2, 'A', 'A', 'A', 'A', 1, 1.5), (3, 'á', 'á', 'á', 'á', 2, 2.00)",
	"INSERT INTO hj_a VALUES (4, 'a ', 'a ', 'a ', 'a ', NULL, NULL), (5, NULL, NULL, NULL, NULL, 2, 2), (6, 'ss', 'ss', 'ss', 'ss', 3, 3.10)",
	"INSERT INTO hj_a VALUES (7, 'ß', 'ß', 'ß', 'ß', 3, 3.1), (8, 'b', 'b', 'b', 'b', 4, 0), (9, 'Ä', 'Ä', 'Ä', 'Ä', 5, NULL), (10, 'x', 'x', 'x', 'x', 99, 9)",
	"INSERT INTO hj_b VALUES (100, 1, 'A', 'A', 'A', 'A', 1, 1.5), (101, 1, 'a  ', 'a  ', 'a  ', 'a  ', 1, 1.500), (102, NULL, 'à', 'à', 'à', 'à', 2, 2)",
	"INSERT INTO hj_b VALUES (103, 3, NULL, NULL, NULL, NULL, NULL, NULL), (104, 6, 'SS', 'SS', 'SS', 'SS', 3, 3.100), (105, 7, 'ß ', 'ß ', 'ß ', 'ß ', 3, 3.1)",
	"INSERT INTO hj_b VALUES (106, 42, 'zz', 'zz', 'zz', 'zz', 42, 42), (107, 8, 'B', 'B', 'B', 'B', 4, 0.000), (108, 9, 'ae', 'ae', 'ae', 'ae', 5, 5)",
	"INSERT INTO hj_b VALUES (109, 2, 'Á', 'Á', 'Á', 'Á', 1, 1.5), (110, 2, 'a', 'a', 'a', 'a', 2, 2.0), (111, NULL, 'Ä', 'Ä', 'Ä', 'Ä', NULL, NULL)",
}

// hjQueries are joins of hj_a and hj_b on each text key, numeric keys and
// several keys, INNER / LEFT / RIGHT, with and without ORDER BY, and with
// residual comparisons (<, <=, >, >=, <>) of text and numbers of each side
// applied after the key match.
func hjQueries() []string {
	var out []string
	for _, k := range []string{"g", "u", "c", "l"} {
		for _, q := range []string{
			"SELECT a.id, b.bid, a.%[1]s, b.%[1]s FROM hj_a a JOIN hj_b b ON a.%[1]s = b.%[1]s",
			"SELECT a.id, b.bid FROM hj_a a LEFT JOIN hj_b b ON a.%[1]s = b.%[1]s",
			"SELECT a.id, b.bid FROM hj_a a RIGHT JOIN hj_b b ON b.%[1]s = a.%[1]s",
			"SELECT a.id, a.%[1]s FROM hj_a a LEFT JOIN hj_b b ON a.%[1]s = b.%[1]s WHERE b.bid IS NULL",
			"SELECT b.bid, b.%[1]s FROM hj_a a RIGHT JOIN hj_b b ON a.%[1]s = b.%[1]s WHERE a.id IS NULL",
			"SELECT a.id, b.bid FROM hj_a a JOIN hj_b b ON a.%[1]s = b.%[1]s AND a.n = b.n",
			"SELECT a.id, b.bid FROM hj_a a LEFT JOIN hj_b b ON a.%[1]s = b.%[1]s AND a.d = b.d AND b.n < 4",
			"SELECT a.%[1]s, a.id, b.bid FROM hj_a a JOIN hj_b b ON a.%[1]s = b.%[1]s ORDER BY a.%[1]s DESC, a.id, b.bid",
			"SELECT b.%[1]s, a.id, b.bid FROM hj_a a RIGHT JOIN hj_b b ON a.%[1]s = b.%[1]s ORDER BY b.%[1]s, b.bid, a.id LIMIT 2, 5",
			"SELECT a.id, COUNT(*), COUNT(b.bid) FROM hj_a a LEFT JOIN hj_b b ON a.%[1]s = b.%[1]s GROUP BY a.id ORDER BY a.id",
			// Residual comparisons after the key match.
			"SELECT a.id, b.bid FROM hj_a a JOIN hj_b b ON a.n = b.n AND a.%[1]s < b.%[1]s",
			"SELECT a.id, b.bid FROM hj_a a LEFT JOIN hj_b b ON a.n = b.n AND a.%[1]s <> b.%[1]s",
			"SELECT a.id, b.bid FROM hj_a a RIGHT JOIN hj_b b ON a.n = b.n AND b.%[1]s >= a.%[1]s ORDER BY b.bid, a.id",
			"SELECT a.id, b.bid FROM hj_a a JOIN hj_b b ON a.id = b.a_id WHERE a.%[1]s <= b.%[1]s AND b.%[1]s > a.%[1]s",
		} {
			out = append(out, fmt.Sprintf(q, k))
		}
	}
	return append(out,
		"SELECT a.id, b.bid FROM hj_a a JOIN hj_b b ON a.id = b.a_id",
		"SELECT a.id, b.bid FROM hj_a a LEFT JOIN hj_b b ON a.id = b.a_id AND a.n = b.n",
		"SELECT a.id, b.bid FROM hj_a a RIGHT JOIN hj_b b ON a.id = b.a_id ORDER BY b.bid, a.id",
		"SELECT a.id, b.bid, a.d, b.d FROM hj_a a JOIN hj_b b ON a.d = b.d",
		"SELECT a.id, b.bid FROM hj_a a LEFT JOIN hj_b b ON a.n = b.n AND a.l = b.l AND a.u = b.u",
		"SELECT a.id, b.bid FROM hj_a a, hj_b b WHERE a.n = b.n AND a.g = b.g AND b.n > 1 ORDER BY a.id DESC, b.bid",
		"SELECT a.id, b.bid FROM hj_a a JOIN hj_b b ON a.n = b.n AND a.d < b.d",
		"SELECT a.id, b.bid FROM hj_a a LEFT JOIN hj_b b ON a.n = b.n AND b.d >= a.d AND a.id <> b.a_id",
		"SELECT a.id, b.bid FROM hj_a a RIGHT JOIN hj_b b ON a.id = b.a_id AND a.n > b.n",
		"SELECT a.id, b.bid FROM hj_a a JOIN hj_b b ON a.id = b.a_id AND a.n = b.n AND a.d = b.d",
		"SELECT a.n, COUNT(*) FROM hj_a a JOIN hj_b b ON a.n = b.n AND a.id < b.a_id GROUP BY a.n ORDER BY a.n",
	)
}

// TestStepsJoinStrategies: the same joins run by the nested loop, by the
// hash join and by the automatic choice (props cross-node-join) give the
// rows of the unsharded reference database: the joins of TestStepsJoin,
// TestStepsJoinMany and TestStepsJoinGenerated, and joins on text keys of
// four collations with case, accent and trailing-space variants, NULL and
// duplicate keys, LEFT and RIGHT joins without a match (hjQueries).
func TestStepsJoinStrategies(t *testing.T) {
	for _, s := range []string{"nested-loop", "hash", "auto"} {
		t.Run(s, func(t *testing.T) {
			props := "  cross-node-join: " + s + "\n"
			e, px := newXnEnvProps(t, props)
			queries := append(append(append([]string(nil), stepsJoinQueries...), stepsJoinManyQueries...), generatedStepsQueries(150)...)
			for _, q := range queries {
				sameRows(t, px, e.ref, q)
			}
			e, px = newStepsEnv(t, props, hjRules, hjDDL, hjRows, "hj_a", "hj_b")
			for _, q := range hjQueries() {
				sameRows(t, px, e.ref, q)
			}
			// A residual comparison runs in the join's steps, not over
			// temporary tables.
			pv := rowsOf(t, px, "PREVIEW SELECT a.id, b.bid FROM hj_a a LEFT JOIN hj_b b ON a.n = b.n AND a.u <> b.u")
			require.Len(t, pv, 6)
			require.Contains(t, pv[2], "step 2: build side of the hash join")
		})
	}
}

// TestStepsHashJoinBound: the hash join's build side counts toward
// max-cross-node-rows: with cross-node-join hash a join whose inner side
// holds more rows fails naming it (generated code's operators for two
// tables, the proxy's own for three), where the nested loop, binding only
// the two outer rows' keys, runs.
func TestStepsHashJoinBound(t *testing.T) {
	const two = "SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id WHERE a.id IN (1, 4) ORDER BY b.bid"
	const three = "SELECT a.id, b.bid, c.id FROM xn_a a JOIN xn_b b ON a.id = b.a_id JOIN xn_a c ON c.id = b.a_id WHERE a.id IN (1, 4) ORDER BY b.bid"
	e, px := newXnEnvProps(t, "  max-cross-node-rows: 5\n  cross-node-join: nested-loop\n")
	sameRows(t, px, e.ref, two)
	sameRows(t, px, e.ref, three)
	_, px = newXnEnvProps(t, "  max-cross-node-rows: 5\n  cross-node-join: hash\n")
	_, err := px.Exec(two)
	require.EqualError(t, err, "Error 1105 (HY000): the build side of the hash join (select b.bid, b.a_id, b.bid from xn_b as b) holds more rows than max-cross-node-rows allows (5); raise it in props or narrow the statement")
	_, err = px.Exec(three)
	require.ErrorContains(t, err, "the build side of the hash join (select b.bid, b.a_id, b.bid, b.a_id from xn_b as b) holds more rows than max-cross-node-rows allows (5); raise it in props or narrow the join")
	// auto: two outer rows are one batch, the nested loop runs.
	e, px = newXnEnvProps(t, "  max-cross-node-rows: 5\n")
	sameRows(t, px, e.ref, two)
	sameRows(t, px, e.ref, three)
}
