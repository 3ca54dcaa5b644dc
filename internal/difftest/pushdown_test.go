package difftest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/runtime"
)

// The pushdown layout: a binding group sharded by user_id over 4 data
// sources and by order_id over 2 tables in each; a table sharded by user_id
// alone (one actual table per data source, not bound); TPC-C's order_line
// and stock bound and sharded by warehouse over 2 data sources; a
// broadcast dictionary.
const pushdownRules = `rules:
- !SHARDING
  tables:
    p_order:
      actualDataNodes: ds_${0..3}.p_order_${0..1}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_user}}
      tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: t_order}}
    p_item:
      actualDataNodes: ds_${0..3}.p_item_${0..1}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_user}}
      tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: t_item}}
    p_user:
      actualDataNodes: ds_${0..3}.p_user
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_user}}
    p_line:
      actualDataNodes: ds_${0..1}.p_line
      databaseStrategy: {standard: {shardingColumn: ol_w_id, shardingAlgorithmName: wh_mod}}
    p_stock:
      actualDataNodes: ds_${0..1}.p_stock
      databaseStrategy: {standard: {shardingColumn: s_w_id, shardingAlgorithmName: wh_mod}}
  bindingTables: ["p_order, p_item", "p_line, p_stock"]
  shardingAlgorithms:
    db_user: {type: INLINE, props: {algorithm-expression: 'ds_${user_id % 4}'}}
    t_order: {type: INLINE, props: {algorithm-expression: 'p_order_${order_id % 2}'}}
    t_item: {type: INLINE, props: {algorithm-expression: 'p_item_${order_id % 2}'}}
    wh_mod: {type: MOD, props: {sharding-count: 2}}
- !BROADCAST
  tables: [p_dict]
`

const pushdownDDL = `CREATE TABLE p_order (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, status VARCHAR(8) NOT NULL, amount DECIMAL(10,2) NULL);
CREATE TABLE p_item (item_id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, qty INT NOT NULL);
CREATE TABLE p_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(16) NULL);
CREATE TABLE p_line (ol_w_id INT NOT NULL, ol_d_id INT NOT NULL, ol_o_id INT NOT NULL, ol_number INT NOT NULL, ol_i_id INT NOT NULL, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number));
CREATE TABLE p_stock (s_w_id INT NOT NULL, s_i_id INT NOT NULL, s_quantity INT NOT NULL, PRIMARY KEY (s_w_id, s_i_id));
CREATE TABLE p_dict (code VARCHAR(8) NOT NULL PRIMARY KEY, label VARCHAR(16) NOT NULL)`

// seedPushdown inserts the same rows on both sides: orders with and
// without items, users with duplicate and NULL names, two warehouses of
// order lines and stock.
func seedPushdown(e *env) {
	statuses := []string{"new", "paid", "sent"}
	for u := int64(1); u <= 8; u++ {
		var name any = fmt.Sprintf("user%d", u%3)
		if u == 5 {
			name = nil
		}
		e.exec("INSERT INTO p_user (user_id, name) VALUES (?, ?)", u, name)
	}
	for o := int64(1); o <= 40; o++ {
		var amount any = fmt.Sprintf("%d.50", o*3%17)
		if o%9 == 0 {
			amount = nil
		}
		e.exec("INSERT INTO p_order (order_id, user_id, status, amount) VALUES (?, ?, ?, ?)", o, o%8+1, statuses[o%3], amount)
		for i := int64(0); i < o%4; i++ {
			e.exec("INSERT INTO p_item (item_id, order_id, user_id, qty) VALUES (?, ?, ?, ?)", o*10+i, o, o%8+1, (o+i)%5+1)
		}
	}
	for w := 1; w <= 2; w++ {
		for d := 1; d <= 2; d++ {
			for o := 1; o <= 6; o++ {
				for n := 1; n <= 3; n++ {
					e.exec("INSERT INTO p_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id) VALUES (?, ?, ?, ?, ?)", w, d, o, n, (o*n+w)%12+1)
				}
			}
		}
		for i := 1; i <= 12; i++ {
			e.exec("INSERT INTO p_stock (s_w_id, s_i_id, s_quantity) VALUES (?, ?, ?)", w, i, (i*7+w)%30)
		}
	}
	for _, c := range [][2]string{{"new", "New"}, {"paid", "Paid"}, {"sent", "Sent"}} {
		e.exec("INSERT INTO p_dict (code, label) VALUES (?, ?)", c[0], c[1])
	}
}

