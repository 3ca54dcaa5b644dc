package plan_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

const testRules = `databaseName: shop
dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    t_order:
      actualDataNodes: ds_${0..1}.t_order_${0..3}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_mod}}
      tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: t_mod}}
      keyGenerateStrategy: {column: order_id, keyGeneratorName: snowflake}
    t_order_item:
      actualDataNodes: ds_${0..1}.t_order_item_${0..3}
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_mod}}
      tableStrategy: {standard: {shardingColumn: order_id, shardingAlgorithmName: t_mod}}
    t_user:
      actualDataNodes: ds_${0..1}.t_user
      databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: db_mod}}
  bindingTables: ["t_order, t_order_item"]
  shardingAlgorithms:
    db_mod: {type: MOD, props: {sharding-count: 2}}
    t_mod: {type: MOD, props: {sharding-count: 4}}
  keyGenerators:
    snowflake: {type: SNOWFLAKE}
- !BROADCAST
  tables: [t_dict]
- !SINGLE
  tables: ["ds_0.t_config"]
`

const testDDL = `CREATE TABLE t_order (order_id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL, status VARCHAR(16), amount DECIMAL(10,2) NOT NULL);
CREATE TABLE t_order_item (item_id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, sku VARCHAR(32) NOT NULL);
CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL, born DATETIME NULL, flags BIGINT UNSIGNED NOT NULL);
CREATE TABLE t_dict (code VARCHAR(16) NOT NULL PRIMARY KEY, label VARCHAR(64));
CREATE TABLE t_config (k VARCHAR(16) NOT NULL PRIMARY KEY, v VARCHAR(64));
`

func newBuilder(t *testing.T) *plan.Builder {
	t.Helper()
	return builderOf(t, testRules, testDDL)
}

// builderOf loads rules (rules.yaml) and ddl (schema.sql) and builds their
// planner.
func builderOf(t *testing.T, rules, ddl string) *plan.Builder {
	t.Helper()
	cfg, err := schema.Load("rules.yaml", []byte(rules))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("schema.sql", []byte(ddl))
	require.NoError(t, err)
	require.NoError(t, schema.CheckDDL(cfg, tables))
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	return b
}

func build(t *testing.T, b *plan.Builder, cmd, sql string, annotations ...string) (*plan.Plan, error) {
	t.Helper()
	src := "-- name: Q " + cmd + "\n"
	for _, a := range annotations {
		src += "-- " + a + "\n"
	}
	src += sql + ";\n"
	qs, err := schema.ParseQueries("q.sql", []byte(src))
	require.NoError(t, err)
	require.Len(t, qs, 1)
	return b.Build(qs[0])
}

