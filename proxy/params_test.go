package proxy

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

func TestAsUnsigned(t *testing.T) {
	// vitess decodes every signed integer parameter into an Int64 bind
	// variable; the wire type gives the width.
	tests := []struct {
		name string
		in   *querypb.BindVariable
		typ  querypb.Type
		want *querypb.BindVariable
	}{
		{"nil", nil, sqltypes.Int64, nil},
		{"LONGLONG -1", bv(sqltypes.Int64, "-1"), sqltypes.Int64, bv(sqltypes.Uint64, "18446744073709551615")},
		{"LONGLONG min", bv(sqltypes.Int64, "-9223372036854775808"), sqltypes.Int64, bv(sqltypes.Uint64, "9223372036854775808")},
		{"LONGLONG positive", bv(sqltypes.Int64, "42"), sqltypes.Int64, bv(sqltypes.Uint64, "42")},
		{"LONG", bv(sqltypes.Int64, "-1294967294"), sqltypes.Int32, bv(sqltypes.Uint64, "3000000002")},
		{"INT24 (4 bytes on the wire)", bv(sqltypes.Int64, "-1"), sqltypes.Int24, bv(sqltypes.Uint64, "4294967295")},
		{"SHORT", bv(sqltypes.Int64, "-1"), sqltypes.Int16, bv(sqltypes.Uint64, "65535")},
		{"TINY", bv(sqltypes.Int64, "-55"), sqltypes.Int8, bv(sqltypes.Uint64, "201")},
		{"TINY positive", bv(sqltypes.Int64, "100"), sqltypes.Int8, bv(sqltypes.Uint64, "100")},
		{"string unchanged", bv(sqltypes.VarChar, "-1"), sqltypes.VarChar, bv(sqltypes.VarChar, "-1")},
		{"not an integer type", bv(sqltypes.Int64, "-1"), sqltypes.Float64, bv(sqltypes.Int64, "-1")},
		{"unsigned unchanged", bv(sqltypes.Uint64, "7"), sqltypes.Int64, bv(sqltypes.Uint64, "7")},
		{"bad text unchanged", bv(sqltypes.Int64, "x"), sqltypes.Int64, bv(sqltypes.Int64, "x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, asUnsigned(tt.in, tt.typ))
		})
	}
}

func bv(t querypb.Type, v string) *querypb.BindVariable {
	return &querypb.BindVariable{Type: t, Value: []byte(v)}
}

