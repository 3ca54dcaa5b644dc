package proxy

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// Privilege provider types of the authority rule
// (ShardingSphere AuthorityRuleConfiguration; spec §13).
const (
	// PrivilegeAllPermitted (5.4+ ALL_PERMITTED, 5.1
	// ALL_PRIVILEGES_PERMITTED, the default) lets every configured user use
	// every logic database.
	PrivilegeAllPermitted = "ALL_PERMITTED"
	// PrivilegeDatabasePermitted (5.4+ DATABASE_PERMITTED with the prop
	// user-database-mappings, 5.1 SCHEMA_PRIVILEGES_PERMITTED with
	// user-schema-mappings) lets each user use only the logic databases
	// mapped to it (User.Databases).
	PrivilegeDatabasePermitted = "DATABASE_PERMITTED"
)

// User is one proxy account of the authority rule: the 5.4+ entry
// `{user: root@%, password: secret}` or the 5.1 string `root@%:secret`.
type User struct {
	// Name is the user name, compared exactly (MySQL user names are case
	// sensitive).
	Name string
	// Host is the host part: "" or "%" accept a client from any address,
	// anything else must equal the client's IP address as text.
	Host string
	// Password is the plain-text password; "" means no password.
	Password string
	// Databases are the logic databases the user may use under
	// PrivilegeDatabasePermitted, from the user-database-mappings prop ("*" is
	// every database); ignored under PrivilegeAllPermitted.
	Databases []string
}

// Permits reports whether the user may use the logic database db under
// the privilege provider privilege (ShardingSphere
// DatabasePermittedPrivilegeProvider: names compare case-insensitively,
// "*" maps every database).
func (u *User) Permits(privilege, db string) bool {
	if privilege != PrivilegeDatabasePermitted {
		return true
	}
	for _, d := range u.Databases {
		if d == "*" || strings.EqualFold(d, db) {
			return true
		}
	}
	return false
}

// Config is what the proxy serves: one ShardingSphere logic database (the
// rules, with their DDL attached), its deployment part (data sources, pools,
// props) and the proxy accounts.
//
// Example (a ShardingSphere 5.4+ proxy database-*.yaml with the global
// authority section in the same file; the 5.1 form puts `- !AUTHORITY
// {users: ["root@%:secret"]}` in rules:):
//
//	databaseName: sharding_db
//	dataSources:
//	  ds_0: {url: "jdbc:mysql://127.0.0.1:3306/ds_0", username: app, password: app}
//	rules:
//	  - !SHARDING {...}
//	authority:
//	  users:
//	    - user: root@%
//	      password: secret
//	  privilege:
//	    type: ALL_PERMITTED
type Config struct {
	// Rules is the loaded and validated configuration (schema.Load) with
	// the DDL of its logic tables attached once AttachDDL succeeded.
	Rules *schema.Config
	// Deploy is the deployment part the back-end pools are opened from.
	Deploy *runtime.Config
	// Users are the accounts, in YAML order; none means no account, which
	// only an insecure server accepts (Options.Insecure).
	Users []User
	// Privilege is the privilege provider type, PrivilegeAllPermitted or
	// PrivilegeDatabasePermitted.
	Privilege string
	// HasDDL is true once AttachDDL attached the logic tables' DDL (the
	// --ddl files): the server then plans with it and only checks it
	// against the data sources at Start, logging each difference. Without
	// it the server reads every logic table's definition from its first
	// actual table (Server.Start).
	HasDDL bool
}

// LoadConfig reads the proxy configuration file at path and the CREATE
// TABLE files ddlFiles (each a file or a directory of migrations, read in
// order as one schema: schema.ParseDDLPaths), which must then define every
// logic table of the rules (see ParseConfig and AttachDDL). Without ddlFiles the server reads
// the logic tables' definitions from the data sources when it starts.
// Errors list every problem found, one per line, as "file:line:col:
// message".
func LoadConfig(path string, ddlFiles []string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(path, src)
	if err != nil {
		return nil, err
	}
	// Files or migration directories, read in order as one schema.
	tables, err := schema.ParseDDLPaths(ddlFiles, cfg.Rules.Encrypt)
	if err != nil {
		return nil, err
	}
	if len(ddlFiles) == 0 {
		return cfg, nil
	}
	if err := cfg.AttachDDL(tables); err != nil {
		return nil, err
	}
	return cfg, nil
}

