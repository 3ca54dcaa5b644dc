package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Warnings follow the client as one server's: the warning count of the
// OK and EOF packets the proxy sends is the sum of the counts the data
// nodes' OK and EOF packets gave the statement, and SHOW WARNINGS, SHOW
// ERRORS, SHOW COUNT(*) WARNINGS|ERRORS, @@warning_count and @@error_count
// read the messages of the session's last statement. go-sql-driver keeps
// neither, so every back-end connection is read through a backConn
// (runtime.WithDialFunc): for a command that a session owns (owner.go:
// COM_QUERY and COM_STMT_EXECUTE run under a context naming the session;
// not a COM_QUERY that starts with copyMark) it follows the response's
// packets, and when the last one reports warnings it runs SHOW WARNINGS on
// the same connection before the driver sees that packet, recording the
// count and the messages under the session's tag (warnStore). A statement
// without warnings costs no round trip. A back-end connection over TLS or
// with compression is not followed.

// maxWarnings is how many messages a session keeps (MySQL's default
// max_error_count); the count goes on.
const maxWarnings = 64

// warning is one row of SHOW WARNINGS.
type warning struct {
	level string // Note, Warning or Error
	code  uint64
	msg   string
}

// warnings are the diagnostics of one statement.
type warnings struct {
	count int
	list  []warning
	// kept is set when the list is an earlier statement's, which the last
	// statement (one without a table that raised nothing) left in place:
	// that statement's own OK or EOF packet counts 0 warnings.
	kept bool
}

// own is the warning count of the session's last statement's own OK or
// EOF packet: 0 when it kept an earlier statement's list.
func (w *warnings) own() int {
	if w.kept {
		return 0
	}
	return w.count
}

// errorCount is the number of errors among w (@@error_count).
func (w *warnings) errorCount() int {
	n := 0
	for _, x := range w.list {
		if x.level == "Error" {
			n++
		}
	}
	return n
}

// warnStore collects the warnings of the back-end statements, by session
// tag, until the session takes them. Safe for concurrent use (units of one
// statement run in parallel).
type warnStore struct {
	mu sync.Mutex
	m  map[string]*warnings
}

// add records count warnings and their messages for tag.
func (s *warnStore) add(tag string, count int, list []warning) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*warnings{}
	}
	w := s.m[tag]
	if w == nil {
		w = &warnings{}
		s.m[tag] = w
	}
	w.count += count
	if room := maxWarnings - len(w.list); room > 0 {
		w.list = append(w.list, list[:min(room, len(list))]...)
	}
}

// take returns and forgets what was recorded for tag.
func (s *warnStore) take(tag string) warnings {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.m[tag]
	if w == nil {
		return warnings{}
	}
	delete(s.m, tag)
	return *w
}

// dialBackend returns a dial function for runtime.WithDialFunc whose
// connections record warnings in store and register with the deadlock
// detector dl (deadlock.go; nil: none).
func dialBackend(store *warnStore, dl *deadlockDetector) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetKeepAlive(true)
		}
		bc := &backConn{Conn: rawTCP(conn), store: store, dl: dl, addr: addr}
		if slot, ok := ctx.Value(dialSlotKey{}).(*dialSlot); ok {
			slot.bc = bc
		}
		return bc, nil
	}
}

// Commands and capability flags backConn reads.
const (
	comQuery       = 0x03
	comExecute     = 0x17
	capCompress    = 1 << 5
	capSSL         = 1 << 11
	capDeprecateEO = 1 << 24
	statusMoreRes  = 0x0008
)

// States of a followed response.
const (
	respStart   = iota // the first packet
	respCols           // column definitions
	respColsEOF        // the EOF after them
	respRows           // rows, until the terminator
)

// backConn is a back-end connection as go-sql-driver reads it; see the
// comment at the top of the file. The driver uses it from one goroutine at
// a time.
type backConn struct {
	net.Conn
	store *warnStore

	handshook    bool // the handshake response was written
	off          bool // TLS or compression: not followed
	deprecateEOF bool
	cur          string       // the owner of the next command (ownerConn.own); "": none
	caps         uint32       // the capability flags of the handshake response
	relay        *backendConn // the fast path's view of the socket (relayConn); nil until used

	// For the deadlock detector (deadlock.go): dl, the server's address
	// and the thread id the greeting gave (0: not read); owner is the tag
	// of the last command a session owned, read by the detector; last is
	// the owner of the last command (nil: none), read by the disconnect
	// watch (Server.killOwned).
	dl     *deadlockDetector
	addr   string
	thread uint32
	owner  atomic.Pointer[string]
	last   atomic.Pointer[string]

	// The response being followed (tag "": none).
	tag   string
	state int
	cols  uint64 // column definitions still to come
	count int    // warnings so far

	// The packet being read.
	hdr  [4]byte
	nhdr int
	left int
	more bool
	plen int
	head []byte // the logical packet's first bytes
}

