package templates

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// collationNames are the Go names of the runtime's Collation constants,
// which generated MergeSpec literals spell (TestCollationNames checks that
// every collation has one).
var collationNames = map[runtime.Collation]string{
	runtime.CollationBinary:                "CollationBinary",
	runtime.CollationUTF8MB4Bin:            "CollationUTF8MB4Bin",
	runtime.CollationUTF8MB4NopadBin:       "CollationUTF8MB4NopadBin",
	runtime.CollationUTF8MB4GeneralCI:      "CollationUTF8MB4GeneralCI",
	runtime.CollationUTF8MB4GeneralNopadCI: "CollationUTF8MB4GeneralNopadCI",
}

// checkMerge checks that the merge spec of p is one generated code can
// run: a SELECT returning rows, a spec the runtime accepts
// (MergeSpec.Validate), one visible column per result column, LIMIT
// parameters that are integer parameters of p (checkNodeArgs checks the
// per-node arguments).
func checkMerge(p *plan.Plan) error {
	m := p.Merge
	if p.Statement != plan.StmtSelect || (p.Cmd != schema.CmdOne && p.Cmd != schema.CmdMany) {
		return fmt.Errorf("a %s %s with a merge spec; only :one and :many SELECTs are merged", p.Cmd, p.Statement)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("merge spec: %w", err)
	}
	if m.Visible != len(p.Columns) {
		return fmt.Errorf("merge spec: %d visible columns for %d result columns", m.Visible, len(p.Columns))
	}
	var errs []error
	for _, l := range []struct {
		what string
		v    runtime.LimitValue
	}{{"offset", m.Offset}, {"row count", m.Count}} {
		if !l.v.Param {
			continue
		}
		if l.v.Value >= int64(len(p.Params)) {
			errs = append(errs, fmt.Errorf("merge spec: LIMIT %s is parameter %d of %d", l.what, l.v.Value, len(p.Params)))
			continue
		}
		if prm := p.Params[l.v.Value]; !isInteger(prm.Type) {
			errs = append(errs, fmt.Errorf("merge spec: LIMIT %s parameter %s has Go type %s, want an integer", l.what, prm.Name, prm.Type))
		}
	}
	return errors.Join(errs...)
}

// checkNodeArgs checks the per-node arguments (Plan.NodeArgs): every one
// names a parameter of p (or is a literal to encrypt), and the per-node
// LIMIT (LimitSum) appears only in a merged SELECT. Outside a merge,
// NodeArgs come from the encryption rewrite: the values of the cipher,
// assisted-query, like-query and plain columns, in placeholder order.
func checkNodeArgs(p *plan.Plan) error {
	var errs []error
	for i, a := range p.NodeArgs {
		switch {
		case a.LimitSum && p.Merge == nil:
			errs = append(errs, fmt.Errorf("per-node argument %d is a LIMIT row count, which only a merged SELECT may have", i+1))
		case a.LimitSum || (a.Param == -1 && a.Literal != nil):
		case a.Param < 0 || a.Param >= len(p.Params):
			errs = append(errs, fmt.Errorf("per-node argument %d refers to parameter %d of %d", i+1, a.Param, len(p.Params)))
		}
	}
	if p.NodeArgs != nil && p.Insert != nil && !p.Insert.ByNodeArgs {
		errs = append(errs, errors.New("a multi-row INSERT with per-node arguments must index them (InsertPlan.ByNodeArgs)"))
	}
	return errors.Join(errs...)
}