// ParseConfig parses src, the text of the proxy configuration file named
// file (used in error positions): the logic database as schema.Load reads it,
// the deployment part as runtime.ParseConfig reads it, and the authority
// rule in either shape:
//
//   - 5.4+: a top-level `authority:` map with `users:` (a list of maps with
//     user, password and the ignored admin and authenticationMethodName) and
//     an optional `privilege: {type: ALL_PERMITTED}`;
//   - 5.1: a `!AUTHORITY` entry of `rules:` with `users:` (a list of
//     "user@host:password" strings) and an optional
//     `provider: {type: ALL_PRIVILEGES_PERMITTED}`.
//
// The privilege type DATABASE_PERMITTED (5.1: SCHEMA_PRIVILEGES_PERMITTED)
// needs the prop user-database-mappings (5.1: user-schema-mappings), a
// comma-separated list of "user@host=database" ("*" for every database);
// every user@host must be a configured account.
func ParseConfig(file string, src []byte) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		_, err = schema.Load(file, src) // reports the syntax error with its position
		return nil, err
	}
	a := &authParser{file: file}
	cfg := &Config{Privilege: PrivilegeAllPermitted}
	a.parse(&doc, cfg)
	a.applyMappings(cfg)
	if err := a.errs.Err(); err != nil {
		return nil, err
	}
	// schema.Load refuses the 5.1 !AUTHORITY rule (it is the proxy's, not a
	// sharding rule): blank its lines, which keeps every other position.
	if a.from > 0 {
		src = blankLines(src, a.from, a.to)
	}
	rules, err := schema.Load(file, src)
	if err != nil {
		return nil, err
	}
	deploy, err := runtime.ParseConfig(file, src)
	if err != nil {
		return nil, err
	}
	cfg.Rules, cfg.Deploy = rules, deploy
	return cfg, nil
}

// blankLines empties lines from..to (1-based, to exclusive; 0 means the
// end), keeping their line breaks.
func blankLines(src []byte, from, to int) []byte {
	out := make([]byte, 0, len(src))
	line := 1
	for _, c := range src {
		if c == '\n' {
			line++
			out = append(out, c)
			continue
		}
		if line >= from && (to == 0 || line < to) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// AttachDDL attaches the logic tables' DDL to the rules (schema.CheckDDL)
// and sets HasDDL. An encrypt column the rule lists though the DDL dropped
// its column is refused, as generate refuses it
// (schema.Config.DroppedEncryptColumns).
func (c *Config) AttachDDL(tables []*schema.Table) error {
	if err := schema.CheckDDL(c.Rules, tables); err != nil {
		return err
	}
	if err := c.Rules.DroppedEncryptColumns.Err(); err != nil {
		return err
	}
	c.HasDDL = true
	return nil
}

// addErr appends err, a schema.Errors, a *schema.Error or any error, to errs.
func addErr(errs *schema.Errors, err error) {
	var list schema.Errors
	var one *schema.Error
	switch {
	case err == nil:
	case errors.As(err, &list):
		*errs = append(*errs, list...)
	case errors.As(err, &one):
		*errs = append(*errs, one)
	default:
		errs.Add(schema.Pos{}, err.Error())
	}
}

// authParser reads the authority rule from the YAML tree.
type authParser struct {
	file string
	errs schema.Errors
	// mapping is the user-database-mappings prop (nil: none), read at
	// where.
	mapping      *yaml.Node
	mappingWhere string
	// from, to are the lines of the 5.1 !AUTHORITY entry (to exclusive,
	// 0: the end of the file); from is 0 when there is none.
	from, to int
}

func (a *authParser) errorf(n *yaml.Node, msg string) {
	a.errs.Add(schema.Pos{File: a.file, Line: n.Line, Col: n.Column}, msg)
}

func (a *authParser) parse(doc *yaml.Node, cfg *Config) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return
	}
	found := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "authority":
			if found {
				a.errorf(k, "authority is configured twice (authority: and !AUTHORITY)")
				continue
			}
			found = true
			a.authority54(v, cfg)
		case "rules":
			if v.Kind != yaml.SequenceNode {
				continue
			}
			for j, r := range v.Content {
				if r.Tag != "!AUTHORITY" {
					continue
				}
				if found {
					a.errorf(r, "authority is configured twice (authority: and !AUTHORITY)")
					continue
				}
				found = true
				a.authority51(r, cfg)
				a.from = r.Line
				switch {
				case j+1 < len(v.Content):
					a.to = v.Content[j+1].Line
				case i+2 < len(root.Content):
					a.to = root.Content[i+2].Line
				}
			}
		}
	}
}

