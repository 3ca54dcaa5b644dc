package proxy

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
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
	return newXnEnvProps(t, "")
}

// newXnEnvProps is newXnEnv with top-level props (YAML lines, each
// indented by two spaces and ending in a newline).
func newXnEnvProps(t *testing.T, props string) (*pxEnv, *sql.DB) {
	t.Helper()
	return newStepsEnv(t, props, xnRules, xnDDL, xnRows, "xn_a", "xn_b")
}

// newStepsEnv is a proxy with top-level props, the rules (YAML lines that
// replace the shardingAlgorithms: line of pxYAML), and the tables of ddl
// created and filled (rows) through it, and the same rows in the
// reference database; tables are dropped before and after.
func newStepsEnv(t *testing.T, props, rules, ddl string, rows []string, tables ...string) (*pxEnv, *sql.DB) {
	t.Helper()
	return newStepsEnvOpts(t, props, Options{}, rules, ddl, rows, tables...)
}

// newStepsEnvOpts is newStepsEnv with server options.
func newStepsEnvOpts(t *testing.T, props string, opts Options, rules, ddl string, rows []string, tables ...string) (*pxEnv, *sql.DB) {
	t.Helper()
	y := strings.Replace(pxYAML(), "    shardingAlgorithms:\n", rules, 1)
	if props != "" {
		y = strings.Replace(y, "authority:", "props:\n"+props+"authority:", 1)
	}
	e := newPxEnvOpts(t, y, ddl, opts)
	px := e.client(t, "root", "secret", nil)
	dss := []*sql.DB{testdb.Open(t, "ds_0"), testdb.Open(t, "ds_1"), e.ref}
	for _, db := range dss {
		for _, tb := range tables {
			execAll(t, db, "DROP TABLE IF EXISTS "+tb)
			t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS "+tb) })
		}
	}
	for _, ddl := range strings.Split(ddl, ";") {
		execAll(t, px, ddl)
		execAll(t, e.ref, ddl)
	}
	execAll(t, px, rows...)
	execAll(t, e.ref, rows...)
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
	const many = "SELECT id FROM xn_a WHERE id = (SELECT a_id FROM xn_b)"
	_, err := e.ref.Exec(many)
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
	require.EqualError(t, err, "Error 1105 (HY000): the subquery (select a_id from xn_b) holds more rows than max-cross-node-rows allows (3); raise it in props or narrow the statement")
	// Over temporary tables each table holds at most that many rows.
	_, err = px.Exec("SELECT id FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.a_id = a.id AND b.bid IN (100, 101))")
	require.EqualError(t, err, "Error 1105 (HY000): table xn_a, read for a temporary table (select id, k, hex(`name`), hex(lat), price, `day` from xn_a), holds more rows than max-cross-node-rows allows (3); raise it in props or narrow the statement")
	require.Equal(t, []string{"int64:1"}, rowsOf(t, px, "SELECT id FROM xn_a a WHERE a.id IN (1, 2) AND EXISTS (SELECT 1 FROM xn_b b WHERE b.a_id = a.id AND b.bid IN (100, 101))"))
	_, err = px.Exec("SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id < b.a_id WHERE a.id IN (1, 2) AND b.bid IN (103, 104, 105)")
	require.EqualError(t, err, "Error 1105 (HY000): the statement over temporary tables holds more rows than max-cross-node-rows allows (3); raise it in props or narrow the statement")
}

// TestStepsPreview: PREVIEW of a statement evaluated in steps shows each
// step's per-node SQL in order, then the statement the values are bound
// into.
func TestStepsPreview(t *testing.T) {
	e, px := newXnEnv(t)
	_ = e
	got := rowsOf(t, px, "PREVIEW SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid = 101) AND EXISTS (SELECT 1 FROM xn_b)")
	// Run as generated code runs it (plan.BuildStepsPlan): each subquery,
	// then the statement with their values as its arguments.
	require.Equal(t, []string{
		"string:ds_1 | string:/* step 1: the IN subquery */ select a_id from xn_b where bid = 101",
		"string:ds_0 | string:/* step 2: the EXISTS subquery (one row at most) */ select 1 from xn_b limit 1",
		"string:ds_1 | string:/* step 2: the EXISTS subquery (one row at most) */ select 1 from xn_b limit 1",
		"string:ds_0 | string:/* step 3: the statement, taking an IN list (?) the values of step 1, a cast(? as signed) 1 when step 2 returned a row, else 0; its IN list split by the data nodes of its values (xn_a.id): a data node that gets none is not asked */ select id from xn_a where id in (?) and cast(? as signed)",
		"string:ds_1 | string:/* step 3: the statement, taking an IN list (?) the values of step 1, a cast(? as signed) 1 when step 2 returned a row, else 0; its IN list split by the data nodes of its values (xn_a.id): a data node that gets none is not asked */ select id from xn_a where id in (?) and cast(? as signed)",
	}, got)
	got = rowsOf(t, px, "PREVIEW SELECT id, (SELECT MAX(bid) FROM xn_b) AS top FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid = 101)")
	require.Equal(t, []string{
		"string:ds_0 | string:/* step 1: the scalar subquery (two rows at most) */ select max(bid) from xn_b",
		"string:ds_1 | string:/* step 1: the scalar subquery (two rows at most) */ select max(bid) from xn_b",
		"string:ds_1 | string:/* step 2: the IN subquery */ select a_id from xn_b where bid = 101",
		"string:ds_0 | string:/* step 3: the statement, taking a ? the value of step 1 (NULL when it returned no row; more than one row fails with error 1242), an IN list (?) the values of step 2; its IN list split by the data nodes of its values (xn_a.id): a data node that gets none is not asked */ select id, cast(? as signed) as top from xn_a where id in (?)",
		"string:ds_1 | string:/* step 3: the statement, taking a ? the value of step 1 (NULL when it returned no row; more than one row fails with error 1242), an IN list (?) the values of step 2; its IN list split by the data nodes of its values (xn_a.id): a data node that gets none is not asked */ select id, cast(? as signed) as top from xn_a where id in (?)",
	}, got)
	// The proxy's own operators (a subquery whose own statement needs
	// steps): the bound statement is planned at run time.
	got = rowsOf(t, px, "PREVIEW SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE name IN (SELECT name FROM xn_a WHERE k = 20))")
	require.Equal(t, "string:(bound) | string:/* step 3: the statement with the rows of steps 1-2 bound as values, routed by them */ SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE name IN (SELECT name FROM xn_a WHERE k = 20))", got[len(got)-1])
}

