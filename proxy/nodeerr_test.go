package proxy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestProxyNodeErrorNamesDataSource: data sources whose URLs name other
// databases (ds_0 → database ds_2, ds_1 → ds_3, as ds_0_real would be):
// a data node's error that names its database names the data source
// instead ("Table 'ds_1.e6_item_1' doesn't exist": data source ds_1,
// actual table e6_item_1) with MariaDB's error code and SQL state (those
// the reference database answers for a missing table), on the
// pass-through fast path, prepared and merged; errors that name no
// database are MariaDB's.
func TestProxyNodeErrorNamesDataSource(t *testing.T) {
	ctx := context.Background()
	const ddl = "CREATE TABLE e6_item (id BIGINT NOT NULL, v VARCHAR(10), PRIMARY KEY (id))"
	var b strings.Builder
	b.WriteString("databaseName: e6_db\ndataSources:\n")
	for i, actual := range []string{"ds_2", "ds_3"} {
		c := testdb.Config(actual)
		fmt.Fprintf(&b, "  ds_%d:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 4\n", i, c.Addr, actual, c.User, c.Passwd)
		db := testdb.Open(t, actual)
		for _, tb := range []string{"e6_item_0", "e6_item_1"} {
			execAll(t, db, "DROP TABLE IF EXISTS "+tb, strings.Replace(ddl, "e6_item", tb, 1))
			t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS "+tb) })
		}
	}
	b.WriteString(`rules:
  - !SHARDING
    tables:
      e6_item:
        actualDataNodes: ds_${0..1}.e6_item_${0..1}
        databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: db_mod}}
        tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: t_mod}}
    shardingAlgorithms:
      db_mod: {type: INLINE, props: {algorithm-expression: 'ds_${id % 2}'}}
      t_mod: {type: INLINE, props: {algorithm-expression: 'e6_item_${id.intdiv(2) % 2}'}}
authority:
  users:
    - user: root@%
      password: secret
`)
	srv := startProxy(t, b.String(), ddl)
	px := (&pxEnv{srv: srv}).clientDB(t, "root", "secret", "e6_db", nil)
	execAll(t, px, "INSERT INTO e6_item (id, v) VALUES (1, 'a'), (3, 'b')")
	// e6_item_1 of ds_1 (database ds_3) goes missing.
	execAll(t, testdb.Open(t, "ds_3"), "DROP TABLE e6_item_1")

	var want *gomysql.MySQLError
	_, err := testdb.Open(t, "reference").ExecContext(ctx, "SELECT * FROM e6_nothing_here")
	require.True(t, errors.As(err, &want), "%v", err)
	check := func(err error, msg, what string) {
		t.Helper()
		var got *gomysql.MySQLError
		require.True(t, errors.As(err, &got), "%s: %v", what, err)
		require.Equal(t, want.Number, got.Number, what)
		require.Equal(t, want.SQLState, got.SQLState, what)
		require.Equal(t, msg, got.Message, what)
	}
	const missing = "Table 'ds_1.e6_item_1' doesn't exist"
	_, err = px.QueryContext(ctx, "SELECT v FROM e6_item WHERE id = 3")
	check(err, missing, "text, one data node (fast path)")
	_, err = px.QueryContext(ctx, "SELECT v FROM e6_item WHERE id = ?", 3)
	check(err, missing, "prepared, one data node")
	_, err = px.QueryContext(ctx, "SELECT v FROM e6_item ORDER BY id")
	check(err, missing, "merged over every data node")
	_, err = px.ExecContext(ctx, "UPDATE e6_item SET v = 'c' WHERE id = 3")
	check(err, missing, "UPDATE")
	// An error that names no database is MariaDB's own.
	_, err = px.ExecContext(ctx, "INSERT INTO e6_item (id, v) VALUES (1, 'dup')")
	require.EqualError(t, err, "Error 1062 (23000): Duplicate entry '1' for key 'PRIMARY'")
}
