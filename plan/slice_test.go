package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// TestSlicePlan plans sqlc.slice(name): one `?` kept for the list, its
// offset in each unit's SQL, routing when it is on a sharding column, and
// the uses that are refused.
func TestSlicePlan(t *testing.T) {
	b := newBuilder(t)
	p, err := build(t, b, ":many", "SELECT order_id FROM t_order WHERE status <> ? AND user_id IN (sqlc.slice(user_ids)) AND order_id > ?")
	require.NoError(t, err)
	require.Equal(t, runtime.RouteMultiNode, p.Route.Kind)
	require.Equal(t, "SELECT order_id FROM t_order WHERE status <> ? AND user_id IN (?) AND order_id > ?", p.LogicSQL)
	require.True(t, p.Params[1].Slice)
	require.Equal(t, "userIds int64", p.Params[1].Name+" "+p.Params[1].Type.String())
	require.NotNil(t, p.Slice)
	require.Equal(t, 1, p.Slice.Param)
	require.Equal(t, 1, p.Slice.Arg)
	require.True(t, p.Slice.Routing)
	require.False(t, p.Slice.EmptyRow)
	require.Len(t, p.Slice.At, len(p.Route.Units))
	for i, u := range p.Route.Units {
		require.Equal(t, "?) AND", u.SQL[p.Slice.At[i]:p.Slice.At[i]+6], u.SQL)
	}

	// One value of the sharding column is still several data nodes.
	p, err = build(t, b, ":one", "SELECT COUNT(*) FROM t_user WHERE user_id IN (sqlc.slice(ids))")
	require.NoError(t, err)
	require.Equal(t, runtime.RouteMultiNode, p.Route.Kind)
	require.NotNil(t, p.Merge)
	require.True(t, p.Slice.EmptyRow)

	// Not a sharding column: the route is the other conditions'.
	p, err = build(t, b, ":execrows", "UPDATE t_user SET name = ? WHERE user_id = ? AND name IN (sqlc.slice(names))")
	require.NoError(t, err)
	require.Equal(t, runtime.RouteSingleNode, p.Route.Kind)
	require.False(t, p.Slice.Routing)
	require.Equal(t, 2, p.Slice.Arg)

	for _, c := range []struct{ cmd, sql, err string }{
		{":many", "SELECT name FROM t_user WHERE user_id IN (sqlc.slice(ids)) OR name = ?",
			`q.sql:2:43: query "Q": sqlc.slice(ids) must be the whole list of ` + "`column IN (sqlc.slice(ids))`" + `, a condition the WHERE ANDs with the others (not under OR or NOT, not in a subquery or ON)`},
		{":many", "SELECT name FROM t_user WHERE user_id NOT IN (sqlc.slice(ids))",
			`q.sql:2:47: query "Q": sqlc.slice(ids) must be the whole list of ` + "`column IN (sqlc.slice(ids))`" + `, a condition the WHERE ANDs with the others (not under OR or NOT, not in a subquery or ON)`},
		{":many", "SELECT name FROM t_user WHERE user_id IN (sqlc.slice(ids), 5)",
			`q.sql:2:43: query "Q": sqlc.slice(ids) must be the whole list of ` + "`column IN (sqlc.slice(ids))`" + `, a condition the WHERE ANDs with the others (not under OR or NOT, not in a subquery or ON)`},
		{":many", "SELECT name FROM t_user WHERE user_id IN (sqlc.slice(ids)) AND name IN (sqlc.slice(names))",
			`q.sql:2:73: query "Q": only one sqlc.slice per query is supported (sqlc.slice(ids) and sqlc.slice(names))`},
		{":many", "SELECT name FROM t_user WHERE user_id IN (sqlc.slice(ids)) AND flags IN (sqlc.slice(ids))",
			`q.sql:2:74: query "Q": sqlc.slice(ids) is used twice; a slice may form one IN list`},
		{":many", "SELECT name FROM t_user WHERE user_id IN (sqlc.slice(ids)) AND flags = sqlc.arg(ids)",
			`q.sql:2:72: query "Q": sqlc.slice(ids) is also used as a single value; give the slice its own name`},
		{":exec", "INSERT INTO t_user (user_id, name, flags) SELECT user_id, name, flags FROM t_user WHERE user_id IN (sqlc.slice(ids))",
			`q.sql:2:101: query "Q": sqlc.slice(ids) is supported in SELECT, UPDATE and DELETE, not in INSERT`},
	} {
		_, err := build(t, b, c.cmd, c.sql)
		require.EqualError(t, err, c.err, c.sql)
	}
}

// TestPlaceholderOffset finds the k-th `?` outside strings, quoted
// identifiers and comments.
func TestPlaceholderOffset(t *testing.T) {
	s := "SELECT '?', `a?` /* ? */ FROM t -- ?\nWHERE a = ? # ?\nAND b IN (?)"
	require.Equal(t, 47, plan.PlaceholderOffset(s, 0))
	require.Equal(t, 63, plan.PlaceholderOffset(s, 1))
	require.Equal(t, -1, plan.PlaceholderOffset(s, 2))
}

