package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/runtime"
)

// planCopyFrom plans a :copyfrom query, a bulk INSERT: its one VALUES row
// (Plan.Insert.Split.Rows[0]) is repeated per row of the slice; on a
// sharded table each row finds its data node as a single-row INSERT does
// (rows[0]), into a single table every row goes to its one unit, into a
// broadcast table every row goes to every copy.
func (g *generator) planCopyFrom(q *query) error {
	r, ins, rp := q.p.Route, q.p.Insert, &q.route
	switch {
	case ins == nil || len(ins.Split.Rows) != 1 || len(ins.RowArgs) != 1:
		return fmt.Errorf(":copyfrom needs the split of one INSERT row")
	case len(ins.TailArgs) > 0:
		return fmt.Errorf(":copyfrom with arguments after the row")
	case len(ins.Split.Heads) != len(r.Units) || len(ins.Split.Tails) != len(r.Units):
		return fmt.Errorf(":copyfrom split has %d heads and %d tails for %d data nodes", len(ins.Split.Heads), len(ins.Split.Tails), len(r.Units))
	}
	rp.shape = shapeInsert
	for i := range r.Units {
		rp.emitted = append(rp.emitted, i)
	}
	switch r.Kind {
	case runtime.RouteBroadcast: // every row to every copy
		return nil
	case runtime.RouteSingleTable:
		if len(r.Units) != 1 {
			return fmt.Errorf(":copyfrom into single table %q with %d units", r.LogicTable, len(r.Units))
		}
		return nil
	case runtime.RouteSingleNode, runtime.RouteMultiNode:
		if len(r.Conditions) != 1 {
			return fmt.Errorf(":copyfrom row has %d sharding conditions", len(r.Conditions))
		}
	default:
		return fmt.Errorf(":copyfrom with a %s route", r.Kind)
	}
	t, err := g.table(q)
	if err != nil {
		return err
	}
	rp.table = t
	nr, err := g.planNode(q, r.Conditions[0], 0)
	if err != nil {
		return err
	}
	if nr.shape == shapeRouteAll {
		if err := g.useRouter(t); err != nil {
			return err
		}
	}
	rp.rows = []nodeRoute{nr}
	return nil
}

