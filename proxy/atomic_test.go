package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// paDDL are the logic tables of the all-or-nothing write tests: pa_item,
// sharded by id % 3 over ds_0..ds_2, and pa_dict, a broadcast table.
const paDDL = `CREATE TABLE pa_item (id BIGINT NOT NULL, v VARCHAR(40) NOT NULL, PRIMARY KEY (id));
CREATE TABLE pa_dict (id BIGINT NOT NULL, v VARCHAR(40) NOT NULL, PRIMARY KEY (id));`

// paSeed is what each live data source holds before every write: its
// pa_item row (id = its index) and the broadcast row 1.
func paSeed(ds int) string { return "item:" + strconv.Itoa(ds) + "=a;dict:1=a" }

// newAtomicProxy starts a proxy over pa_item and pa_dict: with down, on
// ds_0 and ds_1 of the test servers and ds_2, whose port has no listener
// (pa_item sharded by id % 3); without, on ds_0 and ds_1 (id % 2).
func newAtomicProxy(t *testing.T, down bool) *Server {
	t.Helper()
	if down {
		return startProxy(t, paYAML(t, 3, 2), paDDL)
	}
	return startProxy(t, paYAML(t, 2, -1), paDDL)
}

// paYAML is the rules of pa_item sharded over n data sources (and pa_dict
// broadcast), data source down (-1: none) down.
func paYAML(t *testing.T, n, down int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("databaseName: pa_db\ndataSources:\n")
	for i := range n {
		ds := "ds_" + strconv.Itoa(i)
		c := testdb.Config(ds)
		if i == down {
			c = testdb.DownConfig(t, ds)
		}
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 8\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	fmt.Fprintf(&b, `rules:
  - !SHARDING
    tables:
      pa_item:
        actualDataNodes: ds_${0..%d}.pa_item
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: db_mod
    shardingAlgorithms:
      db_mod:
        type: INLINE
        props:
          algorithm-expression: ds_${id %% %d}
  - !BROADCAST
    tables:
      - pa_dict
authority:
  users:
    - user: root@%%
      password: secret
`, n-1, n)
	return b.String()
}

// paReset creates pa_item and pa_dict on ds_0 and ds_1 with the seed rows.
func paReset(t *testing.T) {
	t.Helper()
	for i, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, q := range []string{
			"DROP TABLE IF EXISTS pa_item", "DROP TABLE IF EXISTS pa_dict",
			strings.Split(paDDL, ";")[0], strings.Split(paDDL, ";")[1],
			"INSERT INTO pa_item VALUES (" + strconv.Itoa(i) + ", 'a')",
			"INSERT INTO pa_dict VALUES (1, 'a')",
		} {
			_, err := db.Exec(q)
			require.NoError(t, err, q)
		}
	}
}

// paRows returns the rows of pa_item and pa_dict on data source ds, as
// "item:id=v,...;dict:id=v,...".
func paRows(t *testing.T, ds string) string {
	t.Helper()
	db := testdb.Open(t, ds)
	var parts []string
	for _, tb := range []string{"item", "dict"} {
		rows, err := db.Query("SELECT id, v FROM pa_" + tb + " ORDER BY id")
		require.NoError(t, err)
		var out []string
		for rows.Next() {
			var id int64
			var v string
			require.NoError(t, rows.Scan(&id, &v))
			out = append(out, strconv.FormatInt(id, 10)+"="+v)
		}
		require.NoError(t, rows.Err())
		require.NoError(t, rows.Close())
		parts = append(parts, tb+":"+strings.Join(out, ","))
	}
	return strings.Join(parts, ";")
}

