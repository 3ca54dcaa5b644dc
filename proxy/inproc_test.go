package proxy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"

	"github.com/shardgen/shardgen/schema"
)

// An in-process data source for the session benchmarks (issue 13): a
// MySQL server of a few hundred lines that answers the handshake (any user
// and password), what the proxy asks at start and when a connection
// opens (SET, SHOW WARNINGS, metadata lookups: answered with no rows), and
// the point select of sysbench's sbtest1 with one canned row (an error
// for id 13), in the text
// protocol (COM_QUERY) and the binary protocol (COM_STMT_PREPARE,
// COM_STMT_EXECUTE). It is written on the socket rather than with
// vitess's server (mysql.Listener), whose command loop allocates per
// statement (the query string, the result callback): a benchmark's
// allocs/op counts the whole process, and the data source's own must be
// none so that the count is the proxy's.

// inprocRow is the canned value of sbtest1.c (sysbench's format: 11-digit
// groups separated by dashes, 119 characters).
const inprocRow = "68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441"

// inprocBackend is one in-process data source; seen records the
// statements other than the point select, in order.
type inprocBackend struct {
	l  net.Listener
	db string // its database, named in column definitions

	mu   sync.Mutex
	seen []string
	// commands counts the commands received after the handshake.
	commands atomic.Int64
	// holdBegin: a START TRANSACTION is answered only after the command
	// that follows it has been read (a pipelined pair), or after 10 s,
	// recorded as "START TRANSACTION answered alone" (and holdBegin is
	// cleared).
	holdBegin atomic.Bool
}

// startInprocBackend listens on a free local port; the listener closes
// with the test.
func startInprocBackend(tb testing.TB, db string) *inprocBackend {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	b := &inprocBackend{l: l, db: db}
	var wg sync.WaitGroup
	tb.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		var id uint32
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			id++
			wg.Add(1)
			go func(id uint32) {
				defer wg.Done()
				defer c.Close()
				b.serve(c, id)
			}(id)
		}
	}()
	return b
}

// statements returns the statements seen other than the point select.
func (b *inprocBackend) statements() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.seen...)
}

func (b *inprocBackend) record(s string) {
	b.mu.Lock()
	b.seen = append(b.seen, s)
	b.mu.Unlock()
}

// inprocCaps are the capability flags the data source offers: no
// CLIENT_DEPRECATE_EOF (result sets end with EOF packets, as MariaDB's
// with a client that does not ask), no TLS, no compression.
const inprocCaps = mysql.CapabilityClientLongPassword | mysql.CapabilityClientFoundRows | mysql.CapabilityClientLongFlag |
	mysql.CapabilityClientConnectWithDB | mysql.CapabilityClientProtocol41 | mysql.CapabilityClientTransactions |
	mysql.CapabilityClientSecureConnection | mysql.CapabilityClientMultiStatements | mysql.CapabilityClientMultiResults |
	mysql.CapabilityClientPluginAuth | mysql.CapabilityClientPluginAuthLenencClientData

// inprocConn is the state of one connection: its reader, the packet being
// written and the prepared statements by id (their parameter counts).
type inprocConn struct {
	c     net.Conn
	r     *bufio.Reader
	in    []byte
	out   []byte
	seq   byte
	hdr   [4]byte
	stmts map[uint32]bool // prepared statements: true for the point select
	next  uint32
}

// serve answers one connection until it closes.
func (b *inprocBackend) serve(nc net.Conn, id uint32) {
	c := &inprocConn{c: nc, r: bufio.NewReaderSize(nc, 16<<10), stmts: map[uint32]bool{}}
	if err := c.handshake(id); err != nil {
		return
	}
	for {
		c.seq = 0
		p, err := c.read()
		if err != nil || len(p) == 0 {
			return
		}
		b.commands.Add(1)
		if b.holdBegin.Load() && p[0] == mysql.ComQuery && bytes.HasPrefix(p[1:], []byte("START TRANSACTION")) {
			// Answered once the next command has come, which only a
			// client that does not wait for the answer sends.
			b.record(string(p[1:]))
			_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			next, err := c.read()
			_ = nc.SetReadDeadline(time.Time{})
			if err != nil {
				b.holdBegin.Store(false) // once
				b.record("START TRANSACTION answered alone: " + err.Error())
				c.seq = 1
				if c.ok() != nil {
					return
				}
				continue
			}
			b.commands.Add(1)
			held := append([]byte(nil), next...)
			seq := c.seq
			c.seq = 1
			if c.ok() != nil {
				return
			}
			c.seq, p = seq, held
		}
		if quit, err := b.dispatch(c, p); quit || err != nil {
			return
		}
	}
}

