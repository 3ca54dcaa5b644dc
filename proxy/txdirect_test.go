package proxy

import (
	"context"
	"database/sql"
	"encoding/binary"
	rtmetrics "runtime/metrics"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
)

// TestPlainTx: the plain transaction statements answered without parsing
// (session.go), and statements that look like them but take the parsed
// path.
func TestPlainTx(t *testing.T) {
	for q, want := range map[string]txKind{
		"BEGIN":                       txBegin,
		"begin":                       txBegin,
		"  Begin Work ; \n":           txBegin,
		"BEGIN;":                      txBegin,
		"START TRANSACTION":           txBegin,
		"start\ttransaction;":         txBegin,
		"/* c */ BEGIN":               txBegin,
		"/* a */ /* b */ commit work": txCommit,
		"# note\nCOMMIT":              txCommit,
		"-- note\nROLLBACK WORK;":     txRollback,
		"COMMIT":                      txCommit,
		"COMMIT WORK":                 txCommit,
		"ROLLBACK":                    txRollback,
		"rollback work":               txRollback,
		"":                            txNone,
		"SELECT 1":                    txNone,
		"BEGIN;;":                     txNone, // trimStatement's, then the parsed path
		"BEGIN; SELECT 1":             txNone,
		"BEGINWORK":                   txNone,
		"BEGIN WORK WORK":             txNone,
		"START":                       txNone,
		"START TRANSACTION READ ONLY": txNone,
		"START TRANSACTION WORK":      txNone,
		"START TRANSACTION WITH CONSISTENT SNAPSHOT": txNone,
		"COMMIT AND CHAIN":                           txNone,
		"ROLLBACK TO SAVEPOINT a":                    txNone,
		"ROLLBACK TO a":                              txNone,
		"/*! BEGIN */":                               txNone,
		"/*!40101 SET x=1 */ BEGIN":                  txNone,
		"/*M!100000 SET x=1 */ COMMIT":               txNone,
		"/* open BEGIN":                              txNone,
		"# BEGIN":                                    txNone,
		"--BEGIN":                                    txNone,
		"COMMIT /* c */":                             txNone,
		"XA START 'x'":                               txNone,
		"BEGIN_x":                                    txNone,
		"COMMIT1":                                    txNone,
		"COMMIT(":                                    txNone,
	} {
		require.Equal(t, want, plainTx(q), "%q", q)
	}
	require.Zero(t, testing.AllocsPerRun(100, func() { plainTx("/* c */ START TRANSACTION;") }))
}

// TestDirectTransactionStatements: every spelling of the plain
// transaction statements, comments and WORK included (vitess's parser
// refuses /* c */ BEGIN, COMMIT WORK and ROLLBACK WORK), begins, commits
// and rolls back as on the unsharded reference database: the same
// answers, SERVER_STATUS_IN_TRANS included, the writes of both paths kept
// or undone, autocommit=0 included. The answer before vitess
// (fastpath_direct.go) is byte for byte the OK packet vitess writes for a
// statement of the parsed path in the same state.
func TestDirectTransactionStatements(t *testing.T) {
	fast, _ := fpEnv(t)
	fc, rc := fpConn(t, fast, false, false), fpConn(t, nil, false, false)
	exchange(t, fc, "SELECT 1") // the session's first statement finds its character set
	runTxSteps(t, fast, fc, rc, []txStep{
		{"/* c */ BEGIN", false},
		{"INSERT INTO fp_item (id, name) VALUES (600, 'a')", true},
		{"UPDATE fp_item SET name = 'b' WHERE id IN (600, 601)", false},
		{"ROLLBACK WORK", false},
		{"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (600, 601)", false},
		{"begin work;", false},
		{"INSERT INTO fp_item (id, name) VALUES (600, 'a')", true},
		{"start transaction", false}, // commits the open one
		{"INSERT INTO fp_item (id, name) VALUES (601, 'c')", true},
		{"# c\nROLLBACK", false},
		{"SELECT id, name FROM fp_item WHERE id IN (600, 601) ORDER BY id", false},
		{"START TRANSACTION;", false},
		{"INSERT INTO fp_item (id, name) VALUES (604, 'd')", true},
		{"COMMIT WORK", false},
		{"COMMIT", false}, // none open
		{"ROLLBACK", false},
		{"SET autocommit = 0", false},
		{"INSERT INTO fp_item (id, name) VALUES (608, 'e')", true}, // opens the transaction
		{"/* c */ ROLLBACK", false},
		{"INSERT INTO fp_item (id, name) VALUES (612, 'f')", true}, // opens the next one
		{"commit", false},
		{"SET autocommit = 1", false},
		{"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (600, 604, 608, 612)", false},
		{"DELETE FROM fp_item WHERE id IN (600, 604, 612)", true},
	})
	// The direct answers are vitess's answers of the parsed path.
	same := func(direct, parsed string) {
		t.Helper()
		require.Equal(t, exchange(t, fc, parsed), exchange(t, fc, direct), "%s / %s", direct, parsed)
	}
	same("BEGIN", "START TRANSACTION READ WRITE")
	exchange(t, fc, "BEGIN")
	same("COMMIT", "SET autocommit = 1")
	same("ROLLBACK", "SET autocommit = 1")
}

