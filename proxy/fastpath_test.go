package proxy

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/schema"
)

// fpDDL is the logic table of the fast-path tests: text in three
// character sets, binary, numbers, times, NULLs.
const fpDDL = `CREATE TABLE fp_item (
  id BIGINT NOT NULL,
  name VARCHAR(64) NULL,
  l1 VARCHAR(20) CHARACTER SET latin1 NULL,
  bin VARBINARY(16) NULL,
  body MEDIUMBLOB NULL,
  price DECIMAL(10,2) NULL,
  ratio FLOAT NULL,
  created DATETIME(3) NULL,
  kind ENUM('a','b') NULL,
  PRIMARY KEY (id)
)`

// fpRows are the rows of fp_item: ASCII, NULLs, latin1/CJK/emoji text,
// bytes the protocol gives a meaning to (0x00, 0xFB, 0xFE, 0xFF), a long
// value.
var fpRows = []string{
	"(1, 'plain', 'abc', X'616263', 'body', 1.50, 0.5, '2026-01-02 03:04:05.678', 'a')",
	"(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
	"(3, '中文 ✓ 😀', 'café', X'00FBFEFF', X'FE00', -0.01, 3.25, '1999-12-31 23:59:59.000', 'b')",
	"(4, '', '', X'', '', 0, 0, '2000-01-01 00:00:00.000', 'a')",
	"(5, REPEAT('x', 64), 'z', X'FE', REPEAT('y', 70000), 99999999.99, -1e10, '2038-01-19 03:14:07.999', NULL)",
}

// fpYAML is the configuration of the fast-path tests: fp_item sharded by
// id % 2 over ds_0, ds_1 and by (id / 2) % 2 over two tables each.
func fpYAML() string {
	y := pxYAML()
	y = strings.Replace(y, "databaseName: px_db", "databaseName: fp_db", 1)
	return strings.ReplaceAll(y, "px_item", "fp_item")
}

// fpEnv starts a proxy with the fast path and one without over fp_item
// (the rows of fpRows, also in the reference database).
func fpEnv(t *testing.T) (fast, slow *Server) {
	t.Helper()
	ctx := context.Background()
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for _, tb := range []string{"fp_item_0", "fp_item_1"} {
			_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+tb)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, strings.Replace(fpDDL, "fp_item", tb, 1))
			require.NoError(t, err)
		}
	}
	ref := testdb.Open(t, "reference")
	_, err := ref.ExecContext(ctx, "DROP TABLE IF EXISTS fp_item")
	require.NoError(t, err)
	_, err = ref.ExecContext(ctx, fpDDL)
	require.NoError(t, err)
	_, err = ref.ExecContext(ctx, "INSERT INTO fp_item VALUES "+strings.Join(fpRows, ", "))
	require.NoError(t, err)
	fast, slow = fpServer(t, false), fpServer(t, true)
	require.NotNil(t, fast.backends)
	require.Nil(t, slow.backends)
	px := fpConn(t, slow, false, false)
	_, err = px.ExecuteFetch("INSERT INTO fp_item VALUES "+strings.Join(fpRows, ", "), 0, false)
	require.NoError(t, err)
	return fast, slow
}

// fpServer starts a proxy on fpEnv's tables, without the fast path when
// disable is set.
func fpServer(t *testing.T, disable bool) *Server {
	t.Helper()
	cfg, err := ParseConfig("fp.yaml", []byte(fpYAML()))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("fp.sql", []byte(fpDDL))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second, DisableFastPath: disable})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return srv
}

