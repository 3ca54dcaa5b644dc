package runtime

import (
	"errors"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// DefaultDatabaseName is the logic database name ShardingSphere uses when the
// YAML has no databaseName (ShardingSphere 5.x DefaultDatabase.LOGIC_NAME).
const DefaultDatabaseName = "logic_db"

// Config is the deployment part of a ShardingSphere 5.x YAML file that an
// application reads at run time: which MySQL databases to reach, how to pool
// connections to them, and the props. The rules are not here: the generator
// compiled them into the generated package.
//
// Example (a ShardingSphere JDBC YAML; `rules:` and `mode:` are skipped):
//
//	databaseName: sharding_db
//	dataSources:
//	  ds_0:
//	    url: jdbc:mysql://127.0.0.1:3306/ds_0?serverTimezone=UTC
//	    username: app
//	    password: ${env:DS_PASSWORD}
//	    maxPoolSize: 50
//	props:
//	  sql-show: true
//	  max-connections-size-per-query: 1
type Config struct {
	// DatabaseName is databaseName (5.1.0/5.1.1: schemaName); default
	// DefaultDatabaseName.
	DatabaseName string
	// DataSources are the entries of dataSources:, in YAML order.
	DataSources []NamedDataSource
	// Props is props:, every value as the text written in the YAML
	// (`sql-show: true` gives "true"). Nil when there is no props: key.
	Props Props
	// Encryptors are the `encryptors:` of the !ENCRYPT rule, in YAML order:
	// their keys are deployment secrets, read at run time (never compiled
	// into generated code). Props values may be `${env:NAME}` references;
	// NewEncryptor expands them.
	Encryptors []NamedEncryptor
	// ReadWriteGroups are the groups of the !READWRITE_SPLITTING rule, in
	// YAML order, inline expressions expanded (see ReadWriteGroupConfig).
	// Nil when there is no such rule.
	ReadWriteGroups []ReadWriteGroupConfig
	// LoadBalancers are the rule's loadBalancers, in YAML order.
	LoadBalancers []NamedLoadBalancer
	// TransactionType is defaultType of the !TRANSACTION rule (or of a
	// top-level transaction: mapping, as in ShardingSphere-Proxy's
	// server.yaml): LOCAL (the default) or XA. With XA, an auto-committed
	// write with units on several data sources runs as an XA transaction
	// (see ExecUnits). Example:
	//
	//	rules:
	//	- !TRANSACTION
	//	  defaultType: XA
	TransactionType TxType
}

// NamedEncryptor is one entry of an !ENCRYPT rule's encryptors: its name
// (what columns refer to), ShardingSphere type and props.
type NamedEncryptor struct {
	Name  string
	Type  string
	Props Props
}

// NamedDataSource is one entry of dataSources: its name (the key, e.g.
// "ds_0", which data nodes refer to) and its connection and pool settings.
type NamedDataSource struct {
	Name   string
	Config DataSourceConfig
}

// LoadConfig reads the ShardingSphere YAML file at path and returns its
// deployment part; see ParseConfig for what is read and how errors read.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// ParseConfig parses data, the text of the ShardingSphere 5.x YAML file named
// file (used only in error messages), and returns its deployment part.
//
// It reads only the top-level keys databaseName (or the 5.1.0/5.1.1
// schemaName), dataSources and props; rules:, mode: and every other
// top-level key are skipped unread, because the schema loader validates the
// whole file at generate time. In a data source it reads:
//
//   - url or jdbcUrl (`jdbc:mysql://host:port/db?k=v`), or dsn (a
//     go-sql-driver/mysql DSN): exactly one is required;
//   - username, password;
//   - the pool keys, in ShardingSphere's pool-neutral spelling or HikariCP's:
//     maxPoolSize / maximumPoolSize, minPoolSize / minimumIdle (connections),
//     connectionTimeoutMilliseconds / connectionTimeout,
//     idleTimeoutMilliseconds / idleTimeout and maxLifetimeMilliseconds /
//     maxLifetime (milliseconds), each a non-negative integer.
//
// Other data source keys (dataSourceClassName, driverClassName and the rest
// of a pool's bean properties) are ignored, as ShardingSphere ignores bean
// properties its pool has no setter for. `${env:NAME}` references in url,
// jdbcUrl, dsn, username and password are expanded with ExpandEnv. YAML
// anchors, aliases and `<<` merge keys work as in SnakeYAML.
//
// Every problem found is reported, one per line, as "file:line: message",
// e.g. `conf.yaml:7: data source "ds_1": maxPoolSize must be a
// non-negative integer, got "ten"`.
func ParseConfig(file string, data []byte) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlSyntaxError(file, data, err)
	}
	p := &deployParser{file: file}
	cfg := p.parse(&doc)
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].line < p.errs[j].line })
		errs := make([]error, len(p.errs))
		for i, e := range p.errs {
			errs[i] = errors.New(file + ":" + strconv.Itoa(e.line) + ": " + e.msg)
		}
		return nil, errors.Join(errs...)
	}
	return cfg, nil
}

