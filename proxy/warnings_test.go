package proxy

import (
	"net"
	"testing"
)

// replayConn is a net.Conn whose reads return resp again and again, one
// response per Read, and whose writes are dropped.
type replayConn struct {
	net.Conn
	resp []byte
}

func (c *replayConn) Read(b []byte) (int, error)  { return copy(b, c.resp), nil }
func (c *replayConn) Write(b []byte) (int, error) { return len(b), nil }

// pointSelectResponse is a point select's text result as MariaDB sends it
// with CLIENT_DEPRECATE_EOF: one column, one row, the terminating OK.
func pointSelectResponse() []byte {
	var out []byte
	add := func(seq byte, p []byte) {
		out = append(out, byte(len(p)), byte(len(p)>>8), byte(len(p)>>16), seq)
		out = append(out, p...)
	}
	add(1, []byte{1})
	add(2, []byte{3, 'd', 'e', 'f', 4, 'd', 's', '_', '0', 6, 's', 'b', 't', 'e', 's', 't', 6, 's', 'b', 't', 'e', 's', 't', 1, 'c', 1, 'c', 0x0c, 45, 0, 120, 0, 0, 0, 0xfe, 0, 0, 0, 0, 0})
	add(3, append([]byte{60}, make([]byte, 60)...))
	add(4, []byte{0xfe, 0, 0, 2, 0, 0, 0})
	return out
}

// BenchmarkBackConnRead: what following a session's statement's response
// costs a back-end read (a point select's response, one read each), side
// by side with an ownerless one, which backConn passes through.
func BenchmarkBackConnRead(b *testing.B) {
	resp := pointSelectResponse()
	query := append([]byte{0, 0, 0, 0, comQuery}, "SELECT c FROM sbtest WHERE id = 1"...)
	buf := make([]byte, 4096)
	for _, tc := range []struct {
		name  string
		owner string
	}{{"ownerless", ""}, {"owned", "/* shardgen-proxy c1 */ "}} {
		b.Run(tc.name, func(b *testing.B) {
			c := &backConn{Conn: &replayConn{resp: resp}, store: &warnStore{}, handshook: true, deprecateEOF: true}
			b.ReportAllocs()
			for b.Loop() {
				c.own(tc.owner)
				_, _ = c.Write(query)
				if _, err := c.Read(buf); err != nil {
					b.Fatal(err)
				}
				if c.tag != "" {
					b.Fatal("the response did not end")
				}
			}
		})
	}
}