// paWrites are the writes through the proxy that fail with ds_2 down (or on
// a duplicate key on ds_1), and the data node their error must name.
var paWrites = []struct{ name, sql, fails string }{
	{"insert one row", "INSERT INTO pa_item (id, v) VALUES (5, 'new')", "ds_2"},
	{"insert rows", "INSERT INTO pa_item (id, v) VALUES (3, 'new'), (4, 'new'), (5, 'new')", "ds_2"},
	{"insert broadcast", "INSERT INTO pa_dict (id, v) VALUES (9, 'new')", "ds_2"},
	{"update nodes", "UPDATE pa_item SET v = 'changed'", "ds_2"},
	{"update broadcast", "UPDATE pa_dict SET v = 'changed'", "ds_2"},
	{"delete nodes", "DELETE FROM pa_item", "ds_2"},
	{"delete broadcast", "DELETE FROM pa_dict", "ds_2"},
	// A back end's own error reaches the client with MariaDB's code and
	// SQL state, the data node of a write on several named
	// (writeNodeError).
	{"insert rows, duplicate key on ds_1", "INSERT INTO pa_item (id, v) VALUES (6, 'new'), (1, 'dup')", "Error 1062 (23000): Duplicate entry '1'"},
	{"update nodes, prepared", "UPDATE pa_item SET v = ? WHERE v <> ?", "ds_2"},
}

// TestProxyAtomicWrite: with data source ds_2 down, every write through the
// proxy that reaches it (or fails late on a live data source) leaves the
// live data sources as they were, auto-committed and inside BEGIN ...
// COMMIT, where the transaction goes on after the failed statement.
func TestProxyAtomicWrite(t *testing.T) {
	ctx := context.Background()
	srv := newAtomicProxy(t, true)
	env := &pxEnv{srv: srv}
	client := env.clientDB(t, "root", "secret", "pa_db", nil)
	exec := func(c interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}, q string) error {
		var args []any
		if strings.Contains(q, "?") {
			args = []any{"changed", "x"}
		}
		_, err := c.ExecContext(ctx, q, args...)
		return err
	}
	for _, w := range paWrites {
		t.Run("autocommit/"+w.name, func(t *testing.T) {
			paReset(t)
			err := exec(client, w.sql)
			require.Error(t, err)
			require.ErrorContains(t, err, w.fails)
			require.Equal(t, paSeed(0), paRows(t, "ds_0"))
			require.Equal(t, paSeed(1), paRows(t, "ds_1"))
		})
		t.Run("transaction/"+w.name, func(t *testing.T) {
			paReset(t)
			conn, err := client.Conn(ctx)
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, exec(conn, "BEGIN"))
			defer func() { _ = exec(conn, "ROLLBACK") }() // after a failure: release the locks
			require.NoError(t, exec(conn, "INSERT INTO pa_item (id, v) VALUES (30, 'before'), (31, 'before')"))
			require.NoError(t, exec(conn, "UPDATE pa_item SET v = 'in tx' WHERE id IN (0, 1)"))
			err = exec(conn, w.sql)
			require.ErrorContains(t, err, w.fails)
			require.NoError(t, exec(conn, "INSERT INTO pa_item (id, v) VALUES (33, 'after'), (34, 'after')"))
			require.NoError(t, exec(conn, "COMMIT"))
			require.Equal(t, "item:0=in tx,30=before,33=after;dict:1=a", paRows(t, "ds_0"))
			require.Equal(t, "item:1=in tx,31=before,34=after;dict:1=a", paRows(t, "ds_1"))
		})
	}
}

