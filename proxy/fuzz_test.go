package proxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
)

// fuzzSentinel is the text of the last query of every fuzz input: a packet
// that contains it tells that the proxy answered everything before it.
const fuzzSentinel = "fz-sentinel-7f3a"

// fuzzAnswerWithin bounds how long the proxy may take to answer one fuzz
// input (its statements run with max_statement_time = 1 s).
const fuzzAnswerWithin = 20 * time.Second

// FuzzSession sends a session's text and binary protocol input to a
// running proxy (px_item over ds_0 and ds_1): a COM_QUERY of query, a
// COM_STMT_PREPARE of prepare, then a COM_STMT_EXECUTE of that statement
// whose payload after the statement id is execute (flags, iteration count,
// NULL bitmap, types and values, as a client sends them, or garbage). The
// proxy must answer them all and then a last query, or close the
// connection (as it does for a malformed packet), and keep serving new
// connections: never hang, never crash. Seeds: statements and parameter
// packets of the proxy's tests.
func FuzzSession(f *testing.F) {
	e := newPxEnv(f)
	addr := e.srv.Addr()
	one := []byte{0, 1, 0, 0, 0, 0, 1, 8, 0, 5, 0, 0, 0, 0, 0, 0, 0} // LONGLONG 5
	two := []byte{0, 1, 0, 0, 0, 0, 1, 8, 0, 253, 0, 7, 0, 0, 0, 0, 0, 0, 0, 3, 'a', 'b', 'c'}
	for _, s := range []struct {
		query, prepare string
		execute        []byte
	}{
		{"SELECT id, name FROM px_item WHERE id IN (1, 2) ORDER BY id", "SELECT id, name FROM px_item WHERE id = ?", one},
		{"INSERT INTO px_item (id, name) VALUES (3, 'x')", "INSERT INTO px_item (id, name) VALUES (?, ?)", two},
		{"SET @x = 1, sql_mode = ''", "SELECT ?, @x", one},
		{"BEGIN", "UPDATE px_item SET name = ? WHERE id = 7", []byte{0, 1, 0, 0, 0, 1}},
		{"SELECT COUNT(*), MAX(price) FROM px_item", "SELECT ?" + strings.Repeat(",?", 40), nil},
		{"DO 1", "DELETE FROM px_item WHERE id = ?", []byte{0xff, 0xff, 0xff}},
		{"--", "", nil},
	} {
		f.Add(s.query, s.prepare, s.execute)
	}
	f.Fuzz(func(t *testing.T, query, prepare string, execute []byte) {
		if len(query)+len(prepare)+len(execute) > 1<<16 {
			return
		}
		c := fuzzConnect(t, addr)
		defer c.Close()
		var in bytes.Buffer
		fuzzPacket(&in, append([]byte{mysql.ComQuery}, "SET SESSION max_statement_time = 1"...))
		fuzzPacket(&in, append([]byte{mysql.ComQuery}, query...))
		fuzzPacket(&in, append([]byte{mysql.ComPrepare}, prepare...))
		fuzzPacket(&in, append([]byte{mysql.ComStmtExecute, 1, 0, 0, 0}, execute...))
		fuzzPacket(&in, append([]byte{mysql.ComQuery}, "SELECT '"+fuzzSentinel+"'"...))
		require.NoError(t, c.SetDeadline(time.Now().Add(fuzzAnswerWithin)))
		if _, err := c.Write(in.Bytes()); err != nil {
			return // the proxy closed the connection early: allowed
		}
		err := fuzzReadUntilSentinel(c)
		var ne net.Error
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "the proxy did not answer within %s", fuzzAnswerWithin)
		// Closed or answered: the proxy serves the next client.
		next := fuzzConnect(t, addr)
		defer next.Close()
		var ping bytes.Buffer
		fuzzPacket(&ping, []byte{mysql.ComPing})
		require.NoError(t, next.SetDeadline(time.Now().Add(fuzzAnswerWithin)))
		_, err = next.Write(ping.Bytes())
		require.NoError(t, err)
		p, err := fuzzReadPacket(next)
		require.NoError(t, err)
		require.Equal(t, byte(0), p[0], "COM_PING answered %x", p)
	})
}

// fuzzConnect opens a client connection to the proxy at addr as
// root/secret with database px_db (vitess's client does the handshake)
// and returns its socket, on which the test then speaks raw packets.
func fuzzConnect(t *testing.T, addr string) net.Conn {
	host, port, _ := net.SplitHostPort(addr)
	p := 0
	for _, d := range port {
		p = p*10 + int(d-'0')
	}
	ctx, cancel := context.WithTimeout(context.Background(), fuzzAnswerWithin)
	defer cancel()
	c, err := mysql.Connect(ctx, &mysql.ConnParams{Host: host, Port: p, Uname: "root", Pass: "secret", DbName: "px_db"})
	require.NoError(t, err, "connect to the proxy")
	return c.GetRawConn()
}

// fuzzPacket appends payload to b as one client command packet (sequence
// 0; payloads above 16 MiB do not occur here).
func fuzzPacket(b *bytes.Buffer, payload []byte) {
	var h [4]byte
	binary.LittleEndian.PutUint32(h[:], uint32(len(payload)))
	h[3] = 0
	b.Write(h[:])
	b.Write(payload)
}

// fuzzReadPacket reads one packet's payload.
func fuzzReadPacket(c net.Conn) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	p := make([]byte, n)
	_, err := io.ReadFull(c, p)
	return p, err
}

// fuzzReadUntilSentinel reads packets until one contains fuzzSentinel (nil)
// or the connection ends (its error).
func fuzzReadUntilSentinel(c net.Conn) error {
	for {
		p, err := fuzzReadPacket(c)
		if err != nil {
			return err
		}
		if bytes.Contains(p, []byte(fuzzSentinel)) {
			return nil
		}
	}
}