// TestMergeDateKeys: DATE(x) and CAST(x AS DATE / DATETIME) as GROUP BY
// and ORDER BY keys across data nodes merge as dates, equal to the
// unsharded reference.
func TestMergeDateKeys(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT DATE(day) AS d, COUNT(*) FROM xn_a GROUP BY DATE(day) ORDER BY d",
		"SELECT CAST(day AS DATE) AS d, MAX(bid) FROM xn_b GROUP BY CAST(day AS DATE) ORDER BY d DESC",
		"SELECT id, day FROM xn_a ORDER BY CAST(day AS DATETIME) DESC, id",
		"SELECT COUNT(*) FROM xn_b GROUP BY DATE(day)",
	} {
		sameRows(t, px, e.ref, q)
	}
}

// TestLimitedWritePreview: PREVIEW of an UPDATE or DELETE … ORDER BY …
// LIMIT over several data nodes shows the SELECT of the keys on each data
// node, then the write of those rows; one that cannot run says why.
func TestLimitedWritePreview(t *testing.T) {
	_, px := newXnEnv(t)
	got := rowsOf(t, px, "PREVIEW UPDATE xn_a SET k = k + 1 WHERE k > 0 ORDER BY k DESC, id LIMIT 2")
	require.Equal(t, []string{
		"string:ds_0 | string:/* step 1: in subquery */ select xn_a.id, k as ORDER_BY_DERIVED_0 from xn_a where k > 0 order by k desc, id asc limit 2",
		"string:ds_1 | string:/* step 1: in subquery */ select xn_a.id, k as ORDER_BY_DERIVED_0 from xn_a where k > 0 order by k desc, id asc limit 2",
		"string:(bound) | string:/* step 2: the write of exactly the rows whose keys step 1 selected (their keys bound as the IN list), without ORDER BY and LIMIT, as one all-or-nothing write over their data nodes, routed by them */ update xn_a set k = k + 1 where k > 0 and xn_a.id in (select xn_a.id from xn_a where k > 0 order by k desc, id asc limit 2)",
	}, got)
	_, err := px.Exec("PREVIEW DELETE FROM xn_a ORDER BY k LIMIT 2")
	require.ErrorContains(t, err, "the ORDER BY must include every column of the primary key (id)")
}

// TestStepsJoin: joins of tables sharded on different columns (and
// self-joins not on the sharding column) run as nested-loop joins, with
// MySQL's comparisons (NULL keys never match, general_ci and PAD SPACE,
// latin1 by the server's sort keys, DECIMAL 1.50 = 1.5, DATE), INNER,
// LEFT and RIGHT, ORDER BY and LIMIT over the joined rows; compared with
// the unsharded reference database.
func TestStepsJoin(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range stepsJoinQueries {
		sameRows(t, px, e.ref, q)
	}
	// Shapes the nested-loop join refuses run over temporary tables
	// (TestStepsFederation); a locking read stays refused with the join's
	// reason.
	const q = "SELECT a.id FROM xn_a a JOIN xn_b b ON a.id < b.a_id FOR UPDATE"
	const why = "WITH, INTO, locking reads and window functions are not evaluated across data nodes"
	_, err := px.Exec(q)
	require.ErrorContains(t, err, "Error 1235 (42000): ", q)
	require.ErrorContains(t, err, "; the statement cannot be evaluated in steps across data nodes: "+why, q)
	_, err = px.Exec("PREVIEW " + q)
	require.ErrorContains(t, err, why, q)
	// The IN list on the inner side's sharding column is split by data
	// node (runtime.StepListRoute).
	require.Equal(t, []string{
		"string:ds_0 | string:/* step 3: nested loop: inner side of the join, run for every 500 rows of step 1 with their key values as its IN list (?), when step 2 does not run; its IN list split by the data nodes of its values (xn_a.id): a data node that gets none is not asked */ select a.id, a.id from xn_a as a where a.id in (?)",
		"string:ds_1 | string:/* step 3: nested loop: inner side of the join, run for every 500 rows of step 1 with their key values as its IN list (?), when step 2 does not run; its IN list split by the data nodes of its values (xn_a.id): a data node that gets none is not asked */ select a.id, a.id from xn_a as a where a.id in (?)",
	}, rowsOf(t, px, "PREVIEW SELECT b.bid, a.id FROM xn_b b JOIN xn_a a ON a.id = b.a_id")[4:])
}

