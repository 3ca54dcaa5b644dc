package templates

import (
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// dbFile emits db.go: the Queries type and what several queries share.
func (g *generator) dbFile() ([]outFile, error) {
	f := g.newFile(g.in.Source)
	pkg := g.in.Package

	// e.g.:
	//	// dataSourceNames are the data sources the queries run on, in configuration order; RouteUnit.DataSource indexes it.
	//	var dataSourceNames = []string{"ds_0", "ds_1"}
	names := make([]jen.Code, len(g.dsNames))
	for i, n := range g.dsNames {
		names[i] = jen.Lit(n)
	}
	f.Add(doc("dataSourceNames are the data sources the queries of this package run on, in",
		"configuration order. RouteUnit.DataSource indexes it."))
	f.Var().Id("dataSourceNames").Op("=").Index().String().Values(names...)
	f.Line()

	// e.g.:
	//	type Queries struct {
	//		src     *shardrt.Sources
	//		ex      shardrt.Executor
	//		run     shardrt.Runner         // single-unit statements on ex
	//		primary shardrt.Executor       // locking reads and -- shardgen:primary queries
	//		encAes  shardrt.Encryptor      // encryptor "aes" of the !ENCRYPT rule
	//		tOrder  *shardrt.ShardingTable // routes t_order at run time
	//	}
	fields := []jen.Code{
		jen.Id("src").Op("*").Qual(rt, "Sources"),
		jen.Id("ex").Qual(rt, "Executor"),
		// Single-unit statements call *Sources directly outside a
		// transaction (no heap copy of the argument slice).
		jen.Id("run").Qual(rt, "Runner").Comment("single-unit statements on ex (shardrt.RunnerOf(ex))"),
	}
	if g.needPrimary {
		fields = append(fields, jen.Id("primary").Qual(rt, "Executor").Comment("reads that must see the primary: locking reads, -- shardgen:primary"))
	}
	for _, e := range g.encryptors {
		fields = append(fields, jen.Id(e.field).Qual(rt, "Encryptor").Comment("encryptor "+strconv.Quote(e.name)+" of the !ENCRYPT rule"))
	}
	for _, t := range g.tables {
		if t.router {
			fields = append(fields, jen.Id(t.field).Op("*").Qual(rt, "ShardingTable").Comment("routes "+t.name+" at run time"))
		}
	}
	f.Add(doc("Queries runs the generated queries of package "+pkg+", one method per annotated",
		"query. It is safe for concurrent use, except a Queries returned by WithTx, which",
		"belongs to its transaction (see shardrt.Tx)."))
	f.Type().Id("Queries").Struct(fields...)
	f.Line()

	// e.g.:
	//	func New(db *shardrt.DB) (*Queries, error) {
	//		if db == nil {
	//			return nil, errors.New("orders.New: nil *shardrt.DB")
	//		}
	//		src, err := db.Sources(dataSourceNames)
	//		if err != nil {
	//			return nil, err
	//		}
	//		q := &Queries{src: src, ex: src, run: shardrt.RunnerOf(src), primary: src.Primary()}
	//		if q.encAes, err = db.Encryptor("aes"); err != nil {
	//			return nil, err
	//		}
	//		if q.tOrder, err = newTOrderTable(); err != nil {
	//			return nil, err
	//		}
	//		return q, nil
	//	}
	init := []jen.Code{jen.Id("src").Op(":").Id("src"), jen.Id("ex").Op(":").Id("src"), jen.Id("run").Op(":").Qual(rt, "RunnerOf").Call(jen.Id("src"))}
	if g.needPrimary {
		init = append(init, jen.Id("primary").Op(":").Id("src").Dot("Primary").Call())
	}
	body := []jen.Code{
		jen.If(jen.Id("db").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit(pkg+".New: nil *shardrt.DB")))),
		jen.List(jen.Id("src"), jen.Id("err")).Op(":=").Id("db").Dot("Sources").Call(jen.Id("dataSourceNames")),
		jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("err"))),
		jen.Id("q").Op(":=").Op("&").Id("Queries").Values(init...),
	}
	for _, e := range g.encryptors {
		body = append(body, jen.If(jen.List(jen.Id("q").Dot(e.field), jen.Id("err")).Op("=").Id("db").Dot("Encryptor").Call(jen.Lit(e.name)), jen.Id("err").Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(pkg+".New: %w"), jen.Id("err")))))
	}
	for _, t := range g.tables {
		if t.router {
			body = append(body, jen.If(jen.List(jen.Id("q").Dot(t.field), jen.Id("err")).Op("=").Id(t.ctor).Call(), jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("err"))))
		}
	}
	body = append(body, jen.Return(jen.Id("q"), jen.Nil()))
	newDoc := []string{"New returns the queries over db: it resolves the data sources the queries run on",
		"and binds the sharding algorithms of the tables routed at run time."}
	if len(g.encryptors) > 0 {
		newDoc = append(newDoc, "It looks up the encryptors of the !ENCRYPT rule the queries use once (their keys",
			"come from db's deployment YAML, never from generated code).")
	}
	if len(g.encryptors) > 0 {
		newDoc = append(newDoc, "Errors name the data sources db does not configure, an encryptor it does not",
			"configure, or the logic table whose algorithm cannot be built.")
	} else {
		newDoc = append(newDoc, "Errors name the data sources db does not configure, or the logic table whose",
			"algorithm cannot be built.")
	}
	f.Add(doc(newDoc...))
	f.Func().Id("New").Params(jen.Id("db").Op("*").Qual(rt, "DB")).Params(jen.Op("*").Id("Queries"), jen.Error()).Block(body...)
	f.Line()

	// e.g.:
	//	func (q *Queries) stepTable(logicTable string) *shardrt.ShardingTable {
	//		switch logicTable {
	//		case "t_user":
	//			return q.tUser
	//		}
	//		return nil
	//	}
	if len(g.stepTables) > 0 {
		var cases []jen.Code
		for _, t := range g.stepTables {
			cases = append(cases, jen.Case(jen.Lit(t.name)).Block(jen.Return(jen.Id("q").Dot(t.field))))
		}
		f.Add(doc("stepTable returns the router of a logic table whose sharding column a step of a",
			"query evaluated in steps compares with parameters (shardrt.StepsOptions.Tables):",
			"the step runs only on the data nodes their values reach. nil for another table."))
		f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id("stepTable").Params(jen.Id("logicTable").String()).Op("*").Qual(rt, "ShardingTable").Block(
			jen.Switch(jen.Id("logicTable")).Block(cases...),
			jen.Return(jen.Nil()),
		)
		f.Line()
	}

	// e.g.:
	//	func (q *Queries) WithTx(tx *shardrt.Tx) *Queries {
	//		c := *q
	//		c.ex = tx
	//		c.run = shardrt.RunnerOf(tx)
	//		return &c
	//	}
	f.Add(doc("WithTx returns a copy of q whose queries run in tx, a single-shard transaction",
		"begun with q.Sources().BeginTx. The copy is not safe for concurrent use."))
	// bind makes c, a copy of q running in tx; primary is what its reads
	// that must see the primary run on.
	bind := func(tx string, primary *jen.Statement) []jen.Code {
		out := []jen.Code{jen.Id("c").Op(":=").Op("*").Id("q"), jen.Id("c").Dot("ex").Op("=").Id(tx), jen.Id("c").Dot("run").Op("=").Qual(rt, "RunnerOf").Call(jen.Id(tx))}
		if g.needPrimary {
			out = append(out, jen.Id("c").Dot("primary").Op("=").Add(primary))
		}
		return out
	}
	// A single-shard transaction's reads of a read/write group may go to a
	// replica; locking and -- shardgen:primary reads go through tx.Primary().
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id("WithTx").Params(jen.Id("tx").Op("*").Qual(rt, "Tx")).Op("*").Id("Queries").Block(
		append(bind("tx", jen.Id("tx").Dot("Primary").Call()), jen.Return(jen.Op("&").Id("c")))...,
	)
	f.Line()

	// e.g.:
	//	func (q *Queries) Tx(ctx context.Context, opts shardrt.TxOptions, fn func(*Queries) error) error {
	//		return q.src.WithDistributed(ctx, opts, func(tx *shardrt.DistTx) error {
	//			c := *q
	//			c.ex = tx
	//			c.run = shardrt.RunnerOf(tx)
	//			return fn(&c)
	//		})
	//	}
	f.Add(doc("Tx runs fn with a copy of q whose queries run in one distributed transaction",
		"across any data nodes (shardrt.Sources.WithDistributed): LOCAL or XA as opts.Type",
		"says, one connection per data source opened lazily, every statement on the",
		"primary of a read/write group. The transaction commits when fn returns nil and",
		"rolls back when fn returns an error or panics; the error of fn is returned",
		"joined with the rollback's. The copy belongs to the transaction: it is not safe",
		"for concurrent use and must not be used after fn returns."))
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id("Tx").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("opts").Qual(rt, "TxOptions"), jen.Id("fn").Func().Params(jen.Op("*").Id("Queries")).Error(),
	).Error().Block(
		jen.Return(jen.Id("q").Dot("src").Dot("WithDistributed").Call(jen.Id("ctx"), jen.Id("opts"), jen.Func().Params(jen.Id("tx").Op("*").Qual(rt, "DistTx")).Error().Block(
			append(bind("tx", jen.Id("tx")), jen.Return(jen.Id("fn").Call(jen.Op("&").Id("c"))))...,
		))),
	)
	f.Line()
	f.Add(doc("Sources returns the data sources the queries run on, e.g. to begin a transaction."))
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id("Sources").Params().Op("*").Qual(rt, "Sources").Block(jen.Return(jen.Id("q").Dot("src")))
	f.Line()

	for _, t := range g.tables {
		if t.router {
			g.emitTable(f, t)
		}
		g.emitIndexes(f, t)
	}
	for _, k := range g.keyGens {
		g.emitKeyGen(f, k)
	}
	if g.needNoTarget {
		// e.g.:
		//	func noTarget(table, column string, v shardrt.Value) error {
		//		return fmt.Errorf("table %q: sharding value %s of column %q: %w", table, v.Text(), column, shardrt.ErrNoTarget)
		//	}
		f.Add(doc("noTarget reports a sharding value whose inlined algorithm names no data node of",
			"the table; the error wraps shardrt.ErrNoTarget."))
		f.Func().Id("noTarget").Params(jen.List(jen.Id("table"), jen.Id("column")).String(), jen.Id("v").Qual(rt, "Value")).Error().Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("table %q: sharding value %s of column %q: %w"), jen.Id("table"), jen.Id("v").Dot("Text").Call(), jen.Id("column"), jen.Qual(rt, "ErrNoTarget"))),
		)
		f.Line()
	}
	if g.needPickUnits {
		// e.g.:
		//	func pickUnits(all []shardrt.RouteUnit, nodes []int) []shardrt.RouteUnit {
		//		units := make([]shardrt.RouteUnit, len(nodes))
		//		for i, n := range nodes {
		//			units[i] = all[n]
		//		}
		//		return units
		//	}
		f.Add(doc("pickUnits returns the units of the data nodes a computed route reached, in",
			"data node order."))
		f.Func().Id("pickUnits").Params(jen.Id("all").Index().Qual(rt, "RouteUnit"), jen.Id("nodes").Index().Int()).Index().Qual(rt, "RouteUnit").Block(
			jen.Id("units").Op(":=").Make(jen.Index().Qual(rt, "RouteUnit"), jen.Len(jen.Id("nodes"))),
			jen.For(jen.List(jen.Id("i"), jen.Id("n")).Op(":=").Range().Id("nodes")).Block(jen.Id("units").Index(jen.Id("i")).Op("=").Id("all").Index(jen.Id("n"))),
			jen.Return(jen.Id("units")),
		)
		f.Line()
	}
	return []outFile{{name: "db.go", f: f}}, nil
}

