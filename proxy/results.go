package proxy

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// writeBinaryResultSet writes res to the client as one result set of the
// binary protocol (a COM_STMT_EXECUTE answer) that another result follows:
// the column count, the column definitions, an EOF unless the client set
// CLIENT_DEPRECATE_EOF, the rows, and an end packet (EOF, or OK with the
// 0xFE header) whose status carries SERVER_MORE_RESULTS_EXISTS. vitess's
// Handler can answer one result set per execution; a prepared CALL answers
// several, the procedure's result sets and then the OK that ends them,
// which vitess writes. Protocol:
// https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_binary_resultset.html
func writeBinaryResultSet(c *mysql.Conn, res *sqltypes.Result, warnings uint16) error {
	deprecateEOF := c.Capabilities&mysql.CapabilityClientDeprecateEOF != 0
	if err := c.WritePacket(appendLenEnc(packetStart(), uint64(len(res.Fields)))); err != nil {
		return err
	}
	for _, f := range res.Fields {
		if err := c.WritePacket(appendColumnDefinition(packetStart(), f)); err != nil {
			return err
		}
	}
	if !deprecateEOF {
		if err := c.WritePacket(appendEOF(packetStart(), warnings, c.StatusFlags|mysql.ServerMoreResultsExists)); err != nil {
			return err
		}
	}
	for _, row := range res.Rows {
		p, err := appendBinaryRow(packetStart(), res.Fields, row)
		if err != nil {
			return err
		}
		if err := c.WritePacket(p); err != nil {
			return err
		}
	}
	status := c.StatusFlags | mysql.ServerMoreResultsExists
	if deprecateEOF {
		p := append(packetStart(), 0xfe, 0, 0) // OK with the EOF header: 0 rows affected, no insert id
		return c.WritePacket(binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(p, status), warnings))
	}
	return c.WritePacket(appendEOF(packetStart(), warnings, status))
}

// packetStart returns a packet buffer with room for the header that
// Conn.WritePacket fills in.
func packetStart() []byte { return make([]byte, 4, 64) }

// appendEOF appends an EOF packet's payload.
func appendEOF(b []byte, warnings, status uint16) []byte {
	b = append(b, 0xfe)
	b = binary.LittleEndian.AppendUint16(b, warnings)
	return binary.LittleEndian.AppendUint16(b, status)
}

// appendLenEnc appends n as a length-encoded integer.
func appendLenEnc(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return binary.LittleEndian.AppendUint16(append(b, 0xfc), uint16(n))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// appendLenEncString appends s as a length-encoded string.
func appendLenEncString(b []byte, s string) []byte {
	return append(appendLenEnc(b, uint64(len(s))), s...)
}

// appendColumnDefinition appends f as a ColumnDefinition41 payload, with
// the type and flags vitess derives (sqltypes.TypeToMySQL) unless f carries
// its own flags, as vitess writes it for a single result.
func appendColumnDefinition(b []byte, f *querypb.Field) []byte {
	typ, flags := sqltypes.TypeToMySQL(f.Type)
	if f.Flags != 0 {
		flags = int64(f.Flags)
	}
	for _, s := range []string{"def", f.Database, f.Table, f.OrgTable, f.Name, f.OrgName} {
		b = appendLenEncString(b, s)
	}
	b = append(b, 0x0c)
	b = binary.LittleEndian.AppendUint16(b, uint16(f.Charset))
	b = binary.LittleEndian.AppendUint32(b, f.ColumnLength)
	b = append(b, typ)
	b = binary.LittleEndian.AppendUint16(b, uint16(flags))
	return append(b, byte(f.Decimals), 0, 0)
}

// appendBinaryRow appends a row of the binary protocol: 0x00, the NULL
// bitmap (offset 2), then each non-NULL value in its field's binary form
// (integers and floats little-endian at their width, dates and times in
// their length-prefixed form, everything else a length-encoded string).
// A value that does not read as its field's type is an error.
func appendBinaryRow(b []byte, fields []*querypb.Field, row sqltypes.Row) ([]byte, error) {
	b = append(b, 0)
	bitmap := len(b)
	b = append(b, make([]byte, (len(fields)+7+2)/8)...)
	for i, f := range fields {
		v := row[i]
		if v.IsNull() {
			b[bitmap+(i+2)/8] |= 1 << ((i + 2) % 8)
			continue
		}
		var err error
		if b, err = appendBinaryValue(b, f.Type, v.ToString()); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendBinaryValue appends the text value s of a column of type t in the
// binary protocol.
func appendBinaryValue(b []byte, t querypb.Type, s string) ([]byte, error) {
	switch t {
	case sqltypes.Int8, sqltypes.Uint8, sqltypes.Int16, sqltypes.Uint16, sqltypes.Year,
		sqltypes.Int24, sqltypes.Uint24, sqltypes.Int32, sqltypes.Uint32, sqltypes.Int64, sqltypes.Uint64:
		var u uint64
		if sqltypes.IsSigned(t) {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, err
			}
			u = uint64(n)
		} else {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, err
			}
			u = n
		}
		switch t {
		case sqltypes.Int8, sqltypes.Uint8:
			return append(b, byte(u)), nil
		case sqltypes.Int16, sqltypes.Uint16, sqltypes.Year:
			return binary.LittleEndian.AppendUint16(b, uint16(u)), nil
		case sqltypes.Int64, sqltypes.Uint64:
			return binary.LittleEndian.AppendUint64(b, u), nil
		}
		return binary.LittleEndian.AppendUint32(b, uint32(u)), nil
	case sqltypes.Float32:
		f, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(f))), nil
	case sqltypes.Float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(f)), nil
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		return appendBinaryDatetime(b, s)
	case sqltypes.Time:
		return appendBinaryTime(b, s)
	}
	return appendLenEncString(b, s), nil
}