// TestPushdown: statements whose tables, subqueries included, meet on one
// data node (or on each data node, co-located by their sharding columns)
// return what the unsharded reference returns, and writes change the same
// rows.
func TestPushdown(t *testing.T) {
	e := newEnv(t, pushdownRules, pushdownDDL)
	seedPushdown(e)
	queries := []struct {
		sql     string
		ordered []int
		params  []any
	}{
		// The shape: a derived table over an IN (SELECT …) of a
		// table that is not bound, both on the user's data source.
		{"SELECT * FROM (SELECT user_id, name FROM p_user WHERE user_id = ? AND name IN (SELECT CONCAT('user', qty % 3) FROM p_item WHERE user_id = ? AND order_id = ?)) AS temp", nil, []any{2, 2, 9}},
		{"SELECT order_id, amount FROM p_order WHERE user_id = ? AND order_id = ? AND order_id IN (SELECT order_id FROM p_item WHERE user_id = ? AND order_id = ?)", nil, []any{2, 9, 2, 9}},
		// Correlated subqueries on the sharding columns spread over data nodes.
		{"SELECT order_id FROM p_order o WHERE o.user_id IN (1, 2, 3) AND EXISTS (SELECT 1 FROM p_item i WHERE i.user_id = o.user_id AND i.order_id = o.order_id AND i.qty > 2) ORDER BY order_id", []int{0}, nil},
		{"SELECT COUNT(*) FROM p_order o WHERE NOT EXISTS (SELECT 1 FROM p_item i WHERE i.user_id = o.user_id AND i.order_id = o.order_id)", nil, nil},
		{"SELECT o.order_id, (SELECT COUNT(*) FROM p_item i WHERE i.user_id = o.user_id AND i.order_id = o.order_id) AS n FROM p_order o WHERE o.user_id = ? ORDER BY o.order_id", []int{0}, []any{4}},
		{"SELECT o.order_id, (SELECT SUM(qty) FROM p_item i WHERE i.order_id = o.order_id AND i.user_id = o.user_id) AS q FROM p_order o WHERE o.amount IS NOT NULL ORDER BY q DESC, o.order_id LIMIT 7", []int{0, 1}, nil},
		// Derived tables on one data node; over a broadcast table anywhere.
		{"SELECT t.name, t.n FROM (SELECT name, COUNT(*) AS n FROM p_user WHERE user_id = ? GROUP BY name) AS t", nil, []any{3}},
		{"SELECT o.order_id, d.label FROM p_order o JOIN (SELECT code, label FROM p_dict) AS d ON d.code = o.status WHERE o.user_id IN (1, 2) ORDER BY o.order_id", []int{0}, nil},
		{"SELECT order_id FROM p_order WHERE user_id IN (3, 4) AND status IN (SELECT code FROM p_dict WHERE label <> 'Paid') ORDER BY order_id", []int{0}, nil},
		// Self-joins on the sharding columns.
		{"SELECT a.user_id, b.name FROM p_user a JOIN p_user b ON a.user_id = b.user_id WHERE a.user_id IN (1, 2, 3)", nil, nil},
		{"SELECT a.order_id, b.status FROM p_order a LEFT JOIN p_order b ON b.user_id = a.user_id AND b.order_id = a.order_id AND b.status = 'paid' WHERE a.user_id = 2", nil, nil},
		{"SELECT a.order_id, b.order_id FROM p_order a JOIN p_order b ON a.user_id = b.user_id AND a.status = b.status WHERE a.user_id = 3 AND a.order_id = 10 AND b.user_id = 3 AND b.order_id = 26", nil, nil},
		// TPC-C stock-level: each bound table compared with the warehouse.
		{"SELECT COUNT(DISTINCT s_i_id) FROM p_line, p_stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?", nil, []any{2, 1, 6, 2, 2, 15}},
		{"SELECT COUNT(DISTINCT s_i_id) FROM p_line, p_stock WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id < 5 AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < 20", nil, nil},
		// UNION and UNION ALL whose SELECTs meet on one data node, or over
		// broadcast tables.
		{"SELECT user_id, name FROM p_user WHERE user_id = 2 UNION ALL SELECT user_id, name FROM p_user WHERE user_id = 6", nil, nil},
		{"SELECT order_id, status FROM p_order WHERE user_id = ? AND order_id = ? UNION SELECT order_id, CAST(qty AS CHAR) FROM p_item WHERE user_id = ? AND order_id = ? ORDER BY 2 DESC LIMIT 3", []int{1}, []any{2, 9, 2, 9}},
		{"SELECT code FROM p_dict UNION SELECT label FROM p_dict UNION ALL SELECT code FROM p_dict WHERE code > 'o'", nil, nil},
	}
	for _, q := range queries {
		require.Empty(t, e.query(q.sql, q.ordered, nil, nil, q.params...), q.sql)
	}
	// Writes: INSERT … SELECT on every data node (the target's sharding
	// columns come from the source's) and on one; multi-table DELETE and
	// UPDATE of bound tables.
	e.exec("INSERT INTO p_item (item_id, order_id, user_id, qty) SELECT order_id + 1000, order_id, user_id, 7 FROM p_order WHERE user_id IN (1, 2) AND amount > 3")
	e.exec("INSERT INTO p_user (user_id, name) SELECT ?, MAX(status) FROM p_order WHERE user_id = ? AND order_id = ?", 14, 6, 13)
	e.exec("DELETE i FROM p_item i JOIN p_order o ON i.user_id = o.user_id AND i.order_id = o.order_id WHERE o.user_id = ? AND o.status = ?", 3, "sent")
	e.exec("DELETE t FROM p_user t WHERE t.user_id = ?", 7)
	e.exec("UPDATE p_order o JOIN p_item i ON o.user_id = i.user_id AND o.order_id = i.order_id SET o.amount = o.amount + i.qty WHERE o.user_id = ? AND i.qty > 3", 4)
	e.exec("UPDATE p_order SET status = 'gone' WHERE user_id = ? AND order_id = ? AND EXISTS (SELECT 1 FROM p_dict WHERE code = 'paid')", 5, 4)
	for _, q := range []string{
		"SELECT item_id, order_id, user_id, qty FROM p_item",
		"SELECT user_id, name FROM p_user",
		"SELECT order_id, user_id, status, amount FROM p_order",
	} {
		require.Empty(t, e.query(q, nil, nil, nil), q)
	}
}

