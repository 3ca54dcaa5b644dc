package templates

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// analyzeSteps prepares a query evaluated in steps across data nodes
// (plan.Plan.Steps): a shardrt.Steps variable, the row type, no route
// unit table of its own.
func (g *generator) analyzeSteps(q *query, base, owner string) error {
	p := q.p
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	write := p.Steps.Bind != nil && p.Steps.Bind.Write
	switch {
	case write && p.Cmd != schema.CmdExec && p.Cmd != schema.CmdExecRows:
		add(fmt.Errorf("a %s write evaluated in steps; only :exec and :execrows are", p.Cmd))
	case !write && p.Cmd != schema.CmdOne && p.Cmd != schema.CmdMany:
		add(fmt.Errorf("a %s query evaluated in steps; only :one and :many SELECTs are", p.Cmd))
	}
	for _, prm := range p.Params {
		if prm.Slice || prm.Generated {
			add(fmt.Errorf("parameter %s: sqlc.slice and generated keys are not evaluated in steps", prm.Name))
		}
	}
	q.stepsVar = base + "Steps"
	add(g.declare(q.stepsVar, owner))
	for _, r := range p.StepRoutes {
		t, err := g.routeTable(r, p.Source)
		if err != nil {
			add(fmt.Errorf("a step's route: %w", err))
			continue
		}
		add(g.useRouter(t))
		if !slices.Contains(g.stepTables, t) {
			if len(g.stepTables) == 0 {
				add(g.declareMember("stepTable", "the routers of the steps' run-time routes"))
			}
			i, _ := slices.BinarySearchFunc(g.stepTables, t.name, func(a *logicTable, n string) int { return strings.Compare(a.name, n) })
			g.stepTables = slices.Insert(g.stepTables, i, t)
		}
	}
	if len(q.visible()) > g.parameterLimit() {
		q.paramsType = p.Name + "Params"
		add(g.declare(q.paramsType, owner))
	}
	if write {
		return errors.Join(errs...)
	}
	if len(p.Columns) == 0 {
		add(errors.New("a SELECT without result columns"))
	}
	for _, c := range p.Columns {
		if _, err := typeCode(c.Type); err != nil {
			add(fmt.Errorf("column %s: %w", c.Name, err))
		}
		if c.Decrypt != "" || c.Embed != "" {
			add(fmt.Errorf("column %s: encrypted and sqlc.embed columns are not evaluated in steps", c.Name))
		}
	}
	q.scalar = len(p.Columns) == 1
	if !q.scalar {
		q.rowType = p.Name + "Row"
		add(g.declare(q.rowType, owner))
	}
	return errors.Join(errs...)
}

