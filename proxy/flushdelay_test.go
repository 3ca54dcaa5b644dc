package proxy

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
)

// clientWrites returns the writes to the sockets of srv's clients so far.
func clientWrites(srv *Server) int64 {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	var n int64
	for _, sess := range srv.conns {
		if cc := sess.cc; cc != nil {
			cc.wmu.Lock()
			n += cc.writes
			cc.wmu.Unlock()
		}
	}
	return n
}

// TestClientFlushDelay: with a flush delay of an hour, every answer that
// vitess writes (a result of many rows, below vitess's buffer of 16 KiB, an error, the results of a
// multi-statement, a prepared execution's OK) and the fast path's reach
// the client at once: none waits for vitess's flush timer (see
// clientFlushDelay), each in one write.
// The writes per statement with the delay 0 the proxy had before are
// logged (they depend on the timer goroutine's scheduling).
func TestClientFlushDelay(t *testing.T) {
	fpEnv(t) // the tables and their rows
	servers := func(delay time.Duration) (fast, slow *Server) {
		old := clientFlushDelay
		defer func() { clientFlushDelay = old }()
		clientFlushDelay = delay
		return fpServer(t, false), fpServer(t, true)
	}
	type statement struct {
		name  string
		multi bool   // sent by a client with CLIENT_MULTI_STATEMENTS
		q     string // "": the prepared execution
		// writes per statement with the delay of an hour, on the fast
		// and on the slow proxy.
		fast, slow int64
	}
	statements := []statement{
		{"rows", false, "SELECT id, l1 FROM fp_item ORDER BY id", 1, 1},
		{"error", false, "SELECT * FROM no_such_table", 1, 1},
		{"point select", false, "SELECT id, name FROM fp_item WHERE id = 3", 1, 1},
		{"multi-statement", true, "SELECT id, l1 FROM fp_item ORDER BY id; SELECT id FROM fp_item WHERE id = 3", 1, 1},
		{"prepared", false, "", 1, 1},
	}
	const n = 20
	// run sends st n times on a new connection to srv, reading every
	// answer (the read fails after a minute instead of waiting for the
	// delay), and returns the writes per statement.
	run := func(srv *Server, st statement) float64 {
		if st.q == "" {
			c := dialRaw(t, srv.Addr(), "root", "secret", "fp_db", mysql.MysqlNativePassword)
			require.NoError(t, c.conn.SetDeadline(time.Now().Add(time.Minute)))
			stmt, _ := c.prepare(t, "UPDATE fp_item SET name = name WHERE id = ?")
			arg := rawParam{typ: rawTypeLongLong, val: binary.LittleEndian.AppendUint64(nil, 3)}
			require.NoError(t, c.execute(t, stmt, arg)) // learned
			before := clientWrites(srv)
			for range n {
				require.NoError(t, c.execute(t, stmt, arg))
			}
			return float64(clientWrites(srv)-before) / n
		}
		c := fpConn(t, srv, false, st.multi)
		require.NoError(t, c.GetRawConn().SetDeadline(time.Now().Add(time.Minute)))
		exchange(t, c, "SELECT 1")
		exchange(t, c, st.q) // learned
		before := clientWrites(srv)
		for range n {
			exchange(t, c, st.q)
		}
		return float64(clientWrites(srv)-before) / n
	}
	fast, slow := servers(time.Hour)
	fast0, slow0 := servers(0)
	for _, st := range statements {
		f, s := run(fast, st), run(slow, st)
		require.Equal(t, float64(st.fast), f, "%s: writes per statement on the fast path", st.name)
		require.Equal(t, float64(st.slow), s, "%s: writes per statement through vitess", st.name)
		t.Logf("%s: writes per statement with a delay of an hour: %v fast, %v slow; with none: %v fast, %v slow",
			st.name, f, s, run(fast0, st), run(slow0, st))
	}
}