// yamlSyntaxError turns a yaml.v3 syntax error in data into "file:N: msg",
// N being the line of the offending token (YAMLErrorLine).
func yamlSyntaxError(file string, data []byte, err error) error {
	line, msg := YAMLErrorLine(data, err)
	if line == 0 {
		return errors.New(file + ": " + msg)
	}
	return errors.New(file + ":" + strconv.Itoa(line) + ": " + msg)
}

// deployParser collects every problem of one ParseConfig call.
type deployParser struct {
	file string
	errs []deployError
}

type deployError struct {
	line int
	msg  string
}

// errorf records msg at the line of n (line 1 when n is nil).
func (p *deployParser) errorf(n *yaml.Node, msg string) {
	line := 1
	if n != nil && n.Line > 0 {
		line = n.Line
	}
	p.errs = append(p.errs, deployError{line, msg})
}

// yamlPair is one key: value of a mapping after merge keys are applied.
type yamlPair struct {
	key, value *yaml.Node
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// pairs returns the entries of the mapping n in order, with `<<` merge keys
// expanded (keys written in n win over merged ones, earlier merged mappings
// over later ones, as in SnakeYAML). A key written twice is reported.
func (p *deployParser) pairs(n *yaml.Node, what string) []yamlPair {
	var own, merged []yamlPair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merged = append(merged, p.mergeSources(v, what)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, what+" keys must be scalars")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errorf(k, "duplicate key "+strconv.Quote(k.Value)+" in "+what+" (first at line "+strconv.Itoa(first.Line)+")")
			continue
		}
		seen[k.Value] = k
		own = append(own, yamlPair{k, v})
	}
	for _, m := range merged {
		if _, ok := seen[m.key.Value]; !ok {
			seen[m.key.Value] = m.key
			own = append(own, m)
		}
	}
	return own
}

// mergeSources returns the pairs a `<<` value contributes: one mapping, or a
// sequence of mappings (earlier ones win).
func (p *deployParser) mergeSources(v *yaml.Node, what string) []yamlPair {
	switch v.Kind {
	case yaml.MappingNode:
		return p.pairs(v, what)
	case yaml.SequenceNode:
		var out []yamlPair
		for _, item := range v.Content {
			item = resolve(item)
			if item.Kind != yaml.MappingNode {
				p.errorf(item, "<< in "+what+" must name a mapping or a list of mappings")
				continue
			}
			out = append(out, p.pairs(item, what)...)
		}
		return out
	}
	p.errorf(v, "<< in "+what+" must name a mapping or a list of mappings")
	return nil
}