// stepsJoinQueries are the joins of xn_a and xn_b TestStepsJoin and
// TestStepsJoinStrategies compare with the reference database.
var stepsJoinQueries = []string{
	"SELECT a.id, a.name, b.bid, b.name FROM xn_a a JOIN xn_b b ON a.id = b.a_id",
	"SELECT a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id",
	"SELECT a.id, b.bid FROM xn_a a RIGHT JOIN xn_b b ON a.id = b.a_id",
	"SELECT b.bid, a.id FROM xn_b b LEFT JOIN xn_a a ON b.a_id = a.id",
	// The inner side's key is its sharding column: each data node's IN
	// list holds only its values, converted as MySQL compares them with
	// a BIGINT (DECIMAL 7.00 is 7, 1.50 no id; text '2' is 2, 'alpha' 0).
	"SELECT b.bid, a.id, a.name FROM xn_b b JOIN xn_a a ON a.id = b.price ORDER BY b.bid",
	"SELECT b.bid, a.id FROM xn_b b LEFT JOIN xn_a a ON a.id = b.name ORDER BY b.bid",
	"SELECT a.id, COUNT(*) FROM xn_b b JOIN xn_a a ON a.id = b.a_id WHERE b.price > 1 GROUP BY a.id ORDER BY a.id",
	"SELECT bid FROM xn_b WHERE a_id IN (SELECT id FROM xn_a WHERE k = 10) ORDER BY bid",
	"SELECT id, name FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE bid IN (100, 103, 105, 107)) ORDER BY id",
	"SELECT COUNT(*) FROM xn_a WHERE id IN (SELECT price FROM xn_b)",
	"SELECT a.id, b.bid, a.name, b.name FROM xn_a a JOIN xn_b b ON a.name = b.name",
	"SELECT a.id, b.bid, a.lat, b.lat FROM xn_a a JOIN xn_b b ON b.lat = a.lat",
	"SELECT a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.lat = b.lat",
	"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.price = b.price",
	"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.day = b.day",
	"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id AND a.name = b.name",
	"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id WHERE a.k = 10 AND b.price > 1",
	"SELECT a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id AND b.price > 2 WHERE a.k IS NOT NULL",
	"SELECT a.id, b.bid FROM xn_a a, xn_b b WHERE a.id = b.a_id AND b.price > 1",
	"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id ORDER BY b.bid DESC, a.id LIMIT 3",
	"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id ORDER BY a.id, b.bid LIMIT 2, 3",
	"SELECT a.name, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.name = b.name ORDER BY a.name DESC, a.id, b.bid",
	"SELECT a.lat AS l, a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id ORDER BY l, 2, b.bid",
	"SELECT b.name, a.id FROM xn_a a RIGHT JOIN xn_b b ON a.id = b.a_id ORDER BY b.name, b.bid",
	"SELECT * FROM xn_a a JOIN xn_b b ON a.id = b.a_id ORDER BY b.bid",
	"SELECT b.*, a.id FROM xn_a a JOIN xn_b b ON a.id = b.a_id",
	"SELECT x.id, y.id FROM xn_a x JOIN xn_a y ON x.k = y.k ORDER BY x.id, y.id",
	"SELECT a.id + 1 AS n, UPPER(b.name) AS u, 7 FROM xn_a a JOIN xn_b b ON a.id = b.a_id",
	"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id WHERE a.id IN (SELECT a_id FROM xn_b WHERE bid = 103)",
	"SELECT COUNT(*) FROM xn_a a JOIN xn_b b ON a.id = b.a_id",
	"SELECT COUNT(*), SUM(b.price), AVG(b.price) FROM xn_a a JOIN xn_b b ON a.id = b.a_id WHERE a.k = 99",
	"SELECT a.k, COUNT(*), SUM(b.price), MIN(b.name), MAX(b.bid), AVG(b.price), COUNT(b.price) FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id GROUP BY a.k ORDER BY a.k",
	"SELECT DISTINCT a.k FROM xn_a a JOIN xn_b b ON a.id = b.a_id",
	"SELECT b.name, COUNT(*) AS n FROM xn_a a JOIN xn_b b ON a.name = b.name GROUP BY b.name ORDER BY n DESC, b.name",
	"SELECT COUNT(DISTINCT b.a_id), SUM(DISTINCT a.k) FROM xn_a a JOIN xn_b b ON a.lat = b.lat",
	"SELECT a.lat, COUNT(*) FROM xn_a a JOIN xn_b b ON a.id = b.a_id WHERE a.id <> 2 GROUP BY a.lat ORDER BY a.lat", // one spelling per group: MySQL shows any member
	"SELECT a.k, COUNT(*) FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id GROUP BY a.k ORDER BY COUNT(*) DESC, a.k LIMIT 2",
	"SELECT a.day, MAX(b.day) FROM xn_a a JOIN xn_b b ON a.price = b.price GROUP BY a.day ORDER BY 1",
}

// TestStepsJoinMany: joins of three and more table references evaluated
// left-deep (the join of the first n-1 is the outer side of a nested-loop
// join with the last; a co-located pair among them is pushed down whole),
// INNER / LEFT / RIGHT and comma joins, outer joins whose WHERE rejects
// NULL (run as inner joins), WHERE b.x IS NULL after an outer join (the
// anti-join), ON conditions of an outer join on its outer side alone, and
// cross joins without a key; compared with the unsharded reference
// database. PREVIEW numbers the nested steps.
func TestStepsJoinMany(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range stepsJoinManyQueries {
		sameRows(t, px, e.ref, q)
	}
	require.Equal(t, []string{
		"string:ds_0 | string:/* step 1: outer side of the join */ select a.id, a.k, a.id from xn_a as a",
		"string:ds_1 | string:/* step 1: outer side of the join */ select a.id, a.k, a.id from xn_a as a",
		"string:ds_0 | string:/* step 2: build side of the hash join, run once instead of the next step when the rows of step 1 number more than 500 (reading at most 4 rows per row of them), its rows hashed by the join key */ select b.bid, b.a_id from xn_b as b",
		"string:ds_1 | string:/* step 2: build side of the hash join, run once instead of the next step when the rows of step 1 number more than 500 (reading at most 4 rows per row of them), its rows hashed by the join key */ select b.bid, b.a_id from xn_b as b",
		"string:(bound) | string:/* step 3: nested loop: inner side of the join, run with the key values of every 500 rows of step 1 bound as IN lists, routed by them */ select b.bid, b.a_id from xn_b as b",
		"string:ds_0 | string:/* step 4: build side of the hash join, run once instead of the next step when the rows of steps 1-3 number more than 500 (reading at most 4 rows per row of them), its rows hashed by the join key */ select c.id, c.k from xn_a as c",
		"string:ds_1 | string:/* step 4: build side of the hash join, run once instead of the next step when the rows of steps 1-3 number more than 500 (reading at most 4 rows per row of them), its rows hashed by the join key */ select c.id, c.k from xn_a as c",
		"string:(bound) | string:/* step 5: nested loop: inner side of the join, run with the key values of every 500 rows of steps 1-3 bound as IN lists, routed by them */ select c.id, c.k from xn_a as c",
	}, rowsOf(t, px, "PREVIEW SELECT a.id, b.bid, c.id FROM xn_a a JOIN xn_b b ON a.id = b.a_id JOIN xn_a c ON c.k = a.k"))
}

