package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// Result is the outcome of executing one Plan: rows for a SELECT (every
// value as database/sql scans it into an `any`: int64, float64, []byte,
// time.Time or nil), affected rows and the last insert id for writes.
type Result struct {
	Columns      []string
	Rows         [][]any
	RowsAffected int64
	LastInsertID int64
}

// Interpreter executes Plans at run time with the same runtime functions
// that generated code calls: it is the proxy's back end, and the
// differential tests' way to run ad-hoc statements. Safe for concurrent use.
type Interpreter struct {
	b   *plan.Builder
	db  *runtime.DB
	src *runtime.Sources
	// dsIndex maps a plan-local data source index to src's.
	names []string
}

// NewInterpreter runs plans of b on the data sources of db.
func NewInterpreter(b *plan.Builder, db *runtime.DB) (*Interpreter, error) {
	names := append(db.DataSourceNames(), db.GroupNames()...) // plans may route to read/write groups
	src, err := db.Sources(names)
	if err != nil {
		return nil, err
	}
	return &Interpreter{b: b, db: db, src: src, names: names}, nil
}

// Execute runs p with params (one per p.Params, in order; Go values as a
// database/sql argument) on the pools, each unit as a server-side prepared
// statement with its arguments. Generated keys are produced here when the
// plan needs them. It is executeWire without a session: no transaction, no
// statement tag, no column metadata.
func (in *Interpreter) Execute(ctx context.Context, p *plan.Plan, params []any, keys runtime.KeyGenerator) (*Result, error) {
	w, err := in.run(ctx, in.src, p, params, keys, "", false, false, false)
	if err != nil {
		return nil, err
	}
	return w.Result, nil
}

// nodeArgs returns the arguments of the per-node SQL: Plan.Args, or
// Plan.NodeArgs with merged LIMIT counts and encrypted values computed.
func (in *Interpreter) nodeArgs(p *plan.Plan, params []any) ([]any, error) {
	if p.NodeArgs == nil {
		return in.nodeArgsInto(make([]any, 0, len(p.Args)), p, params)
	}
	return in.nodeArgsInto(make([]any, 0, len(p.NodeArgs)), p, params)
}

// nodeArgsInto is nodeArgs appending to args[:0], a buffer reused from
// statement to statement.
func (in *Interpreter) nodeArgsInto(args []any, p *plan.Plan, params []any) ([]any, error) {
	args = args[:0]
	if p.NodeArgs == nil {
		for _, pi := range p.Args {
			args = append(args, params[pi])
		}
		return args, nil
	}
	for _, na := range p.NodeArgs {
		if na.LimitSum {
			n, err := limitSum(p.Merge, params)
			if err != nil {
				return nil, err
			}
			args = append(args, n)
			continue
		}
		var v any
		if na.Literal != nil {
			if !na.Literal.IsNull() {
				v = na.Literal.Text()
			}
		} else {
			v = params[na.Param]
		}
		if na.Encrypt != "" {
			enc, err := in.db.Encryptor(na.Encrypt)
			if err != nil {
				return nil, err
			}
			if v, err = enc.Encrypt(v); err != nil {
				return nil, fmt.Errorf("encryptor %q: %w", na.Encrypt, err)
			}
		}
		args = append(args, v)
	}
	return args, nil
}

// decrypt turns the cipher text of encrypted result columns back into
// their values; NULL stays NULL.
func (in *Interpreter) decrypt(p *plan.Plan, rows [][]any) error {
	for c, col := range p.Columns {
		if col.Decrypt == "" {
			continue
		}
		enc, err := in.db.Encryptor(col.Decrypt)
		if err != nil {
			return err
		}
		for _, row := range rows {
			var text string
			switch v := row[c].(type) {
			case nil:
				continue
			case []byte:
				text = string(v)
			case string:
				text = v
			default:
				return fmt.Errorf("column %s: cipher text is a %T", col.Name, v)
			}
			plain, err := enc.Decrypt(text)
			if err != nil {
				return fmt.Errorf("column %s: %w", col.Name, err)
			}
			row[c] = plain
		}
	}
	return nil
}

