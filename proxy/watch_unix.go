//go:build linux || darwin || freebsd || netbsd || openbsd

package proxy

import (
	"errors"
	"net"
	"syscall"
)

// canPeek reports whether peekClosed can watch conn (a TCP or Unix socket).
func canPeek(conn net.Conn) bool {
	_, ok := conn.(syscall.Conn)
	return ok
}

// peekClosed blocks until conn's peer closes it (true: end of file or a
// connection error) or data arrives or conn's read deadline passes
// (false). It consumes no data: recvfrom with MSG_PEEK.
func peekClosed(conn net.Conn) bool {
	rc := rawConn(conn)
	if rc == nil {
		return false
	}
	var buf [1]byte
	closed := false
	err := rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR):
			return false // wait until readable
		case err != nil || n == 0:
			closed = true
		}
		return true
	})
	return closed && err == nil
}

// peekClosedNow reports whether conn's peer has closed it, without
// waiting and without consuming data (recvfrom with MSG_PEEK|MSG_DONTWAIT
// on the descriptor). It does not take the descriptor's read lock, so it
// may run while another goroutine blocks reading conn.
func peekClosedNow(conn net.Conn) bool {
	rc := rawConn(conn)
	if rc == nil {
		return false
	}
	closed := false
	_ = rc.Control(func(fd uintptr) {
		var buf [1]byte
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = err == nil && n == 0 || err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR)
	})
	return closed
}

// rawConn returns conn's descriptor access, or nil.
func rawConn(conn net.Conn) syscall.RawConn {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}
