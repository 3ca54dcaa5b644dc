package proxy

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
	"vitess.io/vitess/go/mysql"
)

// authRelay is a TCP relay between clients and the proxy that records, per
// connection, the packets the server sends during authentication (after
// the greeting, up to its OK or ERR) as authPacket names. With sha2Greeting
// it also rewrites the greeting as if the server offered
// caching_sha2_password (MySQL 8's default) instead of
// mysql_native_password: go-sql-driver answers a greeting with the method
// it names, so through the relay it authenticates with
// caching_sha2_password, as a MySQL 8 client with that default does. Both
// names are 21 bytes long, so the packet keeps its length.
type authRelay struct {
	ln           net.Listener
	target       string
	sha2Greeting bool

	mu       sync.Mutex
	sessions [][]string
	wg       sync.WaitGroup
}

// newAuthRelay listens on a free port of 127.0.0.1 and relays to target
// until the test ends.
func newAuthRelay(t *testing.T, target string, sha2Greeting bool) *authRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &authRelay{ln: ln, target: target, sha2Greeting: sha2Greeting}
	r.wg.Add(1)
	go r.accept()
	t.Cleanup(func() {
		ln.Close()
		r.wg.Wait()
	})
	return r
}

func (r *authRelay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.relay(c)
		}()
	}
}

// relay serves one client connection c.
func (r *authRelay) relay(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", r.target)
	if err != nil {
		return
	}
	defer s.Close()
	go func() {
		_, _ = io.Copy(s, c)
		s.Close()
	}()
	// The session is recorded before the client sees the end of its
	// authentication, so sessions are in the order clients log in.
	var seen []string
	for i := 0; ; i++ {
		p, err := readRelayPacket(s)
		if err != nil {
			return
		}
		if i == 0 && r.sha2Greeting {
			native := append([]byte(mysql.MysqlNativePassword), 0)
			if !bytes.HasSuffix(p, native) {
				p = nil
				seen = append(seen, "greeting without mysql_native_password")
			} else {
				copy(p[len(p)-len(native):], append([]byte(mysql.CachingSha2Password), 0))
			}
		} else if i > 0 {
			seen = append(seen, authPacket(p[4:]))
		}
		if p == nil || p[4] == mysql.OKPacket || p[4] == mysql.ErrPacket {
			r.mu.Lock()
			r.sessions = append(r.sessions, seen)
			r.mu.Unlock()
		}
		if p == nil {
			return
		}
		if _, err := c.Write(p); err != nil {
			return
		}
		if i > 0 && (p[4] == mysql.OKPacket || p[4] == mysql.ErrPacket) {
			break
		}
	}
	_, _ = io.Copy(c, s)
}

// readRelayPacket reads one packet, header included.
func readRelayPacket(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	p := make([]byte, 4+(int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16))
	copy(p, hdr[:])
	if _, err := io.ReadFull(r, p[4:]); err != nil {
		return nil, err
	}
	if len(p) == 4 {
		return nil, errors.New("empty packet")
	}
	return p, nil
}

// authPacket names an authentication-phase packet from the server: "OK",
// "ERR", "fast-auth-success" (caching_sha2_password 0x01 0x03) or
// "switch to <method>".
func authPacket(p []byte) string {
	switch {
	case p[0] == mysql.OKPacket:
		return "OK"
	case p[0] == mysql.ErrPacket:
		return "ERR"
	case len(p) == 2 && p[0] == mysql.AuthMoreDataPacket && p[1] == mysql.CachingSha2FastAuth:
		return "fast-auth-success"
	case p[0] == 0xfe:
		name, _, _ := bytes.Cut(p[1:], []byte{0})
		return "switch to " + string(name)
	}
	return "unexpected packet"
}

// take returns the sessions recorded so far and forgets them.
func (r *authRelay) take() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions
	r.sessions = nil
	return s
}

// relayClient opens go-sql-driver on database px_db at addr (one
// connection, closed after use so that the relay records it).
func relayClient(t *testing.T, addr, user, pass string) error {
	t.Helper()
	c := gomysql.NewConfig()
	c.User, c.Passwd, c.Net, c.Addr, c.DBName = user, pass, "tcp", addr, "px_db"
	db, err := sql.Open("mysql", c.FormatDSN())
	require.NoError(t, err)
	defer db.Close()
	var name string
	if err := db.QueryRow("SELECT DATABASE()").Scan(&name); err != nil {
		return err
	}
	require.Equal(t, "px_db", name)
	return nil
}

