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
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"

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
