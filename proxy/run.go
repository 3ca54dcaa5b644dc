package proxy

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// wireResult is a Result plus the back end's column metadata, what the
// protocol server needs to answer a client as MySQL would.
type wireResult struct {
	*Result
	// columns describe the visible result columns (nil for a write).
	columns []column
}

// executeWire runs p like Interpreter.Execute, with two differences the
// proxy needs: the statement runs on e (the session's transaction, or the
// pools), and the back end answers in the protocol the client used:
//
//   - text protocol (a COM_QUERY: text is set, and p has no client
//     parameters but the statement's normalized literals): every unit's
//     parameters (literals, generated keys, cipher values, LIMIT counts)
//     are interpolated into its SQL, so the back end receives a COM_QUERY and
//     answers with the exact text MySQL prints (go-sql-driver
//     interpolateParams semantics);
//   - binary protocol (a prepared statement with parameters): each unit runs
//     as a cached server-side prepared statement with the values as
//     arguments (runtime's statement cache), so the back end parses it once
//     and its binary rows carry every FLOAT and DOUBLE exactly; the columns
//     are marked exact (textValue).
//
// The column types of the first unit that returned rows (or of a re-run of
// the first unit when none did) describe the result. A non-empty tag (the
// session's, see watchStatement) owns every unit's back-end command
// (owner.go).
func (in *Interpreter) executeWire(ctx context.Context, e runtime.Executor, p *plan.Plan, params []any, keys runtime.KeyGenerator, tag string, text, noBackslash bool) (*wireResult, error) {
	return in.run(ctx, e, p, params, keys, tag, text || len(clientParams(p)) == 0, true, noBackslash)
}

// run is executeWire and Execute: textArgs puts every unit's arguments
// into its SQL (text protocol) instead of sending them to a prepared
// statement, and columns reads the back end's column types into the
// result's column metadata.
func (in *Interpreter) run(ctx context.Context, e runtime.Executor, p *plan.Plan, params []any, keys runtime.KeyGenerator, tag string, textArgs, columns, noBackslash bool) (*wireResult, error) {
	params, values, lastKey, err := prepareParams(p, params, keys)
	if err != nil {
		return nil, err
	}
	units, err := in.units(p, values, params)
	if err != nil {
		return nil, err
	}
	args, err := in.nodeArgs(p, params)
	if err != nil {
		return nil, err
	}
	for i := range units {
		u := &units[i]
		uargs := args
		if u.Args != nil {
			uargs = u.Args
		}
		if !textArgs {
			u.Args = uargs
		} else {
			if u.SQL, err = interpolate(u.SQL, uargs); err != nil {
				return nil, err
			}
			u.Args = nil
		}
		if noBackslash {
			u.SQL = standardToNoBackslash(u.SQL)
		}
		// A broadcast write's copies after the first are marked: the
		// statement's warnings are one copy's, as one MySQL reports them.
		if tag != "" && i > 0 && p.Statement != plan.StmtSelect && p.Route.Kind == runtime.RouteBroadcast {
			u.SQL = copyMark + u.SQL
		}
	}
	ctx = withOwner(ctx, tag)
	st := &runtime.Stmt{Name: p.Name, LogicSQL: p.LogicSQL}
	if p.Statement != plan.StmtSelect {
		if p.Route.Kind == runtime.RouteBroadcast {
			// Every copy or none (runtime.ExecBroadcast); the first copy's
			// result is the statement's, as one MySQL would report it.
			first, err := runtime.ExecBroadcast(ctx, e, st, units, nil)
			if err != nil {
				if len(units) > 1 {
					err = writeNodeError(p, err)
				}
				return nil, err
			}
			var n int64
			if first != nil {
				n, _ = first.RowsAffected()
			}
			return &wireResult{Result: &Result{RowsAffected: n, LastInsertID: lastKey}}, nil
		}
		if len(units) == 1 {
			// One data node: its OK packet's insert id is the statement's
			// (an AUTO_INCREMENT of a single table), as MySQL reports it,
			// unless a key generator made the key.
			r, err := e.Exec(ctx, st, units[0])
			if err != nil {
				return nil, err
			}
			n, _ := r.RowsAffected()
			if lastKey == 0 {
				lastKey, _ = r.LastInsertId()
			}
			return &wireResult{Result: &Result{RowsAffected: n, LastInsertID: lastKey}}, nil
		}
		n, err := runtime.ExecUnits(ctx, e, st, units, nil)
		if err != nil {
			return nil, writeNodeError(p, err)
		}
		return &wireResult{Result: &Result{RowsAffected: n, LastInsertID: lastKey}}, nil
	}
	var (
		once  sync.Once
		types []*sql.ColumnType
		terr  error
	)
	scan := scanAll
	if columns {
		scan = func(rows *sql.Rows) ([]any, error) {
			once.Do(func() { types, terr = rows.ColumnTypes() })
			return scanAll(rows)
		}
	}
	perUnit, err := runtime.QueryUnitsEach(ctx, e, st, units, nil, scan)
	if err != nil {
		return nil, err
	}
	if columns && types == nil && terr == nil && len(units) > 0 {
		// No unit returned a row: ask the first unit again for its columns.
		rows, err := e.Query(ctx, st, units[0])
		if err != nil {
			return nil, err
		}
		types, terr = rows.ColumnTypes()
		if cerr := rows.Close(); terr == nil {
			terr = cerr
		}
	}
	if terr != nil {
		return nil, terr
	}
	res := &Result{}
	cols := make([]column, len(p.Columns))
	for i, c := range p.Columns {
		res.Columns = append(res.Columns, c.Name)
		if i < len(types) {
			cols[i] = columnOf(c.Name, types[i])
			cols[i].exact = !textArgs
		} else {
			cols[i] = column{name: c.Name, typ: dbTypes["VARBINARY"], nullable: true}
		}
		cols[i].decrypted = c.Decrypt != ""
	}
	if p.Merge == nil {
		for _, rows := range perUnit {
			res.Rows = append(res.Rows, rows...)
		}
	} else if res.Rows, err = mergeRows(p.Merge, params, perUnit); err != nil {
		return nil, err
	}
	if err := in.decrypt(p, res.Rows); err != nil {
		return nil, err
	}
	return &wireResult{Result: res, columns: cols}, nil
}