// emitSteps emits the shardrt.Steps of q and its method, e.g.:
//
//	// ordersWithUsersSteps are the steps of OrdersWithUsers ...
//	var ordersWithUsersSteps = shardrt.Steps{Join: &shardrt.JoinStep{...}}
//
//	func (q *Queries) OrdersWithUsers(ctx context.Context) ([]OrdersWithUsersRow, error) {
//		rows, err := q.src.RunSteps(ctx, q.ex, &ordersWithUsersSteps)
//		if err != nil {
//			return nil, err
//		}
//		out := make([]OrdersWithUsersRow, len(rows))
//		for i, row := range rows {
//			if err := shardrt.ScanValues(row, &out[i].OrderID, &out[i].Name); err != nil {
//				return nil, err
//			}
//		}
//		return out, nil
//	}
func (g *generator) emitSteps(f *jen.File, q *query) error {
	p := q.p
	lit, err := g.stepsLit(reflect.ValueOf(*p.Steps), p.Route.DataSources)
	if err != nil {
		return fmt.Errorf("steps: %w", err)
	}
	if p.Steps.Bind != nil && p.Steps.Bind.Write {
		return g.emitWriteSteps(f, q, lit)
	}
	what := "a UNION"
	switch {
	case p.Steps.Bind != nil && (p.Steps.Bind.Op != runtime.BindIn || len(p.Steps.Bind.Then) > 0):
		what = "its subqueries, run first, whose rows are bound into the statement as values (IN lists, flags, a scalar subquery's value)"
	case p.Steps.Bind != nil:
		what = "its IN (SELECT …) subquery, whose values are bound as the statement's IN list"
	case p.Steps.Join != nil:
		what = "a join: the outer side's rows, then the inner side's for each batch of their key values, bound as its IN list (nested loop), or once whole, hashed by the join key (hash join, see shardrt.JoinStrategy)"
	}
	f.Add(doc(q.stepsVar + " are the steps of " + p.Name + " (" + p.Source + "), evaluated across data nodes as " + what +
		". Every statement's route units were chosen at generate time; the IN list is the only SQL built at run time. DataSource indexes dataSourceNames."))
	f.Var().Id(q.stepsVar).Op("=").Add(lit)
	f.Line()

	if !q.scalar {
		var fields []jen.Code
		for _, c := range p.Columns {
			t, _ := typeCode(c.Type)
			fields = append(fields, jen.Id(c.Field).Add(t).Add(g.jsonTag(columnTag(p.Columns, c))))
		}
		f.Add(doc(q.rowType + " is one row of " + p.Name + "."))
		f.Type().Id(q.rowType).Struct(fields...)
		f.Line()
	}

	// dests are where a row goes: &r.A, &r.B, … (&r for one column).
	dests := func(r jen.Code) []jen.Code {
		if q.scalar {
			return []jen.Code{jen.Id("row"), jen.Op("&").Add(r)}
		}
		out := []jen.Code{jen.Id("row")}
		for _, c := range p.Columns {
			out = append(out, jen.Op("&").Add(r).Dot(c.Field))
		}
		return out
	}
	g.emitParamsType(f, q)
	fc, sig := g.newFnCtx(q, func(_ *fnCtx, err jen.Code) jen.Code { return err })
	run := jen.List(jen.Id("rows"), jen.Id("err")).Op(":=").Id("q").Dot("src").Dot("RunSteps").Call(
		append([]jen.Code{jen.Id("ctx"), jen.Id("q").Dot("ex"), jen.Op("&").Id(q.stepsVar)}, fc.args()...)...)
	if len(p.StepRoutes) > 0 {
		// A step narrows its route units by the parameters' values, e.g.:
		//	rows, err := q.src.RunStepsWith(ctx, q.ex, &ordersOfUserSteps, &shardrt.StepsOptions{Tables: q.stepTable}, userID)
		opts := jen.Op("&").Qual(rt, "StepsOptions").Values(jen.Id("Tables").Op(":").Id("q").Dot("stepTable"))
		run = jen.List(jen.Id("rows"), jen.Id("err")).Op(":=").Id("q").Dot("src").Dot("RunStepsWith").Call(
			append([]jen.Code{jen.Id("ctx"), jen.Id("q").Dot("ex"), jen.Op("&").Id(q.stepsVar), opts}, fc.args()...)...)
	}
	var results, body []jen.Code
	route := "It is evaluated in steps across data nodes (" + q.stepsVar + "); a step holding more rows than the props' max-cross-node-rows fails with an error wrapping shardrt.ErrCrossNodeRows."
	if p.Cmd == schema.CmdOne {
		results = []jen.Code{q.rowCode(), jen.Error()}
		body = []jen.Code{
			run,
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(q.rowZero(), fc.wrap(jen.Id("err")))),
			jen.If(jen.Len(jen.Id("rows")).Op("==").Lit(0)).Block(jen.Return(q.rowZero(), jen.Qual("database/sql", "ErrNoRows"))),
			jen.Var().Id("r").Add(q.rowCode()),
			jen.Id("row").Op(":=").Id("rows").Index(jen.Lit(0)),
			jen.Id("err").Op("=").Qual(rt, "ScanValues").Call(dests(jen.Id("r"))...),
			jen.Return(jen.Id("r"), fc.wrap(jen.Id("err"))),
		}
		route += " The first row is returned; sql.ErrNoRows when there is none."
	} else {
		results = []jen.Code{jen.Index().Add(q.rowCode()), jen.Error()}
		body = []jen.Code{
			run,
			jen.If(jen.Id("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), fc.wrap(jen.Id("err")))),
		}
		if !g.in.Emit.EmptySlices {
			// nil when no row matches, as the other :many methods (and
			// sqlc) return it; make's empty slice with emit_empty_slices.
			body = append(body, jen.If(jen.Len(jen.Id("rows")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())))
		}
		body = append(body,
			jen.Id("out").Op(":=").Make(jen.Index().Add(q.rowCode()), jen.Len(jen.Id("rows"))),
			jen.For(jen.List(jen.Id("i"), jen.Id("row")).Op(":=").Range().Id("rows")).Block(
				jen.If(jen.Id("err").Op(":=").Qual(rt, "ScanValues").Call(dests(jen.Id("out").Index(jen.Id("i")))...), jen.Id("err").Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), fc.wrap(jen.Id("err"))),
				),
			),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
	}
	emitStepsMethod(f, q, route, sig, results, body)
	return nil
}