// Packets a client sends, for the scanner tests: each is header + payload.
func packet(seq byte, payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

// handshakeResponse is a client's first packet with capabilities caps.
func handshakeResponse(caps uint32) []byte {
	p := binary.LittleEndian.AppendUint32(nil, caps)
	p = binary.LittleEndian.AppendUint32(p, 1<<24)
	p = append(p, 45)
	p = append(p, make([]byte, 23)...)
	return packet(1, append(p, "root\x00\x00"...))
}

// execParam is one parameter of execPayload: its MySQL type, flag byte and
// value bytes.
type execParam struct {
	typ, flag byte
	value     []byte
}

// execPayload is a COM_STMT_EXECUTE payload for statement id; bound false
// leaves the types out (new-params-bound-flag 0).
func execPayload(id uint32, bound bool, params ...execParam) []byte {
	p := binary.LittleEndian.AppendUint32([]byte{comStmtExecute}, id)
	p = append(p, 0, 1, 0, 0, 0)
	if len(params) > 0 {
		p = append(p, make([]byte, (len(params)+7)/8)...)
	}
	if !bound {
		p = append(p, 0)
	} else {
		p = append(p, 1)
		for _, prm := range params {
			p = append(p, prm.typ, prm.flag)
		}
	}
	for _, prm := range params {
		p = append(p, prm.value...)
	}
	return p
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// vitessTypes are the querypb types vitess decodes params with (what it
// stores in PrepareData.ParamsType).
func vitessTypes(t *testing.T, params ...execParam) []int32 {
	out := make([]int32, len(params))
	for i, p := range params {
		vt, err := sqltypes.MySQLToType(p.typ, int64(p.flag))
		require.NoError(t, err)
		out[i] = int32(vt)
	}
	return out
}

func TestClientConnUnsignedFlags(t *testing.T) {
	ull := execParam{8, 0x80, u64(math.MaxUint64)} // go-sql-driver's uint64
	ll := execParam{8, 0, u64(math.MaxUint64)}     // its int64 -1
	str := execParam{253, 0, []byte{1, 'a'}}
	tiny := execParam{1, 0x80, []byte{201}}
	two := vitessTypes(t, ull, str)
	type take struct {
		id    uint32
		types []int32
		want  []bool
	}
	tests := []struct {
		name   string
		stream [][]byte // payloads after the handshake, each one packet with sequence 0
		reads  int      // the stream is read in chunks of this many bytes (0: all at once)
		takes  []take
	}{
		{
			name:   "uint64 and a string",
			stream: [][]byte{execPayload(1, true, ull, str)},
			takes:  []take{{1, two, []bool{true, false}}},
		},
		{
			name:   "read one byte at a time",
			stream: [][]byte{execPayload(1, true, ull, str)},
			reads:  1,
			takes:  []take{{1, two, []bool{true, false}}},
		},
		{
			name:   "signed LONGLONG: no flags",
			stream: [][]byte{execPayload(1, true, ll, str)},
			takes:  []take{{1, vitessTypes(t, ll, str), nil}},
		},
		{
			name:   "types not sent again: the last ones sent",
			stream: [][]byte{execPayload(1, true, ull, str), execPayload(1, false, ull, str)},
			takes:  []take{{1, two, []bool{true, false}}, {1, two, []bool{true, false}}},
		},
		{
			name: "two executions read ahead, each with its own types",
			stream: [][]byte{
				execPayload(1, true, ull, str),
				execPayload(1, true, ll, str),
				execPayload(2, true, tiny),
			},
			takes: []take{
				{1, two, []bool{true, false}},
				{1, vitessTypes(t, ll, str), nil},
				{2, vitessTypes(t, tiny), []bool{true}},
			},
		},
		{
			name:   "an execution vitess refused is skipped",
			stream: [][]byte{execPayload(2, true, tiny), execPayload(1, true, ull, str)},
			takes:  []take{{1, two, []bool{true, false}}},
		},
		{
			name:   "types that do not match vitess's: no flags",
			stream: [][]byte{execPayload(1, true, ull, str)},
			takes:  []take{{1, vitessTypes(t, str, str), nil}},
		},
		{
			name:   "unknown statement",
			stream: [][]byte{execPayload(9, true, ull)},
			takes:  []take{{9, vitessTypes(t, ull), nil}},
		},
		{
			name:   "closed statement is forgotten",
			stream: [][]byte{binary.LittleEndian.AppendUint32([]byte{comStmtClose}, 1), execPayload(1, true, ull, str)},
			takes:  []take{{1, two, nil}},
		},
		{
			name:   "truncated types",
			stream: [][]byte{execPayload(1, true, ull, str)[:14]},
			takes:  []take{{1, two, nil}},
		},
		{
			name:   "nothing read",
			stream: nil,
			takes:  []take{{1, two, nil}},
		},
		{
			name:   "other commands are skipped",
			stream: [][]byte{append([]byte{0x03}, "SELECT 1"...), {0x0e}, execPayload(1, true, ull, str)},
			takes:  []take{{1, two, []bool{true, false}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []byte
			in = append(in, handshakeResponse(mysql.CapabilityClientProtocol41)...)
			in = append(in, packet(3, []byte("auth switch response"))...) // not a command
			cc := &clientConn{}
			cc.prepared(1, 2)
			cc.prepared(2, 1)
			for _, p := range tt.stream {
				in = append(in, packet(0, p)...)
			}
			step := tt.reads
			if step == 0 {
				step = len(in) + 1
			}
			for len(in) > 0 {
				k := min(step, len(in))
				cc.sc.scan(in[:k])
				in = in[k:]
			}
			for i, tk := range tt.takes {
				require.Equal(t, tk.want, cc.unsignedParams(tk.id, tk.types), "take %d", i)
			}
		})
	}
}

func TestClientConnLongPayload(t *testing.T) {
	// A COM_STMT_EXECUTE of more than 16 MiB - 1 bytes spans packets; the
	// scanner keeps its types and skips the rest.
	big := make([]byte, maxPacketLen+10)
	p := execPayload(1, true, execParam{8, 0x80, u64(1)}, execParam{252, 0, nil})
	copy(big, p)
	in := handshakeResponse(mysql.CapabilityClientProtocol41)
	in = append(in, packet(0, big[:maxPacketLen])...)
	in = append(in, packet(1, big[maxPacketLen:])...)
	cc := &clientConn{}
	cc.prepared(1, 2)
	cc.sc.scan(in)
	require.Equal(t, []bool{true, false}, cc.unsignedParams(1, vitessTypes(t, execParam{8, 0x80, nil}, execParam{252, 0, nil})))
	require.LessOrEqual(t, cap(cc.sc.buf), 2*maxExecPrefix)
}

func TestClientConnTLS(t *testing.T) {
	// An SSL request: what follows is TLS, never followed.
	in := handshakeResponse(mysql.CapabilityClientProtocol41 | mysql.CapabilityClientSSL)
	in = append(in, packet(0, execPayload(1, true, execParam{8, 0x80, u64(1)}))...)
	cc := &clientConn{}
	cc.prepared(1, 1)
	cc.sc.scan(in)
	require.True(t, cc.sc.off)
	require.Nil(t, cc.unsignedParams(1, vitessTypes(t, execParam{8, 0x80, nil})))
}

// pxUnsDDL is the table of the unsigned-parameter tests: a BIGINT UNSIGNED
// sharding column.
const pxUnsDDL = `CREATE TABLE px_uns (
  id BIGINT UNSIGNED NOT NULL,
  big BIGINT UNSIGNED NULL,
  PRIMARY KEY (id)
)`

// pxUnsRules shards px_uns by MOD: id mod 2 picks the data source, id mod
// 3 the table (px_uns_0..2 on each).
const pxUnsRules = `rules:
  - !SHARDING
    tables:
      px_uns:
        actualDataNodes: ds_${0..1}.px_uns_${0..2}
        databaseStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: db_mod
        tableStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: t_mod
    shardingAlgorithms:
      db_mod:
        type: MOD
        props:
          sharding-count: 2
      t_mod:
        type: MOD
        props:
          sharding-count: 3
authority:
  users:
    - user: root@%
      password: secret
`

// newUnsEnv starts a proxy over px_uns with empty actual tables.
func newUnsEnv(t *testing.T) *Server {
	var y strings.Builder
	y.WriteString("databaseName: px_db\ndataSources:\n")
	for _, ds := range testdb.DataSources()[:2] {
		c := testdb.Config(ds)
		fmt.Fprintf(&y, "  %s:\n    url: jdbc:mysql://%s/%s\n    username: %s\n    password: %s\n", ds, c.Addr, ds, c.User, c.Passwd)
	}
	y.WriteString(pxUnsRules)
	cfg, err := ParseConfig("uns.yaml", []byte(y.String()))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("uns.sql", []byte(pxUnsDDL))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	ctx := context.Background()
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for i := range 3 {
			tb := fmt.Sprintf("px_uns_%d", i)
			_, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+tb)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, strings.Replace(pxUnsDDL, "px_uns", tb, 1))
			require.NoError(t, err)
			t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+tb) })
		}
	}
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return srv
}

