package proxy

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// COM_CHANGE_USER (a client's mysql_change_user, Connector/J's
// changeUser, node mysql2's changeUser) authenticates another account on
// the open connection and starts a new session, as COM_RESET_CONNECTION
// does, with the database, character set and connection attributes of the
// packet. vitess v0.24.4 answers the command "not implemented", so the
// proxy's clientConn takes the packet from the stream before vitess reads
// it, when it starts a read at a packet boundary: the proxy then asks the
// client to authenticate with mysql_native_password on a new scramble
// (AuthSwitchRequest: the packet's own answer was made with the
// handshake's scramble, which vitess does not keep), checks the answer
// against the configured accounts, resets the session and answers OK. A
// failed authentication, or a database the account may not use, is
// answered with MySQL's error and the connection is closed. A connection
// that switched to TLS is not followed (see clientConn): there vitess
// answers COM_CHANGE_USER with ERROR 1047.

// comChangeUser is COM_CHANGE_USER's command byte.
const comChangeUser = 0x11

// changeUserPacket is the content of a COM_CHANGE_USER packet.
type changeUserPacket struct {
	user, db string
	charset  uint16 // 0: not sent
	attrs    map[string]string
}

// parseChangeUser reads a COM_CHANGE_USER payload p (its command byte
// first), as a 4.1 client with CLIENT_SECURE_CONNECTION and
// CLIENT_PLUGIN_AUTH writes it.
func parseChangeUser(p []byte) (changeUserPacket, error) {
	var out changeUserPacket
	bad := errors.New("malformed COM_CHANGE_USER packet")
	p = p[1:]
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return out, bad
	}
	out.user, p = string(p[:i]), p[i+1:]
	if len(p) < 1 || len(p) < 1+int(p[0]) {
		return out, bad
	}
	p = p[1+int(p[0]):] // the auth response to the handshake's scramble
	i = bytes.IndexByte(p, 0)
	if i < 0 {
		return out, bad
	}
	out.db, p = string(p[:i]), p[i+1:]
	if len(p) >= 2 {
		out.charset, p = binary.LittleEndian.Uint16(p), p[2:]
	}
	if i = bytes.IndexByte(p, 0); i >= 0 {
		p = p[i+1:] // the auth plugin's name
		if len(p) > 0 {
			n, rest, ok := lenEnc(p)
			if !ok || uint64(len(rest)) < n {
				return out, bad
			}
			kv := rest[:n]
			out.attrs = map[string]string{}
			for len(kv) > 0 {
				k, r1, ok1 := lenEncString(kv)
				v, r2, ok2 := lenEncString(r1)
				if !ok1 || !ok2 {
					return out, bad
				}
				out.attrs[k], kv = v, r2
			}
		}
	}
	return out, nil
}

// lenEnc reads a length-encoded integer from p.
func lenEnc(p []byte) (uint64, []byte, bool) {
	if len(p) == 0 {
		return 0, nil, false
	}
	switch p[0] {
	case 0xfc:
		if len(p) < 3 {
			return 0, nil, false
		}
		return uint64(binary.LittleEndian.Uint16(p[1:])), p[3:], true
	case 0xfd:
		if len(p) < 4 {
			return 0, nil, false
		}
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, p[4:], true
	case 0xfe:
		if len(p) < 9 {
			return 0, nil, false
		}
		return binary.LittleEndian.Uint64(p[1:]), p[9:], true
	}
	return uint64(p[0]), p[1:], true
}

// lenEncString reads a length-encoded string from p.
func lenEncString(p []byte) (string, []byte, bool) {
	n, rest, ok := lenEnc(p)
	if !ok || uint64(len(rest)) < n {
		return "", nil, false
	}
	return string(rest[:n]), rest[n:], true
}

// readPacket reads one packet from the client (the held-back bytes
// first): its sequence number and payload.
func (c *clientConn) readPacket() (byte, []byte, error) {
	var hdr [4]byte
	if err := c.readHeld(hdr[:]); err != nil {
		return 0, nil, err
	}
	p := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if err := c.readHeld(p); err != nil {
		return 0, nil, err
	}
	return hdr[3], p, nil
}

// readHeld fills p from the held-back bytes, then from the connection.
func (c *clientConn) readHeld(p []byte) error {
	k := copy(p, c.held)
	c.held = c.held[k:]
	_, err := io.ReadFull(c.Conn, p[k:])
	return err
}