var queryName = regexp.MustCompile(`query "Q\d+":`)

// TestColocatedGroups: grouped by every sharding column, each group is on
// one data node, which computes HAVING, aggregates inside expressions,
// COUNT(DISTINCT a, b), BIT_* and GROUP_CONCAT exactly; the merge orders and
// pages. Grouped otherwise, HAVING, BIT_* and COUNT(DISTINCT a, b) run on
// the merged groups.
func TestColocatedGroups(t *testing.T) {
	e := newEnv(t, pushdownRules, pushdownDDL)
	seedPushdown(e)
	for _, q := range []struct {
		sql     string
		ordered []int
	}{
		{"SELECT ol_w_id, COUNT(*), CAST(SUM(ol_i_id) / COUNT(ol_number) AS DECIMAL(10,4)) AS r, GROUP_CONCAT(ol_i_id ORDER BY ol_i_id DESC SEPARATOR '-'), BIT_XOR(ol_i_id), BIT_AND(ol_i_id), COUNT(DISTINCT ol_d_id, ol_o_id) FROM p_line GROUP BY ol_w_id HAVING COUNT(*) > 3 ORDER BY r DESC", []int{0}},
		{"SELECT user_id, order_id, CAST(SUM(qty) * 2 AS SIGNED) AS s, BIT_OR(qty), GROUP_CONCAT(DISTINCT qty) FROM p_item GROUP BY user_id, order_id HAVING SUM(qty) > 4 ORDER BY s DESC, order_id LIMIT 5", []int{1, 2}},
		{"SELECT user_id, COUNT(*) AS n FROM p_user GROUP BY user_id HAVING n = 1 AND MAX(name) IS NOT NULL", nil},
		{"SELECT o.user_id, o.order_id, COUNT(i.item_id) AS n, CAST(AVG(i.qty) + 1 AS DECIMAL(10,4)) FROM p_order o LEFT JOIN p_item i ON i.user_id = o.user_id AND i.order_id = o.order_id WHERE o.user_id IN (1, 2, 3) GROUP BY o.user_id, o.order_id HAVING n > 1 ORDER BY o.order_id", []int{1}},
	} {
		require.Empty(t, e.query(q.sql, q.ordered, nil, nil), q.sql)
	}
	// Grouped otherwise, HAVING, BIT_* and COUNT(DISTINCT a, b) run on the
	// merged groups.
	for _, q := range []string{
		"SELECT status, COUNT(*) FROM p_order GROUP BY status HAVING COUNT(*) > 1",
		"SELECT user_id, BIT_XOR(qty), BIT_AND(qty), BIT_OR(qty), COUNT(DISTINCT order_id, qty) FROM p_item GROUP BY user_id HAVING BIT_OR(qty) > 0",
	} {
		require.Empty(t, e.query(q, nil, nil, nil), q)
	}
}

