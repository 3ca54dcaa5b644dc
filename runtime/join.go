package runtime

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// JoinSpec is a nested-loop join of two sides' rows on equal keys, the
// operator the proxy (and generated code) runs for a join of tables that
// do not co-locate: the outer side's rows are read first, the inner side's
// per-node statement is run with the outer side's key values bound as IN
// lists (which narrow and may route it), and JoinRows pairs the rows.
//
// Keys compare as MySQL's `=` does for values of one kind: numbers by
// value (5 = 5.00), text by the collation (in process, or by the server
// sort keys of ColumnKind.Weight), times by instant; NULL equals nothing.
// The planner refuses keys of different kinds or collations.
type JoinSpec struct {
	// Left makes an outer join: an outer row without a matching inner row
	// is kept with NULL in every inner column (LEFT JOIN; a RIGHT JOIN is
	// the LEFT JOIN with the sides swapped).
	Left bool `json:"left,omitempty"`
	// OuterKeys and InnerKeys are the key columns of each side's rows, in
	// key order (outer key i is compared with inner key i).
	OuterKeys []int `json:"outer_keys"`
	InnerKeys []int `json:"inner_keys"`
	// OuterKinds and InnerKinds describe every column of each side's rows
	// (Weight indexes the side's own row).
	OuterKinds []ColumnKind `json:"outer_kinds"`
	InnerKinds []ColumnKind `json:"inner_kinds"`
	// OuterCond, when not 0, is 1 + the outer column holding the outer
	// side's own ON condition of an outer join (a.k = 1 in a LEFT JOIN's
	// ON): an outer row matches only where it is TRUE (a non-zero number).
	OuterCond int `json:"outer_cond,omitempty"`
	// NullFrom, when set, has one entry per inner column: where not 0, an
	// outer row without a match (Left) takes outer column NullFrom[i]-1
	// for inner column i instead of NULL (the value of an inner-side
	// expression such as COALESCE(b.x, 0) for NULL columns, which the
	// outer side computes).
	NullFrom []int `json:"null_from,omitempty"`
	// Residual are the join's other comparisons of an outer column with
	// an inner one (a.x < b.y in ON, or in WHERE of an inner join): a
	// pair of rows whose keys are equal matches only where every one is
	// TRUE (NULL never is); an outer row of a LEFT join none of whose
	// pairs is left is kept with NULLs.
	Residual []JoinResidual `json:"residual,omitempty"`
}

// JoinResidual is one comparison of a JoinSpec's Residual: outer column
// Outer Op inner column Inner, both of one kind (and collation), compared
// as ORDER BY compares them (text by collation, or by the server sort
// keys of ColumnKind.Weight when both columns have them).
type JoinResidual struct {
	Outer int       `json:"outer"`
	Op    CompareOp `json:"op"`
	Inner int       `json:"inner"`
}

// CompareOp is a comparison operator of a JoinResidual.
type CompareOp uint8

const (
	CompareEq CompareOp = iota // =
	CompareNe                  // <> (!=)
	CompareLt                  // <
	CompareLe                  // <=
	CompareGt                  // >
	CompareGe                  // >=
)

// holds reports whether a comparison of that outcome (c < 0, 0, > 0) is
// TRUE under op.
func (op CompareOp) holds(c int) bool {
	switch op {
	case CompareEq:
		return c == 0
	case CompareNe:
		return c != 0
	case CompareLt:
		return c < 0
	case CompareLe:
		return c <= 0
	case CompareGt:
		return c > 0
	case CompareGe:
		return c >= 0
	}
	return false
}

