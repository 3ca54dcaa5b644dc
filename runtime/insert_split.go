package runtime

import (
	"fmt"
	"strings"
)

// InsertSplit builds the per-data-node statements of a multi-row INSERT on a
// sharded table: every data node gets only its own rows, in their original
// order, and the rows of one node travel in one statement
// (ShardingSphere's multi-row INSERT rewrite, ../shared/spec §10). All text
// is precomputed at generate time; building a unit only joins strings.
//
// e.g. for `INSERT INTO t (id, v) VALUES (?, ?), (?, ?) ON DUPLICATE KEY
// UPDATE v = ?`: Heads[i] = "INSERT INTO t_<i> (id, v) VALUES ", Rows =
// ["(?, ?)", "(?, ?)"], Tails[i] = " ON DUPLICATE KEY UPDATE v = ?".
type InsertSplit struct {
	Heads []string `json:"heads"` // per data node (route unit index): the text before the first row
	Rows  []string `json:"rows"`  // per VALUES row: its text, placeholders included
	Sep   string   `json:"sep"`   // the text between two rows, e.g. ", "
	Tails []string `json:"tails"` // per data node: the text after the last row
}

// Units returns one route unit per data node that receives rows, in the
// order the nodes first appear among the rows. rowNode[r] is the data node
// (index into Heads and all) of row r; rowArgs[r] are row r's arguments
// and tailArgs the arguments of the tail (ON DUPLICATE KEY UPDATE), copied to
// every node. all is the statement's unit table: it gives each node's data
// source. Errors: mismatched lengths or a node out of range.
func (s *InsertSplit) Units(all []RouteUnit, rowNode []int, rowArgs [][]any, tailArgs []any) ([]RouteUnit, error) {
	if len(rowNode) != len(s.Rows) || len(rowArgs) != len(s.Rows) {
		return nil, fmt.Errorf("insert split: %d rows, %d nodes, %d argument lists", len(s.Rows), len(rowNode), len(rowArgs))
	}
	var order []int
	rowsOf := map[int][]int{}
	for r, n := range rowNode {
		if n < 0 || n >= len(s.Heads) || n >= len(s.Tails) || n >= len(all) {
			return nil, fmt.Errorf("insert split: row %d routed to data node %d of %d", r+1, n, len(s.Heads))
		}
		if _, seen := rowsOf[n]; !seen {
			order = append(order, n)
		}
		rowsOf[n] = append(rowsOf[n], r)
	}
	units := make([]RouteUnit, 0, len(order))
	for _, n := range order {
		var b strings.Builder
		b.WriteString(s.Heads[n])
		args := []any{}
		for i, r := range rowsOf[n] {
			if i > 0 {
				b.WriteString(s.Sep)
			}
			b.WriteString(s.Rows[r])
			args = append(args, rowArgs[r]...)
		}
		b.WriteString(s.Tails[n])
		args = append(args, tailArgs...)
		units = append(units, RouteUnit{DataSource: all[n].DataSource, SQL: b.String(), Args: args})
	}
	return units, nil
}
