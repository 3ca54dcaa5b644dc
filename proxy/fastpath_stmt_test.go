package proxy

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"

	"github.com/shardgen/shardgen/internal/testdb"
)

// stmtParam is one parameter of stmtClient.exec: its type pair and its
// value as sent (nil with null).
type stmtParam struct {
	typ, flag byte
	val       []byte
	null      bool
}

func spInt(v int64) stmtParam {
	return stmtParam{typ: rawTypeLongLong, val: binary.LittleEndian.AppendUint64(nil, uint64(v))}
}

func spUint(v uint64) stmtParam {
	return stmtParam{typ: rawTypeLongLong, flag: 0x80, val: binary.LittleEndian.AppendUint64(nil, v)}
}

func spStr(s string) stmtParam {
	return stmtParam{typ: rawTypeVarString, val: appendLenEncText(nil, s)}
}

func spDouble(f float64) stmtParam {
	return stmtParam{typ: 0x05, val: binary.LittleEndian.AppendUint64(nil, math.Float64bits(f))}
}

var spNull = stmtParam{typ: rawTypeNull, null: true}

// stmtClient is a rawClient that prepares and executes statements and
// reads their whole binary answers.
type stmtClient struct {
	*rawClient
	deprecateEOF bool
}

func dialStmt(t *testing.T, srv *Server, deprecateEOF bool) stmtClient {
	t.Helper()
	addr, user, pw, db := "", "root", "secret", "fp_db"
	if srv == nil {
		c := testdb.Config("reference")
		addr, user, pw, db = c.Addr, c.User, c.Passwd, "reference"
	} else {
		addr = srv.Addr()
	}
	var extra uint32
	if deprecateEOF {
		extra = mysql.CapabilityClientDeprecateEOF
	}
	c, err := rawHandshakeCaps(addr, user, pw, db, mysql.MysqlNativePassword, extra)
	require.NoError(t, err)
	t.Cleanup(func() { c.conn.Close() })
	return stmtClient{rawClient: c, deprecateEOF: deprecateEOF}
}

// prepare prepares q: its statement id and parameter count.
func (c stmtClient) prepare(t *testing.T, q string) (uint32, int) {
	t.Helper()
	c.command(t, append([]byte{mysql.ComPrepare}, q...))
	p := c.mustRead(t)
	require.Equal(t, byte(mysql.OKPacket), p[0], "%s: %v", q, packetError(p))
	id := binary.LittleEndian.Uint32(p[1:5])
	cols, params := int(binary.LittleEndian.Uint16(p[5:7])), int(binary.LittleEndian.Uint16(p[7:9]))
	for _, n := range []int{params, cols} {
		if n == 0 {
			continue
		}
		if !c.deprecateEOF {
			n++
		}
		for range n {
			c.mustRead(t)
		}
	}
	return id, params
}

// exec sends COM_STMT_EXECUTE (types bound when bind) with the cursor
// flags and reads the whole answer: column definitions apart, every other
// packet in hex.
func (c stmtClient) exec(t *testing.T, stmt uint32, flags byte, bind bool, params ...stmtParam) wireAnswer {
	t.Helper()
	p := []byte{mysql.ComStmtExecute}
	p = binary.LittleEndian.AppendUint32(p, stmt)
	p = append(p, flags)
	p = binary.LittleEndian.AppendUint32(p, 1)
	if len(params) > 0 {
		nulls := make([]byte, (len(params)+7)/8)
		for i, x := range params {
			if x.null {
				nulls[i/8] |= 1 << (i % 8)
			}
		}
		p = append(p, nulls...)
		if bind {
			p = append(p, 1)
			for _, x := range params {
				p = append(p, x.typ, x.flag)
			}
		} else {
			p = append(p, 0)
		}
		for _, x := range params {
			p = append(p, x.val...)
		}
	}
	c.command(t, p)
	var a wireAnswer
	seq := byte(1)
	read := func() []byte {
		p := c.mustRead(t)
		require.Equal(t, seq+1, c.seq, "sequence id of packet % x", p[:min(len(p), 8)])
		seq++
		a.other = append(a.other, fmt.Sprintf("%x", p))
		return p
	}
	first := read()
	if first[0] == mysql.OKPacket || first[0] == mysql.ErrPacket {
		return a
	}
	n, _ := lenEncInt(first)
	for range int(n) {
		a.cols = append(a.cols, c.mustRead(t))
		require.Equal(t, seq+1, c.seq, "sequence id of a column definition")
		seq++
	}
	if !c.deprecateEOF {
		read()
	}
	for {
		p := read()
		if p[0] == mysql.ErrPacket || p[0] == mysql.EOFPacket {
			return a
		}
	}
}

