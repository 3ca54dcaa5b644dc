package plan_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	shardrt "github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// TestLimitedWriteSteps: an UPDATE or DELETE with a total ORDER BY … LIMIT
// over several data nodes selects the keys in order, then writes exactly
// those rows (FALSE for none); an ORDER BY without a unique key, no ORDER
// BY, or another shape is refused with the reason (ErrCrossNode).
func TestLimitedWriteSteps(t *testing.T) {
	b := newBuilder(t)
	st, err := b.LimitedWriteSteps("UPDATE t_order SET status = 'X' WHERE amount > 1 ORDER BY amount DESC, order_id LIMIT 3")
	require.NoError(t, err)
	require.Equal(t, plan.StepsSubqueries, st.Kind)
	require.Len(t, st.Subqueries, 1)
	require.Equal(t, "select t_order.order_id from t_order where amount > 1 order by amount desc, order_id asc limit 3", st.Subqueries[0].SQL)
	bound, err := st.Bind([][][]plan.BoundValue{{{{Kind: plan.BoundInt, Text: "7"}}, {{Kind: plan.BoundInt, Text: "2"}}}})
	require.NoError(t, err)
	require.Equal(t, "update t_order set `status` = 'X' where amount > 1 and t_order.order_id in (7, 2)", bound)
	bound, err = st.Bind([][][]plan.BoundValue{nil})
	require.NoError(t, err)
	require.Equal(t, "update t_order set `status` = 'X' where amount > 1 and false", bound)

	st, err = b.LimitedWriteSteps("DELETE FROM t_user u ORDER BY u.user_id DESC LIMIT 2")
	require.NoError(t, err)
	require.Equal(t, "select u.user_id from t_user as u order by u.user_id desc limit 2", st.Subqueries[0].SQL)

	for _, c := range []struct{ sql, err string }{
		{"UPDATE t_order SET status = 'X' ORDER BY amount LIMIT 3", "the ORDER BY must include every column of the primary key (order_id) or of a unique key of NOT NULL columns, so that it orders the rows totally and the rows MySQL would change are known; e.g. ORDER BY amount, order_id"},
		{"DELETE FROM t_order LIMIT 3", "the ORDER BY must include every column of the primary key (order_id)"},
		{"UPDATE t_order SET status = 'X' ORDER BY order_id LIMIT 2.5", "LIMIT 2.5 must be an integer literal or a parameter"},
		{"SELECT 1", "only UPDATE and DELETE"},
	} {
		_, err := b.LimitedWriteSteps(c.sql)
		require.ErrorContains(t, err, c.err, c.sql)
		require.True(t, errors.Is(err, plan.ErrCrossNode), c.sql)
	}
}

