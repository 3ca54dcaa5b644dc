package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// paramType returns the Go type of a parameter in the method's signature:
// []T for sqlc.slice(name).
func paramType(prm *plan.Param) jen.Code {
	t, _ := typeCode(prm.Type)
	if prm.Slice {
		return jen.Index().Add(t)
	}
	return t
}

// checkSlice checks the Plan.Slice of p against its route and arguments.
func checkSlice(p *plan.Plan) error {
	s := p.Slice
	n := len(p.Args)
	if p.NodeArgs != nil {
		n = len(p.NodeArgs)
	}
	switch {
	case s.Param < 0 || s.Param >= len(p.Params) || !p.Params[s.Param].Slice:
		return fmt.Errorf("sqlc.slice refers to parameter %d, which is not a slice", s.Param)
	case s.Arg < 0 || s.Arg >= n:
		return fmt.Errorf("sqlc.slice refers to per-node argument %d of %d", s.Arg, n)
	case len(s.At) != len(p.Route.Units):
		return fmt.Errorf("sqlc.slice has %d offsets for %d route units", len(s.At), len(p.Route.Units))
	case p.Insert != nil || p.KeyGenerate != nil || p.Route.Update != nil:
		return fmt.Errorf("sqlc.slice in an INSERT or an UPDATE of sharding columns")
	}
	return nil
}

// emitSliceAt emits where each unit's SQL holds the `?` of the sqlc.slice
// list, e.g.:
//
//	// listOrdersSliceAt is the byte offset, in the SQL of each of
//	// listOrdersUnits, of the `?` that sqlc.slice(user_ids) expands.
//	var listOrdersSliceAt = [...]int{52, 52}
func (g *generator) emitSliceAt(f *jen.File, q *query) {
	s := q.p.Slice
	at := make([]jen.Code, len(q.route.emitted))
	for i, u := range q.route.emitted {
		at[i] = jen.Lit(s.At[u])
	}
	f.Add(doc(q.sliceAtVar + " is the byte offset, in the SQL of each of " + q.unitsVar + ", of the `?` that sqlc.slice(" + sliceName(q) + ") expands to one `?` per value."))
	f.Var().Id(q.sliceAtVar).Op("=").Index(jen.Op("...")).Int().Values(at...)
	f.Line()
}

// sliceName is the query file's name of q's sqlc.slice: the parameter's
// name, as snake case.
func sliceName(q *query) string { return snakeName(q.p.Params[q.p.Slice.Param].Name) }

// sliceStatements emits the body of a method with a sqlc.slice parameter up
// to its units: an empty slice returns at once, each value goes to the
// data nodes it routes to (every unit of the route when the slice is not
// on a sharding column), and Sources.SliceUnits builds one statement per
// data node with only its values, e.g. for a slice on the sharding column:
//
//	if len(userIDs) == 0 {
//		return nil, nil
//	}
//	var vals [2][]any
//	for _, v := range userIDs {
//		ds := shardrt.Mod(v, 2)
//		vals[ds] = append(vals[ds], v)
//	}
//	units, err := q.src.SliceUnits(listOrdersUnits[:], listOrdersSliceAt[:], vals[:], nil, nil)
//	if err != nil {
//		return nil, err
//	}
//
// and on another column, its values (encrypted for an encrypted column)
// given to every unit of the route:
//
//	list := make([]any, len(phones))
//	for i, v := range phones {
//		list[i] = q.encMd5.EncryptText(v)
//	}
//	vals[ds] = list
func (g *generator) sliceStatements(fc *fnCtx) (*routeCode, error) {
	q := fc.q
	p := q.p
	s := p.Slice
	rp := &q.route
	slice := fc.params[s.Param]
	rc := &routeCode{}
	var out []jen.Code
	if !s.EmptyRow {
		out = append(out, jen.If(jen.Len(slice).Op("==").Lit(0)).Block(emptyReturn(fc)))
	}
	vals := fc.scope.add("vals")
	v := fc.scope.add("v")
	// Loop variables shadow nothing the loops use: only parameters may
	// take their names.
	loopVar := func(name string) string {
		for _, prm := range p.Params {
			if prm.Name == name && q.paramsType == "" {
				return fc.scope.add(name)
			}
		}
		return name
	}
	out = append(out, jen.Var().Id(vals).Index(jen.Lit(len(rp.emitted))).Index().Any())
	if s.Routing {
		fc.params[s.Param] = jen.Id(v)
		var body []jen.Code
		if nr := rp.sliceNode; nr != nil {
			stmts, idx, err := g.nodeIndex(fc, nr)
			if err != nil {
				return nil, err
			}
			body = append(stmts, jen.Id(vals).Index(idx).Op("=").Append(jen.Id(vals).Index(idx), jen.Id(v)))
		} else {
			// e.g.:
			//	nodes, err := q.tOrder.RouteConditions(..., v ...)
			//	if err != nil {
			//		return nil, err
			//	}
			//	for _, n := range nodes {
			//		vals[n] = append(vals[n], v)
			//	}
			pre, call, err := g.routeAllCall(fc, p.Route.Conditions)
			if err != nil {
				return nil, err
			}
			node := loopVar("n")
			body = append(pre,
				jen.List(jen.Id("nodes"), jen.Err()).Op(":=").Add(call),
				jen.If(jen.Err().Op("!=").Nil()).Block(fc.fail(jen.Err())),
				jen.For(jen.List(jen.Id("_"), jen.Id(node)).Op(":=").Range().Id("nodes")).Block(
					jen.Id(vals).Index(jen.Id(node)).Op("=").Append(jen.Id(vals).Index(jen.Id(node)), jen.Id(v)),
				),
			)
		}
		fc.params[s.Param] = slice
		out = append(out, jen.For(jen.List(jen.Id("_"), jen.Id(v)).Op(":=").Range().Add(slice)).Block(body...))
		if s.EmptyRow {
			// An aggregate over no rows is still a row: any data node
			// answers IN (NULL), e.g.
			//	if len(userIDs) == 0 {
			//		vals[0] = []any{}
			//	}
			out = append(out, jen.If(jen.Len(slice).Op("==").Lit(0)).Block(jen.Id(vals).Index(jen.Lit(0)).Op("=").Index().Any().Values()))
		}
		out = append(out, g.nodeArgStatements(fc)...)
	} else {
		route, err := g.sliceRouteNodes(fc, vals, loopVar)
		if err != nil {
			return nil, err
		}
		out = append(out, g.nodeArgStatements(fc)...)
		list := fc.scope.add("list")
		i := loopVar("i")
		elem := jen.Id(v)
		var pre []jen.Code
		if p.NodeArgs != nil {
			if enc := p.NodeArgs[s.Arg].Encrypt; enc != "" {
				e := jen.Id("q").Dot(g.encBy[enc].field)
				if isString(p.Params[s.Param].Type) {
					elem = e.Dot("EncryptText").Call(jen.Id(v))
				} else {
					x := fc.temp()
					pre = []jen.Code{
						jen.List(jen.Id(x), jen.Err()).Op(":=").Add(e).Dot("Encrypt").Call(jen.Id(v)),
						jen.If(jen.Err().Op("!=").Nil()).Block(fc.fail(jen.Err())),
					}
					elem = jen.Id(x)
				}
			}
		}
		out = append(out,
			jen.Id(list).Op(":=").Make(jen.Index().Any(), jen.Len(slice)),
			jen.For(jen.List(jen.Id(i), jen.Id(v)).Op(":=").Range().Add(slice)).Block(append(pre, jen.Id(list).Index(jen.Id(i)).Op("=").Add(elem))...),
		)
		out = append(out, route(jen.Id(list))...)
	}
	args := fc.args()
	part := func(a []jen.Code) jen.Code {
		if len(a) == 0 {
			return jen.Nil()
		}
		return jen.Index().Any().Values(a...)
	}
	out = append(out,
		jen.List(jen.Id("units"), jen.Err()).Op(fc.define("units", "err")).Id("q").Dot("src").Dot("SliceUnits").Call(
			jen.Id(q.unitsVar).Index(jen.Op(":")), jen.Id(q.sliceAtVar).Index(jen.Op(":")), jen.Id(vals).Index(jen.Op(":")),
			part(args[:s.Arg]), part(args[s.Arg+1:])),
		jen.If(jen.Err().Op("!=").Nil()).Block(fc.fail(jen.Err())),
	)
	rc.stmts, rc.units = out, jen.Id("units")
	return rc, nil
}