func TestRoutes(t *testing.T) {
	b := newBuilder(t)
	tests := []struct {
		name, cmd, sql string
		annotations    []string
		kind           runtime.RouteKind
		fixed          []int
		unit0          string
	}{
		{"point select", ":one", "SELECT * FROM t_order WHERE user_id = ? AND order_id = ?", nil,
			runtime.RouteSingleNode, nil, "SELECT * FROM t_order_0 WHERE user_id = ? AND order_id = ?"},
		{"value on the left", ":one", "SELECT * FROM t_order WHERE ? = user_id AND order_id = ?", nil,
			runtime.RouteSingleNode, nil, "SELECT * FROM t_order_0 WHERE ? = user_id AND order_id = ?"},
		{"literals route at generate time", ":one", "SELECT * FROM t_order WHERE user_id = 3 AND order_id = 6", nil,
			runtime.RouteSingleNode, []int{6}, ""},
		{"negative literal (MOD is non-negative)", ":one", "SELECT * FROM t_order WHERE user_id = -1 AND order_id = -7", nil,
			runtime.RouteSingleNode, []int{5}, ""},
		{"IN list", ":many", "SELECT order_id FROM t_order WHERE user_id = 1 AND order_id IN (1, 2, 5)", nil,
			runtime.RouteMultiNode, []int{5, 6}, ""},
		{"OR of point conditions", ":many", "SELECT order_id FROM t_order WHERE (user_id = 0 AND order_id = 0) OR (user_id = 1 AND order_id = 3)", nil,
			runtime.RouteMultiNode, []int{0, 7}, ""},
		{"AND binds tighter than OR", ":many", "SELECT order_id FROM t_order WHERE user_id = 0 AND order_id = 0 OR order_id = 3", nil,
			runtime.RouteMultiNode, []int{0, 3, 7}, ""},
		{"an OR of other columns under the sharding conditions is one route", ":many", "SELECT order_id FROM t_order WHERE user_id = ? AND order_id = ? AND (status = 'a' OR amount > 3)", nil,
			runtime.RouteSingleNode, nil, "SELECT order_id FROM t_order_0 WHERE user_id = ? AND order_id = ? AND (status = 'a' OR amount > 3)"},
		{"the same, with literals and a co-located subquery", ":many", "SELECT order_id FROM t_order WHERE user_id = 3 AND order_id = 6 AND order_id IN (SELECT i.order_id FROM t_order_item i WHERE i.user_id = 3 AND i.order_id = 6 AND (i.sku = 'a' OR i.sku = 'b'))", nil,
			runtime.RouteSingleNode, []int{6}, ""},
		{"BETWEEN", ":many", "SELECT order_id FROM t_order WHERE user_id = 1 AND order_id BETWEEN 1 AND 2", nil,
			runtime.RouteMultiNode, []int{5, 6}, ""},
		{"one OR branch without a sharding column is a full route", ":many", "SELECT order_id FROM t_order WHERE user_id = 1 OR status = 'x'",
			[]string{"shardgen:allow-full-route"}, runtime.RouteAllNodes, nil, ""},
		{"qualified and aliased columns, index hint", ":one", "SELECT o.order_id FROM t_order AS o USE INDEX (PRIMARY) WHERE o.user_id = ? AND o.order_id = ?", nil,
			runtime.RouteSingleNode, nil, "SELECT o.order_id FROM t_order_0 AS o USE INDEX (PRIMARY) WHERE o.user_id = ? AND o.order_id = ?"},
		{"table-qualified columns and the logic database", ":one", "SELECT t_order.order_id FROM shop.t_order WHERE t_order.user_id = ? AND t_order.order_id = ?", nil,
			runtime.RouteSingleNode, nil, "SELECT t_order_0.order_id FROM t_order_0 WHERE t_order_0.user_id = ? AND t_order_0.order_id = ?"},
		{"back-quoted table", ":one", "SELECT `order_id` FROM `t_order` WHERE user_id = ? AND order_id = ?", nil,
			runtime.RouteSingleNode, nil, "SELECT `order_id` FROM `t_order_0` WHERE user_id = ? AND order_id = ?"},
		{"binding join routes pairwise", ":many", "SELECT i.sku FROM t_order o JOIN t_order_item i ON o.user_id = i.user_id AND o.order_id = i.order_id WHERE o.user_id = ? AND o.order_id = ?", nil,
			runtime.RouteSingleNode, nil, "SELECT i.sku FROM t_order_0 o JOIN t_order_item_0 i ON o.user_id = i.user_id AND o.order_id = i.order_id WHERE o.user_id = ? AND o.order_id = ?"},
		{"condition on the bound table routes the primary", ":many", "SELECT i.sku FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id WHERE i.user_id = 1 AND i.order_id = 2", nil,
			runtime.RouteSingleNode, []int{6}, ""},
		{"an outer join's ON does not narrow the route", ":many", "SELECT o.order_id FROM t_order o LEFT JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id AND i.user_id = 1 AND i.order_id = 2 WHERE o.user_id = 1", []string{"shardgen:allow-full-route"},
			runtime.RouteMultiNode, []int{4, 5, 6, 7}, ""},
		{"join with a broadcast table", ":one", "SELECT o.order_id, d.label FROM t_order o JOIN t_dict d ON d.code = o.status WHERE o.user_id = ? AND o.order_id = ?", nil,
			runtime.RouteSingleNode, nil, "SELECT o.order_id, d.label FROM t_order_0 o JOIN t_dict d ON d.code = o.status WHERE o.user_id = ? AND o.order_id = ?"},
		{"database-only sharding", ":one", "SELECT name FROM t_user WHERE user_id = ?", nil,
			runtime.RouteSingleNode, nil, "SELECT name FROM t_user WHERE user_id = ?"},
		{"insert with generated key", ":exec", "INSERT INTO t_order (user_id, status, amount) VALUES (?, ?, ?)", nil,
			runtime.RouteSingleNode, nil, "INSERT INTO t_order_0 (user_id, status, amount, order_id) VALUES (?, ?, ?, ?)"},
		{"update by sharding key", ":execrows", "UPDATE t_order SET status = ? WHERE user_id = ? AND order_id = ?", nil,
			runtime.RouteSingleNode, nil, "UPDATE t_order_0 SET status = ? WHERE user_id = ? AND order_id = ?"},
		{"delete by IN", ":execrows", "DELETE FROM t_order WHERE user_id = ? AND order_id IN (?, ?)", nil,
			runtime.RouteMultiNode, nil, "DELETE FROM t_order_0 WHERE user_id = ? AND order_id IN (?, ?)"},
		{"broadcast read", ":one", "SELECT label FROM t_dict WHERE code = ?", nil,
			runtime.RouteBroadcast, []int{0}, "SELECT label FROM t_dict WHERE code = ?"},
		{"broadcast write", ":exec", "UPDATE t_dict SET label = ? WHERE code = ?", nil,
			runtime.RouteBroadcast, []int{0, 1}, "UPDATE t_dict SET label = ? WHERE code = ?"},
		{"single table", ":one", "SELECT v FROM t_config WHERE k = ?", nil,
			runtime.RouteSingleTable, []int{0}, "SELECT v FROM t_config WHERE k = ?"},
		{"single node keeps ORDER BY and LIMIT", ":many", "SELECT order_id FROM t_order WHERE user_id = ? AND order_id = ? ORDER BY order_id LIMIT 5", nil,
			runtime.RouteSingleNode, nil, "SELECT order_id FROM t_order_0 WHERE user_id = ? AND order_id = ? ORDER BY order_id LIMIT 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := build(t, b, tt.cmd, tt.sql, tt.annotations...)
			require.NoError(t, err)
			require.Equal(t, tt.kind, p.Route.Kind)
			require.Equal(t, tt.fixed, p.Route.Fixed)
			if tt.unit0 != "" {
				require.Equal(t, tt.unit0, p.Route.Units[0].SQL)
			}
		})
	}
}