// emitTable emits a logic table's data nodes and the constructor of its
// *shardrt.ShardingTable.
func (g *generator) emitTable(f *jen.File, t *logicTable) {
	r := t.route
	// e.g.:
	//	var tOrderDataNodes = []shardrt.DataNode{
	//		{DataSource: "ds_0", Table: "t_order_0"},
	//	}
	nodes := make([]jen.Code, len(r.Units))
	for i, u := range r.Units {
		ds := r.DataSources[u.DataSource]
		nodes[i] = jen.Values(jen.Id("DataSource").Op(":").Lit(ds), jen.Id("Table").Op(":").Lit(strings.TrimPrefix(u.Node, ds+".")))
	}
	f.Add(doc(t.nodesVar + " are the data nodes of " + t.name + " in actualDataNodes order; its route unit tables follow it."))
	f.Var().Id(t.nodesVar).Op("=").Index().Qual(rt, "DataNode").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, nodes...)
	f.Line()

	// e.g.:
	//	func newTOrderTable() (*shardrt.ShardingTable, error) {
	//		database, err := shardrt.NewAlgorithm("MOD", shardrt.Props{"sharding-count": "2"})
	//		if err != nil {
	//			return nil, fmt.Errorf("table %q: database sharding algorithm %q: %w", "t_order", "db_mod", err)
	//		}
	//		t, err := shardrt.NewShardingTable(tOrderDataNodes,
	//			shardrt.StrategyConfig{Kind: shardrt.StandardStrategy, Columns: []string{"user_id"}, Algorithm: database},
	//			shardrt.StrategyConfig{})
	//		if err != nil {
	//			return nil, fmt.Errorf("table %q: %w", "t_order", err)
	//		}
	//		return t, nil
	//	}
	var body []jen.Code
	configs := make([]jen.Code, 2)
	var sides []string
	for i, x := range []struct {
		name string
		s    *plan.Strategy
	}{{"database", r.Database}, {"table", r.Table}} {
		if x.s == nil {
			configs[i] = jen.Qual(rt, "StrategyConfig").Values()
			continue
		}
		sides = append(sides, x.name+": "+strings.Join(x.s.Columns, ", ")+" "+x.s.Type+" "+x.s.Algorithm)
		body = append(body,
			jen.List(jen.Id(x.name), jen.Id("err")).Op(":=").Qual(rt, "NewAlgorithm").Call(jen.Lit(x.s.Type), propsCode(x.s.Props)),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(
				jen.Lit("table %q: "+x.name+" sharding algorithm %q: %w"), jen.Lit(t.name), jen.Lit(x.s.Algorithm), jen.Id("err")))),
		)
		cols := make([]jen.Code, len(x.s.Columns))
		for j, c := range x.s.Columns {
			cols[j] = jen.Lit(c)
		}
		configs[i] = jen.Qual(rt, "StrategyConfig").Values(
			jen.Id("Kind").Op(":").Qual(rt, strategyKind(x.s.Kind)),
			jen.Id("Columns").Op(":").Index().String().Values(cols...),
			jen.Id("Algorithm").Op(":").Id(x.name),
		)
	}
	if len(sides) == 0 {
		sides = append(sides, "no strategy")
	}
	body = append(body,
		jen.List(jen.Id("t"), jen.Id("err")).Op(":=").Qual(rt, "NewShardingTable").Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, jen.Id(t.nodesVar), configs[0], configs[1]),
		jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("table %q: %w"), jen.Lit(t.name), jen.Id("err")))),
		jen.Return(jen.Id("t"), jen.Nil()),
	)
	f.Add(doc(t.ctor + " binds the sharding strategies of " + t.name + " (" + strings.Join(sides, "; ") + ") to its data nodes."))
	f.Func().Id(t.ctor).Params().Params(jen.Op("*").Qual(rt, "ShardingTable"), jen.Error()).Block(body...)
	f.Line()
}