// Write sends b (one packet or the start of one) and notes the command it
// starts.
func (c *backConn) Write(b []byte) (int, error) {
	if !c.off && len(b) >= 5 {
		switch {
		case !c.handshook:
			c.handshook = true
			if len(b) >= 8 {
				caps := binary.LittleEndian.Uint32(b[4:8])
				c.caps = caps
				c.off = caps&(capSSL|capCompress) != 0
				c.deprecateEOF = caps&capDeprecateEO != 0
			}
		case b[3] == 0:
			c.command(b[4:])
		}
	}
	return c.Conn.Write(b)
}

// own records tag as the owner of the next command ("": none); see owner.go.
func (c *backConn) own(tag string) {
	c.cur = tag
	if tag == "" {
		if c.last.Load() != nil {
			c.last.Store(nil)
		}
		return
	}
	o := c.owner.Load()
	if o == nil || *o != tag {
		o = &tag
		c.owner.Store(o)
	}
	if l := c.last.Load(); l != o {
		c.last.Store(o)
	}
}

// lastOwner is the owner of the last command c sent ("": none).
func (c *backConn) lastOwner() string {
	if l := c.last.Load(); l != nil {
		return *l
	}
	return ""
}

// ownerTag is the tag of the last command a session owned on c ("" before
// one).
func (c *backConn) ownerTag() string {
	if o := c.owner.Load(); o != nil {
		return *o
	}
	return ""
}

// mariaDBCacheMetadata is MariaDB's extended capability
// MARIADB_CLIENT_CACHE_METADATA: the column count packet of a result
// carries a "metadata follows" byte, and a prepared statement's execution
// may omit its column definitions.
const mariaDBCacheMetadata = 1 << 4

// greeting reads the thread id of the server's initial handshake packet
// (protocol 10: version string, then the 4-byte connection id), when b
// holds it whole, and registers c with the deadlock detector. It clears
// MariaDB's MARIADB_CLIENT_CACHE_METADATA from the extended capabilities
// the greeting offers (the last 4 of its 10 reserved bytes, when the
// server is not MySQL), so that go-sql-driver does not ask for it: the
// fast path relays a transaction's statements on this socket (txfast.go)
// and reads results in the plain protocol, as the packet pools get them.
func (c *backConn) greeting(b []byte) {
	if len(b) < 5 || b[4] != 10 {
		return
	}
	for i := 5; i < len(b); i++ {
		if b[i] == 0 {
			if i+5 <= len(b) {
				c.thread = binary.LittleEndian.Uint32(b[i+1 : i+5])
				c.dl.register(threadKey{c.addr, c.thread}, c)
			}
			// thread id 4, auth data 8, filler 1, capabilities 2,
			// charset 1, status 2, capabilities 2, auth length 1,
			// reserved 6, MariaDB's extended capabilities 4.
			if i+32 <= len(b) && b[i+14]&1 == 0 { // CLIENT_MYSQL unset: MariaDB
				b[i+28] &^= mariaDBCacheMetadata
			}
			return
		}
	}
}

// Close closes the connection and unregisters it.
func (c *backConn) Close() error {
	if c.thread != 0 {
		c.dl.unregister(threadKey{c.addr, c.thread}, c)
	}
	return c.Conn.Close()
}

// copyMark starts the SQL of a command that a session owns but whose
// warnings are not the statement's (a broadcast write's copies after the
// first, whose warnings one MySQL would report once): the same text for
// every session, so prepared statements stay shared.
const copyMark = "/* shardgen-proxy copy */ "

// command notes the command whose payload starts p: a COM_QUERY (unless
// it starts with copyMark) or COM_STMT_EXECUTE that a session owns is
// followed.
func (c *backConn) command(p []byte) {
	c.tag, c.state, c.count = "", respStart, 0
	c.nhdr, c.left, c.more, c.plen, c.head = 0, 0, false, 0, c.head[:0]
	if c.cur == "" {
		return
	}
	switch p[0] {
	case comQuery:
		if q := p[1:]; len(q) < len(copyMark) || string(q[:len(copyMark)]) != copyMark {
			c.tag = c.cur
		}
	case comExecute:
		c.tag = c.cur
	}
}

