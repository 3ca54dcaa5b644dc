package schema

import (
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shardgen/shardgen/runtime"
)

// DefaultDatabaseName is the logic database name when the YAML gives neither
// databaseName nor schemaName (ShardingSphere's DefaultDatabase.LOGIC_NAME).
const DefaultDatabaseName = "logic_db"

// ruleTags are the rule tags shardgen loads, in the order ShardingSphere's
// documentation lists them.
var ruleTags = []string{"!SHARDING", "!BROADCAST", "!SINGLE", "!ENCRYPT", "!READWRITE_SPLITTING"}

// unsupportedRuleTags are ShardingSphere 5.x rule tags that shardgen knows but
// does not implement; a file using one is refused rather than half-honoured.
// The list includes the 5.1 global rules that sat in `rules:` (!AUTHORITY,
// !TRANSACTION, !SQL_PARSER) and plugin-era rules.
var unsupportedRuleTags = []string{
	"!MASK", "!SHADOW", "!DB_DISCOVERY", "!AUTHORITY", "!TRANSACTION", "!SQL_PARSER",
	"!SQL_TRANSLATOR", "!SQL_FEDERATION", "!TRAFFIC", "!GLOBAL_CLOCK", "!LOGGING",
	"!COMPATIBLE_ENCRYPT", "!SHARDING_AUDIT",
}

// globalRuleKeys are the 5.4+ global rules a JDBC YAML may hold at its top
// level (YamlJDBCConfiguration). None decides where a row lives, so shardgen
// accepts them with a warning and ignores them; authority (users and
// privilege) is read by the proxy, and accepted without a warning.
var globalRuleKeys = []string{
	"authority", "transaction", "sqlParser", "sqlFederation", "sqlTranslator", "traffic", "logging", "globalClock",
}

// LoadFile reads the ShardingSphere 5.x YAML file at path and loads it with
// Load. A file that cannot be read gives the *os.PathError unchanged; every
// other error is an Errors.
func LoadFile(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(path, src)
}

// Load parses src, the text of a ShardingSphere 5.x JDBC YAML or proxy
// database-*.yaml (file names it in positions), and validates it: data
// sources, props, and the rules !SHARDING, !BROADCAST, !SINGLE, !ENCRYPT and
// !READWRITE_SPLITTING in both their 5.1 and 5.4+ shapes (see
// ../shared/spec/shardingsphere.md §1–§7).
//
// Validation constructs every sharding algorithm and key generator with
// runtime.NewAlgorithm / runtime.NewKeyGenerator and binds each strategy to
// the data nodes it routes over, so anything ShardingSphere would reject when
// it starts is reported here, at the line:col of its cause. The error is an
// Errors holding every problem, sorted by position, or nil. Problems that
// ShardingSphere accepts but that are probably mistakes (an algorithm defined
// but never used) are Config.Warnings, not errors.
func Load(file string, src []byte) (*Config, error) {
	l := &loader{file: file, lines: splitLines(src)}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		l.errs = append(l.errs, yamlError(file, src, err))
		return nil, l.errs.Err()
	}
	cfg := l.load(&doc)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	cfg.Warnings = l.warns
	if err := l.warns.Err(); err == nil {
		cfg.Warnings = nil
	}
	return cfg, nil
}

// splitLines splits src into lines without their line ends.
func splitLines(src []byte) []string {
	lines := strings.Split(string(src), "\n")
	for i, s := range lines {
		lines[i] = strings.TrimSuffix(s, "\r")
	}
	return lines
}

// yamlError turns a yaml.v3 syntax error in src into an Error at the line of
// the offending token (runtime.YAMLErrorLine).
func yamlError(file string, src []byte, err error) *Error {
	line, msg := runtime.YAMLErrorLine(src, err)
	return &Error{Pos: Pos{File: file, Line: line}, Msg: "invalid YAML: " + msg}
}

// state is what one load collects before the cross-rule checks.
type state struct {
	cfg      *Config
	dsByName map[string]*DataSource
	sharding *shardingState
	rw       *readWriteState
	encrypt  *encryptState
	single   *singleState
	bcast    []nameAt // !BROADCAST tables, then 5.1 broadcastTables
	bcastPos Pos
}