// stepsJoinManyQueries are the joins of three and more table references
// TestStepsJoinMany and TestStepsJoinStrategies compare with the
// reference database.
var stepsJoinManyQueries = []string{
	"SELECT a.id, b.bid, c.id FROM xn_a a JOIN xn_b b ON a.id = b.a_id JOIN xn_a c ON c.k = a.k",
	"SELECT a.id, b.bid, c.id FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id LEFT JOIN xn_a c ON c.name = b.name",
	"SELECT a.id, b.bid, c.bid FROM xn_a a RIGHT JOIN xn_b b ON a.id = b.a_id RIGHT JOIN xn_b c ON c.a_id = b.a_id",
	"SELECT a.id, b.bid, c.id FROM xn_a a JOIN xn_b b ON a.id = b.a_id RIGHT JOIN xn_a c ON c.lat = b.lat ORDER BY c.id, a.id, b.bid",
	"SELECT * FROM xn_a a, xn_b b, xn_a c WHERE a.id = b.a_id AND c.id = b.a_id AND c.k > 5 ORDER BY b.bid",
	"SELECT a.id, c.id, b.bid FROM xn_a a JOIN xn_a c ON a.id = c.id JOIN xn_b b ON b.a_id = c.id", // a, c pushed down
	"SELECT a.id, b.bid, c.bid, d.id FROM xn_a a JOIN xn_b b ON a.id = b.a_id JOIN xn_b c ON c.name = a.name JOIN xn_a d ON d.k = a.k ORDER BY a.id, b.bid, c.bid, d.id LIMIT 7",
	"SELECT a.k, COUNT(*), MAX(c.id) FROM xn_a a JOIN xn_b b ON a.id = b.a_id JOIN xn_a c ON c.k = a.k GROUP BY a.k ORDER BY a.k",
	"SELECT a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id WHERE b.bid IS NULL",
	"SELECT a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id AND a.k = 10",
	"SELECT a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id WHERE b.price > 1",
	"SELECT a.id, b.bid FROM xn_b b RIGHT JOIN xn_a a ON a.id = b.a_id AND a.k IN (10, 40) WHERE a.k > 1",
	"SELECT a.id, b.bid, c.id FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id AND a.k <> 20 LEFT JOIN xn_a c ON c.k = b.a_id AND b.price IS NOT NULL WHERE c.id IS NULL",
	"SELECT a.id, b.bid FROM xn_a a CROSS JOIN xn_b b WHERE a.k = 10 AND b.price > 2",
	"SELECT a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON b.price > 7",
	"SELECT a.id, b.bid, c.id FROM xn_a a JOIN xn_b b ON a.id = b.a_id, xn_a c WHERE c.id IN (2, 3)",
}

// TestStepsFederation: statements the other steps refuse are evaluated
// over temporary tables (the rows of each logic table, narrowed by the
// conditions on it alone, loaded on one connection of the first data
// source, then the statement there): derived tables that do not push
// down, correlated EXISTS / NOT EXISTS / IN / NOT IN (NULLs included) and
// scalar subqueries, ANY / ALL, HAVING, GROUP_CONCAT and expressions over
// a join's rows, join conditions of any shape, window functions over a
// derived table, a UNION of different types; compared with the unsharded
// reference database. PREVIEW shows each table's per-node SQL and the
// statement over the temporary tables; max-cross-node-rows bounds each
// table.
func TestStepsFederation(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT n, COUNT(*) FROM (SELECT a.k AS n FROM xn_a a JOIN xn_b b ON a.id = b.a_id) d GROUP BY n ORDER BY n",
		"SELECT d.k, d.c, b.bid FROM (SELECT k, COUNT(*) AS c FROM xn_a GROUP BY k) d JOIN xn_b b ON b.a_id = d.c ORDER BY d.k, b.bid LIMIT 3",
		"SELECT * FROM (SELECT b.*, a.lat AS alat FROM xn_a a JOIN xn_b b ON a.id = b.a_id) d WHERE d.lat = d.alat",
		"SELECT COUNT(*) FROM (SELECT a.id, a.price, SUM(b.price) AS s FROM xn_a a JOIN xn_b b ON a.id = b.a_id GROUP BY a.id, a.price) t WHERE t.price <> t.s",
		"SELECT id FROM xn_a WHERE EXISTS (SELECT 1 FROM xn_b WHERE xn_b.a_id = xn_a.id)",
		"SELECT id, k FROM xn_a a WHERE NOT EXISTS (SELECT 1 FROM xn_b b WHERE b.a_id = a.id AND b.price > 1)",
		"SELECT id FROM xn_a a WHERE a.k NOT IN (SELECT b.a_id FROM xn_b b WHERE b.name = a.name)",
		"SELECT id FROM xn_a a WHERE a.id NOT IN (SELECT b.a_id FROM xn_b b WHERE b.lat = a.lat)",
		"SELECT id FROM xn_a a WHERE a.name IN (SELECT b.name FROM xn_b b WHERE b.day = a.day OR b.price = a.price)",
		"SELECT id, (SELECT COUNT(*) FROM xn_b b WHERE b.a_id = a.id AND b.name <> a.name) AS n FROM xn_a a ORDER BY id",
		"SELECT id FROM xn_a WHERE k > ANY (SELECT a_id FROM xn_b)",
		"SELECT id FROM xn_a WHERE k >= ALL (SELECT a_id FROM xn_b WHERE a_id IS NOT NULL)",
		"SELECT a.k FROM xn_a a JOIN xn_b b ON a.id = b.a_id GROUP BY a.k HAVING COUNT(*) > 1",
		"SELECT a.k, GROUP_CONCAT(b.name ORDER BY b.name SEPARATOR '/') FROM xn_a a JOIN xn_b b ON a.id = b.a_id GROUP BY a.k ORDER BY a.k",
		"SELECT a.id, b.bid, a.price + b.price FROM xn_a a JOIN xn_b b ON a.id = b.a_id",
		"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id < b.a_id",
		"SELECT a.id, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id OR b.name = a.name",
		"SELECT a.id FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id WHERE b.bid IS NULL OR b.bid > 104",
		"SELECT a.id FROM xn_a a JOIN xn_b b ON a.name = b.lat",
		"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b USING (name)",
		"SELECT id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id) AS r FROM (SELECT a.id, a.k FROM xn_a a JOIN xn_b b ON a.id = b.a_id) d ORDER BY id, r",
		"SELECT * FROM xn_a a WHERE EXISTS (SELECT 1 FROM xn_b b WHERE b.day = a.day) AND a.k = 10",
	} {
		sameRows(t, px, e.ref, q)
	}
	require.Equal(t, []string{
		"string:ds_0 | string:/* step 1: rows of xn_a for the temporary table shardgen_federation_1 */ select id, k, hex(`name`), hex(lat), price, `day` from xn_a where k > 3",
		"string:ds_1 | string:/* step 1: rows of xn_a for the temporary table shardgen_federation_1 */ select id, k, hex(`name`), hex(lat), price, `day` from xn_a where k > 3",
		"string:ds_0 | string:/* step 2: rows of xn_b for the temporary table shardgen_federation_2 */ select bid, a_id, hex(`name`), hex(lat), price, `day` from xn_b",
		"string:ds_1 | string:/* step 2: rows of xn_b for the temporary table shardgen_federation_2 */ select bid, a_id, hex(`name`), hex(lat), price, `day` from xn_b",
		"string:(bound) | string:/* step 3: the statement over the temporary tables of steps 1-2, run on one connection of the first data source */ select n, count(*) from (select a.k as n from shardgen_federation_1 as a join shardgen_federation_2 as b on a.id = b.a_id where a.k > 3) as d group by n",
	}, rowsOf(t, px, "PREVIEW SELECT n, COUNT(*) FROM (SELECT a.k AS n FROM xn_a a JOIN xn_b b ON a.id = b.a_id WHERE a.k > 3) d GROUP BY n"))
}