// emitIndexes emits a logic table's inlined look-up tables.
func (g *generator) emitIndexes(f *jen.File, t *logicTable) {
	for i, x := range []*indexTable{t.dbIndex, t.tbIndex} {
		if x == nil {
			continue
		}
		// e.g.:
		//	// tOrderTableIndex maps the JavaRem suffix of order_id (shardrt.JavaRem(v, 4), from -3) to the index of its actual table; -1: none.
		//	var tOrderTableIndex = [...]int32{-1, -1, -1, 0, 1, 2, 3}
		s := t.route.Table
		what := "actual table within its data source"
		if i == 0 {
			s, what = t.route.Database, "data source"
		}
		from := ""
		if x.offset > 0 {
			from = ", from -" + strconv.Itoa(int(x.offset))
		}
		f.Add(doc(x.name+" maps the "+s.Type+" suffix of "+strings.Join(s.Columns, ", ")+" (shardrt."+x.inline.Func+"(v, "+strconv.Itoa(int(x.inline.Modulus))+")"+from+")",
			"to the index of its "+what+"; -1: no target. Computed at generate time",
			"with the bound algorithm."))
		f.Var().Id(x.name).Op("=").Index(jen.Op("...")).Int32().Add(intValues(x.values()))
		f.Line()
	}
	if t.layout != "" {
		// e.g.:
		//	var tOrderLayout = [][]int{{0, 2}, {1, 3}}
		rows := make([]jen.Code, len(t.route.Nodes))
		for i, l := range t.route.Nodes {
			rows[i] = intValues(l)
		}
		f.Add(doc(t.layout + " is the data node index of the t-th actual table of the ds-th data source of " + t.name + ": " + t.layout + "[ds][t]."))
		f.Var().Id(t.layout).Op("=").Index().Index().Int().Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, rows...)
		f.Line()
	}
}