// appendBinaryDatetime appends "YYYY-MM-DD[ hh:mm:ss[.ffffff]]" in the
// binary protocol: 0, 4, 7 or 11 bytes after the length byte.
func appendBinaryDatetime(b []byte, s string) ([]byte, error) {
	date, clock, _ := strings.Cut(s, " ")
	d, err := timeParts(date, "-", 3)
	if err != nil {
		return nil, err
	}
	var hms [3]int
	micro := 0
	if clock != "" {
		if hms, micro, err = clockParts(clock); err != nil {
			return nil, err
		}
	}
	n := byte(0)
	switch {
	case micro != 0:
		n = 11
	case hms != [3]int{}:
		n = 7
	case d != [3]int{}:
		n = 4
	}
	b = append(b, n)
	if n == 0 {
		return b, nil
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(d[0]))
	b = append(b, byte(d[1]), byte(d[2]))
	if n == 4 {
		return b, nil
	}
	b = append(b, byte(hms[0]), byte(hms[1]), byte(hms[2]))
	if micro != 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(micro))
	}
	return b, nil
}

// appendBinaryTime appends "[-]h:mm:ss[.ffffff]" in the binary protocol:
// 0, 8 or 12 bytes after the length byte (sign, days, hours, minutes,
// seconds, microseconds).
func appendBinaryTime(b []byte, s string) ([]byte, error) {
	neg := strings.HasPrefix(s, "-")
	hms, micro, err := clockParts(strings.TrimPrefix(s, "-"))
	if err != nil {
		return nil, err
	}
	if hms == [3]int{} && micro == 0 {
		return append(b, 0), nil
	}
	n := byte(8)
	if micro != 0 {
		n = 12
	}
	sign := byte(0)
	if neg {
		sign = 1
	}
	b = append(b, n, sign)
	b = binary.LittleEndian.AppendUint32(b, uint32(hms[0]/24))
	b = append(b, byte(hms[0]%24), byte(hms[1]), byte(hms[2]))
	if micro != 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(micro))
	}
	return b, nil
}

// clockParts reads "h:mm:ss[.ffffff]" (hours may exceed 23).
func clockParts(s string) ([3]int, int, error) {
	whole, frac, _ := strings.Cut(s, ".")
	hms, err := timeParts(whole, ":", 3)
	if err != nil {
		return hms, 0, err
	}
	micro := 0
	if frac != "" {
		frac = (frac + "000000")[:6]
		if micro, err = strconv.Atoi(frac); err != nil {
			return hms, 0, err
		}
	}
	return hms, micro, nil
}

// timeParts reads n integers separated by sep.
func timeParts(s, sep string, n int) ([3]int, error) {
	var out [3]int
	parts := strings.Split(s, sep)
	if len(parts) != n {
		return out, strconv.ErrSyntax
	}
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return out, err
		}
		out[i] = v
	}
	return out, nil
}
