package schema

import (
	"errors"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shardgen/shardgen/runtime"
)

// maxDataNodes bounds the data nodes of one logic table (shardgen limit; real
// layouts have at most a few thousand).
const maxDataNodes = 1 << 17

// shardingState is a parsed !SHARDING rule with the YAML nodes the
// resolution step needs for its error positions.
type shardingState struct {
	rule      *ShardingRule
	tables    []*tableState
	byLower   map[string]*tableState // logic table name, lower case
	bindings  []nameAt
	defDB     *strategyState
	defTable  *strategyState
	defKeyGen *keyGenState
	defAudit  *auditState
	defColumn string

	algs, keygens, auditors             map[string]*algState
	algOrder, keygenOrder, auditorOrder []*algState
}

// algState is one entry of shardingAlgorithms, keyGenerators, auditors,
// encryptors or loadBalancers.
type algState struct {
	spec     *AlgorithmSpec
	key      *yaml.Node // the name
	typeNode *yaml.Node // the type value (the name when type is missing)
	vals     map[string]*yaml.Node
	used     bool
}

// strategyState is one parsed sharding strategy.
type strategyState struct {
	s         *Strategy // nil for none
	path      string    // e.g. "tables.t_order.databaseStrategy"
	kindKey   *yaml.Node
	algNode   *yaml.Node // the shardingAlgorithmName value
	rawColumn string     // shardingColumn / shardingColumns as written
	typo      bool       // shardingColumn was misspelt (and reported)
	resolved  bool
	usable    bool // algorithm found, constructed and of the right kind
}

type keyGenState struct {
	column, name string
	node         *yaml.Node // the strategy mapping (or its key)
	nameNode     *yaml.Node
	path         string
}

type auditState struct {
	s     *AuditStrategy
	names []nameAt
	path  string
}

// tableState is one logic table of tables: or autoTables:.
type tableState struct {
	rule      *TableRule
	key       *yaml.Node
	path      string
	nodesNode *yaml.Node // actualDataNodes or actualDataSources value; nil when absent
	db, tbl   *strategyState
	dbSet     bool // databaseStrategy written (possibly as none)
	tblSet    bool
	keyGen    *keyGenState
	audit     *auditState
	autoDS    []string       // autoTables: expanded actualDataSources
	effDB     *strategyState // effective strategies (own else default)
	effTable  *strategyState
	ok        bool // data nodes are known
	inBinding *BindingGroup
}

var shardingKeys = []string{
	"tables", "autoTables", "bindingTables", "broadcastTables", "defaultDatabaseStrategy", "defaultTableStrategy",
	"defaultKeyGenerateStrategy", "defaultAuditStrategy", "defaultShardingColumn", "shardingAlgorithms",
	"keyGenerators", "auditors", "shardingCache",
}

// loadSharding parses a !SHARDING rule (5.1 to 5.5 keys, see
// ../shared/spec/shardingsphere.md §3). Cross-references are resolved later
// by resolveSharding.
func (l *loader) loadSharding(st *state, item, body *yaml.Node) {
	o := l.object(body, "!SHARDING", shardingKeys...)
	if o == nil {
		return
	}
	sh := &shardingState{
		rule:     &ShardingRule{Pos: l.pos(item), Algorithms: map[string]*AlgorithmSpec{}, KeyGenerators: map[string]*AlgorithmSpec{}, Auditors: map[string]*AlgorithmSpec{}},
		byLower:  map[string]*tableState{},
		algs:     map[string]*algState{},
		keygens:  map[string]*algState{},
		auditors: map[string]*algState{},
	}
	st.sharding = sh
	st.cfg.Sharding = sh.rule

	sh.algOrder = l.algorithms(o.get("shardingAlgorithms"), "shardingAlgorithms", sh.algs, sh.rule.Algorithms)
	sh.keygenOrder = l.algorithms(o.get("keyGenerators"), "keyGenerators", sh.keygens, sh.rule.KeyGenerators)
	sh.auditorOrder = l.algorithms(o.get("auditors"), "auditors", sh.auditors, sh.rule.Auditors)
	sh.defColumn = l.str(o, "defaultShardingColumn")
	sh.rule.DefaultShardingColumn = sh.defColumn

	for _, e := range l.entries(o.get("tables"), "tables") {
		l.parseTable(sh, e, false)
	}
	for _, e := range l.entries(o.get("autoTables"), "autoTables") {
		l.parseTable(sh, e, true)
	}
	if n := o.get("defaultDatabaseStrategy"); !isNull(n) {
		sh.defDB = l.parseStrategy(n, "defaultDatabaseStrategy")
	}
	if n := o.get("defaultTableStrategy"); !isNull(n) {
		sh.defTable = l.parseStrategy(n, "defaultTableStrategy")
	}
	if n := o.get("defaultKeyGenerateStrategy"); !isNull(n) {
		sh.defKeyGen = l.parseKeyGen(n, "defaultKeyGenerateStrategy")
		if sh.defKeyGen != nil && sh.defKeyGen.name == "" {
			l.errorf(sh.defKeyGen.node, "defaultKeyGenerateStrategy: keyGeneratorName is required")
		}
	}
	if n := o.get("defaultAuditStrategy"); !isNull(n) {
		sh.defAudit = l.parseAudit(n, "defaultAuditStrategy")
	}
	sh.bindings = l.strList(o.get("bindingTables"), "bindingTables")
	if n := o.get("broadcastTables"); n != nil {
		st.bcast = append(st.bcast, l.strList(n, "broadcastTables")...)
		if st.bcastPos.Line == 0 {
			st.bcastPos = l.pos(o.key("broadcastTables"))
		}
	}
	if n := o.get("shardingCache"); !isNull(n) && n.Kind != yaml.MappingNode {
		l.errorf(n, "shardingCache must be a mapping, got %s", describe(n))
	}
}