// emitMergeSpec emits the package-level MergeSpec of a merged SELECT.
func (g *generator) emitMergeSpec(f *jen.File, q *query) error {
	m := q.p.Merge
	// e.g.:
	//	// topOrdersMerge says how TopOrders merges the rows of its data nodes: ...
	//	var topOrdersMerge = shardrt.MergeSpec{
	//		Columns: 3,
	//		Visible: 3,
	//		Kinds: []shardrt.ColumnKind{
	//			{Type: shardrt.ColumnInt},
	//			{Type: shardrt.ColumnString, Collation: shardrt.CollationUTF8MB4GeneralCI},
	//			{Type: shardrt.ColumnDecimal},
	//			{Type: shardrt.ColumnString, Weight: 4}, // compared by WEIGHT_STRING in column 4
	//		},
	//		OrderBy: []shardrt.SortKey{{Column: 2, Desc: true}, {Column: 0}},
	//		Offset:  shardrt.LimitValue{Value: 2, Param: true}, // arg
	//		Count:   shardrt.LimitValue{Value: 3, Param: true}, // arg2
	//	}
	kinds := make([]jen.Code, len(m.Kinds))
	for i, k := range m.Kinds {
		items := []jen.Code{jen.Id("Type").Op(":").Qual(rt, "Column"+k.Type.String())}
		if k.Collation != runtime.CollationNone {
			name, ok := collationNames[k.Collation]
			if !ok {
				return fmt.Errorf("merge spec: column %d compares by collation %s, which the generator cannot spell", i+1, k.Collation)
			}
			items = append(items, jen.Id("Collation").Op(":").Qual(rt, name))
		}
		if k.Weight > 0 {
			items = append(items, jen.Id("Weight").Op(":").Lit(k.Weight))
		}
		kinds[i] = jen.Values(items...)
	}
	// Each field carries its own comma, so a comment can follow it.
	fields := []jen.Code{
		jen.Id("Columns").Op(":").Lit(m.Columns).Op(","),
		jen.Id("Visible").Op(":").Lit(m.Visible).Op(","),
		jen.Id("Kinds").Op(":").Index().Qual(rt, "ColumnKind").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, kinds...).Op(","),
	}
	if len(m.OrderBy) > 0 {
		keys := make([]jen.Code, len(m.OrderBy))
		for i, k := range m.OrderBy {
			items := []jen.Code{jen.Id("Column").Op(":").Lit(k.Column)}
			if k.Desc {
				items = append(items, jen.Id("Desc").Op(":").True())
			}
			keys[i] = jen.Values(items...)
		}
		fields = append(fields, jen.Id("OrderBy").Op(":").Index().Qual(rt, "SortKey").Values(keys...).Op(","))
	}
	if len(m.GroupBy) > 0 {
		cols := make([]jen.Code, len(m.GroupBy))
		for i, c := range m.GroupBy {
			cols[i] = jen.Lit(c)
		}
		fields = append(fields, jen.Id("GroupBy").Op(":").Index().Int().Values(cols...).Op(","))
	}
	if len(m.Aggregates) > 0 {
		aggs := make([]jen.Code, len(m.Aggregates))
		for i, a := range m.Aggregates {
			// e.g.: {Column: 1, Func: shardrt.AggAvg, SumColumn: 4, CountColumn: 3, Scale: 6}
			items := []jen.Code{jen.Id("Column").Op(":").Lit(a.Column), jen.Id("Func").Op(":").Qual(rt, "Agg"+a.Func.String())}
			if a.Func == runtime.AggAvg {
				items = append(items, jen.Id("SumColumn").Op(":").Lit(a.SumColumn), jen.Id("CountColumn").Op(":").Lit(a.CountColumn))
			}
			if g := a.GroupConcat; g != nil {
				// e.g.: CountColumn: 5, GroupConcat: &shardrt.GroupConcatSpec{Separator: ",", ValueColumn: 4, ...}
				gi := []jen.Code{
					jen.Id("Separator").Op(":").Lit(g.Separator), jen.Id("ValueColumn").Op(":").Lit(g.ValueColumn),
				}
				if len(g.OrderBy) > 0 {
					keys := make([]jen.Code, len(g.OrderBy))
					for i, k := range g.OrderBy {
						ki := []jen.Code{jen.Id("Column").Op(":").Lit(k.Column)}
						if k.Desc {
							ki = append(ki, jen.Id("Desc").Op(":").True())
						}
						keys[i] = jen.Values(ki...)
					}
					gi = append(gi, jen.Id("OrderBy").Op(":").Index().Qual(rt, "SortKey").Values(keys...))
				}
				gi = append(gi, jen.Id("LengthColumn").Op(":").Lit(g.LengthColumn), jen.Id("CharLengthColumn").Op(":").Lit(g.CharLengthColumn),
					jen.Id("SeparatorLengthColumn").Op(":").Lit(g.SeparatorLengthColumn), jen.Id("MaxLengthColumn").Op(":").Lit(g.MaxLengthColumn))
				items = append(items, jen.Id("CountColumn").Op(":").Lit(a.CountColumn), jen.Id("GroupConcat").Op(":").Op("&").Qual(rt, "GroupConcatSpec").Values(gi...))
			}
			if len(a.ArgColumns) > 0 {
				// e.g.: ArgColumns: []int{5, 6}
				cols := make([]jen.Code, len(a.ArgColumns))
				for i, c := range a.ArgColumns {
					cols[i] = jen.Lit(c)
				}
				items = append(items, jen.Id("ArgColumns").Op(":").Index().Int().Values(cols...))
			}
			if a.Scale != 0 {
				items = append(items, jen.Id("Scale").Op(":").Lit(a.Scale))
			}
			aggs[i] = jen.Values(items...)
		}
		fields = append(fields, jen.Id("Aggregates").Op(":").Index().Qual(rt, "AggregateSpec").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, aggs...).Op(","))
	}
	if m.Distinct {
		fields = append(fields, jen.Id("Distinct").Op(":").True().Op(","))
	}
	limit := func(name string, v runtime.LimitValue) {
		switch {
		case v == runtime.NoLimit && name == "Count":
			// e.g.: Count: shardrt.NoLimit,
			fields = append(fields, jen.Id(name).Op(":").Qual(rt, "NoLimit").Op(","))
		case v.Param:
			// e.g.: Offset: shardrt.LimitValue{Value: 2, Param: true}, // arg
			fields = append(fields, jen.Id(name).Op(":").Qual(rt, "LimitValue").Values(
				jen.Id("Value").Op(":").Lit(int(v.Value)), jen.Id("Param").Op(":").True(),
			).Op(",").Comment(paramText(g, q, int(v.Value))))
		case v != runtime.LimitValue{} || name == "Count": // a zero Count is LIMIT 0
			// e.g.: Count: shardrt.LimitValue{Value: 10},
			fields = append(fields, jen.Id(name).Op(":").Qual(rt, "LimitValue").Values(jen.Id("Value").Op(":").Lit(int(v.Value))).Op(","))
		}
	}
	limit("Offset", m.Offset)
	limit("Count", m.Count)
	if m.StreamGroup {
		fields = append(fields, jen.Id("StreamGroup").Op(":").True().Op(","))
	}
	if m.FirstColumn > 0 {
		// e.g.: FirstColumn: 4,
		fields = append(fields, jen.Id("FirstColumn").Op(":").Lit(m.FirstColumn).Op(","))
	}
	if len(m.Computed) > 0 {
		// e.g.: Computed: []shardrt.ComputedColumn{{Column: 1, Expr: shardrt.Expr{Op: shardrt.ExprDiv, Args: ...}}},
		cs := make([]jen.Code, len(m.Computed))
		for i, c := range m.Computed {
			cs[i] = jen.Values(jen.Id("Column").Op(":").Lit(c.Column), jen.Id("Expr").Op(":").Add(exprLit(c.Expr)))
		}
		fields = append(fields, jen.Id("Computed").Op(":").Index().Qual(rt, "ComputedColumn").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, cs...).Op(","))
	}
	if m.Having != nil {
		// e.g.: Having: &shardrt.Expr{Op: shardrt.ExprGT, Args: []shardrt.Expr{{Op: shardrt.ExprColumn, Column: 3}, ...}},
		fields = append(fields, jen.Id("Having").Op(":").Op("&").Add(exprLit(*m.Having)).Op(","))
	}
	cols := "Every data node returns the " + strconv.Itoa(m.Visible) + " result columns."
	if d := m.Columns - m.Visible; d > 0 {
		cols = "Every data node returns the " + strconv.Itoa(m.Visible) + " result columns, then " + strconv.Itoa(d) + " the rewrite derived (AVG's SUM and COUNT, ORDER BY and GROUP BY items not selected, WEIGHT_STRING sort keys of text), which the merge drops."
	}
	f.Add(doc(q.mergeVar+" says how "+q.p.Name+" merges the rows of its data nodes into the result",
		"one unsharded MySQL would return ("+mergeWhat(m)+").", cols))
	f.Var().Id(q.mergeVar).Op("=").Qual(rt, "MergeSpec").Custom(jen.Options{Open: "{", Close: "}", Multi: true}, fields...)
	f.Line()
	return nil
}

