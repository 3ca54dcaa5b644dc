package runtime

import (
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// DriverDSN returns the go-sql-driver/mysql DSN for c, for sql.Open("mysql",
// dsn) or mysql.ParseDSN. The DSN is always built with mysql.Config and
// FormatDSN, never by hand. c is taken as given: ${env:...} references were
// already expanded by ParseConfig (expanding again would corrupt a secret that
// contains "${env:").
//
// # url (ShardingSphere proxy / JDBC form)
//
//	jdbc:mysql://[user[:password]@]host[:port][/database][?key=value&...]
//	jdbc:mariadb://...   (same shape)
//
// The port defaults to 3306 and the host to localhost; an IPv6 host is
// written in brackets (`jdbc:mysql://[::1]:3307/ds_0`). User, password and
// database are percent-decoded, parameter values are decoded like Java's
// URLDecoder (`serverTimezone=GMT%2B8`; a bare '+' is a space). Parameter
// names are matched case-insensitively, the last of a repeated one wins.
// Several hosts (failover, `jdbc:mysql:loadbalance:`, `jdbc:mariadb:replication:`)
// and the `address=(...)` host forms are refused: give one host per data
// source and put replicas in a READWRITE_SPLITTING rule.
//
// Parameters that are mapped (Connector/J name, MariaDB Connector/J alias):
//
//   - user, password: used when Username / Password are empty.
//   - sslMode (DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY;
//     MariaDB disable, trust, verify-ca, verify-full) → tls=false, preferred,
//     skip-verify, true, true. VERIFY_CA and verify-ca become tls=true, which
//     also checks the host name: stricter than Java, never weaker.
//     Without sslMode, the legacy flags decide as Connector/J 8 does:
//     useSSL=false → false; useSSL=true with verifyServerCertificate=true →
//     true, with requireSSL=true → skip-verify, else preferred. For
//     jdbc:mariadb, useSsl=true → true, or skip-verify with
//     trustServerCertificate=true.
//     With none of them the driver default stays: no TLS. (Connector/J 8
//     would try TLS, i.e. PREFERRED; write sslMode=PREFERRED to get that.)
//   - serverTimezone, connectionTimeZone (MariaDB timezone) → loc, the zone
//     the driver converts time.Time parameters to (and parses DATETIME in,
//     with parseTime=true). An IANA name (Asia/Shanghai, UTC), Z, LOCAL (the
//     process's zone), or a whole-hour offset GMT+8 / UTC-5 / +08:00 (written
//     as the equivalent Etc/GMT-8 zone). SERVER, auto and offsets with
//     minutes have no driver equivalent and are errors; MariaDB's disable
//     leaves the default (UTC). Java's own three-letter ids (CST is
//     America/Chicago in Java) are not zone names here: write the IANA name.
//   - characterEncoding: the connection stays utf8mb4, the driver default,
//     whatever it names: it is how Connector/J encodes Java's strings on
//     the wire, and Go's strings are UTF-8, which go-sql-driver sends
//     unconverted (a latin1 connection would store them as mojibake); the
//     server converts utf8mb4 to each column's character set as it
//     converts Connector/J's latin1. UTF-8, utf8mb4, ISO-8859-1, Cp1252,
//     GBK, GB2312, GB18030, Big5, US-ASCII, Shift_JIS, EUC-JP and EUC-KR
//     are accepted; anything else is an error.
//   - connectionCollation → collation; a utf8mb4 collation only (another
//     is an error, for the same reason).
//   - connectTimeout (ms) → timeout (dial timeout); 0 means none.
//   - socketTimeout (ms) → readTimeout (Java's SO_TIMEOUT bounds reads only).
//   - allowMultiQueries → multiStatements.
//   - useAffectedRows → clientFoundRows=!useAffectedRows when given.
//     Connector/J's default (useAffectedRows=false) reports matched rows;
//     the driver's default, kept when the parameter is absent, reports
//     changed rows, as Go code expects.
//   - useCompression → compress.
//   - connectionAttributes ("k1:v1,k2:v2", same syntax) → connectionAttributes;
//     none is ignored.
//   - sessionVariables ("sql_mode='ANSI',time_zone='+00:00'", separated by
//     ',' or ';' outside quotes) → one `SET name=value` per connection, sent
//     by the driver as its system-variable parameters.
//   - localSocket (MariaDB: a Unix socket path) → unix(path), replacing the
//     host.
//
// Ignored, with no driver equivalent or no effect on correctness here:
// useUnicode, autoReconnect, maxReconnects, initialTimeout, failOverReadOnly,
// rewriteBatchedStatements, cachePrepStmts, prepStmtCacheSize,
// prepStmtCacheSqlLimit, useServerPrepStmts, useLocalSessionState,
// useLocalTransactionState, zeroDateTimeBehavior, tinyInt1isBit,
// transformedBitIsBoolean, yearIsDateType, useJDBCCompliantTimezoneShift,
// useLegacyDatetimeCode, nullCatalogMeansCurrent, nullNamePatternMatchesAll,
// useInformationSchema, allowPublicKeyRetrieval (the driver always fetches the
// key when caching_sha2_password needs it), serverRSAPublicKeyFile,
// trustCertificateKeyStore* / clientCertificateKeyStore* (register a
// tls.Config and use a dsn instead), enabledTLSProtocols, maxAllowedPacket,
// allowLoadLocalInfile, allowUrlInLocalInfile, netTimeoutForStreamingResults,
// and every parameter not named above (Connector/J ignores unknown ones too).
// None of them reaches the server as a session variable.
//
// # dsn (shardgen extension)
//
// A go-sql-driver/mysql DSN is parsed with mysql.ParseDSN and re-formatted,
// so it is normalised and checked (a `tls=name` must be registered with
// mysql.RegisterTLSConfig first). `strict`, which makes ParseDSN panic, is
// an error here.
//
// # Both forms
//
// Username and Password, when not empty, replace the user and password of the
// URL or DSN. ConnectionTimeout (connectionTimeoutMilliseconds) becomes the
// dial timeout unless the URL's connectTimeout or the DSN's timeout sets one:
// HikariCP's value bounds the wait for a pooled connection, which
// database/sql leaves to the caller's context, and the dial is the nearest
// thing the driver bounds.
//
// interpolateParams is always false (a DSN that sets it true is an error):
// statements go to the server as prepared statements, so parameters keep the
// MySQL types the planner gave them and rows come back in the binary protocol
// on every path, as the proxy's back end reads them. parseTime is true
// (generated code scans DATE, DATETIME and TIMESTAMP into time.Time) unless
// a dsn sets parseTime=false explicitly. Every other driver default stays,
// notably loc=UTC.
//
// DriverDSN also checks the pool settings (none may be negative), so one call
// validates the whole entry. Errors name the key and the problem, e.g.
// `url must start with jdbc:mysql:// or jdbc:mariadb://, got "jdbc:postgresql://..."`;
// the caller adds the data source's name. They never contain the password.
//
// Sources: Connector/J configuration properties
// (https://dev.mysql.com/doc/connector-j/en/connector-j-reference-configuration-properties.html),
// MariaDB Connector/J options
// (https://mariadb.com/kb/en/about-mariadb-connector-j/), go-sql-driver/mysql
// DSN parameters (https://github.com/go-sql-driver/mysql#parameters).
func (c DataSourceConfig) DriverDSN() (string, error) {
	if err := c.checkPool(); err != nil {
		return "", err
	}
	var cfg *mysql.Config
	var err error
	switch {
	case c.URL != "" && c.DSN != "":
		return "", errors.New("url and dsn are both set; give exactly one")
	case c.URL != "":
		cfg, err = jdbcConfig(c.URL)
	case c.DSN != "":
		cfg, err = dsnConfig(c.DSN)
	default:
		return "", errors.New("url (or dsn) is required")
	}
	if err != nil {
		return "", err
	}
	if c.Username != "" {
		cfg.User = c.Username
	}
	if c.Password != "" {
		cfg.Passwd = c.Password
	}
	if cfg.Timeout == 0 && c.ConnectionTimeout > 0 {
		cfg.Timeout = c.ConnectionTimeout
	}
	cfg.InterpolateParams = false
	if c.DSN == "" || !strings.Contains(c.DSN, "parseTime=") {
		cfg.ParseTime = true
	}
	if cfg.Passwd != "" && cfg.User == "" {
		return "", errors.New("password is set but username is empty")
	}
	dsn := cfg.FormatDSN()
	if err := checkRoundTrip(dsn, cfg); err != nil {
		return "", err
	}
	return dsn, nil
}

// checkPool rejects negative pool settings.
func (c DataSourceConfig) checkPool() error {
	for _, f := range []struct {
		key string
		n   int64
	}{
		{"maxPoolSize", int64(c.MaxPoolSize)},
		{"minPoolSize", int64(c.MinPoolSize)},
		{"connectionTimeoutMilliseconds", c.ConnectionTimeout.Milliseconds()},
		{"idleTimeoutMilliseconds", c.IdleTimeout.Milliseconds()},
		{"maxLifetimeMilliseconds", c.MaxLifetime.Milliseconds()},
	} {
		if f.n < 0 {
			return errors.New(f.key + " must not be negative, got " + strconv.FormatInt(f.n, 10))
		}
	}
	return nil
}

// checkRoundTrip parses dsn again and checks that the parts FormatDSN writes
// without escaping (user, password, address) came back unchanged, and that
// the driver accepts the result (loc, tls).
func checkRoundTrip(dsn string, want *mysql.Config) error {
	got, err := mysql.ParseDSN(dsn)
	if err != nil {
		return errors.New("cannot be written as a go-sql-driver/mysql DSN: " + err.Error())
	}
	switch {
	case got.User != want.User:
		return errors.New("username " + strconv.Quote(want.User) + " cannot be written in a go-sql-driver/mysql DSN (it contains ':' or '@'?)")
	case got.Passwd != want.Passwd:
		return errors.New("password cannot be written in a go-sql-driver/mysql DSN (it contains a character the DSN syntax cannot carry)")
	case got.Net != want.Net || got.Addr != want.Addr || got.DBName != want.DBName || len(got.Params) != len(want.Params):
		return errors.New("address " + strconv.Quote(want.Net+"("+want.Addr+")/"+want.DBName) + " cannot be written in a go-sql-driver/mysql DSN")
	}
	return nil
}

// Charset returns the character set, lower case, that the data source's
// connections receive text in: a DSN's charset (the first listed) or its
// collation's, a URL's connectionCollation's (utf8mb4: a URL's
// connections are always utf8mb4, see DriverDSN); "" when none is set (the
// driver's default, utf8mb4) or the configuration does not parse.
func (c DataSourceConfig) Charset() string {
	var (
		cfg *mysql.Config
		err error
	)
	switch {
	case c.URL != "":
		cfg, err = jdbcConfig(c.URL)
	case c.DSN != "":
		cfg, err = dsnConfig(c.DSN)
	default:
		return ""
	}
	if err != nil {
		return ""
	}
	_, query, ok := strings.Cut(cfg.FormatDSN(), "?")
	if !ok {
		return ""
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return ""
	}
	if cs := vals.Get("charset"); cs != "" {
		first, _, _ := strings.Cut(cs, ",")
		return strings.ToLower(first)
	}
	cs, _, _ := strings.Cut(vals.Get("collation"), "_")
	return strings.ToLower(cs)
}

// dsnConfig parses a go-sql-driver/mysql DSN.
func dsnConfig(dsn string) (*mysql.Config, error) {
	// ParseDSN panics on the removed `strict` parameter; find it first, the
	// way ParseDSN finds parameters: after the first '?' that follows the
	// last '/'.
	if slash := strings.LastIndexByte(dsn, '/'); slash >= 0 {
		if _, params, ok := strings.Cut(dsn[slash+1:], "?"); ok {
			for p := range strings.SplitSeq(params, "&") {
				if k, _, _ := strings.Cut(p, "="); k == "strict" {
					return nil, errors.New("dsn sets strict, which go-sql-driver/mysql removed (see https://github.com/go-sql-driver/mysql/wiki/strict-mode)")
				}
			}
		}
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, errors.New("dsn is not a valid go-sql-driver/mysql DSN: " + err.Error())
	}
	if cfg.InterpolateParams {
		return nil, errors.New("dsn sets interpolateParams=true; shardgen sends statements as server-side prepared statements so parameter types and result encoding match on every path: remove it")
	}
	return cfg, nil
}

// jdbcParam is one `key=value` of a JDBC URL, value decoded.
type jdbcParam struct {
	key, value string
}

// jdbcConfig parses a jdbc:mysql:// or jdbc:mariadb:// URL.
func jdbcConfig(raw string) (*mysql.Config, error) {
	var rest string
	mariadb := false
	switch {
	case hasPrefixFold(raw, "jdbc:mysql://"):
		rest = raw[len("jdbc:mysql://"):]
	case hasPrefixFold(raw, "jdbc:mariadb://"):
		rest = raw[len("jdbc:mariadb://"):]
		mariadb = true
	default:
		return nil, errors.New("url must start with jdbc:mysql:// or jdbc:mariadb://, got " + strconv.Quote(urlScheme(raw)))
	}
	hostPath, query, _ := strings.Cut(rest, "?")
	authority, path, hasPath := strings.Cut(hostPath, "/")

	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user, pass, hasPass := strings.Cut(authority[:at], ":")
		var err error
		if cfg.User, err = url.PathUnescape(user); err != nil {
			return nil, errors.New("url has an invalid %-escape in the user name")
		}
		if hasPass {
			if cfg.Passwd, err = url.PathUnescape(pass); err != nil {
				return nil, errors.New("url has an invalid %-escape in the password")
			}
		}
		authority = authority[at+1:]
	}
	addr, err := jdbcAddr(authority)
	if err != nil {
		return nil, err
	}
	cfg.Addr = addr
	if hasPath {
		if strings.Contains(path, "/") {
			return nil, errors.New("url path must be /database, got " + strconv.Quote("/"+path))
		}
		if cfg.DBName, err = url.PathUnescape(path); err != nil {
			return nil, errors.New("url has an invalid %-escape in the database name " + strconv.Quote(path))
		}
	}

	params, err := jdbcParams(query)
	if err != nil {
		return nil, err
	}
	if err := applyJDBCParams(cfg, params, mariadb); err != nil {
		return nil, err
	}
	return cfg, nil
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// urlScheme returns the part of a rejected URL that is safe to show: up to
// and including "://", or up to the first ':' or '@', followed by "..." when
// something was cut.
func urlScheme(raw string) string {
	if i := strings.Index(raw, "://"); i >= 0 {
		if len(raw) > i+3 {
			return raw[:i+3] + "..."
		}
		return raw
	}
	if i := strings.IndexAny(raw, ":@"); i >= 0 {
		return raw[:i] + "..."
	}
	return raw
}

// jdbcAddr turns the host[:port] of a JDBC URL into a host:port address.
func jdbcAddr(authority string) (string, error) {
	host, port := authority, ""
	switch {
	case strings.Contains(authority, ","):
		return "", errors.New("url lists several hosts (" + strconv.Quote(authority) + "); failover and load-balancing URLs are not supported: give one host per data source and put replicas in a READWRITE_SPLITTING rule")
	case strings.ContainsAny(authority, "()="):
		return "", errors.New("url host " + strconv.Quote(authority) + " is not supported: write host:port")
	case strings.HasPrefix(authority, "["):
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return "", errors.New("url has an unterminated IPv6 host " + strconv.Quote(authority))
		}
		host = authority[1:end]
		switch after := authority[end+1:]; {
		case after == "":
		case after[0] == ':':
			port = after[1:]
		default:
			return "", errors.New("url host " + strconv.Quote(authority) + " has text after ']'")
		}
		if host == "" {
			return "", errors.New("url has an empty IPv6 host")
		}
	case strings.Count(authority, ":") > 1:
		return "", errors.New("url IPv6 host must be in brackets, e.g. jdbc:mysql://[::1]:3306/db, got " + strconv.Quote(authority))
	default:
		if i := strings.IndexByte(authority, ':'); i >= 0 {
			host, port = authority[:i], authority[i+1:]
		}
	}
	if host == "" {
		host = "localhost" // Connector/J's and MariaDB Connector/J's default
	}
	if port == "" {
		port = "3306"
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", errors.New("url port must be a number between 1 and 65535, got " + strconv.Quote(port))
	}
	return net.JoinHostPort(host, port), nil
}

