package templates

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// queryFiles emits one file per query file, e.g. orders.sql.go.
func (g *generator) queryFiles() ([]outFile, error) {
	var out []outFile
	var errs []error
	for _, qf := range g.files {
		f := g.newFile(qf.name)
		for _, q := range qf.queries {
			errs = append(errs, about(q, g.emitQuery(f, q))...)
		}
		out = append(out, outFile{name: qf.out, f: f})
	}
	return out, errors.Join(errs...)
}

// emitQuery emits everything of one query: its Stmt, its route unit table,
// its Params and Row types, its method (and iterator) and its scan function.
func (g *generator) emitQuery(f *jen.File, q *query) error {
	p := q.p
	if q.stepsVar != "" {
		return g.emitSteps(f, q)
	}
	// e.g.:
	//	// getOrderStmt is the logic statement of GetOrder (queries/orders.sql:1:1).
	//	var getOrderStmt = shardrt.Stmt{Name: "GetOrder", LogicSQL: "SELECT * FROM t_order WHERE order_id = ?"}
	f.Add(doc(q.stmtVar + " is the logic statement of " + p.Name + " (" + p.Source + ")."))
	f.Var().Id(q.stmtVar).Op("=").Qual(rt, "Stmt").Values(
		jen.Id("Name").Op(":").Lit(p.Name),
		jen.Id("LogicSQL").Op(":").Lit(p.LogicSQL),
	)
	f.Line()
	g.emitUnits(f, q)
	if q.sliceAtVar != "" {
		g.emitSliceAt(f, q)
	}
	if q.mergeVar != "" {
		if err := g.emitMergeSpec(f, q); err != nil {
			return err
		}
	}
	if q.insertVar != "" {
		g.emitInsertSplit(f, q)
	}
	g.emitParamsType(f, q)
	if q.isRead() && q.model == nil && !q.scalar {
		// e.g.:
		//	// ListOrdersRow is one row of ListOrders.
		//	type ListOrdersRow struct {
		//		OrderID int64
		//		Status  sql.NullString
		//	}
		var fields []jen.Code
		for i, c := range p.Columns {
			if c.Embed != "" {
				// e.g. (sqlc.embed(t_order)): TOrder TOrder
				if i == 0 || p.Columns[i-1].Embed != c.Embed {
					m := q.embeds[strings.ToLower(c.Embed)]
					fields = append(fields, jen.Id(m.name).Id(m.name).Add(g.jsonTag(m.table)))
				}
				continue
			}
			t, _ := typeCode(c.Type)
			fields = append(fields, jen.Id(c.Field).Add(t).Add(g.jsonTag(columnTag(p.Columns, c))))
		}
		f.Add(doc(q.rowType + " is one row of " + p.Name + "."))
		f.Type().Id(q.rowType).Struct(fields...)
		f.Line()
	}
	if err := g.emitMethod(f, q); err != nil {
		return err
	}
	if q.iterMethod != "" {
		if err := g.emitIter(f, q); err != nil {
			return err
		}
	}
	if q.scanFunc != "" && q.model == nil {
		// e.g.:
		//	// scanListOrdersRow scans one row of ListOrders.
		//	func scanListOrdersRow(rows *sql.Rows) (ListOrdersRow, error) {
		//		var r ListOrdersRow
		//		err := rows.Scan(&r.OrderID, &r.Status)
		//		return r, err
		//	}
		//
		// or, for one column (q.scalar):
		//	// scanListStatuses scans one row of ListStatuses.
		//	func scanListStatuses(rows *sql.Rows) (string, error) {
		//		var r string
		//		err := rows.Scan(&r)
		//		return r, err
		//	}
		f.Add(doc(q.scanFunc + " scans one row of " + p.Name + "."))
		f.Add(scanFunc(q.scanFunc, q.rowCode(), q.scanDests()))
		f.Line()
	}
	return nil
}

// scanFunc returns a function that scans one *sql.Rows row of type typ
// into r through dests.
func scanFunc(name string, typ jen.Code, dests []jen.Code) jen.Code {
	return jen.Func().Id(name).Params(jen.Id("rows").Op("*").Qual("database/sql", "Rows")).Params(typ, jen.Error()).Block(
		jen.Var().Id("r").Add(typ),
		jen.Id("err").Op(":=").Id("rows").Dot("Scan").Call(dests...),
		jen.Return(jen.Id("r"), jen.Id("err")),
	)
}

// scanDests returns where a row r of q is scanned to: &r.A, &r.B, ... for
// a struct, &r for one column.
func (q *query) scanDests() []jen.Code {
	if q.scalar {
		return []jen.Code{jen.Op("&").Id("r")}
	}
	out := make([]string, len(q.p.Columns))
	for i, c := range q.p.Columns {
		out[i] = q.fieldPath(c)
	}
	return fieldDests(out)
}

// fieldDests returns &r.A, &r.B, ...
func fieldDests(fields []string) []jen.Code {
	out := make([]jen.Code, len(fields))
	for i, f := range fields {
		out[i] = jen.Op("&").Id("r").Dot(f)
	}
	return out
}

