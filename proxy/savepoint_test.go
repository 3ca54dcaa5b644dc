package proxy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

const spDDL = "CREATE TABLE sp_item (id BIGINT NOT NULL, v VARCHAR(10), PRIMARY KEY (id))"

// spProxy starts a proxy over ds_0 and ds_1 (two servers) with sp_item
// sharded by id % 2 and the transaction type txType, on empty tables (also
// empty in the reference database), and returns one client connection of
// it and one of the reference database.
func spProxy(t *testing.T, txType string) (px, ref *sql.Conn) {
	t.Helper()
	ctx := context.Background()
	for _, ds := range []string{"ds_0", "ds_1", "reference"} {
		db := testdb.Open(t, ds)
		execAll(t, db, "DROP TABLE IF EXISTS sp_item", spDDL)
		t.Cleanup(func() { execAll(t, db, "DROP TABLE IF EXISTS sp_item") })
	}
	var b strings.Builder
	b.WriteString("databaseName: sp_db\ndataSources:\n")
	for _, ds := range []string{"ds_0", "ds_1"} {
		c := testdb.Config(ds)
		fmt.Fprintf(&b, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n    maxPoolSize: 8\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	b.WriteString(`rules:
  - !SHARDING
    tables:
      sp_item:
        actualDataNodes: ds_${0..1}.sp_item
        databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: db_mod}}
    shardingAlgorithms:
      db_mod: {type: INLINE, props: {algorithm-expression: 'ds_${id % 2}'}}
authority:
  users:
    - user: root@%
      password: secret
transaction:
  defaultType: ` + txType + "\n")
	srv := startProxy(t, b.String(), spDDL)
	pxDB := (&pxEnv{srv: srv}).clientDB(t, "root", "secret", "sp_db", nil)
	var err error
	px, err = pxDB.Conn(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { px.Close() })
	ref, err = testdb.Open(t, "reference").Conn(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { ref.Close() })
	return px, ref
}

// spRun runs each statement on the proxy and on the reference database
// in turn and checks they answer alike (the same error number and
// message, or none), then that sp_item holds the same rows.
func spRun(t *testing.T, px, ref *sql.Conn, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	for _, q := range stmts {
		_, perr := px.ExecContext(ctx, q)
		_, rerr := ref.ExecContext(ctx, q)
		if rerr == nil {
			require.NoError(t, perr, q)
			continue
		}
		var pe, re *gomysql.MySQLError
		require.True(t, errors.As(rerr, &re), "%s: reference: %v", q, rerr)
		require.True(t, errors.As(perr, &pe), "%s: proxy: %v (reference: %v)", q, perr, rerr)
		require.Equal(t, re.Number, pe.Number, q)
		require.Equal(t, re.Message, pe.Message, q)
	}
	rows := func(c *sql.Conn) []string {
		rs, err := c.QueryContext(ctx, "SELECT id, v FROM sp_item ORDER BY id")
		require.NoError(t, err)
		defer rs.Close()
		var out []string
		for rs.Next() {
			var id int
			var v string
			require.NoError(t, rs.Scan(&id, &v))
			out = append(out, fmt.Sprint(id, "=", v))
		}
		require.NoError(t, rs.Err())
		return out
	}
	require.Equal(t, rows(ref), rows(px), "rows after %q", stmts)
}

// TestProxySavepoints: SAVEPOINT, ROLLBACK TO SAVEPOINT and RELEASE
// SAVEPOINT inside transactions with writes on both data sources answer
// and leave the rows as one unsharded MariaDB (the reference database)
// does, under LOCAL and XA transactions: a data source that joins the
// transaction after a savepoint loses its work at ROLLBACK TO it; later
// savepoints are gone after ROLLBACK TO and RELEASE; unknown names give
// MariaDB's ERROR 1305; names compare case-insensitively; a name set again
// moves; outside a transaction SAVEPOINT does nothing.
func TestProxySavepoints(t *testing.T) {
	for _, txType := range []string{"LOCAL", "XA"} {
		t.Run(txType, func(t *testing.T) {
			px, ref := spProxy(t, txType)
			// Writes on both data nodes, savepoint, more writes, back to it.
			spRun(t, px, ref,
				"BEGIN",
				"INSERT INTO sp_item (id, v) VALUES (1, 'a'), (2, 'b')",
				"SAVEPOINT s1",
				"UPDATE sp_item SET v = 'x' WHERE id IN (1, 2)",
				"INSERT INTO sp_item (id, v) VALUES (3, 'c'), (4, 'd')",
				"SAVEPOINT s2",
				"DELETE FROM sp_item WHERE id = 1",
				"ROLLBACK TO SAVEPOINT s1",
				"ROLLBACK TO s2", // gone with ROLLBACK TO s1
				"INSERT INTO sp_item (id, v) VALUES (5, 'e')",
				"ROLLBACK WORK TO SAVEPOINT S1", // names ignore case; s1 stays after a rollback to it
				"INSERT INTO sp_item (id, v) VALUES (6, 'f')",
				"RELEASE SAVEPOINT s1",
				"ROLLBACK TO s1",
				"COMMIT")
			// A data source that joins after the savepoint (ds_1: odd ids).
			spRun(t, px, ref,
				"BEGIN",
				"INSERT INTO sp_item (id, v) VALUES (10, 'j')",
				"SAVEPOINT a",
				"INSERT INTO sp_item (id, v) VALUES (11, 'k')",
				"SAVEPOINT b",
				"UPDATE sp_item SET v = 'y' WHERE id IN (10, 11)",
				"ROLLBACK TO b",
				"INSERT INTO sp_item (id, v) VALUES (13, 'm')",
				"ROLLBACK TO a",
				"INSERT INTO sp_item (id, v) VALUES (15, 'o')",
				"COMMIT")
			// A name set again moves; RELEASE drops later ones; nothing
			// outside a transaction.
			spRun(t, px, ref,
				"SAVEPOINT outside",
				"ROLLBACK TO outside",
				"RELEASE SAVEPOINT outside",
				"SET autocommit = 0",
				"INSERT INTO sp_item (id, v) VALUES (20, 't')",
				"SAVEPOINT a",
				"INSERT INTO sp_item (id, v) VALUES (21, 'u')",
				"SAVEPOINT b",
				"SAVEPOINT a",
				"INSERT INTO sp_item (id, v) VALUES (23, 'w')",
				"ROLLBACK TO a",
				"ROLLBACK TO b",
				"RELEASE SAVEPOINT b",
				"ROLLBACK TO a",
				"COMMIT",
				"SET autocommit = 1")
			// A savepoint's rollback undoes no committed work; ROLLBACK
			// forgets them.
			spRun(t, px, ref,
				"BEGIN",
				"SAVEPOINT z",
				"DELETE FROM sp_item WHERE v <> 'a'",
				"ROLLBACK",
				"ROLLBACK TO z")
		})
	}
}

// TestProxySavepointReservedName: shardgen's own statement savepoint
// name is refused, with the reason.
func TestProxySavepointReservedName(t *testing.T) {
	px, _ := spProxy(t, "LOCAL")
	ctx := context.Background()
	_, err := px.ExecContext(ctx, "BEGIN")
	require.NoError(t, err)
	_, err = px.ExecContext(ctx, "SAVEPOINT shardgen_stmt")
	require.EqualError(t, err, "Error 1105 (HY000): savepoint name shardgen_stmt is reserved by shardgen (the savepoint of a write on several data nodes); choose another name")
	_, err = px.ExecContext(ctx, "ROLLBACK")
	require.NoError(t, err)
}

// TestSavepointStmt: the savepoint statements are recognized with any
// case, comments, WORK, the optional SAVEPOINT keyword, back quotes and a
// trailing ';'; anything else is not one.
func TestSavepointStmt(t *testing.T) {
	type want struct {
		k    spKind
		name string
		ok   bool
	}
	for q, w := range map[string]want{
		"SAVEPOINT a":                       {spSet, "a", true},
		"savepoint `a b`;":                  {spSet, "a b", true},
		"/* c */ SAVEPOINT `x``y` ;  ":      {spSet, "x`y", true},
		"ROLLBACK TO a":                     {spRollback, "a", true},
		"rollback work to savepoint S1":     {spRollback, "S1", true},
		"ROLLBACK TO savepoint":             {spRollback, "savepoint", true},
		"ROLLBACK TO SAVEPOINT savepoint":   {spRollback, "savepoint", true},
		"RELEASE SAVEPOINT a;":              {spRelease, "a", true},
		"RELEASE a":                         {},
		"ROLLBACK":                          {},
		"ROLLBACK WORK":                     {},
		"SAVEPOINT":                         {},
		"SAVEPOINT a b":                     {},
		"SAVEPOINT `a":                      {},
		"SELECT 1":                          {},
		"ROLLBACK TO SAVEPOINT a; SELECT 1": {},
	} {
		k, name, ok := savepointStmt(q)
		require.Equal(t, w, want{k, name, ok}, q)
	}
}
