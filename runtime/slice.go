package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// MaxPlaceholders is the most placeholders one prepared statement may have
// (MySQL and MariaDB count them in 16 bits; ER_PS_MANY_PARAM).
const MaxPlaceholders = 65535

// ErrTooManyPlaceholders is wrapped by SliceUnits' error for a data node
// whose statement would have more than MaxPlaceholders arguments.
var ErrTooManyPlaceholders = errors.New("more placeholders than MySQL's limit of 65535 for one statement (ER_PS_MANY_PARAM)")

// SliceUnits returns the route units of a statement with a sqlc.slice
// parameter, one per data node that gets values, in data node order.
//
// all is the statement's unit table; at[n] is the byte offset in all[n].SQL
// of the one `?` that stands for the slice's list, planned at generate time
// (plan.SliceArg); values[n] are the values data node n gets: nil runs
// nothing there, an empty non-nil list runs it with `NULL` for the list
// (`col IN (NULL)` matches no row, yet an aggregate without GROUP BY still
// returns its row). The `?` becomes one `?` per value, e.g. "IN (?)" with
// three values "IN (?, ?, ?)", and the unit's Args are before, the node's
// values, then after.
//
// Errors: lengths that differ, an offset
// that is not a `?` of the unit's SQL, a unit whose data source is not one
// of s, more than MaxPlaceholders arguments for one data node once its
// repeated values are dropped (a list over the limit keeps only the first of
// equal values, which `IN` matches the same rows with: a slice of 300,000
// ids of which 50 differ runs): a *NodeError naming the data source, e.g.
// "data node ds_1: sqlc.slice list of 70000 distinct
// values there, 70001 placeholders with the other arguments: more
// placeholders than ...", wrapping ErrTooManyPlaceholders.
func (s *Sources) SliceUnits(all []RouteUnit, at []int, values [][]any, before, after []any) ([]RouteUnit, error) {
	return s.sliceUnits(all, at, "", 0, values, before, after)
}

// sliceUnits is SliceUnits with elem, the text of one element of the list
// with its one `?` (e.g. "CONVERT(? USING latin1)"); "" is "?". width
// above 1 makes each value a row of that many values ([]any), elem the
// condition on one row with width `?`, and the list `(elem OR elem …)`
// (StepQuery.ListWidth).
func (s *Sources) sliceUnits(all []RouteUnit, at []int, elem string, width int, values [][]any, before, after []any) ([]RouteUnit, error) {
	sep, begin, end := ", ", "", ""
	if width > 1 {
		sep, begin, end = " OR ", "(", ")"
	}
	if elem == "" {
		elem = "?"
	}
	if len(at) != len(all) || len(values) != len(all) {
		return nil, fmt.Errorf("slice units: %d units, %d offsets, %d value lists", len(all), len(at), len(values))
	}
	n := 0
	for _, v := range values {
		if v != nil {
			n++
		}
	}
	units := make([]RouteUnit, 0, n)
	for i, vals := range values {
		if vals == nil {
			continue
		}
		u := all[i]
		if uint(u.DataSource) >= uint(len(s.names)) {
			return nil, s.badUnit(&u)
		}
		if at[i] < 0 || at[i] >= len(u.SQL) || u.SQL[at[i]] != '?' {
			return nil, fmt.Errorf("slice units: offset %d of unit %d is not a placeholder", at[i], i)
		}
		if len(before)+len(vals)+len(after) > MaxPlaceholders && width <= 1 {
			vals = distinctValues(vals)
		}
		if k := len(before) + len(vals)*max(width, 1) + len(after); k > MaxPlaceholders {
			return nil, &NodeError{DataSource: s.names[u.DataSource], SQL: u.SQL, Err: fmt.Errorf("sqlc.slice list of %d distinct values there, %d placeholders with the other arguments: %w", len(vals), k, ErrTooManyPlaceholders)}
		}
		var b strings.Builder
		b.Grow(len(u.SQL) + (len(elem)+2)*len(vals) + 4)
		b.WriteString(u.SQL[:at[i]])
		if len(vals) == 0 {
			b.WriteString("NULL")
		} else {
			b.WriteString(begin)
			b.WriteString(elem)
			for range len(vals) - 1 {
				b.WriteString(sep)
				b.WriteString(elem)
			}
			b.WriteString(end)
		}
		b.WriteString(u.SQL[at[i]+1:])
		args := make([]any, 0, len(before)+len(vals)*max(width, 1)+len(after))
		args = append(args, before...)
		if width > 1 {
			for _, v := range vals {
				row, ok := v.([]any)
				if !ok || len(row) != width {
					return nil, fmt.Errorf("slice units: a value of an IN list of rows of %d is %T", width, v)
				}
				args = append(args, row...)
			}
		} else {
			args = append(args, vals...)
		}
		args = append(args, after...)
		units = append(units, RouteUnit{DataSource: u.DataSource, SQL: b.String(), Args: args})
	}
	return units, nil
}

// bytesKey is a []byte value's key in distinctValues, a type of its own so
// that it never equals a string value.
type bytesKey string

// distinctValues returns vals without the values equal to one before them
// (same Go type and value; []byte by content), in their order. Values of a
// type that cannot be a map key are all kept.
func distinctValues(vals []any) []any {
	seen := make(map[any]struct{}, len(vals))
	out := make([]any, 0, len(vals))
	for _, v := range vals {
		var key any = v
		switch b := v.(type) {
		case []byte:
			key = bytesKey(b)
		default:
			if v != nil && !reflect.TypeOf(v).Comparable() {
				out = append(out, v)
				continue
			}
		}
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		out = append(out, v)
	}
	return out
}