func TestParamsAndColumns(t *testing.T) {
	b := newBuilder(t)
	p, err := build(t, b, ":one", "SELECT user_id, name, born, flags, COUNT(*) AS n FROM t_user WHERE user_id = sqlc.arg(id) AND name = sqlc.arg(name) AND flags <> sqlc.arg(id)")
	require.NoError(t, err)
	var params, cols []string
	for _, x := range p.Params {
		params = append(params, x.Name+" "+x.Type.String())
	}
	for _, c := range p.Columns {
		cols = append(cols, c.Field+" "+c.Type.String())
	}
	require.Equal(t, []string{"id int64", "name string"}, params)
	require.Equal(t, []int{0, 1, 0}, p.Args)
	require.Equal(t, []string{"UserID int64", "Name string", "Born sql.NullTime", "Flags uint64", "N int64"}, cols)
	require.Equal(t, "SELECT user_id, name, born, flags, COUNT(*) AS n FROM t_user WHERE user_id = ? AND name = ? AND flags <> ?", p.LogicSQL)

	// A named parameter whose first occurrence gives no type takes the type
	// of a later one (sqlc's optional-filter idiom).
	p, err = build(t, b, ":many", "SELECT name FROM t_user WHERE user_id = ? AND (sqlc.narg(name) IS NULL OR name = sqlc.narg(name))")
	require.NoError(t, err)
	require.Len(t, p.Params, 2)
	require.Equal(t, "name sql.NullString", p.Params[1].Name+" "+p.Params[1].Type.String())
	require.Equal(t, []int{0, 1, 1}, p.Args)
	_, err = build(t, b, ":many", "SELECT name FROM t_user WHERE user_id = ? AND sqlc.narg(x) IS NULL")
	require.ErrorContains(t, err, "cannot infer the type of parameter 2")

	// sqlc.narg takes the nullable type even for a NOT NULL column.
	p, err = build(t, b, ":exec", "UPDATE t_user SET born = sqlc.narg(born), name = sqlc.narg(name) WHERE user_id = ?")
	require.NoError(t, err)
	require.Equal(t, "sql.NullTime", p.Params[0].Type.String())
	require.Equal(t, "sql.NullString", p.Params[1].Type.String())

	// The inner side of an outer join can be NULL whatever its DDL says.
	p, err = build(t, b, ":many", "SELECT o.order_id, i.sku FROM t_order o LEFT JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id WHERE o.user_id = ? AND o.order_id = ?")
	require.NoError(t, err)
	require.Equal(t, "int64", p.Columns[0].Type.String())
	require.Equal(t, "sql.NullString", p.Columns[1].Type.String())

	p, err = build(t, b, ":one", "SELECT * FROM t_user WHERE user_id = ?")
	require.NoError(t, err)
	require.Equal(t, "t_user", p.RowModel)

	p, err = build(t, b, ":exec", "INSERT INTO t_order (user_id, status, amount) VALUES (?, ?, ?)")
	require.NoError(t, err)
	require.Equal(t, "order_id", p.KeyGenerate.Column)
	require.True(t, p.Params[p.KeyGenerate.Param].Generated)
	require.Equal(t, "sql.NullString", p.Params[1].Type.String()) // nullable column written
}

