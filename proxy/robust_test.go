package proxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
)

// TestProxyManyConnections opens 500 client connections at once, runs a
// statement on each, and checks that the back-end pools stay within
// maxPoolSize (8 per data source) and that, once the clients are gone,
// the server holds no connection and no goroutine is left.
func TestProxyManyConnections(t *testing.T) {
	e := newPxEnv(t)
	seed := e.client(t, "root", "secret", nil)
	_, err := seed.Exec("INSERT INTO px_item (id, name) VALUES (1, 'a'), (2, 'b')")
	require.NoError(t, err)
	require.NoError(t, seed.Close())
	require.Eventually(t, func() bool {
		e.srv.mu.Lock()
		defer e.srv.mu.Unlock()
		return len(e.srv.conns) == 0
	}, 5*time.Second, 10*time.Millisecond)
	// The goroutines of the test's own direct connections and of the
	// server's pools and listener, before any client.
	base := runtime.NumGoroutine()
	const n = 500
	db := e.client(t, "root", "secret", nil)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	ctx := context.Background()
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			defer done.Done()
			conn, err := db.Conn(ctx)
			ready.Done()
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			<-start
			var cnt int
			if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM px_item").Scan(&cnt); err != nil {
				errs <- err
				return
			}
			if cnt != 2 {
				errs <- io.ErrUnexpectedEOF
			}
		}()
	}
	ready.Wait()
	e.srv.mu.Lock()
	open := len(e.srv.conns)
	e.srv.mu.Unlock()
	require.Equal(t, n, open)
	close(start)
	done.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for _, name := range e.srv.in.names {
		pool, ok := e.srv.db.Pool(name)
		require.True(t, ok)
		require.LessOrEqual(t, pool.Stats().OpenConnections, 8, name)
	}
	require.NoError(t, db.Close())
	require.Eventually(t, func() bool {
		e.srv.mu.Lock()
		defer e.srv.mu.Unlock()
		return len(e.srv.conns) == 0
	}, 10*time.Second, 10*time.Millisecond)
	// Idle back-end connections may stay in the pools; once the server is
	// closed, nothing of it may be left.
	require.NoError(t, e.srv.Close())
	require.NoError(t, e.ref.Close())
	ok := assertEventually(func() bool { return runtime.NumGoroutine() <= base }, 10*time.Second)
	if !ok {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("goroutines: %d, before: %d\n%s", runtime.NumGoroutine(), base, buf)
	}
}

// rawLogin connects to addr and logs in as user/pass with
// mysql_native_password by hand, returning the connection after the OK.
func rawLogin(t *testing.T, addr, user, pass string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	r := bufio.NewReader(c)
	hs := readPacket(t, r)
	// v10 handshake: version, server version\0, id(4), salt1(8), 0,
	// caps(2), charset, status(2), caps(2), auth len, 10 reserved, salt2.
	i := 1 + strings.IndexByte(string(hs[1:]), 0) + 1
	salt := append([]byte(nil), hs[i+4:i+12]...)
	j := i + 12 + 1 + 2 + 1 + 2 + 2 + 1 + 10
	salt = append(salt, hs[j:j+12]...)
	caps := uint32(mysql.CapabilityClientLongPassword | mysql.CapabilityClientProtocol41 |
		mysql.CapabilityClientSecureConnection | mysql.CapabilityClientPluginAuth)
	var p []byte
	p = binary.LittleEndian.AppendUint32(p, caps)
	p = binary.LittleEndian.AppendUint32(p, 1<<24)
	p = append(p, 45)
	p = append(p, make([]byte, 23)...)
	p = append(p, user...)
	p = append(p, 0)
	scr := mysql.ScrambleMysqlNativePassword(salt, []byte(pass))
	p = append(p, byte(len(scr)))
	p = append(p, scr...)
	p = append(p, "mysql_native_password"...)
	p = append(p, 0)
	writePacket(t, c, 1, p)
	ok := readPacket(t, r)
	require.Equal(t, byte(0), ok[0], "login answer %q", ok)
	return c, r
}

func readPacket(t *testing.T, r *bufio.Reader) []byte {
	t.Helper()
	var h [4]byte
	_, err := io.ReadFull(r, h[:])
	require.NoError(t, err)
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	require.NoError(t, err)
	return b
}

func writePacket(t *testing.T, c net.Conn, seq byte, p []byte) {
	t.Helper()
	h := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), seq}
	_, err := c.Write(append(h, p...))
	require.NoError(t, err)
}

