package proxy

import (
	"crypto/subtle"
	"net"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
)

// authServer checks clients against the configured proxy accounts with
// mysql_native_password (ShardingSphere's default MySQL authenticator). A
// wrong password, an unknown user or a user whose host part does not match
// the client's address all get ERROR 1045 (28000) "Access denied for user
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
	a.methods = []mysql.AuthMethod{mysql.NewMysqlNativeAuthMethod(a, a)}
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
	host := hostOf(remoteAddr)
	for _, u := range a.users {
		if u.Name != user || !hostMatches(u.Host, host) {
			continue
		}
		want := mysql.ScrambleMysqlNativePassword(salt, []byte(u.Password))
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