// emitWriteSteps emits the shardrt.Steps (lit) of q, an UPDATE or DELETE
// with ORDER BY … LIMIT over several data nodes, and its method, e.g.:
//
//	// closeFirstOrdersSteps are the steps of CloseFirstOrders ...
//	var closeFirstOrdersSteps = shardrt.Steps{Bind: &shardrt.BindStep{..., Write: true}}
//
//	func (q *Queries) CloseFirstOrders(ctx context.Context, status string) (int64, error) {
//		n, err := q.src.ExecSteps(ctx, q.ex, &closeFirstOrdersSteps, nil, status)
//		return n, shardrt.WrapQuery("CloseFirstOrders (queries/steps.sql:290)", err)
//	}
func (g *generator) emitWriteSteps(f *jen.File, q *query, lit jen.Code) error {
	p := q.p
	f.Add(doc(q.stepsVar + " are the steps of " + p.Name + " (" + p.Source + "), " + map[bool]string{true: "an UPDATE", false: "a DELETE"}[p.Statement.String() == "update"] +
		" with ORDER BY … LIMIT over several data nodes: the keys of the rows one MySQL would change are selected in its order across data nodes (merged), then the rows with those keys are written, as one all-or-nothing write. Every statement's route units were chosen at generate time; the IN list of keys is the only SQL built at run time. DataSource indexes dataSourceNames."))
	f.Var().Id(q.stepsVar).Op("=").Add(lit)
	f.Line()
	g.emitParamsType(f, q)
	fc, sig := g.newFnCtx(q, func(_ *fnCtx, err jen.Code) jen.Code { return err })
	opts := jen.Code(jen.Nil())
	if len(p.StepRoutes) > 0 {
		opts = jen.Op("&").Qual(rt, "StepsOptions").Values(jen.Id("Tables").Op(":").Id("q").Dot("stepTable"))
	}
	call := jen.Id("q").Dot("src").Dot("ExecSteps").Call(
		append([]jen.Code{jen.Id("ctx"), jen.Id("q").Dot("ex"), jen.Op("&").Id(q.stepsVar), opts}, fc.args()...)...)
	route := "It is evaluated in steps across data nodes (" + q.stepsVar + "): the keys of the rows are read on the write data sources; a step holding more rows than the props' max-cross-node-rows fails with an error wrapping shardrt.ErrCrossNodeRows."
	var results, body []jen.Code
	if p.Cmd == schema.CmdExecRows {
		results = []jen.Code{jen.Int64(), jen.Error()}
		body = []jen.Code{
			jen.List(jen.Id("n"), jen.Id("err")).Op(":=").Add(call),
			jen.Return(jen.Id("n"), fc.wrap(jen.Id("err"))),
		}
		route += " It returns the rows affected."
	} else {
		results = []jen.Code{jen.Error()}
		body = []jen.Code{
			jen.List(jen.Id("_"), jen.Id("err")).Op(":=").Add(call),
			jen.Return(fc.wrap(jen.Id("err"))),
		}
	}
	emitStepsMethod(f, q, route, sig, results, body)
	return nil
}

// emitStepsMethod emits the method of q, a query evaluated in steps, with
// its doc comment (the query's own, else one naming it) ending in route.
func emitStepsMethod(f *jen.File, q *query, route string, sig, results, body []jen.Code) {
	p := q.p
	if len(p.Doc) > 0 {
		f.Add(comments(p.Doc...)).Line().Add(doc("", route))
	} else {
		f.Add(doc(p.Name+" runs the "+p.Cmd.String()+" query at "+p.Source+".", "", route))
	}
	q.methods = append(q.methods, jen.Id(p.Name).Params(sig...).Params(results...))
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(p.Name).Params(sig...).Params(results...).Block(body...)
	f.Line()
}