// sliceRouteNodes emits the route of a query whose sqlc.slice is not on a
// sharding column, computed from its other conditions, and returns a
// function that emits the statements giving the value list to every data
// node reached, e.g. vals[ds] = list.
func (g *generator) sliceRouteNodes(fc *fnCtx, vals string, loopVar func(string) string) (func(list jen.Code) []jen.Code, error) {
	q := fc.q
	rp := &q.route
	switch rp.shape {
	case shapeFixed, shapeBroadcastWrite:
		if len(rp.emitted) == 1 {
			return func(list jen.Code) []jen.Code {
				return []jen.Code{jen.Id(vals).Index(jen.Lit(0)).Op("=").Add(list)}
			}, nil
		}
		// e.g.:
		//	for n := range vals {
		//		vals[n] = list
		//	}
		return func(list jen.Code) []jen.Code {
			n := loopVar("n")
			return []jen.Code{jen.For(jen.Id(n).Op(":=").Range().Id(vals)).Block(jen.Id(vals).Index(jen.Id(n)).Op("=").Add(list))}
		}, nil
	case shapeInline, shapePrecise:
		stmts, idx, err := g.nodeIndex(fc, &rp.node)
		if err != nil {
			return nil, err
		}
		return func(list jen.Code) []jen.Code {
			return append(stmts, jen.Id(vals).Index(idx).Op("=").Add(list))
		}, nil
	case shapeRouteAll:
		pre, call, err := g.routeAllCall(fc, q.p.Route.Conditions)
		if err != nil {
			return nil, err
		}
		// e.g.:
		//	nodes, err := q.tOrder.RouteConditions(...)
		//	if err != nil {
		//		return nil, err
		//	}
		//	for _, n := range nodes {
		//		vals[n] = list
		//	}
		return func(list jen.Code) []jen.Code {
			n := loopVar("n")
			return append(pre,
				jen.List(jen.Id("nodes"), jen.Err()).Op(fc.define("nodes", "err")).Add(call),
				jen.If(jen.Err().Op("!=").Nil()).Block(fc.fail(jen.Err())),
				jen.For(jen.List(jen.Id("_"), jen.Id(n)).Op(":=").Range().Id("nodes")).Block(jen.Id(vals).Index(jen.Id(n)).Op("=").Add(list)),
			)
		}, nil
	}
	return nil, fmt.Errorf("sqlc.slice with route shape %d", rp.shape)
}

// emptyReturn returns the statement a method runs for an empty sqlc.slice:
// what the statement gives when no row matches.
func emptyReturn(fc *fnCtx) jen.Code {
	switch fc.q.p.Cmd {
	case schema.CmdOne:
		return fc.ret(jen.Qual("database/sql", "ErrNoRows"))
	case schema.CmdExecResult:
		return jen.Return(jen.Qual(rt, "NewResult").Call(jen.Lit(0), jen.Lit(0)), jen.Nil())
	}
	return fc.ret(jen.Nil())
}