// TestFastPathPrepared: a prepared statement that routes to one data node
// runs as the data source's prepared statement on the fast path and
// answers as the database/sql path and the reference database do: every
// column type of fp_item (NULLs, binary, latin1, CJK and emoji, DECIMAL,
// FLOAT, DATETIME(3), ENUM, a 70,000-byte MEDIUMBLOB) byte for byte, NULL
// parameters (the NULL bitmap), unsigned and string parameters, an
// execution that sends no types (the last ones apply), warnings, a back
// end's error, with and without CLIENT_DEPRECATE_EOF; executions with a
// cursor flag or long data take the database/sql path and still answer.
func TestFastPathPrepared(t *testing.T) {
	fast, slow := fpEnv(t)
	type execution struct {
		flags  byte
		bind   bool
		params []stmtParam
		fast   bool // takes the fast path
	}
	cases := []struct {
		q     string
		execs []execution
	}{
		{"SELECT * FROM fp_item WHERE id = ?", []execution{
			{0, true, []stmtParam{spInt(1)}, true},
			{0, true, []stmtParam{spInt(2)}, true},
			{0, false, []stmtParam{spInt(3)}, true}, // types of the last execution
			{0, true, []stmtParam{spUint(4)}, true},
			{0, true, []stmtParam{spStr("5")}, true},
			{0, true, []stmtParam{spInt(99)}, true},
			{0, true, []stmtParam{spNull}, false},   // no route by value: every data node
			{1, true, []stmtParam{spInt(3)}, false}, // CURSOR_TYPE_READ_ONLY
		}},
		{"SELECT id, name AS n, l1, bin FROM fp_item t WHERE t.id = ? AND (name = ? OR ? IS NULL)", []execution{
			{0, true, []stmtParam{spInt(3), spNull, spNull}, true},
			{0, true, []stmtParam{spInt(3), spStr("中文 ✓ 😀"), spStr("x")}, true},
			{0, true, []stmtParam{spInt(1), spStr("nope"), spStr("x")}, true},
		}},
		{"SELECT price, ratio, created, kind, ? + 1 FROM fp_item WHERE id = ?", []execution{
			{0, true, []stmtParam{spDouble(1.5), spInt(1)}, true},
			{0, true, []stmtParam{spInt(-7), spInt(5)}, true},
		}},
		{"SELECT id + CAST(? AS SIGNED) FROM fp_item WHERE id = ?", []execution{
			{0, true, []stmtParam{spStr("1x"), spInt(1)}, true}, // a warning
		}},
		{"SELECT id FROM fp_item WHERE id = ? AND EXP(?) > 0", []execution{
			{0, true, []stmtParam{spInt(1), spInt(1000)}, true}, // the back end's error
		}},
	}
	for _, deprecate := range []bool{false, true} {
		fc, sc, rc := dialStmt(t, fast, deprecate), dialStmt(t, slow, deprecate), dialStmt(t, nil, deprecate)
		for _, cs := range cases {
			fid, n := fc.prepare(t, cs.q)
			sid, _ := sc.prepare(t, cs.q)
			rid, _ := rc.prepare(t, cs.q)
			for i, e := range cs.execs {
				require.Len(t, e.params, n)
				msg := fmt.Sprintf("%s execution %d (CLIENT_DEPRECATE_EOF %v)", cs.q, i, deprecate)
				before := passThroughCount(t, fast)
				got := fc.exec(t, fid, e.flags, e.bind, e.params...)
				if e.fast {
					requirePassThrough(t, fast, before+1, msg)
				} else {
					requirePassThrough(t, fast, before, msg)
				}
				want := sc.exec(t, sid, e.flags, e.bind, e.params...)
				if e.flags != 0 {
					// MariaDB opens a cursor (rows by COM_STMT_FETCH); the
					// proxy sends the rows.
					require.Equal(t, want, got, msg)
					continue
				}
				ref := rc.exec(t, rid, e.flags, e.bind, e.params...)
				require.Equal(t, ref.other, got.other, "%s: rows and end packets as the reference's", msg)
				if e.fast {
					requireSameColumns(t, ref.cols, got.cols, msg)
				}
				require.Equal(t, len(want.cols), len(got.cols), msg)
				require.Equal(t, len(want.other), len(got.other), msg)
			}
		}
	}
}

