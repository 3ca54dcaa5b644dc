package runtime

import (
	"io"
	"slices"
)

// group is one GROUP BY group being merged: a copy of its first row (the
// values of its non-aggregate columns, as MySQL shows an arbitrary member
// of the group; here the first one seen) and one accumulator per
// aggregate.
type group struct {
	row  []Cell
	aggs []aggState
}

// grouper holds what the group mergers share: the spec, the columns that
// identify a group and scratch space.
type grouper struct {
	spec   *MergeSpec
	cols   []int      // grouping columns
	orders []keyOrder // per grouping column
	buf    []byte     // scratch for distinct keys
	args   []any      // the statement's arguments (Computed, Having)
	// truncated counts the GROUP_CONCAT results cut at
	// group_concat_max_len.
	truncated int
}

func newGrouper(spec *MergeSpec, cols []int, args []any) *grouper {
	g := &grouper{spec: spec, cols: cols, orders: make([]keyOrder, len(cols)), args: args}
	for i, c := range cols {
		g.orders[i] = orderOf(spec, c)
	}
	return g
}

// start makes gr the group of row: copies row (cells and bytes) and adds it.
func (g *grouper) start(gr *group, row []Cell) {
	if gr.row == nil {
		gr.row = make([]Cell, len(row))
		gr.aggs = make([]aggState, len(g.spec.Aggregates))
	}
	for i := range row {
		gr.row[i] = row[i].clone()
	}
	for i := range gr.aggs {
		gr.aggs[i].reset()
	}
	g.add(gr, row)
}

// add accumulates row into gr's aggregates. With a FirstColumn, a row
// read earlier by its server (a lesser MIN(pk)) becomes the group's row.
func (g *grouper) add(gr *group, row []Cell) {
	if f := g.spec.FirstColumn; f > 0 && compareCells(&row[f], &gr.row[f], g.spec.Kinds[f].coll()) < 0 {
		for i := range row {
			gr.row[i] = row[i].clone()
		}
	}
	for i := range g.spec.Aggregates {
		g.buf = gr.aggs[i].add(&g.spec.Aggregates[i], g.spec.Kinds, row, g.buf)
	}
}

// finish writes gr's merged row into out (len Columns): its first row with
// every aggregate column replaced by the aggregate's result, then every
// computed column evaluated. keep is false when the spec's HAVING rejects
// the group. The error is an expression's (a BIGINT overflow, ...).
func (g *grouper) finish(gr *group, out []Cell) (keep bool, err error) {
	copy(out, gr.row)
	for i := range g.spec.Aggregates {
		a := &g.spec.Aggregates[i]
		if a.GroupConcat != nil {
			c, cut, err := gr.aggs[i].concatResult(a, g.spec)
			if err != nil {
				return false, err
			}
			if cut {
				g.truncated++
			}
			out[a.Column] = c
			continue
		}
		out[a.Column] = gr.aggs[i].result(a, g.spec.Kinds[a.Column].Type)
		if w := g.spec.Kinds[a.Column].Weight; w > 0 && (a.Func == AggMin || a.Func == AggMax) {
			out[w], out[w+1] = gr.aggs[i].bestWeight, gr.aggs[i].bestPad // the sort key of the result
		}
	}
	for i := range g.spec.Computed {
		c := &g.spec.Computed[i]
		v, err := evalExpr(&c.Expr, out, g.args)
		if err != nil {
			return false, err
		}
		out[c.Column] = v.cell()
	}
	if h := g.spec.Having; h != nil {
		v, err := evalExpr(h, out, g.args)
		if err != nil {
			return false, err
		}
		return xtruth(v) == 1, nil
	}
	return true, nil
}

// same reports whether two rows belong to one group.
func (g *grouper) same(a, b []Cell) bool {
	for i := range g.orders {
		if g.orders[i].compare(a, b) != 0 {
			return false
		}
	}
	return true
}

// appendKey appends the group key of row.
func (g *grouper) appendKey(dst []byte, row []Cell) []byte {
	for i := range g.orders {
		dst = g.orders[i].appendKey(dst, row)
	}
	return dst
}

