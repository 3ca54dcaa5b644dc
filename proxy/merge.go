package proxy

import (
	"errors"

	"github.com/shardgen/shardgen/plan"
)

// limitSum is the per-node LIMIT row count of a merged query: offset+count.
func limitSum(m *plan.Merge, params []any) int64 {
	get := func(o *plan.Operand) int64 {
		if o == nil {
			return 0
		}
		if o.Literal != nil {
			return o.Literal.Int
		}
		switch v := params[o.Param].(type) {
		case int64:
			return v
		case int:
			return int64(v)
		}
		return 0
	}
	return get(m.Offset) + get(m.Count)
}

// mergeRows merges the rows of several units as m says.
func mergeRows(m *plan.Merge, params []any, perUnit [][][]any) ([][]any, error) {
	return nil, errors.New("merging is not implemented yet")
}
