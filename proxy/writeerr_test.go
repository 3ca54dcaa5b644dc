package proxy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// TestProxyWriteErrorNamesDataNode: a write that runs on several data
// nodes (four actual tables on two data sources) and hits a duplicate key
// on one fails with MariaDB's error code, SQL state and message, the data
// node (data source and actual table) named, through the text and binary
// protocols, auto-committed and in a transaction; no data node changed.
func TestProxyWriteErrorNamesDataNode(t *testing.T) {
	ctx := context.Background()
	const ddl = "CREATE TABLE wn_item (id BIGINT NOT NULL, code VARCHAR(10) NOT NULL, v VARCHAR(10), PRIMARY KEY (id), UNIQUE KEY wn_code (code))"
	var b strings.Builder
	b.WriteString("databaseName: wn_db\ndataSources:\n")
	tables := map[string][]string{"ds_0": {"wn_item_0", "wn_item_1"}, "ds_1": {"wn_item_0", "wn_item_1"}}
	for _, ds := range []string{"ds_0", "ds_1"} {
		c := testdb.Config(ds)
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 4\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	b.WriteString(`rules:
  - !SHARDING
    tables:
      wn_item:
        actualDataNodes: ds_${0..1}.wn_item_${0..1}
        databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: db_mod}}
        tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: t_mod}}
    shardingAlgorithms:
      db_mod: {type: INLINE, props: {algorithm-expression: 'ds_${id % 2}'}}
      t_mod: {type: INLINE, props: {algorithm-expression: 'wn_item_${id.intdiv(2) % 2}'}}
authority:
  users:
    - user: root@%
      password: secret
`)
	reset := func() {
		for ds, tbs := range tables {
			db := testdb.Open(t, ds)
			for _, tb := range tbs {
				execAll(t, db, "DROP TABLE IF EXISTS "+tb, strings.Replace(ddl, "wn_item", tb, 1))
			}
		}
		// Two rows per data node: ids 0, 4 on ds_0.wn_item_0; 1, 5 on
		// ds_1.wn_item_0; 2, 6 on ds_0.wn_item_1; 3, 7 on ds_1.wn_item_1.
		for id := range 8 {
			ds := fmt.Sprintf("ds_%d", id%2)
			execAll(t, testdb.Open(t, ds), fmt.Sprintf("INSERT INTO wn_item_%d VALUES (%d, 'c%d', 'a')", id/2%2, id, id))
		}
	}
	snapshot := func() string {
		var out []string
		for _, ds := range []string{"ds_0", "ds_1"} {
			for _, tb := range tables[ds] {
				out = append(out, ds+"."+tb+":"+strings.Join(rowsOf(t, testdb.Open(t, ds), "SELECT id, code, v FROM "+tb+" ORDER BY id"), ","))
			}
		}
		return strings.Join(out, ";")
	}
	t.Cleanup(func() {
		for ds, tbs := range tables {
			for _, tb := range tbs {
				execAll(t, testdb.Open(t, ds), "DROP TABLE IF EXISTS "+tb)
			}
		}
	})
	cfg, err := ParseConfig("wn.yaml", []byte(b.String()))
	require.NoError(t, err)
	parsed, err := schema.ParseDDL("wn.sql", []byte(ddl))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(parsed))
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	env := &pxEnv{srv: srv}
	text := env.clientDB(t, "root", "secret", "wn_db", map[string]string{"interpolateParams": "true"})
	binary := env.clientDB(t, "root", "secret", "wn_db", nil)
	reset()
	seed := snapshot()
	writes := []struct {
		sql  string
		args []any
		msg  string
	}{
		// Rows for three data nodes; id 11's code is id 3's, on
		// ds_1.wn_item_1.
		{"INSERT INTO wn_item (id, code, v) VALUES (8, 'n8', 'x'), (9, 'n9', 'x'), (11, 'c3', 'x')", nil,
			"Duplicate entry 'c3' for key 'wn_code' (data node ds_1.wn_item_1)"},
		{"INSERT INTO wn_item (id, code, v) VALUES (?, ?, 'x'), (?, ?, 'x')", []any{int64(12), "n12", int64(10), "c2"},
			"Duplicate entry 'c2' for key 'wn_code' (data node ds_0.wn_item_1)"},
		// Two data nodes; ids 1 and 5 share ds_1.wn_item_0.
		{"UPDATE wn_item SET code = 'same' WHERE id IN (1, 5, 2)", nil,
			"Duplicate entry 'same' for key 'wn_code' (data node ds_1.wn_item_0)"},
		// Three data nodes; id 0 takes id 4's code on ds_0.wn_item_0.
		{"UPDATE wn_item SET code = CONCAT('c', id + 4) WHERE id IN (?, 6, 7)", []any{int64(0)},
			"Duplicate entry 'c4' for key 'wn_code' (data node ds_0.wn_item_0)"},
	}
	type client struct {
		db   *sql.DB
		name string
	}
	for _, w := range writes {
		for _, tx := range []bool{false, true} {
			for _, db := range []client{{text, "text"}, {binary, "binary"}} {
				what := fmt.Sprintf("%s, %s, transaction=%v", w.sql, db.name, tx)
				conn, err := db.db.Conn(ctx)
				require.NoError(t, err)
				if tx {
					_, err = conn.ExecContext(ctx, "BEGIN")
					require.NoError(t, err)
				}
				_, err = conn.ExecContext(ctx, w.sql, w.args...)
				var got *gomysql.MySQLError
				require.True(t, errors.As(err, &got), "%s: %v", what, err)
				require.Equal(t, uint16(1062), got.Number, what)
				require.Equal(t, [5]byte{'2', '3', '0', '0', '0'}, got.SQLState, what)
				require.Contains(t, got.Message, w.msg, what)
				if tx {
					// The transaction goes on: the failed statement changed nothing.
					_, err = conn.ExecContext(ctx, "COMMIT")
					require.NoError(t, err, what)
				}
				require.NoError(t, conn.Close())
				require.Equal(t, seed, snapshot(), what)
			}
		}
	}
}