// exprLit spells a merge expression as a Go composite literal, e.g.
//
//	shardrt.Expr{Op: shardrt.ExprDiv, Args: []shardrt.Expr{{Op: shardrt.ExprColumn, Column: 3}, {Op: shardrt.ExprColumn, Column: 4}}}
func exprLit(e runtime.Expr) *jen.Statement {
	return jen.Qual(rt, "Expr").Values(exprFields(e)...)
}

// exprFields are the set fields of e.
func exprFields(e runtime.Expr) []jen.Code {
	items := []jen.Code{jen.Id("Op").Op(":").Qual(rt, "Expr"+e.Op.String())}
	if e.Op == runtime.ExprColumn {
		items = append(items, jen.Id("Column").Op(":").Lit(e.Column))
	}
	if e.Op == runtime.ExprParam {
		items = append(items, jen.Id("Param").Op(":").Lit(e.Param))
	}
	if e.Value != "" {
		items = append(items, jen.Id("Value").Op(":").Lit(e.Value))
	}
	if e.Type != 0 {
		items = append(items, jen.Id("Type").Op(":").Qual(rt, "Column"+e.Type.String()))
	}
	if e.Collation != runtime.CollationNone {
		items = append(items, jen.Id("Collation").Op(":").Qual(rt, collationNames[e.Collation]))
	}
	if e.Scale != 0 {
		items = append(items, jen.Id("Scale").Op(":").Lit(e.Scale))
	}
	if e.Pad != 0 {
		items = append(items, jen.Id("Pad").Op(":").Lit(e.Pad))
	}
	if len(e.Args) > 0 {
		args := make([]jen.Code, len(e.Args))
		for i, a := range e.Args {
			args[i] = jen.Values(exprFields(a)...)
		}
		items = append(items, jen.Id("Args").Op(":").Index().Qual(rt, "Expr").Values(args...))
	}
	return items
}