// TestMergedDerivedTables: a derived table that picks columns and filters
// rows over several data nodes is merged into its statement (MySQL's
// derived_merge) and answers as the reference does: counted, grouped and
// ordered by its columns, aliased, nested (gen_test's DerivedIn: with an
// IN subquery, in steps).
func TestMergedDerivedTables(t *testing.T) {
	e := newEnv(t, pushdownRules, pushdownDDL)
	seedPushdown(e)
	for _, q := range []struct {
		sql     string
		ordered []int
	}{
		{"SELECT COUNT(*) FROM (SELECT * FROM p_user WHERE user_id IN (1, 2)) AS t", nil},
		{"SELECT t.status, COUNT(*) AS n, SUM(t.amount) AS s FROM (SELECT o.status, o.amount FROM p_order o WHERE o.user_id IN (1, 2, 3)) AS t GROUP BY t.status ORDER BY n DESC, t.status", []int{1, 0}},
		{"SELECT x.name, x.uid FROM (SELECT name, user_id AS uid FROM p_user) AS x WHERE x.uid IN (1, 2, 3, 5) ORDER BY x.uid DESC LIMIT 3", []int{1}},
		{"SELECT * FROM (SELECT * FROM (SELECT user_id, name FROM p_user WHERE name IS NOT NULL) a WHERE a.user_id IN (1, 2, 4)) b ORDER BY user_id", []int{0}},
	} {
		require.Empty(t, e.query(q.sql, q.ordered, nil, nil), q.sql)
	}
}

