package proxy

import (
	"database/sql"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// xnDDL are two logic tables sharded on different columns: xn_a by id,
// xn_b by bid; xn_b.a_id refers to xn_a.id (NULL for some rows). Text
// columns are utf8mb4 (case-insensitive) and latin1.
const xnDDL = `CREATE TABLE xn_a (
  id BIGINT NOT NULL,
  k INT NULL,
  name VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  lat VARCHAR(16) CHARACTER SET latin1 NULL,
  price DECIMAL(8,2) NULL,
  day DATE NULL,
  PRIMARY KEY (id)
);
CREATE TABLE xn_b (
  bid BIGINT NOT NULL,
  a_id BIGINT NULL,
  name VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  lat VARCHAR(16) CHARACTER SET latin1 NULL,
  price DECIMAL(8,2) NULL,
  day DATE NULL,
  PRIMARY KEY (bid)
)`

// xnRules shards xn_a by id % 2 and xn_b by bid % 2 over ds_0 and ds_1.
const xnRules = `      xn_a:
        actualDataNodes: ds_${0..1}.xn_a
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: xn_a_mod
      xn_b:
        actualDataNodes: ds_${0..1}.xn_b
        databaseStrategy:
          standard:
            shardingColumn: bid
            shardingAlgorithmName: xn_b_mod
    shardingAlgorithms:
      xn_a_mod:
        type: INLINE
        props:
          algorithm-expression: ds_${id % 2}
      xn_b_mod:
        type: INLINE
        props:
          algorithm-expression: ds_${bid % 2}
`

var xnRows = []string{
	"INSERT INTO xn_a VALUES (1, 10, 'alpha', 'é', 1.50, '2024-01-01'), (2, 20, 'Beta', 'e', 2.00, '2024-02-02'), (3, NULL, NULL, NULL, NULL, NULL)",
	"INSERT INTO xn_a VALUES (4, 10, '東京', 'ÿ', 1.5, '2024-01-01'), (5, 30, 'beta', 'E', 3.25, NULL), (6, 20, 'ALPHA ', 'x', 0, '0000-00-00')",
	"INSERT INTO xn_a VALUES (7, 40, '大阪', 'é', 7.00, '2024-07-07'), (8, 10, 'gamma', NULL, 8.88, '2024-08-08')",
	"INSERT INTO xn_b VALUES (100, 1, 'BETA', 'E', 1.50, '2024-02-02'), (101, 1, 'alpha', 'é', NULL, NULL), (102, NULL, '東京', NULL, 2.00, '2024-01-01')",
	"INSERT INTO xn_b VALUES (103, 4, 'tokyo', 'x', 3.25, '0000-00-00'), (104, 4, NULL, 'ÿ', 9.99, '2024-07-07'), (105, 7, '大阪', 'e', 7, '2024-07-07')",
	"INSERT INTO xn_b VALUES (106, 99, 'nobody', 'z', NULL, NULL), (107, 2, 'alpha', 'É', 0.00, '2024-08-08')",
}

// newXnEnv is a proxy with xn_a and xn_b created and filled through it,
// and the same rows in the reference database.
func newXnEnv(t *testing.T) (*pxEnv, *sql.DB) {
	t.Helper()
	y := strings.Replace(pxYAML(), "    shardingAlgorithms:\n", xnRules, 1)
	e := newPxEnvDDL(t, y, xnDDL)
	px := e.client(t, "root", "secret", nil)
	dss := []*sql.DB{testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1"), e.ref}
	for _, db := range dss {
		execAll(t, db, "DROP TABLE IF EXISTS xn_a", "DROP TABLE IF EXISTS xn_b")
		t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS xn_a", "DROP TABLE IF EXISTS xn_b") })
	}
	for _, ddl := range strings.Split(xnDDL, ";") {
		execAll(t, px, ddl)
		execAll(t, e.ref, ddl)
	}
	execAll(t, px, xnRows...)
	execAll(t, e.ref, xnRows...)
	return e, px
}

// sameRows compares the rows of q through the proxy and on the reference
// database; without ORDER BY they are compared as multisets.
func sameRows(t *testing.T, px, ref *sql.DB, q string) {
	t.Helper()
	want, got := rowsOf(t, ref, q), rowsOf(t, px, q)
	if !strings.Contains(strings.ToUpper(q), "ORDER BY") {
		sort.Strings(want)
		sort.Strings(got)
	}
	require.Equal(t, want, got, q)
}

// TestStepsSubqueries: uncorrelated subqueries whose tables do not
// co-locate with the outer query are evaluated first and bound as values,
// with MySQL's semantics (NULL in IN lists, empty results, scalar NULL,
// error 1242), compared with the unsharded reference database.
func TestStepsSubqueries(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT id, name FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE name = 'alpha')",
		"SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b)",
		"SELECT id FROM xn_a WHERE id NOT IN (SELECT a_id FROM xn_b)", // a NULL: no row
		"SELECT id FROM xn_a WHERE id NOT IN (SELECT a_id FROM xn_b WHERE a_id IS NOT NULL)",
		"SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE a_id > 1000)",     // empty: FALSE
		"SELECT id FROM xn_a WHERE id NOT IN (SELECT a_id FROM xn_b WHERE a_id > 1000)", // empty: TRUE
		"SELECT id FROM xn_a WHERE k NOT IN (SELECT a_id FROM xn_b WHERE a_id > 1000)",  // even for NULL k
		"SELECT id, name FROM xn_a WHERE name IN (SELECT name FROM xn_b)",               // general_ci, trailing space
		"SELECT id, lat FROM xn_a WHERE lat IN (SELECT lat FROM xn_b)",                  // latin1
		"SELECT id FROM xn_a WHERE price IN (SELECT price FROM xn_b)",
		"SELECT id FROM xn_a WHERE day IN (SELECT day FROM xn_b)",
		"SELECT id FROM xn_a WHERE EXISTS (SELECT 1 FROM xn_b WHERE bid = 105)",
		"SELECT id FROM xn_a WHERE NOT EXISTS (SELECT 1 FROM xn_b WHERE bid = 1)",
		"SELECT id FROM xn_a WHERE id = (SELECT MAX(a_id) FROM xn_b WHERE a_id < 50)",
		"SELECT id FROM xn_a WHERE id = (SELECT a_id FROM xn_b WHERE bid = 2)", // NULL
		"SELECT id, (SELECT COUNT(*) FROM xn_b) AS n FROM xn_a",
		"SELECT id FROM xn_a WHERE id = ANY (SELECT a_id FROM xn_b)",
		"SELECT id FROM xn_a WHERE id <> ALL (SELECT a_id FROM xn_b WHERE a_id IS NOT NULL)",
		"SELECT id FROM xn_a WHERE (id, name) IN (SELECT a_id, name FROM xn_b)",
		"SELECT id FROM xn_a WHERE id IN (SELECT id FROM xn_a WHERE k = 10) ORDER BY id DESC",
		"SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE name IN (SELECT name FROM xn_a WHERE k = 20))",
		"SELECT k, COUNT(*) FROM xn_a WHERE id IN (SELECT a_id FROM xn_b) GROUP BY k ORDER BY k",
		"SELECT bid FROM xn_b WHERE a_id IN (SELECT id FROM xn_a WHERE name = '東京') ORDER BY bid",
	} {
		sameRows(t, px, e.ref, q)
	}
	// A correlated subquery is not evaluated in steps: the planner's
	// refusal stands.
	_, err := px.Exec("SELECT id FROM xn_a WHERE EXISTS (SELECT 1 FROM xn_b WHERE xn_b.a_id = xn_a.id)")
	require.ErrorContains(t, err, "Error 1235 (42000): the statement has a subquery")
	const many = "SELECT id FROM xn_a WHERE id = (SELECT a_id FROM xn_b)"
	_, err = e.ref.Exec(many)
	require.EqualError(t, err, "Error 1242 (21000): Subquery returns more than 1 row")
	_, err = px.Exec(many)
	require.EqualError(t, err, "Error 1242 (21000): Subquery returns more than 1 row")
}

