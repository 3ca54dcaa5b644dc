package plan_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"

	"github.com/shardgen/shardgen/schema"
)

// TestSetTableDDL checks the proxy's metadata refresh after DDL: a new
// column becomes plannable, a DDL without the sharding column is refused
// and leaves the planner as it was, and a forgotten table is unknown.
func TestSetTableDDL(t *testing.T) {
	b := newBuilder(t)
	ddl := func(sql string) *schema.Table {
		ts, err := schema.ParseDDL("SHOW CREATE TABLE", []byte(sql))
		require.NoError(t, err)
		require.Len(t, ts, 1)
		return ts[0]
	}
	_, err := build(t, b, ":many", "SELECT note FROM t_user WHERE user_id = ?")
	require.ErrorContains(t, err, `unknown column "note"`)

	require.NoError(t, b.SetTableDDL("T_USER", ddl("CREATE TABLE `t_user` (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) NOT NULL, note TEXT)")))
	p, err := build(t, b, ":many", "SELECT note FROM t_user WHERE user_id = ?")
	require.NoError(t, err)
	require.Equal(t, "note", p.Columns[0].Name)
	require.Equal(t, "note", b.Table("t_user").Columns[2].Name)

	err = b.SetTableDDL("t_user", ddl("CREATE TABLE t_user (id BIGINT NOT NULL PRIMARY KEY, note TEXT)"))
	require.ErrorContains(t, err, "user_id")
	_, err = build(t, b, ":many", "SELECT note FROM t_user WHERE user_id = ?")
	require.NoError(t, err, "a refused DDL leaves the planner unchanged")

	require.NoError(t, b.SetTableDDL("t_dict", nil))
	require.Nil(t, b.Table("t_dict"))
	_, err = build(t, b, ":many", "SELECT label FROM t_dict")
	require.ErrorContains(t, err, `unknown table "t_dict"`)

	// With t_dict gone (its broadcast rule now lacks DDL), other tables
	// still refresh: only problems the new DDL brings count.
	require.NoError(t, b.SetTableDDL("t_config", ddl("CREATE TABLE t_config (k VARCHAR(16) NOT NULL PRIMARY KEY, v VARCHAR(64), w INT)")))
	require.NoError(t, b.SetTableDDL("t_dict", ddl("CREATE TABLE t_dict (code VARCHAR(16) NOT NULL PRIMARY KEY, label VARCHAR(64))")))
	_, err = build(t, b, ":many", "SELECT label FROM t_dict")
	require.NoError(t, err)
}

// TestSetSingleTableDDL checks single tables the proxy finds on a data
// source: the planner routes them there, lists them, and forgets the data
// source with the table.
func TestSetSingleTableDDL(t *testing.T) {
	b := newBuilder(t)
	ts, err := schema.ParseDDL("SHOW CREATE TABLE", []byte("CREATE TABLE t_found (id INT NOT NULL PRIMARY KEY, v VARCHAR(8))"))
	require.NoError(t, err)
	require.Equal(t, "", b.SingleDataSource("t_found"), "in no rule, and there are two data sources")
	require.NoError(t, b.SetSingleTableDDL("t_found", "ds_1", ts[0]))
	require.Equal(t, "ds_1", b.SingleDataSource("T_FOUND"))
	require.Equal(t, "ds_0", b.SingleDataSource("t_config"), "the !SINGLE entry")
	require.Contains(t, b.TableNames(), "t_found")
	p, err := build(t, b, ":many", "SELECT v FROM t_found WHERE id = ?")
	require.NoError(t, err)
	require.Equal(t, []string{"ds_1"}, p.Route.DataSources)

	// An ALTER refreshes the DDL; the table stays where it was found.
	ts, err = schema.ParseDDL("SHOW CREATE TABLE", []byte("CREATE TABLE t_found (id INT NOT NULL PRIMARY KEY, v VARCHAR(8), w INT)"))
	require.NoError(t, err)
	require.NoError(t, b.SetTableDDL("t_found", ts[0]))
	require.Equal(t, "ds_1", b.SingleDataSource("t_found"))

	require.NoError(t, b.SetTableDDL("t_found", nil))
	require.Equal(t, "", b.SingleDataSource("t_found"))
	require.NotContains(t, b.TableNames(), "t_found")
}