// emitCopyFrom emits the method of a :copyfrom query, e.g.:
//
//	func (q *Queries) CopyOrders(ctx context.Context, arg []CopyOrdersParams) (int64, error) {
//		if len(arg) == 0 {
//			return 0, nil
//		}
//		rowNodes := make([]int, len(arg))
//		rowArgs := make([][]any, len(arg))
//		for i, row := range arg {
//			ds := shardrt.Mod(row.UserID, 2)
//			rowNodes[i] = ds
//			rowArgs[i] = []any{row.OrderID, row.UserID, row.Status}
//		}
//		units, err := copyOrdersInsert.Batches(copyOrdersUnits[:], rowNodes, rowArgs)
//		if err != nil {
//			return 0, shardrt.WrapQuery("CopyOrders (queries/orders.sql:7)", err)
//		}
//		n, err := shardrt.ExecUnits(ctx, q.ex, &copyOrdersStmt, units, nil)
//		return n, shardrt.WrapQuery("CopyOrders (queries/orders.sql:7)", err)
//	}
//
// with the key generated and the values encrypted per row in the loop.
func (g *generator) emitCopyFrom(f *jen.File, q *query, fc *fnCtx, sig, results []jen.Code) error {
	p := q.p
	ins := p.Insert
	body := []jen.Code{jen.If(jen.Len(jen.Id("arg")).Op("==").Lit(0)).Block(jen.Return(jen.Lit(0), jen.Nil()))}
	var keyStmts []jen.Code
	if q.key != nil {
		all := g.keyStatements(fc)
		body = append(body, all[:2]...) // the generator, once
		keyStmts = all[2:]              // the row's key
	}
	broadcast := p.Route.Kind == runtime.RouteBroadcast
	var rowNodes jen.Code = jen.Nil() // broadcast: every row to every copy
	if !broadcast {
		rowNodes = jen.Id("rowNodes")
		body = append(body, jen.Id("rowNodes").Op(":=").Make(jen.Index().Int(), jen.Len(jen.Id("arg"))))
	}
	body = append(body, jen.Id("rowArgs").Op(":=").Make(jen.Index().Index().Any(), jen.Len(jen.Id("arg"))))
	loop := keyStmts
	if len(q.route.rows) == 1 {
		stmts, idx, err := g.nodeIndex(fc, &q.route.rows[0])
		if err != nil {
			return err
		}
		loop = append(append(loop, stmts...), jen.Id("rowNodes").Index(jen.Id("i")).Op("=").Add(idx))
	}
	loop = append(loop, g.nodeArgStatements(fc)...)
	arg := func(a int) jen.Code { return fc.params[a] }
	if ins.ByNodeArgs {
		arg = func(a int) jen.Code { return fc.nodeVals[a] }
	}
	vals := make([]jen.Code, len(ins.RowArgs[0]))
	for i, a := range ins.RowArgs[0] {
		vals[i] = arg(a)
	}
	loop = append(loop, jen.Id("rowArgs").Index(jen.Id("i")).Op("=").Index().Any().Values(vals...))
	// e.g.:
	//	n, err := shardrt.ExecUnits(ctx, q.ex, &copyOrdersStmt, units, nil)
	//	return n, shardrt.WrapQuery("CopyOrders (queries/orders.sql:7)", err)
	// or, into a broadcast table, shardrt.ExecBroadcastUnits(ctx, q.ex, &copyDictStmt, units).
	exec := jen.Qual(rt, "ExecUnits").Call(jen.Id("ctx"), fc.executor(), jen.Op("&").Id(q.stmtVar), jen.Id("units"), jen.Nil())
	if broadcast {
		exec = jen.Qual(rt, "ExecBroadcastUnits").Call(jen.Id("ctx"), fc.executor(), jen.Op("&").Id(q.stmtVar), jen.Id("units"))
	}
	body = append(body,
		jen.For(jen.List(jen.Id("i"), jen.Id("row")).Op(":=").Range().Id("arg")).Block(loop...),
		jen.List(jen.Id("units"), jen.Err()).Op(fc.define("units", "err")).Id(q.insertVar).Dot("Batches").Call(
			jen.Id(q.unitsVar).Index(jen.Op(":")), rowNodes, jen.Id("rowArgs")),
		jen.If(jen.Err().Op("!=").Nil()).Block(fc.fail(jen.Err())),
		jen.List(jen.Id("n"), jen.Err()).Op(fc.define("n", "err")).Add(exec),
		jen.Return(jen.Id("n"), fc.wrap(jen.Err())),
	)
	what := "Each row goes to its own data node; every data node gets its rows"
	switch {
	case broadcast:
		what = "Every row goes to every copy of broadcast table " + p.Route.LogicTable + "; each data source gets the rows"
	case len(q.route.rows) == 0:
		what = "Every row goes to " + p.Route.Units[0].Node + "; every data node gets its rows"
	}
	done := "all or nothing across data nodes (shardrt.ExecUnits)."
	if broadcast {
		done = "in one transaction per data source, all or nothing across the copies, and the rows inserted into one copy are returned (shardrt.ExecBroadcastUnits)."
	}
	route := []string{
		"",
		routeDoc(q),
		what + " as multi-row INSERTs of at most shardrt.BulkMaxRows rows and shardrt.BulkMaxBytes bytes (InsertSplit.Batches), " + done,
	}
	if len(p.Doc) > 0 {
		f.Add(comments(p.Doc...)).Line().Add(doc(route...))
	} else {
		f.Add(doc(append([]string{p.Name + " inserts the rows of arg in bulk (the :copyfrom query at " + p.Source + ") and returns how many rows it inserted."}, route...)...))
	}
	q.methods = append(q.methods, jen.Id(p.Name).Params(sig...).Params(results...))
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(p.Name).Params(sig...).Params(results...).Block(body...)
	f.Line()
	return nil
}
