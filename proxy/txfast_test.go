package proxy

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// txStep is one statement of a transaction test: fast is whether it must
// take the fast path (txfast.go), checked by the pass-through counter.
type txStep struct {
	q    string
	fast bool
}

// txAnswer renders what the client sees of one statement: its rows, the
// affected rows, whether the session is in a transaction, or the error's
// number.
func txAnswer(c *mysql.Conn, q string) string {
	r, err := c.ExecuteFetch(q, 1000, false)
	if err != nil {
		var se *sqlerror.SQLError
		if errors.As(err, &se) {
			return fmt.Sprintf("error %d", se.Number())
		}
		return "error " + err.Error()
	}
	var rows []string
	for _, row := range r.Rows {
		var vals []string
		for _, v := range row {
			vals = append(vals, v.ToString())
		}
		rows = append(rows, strings.Join(vals, ","))
	}
	return fmt.Sprintf("rows [%s] affected %d in-transaction %v", strings.Join(rows, "; "), r.RowsAffected, r.StatusFlags&mysql.ServerStatusInTrans != 0)
}

// runTxSteps runs steps on the fast-path proxy and on the unsharded
// reference database, requiring the same answers, and that exactly the
// steps marked fast took the fast path.
func runTxSteps(t *testing.T, fast *Server, fc, rc *mysql.Conn, steps []txStep) {
	t.Helper()
	for _, st := range steps {
		before := passThroughCount(t, fast)
		got := txAnswer(fc, st.q)
		want := txAnswer(rc, st.q)
		require.Equal(t, want, got, st.q)
		n := before
		if st.fast {
			n++
		}
		require.Equal(t, n, passThroughCount(t, fast), "fast path taken: %s", st.q)
	}
}

// TestFastPathTransaction: inside a session transaction (BEGIN and
// autocommit=0) a statement of one data node takes the fast path on the
// transaction's own back-end connection (txfast.go), so fast-path and
// merge-path statements on the same data source are one transaction: each
// sees the other's uncommitted writes, a failed statement (duplicate key)
// leaves what MySQL leaves, ROLLBACK undoes both, COMMIT keeps both, and another session sees none of it before the
// commit. Every answer is the unsharded reference database's. fp_item's
// ids 500, 504, 508 and 512 live on ds_0.fp_item_0; 501, 509 and 513 on ds_1.
func TestFastPathTransaction(t *testing.T) {
	fast, _ := fpEnv(t)
	fc, rc := fpConn(t, fast, false, false), fpConn(t, nil, false, false)
	other := fpConn(t, fast, false, false)
	for _, c := range []*mysql.Conn{fc, other} {
		exchange(t, c, "SELECT 1") // the session's first statement finds its character set
	}
	runTxSteps(t, fast, fc, rc, []txStep{
		{"BEGIN", false},
		{"INSERT INTO fp_item (id, name) VALUES (500, 'a')", true},
		{"SELECT id, name FROM fp_item WHERE id = 500", true},
		{"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (500, 501)", false},
		{"INSERT INTO fp_item (id, name) VALUES (504, 'c')", true},
		{"UPDATE fp_item SET name = 'b' WHERE id IN (500, 501, 504)", false},
		{"SELECT id, name FROM fp_item WHERE id = 500", true},
		{"INSERT INTO fp_item (id, name) VALUES (500, 'dup')", true}, // ERROR 1062: the statement only
		{"SELECT id, name FROM fp_item WHERE id = 504", true},
		{"SELECT id, name FROM fp_item WHERE id IN (500, 501) ORDER BY id", false},
	})
	// Another session sees nothing uncommitted, on either path.
	require.Equal(t, "rows [] affected 0 in-transaction false", txAnswer(other, "SELECT id, name FROM fp_item WHERE id = 500"))
	require.Equal(t, "rows [0] affected 0 in-transaction false", txAnswer(other, "SELECT COUNT(*) AS n FROM fp_item WHERE id IN (500, 501, 504)"))
	runTxSteps(t, fast, fc, rc, []txStep{
		{"ROLLBACK", false},
		{"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (500, 501, 504)", false},
		{"SELECT id, name FROM fp_item WHERE id = 500", true},

		{"SET autocommit = 0", false},
		{"INSERT INTO fp_item (id, name) VALUES (508, 'x')", true}, // opens the transaction
		{"UPDATE fp_item SET name = 'm' WHERE id IN (508, 509)", false},
		{"INSERT INTO fp_item (id, name) VALUES (512, 'y')", true},
		{"DELETE FROM fp_item WHERE id = 508", true},
		{"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (508, 509, 512)", false},
		{"UPDATE fp_item SET name = 'n' WHERE id IN (512, 513)", false},
		{"SELECT id, name FROM fp_item WHERE id = 512", true},
		{"COMMIT", false},
		{"SELECT id, name FROM fp_item WHERE id = 512", true}, // opens the next one
		{"ROLLBACK", false},
		{"SET autocommit = 1", false},
		{"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (508, 509, 512)", false},
		{"DELETE FROM fp_item WHERE id = 512", true},
	})
}