func TestInline(t *testing.T) {
	b := newBuilder(t)
	p, err := build(t, b, ":one", "SELECT * FROM t_order WHERE user_id = ? AND order_id = ?")
	require.NoError(t, err)
	require.Equal(t, &plan.Inline{Func: "Mod", Modulus: 2, Index: []int{0, 1}, Identity: true}, p.Route.Database.Inline)
	require.Equal(t, &plan.Inline{Func: "Mod", Modulus: 4, Index: []int{0, 1, 2, 3}, Identity: true}, p.Route.Table.Inline)
	require.Equal(t, [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}, p.Route.Nodes)
}

// TestRefusals: every refusal names the file and line and says why; a query
// that cannot run correctly is never planned approximately.
func TestRefusals(t *testing.T) {
	b := newBuilder(t)
	tests := []struct{ cmd, sql, err string }{
		{":one", "SELECT * FROM t_nope WHERE id = ?",
			`q.sql:2:15: query "Q": unknown table "t_nope": no CREATE TABLE for it in the DDL`},
		{":one", "SELECT nope FROM t_order WHERE user_id = ? AND order_id = ?",
			`q.sql:2:8: query "Q": unknown column "nope" in table "t_order"`},
		{":one", "SELECT o.nope FROM t_order o WHERE o.user_id = ? AND o.order_id = ?",
			`q.sql:2:10: query "Q": unknown column "nope" in table "t_order"`},
		{":one", "SELEC * FROM t_order",
			`q.sql:2:1: query "Q": syntax error: at position 6 near 'SELEC'`},
		{":many", "SELECT order_id FROM t_order WHERE status = ?",
			`q.sql:2:30: query "Q": no sharding condition on table "t_order" (sharding columns: user_id, order_id): it would run on all 8 data nodes; add ` + "`=`" + ` or IN on a sharding column, or annotate the query with -- shardgen:allow-full-route`},
		{":many", "SELECT u.name FROM t_order o JOIN t_user u ON o.user_id = u.user_id WHERE o.user_id = ? AND o.order_id = ?",
			`q.sql:2:35: query "Q": join of sharded tables "t_order" (sharded by user_id, order_id) and "t_user" (sharded by user_id): their rows are placed by different sharding rules, so binding them would not co-locate matching rows; compare each table's sharding columns with one value (=) so both route to one data node, or make one a broadcast table; evaluating the join across data nodes is not supported yet`},
		{":many", "SELECT i.sku FROM t_order o JOIN t_order_item i ON o.status = i.sku WHERE o.user_id = ? AND o.order_id = ?",
			`q.sql:2:34: query "Q": join of "t_order" and "t_order_item" must compare their sharding columns (e.g. ON t_order.user_id = t_order_item.user_id) so matching rows are on one data node, or compare each table's sharding columns with one value (=) so both route to the same data node; evaluating the join across data nodes is not supported yet`},
		{":many", "SELECT order_id, SLEEP(CAST(? AS DECIMAL(5,2))) FROM t_order WHERE user_id = ? GROUP BY order_id",
			`q.sql:2:18: query "Q": cannot infer the Go type of result column 2 (SLEEP(cast(? as DECIMAL(5, 2)))): give it a CAST(... AS type)`},
		{":many", "SELECT order_id, SUM(amount) / COUNT(*), LAST_DAY(MAX(status)) FROM t_order WHERE user_id = ? GROUP BY order_id",
			`q.sql:2:42: query "Q": cannot infer the Go type of result column 3 (LAST_DAY(max(` + "`status`" + `))): give it a CAST(... AS type)`},
		{":many", "SELECT order_id, CAST(LENGTH(MAX(status)) AS SIGNED) FROM t_order WHERE user_id = ? GROUP BY order_id",
			`q.sql:2:23: query "Q": the expression over several data nodes: LENGTH(max(` + "`status`" + `)) (the function LENGTH over merged aggregates); GROUP BY every sharding column (user_id, order_id) so each group is on one data node, or route to one data node`},
		{":many", "SELECT status, COUNT(*) FROM t_order WHERE user_id = ? GROUP BY status HAVING MAX(status) LIKE 'a%'",
			`q.sql:2:79: query "Q": HAVING over several data nodes: max(` + "`status`" + `) like 'a%' (it compares text in the database's default collation (the DDL names none), which the merge cannot compare in process; name a _bin or utf8mb4_general_ci collation); GROUP BY every sharding column (user_id, order_id) so each group is on one data node, or route to one data node`},
		{":exec", "UPDATE t_order SET status = ? WHERE user_id IN (?, ?) ORDER BY order_id LIMIT 2",
			`q.sql:2:73: query "Q": UPDATE ... LIMIT over several data nodes of "t_order" is not supported: each data node would apply its own LIMIT, changing more rows than one MySQL would; compare every sharding column (user_id, order_id) with one value so it routes to one data node, or SELECT the keys ... ORDER BY ... LIMIT first and update those rows by key`},
		{":exec", "DELETE FROM t_order WHERE user_id IN (?, ?) LIMIT 1",
			`q.sql:2:45: query "Q": DELETE ... LIMIT over several data nodes of "t_order" is not supported: each data node would apply its own LIMIT, changing more rows than one MySQL would; compare every sharding column (user_id, order_id) with one value so it routes to one data node, or SELECT the keys ... ORDER BY ... LIMIT first and delete those rows by key`},
		{":exec", "UPDATE t_order SET user_id = user_id + 1 WHERE user_id = ? AND order_id = ?",
			`q.sql:2:20: query "Q": UPDATE sets sharding column "user_id" of table "t_order": the row would have to move to another data node; delete and re-insert it instead`},
		{":exec", "INSERT INTO t_order (user_id, order_id, amount) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE order_id = order_id + 1",
			`q.sql:2:31: query "Q": UPDATE sets sharding column "order_id" of table "t_order": the row would have to move to another data node; delete and re-insert it instead`},
		{":exec", "INSERT INTO t_order (order_id, status, amount) VALUES (?, ?, ?)",
			`q.sql:2:13: query "Q": INSERT into sharded table "t_order" must give sharding column "user_id"`},
		{":exec", "INSERT INTO t_order (user_id, status, amount) VALUES (?, ?)",
			`q.sql:2:54: query "Q": INSERT has 3 columns but a row has 2 values`},
		// The sharding column that is not copied is the one to fix, not
		// the copied user_id the planner reached first.
		{":exec", "INSERT INTO t_order (order_id, user_id, status, amount) SELECT order_id + 1000, user_id, status, amount FROM t_order WHERE user_id IN (1, 2)",
			`q.sql:2:64: query "Q": INSERT … SELECT into sharded table "t_order" writes sharding column "order_id" from order_id + 1000: it must copy it from the selected table's sharding column (a table bound to it), as it copies "user_id", so that each row stays on its data node, or write every sharding column from a value (a literal or a parameter)`},
		{":exec", "INSERT INTO t_order (user_id, order_id, amount) SELECT user_id, 5, amount FROM t_order WHERE user_id = ?",
			`q.sql:2:65: query "Q": INSERT … SELECT into sharded table "t_order" writes sharding column "order_id" from 5: it must copy it from the selected table's sharding column (a table bound to it), as it copies "user_id", so that each row stays on its data node, or write every sharding column from a value (a literal or a parameter)`},
		{":exec", "INSERT INTO t_order (order_id, user_id, amount) SELECT order_id, user_id + 1, amount FROM t_order WHERE user_id = ?",
			`q.sql:2:66: query "Q": INSERT … SELECT into sharded table "t_order" must write sharding column "user_id" from the selected table's sharding column (a table bound to it) or from a value (a literal or a parameter)`},
		{":one", "SELECT order_id FROM t_order WHERE user_id = ? AND order_id = ? AND ? > 3",
			`q.sql:2:69: query "Q": cannot infer the type of parameter 3: compare it with a column (col = ?), or CAST(? AS type)`},
		{":one", "SELECT NOW() FROM t_order WHERE user_id = ? AND order_id = ?",
			`q.sql:2:8: query "Q": cannot infer the Go type of result column 1 (now()): give it a CAST(... AS type)`},
		{":exec", "SELECT order_id FROM t_order WHERE user_id = ? AND order_id = ?",
			`q.sql:1:1: query "Q": :exec cannot return rows; use :one or :many for a SELECT`},
		{":one", "SELECT order_id FROM other_db.t_order WHERE user_id = ? AND order_id = ?",
			`q.sql:2:22: query "Q": table "t_order" is qualified with database "other_db"; the logic database is "shop"`},
		{":many", "SELECT o.order_id, c.v FROM t_order o JOIN t_config c ON c.k = o.status WHERE o.user_id IN (?, ?)",
			`q.sql:2:29: query "Q": sharded table "t_order" is joined with single table "t_config", so the statement must run whole on one data node, but "t_order" does not route to one: compare each of its sharding columns (user_id, order_id) with one value (=) at its query level; or make "t_config" a broadcast table; evaluating it across data nodes is not supported yet`},
		{":one", "SELECT order_id FROM t_order WHERE user_id = NULL AND order_id = 1",
			`q.sql:2:30: query "Q": the sharding conditions on "t_order" compare with NULL, which matches no row (NULL equals nothing; IS NULL tests it): the statement would run on no data node`},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, err := build(t, b, tt.cmd, tt.sql)
			require.EqualError(t, err, tt.err)
		})
	}
}