// Read reads from the server, following the response of an owned
// command; see the comment at the top of the file.
func (c *backConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && !c.handshook && c.thread == 0 {
		c.greeting(b[:n])
	}
	if n > 0 && c.tag != "" && !c.off {
		if c.scan(b[:n]) && c.count > 0 {
			c.fetchWarnings(c.tag, c.count)
		}
	}
	return n, err
}

// scan follows b; true when the response ended.
func (c *backConn) scan(b []byte) bool {
	for len(b) > 0 && c.tag != "" {
		if c.left == 0 {
			k := copy(c.hdr[c.nhdr:], b)
			c.nhdr += k
			b = b[k:]
			if c.nhdr < 4 {
				return false
			}
			c.nhdr = 0
			n := int(c.hdr[0]) | int(c.hdr[1])<<8 | int(c.hdr[2])<<16
			if !c.more {
				c.plen, c.head = 0, c.head[:0]
			}
			c.plen += n
			c.more = n == maxPacketLen
			c.left = n
			if n == 0 && !c.more {
				if c.packet() {
					return true
				}
			}
			continue
		}
		k := min(c.left, len(b))
		if room := 32 - len(c.head); room > 0 {
			c.head = append(c.head, b[:min(room, k)]...)
		}
		c.left -= k
		b = b[k:]
		if c.left == 0 && !c.more {
			if c.packet() {
				return true
			}
		}
	}
	return false
}

// packet handles the complete logical packet read (c.head, c.plen);
// true when the response ended (c.tag is then "" unless it has warnings
// to fetch).
func (c *backConn) packet() bool {
	p := c.head
	if len(p) == 0 {
		return false
	}
	switch c.state {
	case respStart:
		switch {
		case p[0] == 0x00:
			return c.end(p, true)
		case p[0] == 0xff, p[0] == 0xfb: // an error; LOCAL INFILE (never sent)
			c.tag = ""
			return false
		}
		n, ok := lenEncInt(p)
		if !ok || n == 0 {
			c.tag = ""
			return false
		}
		c.cols, c.state = n, respCols
	case respCols:
		if c.cols--; c.cols == 0 {
			c.state = respColsEOF
			if c.deprecateEOF {
				c.state = respRows
			}
		}
	case respColsEOF:
		c.state = respRows
	case respRows:
		switch {
		case p[0] == 0xff:
			c.tag = ""
		case p[0] == 0xfe && c.deprecateEOF && c.plen < maxPacketLen:
			return c.end(p, true)
		case p[0] == 0xfe && c.plen < 9:
			return c.end(p, false)
		}
	}
	return false
}

// end reads the warnings and status of the OK (ok) or EOF packet p that
// ends a result; true when no other result follows.
func (c *backConn) end(p []byte, ok bool) bool {
	var warn, status uint16
	if ok {
		rest := p[1:]
		for i := 0; i < 2; i++ { // affected rows, last insert id
			var okInt bool
			if rest, okInt = skipLenEnc(rest); !okInt {
				c.tag = ""
				return false
			}
		}
		if len(rest) >= 4 {
			status, warn = binary.LittleEndian.Uint16(rest), binary.LittleEndian.Uint16(rest[2:])
		}
	} else if len(p) >= 5 {
		warn, status = binary.LittleEndian.Uint16(p[1:]), binary.LittleEndian.Uint16(p[3:])
	}
	c.count += int(warn)
	if status&statusMoreRes != 0 {
		c.state = respStart
		return false
	}
	if c.count == 0 {
		c.tag = ""
	}
	return true
}

// lenEncInt reads the length-encoded integer p starts with.
func lenEncInt(p []byte) (uint64, bool) {
	n, _, ok := lenEnc(p)
	return n, ok
}

// skipLenEnc returns p after its first length-encoded integer.
func skipLenEnc(p []byte) ([]byte, bool) {
	_, rest, ok := lenEnc(p)
	return rest, ok
}

// fetchWarnings runs SHOW WARNINGS on the connection, whose last response
// (of tag) reported count warnings, and records them; a failure records
// the count alone.
func (c *backConn) fetchWarnings(tag string, count int) {
	c.tag = ""
	list, _ := c.showWarnings()
	c.store.add(tag, count, list)
}