// unsPlacement returns every row of px_uns as "ds.table id big", read from
// the actual tables.
func unsPlacement(t *testing.T) []string {
	var out []string
	for _, ds := range []string{"ds_0", "ds_1"} {
		db := testdb.Open(t, ds)
		for i := range 3 {
			tb := fmt.Sprintf("px_uns_%d", i)
			rows, err := db.Query("SELECT id, big FROM " + tb + " ORDER BY id")
			require.NoError(t, err)
			for rows.Next() {
				var id uint64
				var big sql.NullString
				require.NoError(t, rows.Scan(&id, &big))
				out = append(out, fmt.Sprintf("%s.%s %d %s", ds, tb, id, big.String))
			}
			require.NoError(t, rows.Err())
			require.NoError(t, rows.Close())
		}
	}
	return out
}

// TestProxyUnsignedParams sends unsigned integers through the binary
// protocol: go-sql-driver's uint64 above 2^63-1 (LONGLONG with the unsigned
// flag) reaches the back end exactly, and a hand-made COM_STMT_EXECUTE with
// an unsigned LONG or TINY routes by its unsigned value (the signed reading
// vitess makes would pick another table).
func TestProxyUnsignedParams(t *testing.T) {
	srv := newUnsEnv(t)
	c := gomysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = "root", "secret", "tcp", srv.Addr(), "px_db"
	db, err := sql.Open("mysql", c.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })

	// go-sql-driver prepares every statement with arguments. The sharding
	// value of a uint64 is Long(int64(v)), as generated code builds it and
	// as ShardingSphere-Proxy reads a LONGLONG (a Java long): -1, so MOD 2
	// gives ds_1 and MOD 3 px_uns_2 (BigInteger.mod is never negative).
	const maxU = uint64(math.MaxUint64)
	res, err := db.Exec("INSERT INTO px_uns (id, big) VALUES (?, ?)", maxU, maxU)
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	_, err = db.Exec("INSERT INTO px_uns (id, big) VALUES (?, ?)", uint64(1)<<63, uint64(5))
	require.NoError(t, err)
	require.Equal(t, []string{
		"ds_0.px_uns_1 9223372036854775808 5", // Long(-2^63): mod 2 = 0, mod 3 = 1
		"ds_1.px_uns_2 18446744073709551615 18446744073709551615",
	}, unsPlacement(t))
	var big uint64
	require.NoError(t, db.QueryRow("SELECT big FROM px_uns WHERE id = ?", maxU).Scan(&big))
	require.Equal(t, maxU, big)
	n, err = func() (int64, error) {
		r, err := db.Exec("UPDATE px_uns SET big = ? WHERE id = ?", maxU-1, maxU)
		if err != nil {
			return 0, err
		}
		return r.RowsAffected()
	}()
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	require.NoError(t, db.QueryRow("SELECT big FROM px_uns WHERE id = ?", maxU).Scan(&big))
	require.Equal(t, maxU-1, big)

	// By hand: one connection, one prepared INSERT, executions with an
	// unsigned LONG, an unsigned TINY and a signed LONG id; the last two
	// are sent together, so vitess reads the second ahead of the first's
	// execution.
	conn, r := rawLogin(t, srv.Addr(), "root", "secret")
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	id := rawPrepare(t, conn, r, "INSERT INTO px_uns (id, big) VALUES (?, ?)")
	long := func(flag byte, v uint32) execParam {
		return execParam{3, flag, binary.LittleEndian.AppendUint32(nil, v)}
	}
	bigP := func(v uint64) execParam { return execParam{8, 0x80, u64(v)} }
	// 3000000002 is -1294967294 read signed: MOD 3 gives 2 unsigned, 1 signed.
	writePacket(t, conn, 0, execPayload(id, true, long(0x80, 3000000002), bigP(1)))
	require.Equal(t, "OK", rawAnswer(t, r))
	// 201 is -55 read signed: MOD 3 gives 0 unsigned, 2 signed.
	tiny := execParam{1, 0x80, []byte{201}}
	signed := long(0, 3000000006) // -1294967290: refused by the BIGINT UNSIGNED column
	two := append(packet(0, execPayload(id, true, tiny, bigP(2))), packet(0, execPayload(id, true, signed, bigP(3)))...)
	_, err = conn.Write(two)
	require.NoError(t, err)
	require.Equal(t, "OK", rawAnswer(t, r))
	require.Equal(t, "ERR 1264 22003 Out of range value for column 'id' at row 1", rawAnswer(t, r))
	// Types not sent again: the unsigned flags of the last ones sent.
	writePacket(t, conn, 0, execPayload(id, true, long(0x80, 3000000008), bigP(4)))
	require.Equal(t, "OK", rawAnswer(t, r))
	writePacket(t, conn, 0, execPayload(id, false, long(0x80, 3000000010), bigP(5)))
	require.Equal(t, "OK", rawAnswer(t, r))
	require.Equal(t, []string{
		"ds_0.px_uns_1 3000000010 5", // 3000000010 mod 3 = 1
		"ds_0.px_uns_1 9223372036854775808 5",
		"ds_0.px_uns_2 3000000002 1", // mod 3 = 2
		"ds_0.px_uns_2 3000000008 4", // mod 3 = 2
		"ds_1.px_uns_0 201 2",        // mod 2 = 1, mod 3 = 0
		"ds_1.px_uns_2 18446744073709551615 18446744073709551614",
	}, unsPlacement(t))
}