// TestRewriteKeepsText: everything but the table names stays byte for byte,
// including comments, spacing and a string that mentions the table.
func TestRewriteKeepsText(t *testing.T) {
	b := newBuilder(t)
	sql := "SELECT /* keep */ order_id,\n  't_order' AS t\nFROM   t_order\nWHERE user_id = ? AND order_id = ?"
	p, err := build(t, b, ":one", sql)
	require.NoError(t, err)
	require.Equal(t, strings.Replace(sql, "FROM   t_order", "FROM   t_order_1", 1), p.Route.Units[5].SQL)
}

func TestPrimaryRouting(t *testing.T) {
	b := newBuilder(t)
	for sql, want := range map[string]bool{
		"SELECT name FROM t_user WHERE user_id = ?":                    false,
		"SELECT name FROM t_user WHERE user_id = ? FOR UPDATE":         true,
		"SELECT name FROM t_user WHERE user_id = ? LOCK IN SHARE MODE": true,
		"UPDATE t_user SET name = ? WHERE user_id = ?":                 true,
	} {
		cmd := ":one"
		if !strings.HasPrefix(sql, "SELECT") {
			cmd = ":exec"
		}
		p, err := build(t, b, cmd, sql)
		require.NoError(t, err)
		require.Equal(t, want, p.Primary, sql)
	}
	p, err := build(t, b, ":one", "SELECT name FROM t_user WHERE user_id = ?", "shardgen:primary")
	require.NoError(t, err)
	require.True(t, p.Primary)
}