// algorithms parses a mapping of named algorithms ({type, props}) into
// byName and specs, in YAML order. Types are upper-cased as ShardingSphere's
// SPI look-up is case-insensitive.
func (l *loader) algorithms(n *yaml.Node, what string, byName map[string]*algState, specs map[string]*AlgorithmSpec) []*algState {
	var order []*algState
	for _, e := range l.entries(n, what) {
		name := strings.TrimSpace(e.key.Value)
		path := what + "." + name
		o := l.object(e.val, path, "type", "props")
		if o == nil {
			continue
		}
		a := &algState{key: e.key, typeNode: o.at("type")}
		if !o.present("type") {
			a.typeNode = e.key
		}
		a.spec = &AlgorithmSpec{Name: name, Type: strings.ToUpper(l.reqStr(o, "type")), Pos: l.pos(e.key)}
		a.spec.Props, a.spec.PropsPos, a.vals = l.props(o.get("props"), path+".props")
		byName[name] = a
		specs[name] = a.spec
		order = append(order, a)
	}
	return order
}

// algError reports an error of constructing algorithm a: a *runtime.PropError
// at its property's key, anything else at the type.
func (l *loader) algError(a *algState, kind string, err error) {
	var pe *runtime.PropError
	if errors.As(err, &pe) && pe.Prop != "" {
		if p, ok := a.spec.PropsPos[pe.Prop]; ok {
			l.errorAt(p, "%s %q: %v", kind, a.spec.Name, err)
			return
		}
	}
	l.errorf(a.typeNode, "%s %q: %v", kind, a.spec.Name, err)
}

// parseTable parses one entry of tables: or autoTables:.
func (l *loader) parseTable(sh *shardingState, e pair, auto bool) {
	name := strings.TrimSpace(e.key.Value)
	if name == "" {
		return
	}
	path := "tables." + name
	keys := []string{"actualDataNodes", "databaseStrategy", "tableStrategy", "keyGenerateStrategy", "auditStrategy", "logicTable"}
	if auto {
		path = "autoTables." + name
		keys = []string{"actualDataSources", "shardingStrategy", "keyGenerateStrategy", "auditStrategy", "logicTable"}
	}
	o := l.object(e.val, path, keys...)
	if o == nil {
		return
	}
	t := &tableState{rule: &TableRule{LogicTable: name, Auto: auto, Pos: l.pos(e.key)}, key: e.key, path: path}
	if lower := strings.ToLower(name); sh.byLower[lower] != nil {
		first := sh.byLower[lower]
		l.errorf(e.key, "%s: logic table %q is already defined at line %d (logic table names are case-insensitive)", path, name, first.key.Line)
		return
	}
	sh.byLower[strings.ToLower(name)] = t
	sh.tables = append(sh.tables, t)
	sh.rule.Tables = append(sh.rule.Tables, t.rule)

	if lt := l.str(o, "logicTable"); lt != "" && !strings.EqualFold(lt, name) {
		l.errorf(o.get("logicTable"), "%s: logicTable %q differs from the table's key %q", path, lt, name)
	}
	nodesKey := "actualDataNodes"
	if auto {
		nodesKey = "actualDataSources"
	}
	if l.str(o, nodesKey) != "" {
		t.nodesNode = o.get(nodesKey)
	}
	if auto {
		if !o.has("shardingStrategy") {
			l.errorf(o.at("shardingStrategy"), "%s: shardingStrategy is required (an auto table is sharded by one standard strategy with an auto sharding algorithm)", path)
		} else {
			t.tbl = l.parseStrategy(o.get("shardingStrategy"), path+".shardingStrategy")
			t.tblSet = true
			if t.tbl != nil && (t.tbl.s == nil || t.tbl.s.Kind != StrategyStandard) {
				l.errorf(t.tbl.kindKey, "%s.shardingStrategy: an auto table needs a standard strategy, got %s", path, t.tbl.kindKey.Value)
				t.tbl = nil
			}
		}
	} else {
		if o.has("databaseStrategy") {
			t.db = l.parseStrategy(o.get("databaseStrategy"), path+".databaseStrategy")
			t.dbSet = t.db != nil
		}
		if o.has("tableStrategy") {
			t.tbl = l.parseStrategy(o.get("tableStrategy"), path+".tableStrategy")
			t.tblSet = t.tbl != nil
		}
	}
	if o.has("keyGenerateStrategy") {
		t.keyGen = l.parseKeyGen(o.get("keyGenerateStrategy"), path+".keyGenerateStrategy")
	}
	if o.has("auditStrategy") {
		t.audit = l.parseAudit(o.get("auditStrategy"), path+".auditStrategy")
	}
}