// residualHolds reports whether every residual comparison of spec is TRUE
// for the outer row o and the inner row in.
func residualHolds(spec *JoinSpec, o, in []any) (bool, error) {
	for _, r := range spec.Residual {
		if r.Outer >= len(o) || r.Inner >= len(in) || r.Outer >= len(spec.OuterKinds) || r.Inner >= len(spec.InnerKinds) {
			return false, fmt.Errorf("runtime.JoinRows: residual columns %d and %d of rows of %d and %d columns", r.Outer, r.Inner, len(o), len(in))
		}
		ko, ki := spec.OuterKinds[r.Outer], spec.InnerKinds[r.Inner]
		if o[r.Outer] == nil || in[r.Inner] == nil {
			return false, nil
		}
		var c int
		if ko.Weight > 0 && ki.Weight > 0 {
			if ko.Weight+1 >= len(o) || ki.Weight+1 >= len(in) {
				return false, fmt.Errorf("runtime.JoinRows: weight columns of residual columns %d and %d", r.Outer, r.Inner)
			}
			wo, ok1 := anyText(o[ko.Weight])
			wi, ok2 := anyText(in[ki.Weight])
			pad, ok3 := anyText(o[ko.Weight+1])
			if !ok1 || !ok2 || !ok3 {
				col, v, k := r.Outer, o[r.Outer], ko
				if ok1 && ok3 {
					col, v, k = r.Inner, in[r.Inner], ki
				}
				cell, err := DecodeCell(k, v)
				if err != nil {
					return false, err
				}
				return false, &NoSortKeyError{Source: -1, Column: col, Value: cell.kind}
			}
			c = compareWeights(wo, wi, pad)
		} else {
			a, err := DecodeCell(ko, o[r.Outer])
			if err != nil {
				return false, err
			}
			b, err := DecodeCell(ki, in[r.Inner])
			if err != nil {
				return false, err
			}
			c = compareCells(&a, &b, ko.coll())
		}
		if !r.Op.holds(c) {
			return false, nil
		}
	}
	return true, nil
}

// ErrJoinRows is wrapped by the error of a join whose result would hold
// more rows than allowed.
var ErrJoinRows = errors.New("the join holds more rows than allowed")

// JoinKey appends to dst the identity of the key columns cols of row (its
// values as database/sql scans them, kinds describing each column): two
// rows get equal keys exactly when every key compares equal. ok is false
// when a key is NULL (it matches nothing).
func JoinKey(dst []byte, kinds []ColumnKind, row []any, cols []int) (key []byte, ok bool, err error) {
	for _, c := range cols {
		if c < len(row) && row[c] == nil {
			return dst, false, nil
		}
	}
	key, err = RowKey(dst, kinds, row, cols)
	return key, err == nil, err
}

// RowKey appends to dst the identity of columns cols of row (values as
// database/sql scans them, kinds describing each column, Weight indexing
// row): equal keys exactly when every column compares equal as MySQL's
// DISTINCT and UNION compare them, NULL equal to NULL.
func RowKey(dst []byte, kinds []ColumnKind, row []any, cols []int) ([]byte, error) {
	cells := make([]Cell, len(row))
	for _, c := range cols {
		if c >= len(row) || c >= len(kinds) {
			return nil, fmt.Errorf("runtime.RowKey: column %d of a %d-column row", c, len(row))
		}
		k := kinds[c]
		var err error
		if cells[c], err = DecodeCell(k, row[c]); err != nil {
			return nil, err
		}
		o := keyOrder{col: c, coll: k.coll(), weight: k.Weight}
		if k.Weight > 0 && row[c] != nil {
			if k.Weight+1 >= len(row) {
				return nil, fmt.Errorf("runtime.RowKey: weight column %d of a %d-column row", k.Weight, len(row))
			}
			for _, w := range []int{k.Weight, k.Weight + 1} {
				b, isText := anyText(row[w])
				if !isText {
					return nil, &NoSortKeyError{Source: -1, Column: c, Value: cells[c].kind}
				}
				cells[w] = BytesCell(b)
			}
		}
		dst = o.appendKey(dst, cells)
	}
	return dst, nil
}

