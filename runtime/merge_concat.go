package runtime

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// GroupConcatSpec describes a GROUP_CONCAT whose groups span data nodes
// (AggGroupConcat, AggGroupConcatDistinct). The nodes cannot concatenate:
// the order and the length limit are the whole group's. So each node
// returns its group's values as sub-groups, grouped by the GROUP BY
// columns, the value's bytes and the ORDER BY items, each row carrying:
//
//   - in ValueColumn, the value (CONCAT of the arguments: NULL when one is
//     NULL, and then skipped); AggregateSpec.Column receives the result
//     (the nodes' own GROUP_CONCAT of their sub-groups there is ignored);
//   - in AggregateSpec.CountColumn, how many rows of the group have it;
//   - in OrderBy's columns, the GROUP_CONCAT's ORDER BY items (text with
//     its WEIGHT_STRING, ColumnKind.Weight);
//   - LENGTH and CHAR_LENGTH of the value, the LENGTH of the separator in
//     the value's character set, and the session's group_concat_max_len.
//
// The merge sorts a group's values by OrderBy (ties in arrival order; MySQL
// leaves their order undefined), drops later duplicates for DISTINCT (by the
// value column's comparison), repeats each value CountColumn times, joins
// them with Separator and cuts the result as MariaDB does when its length
// in the value's character set passes group_concat_max_len: at that many
// bytes, back to a whole character (Item_func_group_concat; MariaDB warns
// "Row N was cut by GROUP_CONCAT()", which is not relayed).
type GroupConcatSpec struct {
	// Separator is the separator as the client receives text (default ",").
	Separator string `json:"separator"`
	// ValueColumn holds each sub-group's value.
	ValueColumn int `json:"value_column"`
	// OrderBy are the ORDER BY items of the GROUP_CONCAT.
	OrderBy []SortKey `json:"order_by,omitempty"`
	// LengthColumn, CharLengthColumn, SeparatorLengthColumn and
	// MaxLengthColumn hold LENGTH(value), CHAR_LENGTH(value), the
	// separator's LENGTH and @@group_concat_max_len (Int columns).
	LengthColumn          int `json:"length_column"`
	CharLengthColumn      int `json:"char_length_column"`
	SeparatorLengthColumn int `json:"separator_length_column"`
	MaxLengthColumn       int `json:"max_length_column"`
}

// validate checks the spec of aggregate a over columns columns.
func (g *GroupConcatSpec) validate(a *AggregateSpec, columns int) error {
	if g == nil {
		return errors.New("GROUP_CONCAT without its GroupConcat spec")
	}
	for _, c := range []int{g.ValueColumn, a.CountColumn, g.LengthColumn, g.CharLengthColumn, g.SeparatorLengthColumn, g.MaxLengthColumn} {
		if c < 0 || c >= columns || c == a.Column {
			return fmt.Errorf("GROUP_CONCAT column %d out of range or the value's (%d columns)", c, columns)
		}
	}
	for _, k := range g.OrderBy {
		if k.Column < 0 || k.Column >= columns {
			return fmt.Errorf("GROUP_CONCAT ORDER BY column %d out of range (%d columns)", k.Column, columns)
		}
	}
	return nil
}

// concatItem is one sub-group of a GROUP_CONCAT: a copy of its row.
type concatItem struct {
	row []Cell
}

// addConcat keeps a sub-group row of a GROUP_CONCAT.
func (s *aggState) addConcat(a *AggregateSpec, row []Cell) {
	if row[a.GroupConcat.ValueColumn].IsNull() {
		return
	}
	c := make([]Cell, len(row))
	for i := range row {
		c[i] = row[i].clone()
	}
	s.items = append(s.items, concatItem{row: c})
	s.seen = true
}