// sha2YAML is ldYAML with a second account, nopw@%, without a password.
func sha2YAML() string {
	return strings.Replace(ldYAML(), "      password: secret\n", "      password: secret\n    - user: nopw@%\n      password: ''\n", 1)
}

// TestProxyCachingSha2Password logs in with caching_sha2_password from
// go-sql-driver (a greeting that offers it), the mariadb CLI
// (--default-auth) and a raw client, without TLS: the proxy knows every
// password, so the fast authentication always decides. A relay records
// the server's authentication packets, to tell caching_sha2_password from
// a switch to mysql_native_password.
func TestProxyCachingSha2Password(t *testing.T) {
	e := newLdEnvYAML(t, sha2YAML())
	addr := e.srv.Addr()
	fast := []string{"fast-auth-success", "OK"}

	t.Run("go-sql-driver", func(t *testing.T) {
		r := newAuthRelay(t, addr, true)
		ra := r.ln.Addr().String()
		require.NoError(t, relayClient(t, ra, "root", "secret"))
		// An account without a password: the client's empty answer makes
		// vitess ask again (an auth switch to the same method with a new
		// salt), which the client answers empty again.
		require.NoError(t, relayClient(t, ra, "nopw", ""))
		denied := []string{"ERR"}
		for _, c := range []struct{ user, pass, err string }{
			{"root", "wrong", "Error 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: YES)"},
			{"nobody", "secret", "Error 1045 (28000): Access denied for user 'nobody'@'127.0.0.1' (using password: YES)"},
			{"nopw", "secret", "Error 1045 (28000): Access denied for user 'nopw'@'127.0.0.1' (using password: YES)"},
			{"root", "", "Error 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: NO)"},
		} {
			require.EqualError(t, relayClient(t, ra, c.user, c.pass), c.err, "%s/%s", c.user, c.pass)
		}
		require.Equal(t, [][]string{fast, {"switch to caching_sha2_password", "fast-auth-success", "OK"},
			denied, denied, denied, {"switch to caching_sha2_password", "ERR"}}, r.take())
	})

	t.Run("raw", func(t *testing.T) {
		// rawHandshake accepts fast-auth-success followed by OK only.
		c := dialRaw(t, addr, "root", "secret", "px_db", mysql.CachingSha2Password)
		stmt, params := c.prepare(t, "INSERT INTO ld_doc (id, note) VALUES (?, ?)")
		require.Equal(t, 2, params)
		require.NoError(t, c.execute(t, stmt, rawParam{typ: rawTypeLongLong, val: binary.LittleEndian.AppendUint64(nil, 1)}, rawParam{typ: rawTypeVarString, val: []byte("sha2")}))
		_, err := rawHandshake(addr, "root", "wrong", "px_db", mysql.CachingSha2Password)
		require.EqualError(t, err, "Error 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: YES)")
		// The greeting still offers mysql_native_password
		// (ShardingSphere's default), and it still works.
		c = dialRaw(t, addr, "root", "secret", "px_db", mysql.MysqlNativePassword)
		c.prepare(t, "SELECT note FROM ld_doc WHERE id = ?")
	})

	t.Run("mariadb CLI", func(t *testing.T) {
		bin, err := exec.LookPath("mariadb")
		require.NoError(t, err, "the mariadb client is installed by scripts/db.sh")
		r := newAuthRelay(t, addr, false)
		host, port, _ := strings.Cut(r.ln.Addr().String(), ":")
		run := func(pass string) (string, error) {
			out, err := exec.Command(bin, "-h", host, "-P", port, "-uroot", "-p"+pass, "--default-auth=caching_sha2_password",
				"px_db", "--batch", "-e", "SELECT note FROM ld_doc WHERE id = 1").CombinedOutput()
			return string(out), err
		}
		out, err := run("secret")
		require.NoError(t, err, out)
		require.Equal(t, "note\nsha2\n", out)
		out, err = run("wrong")
		require.Error(t, err)
		require.Equal(t, "ERROR 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: YES)\n", out)
		// The client names caching_sha2_password in its handshake response
		// but sends no scramble there (the greeting offered another
		// method), so vitess asks again with a new salt.
		require.Equal(t, [][]string{{"switch to caching_sha2_password", "fast-auth-success", "OK"}, {"switch to caching_sha2_password", "ERR"}}, r.take())
	})
}