// TestPushdownRefusals: a statement that would need evaluation across data
// nodes is refused with the reason, at plan time for literal values and at
// run time (nothing executed) for parameters that reach different nodes.
func TestPushdownRefusals(t *testing.T) {
	e := newEnv(t, pushdownRules, pushdownDDL)
	seedPushdown(e)
	planErrs := []struct{ sql, err string }{
		{"SELECT order_id FROM p_order WHERE user_id IN (1, 2) AND order_id IN (SELECT order_id FROM p_item WHERE user_id IN (1, 2))",
			`<corpus>:1:22: query "Q": the statement has a subquery, so the statement must run whole on one data node, but "p_order" does not route to one: compare each of its sharding columns (user_id, order_id) with one value (=) at its query level; evaluating it across data nodes is not supported yet`},
		{"SELECT COUNT(*) FROM (SELECT DISTINCT * FROM p_user WHERE user_id IN (1, 2)) AS t",
			`<corpus>:1:46: query "Q": the statement has a derived table, so the statement must run whole on one data node, but "p_user" does not route to one: compare each of its sharding columns (user_id) with one value (=) at its query level; evaluating it across data nodes is not supported yet`},
		{"SELECT a.order_id FROM p_order a JOIN p_order b ON a.user_id = b.user_id WHERE a.user_id = 1 AND a.order_id = 1 AND b.user_id = 1 AND b.order_id = 2",
			`<corpus>:1:24: query "Q": "p_order" and "p_order" are joined without comparing their sharding columns, so the statement must run whole on one data node, but "p_order" routes to ds_1.p_order_1 and "p_order" to ds_1.p_order_0; evaluating it across data nodes is not supported yet`},
		{"SELECT u.name FROM p_order o JOIN p_user u ON u.user_id = o.user_id WHERE o.user_id IN (1, 2)",
			`<corpus>:1:35: query "Q": join of sharded tables "p_order" (sharded by user_id, order_id) and "p_user" (sharded by user_id): their rows are placed by different sharding rules, so binding them would not co-locate matching rows; compare each table's sharding columns with one value (=) so both route to one data node, or make one a broadcast table; evaluating the join across data nodes is not supported yet`},
		{"SELECT user_id FROM p_user WHERE user_id IN (1, 2) UNION ALL SELECT user_id FROM p_user WHERE user_id = 3",
			`<corpus>:1:21: query "Q": the statement is a UNION, so the statement must run whole on one data node, but "p_user" does not route to one: compare each of its sharding columns (user_id) with one value (=) at its query level; evaluating it across data nodes is not supported yet`},
		{"INSERT INTO p_user (user_id, name) SELECT user_id + 1, status FROM p_order WHERE user_id = 1 AND order_id = 8",
			`<corpus>:1:43: query "Q": INSERT … SELECT into sharded table "p_user" must write sharding column "user_id" from the selected table's sharding column (a table bound to it) or from a value (a literal or a parameter)`},
	}
	for _, pe := range planErrs {
		_, err := e.plan(pe.sql)
		require.Error(t, err, pe.sql)
		require.Equal(t, pe.err, queryName.ReplaceAllString(err.Error(), `query "Q":`), pe.sql)
	}
	// Parameters that reach different data nodes: refused, nothing runs.
	p, err := e.plan("SELECT COUNT(DISTINCT s_i_id) FROM p_line, p_stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?")
	require.NoError(t, err)
	_, err = e.in.Execute(context.Background(), p, []any{1, 1, 5, 2, 20}, nil)
	require.True(t, errors.Is(err, runtime.ErrNotColocated), "%v", err)
	require.EqualError(t, err, `routing table "p_line": tables "p_line" (on ds_1.p_line) and "p_stock" (on ds_0.p_stock) route to different data nodes, and the statement must run whole on one: evaluating it across data nodes is not supported yet`)
	p, err = e.plan("INSERT INTO p_user (user_id, name) SELECT ?, status FROM p_order WHERE user_id = ? AND order_id = ?")
	require.NoError(t, err)
	_, err = e.in.Execute(context.Background(), p, []any{21, 2, 9}, nil)
	require.ErrorIs(t, err, runtime.ErrNotColocated)
	require.Empty(t, e.query("SELECT user_id FROM p_user WHERE user_id = 21", nil, nil, nil))
}

// hintRules: p_hint routes its data source by hint values (HINT_INLINE);
// p_user as in pushdownRules; p_part has two actual tables on each of
// ds_0 and ds_1.
const hintRules = `rules:
- !SHARDING
  tables:
    p_hint:
      actualDataNodes: ds_${0..3}.p_hint
      databaseStrategy: {hint: {shardingAlgorithmName: hint_db}}
    p_user:
      actualDataNodes: ds_${0..3}.p_user
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_user}}
    p_part:
      actualDataNodes: ds_${0..1}.p_part_${0..1}
      databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: db_part}}
      tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: t_part}}
  shardingAlgorithms:
    hint_db: {type: HINT_INLINE, props: {algorithm-expression: 'ds_${value % 4}'}}
    db_part: {type: INLINE, props: {algorithm-expression: 'ds_${id % 2}'}}
    t_part: {type: INLINE, props: {algorithm-expression: 'p_part_${id.intdiv(2) % 2}'}}
    db_user: {type: INLINE, props: {algorithm-expression: 'ds_${user_id % 4}'}}
`