// TestFastPathTransactionPrepared: prepared statements (the binary
// protocol, fastpath_stmt.go) inside a transaction take the fast path on
// its connection too, and see the transaction's writes of both paths.
func TestFastPathTransactionPrepared(t *testing.T) {
	fast, _ := fpEnv(t)
	c := gomysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = "root", "secret", "tcp", fast.Addr(), "fp_db"
	db, err := sql.Open("mysql", c.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	name := func(q querier, id int) string {
		t.Helper()
		var n sql.NullString
		rows, err := q.QueryContext(ctx, "SELECT name FROM fp_item WHERE id = ?", id)
		require.NoError(t, err)
		defer rows.Close()
		if !rows.Next() {
			return "none"
		}
		require.NoError(t, rows.Scan(&n))
		return n.String
	}
	name(conn, 1) // learns the statement's fast route
	tx, err := conn.BeginTx(ctx, nil)
	require.NoError(t, err)
	before := passThroughCount(t, fast)
	_, err = tx.ExecContext(ctx, "INSERT INTO fp_item (id, name) VALUES (?, ?)", 520, "p")
	require.NoError(t, err)
	require.Equal(t, "p", name(tx, 520))
	_, err = tx.ExecContext(ctx, "UPDATE fp_item SET name = 'q' WHERE id IN (520, 521)") // the merge path
	require.NoError(t, err)
	require.Equal(t, "q", name(tx, 520))
	require.Equal(t, before+3, passThroughCount(t, fast), "the INSERT and both SELECTs take the fast path")
	require.NoError(t, tx.Rollback())
	require.Equal(t, "none", name(conn, 520))
}

// TestFastPathTransactionXA: under an XA transaction type a transaction's
// statements keep the database/sql path (its branches end with XA END,
// PREPARE and COMMIT there), while outside a transaction they take the
// fast path.
func TestFastPathTransactionXA(t *testing.T) {
	fpEnv(t) // the tables and rows
	y := fpYAML() + "transaction:\n  defaultType: XA\n"
	cfg, err := ParseConfig("fp.yaml", []byte(y))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("fp.sql", []byte(fpDDL))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	require.Equal(t, runtime.TxXA, srv.in.src.TransactionType())
	fc, rc := fpConn(t, srv, false, false), fpConn(t, nil, false, false)
	exchange(t, fc, "SELECT 1")
	runTxSteps(t, srv, fc, rc, []txStep{
		{"SELECT id, name FROM fp_item WHERE id = 1", true},
		{"BEGIN", false},
		{"INSERT INTO fp_item (id, name) VALUES (530, 'x')", false},
		{"SELECT id, name FROM fp_item WHERE id = 530", false},
		{"ROLLBACK", false},
		{"SET autocommit = 0", false},
		{"SELECT id, name FROM fp_item WHERE id = 530", false},
		{"COMMIT", false},
		{"SET autocommit = 1", false},
		{"SELECT id, name FROM fp_item WHERE id = 530", true},
	})
}

// TestFastPathTransactionRelayBegin: a branch that a fast-path statement
// begins is begun on the back end by the relay (START TRANSACTION before
// the statement, pipelined for a prepared read), and behaves as a
// transaction begun directly on MariaDB, side by side with the unsharded
// reference database: the first read takes the transaction's snapshot (a
// row another session changes and commits afterwards is read unchanged
// until COMMIT); a first statement that fails (duplicate key) leaves the
// transaction open, and ROLLBACK undoes what followed; a savepoint set
// after a relayed begin (the runtime then adopts the branch) rolls back
// to it.
func TestFastPathTransactionRelayBegin(t *testing.T) {
	fast, _ := fpEnv(t)
	fc, rc := fpConn(t, fast, false, false), fpConn(t, nil, false, false)
	fo, ro := fpConn(t, fast, false, false), fpConn(t, nil, false, false) // the other sessions
	for _, c := range []*mysql.Conn{fc, fo} {
		exchange(t, c, "SELECT 1") // the session's first statement finds its character set
	}
	both := func(fc, rc *mysql.Conn, q string) {
		t.Helper()
		require.Equal(t, txAnswer(rc, q), txAnswer(fc, q), q)
	}
	runTxSteps(t, fast, fc, rc, []txStep{
		{"INSERT INTO fp_item (id, name) VALUES (540, 'a')", true},
		{"BEGIN", false},
		{"SELECT id, name FROM fp_item WHERE id = 540", true},
	})
	both(fo, ro, "UPDATE fp_item SET name = 'changed' WHERE id = 540")
	runTxSteps(t, fast, fc, rc, []txStep{
		{"SELECT id, name FROM fp_item WHERE id = 540", true}, // 'a': the snapshot
		{"COMMIT", false},
		{"SELECT id, name FROM fp_item WHERE id = 540", true}, // 'changed'

		{"BEGIN", false},
		{"INSERT INTO fp_item (id, name) VALUES (540, 'dup')", true}, // ERROR 1062, the first statement
		{"INSERT INTO fp_item (id, name) VALUES (544, 'b')", true},
		{"SELECT id, name FROM fp_item WHERE id = 544", true},
		{"ROLLBACK", false},
		{"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (540, 544)", false},

		{"START TRANSACTION", false},
		{"INSERT INTO fp_item (id, name) VALUES (548, 'c')", true},
		{"SAVEPOINT s1", false},
		{"INSERT INTO fp_item (id, name) VALUES (552, 'd')", true},
		{"ROLLBACK TO SAVEPOINT s1", false},
		{"INSERT INTO fp_item (id, name) VALUES (556, 'e')", true},
		{"COMMIT", false},
		{"SELECT id, name FROM fp_item WHERE id IN (548, 552, 556) ORDER BY id", false},
		{"DELETE FROM fp_item WHERE id IN (540, 548, 556)", true}, // one data node
	})

	// Prepared (the binary protocol): the START TRANSACTION is sent with
	// the first read of the transaction.
	c := gomysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = "root", "secret", "tcp", fast.Addr(), "fp_db"
	db, err := sql.Open("mysql", c.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	ref := testdb.Open(t, "reference")
	ctx := context.Background()
	for _, d := range []*sql.DB{db, ref} {
		conn, err := d.Conn(ctx)
		require.NoError(t, err)
		name := func(q querier) string {
			t.Helper()
			var n string
			rows, err := q.QueryContext(ctx, "SELECT name FROM fp_item WHERE id = ?", 560)
			require.NoError(t, err)
			defer rows.Close()
			require.True(t, rows.Next())
			require.NoError(t, rows.Scan(&n))
			return n
		}
		_, err = conn.ExecContext(ctx, "INSERT INTO fp_item (id, name) VALUES (560, 'a')")
		require.NoError(t, err)
		name(conn) // learns the fast route
		_, err = conn.ExecContext(ctx, "BEGIN")
		require.NoError(t, err)
		require.Equal(t, "a", name(conn))
		_, err = d.ExecContext(ctx, "UPDATE fp_item SET name = 'changed' WHERE id = 560") // another connection
		require.NoError(t, err)
		require.Equal(t, "a", name(conn), "the snapshot of the transaction's first read")
		_, err = conn.ExecContext(ctx, "COMMIT")
		require.NoError(t, err)
		require.Equal(t, "changed", name(conn))
		_, err = conn.ExecContext(ctx, "DELETE FROM fp_item WHERE id = 560")
		require.NoError(t, err)
		require.NoError(t, conn.Close())
	}
}

// TestFastPathTransactionClientGone: a client that disconnects in the
// middle of a transaction whose branch the relay began (a row written and
// locked) leaves, as on MariaDB, nothing of it: the transaction is rolled
// back on the back end, no back-end connection stays in a transaction
// (information_schema.INNODB_TRX empties), the row is not there and
// another session writes it at once.
func TestFastPathTransactionClientGone(t *testing.T) {
	fast, _ := fpEnv(t)
	fo := fpConn(t, fast, false, false)
	exchange(t, fo, "SELECT 1")
	for _, prepared := range []bool{false, true} {
		gone := dialRaw(t, fast.Addr(), "root", "secret", "fp_db", mysql.MysqlNativePassword)
		_, err := gone.query(t, "SELECT 1")
		require.NoError(t, err)
		_, err = gone.query(t, "BEGIN")
		require.NoError(t, err)
		before := passThroughCount(t, fast)
		if prepared {
			st, _ := gone.prepare(t, "INSERT INTO fp_item (id, name) VALUES (?, 'gone')")
			require.NoError(t, gone.execute(t, st, rawParam{typ: rawTypeLongLong, val: binary.LittleEndian.AppendUint64(nil, 570)}))
		} else {
			_, err = gone.query(t, "INSERT INTO fp_item (id, name) VALUES (570, 'gone')")
			require.NoError(t, err)
		}
		require.Equal(t, before+1, passThroughCount(t, fast), "the INSERT took the fast path")
		require.NoError(t, gone.conn.Close())
		trx := func() int {
			n := 0
			for _, ds := range []string{"ds_0", "ds_1"} {
				var k int
				require.NoError(t, testdb.Open(t, ds).QueryRowContext(context.Background(),
					"SELECT COUNT(*) FROM information_schema.INNODB_TRX").Scan(&k))
				n += k
			}
			return n
		}
		require.Eventually(t, func() bool { return trx() == 0 }, 20*time.Second, 20*time.Millisecond, "a back-end transaction stays open")
		require.Equal(t, "rows [] affected 0 in-transaction false", txAnswer(fo, "SELECT id, name FROM fp_item WHERE id = 570"))
		require.Equal(t, "rows [] affected 1 in-transaction false", txAnswer(fo, "INSERT INTO fp_item (id, name) VALUES (570, 'kept')"))
		require.Equal(t, "rows [] affected 1 in-transaction false", txAnswer(fo, "DELETE FROM fp_item WHERE id = 570"))
	}
}
