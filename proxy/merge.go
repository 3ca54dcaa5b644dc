package proxy

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/shardgen/shardgen/runtime"
)

// limitValue resolves a LIMIT value of a merge spec: a literal, or a
// parameter value (an integer).
func limitValue(v runtime.LimitValue, params []any) (int64, error) {
	if !v.Param {
		return v.Value, nil
	}
	if v.Value < 0 || int(v.Value) >= len(params) {
		return 0, fmt.Errorf("LIMIT parameter %d out of range", v.Value)
	}
	if n, ok := limitParam(params[v.Value]); ok {
		return n, nil // text, a float or a negative integer, as MariaDB reads it
	}
	switch x := params[v.Value].(type) {
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	}
	return 0, fmt.Errorf("LIMIT parameter must be an integer, got %T", params[v.Value])
}

// limitSum is the per-node LIMIT row count of a merged query: offset+count.
func limitSum(m *runtime.MergeSpec, params []any) (int64, error) {
	off, err := limitValue(m.Offset, params)
	if err != nil {
		return 0, err
	}
	cnt, err := limitValue(m.Count, params)
	if err != nil {
		return 0, err
	}
	if off > math.MaxInt64-cnt {
		return math.MaxInt64, nil // limitParam's "no limit"
	}
	return off + cnt, nil
}

// mergeRows merges the rows of several units (database/sql values) as m
// says and returns the visible columns as Go values.
func mergeRows(m *runtime.MergeSpec, params []any, perUnit [][][]any) ([][]any, error) {
	sources := make([]runtime.RowSource, len(perUnit))
	for i, rows := range perUnit {
		cells := make([][]runtime.Cell, len(rows))
		// One block of cells per unit rather than one slice per row.
		block := make([]runtime.Cell, len(rows)*len(m.Kinds))
		for r, row := range rows {
			if len(row) != len(m.Kinds) {
				return nil, fmt.Errorf("unit %d returned %d columns, the merge expects %d", i, len(row), len(m.Kinds))
			}
			cells[r], block = block[:len(row):len(row)], block[len(row):]
			for c, v := range row {
				cell, err := runtime.DecodeCell(m.Kinds[c], v)
				if err != nil {
					return nil, fmt.Errorf("unit %d, column %d: %w", i, c+1, err)
				}
				cells[r][c] = cell
			}
		}
		sources[i] = runtime.NewBufferedRows(cells)
	}
	merged, err := runtime.Merge(m, mergeParams(m, params), sources)
	if err != nil {
		return nil, err
	}
	var (
		out   [][]any
		block []any // values of several rows, allocated 64 rows at a time
	)
	for {
		row, err := merged.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(block) < len(row) {
			block = make([]any, 64*len(row))
		}
		vals := block[:len(row):len(row)]
		block = block[len(row):]
		for i, c := range row {
			vals[i] = c.Value()
		}
		out = append(out, vals)
	}
}

// mergeParams returns params with the values of m's LIMIT parameters that
// a client sent as text or a float converted to the integers MariaDB reads
// from them (limitParam), which runtime.Merge takes (a copy: params is left
// as it is).
func mergeParams(m *runtime.MergeSpec, params []any) []any {
	out, copied := params, false
	for _, v := range []runtime.LimitValue{m.Offset, m.Count} {
		if !v.Param || v.Value < 0 || int(v.Value) >= len(params) {
			continue
		}
		n, ok := limitParam(params[v.Value])
		if !ok {
			continue
		}
		if !copied {
			out, copied = slices.Clone(params), true
		}
		out[v.Value] = n
	}
	return out
}

// limitParam converts a LIMIT parameter a client sent as text or as a
// float (go-sql-driver sends a Go string as MYSQL_TYPE_STRING) to the row
// count MariaDB takes from it: text as a string converted to an integer
// (leading spaces, an optional sign and the digits up to the first other
// character: "4", " 4", "4abc" and "4.6" are 4, "abc" and "" 0), a float
// rounded half away from zero (4.6 is 5). A negative value is, as MariaDB
// reads it, an unsigned count beyond any table: math.MaxInt64 (also a
// negative integer: limitInt). ok is false for any other type and for
// integers ≥ 0, which are taken as they are.
func limitParam(a any) (int64, bool) {
	var s string
	switch x := a.(type) {
	case int64:
		return limitInt(x)
	case int:
		return limitInt(int64(x))
	case int32:
		return limitInt(int64(x))
	case string:
		s = x
	case []byte:
		s = string(x)
	case float64:
		return limitFloat(x), true
	case float32:
		return limitFloat(float64(x)), true
	default:
		return 0, false
	}
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n uint64
	digits := false
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits = true
		if n > (math.MaxUint64-9)/10 {
			n = math.MaxUint64
			continue
		}
		n = n*10 + uint64(s[i]-'0')
	}
	switch {
	case !digits || n == 0:
		return 0, true
	case neg || n > math.MaxInt64:
		return math.MaxInt64, true
	}
	return int64(n), true
}

// limitInt is limitParam of an integer: a negative one, which MariaDB
// reads from the binary protocol as an unsigned count (-1 is 2^64-1),
// is a count beyond any table (math.MaxInt64); ok is false for the others,
// which are taken as they are.
func limitInt(n int64) (int64, bool) {
	if n < 0 {
		return math.MaxInt64, true
	}
	return n, false
}

// limitFloat is limitParam of a float.
func limitFloat(f float64) int64 {
	f = math.Round(f)
	switch {
	case math.IsNaN(f) || f == 0:
		return 0
	case f < 0 || f >= math.MaxInt64:
		return math.MaxInt64
	}
	return int64(f)
}