// writePacket writes payload p as packet seq.
func (c *clientConn) writePacket(seq byte, p []byte) error {
	out := make([]byte, 4, 4+len(p))
	out[0], out[1], out[2], out[3] = byte(len(p)), byte(len(p)>>8), byte(len(p)>>16), seq
	_, err := c.Conn.Write(append(out, p...))
	return err
}

// changeUser runs the COM_CHANGE_USER exchange whose packet starts the
// held-back bytes (see the comment at the top of the file); bytes after
// the exchange stay held back for vitess. A non-nil error ends the
// connection.
func (c *clientConn) changeUser() error {
	_, p, err := c.readPacket()
	if err != nil {
		return err
	}
	pkt, err := parseChangeUser(p)
	if err != nil {
		return c.fail(2, sqlerror.NewSQLError(sqlerror.ErrorCode(1835), sqlerror.SSUnknownSQLState, "Malformed communication packet: "+err.Error()))
	}
	salt := make([]byte, 20)
	if _, err := rand.Read(salt); err != nil {
		return err
	}
	for i := range salt {
		salt[i] = salt[i]&0x7f | 1 // printable-safe, never NUL, as MySQL's scrambles
	}
	sw := append([]byte{0xfe}, mysql.MysqlNativePassword...)
	sw = append(append(append(sw, 0), salt...), 0)
	if err := c.writePacket(1, sw); err != nil {
		return err
	}
	seq, resp, err := c.readPacket()
	if err != nil {
		return err
	}
	ud, err := c.h.s.authenticate(pkt.user, salt, resp, c.Conn.RemoteAddr())
	if err == nil {
		err = c.h.changedUser(c.mc, pkt, ud)
	}
	if err != nil {
		return c.fail(seq+1, err)
	}
	c.sc.stmts, c.sc.pending, c.sc.npending, c.sc.head = nil, nil, 0, 0
	ok := []byte{0, 0, 0, byte(c.mc.StatusFlags), byte(c.mc.StatusFlags >> 8), 0, 0}
	return c.writePacket(seq+1, ok)
}

// fail answers the client err (a *sqlerror.SQLError) as packet seq and
// returns io.EOF: the connection ends.
func (c *clientConn) fail(seq byte, err error) error {
	var se *sqlerror.SQLError
	if !errors.As(sqlError(err), &se) {
		return io.EOF
	}
	p := []byte{0xff, byte(se.Number()), byte(se.Number() >> 8), '#'}
	p = append(append(p, se.SQLState()...), se.Message...)
	_ = c.writePacket(seq, p)
	return io.EOF
}

// authenticate checks the mysql_native_password answer resp to salt of
// user at addr against the configured accounts (any user when there are
// none, as with Options.Insecure) and returns the account.
func (s *Server) authenticate(user string, salt, resp []byte, addr net.Addr) (mysql.Getter, error) {
	if len(s.cfg.Users) == 0 {
		return &mysql.StaticUserData{Username: user}, nil
	}
	return newAuthServer(s.cfg.Users).check(user, resp, addr, func(password []byte) []byte {
		return mysql.ScrambleMysqlNativePassword(salt, password)
	})
}

// changedUser starts the new session of c after COM_CHANGE_USER pkt
// authenticated ud: the old one is reset as by COM_RESET_CONNECTION (its
// transaction rolled back, settings, reserved connections and prepared
// statements dropped), then the packet's database (checked against ud's
// privileges; none: no database), character set and attributes apply.
func (h *handler) changedUser(c *mysql.Conn, pkt changeUserPacket, ud mysql.Getter) error {
	if pkt.db != "" {
		if err := checkDatabase(h.s.cfg, ud, pkt.db); err != nil {
			return err
		}
	}
	sess := sessionOf(c)
	h.ComResetConnection(c)
	c.PrepareData = map[uint32]*mysql.PrepareData{}
	c.User, c.UserData = pkt.user, ud
	sess.db = ""
	if pkt.db != "" {
		sess.db = h.s.cfg.Rules.DatabaseName
	}
	if pkt.charset != 0 {
		c.CharacterSet = collations.ID(pkt.charset)
	}
	c.Attributes = pkt.attrs
	h.s.registerAttrs(c)
	return nil
}