// paramText returns how q's method spells parameter i, e.g. "offset" or
// "arg.Offset".
func paramText(g *generator, q *query, i int) string {
	fc, _ := g.newFnCtx(q, func(_ *fnCtx, err jen.Code) jen.Code { return err })
	return jen.Add(fc.params[i]).GoString()
}

// mergeWhat lists what a merge spec does, e.g. "ORDER BY, LIMIT".
func mergeWhat(m *runtime.MergeSpec) string {
	var parts []string
	if len(m.GroupBy) > 0 {
		parts = append(parts, "GROUP BY")
	}
	if len(m.Aggregates) > 0 {
		names := make([]string, 0, len(m.Aggregates))
		for _, a := range m.Aggregates {
			n := strings.ToUpper(a.Func.String())
			if d, ok := strings.CutSuffix(n, "DISTINCT"); ok {
				n = d + "(DISTINCT)"
			}
			names = append(names, n)
		}
		parts = append(parts, "aggregates "+strings.Join(names, ", "))
	}
	if len(m.Computed) > 0 {
		parts = append(parts, "expressions over the merged aggregates")
	}
	if m.Having != nil {
		parts = append(parts, "HAVING")
	}
	if m.Distinct {
		parts = append(parts, "DISTINCT")
	}
	if len(m.OrderBy) > 0 {
		parts = append(parts, "ORDER BY")
	}
	if m.Count != runtime.NoLimit || m.Offset != (runtime.LimitValue{}) {
		parts = append(parts, "LIMIT")
	}
	if len(parts) == 0 {
		return "rows concatenated"
	}
	return strings.Join(parts, ", ")
}

