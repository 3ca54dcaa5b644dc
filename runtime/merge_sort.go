package runtime

import "io"

// concatRows is ShardingSphere's iterator stream merge
// (IteratorStreamMergedResult): the rows of every source, source after
// source, in route order. It is used when nothing orders or combines rows,
// and under the in-memory group-by, which reads every row anyway. It holds
// no row of its own.
type concatRows struct {
	sources []RowSource
	spec    *MergeSpec
	i       int   // current source
	err     error // sticky error
}

// Next returns the current source's next row, moving to the next source
// at each io.EOF.
func (c *concatRows) Next() ([]Cell, error) {
	if c.err != nil {
		return nil, c.err
	}
	for c.i < len(c.sources) {
		row, err := c.sources[c.i].Next()
		if err == io.EOF {
			c.i++
			continue
		}
		if err == nil {
			err = checkRow(c.spec, row, c.i)
		}
		if err != nil {
			c.err = err
			return nil, err
		}
		return row, nil
	}
	return nil, io.EOF
}

// sortMerge is the order-by stream merge (ShardingSphere's
// OrderByStreamMergedResult; vitess engine.MergeSort does the same). Every
// source returns its rows already sorted by the ORDER BY keys, because the
// rewrite sends the ORDER BY to every node. The merge keeps each source's
// current row and a binary min-heap of the sources ordered by those rows:
// the root is the source whose current row comes first overall. Next
// returns the root's row; on the following call it advances that source
// (its row is only valid until then, see RowSource) and sifts the root
// down, or removes it when the source is exhausted. So a merge of k
// sources holds k rows, costs O(log k) comparisons per row, and returns
// its first row after reading one row per source; a LIMIT above it stops
// reading as soon as it has its rows.
//
// Ties (rows equal on every key) go to the source with the lower index, so
// the output is deterministic; MySQL leaves their order unspecified.
// Comparison is ColumnKind.Compare per key (NULL first ASC, last DESC;
// numbers numerically; strings by collation).
type sortMerge struct {
	sources []RowSource
	keys    []SortKey
	orders  []keyOrder // per key
	spec    *MergeSpec
	rows    [][]Cell // current row per source
	heap    []int    // source indexes; heap[0] is the least
	started bool
	pending bool  // heap[0]'s row was returned: advance it before the next
	err     error // sticky error
}

// newSortMerge returns the order-by stream merge of sources by keys.
func newSortMerge(spec *MergeSpec, keys []SortKey, sources []RowSource) *sortMerge {
	m := &sortMerge{
		sources: sources,
		keys:    keys,
		orders:  make([]keyOrder, len(keys)),
		spec:    spec,
		rows:    make([][]Cell, len(sources)),
		heap:    make([]int, 0, len(sources)),
	}
	for i, k := range keys {
		m.orders[i] = orderOf(spec, k.Column)
	}
	return m
}

// Next advances the source whose row was returned last and returns the
// least current row.
func (m *sortMerge) Next() ([]Cell, error) {
	if m.err != nil {
		return nil, m.err
	}
	if !m.started {
		m.started = true
		for i := range m.sources {
			ok, err := m.fetch(i)
			if err != nil {
				return nil, err
			}
			if ok {
				m.heap = append(m.heap, i)
				m.up(len(m.heap) - 1)
			}
		}
	} else if m.pending {
		m.pending = false
		ok, err := m.fetch(m.heap[0])
		if err != nil {
			return nil, err
		}
		if !ok {
			last := len(m.heap) - 1
			m.heap[0] = m.heap[last]
			m.heap = m.heap[:last]
		}
		m.down(0)
	}
	if len(m.heap) == 0 {
		return nil, io.EOF
	}
	m.pending = true
	return m.rows[m.heap[0]], nil
}

// fetch reads source i's next row into rows[i]; false at its end.
func (m *sortMerge) fetch(i int) (bool, error) {
	row, err := m.sources[i].Next()
	if err == io.EOF {
		m.rows[i] = nil
		return false, nil
	}
	if err == nil {
		err = checkRow(m.spec, row, i)
	}
	if err != nil {
		m.err = err
		return false, err
	}
	m.rows[i] = row
	return true, nil
}

// less orders two sources by their current rows, then by index.
func (m *sortMerge) less(i, j int) bool {
	if c := compareRows(m.rows[i], m.rows[j], m.keys, m.orders); c != 0 {
		return c < 0
	}
	return i < j
}

// compareRows compares two rows by ORDER BY keys (orders: per key).
func compareRows(a, b []Cell, keys []SortKey, orders []keyOrder) int {
	for i, k := range keys {
		c := orders[i].compare(a, b)
		if c != 0 {
			if k.Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

func (m *sortMerge) up(i int) {
	h := m.heap
	for i > 0 {
		p := (i - 1) / 2
		if !m.less(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (m *sortMerge) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && m.less(h[r], h[l]) {
			c = r
		}
		if !m.less(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