// authority54 reads `authority: {users: [{user, password}], privilege: {type}}`.
func (a *authParser) authority54(n *yaml.Node, cfg *Config) {
	if n.Kind != yaml.MappingNode {
		a.errorf(n, "authority: must be a map")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "users":
			if v.Kind != yaml.SequenceNode {
				a.errorf(v, "authority.users: must be a list")
				continue
			}
			for _, u := range v.Content {
				if u.Kind != yaml.MappingNode {
					a.errorf(u, "authority.users: an entry must be a map with user and password")
					continue
				}
				var spec, pass string
				var hasUser bool
				for j := 0; j+1 < len(u.Content); j += 2 {
					uk, uv := u.Content[j], u.Content[j+1]
					switch uk.Value {
					case "user":
						spec, hasUser = uv.Value, true
					case "password":
						if uv.Tag != "!!null" {
							pass = uv.Value
						}
					case "admin", "authenticationMethodName":
					default:
						a.errorf(uk, "authority.users: unknown key "+strconv.Quote(uk.Value)+" (allowed: user, password, admin, authenticationMethodName)")
					}
				}
				if !hasUser {
					a.errorf(u, "authority.users: an entry has no user")
					continue
				}
				a.addUser(u, spec, pass, cfg)
			}
		case "privilege":
			a.privilege(v, cfg, "authority.privilege", "ALL_PERMITTED")
		case "authenticators", "defaultAuthenticator":
			// mysql_native_password is the only method served.
		default:
			a.errorf(k, "authority: unknown key "+strconv.Quote(k.Value)+" (allowed: users, privilege, authenticators, defaultAuthenticator)")
		}
	}
}

// authority51 reads `!AUTHORITY {users: ["user@host:password"], provider: {type}}`.
func (a *authParser) authority51(n *yaml.Node, cfg *Config) {
	if n.Kind != yaml.MappingNode {
		a.errorf(n, "!AUTHORITY must be a map")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "users":
			if v.Kind != yaml.SequenceNode {
				a.errorf(v, "!AUTHORITY users: must be a list")
				continue
			}
			for _, u := range v.Content {
				if u.Kind != yaml.ScalarNode {
					a.errorf(u, `!AUTHORITY users: an entry must be a "user@host:password" string`)
					continue
				}
				spec, pass, ok := strings.Cut(u.Value, ":")
				if !ok {
					a.errorf(u, "!AUTHORITY users: "+strconv.Quote(u.Value)+` is not "user@host:password"`)
					continue
				}
				a.addUser(u, spec, pass, cfg)
			}
		case "provider", "privilege":
			a.privilege(v, cfg, "!AUTHORITY "+k.Value, "ALL_PRIVILEGES_PERMITTED")
		default:
			a.errorf(k, "!AUTHORITY: unknown key "+strconv.Quote(k.Value)+" (allowed: users, provider)")
		}
	}
}