// showWarnings runs SHOW WARNINGS on the raw connection and reads its
// rows (Level, Code, Message).
func (c *backConn) showWarnings() ([]warning, error) {
	q := "SHOW WARNINGS"
	pkt := append([]byte{byte(len(q) + 1), 0, 0, 0, comQuery}, q...)
	if _, err := c.Conn.Write(pkt); err != nil {
		return nil, err
	}
	p, err := c.readRaw()
	if err != nil {
		return nil, err
	}
	if p[0] == 0x00 || p[0] == 0xff {
		return nil, nil
	}
	ncols, _ := lenEncInt(p)
	for i := uint64(0); i < ncols; i++ {
		if _, err := c.readRaw(); err != nil {
			return nil, err
		}
	}
	if !c.deprecateEOF {
		if _, err := c.readRaw(); err != nil {
			return nil, err
		}
	}
	var out []warning
	for {
		p, err := c.readRaw()
		if err != nil {
			return out, err
		}
		if p[0] == 0xff || p[0] == 0xfe && len(p) < maxPacketLen && (c.deprecateEOF || len(p) < 9) {
			return out, nil
		}
		level, rest, ok1 := lenEncString(p)
		code, rest, ok2 := lenEncString(rest)
		msg, _, ok3 := lenEncString(rest)
		if ok1 && ok2 && ok3 {
			n, _ := strconv.ParseUint(code, 10, 64)
			out = append(out, warning{level: level, code: n, msg: msg})
		}
	}
}

// readRaw reads one packet (below 16 MiB: SHOW WARNINGS rows are) from
// the raw connection.
func (c *backConn) readRaw() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.Conn, hdr[:]); err != nil {
		return nil, err
	}
	p := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(c.Conn, p); err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, io.ErrUnexpectedEOF
	}
	return p, nil
}

// diagnostics reports whether q only reads the last statement's
// diagnostics (SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) ..., or a
// statement naming @@warning_count or @@error_count), which keeps them.
func diagnostics(q string) bool {
	// Every text-protocol statement asks (the fast path too): no
	// allocation.
	if w, i := nextWord(q, 0); eqFold(w, "show") {
		if w, _ = nextWord(q, i); eqFold(w, "warnings") || eqFold(w, "errors") || eqFold(w, "count") {
			return true
		}
	}
	return containsFold(q, "warning_count") || containsFold(q, "error_count")
}

// usesNoTable reports whether q is a SELECT, SET or DO without FROM (a
// FROM DUAL aside): a statement that, run without raising anything, keeps
// the session's warnings (collectWarnings). A FROM inside a string makes
// it read as one that uses a table, which clears them.
func usesNoTable(q string) bool {
	w, _ := nextWord(q, 0)
	if !eqFold(w, "select") && !eqFold(w, "set") && !eqFold(w, "do") {
		return false
	}
	lower := strings.ToLower(q)
	for i := strings.Index(lower, "from"); i >= 0; {
		rest := strings.TrimLeft(lower[i+4:], " \t\r\n")
		if !strings.HasPrefix(rest, "dual") || len(rest) > 4 && rest[4] != ' ' && rest[4] != ';' {
			return false
		}
		j := strings.Index(lower[i+4:], "from")
		if j < 0 {
			break
		}
		i += 4 + j
	}
	return true
}