// TestBuilderWithoutDDL: a planner built from rules alone (the proxy
// without --ddl) knows no table until one is set, then plans it.
func TestBuilderWithoutDDL(t *testing.T) {
	cfg, err := schema.Load("rules.yaml", []byte(testRules))
	require.NoError(t, err)
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	require.Empty(t, b.TableNames())
	_, err = build(t, b, ":many", "SELECT * FROM t_user WHERE user_id = 1")
	require.ErrorContains(t, err, `unknown table "t_user"`)
	ts, err := schema.ParseDDL("SHOW CREATE TABLE", []byte("CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32))"))
	require.NoError(t, err)
	require.NoError(t, b.SetTableDDL("t_user", ts[0]))
	require.Equal(t, []string{"t_user"}, b.TableNames())
	_, err = build(t, b, ":many", "SELECT * FROM t_user WHERE user_id = 1")
	require.NoError(t, err)
}

// TestBuilderForeignCharset: a data source whose connections receive text
// in latin1 (a DSN's charset=latin1) makes every plan merge its
// utf8mb4 text keys by the data nodes' WEIGHT_STRINGs, which the merge
// cannot compare in process from latin1 bytes; a utf8mb4 one compares
// them in process.
func TestBuilderForeignCharset(t *testing.T) {
	ddl := "CREATE TABLE t_user (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci)"
	q := "SELECT name FROM t_user ORDER BY name"
	for _, c := range []struct {
		rules string
		weigh bool
	}{
		{testRules, false},
		{strings.Replace(testRules, `ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}`, `ds_1: {dsn: "u:p@tcp(127.0.0.1:13307)/ds_1?charset=latin1"}`, 1), true},
	} {
		cfg, err := schema.Load("rules.yaml", []byte(c.rules))
		require.NoError(t, err)
		b, err := plan.NewBuilder(cfg, nil)
		require.NoError(t, err)
		ts, err := schema.ParseDDL("t.sql", []byte(ddl))
		require.NoError(t, err)
		require.NoError(t, b.SetTableDDL("t_user", ts[0]))
		p, err := build(t, b, ":many", q, "shardgen:allow-full-route")
		require.NoError(t, err)
		require.Equal(t, !c.weigh, p.ComparesText())
		require.Equal(t, c.weigh, p.Merge.Kinds[0].Weight > 0)
	}
}

// TestStepStatementsNoRoute: a SELECT whose value routes to no data source
// (MOD 3 over two) is not split into steps of itself until the nesting
// limit: StepStatements (shardgen preview, PREVIEW) gives the planner's
// reason.
func TestStepStatementsNoRoute(t *testing.T) {
	cfg, err := schema.Load("rules.yaml", []byte(`dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    customers:
      actualDataNodes: ds_${0..1}.customers
      databaseStrategy: {standard: {shardingColumn: customer_id, shardingAlgorithmName: m3}}
  shardingAlgorithms:
    m3: {type: MOD, props: {sharding-count: 3}}
`))
	require.NoError(t, err)
	b, err := plan.NewBuilder(cfg, nil)
	require.NoError(t, err)
	ts, err := schema.ParseDDL("t.sql", []byte("CREATE TABLE customers (customer_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(20))"))
	require.NoError(t, err)
	require.NoError(t, b.SetTableDDL("customers", ts[0]))
	st, err := b.BuildSteps("SELECT customer_id FROM customers WHERE customer_id = 2")
	if err != nil {
		return // not split at all: nothing to expand
	}
	_, err = b.StepStatements(st)
	require.ErrorContains(t, err, `routes to "ds_2", which is not among the targets`)
}