// stepsLit spells a value of the runtime's steps types as a Go composite
// literal: zero fields left out, enums by their constant names, unit data
// sources remapped from the plan's (dataSources) to dataSourceNames.
func (g *generator) stepsLit(v reflect.Value, dataSources []string) (jen.Code, error) {
	var walk func(v reflect.Value, elided bool) (jen.Code, error)
	walk = func(v reflect.Value, elided bool) (jen.Code, error) {
		t := v.Type()
		switch v := v.Interface().(type) {
		case runtime.ColumnType:
			return jen.Qual(rt, "Column"+v.String()), nil
		case runtime.Collation:
			name, ok := collationNames[v]
			if !ok {
				return nil, fmt.Errorf("collation %s cannot be spelled", v)
			}
			return jen.Qual(rt, name), nil
		case runtime.BindOp:
			names := [...]string{"BindIn", "BindNotIn", "BindExists", "BindScalar"}
			if int(v) >= len(names) {
				return nil, fmt.Errorf("bind op %d", v)
			}
			return jen.Qual(rt, names[v]), nil
		case runtime.JoinMergeOp:
			names := [...]string{"JoinValue", "JoinOne", "JoinNotNull", "JoinNull"}
			if int(v) >= len(names) {
				return nil, fmt.Errorf("join merge op %d", v)
			}
			return jen.Qual(rt, names[v]), nil
		case runtime.CompareOp:
			names := [...]string{"CompareEq", "CompareNe", "CompareLt", "CompareLe", "CompareGt", "CompareGe"}
			if int(v) >= len(names) {
				return nil, fmt.Errorf("compare op %d", v)
			}
			return jen.Qual(rt, names[v]), nil
		case runtime.AggFunc:
			return jen.Qual(rt, "Agg"+v.String()), nil
		case runtime.ColumnClass:
			return jen.Qual(rt, "Class"+v.String()), nil
		case runtime.ValueKind:
			return jen.Qual(rt, "Kind"+v.String()), nil
		case runtime.LimitValue:
			if v == runtime.NoLimit {
				return jen.Qual(rt, "NoLimit"), nil
			}
		case runtime.RouteUnit:
			// e.g.: {DataSource: 1, SQL: "select … from g50_user where …"},
			if v.DataSource >= len(dataSources) {
				return nil, fmt.Errorf("unit data source %d of %d", v.DataSource, len(dataSources))
			}
			return jen.Values(jen.Id("DataSource").Op(":").Lit(g.dsIndex[dataSources[v.DataSource]]), jen.Id("SQL").Op(":").Lit(v.SQL)), nil
		}
		switch t.Kind() {
		case reflect.Pointer:
			lit, err := walk(v.Elem(), false)
			return jen.Op("&").Add(lit), err
		case reflect.Struct:
			var fields []jen.Code
			nested := false
			for i := range t.NumField() {
				fv := v.Field(i)
				if !t.Field(i).IsExported() || fv.IsZero() {
					continue
				}
				lit, err := walk(fv, false)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", t.Field(i).Name, err)
				}
				fields = append(fields, jen.Id(t.Field(i).Name).Op(":").Add(lit).Op(","))
				nested = nested || fv.Kind() == reflect.Pointer
			}
			body := jen.Custom(jen.Options{Open: "{", Close: "}", Multi: len(fields) > 2 || nested}, fields...)
			if elided {
				return body, nil
			}
			if t.PkgPath() != reflect.TypeOf(runtime.Steps{}).PkgPath() {
				return nil, fmt.Errorf("type %s is not the runtime's", t)
			}
			return jen.Qual(rt, t.Name()).Add(body), nil
		case reflect.Slice:
			items := make([]jen.Code, v.Len())
			et := t.Elem()
			for i := range items {
				lit, err := walk(v.Index(i), et.Kind() == reflect.Struct)
				if err != nil {
					return nil, err
				}
				items[i] = lit
			}
			var typ jen.Code
			switch {
			case et.Kind() == reflect.Int:
				typ = jen.Int()
			case et.Kind() == reflect.Pointer && et.Elem().PkgPath() == reflect.TypeOf(runtime.Steps{}).PkgPath():
				typ = jen.Op("*").Qual(rt, et.Elem().Name())
			case et.PkgPath() == reflect.TypeOf(runtime.Steps{}).PkgPath():
				typ = jen.Qual(rt, et.Name())
			default:
				return nil, fmt.Errorf("slice of %s", et)
			}
			multi := et.Kind() == reflect.Struct || et.Kind() == reflect.Pointer
			return jen.Index().Add(typ).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: multi && v.Len() > 0}, items...), nil
		case reflect.Bool:
			return jen.Lit(v.Bool()), nil
		case reflect.String:
			return jen.Lit(v.String()), nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if t.PkgPath() != "" && t.Name() != "" {
				return jen.Qual(rt, t.Name()).Call(jen.Lit(int(v.Int()))), nil
			}
			return jen.Lit(int(v.Int())), nil
		case reflect.Uint8, reflect.Uint16, reflect.Uint32:
			if t.PkgPath() != "" && t.Name() != "" {
				return jen.Qual(rt, t.Name()).Call(jen.Lit(int(v.Uint()))), nil
			}
			return jen.Lit(int(v.Uint())), nil
		}
		return nil, fmt.Errorf("value of type %s", strings.TrimPrefix(t.String(), "runtime."))
	}
	return walk(v, false)
}