// jdbcParams splits and decodes the query of a JDBC URL.
func jdbcParams(query string) ([]jdbcParam, error) {
	var params []jdbcParam
	if query == "" {
		return nil, nil
	}
	for kv := range strings.SplitSeq(query, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, errors.New("url has an invalid %-escape in parameter name " + strconv.Quote(k))
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			// The value may be a password: do not show it.
			return nil, errors.New("url parameter " + key + " has an invalid %-escape")
		}
		params = append(params, jdbcParam{key: key, value: value})
	}
	return params, nil
}

// applyJDBCParams maps the JDBC parameters onto cfg (see DriverDSN).
func applyJDBCParams(cfg *mysql.Config, params []jdbcParam, mariadb bool) error {
	// Last one wins, keyed by lower-case name; keep the spelling for messages.
	last := make(map[string]jdbcParam, len(params))
	for _, p := range params {
		last[strings.ToLower(p.key)] = p
	}
	get := func(name string) (jdbcParam, bool) {
		p, ok := last[strings.ToLower(name)]
		return p, ok
	}

	if p, ok := get("user"); ok {
		cfg.User = p.value
	}
	if p, ok := get("password"); ok {
		cfg.Passwd = p.value
	}
	if p, ok := get("localSocket"); ok && p.value != "" {
		cfg.Net, cfg.Addr = "unix", p.value
	}

	tls, err := jdbcTLS(get, mariadb)
	if err != nil {
		return err
	}
	cfg.TLSConfig = tls

	for _, name := range []string{"serverTimezone", "connectionTimeZone", "timezone"} {
		if p, ok := get(name); ok {
			loc, err := jdbcLocation(p)
			if err != nil {
				return err
			}
			if loc != nil {
				cfg.Loc = loc
			}
		}
	}

	// Go strings are UTF-8 and go-sql-driver sends and returns text
	// unconverted, so the connections stay utf8mb4 whatever Java's
	// characterEncoding says (Connector/J converts Java's strings to it;
	// the server converts utf8mb4 to each column's character set just as
	// well): a latin1 connection would store Go's UTF-8 bytes as latin1
	// text ('naÃ¯ve') and return latin1 bytes to Go.
	if p, ok := get("characterEncoding"); ok {
		if _, err = jdbcCharset(p); err != nil {
			return err
		}
	}
	if p, ok := get("connectionCollation"); ok {
		if !strings.HasPrefix(strings.ToLower(p.value), "utf8mb4_") {
			return fmt.Errorf("url parameter connectionCollation %q is not a utf8mb4 collation: Go strings are UTF-8, so shardgen's connections are utf8mb4 (the server converts to each column's character set); name a utf8mb4 collation or leave it out", p.value)
		}
		cfg.Collation = p.value
	}

	if p, ok := get("connectTimeout"); ok {
		if cfg.Timeout, err = jdbcMillis(p); err != nil {
			return err
		}
	}
	if p, ok := get("socketTimeout"); ok {
		if cfg.ReadTimeout, err = jdbcMillis(p); err != nil {
			return err
		}
	}
	if p, ok := get("allowMultiQueries"); ok {
		if cfg.MultiStatements, err = jdbcBool(p); err != nil {
			return err
		}
	}
	if p, ok := get("useAffectedRows"); ok {
		affected, err := jdbcBool(p)
		if err != nil {
			return err
		}
		cfg.ClientFoundRows = !affected
	}
	if p, ok := get("useCompression"); ok {
		compress, err := jdbcBool(p)
		if err != nil {
			return err
		}
		if err := cfg.Apply(mysql.EnableCompression(compress)); err != nil {
			return err
		}
	}
	if p, ok := get("connectionAttributes"); ok && !strings.EqualFold(p.value, "none") {
		cfg.ConnectionAttributes = p.value
	}
	if p, ok := get("sessionVariables"); ok {
		vars, err := jdbcSessionVariables(p)
		if err != nil {
			return err
		}
		if len(vars) > 0 {
			cfg.Params = vars
		}
	}
	return nil
}

