package proxy

import (
	"crypto/rand"
	"crypto/subtle"
	"net"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// authServer checks clients against the configured proxy accounts with
// mysql_native_password (ShardingSphere's default MySQL authenticator, the
// one the handshake offers) or, for a client that answers the handshake
// with it, caching_sha2_password (see cachingSha2). Any other
// method a client asks for is switched to mysql_native_password. A wrong
// password, an unknown user or a user whose host part does not match the
// client's address all get ERROR 1045 (28000) "Access denied for user
// 'u'@'host' (using password: YES|NO)", as MySQL answers. Safe for
// concurrent use: the accounts are read-only after construction.
type authServer struct {
	users   []User
	methods []mysql.AuthMethod
}

var (
	_ mysql.AuthServer    = (*authServer)(nil)
	_ mysql.HashStorage   = (*authServer)(nil)
	_ mysql.UserValidator = (*authServer)(nil)
)

func newAuthServer(users []User) *authServer {
	a := &authServer{users: users}
	// The first method is the one vitess switches a client to when it asks
	// for a method not listed.
	a.methods = []mysql.AuthMethod{mysql.NewMysqlNativeAuthMethod(a, a), cachingSha2{a}}
	return a
}

// AuthMethods implements mysql.AuthServer.
func (a *authServer) AuthMethods() []mysql.AuthMethod { return a.methods }

// DefaultAuthMethodDescription implements mysql.AuthServer.
func (a *authServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.MysqlNativePassword
}

// HandleUser implements mysql.UserValidator: every user goes through the
// password check, so an unknown user is denied like a wrong password.
func (a *authServer) HandleUser(string) bool { return true }

// UserEntryWithHash implements mysql.HashStorage: authResponse must be the
// mysql_native_password scramble of a matching account's password with
// salt (an empty response for an empty password).
func (a *authServer) UserEntryWithHash(_ *mysql.Conn, salt []byte, user string, authResponse []byte, remoteAddr net.Addr) (mysql.Getter, error) {
	return a.check(user, authResponse, remoteAddr, func(password []byte) []byte {
		return mysql.ScrambleMysqlNativePassword(salt, password)
	})
}

// check returns the account of user that the client at remoteAddr proved
// with authResponse, the scramble of its password; the access-denied error
// otherwise.
func (a *authServer) check(user string, authResponse []byte, remoteAddr net.Addr, scramble func(password []byte) []byte) (mysql.Getter, error) {
	host := hostOf(remoteAddr)
	for _, u := range a.users {
		if u.Name != user || !hostMatches(u.Host, host) {
			continue
		}
		want := scramble([]byte(u.Password))
		if len(want) == len(authResponse) && subtle.ConstantTimeCompare(want, authResponse) == 1 {
			return &account{StaticUserData: mysql.StaticUserData{Username: user}, user: u, host: host}, nil
		}
	}
	using := "NO"
	if len(authResponse) > 0 {
		using = "YES"
	}
	return nil, sqlerror.NewSQLError(sqlerror.ERAccessDeniedError, sqlerror.SSAccessDeniedError,
		"Access denied for user '"+user+"'@'"+host+"' (using password: "+using+")")
}

// cachingSha2 is the caching_sha2_password method (MySQL 8's default,
// https://dev.mysql.com/doc/dev/mysql-server/latest/page_caching_sha2_authentication_exchanges.html)
// over any transport. The client answers the 20-byte salt with
// SHA256(password) XOR SHA256(SHA256(SHA256(password)), salt); the proxy
// holds every password in plain text, so its "cache" always has the entry:
// a matching scramble gets the fast-auth-success packet (0x01 0x03) and
// then OK, anything else ERROR 1045 at once. It never asks for the full
// authentication (0x04: the password in clear over TLS or RSA-encrypted),
// so it needs neither TLS nor a key pair; where MySQL would ask for it
// after a mismatch, the outcome would be the same denial. ShardingSphere's
// MySQLCachingSha2PasswordAuthenticator (proxy/frontend/type/mysql,
// apache/shardingsphere#31280) checks the same scramble against the
// configured password; unlike it, an account without a password accepts
// only an empty answer, as the mysql_native_password check does. vitess's
// own method (mysql.NewSha2CachingAuthMethod) is not used: it declines
// every user outside TLS and unix sockets, because its cache may miss.
type cachingSha2 struct{ a *authServer }

var _ mysql.AuthMethod = cachingSha2{}

// Name implements mysql.AuthMethod: "caching_sha2_password".
func (cachingSha2) Name() mysql.AuthMethodDescription { return mysql.CachingSha2Password }

// HandleUser implements mysql.AuthMethod: every user, on any transport
// (the password check follows).
func (cachingSha2) HandleUser(*mysql.Conn, string) bool { return true }

// AuthPluginData implements mysql.AuthMethod: the salt of an auth switch
// request, 20 random 7-bit bytes other than NUL and '$' (as vitess and
// MySQL make it) and a trailing NUL.
func (cachingSha2) AuthPluginData() ([]byte, error) {
	salt := make([]byte, 21)
	if _, err := rand.Read(salt[:20]); err != nil {
		return nil, err
	}
	for i := range salt[:20] {
		salt[i] &= 0x7f
		if salt[i] == 0 || salt[i] == '$' {
			salt[i]++
		}
	}
	salt[20] = 0
	return salt, nil
}

// AllowClearTextWithoutTLS implements mysql.AuthMethod: true, no password
// ever crosses the wire.
func (cachingSha2) AllowClearTextWithoutTLS() bool { return true }

// HandleAuthPluginData implements mysql.AuthMethod: it checks the scramble
// clientData of the salt serverData (which ends in its NUL) and on success
// writes the fast-auth-success packet; vitess then sends OK.
func (m cachingSha2) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, remoteAddr net.Addr) (mysql.Getter, error) {
	if len(serverData) == 0 || serverData[len(serverData)-1] != 0 {
		return nil, sqlerror.NewSQLError(sqlerror.ERAccessDeniedError, sqlerror.SSAccessDeniedError, "Access denied for user '"+user+"'@'"+hostOf(remoteAddr)+"'")
	}
	salt := serverData[:len(serverData)-1]
	acct, err := m.a.check(user, clientData, remoteAddr, func(password []byte) []byte {
		return mysql.ScrambleCachingSha2Password(salt, password)
	})
	if err != nil {
		return nil, err
	}
	// WritePacket takes room for the 4-byte header before the payload.
	if err := c.WritePacket([]byte{0, 0, 0, 0, mysql.AuthMoreDataPacket, mysql.CachingSha2FastAuth}); err != nil {
		return nil, err
	}
	return acct, nil
}