// emitUnits emits the route unit table of q: one entry per candidate unit,
// its SQL precomputed and its data source remapped to dataSourceNames.
func (g *generator) emitUnits(f *jen.File, q *query) {
	r := q.p.Route
	// e.g.:
	//	// getOrderUnits are the route units of GetOrder, one per data node of t_order.
	//	var getOrderUnits = [...]shardrt.RouteUnit{
	//		{DataSource: 0, SQL: "SELECT * FROM t_order_0 WHERE order_id = ?"}, // ds_0.t_order_0
	//		{DataSource: 1, SQL: "SELECT * FROM t_order_1 WHERE order_id = ?"}, // ds_1.t_order_1
	//	}
	//
	// A multi-row INSERT's units carry only the data source: its SQL is
	// built by the InsertSplit, e.g.:
	//	{DataSource: 0}, // ds_0.t_order_0
	items := make([]jen.Code, len(q.route.emitted))
	for i, u := range q.route.emitted {
		unit := r.Units[u]
		fields := []jen.Code{jen.Id("DataSource").Op(":").Lit(g.dsIndex[r.DataSources[unit.DataSource]])}
		if q.insertVar == "" {
			fields = append(fields, jen.Id("SQL").Op(":").Lit(unit.SQL))
		}
		items[i] = jen.Values(fields...).Op(",").Comment(unit.Node)
	}
	what := "its data nodes"
	switch {
	case q.insertVar != "":
		what = "one per data node of " + r.LogicTable + " in data node order; " + q.insertVar + " builds their SQL"
	case q.route.shape == shapeInline || q.route.shape == shapePrecise || q.route.shape == shapeRouteAll:
		what = "one per data node of " + r.LogicTable + " in data node order"
	case len(items) == 1:
		what = "its one route unit"
	case q.route.shape == shapeBroadcastWrite:
		what = "one per data source of broadcast table " + r.LogicTable
	}
	f.Add(doc(q.unitsVar + " are the route units of " + q.p.Name + ": " + what + ". DataSource indexes dataSourceNames."))
	f.Var().Id(q.unitsVar).Op("=").Index(jen.Op("...")).Qual(rt, "RouteUnit").Custom(jen.Options{Open: "{", Close: "}", Multi: true}, items...)
	f.Line()
}

// newFnCtx prepares the body of q's method: parameter names that cannot
// shadow anything the body uses, and their value expressions.
func (g *generator) newFnCtx(q *query, fail func(*fnCtx, jen.Code) jen.Code) (*fnCtx, []jen.Code) {
	fc := &fnCtx{q: q, scope: nameSet{}, declared: map[string]bool{}, params: make([]jen.Code, len(q.p.Params))}
	for n := range predeclared {
		fc.scope[n] = true
	}
	for _, n := range locals {
		fc.scope[n] = true
	}
	if q.paramsType == "" {
		delete(fc.scope, "arg") // the name of the Params struct argument only
	}
	for n := range g.names {
		fc.scope[n] = true
	}
	for _, prm := range q.p.Params {
		if prm.Type.Pkg != "" {
			fc.scope[path.Base(prm.Type.Pkg)] = true
		}
	}
	for _, c := range q.p.Columns {
		if c.Type.Pkg != "" {
			fc.scope[path.Base(c.Type.Pkg)] = true
		}
	}
	fc.fail = func(err jen.Code) jen.Code { return fail(fc, fc.wrap(err)) }
	fc.ret = func(err jen.Code) jen.Code { return fail(fc, err) }
	sig := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	switch {
	case q.p.Cmd == schema.CmdCopyFrom:
		sig = append(sig, jen.Id("arg").Index().Id(q.paramsType)) // the rows
	case q.paramsType != "":
		sig = append(sig, jen.Id("arg").Id(q.paramsType))
	}
	for i, prm := range q.p.Params {
		t := paramType(prm)
		switch {
		case prm.Generated:
			fc.params[i] = jen.Id(fc.scope.add(prm.Name))
		case q.p.Cmd == schema.CmdCopyFrom:
			fc.params[i] = jen.Id("row").Dot(fieldName(prm.Name)) // a field of the row being routed
		case q.paramsType != "":
			fc.params[i] = jen.Id("arg").Dot(fieldName(prm.Name))
		default:
			name := fc.scope.add(prm.Name)
			fc.params[i] = jen.Id(name)
			sig = append(sig, jen.Id(name).Add(t))
		}
	}
	return fc, sig
}

// args returns the per-node SQL's arguments: the per-node values
// nodeArgStatements computed when the plan has NodeArgs, else the
// parameters in Plan.Args order.
func (fc *fnCtx) args() []jen.Code {
	if fc.hasNodeVals {
		return fc.nodeVals
	}
	out := make([]jen.Code, len(fc.q.p.Args))
	for i, a := range fc.q.p.Args {
		out[i] = fc.params[a]
	}
	return out
}

// argSlice returns []any{...} of the arguments, or nil when there are none
// or the units carry their own (a sqlc.slice query).
func (fc *fnCtx) argSlice() jen.Code {
	args := fc.args()
	if len(args) == 0 || fc.q.p.Slice != nil {
		return jen.Nil()
	}
	return jen.Index().Any().Values(args...)
}