// rawPrepare prepares q on a raw connection (capabilities of rawLogin: EOF
// packets after parameter and column definitions) and returns its
// statement id.
func rawPrepare(t *testing.T, c net.Conn, r *bufio.Reader, q string) uint32 {
	t.Helper()
	writePacket(t, c, 0, append([]byte{0x16}, q...))
	ok := readPacket(t, r)
	require.Equal(t, byte(0), ok[0], "prepare answer %q", ok)
	id := binary.LittleEndian.Uint32(ok[1:])
	cols := binary.LittleEndian.Uint16(ok[5:])
	params := binary.LittleEndian.Uint16(ok[7:])
	for _, n := range []uint16{params, cols} {
		if n > 0 {
			for range n + 1 { // definitions, then EOF
				readPacket(t, r)
			}
		}
	}
	return id
}

// rawAnswer reads the answer to a write: "OK" or "ERR <number> <state>
// <message>".
func rawAnswer(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	p := readPacket(t, r)
	switch p[0] {
	case 0:
		return "OK"
	case 0xff:
		return fmt.Sprintf("ERR %d %s %s", binary.LittleEndian.Uint16(p[1:]), p[4:9], p[9:])
	}
	return fmt.Sprintf("unexpected packet %q", p)
}

func TestValueOfTimeText(t *testing.T) {
	timeT := plan.GoType{Pkg: "time", Name: "Time", Kind: runtime.KindTime}
	nullTimeT := plan.GoType{Pkg: "database/sql", Name: "NullTime", Kind: runtime.KindTime, Nullable: true}
	strT := plan.GoType{Name: "string", Kind: runtime.KindString}
	at := func(h, mi, s, ns int) runtime.Value {
		return runtime.Time(time.Date(2026, 2, 1, h, mi, s, ns, time.UTC))
	}
	tests := []struct {
		name string
		t    plan.GoType
		v    any
		want runtime.Value
	}{
		{"midnight date", timeT, "2026-02-01", at(0, 0, 0, 0)},
		{"datetime", timeT, "2026-02-01 10:20:30", at(10, 20, 30, 0)},
		{"fraction", nullTimeT, "2026-02-01 10:20:30.25", at(10, 20, 30, 250000000)},
		{"bytes", timeT, []byte("2026-02-01"), at(0, 0, 0, 0)},
		{"NullString", nullTimeT, sql.NullString{String: "2026-02-01", Valid: true}, at(0, 0, 0, 0)},
		{"time.Time", timeT, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), at(0, 0, 0, 0)},
		{"not a date stays a String", timeT, "2026-02-30", runtime.String("2026-02-30")},
		{"bytes not a date", timeT, []byte("soon"), runtime.String("soon")},
		{"string column", strT, "2026-02-01", runtime.String("2026-02-01")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValueOf(tt.t, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// pxLogDDL and pxLogRules: px_log by month of logged_at (INTERVAL, January
// and February 2026) and px_ev by ranges of id (BOUNDARY_RANGE: below 10,
// from 10), on ds_0.
var pxLogDDL = []string{`CREATE TABLE px_log (
  log_id BIGINT NOT NULL,
  logged_at DATETIME NOT NULL,
  message VARCHAR(32) NOT NULL,
  PRIMARY KEY (log_id, logged_at)
)`, `CREATE TABLE px_ev (
  id BIGINT NOT NULL,
  message VARCHAR(32) NOT NULL,
  PRIMARY KEY (id)
)`}

const pxLogRules = `rules:
  - !SHARDING
    tables:
      px_log:
        actualDataNodes: ds_0.px_log_${['202601', '202602']}
        tableStrategy:
          standard:
            shardingColumn: logged_at
            shardingAlgorithmName: month
      px_ev:
        actualDataNodes: ds_0.px_ev_${0..1}
        tableStrategy:
          standard:
            shardingColumn: id
            shardingAlgorithmName: ten
    shardingAlgorithms:
      month:
        type: INTERVAL
        props:
          datetime-pattern: yyyy-MM-dd HH:mm:ss
          datetime-lower: 2026-01-01 00:00:00
          datetime-upper: 2026-02-28 23:59:59
          sharding-suffix-pattern: yyyyMM
          datetime-interval-amount: 1
          datetime-interval-unit: MONTHS
      ten:
        type: BOUNDARY_RANGE
        props:
          sharding-ranges: 10
authority:
  users:
    - user: root@%
      password: secret
`

// TestProxyDateTimeAndEmptyRoutes runs, over the text protocol (go-sql-driver
// interpolating) and the binary one, what generated code does with a
// time.Time at midnight (go-sql-driver sends "2026-02-01": it routes as the
// time), a literal range that reaches no data node (no rows, nothing
// changed) and a value outside every interval (the same refusal, ERROR 1235,
// in both protocols).
func TestProxyDateTimeAndEmptyRoutes(t *testing.T) {
	var y strings.Builder
	y.WriteString("databaseName: px_db\ndataSources:\n")
	c0 := testdb.Config("ds_0")
	fmt.Fprintf(&y, "  ds_0:\n    url: jdbc:mysql://%s/ds_0\n    username: %s\n    password: %s\n", c0.Addr, c0.User, c0.Passwd)
	y.WriteString(pxLogRules)
	cfg, err := ParseConfig("log.yaml", []byte(y.String()))
	require.NoError(t, err)
	tables, err := schema.ParseDDL("log.sql", []byte(strings.Join(pxLogDDL, ";\n")))
	require.NoError(t, err)
	require.NoError(t, cfg.AttachDDL(tables))
	ds0 := testdb.Open(t, "ds_0")
	ctx := context.Background()
	// actual maps each actual table to its logic table's DDL.
	actual := map[string]string{"px_log_202601": pxLogDDL[0], "px_log_202602": pxLogDDL[0], "px_ev_0": pxLogDDL[1], "px_ev_1": pxLogDDL[1]}
	for tb, ddl := range actual {
		_, err := ds0.ExecContext(ctx, "DROP TABLE IF EXISTS "+tb)
		require.NoError(t, err)
		logic := strings.Fields(ddl)[2]
		_, err = ds0.ExecContext(ctx, strings.Replace(ddl, logic, tb, 1))
		require.NoError(t, err)
		t.Cleanup(func() { _, _ = ds0.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+tb) })
	}
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { require.NoError(t, srv.Close()) })

	midnight := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, proto := range []string{"text", "binary"} {
		t.Run(proto, func(t *testing.T) {
			for tb := range actual {
				_, err := ds0.ExecContext(ctx, "DELETE FROM "+tb)
				require.NoError(t, err)
			}
			c := gomysql.NewConfig()
			c.User, c.Passwd, c.Net, c.Addr, c.DBName = "root", "secret", "tcp", srv.Addr(), "px_db"
			c.InterpolateParams = proto == "text"
			db, err := sql.Open("mysql", c.FormatDSN())
			require.NoError(t, err)
			defer db.Close()
			// exec and query prepare every statement in binary mode, even
			// one without arguments (go-sql-driver would send it as text).
			exec := func(q string, args ...any) (sql.Result, error) {
				if proto == "text" {
					return db.Exec(q, args...)
				}
				st, err := db.Prepare(q)
				if err != nil {
					return nil, err
				}
				defer st.Close()
				return st.Exec(args...)
			}
			query := func(q string, args ...any) ([]string, []string) {
				var rows *sql.Rows
				var err error
				if proto == "text" {
					rows, err = db.Query(q, args...)
				} else {
					st, perr := db.Prepare(q)
					require.NoError(t, perr)
					defer st.Close()
					rows, err = st.Query(args...)
				}
				require.NoError(t, err, q)
				defer rows.Close()
				cols, err := rows.Columns()
				require.NoError(t, err)
				out := []string{}
				for rows.Next() {
					var id int64
					var msg string
					require.NoError(t, rows.Scan(&id, &msg))
					out = append(out, fmt.Sprintf("%d %s", id, msg))
				}
				require.NoError(t, rows.Err())
				return cols, out
			}

			_, err = exec("INSERT INTO px_log (log_id, logged_at, message) VALUES (?, ?, ?)", 1, midnight, "feb")
			require.NoError(t, err)
			_, err = exec("INSERT INTO px_log (log_id, logged_at, message) VALUES (?, ?, ?)", 2, midnight.Add(-time.Second), "jan")
			require.NoError(t, err)
			var where []string
			for _, tb := range []string{"px_log_202601", "px_log_202602"} {
				var n int
				require.NoError(t, ds0.QueryRow("SELECT log_id FROM "+tb).Scan(&n))
				where = append(where, fmt.Sprintf("%s %d", tb, n))
			}
			require.Equal(t, []string{"px_log_202601 2", "px_log_202602 1"}, where)

			_, rows := query("SELECT log_id, message FROM px_log WHERE logged_at = ?", midnight)
			require.Equal(t, []string{"1 feb"}, rows)
			_, rows = query("SELECT log_id, message FROM px_log WHERE logged_at BETWEEN ? AND ? ORDER BY log_id", midnight.AddDate(0, -1, 0), midnight)
			require.Equal(t, []string{"1 feb", "2 jan"}, rows)
			_, rows = query("SELECT log_id, message FROM px_log WHERE logged_at >= '2026-02-01' ORDER BY log_id")
			require.Equal(t, []string{"1 feb"}, rows)

			// A literal range that reaches no data node: no rows, nothing
			// changed (MySQL's answer to an empty BETWEEN); with parameters
			// the same.
			_, err = exec("INSERT INTO px_ev (id, message) VALUES (?, ?), (?, ?)", 5, "five", 15, "fifteen")
			require.NoError(t, err)
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{"SELECT id, message FROM px_ev WHERE id BETWEEN 30 AND 10", nil},
				{"SELECT id, message FROM px_ev WHERE id BETWEEN ? AND ?", []any{30, 10}},
			} {
				cols, rows := query(q.sql, q.args...)
				require.Equal(t, []string{"id", "message"}, cols)
				require.Empty(t, rows)
			}
			for _, q := range []string{
				"UPDATE px_ev SET message = 'x' WHERE id BETWEEN 30 AND 10",
				"DELETE FROM px_ev WHERE id BETWEEN 30 AND 10",
			} {
				res, err := exec(q)
				require.NoError(t, err, q)
				n, err := res.RowsAffected()
				require.NoError(t, err)
				require.Zero(t, n, q)
			}
			_, rows = query("SELECT id, message FROM px_ev WHERE id BETWEEN 0 AND 20 ORDER BY id")
			require.Equal(t, []string{"5 five", "15 fifteen"}, rows)

			// Outside every interval: the same refusal as a literal.
			const refused = `Error 1235 (42000): routing table "px_log": INTERVAL on logged_at: sharding value Time 2026-07-01 00:00:00.0 is outside the windows from datetime-lower to datetime-upper: no data node matches the sharding value`
			_, err = exec("INSERT INTO px_log (log_id, logged_at, message) VALUES (?, ?, ?)", 99, time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), "jul")
			require.EqualError(t, err, refused)
			_, err = exec("INSERT INTO px_log (log_id, logged_at, message) VALUES (99, '2026-07-01', 'jul')")
			require.EqualError(t, err, refused)
		})
	}
}

// BenchmarkClientConnExecute is what following the packets costs one
// prepared point select (one signed LONGLONG parameter): scanning its
// COM_STMT_EXECUTE and taking its types.
func BenchmarkClientConnExecute(b *testing.B) {
	cc := &clientConn{}
	cc.sc.scan(handshakeResponse(mysql.CapabilityClientProtocol41))
	cc.prepared(1, 1)
	p := execParam{8, 0, u64(42)}
	in := packet(0, execPayload(1, true, p))
	types := []int32{int32(sqltypes.Int64)}
	b.ReportAllocs()
	for b.Loop() {
		cc.sc.scan(in)
		if cc.unsignedParams(1, types) != nil {
			b.Fatal("unsigned")
		}
	}
}