// parseStrategy parses {standard: {...}} | {complex: {...}} | {hint: {...}} |
// {none: }. It returns nil after reporting when the strategy is unusable.
func (l *loader) parseStrategy(n *yaml.Node, path string) *strategyState {
	o := l.object(n, path, "standard", "complex", "hint", "none")
	if o == nil {
		return nil
	}
	if len(o.order) == 0 {
		l.errorf(n, "%s: give one of standard, complex, hint or none", path)
		return nil
	}
	if len(o.order) > 1 {
		l.errorf(o.order[1].key, "%s: give only one of standard, complex, hint or none (also %s)", path, o.order[0].key.Value)
		return nil
	}
	p := o.order[0]
	ss := &strategyState{path: path, kindKey: p.key}
	kind := p.key.Value
	sub := path + "." + kind
	switch kind {
	case "none":
		l.object(p.val, sub) // none takes no keys
		return ss
	case "standard":
		so := l.object(p.val, sub, "shardingColumn", "shardingAlgorithmName")
		if so == nil {
			return nil
		}
		ss.s = &Strategy{Kind: StrategyStandard, Pos: l.pos(p.key)}
		ss.rawColumn = l.str(so, "shardingColumn")
		ss.typo = so.typo["shardingColumn"]
		if ss.rawColumn != "" {
			ss.s.Columns = []string{ss.rawColumn}
		}
		ss.s.AlgorithmName = l.reqStr(so, "shardingAlgorithmName")
		ss.algNode = so.at("shardingAlgorithmName")
	case "complex":
		so := l.object(p.val, sub, "shardingColumns", "shardingAlgorithmName")
		if so == nil {
			return nil
		}
		ss.s = &Strategy{Kind: StrategyComplex, Pos: l.pos(p.key)}
		ss.rawColumn = l.reqStr(so, "shardingColumns")
		if ss.rawColumn != "" {
			for _, c := range strings.Split(ss.rawColumn, ",") {
				c = strings.TrimSpace(c)
				if c == "" {
					l.errorf(so.get("shardingColumns"), "%s: shardingColumns %q has an empty column name", sub, ss.rawColumn)
					continue
				}
				ss.s.Columns = append(ss.s.Columns, c)
			}
		}
		ss.s.AlgorithmName = l.reqStr(so, "shardingAlgorithmName")
		ss.algNode = so.at("shardingAlgorithmName")
	case "hint":
		so := l.object(p.val, sub, "shardingAlgorithmName")
		if so == nil {
			return nil
		}
		ss.s = &Strategy{Kind: StrategyHint, Pos: l.pos(p.key)}
		ss.s.AlgorithmName = l.reqStr(so, "shardingAlgorithmName")
		ss.algNode = so.at("shardingAlgorithmName")
	}
	if ss.s.AlgorithmName == "" {
		return nil
	}
	return ss
}

// parseKeyGen parses keyGenerateStrategy: {column, keyGeneratorName}.
func (l *loader) parseKeyGen(n *yaml.Node, path string) *keyGenState {
	o := l.object(n, path, "column", "keyGeneratorName")
	if o == nil {
		return nil
	}
	return &keyGenState{
		column:   l.str(o, "column"),
		name:     l.str(o, "keyGeneratorName"),
		node:     n,
		nameNode: o.at("keyGeneratorName"),
		path:     path,
	}
}

// parseAudit parses auditStrategy: {auditorNames: [...], allowHintDisable}.
func (l *loader) parseAudit(n *yaml.Node, path string) *auditState {
	o := l.object(n, path, "auditorNames", "allowHintDisable")
	if o == nil {
		return nil
	}
	a := &auditState{path: path, s: &AuditStrategy{Pos: l.pos(n)}}
	a.names = l.strList(o.get("auditorNames"), path+".auditorNames")
	for _, x := range a.names {
		a.s.AuditorNames = append(a.s.AuditorNames, x.name)
	}
	a.s.AllowHintDisable = l.boolean(o, "allowHintDisable", true)
	return a
}

// builtinKeyGenerator is the key generator of a keyGenerateStrategy that
// names none and has no default to fall back on: ShardingSphere's default
// KeyGenerateAlgorithm SPI, SNOWFLAKE with default props.
func builtinKeyGenerator() *AlgorithmSpec {
	return &AlgorithmSpec{Type: "SNOWFLAKE", Props: runtime.Props{}, PropsPos: map[string]Pos{}}
}

