package templates

import (
	"errors"
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// query is one plan and the names and route shape the generator chose for
// it.
type query struct {
	p    *plan.Plan
	file *queryFile

	stmtVar    string // e.g. getOrderStmt
	unitsVar   string // e.g. getOrderUnits
	mergeVar   string // e.g. topOrdersMerge: the MergeSpec of a merged SELECT; "" when none
	insertVar  string // e.g. addOrdersInsert: the InsertSplit of a multi-row INSERT; "" when none
	sliceAtVar string // e.g. listOrdersSliceAt: where each unit's SQL expands sqlc.slice; "" when none
	stepsVar   string // e.g. ordersWithUsersSteps: the shardrt.Steps of a statement evaluated in steps; "" when none
	rowType    string // e.g. GetOrderRow or the model's name; "" for writes and one-column reads
	// scalar is set for a read with one result column (not sqlc.embed):
	// as under sqlc, a row is that column's Go type, e.g. :one returns
	// string and :many []string (rowCode).
	scalar bool
	model  *model // the row model, or nil
	// embeds are the models of sqlc.embed(t) in the row, by the lower-case
	// logic table name (plan.Column.Embed).
	embeds     map[string]*model
	paramsType string // e.g. GetOrderParams; "" for positional parameters
	scanFunc   string // e.g. scanGetOrderRow; "" when no multi-unit read
	iterMethod string // e.g. ListOrdersIter; "" when none
	key        *keyGen
	route      routePlan

	// methods are the signatures of q's methods (the method, then its
	// iterator), for the Querier interface: e.g.
	// GetOrder(ctx context.Context, userID int64) (TOrder, error).
	methods []jen.Code
}

// visible returns the indexes of the parameters callers pass (all but the
// generated key).
func (q *query) visible() []int {
	var out []int
	for i, p := range q.p.Params {
		if !p.Generated {
			out = append(out, i)
		}
	}
	return out
}

func (q *query) isRead() bool { return q.p.Cmd == schema.CmdOne || q.p.Cmd == schema.CmdMany }

// logicTable is a sharded logic table that some query routes at run time:
// its data nodes, its strategies and what generated code needs of them.
type logicTable struct {
	name   string
	route  *plan.Route // the first query's route (data nodes, strategies)
	source string      // that query's file:line

	router   bool   // a *shardrt.ShardingTable field is needed
	field    string // Queries field, e.g. tOrder
	nodesVar string // e.g. tOrderDataNodes
	ctor     string // e.g. newTOrderTable

	dbIndex, tbIndex *indexTable // inlined look-up tables; nil when not needed

	// perDS is K when every data source has K actual tables laid out in
	// order (unit = ds*K + t); 0 when they are not and layout is needed.
	perDS  int
	layout string // e.g. tOrderLayout, when perDS == 0 and an inline route needs it
}

// indexTable is an inlined algorithm's suffix → target look-up table.
type indexTable struct {
	name   string
	inline *plan.Inline
	// offset is added to the suffix before the look-up: JavaRem suffixes
	// run from -(n-1), so their table starts there.
	offset int64
}

// values returns the table's entries: offset entries of -1, then Index.
func (x *indexTable) values() []int {
	out := make([]int, 0, int(x.offset)+len(x.inline.Index))
	for i := int64(0); i < x.offset; i++ {
		out = append(out, -1)
	}
	return append(out, x.inline.Index...)
}

// model is a logic table whose row struct queries reuse.
type model struct {
	table   string // DDL spelling, e.g. t_order
	name    string // Go type, e.g. TOrder
	columns []*plan.Column
	source  string
	scan    string // scan function, e.g. scanTOrder; "" until a query needs it
}

// keyGen is one key generator of keyGenerators, shared process-wide.
type keyGen struct {
	name   string // generator name, e.g. snowflake
	typ    string // SNOWFLAKE | UUID
	props  runtime.Props
	fn     string // e.g. snowflakeKeyGenerator
	source string
}

// analyze chooses the names, row type, parameters and route shape of q.
func (g *generator) analyze(q *query) error {
	p := q.p
	if !token.IsIdentifier(p.Name) {
		return fmt.Errorf("name %q is not a Go identifier", p.Name)
	}
	owner := "query " + p.Name + " (" + p.Source + ")"
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(g.declareMember(p.Name, owner))
	base := unexportedName(p.Name)
	if p.Steps != nil {
		add(g.analyzeSteps(q, base, owner))
		return errors.Join(errs...)
	}
	q.stmtVar, q.unitsVar = base+"Stmt", base+"Units"
	add(g.declare(q.stmtVar, owner))
	add(g.declare(q.unitsVar, owner))
	if len(q.visible()) > g.parameterLimit() || p.Cmd == schema.CmdCopyFrom {
		q.paramsType = p.Name + "Params"
		add(g.declare(q.paramsType, owner))
	}
	if p.Merge != nil {
		q.mergeVar = base + "Merge"
		add(g.declare(q.mergeVar, owner))
		add(checkMerge(p))
	}
	add(checkNodeArgs(p))
	add(g.checkEncryption(q))
	if p.Primary && q.isRead() {
		g.needPrimary = true
	}
	if p.Slice != nil {
		q.sliceAtVar = base + "SliceAt"
		add(g.declare(q.sliceAtVar, owner))
		add(checkSlice(p))
	}
	if p.Insert != nil {
		q.insertVar = base + "Insert"
		add(g.declare(q.insertVar, owner))
		if p.Statement != plan.StmtInsert {
			add(fmt.Errorf("a %s statement with a multi-row INSERT split", p.Statement))
		}
	}
	for i, prm := range p.Params {
		if prm.Generated && (p.KeyGenerate == nil || !slices.Contains(p.KeyGenerate.Params, i)) {
			add(fmt.Errorf("parameter %s is generated but is not a key of KeyGenerate", prm.Name))
		}
	}
	for _, a := range p.Args {
		if a < 0 || a >= len(p.Params) {
			add(fmt.Errorf("argument refers to parameter %d of %d", a, len(p.Params)))
		}
	}
	for _, prm := range p.Params {
		if _, err := typeCode(prm.Type); err != nil {
			add(fmt.Errorf("parameter %s: %w", prm.Name, err))
		}
	}
	if q.isRead() {
		if len(p.Columns) == 0 {
			add(errors.New("a SELECT without result columns"))
		}
		for _, c := range p.Columns {
			if _, err := typeCode(c.Type); err != nil {
				add(fmt.Errorf("column %s: %w", c.Name, err))
			}
		}
		add(g.embeds(q))
		q.scalar = len(p.Columns) == 1 && p.Columns[0].Embed == ""
		switch {
		case q.scalar:
		case p.RowModel != "":
			m, err := g.model(q)
			add(err)
			q.model = m
			if m != nil {
				q.rowType = m.name
			}
		default:
			q.rowType = p.Name + "Row"
			add(g.declare(q.rowType, owner))
		}
	}
	if p.KeyGenerate != nil {
		k, err := g.keyGen(q)
		add(err)
		q.key = k
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := g.planRoute(q); err != nil {
		return err
	}
	if q.isRead() && (!q.route.single() || p.Slice != nil) && p.Merge == nil {
		if q.model != nil {
			if q.model.scan == "" {
				q.model.scan = "scan" + q.model.name
				if err := g.declare(q.model.scan, "model "+q.model.name); err != nil {
					return err
				}
			}
			q.scanFunc = q.model.scan
		} else {
			q.scanFunc = "scan" + q.rowType
			if q.scalar {
				q.scanFunc = "scan" + p.Name
			}
			add(g.declare(q.scanFunc, owner))
		}
	}
	if p.Cmd == schema.CmdMany && q.route.single() && p.Merge == nil && p.Slice == nil {
		q.iterMethod = p.Name + "Iter"
		add(g.declareMember(q.iterMethod, owner))
	}
	return errors.Join(errs...)
}

// embeds finds the model of each sqlc.embed(t) of q's row, creating it on
// first use: the run of columns whose Embed is t.
func (g *generator) embeds(q *query) error {
	cols := q.p.Columns
	for i := 0; i < len(cols); {
		t := cols[i].Embed
		j := i + 1
		for j < len(cols) && t != "" && cols[j].Embed == t {
			j++
		}
		if t != "" {
			key := strings.ToLower(t)
			if q.embeds[key] != nil {
				return fmt.Errorf("sqlc.embed(%s) twice in one row", t)
			}
			m, err := g.modelOf(t, cols[i:j], q.p.Source)
			if err != nil {
				return err
			}
			if q.embeds == nil {
				q.embeds = map[string]*model{}
			}
			q.embeds[key] = m
			for _, c := range cols {
				if c.Embed == "" && c.Field == m.name {
					return fmt.Errorf("result column %s and sqlc.embed(%s) are both field %s of the row: give the column another alias", c.Name, t, m.name)
				}
			}
		}
		i = j
	}
	return nil
}

// rowCode returns the Go type of one row of q: its row struct or model,
// or, for a one-column read, the column's type (string, sql.NullString).
func (q *query) rowCode() jen.Code {
	if q.scalar {
		t, _ := typeCode(q.p.Columns[0].Type) // checked by analyze
		return t
	}
	return jen.Id(q.rowType)
}

// rowZero returns the zero value of one row of q: e.g. GetOrderRow{}, "",
// 0, nil, sql.NullString{}.
func (q *query) rowZero() jen.Code {
	if q.scalar {
		return zeroCode(q.p.Columns[0].Type)
	}
	return jen.Id(q.rowType).Values()
}

// fieldPath is how the row reaches column c: its field, or the embedded
// model's field and the model's field, e.g. TOrder.OrderID.
func (q *query) fieldPath(c *plan.Column) string {
	if m := q.embeds[strings.ToLower(c.Embed)]; c.Embed != "" && m != nil {
		return m.name + "." + c.Field
	}
	return c.Field
}

// model returns the row model of q, creating it on first use.
func (g *generator) model(q *query) (*model, error) {
	return g.modelOf(q.p.RowModel, q.p.Columns, q.p.Source)
}

// modelOf returns the model of logic table table whose columns are
// columns, creating it on first use (source names the query, for
// messages).
func (g *generator) modelOf(table string, columns []*plan.Column, source string) (*model, error) {
	key := strings.ToLower(table)
	if m := g.modelBy[key]; m != nil {
		if !sameColumns(m.columns, columns) {
			return nil, fmt.Errorf("its rows reuse model %s of table %q, but its columns differ from those of %s", m.name, m.table, m.source)
		}
		return m, nil
	}
	if c := g.in.Config; c != nil && c.Tables[key] != nil {
		table = c.Tables[key].Name
		if n := logicColumns(c, key); n != len(columns) {
			return nil, fmt.Errorf("its rows reuse table %q, which has %d columns, but it returns %d", table, n, len(columns))
		}
	}
	m := &model{table: table, name: g.modelName(table), columns: columns, source: source}
	if err := g.declare(m.name, "the model of table "+table); err != nil {
		return nil, err
	}
	g.modelBy[key] = m
	i, _ := slices.BinarySearchFunc(g.models, m.name, func(a *model, n string) int { return strings.Compare(a.name, n) })
	g.models = slices.Insert(g.models, i, m)
	return m, nil
}

func sameColumns(a, b []*plan.Column) bool {
	return slices.EqualFunc(a, b, func(x, y *plan.Column) bool {
		return x.Field == y.Field && x.Type.Pkg == y.Type.Pkg && x.Type.Name == y.Type.Name
	})
}

// keyGen returns the key generator of q, creating it on first use, and
// checks that the generated parameters (one per INSERT row) can hold its
// keys.
func (g *generator) keyGen(q *query) (*keyGen, error) {
	kg := q.p.KeyGenerate
	if len(kg.Params) == 0 || kg.Params[0] != kg.Param {
		return nil, fmt.Errorf("generated key column %q: the first row's key is parameter %d, but the rows' keys are %v", kg.Column, kg.Param, kg.Params)
	}
	for _, i := range kg.Params {
		if i < 0 || i >= len(q.p.Params) || !q.p.Params[i].Generated {
			return nil, fmt.Errorf("generated key column %q: parameter %d is not a generated one", kg.Column, i)
		}
		t := q.p.Params[i].Type
		switch strings.ToUpper(kg.Type) {
		case "SNOWFLAKE":
			if t.Pkg != "" || (t.Name != "int64" && t.Name != "uint64") {
				return nil, fmt.Errorf("generated key column %q has Go type %s, but SNOWFLAKE keys are 64-bit integers: use BIGINT", kg.Column, t)
			}
		case "UUID":
			if t.Pkg != "" || t.Name != "string" {
				return nil, fmt.Errorf("generated key column %q has Go type %s, but UUID keys are strings: use CHAR(36) or VARCHAR", kg.Column, t)
			}
		default:
			return nil, fmt.Errorf("generated key column %q: unknown key generator type %q (known: %s)", kg.Column, kg.Type, strings.Join(runtime.KeyGeneratorTypes, ", "))
		}
	}
	if k := g.keyBy[kg.Generator]; k != nil {
		if !strings.EqualFold(k.typ, kg.Type) || !maps.Equal(k.props, kg.Props) {
			return nil, fmt.Errorf("key generator %q differs from the one of %s", kg.Generator, k.source)
		}
		return k, nil
	}
	k := &keyGen{name: kg.Generator, typ: strings.ToUpper(kg.Type), props: kg.Props, fn: unexportedName(kg.Generator) + "KeyGenerator", source: q.p.Source}
	if err := g.declare(k.fn, fmt.Sprintf("key generator %q", kg.Generator)); err != nil {
		return nil, err
	}
	g.keyBy[kg.Generator] = k
	i, _ := slices.BinarySearchFunc(g.keyGens, k.name, func(a *keyGen, n string) int { return strings.Compare(a.name, n) })
	g.keyGens = slices.Insert(g.keyGens, i, k)
	return k, nil
}

// table returns the logic table q routes over, creating it on first use,
// and checks that every query sees the same data nodes and strategies.
func (g *generator) table(q *query) (*logicTable, error) {
	return g.routeTable(q.p.Route, q.p.Source)
}

// routeTable is table for the route r of a query (or of a step of one) at
// source.
func (g *generator) routeTable(r *plan.Route, source string) (*logicTable, error) {
	key := strings.ToLower(r.LogicTable)
	if t := g.tableBy[key]; t != nil {
		if !sameNodes(t.route, r) || !sameStrategy(t.route.Database, r.Database) || !sameStrategy(t.route.Table, r.Table) {
			return nil, fmt.Errorf("its plan of table %q has other data nodes or strategies than the one of %s", r.LogicTable, t.source)
		}
		return t, nil
	}
	if len(r.Nodes) == 0 {
		return nil, fmt.Errorf("route of table %q has no data node layout", r.LogicTable)
	}
	n := 0
	for _, l := range r.Nodes {
		n += len(l)
	}
	if n != len(r.Units) {
		return nil, fmt.Errorf("route of table %q lays out %d data nodes but has %d units", r.LogicTable, n, len(r.Units))
	}
	base := unexportedName(r.LogicTable)
	t := &logicTable{name: r.LogicTable, route: r, source: source, field: base, nodesVar: base + "DataNodes", ctor: "new" + exportedName(r.LogicTable) + "Table"}
	t.perDS = len(r.Nodes[0])
	for d, l := range r.Nodes {
		for i, u := range l {
			if len(l) != t.perDS || u != d*t.perDS+i {
				t.perDS = 0
			}
		}
	}
	g.tableBy[key] = t
	i, _ := slices.BinarySearchFunc(g.tables, t.name, func(a *logicTable, n string) int { return strings.Compare(a.name, n) })
	g.tables = slices.Insert(g.tables, i, t)
	return t, nil
}

func sameNodes(a, b *plan.Route) bool {
	return slices.EqualFunc(a.Units, b.Units, func(x, y plan.Unit) bool { return x.Node == y.Node }) &&
		slices.EqualFunc(a.Nodes, b.Nodes, slices.Equal[[]int])
}

func sameStrategy(a, b *plan.Strategy) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Type == b.Type && a.Algorithm == b.Algorithm &&
		slices.Equal(a.Columns, b.Columns) && maps.Equal(a.Props, b.Props)
}

// useRouter marks that t needs a *shardrt.ShardingTable.
func (g *generator) useRouter(t *logicTable) error {
	if t.router {
		return nil
	}
	t.router = true
	owner := "table " + t.name
	return errors.Join(g.declareMember(t.field, owner), g.declare(t.nodesVar, owner), g.declare(t.ctor, owner))
}

// useIndex returns the look-up table of one inlined side of t.
func (g *generator) useIndex(t *logicTable, database bool, in *plan.Inline) (*indexTable, error) {
	slot, suffix := &t.tbIndex, "TableIndex"
	if database {
		slot, suffix = &t.dbIndex, "DatabaseIndex"
	}
	if *slot != nil {
		return *slot, nil
	}
	x := &indexTable{name: unexportedName(t.name) + suffix, inline: in}
	if in.Func == "JavaRem" {
		x.offset = in.Modulus - 1
	}
	if err := g.declare(x.name, "table "+t.name); err != nil {
		return nil, err
	}
	*slot = x
	return x, nil
}

// useLayout names t's node layout table.
func (g *generator) useLayout(t *logicTable) error {
	if t.layout != "" {
		return nil
	}
	t.layout = unexportedName(t.name) + "Layout"
	return g.declare(t.layout, "table "+t.name)
}

// checkEncryption binds the encryptors q uses (Plan.NodeArgs to encrypt,
// Plan.Columns to decrypt) to Queries fields and refuses what generated
// code cannot do: decrypting into a Go type other than string or
// sql.NullString, encrypting a []byte parameter (ShardingSphere encrypts
// String.valueOf(value), which for byte[] is not its content), a literal
// sent without an encryptor.
func (g *generator) checkEncryption(q *query) error {
	p := q.p
	var errs []error
	for i, a := range p.NodeArgs {
		switch {
		case a.Literal != nil && a.Encrypt == "":
			errs = append(errs, fmt.Errorf("per-node argument %d is a literal without an encryptor", i+1))
		case a.Encrypt == "":
		case a.Literal != nil:
			if _, _, err := runtime.JavaText(*a.Literal); err != nil {
				errs = append(errs, fmt.Errorf("per-node argument %d: literal %s cannot be encrypted: %w", i+1, a.Literal.Text(), err))
			}
		case a.Param >= 0 && a.Param < len(p.Params) && p.Params[a.Param].Type.Name == "[]byte":
			errs = append(errs, fmt.Errorf("parameter %s of Go type []byte cannot be encrypted: ShardingSphere encrypts String.valueOf(value), which for byte[] is not its content; use a string", p.Params[a.Param].Name))
		}
		if a.Encrypt != "" {
			errs = append(errs, g.useEncryptor(a.Encrypt))
		}
	}
	for _, c := range p.Columns {
		if c.Decrypt == "" {
			continue
		}
		if !isString(c.Type) && !isNullString(c.Type) && !isStringPointer(c.Type) {
			errs = append(errs, fmt.Errorf("column %s is decrypted with encryptor %q into Go type %s, which generated code does not support: an encrypted logic column reads as string or sql.NullString", c.Name, c.Decrypt, c.Type))
			continue
		}
		errs = append(errs, g.useEncryptor(c.Decrypt))
	}
	return errors.Join(errs...)
}

// useEncryptor binds encryptor name to a Queries field on first use.
func (g *generator) useEncryptor(name string) error {
	if g.encBy[name] != nil {
		return nil
	}
	e := &encryptor{name: name, field: "enc" + exportedName(name)}
	g.encBy[name] = e
	i, _ := slices.BinarySearchFunc(g.encryptors, name, func(a *encryptor, n string) int { return strings.Compare(a.name, n) })
	g.encryptors = slices.Insert(g.encryptors, i, e)
	return g.declareMember(e.field, fmt.Sprintf("encryptor %q", name))
}

func isString(t plan.GoType) bool { return t.Pkg == "" && t.Name == "string" }

func isNullString(t plan.GoType) bool { return t.Pkg == "database/sql" && t.Name == "NullString" }

func isStringPointer(t plan.GoType) bool { return t.Pkg == "" && t.Name == "*string" }

// logicColumns returns how many columns logic table key (lower case) has
// as the application sees it: its DDL columns, less the assisted-query,
// like-query and 5.1 plain columns of its encrypted columns (the cipher
// column stands for the logic column).
func logicColumns(c *schema.Config, key string) int {
	n := len(c.Tables[key].Columns)
	if c.Encrypt == nil {
		return n
	}
	for _, et := range c.Encrypt.Tables {
		if strings.ToLower(et.Name) != key {
			continue
		}
		for _, ec := range et.Columns {
			if ec.AssistedQuery != nil {
				n--
			}
			if ec.LikeQuery != nil {
				n--
			}
			if ec.Plain != "" {
				n--
			}
		}
	}
	return n
}