// TestProxyMalformedPackets sends broken packets on fresh connections:
// each one gets an error or is closed, and a client connected meanwhile
// keeps working.
func TestProxyMalformedPackets(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	keep, err := e.client(t, "root", "secret", nil).Conn(ctx)
	require.NoError(t, err)
	defer keep.Close()
	alive := func() {
		var one int
		require.NoError(t, keep.QueryRowContext(ctx, "SELECT 1").Scan(&one))
	}
	// Garbage instead of a handshake response.
	c, err := net.Dial("tcp", e.srv.Addr())
	require.NoError(t, err)
	_ = readPacket(t, bufio.NewReader(c))
	_, err = c.Write([]byte{5, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff})
	require.NoError(t, err)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.ReadAll(c) // an error packet, then EOF
	c.Close()
	alive()
	for _, p := range [][]byte{
		{0x17, 1, 0, 0},                    // truncated COM_STMT_EXECUTE
		{0x17, 99, 0, 0, 0, 0, 1, 0, 0, 0}, // unknown statement id
		{0x18, 1},                          // truncated COM_STMT_SEND_LONG_DATA
		{0x16},                             // COM_STMT_PREPARE of nothing
		{0x03, 0xff, 0xfe, 0x00},           // COM_QUERY of invalid UTF-8
		{0x99, 1, 2, 3},                    // unknown command
		{0x02},                             // COM_INIT_DB of nothing
	} {
		c, r := rawLogin(t, e.srv.Addr(), "root", "secret")
		writePacket(t, c, 0, p)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var h [4]byte
		if _, err := io.ReadFull(r, h[:]); err == nil {
			n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
			b := make([]byte, n)
			_, _ = io.ReadFull(r, b)
		}
		c.Close()
		alive()
	}
	require.Eventually(t, func() bool {
		e.srv.mu.Lock()
		defer e.srv.mu.Unlock()
		return len(e.srv.conns) == 1
	}, 5*time.Second, 10*time.Millisecond)
}

// FuzzProxyStatement sends SQL text through the statement path of a
// running proxy: any text gives a result or a MySQL error, never a panic
// or a dropped connection.
func FuzzProxyStatement(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM px_item", "SELECT id FROM px_item WHERE id = 1", "INSERT INTO px_item (id) VALUES (9)",
		"SELECT COUNT(*), SUM(price) FROM px_item GROUP BY name ORDER BY 1 LIMIT 1, 2", "UPDATE px_item SET name = 'x' WHERE id IN (1, 2)",
		"DELETE FROM px_item WHERE id > 3", "PREVIEW SELECT * FROM px_item WHERE id = 2", "PREVIEW", "SHOW", "SHOW CREATE TABLE",
		"SET", "SET @@", "SET autocommit = (SELECT 1)", "USE", "BEGIN", "COMMIT", "ROLLBACK", "SELECT LAST_INSERT_ID(", "DESC",
		"ALTER TABLE px_nothing ADD x INT", "SHOW SHARDING TABLE RULE", "SELECT ?", "select * from px_item where id = ?",
		"SELECT id FROM px_item UNION SELECT id FROM px_item", "SELECT (SELECT 1 FROM px_item)", ";;;", "\x00", "'", "`", "/*",
		"SELECT * FROM px_item WHERE id = 1 FOR UPDATE", "INSERT INTO px_item SELECT * FROM px_item", "REPLACE INTO px_item (id) VALUES (1)",
	} {
		f.Add(s)
	}
	e := newPxEnv(f)
	db := e.client(f, "root", "secret", nil)
	db.SetMaxOpenConns(1)
	f.Fuzz(func(t *testing.T, q string) {
		if strings.Contains(strings.ToLower(q), "drop") || strings.Contains(strings.ToLower(q), "truncate") {
			return
		}
		conn, err := db.Conn(context.Background())
		require.NoError(t, err)
		defer conn.Close()
		rows, err := conn.QueryContext(context.Background(), q)
		if err == nil {
			for rows.Next() {
			}
			_ = rows.Close()
		}
		if err != nil {
			require.NotContains(t, err.Error(), "invalid connection", q)
			require.NotContains(t, err.Error(), "bad connection", q)
		}
		var one int
		require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT 1").Scan(&one), "after %q", q)
	})
}

// assertEventually polls cond every 10ms until it holds or d passes.
func assertEventually(cond func() bool, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestProxyHandshakeTimeout: a client that connects and sends a partial
// handshake response is closed after connectTimeout (MySQL's
// connect_timeout) instead of holding its connection for ever; a client
// that finished the handshake keeps its session however long it idles.
func TestProxyHandshakeTimeout(t *testing.T) {
	old := connectTimeout
	connectTimeout = 300 * time.Millisecond
	t.Cleanup(func() { connectTimeout = old })
	e := newPxEnv(t)
	db := e.client(t, "root", "secret", nil)
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()

	raw, err := net.Dial("tcp", e.srv.Addr())
	require.NoError(t, err)
	defer raw.Close()
	greeting := make([]byte, 4096)
	_, err = raw.Read(greeting)
	require.NoError(t, err)
	_, err = raw.Write([]byte{0x05, 0, 0, 1, 0x85, 0xa6}) // 2 of 5 bytes
	require.NoError(t, err)
	require.NoError(t, raw.SetReadDeadline(time.Now().Add(time.Minute))) // a bound for a broken proxy only
	_, err = io.ReadAll(raw)
	require.NoError(t, err, "the proxy closed the connection")

	time.Sleep(2 * connectTimeout) // longer than a handshake may take
	var one int
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT 1").Scan(&one))
	require.Equal(t, 1, one)
}