// dispatch answers the command p; quit is set for COM_QUIT.
func (b *inprocBackend) dispatch(c *inprocConn, p []byte) (quit bool, err error) {
	switch p[0] {
	case mysql.ComQuit:
		return true, nil
	case mysql.ComInitDB, mysql.ComPing, mysql.ComResetConnection:
		err = c.ok()
	case mysql.ComQuery:
		err = b.query(c, p[1:])
	case mysql.ComPrepare:
		err = b.prepare(c, p[1:])
	case mysql.ComStmtExecute:
		err = b.execute(c, p[1:])
	case mysql.ComStmtClose, mysql.ComStmtSendLongData:
		// no answer
	case mysql.ComStmtReset:
		err = c.ok()
	default:
		b.record("command " + strconv.Itoa(int(p[0])))
		err = c.fail(1047, "unknown command")
	}
	return false, err
}

// handshake greets the client (HandshakeV10, mysql_native_password) and
// accepts whatever it answers.
func (c *inprocConn) handshake(id uint32) error {
	g, at := beginPacket(c.out[:0])
	g = append(g, 10)
	g = append(g, "5.5.5-10.11.6-MariaDB-inproc"...)
	g = append(g, 0)
	g = binary.LittleEndian.AppendUint32(g, id)
	g = append(g, "abcdefgh"...)
	g = append(g, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(inprocCaps&0xffff))
	g = append(g, collationUTF8MB4)
	g = binary.LittleEndian.AppendUint16(g, mysql.ServerStatusAutocommit)
	g = binary.LittleEndian.AppendUint16(g, uint16(inprocCaps>>16))
	g = append(g, 21)
	g = append(g, make([]byte, 10)...)
	g = append(g, "ijklmnopqrst"...)
	g = append(g, 0)
	g = append(g, mysql.MysqlNativePassword...)
	g = append(g, 0)
	c.seq = 0
	if err := c.write(endPacket(g, at)); err != nil {
		return err
	}
	if _, err := c.read(); err != nil {
		return err
	}
	return c.ok()
}

// read returns the next packet's payload (below 16 MiB), valid until the
// next read.
func (c *inprocConn) read() ([]byte, error) {
	h := c.hdr[:]
	if _, err := io.ReadFull(c.r, h); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	c.seq = h[3] + 1
	if cap(c.in) < n {
		c.in = make([]byte, n)
	}
	c.in = c.in[:n]
	_, err := io.ReadFull(c.r, c.in)
	return c.in, err
}

// write sends the packets of b: each starts with a 4-byte header whose
// length is set; the sequence ids are numbered here.
func (c *inprocConn) write(b []byte) error {
	for i := 0; i < len(b); {
		n := int(b[i]) | int(b[i+1])<<8 | int(b[i+2])<<16
		b[i+3] = c.seq
		c.seq++
		i += 4 + n
	}
	c.out = b[:0]
	_, err := c.c.Write(b)
	return err
}

// ipPacket appends to b a packet of payload p.
func ipPacket(b []byte, p ...byte) []byte {
	b = append(b, byte(len(p)), byte(len(p)>>8), byte(len(p)>>16), 0)
	return append(b, p...)
}

// beginPacket appends a header to b and returns where it is; endPacket
// sets its length.
func beginPacket(b []byte) ([]byte, int) { return append(b, 0, 0, 0, 0), len(b) }