// TestSQLHints: ShardingSphere's SQL hint comments route statements: hint
// values for a hint strategy, DATA_SOURCE_NAME runs the text unchanged on
// one data source (naming actual tables with SKIP_SQL_REWRITE=true), WRITE_ROUTE_ONLY reads the primary; other comments
// before the hint stay in the SQL sent.
func TestSQLHints(t *testing.T) {
	e := newEnv(t, hintRules, "CREATE TABLE p_hint (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8) NULL);\nCREATE TABLE p_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(16) NULL);\nCREATE TABLE p_part (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8) NULL)")
	ctx := context.Background()
	for u := int64(1); u <= 8; u++ {
		e.exec("INSERT INTO p_user (user_id, name) VALUES (?, ?)", u, fmt.Sprint("n", u))
	}
	run := func(sql string, params ...any) [][]any {
		t.Helper()
		p, err := e.plan(sql)
		require.NoError(t, err, sql)
		res, err := e.in.Execute(ctx, p, params, nil)
		require.NoError(t, err, sql)
		return res.Rows
	}
	p, err := e.plan("/* ApplicationName=DBeaver 24.1 */ /* SHARDINGSPHERE_HINT: SHARDING_DATABASE_VALUE=6 */ INSERT INTO p_hint (id, v) VALUES (?, ?)")
	require.NoError(t, err)
	require.Equal(t, []int{2}, p.Route.Fixed)
	sent := p.Route.Units[2].SQL
	require.True(t, strings.HasPrefix(sent, "/* ApplicationName=DBeaver 24.1 */ ") && strings.HasSuffix(sent, " INSERT INTO p_hint (id, v) VALUES (?, ?)"), sent)
	require.NotContains(t, sent, "SHARDINGSPHERE_HINT")
	_, err = e.in.Execute(ctx, p, []any{1, "six"}, nil)
	require.NoError(t, err)
	ds2, _ := e.rt.Pool("ds_2")
	var n int
	require.NoError(t, ds2.QueryRow("SELECT COUNT(*) FROM p_hint WHERE id = 1").Scan(&n))
	require.Equal(t, 1, n)
	require.Len(t, run("/* SHARDINGSPHERE_HINT: p_hint.SHARDING_DATABASE_VALUE=2 */ SELECT id, v FROM p_hint WHERE id = ?", 1), 1)
	require.Empty(t, run("/* SHARDINGSPHERE_HINT: SHARDING_DATABASE_VALUE=3 */ SELECT id, v FROM p_hint WHERE id = ?", 1))
	require.Len(t, run("/* SHARDINGSPHERE_HINT: SHARDING_DATABASE_VALUE=1, SHARDING_DATABASE_VALUE=2 */ SELECT id, v FROM p_hint ORDER BY id"), 1)
	// DATA_SOURCE_NAME: the statement as written, on that data source only.
	rows := run("/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_3, SKIP_SQL_REWRITE=true */ SELECT user_id FROM p_user ORDER BY user_id")
	require.Equal(t, "[[3] [7]]", fmt.Sprint(normRows(rows)))
	// With SKIP_SQL_REWRITE=true the statement may name actual tables of
	// that data source (ShardingSphere's use of the hint): they plan as
	// their logic table, the text goes as written.
	for id := int64(0); id < 8; id++ {
		e.exec("INSERT INTO p_part (id, v) VALUES (?, ?)", id, fmt.Sprint("v", id))
	}
	// ds_1.p_part_1 holds ids 3 and 7; ds_1.p_part_0 ids 1 and 5.
	require.Equal(t, "[[3 v3] [7 v7]]", fmt.Sprint(normRows(run("/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_1, SKIP_SQL_REWRITE=true */ SELECT * FROM p_part_1 ORDER BY id"))))
	require.Equal(t, "[[7]]", fmt.Sprint(normRows(run("/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_1, SKIP_SQL_REWRITE=true */ SELECT p_part_1.id FROM p_part_1 WHERE p_part_1.v = ?", "v7"))))
	require.Equal(t, "[[1 v1 3]]", fmt.Sprint(normRows(run("/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_1, SKIP_SQL_REWRITE=true */ SELECT a.id, a.v, b.id FROM p_part_0 a JOIN p_part_1 b ON b.id = a.id + 2 WHERE a.id = 1"))))
	p, err = e.plan("/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_1, SKIP_SQL_REWRITE=true */ UPDATE p_part_0 SET v = 'hinted' WHERE id = 5")
	require.NoError(t, err)
	res, err := e.in.Execute(ctx, p, nil, nil)
	require.NoError(t, err)
	require.Equal(t, int64(1), res.RowsAffected)
	require.Equal(t, "[[hinted]]", fmt.Sprint(normRows(run("SELECT v FROM p_part WHERE id = 5"))))
	// The same through the proxy, text and binary protocol.
	srv := startProxy(t, hintRules, "CREATE TABLE p_hint (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8) NULL);\nCREATE TABLE p_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(16) NULL);\nCREATE TABLE p_part (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(8) NULL)")
	for _, interpolate := range []bool{true, false} {
		mc := gomysql.NewConfig()
		mc.User, mc.Net, mc.Addr, mc.DBName, mc.InterpolateParams = "any", "tcp", srv.Addr(), "difftest", interpolate
		db, err := sql.Open("mysql", mc.FormatDSN())
		require.NoError(t, err)
		rows, err := db.QueryContext(ctx, "/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_1, SKIP_SQL_REWRITE=true */ SELECT * FROM p_part_1 WHERE id > ? ORDER BY id", 0)
		require.NoError(t, err)
		got, err := scanRows(rows)
		require.NoError(t, err)
		require.Equal(t, "[[3 v3] [7 v7]]", fmt.Sprint(got))
		require.NoError(t, db.Close())
	}
	_, err = e.plan("/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_1, SKIP_SQL_REWRITE=true */ SELECT * FROM p_part_7")
	require.ErrorContains(t, err, `unknown table "p_part_7"`)
	_, err = e.plan("/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_1 */ SELECT * FROM p_part_1")
	require.ErrorContains(t, err, `unknown table "p_part_1"`)
	p, err = e.plan("/* SHARDINGSPHERE_HINT: WRITE_ROUTE_ONLY=true */ SELECT name FROM p_user WHERE user_id = 2")
	require.NoError(t, err)
	require.True(t, p.Primary)
	_, err = e.plan("/* SHARDINGSPHERE_HINT: DATA_SOURCE_NAME=ds_9 */ SELECT name FROM p_user")
	require.ErrorContains(t, err, "SHARDINGSPHERE_HINT DATA_SOURCE_NAME=ds_9 names no data source (data sources: ds_0, ds_1, ds_2, ds_3)")
	_, err = e.plan("/* SHARDINGSPHERE_HINT: SHARDING_COLUMN=1 */ SELECT name FROM p_user")
	require.ErrorContains(t, err, "unknown SHARDINGSPHERE_HINT key SHARDING_COLUMN")
	_, err = e.plan("SELECT id FROM p_hint")
	require.ErrorContains(t, err, `table "p_hint" uses a hint strategy: give its values in a comment before the statement, /* SHARDINGSPHERE_HINT: p_hint.SHARDING_DATABASE_VALUE=v, p_hint.SHARDING_TABLE_VALUE=v */`)
}

