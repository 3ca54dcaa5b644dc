package runtime

import "io"

// limitRows is the pagination decorator (ShardingSphere's
// LimitDecoratorMergedResult for MySQL's LIMIT), the last stage of every
// merge: it skips the first skip merged rows, returns at most take rows
// (all when take < 0), and cuts every row to its visible columns, dropping
// the derived ones the rewrite added (ORDER_BY_DERIVED_i, AVG_DERIVED_*,
// ...).
//
// The nodes ran LIMIT 0, offset+count (the rewrite, §10), so each holds at
// most offset+count rows and skipping here gives the global page: with
// LIMIT 2, 3 over 4 nodes, every node returns its first 5 rows, the merge
// orders all of them and this stage drops 2 and returns 3. Skipping on
// every node instead would lose rows (case C01). Once take rows are
// returned it stops reading its input, so a LIMIT over an order-by stream
// reads only about offset+count+sources rows; LIMIT 0 reads nothing.
type limitRows struct {
	in      RowSource
	skip    int64 // rows still to skip
	take    int64 // rows still to return; < 0: no limit
	visible int
}

// Next skips what remains of the offset, then returns the next row cut
// to its visible columns, until the row count is reached.
func (l *limitRows) Next() ([]Cell, error) {
	if l.take == 0 {
		return nil, io.EOF
	}
	for l.skip > 0 {
		if _, err := l.in.Next(); err != nil {
			return nil, err
		}
		l.skip--
	}
	row, err := l.in.Next()
	if err != nil {
		return nil, err
	}
	if l.take > 0 {
		l.take--
	}
	return row[:l.visible:l.visible], nil
}