// jdbcTLS returns the driver's tls value ("" for the driver default) from
// sslMode or the legacy SSL flags.
func jdbcTLS(get func(string) (jdbcParam, bool), mariadb bool) (string, error) {
	if p, ok := get("sslMode"); ok {
		switch strings.ToLower(p.value) {
		case "disabled", "disable":
			return "false", nil
		case "preferred":
			return "preferred", nil
		case "required", "trust":
			return "skip-verify", nil
		case "verify_ca", "verify-ca", "verify_identity", "verify-full":
			return "true", nil
		}
		return "", errors.New("url parameter " + p.key + " must be DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY (MariaDB: disable, trust, verify-ca, verify-full), got " + strconv.Quote(p.value))
	}
	p, ok := get("useSSL")
	if !ok {
		return "", nil
	}
	use, err := jdbcBool(p)
	if err != nil || !use {
		return "false", err
	}
	flag := func(name string) (bool, error) {
		if q, ok := get(name); ok {
			return jdbcBool(q)
		}
		return false, nil
	}
	if mariadb {
		trust, err := flag("trustServerCertificate")
		if err != nil || trust {
			return "skip-verify", err
		}
		return "true", nil
	}
	if verify, err := flag("verifyServerCertificate"); err != nil || verify {
		return "true", err
	}
	if require, err := flag("requireSSL"); err != nil || require {
		return "skip-verify", err
	}
	return "preferred", nil
}