func normRows(rows [][]any) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = norm(r)
	}
	return out
}

// TestPushdownCTE: a SELECT that starts with WITH, whose common table
// expressions are not recursive and each referenced once, runs as the same
// statement with derived tables; the reference runs it as written, WITH
// and all.
func TestPushdownCTE(t *testing.T) {
	e := newEnv(t, pushdownRules, pushdownDDL)
	seedPushdown(e)
	for _, q := range []struct {
		sql     string
		ordered []int
		params  []any
	}{
		{"WITH l AS (SELECT ol_o_id, ol_i_id, ol_number FROM p_line WHERE ol_w_id = ?)\nSELECT l.ol_o_id, l.ol_number FROM l WHERE l.ol_i_id > ? ORDER BY l.ol_o_id, l.ol_number", []int{0, 1}, []any{1, 3}},
		{"WITH st AS (SELECT s_i_id, s_quantity FROM p_stock WHERE s_w_id = ? AND s_quantity < ?)\nSELECT l.ol_o_id, st.s_quantity FROM p_line l LEFT JOIN st ON st.s_i_id = l.ol_i_id WHERE l.ol_w_id = ? ORDER BY l.ol_o_id", []int{0}, []any{2, 15, 2}},
		{"/* c */ WITH d AS (SELECT code, label FROM p_dict WHERE code <> 'paid'), u AS (SELECT user_id, name FROM p_user WHERE user_id = ?)\nSELECT u.name, d.label FROM u, d ORDER BY d.label", []int{1}, []any{4}},
		{"WITH t AS (SELECT name, COUNT(*) AS n FROM p_user WHERE user_id = 3 GROUP BY name) SELECT x.name, x.n FROM t AS x", nil, nil},
		{"WITH s AS (SELECT status FROM p_order WHERE user_id = ? AND order_id = ?) SELECT user_id, name FROM p_user WHERE name IN (SELECT CONCAT('user', LENGTH(status) - 1) FROM s) AND user_id = ?", nil, []any{2, 9, 2}},
		{"WITH a AS (SELECT user_id, name FROM p_user WHERE user_id = 2) SELECT user_id, name FROM a UNION ALL SELECT user_id, name FROM p_user WHERE user_id = 2", nil, nil},
	} {
		p, err := e.plan(q.sql)
		require.NoError(t, err, q.sql)
		require.NotContains(t, strings.ToUpper(p.LogicSQL), "WITH", "planned with derived tables")
		res, err := e.in.Execute(context.Background(), p, q.params, nil)
		require.NoError(t, err, q.sql)
		args := make([]any, len(p.Args))
		for i, pi := range p.Args {
			args[i] = q.params[pi]
		}
		rows, err := e.ref.QueryContext(context.Background(), q.sql, args...) // as written
		require.NoError(t, err, q.sql)
		want, err := scanRows(rows)
		require.NoError(t, err)
		var got [][]string
		for _, r := range res.Rows {
			got = append(got, norm(r))
		}
		require.NotEmpty(t, want, "the reference returns rows: %s", q.sql)
		require.Empty(t, e.compare(got, want, q.ordered, nil, nil), q.sql)
	}
	// Not inlined: referenced twice, recursive, a column list, a ? before
	// the reference.
	for _, q := range []struct{ sql, why string }{
		{"WITH o AS (SELECT user_id FROM p_user WHERE user_id = 1) SELECT a.user_id FROM o a JOIN o b ON a.user_id = b.user_id", "o is referenced 2 times"},
		{"WITH RECURSIVE n AS (SELECT 1 AS k UNION ALL SELECT k + 1 FROM n WHERE k < 3) SELECT k FROM n", "WITH RECURSIVE is not supported"},
		{"WITH o (id) AS (SELECT user_id FROM p_user WHERE user_id = 1) SELECT id FROM o", "o names its columns"},
		{"WITH o AS (SELECT user_id FROM p_user WHERE user_id = ?) SELECT CAST(? AS SIGNED), user_id FROM o", "a placeholder (?) written before a reference"},
	} {
		_, err := e.plan(q.sql)
		require.ErrorContains(t, err, "WITH (common table expressions) is not supported here: "+q.why, q.sql)
	}
}