// privilege reads `{type: T, props: {...}}`: the all-permitted type (either
// version's spelling) or the database-permitted one with its mappings prop.
func (a *authParser) privilege(n *yaml.Node, cfg *Config, where, allType string) {
	if n.Kind != yaml.MappingNode {
		a.errorf(n, where+": must be a map with type")
		return
	}
	var props *yaml.Node
	var typ *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "type":
			typ = v
			switch strings.ToUpper(v.Value) {
			case "ALL_PERMITTED", "ALL_PRIVILEGES_PERMITTED":
				cfg.Privilege = PrivilegeAllPermitted
			case "DATABASE_PERMITTED", "SCHEMA_PRIVILEGES_PERMITTED":
				cfg.Privilege = PrivilegeDatabasePermitted
			default:
				a.errorf(v, where+": type "+strconv.Quote(v.Value)+" is not supported (supported: "+allType+", DATABASE_PERMITTED, SCHEMA_PRIVILEGES_PERMITTED)")
			}
		case "props":
			props = v
		default:
			a.errorf(k, where+": unknown key "+strconv.Quote(k.Value)+" (allowed: type, props)")
		}
	}
	if cfg.Privilege != PrivilegeDatabasePermitted {
		return
	}
	var mapping *yaml.Node
	if props != nil && props.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(props.Content); i += 2 {
			switch props.Content[i].Value {
			case "user-database-mappings", "user-schema-mappings":
				mapping = props.Content[i+1]
			}
		}
	}
	if mapping == nil || strings.TrimSpace(mapping.Value) == "" {
		a.errorf(typ, where+": type "+typ.Value+" needs props.user-database-mappings (e.g. \"root@%=sharding_db, app@%=*\")")
		return
	}
	a.mapping = mapping
	a.mappingWhere = where
}

// applyMappings gives every account its databases from the
// user-database-mappings prop, once every account is known.
func (a *authParser) applyMappings(cfg *Config) {
	if a.mapping == nil {
		return
	}
	for _, m := range strings.Split(a.mapping.Value, ",") {
		m = strings.TrimSpace(m)
		if m == "" {
			continue
		}
		spec, db, ok := strings.Cut(m, "=")
		spec, db = strings.TrimSpace(spec), strings.TrimSpace(db)
		if !ok || spec == "" || db == "" {
			a.errorf(a.mapping, a.mappingWhere+": user-database-mappings entry "+strconv.Quote(m)+` is not "user@host=database"`)
			continue
		}
		name, host, _ := strings.Cut(spec, "@")
		found := false
		for i := range cfg.Users {
			u := &cfg.Users[i]
			if u.Name == name && sameHost(u.Host, host) {
				u.Databases = append(u.Databases, db)
				found = true
			}
		}
		if !found {
			a.errorf(a.mapping, a.mappingWhere+": user-database-mappings names "+strconv.Quote(spec)+", which is not a configured user")
		}
	}
}

// sameHost reports whether two host parts of a grantee are the same ("" and
// "%" both mean any host).
func sameHost(a, b string) bool {
	if a == "" {
		a = "%"
	}
	if b == "" {
		b = "%"
	}
	return strings.EqualFold(a, b)
}

// addUser adds the account "name@host" (ShardingSphere Grantee: a missing
// host part or "%" means any host).
func (a *authParser) addUser(n *yaml.Node, spec, password string, cfg *Config) {
	name, host, _ := strings.Cut(spec, "@")
	if name == "" {
		a.errorf(n, "authority: user "+strconv.Quote(spec)+" has an empty name")
		return
	}
	for _, u := range cfg.Users {
		if u.Name == name && sameHost(u.Host, host) {
			a.errorf(n, "authority: user "+strconv.Quote(spec)+" is configured twice")
			return
		}
	}
	// Secrets stay out of the file as in data sources: ${env:NAME} and
	// ${env:NAME:-default} (runtime.ExpandEnv).
	password, err := runtime.ExpandEnv(password)
	if err != nil {
		a.errorf(n, "authority: user "+strconv.Quote(spec)+": password: "+err.Error())
		return
	}
	cfg.Users = append(cfg.Users, User{Name: name, Host: host, Password: password})
}