// TestTableInNoRule: a table that no rule names runs on the only logic data
// source, as ShardingSphere 5.1-5.3 route it: one data source, or one
// read/write-splitting group; with several it is refused, naming them.
func TestTableInNoRule(t *testing.T) {
	const ddl = "CREATE TABLE t_note (id BIGINT NOT NULL PRIMARY KEY, body VARCHAR(20));\n"
	const one = "databaseName: app\ndataSources:\n  ds_0: {url: \"jdbc:mysql://127.0.0.1:13306/ds_0\"}\n"
	const two = one + "  ds_1: {url: \"jdbc:mysql://127.0.0.1:13307/ds_1\"}\n"
	const rw = two + `rules:
- !READWRITE_SPLITTING
  dataSources:
    rw_ds: {staticStrategy: {writeDataSourceName: ds_0, readDataSourceNames: [ds_1]}}
`
	for _, tc := range []struct{ name, rules, ds string }{{"one data source", one, "ds_0"}, {"one read/write group", rw, "rw_ds"}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := build(t, builderOf(t, tc.rules, ddl), ":many", "SELECT id, body FROM t_note WHERE body = ?")
			require.NoError(t, err)
			require.Equal(t, runtime.RouteSingleTable, p.Route.Kind)
			require.Equal(t, []string{tc.ds}, p.Route.DataSources)
		})
	}
	_, err := build(t, builderOf(t, two, ddl), ":many", "SELECT id, body FROM t_note WHERE body = ?")
	require.EqualError(t, err, `q.sql:2:22: query "Q": table "t_note" is in no rule and the logic database has 2 data sources (ds_0, ds_1): list it in !SHARDING, !BROADCAST or !SINGLE (e.g. tables: ["ds_0.t_note"])`)
}