// TestStepsCTE: a SELECT that starts with WITH, whose common table
// expressions are not recursive and each referenced once, runs as the
// same statement with derived tables (here over temporary tables, as
// TestStepsFederation's); the reference runs it as written. Another WITH
// is refused (ERROR 1235) naming what runs.
func TestStepsCTE(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"WITH d AS (SELECT a.k AS n FROM xn_a a JOIN xn_b b ON a.id = b.a_id) SELECT n, COUNT(*) FROM d GROUP BY n ORDER BY n",
		"WITH c AS (SELECT k, COUNT(*) AS c FROM xn_a GROUP BY k) SELECT c.k, c.c, b.bid FROM c JOIN xn_b b ON b.a_id = c.c ORDER BY c.k, b.bid LIMIT 3",
		"WITH x AS (SELECT id, name FROM xn_a WHERE k > 3), y AS (SELECT a_id, bid FROM xn_b) SELECT x.id, y.bid FROM x LEFT JOIN y ON y.a_id = x.id",
	} {
		sameRows(t, px, e.ref, q)
	}
	_, err := px.Exec("WITH o AS (SELECT id FROM xn_a) SELECT a.id FROM o a JOIN o b ON a.id = b.id")
	require.ErrorContains(t, err, "Error 1235 (42000): WITH (common table expressions) is not supported here: o is referenced 2 times")
}

// TestStepsWindow: a window function over several data nodes runs pushed
// down when its PARTITION BY holds the sharding column (each partition on
// one data node), else it is refused naming what would make it run (it
// was run per node before, a wrong answer).
func TestStepsWindow(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT id, k, ROW_NUMBER() OVER (PARTITION BY id ORDER BY k) AS r FROM xn_a ORDER BY id",
		"SELECT id, RANK() OVER w AS r FROM xn_a WINDOW w AS (PARTITION BY k, id ORDER BY name) ORDER BY id",
		"SELECT id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id) AS r FROM xn_a WHERE id = 4",
	} {
		sameRows(t, px, e.ref, q)
	}
	// Windows that span data nodes (the merge refuses them, generated
	// code too) run over temporary tables.
	for _, q := range []string{
		"SELECT id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id) AS r FROM xn_a ORDER BY id",
		"SELECT id, LAG(id) OVER (ORDER BY id) AS l FROM xn_a ORDER BY id",
		"SELECT id, RANK() OVER w AS r FROM xn_a WINDOW w AS (ORDER BY name) ORDER BY id",
	} {
		sameRows(t, px, e.ref, q)
	}
}

// TestStepsJoinBatches: an outer side of more rows than one batch binds
// its keys in several inner statements; the rows are those of the
// reference database. PREVIEW shows the two sides.
func TestStepsJoinBatches(t *testing.T) {
	e, px := newXnEnv(t)
	var a, b strings.Builder
	a.WriteString("INSERT INTO xn_a (id, k, name) VALUES ")
	b.WriteString("INSERT INTO xn_b (bid, a_id, name) VALUES ")
	for i := 0; i < 1200; i++ {
		if i > 0 {
			a.WriteString(", ")
			b.WriteString(", ")
		}
		fmt.Fprintf(&a, "(%d, %d, 'n%d')", 1000+i, i%7, i%13)
		fmt.Fprintf(&b, "(%d, %d, 'N%d')", 5000+i, 1000+(i*7)%1300, i%11)
	}
	execAll(t, px, a.String(), b.String())
	execAll(t, e.ref, a.String(), b.String())
	sameRows(t, px, e.ref, "SELECT a.id, a.name, b.bid FROM xn_a a LEFT JOIN xn_b b ON a.id = b.a_id ORDER BY a.id, b.bid")
	sameRows(t, px, e.ref, "SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.name = b.name AND a.k = 3 ORDER BY b.bid DESC, a.id LIMIT 50")
	require.Equal(t, []string{
		"string:ds_0 | string:/* step 1: outer side of the join */ select a.id, a.`name`, a.id from xn_a as a where a.k = 3",
		"string:ds_1 | string:/* step 1: outer side of the join */ select a.id, a.`name`, a.id from xn_a as a where a.k = 3",
		"string:ds_0 | string:/* step 2: build side of the hash join, run once instead of step 3 when the rows of step 1 number more than 500 (reading at most 4 rows per row of step 1), its rows hashed by the join key */ select b.bid, b.a_id from xn_b as b",
		"string:ds_1 | string:/* step 2: build side of the hash join, run once instead of step 3 when the rows of step 1 number more than 500 (reading at most 4 rows per row of step 1), its rows hashed by the join key */ select b.bid, b.a_id from xn_b as b",
		"string:ds_0 | string:/* step 3: nested loop: inner side of the join, run for every 500 rows of step 1 with their key values as its IN list (?), when step 2 does not run */ select b.bid, b.a_id from xn_b as b where b.a_id in (?)",
		"string:ds_1 | string:/* step 3: nested loop: inner side of the join, run for every 500 rows of step 1 with their key values as its IN list (?), when step 2 does not run */ select b.bid, b.a_id from xn_b as b where b.a_id in (?)",
	}, rowsOf(t, px, "PREVIEW SELECT a.id, a.name, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id WHERE a.k = 3"))
}