// nodeArgStatements computes the per-node arguments of a plan with
// NodeArgs into fc (see args) and returns the statements that must run
// first: the encryption of a parameter that is not a string, whose
// Encryptor.Encrypt can fail. A string parameter is encrypted in place
// with EncryptText (no boxing, no error), a literal of the statement by
// the EncryptText of its Java text (the key is the run time's: literals are
// encrypted at run time, never at generate time), a LIMIT row count is
// shardrt.LimitSum(offset, count).
func (g *generator) nodeArgStatements(fc *fnCtx) []jen.Code {
	p := fc.q.p
	if p.NodeArgs == nil || fc.hasNodeVals {
		return nil
	}
	var out []jen.Code
	vals := make([]jen.Code, len(p.NodeArgs))
	seen := map[plan.NodeArg]jen.Code{}
	checked := map[plan.NodeArg]bool{}
	for i, a := range p.NodeArgs {
		if a.Store != nil && !(p.Slice != nil && i == p.Slice.Arg) {
			out = append(out, g.storeCheck(fc, a, checked)...)
		}
		a.Store = nil // the same encryption of a value, written or compared
		switch {
		case p.Slice != nil && i == p.Slice.Arg:
			// The slice's list: sliceStatements encrypts each value.
			vals[i] = jen.Nil()
		case a.LimitSum:
			// e.g.: shardrt.LimitSum(offset, 10)
			vals[i] = jen.Qual(rt, "LimitSum").Call(limitCode(fc, p.Merge.Offset), limitCode(fc, p.Merge.Count))
		case a.Literal != nil:
			// e.g.: q.encAes.EncryptText("hello")
			text, null, _ := runtime.JavaText(*a.Literal) // checked by checkEncryption
			if null {
				vals[i] = jen.Nil()
				continue
			}
			vals[i] = jen.Id("q").Dot(g.encBy[a.Encrypt].field).Dot("EncryptText").Call(jen.Lit(text))
		case a.Encrypt == "":
			vals[i] = fc.params[a.Param]
		case isString(p.Params[a.Param].Type):
			// e.g.: q.encAes.EncryptText(name)
			vals[i] = jen.Id("q").Dot(g.encBy[a.Encrypt].field).Dot("EncryptText").Call(fc.params[a.Param])
		default:
			if v, ok := seen[a]; ok {
				vals[i] = v
				continue
			}
			// e.g.:
			//	v0, err := q.encMD5.Encrypt(phone)
			//	if err != nil {
			//		return nil, err
			//	}
			v := fc.temp()
			out = append(out,
				jen.List(jen.Id(v), jen.Id("err")).Op(fc.define(v, "err")).Id("q").Dot(g.encBy[a.Encrypt].field).Dot("Encrypt").Call(fc.params[a.Param]),
				jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
			)
			vals[i] = jen.Id(v)
			seen[a] = vals[i]
		}
	}
	fc.nodeVals, fc.hasNodeVals = vals, true
	return out
}

// storeCheck returns the statement that fails the call, before anything
// runs, when the value of a (an argument with a Store) holds a character
// the encrypted column's character set lacks, as MySQL's default strict
// sql_mode fails it with error 1366 (once per value and row), e.g.:
//
//	if err := (shardrt.TextColumn{Table: "users", Column: "phone", Charset: "latin1", Row: 1}).Check(phone); err != nil {
//		return nil, err
//	}
func (g *generator) storeCheck(fc *fnCtx, a plan.NodeArg, checked map[plan.NodeArg]bool) []jen.Code {
	st := *a.Store
	// One check per value of a column in a row, not per derived column.
	k := plan.NodeArg{Param: a.Param, Literal: a.Literal, Encrypt: strconv.Itoa(st.Row) + "/" + st.Column}
	if checked[k] {
		return nil
	}
	checked[k] = true
	var val jen.Code
	if a.Literal != nil {
		text, null, _ := runtime.JavaText(*a.Literal)
		if null {
			return nil
		}
		val = jen.Lit(text)
	} else {
		val = fc.params[a.Param]
	}
	col := jen.Qual(rt, "TextColumn").Values(jen.Dict{
		jen.Id("Table"): jen.Lit(st.Table), jen.Id("Column"): jen.Lit(st.Column),
		jen.Id("Charset"): jen.Lit(st.Charset), jen.Id("Row"): jen.Lit(st.Row),
	})
	return []jen.Code{jen.If(
		jen.Id("err").Op(":=").Parens(col).Dot("Check").Call(val),
		jen.Id("err").Op("!=").Nil(),
	).Block(fc.fail(jen.Id("err")))}
}