// TestJoinSingleNodeTables: sharding tables with one data node each (no
// sharding column) join with no sharding condition, bound or not, and with
// a single table, when they share the data source; on different data
// sources the join is refused, naming the data nodes.
func TestJoinSingleNodeTables(t *testing.T) {
	const rules = `databaseName: app
dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    T_ROLE: {actualDataNodes: ds_0.t_role_0}
    T_ROLE_ADMIN: {actualDataNodes: ds_0.t_role_admin_0}
    T_PERM: {actualDataNodes: ds_0.t_perm_0}
    T_FAR: {actualDataNodes: ds_1.t_far_0}
  bindingTables: ["T_ROLE, T_ROLE_ADMIN"]
- !SINGLE
  tables: ["ds_0.t_config", "ds_1.t_other"]
`
	const ddl = `CREATE TABLE T_ROLE (role_id BIGINT PRIMARY KEY, name VARCHAR(20));
CREATE TABLE T_ROLE_ADMIN (admin_id BIGINT PRIMARY KEY, role_id BIGINT);
CREATE TABLE T_PERM (perm_id BIGINT PRIMARY KEY, role_id BIGINT);
CREATE TABLE T_FAR (id BIGINT PRIMARY KEY, role_id BIGINT);
CREATE TABLE t_config (k VARCHAR(16) PRIMARY KEY, role_id BIGINT);
CREATE TABLE t_other (k VARCHAR(16) PRIMARY KEY, role_id BIGINT);
`
	b := builderOf(t, rules, ddl)
	for _, tc := range []struct{ sql, want string }{
		{"SELECT r.name, a.admin_id FROM T_ROLE r JOIN T_ROLE_ADMIN a ON r.role_id = a.role_id",
			"SELECT r.name, a.admin_id FROM t_role_0 r JOIN t_role_admin_0 a ON r.role_id = a.role_id"},
		{"SELECT r.name, p.perm_id FROM T_ROLE r JOIN T_PERM p ON r.role_id = p.role_id WHERE r.name = ?",
			"SELECT r.name, p.perm_id FROM t_role_0 r JOIN t_perm_0 p ON r.role_id = p.role_id WHERE r.name = ?"},
		{"SELECT r.name, c.k FROM T_ROLE r LEFT JOIN t_config c ON c.role_id = r.role_id",
			"SELECT r.name, c.k FROM t_role_0 r LEFT JOIN t_config c ON c.role_id = r.role_id"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			p, err := build(t, b, ":many", tc.sql)
			require.NoError(t, err)
			require.Equal(t, runtime.RouteSingleNode, p.Route.Kind)
			require.Equal(t, []int{0}, p.Route.Fixed)
			require.Len(t, p.Route.Units, 1)
			require.Equal(t, "ds_0", p.Route.DataSources[p.Route.Units[0].DataSource])
			require.Equal(t, tc.want, p.Route.Units[0].SQL)
		})
	}
	for _, tc := range []struct{ sql, err string }{
		{"SELECT r.name FROM T_ROLE r JOIN T_FAR f ON r.role_id = f.role_id",
			`q.sql:2:34: query "Q": "T_ROLE" and "T_FAR" are joined without comparing their sharding columns, so the statement must run whole on one data node, but "T_ROLE" routes to ds_0.t_role_0 and "T_FAR" to ds_1.t_far_0; put them on one data source, or make one a broadcast table; evaluating it across data nodes is not supported yet`},
		{"SELECT r.name FROM T_ROLE r JOIN t_other o ON r.role_id = o.role_id",
			`q.sql:2:34: query "Q": sharded table "T_ROLE" is joined with single table "t_other", so the statement must run whole on one data node, but "T_ROLE" routes to ds_0.t_role_0 and "t_other" to ds_1.t_other; make "t_other" a broadcast table; evaluating it across data nodes is not supported yet`},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := build(t, b, ":many", tc.sql)
			require.EqualError(t, err, tc.err)
		})
	}
}

// TestInvisibleColumns: an INSERT without a column list gives values to the
// visible columns only and SELECT * reads them only, as the server counts
// them; named, an INVISIBLE column is read and written like any other. The
// same holds over an encrypted table and in a merged SELECT *.
func TestInvisibleColumns(t *testing.T) {
	const ddl = `CREATE TABLE t_event (id BIGINT NOT NULL PRIMARY KEY, user_id BIGINT NOT NULL INVISIBLE DEFAULT 0,
  kind INT NOT NULL, seen INT NULL INVISIBLE, note VARCHAR(20));
`
	const rules = `databaseName: app
dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    t_event:
      actualDataNodes: ds_${0..1}.t_event_${0..1}
      databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: m2}}
      tableStrategy: {standard: {shardingColumn: kind, shardingAlgorithmName: k}}
  shardingAlgorithms:
    m2: {type: MOD, props: {sharding-count: 2}}
    k: {type: INLINE, props: {algorithm-expression: "t_event_${kind % 2}"}}
`
	b := builderOf(t, rules, ddl)
	p, err := build(t, b, ":exec", "INSERT INTO t_event VALUES (?, ?, ?)")
	require.NoError(t, err)
	var names []string
	for _, prm := range p.Params {
		names = append(names, prm.Name)
	}
	require.Equal(t, []string{"id", "kind", "note"}, names)
	require.Equal(t, "id", p.Route.Conditions[0].Columns[0].Column)
	require.Equal(t, 0, p.Route.Conditions[0].Columns[0].Values[0].Param)
	require.Equal(t, "kind", p.Route.Conditions[0].Columns[1].Column)
	require.Equal(t, 1, p.Route.Conditions[0].Columns[1].Values[0].Param)

	_, err = build(t, b, ":exec", "INSERT INTO t_event VALUES (?, ?, ?, ?, ?)")
	require.EqualError(t, err, `q.sql:2:28: query "Q": INSERT has 3 columns but a row has 5 values`)

	p, err = build(t, b, ":many", "SELECT * FROM t_event WHERE id IN (?, ?) ORDER BY kind")
	require.NoError(t, err)
	names = nil
	for _, c := range p.Columns {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"id", "kind", "note"}, names)
	require.Empty(t, p.RowModel, "SELECT * is not the table's model: the model has the invisible columns too")

	p, err = build(t, b, ":many", "SELECT id, seen FROM t_event WHERE id = ? AND kind = ?")
	require.NoError(t, err)
	require.Equal(t, "seen", p.Columns[1].Name)
	_, err = build(t, b, ":exec", "INSERT INTO t_event (id, kind, seen) VALUES (?, ?, ?)")
	require.NoError(t, err)

	eb := builderOf(t, encRules, `CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL,
  mobile_cipher VARCHAR(128) INVISIBLE, mobile_md5 VARCHAR(64) INVISIBLE, mobile_like VARCHAR(64) INVISIBLE, email_cipher VARCHAR(256))`)
	p, err = build(t, eb, ":exec", "INSERT INTO t_user VALUES (?, ?, ?)")
	require.NoError(t, err)
	require.Equal(t, "insert into t_user(user_id, `name`, email_cipher) values (?, ?, ?)", p.Route.Units[0].SQL)
	p, err = build(t, eb, ":many", "SELECT * FROM t_user WHERE user_id = ?")
	require.NoError(t, err)
	require.Equal(t, "select t_user.user_id, t_user.`name`, t_user.email_cipher as email from t_user where user_id = ?", p.Route.Units[0].SQL)
}

