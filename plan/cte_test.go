package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInlineCTE: a non-recursive common table expression referenced once
// is planned as its derived table where the statement names it; the
// per-node SQL keeps the user's spelling and the parameters keep their
// order and names.
func TestInlineCTE(t *testing.T) {
	b := newBuilder(t)
	p, err := build(t, b, ":many", "WITH o AS (SELECT order_id, status FROM t_order WHERE user_id = sqlc.arg(uid) AND order_id = sqlc.arg(oid))\nSELECT x.order_id FROM o x WHERE x.status = sqlc.arg(st)")
	require.NoError(t, err)
	require.Equal(t, "SELECT x.order_id FROM (SELECT order_id, status FROM t_order WHERE user_id = ? AND order_id = ?) x WHERE x.status = ?", p.LogicSQL)
	require.Equal(t, "SELECT x.order_id FROM (SELECT order_id, status FROM t_order_1 WHERE user_id = ? AND order_id = ?) x WHERE x.status = ?", p.Route.Units[1].SQL)
	var names []string
	for _, prm := range p.Params {
		names = append(names, prm.Name)
	}
	require.Equal(t, []string{"uid", "oid", "st"}, names)

	// Two expressions, unaliased references, a broadcast and a single table.
	p, err = build(t, b, ":many", "WITH d AS (SELECT code FROM t_dict), c AS (SELECT k FROM t_config)\nSELECT d.code, c.k FROM d JOIN c ON c.k = d.code")
	require.NoError(t, err)
	require.Equal(t, "SELECT d.code, c.k FROM (SELECT code FROM t_dict) AS d JOIN (SELECT k FROM t_config) AS c ON c.k = d.code", p.Route.Units[0].SQL)

	// Not inlined: the name is also a column; the expressions out of order
	// of their references is fine when no parameter moves.
	_, err = build(t, b, ":many", "WITH code AS (SELECT code FROM t_dict)\nSELECT code FROM code")
	require.ErrorContains(t, err, "WITH (common table expressions) is not supported here: code also names something else in the statement")
	p, err = build(t, b, ":many", "WITH d AS (SELECT code FROM t_dict), c AS (SELECT k FROM t_config)\nSELECT d.code FROM c JOIN d ON c.k = d.code")
	require.NoError(t, err)
	require.Equal(t, "SELECT d.code FROM (SELECT k FROM t_config) AS c JOIN (SELECT code FROM t_dict) AS d ON c.k = d.code", p.Route.Units[0].SQL)
}