// resolveSharding constructs the algorithms, computes every table's data
// nodes, resolves and binds the effective strategies, and checks binding
// groups — ShardingSphere's ShardingRule constructor and ShardingRuleChecker.
func (l *loader) resolveSharding(st *state) {
	sh := st.sharding
	if sh == nil {
		return
	}
	for _, a := range sh.algOrder {
		if a.spec.Type == "" {
			continue
		}
		alg, err := runtime.NewAlgorithm(a.spec.Type, a.spec.Props)
		if err != nil {
			l.algError(a, "sharding algorithm", err)
			continue
		}
		a.spec.Sharding = alg
	}
	for _, a := range sh.keygenOrder {
		if a.spec.Type == "" {
			continue
		}
		if _, err := runtime.NewKeyGenerator(a.spec.Type, a.spec.Props); err != nil {
			l.algError(a, "key generator", err)
		}
	}
	for _, a := range sh.auditorOrder {
		if a.spec.Type != "" && a.spec.Type != "DML_SHARDING_CONDITIONS" {
			l.errorf(a.typeNode, "auditor %q: unknown auditor type %q (known: DML_SHARDING_CONDITIONS)", a.spec.Name, a.spec.Type)
		}
	}

	// Default strategies, key generator and auditors.
	l.resolveStrategy(sh, sh.defDB)
	l.resolveStrategy(sh, sh.defTable)
	sh.rule.DefaultDatabaseStrategy = sh.defDB.strategy()
	sh.rule.DefaultTableStrategy = sh.defTable.strategy()
	if k := sh.defKeyGen; k != nil {
		sh.rule.DefaultKeyGenerate = &KeyGenerateStrategy{Column: k.column, GeneratorName: k.name, Pos: l.pos(k.node)}
		if k.name != "" {
			sh.rule.DefaultKeyGenerate.Generator = l.keyGenerator(sh, k.name, k.nameNode, k.path)
		}
	}
	if a := sh.defAudit; a != nil {
		l.resolveAudit(sh, a)
		sh.rule.DefaultAuditStrategy = a.s
	}

	l.dataNodes(st, sh)
	for _, t := range sh.tables {
		l.resolveTable(st, sh, t)
	}
	l.uniqueDataNodes(sh)
	l.bindingGroups(sh)

	for _, a := range sh.algOrder {
		if !a.used {
			l.warnf(a.key, "sharding algorithm %q is defined but no strategy uses it", a.spec.Name)
		}
	}
	for _, a := range sh.keygenOrder {
		if !a.used {
			l.warnf(a.key, "key generator %q is defined but no keyGenerateStrategy uses it", a.spec.Name)
		}
	}
	for _, a := range sh.auditorOrder {
		if !a.used {
			l.warnf(a.key, "auditor %q is defined but no auditStrategy uses it", a.spec.Name)
		}
	}
}

// strategy returns the effective *Strategy of ss: nil for none or absent.
func (ss *strategyState) strategy() *Strategy {
	if ss == nil {
		return nil
	}
	return ss.s
}

// resolveStrategy finds ss's algorithm, checks that it serves ss's kind and
// fills the sharding column from defaultShardingColumn. Idempotent.
func (l *loader) resolveStrategy(sh *shardingState, ss *strategyState) {
	if ss == nil || ss.s == nil || ss.resolved {
		return
	}
	ss.resolved = true
	s := ss.s
	if s.Kind == StrategyStandard && len(s.Columns) == 0 {
		if sh.defColumn == "" && !ss.typo {
			l.errorf(ss.kindKey, "%s.standard: shardingColumn is required (no defaultShardingColumn is set)", ss.path)
		} else {
			s.Columns = []string{sh.defColumn}
		}
	}
	a := sh.algs[s.AlgorithmName]
	if a == nil {
		l.errorf(ss.algNode, "%s: sharding algorithm %q is not defined in shardingAlgorithms%s", ss.path, s.AlgorithmName, didYouMean(s.AlgorithmName, sortedKeys(sh.algs)))
		return
	}
	a.used = true
	s.Algorithm = a.spec
	alg := a.spec.Sharding
	if alg == nil {
		return // constructing it failed; reported
	}
	var ok bool
	switch s.Kind {
	case StrategyStandard:
		_, ok = alg.(runtime.StandardAlgorithm)
	case StrategyComplex:
		_, ok = alg.(runtime.ComplexAlgorithm)
	case StrategyHint:
		_, ok = alg.(runtime.HintAlgorithm)
	}
	if !ok {
		l.errorf(ss.algNode, "%s: a %s strategy needs a %s sharding algorithm, but %q is %s", ss.path, s.Kind, s.Kind, s.AlgorithmName, a.spec.Type)
		return
	}
	ss.usable = len(s.Columns) > 0 || s.Kind == StrategyHint
}

// didYouMean returns `, did you mean "x"?` for the closest of names, or "".
func didYouMean(name string, names []string) string {
	if s := suggest(name, names); s != "" {
		return ", did you mean \"" + s + "\"?"
	}
	return ""
}

// keyGenerator resolves a keyGeneratorName.
func (l *loader) keyGenerator(sh *shardingState, name string, at *yaml.Node, path string) *AlgorithmSpec {
	a := sh.keygens[name]
	if a == nil {
		l.errorf(at, "%s: key generator %q is not defined in keyGenerators%s", path, name, didYouMean(name, sortedKeys(sh.keygens)))
		return nil
	}
	a.used = true
	return a.spec
}