// fpConn connects vitess's client to srv (or, when srv is nil, to the
// reference database), with or without CLIENT_DEPRECATE_EOF and
// multi-statements.
func fpConn(t *testing.T, srv *Server, noDeprecateEOF, multi bool) *mysql.Conn {
	t.Helper()
	p := fpParams(srv)
	p.Charset = collationUTF8MB4
	p.DisableClientDeprecateEOF, p.EnableMultiStatements = noDeprecateEOF, multi
	c, err := mysql.Connect(context.Background(), &p)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// fpParams are the connection parameters of srv (nil: the reference
// database).
func fpParams(srv *Server) mysql.ConnParams {
	var p mysql.ConnParams
	if srv == nil {
		c := testdb.Config("reference")
		host, port, _ := strings.Cut(c.Addr, ":")
		p = mysql.ConnParams{Host: host, Uname: c.User, Pass: c.Passwd, DbName: "reference"}
		p.Port, _ = strconv.Atoi(port)
	} else {
		host, port, _ := strings.Cut(srv.Addr(), ":")
		p = mysql.ConnParams{Host: host, Uname: "root", Pass: "secret", DbName: "fp_db"}
		p.Port, _ = strconv.Atoi(port)
	}
	return p
}

// wireAnswer is a statement's answer as packets: the column definitions,
// and every other packet (column counts, EOF, rows, OK, ERR) in order.
type wireAnswer struct {
	cols  [][]byte
	other []string
}

// exchange sends q and reads its whole answer (every result of a
// multi-statement) packet by packet; vitess's ReadPacket checks the
// sequence ids.
func exchange(t *testing.T, c *mysql.Conn, q string) wireAnswer {
	t.Helper()
	require.NoError(t, c.WriteComQuery(q))
	var a wireAnswer
	read := func() []byte {
		p, err := c.ReadPacket()
		require.NoError(t, err, q)
		a.other = append(a.other, fmt.Sprintf("%x", p))
		return p
	}
	deprecate := c.Capabilities&mysql.CapabilityClientDeprecateEOF != 0
	for {
		p := read()
		switch p[0] {
		case mysql.ErrPacket:
			return a
		case mysql.OKPacket:
			if !moreResults(p) {
				return a
			}
			continue
		}
		n, _ := lenEncInt(p)
		for i := 0; i < int(n); i++ {
			p, err := c.ReadPacket()
			require.NoError(t, err)
			a.cols = append(a.cols, p)
		}
		if !deprecate {
			read()
		}
		for {
			p := read()
			if p[0] == mysql.ErrPacket {
				return a
			}
			if p[0] == mysql.EOFPacket && len(p) < 0xffffff {
				if !moreResults(p) {
					return a
				}
				break
			}
		}
	}
}

// moreResults reads SERVER_MORE_RESULTS_EXISTS from an OK or EOF packet.
func moreResults(p []byte) bool {
	var status uint16
	if p[0] == mysql.EOFPacket && len(p) == 5 {
		status = uint16(p[3]) | uint16(p[4])<<8
	} else {
		i := 1 + lenEncLen(p[1:])
		i += lenEncLen(p[i:])
		status = uint16(p[i]) | uint16(p[i+1])<<8
	}
	return status&mysql.ServerMoreResultsExists != 0
}

// TestFastPathRelaysSlowPath: every statement answers on the fast path
// exactly as on the database/sql path (column counts, rows byte for byte
// with NULLs, binary, latin1, CJK and emoji text, empty results, the EOF
// and OK packets with their status flags and warning counts, the errors),
// with and without CLIENT_DEPRECATE_EOF, in multi-statements too; its
// column definitions are the reference database's (types, lengths, flags,
// charsets, names as written, the logic table, never the actual one); and
// the fast path was taken, as the metric counts, in a transaction too.
func TestFastPathRelaysSlowPath(t *testing.T) {
	fast, slow := fpEnv(t)
	queries := []string{
		"SELECT * FROM fp_item WHERE id = 1",
		"SELECT * FROM fp_item WHERE id = 2",
		"SELECT * FROM fp_item WHERE id = 3",
		"SELECT * FROM fp_item WHERE id = 4",
		"SELECT * FROM fp_item WHERE id = 5",
		"SELECT * FROM fp_item WHERE id = 99",
		"SELECT id, name AS n, l1 FROM fp_item t WHERE t.id = 3",
		"SELECT fp_item.name, COUNT(*), 'x', NULL FROM fp_item WHERE id = 3",
		"SELECT id + CAST('1x' AS SIGNED) FROM fp_item WHERE id = 1", // a warning
		"SELECT JSON_EXTRACT(name, '$') FROM fp_item WHERE id = 1",   // another warning
		"SELECT id FROM fp_item WHERE id = 1 AND EXP(1000) > 0",      // an error of the back end
	}
	ref := fpConn(t, nil, false, false)
	for _, noDeprecate := range []bool{false, true} {
		fc, sc := fpConn(t, fast, noDeprecate, false), fpConn(t, slow, noDeprecate, false)
		exchange(t, fc, "SELECT 1") // the session's first statement finds its character set
		for _, q := range queries {
			b0 := passThroughCount(t, fast)
			exchange(t, fc, q) // planned and learned on the database/sql path
			requirePassThrough(t, fast, b0+1, q)
			before := b0 + 1
			got, want := exchange(t, fc, q), exchange(t, sc, q)
			requirePassThrough(t, fast, before+1, q)
			if strings.Contains(q, "CAST('1x'") || strings.Contains(q, "JSON_EXTRACT") {
				// The data node's warning reaches the client (as from the
				// reference database), and SHOW WARNINGS reads it.
				require.Equal(t, want.other[:len(want.other)-1], got.other[:len(got.other)-1], q)
				last := got.other[len(got.other)-1]
				if noDeprecate {
					require.Equal(t, "fe0100", last[:6], q) // EOF: 1 warning
				} else {
					require.Equal(t, "fe0000020001", last[:12], q) // OK: 0, 0, status, 1 warning
				}
				w := exchange(t, fc, "SHOW WARNINGS")
				require.Contains(t, strings.Join(w.other, " "), fmt.Sprintf("%x", "Warning"), q)
				continue
			}
			require.Equal(t, want.other, got.other, "%s (no CLIENT_DEPRECATE_EOF: %v)", q, noDeprecate)
			require.Len(t, got.cols, len(want.cols), q)
			refQ := q
			if strings.Contains(q, "EXP(1000)") {
				require.Contains(t, got.other[0], fmt.Sprintf("%x", "DOUBLE value is out of range"), q)
				continue
			}
			wantCols := exchange(t, ref, refQ).cols
			require.Len(t, got.cols, len(wantCols))
			for i := range got.cols {
				g, _, ok := columnFields(got.cols[i])
				require.True(t, ok)
				r := append([]byte(nil), wantCols[i]...)
				rf, rest, _ := columnFields(r)
				rebuilt := appendLenEncBytes(nil, rf[0])
				if len(rf[1]) > 0 {
					rebuilt = appendLenEncText(rebuilt, "fp_db") // the logic database for "reference"
				} else {
					rebuilt = appendLenEncBytes(rebuilt, rf[1])
				}
				for _, f := range rf[2:] {
					rebuilt = appendLenEncBytes(rebuilt, f)
				}
				rebuilt = append(rebuilt, rest...)
				require.Equal(t, fmt.Sprintf("%q", rebuilt), fmt.Sprintf("%q", got.cols[i]), "%s column %d", q, i)
				s, _, _ := columnFields(want.cols[i])
				require.Equal(t, string(s[4]), string(g[4]), "%s column %d name", q, i)
			}
		}
		// In a transaction the statement takes the fast path on the
		// transaction's connection (txfast.go), with the in-transaction
		// flag.
		for _, c := range []*mysql.Conn{fc, sc} {
			exchange(t, c, "BEGIN")
		}
		before := passThroughCount(t, fast)
		got, want := exchange(t, fc, queries[0]), exchange(t, sc, queries[0])
		require.Equal(t, want.other, got.other)
		requirePassThrough(t, fast, before+1, "")
		for _, c := range []*mysql.Conn{fc, sc} {
			exchange(t, c, "COMMIT")
		}
	}
	// Multi-statements: the fast path's end packets carry "more results".
	fc, sc := fpConn(t, fast, false, true), fpConn(t, slow, false, true)
	q := "SELECT * FROM fp_item WHERE id = 1; SELECT id FROM fp_item WHERE id = 99; SELECT * FROM fp_item WHERE id = 3"
	exchange(t, fc, q)
	before := passThroughCount(t, fast)
	got, want := exchange(t, fc, q), exchange(t, sc, q)
	require.Equal(t, want.other, got.other)
	requirePassThrough(t, fast, before+3, "")
}

// passThroughCount reads shardgen_proxy_pass_through_total of srv.
func passThroughCount(t testing.TB, srv *Server) float64 {
	t.Helper()
	mfs, err := srv.metrics.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "shardgen_proxy_pass_through_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatal("no shardgen_proxy_pass_through_total")
	return 0
}

// TestFastPathClientGone: a fast-path statement whose client disconnects
// is stopped on its back-end connection (KILL QUERY by the sweeper, no
// goroutine of its own), and that connection is not pooled again.
func TestFastPathClientGone(t *testing.T) {
	fast, _ := fpEnv(t)
	ds1 := testdb.Open(t, "ds_1")
	running := func() int {
		var n int
		require.NoError(t, ds1.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%sleep(61)%' AND ID <> CONNECTION_ID()").Scan(&n))
		return n
	}
	c := fpConn(t, fast, false, false)
	before := passThroughCount(t, fast)
	require.NoError(t, c.WriteComQuery("SELECT SLEEP(61), id FROM fp_item WHERE id = 1"))
	require.Eventually(t, func() bool { return running() == 1 }, 20*time.Second, 10*time.Millisecond)
	c.Close()
	require.Eventually(t, func() bool { return running() == 0 }, 20*time.Second, 10*time.Millisecond)
	// No answer reached the client: the statement is counted once its
	// relay has seen the KILL.
	require.Eventually(t, func() bool { return passThroughCount(t, fast) == before+1 }, 20*time.Second, time.Millisecond, "the killed statement")
	p := fast.backends[1]
	require.Equal(t, "ds_1", p.name)
	open, idle := p.stats()
	require.Equal(t, open, idle, "no connection in use")
	require.Zero(t, open, "the killed statement's connection was closed")
}

// TestFastPathNoAllocationPerRow: relaying 200 rows allocates no more than
// relaying one (allocations of the whole process, the proxy's included,
// per statement; the client reads packets into a buffer of its own).
func TestFastPathNoAllocationPerRow(t *testing.T) {
	fast, _ := fpEnv(t)
	c := fpConn(t, fast, false, false)
	buf := make([]byte, 1<<16)
	run := func(q string) int {
		require.NoError(t, c.WriteComQuery(q))
		packets := 0
		for {
			// No require call per packet: its arguments would allocate.
			n, err := c.ReadHeaderInto(buf[:4])
			if err == nil {
				err = c.ReadDataInto(buf[:n])
			}
			if err != nil || buf[0] == mysql.ErrPacket {
				t.Fatalf("%v %q", err, buf[:n])
			}
			if buf[0] == mysql.EOFPacket && n < 9 {
				return packets
			}
			packets++
		}
	}
	one := "SELECT 1 AS a, 'row' AS b"
	many := one + strings.Repeat(" UNION ALL SELECT 2, 'row'", 199)
	run(one)
	run(many)
	// The first two statements, each learned, then relayed.
	requirePassThrough(t, fast, 2, "the first two statements")
	before := 2.0
	require.Equal(t, 1+2+1, run(one)) // column count, 2 columns, 1 row
	require.Equal(t, 1+2+200, run(many))
	requirePassThrough(t, fast, before+2, "")
	allocs := func(q string) float64 { return testing.AllocsPerRun(20, func() { run(q) }) }
	a1, a200 := allocs(one), allocs(many)
	require.Less(t, a200, a1+10, "allocations per statement: %v for 1 row, %v for 200 rows", a1, a200)
	t.Logf("allocations per statement, proxy and client: %v for 1 row, %v for 200 rows", a1, a200)
}

// TestFastPathShapes: a statement whose literals differ from one already
// run takes the fast path on its first execution (its shape's plan), on
// the data node its own values route to, and answers as the database/sql
// path.
func TestFastPathShapes(t *testing.T) {
	fast, slow := fpEnv(t)
	fc, sc := fpConn(t, fast, false, false), fpConn(t, slow, false, false)
	exchange(t, fc, "SELECT 1")
	exchange(t, fc, "SELECT id, name, l1 FROM fp_item WHERE id = 1")
	for _, id := range []string{"2", "3", "4", "5", "99"} {
		q := "SELECT id, name, l1 FROM fp_item WHERE id = " + id
		before := passThroughCount(t, fast)
		got, want := exchange(t, fc, q), exchange(t, sc, q)
		requirePassThrough(t, fast, before+1, q)
		require.Equal(t, want.other, got.other, q)
		require.Nil(t, fast.fast.get(q), "%s ran by its shape", q)
	}
}

// requirePassThrough requires srv's pass-through metric to be want now:
// the proxy counts a fast-path statement before the last packet of its
// answer is written (countFast), so a client that has read the answer
// finds it counted.
func requirePassThrough(t *testing.T, srv *Server, want float64, msg string) {
	t.Helper()
	require.Equal(t, want, passThroughCount(t, srv), msg)
}

// TestFastPathAfterSlowResult: in a multi-statement, a statement after one
// whose result set went out on the database/sql path answers in order
// (that result's end packet first), with and without
// CLIENT_DEPRECATE_EOF, as on the database/sql path alone.
func TestFastPathAfterSlowResult(t *testing.T) {
	fast, slow := fpEnv(t)
	for _, noDeprecate := range []bool{false, true} {
		for _, q := range []string{
			"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (1, 2); SELECT name FROM fp_item WHERE id = 3",
			"SELECT COUNT(*) AS n FROM fp_item WHERE id IN (1, 2); SELECT name FROM fp_item WHERE id = 3; SELECT id FROM fp_item WHERE id = 1",
			"SELECT name FROM fp_item WHERE id = 3; SELECT COUNT(*) AS n FROM fp_item WHERE id IN (1, 2); SELECT name FROM fp_item WHERE id = 1",
		} {
			fc, sc := fpConn(t, fast, noDeprecate, true), fpConn(t, slow, noDeprecate, true)
			exchange(t, fc, "SELECT 1")
			exchange(t, fc, q)
			got, want := exchange(t, fc, q), exchange(t, sc, q)
			require.Equal(t, want.other, got.other, "no CLIENT_DEPRECATE_EOF: %v; %s", noDeprecate, q)
		}
	}
}
