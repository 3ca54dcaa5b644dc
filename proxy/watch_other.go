//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package proxy

import "net"

// canPeek is false where peeking at a socket is not implemented: client
// disconnects are then noticed only when the result is written.
func canPeek(net.Conn) bool { return false }

// peekClosed is never called where canPeek is false.
func peekClosed(net.Conn) bool { return false }

// peekClosedNow is false where peeking at a socket is not implemented.
func peekClosedNow(net.Conn) bool { return false }