// resolveAudit checks the auditor names of a.
func (l *loader) resolveAudit(sh *shardingState, a *auditState) {
	for _, x := range a.names {
		au := sh.auditors[x.name]
		if au == nil {
			l.errorf(x.node, "%s: auditor %q is not defined in auditors%s", a.path, x.name, didYouMean(x.name, sortedKeys(sh.auditors)))
			continue
		}
		au.used = true
	}
}

// dataNodes computes every table's data nodes: ShardingSphere's
// ShardingRule.getDataSourceNames and the ShardingTable constructors.
func (l *loader) dataNodes(st *state, sh *shardingState) {
	// First the tables with explicit actualDataNodes and the autoTables'
	// actualDataSources, which decide the rule's data source names.
	explicit := map[*tableState][]DataNode{}
	anyImplicit := false
	for _, t := range sh.tables {
		switch {
		case t.rule.Auto && t.nodesNode != nil:
			t.autoDS = l.expandDataSources(st, t)
		case t.rule.Auto:
		case t.nodesNode != nil:
			nodes, ok := l.expandDataNodes(st, t)
			if ok {
				explicit[t] = nodes
			}
		default:
			anyImplicit = true
		}
	}
	// The rule's data sources: every (logic) data source when some table
	// has no actualDataNodes (or there are no tables); else the data
	// sources the tables name, in order of appearance. ShardingSphere
	// collects the autoTables' actualDataSources through a HashSet, so
	// their order there is Java's hash order; shardgen keeps YAML order,
	// which only matters for an auto table without actualDataSources in a
	// rule where every other table names its nodes.
	ruleDS := st.cfg.LogicDataSources
	if !anyImplicit && len(sh.tables) > 0 {
		var union []string
		seen := map[string]bool{}
		add := func(ds string) {
			if !seen[ds] {
				seen[ds] = true
				union = append(union, ds)
			}
		}
		for _, t := range sh.tables {
			for _, n := range explicit[t] {
				add(n.DataSource)
			}
			for _, ds := range t.autoDS {
				add(ds)
			}
		}
		if len(union) > 0 {
			ruleDS = union
		}
	}
	for _, t := range sh.tables {
		switch {
		case explicit[t] != nil:
			t.rule.DataNodes = explicit[t]
			t.ok = true
		case t.rule.Auto:
			l.autoDataNodes(sh, t, ruleDS)
		case t.nodesNode == nil:
			if t.tbl != nil && t.tbl.s != nil {
				l.errorf(t.key, "%s: actualDataNodes is required when tableStrategy is set (ShardingSphere: missing required data nodes)", t.path)
			}
			if len(ruleDS) == 0 {
				l.errorf(t.key, "%s: no data source to place the table on", t.path)
				continue
			}
			for _, ds := range ruleDS {
				t.rule.DataNodes = append(t.rule.DataNodes, DataNode{DataSource: ds, Table: t.rule.LogicTable})
			}
			t.ok = true
		}
	}
}

// expandInline expands the inline expression in scalar n, reporting errors
// at their offset inside the expression.
func (l *loader) expandInline(n *yaml.Node, what string) ([]string, bool) {
	expr, ok := l.scalar(n, what)
	if !ok {
		return nil, false
	}
	vals, err := runtime.ExpandInlineList(expr)
	if err != nil {
		var ie *runtime.InlineError
		p := l.pos(n)
		if errors.As(err, &ie) {
			p = l.exprPos(n, ie.Offset)
		}
		l.errorAt(p, "%s: %v", what, err)
		return nil, false
	}
	if len(vals) > maxDataNodes {
		l.errorf(n, "%s: expands to %d names, more than shardgen's limit of %d", what, len(vals), maxDataNodes)
		return nil, false
	}
	return vals, true
}

// expandDataNodes expands a table's actualDataNodes into data nodes,
// checking their form and that each data source is defined.
func (l *loader) expandDataNodes(st *state, t *tableState) ([]DataNode, bool) {
	what := t.path + ".actualDataNodes"
	vals, ok := l.expandInline(t.nodesNode, what)
	if !ok {
		return nil, false
	}
	if len(vals) == 0 {
		l.errorf(t.nodesNode, "%s: expands to no data nodes", what)
		return nil, false
	}
	nodes := make([]DataNode, 0, len(vals))
	seen := map[string]bool{}
	badDS := map[string]bool{}
	for _, v := range vals {
		v = strings.TrimSpace(v)
		ds, table, found := strings.Cut(v, ".")
		ds, table = strings.TrimSpace(ds), strings.TrimSpace(table)
		if !found || ds == "" || table == "" || strings.Contains(table, ".") {
			l.errorf(t.nodesNode, "%s: %q is not a data node <data source>.<table>", what, v)
			ok = false
			continue
		}
		if !st.definedDataSource(ds) {
			if !badDS[ds] {
				badDS[ds] = true
				l.errorf(t.nodesNode, "%s: data source %q of data node %q is not defined (%s)", what, ds, v, st.dataSourceNames())
			}
			ok = false
			continue
		}
		key := strings.ToLower(ds + "." + table)
		if seen[key] {
			l.errorf(t.nodesNode, "%s: data node %q is listed twice", what, v)
			ok = false
			continue
		}
		seen[key] = true
		nodes = append(nodes, DataNode{DataSource: ds, Table: table})
	}
	return nodes, ok
}