// TestEmbedPlan plans sqlc.embed(t): t's columns in DDL order, marked with
// the table whose model holds them, and the uses that are refused.
func TestEmbedPlan(t *testing.T) {
	b := newBuilder(t)
	p, err := build(t, b, ":one", "SELECT sqlc.embed(o), i.sku FROM t_order o JOIN t_order_item i ON i.order_id = o.order_id AND i.user_id = o.user_id WHERE o.user_id = ? AND o.order_id = ?")
	require.NoError(t, err)
	require.Equal(t, "SELECT o.*, i.sku FROM t_order o JOIN t_order_item i ON i.order_id = o.order_id AND i.user_id = o.user_id WHERE o.user_id = ? AND o.order_id = ?", p.LogicSQL)
	var cols []string
	for _, c := range p.Columns {
		cols = append(cols, c.Embed+":"+c.Field+" "+c.Type.String())
	}
	require.Equal(t, []string{"t_order:OrderID int64", "t_order:UserID int64", "t_order:Status sql.NullString", "t_order:Amount string", ":Sku string"}, cols)
	require.Empty(t, p.RowModel)

	for _, c := range []struct{ sql, err string }{
		{"SELECT sqlc.embed(i) FROM t_order o LEFT JOIN t_order_item i ON i.order_id = o.order_id AND i.user_id = o.user_id WHERE o.user_id = ? AND o.order_id = ?",
			`q.sql:2:8: query "Q": sqlc.embed(i): i is the inner side of an outer join, so its columns can be NULL, which its model struct cannot hold; select its columns`},
		{"SELECT sqlc.embed(o), o.* FROM t_order o WHERE o.user_id = ?",
			`q.sql:2:8: query "Q": sqlc.embed(o) and o.* both select the columns of o; keep one`},
		{"SELECT sqlc.embed(t_user) FROM t_user WHERE user_id = ? UNION SELECT sqlc.embed(t_user) FROM t_user WHERE user_id = ?",
			`q.sql:2:8: query "Q": sqlc.embed(t_user) in a UNION is not supported; select the columns`},
		{"SELECT sqlc.embed( ) FROM t_user WHERE user_id = ?",
			`q.sql:2:8: query "Q": sqlc.embed takes one table name or alias: sqlc.embed(t_order)`},
		{"SELECT sqlc.embed(x) FROM t_user WHERE user_id = ?",
			`q.sql:2:8: query "Q": unknown table or alias "x" in x.*`},
	} {
		_, err := build(t, b, ":many", c.sql)
		require.EqualError(t, err, c.err, c.sql)
	}
}

// TestCopyFromPlan plans :copyfrom: the INSERT's one row cut from every
// unit (Insert.Split.Rows[0]) to be repeated per row, and the statements
// refused.
func TestCopyFromPlan(t *testing.T) {
	b := newBuilder(t)
	p, err := build(t, b, ":copyfrom", "INSERT INTO t_order (order_id, user_id, status, amount) VALUES (?, ?, ?, 1)")
	require.NoError(t, err)
	require.NotNil(t, p.Insert)
	require.Equal(t, []string{"(?, ?, ?, 1)"}, p.Insert.Split.Rows)
	require.Equal(t, "INSERT INTO t_order_0 (order_id, user_id, status, amount) VALUES ", p.Insert.Split.Heads[0])
	require.Equal(t, [][]int{{0, 1, 2}}, p.Insert.RowArgs)
	p, err = build(t, b, ":copyfrom", "INSERT INTO t_config (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)")
	require.NoError(t, err)
	require.Equal(t, runtime.RouteSingleTable, p.Route.Kind)
	require.Equal(t, []string{" ON DUPLICATE KEY UPDATE v = VALUES(v)"}, p.Insert.Split.Tails)
	// A broadcast table: one split per copy (every row goes to each).
	p, err = build(t, b, ":copyfrom", "INSERT INTO t_dict (code, label) VALUES (?, ?)")
	require.NoError(t, err)
	require.Equal(t, runtime.RouteBroadcast, p.Route.Kind)
	require.Len(t, p.Insert.Split.Heads, len(p.Route.Units))
	require.Equal(t, []string{"(?, ?)"}, p.Insert.Split.Rows)

	for _, c := range []struct{ sql, err string }{
		{"SELECT k FROM t_config WHERE k = ?", `q.sql:1:1: query "Q": :copyfrom needs an INSERT of one VALUES row, e.g. INSERT INTO t (a, b) VALUES (?, ?)`},
		{"INSERT INTO t_config (k, v) VALUES (?, ?), (?, ?)", `q.sql:1:1: query "Q": :copyfrom needs an INSERT of one VALUES row (generated code repeats it once per row), not INSERT … SELECT or several rows`},
		{"INSERT INTO t_config (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = ?", `q.sql:1:1: query "Q": :copyfrom: ON DUPLICATE KEY UPDATE may not take parameters, which would belong to no row; use VALUES(col)`},
	} {
		_, err := build(t, b, ":copyfrom", c.sql)
		require.EqualError(t, err, c.err, c.sql)
	}
}