// TestStepsUnion: UNION ALL concatenates, UNION removes duplicates by the
// columns' comparisons (NULLs equal, general_ci and PAD SPACE, latin1 by
// the servers' sort keys, DECIMAL 1.50 = 1.5), a UNION after UNION ALL
// deduplicates everything to its left, ORDER BY / LIMIT over the union;
// compared with the unsharded reference database.
func TestStepsUnion(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT id, name FROM xn_a UNION ALL SELECT bid, name FROM xn_b",
		"SELECT k FROM xn_a UNION SELECT a_id FROM xn_b",
		"SELECT k FROM xn_a UNION SELECT a_id FROM xn_b ORDER BY k DESC",
		"SELECT name FROM xn_a WHERE id IN (4, 7, 8) UNION SELECT name FROM xn_b WHERE bid IN (102, 105)",
		"SELECT name FROM xn_a WHERE id = 6 UNION SELECT name FROM xn_b WHERE bid = 101",
		"SELECT lat FROM xn_a WHERE id IN (1, 4, 7) UNION SELECT lat FROM xn_b WHERE bid IN (101, 104) ORDER BY lat",
		"SELECT price FROM xn_a UNION SELECT price FROM xn_b ORDER BY price",
		"SELECT day FROM xn_a UNION SELECT day FROM xn_b ORDER BY 1",
		"SELECT id FROM xn_a UNION ALL SELECT bid FROM xn_b UNION SELECT id FROM xn_a ORDER BY id DESC LIMIT 5",
		"SELECT id FROM xn_a UNION SELECT bid FROM xn_b UNION ALL SELECT id FROM xn_a ORDER BY 1 LIMIT 3, 6",
		"SELECT * FROM xn_a UNION ALL SELECT * FROM xn_a ORDER BY id",
		"SELECT id, 'a' AS src FROM xn_a UNION ALL SELECT bid, 'b' FROM xn_b ORDER BY src, id",
		"(SELECT id FROM xn_a ORDER BY id DESC LIMIT 2) UNION ALL (SELECT bid FROM xn_b ORDER BY bid LIMIT 2)",
	} {
		sameRows(t, px, e.ref, q)
	}
	// Columns of different types: MariaDB converts them over temporary
	// tables.
	sameRows(t, px, e.ref, "SELECT id FROM xn_a UNION SELECT price FROM xn_b")
	require.Equal(t, []string{
		"string:ds_0 | string:/* step 1: SELECT 1 of the UNION */ select k from xn_a",
		"string:ds_1 | string:/* step 1: SELECT 1 of the UNION */ select k from xn_a",
		"string:ds_1 | string:/* step 2: SELECT 2 of the UNION */ select a_id from xn_b where bid = 101",
	}, rowsOf(t, px, "PREVIEW SELECT k FROM xn_a UNION SELECT a_id FROM xn_b WHERE bid = 101"))
}