// account is the mysql.Getter of an authenticated connection
// (Conn.UserData): the configured account it matched and the client's host.
type account struct {
	mysql.StaticUserData
	user User
	host string
}

// checkDatabase returns the MySQL error for using the logic database db:
// ERROR 1049 (42000) "Unknown database 'db'" when it is not served, ERROR
// 1044 (42000) "Access denied for user 'u'@'host' to database 'db'" when
// the account may not use it (ShardingSphere MySQLAuthenticationEngine
// checks in this order), nil otherwise. A connection without an account
// (an insecure server) may use every database.
func checkDatabase(cfg *Config, ud mysql.Getter, db string) error {
	if !strings.EqualFold(db, cfg.Rules.DatabaseName) {
		return sqlerror.NewSQLError(sqlerror.ERBadDb, sqlerror.SSClientError, "Unknown database '"+db+"'")
	}
	if a, ok := ud.(*account); ok && !a.user.Permits(cfg.Privilege, db) {
		return sqlerror.NewSQLError(sqlerror.ERDBAccessDenied, sqlerror.SSClientError,
			"Access denied for user '"+a.user.Name+"'@'"+a.host+"' to database '"+db+"'")
	}
	return nil
}

// hostOf returns the IP address of addr as text ("127.0.0.1"), or
// "localhost" for a unix socket.
func hostOf(addr net.Addr) string {
	if addr == nil {
		return "localhost"
	}
	if h, _, err := net.SplitHostPort(addr.String()); err == nil {
		return h
	}
	return "localhost"
}

// hostMatches reports whether an account's host part accepts host: "" and
// "%" accept any host (ShardingSphere Grantee), anything else must be equal.
func hostMatches(pattern, host string) bool {
	return pattern == "" || pattern == "%" || pattern == host
}