// emitInsertSplit emits the package-level InsertSplit of a multi-row
// INSERT.
func (g *generator) emitInsertSplit(f *jen.File, q *query) {
	s := &q.p.Insert.Split
	r := q.p.Route
	// e.g.:
	//	// addOrdersInsert builds the per-data-node statements of AddOrders: ...
	//	var addOrdersInsert = shardrt.InsertSplit{
	//		Heads: []string{
	//			"INSERT INTO t_order_0 (user_id, status, order_id) VALUES ", // ds_0.t_order_0
	//			...
	//		},
	//		Rows: []string{"(?, ?, ?)", "(?, ?, ?)"},
	//		Sep:  ", ",
	//		Tails: []string{"", ...},
	//	}
	heads := make([]jen.Code, len(s.Heads))
	for i, h := range s.Heads {
		heads[i] = jen.Lit(h).Op(",").Comment(r.Units[i].Node)
	}
	rows := make([]jen.Code, len(s.Rows))
	for i, row := range s.Rows {
		rows[i] = jen.Lit(row)
	}
	tails := make([]jen.Code, len(s.Tails))
	same := true
	for i, t := range s.Tails {
		tails[i] = jen.Lit(t)
		same = same && t == s.Tails[0]
	}
	tailCode := jen.Index().String().Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, tails...)
	if same {
		tailCode = jen.Index().String().Values(tails...)
	}
	f.Add(doc(q.insertVar+" builds the statements of "+q.p.Name+": every data node of "+r.LogicTable+" that receives rows",
		"gets one INSERT of its own rows, in their order. Heads and Tails are per data node, in the order of "+q.unitsVar+"."))
	f.Var().Id(q.insertVar).Op("=").Qual(rt, "InsertSplit").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true},
		jen.Id("Heads").Op(":").Index().String().Custom(jen.Options{Open: "{", Close: "}", Multi: true}, heads...),
		jen.Id("Rows").Op(":").Index().String().Values(rows...),
		jen.Id("Sep").Op(":").Lit(s.Sep),
		jen.Id("Tails").Op(":").Add(tailCode),
	)
	f.Line()
}

// mergedRead emits the statements of a merged :one or :many after the
// route: the per-node arguments, QueryMerged, and the typed rows.
func (g *generator) mergedRead(fc *fnCtx, rc *routeCode) []jen.Code {
	q := fc.q
	p := q.p
	m := p.Merge
	units := rc.units
	switch {
	case units != nil:
	case q.route.shape == shapeFixed:
		// e.g.: topOrdersUnits[:]
		units = jen.Id(q.unitsVar).Index(jen.Op(":"))
	default:
		// e.g.: []shardrt.RouteUnit{topOrdersUnits[ds*4+t]}
		units = jen.Index().Qual(rt, "RouteUnit").Values(rc.unit)
	}
	// The per-node arguments: Plan.NodeArgs when set (a LIMIT offset+count
	// computed here, encrypted values), else Plan.Args.
	pre := g.nodeArgStatements(fc)
	args := fc.argSlice()
	// The values LIMIT parameters index: every parameter, in Params order.
	var mergeArgs jen.Code = jen.Nil()
	if m.UsesArgs() {
		mergeArgs = jen.Index().Any().Values(fc.params...)
	}
	scan := func() *jen.Statement {
		return jen.Qual(rt, "ScanCells").Call(append([]jen.Code{jen.Id("row")}, q.scanDests()...)...)
	}
	errNil := func() jen.Code { return jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))) }
	out := append(pre,
		// e.g.:
		//	merged, err := shardrt.QueryMerged(ctx, q.ex, &topOrdersStmt, units, []any{userID, userID_2, shardrt.LimitSum(arg, arg2)}, &topOrdersMerge, []any{userID, userID_2, arg, arg2})
		//	if err != nil {
		//		return nil, err
		//	}
		jen.List(jen.Id("merged"), jen.Id("err")).Op(fc.define("merged", "err")).Qual(rt, "QueryMerged").Call(
			jen.Id("ctx"), fc.executor(), jen.Op("&").Id(q.stmtVar), units, args, jen.Op("&").Id(q.mergeVar), mergeArgs),
		errNil(),
		// defer merged.Close() // releases the units' open results when we stop early
		jen.Defer().Id("merged").Dot("Close").Call(),
	)
	if p.Cmd == schema.CmdOne {
		// e.g.:
		//	row, err := merged.Next()
		//	if err == io.EOF {
		//		return CountOrdersRow{}, sql.ErrNoRows
		//	}
		//	if err != nil {
		//		return CountOrdersRow{}, err
		//	}
		//	var r CountOrdersRow
		//	err = shardrt.ScanCells(row, &r.Orders)
		//	return r, shardrt.WrapQuery("CountOrders (queries/orders.sql:40)", err)
		out = append(out,
			jen.List(jen.Id("row"), jen.Id("err")).Op(fc.define("row", "err")).Id("merged").Dot("Next").Call(),
			jen.If(jen.Id("err").Op("==").Qual("io", "EOF")).Block(fc.ret(jen.Qual("database/sql", "ErrNoRows"))),
			errNil(),
			jen.Var().Id("r").Add(q.rowCode()),
		)
		if dec := g.decryptStatements(fc); len(dec) > 0 {
			// e.g.:
			//	if err := shardrt.ScanCells(row, &r.Name); err != nil {
			//		return FirstUserRow{}, err
			//	}
			//	if err := shardrt.DecryptString(q.encAes, "name", &r.Name); err != nil {
			//		return FirstUserRow{}, err
			//	}
			//	return r, nil
			out = append(out, jen.If(jen.Id("err").Op(":=").Add(scan()), jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))))
			return append(append(out, dec...), jen.Return(jen.Id("r"), jen.Nil()))
		}
		return append(out,
			jen.Id("err").Op("=").Add(scan()),
			jen.Return(jen.Id("r"), fc.wrap(jen.Id("err"))),
		)
	}
	// e.g.:
	//	var out []TopOrdersRow
	//	for {
	//		row, err := merged.Next()
	//		if err == io.EOF {
	//			return out, nil
	//		}
	//		if err != nil {
	//			return nil, err
	//		}
	//		var r TopOrdersRow
	//		if err := shardrt.ScanCells(row, &r.OrderID, &r.Status, &r.Amount); err != nil {
	//			return nil, err
	//		}
	//		out = append(out, r)
	//	}
	return append(out,
		jen.Var().Id("out").Index().Add(q.rowCode()),
		jen.For().Block(append(append([]jen.Code{
			jen.List(jen.Id("row"), jen.Id("err")).Op(":=").Id("merged").Dot("Next").Call(),
			jen.If(jen.Id("err").Op("==").Qual("io", "EOF")).Block(jen.Return(jen.Id("out"), jen.Nil())),
			errNil(),
			jen.Var().Id("r").Add(q.rowCode()),
			jen.If(jen.Id("err").Op(":=").Add(scan()), jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
		}, g.decryptStatements(fc)...),
			jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("r")),
		)...),
	)
}