// TestDirectTransactionPrepared: BEGIN, COMMIT and ROLLBACK prepared
// (COM_STMT_PREPARE, then COM_STMT_EXECUTE, as sysbench runs them),
// comments and WORK included, begin, commit and roll back the session's
// transaction, with writes of both paths.
func TestDirectTransactionPrepared(t *testing.T) {
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
	stmts := map[string]*sql.Stmt{}
	for _, q := range []string{"BEGIN", "/* c */ START TRANSACTION", "COMMIT", "COMMIT WORK", "ROLLBACK", "ROLLBACK WORK;"} {
		st, err := conn.PrepareContext(ctx, q)
		require.NoError(t, err, q)
		defer st.Close()
		stmts[q] = st
	}
	run := func(q string) {
		t.Helper()
		_, err := stmts[q].ExecContext(ctx)
		require.NoError(t, err, q)
	}
	count := func() int {
		t.Helper()
		var n int
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM fp_item WHERE id IN (620, 621, 624)").Scan(&n))
		return n
	}
	insert := func(id int) {
		t.Helper()
		_, err := conn.ExecContext(ctx, "INSERT INTO fp_item (id, name) VALUES (?, 'p')", id)
		require.NoError(t, err)
	}
	for _, end := range []struct {
		begin, end string
		kept       int
	}{
		{"BEGIN", "ROLLBACK", 0},
		{"/* c */ START TRANSACTION", "ROLLBACK WORK;", 0},
		{"BEGIN", "COMMIT WORK", 2},
	} {
		run(end.begin)
		insert(620)
		_, err := conn.ExecContext(ctx, "UPDATE fp_item SET name = 'q' WHERE id IN (620, 621)") // the merge path
		require.NoError(t, err)
		insert(624)
		require.Equal(t, 2, count())
		run(end.end)
		require.Equal(t, end.kept, count(), end.end)
	}
	run("COMMIT") // none open
	_, err = conn.ExecContext(ctx, "DELETE FROM fp_item WHERE id IN (620, 624)")
	require.NoError(t, err)
}

