package runtime

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"sync"
	"time"
)

// MergedRows is the merged result of a scatter-gather SELECT: the visible
// columns of each merged row, in merge order. The caller reads it with Next
// until io.EOF and must call Close when it stops early (Close is idempotent;
// Next closes it at the end or on an error). Not safe for concurrent use.
type MergedRows struct {
	src    RowSource
	rows   []*sql.Rows // open unit results when streaming
	cancel context.CancelFunc
	closed bool
}

// Next returns the next merged row (valid until the next call), or io.EOF.
func (m *MergedRows) Next() ([]Cell, error) {
	if m.closed {
		return nil, io.EOF
	}
	row, err := m.src.Next()
	if err != nil {
		m.Close()
	}
	return row, err
}

// Close releases the units' result sets and connections.
func (m *MergedRows) Close() error {
	if m.closed {
		return nil
	}
	m.closed = true
	var errs []error
	for _, r := range m.rows {
		if r != nil {
			errs = append(errs, r.Close())
		}
	}
	if m.cancel != nil {
		m.cancel()
	}
	return errors.Join(errs...)
}

// QueryMerged runs the route units of a SELECT whose rows must be merged
// (ORDER BY, GROUP BY, aggregates, DISTINCT, LIMIT over several data nodes)
// and returns the merged rows, visible columns only. mergeArgs are the
// values spec's LIMIT parameters index (the statement's parameter values).
// Errors name the data node (NodeError) or the bad spec.
//
// Like ShardingSphere's connection modes: when e is *Sources and no data
// source has more units than max-connections-size-per-query, every unit
// runs on its own connection at once and the merge streams from the open
// results (MEMORY_STRICTLY: memory bounded by the number of units, not
// rows); otherwise (more units than connections, or a transaction's one
// connection) each unit's rows are read into memory first
// (CONNECTION_STRICTLY).
func QueryMerged(ctx context.Context, e Executor, st *Stmt, units []RouteUnit, args []any, spec *MergeSpec, mergeArgs []any) (*MergedRows, error) {
	if spec == nil {
		return nil, errors.New("runtime.QueryMerged: nil merge spec")
	}
	if s, ok := e.(*Sources); ok && s.canStream(units) {
		return s.queryMergedStreaming(ctx, st, units, args, spec, mergeArgs)
	}
	kinds := spec.Kinds
	perUnit, err := QueryUnitsEach(ctx, e, st, units, args, func(rows *sql.Rows) ([]Cell, error) {
		vals := make([]any, len(kinds))
		ptrs := make([]any, len(kinds))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]Cell, len(kinds))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = append([]byte(nil), b...)
			}
			c, err := DecodeCell(kinds[i], v)
			if err != nil {
				return nil, fmt.Errorf("column %d: %w", i+1, err)
			}
			row[i] = c
		}
		return row, nil
	})
	if err != nil {
		return nil, err
	}
	sources := make([]RowSource, len(perUnit))
	for i, rows := range perUnit {
		sources[i] = NewBufferedRows(rows)
	}
	src, err := Merge(spec, mergeArgs, sources)
	if err != nil {
		return nil, err
	}
	return &MergedRows{src: src}, nil
}

// canStream reports whether every data source has at most
// max-connections-size-per-query of the units.
func (s *Sources) canStream(units []RouteUnit) bool {
	if len(units) == 0 {
		return false
	}
	per := map[int]int{}
	for _, u := range units {
		if uint(u.DataSource) >= uint(len(s.pools)) {
			return false
		}
		id := s.ids[u.DataSource]
		per[id]++
		if per[id] > s.limit {
			return false
		}
	}
	return true
}

// queryMergedStreaming opens every unit's result at once (in parallel) and
// merges from the open results.
func (s *Sources) queryMergedStreaming(ctx context.Context, st *Stmt, units []RouteUnit, args []any, spec *MergeSpec, mergeArgs []any) (*MergedRows, error) {
	ctx, cancel := context.WithCancel(ctx)
	m := &MergedRows{rows: make([]*sql.Rows, len(units)), cancel: cancel}
	errs := make([]error, len(units))
	var wg sync.WaitGroup
	for i := range units {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			u := units[i]
			m.rows[i], errs[i] = s.Query(ctx, st, u, unitArgs(&u, args)...)
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, e := range errs {
			if e != nil {
				err = e // the first unit's error, naming its data node
				break
			}
		}
		m.Close()
		return nil, err
	}
	sources := make([]RowSource, len(units))
	for i, r := range m.rows {
		sources[i] = &nodeSource{src: NewSQLRows(r, spec.Kinds), name: s.names[units[i].DataSource], sql: units[i].SQL}
	}
	src, err := Merge(spec, mergeArgs, sources)
	if err != nil {
		m.Close()
		return nil, err
	}
	m.src = src
	return m, nil
}