func (p *deployParser) parse(doc *yaml.Node) *Config {
	cfg := &Config{DatabaseName: DefaultDatabaseName}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		p.errorf(nil, "empty configuration: dataSources is required")
		return cfg
	}
	top := resolve(doc.Content[0])
	if top.Kind != yaml.MappingNode {
		p.errorf(top, "the configuration must be a mapping with databaseName, dataSources, rules and props")
		return cfg
	}
	var dbName, schemaName, dataSources *yaml.Node
	for _, kv := range p.pairs(top, "the configuration") {
		switch kv.key.Value {
		case "databaseName":
			dbName = kv.value
		case "schemaName":
			schemaName = kv.value
		case "dataSources":
			dataSources = kv.value
		case "props":
			cfg.Props = p.props(kv.value)
		case "rules":
			cfg.Encryptors = p.encryptors(kv.value)
			cfg.ReadWriteGroups, cfg.LoadBalancers = p.readWrite(kv.value)
			cfg.TransactionType = p.transactionType(kv.value)
		case "transaction":
			cfg.TransactionType = p.transactionRule(resolve(kv.value), "transaction")
		}
	}
	if dbName == nil {
		dbName = schemaName
	}
	if dbName != nil {
		if s, ok := p.scalar(dbName, "databaseName"); ok && s != "" {
			cfg.DatabaseName = s
		}
	}
	if dataSources == nil {
		p.errorf(top, "dataSources is required")
		return cfg
	}
	cfg.DataSources = p.dataSources(dataSources)
	return cfg
}

// scalar returns the text of a scalar node ("" for null), or reports that
// what must be a scalar.
func (p *deployParser) scalar(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, what+" must be a scalar, got a "+kindName(n.Kind))
		return "", false
	}
	if n.Tag == "!!null" {
		return "", true
	}
	return n.Value, true
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		return "scalar"
	}
	return "node"
}

// encryptors reads the encryptors of the !ENCRYPT rule in rules (the rest
// of the rules is the generator's business and is skipped).
func (p *deployParser) encryptors(rules *yaml.Node) []NamedEncryptor {
	if rules.Kind != yaml.SequenceNode {
		return nil
	}
	var out []NamedEncryptor
	for _, r := range rules.Content {
		r = resolve(r)
		if r.Tag != "!ENCRYPT" || r.Kind != yaml.MappingNode {
			continue
		}
		for _, kv := range p.pairs(r, "!ENCRYPT") {
			if kv.key.Value != "encryptors" || kv.value.Kind != yaml.MappingNode {
				continue
			}
			for _, e := range p.pairs(kv.value, "encryptors") {
				ne := NamedEncryptor{Name: e.key.Value}
				if e.value.Kind != yaml.MappingNode {
					p.errorf(e.value, "encryptor "+strconv.Quote(ne.Name)+" must be a mapping with type and props")
					continue
				}
				for _, f := range p.pairs(e.value, "encryptor "+strconv.Quote(ne.Name)) {
					switch f.key.Value {
					case "type":
						ne.Type, _ = p.scalar(f.value, "encryptor "+strconv.Quote(ne.Name)+" type")
					case "props":
						ne.Props = p.props(f.value)
					}
				}
				out = append(out, ne)
			}
		}
	}
	return out
}

func (p *deployParser) props(n *yaml.Node) Props {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return Props{}
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "props must be a mapping, got a "+kindName(n.Kind))
		return nil
	}
	props := Props{}
	for _, kv := range p.pairs(n, "props") {
		if s, ok := p.scalar(kv.value, "props "+strconv.Quote(kv.key.Value)); ok {
			props[kv.key.Value] = s
		}
	}
	return props
}

func (p *deployParser) dataSources(n *yaml.Node) []NamedDataSource {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.errorf(n, "dataSources must be a mapping of data source names to their settings")
		return nil
	}
	var out []NamedDataSource
	for _, kv := range p.pairs(n, "dataSources") {
		name := kv.key.Value
		if name == "" {
			p.errorf(kv.key, "a data source name must not be empty")
			continue
		}
		if kv.value.Kind != yaml.MappingNode {
			p.errorf(kv.value, "data source "+strconv.Quote(name)+" must be a mapping, got a "+kindName(kv.value.Kind))
			continue
		}
		if c, ok := p.dataSource(name, kv.key, kv.value); ok {
			out = append(out, NamedDataSource{Name: name, Config: c})
		}
	}
	return out
}