// jdbcBool parses a Connector/J boolean: true/false/yes/no, any case.
func jdbcBool(p jdbcParam) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(p.value)) {
	case "true", "yes":
		return true, nil
	case "false", "no":
		return false, nil
	}
	return false, errors.New("url parameter " + p.key + " must be true or false, got " + strconv.Quote(p.value))
}

// jdbcMillis parses a non-negative millisecond count.
func jdbcMillis(p jdbcParam) (time.Duration, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(p.value), 10, 32)
	if err != nil || n < 0 {
		return 0, errors.New("url parameter " + p.key + " must be a non-negative integer (milliseconds), got " + strconv.Quote(p.value))
	}
	return time.Duration(n) * time.Millisecond, nil
}

// jdbcLocation maps a Java time zone id to a *time.Location the driver can
// name in a DSN; nil keeps the default.
func jdbcLocation(p jdbcParam) (*time.Location, error) {
	v := strings.TrimSpace(p.value)
	fail := func(why string) error {
		return errors.New("url parameter " + p.key + " " + strconv.Quote(p.value) + " " + why)
	}
	switch strings.ToLower(v) {
	case "", "disable":
		return nil, nil
	case "local":
		return time.Local, nil
	case "server", "auto":
		return nil, fail("asks for the server's zone, which the driver cannot use: name the zone, e.g. Asia/Shanghai")
	case "z", "utc", "gmt", "ut":
		return time.UTC, nil
	}
	if sign, hours, minutes, ok := parseZoneOffset(v); ok {
		switch {
		case minutes != 0:
			return nil, fail("is an offset with minutes, which has no zone name: use an IANA name, e.g. Asia/Kolkata")
		case hours == 0:
			return time.UTC, nil
		case sign > 0 && hours > 14, sign < 0 && hours > 12:
			return nil, fail("is out of range")
		}
		// Etc/GMT-8 is UTC+8: POSIX signs are inverted.
		name := "Etc/GMT-" + strconv.Itoa(hours)
		if sign < 0 {
			name = "Etc/GMT+" + strconv.Itoa(hours)
		}
		loc, err := time.LoadLocation(name)
		if err != nil {
			return nil, fail("needs zone " + name + ", which is not installed: " + err.Error())
		}
		return loc, nil
	}
	loc, err := time.LoadLocation(v)
	if err != nil {
		return nil, fail("is not a known IANA time zone name (Java's three-letter ids such as CST are not)")
	}
	return loc, nil
}