// units selects and builds the route units of p for the given values.
func (in *Interpreter) units(p *plan.Plan, values []runtime.Value, params []any) ([]runtime.RouteUnit, error) {
	all := make([]runtime.RouteUnit, len(p.Route.Units))
	for i, u := range p.Route.Units {
		ds := in.dataSource(p.Route.DataSources[u.DataSource])
		if ds < 0 {
			return nil, fmt.Errorf("data source %q is not configured", p.Route.DataSources[u.DataSource])
		}
		all[i] = runtime.RouteUnit{DataSource: ds, SQL: u.SQL}
	}
	if p.Insert != nil {
		rowNode, err := in.b.RowNodes(p, values)
		if err != nil {
			return nil, &routeError{Table: p.Route.LogicTable, Err: err}
		}
		src := params
		if p.Insert.ByNodeArgs {
			// An encrypted table: the rows take the per-node values.
			if src, err = in.nodeArgs(p, params); err != nil {
				return nil, err
			}
		}
		rowArgs := make([][]any, len(p.Insert.RowArgs))
		for r, idx := range p.Insert.RowArgs {
			for _, i := range idx {
				rowArgs[r] = append(rowArgs[r], src[i])
			}
		}
		var tail []any
		for _, i := range p.Insert.TailArgs {
			tail = append(tail, src[i])
		}
		return p.Insert.Split.Units(all, rowNode, rowArgs, tail)
	}
	idx, err := in.b.Units(p, values)
	if err != nil {
		return nil, &routeError{Table: p.Route.LogicTable, Err: err}
	}
	units := make([]runtime.RouteUnit, len(idx))
	for i, n := range idx {
		units[i] = all[n]
	}
	return units, nil
}

// dataSource returns the index in in.names of the data source name, -1
// when it is not configured.
func (in *Interpreter) dataSource(name string) int {
	ds := -1
	for j, n := range in.names {
		if n == name {
			ds = j
		}
	}
	return ds
}

// unit returns the data source (an index into in.names) and the SQL of
// the route unit of p for values when the route selects exactly one; ok
// is false otherwise, and for an INSERT's plan (whose rows units splits).
// As units, without allocating: the fast path routes with it
// (fastpath_shape.go).
func (in *Interpreter) unit(p *plan.Plan, values []runtime.Value) (ds int, sql string, ok bool) {
	if p.Insert != nil {
		return 0, "", false
	}
	idx, err := in.b.Units(p, values)
	if err != nil || len(idx) != 1 {
		return 0, "", false
	}
	u := p.Route.Units[idx[0]]
	if ds = in.dataSource(p.Route.DataSources[u.DataSource]); ds < 0 {
		return 0, "", false
	}
	return ds, u.SQL, true
}

// scanAll reads the current row of rows as database/sql values. database/sql
// already gives every []byte scanned into *any its own copy (convertAssign),
// so the values are kept as scanned. One allocation holds the values and
// the pointers Scan needs; the row is the first half of it.
func scanAll(rows *sql.Rows) ([]any, error) {
	cols, err := rows.Columns() // go-sql-driver caches the names: no allocation
	if err != nil {
		return nil, err
	}
	n := len(cols)
	buf := make([]any, 2*n)
	vals, ptrs := buf[:n:n], buf[n:]
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	clear(ptrs)
	return vals, nil
}

// routeError is a statement's route refused at execution time: the
// sharding algorithm rejects a value, or a value reaches no data node
// (runtime.ErrNoTarget, which it wraps then). Its text is the planner's for
// the same refusal of a literal ("routing table \"t_order\": ..."), and the
// proxy answers both alike: errors.As finds a *schema.Error in it, which
// the proxy sends as ERROR 1235 (42000) with that text.
type routeError struct {
	Table string // the logic table routed
	Err   error
}

// Error returns `routing table "<table>": <reason>`.
func (e *routeError) Error() string {
	return "routing table " + strconv.Quote(e.Table) + ": " + e.Err.Error()
}

// Unwrap returns the reason.
func (e *routeError) Unwrap() error { return e.Err }

// As sets a **schema.Error target to the refusal as the planner reports it
// (no position: the statement is not from a file).
func (e *routeError) As(target any) bool {
	if t, ok := target.(**schema.Error); ok {
		*t = &schema.Error{Msg: e.Error()}
		return true
	}
	return false
}

// ValueOf converts a parameter's Go value to the sharding value a
// generated function would build for a parameter of type t
// (runtime.ArgValue, which generated code's steps use too): integers are
// java.lang.Long (go-sql-driver sends them as LONGLONG), strings String,
// DECIMAL text BigDecimal, times Timestamp, nil NULL; a string (or []byte)
// for a DATE, DATETIME or TIMESTAMP parameter (t.Kind KindTime) that is
// MySQL date or datetime text is the time MySQL compares the column with;
// a double (JavaScript's mysql2 binds every number as DOUBLE) the integer
// or double text runtime.ColumnClass.Equal converts as MySQL compares it;
// a driver.Valuer (a LOAD DATA field, sql.NullString) by its value.
// Another type is an error naming it.
func ValueOf(t plan.GoType, v any) (runtime.Value, error) {
	rv, ok := runtime.ArgValue(t.Kind, v)
	if !ok {
		return runtime.Value{}, fmt.Errorf("unsupported parameter type %T", v)
	}
	return rv, nil
}