// decryptStatements returns the statements that decrypt, in the row r
// (a struct or a pointer to one), every result column read from a cipher
// column (Column.Decrypt), e.g.:
//
//	if err := shardrt.DecryptNullString(q.encAes, "phone", &r.Phone); err != nil {
//		return nil, err
//	}
func (g *generator) decryptStatements(fc *fnCtx) []jen.Code {
	var out []jen.Code
	for _, c := range fc.q.p.Columns {
		if c.Decrypt == "" {
			continue
		}
		fn, dest, val := "DecryptString", jen.Op("&").Id("r").Dot(fc.q.fieldPath(c)), jen.Id("r").Dot(fc.q.fieldPath(c))
		switch {
		case fc.q.scalar && fc.rowPtr:
			// r := &rows[i] of a one-column row, e.g. *string.
			dest, val = jen.Id("r"), jen.Op("*").Id("r")
		case fc.q.scalar:
			dest, val = jen.Op("&").Id("r"), jen.Id("r")
		}
		switch {
		case isNullString(c.Type):
			fn = "DecryptNullString"
		case isStringPointer(c.Type):
			// e.g.:
			//	if r.Phone != nil {
			//		if err := shardrt.DecryptString(q.encAes, "phone", r.Phone); err != nil {
			//			return nil, err
			//		}
			//	}
			dest = val
			out = append(out, jen.If(jen.Add(dest).Op("!=").Nil()).Block(jen.If(
				jen.Id("err").Op(":=").Qual(rt, fn).Call(jen.Id("q").Dot(g.encBy[c.Decrypt].field), jen.Lit(c.Name), dest),
				jen.Id("err").Op("!=").Nil(),
			).Block(fc.fail(jen.Id("err")))))
			continue
		}
		out = append(out, jen.If(
			jen.Id("err").Op(":=").Qual(rt, fn).Call(jen.Id("q").Dot(g.encBy[c.Decrypt].field), jen.Lit(c.Name), dest),
			jen.Id("err").Op("!=").Nil(),
		).Block(fc.fail(jen.Id("err"))))
	}
	return out
}

// emitMethod emits the method of q on *Queries.
func (g *generator) emitMethod(f *jen.File, q *query) error {
	p := q.p
	var results []jen.Code
	var zero jen.Code // the zero value of the first result
	switch p.Cmd {
	case schema.CmdOne:
		results, zero = []jen.Code{q.rowCode(), jen.Error()}, q.rowZero()
	case schema.CmdMany:
		results, zero = []jen.Code{jen.Index().Add(q.rowCode()), jen.Error()}, jen.Nil()
	case schema.CmdExec:
		results = []jen.Code{jen.Error()}
	case schema.CmdExecRows:
		results, zero = []jen.Code{jen.Int64(), jen.Error()}, jen.Lit(0)
	case schema.CmdExecResult:
		results, zero = []jen.Code{jen.Qual("database/sql", "Result"), jen.Error()}, jen.Nil()
	case schema.CmdCopyFrom:
		results, zero = []jen.Code{jen.Int64(), jen.Error()}, jen.Lit(0)
	default:
		return fmt.Errorf("unknown command %d", p.Cmd)
	}
	fc, sig := g.newFnCtx(q, func(_ *fnCtx, err jen.Code) jen.Code {
		if zero == nil {
			return jen.Return(err)
		}
		return jen.Return(zero, err)
	})
	if p.Cmd == schema.CmdMany && g.in.Emit.EmptySlices {
		fc.resultRows = fc.scope.add("items")
		fc.declared["err"] = true // a named result
	}
	if p.Cmd == schema.CmdCopyFrom {
		return g.emitCopyFrom(f, q, fc, sig, results)
	}
	var body []jen.Code
	if q.key != nil {
		body = append(body, g.keyStatements(fc)...)
	}
	var rc *routeCode
	var err error
	if p.Slice != nil {
		rc, err = g.sliceStatements(fc)
	} else {
		rc, err = g.routeStatements(fc)
		if rc != nil {
			rc.stmts = append(rc.stmts, g.nodeArgStatements(fc)...)
		}
	}
	if err != nil {
		return err
	}
	body = append(body, rc.stmts...)
	exec, err := g.execStatements(fc, rc)
	if err != nil {
		return err
	}
	body = append(body, exec...)

	route := []string{"", routeDoc(q)}
	switch {
	case q.route.shape == shapeBroadcastWrite:
		route = append(route, "It runs on every data source, all or nothing (shardrt.ExecBroadcast: a failure on one leaves every copy as it was), and reports the first data source's result (one copy of the table, as one unsharded MySQL would).")
	case p.Merge != nil && p.Cmd == schema.CmdOne:
		route = append(route, "The rows of its data nodes are merged as "+q.mergeVar+" says, and the first merged row is returned; sql.ErrNoRows when there is none.")
	case p.Merge != nil:
		route = append(route, "The rows of its data nodes are merged as "+q.mergeVar+" says.")
	case q.insertVar != "":
		s := "Each row goes to its own data node; every data node that receives rows runs one INSERT of them, and the affected rows are summed."
		if lastInsertID(q) != nil {
			s += " LastInsertId is the first row's generated key."
		}
		route = append(route, s)
	case p.Cmd == schema.CmdOne && !q.route.single():
		route = append(route, "When several data nodes return rows, the first row in data node order is returned; sql.ErrNoRows when none does.")
	}
	if len(p.Doc) > 0 {
		f.Add(comments(p.Doc...)).Line().Add(doc(route...))
	} else {
		f.Add(doc(append([]string{p.Name + " runs the " + p.Cmd.String() + " query at " + p.Source + "."}, route...)...))
	}
	q.methods = append(q.methods, jen.Id(p.Name).Params(sig...).Params(results...))
	if p.Cmd == schema.CmdMany && g.in.Emit.EmptySlices {
		body = emptySlices(fc, q, body)
		results = []jen.Code{jen.Id(fc.resultRows).Index().Add(q.rowCode()), jen.Id("err").Error()}
	}
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(p.Name).Params(sig...).Params(results...).Block(body...)
	f.Line()
	return nil
}