// parseZoneOffset parses [GMT|UTC|UT](+|-)H[H][[:]MM].
func parseZoneOffset(v string) (sign, hours, minutes int, ok bool) {
	for _, prefix := range []string{"GMT", "UTC", "UT"} {
		if hasPrefixFold(v, prefix) {
			v = v[len(prefix):]
			break
		}
	}
	if v == "" || (v[0] != '+' && v[0] != '-') {
		return 0, 0, 0, false
	}
	sign = 1
	if v[0] == '-' {
		sign = -1
	}
	v = v[1:]
	hh, mm, hasColon := strings.Cut(v, ":")
	if !hasColon && len(v) == 4 {
		hh, mm = v[:2], v[2:]
	}
	if len(hh) < 1 || len(hh) > 2 || (mm != "" && len(mm) != 2) || (hasColon && mm == "") {
		return 0, 0, 0, false
	}
	h, err := strconv.Atoi(hh)
	if err != nil || h < 0 {
		return 0, 0, 0, false
	}
	m := 0
	if mm != "" {
		if m, err = strconv.Atoi(mm); err != nil || m < 0 || m > 59 {
			return 0, 0, 0, false
		}
	}
	return sign, h, m, true
}

// jdbcCharsets maps Java charset names (lower case) to MySQL character sets;
// "" keeps the driver's default, utf8mb4.
var jdbcCharsets = map[string]string{
	"utf8": "", "utf-8": "", "utf8mb4": "",
	"latin1": "latin1", "iso-8859-1": "latin1", "iso8859_1": "latin1", "cp1252": "latin1", "windows-1252": "latin1",
	"gbk": "gbk", "gb2312": "gb2312", "gb18030": "gb18030", "big5": "big5",
	"us-ascii": "ascii", "ascii": "ascii",
	"shift_jis": "sjis", "sjis": "sjis", "euc-jp": "ujis", "euc_jp": "ujis", "euc-kr": "euckr", "euc_kr": "euckr",
}