// BenchmarkSessionTransaction is one session's transaction of one point
// select through the proxy over in-process data sources (inproc_test.go):
// BEGIN, the point select, COMMIT, as text (COM_QUERY) or prepared
// (COM_STMT_EXECUTE of prepared BEGIN and COMMIT, as sysbench runs them).
// Besides ns/op and allocs/op it reports the commands the data sources
// received (cmds/op), the goroutines the process started (goroutines/op)
// and an estimate of the goroutine wake-ups (wakeups/op; schedCount).
func BenchmarkSessionTransaction(b *testing.B) {
	srv, be := startInprocProxy(b)
	exec0 := (*benchClient).exec0
	text := (*benchClient).text
	b.Run("text", func(b *testing.B) {
		c := dialBench(b, srv, 0)
		for i := range inprocIDs { // learn the routes
			if _, _, err := c.query(1000 + i); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		m := startSchedCount(be)
		b.ResetTimer()
		for i := range b.N {
			require.NoError(b, text(c, "BEGIN"))
			if rows, _, err := c.query(1000 + i%inprocIDs); err != nil || rows != 1 {
				b.Fatal(rows, err)
			}
			require.NoError(b, text(c, "COMMIT"))
		}
		m.report(b)
	})
	b.Run("binary", func(b *testing.B) {
		c := dialBench(b, srv, 0)
		stmt, err := c.prepareStmt("SELECT c FROM sbtest1 WHERE id=?")
		require.NoError(b, err)
		begin, err := c.prepareStmt("BEGIN")
		require.NoError(b, err)
		commit, err := c.prepareStmt("COMMIT")
		require.NoError(b, err)
		for i := range inprocIDs {
			if _, _, err := c.execute(stmt, int64(1000+i)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		m := startSchedCount(be)
		b.ResetTimer()
		for i := range b.N {
			require.NoError(b, exec0(c, begin))
			if rows, _, err := c.execute(stmt, int64(1000+i%inprocIDs)); err != nil || rows != 1 {
				b.Fatal(rows, err)
			}
			require.NoError(b, exec0(c, commit))
		}
		m.report(b)
	})
}

// schedCount reads, over a benchmark's loop, the commands the in-process
// data sources received and two counters of the Go scheduler: goroutines
// created, and /sched/latencies:seconds's count, which the runtime samples
// at one of every 8 transitions of a goroutine to running (gTrackingPeriod
// in runtime/proc.go), so 8 times it estimates the wake-ups of the whole
// process (client, proxy and data sources).
type schedCount struct {
	be                   [2]*inprocBackend
	cmds, created, waked uint64
}

func startSchedCount(be [2]*inprocBackend) *schedCount {
	m := &schedCount{be: be}
	m.cmds, m.created, m.waked = m.read()
	return m
}

func (m *schedCount) read() (cmds, created, waked uint64) {
	s := []rtmetrics.Sample{{Name: "/sched/goroutines-created:goroutines"}, {Name: "/sched/latencies:seconds"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() == rtmetrics.KindUint64 {
		created = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == rtmetrics.KindFloat64Histogram {
		for _, n := range s[1].Value.Float64Histogram().Counts {
			waked += n
		}
	}
	for _, b := range m.be {
		cmds += uint64(b.commands.Load())
	}
	return cmds, created, waked
}

// report stops b's timer and reports the counts per operation.
func (m *schedCount) report(b *testing.B) {
	b.StopTimer()
	cmds, created, waked := m.read()
	n := float64(b.N)
	b.ReportMetric(float64(cmds-m.cmds)/n, "cmds/op")
	b.ReportMetric(float64(created-m.created)/n, "goroutines/op")
	b.ReportMetric(8*float64(waked-m.waked)/n, "wakeups/op")
}

// exec0 executes the prepared statement stmt, which has no parameters,
// and reads its answer.
func (c *benchClient) exec0(stmt uint32) error {
	p := append(c.out[:0], 0, 0, 0, 0, mysql.ComStmtExecute)
	p = binary.LittleEndian.AppendUint32(p, stmt)
	p = append(p, 0)
	p = binary.LittleEndian.AppendUint32(p, 1)
	c.out = p
	if err := c.send(p); err != nil {
		return err
	}
	_, _, err := c.result()
	return err
}

// text runs q as a COM_QUERY and reads its answer.
func (c *benchClient) text(q string) error {
	c.out = append(append(c.out[:0], 0, 0, 0, 0, mysql.ComQuery), q...)
	if err := c.send(c.out); err != nil {
		return err
	}
	_, _, err := c.result()
	return err
}

// TestSessionTransactionRelay counts what the data sources receive for a
// session's transaction on one data source whose statements take the fast
// path (txfast.go), over the in-process data sources: START TRANSACTION,
// the statement and COMMIT (or ROLLBACK), three commands, with no
// goroutine started per transaction (database/sql's transaction started
// one, and go-sql-driver's START TRANSACTION woke its context watcher
// twice); prepared, the START TRANSACTION is sent with the execution
// without waiting for its answer (the data sources answer it only once
// the next command came); BEGIN … COMMIT with no statement sends nothing.
func TestSessionTransactionRelay(t *testing.T) {
	srv, be := startInprocProxy(t)
	const n = 20
	seen := func() (begins, commits, rollbacks int, other []string) {
		for _, b := range be {
			for _, s := range b.statements() {
				switch s {
				case "START TRANSACTION":
					begins++
				case "COMMIT":
					commits++
				case "ROLLBACK":
					rollbacks++
				default:
					other = append(other, s)
				}
			}
		}
		return
	}
	check := func(t *testing.T, m *schedCount, end string) {
		t.Helper()
		cmds, created, _ := m.read()
		require.Equal(t, uint64(3*n), cmds-m.cmds, "START TRANSACTION, the point select, %s", end)
		require.Less(t, created-m.created, uint64(n/2), "goroutines started per transaction")
	}
	t.Run("binary", func(t *testing.T) {
		c := dialBench(t, srv, 0)
		stmt, err := c.prepareStmt("SELECT c FROM sbtest1 WHERE id=?")
		require.NoError(t, err)
		begin, err := c.prepareStmt("BEGIN")
		require.NoError(t, err)
		commit, err := c.prepareStmt("COMMIT")
		require.NoError(t, err)
		rollback, err := c.prepareStmt("ROLLBACK")
		require.NoError(t, err)
		for i := range 10 { // learn the routes, prepare on the back-end connections
			_, _, err := c.execute(stmt, int64(1000+i))
			require.NoError(t, err)
			require.NoError(t, c.exec0(begin)) // and on the transactions' ones
			_, _, err = c.execute(stmt, int64(1000+i))
			require.NoError(t, err)
			require.NoError(t, c.exec0(commit))
		}
		for _, b := range be {
			b.holdBegin.Store(true)
			defer b.holdBegin.Store(false)
		}
		b0, c0, r0, o0 := seen()
		m := startSchedCount(be)
		for i := range n {
			require.NoError(t, c.exec0(begin))
			rows, _, err := c.execute(stmt, int64(1000+i))
			require.NoError(t, err)
			require.Equal(t, 1, rows)
			require.NoError(t, c.exec0(commit))
		}
		check(t, m, "COMMIT")
		b1, c1, r1, o1 := seen()
		require.Equal(t, []int{n, n, 0}, []int{b1 - b0, c1 - c0, r1 - r0})
		require.Equal(t, o0, o1, "nothing else; no START TRANSACTION answered alone")
		m = startSchedCount(be)
		for i := range n {
			require.NoError(t, c.exec0(begin))
			_, _, err := c.execute(stmt, int64(1000+i))
			require.NoError(t, err)
			require.NoError(t, c.exec0(rollback))
		}
		check(t, m, "ROLLBACK")
		b2, c2, r2, _ := seen()
		require.Equal(t, []int{n, 0, n}, []int{b2 - b1, c2 - c1, r2 - r1})
		m = startSchedCount(be)
		require.NoError(t, c.exec0(begin))
		require.NoError(t, c.exec0(commit))
		cmds, _, _ := m.read()
		require.Equal(t, m.cmds, cmds, "an empty transaction sends nothing")
	})
	t.Run("text", func(t *testing.T) {
		c := dialBench(t, srv, 0)
		for i := range 10 {
			_, _, err := c.query(1000 + i)
			require.NoError(t, err)
		}
		b0, c0, _, o0 := seen()
		m := startSchedCount(be)
		for i := range n {
			require.NoError(t, c.text("BEGIN"))
			rows, _, err := c.query(1000 + i)
			require.NoError(t, err)
			require.Equal(t, 1, rows)
			require.NoError(t, c.text("COMMIT"))
		}
		check(t, m, "COMMIT")
		b1, c1, _, o1 := seen()
		require.Equal(t, []int{n, n}, []int{b1 - b0, c1 - c0})
		require.Equal(t, o0, o1)
	})
}