// emitKeyGen emits the process-wide lazy key generator of one name.
func (g *generator) emitKeyGen(f *jen.File, k *keyGen) {
	// e.g.:
	//	var snowflakeKeyGenerator = sync.OnceValues(func() (shardrt.KeyGenerator, error) {
	//		g, err := shardrt.NewKeyGenerator("SNOWFLAKE", shardrt.Props{"worker-id": "1"})
	//		if err != nil {
	//			return nil, fmt.Errorf("key generator %q: %w", "snowflake", err)
	//		}
	//		return g, nil
	//	})
	why := ""
	if k.typ == "SNOWFLAKE" {
		why = ", so that two of them never run two generators with one worker id"
	}
	f.Add(doc(k.fn + " returns key generator " + strconv.Quote(k.name) + " (" + k.typ + "), built on first use and shared by every Queries of the process" + why + "."))
	f.Var().Id(k.fn).Op("=").Qual("sync", "OnceValues").Call(
		jen.Func().Params().Params(jen.Qual(rt, "KeyGenerator"), jen.Error()).Block(
			jen.List(jen.Id("g"), jen.Id("err")).Op(":=").Qual(rt, "NewKeyGenerator").Call(jen.Lit(k.typ), propsCode(k.props)),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("key generator %q: %w"), jen.Lit(k.name), jen.Id("err")))),
			jen.Return(jen.Id("g"), jen.Nil()),
		),
	)
	f.Line()
}

