package proxy

import (
	"errors"
	"fmt"
	"io"

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
	merged, err := runtime.Merge(m, params, sources)
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