// concatResult builds the GROUP_CONCAT of the kept rows. truncated reports
// a cut (MariaDB's warning 1260).
func (s *aggState) concatResult(a *AggregateSpec, spec *MergeSpec) (c Cell, truncated bool, err error) {
	if len(s.items) == 0 {
		return Cell{}, false, nil
	}
	g := a.GroupConcat
	if len(g.OrderBy) > 0 {
		orders := make([]keyOrder, len(g.OrderBy))
		for i, k := range g.OrderBy {
			orders[i] = orderOf(spec, k.Column)
			// MariaDB's GROUP_CONCAT sorts a NULL as its type's zero (0,
			// ''): it compares the stored field, not its NULL flag
			// (GROUP_CONCAT(id ORDER BY score, id) puts score 0 among the
			// NULLs, by id).
			for _, it := range s.items {
				zeroNull(it.row, k.Column, spec.Kinds[k.Column])
			}
		}
		slices.SortStableFunc(s.items, func(x, y concatItem) int { return compareRows(x.row, y.row, g.OrderBy, orders) })
	}
	items := s.items
	if a.Func == AggGroupConcatDistinct {
		o := orderOf(spec, g.ValueColumn)
		seen := make(map[string]struct{}, len(items))
		var kept []concatItem
		var key []byte
		for _, it := range items {
			key = o.appendKey(key[:0], it.row)
			if _, dup := seen[string(key)]; dup {
				continue
			}
			seen[string(key)] = struct{}{}
			kept = append(kept, it)
		}
		items = kept
	}
	intAt := func(row []Cell, col int) int64 {
		n, _ := anyInt(row[col].Value())
		return n
	}
	maxLen := intAt(items[0].row, g.MaxLengthColumn)
	sepLen := intAt(items[0].row, g.SeparatorLengthColumn)
	var out []byte
	var length int64 // in the value's character set
	first := true
	// add appends a piece of byteLen bytes and charLen characters in the
	// value's character set; false once the result is cut.
	add := func(text []byte, byteLen, charLen int64) (bool, error) {
		if length+byteLen <= maxLen {
			out = append(out, text...)
			length += byteLen
			return true, nil
		}
		budget := maxLen - length // bytes of this piece that still fit
		switch {
		case byteLen == charLen && int64(len(text)) == byteLen: // one byte a character, as received
			out = append(out, text[:budget]...)
		case byteLen == charLen: // one byte a character, received as UTF-8
			n := 0
			for i := int64(0); i < budget && n < len(text); i++ {
				_, w := utf8.DecodeRune(text[n:])
				n += w
			}
			out = append(out, text[:n]...)
		case int64(len(text)) == byteLen: // a multi-byte character set, received as is (UTF-8)
			n := int(budget)
			for n > 0 && n < len(text) && !utf8.RuneStart(text[n]) {
				n--
			}
			out = append(out, text[:n]...)
		default:
			return false, errors.New("GROUP_CONCAT over several data nodes: the result passes group_concat_max_len, and its character set differs from the connection's, so the cut cannot be placed exactly")
		}
		return false, nil
	}
	sep := []byte(g.Separator)
	sepChars := int64(utf8.RuneCount(sep))
	for _, it := range items {
		n := int64(1)
		if a.Func == AggGroupConcat {
			n = intAt(it.row, a.CountColumn)
		}
		v := &it.row[g.ValueColumn]
		text := v.Bytes()
		if v.kind != CellBytes {
			text = []byte(v.String())
		}
		for range n {
			if !first {
				ok, err := add(sep, sepLen, sepChars)
				if err != nil || !ok {
					return BytesCell(out), true, err
				}
			}
			first = false
			ok, err := add(text, intAt(it.row, g.LengthColumn), intAt(it.row, g.CharLengthColumn))
			if err != nil || !ok {
				return BytesCell(out), true, err
			}
		}
	}
	if out == nil {
		out = []byte{}
	}
	return BytesCell(out), false, nil
}

// zeroNull replaces a NULL in column col of row by its type's zero value
// (and an empty sort key for text compared by WEIGHT_STRING).
func zeroNull(row []Cell, col int, k ColumnKind) {
	if !row[col].IsNull() {
		return
	}
	switch k.Type {
	case ColumnInt, ColumnUint, ColumnDecimal, ColumnFloat:
		row[col] = IntCell(0)
	case ColumnString, ColumnBytes:
		row[col] = BytesCell([]byte{})
		if k.Weight > 0 {
			row[k.Weight], row[k.Weight+1] = BytesCell([]byte{}), BytesCell([]byte{})
		}
	}
}