// keyStatements emits the generated keys' values, one per INSERT row in
// row order (the first row's key stays in key, for LastInsertId).
func (g *generator) keyStatements(fc *fnCtx) []jen.Code {
	q := fc.q
	// e.g.:
	//	gen, err := snowflakeKeyGenerator()
	//	if err != nil {
	//		return nil, err
	//	}
	//	key, err := gen.Generate()
	//	if err != nil {
	//		return nil, err
	//	}
	//	orderID := key.Int
	//
	// and for every further row of a multi-row INSERT, e.g.:
	//	key2, err := gen.Generate()
	//	if err != nil {
	//		return nil, err
	//	}
	//	orderID_2 := key2.Int
	out := []jen.Code{
		jen.List(jen.Id("gen"), jen.Id("err")).Op(fc.define("gen", "err")).Id(q.key.fn).Call(),
		jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
	}
	for r, pi := range q.p.KeyGenerate.Params {
		name := "key"
		if r > 0 {
			name = fc.scope.add("key" + strconv.Itoa(r+1))
		}
		prm := q.p.Params[pi]
		var v jen.Code
		switch {
		case q.key.typ == "UUID":
			v = jen.Id(name).Dot("Str")
		case prm.Type.Name == "int64":
			v = jen.Id(name).Dot("Int")
		default:
			v = jen.Id(prm.Type.Name).Call(jen.Id(name).Dot("Int"))
		}
		out = append(out,
			jen.List(jen.Id(name), jen.Id("err")).Op(fc.define(name, "err")).Id("gen").Dot("Generate").Call(),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
			jen.Add(fc.params[pi]).Op(":=").Add(v),
		)
	}
	return out
}

// lastInsertID is the LastInsertId of an :execresult with a generated
// SNOWFLAKE key; nil otherwise.
func lastInsertID(q *query) jen.Code {
	if q.key != nil && q.key.typ == "SNOWFLAKE" {
		return jen.Id("key").Dot("Int")
	}
	return nil
}