// newGroupMerge returns the group-by merger spec asks for: the stream
// group-by over the order-by stream when StreamGroup (and not scalar),
// else the in-memory group-by; followed by a DISTINCT filter when DISTINCT
// comes on top of a GROUP BY or aggregates.
func newGroupMerge(spec *MergeSpec, args []any, sources []RowSource) RowSource {
	cols, distinctDone := spec.groupColumns()
	scalar := len(spec.Aggregates) > 0 && len(spec.GroupBy) == 0
	var in RowSource
	if spec.StreamGroup && !scalar {
		in = &streamGroup{
			in:  newSortMerge(spec, spec.OrderBy, sources),
			g:   newGrouper(spec, cols, args),
			out: make([]Cell, spec.Columns),
		}
	} else {
		in = &memoryGroup{
			in:     &concatRows{sources: sources, spec: spec},
			g:      newGrouper(spec, cols, args),
			scalar: scalar,
		}
	}
	if spec.Distinct && !distinctDone {
		in = newDistinctRows(spec, in)
	}
	return in
}

// streamGroup is the group-by stream merge (ShardingSphere's
// GroupByStreamMergedResult), used when the GROUP BY columns are the
// leading ORDER BY keys: every node returns its partial groups sorted by
// them, so the order-by stream (sortMerge) delivers all partial rows of a
// group one after the other, in the final order. streamGroup folds
// consecutive rows whose grouping columns compare equal into one group and
// emits it when the next group starts (or at the end). It holds one group
// (its first row, accumulators, and for DISTINCT aggregates the group's
// set of values), whatever the number of groups.
type streamGroup struct {
	in   RowSource // the order-by stream
	g    *grouper
	cur  group
	have bool // cur holds a group
	done bool
	out  []Cell
	err  error
}

// Next folds rows into the current group until one of the next group
// arrives, and returns the finished group's merged row (skipping groups
// HAVING rejects).
func (s *streamGroup) Next() ([]Cell, error) {
	for {
		row, err := s.next()
		if err != nil {
			return nil, err
		}
		keep, err := s.g.finish(&s.cur, s.out)
		if err != nil {
			return nil, s.fail(err)
		}
		if s.have {
			s.g.start(&s.cur, row)
		}
		if keep {
			return s.out, nil
		}
	}
}

// next reads up to the end of the current group. It returns the first row
// of the next group (s.have stays true), or nil at the end of the input
// (s.have false); either way s.cur holds the finished group, to be
// finished by the caller before the next row starts a new one.
func (s *streamGroup) next() ([]Cell, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.done {
		return nil, io.EOF
	}
	if !s.have {
		row, err := s.in.Next()
		if err != nil {
			return nil, s.fail(err)
		}
		s.g.start(&s.cur, row)
		s.have = true
	}
	for {
		row, err := s.in.Next()
		if err == io.EOF {
			s.done, s.have = true, false
			return nil, nil
		}
		if err != nil {
			return nil, s.fail(err)
		}
		if s.g.same(s.cur.row, row) {
			s.g.add(&s.cur, row)
			continue
		}
		return row, nil
	}
}

// fail ends the stream with err (io.EOF: normally).
func (s *streamGroup) fail(err error) error {
	if err == io.EOF {
		s.done = true
	} else {
		s.err = err
	}
	return err
}

// memoryGroup is the in-memory group-by merge (ShardingSphere's
// GroupByMemoryMergedResult), used when the nodes cannot return groups in
// the final order (GROUP BY differs from ORDER BY, e.g. ORDER BY COUNT(*),
// case C04). On the first Next it reads every row of every source,
// finds the row's group in a hash map keyed by the grouping columns'
// equality keys (appendKey: collation weights, canonical numbers), creates
// the group (a copy of the row) or adds the row to its aggregates; then it
// computes every group's merged row and sorts them by ORDER BY, ties (and
// a statement without ORDER BY) by the grouping columns ascending, then
// by first appearance. Memory is one row and the accumulators per group.
//
// A scalar aggregate (aggregates without GROUP BY) is one group with an
// empty key; when no node returned a row it still yields one row: COUNT 0,
// every other column NULL (MySQL's answer for an empty table).
type memoryGroup struct {
	in     RowSource // every source, concatenated
	g      *grouper
	scalar bool
	rows   [][]Cell // merged rows, sorted
	pos    int
	loaded bool
	err    error
}