// BenchmarkStepsJoin is the cost of a join across data nodes: 1,000 x
// 1,000 rows (each outer row matching one inner row) of two tables
// sharded on different columns over 4 data nodes (2 data sources x 2
// tables), through the proxy, next to the same join on one unsharded
// table pair of the reference database; b.N runs of each in one run. The
// proxy runs it by its automatic choice (a hash join), by the nested loop
// and by the hash join forced; the federation case is the same join
// evaluated over temporary tables.
func BenchmarkStepsJoin(b *testing.B) {
	const rules = `      jb_a:
        actualDataNodes: ds_${0..1}.jb_a_${0..1}
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: jb_ds
        tableStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: jb_a_t
      jb_b:
        actualDataNodes: ds_${0..1}.jb_b_${0..1}
        databaseStrategy:
          standard:
            shardingColumn: bid
            shardingAlgorithmName: jb_ds_b
        tableStrategy:
          standard:
            shardingColumn: bid
            shardingAlgorithmName: jb_b_t
    shardingAlgorithms:
      jb_ds:
        type: INLINE
        props:
          algorithm-expression: ds_${id % 2}
      jb_a_t:
        type: INLINE
        props:
          algorithm-expression: jb_a_${id.intdiv(2) % 2}
      jb_ds_b:
        type: INLINE
        props:
          algorithm-expression: ds_${bid % 2}
      jb_b_t:
        type: INLINE
        props:
          algorithm-expression: jb_b_${bid.intdiv(2) % 2}
`
	const ddl = "CREATE TABLE jb_a (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NULL);\nCREATE TABLE jb_b (bid BIGINT NOT NULL PRIMARY KEY, a_id BIGINT NULL, v INT NULL, KEY (a_id))"
	y := strings.Replace(pxYAML(), "    shardingAlgorithms:\n", rules, 1)
	e := newPxEnvDDL(b, y, ddl)
	px := e.client(b, "root", "secret", nil)
	drop := func() {
		for _, ds := range []string{"ds_0", "ds_1"} {
			db := testdb.Open(b, ds)
			for _, t := range []string{"jb_a_0", "jb_a_1", "jb_b_0", "jb_b_1"} {
				_, err := db.Exec("DROP TABLE IF EXISTS " + t)
				require.NoError(b, err)
			}
		}
		_, err := e.ref.Exec("DROP TABLE IF EXISTS jb_a, jb_b")
		require.NoError(b, err)
	}
	drop()
	b.Cleanup(drop)
	var ra, rb strings.Builder
	ra.WriteString("INSERT INTO jb_a VALUES ")
	rb.WriteString("INSERT INTO jb_b VALUES ")
	for i := 0; i < 1000; i++ {
		if i > 0 {
			ra.WriteString(", ")
			rb.WriteString(", ")
		}
		fmt.Fprintf(&ra, "(%d, 'n%d')", i, i)
		fmt.Fprintf(&rb, "(%d, %d, %d)", 100000+i, (i*7)%1000, i)
	}
	for _, db := range []*sql.DB{px, e.ref} {
		for _, q := range append(strings.Split(ddl, ";\n"), ra.String(), rb.String()) {
			_, err := db.Exec(q)
			require.NoError(b, err)
		}
	}
	const q = "SELECT a.id, a.name, b.bid, b.v FROM jb_a a JOIN jb_b b ON a.id = b.a_id"
	// The same join over temporary tables (b.a_id + 0 is no key column,
	// so the nested-loop join does not apply).
	const fq = "SELECT a.id, a.name, b.bid, b.v FROM jb_a a JOIN jb_b b ON a.id = b.a_id + 0"
	// The same proxy with each join strategy forced (props cross-node-join;
	// auto picks the hash join here: 1,000 outer rows are two IN batches).
	forced := map[string]*sql.DB{}
	for _, s := range []string{"nested-loop", "hash"} {
		fy := strings.Replace(y, "authority:", "props:\n  cross-node-join: "+s+"\n"+"authority:", 1)
		forced[s] = newPxEnvDDL(b, fy, ddl).client(b, "root", "secret", nil)
	}
	// The join the other way round: the inner side's key is its sharding
	// column (jb_a.id), so each data node's IN list holds only the values
	// that live there (runtime.StepListRoute): 1,000 outer rows by the
	// nested loop forced, 400 by the automatic choice (one IN batch).
	const sq = "SELECT a.id, a.name, b.bid, b.v FROM jb_b b JOIN jb_a a ON a.id = b.a_id"
	const sq400 = sq + " WHERE b.v < 400"
	for _, c := range []struct {
		name string
		db   *sql.DB
		q    string
		n    int
	}{{"proxy-4-nodes", px, q, 1000}, {"proxy-4-nodes-nested-loop", forced["nested-loop"], q, 1000}, {"proxy-4-nodes-hash", forced["hash"], q, 1000},
		{"proxy-4-nodes-federation", px, fq, 1000}, {"unsharded", e.ref, q, 1000},
		{"proxy-4-nodes-inner-sharding-key-nested-loop", forced["nested-loop"], sq, 1000},
		{"proxy-4-nodes-inner-sharding-key-400", px, sq400, 400}, {"unsharded-inner-sharding-key-400", e.ref, sq400, 400}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				rows, err := c.db.Query(c.q)
				require.NoError(b, err)
				n := 0
				for rows.Next() {
					n++
				}
				require.NoError(b, rows.Err())
				require.NoError(b, rows.Close())
				require.Equal(b, c.n, n)
			}
		})
	}
}

// TestStepsPrepared: prepared statements (the binary protocol) of the same
// shapes run in steps with their values in place, also a pushed-down
// SELECT whose parameter values route its tables to different data nodes
// (runtime.ErrNotColocated at execution).
func TestStepsPrepared(t *testing.T) {
	e, px := newXnEnv(t)
	for _, c := range []struct {
		q    string
		args []any
	}{
		{"SELECT id FROM xn_a WHERE id IN (SELECT a_id FROM xn_b WHERE name = ?) ORDER BY id", []any{"alpha"}},
		{"SELECT a.id, b.bid FROM xn_a a JOIN xn_b b ON a.id = b.a_id WHERE a.k = ? ORDER BY a.id, b.bid", []any{10}},
		{"SELECT id FROM xn_a UNION SELECT bid FROM xn_b WHERE a_id < ? ORDER BY 1", []any{5}},
		{"SELECT a.id FROM xn_a a WHERE a.id = ? AND EXISTS (SELECT 1 FROM xn_b b WHERE b.bid = ?)", []any{1, 100}}, // ds_1 and ds_0
		{"SELECT a.id FROM xn_a a WHERE a.id = ? AND EXISTS (SELECT 1 FROM xn_b b WHERE b.bid = ?)", []any{2, 100}}, // both ds_0
		{"SELECT a.id FROM xn_a a WHERE a.id = ? AND EXISTS (SELECT 1 FROM xn_b b WHERE b.bid = ?)", []any{1, 2}},   // no xn_b row
	} {
		require.Equal(t, rowsOf(t, e.ref, c.q, c.args...), rowsOf(t, px, c.q, c.args...), c.q)
	}
}

// TestStepsSubqueryColumnName: a scalar subquery in the select list keeps
// its name (the text as written), not the bound value's.
func TestStepsSubqueryColumnName(t *testing.T) {
	e, px := newXnEnv(t)
	const q = "SELECT id, (SELECT COUNT(*) FROM xn_b) FROM xn_a WHERE id = 1"
	names := func(db *sql.DB) []string {
		rows, err := db.Query(q)
		require.NoError(t, err)
		defer rows.Close()
		cols, err := rows.Columns()
		require.NoError(t, err)
		return cols
	}
	require.Equal(t, names(e.ref), names(px))
	sameRows(t, px, e.ref, q)
}

// TestStepsJoinGenerated runs 300 generated joins, subqueries and unions
// of xn_a and xn_b (every key pair, join type, filter and ordering the
// steps support, fixed seed) through the proxy and on the unsharded
// reference database: the rows must be equal (as multisets without
// ORDER BY; the ORDER BY keys end with both tables' primary keys, so the
// order is total).
func TestStepsJoinGenerated(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range generatedStepsQueries(300) {
		sameRows(t, px, e.ref, q)
	}
}