// TestShardingKeyUpdate: an UPDATE may set a sharding column to a literal
// or a parameter; with literals the check is made now (refused, or no
// run-time check), with parameters Route.Update carries it to run time,
// where Builder.Units (the proxy, preview) refuses a row that would move.
// Expressions, NULL, ON DUPLICATE KEY UPDATE and a full route stay refused.
func TestShardingKeyUpdate(t *testing.T) {
	b := newBuilder(t) // t_order: user_id MOD 2 (data source), order_id MOD 4 (table)
	p, err := build(t, b, ":execrows", "UPDATE t_order SET status = ?, user_id = ? WHERE user_id = ? AND order_id = ?")
	require.NoError(t, err)
	require.NotNil(t, p.Route.Update)
	js, err := json.Marshal(p.Route.Update)
	require.NoError(t, err)
	require.JSONEq(t, `{"set":{"columns":[{"column":"user_id","values":[{"param":1}]}]},
		"conditions":[{"columns":[{"column":"order_id","values":[{"param":3}]},{"column":"user_id","values":[{"param":1}]}]}]}`, string(js))
	units := func(vals ...int64) ([]int, error) {
		var params []runtime.Value
		params = append(params, runtime.String("NEW"))
		for _, v := range vals {
			params = append(params, runtime.Long(v))
		}
		return b.Units(p, params)
	}
	got, err := units(3, 1, 6) // ds_1.t_order_2 → user 3: ds_1
	require.NoError(t, err)
	require.Equal(t, []int{6}, got)
	_, err = units(4, 1, 6)
	require.EqualError(t, err, "UPDATE sets sharding column user_id of t_order to a value that routes to ds_0.t_order_2, not to the row's data node ds_1.t_order_2: the row would have to move to another data node; delete and re-insert it instead")
	require.ErrorIs(t, err, runtime.ErrShardingValueMoves)

	// Literals: checked now.
	p, err = build(t, b, ":execrows", "UPDATE t_order SET user_id = 3, order_id = 10 WHERE user_id = 1 AND order_id = 6")
	require.NoError(t, err)
	require.Nil(t, p.Route.Update)
	require.Equal(t, []int{6}, p.Route.Fixed)
	_, err = build(t, b, ":execrows", "UPDATE t_order SET order_id = '7' WHERE user_id = 1 AND order_id = 6")
	require.EqualError(t, err, `q.sql:2:20: query "Q": UPDATE sets sharding column order_id of t_order to a value that routes to ds_1.t_order_3, not to the row's data node ds_1.t_order_2: the row would have to move to another data node; delete and re-insert it instead`)

	for _, tc := range []struct{ sql, err string }{
		{"UPDATE t_order SET user_id = NULL WHERE user_id = ? AND order_id = ?",
			`q.sql:3:20: query "Q": UPDATE sets sharding column "user_id" of table "t_order": the row would have to move to another data node; delete and re-insert it instead`},
		{"UPDATE t_order SET order_id = order_id + 4 WHERE user_id = ? AND order_id = ?",
			`q.sql:3:20: query "Q": UPDATE sets sharding column "order_id" of table "t_order": the row would have to move to another data node; delete and re-insert it instead`},
		{"UPDATE t_order SET user_id = ? WHERE status = ?",
			`q.sql:3:20: query "Q": UPDATE sets sharding column user_id of table "t_order" with no sharding condition: it would run on all 8 data nodes and rows would have to move to other data nodes; compare the sharding columns with = so that it reaches one data node, or delete and re-insert the rows`},
	} {
		_, err := build(t, b, ":execrows", tc.sql, "shardgen:allow-full-route")
		require.EqualError(t, err, tc.err, tc.sql)
	}
}