// Next returns the next merged group, reading and grouping all input on
// the first call.
func (m *memoryGroup) Next() ([]Cell, error) {
	if m.err != nil {
		return nil, m.err
	}
	if !m.loaded {
		if err := m.load(); err != nil {
			m.err = err
			return nil, err
		}
		m.loaded = true
	}
	if m.pos >= len(m.rows) {
		return nil, io.EOF
	}
	m.pos++
	return m.rows[m.pos-1], nil
}

// load reads all input and builds the sorted merged rows.
func (m *memoryGroup) load() error {
	spec := m.g.spec
	var groups []*group
	index := make(map[string]int)
	var key []byte
	for {
		row, err := m.in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		key = m.g.appendKey(key[:0], row)
		if i, ok := index[string(key)]; ok {
			m.g.add(groups[i], row)
			continue
		}
		gr := &group{}
		m.g.start(gr, row)
		index[string(key)] = len(groups)
		groups = append(groups, gr)
	}
	if len(groups) == 0 && m.scalar {
		gr := &group{row: make([]Cell, spec.Columns), aggs: make([]aggState, len(spec.Aggregates))}
		groups = append(groups, gr)
	}
	m.rows = make([][]Cell, 0, len(groups))
	cells := make([]Cell, len(groups)*spec.Columns)
	for i, gr := range groups {
		row := cells[i*spec.Columns : (i+1)*spec.Columns : (i+1)*spec.Columns]
		keep, err := m.g.finish(gr, row)
		if err != nil {
			return err
		}
		if keep {
			m.rows = append(m.rows, row)
		}
	}
	if len(m.rows) > 1 {
		keys := spec.OrderBy
		orders := make([]keyOrder, len(keys))
		for i, k := range keys {
			orders[i] = orderOf(spec, k.Column)
			for _, a := range spec.Aggregates {
				if a.Column == k.Column && a.Func == AggCountDistinct {
					// The merged value is the count, not the (text)
					// argument the nodes returned in this column.
					orders[i] = keyOrder{col: k.Column, coll: CollationBinary}
				}
			}
		}
		slices.SortStableFunc(m.rows, func(a, b []Cell) int {
			if c := compareRows(a, b, keys, orders); c != 0 {
				return c
			}
			for i := range m.g.orders {
				if r := m.g.orders[i].compare(a, b); r != 0 {
					return r
				}
			}
			return 0
		})
	}
	return nil
}

// distinctRows drops a row equal (on every visible column, by each
// column's comparison) to one returned before: SELECT DISTINCT on top of a
// GROUP BY or aggregates, whose merged rows are distinct per group but not
// necessarily per visible columns. It keeps the input order and the keys
// of the rows returned.
type distinctRows struct {
	in   RowSource
	g    *grouper // grouping by the visible columns
	seen map[string]struct{}
	key  []byte
}

func newDistinctRows(spec *MergeSpec, in RowSource) *distinctRows {
	cols := make([]int, spec.Visible)
	for i := range cols {
		cols[i] = i
	}
	return &distinctRows{in: in, g: newGrouper(spec, cols, nil), seen: make(map[string]struct{})}
}

// Next returns the next row not equal to one returned before.
func (d *distinctRows) Next() ([]Cell, error) {
	for {
		row, err := d.in.Next()
		if err != nil {
			return nil, err
		}
		d.key = d.g.appendKey(d.key[:0], row)
		if _, dup := d.seen[string(d.key)]; dup {
			continue
		}
		d.seen[string(d.key)] = struct{}{}
		return row, nil
	}
}