// execStatements emits the statements that run the unit(s) and return.
func (g *generator) execStatements(fc *fnCtx, rc *routeCode) ([]jen.Code, error) {
	q := fc.q
	p := q.p
	stmt := jen.Op("&").Id(q.stmtVar)
	errNil := func() jen.Code { return jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))) }
	call := func(method string) *jen.Statement {
		return fc.runner().Dot(method).Call(append([]jen.Code{jen.Id("ctx"), stmt.Clone(), rc.unit}, fc.args()...)...)
	}
	if q.route.shape == shapeBroadcastWrite {
		// All-or-nothing on every copy (runtime ExecBroadcast), e.g.:
		//	res, err := shardrt.ExecBroadcast(ctx, q.ex, &addDictStmt, addDictUnits[:], []any{id, name})
		//	if err != nil {
		//		return nil, err
		//	}
		//	return res, nil
		units := rc.units
		if units == nil {
			units = jen.Id(q.unitsVar).Index(jen.Op(":"))
		}
		call := jen.Qual(rt, "ExecBroadcast").Call(jen.Id("ctx"), fc.executor(), stmt.Clone(), units, fc.argSlice())
		if p.Cmd == schema.CmdExec {
			// e.g. (:exec, nothing to report):
			//	_, err := shardrt.ExecBroadcast(ctx, q.ex, &addDictStmt, addDictUnits[:], []any{id, name})
			//	return err
			return []jen.Code{
				jen.List(jen.Id("_"), jen.Id("err")).Op(":=").Add(call),
				jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
				jen.Return(jen.Nil()),
			}, nil
		}
		out := []jen.Code{
			jen.List(jen.Id("res"), jen.Id("err")).Op(":=").Add(call),
			jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
		}
		switch p.Cmd {
		case schema.CmdExecRows:
			out = append(out, jen.Return(jen.Id("res").Dot("RowsAffected").Call()))
		default:
			out = append(out, jen.Return(jen.Id("res"), jen.Nil()))
		}
		return out, nil
	}
	if p.Merge != nil {
		return g.mergedRead(fc, rc), nil
	}
	if rc.unit != nil {
		switch p.Cmd {
		case schema.CmdOne:
			// e.g.:
			//	var r TOrder
			//	err := q.run.QueryRow(ctx, &getOrderStmt, getOrderUnits[ds*4+t], userID, orderID).Scan(&r.OrderID, &r.UserID)
			//	return r, shardrt.WrapQuery("GetOrder (queries/orders.sql:11)", err)
			if dec := g.decryptStatements(fc); len(dec) > 0 {
				// e.g.:
				//	var r GetUserRow
				//	if err := q.run.QueryRow(ctx, &getUserStmt, getUserUnits[ds], userID).Scan(&r.UserID, &r.Phone); err != nil {
				//		return GetUserRow{}, err
				//	}
				//	if err := shardrt.DecryptNullString(q.encAes, "phone", &r.Phone); err != nil {
				//		return GetUserRow{}, err
				//	}
				//	return r, nil
				out := []jen.Code{
					jen.Var().Id("r").Add(q.rowCode()),
					jen.If(jen.Id("err").Op(":=").Add(call("QueryRow")).Dot("Scan").Call(q.scanDests()...), jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
				}
				return append(append(out, dec...), jen.Return(jen.Id("r"), jen.Nil())), nil
			}
			return []jen.Code{
				jen.Var().Id("r").Add(q.rowCode()),
				jen.Id("err").Op(fc.define("err")).Add(call("QueryRow")).Dot("Scan").Call(q.scanDests()...),
				jen.Return(jen.Id("r"), fc.wrap(jen.Id("err"))),
			}, nil
		case schema.CmdMany:
			// e.g.:
			//	rows, err := q.run.Query(ctx, &listOrdersStmt, listOrdersUnits[ds], userID)
			//	if err != nil {
			//		return nil, err
			//	}
			//	defer rows.Close()
			//	var out []ListOrdersRow
			//	for rows.Next() {
			//		var r ListOrdersRow
			//		if err := rows.Scan(&r.OrderID, &r.Status); err != nil {
			//			return nil, err
			//		}
			//		out = append(out, r)
			//	}
			//	if err := rows.Close(); err != nil {
			//		return nil, err
			//	}
			//	if err := rows.Err(); err != nil {
			//		return nil, err
			//	}
			//	return out, nil
			return []jen.Code{
				jen.List(jen.Id("rows"), jen.Id("err")).Op(fc.define("rows", "err")).Add(call("Query")),
				errNil(),
				jen.Defer().Id("rows").Dot("Close").Call(),
				jen.Var().Id("out").Index().Add(q.rowCode()),
				jen.For(jen.Id("rows").Dot("Next").Call()).Block(append(append([]jen.Code{
					jen.Var().Id("r").Add(q.rowCode()),
					jen.If(jen.Id("err").Op(":=").Id("rows").Dot("Scan").Call(q.scanDests()...), jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
				}, g.decryptStatements(fc)...),
					jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("r")),
				)...),
				jen.If(jen.Id("err").Op(":=").Id("rows").Dot("Close").Call(), jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
				jen.If(jen.Id("err").Op(":=").Id("rows").Dot("Err").Call(), jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
				jen.Return(jen.Id("out"), jen.Nil()),
			}, nil
		case schema.CmdExec:
			// e.g.:
			//	_, err := q.run.Exec(ctx, &deleteOrderStmt, deleteOrderUnits[ds*4+t], userID, orderID)
			//	return shardrt.WrapQuery("DeleteOrder (queries/orders.sql:30)", err)
			return []jen.Code{
				jen.List(jen.Id("_"), jen.Id("err")).Op(fc.define("_", "err")).Add(call("Exec")),
				jen.Return(fc.wrap(jen.Id("err"))),
			}, nil
		case schema.CmdExecRows:
			// e.g.:
			//	res, err := q.run.Exec(ctx, &updateOrderStmt, updateOrderUnits[ds*4+t], status, userID, orderID)
			//	if err != nil {
			//		return 0, err
			//	}
			//	return res.RowsAffected()
			return []jen.Code{
				jen.List(jen.Id("res"), jen.Id("err")).Op(fc.define("res", "err")).Add(call("Exec")),
				errNil(),
				jen.Return(jen.Id("res").Dot("RowsAffected").Call()),
			}, nil
		case schema.CmdExecResult:
			id := lastInsertID(q)
			if id == nil {
				// e.g.:
				//	res, err := q.run.Exec(ctx, &insertDictStmt, insertDictUnits[0], id, name)
				//	return res, shardrt.WrapQuery("InsertDict (queries/dict.sql:3)", err)
				return []jen.Code{
					jen.List(jen.Id("res"), jen.Id("err")).Op(fc.define("res", "err")).Add(call("Exec")),
					jen.Return(jen.Id("res"), fc.wrap(jen.Id("err"))),
				}, nil
			}
			// e.g.:
			//	res, err := q.run.Exec(ctx, &insertOrderStmt, insertOrderUnits[ds*4+t], userID, status, orderID)
			//	if err != nil {
			//		return nil, err
			//	}
			//	n, err := res.RowsAffected()
			//	if err != nil {
			//		return nil, err
			//	}
			//	return shardrt.NewResult(key.Int, n), nil
			return []jen.Code{
				jen.List(jen.Id("res"), jen.Id("err")).Op(fc.define("res", "err")).Add(call("Exec")),
				errNil(),
				jen.List(jen.Id("n"), jen.Id("err")).Op(fc.define("n", "err")).Id("res").Dot("RowsAffected").Call(),
				errNil(),
				jen.Return(jen.Qual(rt, "NewResult").Call(id, jen.Id("n")), jen.Nil()),
			}, nil
		}
	}
	query := func() *jen.Statement {
		return jen.Qual(rt, "QueryUnits").Call(jen.Id("ctx"), fc.executor(), stmt.Clone(), rc.units, fc.argSlice(), jen.Id(q.scanFunc))
	}
	execArgs := fc.argSlice()
	var pre []jen.Code
	if q.insertVar != "" {
		// The split units carry their own arguments.
		pre = g.insertUnits(fc, rc)
		rc.units, execArgs = jen.Id("units"), jen.Nil()
	}
	exec := func() *jen.Statement {
		return jen.Qual(rt, "ExecUnits").Call(jen.Id("ctx"), fc.executor(), stmt.Clone(), rc.units, execArgs)
	}
	out, err := g.multiStatements(fc, query, exec, errNil)
	return append(pre, out...), err
}

// multiStatements emits the statements that run the units of a multi-unit
// route and return: query and exec return the QueryUnits and ExecUnits
// calls.
func (g *generator) multiStatements(fc *fnCtx, query, exec func() *jen.Statement, errNil func() jen.Code) ([]jen.Code, error) {
	q := fc.q
	p := q.p
	switch p.Cmd {
	case schema.CmdOne:
		// e.g.:
		//	rows, err := shardrt.QueryUnits(ctx, q.ex, &findOrderStmt, units, []any{userID, userID_2}, scanTOrder)
		//	if err != nil {
		//		return TOrder{}, err
		//	}
		//	if len(rows) == 0 {
		//		return TOrder{}, sql.ErrNoRows
		//	}
		//	return rows[0], nil
		out := []jen.Code{
			jen.List(jen.Id("rows"), jen.Id("err")).Op(fc.define("rows", "err")).Add(query()),
			errNil(),
			jen.If(jen.Len(jen.Id("rows")).Op("==").Lit(0)).Block(fc.ret(jen.Qual("database/sql", "ErrNoRows"))),
		}
		if dec := g.decryptStatements(fc); len(dec) > 0 {
			// e.g.:
			//	r := rows[0]
			//	if err := shardrt.DecryptString(q.encAes, "name", &r.Name); err != nil {
			//		return FindUserRow{}, err
			//	}
			//	return r, nil
			out = append(out, jen.Id("r").Op(":=").Id("rows").Index(jen.Lit(0)))
			return append(append(out, dec...), jen.Return(jen.Id("r"), jen.Nil())), nil
		}
		return append(out, jen.Return(jen.Id("rows").Index(jen.Lit(0)), jen.Nil())), nil
	case schema.CmdMany:
		fc.rowPtr = true // r := &rows[i]
		dec := g.decryptStatements(fc)
		fc.rowPtr = false
		if len(dec) > 0 {
			// e.g.:
			//	rows, err := shardrt.QueryUnits(ctx, q.ex, &listUsersStmt, units, []any{userID, userID_2}, scanListUsersRow)
			//	if err != nil {
			//		return nil, err
			//	}
			//	for i := range rows {
			//		r := &rows[i]
			//		if err := shardrt.DecryptString(q.encAes, "name", &r.Name); err != nil {
			//			return nil, err
			//		}
			//	}
			//	return rows, nil
			return []jen.Code{
				jen.List(jen.Id("rows"), jen.Id("err")).Op(fc.define("rows", "err")).Add(query()),
				errNil(),
				jen.For(jen.Id("i").Op(":=").Range().Id("rows")).Block(append([]jen.Code{jen.Id("r").Op(":=").Op("&").Id("rows").Index(jen.Id("i"))}, dec...)...),
				jen.Return(jen.Id("rows"), jen.Nil()),
			}, nil
		}
		// e.g.:
		//	rows, err := shardrt.QueryUnits(ctx, q.ex, &listOrdersStmt, units, []any{userID, userID_2}, scanListOrdersRow)
		//	return rows, shardrt.WrapQuery("ListOrders (queries/orders.sql:20)", err)
		return []jen.Code{
			jen.List(jen.Id("rows"), jen.Id("err")).Op(fc.define("rows", "err")).Add(query()),
			jen.Return(jen.Id("rows"), fc.wrap(jen.Id("err"))),
		}, nil
	case schema.CmdExec:
		// e.g.:
		//	_, err := shardrt.ExecUnits(ctx, q.ex, &deleteOrdersStmt, units, []any{userID, userID_2})
		//	return shardrt.WrapQuery("DeleteOrders (queries/orders.sql:33)", err)
		return []jen.Code{
			jen.List(jen.Id("_"), jen.Id("err")).Op(fc.define("_", "err")).Add(exec()),
			jen.Return(fc.wrap(jen.Id("err"))),
		}, nil
	case schema.CmdExecRows:
		// e.g.:
		//	n, err := shardrt.ExecUnits(ctx, q.ex, &deleteOrdersStmt, units, []any{userID, userID_2})
		//	return n, shardrt.WrapQuery("DeleteOrders (queries/orders.sql:33)", err)
		return []jen.Code{
			jen.List(jen.Id("n"), jen.Id("err")).Op(fc.define("n", "err")).Add(exec()),
			jen.Return(jen.Id("n"), fc.wrap(jen.Id("err"))),
		}, nil
	default: // CmdExecResult
		// e.g.:
		//	n, err := shardrt.ExecUnits(ctx, q.ex, &deleteOrdersStmt, units, []any{userID, userID_2})
		//	if err != nil {
		//		return nil, err
		//	}
		//	return shardrt.NewResult(0, n), nil
		id := lastInsertID(q)
		if id == nil {
			id = jen.Lit(0)
		}
		return []jen.Code{
			jen.List(jen.Id("n"), jen.Id("err")).Op(fc.define("n", "err")).Add(exec()),
			errNil(),
			jen.Return(jen.Qual(rt, "NewResult").Call(id, jen.Id("n")), jen.Nil()),
		}, nil
	}
}

// emitIter emits <Name>Iter for a :many query with a single-unit route.
func (g *generator) emitIter(f *jen.File, q *query) error {
	p := q.p
	fc, sig := g.newFnCtx(q, func(_ *fnCtx, err jen.Code) jen.Code {
		return jen.Id("yield").Call(q.rowZero(), err).Line().Return()
	})
	rc, err := g.routeStatements(fc)
	if err != nil {
		return err
	}
	// e.g.:
	//	func (q *Queries) ListOrdersIter(ctx context.Context, userID int64) iter.Seq2[ListOrdersRow, error] {
	//		return func(yield func(ListOrdersRow, error) bool) {
	//			ds := shardrt.Mod(userID, 2)
	//			rows, err := q.run.Query(ctx, &listOrdersStmt, listOrdersUnits[ds], userID)
	//			if err != nil {
	//				yield(ListOrdersRow{}, err)
	//				return
	//			}
	//			defer rows.Close()
	//			for rows.Next() {
	//				var r ListOrdersRow
	//				if err := rows.Scan(&r.OrderID, &r.Status); err != nil {
	//					yield(ListOrdersRow{}, err)
	//					return
	//				}
	//				if !yield(r, nil) {
	//					return
	//				}
	//			}
	//			if err := rows.Err(); err != nil {
	//				yield(ListOrdersRow{}, err)
	//			}
	//		}
	//	}
	body := append([]jen.Code(nil), rc.stmts...)
	body = append(body, g.nodeArgStatements(fc)...)
	body = append(body,
		jen.List(jen.Id("rows"), jen.Id("err")).Op(fc.define("rows", "err")).Add(fc.runner()).Dot("Query").Call(append([]jen.Code{jen.Id("ctx"), jen.Op("&").Id(q.stmtVar), rc.unit}, fc.args()...)...),
		jen.If(jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
		jen.Defer().Id("rows").Dot("Close").Call(),
		jen.For(jen.Id("rows").Dot("Next").Call()).Block(append(append([]jen.Code{
			jen.Var().Id("r").Add(q.rowCode()),
			jen.If(jen.Id("err").Op(":=").Id("rows").Dot("Scan").Call(q.scanDests()...), jen.Id("err").Op("!=").Nil()).Block(fc.fail(jen.Id("err"))),
		}, g.decryptStatements(fc)...),
			jen.If(jen.Op("!").Id("yield").Call(jen.Id("r"), jen.Nil())).Block(jen.Return()),
		)...),
		jen.If(jen.Id("err").Op(":=").Id("rows").Dot("Err").Call(), jen.Id("err").Op("!=").Nil()).Block(jen.Id("yield").Call(q.rowZero(), fc.wrap(jen.Id("err")))),
	)
	seq := jen.Qual("iter", "Seq2").Types(q.rowCode(), jen.Error())
	f.Add(doc(
		q.iterMethod+" is "+p.Name+" as an iterator: it streams the rows of the one route unit",
		"instead of collecting them. The first error is yielded with a zero row and ends the",
		"iteration. Nothing runs until the iteration starts.",
	))
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(q.iterMethod).Params(sig...).Add(seq).Block(
		jen.Return(jen.Func().Params(jen.Id("yield").Func().Params(q.rowCode(), jen.Error()).Bool()).Block(body...)),
	)
	f.Line()
	q.methods = append(q.methods, jen.Id(q.iterMethod).Params(sig...).Add(seq))
	return nil
}

// emitParamsType emits the Params struct of q when it takes one.
func (g *generator) emitParamsType(f *jen.File, q *query) {
	p := q.p
	if q.paramsType == "" {
		return
	}
	// e.g.:
	//	// ListOrdersParams are the parameters of ListOrders.
	//	type ListOrdersParams struct {
	//		UserID  int64
	//		Status  string
	//	}
	var fields []jen.Code
	for _, i := range q.visible() {
		prm := p.Params[i]
		t := paramType(prm)
		fields = append(fields, jen.Id(fieldName(prm.Name)).Add(t).Add(g.jsonTag(snakeName(prm.Name))))
	}
	f.Add(doc(q.paramsType + " are the parameters of " + p.Name + "."))
	f.Type().Id(q.paramsType).Struct(fields...)
	f.Line()
}