// JoinRows pairs outer rows with the inner rows of equal keys (spec), in
// outer row order and for one outer row in inner row order: each result
// row is the outer row's values followed by the inner row's (NULLs for an
// outer row without a match in a LEFT join). More than max result rows is
// an error wrapping ErrJoinRows.
func JoinRows(spec *JoinSpec, outer, inner [][]any, max int) ([][]any, error) {
	byKey := make(map[string][]int, len(inner))
	var buf []byte
	for i, row := range inner {
		key, ok, err := JoinKey(buf[:0], spec.InnerKinds, row, spec.InnerKeys)
		if err != nil {
			return nil, err
		}
		if ok {
			byKey[string(key)] = append(byKey[string(key)], i)
		}
		buf = key
	}
	width := len(spec.InnerKinds)
	var out [][]any
	for _, o := range outer {
		key, ok, err := JoinKey(buf[:0], spec.OuterKinds, o, spec.OuterKeys)
		if err != nil {
			return nil, err
		}
		buf = key
		var matches []int
		if ok && (spec.OuterCond == 0 || truthy(o[spec.OuterCond-1])) {
			matches = byKey[string(key)]
		}
		if len(spec.Residual) > 0 && len(matches) > 0 {
			kept := make([]int, 0, len(matches))
			for _, m := range matches {
				hold, err := residualHolds(spec, o, inner[m])
				if err != nil {
					return nil, err
				}
				if hold {
					kept = append(kept, m)
				}
			}
			matches = kept
		}
		if len(matches) == 0 && spec.Left {
			row := make([]any, len(o)+width)
			copy(row, o)
			for i, f := range spec.NullFrom {
				if f > 0 {
					row[len(o)+i] = o[f-1]
				}
			}
			out = append(out, row)
		}
		for _, m := range matches {
			row := make([]any, 0, len(o)+width)
			row = append(append(row, o...), inner[m]...)
			out = append(out, row)
		}
		if len(out) > max {
			return nil, fmt.Errorf("%w (%d)", ErrJoinRows, max)
		}
	}
	return out, nil
}

// SortRows sorts rows (values as database/sql scans them; kinds describe
// every column, Weight indexing the row) by keys as MySQL's ORDER BY
// orders them: NULL first ascending, numbers by value, text by collation
// or server sort key. Equal rows keep their order. A value that does not
// decode as its kind is an error.
func SortRows(kinds []ColumnKind, keys []SortKey, rows [][]any) error {
	if len(keys) == 0 {
		return nil
	}
	cells := make([][]Cell, len(rows))
	for r, row := range rows {
		cells[r] = make([]Cell, len(row))
		for _, k := range keys {
			cols := []int{k.Column}
			if w := kinds[k.Column].Weight; w > 0 {
				cols = append(cols, w, w+1)
			}
			for _, c := range cols {
				if c >= len(row) {
					return fmt.Errorf("runtime.SortRows: column %d of a %d-column row", c, len(row))
				}
				kind := kinds[c]
				if c != k.Column {
					kind = ColumnKind{Type: ColumnBytes}
				}
				cell, err := DecodeCell(kind, row[c])
				if err != nil {
					return err
				}
				cells[r][c] = cell
			}
		}
	}
	orders := make([]keyOrder, len(keys))
	for i, k := range keys {
		orders[i] = keyOrder{col: k.Column, coll: kinds[k.Column].coll(), weight: kinds[k.Column].Weight}
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for i, k := range keys {
			c := orders[i].compare(cells[idx[a]], cells[idx[b]])
			if k.Desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	sorted := make([][]any, len(rows))
	for i, j := range idx {
		sorted[i] = rows[j]
	}
	copy(rows, sorted)
	return nil
}

// truthy reports whether v, a value of a condition as database/sql scans
// it, is TRUE: a number other than 0 (NULL is not).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case int64:
		return x != 0
	case uint64:
		return x != 0
	case float64:
		return x != 0
	case []byte:
		f, err := strconv.ParseFloat(string(x), 64)
		return err == nil && f != 0
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return err == nil && f != 0
	case bool:
		return x
	}
	return false
}
