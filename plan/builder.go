package plan

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// Builder plans statements against one loaded configuration with its DDL
// attached (schema.CheckDDL). It is safe for concurrent use once built: the
// proxy shares one Builder between sessions.
type Builder struct {
	cfg       *schema.Config
	parser    *sqlparser.Parser
	overrides []Override
	// live holds what the planner knows of every logic table, by
	// lower-case name, and the DDL it was bound from. SetTableDDL swaps it
	// whole; each Build reads it once, so a plan sees one version. The
	// weighing view (Weighing) shares it.
	live *atomic.Pointer[tableSet]
	// weighText is set when a data source's connections receive text in
	// a character set other than utf8mb4 (runtime.DataSourceConfig.Charset):
	// every plan then compares text by the data nodes' sort keys, as
	// schema.Query.WeighText asks.
	weighText bool
	// weighing is the Builder's weighing view (Weighing): b itself when
	// weighText is set.
	weighing *Builder
}

// Weighing returns a view of b that plans as b does with
// schema.Query.WeighText set for every statement, steps included
// (BuildSteps: a join's keys, a UNION's duplicates, ORDER BY over joined
// or united rows compared by the data nodes' WEIGHT_STRINGs): for a proxy
// session whose results are not UTF-8, where the text a step reads
// arrives converted to the session's character set. It shares b's tables
// (SetTableDDL on either is seen by both); b itself when b already weighs
// every text key.
func (b *Builder) Weighing() *Builder { return b.weighing }

// tableInfo is what the planner knows of one logic table.
type tableInfo struct {
	name      string // as the DDL spells it
	ddl       *schema.Table
	rule      *schema.TableRule // nil unless sharded
	broadcast bool
	singleDS  string                 // data source of a single table
	binding   *schema.BindingGroup   // nil unless bound
	route     *runtime.ShardingTable // sharded tables only
	enc       *encTable              // nil unless encrypted; ddl is then the logic view
	// derived is set for a derived table (a subquery in FROM): ddl then
	// lists its columns, and it is in no rule.
	derived *derivedTable
	// dual is set for MySQL's DUAL: no rows of its own, any data source
	// answers.
	dual bool
}

func (t *tableInfo) sharded() bool { return t.rule != nil }

// tableSet is one version of the planner's table metadata.
type tableSet struct {
	ddl    map[string]*schema.Table // by lower-case logic table name
	tables map[string]*tableInfo    // bound from ddl and the rules
	// found are the data sources of single tables found there
	// (SetSingleTableDDL), by lower-case name; they take precedence over
	// the !SINGLE rule's data source.
	found map[string]string
}

// tables returns the current table metadata, by lower-case name.
func (b *Builder) tables() map[string]*tableInfo { return b.live.Load().tables }

// NewBuilder prepares planning over cfg, whose DDL must be attached
// (cfg.Tables). overrides are shardgen.yaml's type overrides. Errors name the
// table whose rule cannot be bound.
func NewBuilder(cfg *schema.Config, overrides []Override) (*Builder, error) {
	parser, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		return nil, err
	}
	b := &Builder{cfg: cfg, parser: parser, overrides: overrides, live: new(atomic.Pointer[tableSet])}
	for _, d := range cfg.DataSources {
		if cs := d.Config.Charset(); cs != "" && cs != "utf8mb4" && cs != "binary" {
			b.weighText = true
		}
	}
	b.weighing = b
	if !b.weighText {
		b.weighing = &Builder{cfg: cfg, parser: parser, overrides: overrides, live: b.live, weighText: true}
		b.weighing.weighing = b.weighing
	}
	set, err := b.bind(cfg.Tables, nil)
	if err != nil {
		return nil, err
	}
	b.live.Store(set)
	return b, nil
}