// TestModRangeWithoutLowerBound: a range with an upper bound and no lower
// bound on a MOD sharding column (ol_w_id < ?) reaches every data node, as
// the reference's rows below the bound may have any residue (it failed at
// run time before, as ShardingSphere's MOD does).
func TestModRangeWithoutLowerBound(t *testing.T) {
	e := newEnv(t, pushdownRules, pushdownDDL)
	seedPushdown(e)
	for _, q := range []struct {
		sql    string
		params []any
	}{
		{"SELECT ol_w_id, ol_o_id, ol_number FROM p_line WHERE ol_w_id < ?", []any{3}},
		{"SELECT ol_w_id, ol_o_id, ol_number FROM p_line WHERE ol_w_id <= ? AND ol_d_id = 1", []any{1}},
		{"SELECT COUNT(*) FROM p_line WHERE ol_w_id < 2", nil},
		{"SELECT s_w_id, s_i_id FROM p_stock WHERE s_w_id < ? OR s_w_id > ?", []any{2, 1}},
	} {
		require.Empty(t, e.query(q.sql, nil, nil, nil, q.params...), q.sql)
	}
	e.exec("UPDATE p_stock SET s_quantity = s_quantity + 1 WHERE s_w_id < ?", 2)
	require.Empty(t, e.query("SELECT s_w_id, s_i_id, s_quantity FROM p_stock", nil, nil, nil))
}