// expandDataSources expands an auto table's actualDataSources.
func (l *loader) expandDataSources(st *state, t *tableState) []string {
	what := t.path + ".actualDataSources"
	vals, ok := l.expandInline(t.nodesNode, what)
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range vals {
		v = strings.TrimSpace(v)
		switch {
		case v == "":
			l.errorf(t.nodesNode, "%s: empty data source name", what)
		case !st.definedDataSource(v):
			l.errorf(t.nodesNode, "%s: data source %q is not defined (%s)", what, v, st.dataSourceNames())
		case seen[v]:
			l.errorf(t.nodesNode, "%s: data source %q is listed twice", what, v)
		default:
			seen[v] = true
			out = append(out, v)
			continue
		}
		return nil
	}
	if len(out) == 0 {
		l.errorf(t.nodesNode, "%s: expands to no data sources", what)
	}
	return out
}

// autoDataNodes lays out an auto table: actual table <logic>_<i> for i in
// 0..amount-1 on data source i mod len(data sources), in actualDataSources
// order (ShardingSphere DataNodeUtils.getFormatDataNodes).
func (l *loader) autoDataNodes(sh *shardingState, t *tableState, ruleDS []string) {
	if t.tbl == nil {
		return
	}
	l.resolveStrategy(sh, t.tbl)
	s := t.tbl.s
	if s.Algorithm == nil || s.Algorithm.Sharding == nil {
		return
	}
	auto, isAuto := s.Algorithm.Sharding.(runtime.AutoAlgorithm)
	if !isAuto {
		l.errorf(t.tbl.algNode, "%s: sharding algorithm %q (%s) is not an auto sharding algorithm (MOD, HASH_MOD, VOLUME_RANGE, BOUNDARY_RANGE, AUTO_INTERVAL)", t.tbl.path, s.AlgorithmName, s.Algorithm.Type)
		return
	}
	dss := t.autoDS
	if t.nodesNode == nil {
		dss = ruleDS
	}
	if len(dss) == 0 {
		if t.nodesNode == nil {
			l.errorf(t.key, "%s: no data source to place the table on", t.path)
		}
		return
	}
	amount := auto.AutoTablesAmount()
	if amount <= 0 || amount > maxDataNodes {
		l.errorf(t.tbl.algNode, "%s: sharding algorithm %q gives %d actual tables; want 1 to %d", t.tbl.path, s.AlgorithmName, amount, maxDataNodes)
		return
	}
	t.rule.DataNodes = make([]DataNode, amount)
	for i := range amount {
		t.rule.DataNodes[i] = DataNode{DataSource: dss[i%len(dss)], Table: t.rule.LogicTable + "_" + strconv.Itoa(i)}
	}
	t.ok = true
}

// resolveTable resolves one table's effective strategies, binds them to its
// data nodes, and resolves its key generator and audit strategy.
func (l *loader) resolveTable(st *state, sh *shardingState, t *tableState) {
	if t.rule.Auto {
		l.resolveStrategy(sh, t.tbl)
		t.effTable = t.tbl // the database strategy of an auto table is none
	} else {
		l.resolveStrategy(sh, t.db)
		l.resolveStrategy(sh, t.tbl)
		t.effDB, t.effTable = t.db, t.tbl
		if !t.dbSet {
			t.effDB = sh.defDB
		}
		if !t.tblSet {
			t.effTable = sh.defTable
		}
	}
	t.rule.DatabaseStrategy = t.effDB.strategy()
	t.rule.TableStrategy = t.effTable.strategy()
	if t.ok {
		dss := dataSourcesOf(t.rule.DataNodes)
		if ss := t.effDB; ss != nil && ss.usable {
			if l.bind(t, ss, !t.dbSet, dss, "data sources", "") {
				if l.checkInlinePrefix(t, ss, !t.dbSet, dsPrefix(t.rule.DataNodes), "data source") {
					l.checkInlineReaches(t, ss, !t.dbSet, dss, "data source")
				}
			}
		}
		if ss := t.effTable; ss != nil && ss.usable {
			bound := true
			for _, ds := range dss {
				if bound = l.bind(t, ss, !t.tblSet, tablesOn(t.rule.DataNodes, ds), "tables", ds); !bound {
					break
				}
			}
			if bound {
				if l.checkInlinePrefix(t, ss, !t.tblSet, tablePrefix(t.rule.LogicTable, t.rule.DataNodes), "actual table") {
					var tables []string
					for _, n := range t.rule.DataNodes {
						tables = append(tables, n.Table)
					}
					l.checkInlineReaches(t, ss, !t.tblSet, tables, "actual table")
				}
			}
		}
	}
	l.resolveKeyGen(sh, t)
	switch {
	case t.audit != nil:
		l.resolveAudit(sh, t.audit)
		t.rule.Audit = t.audit.s
	case sh.defAudit != nil:
		t.rule.Audit = sh.defAudit.s
	}
}