func endPacket(b []byte, at int) []byte {
	n := len(b) - at - 4
	b[at], b[at+1], b[at+2] = byte(n), byte(n>>8), byte(n>>16)
	return b
}

func (c *inprocConn) ok() error {
	return c.write(ipPacket(c.out[:0], mysql.OKPacket, 0, 0, byte(mysql.ServerStatusAutocommit), 0, 0, 0))
}

func (c *inprocConn) fail(code uint16, msg string) error {
	b, at := beginPacket(c.out[:0])
	b = append(b, mysql.ErrPacket, byte(code), byte(code>>8), '#')
	b = append(b, "HY000"...)
	b = append(b, msg...)
	return c.write(endPacket(b, at))
}

// eof appends an EOF packet.
func eof(b []byte) []byte {
	return ipPacket(b, mysql.EOFPacket, 0, 0, byte(mysql.ServerStatusAutocommit), 0)
}

// columnDef appends the column definition of name: of the actual table
// sbtest1 of database db, a CHAR(120) utf8mb4, as MariaDB reports c;
// without db, a VARCHAR(64) of no table.
func columnDef(b []byte, db, name string) []byte {
	b, at := beginPacket(b)
	b = appendLenEncText(b, "def")
	table := db != ""
	tb := ""
	if table {
		tb = "sbtest1"
	}
	b = appendLenEncText(b, db)
	b = appendLenEncText(b, tb)
	b = appendLenEncText(b, tb)
	b = appendLenEncText(b, name)
	b = appendLenEncText(b, name)
	b = append(b, 0x0c)
	b = binary.LittleEndian.AppendUint16(b, collationUTF8MB4)
	typ, length := byte(0xfd), uint32(256) // VAR_STRING
	if table {
		typ, length = 0xfe, 480 // STRING
	}
	b = binary.LittleEndian.AppendUint32(b, length)
	b = append(b, typ)
	b = binary.LittleEndian.AppendUint16(b, 0) // flags
	b = append(b, 0, 0, 0)                     // decimals, filler
	return endPacket(b, at)
}

// pointSelect reports whether q is the point select of sbtest1 (as the
// proxy sends it on to an actual table, in any spelling).
func pointSelect(q []byte) bool {
	return len(q) > 7 && (q[0] == 's' || q[0] == 'S') && bytes.Contains(q, []byte("sbtest1")) && bytes.Contains(q, []byte(" c "))
}

// query answers a COM_QUERY.
func (b *inprocBackend) query(c *inprocConn, q []byte) error {
	if pointSelect(q) {
		if n := len(q); n > 3 && q[n-2] == '1' && q[n-1] == '3' && (q[n-3] < '0' || q[n-3] > '9') {
			return c.fail(1317, "Query execution was interrupted") // id 13 fails
		}
		out := ipPacket(c.out[:0], 1)
		out = columnDef(out, b.db, "c")
		out = eof(out)
		out, at := beginPacket(out)
		out = appendLenEncText(out, inprocRow)
		out = endPacket(out, at)
		return c.write(eof(out))
	}
	text := string(q)
	b.record(text)
	if strings.HasPrefix(text, "SHOW CREATE TABLE") && strings.Contains(text, "sbtest1") {
		out := ipPacket(c.out[:0], 2)
		out = columnDef(out, "", "Table")
		out = columnDef(out, "", "Create Table")
		out = eof(out)
		out, at := beginPacket(out)
		out = appendLenEncText(out, "sbtest1")
		out = appendLenEncText(out, sbDDL)
		return c.write(eof(endPacket(out, at)))
	}
	word := strings.ToUpper(strings.Fields(text + " x")[0])
	switch word {
	case "SELECT", "SHOW", "(SELECT", "WITH", "DESCRIBE", "DESC":
		// No rows, one column (SHOW WARNINGS: its three).
		names := []string{"x"}
		if strings.EqualFold(strings.TrimSpace(text), "SHOW WARNINGS") {
			names = []string{"Level", "Code", "Message"}
		}
		out := ipPacket(c.out[:0], byte(len(names)))
		for _, n := range names {
			out = columnDef(out, "", n)
		}
		return c.write(eof(eof(out)))
	}
	return c.ok()
}