// load walks the document and fills the Config; problems go to l.errs.
func (l *loader) load(doc *yaml.Node) *Config {
	cfg := &Config{File: l.file, DatabaseName: DefaultDatabaseName}
	st := &state{cfg: cfg, dsByName: map[string]*DataSource{}}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		l.errorAt(Pos{File: l.file, Line: 1, Col: 1}, "empty configuration: dataSources and rules are required")
		return cfg
	}
	root := l.deref(doc.Content[0])
	topKeys := append([]string{"databaseName", "schemaName", "mode", "dataSources", "rules", "props"}, globalRuleKeys...)
	top := l.object(root, "top level", topKeys...)
	if top == nil {
		return cfg
	}
	for _, k := range globalRuleKeys {
		// authority is ShardingSphere-Proxy's users and privilege, which
		// `shardgen proxy` honours (proxy.ParseConfig): no warning for a
		// file copied from a proxy's server.yaml.
		if top.present(k) && k != "authority" {
			l.warnf(top.key(k), "top level: %s is a global rule that shardgen ignores", k)
		}
	}
	switch {
	case top.has("databaseName") && top.has("schemaName"):
		l.errorf(top.key("schemaName"), "top level: give databaseName or schemaName (its 5.1.0/5.1.1 spelling), not both")
		cfg.DatabaseName = l.str(top, "databaseName")
	case top.has("databaseName"):
		cfg.DatabaseName = l.reqStr(top, "databaseName")
	case top.has("schemaName"):
		cfg.DatabaseName = l.reqStr(top, "schemaName")
	}
	if !top.has("dataSources") {
		l.errorf(top.at("dataSources"), "top level: dataSources is required")
	} else {
		l.loadDataSources(st, top.get("dataSources"))
	}
	if top.present("props") {
		cfg.Props, cfg.PropsPos = l.loadProps(top.get("props"))
	}
	if top.present("rules") {
		l.loadRules(st, top.get("rules"))
	}
	l.resolve(st)
	return cfg
}

// loadRules dispatches each tagged rule of `rules:`.
func (l *loader) loadRules(st *state, n *yaml.Node) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "rules must be a list of tagged rules (- !SHARDING ...), got %s", describe(n))
		return
	}
	first := map[string]*yaml.Node{}
	for _, item := range n.Content {
		item = l.deref(item)
		tag := item.Tag
		if tag == "" || strings.HasPrefix(tag, "!!") {
			if item.Kind == yaml.MappingNode {
				l.errorf(item, "rules: a rule must start with its tag, one of %s", strings.Join(ruleTags, ", "))
			} else {
				l.errorf(item, "rules: a rule must be a tagged mapping such as !SHARDING, got %s", describe(item))
			}
			continue
		}
		tag = strings.TrimSuffix(strings.TrimPrefix(tag, "!<"), ">")
		if contains(unsupportedRuleTags, tag) {
			l.errorf(item, "rule %s is not supported by shardgen", tag)
			continue
		}
		if !contains(ruleTags, tag) {
			l.errorf(item, "unknown rule tag %s (known: %s)", tag, strings.Join(ruleTags, ", "))
			continue
		}
		if f, dup := first[tag]; dup {
			l.errorf(item, "rule %s is given twice (first at line %d)", tag, f.Line)
			continue
		}
		first[tag] = item
		body := item
		if item.Kind == yaml.ScalarNode && item.Value == "" {
			// `- !BROADCAST` with nothing after it: an empty rule.
			body = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: item.Line, Column: item.Column}
		}
		switch tag {
		case "!SHARDING":
			l.loadSharding(st, item, body)
		case "!BROADCAST":
			l.loadBroadcast(st, item, body)
		case "!SINGLE":
			l.loadSingle(st, item, body)
		case "!ENCRYPT":
			l.loadEncrypt(st, item, body)
		case "!READWRITE_SPLITTING":
			l.loadReadWrite(st, item, body)
		}
	}
}

// resolve runs the checks that need more than one rule: data source names
// used by sharding, broadcast and single rules, read/write groups, and
// logic tables claimed twice.
func (l *loader) resolve(st *state) {
	l.resolveReadWrite(st)
	st.cfg.LogicDataSources = logicDataSources(st)
	l.resolveSharding(st)
	l.resolveBroadcast(st)
	l.resolveSingle(st)
	l.resolveEncrypt(st)
}

// logicDataSources returns the data source names as the sharding, broadcast
// and single rules see them: the read/write groups (in rule order) followed
// by the physical data sources that belong to no group (in YAML order).
// This is ShardingSphere's aggregated data source view
// (PhysicalDataSourceAggregator / SingleTableLoadUtils.getAggregatedDataSourceMap).
func logicDataSources(st *state) []string {
	var out []string
	member := map[string]bool{}
	if st.rw != nil {
		for _, g := range st.cfg.ReadWrite.Groups {
			out = append(out, g.Name)
			member[g.WriteDataSource] = true
			for _, r := range g.ReadDataSources {
				member[r] = true
			}
		}
	}
	for _, ds := range st.cfg.DataSources {
		if !member[ds.Name] {
			out = append(out, ds.Name)
		}
	}
	return out
}

// definedDataSource reports whether name is a physical data source or a
// read/write group, i.e. something a data node may name.
func (st *state) definedDataSource(name string) bool {
	if _, ok := st.dsByName[name]; ok {
		return true
	}
	if st.rw != nil {
		_, ok := st.rw.groups[name]
		return ok
	}
	return false
}

// dataSourceNames lists what a data node may name, for error messages.
func (st *state) dataSourceNames() string {
	names := st.cfg.LogicDataSources
	if len(names) == 0 {
		return "none are defined"
	}
	const max = 8
	if len(names) > max {
		return "defined: " + strings.Join(names[:max], ", ") + ", ..."
	}
	return "defined: " + strings.Join(names, ", ")
}