// bind binds strategy ss's algorithm to targets, as routing will, so that a
// bind-time error (an expression that names no target, a sharding count that
// does not fit) is reported now. It reports whether binding worked.
func (l *loader) bind(t *tableState, ss *strategyState, inherited bool, targets []string, what, ds string) bool {
	s := ss.s
	var err error
	switch s.Kind {
	case StrategyStandard:
		var r runtime.StandardRouter
		r, err = s.Algorithm.Sharding.(runtime.StandardAlgorithm).BindStandard(s.Columns[0], targets)
		if err == nil {
			l.warnUnreached(t, ss, inherited, r, targets, what, ds)
		}
	case StrategyComplex:
		_, err = s.Algorithm.Sharding.(runtime.ComplexAlgorithm).BindComplex(s.Columns, targets)
	case StrategyHint:
		_, err = s.Algorithm.Sharding.(runtime.HintAlgorithm).BindHint(targets)
	}
	if err == nil {
		return true
	}
	at, from := ss.algNode, ""
	if inherited {
		at, from = t.key, " (from "+strings.SplitN(ss.path, ".", 2)[0]+")"
	}
	where := what + " " + strings.Join(targets, ", ")
	if ds != "" {
		where += " of data source " + ds
	}
	l.errorf(at, "%s: sharding algorithm %q%s cannot route over %s: %v", t.path, s.AlgorithmName, from, where, err)
	return false
}

// reachProbe is how many integer sharding values (0..reachProbe-1)
// warnUnreached routes: enough to reach every target of a modulo over up to
// reachProbe targets.
const reachProbe = 4096

// warnUnreached warns when a MOD, HASH_MOD or INLINE algorithm, bound to
// targets as router r, routes none of the integer values 0..reachProbe-1 to
// some target ("sharding-count: 3" over four data sources; ds_${id % 3} over
// ds_0..ds_3). ShardingSphere accepts such rules, but no INSERT ever writes
// to that target while range queries still read it: usually a count that
// was not changed with the data nodes. Algorithms whose values are not
// small integers (ranges, intervals, class-based) are not probed.
func (l *loader) warnUnreached(t *tableState, ss *strategyState, inherited bool, r runtime.StandardRouter, targets []string, what, ds string) {
	switch ss.s.Algorithm.Type {
	case "MOD", "HASH_MOD", "INLINE":
	default:
		return
	}
	hit := make([]bool, len(targets))
	left := len(targets)
	var (
		nowhere    = int64(-1) // the first value routed to no target
		nowhereErr error
	)
	for v := int64(0); v < reachProbe && (left > 0 || nowhere < 0); v++ {
		i, err := r.Precise(runtime.Long(v))
		if err != nil && nowhere < 0 && ds == "" && ss.s.Algorithm.Type != "INLINE" { // ds: targets are one data source's share
			nowhere, nowhereErr = v, err
		}
		if err == nil && i >= 0 && i < len(hit) && !hit[i] {
			hit[i] = true
			left--
		}
	}
	if nowhere >= 0 {
		at, from := ss.algNode, ""
		if inherited {
			at, from = t.key, " (from "+strings.SplitN(ss.path, ".", 2)[0]+")"
		}
		l.warnf(at, "%s: sharding algorithm %q%s routes %s = %d to none of the %d %s (%s): %v; every statement with such a value fails; does its sharding count match the %s?",
			t.path, ss.s.AlgorithmName, from, ss.s.Columns[0], nowhere, len(targets), what, strings.Join(targets, ", "), nowhereErr, what)
	}
	if left == 0 {
		return
	}
	var missed []string
	for i, h := range hit {
		if !h {
			missed = append(missed, targets[i])
		}
	}
	at, from := ss.algNode, ""
	if inherited {
		at, from = t.key, " (from "+strings.SplitN(ss.path, ".", 2)[0]+")"
	}
	where := ""
	if ds != "" {
		where = " of data source " + ds
	}
	noun := what // "data sources" or "tables"
	if len(missed) == 1 {
		noun = strings.TrimSuffix(what, "s")
	}
	l.warnf(at, "%s: sharding algorithm %q%s routes no value of %s to %s %s%s: no row is ever written there, yet range queries read it; does its sharding count or expression match the %d %s it routes over?",
		t.path, ss.s.AlgorithmName, from, ss.s.Columns[0], noun, strings.Join(missed, ", "), where, len(targets), what)
}