// TestBuildStepsPlanLimitedWrite: a query file's UPDATE or DELETE with
// ORDER BY … LIMIT over several data nodes is planned as the steps of a
// write (runtime.BindStep.Write), its keys routed to their data nodes when
// the key is a sharding column; what generated code cannot run is refused
// with the reason.
func TestBuildStepsPlanLimitedWrite(t *testing.T) {
	b := builderOf(t, `dataSources:
  ds_0: {url: "jdbc:mysql://127.0.0.1:13306/ds_0"}
  ds_1: {url: "jdbc:mysql://127.0.0.1:13307/ds_1"}
rules:
- !SHARDING
  tables:
    t_item:
      actualDataNodes: ds_${0..1}.t_item
      databaseStrategy: {standard: {shardingColumn: item_id, shardingAlgorithmName: mod2}}
    t_pair:
      actualDataNodes: ds_${0..1}.t_pair
      databaseStrategy: {standard: {shardingColumn: a, shardingAlgorithmName: mod2}}
    t_nopk:
      actualDataNodes: ds_${0..1}.t_nopk
      databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: mod2}}
  shardingAlgorithms:
    mod2: {type: MOD, props: {sharding-count: 2}}
`, `CREATE TABLE t_item (item_id BIGINT NOT NULL PRIMARY KEY, owner BIGINT NULL, n INT NOT NULL);
CREATE TABLE t_pair (a INT NOT NULL, b INT NOT NULL, n INT NOT NULL, PRIMARY KEY (a, b));
CREATE TABLE t_nopk (id INT NOT NULL, n INT NOT NULL);
`)
	build := func(cmd schema.Cmd, sql string) (*plan.Plan, error) {
		q := &schema.Query{Name: "Q", Cmd: cmd, SQL: sql, AllowFullRoute: true, Pos: schema.Pos{File: "q.sql", Line: 1, Col: 1}, SQLPos: schema.Pos{File: "q.sql", Line: 1, Col: 1}}
		_, err := b.Build(q)
		require.ErrorContains(t, err, plan.LimitedWriteRefusal, sql)
		return b.BuildStepsPlan(q, err)
	}
	p, err := build(schema.CmdExecRows, "UPDATE t_item SET n = ? WHERE owner = ? ORDER BY owner DESC, item_id LIMIT 2")
	require.NoError(t, err)
	require.Equal(t, plan.StmtUpdate, p.Statement)
	require.Equal(t, "t_item", p.Route.LogicTable)
	bs := p.Steps.Bind
	require.True(t, bs.Write)
	require.Equal(t, "update t_item set n = ? where owner = ? and t_item.item_id in (?)", bs.Statement.Units[0].SQL)
	require.NotNil(t, bs.Statement.ListRoute)
	require.Equal(t, "item_id", bs.Statement.ListRoute.Column)
	require.Len(t, p.Params, 2)

	// A primary key of several columns: a list of rows, each a condition
	// on the key's columns, routed by the sharding column's part.
	p, err = build(schema.CmdExec, "DELETE FROM t_pair WHERE n > ? ORDER BY b DESC, a LIMIT ?")
	require.NoError(t, err)
	bs = p.Steps.Bind
	require.Equal(t, "select t_pair.a, t_pair.b from t_pair where n > ? order by b desc, a asc limit ?", bs.Subquery.Units[0].SQL)
	require.Equal(t, shardrt.LimitValue{Value: 1, Param: true}, bs.Subquery.Merge.Count)
	require.Equal(t, "delete from t_pair where n > ? and ?", bs.Statement.Units[0].SQL)
	require.Equal(t, "(a, b) = (?, ?)", bs.Statement.ListElem)
	require.Equal(t, 2, bs.Statement.ListWidth)
	require.Equal(t, &shardrt.StepListRoute{Table: "t_pair", Nodes: []int{0, 1}, Column: "a", Class: bs.Statement.ListRoute.Class, Kind: bs.Statement.ListRoute.Kind}, bs.Statement.ListRoute)
	require.Len(t, p.Params, 2)
	require.Equal(t, "limit", p.Params[1].Name)
	p, err = build(schema.CmdExec, "DELETE FROM t_pair ORDER BY n, b, a LIMIT 2")
	require.NoError(t, err)
	require.Equal(t, 0, p.Steps.Bind.Statement.ListRoute.Part)

	for _, c := range []struct {
		cmd      schema.Cmd
		sql, err string
	}{
		{schema.CmdExec, "DELETE FROM t_nopk ORDER BY id LIMIT 2", `table "t_nopk" has no primary key to select the rows by; declare one`},
		{schema.CmdExec, "UPDATE t_item SET n = 1 ORDER BY n LIMIT 2", "the ORDER BY must include every column of the primary key (item_id)"},
		{schema.CmdExec, "UPDATE t_item SET n = 1 ORDER BY item_id LIMIT 1 + 1", "LIMIT 1 + 1 must be an integer literal or a parameter"},
		{schema.CmdExec, "UPDATE t_item SET item_id = ? ORDER BY item_id LIMIT 2", "the UPDATE sets sharding column item_id"},
		{schema.CmdExecResult, "UPDATE t_item SET n = 1 ORDER BY item_id LIMIT 2", "use :execrows or :exec"},
	} {
		_, err := build(c.cmd, c.sql)
		require.ErrorContains(t, err, c.err, c.sql)
	}
}
