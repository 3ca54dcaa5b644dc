package runtime

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

func TestDriverDSNFromURL(t *testing.T) {
	tests := []struct {
		name string
		cfg  DataSourceConfig
		want string
	}{
		{"host port db", DataSourceConfig{URL: "jdbc:mysql://127.0.0.1:13306/ds_0", Username: "root"},
			"root@tcp(127.0.0.1:13306)/ds_0"},
		{"default port", DataSourceConfig{URL: "jdbc:mysql://db.example.com/ds_1", Username: "root", Password: "pw"},
			"root:pw@tcp(db.example.com:3306)/ds_1"},
		{"mariadb IPv6", DataSourceConfig{URL: "jdbc:mariadb://[::1]:3307/ds_0", Username: "root"},
			"root@tcp([::1]:3307)/ds_0"},
		{"IPv6 default port", DataSourceConfig{URL: "jdbc:mysql://[fe80::1]/db"},
			"tcp([fe80::1]:3306)/db"},
		{"scheme case", DataSourceConfig{URL: "JDBC:MySQL://h/db"}, "tcp(h:3306)/db"},
		{"no database", DataSourceConfig{URL: "jdbc:mysql://h:3306"}, "tcp(h:3306)/"},
		{"empty database", DataSourceConfig{URL: "jdbc:mysql://h:3306/?useSSL=false"}, "tcp(h:3306)/?tls=false"},
		{"default host", DataSourceConfig{URL: "jdbc:mysql:///db"}, "tcp(localhost:3306)/db"},
		{"escaped database", DataSourceConfig{URL: "jdbc:mysql://h/my%20db"}, "tcp(h:3306)/my%20db"},
		{"ShardingSphere example", DataSourceConfig{
			URL:      "jdbc:mysql://127.0.0.1:3306/demo_ds_0?serverTimezone=UTC&useSSL=false&characterEncoding=utf8&useUnicode=true&allowPublicKeyRetrieval=true",
			Username: "root", Password: "",
		}, "root@tcp(127.0.0.1:3306)/demo_ds_0?tls=false"},
		{"unknown parameters ignored", DataSourceConfig{URL: "jdbc:mysql://h/db?foo=bar&rewriteBatchedStatements=true&cachePrepStmts=true&zeroDateTimeBehavior=convertToNull&x"},
			"tcp(h:3306)/db"},
		{"parameter names any case, last wins", DataSourceConfig{URL: "jdbc:mysql://h/db?USESSL=true&usessl=FALSE"},
			"tcp(h:3306)/db?tls=false"},

		// TLS
		{"sslMode DISABLED", DataSourceConfig{URL: "jdbc:mysql://h/db?sslMode=DISABLED"}, "tcp(h:3306)/db?tls=false"},
		{"sslMode PREFERRED", DataSourceConfig{URL: "jdbc:mysql://h/db?sslMode=PREFERRED"}, "tcp(h:3306)/db?tls=preferred"},
		{"sslMode REQUIRED", DataSourceConfig{URL: "jdbc:mysql://h/db?sslMode=REQUIRED"}, "tcp(h:3306)/db?tls=skip-verify"},
		{"sslMode VERIFY_CA", DataSourceConfig{URL: "jdbc:mysql://h/db?sslMode=VERIFY_CA"}, "tcp(h:3306)/db?tls=true"},
		{"sslMode VERIFY_IDENTITY", DataSourceConfig{URL: "jdbc:mysql://h/db?sslMode=verify_identity"}, "tcp(h:3306)/db?tls=true"},
		{"sslMode beats useSSL", DataSourceConfig{URL: "jdbc:mysql://h/db?useSSL=false&sslMode=REQUIRED"}, "tcp(h:3306)/db?tls=skip-verify"},
		{"mariadb sslMode disable", DataSourceConfig{URL: "jdbc:mariadb://h/db?sslMode=disable"}, "tcp(h:3306)/db?tls=false"},
		{"mariadb sslMode trust", DataSourceConfig{URL: "jdbc:mariadb://h/db?sslMode=trust"}, "tcp(h:3306)/db?tls=skip-verify"},
		{"mariadb sslMode verify-ca", DataSourceConfig{URL: "jdbc:mariadb://h/db?sslMode=verify-ca"}, "tcp(h:3306)/db?tls=true"},
		{"mariadb sslMode verify-full", DataSourceConfig{URL: "jdbc:mariadb://h/db?sslMode=verify-full"}, "tcp(h:3306)/db?tls=true"},
		{"useSSL=true", DataSourceConfig{URL: "jdbc:mysql://h/db?useSSL=true"}, "tcp(h:3306)/db?tls=preferred"},
		{"useSSL requireSSL", DataSourceConfig{URL: "jdbc:mysql://h/db?useSSL=true&requireSSL=true"}, "tcp(h:3306)/db?tls=skip-verify"},
		{"useSSL verifyServerCertificate", DataSourceConfig{URL: "jdbc:mysql://h/db?useSSL=yes&requireSSL=true&verifyServerCertificate=true"}, "tcp(h:3306)/db?tls=true"},
		{"mariadb useSsl", DataSourceConfig{URL: "jdbc:mariadb://h/db?useSsl=true"}, "tcp(h:3306)/db?tls=true"},
		{"mariadb useSsl trust", DataSourceConfig{URL: "jdbc:mariadb://h/db?useSsl=true&trustServerCertificate=true"}, "tcp(h:3306)/db?tls=skip-verify"},
		{"no TLS parameter", DataSourceConfig{URL: "jdbc:mysql://h/db?requireSSL=true"}, "tcp(h:3306)/db"},

		// Time zones
		{"zone name", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=Asia/Shanghai"}, "tcp(h:3306)/db?loc=Asia%2FShanghai"},
		{"zone escaped", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=Asia%2FShanghai"}, "tcp(h:3306)/db?loc=Asia%2FShanghai"},
		{"zone UTC", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=UTC"}, "tcp(h:3306)/db"},
		{"zone Z", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=Z"}, "tcp(h:3306)/db"},
		{"zone GMT+8", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=GMT%2B8"}, "tcp(h:3306)/db?loc=Etc%2FGMT-8"},
		{"zone GMT+08:00", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=GMT%2B08:00"}, "tcp(h:3306)/db?loc=Etc%2FGMT-8"},
		{"zone UTC-5", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=UTC-5"}, "tcp(h:3306)/db?loc=Etc%2FGMT%2B5"},
		{"zone +0800", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=%2B0800"}, "tcp(h:3306)/db?loc=Etc%2FGMT-8"},
		{"zone GMT-0", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=GMT-0"}, "tcp(h:3306)/db"},
		{"zone LOCAL", DataSourceConfig{URL: "jdbc:mysql://h/db?connectionTimeZone=LOCAL"}, "tcp(h:3306)/db?loc=Local"},
		{"mariadb timezone", DataSourceConfig{URL: "jdbc:mariadb://h/db?timezone=Europe/Berlin"}, "tcp(h:3306)/db?loc=Europe%2FBerlin"},
		{"mariadb timezone disable", DataSourceConfig{URL: "jdbc:mariadb://h/db?timezone=disable"}, "tcp(h:3306)/db"},

		// Character sets
		{"UTF-8 keeps utf8mb4", DataSourceConfig{URL: "jdbc:mysql://h/db?characterEncoding=UTF-8"}, "tcp(h:3306)/db"},
		{"utf8mb4", DataSourceConfig{URL: "jdbc:mysql://h/db?characterEncoding=utf8mb4"}, "tcp(h:3306)/db"},
		{"GBK keeps utf8mb4", DataSourceConfig{URL: "jdbc:mysql://h/db?characterEncoding=GBK"}, "tcp(h:3306)/db"},
		{"ISO-8859-1 keeps utf8mb4", DataSourceConfig{URL: "jdbc:mysql://h/db?characterEncoding=ISO-8859-1"}, "tcp(h:3306)/db"},
		{"collation only", DataSourceConfig{URL: "jdbc:mysql://h/db?connectionCollation=utf8mb4_unicode_ci"},
			"tcp(h:3306)/db?collation=utf8mb4_unicode_ci"},

		// Timeouts and flags
		{"timeouts", DataSourceConfig{URL: "jdbc:mysql://h/db?connectTimeout=5000&socketTimeout=30000"},
			"tcp(h:3306)/db?readTimeout=30s&timeout=5s"},
		{"connectionTimeout field", DataSourceConfig{URL: "jdbc:mysql://h/db", ConnectionTimeout: 30 * time.Second},
			"tcp(h:3306)/db?timeout=30s"},
		{"connectTimeout beats the field", DataSourceConfig{URL: "jdbc:mysql://h/db?connectTimeout=5000", ConnectionTimeout: 30 * time.Second},
			"tcp(h:3306)/db?timeout=5s"},
		{"connectTimeout 0", DataSourceConfig{URL: "jdbc:mysql://h/db?connectTimeout=0"}, "tcp(h:3306)/db"},
		{"flags", DataSourceConfig{URL: "jdbc:mysql://h/db?allowMultiQueries=true&useAffectedRows=false&useCompression=true"},
			"tcp(h:3306)/db?clientFoundRows=true&compress=true&multiStatements=true"},
		{"useAffectedRows=true", DataSourceConfig{URL: "jdbc:mysql://h/db?useAffectedRows=true&allowMultiQueries=false"}, "tcp(h:3306)/db"},
		{"connection attributes", DataSourceConfig{URL: "jdbc:mysql://h/db?connectionAttributes=program_name:shardgen"},
			"tcp(h:3306)/db?connectionAttributes=program_name%3Ashardgen"},
		{"connection attributes none", DataSourceConfig{URL: "jdbc:mysql://h/db?connectionAttributes=none"}, "tcp(h:3306)/db"},
		{"session variables", DataSourceConfig{URL: "jdbc:mysql://h/db?sessionVariables=sql_mode='STRICT_TRANS_TABLES,NO_ZERO_DATE';wait_timeout=600,"},
			"tcp(h:3306)/db?sql_mode=%27STRICT_TRANS_TABLES%2CNO_ZERO_DATE%27&wait_timeout=600"},

		// Credentials
		{"user info", DataSourceConfig{URL: "jdbc:mysql://app:p%40ss@h/db"}, "app:p@ss@tcp(h:3306)/db"},
		{"fields beat user info", DataSourceConfig{URL: "jdbc:mysql://app:x@h/db", Username: "root", Password: "pw"}, "root:pw@tcp(h:3306)/db"},
		{"user and password parameters", DataSourceConfig{URL: "jdbc:mysql://h/db?user=app&password=x%26y%2Bz"}, "app:x&y+z@tcp(h:3306)/db"},
		{"password with DSN characters", DataSourceConfig{URL: "jdbc:mysql://h/db", Username: "root", Password: "a:b@c/d(e)?f"},
			"root:a:b@c/d(e)?f@tcp(h:3306)/db"},

		// Unix socket
		{"localSocket", DataSourceConfig{URL: "jdbc:mariadb://localhost/db?localSocket=/run/mysqld/mysqld.sock", Username: "root"},
			"root@unix(/run/mysqld/mysqld.sock)/db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cfg.DriverDSN()
			require.NoError(t, err)
			require.Equal(t, withParseTime(tt.want), got)
			// The result is a DSN the driver accepts.
			_, err = mysql.ParseDSN(got)
			require.NoError(t, err)
		})
	}
}

func TestDriverDSNFromDSN(t *testing.T) {
	tests := []struct {
		name string
		cfg  DataSourceConfig
		want string
	}{
		{"as given", DataSourceConfig{DSN: "u:p@tcp(127.0.0.1:3306)/ds_0?parseTime=true"}, "u:p@tcp(127.0.0.1:3306)/ds_0?parseTime=true"},
		{"normalised", DataSourceConfig{DSN: "u@tcp(h)/db?loc=UTC&interpolateParams=false&checkConnLiveness=true"}, "u@tcp(h:3306)/db"},
		{"no address", DataSourceConfig{DSN: "/db"}, "tcp(127.0.0.1:3306)/db"},
		{"unix socket", DataSourceConfig{DSN: "root@unix(/tmp/mysql.sock)/db"}, "root@unix(/tmp/mysql.sock)/db"},
		{"credentials replaced", DataSourceConfig{DSN: "u:p@tcp(h:3306)/db", Username: "root", Password: "s3:c@r/et"},
			"root:s3:c@r/et@tcp(h:3306)/db"},
		{"password added", DataSourceConfig{DSN: "u@tcp(h:3306)/db", Password: "pw"}, "u:pw@tcp(h:3306)/db"},
		{"connectionTimeout", DataSourceConfig{DSN: "tcp(h:3306)/db", ConnectionTimeout: 2 * time.Second}, "tcp(h:3306)/db?timeout=2s"},
		{"timeout kept", DataSourceConfig{DSN: "tcp(h:3306)/db?timeout=1s", ConnectionTimeout: 2 * time.Second}, "tcp(h:3306)/db?timeout=1s"},
		{"system variables kept", DataSourceConfig{DSN: "tcp(h:3306)/db?sql_mode=%27ANSI%27&tls=skip-verify"}, "tcp(h:3306)/db?tls=skip-verify&sql_mode=%27ANSI%27"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cfg.DriverDSN()
			require.NoError(t, err)
			require.Equal(t, withParseTime(tt.want), got)
		})
	}
}

func TestDriverDSNErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  DataSourceConfig
		err  string
	}{
		{"neither", DataSourceConfig{Username: "root"}, "url (or dsn) is required"},
		{"both", DataSourceConfig{URL: "jdbc:mysql://h/db", DSN: "tcp(h)/db"}, "url and dsn are both set; give exactly one"},
		{"negative maxPoolSize", DataSourceConfig{URL: "jdbc:mysql://h/db", MaxPoolSize: -1}, "maxPoolSize must not be negative, got -1"},
		{"negative minPoolSize", DataSourceConfig{URL: "jdbc:mysql://h/db", MinPoolSize: -2}, "minPoolSize must not be negative, got -2"},
		{"negative idle timeout", DataSourceConfig{URL: "jdbc:mysql://h/db", IdleTimeout: -time.Second}, "idleTimeoutMilliseconds must not be negative, got -1000"},
		{"negative connection timeout", DataSourceConfig{URL: "jdbc:mysql://h/db", ConnectionTimeout: -time.Millisecond}, "connectionTimeoutMilliseconds must not be negative, got -1"},
		{"negative lifetime", DataSourceConfig{URL: "jdbc:mysql://h/db", MaxLifetime: -time.Minute}, "maxLifetimeMilliseconds must not be negative, got -60000"},

		// Scheme and host
		{"postgresql", DataSourceConfig{URL: "jdbc:postgresql://h:5432/db?password=secret"}, `url must start with jdbc:mysql:// or jdbc:mariadb://, got "jdbc:postgresql://..."`},
		{"no jdbc prefix", DataSourceConfig{URL: "mysql://h/db"}, `url must start with jdbc:mysql:// or jdbc:mariadb://, got "mysql://..."`},
		{"a DSN in url", DataSourceConfig{URL: "root:secret@tcp(h)/db"}, `url must start with jdbc:mysql:// or jdbc:mariadb://, got "root..."`},
		{"load balancing", DataSourceConfig{URL: "jdbc:mysql:loadbalance://h1,h2/db"}, `url must start with jdbc:mysql:// or jdbc:mariadb://, got "jdbc:mysql:loadbalance://..."`},
		{"several hosts", DataSourceConfig{URL: "jdbc:mysql://h1:3306,h2:3306/db"},
			`url lists several hosts ("h1:3306,h2:3306"); failover and load-balancing URLs are not supported: give one host per data source and put replicas in a READWRITE_SPLITTING rule`},
		{"address form", DataSourceConfig{URL: "jdbc:mysql://address=(host=h)(port=3306)/db"}, `url host "address=(host=h)(port=3306)" is not supported: write host:port`},
		{"bare IPv6", DataSourceConfig{URL: "jdbc:mysql://::1:3306/db"}, `url IPv6 host must be in brackets, e.g. jdbc:mysql://[::1]:3306/db, got "::1:3306"`},
		{"unterminated IPv6", DataSourceConfig{URL: "jdbc:mysql://[::1/db"}, `url has an unterminated IPv6 host "[::1"`},
		{"text after IPv6", DataSourceConfig{URL: "jdbc:mysql://[::1]3306/db"}, `url host "[::1]3306" has text after ']'`},
		{"empty IPv6", DataSourceConfig{URL: "jdbc:mysql://[]:3306/db"}, `url has an empty IPv6 host`},
		{"port 0", DataSourceConfig{URL: "jdbc:mysql://h:0/db"}, `url port must be a number between 1 and 65535, got "0"`},
		{"port too big", DataSourceConfig{URL: "jdbc:mysql://h:65536/db"}, `url port must be a number between 1 and 65535, got "65536"`},
		{"port not a number", DataSourceConfig{URL: "jdbc:mysql://h:x/db"}, `url port must be a number between 1 and 65535, got "x"`},
		{"path", DataSourceConfig{URL: "jdbc:mysql://h/db/x"}, `url path must be /database, got "/db/x"`},
		{"database escape", DataSourceConfig{URL: "jdbc:mysql://h/d%zz"}, `url has an invalid %-escape in the database name "d%zz"`},
		{"user escape", DataSourceConfig{URL: "jdbc:mysql://a%zz:secret@h/db"}, `url has an invalid %-escape in the user name`},
		{"password escape", DataSourceConfig{URL: "jdbc:mysql://a:sec%zzret@h/db"}, `url has an invalid %-escape in the password`},

		// Parameters
		{"password parameter escape", DataSourceConfig{URL: "jdbc:mysql://h/db?password=sec%zzret"}, "url parameter password has an invalid %-escape"},
		{"parameter name escape", DataSourceConfig{URL: "jdbc:mysql://h/db?a%zz=1"}, `url has an invalid %-escape in parameter name "a%zz"`},
		{"sslMode", DataSourceConfig{URL: "jdbc:mysql://h/db?sslMode=ALWAYS"},
			`url parameter sslMode must be DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY (MariaDB: disable, trust, verify-ca, verify-full), got "ALWAYS"`},
		{"useSSL", DataSourceConfig{URL: "jdbc:mysql://h/db?useSSL=1"}, `url parameter useSSL must be true or false, got "1"`},
		{"requireSSL", DataSourceConfig{URL: "jdbc:mysql://h/db?useSSL=true&requireSSL=maybe"}, `url parameter requireSSL must be true or false, got "maybe"`},
		{"verifyServerCertificate", DataSourceConfig{URL: "jdbc:mysql://h/db?useSSL=true&verifyServerCertificate=on"}, `url parameter verifyServerCertificate must be true or false, got "on"`},
		{"trustServerCertificate", DataSourceConfig{URL: "jdbc:mariadb://h/db?useSsl=true&trustServerCertificate=x"}, `url parameter trustServerCertificate must be true or false, got "x"`},
		{"connectTimeout", DataSourceConfig{URL: "jdbc:mysql://h/db?connectTimeout=5s"}, `url parameter connectTimeout must be a non-negative integer (milliseconds), got "5s"`},
		{"socketTimeout", DataSourceConfig{URL: "jdbc:mysql://h/db?socketTimeout=-1"}, `url parameter socketTimeout must be a non-negative integer (milliseconds), got "-1"`},
		{"allowMultiQueries", DataSourceConfig{URL: "jdbc:mysql://h/db?allowMultiQueries=si"}, `url parameter allowMultiQueries must be true or false, got "si"`},
		{"useAffectedRows", DataSourceConfig{URL: "jdbc:mysql://h/db?useAffectedRows=2"}, `url parameter useAffectedRows must be true or false, got "2"`},
		{"useCompression", DataSourceConfig{URL: "jdbc:mysql://h/db?useCompression=zlib"}, `url parameter useCompression must be true or false, got "zlib"`},
		{"zone CST", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=CST"},
			`url parameter serverTimezone "CST" is not a known IANA time zone name (Java's three-letter ids such as CST are not)`},
		{"zone SERVER", DataSourceConfig{URL: "jdbc:mysql://h/db?connectionTimeZone=SERVER"},
			`url parameter connectionTimeZone "SERVER" asks for the server's zone, which the driver cannot use: name the zone, e.g. Asia/Shanghai`},
		{"zone auto", DataSourceConfig{URL: "jdbc:mariadb://h/db?timezone=auto"},
			`url parameter timezone "auto" asks for the server's zone, which the driver cannot use: name the zone, e.g. Asia/Shanghai`},
		{"zone with minutes", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=GMT%2B05:30"},
			`url parameter serverTimezone "GMT+05:30" is an offset with minutes, which has no zone name: use an IANA name, e.g. Asia/Kolkata`},
		{"zone out of range", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=GMT-13"},
			`url parameter serverTimezone "GMT-13" is out of range`},
		{"zone plus as space", DataSourceConfig{URL: "jdbc:mysql://h/db?serverTimezone=GMT+8"},
			`url parameter serverTimezone "GMT 8" is not a known IANA time zone name (Java's three-letter ids such as CST are not)`},
		{"character encoding", DataSourceConfig{URL: "jdbc:mysql://h/db?characterEncoding=UTF-16"},
			`url parameter characterEncoding "UTF-16" is not supported: use UTF-8, ISO-8859-1, Cp1252, GBK, GB2312, GB18030, Big5, US-ASCII, Shift_JIS, EUC-JP or EUC-KR`},
		{"latin1 connection collation", DataSourceConfig{URL: "jdbc:mysql://h/db?characterEncoding=ISO-8859-1&connectionCollation=latin1_swedish_ci"},
			`url parameter connectionCollation "latin1_swedish_ci" is not a utf8mb4 collation: Go strings are UTF-8, so shardgen's connections are utf8mb4 (the server converts to each column's character set); name a utf8mb4 collation or leave it out`},
		{"session variables syntax", DataSourceConfig{URL: "jdbc:mysql://h/db?sessionVariables=sql_mode"},
			`url parameter sessionVariables must be name=value pairs separated by ',', got "sql_mode"`},
		{"session variable name", DataSourceConfig{URL: "jdbc:mysql://h/db?sessionVariables=@@x=1"},
			`url parameter sessionVariables must be name=value pairs separated by ',', got "@@x=1"`},
		{"session variables quote", DataSourceConfig{URL: "jdbc:mysql://h/db?sessionVariables=sql_mode='ANSI"},
			`url parameter sessionVariables has an unterminated quote`},
		{"session variable named like a DSN parameter", DataSourceConfig{URL: "jdbc:mysql://h/db?sessionVariables=timeout=5"},
			`cannot be written as a go-sql-driver/mysql DSN: time: missing unit in duration "5"`},

		// Credentials
		{"password without username", DataSourceConfig{URL: "jdbc:mysql://h/db", Password: "secret"}, "password is set but username is empty"},
		{"username with colon", DataSourceConfig{URL: "jdbc:mysql://h/db", Username: "a:b", Password: "secret"},
			`username "a:b" cannot be written in a go-sql-driver/mysql DSN (it contains ':' or '@'?)`},

		// dsn
		{"dsn without slash", DataSourceConfig{DSN: "h:3306"}, "dsn is not a valid go-sql-driver/mysql DSN: invalid DSN: missing the slash separating the database name"},
		{"dsn strict", DataSourceConfig{DSN: "tcp(h)/db?strict=true"}, "dsn sets strict, which go-sql-driver/mysql removed (see https://github.com/go-sql-driver/mysql/wiki/strict-mode)"},
		{"dsn interpolateParams", DataSourceConfig{DSN: "tcp(h)/db?interpolateParams=true"},
			"dsn sets interpolateParams=true; shardgen sends statements as server-side prepared statements so parameter types and result encoding match on every path: remove it"},
		{"dsn unknown tls", DataSourceConfig{DSN: "tcp(h)/db?tls=corp"}, "dsn is not a valid go-sql-driver/mysql DSN: invalid value / unknown config name: corp"},
		{"dsn bad bool", DataSourceConfig{DSN: "tcp(h)/db?parseTime=yes"}, "dsn is not a valid go-sql-driver/mysql DSN: invalid bool value: yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cfg.DriverDSN()
			require.EqualError(t, err, tt.err)
			require.Empty(t, got)
			require.NotContains(t, err.Error(), "secret")
		})
	}
}

// FuzzDriverDSN checks that DriverDSN never panics and that every DSN it
// returns parses back with the same credentials.
func FuzzDriverDSN(f *testing.F) {
	f.Add("jdbc:mysql://127.0.0.1:13306/ds_0?serverTimezone=UTC&useSSL=false", "", "root", "pw")
	f.Add("jdbc:mariadb://[::1]:3307/ds_0?sessionVariables=sql_mode='ANSI'", "", "a", "")
	f.Add("", "u:p@tcp(h:3306)/db?parseTime=true&strict=true", "", "x@y")
	f.Add("", "tcp(h)/db?loc=Asia%2FShanghai", "root", "a:b@c/d")
	f.Fuzz(func(t *testing.T, u, dsn, user, pass string) {
		c := DataSourceConfig{URL: u, DSN: dsn, Username: user, Password: pass}
		got, err := c.DriverDSN()
		if err != nil {
			return
		}
		parsed, err := mysql.ParseDSN(got)
		require.NoError(t, err)
		if user != "" {
			require.Equal(t, user, parsed.User)
		}
		if pass != "" {
			require.Equal(t, pass, parsed.Passwd)
		}
		require.False(t, parsed.InterpolateParams)
	})
}

// fakeConnector hands out connections that do nothing, so database/sql's
// pool can be observed without a server.
type fakeConnector struct{}

func (fakeConnector) Connect(context.Context) (driver.Conn, error) { return fakeConn{}, nil }
func (fakeConnector) Driver() driver.Driver                        { return fakeDriver{} }

type fakeDriver struct{}

func (fakeDriver) Open(string) (driver.Conn, error) { return fakeConn{}, nil }

type fakeConn struct{}

func (fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("not supported") }
func (fakeConn) Close() error                        { return nil }
func (fakeConn) Begin() (driver.Tx, error)           { return nil, errors.New("not supported") }

var _ driver.Connector = fakeConnector{}

// holdAndRelease opens n connections at once, then returns them all.
func holdAndRelease(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	ctx := context.Background()
	conns := make([]*sql.Conn, n)
	for i := range conns {
		c, err := db.Conn(ctx)
		require.NoError(t, err)
		conns[i] = c
	}
	for _, c := range conns {
		require.NoError(t, c.Close())
	}
}

func TestApplyPool(t *testing.T) {
	tests := []struct {
		name     string
		cfg      DataSourceConfig
		maxOpen  int // Stats().MaxOpenConnections
		idleKept int // idle connections after 20 were used at once
	}{
		{"defaults", DataSourceConfig{}, 0, 2},
		{"ShardingSphere doc sample", DataSourceConfig{MaxPoolSize: 50, MinPoolSize: 1}, 50, 20},
		{"small pool", DataSourceConfig{MaxPoolSize: 5, MinPoolSize: 5}, 5, 5},
		{"minPoolSize alone raises the idle cap", DataSourceConfig{MinPoolSize: 8}, 0, 8},
		{"minPoolSize below the default cap", DataSourceConfig{MinPoolSize: 1}, 0, 2},
		{"negative ignored", DataSourceConfig{MaxPoolSize: -1, MinPoolSize: -1}, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := sql.OpenDB(fakeConnector{})
			defer db.Close()
			tt.cfg.Apply(db)
			n := 20
			if tt.maxOpen > 0 && tt.maxOpen < n {
				n = tt.maxOpen
			}
			holdAndRelease(t, db, n)
			st := db.Stats()
			require.Equal(t, tt.maxOpen, st.MaxOpenConnections)
			require.Equal(t, tt.idleKept, st.Idle)
		})
	}
}

func TestApplyIdleTimeout(t *testing.T) {
	// database/sql checks idle connections at most once a second.
	tests := []struct {
		name   string
		cfg    DataSourceConfig
		closed bool
	}{
		{"idle timeout", DataSourceConfig{MaxPoolSize: 4, MinPoolSize: 1, IdleTimeout: time.Millisecond}, true},
		{"fixed-size pool ignores it, as HikariCP", DataSourceConfig{MaxPoolSize: 4, MinPoolSize: 4, IdleTimeout: time.Millisecond}, false},
		{"max lifetime", DataSourceConfig{MaxPoolSize: 4, MinPoolSize: 4, MaxLifetime: time.Millisecond}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := sql.OpenDB(fakeConnector{})
			defer db.Close()
			tt.cfg.Apply(db)
			holdAndRelease(t, db, 4)
			closedCount := func() int64 {
				st := db.Stats()
				return st.MaxIdleTimeClosed + st.MaxLifetimeClosed
			}
			if tt.closed {
				require.Eventually(t, func() bool { return closedCount() == 4 }, 5*time.Second, 20*time.Millisecond)
				return
			}
			time.Sleep(1500 * time.Millisecond)
			require.Zero(t, closedCount())
			require.Equal(t, 4, db.Stats().Idle)
		})
	}
}

func TestApplyNilDB(t *testing.T) {
	DataSourceConfig{MaxPoolSize: 3}.Apply(nil) // must not panic
}

// withParseTime adds the parseTime=true that DriverDSN sets by default to an
// expected DSN that does not set parseTime itself.
func withParseTime(dsn string) string {
	if strings.Contains(dsn, "parseTime=") {
		return dsn
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return dsn
	}
	cfg.ParseTime = true
	out := cfg.FormatDSN()
	if !strings.Contains(dsn, "allowFallbackToPlaintext") { // ParseDSN adds it for tls=preferred
		out = strings.Replace(out, "allowFallbackToPlaintext=true&", "", 1)
	}
	return out
}

func TestDataSourceConfigCharset(t *testing.T) {
	for _, c := range []struct {
		cfg  DataSourceConfig
		want string
	}{
		{DataSourceConfig{URL: "jdbc:mysql://h/db"}, ""},
		{DataSourceConfig{URL: "jdbc:mysql://h/db?characterEncoding=UTF-8"}, ""},
		{DataSourceConfig{URL: "jdbc:mysql://h/db?characterEncoding=ISO-8859-1"}, ""},
		{DataSourceConfig{URL: "jdbc:mysql://h/db?connectionCollation=utf8mb4_unicode_ci"}, "utf8mb4"},
		{DataSourceConfig{DSN: "u:p@tcp(h:3306)/db?charset=latin1,utf8mb4"}, "latin1"},
		{DataSourceConfig{DSN: "u:p@tcp(h:3306)/db?collation=utf8mb3_general_ci"}, "utf8mb3"},
		{DataSourceConfig{DSN: "u:p@tcp(h:3306)/db"}, ""},
	} {
		require.Equal(t, c.want, c.cfg.Charset(), "%+v", c.cfg)
	}
}
