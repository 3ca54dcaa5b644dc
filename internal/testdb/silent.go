package testdb

import (
	"net"
	"sync"
	"testing"
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