// jdbcCharset maps characterEncoding (see jdbcCharsets).
func jdbcCharset(p jdbcParam) (string, error) {
	cs, ok := jdbcCharsets[strings.ToLower(strings.TrimSpace(p.value))]
	if !ok {
		return "", errors.New("url parameter " + p.key + " " + strconv.Quote(p.value) +
			" is not supported: use UTF-8, ISO-8859-1, Cp1252, GBK, GB2312, GB18030, Big5, US-ASCII, Shift_JIS, EUC-JP or EUC-KR")
	}
	return cs, nil
}

// jdbcSessionVariables splits Connector/J's sessionVariables, "a=1,b='x,y'",
// on ',' or ';' outside quotes into name → value.
func jdbcSessionVariables(p jdbcParam) (map[string]string, error) {
	vars := map[string]string{}
	var quote byte
	start := 0
	s := p.value
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			c := s[i]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
				continue
			case c == '\'' || c == '"' || c == '`':
				quote = c
				continue
			case c != ',' && c != ';':
				continue
			}
		} else if quote != 0 {
			return nil, errors.New("url parameter " + p.key + " has an unterminated quote")
		}
		item := strings.TrimSpace(s[start:i])
		start = i + 1
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || value == "" || !validVarName(name) {
			return nil, errors.New("url parameter " + p.key + " must be name=value pairs separated by ',', got " + strconv.Quote(item))
		}
		vars[name] = value
	}
	return vars, nil
}