// limitCode returns a LIMIT value as an int64 expression: the literal, or
// the parameter (converted when it is not an int64).
func limitCode(fc *fnCtx, v runtime.LimitValue) jen.Code {
	if !v.Param {
		return jen.Lit(int(v.Value))
	}
	if t := fc.q.p.Params[v.Value].Type; t.Pkg == "" && t.Name == "int64" {
		return fc.params[v.Value]
	}
	return jen.Int64().Call(fc.params[v.Value])
}

// insertUnits emits the statements of a multi-row INSERT after the rows'
// data nodes are known: the per-row and tail arguments and the split.
func (g *generator) insertUnits(fc *fnCtx, rc *routeCode) []jen.Code {
	q := fc.q
	ins := q.p.Insert
	// e.g.:
	//	units, err := addOrdersInsert.Units(addOrdersUnits[:], rowNodes[:], [][]any{
	//		{userID, status, orderID},
	//		{userID_2, status_2, orderID_2},
	//	}, nil)
	//	if err != nil {
	//		return nil, err
	//	}
	// An encrypted table's rows take the per-node values (nodeVals: the
	// cipher, assisted query and like query values, encrypted above).
	arg := func(a int) jen.Code { return fc.params[a] }
	if ins.ByNodeArgs {
		arg = func(a int) jen.Code { return fc.nodeVals[a] }
	}
	rows := make([]jen.Code, len(ins.RowArgs))
	for r, idx := range ins.RowArgs {
		vals := make([]jen.Code, len(idx))
		for i, a := range idx {
			vals[i] = arg(a)
		}
		rows[r] = jen.Values(vals...)
	}
	var tail jen.Code = jen.Nil()
	if len(ins.TailArgs) > 0 {
		vals := make([]jen.Code, len(ins.TailArgs))
		for i, a := range ins.TailArgs {
			vals[i] = arg(a)
		}
		tail = jen.Index().Any().Values(vals...)
	}
	return []jen.Code{
		jen.List(jen.Id("units"), jen.Id("err")).Op(fc.define("units", "err")).Id(q.insertVar).Dot("Units").Call(
			jen.Id(q.unitsVar).Index(jen.Op(":")), rc.rowNodes,
			jen.Index().Index().Any().Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, rows...),
			tail,
		),
		jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
	}
}
