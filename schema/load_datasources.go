package schema

import (
	"math"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.yaml.in/yaml/v3"

	"github.com/shardgen/shardgen/runtime"
)

// dataSourceKeys are the keys a dataSources entry may have: ShardingSphere's
// pool-neutral keys (proxy data-source.en.md), the HikariCP bean properties
// the JDBC examples use, and shardgen's dsn.
var dataSourceKeys = []string{
	"url", "jdbcUrl", "dsn", "username", "password", "dataSourceClassName", "driverClassName",
	"maxPoolSize", "minPoolSize", "connectionTimeoutMilliseconds", "idleTimeoutMilliseconds", "maxLifetimeMilliseconds",
	"maximumPoolSize", "minimumIdle", "connectionTimeout", "idleTimeout", "maxLifetime",
}

// poolKey describes one pool setting: its two spellings and whether it is a
// duration in milliseconds.
type poolKey struct {
	name, hikari string
	millis       bool
	set          func(c *runtime.DataSourceConfig, v int64)
}

var poolKeys = []poolKey{
	{"maxPoolSize", "maximumPoolSize", false, func(c *runtime.DataSourceConfig, v int64) { c.MaxPoolSize = int(v) }},
	{"minPoolSize", "minimumIdle", false, func(c *runtime.DataSourceConfig, v int64) { c.MinPoolSize = int(v) }},
	{"connectionTimeoutMilliseconds", "connectionTimeout", true, func(c *runtime.DataSourceConfig, v int64) {
		c.ConnectionTimeout = time.Duration(v) * time.Millisecond
	}},
	{"idleTimeoutMilliseconds", "idleTimeout", true, func(c *runtime.DataSourceConfig, v int64) {
		c.IdleTimeout = time.Duration(v) * time.Millisecond
	}},
	{"maxLifetimeMilliseconds", "maxLifetime", true, func(c *runtime.DataSourceConfig, v int64) {
		c.MaxLifetime = time.Duration(v) * time.Millisecond
	}},
}

// loadDataSources reads `dataSources:` into cfg.DataSources.
func (l *loader) loadDataSources(st *state, n *yaml.Node) {
	entries := l.entries(n, "dataSources")
	if n.Kind == yaml.MappingNode && len(entries) == 0 && len(n.Content) == 0 {
		l.errorf(n, "dataSources: at least one data source is required")
	}
	for _, e := range entries {
		name := strings.TrimSpace(e.key.Value)
		if name == "" {
			continue
		}
		ds := &DataSource{Name: name, Pos: l.pos(e.key)}
		what := "dataSources." + name
		o := l.object(e.val, what, dataSourceKeys...)
		if o != nil {
			l.dataSource(o, what, &ds.Config)
		}
		if strings.ContainsAny(name, ". ") {
			l.errorf(e.key, "%s: a data source name must not contain '.' or spaces", what)
		}
		st.cfg.DataSources = append(st.cfg.DataSources, ds)
		st.dsByName[name] = ds
	}
}

// dataSource fills c from one dataSources entry. Secrets stay unexpanded:
// runtime.ExpandEnv expands `${env:NAME}` when the application starts; here
// only the reference syntax is checked.
func (l *loader) dataSource(o *object, what string, c *runtime.DataSourceConfig) {
	// Connection: exactly one of url, jdbcUrl, dsn.
	var conn []string
	for _, k := range []string{"url", "jdbcUrl", "dsn"} {
		if o.present(k) {
			conn = append(conn, k)
		}
	}
	switch {
	case len(conn) == 0:
		l.errorf(o.node, "%s: one of url, jdbcUrl or dsn is required", what)
	case len(conn) > 1:
		l.errorf(o.key(conn[1]), "%s: give one of url, jdbcUrl or dsn, not both %s and %s", what, conn[0], conn[1])
	default:
		k := conn[0]
		v := l.reqStr(o, k)
		if v != "" {
			l.checkEnvRefs(o.get(k), what+": "+k, v)
		}
		switch {
		case v == "":
		case k == "dsn":
			c.DSN = v
			if !strings.Contains(v, "${env:") {
				if _, err := mysql.ParseDSN(v); err != nil {
					l.errorf(o.get(k), "%s: dsn is not a go-sql-driver/mysql DSN (user:password@tcp(host:port)/db): %v", what, err)
				}
			}
		default:
			c.URL = v
			lv := strings.ToLower(v)
			if !strings.HasPrefix(lv, "jdbc:mysql://") && !strings.HasPrefix(lv, "jdbc:mariadb://") && !strings.HasPrefix(lv, "${env:") {
				l.errorf(o.get(k), "%s: %s must be a MySQL JDBC URL (jdbc:mysql://host:port/db)", what, k)
			}
		}
	}
	if n := o.get("username"); n != nil {
		if s, ok := l.scalar(n, what+": username"); ok {
			c.Username = s
			l.checkEnvRefs(n, what+": username", s)
		}
	}
	if n := o.get("password"); n != nil {
		if s, ok := l.scalar(n, what+": password"); ok {
			c.Password = s
			l.checkEnvRefs(n, what+": password", s)
		}
	}
	for _, k := range []string{"dataSourceClassName", "driverClassName"} {
		if n := o.get(k); n != nil {
			l.scalar(n, what+": "+k) // accepted and ignored: shardgen always uses go-sql-driver/mysql
		}
	}
	for _, pk := range poolKeys {
		name := pk.name
		if o.present(pk.name) && o.present(pk.hikari) {
			l.errorf(o.key(pk.hikari), "%s: give %s or %s (its HikariCP spelling), not both", what, pk.name, pk.hikari)
		} else if o.present(pk.hikari) {
			name = pk.hikari
		}
		if !o.present(name) {
			continue
		}
		max := int64(math.MaxInt32)
		if pk.millis {
			max = math.MaxInt64 / int64(time.Millisecond)
		}
		pk.set(c, l.integer(o, name, 0, max))
	}
	if c.MaxPoolSize > 0 && c.MinPoolSize > c.MaxPoolSize {
		at := o.key("minPoolSize")
		if at == nil {
			at = o.key("minimumIdle")
		}
		l.errorf(at, "%s: minPoolSize %d is larger than maxPoolSize %d", what, c.MinPoolSize, c.MaxPoolSize)
	}
}

// checkEnvRefs reports a malformed `${env:NAME}` reference in s, the value
// of n. The syntax is runtime.ExpandEnv's; no variable is read here.
func (l *loader) checkEnvRefs(n *yaml.Node, what, s string) {
	if !strings.Contains(s, "${env:") {
		return
	}
	if _, err := runtime.ExpandEnvFunc(s, func(string) (string, bool) { return "", true }); err != nil {
		l.errorf(n, "%s: %v", what, err)
	}
}
