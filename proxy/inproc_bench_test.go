package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
)

// inprocIDs is how many ids the benchmarks cycle through (both data
// sources, ids above 255).
const inprocIDs = 1000

// TestInprocPointSelect runs the point select through the proxy over the
// in-process data sources in both protocols, checks the canned row comes
// back, that the statements took the fast path, and logs what the data
// sources were asked besides.
func TestInprocPointSelect(t *testing.T) {
	srv, be := startInprocProxy(t)
	c := dialBench(t, srv, 0)
	before := passThroughCount(t, srv)
	for i := range 10 {
		rows, n, err := c.query(1000 + i)
		require.NoError(t, err)
		require.Equal(t, 1, rows)
		require.Equal(t, 1+len(inprocRow), n)
	}
	// A data source's error reaches the client (answered before vitess:
	// fastpath_direct.go) and the session goes on.
	_, _, err := c.query(13)
	require.EqualError(t, err, "Error 1317 (HY000): Query execution was interrupted")
	_, _, err = c.query(14)
	require.NoError(t, err)
	// A client that may send several statements (sysbench sets
	// CLIENT_MULTI_STATEMENTS) sends one.
	rows, n, err := dialBench(t, srv, mysql.CapabilityClientMultiStatements).query(1003)
	require.NoError(t, err)
	require.Equal(t, []int{1, 1 + len(inprocRow)}, []int{rows, n})
	stmt, err := c.prepareStmt("SELECT c FROM sbtest1 WHERE id=?")
	require.NoError(t, err)
	for i := range 10 {
		rows, n, err := c.execute(stmt, int64(1000+i))
		require.NoError(t, err)
		require.Equal(t, 1, rows)
		require.Equal(t, 2+1+len(inprocRow), n)
	}
	// The first text statement and the first execution learn their route
	// on the database/sql path; the rest take the fast path.
	require.GreaterOrEqual(t, passThroughCount(t, srv)-before, float64(19))
	for i, b := range be {
		for _, s := range b.statements() {
			t.Logf("ds_%d: %s", i, s)
		}
	}
}

// BenchmarkSessionPointSelect is one session's point select (sysbench's
// oltp_point_select, SELECT c FROM sbtest1 WHERE id=?) through the proxy
// over in-process data sources (inproc_test.go), on the fast path: text
// is COM_QUERY with the id as a literal (text-multi from a client with
// CLIENT_MULTI_STATEMENTS, as sysbench connects), binary is
// COM_STMT_EXECUTE of a statement prepared once. The client writes and
// reads raw packets and the data sources answer from buffers, so
// allocs/op are the proxy's (issue 13 asks for at most 2). ns/op includes
// the client and the data source on the same machine.
func BenchmarkSessionPointSelect(b *testing.B) {
	srv, _ := startInprocProxy(b)
	text := func(b *testing.B, c *benchClient) {
		for i := range inprocIDs { // learn the routes
			if _, _, err := c.query(1000 + i); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if rows, _, err := c.query(1000 + i%inprocIDs); err != nil || rows != 1 {
				b.Fatal(rows, err)
			}
		}
	}
	b.Run("text", func(b *testing.B) { text(b, dialBench(b, srv, 0)) })
	// As sysbench connects: CLIENT_MULTI_STATEMENTS.
	b.Run("text-multi", func(b *testing.B) { text(b, dialBench(b, srv, mysql.CapabilityClientMultiStatements)) })
	b.Run("binary", func(b *testing.B) {
		c := dialBench(b, srv, 0)
		stmt, err := c.prepareStmt("SELECT c FROM sbtest1 WHERE id=?")
		require.NoError(b, err)
		for i := range inprocIDs {
			if _, _, err := c.execute(stmt, int64(1000+i)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if rows, _, err := c.execute(stmt, int64(1000+i%inprocIDs)); err != nil || rows != 1 {
				b.Fatal(rows, err)
			}
		}
	})
}

// BenchmarkSessionPointSelectTx is BenchmarkSessionPointSelect inside one
// session transaction (BEGIN once, the point selects, COMMIT at the end):
// each statement takes the fast path on the transaction's go-sql-driver
// connection (txfast.go). allocs/op are the proxy's.
func BenchmarkSessionPointSelectTx(b *testing.B) {
	srv, _ := startInprocProxy(b)
	begin := func(b *testing.B, c *benchClient, q string) {
		c.out = append(append(c.out[:0], 0, 0, 0, 0, mysql.ComQuery), q...)
		require.NoError(b, c.send(c.out))
		_, _, err := c.result()
		require.NoError(b, err)
	}
	b.Run("text", func(b *testing.B) {
		c := dialBench(b, srv, 0)
		for i := range inprocIDs { // learn the routes
			if _, _, err := c.query(1000 + i); err != nil {
				b.Fatal(err)
			}
		}
		begin(b, c, "BEGIN")
		before := passThroughCount(b, srv)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if rows, _, err := c.query(1000 + i%inprocIDs); err != nil || rows != 1 {
				b.Fatal(rows, err)
			}
		}
		b.StopTimer()
		require.Equal(b, before+float64(b.N), passThroughCount(b, srv), "every statement took the fast path")
		begin(b, c, "COMMIT")
	})
	b.Run("binary", func(b *testing.B) {
		c := dialBench(b, srv, 0)
		stmt, err := c.prepareStmt("SELECT c FROM sbtest1 WHERE id=?")
		require.NoError(b, err)
		for i := range inprocIDs {
			if _, _, err := c.execute(stmt, int64(1000+i)); err != nil {
				b.Fatal(err)
			}
		}
		begin(b, c, "BEGIN")
		before := passThroughCount(b, srv)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if rows, _, err := c.execute(stmt, int64(1000+i%inprocIDs)); err != nil || rows != 1 {
				b.Fatal(rows, err)
			}
		}
		b.StopTimer()
		require.Equal(b, before+float64(b.N), passThroughCount(b, srv), "every execution took the fast path")
		begin(b, c, "COMMIT")
	})
}