// intValues returns the composite literal body {a, b, ...} of vals: on one
// line when short, else 16 values per line.
func intValues(vals []int) jen.Code {
	if len(vals) <= 32 {
		items := make([]jen.Code, len(vals))
		for i, v := range vals {
			items[i] = jen.Lit(v)
		}
		return jen.Values(items...)
	}
	var lines []jen.Code
	for i := 0; i < len(vals); i += 16 {
		line := jen.Null()
		for _, v := range vals[i:min(i+16, len(vals))] {
			line.Lit(v).Op(",")
		}
		lines = append(lines, line)
	}
	return jen.Custom(jen.Options{Open: "{", Close: "}", Multi: true}, lines...)
}

// propsCode returns a shardrt.Props literal with sorted keys, or nil.
func propsCode(p map[string]string) jen.Code {
	if len(p) == 0 {
		return jen.Nil()
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	items := make([]jen.Code, len(keys))
	for i, k := range keys {
		items[i] = jen.Lit(k).Op(":").Lit(p[k])
	}
	return jen.Qual(rt, "Props").Values(items...)
}

// strategyKind names the shardrt.StrategyKind of a schema strategy kind.
func strategyKind(k schema.StrategyKind) string {
	switch k {
	case schema.StrategyStandard:
		return "StandardStrategy"
	case schema.StrategyComplex:
		return "ComplexStrategy"
	case schema.StrategyHint:
		return "HintStrategy"
	}
	return "NoStrategy"
}