// validVarName reports whether name is a plain MySQL system variable name.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Apply sets db's pool limits from c. Zero fields keep the database/sql
// defaults; Apply does nothing for a nil db. HikariCP (ShardingSphere's pool)
// and database/sql manage idle connections differently, so the mapping is:
//
//   - maxPoolSize → SetMaxOpenConns: the same limit on open connections.
//   - maxPoolSize → SetMaxIdleConns as well. HikariCP keeps every connection
//     up to maxPoolSize when it is returned; database/sql closes a returned
//     connection when MaxIdleConns (default 2) are already idle, so a smaller
//     cap would make a busy pool reconnect constantly.
//   - minPoolSize: database/sql has no floor on idle connections (HikariCP's
//     minimumIdle keeps that many open, reconnecting in the background). It
//     only raises the idle cap when maxPoolSize is unset (SetMaxIdleConns
//     when minPoolSize is above the default 2).
//   - idleTimeoutMilliseconds → SetConnMaxIdleTime: idle connections are
//     closed after that long. database/sql closes them down to zero, HikariCP
//     down to minPoolSize; like HikariCP, a fixed-size pool (minPoolSize ≥
//     maxPoolSize > 0) ignores it.
//   - maxLifetimeMilliseconds → SetConnMaxLifetime.
//   - connectionTimeoutMilliseconds: no database/sql equivalent (a caller
//     bounds the wait for a connection with its context); DriverDSN uses it
//     as the dial timeout.
//
// Negative values are ignored here; DriverDSN reports them.
//
// Source: HikariCP configuration (https://github.com/brettwooldridge/HikariCP#gear-configuration-knobs-baby)
// and ShardingSphere's pool-neutral data source keys (../shared/spec §2).
func (c DataSourceConfig) Apply(db *sql.DB) {
	if db == nil {
		return
	}
	switch {
	case c.MaxPoolSize > 0:
		db.SetMaxOpenConns(c.MaxPoolSize)
		db.SetMaxIdleConns(c.MaxPoolSize)
	case c.MinPoolSize > 2:
		db.SetMaxIdleConns(c.MinPoolSize)
	}
	fixed := c.MaxPoolSize > 0 && c.MinPoolSize >= c.MaxPoolSize
	if c.IdleTimeout > 0 && !fixed {
		db.SetConnMaxIdleTime(c.IdleTimeout)
	}
	if c.MaxLifetime > 0 {
		db.SetConnMaxLifetime(c.MaxLifetime)
	}
}