// prepare answers a COM_STMT_PREPARE: one parameter per '?', the column c
// for the point select and none for anything else.
func (b *inprocBackend) prepare(c *inprocConn, q []byte) error {
	b.record("PREPARE " + string(q))
	params := bytes.Count(q, []byte("?"))
	cols := 0
	if pointSelect(q) {
		cols = 1
	}
	c.next++
	c.stmts[c.next] = cols > 0
	out, at := beginPacket(c.out[:0])
	out = append(out, mysql.OKPacket)
	out = binary.LittleEndian.AppendUint32(out, c.next)
	out = binary.LittleEndian.AppendUint16(out, uint16(cols))
	out = binary.LittleEndian.AppendUint16(out, uint16(params))
	out = append(out, 0, 0, 0)
	out = endPacket(out, at)
	if params > 0 {
		for range params {
			out = columnDef(out, "", "?")
		}
		out = eof(out)
	}
	if cols > 0 {
		out = columnDef(out, b.db, "c")
		out = eof(out)
	}
	return c.write(out)
}

// execute answers a COM_STMT_EXECUTE of a prepared point select with the
// canned row in the binary protocol; of another statement, with an OK.
func (b *inprocBackend) execute(c *inprocConn, p []byte) error {
	if len(p) < 4 {
		return c.fail(1210, "malformed execute")
	}
	id := binary.LittleEndian.Uint32(p)
	point, ok := c.stmts[id]
	if !ok {
		return c.fail(1243, "unknown prepared statement handler")
	}
	if !point {
		return c.ok()
	}
	out := ipPacket(c.out[:0], 1)
	out = columnDef(out, b.db, "c")
	out = eof(out)
	out, at := beginPacket(out)
	out = append(out, 0, 0) // row header, NULL bitmap (offset 2)
	out = appendLenEncText(out, inprocRow)
	out = endPacket(out, at)
	return c.write(eof(out))
}

// inprocYAML is sysbench's sbtest1 sharded by id MOD 2 over two in-process
// data sources at addrs.
func inprocYAML(addrs [2]string) string {
	var y strings.Builder
	y.WriteString("databaseName: sbtest\ndataSources:\n")
	for i, a := range addrs {
		y.WriteString("  ds_" + strconv.Itoa(i) + ":\n    url: jdbc:mysql://" + a + "/ds_" + strconv.Itoa(i) + "\n    username: u\n    password: p\n    maxPoolSize: 8\n")
	}
	y.WriteString(sbRulesYAML)
	return y.String()
}

// startInprocProxy starts a proxy (with the fast path) over two in-process
// data sources.
func startInprocProxy(tb testing.TB) (*Server, [2]*inprocBackend) {
	tb.Helper()
	be := [2]*inprocBackend{startInprocBackend(tb, "ds_0"), startInprocBackend(tb, "ds_1")}
	cfg, err := ParseConfig("inproc.yaml", []byte(inprocYAML([2]string{be[0].l.Addr().String(), be[1].l.Addr().String()})))
	require.NoError(tb, err)
	tables, err := schema.ParseDDL("sb.sql", []byte(sbDDL))
	require.NoError(tb, err)
	require.NoError(tb, cfg.AttachDDL(tables))
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(tb, err)
	require.NoError(tb, srv.Start())
	tb.Cleanup(func() { require.NoError(tb, srv.Close()) })
	require.NotNil(tb, srv.backends, "the fast path is on")
	return srv, be
}

// benchClient is a client of raw packets on one connection, its buffers
// reused: it allocates nothing per statement.
type benchClient struct {
	*rawClient
	out, in []byte
	hdr     [4]byte
}

// dialBench connects to srv as sysbench's user, asking for the
// capability flags caps too.
func dialBench(tb testing.TB, srv *Server, caps uint32) *benchClient {
	tb.Helper()
	c, err := rawHandshakeCaps(srv.Addr(), "sb", "sb", "sbtest", mysql.MysqlNativePassword, caps)
	require.NoError(tb, err)
	tb.Cleanup(func() { c.conn.Close() })
	require.NoError(tb, c.conn.SetDeadline(time.Time{}))
	return &benchClient{rawClient: c}
}