// TestFastPathPreparedLongData: an execution with a parameter sent by
// COM_STMT_SEND_LONG_DATA takes the database/sql path and answers as the
// reference database; the next execution without long data, and one after
// COM_STMT_RESET dropped the long data, take the fast path again.
func TestFastPathPreparedLongData(t *testing.T) {
	fast, _ := fpEnv(t)
	const q = "SELECT id, name FROM fp_item WHERE id = ? AND name = ?"
	fc, rc := dialStmt(t, fast, false), dialStmt(t, nil, false)
	fid, _ := fc.prepare(t, q)
	rid, _ := rc.prepare(t, q)
	long := stmtParam{typ: rawTypeVarString} // its value came as long data
	type step struct {
		long, reset bool
		fast        bool
	}
	for i, st := range []step{{long: true}, {fast: true}, {long: true, reset: true, fast: true}, {long: true}} {
		msg := fmt.Sprintf("step %d", i)
		for _, c := range []struct {
			c  stmtClient
			id uint32
		}{{fc, fid}, {rc, rid}} {
			if st.long {
				c.c.sendLongData(t, c.id, 1, []byte("pla"))
				c.c.sendLongData(t, c.id, 1, []byte("in"))
			}
			if st.reset {
				c.c.reset(t, c.id)
			}
		}
		before := passThroughCount(t, fast)
		p := []stmtParam{spInt(1), spStr("plain")}
		if st.long && !st.reset {
			p[1] = long
		}
		got := fc.exec(t, fid, 0, true, p...)
		want := rc.exec(t, rid, 0, true, p...)
		require.Equal(t, want.other, got.other, msg)
		require.Len(t, got.other, 4, "%s: the column count, EOF, one row, EOF", msg)
		if st.fast {
			requirePassThrough(t, fast, before+1, msg)
		} else {
			requirePassThrough(t, fast, before, msg)
		}
	}
}

// requireSameColumns checks column definitions against the reference
// database's, whose schema is "reference" where the proxy's is fp_db.
func requireSameColumns(t *testing.T, ref, got [][]byte, msg string) {
	t.Helper()
	require.Len(t, got, len(ref), msg)
	for i := range got {
		rf, rest, _ := columnFields(ref[i])
		rebuilt := appendLenEncBytes(nil, rf[0])
		if len(rf[1]) > 0 {
			rebuilt = appendLenEncText(rebuilt, "fp_db")
		} else {
			rebuilt = appendLenEncBytes(rebuilt, rf[1])
		}
		for _, f := range rf[2:] {
			rebuilt = appendLenEncBytes(rebuilt, f)
		}
		rebuilt = append(rebuilt, rest...)
		require.Equal(t, fmt.Sprintf("%q", rebuilt), fmt.Sprintf("%q", got[i]), "%s column %d", msg, i)
	}
}

