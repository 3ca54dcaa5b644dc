package proxy

import (
	"context"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/shardgen/shardgen/plan"
)

// federationBatch and federationBytes bound the rows one INSERT into a
// temporary table of a federation carries, and their estimated text (well
// under max_allowed_packet).
const (
	federationBatch = 500
	federationBytes = 1 << 20
)

// crossNodeRefusal reports whether a planner refusal's message is the one
// for tables that do not co-locate: only such a statement is evaluated
// over temporary tables (plan.StepsFederation); the planner's other
// refusals (an aggregate or window function over several data nodes, ...)
// stand.
func crossNodeRefusal(msg string) bool {
	return strings.Contains(msg, "across data nodes is not supported yet")
}

// federation evaluates f: each table's rows read across data nodes (at
// most max-cross-node-rows each) and loaded into a temporary table of one
// connection of the first data source, then the statement over them
// there (its result too at most max-cross-node-rows rows); the temporary
// tables are dropped after.
func (r *stepsRun) federation(ctx context.Context, f *plan.FederationSteps, depth int) (*wireResult, error) {
	ds := r.h.s.db.DataSourceNames()
	if len(ds) == 0 {
		return nil, fmt.Errorf("no data source for the temporary tables")
	}
	pool, ok := r.h.s.db.Pool(ds[0])
	if !ok {
		return nil, fmt.Errorf("no pool for data source %s", ds[0])
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// The statement runs with the session's settings (time_zone,
	// sql_mode, character set, user variables), as its reads do: the
	// session's setup runs on the connection, which is then never handed
	// on (a connection with a session's settings goes to no other).
	setup := r.sess.setup()
	if len(setup) > 0 {
		defer func() { _ = conn.Raw(func(any) error { return driver.ErrBadConn }) }()
	}
	for _, q := range setup {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("the session's settings for the temporary tables (%s): %w", q, err)
		}
	}
	var made []string
	defer func() {
		for _, t := range made {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), "DROP TEMPORARY TABLE IF EXISTS "+t); err != nil {
				_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // never hand the connection on with the table
			}
		}
	}()
	for _, t := range f.Tables {
		w, err := r.query(ctx, t.LimitedSQL(r.max+1), true, depth)
		if err != nil {
			return nil, err
		}
		if len(w.Rows) > r.max {
			return nil, fmt.Errorf("table %s, read for a temporary table (%s), %w (%d); raise it in props or narrow the statement", t.Table, t.SQL, ErrTooManyRows, r.max)
		}
		if len(w.columns) != len(t.Columns) {
			return nil, fmt.Errorf("the rows of %s have %d columns, not %d", t.Table, len(w.columns), len(t.Columns))
		}
		for _, q := range []string{"DROP TEMPORARY TABLE IF EXISTS " + t.Temp, t.Create} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return nil, fmt.Errorf("temporary table for %s: %w", t.Table, err)
			}
		}
		made = append(made, t.Temp)
		var (
			vals [][]plan.BoundValue
			size int
		)
		flush := func() error {
			if len(vals) == 0 {
				return nil
			}
			if _, err := conn.ExecContext(ctx, t.InsertSQL(vals)); err != nil {
				return fmt.Errorf("temporary table for %s: %w", t.Table, err)
			}
			vals, size = vals[:0], 0
			return nil
		}
		for _, row := range w.Rows {
			bv := make([]plan.BoundValue, len(row))
			for k := range row {
				if k < len(t.Hex) && t.Hex[k] && row[k] != nil {
					// HEX(column): the column's bytes, loaded as they are.
					var b []byte
					switch x := row[k].(type) {
					case []byte:
						b, err = hex.DecodeString(string(x))
					case string:
						b, err = hex.DecodeString(x)
					default:
						err = fmt.Errorf("HEX() read as %T", x)
					}
					if err != nil {
						return nil, fmt.Errorf("table %s: %w", t.Table, err)
					}
					bv[k] = plan.BoundValue{Kind: plan.BoundBinary, Text: string(b)}
				} else if bv[k], err = boundValue(&w.columns[k], row[k]); err != nil {
					return nil, fmt.Errorf("table %s: %w", t.Table, err)
				}
				size += 2*len(bv[k].Text) + 16
			}
			vals = append(vals, bv)
			if len(vals) == federationBatch || size >= federationBytes {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	rows, err := conn.QueryContext(ctx, f.SQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]column, len(types))
	for i, t := range types {
		cols[i] = columnOf(t.Name(), t)
	}
	var vals [][]any
	for rows.Next() {
		if len(vals) == r.max {
			return nil, fmt.Errorf("the statement over temporary tables %w (%d); raise it in props or narrow the statement", ErrTooManyRows, r.max)
		}
		row, err := scanAll(rows)
		if err != nil {
			return nil, err
		}
		vals = append(vals, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	res := &wireResult{Result: &Result{Rows: vals}, columns: cols}
	for _, c := range cols {
		res.Columns = append(res.Columns, c.name)
	}
	return res, nil
}

// setup returns the statements that give a back-end connection the
// session's settings and user variables (none for a session with the
// pools' defaults).
func (sess *session) setup() []string {
	switch {
	case sess.res != nil:
		return sess.res.Setup()
	case sess.set != nil:
		return sess.set.Setup()
	}
	return nil
}