// send writes the command payload p (after a 4-byte header space).
func (c *benchClient) send(p []byte) error {
	n := len(p) - 4
	p[0], p[1], p[2], p[3] = byte(n), byte(n>>8), byte(n>>16), 0
	_, err := c.conn.Write(p)
	return err
}

// next reads the next packet's payload into c.in.
func (c *benchClient) next() ([]byte, error) {
	h := c.hdr[:]
	if _, err := io.ReadFull(c.r, h); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if cap(c.in) < n {
		c.in = make([]byte, n)
	}
	c.in = c.in[:n]
	if _, err := io.ReadFull(c.r, c.in); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("benchClient: empty packet")
	}
	return c.in, nil
}

// result reads a result set (without CLIENT_DEPRECATE_EOF) and returns
// its last row's first value's length and the number of rows; an ERR
// packet is an error.
func (c *benchClient) result() (rows, first int, err error) {
	p, err := c.next()
	if err != nil {
		return 0, 0, err
	}
	if p[0] == mysql.ErrPacket {
		return 0, 0, packetError(append([]byte(nil), p...))
	}
	if p[0] == mysql.OKPacket {
		return 0, 0, nil
	}
	cols := int(p[0])
	for range cols + 1 { // definitions, EOF
		if _, err := c.next(); err != nil {
			return 0, 0, err
		}
	}
	for {
		p, err := c.next()
		if err != nil {
			return rows, first, err
		}
		switch {
		case p[0] == mysql.EOFPacket && len(p) < 9:
			return rows, first, nil
		case p[0] == mysql.ErrPacket:
			return rows, first, packetError(append([]byte(nil), p...))
		}
		rows++
		first = len(p)
	}
}

// query runs the point select of id in the text protocol.
func (c *benchClient) query(id int) (rows, n int, err error) {
	c.out = append(c.out[:0], 0, 0, 0, 0, mysql.ComQuery)
	c.out = append(c.out, "SELECT c FROM sbtest1 WHERE id="...)
	c.out = strconv.AppendInt(c.out, int64(id), 10)
	if err := c.send(c.out); err != nil {
		return 0, 0, err
	}
	return c.result()
}

// prepareStmt prepares q and returns its statement id, skipping the
// parameter and column definitions.
func (c *benchClient) prepareStmt(q string) (uint32, error) {
	c.out = append(append(c.out[:0], 0, 0, 0, 0, mysql.ComPrepare), q...)
	if err := c.send(c.out); err != nil {
		return 0, err
	}
	p, err := c.next()
	if err != nil {
		return 0, err
	}
	if p[0] != mysql.OKPacket || len(p) < 9 {
		return 0, packetError(append([]byte(nil), p...))
	}
	id := binary.LittleEndian.Uint32(p[1:5])
	cols, params := int(binary.LittleEndian.Uint16(p[5:7])), int(binary.LittleEndian.Uint16(p[7:9]))
	for _, n := range []int{params, cols} {
		for i := 0; n > 0 && i <= n; i++ { // n definitions and an EOF
			if _, err := c.next(); err != nil {
				return 0, err
			}
		}
	}
	return id, nil
}

// execute runs statement stmt with one BIGINT parameter id in the binary
// protocol (types bound every time, as sysbench does).
func (c *benchClient) execute(stmt uint32, id int64) (rows, n int, err error) {
	p := append(c.out[:0], 0, 0, 0, 0, mysql.ComStmtExecute)
	p = binary.LittleEndian.AppendUint32(p, stmt)
	p = append(p, 0)
	p = binary.LittleEndian.AppendUint32(p, 1)
	p = append(p, 0, 1, rawTypeLongLong, 0) // NULL bitmap, types bound, BIGINT
	p = binary.LittleEndian.AppendUint64(p, uint64(id))
	c.out = p
	if err := c.send(p); err != nil {
		return 0, 0, err
	}
	return c.result()
}
