package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
)

// rawPair returns the two ends of a loopback TCP connection, the first
// read and written by rawSock.
func rawPair(t *testing.T) (*rawSock, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	peer := <-accepted
	require.NotNil(t, peer)
	s, ok := rawTCP(c).(*rawSock)
	require.True(t, ok, "a *net.TCPConn is wrapped")
	t.Cleanup(func() { s.Close(); peer.Close() })
	return s, peer
}

// TestRawSock checks that rawSock keeps net.Conn's contract: all of a
// write larger than the socket buffers arrives (the EAGAIN path waits on
// the netpoller), reads return what was sent, the end of the stream is
// io.EOF, a read deadline fails with os.ErrDeadlineExceeded and a closed
// connection with net.ErrClosed.
func TestRawSock(t *testing.T) {
	s, peer := rawPair(t)

	// 8 MiB is larger than loopback's socket buffers: Write must wait.
	big := make([]byte, 8<<20)
	_, _ = rand.Read(big)
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(big))))
		got <- b
	}()
	n, err := s.Write(big)
	require.NoError(t, err)
	require.Equal(t, len(big), n)
	require.True(t, bytes.Equal(big, <-got))

	// Reads: what the peer sent, in order.
	go func() { _, _ = peer.Write(big[:1<<20]) }()
	buf := make([]byte, 1<<20)
	_, err = io.ReadFull(s, buf)
	require.NoError(t, err)
	require.True(t, bytes.Equal(big[:1<<20], buf))
	n, err = s.Read(nil)
	require.NoError(t, err)
	require.Zero(t, n)

	// A deadline while waiting.
	require.NoError(t, s.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	_, err = s.Read(buf)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout())
	require.NoError(t, s.SetReadDeadline(time.Time{}))

	// The end of the stream.
	require.NoError(t, peer.Close())
	_, err = s.Read(buf)
	require.Equal(t, io.EOF, err)

	// Closed.
	require.NoError(t, s.Close())
	_, err = s.Read(buf)
	require.ErrorIs(t, err, net.ErrClosed)
	_, err = s.Write([]byte("x"))
	require.ErrorIs(t, err, net.ErrClosed)
}

// TestRawSockPeerReset checks that writing to a connection the peer reset
// fails with the system's error, not a hang.
func TestRawSockPeerReset(t *testing.T) {
	s, peer := rawPair(t)
	require.NoError(t, peer.(*net.TCPConn).SetLinger(0))
	require.NoError(t, peer.Close())
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = s.Write(make([]byte, 64<<10))
		time.Sleep(time.Millisecond)
	}
	require.Error(t, err)
	var oe *net.OpError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "write", oe.Op)
}

// TestRawVitess checks that a connection vitess's mysql.Connect opened
// reads and writes through rawSock after rawVitess, and still works: a
// vitess upgrade that renames mysql.Conn's socket fields fails here rather
// than silently giving the back-end pool vitess's own socket.
func TestRawVitess(t *testing.T) {
	require.True(t, vitessSockOK, "mysql.Conn has conn net.Conn and bufferedReader *bufio.Reader")
	p := fpParams(nil)
	mc, err := mysql.Connect(context.Background(), &p)
	require.NoError(t, err)
	defer mc.Close()
	require.True(t, rawVitess(mc))
	require.IsType(t, &rawSock{}, mc.GetRawConn())
	for i := 0; i < 3; i++ {
		res, err := mc.ExecuteFetch("SELECT 1 + "+strconv.Itoa(i)+", REPEAT('x', 100000)", 10, false)
		require.NoError(t, err)
		require.Equal(t, strconv.Itoa(1+i), res.Rows[0][0].ToString())
		require.Len(t, res.Rows[0][1].ToString(), 100000)
	}
	require.True(t, rawVitess(mc), "already raw")
	require.IsType(t, &net.TCPConn{}, mc.GetRawConn().(*rawSock).TCPConn)
}

// TestRawSockWriteTimeout: with a write timeout, a Write whose peer stops
// reading fails with the deadline's error (MariaDB's net_write_timeout)
// instead of waiting for ever, and a Write that waited while the peer did
// read leaves no deadline behind for the next one.
func TestRawSockWriteTimeout(t *testing.T) {
	s, peer := rawPair(t)
	// Small socket buffers: the writer waits, and is woken, after every
	// few KiB the peer reads.
	require.NoError(t, s.SetWriteBuffer(16<<10))
	require.NoError(t, peer.(*net.TCPConn).SetReadBuffer(16<<10))
	setWriteTimeout(s, 500*time.Millisecond)

	// The peer reads slowly, but reads: the Write succeeds, though it
	// takes longer than the timeout (each wait is bounded, not the
	// Write: 256 reads 5 ms apart).
	big := make([]byte, 4<<20)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 16<<10)
		for n := 0; n < len(big); {
			time.Sleep(5 * time.Millisecond)
			k, err := peer.Read(buf)
			if err != nil {
				return
			}
			n += k
		}
	}()
	n, err := s.Write(big)
	require.NoError(t, err)
	require.Equal(t, len(big), n)
	<-done
	time.Sleep(600 * time.Millisecond) // past the deadline a wait set
	_, err = s.Write([]byte("after"))
	require.NoError(t, err, "no deadline is left behind")

	// The peer stops reading: the Write fails with the deadline.
	n, err = s.Write(big)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.Less(t, n, len(big))
}