// prepareParams completes the parameter values of p: missing values are
// NULL, generated keys are produced with keys, and each value is converted
// to its sharding value. lastKey is the first integer key generated (the
// insert id a client sees), 0 when none.
func prepareParams(p *plan.Plan, in []any, keys runtime.KeyGenerator) (params []any, values []runtime.Value, lastKey int64, err error) {
	return prepareParamsInto(p, in, keys, nil, nil)
}

// prepareParamsInto is prepareParams writing params and values into the
// buffers given (their contents replaced; nil: new ones), for callers
// that reuse them from statement to statement. in must not share params'
// backing array.
func prepareParamsInto(p *plan.Plan, in []any, keys runtime.KeyGenerator, params []any, values []runtime.Value) ([]any, []runtime.Value, int64, error) {
	var lastKey int64
	params = append(params[:0], in...)
	for len(params) < len(p.Params) {
		params = append(params, nil)
	}
	if p.KeyGenerate != nil {
		for _, i := range p.KeyGenerate.Params {
			if keys == nil {
				return nil, nil, 0, errors.New("the statement needs the key generator " + p.KeyGenerate.Generator + ", which is not configured")
			}
			k, err := keys.Generate()
			if err != nil {
				return nil, nil, 0, err
			}
			if k.Kind == runtime.KindString {
				params[i] = k.Str
			} else {
				params[i] = k.Int
				if lastKey == 0 {
					lastKey = k.Int
				}
			}
		}
	}
	if cap(values) < len(p.Params) {
		values = make([]runtime.Value, len(p.Params))
	}
	values = values[:len(p.Params)]
	for i, prm := range p.Params {
		v, err := ValueOf(prm.Type, params[i])
		if err != nil {
			return nil, nil, 0, errors.New("parameter " + prm.Name + ": " + err.Error())
		}
		values[i] = v
	}
	return params, values, lastKey, nil
}