// poolKeys maps each pool key (both spellings) to its setter.
var poolKeys = map[string]struct {
	canonical string // ShardingSphere's pool-neutral spelling, for messages
	millis    bool
	set       func(c *DataSourceConfig, n int64)
}{
	"maxPoolSize":                   {"maxPoolSize", false, func(c *DataSourceConfig, n int64) { c.MaxPoolSize = int(n) }},
	"maximumPoolSize":               {"maxPoolSize", false, func(c *DataSourceConfig, n int64) { c.MaxPoolSize = int(n) }},
	"minPoolSize":                   {"minPoolSize", false, func(c *DataSourceConfig, n int64) { c.MinPoolSize = int(n) }},
	"minimumIdle":                   {"minPoolSize", false, func(c *DataSourceConfig, n int64) { c.MinPoolSize = int(n) }},
	"connectionTimeoutMilliseconds": {"connectionTimeoutMilliseconds", true, func(c *DataSourceConfig, n int64) { c.ConnectionTimeout = time.Duration(n) * time.Millisecond }},
	"connectionTimeout":             {"connectionTimeoutMilliseconds", true, func(c *DataSourceConfig, n int64) { c.ConnectionTimeout = time.Duration(n) * time.Millisecond }},
	"idleTimeoutMilliseconds":       {"idleTimeoutMilliseconds", true, func(c *DataSourceConfig, n int64) { c.IdleTimeout = time.Duration(n) * time.Millisecond }},
	"idleTimeout":                   {"idleTimeoutMilliseconds", true, func(c *DataSourceConfig, n int64) { c.IdleTimeout = time.Duration(n) * time.Millisecond }},
	"maxLifetimeMilliseconds":       {"maxLifetimeMilliseconds", true, func(c *DataSourceConfig, n int64) { c.MaxLifetime = time.Duration(n) * time.Millisecond }},
	"maxLifetime":                   {"maxLifetimeMilliseconds", true, func(c *DataSourceConfig, n int64) { c.MaxLifetime = time.Duration(n) * time.Millisecond }},
}

func (p *deployParser) dataSource(name string, key, n *yaml.Node) (DataSourceConfig, bool) {
	var c DataSourceConfig
	ok := true
	where := "data source " + strconv.Quote(name)
	fail := func(at *yaml.Node, msg string) {
		p.errorf(at, where+": "+msg)
		ok = false
	}
	// text reads a string setting and expands ${env:...} in it.
	text := func(kv yamlPair) string {
		s, good := p.scalar(kv.value, where+": "+kv.key.Value)
		if !good {
			ok = false
			return ""
		}
		x, err := ExpandEnv(s)
		if err != nil {
			fail(kv.value, kv.key.Value+": "+err.Error())
			return ""
		}
		return x
	}
	var urlKey *yaml.Node            // the key that set URL or DSN
	poolSetBy := map[string]string{} // canonical pool key -> spelling used
	for _, kv := range p.pairs(n, where) {
		k := kv.key.Value
		switch k {
		case "url", "jdbcUrl", "dsn":
			if urlKey != nil {
				fail(kv.key, "both "+urlKey.Value+" and "+k+" are set; give exactly one of url, jdbcUrl or dsn")
				continue
			}
			urlKey = kv.key
			if k == "dsn" {
				c.DSN = text(kv)
			} else {
				c.URL = text(kv)
			}
		case "username":
			c.Username = text(kv)
		case "password":
			c.Password = text(kv)
		default:
			pk, isPool := poolKeys[k]
			if !isPool {
				continue // another bean property of the pool: ignored, as in ShardingSphere
			}
			if other, dup := poolSetBy[pk.canonical]; dup {
				fail(kv.key, "both "+other+" and "+k+" are set; give one")
				continue
			}
			poolSetBy[pk.canonical] = k
			s, good := p.scalar(kv.value, where+": "+k)
			if !good {
				ok = false
				continue
			}
			v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			limit := int64(math.MaxInt32)
			if pk.millis {
				limit = math.MaxInt64 / int64(time.Millisecond)
			}
			if err != nil || v < 0 || v > limit {
				fail(kv.value, k+" must be a non-negative integer, got "+strconv.Quote(s))
				continue
			}
			pk.set(&c, v)
		}
	}
	if urlKey == nil {
		fail(key, "one of url, jdbcUrl or dsn is required")
	}
	return c, ok
}
