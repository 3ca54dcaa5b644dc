//go:build !linux

package proxy

import (
	"net"
	"time"

	"vitess.io/vitess/go/mysql"
)

// rawTCP returns conn: only Linux reads and writes sockets with raw system
// calls (rawsock_linux.go).
func rawTCP(conn net.Conn) net.Conn { return conn }

// rawVitess does nothing: see rawsock_linux.go.
func rawVitess(*mysql.Conn) bool { return false }

// setWriteTimeout does nothing: see rawsock_linux.go.
func setWriteTimeout(net.Conn, time.Duration) {}