// showWarnings answers SHOW WARNINGS, SHOW ERRORS (errors only) and SHOW
// COUNT(*) WARNINGS|ERRORS from the session's last statement; ok is false
// for any other statement. SHOW WARNINGS|ERRORS LIMIT [offset,] n (or
// LIMIT n OFFSET offset) returns those rows of the list, as MariaDB does
// (the offset counts the rows shown: errors only for SHOW ERRORS);
// anything else after WARNINGS or ERRORS is MariaDB's syntax error 1064,
// which becomes the session's diagnostics as MariaDB's does.
func (h *handler) showWarnings(c *mysql.Conn, sess *session, q string) (*sqltypes.Result, bool, error) {
	w := leadingWords(q, 6)
	if w[0] != "show" {
		return nil, false, nil
	}
	charset := resultCollation(c)
	if w[1] == "count" && w[2] == "(" && w[3] == "*" && w[4] == ")" && (w[5] == "warnings" || w[5] == "errors") {
		n, name := sess.warn.count, "@@session.warning_count"
		if w[5] == "errors" {
			n, name = sess.warn.errorCount(), "@@session.error_count"
		}
		return &sqltypes.Result{Fields: []*querypb.Field{{Name: name, Type: sqltypes.Uint64, Charset: collationBinary, ColumnLength: 21,
			Flags: uint32(querypb.MySqlFlag_UNSIGNED_FLAG)}}, Rows: []sqltypes.Row{{sqltypes.NewUint64(uint64(n))}}}, true, nil
	}
	if w[1] != "warnings" && w[1] != "errors" {
		return nil, false, nil
	}
	_, i := nextWord(q, 0)
	_, i = nextWord(q, i)
	offset, limit, err := showWarningsLimit(q, i)
	if err != nil {
		var se *sqlerror.SQLError
		if errors.As(err, &se) && se.Number() == sqlerror.ERParseError {
			sess.warn = warnings{count: 1, list: []warning{{level: "Error", code: uint64(se.Number()), msg: se.Message}}}
		}
		return nil, true, err
	}
	res := &sqltypes.Result{Fields: []*querypb.Field{
		{Name: "Level", Type: sqltypes.VarChar, Charset: charset, ColumnLength: 28, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
		{Name: "Code", Type: sqltypes.Uint32, Charset: collationBinary, ColumnLength: 4, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG | querypb.MySqlFlag_UNSIGNED_FLAG)},
		{Name: "Message", Type: sqltypes.VarChar, Charset: charset, ColumnLength: 2048, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
	}}
	var n uint64 // rows of the list shown so far, those before offset too
	for _, x := range sess.warn.list {
		if w[1] == "errors" && x.level != "Error" {
			continue
		}
		if n++; n <= offset {
			continue
		}
		if n-offset > limit {
			break
		}
		res.Rows = append(res.Rows, sqltypes.Row{sqltypes.NewVarChar(x.level), sqltypes.NewUint32(uint32(x.code)), sqltypes.NewVarChar(x.msg)})
	}
	return res, true, nil
}

// showWarningsLimit parses what follows SHOW WARNINGS or SHOW ERRORS in q
// from i: nothing (every row), or LIMIT n, LIMIT offset, n or LIMIT n
// OFFSET offset, with unsigned 64-bit integers as MariaDB reads them.
// Anything else is MariaDB's syntax error 1064 naming where it starts;
// MariaDB's ROWS EXAMINED is not supported.
func showWarningsLimit(q string, i int) (offset, limit uint64, err error) {
	limit = math.MaxUint64
	next := func() (string, int) {
		w, j := nextWord(q, i)
		start := j - len(w)
		i = j
		return w, start
	}
	syntax := func(at int) error {
		return sqlerror.NewSQLError(sqlerror.ERParseError, "42000",
			"You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '"+
				q[at:]+"' at line "+strconv.Itoa(1+strings.Count(q[:at], "\n")))
	}
	number := func() (uint64, error) {
		w, at := next()
		n, perr := strconv.ParseUint(w, 10, 64)
		if perr != nil || w[0] == '+' || i < len(q) && q[i] == '.' {
			return 0, syntax(at)
		}
		return n, nil
	}
	end := func() error {
		w, at := next()
		if w == ";" {
			w, at = next()
		}
		if w != "" {
			if eqFold(w, "rows") {
				return notSupported("SHOW WARNINGS ... ROWS EXAMINED")
			}
			return syntax(at)
		}
		return nil
	}
	w, at := next()
	if !eqFold(w, "limit") {
		i = at
		return 0, limit, end()
	}
	if limit, err = number(); err != nil {
		return 0, 0, err
	}
	save := i
	switch w, _ = next(); {
	case w == ",":
		offset = limit
		if limit, err = number(); err != nil {
			return 0, 0, err
		}
	case eqFold(w, "offset"):
		if offset, err = number(); err != nil {
			return 0, 0, err
		}
	default:
		i = save
	}
	return offset, limit, end()
}

// collectWarnings ends a statement q of the session: unless q only reads
// diagnostics, the session's warnings become those its back-end
// statements recorded, plus the statement's error (err) as an Error. A
// statement that uses no table and raised nothing (SELECT 1, SELECT
// ROW_COUNT(), SET @v = 1, DO 1) keeps the last statement's, as MariaDB
// keeps them: its list is reset by each statement that uses tables.
func (h *handler) collectWarnings(sess *session, q string, err error) {
	if diagnostics(q) {
		return
	}
	w := h.s.warns.take(sess.tag)
	if err == nil && w.count == 0 && len(w.list) == 0 && usesNoTable(q) {
		sess.warn.kept = true
		return
	}
	if err != nil {
		msg, code := strings.TrimSpace(err.Error()), uint64(0)
		var se *sqlerror.SQLError
		if errors.As(sqlError(err), &se) {
			code, msg = uint64(se.Number()), se.Message
		}
		w.list = append([]warning{{level: "Error", code: code, msg: msg}}, w.list...)
		if len(w.list) > maxWarnings {
			w.list = w.list[:maxWarnings]
		}
		w.count++
	}
	sess.warn = w
}

// SyscallConn returns the raw connection of the back-end socket, so that
// go-sql-driver's liveness check (checkConnLiveness) still peeks at it
// before reusing the connection.
func (c *backConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("proxy: the back-end connection has no file descriptor")
	}
	return sc.SyscallConn()
}
