package proxy

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
)

// TestResetCut: a read that holds a COM_STMT_RESET after other commands
// is cut before it (the scanner follows the bytes before it only), also
// when only the start of its header was read; a read that starts with it,
// or holds none, is not cut.
func TestResetCut(t *testing.T) {
	packet := func(p []byte) []byte {
		return append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), 0}, p...)
	}
	long := packet(append(binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint32([]byte{mysql.ComStmtSendLongData}, 1), 0), "chunk"...))
	reset := packet(binary.LittleEndian.AppendUint32([]byte{mysql.ComStmtReset}, 1))
	ping := packet([]byte{mysql.ComPing})
	after := func() *packetScanner { return &packetScanner{packets: 1} } // the handshake read
	for _, tc := range []struct {
		name string
		b    []byte
		want int
	}{
		{"long data, reset, long data", append(append(append([]byte(nil), long...), reset...), long...), len(long)},
		{"reset first", append(append([]byte(nil), reset...), long...), len(reset) + len(long)},
		{"a header's start", append(append([]byte(nil), ping...), reset[:2]...), len(ping)},
		{"no reset", append(append([]byte(nil), ping...), long...), len(ping) + len(long)},
	} {
		require.Equal(t, tc.want, after().scanTo(tc.b, true), tc.name)
		require.Equal(t, len(tc.b), after().scanTo(tc.b, false), tc.name)
	}
}
