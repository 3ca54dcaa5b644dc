package testdb

import (
	"context"
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SilentListener returns the address of a TCP listener on 127.0.0.1 that
// accepts connections and never reads or writes on them, as a paused
// (SIGSTOP) MySQL server looks to a client: the kernel completes the TCP
// handshake, then nothing comes. It and its connections close at the
// test's end.
func SilentListener(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

// FullListener returns the address of a listening socket on 127.0.0.1
// that is never accepted from, with a backlog of 0 filled by the test: a
// new connection to it is never established (the kernel drops its SYN),
// as with a blackholed port or a host that drops the packets. It closes
// at the test's end.
func FullListener(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatalf("socket: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("bind: %v", err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatalf("listen: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("getsockname: %v", err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for i := 0; ; i++ {
		if i >= 16 {
			t.Fatalf("the backlog of %s never filled", addr)
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			break
		}
		t.Cleanup(func() { _ = c.Close() })
	}
	return addr
}

// TimedError runs fn with a context of 30 s, fails the test unless fn's
// error reads want (what names the case), and returns how long fn took:
// the caller bounds it, e.g. by a data source's timeout.
func TimedError(t testing.TB, what, want string, fn func(ctx context.Context) error) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	err := fn(ctx)
	took := time.Since(start)
	if err == nil || err.Error() != want {
		t.Fatalf("%s: error %v, want %q (after %v)", what, err, want, took)
	}
	t.Logf("%s: %v", what, took)
	return took
}