// ScanCells copies a merged row into dest, like (*sql.Rows).Scan: one
// destination per cell. Supported destinations: sql.Scanner
// implementations (sql.NullString, sql.Null[T], user types), *any, *string,
// *[]byte, *bool, signed and unsigned integers, *float32, *float64,
// *time.Time and named types of these kinds (type Email string). NULL into a destination that cannot hold it is an error, as
// database/sql reports it.
func ScanCells(row []Cell, dest ...any) error {
	if len(row) != len(dest) {
		return fmt.Errorf("runtime.ScanCells: %d cells into %d destinations", len(row), len(dest))
	}
	for i, c := range row {
		if err := scanCell(c, dest[i]); err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return nil
}

// cellDriverValue is the cell as a driver.Value: int64, float64, []byte,
// time.Time or nil (uint64 beyond int64 becomes its decimal text).
func cellDriverValue(c Cell) driver.Value {
	switch v := c.Value().(type) {
	case uint64:
		if v > math.MaxInt64 {
			return []byte(strconv.FormatUint(v, 10))
		}
		return int64(v)
	case float32:
		return float64(v)
	default:
		return v
	}
}

func scanCell(c Cell, dest any) error {
	if s, ok := dest.(sql.Scanner); ok {
		return s.Scan(cellDriverValue(c))
	}
	v := c.Value()
	switch d := dest.(type) {
	case *any:
		*d = cellDriverValue(c)
		return nil
	case *[]byte:
		if v == nil {
			*d = nil
			return nil
		}
		*d = []byte(c.String())
		return nil
	case *string:
		if v == nil {
			return errors.New("converting NULL to string is unsupported")
		}
		*d = c.String()
		return nil
	case *time.Time:
		t, ok := v.(time.Time)
		if !ok {
			return fmt.Errorf("cannot scan %s into *time.Time", c.Kind())
		}
		*d = t
		return nil
	case *bool:
		n, err := cellInt(c)
		if err != nil {
			return err
		}
		*d = n != 0
		return nil
	case *float64:
		f, err := cellFloat(c)
		*d = f
		return err
	case *float32:
		f, err := cellFloat(c)
		*d = float32(f)
		return err
	}
	rv := reflect.ValueOf(dest)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("destination %T is not a non-nil pointer", dest)
	}
	ev := rv.Elem()
	switch ev.Kind() {
	case reflect.Pointer: // *T of a nullable column: nil for NULL
		if c.Kind() == CellNull {
			ev.SetZero()
			return nil
		}
		p := reflect.New(ev.Type().Elem())
		if err := scanCell(c, p.Interface()); err != nil {
			return err
		}
		ev.Set(p)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := cellInt(c)
		if err != nil {
			return err
		}
		if ev.OverflowInt(n) {
			return fmt.Errorf("value %d overflows %s", n, ev.Type())
		}
		ev.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if c.Kind() == CellUint {
			u := c.Uint()
			if ev.OverflowUint(u) {
				return fmt.Errorf("value %d overflows %s", u, ev.Type())
			}
			ev.SetUint(u)
			return nil
		}
		if k := c.Kind(); k != CellInt && k != CellNull {
			// Text (a BIGINT UNSIGNED read as text): up to 2^64-1.
			u, err := strconv.ParseUint(c.String(), 10, 64)
			if err != nil {
				return fmt.Errorf("converting %s %q to an unsigned integer: %w", k, c.String(), err)
			}
			if ev.OverflowUint(u) {
				return fmt.Errorf("value %d overflows %s", u, ev.Type())
			}
			ev.SetUint(u)
			return nil
		}
		n, err := cellInt(c)
		if err != nil {
			return err
		}
		if n < 0 || ev.OverflowUint(uint64(n)) {
			return fmt.Errorf("value %d overflows %s", n, ev.Type())
		}
		ev.SetUint(uint64(n))
		return nil
	// Named types of a column override (type Email string), as database/sql's
	// convertAssign scans them.
	case reflect.String:
		if c.Kind() == CellNull {
			return fmt.Errorf("converting NULL to %s is unsupported", ev.Type())
		}
		ev.SetString(c.String())
		return nil
	case reflect.Slice:
		if ev.Type().Elem().Kind() != reflect.Uint8 {
			break
		}
		if c.Kind() == CellNull {
			ev.SetZero()
			return nil
		}
		ev.SetBytes([]byte(c.String()))
		return nil
	case reflect.Bool:
		n, err := cellInt(c)
		if err != nil {
			return err
		}
		ev.SetBool(n != 0)
		return nil
	case reflect.Float32, reflect.Float64:
		f, err := cellFloat(c)
		if err != nil {
			return err
		}
		ev.SetFloat(f)
		return nil
	}
	return fmt.Errorf("unsupported destination %T", dest)
}

func cellInt(c Cell) (int64, error) {
	switch c.Kind() {
	case CellInt:
		return c.Int(), nil
	case CellUint:
		u := c.Uint()
		if u > math.MaxInt64 {
			return 0, fmt.Errorf("value %d overflows int64", u)
		}
		return int64(u), nil
	case CellNull:
		return 0, errors.New("converting NULL to an integer is unsupported")
	}
	n, err := strconv.ParseInt(c.String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("converting %s %q to an integer: %w", c.Kind(), c.String(), err)
	}
	return n, nil
}

func cellFloat(c Cell) (float64, error) {
	switch c.Kind() {
	case CellFloat:
		return c.Float(), nil
	case CellInt:
		return float64(c.Int()), nil
	case CellUint:
		return float64(c.Uint()), nil
	case CellNull:
		return 0, errors.New("converting NULL to a float is unsupported")
	}
	return strconv.ParseFloat(c.String(), 64)
}

// nodeSource names the data node in the errors of a unit's open result.
type nodeSource struct {
	src  RowSource
	name string
	sql  string
}

func (n *nodeSource) Next() ([]Cell, error) {
	row, err := n.src.Next()
	if err != nil && err != io.EOF {
		var ne *NodeError
		if !errors.As(err, &ne) {
			err = &NodeError{DataSource: n.name, SQL: n.sql, Err: err}
		}
	}
	return row, err
}