// checkInlinePrefix is ShardingRuleChecker.checkInlineShardingAlgorithmsInTableRules:
// an INLINE algorithm evaluated for the Integer sharding value 1 must give a
// name that starts with the data node prefix (the first data source or
// actual table without its trailing digits), else it cannot match the data
// nodes. Evaluation errors are ignored, as ShardingSphere ignores them.
func (l *loader) checkInlinePrefix(t *tableState, ss *strategyState, inherited bool, prefix, what string) bool {
	alg, ok := ss.s.Algorithm.Sharding.(*runtime.InlineAlgorithm)
	if !ok || alg.Expression() == nil {
		return true
	}
	column := ss.s.Columns[0]
	got, err := alg.Expression().Eval(func(name string) (runtime.Value, bool) {
		if name == column {
			return runtime.Int(1), true
		}
		return runtime.Value{}, false
	})
	if err != nil || strings.HasPrefix(got, prefix) {
		return true
	}
	at, from := ss.algNode, ""
	if inherited {
		at, from = t.key, " (from "+strings.SplitN(ss.path, ".", 2)[0]+")"
	}
	l.errorf(at, "%s: sharding algorithm %q%s does not match the data nodes: for %s = 1 it gives %s %q, which does not start with %q",
		t.path, ss.s.AlgorithmName, from, column, what, got, prefix)
	return false
}

// checkInlineReaches is shardgen's own check, stricter than ShardingSphere's
// prefix check: an INLINE algorithm must route at least one of the integer
// sharding values 0..15 (java.lang.Long, as Go sends them) to one of its
// targets; otherwise every statement would fail at run time (a stray `}`,
// `% 0`, a misspelt prefix). The first evaluation error is quoted.
func (l *loader) checkInlineReaches(t *tableState, ss *strategyState, inherited bool, targets []string, what string) {
	alg, ok := ss.s.Algorithm.Sharding.(*runtime.InlineAlgorithm)
	if !ok || alg.Expression() == nil || len(targets) == 0 {
		return
	}
	column := ss.s.Columns[0]
	set := map[string]bool{}
	for _, x := range targets {
		set[x] = true
	}
	var firstErr error
	var sample string
	for v := int64(0); v < 16; v++ {
		got, err := alg.Expression().Eval(func(name string) (runtime.Value, bool) {
			if name == column {
				return runtime.Long(v), true
			}
			return runtime.Value{}, false
		})
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if set[got] {
			return
		}
		if sample == "" {
			sample = got
		}
	}
	at, from := ss.algNode, ""
	if inherited {
		at, from = t.key, " (from "+strings.SplitN(ss.path, ".", 2)[0]+")"
	}
	if sample == "" && firstErr != nil {
		l.errorf(at, "%s: sharding algorithm %q%s cannot route any value of %s: %v", t.path, ss.s.AlgorithmName, from, column, firstErr)
		return
	}
	l.errorf(at, "%s: sharding algorithm %q%s routes no value of %s 0..15 to a %s of the table (e.g. it gives %q)",
		t.path, ss.s.AlgorithmName, from, column, what, sample)
}

// resolveKeyGen computes a table's effective key generate strategy:
// column = own column, else the default's; generator = own keyGeneratorName
// when the table has a keyGenerateStrategy, else the default's, else the
// built-in SNOWFLAKE (ShardingSphere ShardingTable/ShardingRule).
func (l *loader) resolveKeyGen(sh *shardingState, t *tableState) {
	own, def := t.keyGen, sh.defKeyGen
	column := ""
	if own != nil {
		column = own.column
	}
	if column == "" && def != nil {
		column = def.column
	}
	if column == "" {
		if own != nil {
			l.errorf(own.node, "%s: column is required (no defaultKeyGenerateStrategy column is set)", own.path)
		}
		return
	}
	kg := &KeyGenerateStrategy{Column: column}
	switch {
	case own != nil && own.name != "":
		kg.GeneratorName = own.name
		kg.Generator = l.keyGenerator(sh, own.name, own.nameNode, own.path)
		kg.Pos = l.pos(own.node)
	case def != nil && def.name != "":
		kg.GeneratorName = def.name
		kg.Generator = sh.rule.DefaultKeyGenerate.Generator
		kg.Pos = l.pos(def.node)
		if own != nil {
			kg.Pos = l.pos(own.node)
		}
	default:
		kg.Generator = builtinKeyGenerator()
		if own != nil {
			kg.Pos = l.pos(own.node)
		}
	}
	t.rule.KeyGenerate = kg
}

// uniqueDataNodes reports a data node claimed by two logic tables
// (ShardingSphere DuplicateSharingActualDataNodeException; it checks each
// table's first node, shardgen checks all).
func (l *loader) uniqueDataNodes(sh *shardingState) {
	owner := map[string]*tableState{}
	for _, t := range sh.tables {
		for _, n := range t.rule.DataNodes {
			key := strings.ToLower(n.String())
			if o := owner[key]; o != nil && o != t {
				l.errorf(t.key, "%s: data node %q is also a data node of logic table %q (line %d)", t.path, n.String(), o.rule.LogicTable, o.key.Line)
				break
			}
			owner[key] = t
		}
	}
}

// dataSourcesOf returns the distinct data sources of nodes, in order.
func dataSourcesOf(nodes []DataNode) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range nodes {
		if !seen[n.DataSource] {
			seen[n.DataSource] = true
			out = append(out, n.DataSource)
		}
	}
	return out
}

// tablesOn returns the actual tables of nodes on data source ds, in order.
func tablesOn(nodes []DataNode, ds string) []string {
	var out []string
	for _, n := range nodes {
		if n.DataSource == ds {
			out = append(out, n.Table)
		}
	}
	return out
}