// TestFastPathPreparedWrites: a prepared INSERT, UPDATE or DELETE of one
// data node runs on the fast path, and the client gets the back end's OK
// packet (affected rows, insert id, warning count, info such as "Rows
// matched: 1  Changed: 1  Warnings: 0") with the proxy's status flags, as
// from the reference database; errors and INSERT IGNORE's warnings too.
func TestFastPathPreparedWrites(t *testing.T) {
	fast, _ := fpEnv(t)
	for k, deprecate := range []bool{false, true} {
		fc, rc := dialStmt(t, fast, deprecate), dialStmt(t, nil, deprecate)
		id := int64(100 + k)
		for i, step := range []struct {
			q      string
			params []stmtParam
		}{
			{"INSERT INTO fp_item (id, name) VALUES (?, ?)", []stmtParam{spInt(id), spStr("w")}},
			{"INSERT INTO fp_item (id, name) VALUES (?, ?)", []stmtParam{spInt(id), spStr("again")}}, // duplicate key
			{"INSERT IGNORE INTO fp_item (id, name) VALUES (?, ?)", []stmtParam{spInt(id), spStr("again")}},
			{"UPDATE fp_item SET name = ? WHERE id = ?", []stmtParam{spStr("v"), spInt(id)}},
			{"UPDATE fp_item SET name = ? WHERE id = ?", []stmtParam{spStr("v"), spInt(id)}}, // changes nothing
			{"DELETE FROM fp_item WHERE id = ?", []stmtParam{spInt(id)}},
		} {
			msg := fmt.Sprintf("%s step %d (CLIENT_DEPRECATE_EOF %v)", step.q, i, deprecate)
			fid, _ := fc.prepare(t, step.q)
			rid, _ := rc.prepare(t, step.q)
			before := passThroughCount(t, fast)
			got := fc.exec(t, fid, 0, true, step.params...)
			requirePassThrough(t, fast, before+1, msg)
			want := rc.exec(t, rid, 0, true, step.params...)
			require.Equal(t, want.other, got.other, msg)
		}
	}
}

// TestFastPathPreparedPerConnection: on the fast path a data node's
// statement is prepared once per pooled back-end connection, whatever the
// number of client sessions that prepare it: the data sources' prepared
// statements do not grow with sessions that come and go.
func TestFastPathPreparedPerConnection(t *testing.T) {
	fast, _ := fpEnv(t)
	prepared := func() int {
		t.Helper()
		n := 0
		for _, ds := range []string{"ds_0", "ds_1"} {
			var name string
			var k int
			require.NoError(t, testdb.Open(t, ds).QueryRow("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").Scan(&name, &k))
			n += k
		}
		return n
	}
	session := func() {
		c := dialStmt(t, fast, false)
		id, _ := c.prepare(t, "SELECT id, name FROM fp_item WHERE id = ?")
		for i := int64(1); i <= 4; i++ { // both data sources
			before := passThroughCount(t, fast)
			c.exec(t, id, 0, true, spInt(i))
			requirePassThrough(t, fast, before+1, "")
		}
		c.conn.Close()
	}
	session()
	after := prepared()
	for range 5 {
		session() // one at a time: the pools' connections are the same
	}
	require.Equal(t, after, prepared(), "no back-end statement per session")
}

// TestFastPathTextWrites: a text INSERT (a negative id too), UPDATE or
// DELETE of one data node takes the fast path from its first execution,
// and the client gets the back end's OK packet as from the reference
// database (affected rows, warnings, info, status flags: "more results"
// in a multi-statement too), errors as well.
func TestFastPathTextWrites(t *testing.T) {
	fast, _ := fpEnv(t)
	for k, multi := range []bool{false, true} {
		fc, rc := fpConn(t, fast, false, multi), fpConn(t, nil, false, multi)
		exchange(t, fc, "SELECT 1") // the session's first statement finds its character set
		id := 200 + 4*k             // -id maps to a data node of fp_item's MOD rules too
		for _, q := range []string{
			"INSERT INTO fp_item (id, name) VALUES (%d, 'w')",
			"INSERT INTO fp_item (id, name) VALUES (%d, 'again')", // duplicate key
			"INSERT IGNORE INTO fp_item (id, name) VALUES (%d, 'again')",
			"UPDATE fp_item SET name = 'v' WHERE id = %d",
			"UPDATE fp_item SET name = 'v' WHERE id = %d", // changes nothing
			"DELETE FROM fp_item WHERE id = %d",
			"INSERT INTO fp_item (id, name) VALUES (-%d, 'negative')",
		} {
			q := fmt.Sprintf(q, id)
			if multi {
				q += "; SELECT 1"
			}
			before := passThroughCount(t, fast)
			got := exchange(t, fc, q)
			if multi {
				// SELECT 1 may take it too.
				require.GreaterOrEqual(t, passThroughCount(t, fast), before+1, q)
			} else {
				requirePassThrough(t, fast, before+1, q)
			}
			want := exchange(t, rc, q)
			require.Equal(t, want.other, got.other, q)
		}
	}
}