// TestStepsMaxRows: a subquery holding more rows than max-cross-node-rows
// fails the statement with the limit named; within it, it runs.
func TestStepsMaxRows(t *testing.T) {
	y := strings.Replace(pxYAML(), "    shardingAlgorithms:\n", xnRules, 1)
	y = strings.Replace(y, "authority:", "props:\n  max-cross-node-rows: 3\nauthority:", 1)
	e := newPxEnvDDL(t, y, xnDDL)
	px := e.client(t, "root", "secret", nil)
	for _, db := range []*sql.DB{testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1")} {
		execAll(t, db, "DROP TABLE IF EXISTS xn_a", "DROP TABLE IF EXISTS xn_b")
		t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS xn_a", "DROP TABLE IF EXISTS xn_b") })
	}
	for _, ddl := range strings.Split(xnDDL, ";") {
		execAll(t, px, ddl)
	}
	execAll(t, px, xnRows...)
	require.Equal(t, []string{"int64:1", "int64:4"}, rowsOf(t, px, "SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid IN (100, 101, 103)) ORDER BY id"))
	_, err := px.Exec("SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b)")
	require.EqualError(t, err, "Error 1105 (HY000): subquery select a_id from xn_b: the subquery holds more rows than max-cross-node-rows allows (3); raise it in props or narrow the subquery")
}

// TestStepsPreview: PREVIEW of a statement evaluated in steps shows each
// step's per-node SQL in order, then the statement the values are bound
// into.
func TestStepsPreview(t *testing.T) {
	e, px := newXnEnv(t)
	_ = e
	got := rowsOf(t, px, "PREVIEW SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid = 101) AND EXISTS (SELECT 1 FROM xn_b)")
	require.Equal(t, []string{
		"string:ds_1 | string:/* step 1: in subquery */ select a_id from xn_b where bid = 101",
		"string:ds_0 | string:/* step 2: exists subquery */ select 1 from xn_b limit 1",
		"string:ds_1 | string:/* step 2: exists subquery */ select 1 from xn_b limit 1",
		"string:(bound) | string:/* step 3: the statement with the rows of steps 1-2 bound as values, routed by them */ SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid = 101) AND EXISTS (SELECT 1 FROM xn_b)",
	}, got)
}
