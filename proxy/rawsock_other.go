//go:build !linux

package proxy

import "net"

// rawTCP returns conn: only Linux reads and writes sockets with raw system
// calls (rawsock_linux.go).
func rawTCP(conn net.Conn) net.Conn { return conn }