// TestProxyAtomicWriteReserved: a session with its own back-end
// connections (after SET @x) or on the pools of its settings (after SET
// time_zone) gets the same all-or-nothing writes: a
// multi-row INSERT that fails on ds_1 leaves ds_0 unchanged, auto-committed
// and in a transaction that goes on.
func TestProxyAtomicWriteReserved(t *testing.T) {
	ctx := context.Background()
	env := &pxEnv{srv: newAtomicProxy(t, false)}
	client := env.clientDB(t, "root", "secret", "pa_db", nil)
	// SET @pa: runtime.Reserved; SET time_zone: the settings pools.
	for _, set := range []string{"SET @pa = 1", "SET time_zone = '+01:00'"} {
		for _, tx := range []bool{false, true} {
			t.Run(set+"/transaction="+strconv.FormatBool(tx), func(t *testing.T) {
				paReset(t)
				conn, err := client.Conn(ctx)
				require.NoError(t, err)
				defer conn.Close()
				_, err = conn.ExecContext(ctx, set)
				require.NoError(t, err)
				if tx {
					_, err = conn.ExecContext(ctx, "BEGIN")
					require.NoError(t, err)
					defer func() { _, _ = conn.ExecContext(ctx, "ROLLBACK") }()
				}
				_, err = conn.ExecContext(ctx, "INSERT INTO pa_item (id, v) VALUES (2, 'new'), (1, 'dup')")
				require.ErrorContains(t, err, "Error 1062 (23000): Duplicate entry '1'")
				_, err = conn.ExecContext(ctx, "UPDATE pa_dict SET v = 'after'")
				require.NoError(t, err)
				if tx {
					_, err = conn.ExecContext(ctx, "COMMIT")
					require.NoError(t, err)
				}
				require.Equal(t, "item:0=a;dict:1=after", paRows(t, "ds_0"))
				require.Equal(t, "item:1=a;dict:1=after", paRows(t, "ds_1"))
			})
		}
	}
}

// TestProxyAtomicWriteKilled: a write through the proxy whose unit on ds_1
// loses its back-end connection mid-statement (it waits for a row lock and
// is killed from another session) changes nothing on ds_0 or ds_1,
// auto-committed and in a transaction.
func TestProxyAtomicWriteKilled(t *testing.T) {
	ctx := context.Background()
	srv := newAtomicProxy(t, false)
	env := &pxEnv{srv: srv}
	for _, mode := range []string{"autocommit", "transaction", "reserved autocommit", "reserved transaction", "settings autocommit", "settings transaction"} {
		for _, q := range []string{
			"UPDATE pa_item SET v = 'killed' WHERE v <> 'pa-kill'",
			"UPDATE pa_dict SET v = 'killed' WHERE v <> 'pa-kill'",
		} {
			t.Run(mode+"/"+q, func(t *testing.T) {
				paReset(t)
				ds1 := testdb.Open(t, "ds_1")
				blocker, err := ds1.BeginTx(ctx, nil)
				require.NoError(t, err)
				defer func() { _ = blocker.Rollback() }()
				_, err = blocker.Exec("SELECT * FROM pa_item WHERE id = 1 FOR UPDATE")
				require.NoError(t, err)
				_, err = blocker.Exec("SELECT * FROM pa_dict WHERE id = 1 FOR UPDATE")
				require.NoError(t, err)
				// A new client, so a new proxy session: the killed back-end
				// connection is not this session's to report again.
				client := env.clientDB(t, "root", "secret", "pa_db", nil)
				conn, err := client.Conn(ctx)
				require.NoError(t, err)
				defer conn.Close()
				if strings.HasPrefix(mode, "reserved") {
					// A session setting: the session runs on its own
					// back-end connections (runtime.Reserved).
					_, err = conn.ExecContext(ctx, "SET @pa = 1")
					require.NoError(t, err)
				}
				if strings.HasPrefix(mode, "settings") {
					// The session runs on the pools of its settings.
					_, err = conn.ExecContext(ctx, "SET time_zone = '+01:00'")
					require.NoError(t, err)
				}
				if strings.HasSuffix(mode, "transaction") {
					_, err = conn.ExecContext(ctx, "BEGIN")
					require.NoError(t, err)
					defer func() { _, _ = conn.ExecContext(ctx, "ROLLBACK") }()
				}
				errc := make(chan error, 1)
				go func() {
					_, err := conn.ExecContext(ctx, q)
					errc <- err
				}()
				testdb.KillStatement(t, ds1, "pa-kill")
				err = <-errc
				require.ErrorContains(t, err, "ds_1")
				if strings.HasSuffix(mode, "transaction") {
					_, _ = conn.ExecContext(ctx, "ROLLBACK")
				}
				require.NoError(t, blocker.Rollback())
				require.Equal(t, paSeed(0), paRows(t, "ds_0"))
				require.Equal(t, paSeed(1), paRows(t, "ds_1"))
			})
		}
	}
}
