package proxy

import (
	"bufio"
	"io"
	"net"
	"os"
	"reflect"
	"syscall"
	"time"
	"unsafe"

	"vitess.io/vitess/go/mysql"
)

// rawSock is a TCP connection whose Read and Write make the read(2) and
// write(2) system calls directly (syscall.RawSyscall inside
// syscall.RawConn's Read / Write), without the Go scheduler's bookkeeping
// of a blocking system call (entersyscall / exitsyscall).
//
// Why: the proxy's sockets are non-blocking, so these calls never block;
// the bookkeeping only hands the scheduler's P to another thread when a
// call lasts, and wakes the runtime's monitor thread (sysmon) out of its
// deep sleep on the first system call after the process was idle. Under a
// request-response load the proxy is idle between every two statements,
// so each statement paid a futex wake-up and a context switch of sysmon,
// about a seventh of the proxy's CPU per point select (perf, make bench's
// oltp_point_select). Waiting stays the netpoller's: a call that finds
// the socket not ready (EAGAIN) returns false to RawConn, which parks the
// goroutine until the socket is ready or its deadline passes, exactly as
// net.Conn's own Read and Write do.
//
// One goroutine reads and one writes at a time (net.Conn's contract, which
// RawConn's own locks also enforce); the read and write state are separate
// fields.
type rawSock struct {
	*net.TCPConn
	rc syscall.RawConn

	rb     []byte
	rn     int
	rerr   syscall.Errno
	readFn func(fd uintptr) bool

	wb      []byte
	wn      int
	werr    syscall.Errno
	writeFn func(fd uintptr) bool

	// writeTimeout, when set, bounds each wait of Write for the peer to
	// read (MariaDB's net_write_timeout); armed notes that a wait of the
	// current Write set the deadline, when wn was armedAt.
	writeTimeout time.Duration
	armed        bool
	armedAt      int
}

// rawTCP returns conn read and written by rawSock when it is a
// *net.TCPConn, and conn itself otherwise.
func rawTCP(conn net.Conn) net.Conn {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		return conn
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return conn
	}
	s := &rawSock{TCPConn: tc, rc: rc}
	s.readFn, s.writeFn = s.read, s.write
	return s
}

// read is the RawConn callback of Read: false when the socket has nothing
// yet (wait), true with rn / rerr set otherwise.
func (s *rawSock) read(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&s.rb[0])), uintptr(len(s.rb)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		s.rn, s.rerr = int(n), e
		if e != 0 {
			s.rn = 0
		}
		return true
	}
}

// write is the RawConn callback of Write: false while part of wb is left
// and the socket's buffer is full (wait), true when all of it is written
// or a call failed (werr).
func (s *rawSock) write(fd uintptr) bool {
	for s.wn < len(s.wb) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&s.wb[s.wn])), uintptr(len(s.wb)-s.wn))
		switch e {
		case 0:
			s.wn += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			if s.writeTimeout > 0 && (!s.armed || s.armedAt != s.wn) {
				// The peer's buffer is full: from now on it has
				// writeTimeout to read, again after each part it
				// read (the deadline takes no lock this callback
				// holds).
				s.armed, s.armedAt = true, s.wn
				_ = s.TCPConn.SetWriteDeadline(time.Now().Add(s.writeTimeout))
			}
			return false
		default:
			s.werr = e
			return true
		}
	}
	return true
}

// Read reads as net.Conn's Read: io.EOF at the end of the stream, the
// deadline's error when it passes while waiting.
func (s *rawSock) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	s.rb, s.rn, s.rerr = b, 0, 0
	err := s.rc.Read(s.readFn)
	s.rb = nil
	switch {
	case err != nil:
		return 0, s.opError("read", err)
	case s.rerr != 0:
		return 0, s.opError("read", os.NewSyscallError("read", s.rerr))
	case s.rn == 0:
		return 0, io.EOF
	}
	return s.rn, nil
}

// Write writes all of b, as net.Conn's Write, or fails with how much was
// written: with the deadline's error when writeTimeout is set and the
// peer read nothing for that long while Write waited.
func (s *rawSock) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	s.wb, s.wn, s.werr = b, 0, 0
	err := s.rc.Write(s.writeFn)
	n := s.wn
	s.wb = nil
	if s.armed {
		s.armed = false
		_ = s.TCPConn.SetWriteDeadline(time.Time{})
	}
	switch {
	case err != nil:
		return n, s.opError("write", err)
	case s.werr != 0:
		return n, s.opError("write", os.NewSyscallError("write", s.werr))
	}
	return n, nil
}

// opError wraps err as net.Conn's methods do. An error RawConn returned
// (a deadline, a closed connection) is already a *net.OpError: its cause
// is kept under op's name.
func (s *rawSock) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: s.LocalAddr(), Addr: s.RemoteAddr(), Err: err}
}

// vitessConnOff and vitessReaderOff locate the unexported socket (conn
// net.Conn) and read buffer (bufferedReader *bufio.Reader) of vitess's
// mysql.Conn, which has no way to be given a dialer or a socket after its
// client handshake; vitessSock finds them by reflection. vitessSockOK is
// false when the vitess in go.mod no longer has them as such
// (TestRawVitess then fails): the pool's connections keep vitess's own
// socket.
var vitessConnOff, vitessReaderOff, vitessSockOK = vitessSock()

func vitessSock() (conn, reader uintptr, ok bool) {
	t := reflect.TypeOf((*mysql.Conn)(nil)).Elem()
	c, ok1 := t.FieldByName("conn")
	r, ok2 := t.FieldByName("bufferedReader")
	if !ok1 || !ok2 || c.Type != reflect.TypeOf((*net.Conn)(nil)).Elem() || r.Type != reflect.TypeOf((*bufio.Reader)(nil)) {
		return 0, 0, false
	}
	return c.Offset, r.Offset, true
}

// rawVitess makes mc, a client connection vitess's mysql.Connect opened
// over TCP, read and write its socket through rawSock: the back-end pool's
// connections carry every fast-path statement. It must be called before
// anything is read past the handshake (nothing is buffered then; it does
// nothing otherwise) and reports whether mc now uses rawSock.
func rawVitess(mc *mysql.Conn) bool {
	if !vitessSockOK || mc.Buffered() != 0 {
		return false
	}
	p := unsafe.Pointer(mc)
	sock := (*net.Conn)(unsafe.Add(p, vitessConnOff))
	if _, done := (*sock).(*rawSock); done {
		return true
	}
	raw := rawTCP(*sock)
	if _, isRaw := raw.(*rawSock); !isRaw {
		return false
	}
	*sock = raw
	if rd := *(**bufio.Reader)(unsafe.Add(p, vitessReaderOff)); rd != nil {
		rd.Reset(raw)
	}
	return true
}

// setWriteTimeout gives conn, a rawSock, a write timeout (see rawSock);
// other connections are left as they are.
func setWriteTimeout(conn net.Conn, d time.Duration) {
	if s, ok := conn.(*rawSock); ok {
		s.writeTimeout = d
	}
}