// generatedStepsQueries returns n generated joins, subqueries and unions
// of xn_a and xn_b (fixed seed), two joins for every other statement.
func generatedStepsQueries(n int) []string {
	var out []string
	rng := rand.New(rand.NewPCG(16, 2))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	keys := []string{"a.id = b.a_id", "a.name = b.name", "a.lat = b.lat", "a.price = b.price", "a.day = b.day", "a.k = b.a_id", "b.a_id = a.id AND a.name = b.name"}
	filtersA := []string{"", "a.k = 10", "a.k IS NULL", "a.name IS NOT NULL", "a.price > 1", "a.id IN (1, 4, 7)", "a.lat = 'e'"}
	filtersB := []string{"", "b.price IS NULL", "b.name <> 'alpha'", "b.a_id IN (1, 4)", "b.day > '2024-01-31'"}
	cols := []string{"a.id", "b.bid", "a.name", "b.name", "a.lat", "b.lat", "a.price", "b.price", "a.day", "b.day", "a.k", "b.a_id"}
	for i := 0; i < n; i++ {
		var q string
		switch i % 3 {
		case 0, 1: // joins
			join := pick("JOIN", "LEFT JOIN", "RIGHT JOIN")
			on := pick(keys...)
			var where []string
			fa, fb := pick(filtersA...), pick(filtersB...)
			switch join {
			case "JOIN":
				if fa != "" {
					where = append(where, fa)
				}
				if fb != "" {
					where = append(where, fb)
				}
			case "LEFT JOIN":
				if fa != "" {
					where = append(where, fa)
				}
				if fb != "" {
					on += " AND " + fb
				}
			default:
				if fb != "" {
					where = append(where, fb)
				}
				if fa != "" {
					on += " AND " + fa
				}
			}
			sel := []string{pick(cols...), pick(cols...), "a.id", "b.bid"}
			q = "SELECT " + strings.Join(sel, ", ") + " FROM xn_a a " + join + " xn_b b ON " + on
			if len(where) > 0 {
				q += " WHERE " + strings.Join(where, " AND ")
			}
			if i%2 == 0 {
				q += " ORDER BY " + pick(cols...) + pick("", " DESC") + ", a.id, b.bid"
				if rng.IntN(2) == 0 {
					q += fmt.Sprintf(" LIMIT %d, %d", rng.IntN(3), 1+rng.IntN(5))
				}
			}
			if i%5 == 0 {
				g := pick("a.k", "b.a_id", "a.price", "b.day")
				q = "SELECT " + g + ", COUNT(*), COUNT(b.bid), SUM(a.price), MIN(b.bid), MAX(a.id) FROM xn_a a " + join + " xn_b b ON " + on + " GROUP BY " + g + " ORDER BY " + g
			}
		default: // subqueries and unions
			c := pick("a_id", "bid")
			switch rng.IntN(4) {
			case 0:
				q = "SELECT id, name FROM xn_a WHERE id " + pick("IN", "NOT IN") + " (SELECT " + c + " FROM xn_b" + pick("", " WHERE name IS NOT NULL", " WHERE a_id IS NOT NULL", " WHERE price > 2") + ")"
			case 1:
				q = "SELECT name FROM xn_a WHERE name " + pick("IN", "NOT IN") + " (SELECT name FROM xn_b WHERE " + pick("bid IN (101, 102)", "a_id > 1", "price IS NOT NULL") + ")"
			case 2:
				q = "SELECT k FROM xn_a " + pick("UNION", "UNION ALL") + " SELECT a_id FROM xn_b " + pick("UNION", "UNION ALL") + " SELECT id FROM xn_a WHERE k = 10 ORDER BY 1" + pick("", " DESC") + pick("", " LIMIT 4", " LIMIT 2, 3")
			default:
				q = "SELECT id FROM xn_a WHERE " + pick("EXISTS", "NOT EXISTS") + " (SELECT 1 FROM xn_b WHERE " + pick("name = 'nobody'", "price > 100", "a_id = 4") + ") AND k " + pick("=", "<>") + " (SELECT MIN(a_id) FROM xn_b WHERE bid IN (100, 103))"
			}
		}
		out = append(out, q)
	}
	return out
}

// TestProxyOrderByNull: ORDER BY NULL (MySQL's "no order") over several
// data nodes runs as if the statement had no ORDER BY; it was refused
// ("ORDER BY null over several data nodes cannot be merged").
func TestProxyOrderByNull(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT k, COUNT(*), SUM(price) FROM xn_a GROUP BY k ORDER BY NULL",
		"SELECT id, name FROM xn_a ORDER BY NULL",
		"SELECT k, COUNT(*) FROM xn_a GROUP BY k ORDER BY NULL LIMIT 0",
	} {
		want, got := rowsOf(t, e.ref, q), rowsOf(t, px, q)
		sort.Strings(want)
		sort.Strings(got)
		require.Equal(t, want, got, q)
	}
	sameRows(t, px, e.ref, "SELECT k, COUNT(*) FROM xn_a GROUP BY k ORDER BY NULL, k DESC")
}

// TestStepsSubqueryColumnNames: a result column whose expression holds a
// subquery evaluated first (EXISTS, NOT EXISTS, IN, arithmetic over scalar
// subqueries) is named by the expression the client wrote, as MySQL names
// it; it was named by the bound value ("TRUE", "120 + 40").
func TestStepsSubqueryColumnNames(t *testing.T) {
	e, px := newXnEnv(t)
	for _, q := range []string{
		"SELECT EXISTS(SELECT 1 FROM xn_b WHERE a_id > 5), (SELECT MIN(bid) FROM xn_b)",
		"SELECT EXISTS(SELECT 1 FROM xn_b WHERE a_id > 5)",
		"SELECT id, id NOT IN (SELECT a_id FROM xn_b WHERE a_id IS NOT NULL) FROM xn_a WHERE id = 3",
		"SELECT (SELECT COUNT(*) FROM xn_a) + (SELECT COUNT(*) FROM xn_b)",
		"SELECT id, NOT EXISTS (SELECT 1 FROM xn_b WHERE bid = 105), id IN (SELECT a_id FROM xn_b) FROM xn_a WHERE id = 1",
		"SELECT (SELECT MAX(bid) FROM xn_b), (SELECT MAX(bid) FROM xn_b) AS m",
	} {
		want, got := columnsOf(t, e.ref, q), columnsOf(t, px, q)
		require.Equal(t, want, got, q)
		sameRows(t, px, e.ref, q)
	}
}
