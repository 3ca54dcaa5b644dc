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

// Bulk INSERT bounds: a statement of Batches holds at most BulkMaxRows rows
// and about BulkMaxBytes bytes of SQL text and arguments, well under the
// smallest default max_allowed_packet of MySQL (4 MiB in 5.7; 64 MiB in 8.0,
// 16 MiB in MariaDB), and at most MaxPlaceholders placeholders.
const (
	BulkMaxRows  = 1000
	BulkMaxBytes = 1 << 20
)

// Batches builds the statements of a bulk INSERT (a :copyfrom query): s.Rows
// holds the text of one row, repeated once per row; every data node gets
// the rows routed to it (rowNode[r] indexes Heads, Tails and all), in their
// order, in as few statements as the bounds allow (BulkMaxRows rows,
// BulkMaxBytes bytes, MaxPlaceholders placeholders; a single row over the
// byte bound goes alone). rowArgs[r] are row r's arguments. A nil rowNode
// sends every row to every data node of all: the copies of a broadcast
// table. Units come in data node order, each node's statements in row
// order. Errors: mismatched lengths, a node out of range, a row whose
// argument count differs from its text's placeholders.
func (s *InsertSplit) Batches(all []RouteUnit, rowNode []int, rowArgs [][]any) ([]RouteUnit, error) {
	return s.batches(all, rowNode, rowArgs, BulkMaxRows, BulkMaxBytes)
}

func (s *InsertSplit) batches(all []RouteUnit, rowNode []int, rowArgs [][]any, maxRows, maxBytes int) ([]RouteUnit, error) {
	if len(s.Rows) != 1 {
		return nil, fmt.Errorf("bulk insert: the split has %d row texts, not one", len(s.Rows))
	}
	if rowNode != nil && len(rowNode) != len(rowArgs) {
		return nil, fmt.Errorf("bulk insert: %d rows but %d argument lists", len(rowNode), len(rowArgs))
	}
	row := s.Rows[0]
	perRow := strings.Count(row, "?")
	if perRow == 0 {
		perRow = 1 // rows of literals only: bound by rows and bytes
	}
	rowsOf := make([][]int, len(s.Heads))
	if rowNode == nil { // every row on every copy
		if len(all) > len(s.Heads) || len(all) > len(s.Tails) {
			return nil, fmt.Errorf("bulk insert: %d data nodes but %d heads and %d tails", len(all), len(s.Heads), len(s.Tails))
		}
		every := make([]int, len(rowArgs))
		for r := range every {
			every[r] = r
		}
		for n := range all {
			rowsOf[n] = every
		}
	}
	for r, n := range rowNode {
		if n < 0 || n >= len(s.Heads) || n >= len(s.Tails) || n >= len(all) {
			return nil, fmt.Errorf("bulk insert: row %d routed to data node %d of %d", r+1, n, len(s.Heads))
		}
		rowsOf[n] = append(rowsOf[n], r)
	}
	var units []RouteUnit
	for n, rows := range rowsOf {
		for len(rows) > 0 {
			size := len(s.Heads[n]) + len(s.Tails[n])
			k := 0
			for k < len(rows) && k < maxRows && (k+1)*perRow <= MaxPlaceholders {
				add := len(row) + len(s.Sep) + argsSize(rowArgs[rows[k]])
				if k > 0 && size+add > maxBytes {
					break
				}
				size += add
				k++
			}
			var b strings.Builder
			b.Grow(size)
			b.WriteString(s.Heads[n])
			args := make([]any, 0, k*perRow)
			for i, r := range rows[:k] {
				if i > 0 {
					b.WriteString(s.Sep)
				}
				b.WriteString(row)
				args = append(args, rowArgs[r]...)
			}
			b.WriteString(s.Tails[n])
			units = append(units, RouteUnit{DataSource: all[n].DataSource, SQL: b.String(), Args: args})
			rows = rows[k:]
		}
	}
	return units, nil
}

// argsSize estimates the bytes of args in a COM_STMT_EXECUTE packet: the
// length of text and binary values, 8 bytes for numbers and times.
func argsSize(args []any) int {
	n := 0
	for _, a := range args {
		switch v := a.(type) {
		case string:
			n += len(v) + 2
		case []byte:
			n += len(v) + 2
		case *string:
			if v != nil {
				n += len(*v) + 2
			}
		default:
			n += 9
		}
	}
	return n
}