// bind binds the rules of b to the DDL ddl and the single tables' data
// sources found (both by lower-case logic table name). Errors name the
// table whose rule cannot be bound.
func (b *Builder) bind(ddl map[string]*schema.Table, found map[string]string) (*tableSet, error) {
	cfg := b.cfg
	tables := map[string]*tableInfo{}
	for key, t := range ddl {
		tables[key] = &tableInfo{name: t.Name, ddl: t}
	}
	var errs schema.Errors
	if cfg.Sharding != nil {
		for _, r := range cfg.Sharding.Tables {
			ti := tables[strings.ToLower(r.LogicTable)]
			if ti == nil {
				continue // CheckDDL reported it
			}
			ti.rule = r
			rt, err := newShardingTable(r)
			if err != nil {
				errs.Add(r.Pos, fmt.Sprintf("table %q: %v", r.LogicTable, err))
				continue
			}
			ti.route = rt
		}
		for _, g := range cfg.Sharding.BindingGroups {
			for _, name := range g.Tables {
				if ti := tables[strings.ToLower(name)]; ti != nil {
					ti.binding = g
				}
			}
		}
	}
	if cfg.Encrypt != nil {
		for _, et := range cfg.Encrypt.Tables {
			ti := tables[strings.ToLower(et.Name)]
			if ti == nil {
				continue // CheckDDL reported it
			}
			e := &encTable{physical: ti.ddl, columns: map[string]*schema.EncryptColumn{}, queryWithCipher: cfg.Encrypt.QueryWithCipherColumn}
			if et.QueryWithCipherColumn != nil {
				e.queryWithCipher = *et.QueryWithCipherColumn
			}
			for _, c := range et.Columns {
				e.columns[strings.ToLower(c.Name)] = c
				if ti.rule != nil && containsFold(ruleColumns(ti.rule), c.Name) {
					errs.Add(c.Pos, fmt.Sprintf("column %q of table %q is both a sharding column and encrypted: routing needs the plain value", c.Name, et.Name))
				}
			}
			ti.enc = e
			ti.ddl = logicView(ti.ddl, et)
		}
	}
	if cfg.Broadcast != nil {
		for _, name := range cfg.Broadcast.Tables {
			if ti := tables[strings.ToLower(name)]; ti != nil {
				ti.broadcast = true
			}
		}
	}
	for key, ti := range tables {
		if !ti.sharded() && !ti.broadcast {
			if ti.singleDS = found[key]; ti.singleDS == "" {
				ti.singleDS, _ = b.cfg.SingleDataSource(ti.name)
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return &tableSet{ddl: ddl, tables: tables, found: found}, nil
}

// ddlProblems returns what schema.CheckDDL reports for the rules of b over
// ddl. The shared configuration is not touched.
func (b *Builder) ddlProblems(ddl map[string]*schema.Table) schema.Errors {
	list := make([]*schema.Table, 0, len(ddl))
	for _, t := range ddl {
		list = append(list, t)
	}
	check := *b.cfg // CheckDDL fills check.Tables
	err := schema.CheckDDL(&check, list)
	var errs schema.Errors
	if err != nil && !errors.As(err, &errs) {
		errs = schema.Errors{{Msg: err.Error()}}
	}
	return errs
}

// dual is the table a SELECT without FROM reads (MySQL's DUAL): a single
// table with no columns on the first logic data source, so such a query
// runs there, as ShardingSphere runs it on one data source of the rules.
// nil when there is no data source.
func (b *Builder) dual() *tableInfo {
	ds := b.cfg.LogicDataSources
	if len(ds) == 0 {
		return nil
	}
	return &tableInfo{name: "dual", ddl: &schema.Table{Name: "dual"}, singleDS: ds[0], dual: true}
}

// Table returns the DDL the planner currently holds for a logic table
// (case-insensitive), nil when it knows no such table.
func (b *Builder) Table(name string) *schema.Table {
	return b.live.Load().ddl[strings.ToLower(name)]
}

// TableNames returns the logic tables the planner currently holds DDL
// for, as their DDL spells them, sorted.
func (b *Builder) TableNames() []string {
	ddl := b.live.Load().ddl
	out := make([]string, 0, len(ddl))
	for _, t := range ddl {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

// SingleDataSource returns the data source of the single table name (one
// in no sharding or broadcast rule): where SetSingleTableDDL found it,
// else what the rules say (schema.Config.SingleDataSource: the !SINGLE
// entry naming it, the rule's defaultDataSource, the only logic data
// source); "" when none applies.
func (b *Builder) SingleDataSource(name string) string {
	if ds := b.live.Load().found[strings.ToLower(name)]; ds != "" {
		return ds
	}
	ds, _ := b.cfg.SingleDataSource(name)
	return ds
}

// ActualTables returns the actual tables a DDL statement on the logic table
// name runs on, as ShardingSphere routes DDL: every data node of its
// sharding rule (in data node order), the same name on every logic data
// source of a broadcast table, and for any other table its single data
// source (SingleDataSource). A table in no rule without a single data
// source is an error naming the fix.
func (b *Builder) ActualTables(name string) ([]runtime.DataNode, error) {
	r := b.cfg
	if r.Sharding != nil {
		for _, tr := range r.Sharding.Tables {
			if strings.EqualFold(tr.LogicTable, name) {
				out := make([]runtime.DataNode, len(tr.DataNodes))
				for i, dn := range tr.DataNodes {
					out[i] = runtime.DataNode{DataSource: dn.DataSource, Table: dn.Table}
				}
				return out, nil
			}
		}
	}
	if r.Broadcast != nil {
		for _, t := range r.Broadcast.Tables {
			if strings.EqualFold(t, name) {
				out := make([]runtime.DataNode, len(r.LogicDataSources))
				for i, ds := range r.LogicDataSources {
					out[i] = runtime.DataNode{DataSource: ds, Table: name}
				}
				return out, nil
			}
		}
	}
	ds := b.SingleDataSource(name)
	if ds == "" {
		return nil, fmt.Errorf("table %s is in no rule and there are several data sources: list it in !SINGLE (e.g. tables: [\"ds_0.%s\"]) or set a defaultDataSource", name, name)
	}
	return []runtime.DataNode{{DataSource: ds, Table: name}}, nil
}

// SetTableDDL replaces the DDL of the logic table name (case-insensitive)
// with t, or forgets the table when t is nil, and binds the rules again:
// plans built afterwards see the new columns (the proxy calls it after a
// CREATE, ALTER or DROP TABLE it fanned out). t is checked against the
// rules as at load (schema.CheckDDL: sharding, encrypt and key-generate
// columns must exist); on an error nothing changes. Plans built before
// keep their columns. Safe for concurrent use with Build; concurrent
// SetTableDDL and SetSingleTableDDL calls must be serialised by the
// caller. A single table keeps the data source SetSingleTableDDL found it
// on until it is forgotten.
func (b *Builder) SetTableDDL(name string, t *schema.Table) error {
	return b.setTable(name, t, "")
}

// SetSingleTableDDL is SetTableDDL for a single table found on the data
// source dataSource (a logic data source of the rules) that the !SINGLE
// rule does not place by name: a "*.*" entry, or a table created there
// after the planner was built. The planner routes it to dataSource.
func (b *Builder) SetSingleTableDDL(name, dataSource string, t *schema.Table) error {
	return b.setTable(name, t, dataSource)
}

// setTable is SetTableDDL and SetSingleTableDDL: dataSource, when not
// empty, is where the single table name was found.
func (b *Builder) setTable(name string, t *schema.Table, dataSource string) error {
	cur := b.live.Load()
	key := strings.ToLower(name)
	ddl := maps.Clone(cur.ddl)
	if ddl == nil {
		ddl = map[string]*schema.Table{}
	}
	found := maps.Clone(cur.found)
	if found == nil {
		found = map[string]string{}
	}
	delete(ddl, key)
	if t == nil {
		delete(found, key)
	} else {
		// Only problems the new DDL brings count: a rule table dropped
		// earlier (or not created yet) is already missing from both
		// versions.
		before := map[string]bool{}
		for _, e := range b.ddlProblems(ddl) {
			before[e.Error()] = true
		}
		ddl[strings.ToLower(t.Name)] = t
		var errs schema.Errors
		for _, e := range b.ddlProblems(ddl) {
			if !before[e.Error()] {
				errs = append(errs, e)
			}
		}
		if err := errs.Err(); err != nil {
			return err
		}
		if dataSource != "" {
			found[key] = dataSource
		}
	}
	set, err := b.bind(ddl, found)
	if err != nil {
		return err
	}
	b.live.Store(set)
	return nil
}

// newShardingTable binds a table rule's strategies to its data nodes.
func newShardingTable(r *schema.TableRule) (*runtime.ShardingTable, error) {
	nodes := make([]runtime.DataNode, len(r.DataNodes))
	for i, n := range r.DataNodes {
		nodes[i] = runtime.DataNode{DataSource: n.DataSource, Table: n.Table}
	}
	return runtime.NewShardingTable(nodes, strategyConfig(r.DatabaseStrategy), strategyConfig(r.TableStrategy))
}

func strategyConfig(s *schema.Strategy) runtime.StrategyConfig {
	if s == nil || s.Kind == schema.StrategyNone || s.Algorithm == nil {
		return runtime.StrategyConfig{}
	}
	c := runtime.StrategyConfig{Columns: s.Columns, Algorithm: s.Algorithm.Sharding}
	switch s.Kind {
	case schema.StrategyStandard:
		c.Kind = runtime.StandardStrategy
	case schema.StrategyComplex:
		c.Kind = runtime.ComplexStrategy
	case schema.StrategyHint:
		c.Kind = runtime.HintStrategy
	}
	return c
}

// Parser returns the shared vitess parser (configured for MySQL 8.0 syntax).
func (b *Builder) Parser() *sqlparser.Parser { return b.parser }

var (
	positionRE = regexp.MustCompile(`at position (\d+)`)
	nearRE     = regexp.MustCompile(`near '([^']*)'$`)
)

// Build plans one annotated query. Errors are *schema.Error values pointing
// into the query file; a query that cannot be planned correctly is refused
// with the reason, never planned approximately.
func (b *Builder) Build(q *schema.Query) (*Plan, error) {
	return b.build(q, false)
}

// buildStep is Build for a statement of a step (stepsPlanner.query): an
// ad-hoc one (the proxy's) may hold the one sqlc.slice that stands for
// the values bound from an earlier step.
func (b *Builder) buildStep(q *schema.Query) (*Plan, error) {
	return b.build(q, true)
}

// build plans q; a SELECT of a derived table that does not plan as written
// is planned with the derived table merged into it (mergeDerived), and
// keeps the first error when that does not plan either.
func (b *Builder) build(q *schema.Query, stepList bool) (*Plan, error) {
	p := &planner{b: b, tables: b.tables(), q: q, stepList: stepList}
	pl, err := p.build()
	if err == nil || !derivedFromRE.MatchString(q.SQL) {
		return pl, err
	}
	m := &planner{b: b, tables: b.tables(), q: q, stepList: stepList, mergeDerived: true}
	if pl, merr := m.build(); merr == nil {
		return pl, nil
	}
	return nil, err
}

// planner holds the state of planning one statement.
// weighText reports whether the plan compares every text key by the data
// nodes' sort keys (schema.Query.WeighText, Builder.weighText).
func (p *planner) weighText() bool { return p.q.WeighText || p.b.weighText }

type planner struct {
	b      *Builder
	tables map[string]*tableInfo // b's tables when planning started
	q      *schema.Query
	sql    string // positional form
	shift  func(int) int
	names  []string // per ?, the sqlc.arg name or ""
	nulls  []bool   // per ?, sqlc.narg
	slices []bool   // per ?, sqlc.slice
	embeds []string // the tables of sqlc.embed(t), in order
	// stepList allows an ad-hoc statement its sqlc.slice: the list of
	// values a step binds from an earlier one (buildStep).
	stepList bool
	// mergeDerived plans the statement with its derived table merged
	// (mergeDerived), or fails with errNotMerged.
	mergeDerived bool
	stmt         sqlparser.Statement
	// hint is the statement's SHARDINGSPHERE_HINT comment (nil: none).
	hint *sqlHint
	// refs are the table references of the statement's own level (its
	// FROM, or the INSERT / UPDATE / DELETE target tables); allRefs those
	// of every level, subqueries and derived tables included, in order of
	// appearance. root is the statement's level, scopes every level by
	// its node (the statement or a *sqlparser.Select).
	refs    []*tableRef
	allRefs []*tableRef
	root    *scope
	scopes  map[sqlparser.SQLNode]*scope
	// byDataSource marks the sharded tables of a pushed-down statement
	// that are not laid out like the route's table: each unit names their
	// actual table on the unit's data source.
	byDataSource map[*tableInfo]bool
	// singleJoined names a single table a sharded table is joined with
	// (for messages).
	singleJoined string
	// preservedBroadcast names a broadcast table on the preserved side of
	// an outer join whose other side is sharded (and whose own side is
	// not): run on several data nodes, every node would return its
	// unmatched rows, so the statement may not spread.
	preservedBroadcast string
	cols               map[*sqlparser.ColName]*colRef
	plan               *Plan
	// hints types each ? (by 0-based ordinal) from its context.
	hints    map[int]argHint
	ons      []sqlparser.Expr // every JOIN ... ON condition
	routeOns []sqlparser.Expr // the ON conditions of inner joins (they may narrow the route)
	aliases  map[string]sqlparser.Expr
	// keyArgs are the ordinals of the `?` added for generated keys (one per
	// VALUES row).
	keyArgs []int
	// nodeStmt is the per-node statement of a merged SELECT (derived
	// columns, per-node LIMIT), printed for every unit instead of
	// rewriting the original text.
	nodeStmt sqlparser.Statement
	// concatGroup are the per-node GROUP BY items a GROUP_CONCAT merged
	// across data nodes adds (its value's bytes and ORDER BY items).
	concatGroup []sqlparser.Expr
	// encStmt is the statement rewritten over the physical columns of
	// encrypted tables (nil when none is touched); encArgs binds the
	// placeholders that rewrite added.
	encStmt sqlparser.Statement
	encArgs map[string]encArg
	// cteWhy says why the statement's WITH was not inlined (inlineCTEs).
	cteWhy string
	// cteInlined is set when inlineCTEs made the WITH derived tables.
	cteInlined bool
	// shadowing is set when a derived table's alias is the name of a logic
	// table: the rewrite then renames tables in the AST, where it can tell
	// the alias from the table.
	shadowing bool
}

type tableRef struct {
	info  *tableInfo
	alias string
	// outer is set for the inner side of an outer join (the right table of
	// a LEFT JOIN, the left of a RIGHT JOIN): its columns can be NULL in
	// the result whatever the DDL says.
	outer bool
	// scope is the query level whose FROM names the table.
	scope *scope
}

type colRef struct {
	ref *tableRef
	col *schema.Column
}

type argHint struct {
	typ    GoType
	column string // "table.column"
	col    *colRef
	null   bool // the value may be NULL (INSERT/SET of a nullable column)
	// name is the parameter's name when no column names it: "limit" and
	// "offset" for LIMIT placeholders, as sqlc names them.
	name string
}

// errorf returns a *schema.Error at the byte offset off of p.sql (or at the
// query's name line when off < 0).
// boundArgRE matches vitess's printing of a `?` (:v1, :v2, ...), which
// errorf shows as the user wrote it.
var boundArgRE = regexp.MustCompile(`:v[0-9]+\b`)

func (p *planner) errorf(off int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if strings.Contains(msg, ":v") {
		msg = boundArgRE.ReplaceAllString(msg, "?") // vitess prints a ? as :v1
	}
	return &schema.Error{Pos: p.pos(off), Msg: fmt.Sprintf("query %q: ", p.q.Name) + msg}
}

func (p *planner) pos(off int) schema.Pos {
	if off < 0 || p.q.SQLPos.Line == 0 {
		return p.q.Pos
	}
	if p.shift != nil {
		off = p.shift(off)
	}
	if off > len(p.q.SQL) {
		off = len(p.q.SQL)
	}
	pos := p.q.SQLPos
	nl := strings.Count(p.q.SQL[:off], "\n")
	if nl == 0 {
		pos.Col += off
		return pos
	}
	pos.Line += nl
	pos.Col = off - strings.LastIndexByte(p.q.SQL[:off], '\n')
	return pos
}

func (p *planner) build() (*Plan, error) {
	if err := p.bindStatement(); err != nil {
		return nil, err
	}
	if err := p.checkCommand(); err != nil {
		return nil, err
	}
	if err := p.typeParams(); err != nil {
		return nil, err
	}
	if err := p.checkSlices(); err != nil {
		return nil, err
	}
	if err := p.resultColumns(); err != nil {
		return nil, err
	}
	if p.hint != nil && p.hint.dataSource != "" {
		return p.plan, p.routeHintDataSource()
	}
	if err := p.route(); err != nil {
		return nil, err
	}
	if err := p.encryptRewrite(); err != nil {
		return nil, err
	}
	if err := p.rewrite(); err != nil {
		return nil, err
	}
	if p.hint != nil && p.hint.skipRewrite {
		if p.plan.Merge != nil || p.plan.Insert != nil || p.encStmt != nil || p.plan.KeyGenerate != nil {
			return nil, p.errorf(-1, "SHARDINGSPHERE_HINT SKIP_SQL_REWRITE=true on a statement that needs rewriting (a merge over several data nodes, a multi-row INSERT, encrypted columns or a generated key): name the data source with DATA_SOURCE_NAME, or drop the hint")
		}
		for i := range p.plan.Route.Units {
			p.plan.Route.Units[i].SQL = p.sql
		}
	}
	if err := p.planSlice(); err != nil {
		return nil, err
	}
	return p.plan, nil
}

// bindStatement parses the statement and binds its table references and
// columns: the stages of planning before routing.
func (p *planner) bindStatement() error {
	var unsupported []int
	p.sql, p.names, p.nulls, p.slices, p.embeds, p.shift, unsupported = namedParams(p.q.SQL)
	if len(unsupported) > 0 {
		return p.errorf(unsupported[0], "sqlc.embed takes one table name or alias: sqlc.embed(t_order)")
	}
	if len(p.embeds) > 0 && p.adHoc() {
		return p.errorf(-1, "sqlc.embed is a query-file form: select t.* instead")
	}
	var bad string
	if p.sql, p.hint, bad = parseHint(p.sql); bad != "" {
		return p.errorf(-1, "%s", bad)
	}
	stmt, err := p.b.parser.Parse(p.sql)
	if err != nil {
		off := -1
		if m := positionRE.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			off = max(n-1, 0)
			// vitess points just past the token it names: point at its start.
			if near := nearRE.FindStringSubmatch(err.Error()); near != nil && off <= len(p.sql) && off >= len(near[1]) &&
				strings.EqualFold(p.sql[off-len(near[1]):off], near[1]) {
				off -= len(near[1])
			}
		}
		return p.errorf(off, "syntax error: %s", strings.TrimPrefix(err.Error(), "syntax error "))
	}
	if lostLimit(p.b.parser, p.sql, stmt) {
		return p.errorf(-1, "%s", lostLimitReason)
	}
	stmt, p.cteWhy = p.inlineCTEs(stmt)
	if p.mergeDerived {
		if sel, ok := stmt.(*sqlparser.Select); !ok || !mergeDerived(sel) {
			return errNotMerged
		}
	}
	p.stmt = stmt
	p.plan = &Plan{Name: p.q.Name, Cmd: p.q.Cmd, Source: p.q.Pos.String(), LogicSQL: p.sql, Doc: p.q.Doc}
	if err := p.checkSupported(); err != nil {
		return err
	}
	p.plan.Primary = p.q.Primary || p.plan.Statement != StmtSelect
	if s, ok := p.stmt.(*sqlparser.Select); ok && s.Lock != sqlparser.NoLock {
		p.plan.Primary = true // FOR UPDATE / LOCK IN SHARE MODE: ShardingSphere routes locking reads to the primary
	}
	if p.hint != nil && p.hint.writeOnly {
		p.plan.Primary = true // SHARDINGSPHERE_HINT: WRITE_ROUTE_ONLY=true
	}
	p.hintActualTables()
	if err := p.collectTables(); err != nil {
		return err
	}
	if err := p.keyGenerate(); err != nil {
		return err
	}
	return p.resolveColumns()
}

// routeHintDataSource routes a statement to the data source its
// SHARDINGSPHERE_HINT names, with its text unchanged (the hint comment
// blanked), as ShardingSphere does.
func (p *planner) routeHintDataSource() error {
	ds := p.hint.dataSource
	known := false
	for _, d := range p.b.cfg.LogicDataSources {
		known = known || d == ds
	}
	for _, d := range p.b.cfg.DataSources {
		known = known || d.Name == ds
	}
	if !known {
		return p.errorf(-1, "SHARDINGSPHERE_HINT DATA_SOURCE_NAME=%s names no data source (data sources: %s)", ds, strings.Join(p.b.cfg.LogicDataSources, ", "))
	}
	p.plan.Route = &Route{
		Kind: runtime.RouteSingleTable, LogicTable: p.refs[0].info.name, DataSources: []string{ds},
		Units:  []Unit{{DataSource: 0, Node: ds, SQL: p.sql}},
		Fixed:  []int{0},
		Reason: "SHARDINGSPHERE_HINT DATA_SOURCE_NAME=" + ds + ": the statement runs unchanged on that data source",
	}
	return nil
}

// checkSupported refuses statement shapes the planner does not support.
func (p *planner) checkSupported() error {
	switch s := p.stmt.(type) {
	case *sqlparser.Select:
		p.plan.Statement = StmtSelect
		if s.Into != nil {
			return p.errorAt("INTO", "SELECT ... INTO is not supported: select the rows and write them from the application")
		}
	case *sqlparser.Insert:
		p.plan.Statement = StmtInsert
	case *sqlparser.Update:
		p.plan.Statement = StmtUpdate
	case *sqlparser.Delete:
		p.plan.Statement = StmtDelete
	case *sqlparser.Union:
		p.plan.Statement = StmtSelect
		if s.Into != nil {
			return p.errorAt("INTO", "SELECT ... INTO is not supported: select the rows and write them from the application")
		}
	default:
		return p.errorf(-1, "unsupported statement %q: shardgen plans SELECT, INSERT, UPDATE and DELETE", strings.ToUpper(sqlparser.Preview(p.sql).String()))
	}
	var err error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.With:
			err = p.cteRefusal()
			return false, nil
		}
		return true, nil
	}, p.stmt)
	return err
}

// checkCommand checks that the query's command fits the statement.
func (p *planner) checkCommand() error {
	isSelect := p.plan.Statement == StmtSelect
	switch p.q.Cmd {
	case schema.CmdOne, schema.CmdMany:
		if !isSelect {
			return p.errorf(-1, "%s needs a SELECT; use :exec, :execrows or :execresult for %s", p.q.Cmd, strings.ToUpper(p.plan.Statement.String()))
		}
	case schema.CmdCopyFrom:
		return p.checkCopyFrom()
	default:
		if isSelect {
			return p.errorf(-1, "%s cannot return rows; use :one or :many for a SELECT", p.q.Cmd)
		}
	}
	return nil
}

// checkCopyFrom checks the statement of a :copyfrom query: an INSERT (or
// REPLACE) of one VALUES row into a sharded, broadcast or single table, which
// generated code repeats once per row of its slice. A tail after the row
// (ON DUPLICATE KEY UPDATE) may not take parameters: they would belong to
// no row.
func (p *planner) checkCopyFrom() error {
	ins, ok := p.stmt.(*sqlparser.Insert)
	if !ok {
		return p.errorf(-1, ":copyfrom needs an INSERT of one VALUES row, e.g. INSERT INTO t (a, b) VALUES (?, ?)")
	}
	rows, ok := ins.Rows.(sqlparser.Values)
	if !ok || len(rows) != 1 {
		return p.errorf(-1, ":copyfrom needs an INSERT of one VALUES row (generated code repeats it once per row), not INSERT … SELECT or several rows")
	}
	if len(ins.OnDup) > 0 {
		bad := false
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if _, ok := n.(*sqlparser.Argument); ok {
				bad = true
			}
			return true, nil
		}, ins.OnDup)
		if bad {
			return p.errorf(-1, ":copyfrom: ON DUPLICATE KEY UPDATE may not take parameters, which would belong to no row; use VALUES(col)")
		}
	}
	return nil
}
