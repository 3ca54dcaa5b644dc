package runtime

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// StrategyKind is the kind of a sharding strategy at run time.
type StrategyKind uint8

const (
	// NoStrategy routes to every target (ShardingSphere's `none`).
	NoStrategy StrategyKind = iota
	// StandardStrategy routes on one column with a StandardAlgorithm.
	StandardStrategy
	// ComplexStrategy routes on several columns with a ComplexAlgorithm.
	ComplexStrategy
	// HintStrategy routes on hint values with a HintAlgorithm.
	HintStrategy
)

// StrategyConfig configures one side (database or table) of a
// ShardingTable.
type StrategyConfig struct {
	Kind      StrategyKind
	Columns   []string  // standard: one column; complex: several
	Algorithm Algorithm // nil for NoStrategy
}

// ShardingTable routes one logic table over its data nodes the way
// ShardingSphere's standard route engine does: the database strategy picks
// data sources, then, inside each, the table strategy picks actual tables.
// Node indexes are positions in the data node list given to
// NewShardingTable (actualDataNodes order). It is immutable once built and
// safe for concurrent use.
type ShardingTable struct {
	nodes       []DataNode
	dataSources []string // distinct, in order of first appearance
	layout      [][]int  // layout[ds][t]: node index of the t-th table of data source ds
	db          sideRouter
	tables      []sideRouter // per data source
}

type sideRouter struct {
	kind     StrategyKind
	columns  []string
	standard StandardRouter
	complex  ComplexRouter
	hint     HintRouter
	n        int // number of targets
}

// NewShardingTable binds the strategies of one logic table to its data
// nodes. Errors come from binding the algorithms (see BindStandard).
func NewShardingTable(nodes []DataNode, database, table StrategyConfig) (*ShardingTable, error) {
	if len(nodes) == 0 {
		return nil, errors.New("sharding table has no data nodes")
	}
	t := &ShardingTable{nodes: slices.Clone(nodes)}
	dsIndex := map[string]int{}
	for i, n := range nodes {
		d, ok := dsIndex[n.DataSource]
		if !ok {
			d = len(t.dataSources)
			dsIndex[n.DataSource] = d
			t.dataSources = append(t.dataSources, n.DataSource)
			t.layout = append(t.layout, nil)
		}
		t.layout[d] = append(t.layout[d], i)
	}
	var err error
	if t.db, err = bindSide(database, t.dataSources); err != nil {
		return nil, fmt.Errorf("database strategy: %w", err)
	}
	t.tables = make([]sideRouter, len(t.dataSources))
	for d := range t.dataSources {
		names := make([]string, len(t.layout[d]))
		for i, n := range t.layout[d] {
			names[i] = nodes[n].Table
		}
		if t.tables[d], err = bindSide(table, names); err != nil {
			return nil, fmt.Errorf("table strategy on data source %q: %w", t.dataSources[d], err)
		}
	}
	return t, nil
}

func bindSide(c StrategyConfig, targets []string) (sideRouter, error) {
	r := sideRouter{kind: c.Kind, columns: c.Columns, n: len(targets)}
	var err error
	switch c.Kind {
	case NoStrategy:
	case StandardStrategy:
		a, ok := c.Algorithm.(StandardAlgorithm)
		if !ok || len(c.Columns) != 1 {
			return r, errors.New("standard strategy needs one column and a standard algorithm")
		}
		r.standard, err = a.BindStandard(c.Columns[0], targets)
	case ComplexStrategy:
		a, ok := c.Algorithm.(ComplexAlgorithm)
		if !ok {
			return r, errors.New("complex strategy needs a complex algorithm")
		}
		r.complex, err = a.BindComplex(c.Columns, targets)
	case HintStrategy:
		a, ok := c.Algorithm.(HintAlgorithm)
		if !ok {
			return r, errors.New("hint strategy needs a hint algorithm")
		}
		r.hint, err = a.BindHint(targets)
	}
	return r, err
}

// Nodes returns the data nodes in order. The caller must not modify it.
func (t *ShardingTable) Nodes() []DataNode { return t.nodes }

// DataSources returns the distinct data sources in order of first
// appearance. The caller must not modify it.
func (t *ShardingTable) DataSources() []string { return t.dataSources }

// DataSourceOf returns the index in DataSources of node's data source.
func (t *ShardingTable) DataSourceOf(node int) int {
	for d, l := range t.layout {
		for _, n := range l {
			if n == node {
				return d
			}
		}
	}
	return -1
}

// PreciseNode returns the node of a row whose database sharding value is
// dbv and table sharding value is tv, for standard (or none, with one target)
// strategies: the single-node fast path. It does not allocate for integer
// values. A side with no strategy must have exactly one target, else the
// route is not a single node and ErrNotSingleNode is returned.
func (t *ShardingTable) PreciseNode(dbv, tv Value) (int, error) {
	d, err := t.db.precise(dbv)
	if err != nil {
		return -1, err
	}
	ti, err := t.tables[d].precise(tv)
	if err != nil {
		return -1, err
	}
	return t.layout[d][ti], nil
}

// PreciseColumn returns the data node that the single value v of sharding
// column column reaches when that one condition decides both sides: each
// side is a standard strategy on column, or has no strategy and one target.
// ok is false when it does not (another column or a complex or hint
// strategy decides a side, a side without strategy has several targets),
// when v is NULL, or when the algorithm fails on v: the caller then routes
// with RouteConditions or RouteAll, which give the full answer or the
// error. It does not allocate for integer values: the point-select fast
// path of the proxy's planner (plan.Builder.Units).
func (t *ShardingTable) PreciseColumn(column string, v Value) (node int, ok bool) {
	if v.IsNull() {
		return -1, false
	}
	d, ok := t.db.preciseColumn(column, v)
	if !ok {
		return -1, false
	}
	ti, ok := t.tables[d].preciseColumn(column, v)
	if !ok {
		return -1, false
	}
	return t.layout[d][ti], true
}

func (s *sideRouter) preciseColumn(column string, v Value) (int, bool) {
	switch s.kind {
	case StandardStrategy:
		if !strings.EqualFold(s.columns[0], column) {
			return -1, false
		}
		i, err := s.standard.Precise(padSpace(v))
		return i, err == nil
	case NoStrategy:
		return 0, s.n == 1
	}
	return -1, false
}

// ErrNotSingleNode: a single-node route was asked of a strategy that can
// reach several targets.
var ErrNotSingleNode = errors.New("route reaches more than one data node")

func (s *sideRouter) precise(v Value) (int, error) {
	switch s.kind {
	case StandardStrategy:
		return s.standard.Precise(padSpace(v))
	case NoStrategy:
		if s.n == 1 {
			return 0, nil
		}
	}
	return -1, ErrNotSingleNode
}

// ShardingValues are the values one AND-group of sharding conditions gives a
// column: a list (`=`, `IN`) or a range. Both empty means no condition.
type ShardingValues struct {
	Column string
	Values []Value
	Range  *Range
}

// Route appends to dst the nodes one AND-group of conditions reaches,
// ascending and without duplicates. A column without conditions routes its
// side to every target. Hint strategies take hint values from hints (nil:
// every target).
func (t *ShardingTable) Route(dst []int, conds []ShardingValues, hints HintValues) ([]int, error) {
	dss, err := t.db.route(nil, conds, hints.Database)
	if err != nil {
		return dst, err
	}
	var tis []int
	start := len(dst)
	var split *splitRoute
	whole := false // some data source held the target of every value
	for _, d := range dss {
		tis, err = t.tables[d].route(tis[:0], conds, hints.Table)
		if errors.Is(err, ErrNoTarget) && len(dss) > 1 {
			// Some value's table lives on another data source (an
			// autoTable, or a layout the database strategy does not
			// split): ShardingSphere's standard strategy skips, on this
			// data source, each value whose target it does not hold.
			if split == nil {
				split = newSplitRoute(&t.tables[d], conds, hints.Table)
			}
			tis, err = split.route(tis[:0], &t.tables[d])
		} else if err == nil {
			whole = true
		}
		if err != nil {
			return dst, err
		}
		for _, ti := range tis {
			dst = append(dst, t.layout[d][ti])
		}
	}
	if split != nil && !whole {
		if err := split.unplaced(); err != nil {
			return dst, err
		}
	}
	slices.Sort(dst[start:])
	return append(dst[:start], slices.Compact(dst[start:])...), nil
}

// splitRoute routes the table side of one AND-group value by value (one
// combination of the values of its sharding columns, or one hint value, at
// a time) on the data sources that do not hold every value's target. A
// value that has a target on none of the data sources routed is an error
// (its ErrNoTarget); ShardingSphere would route it nowhere, but a row must
// be placed and a SELECT's value is refused as when it is alone.
type splitRoute struct {
	combos [][]ShardingValues // one single-value AND-group per combination (nil: hints)
	hints  [][]Value          // one single-value hint list per hint value
	errs   []error            // errs[k]: combination k has no target yet; nil once placed
}

// newSplitRoute lists the single-value combinations of the conditions of
// side s: the cartesian product of the value lists of its columns (ranges
// are kept as they are), or its hint values one at a time.
func newSplitRoute(s *sideRouter, conds []ShardingValues, hints []Value) *splitRoute {
	sp := &splitRoute{}
	if s.kind == HintStrategy {
		for i := range hints {
			sp.hints = append(sp.hints, hints[i:i+1])
		}
		sp.errs = make([]error, len(sp.hints))
		return sp
	}
	sp.combos = [][]ShardingValues{slices.Clone(conds)}
	for i := range conds {
		if len(conds[i].Values) < 2 || !slices.ContainsFunc(s.columns, func(c string) bool { return strings.EqualFold(c, conds[i].Column) }) {
			continue
		}
		var next [][]ShardingValues
		for _, g := range sp.combos {
			for j := range conds[i].Values {
				c := slices.Clone(g)
				c[i].Values = conds[i].Values[j : j+1]
				next = append(next, c)
			}
		}
		sp.combos = next
	}
	sp.errs = make([]error, len(sp.combos))
	return sp
}

// route appends to dst the targets of side s that hold the target of some
// combination, recording which combinations found one.
func (sp *splitRoute) route(dst []int, s *sideRouter) ([]int, error) {
	start := len(dst)
	n := max(len(sp.combos), len(sp.hints))
	for k := 0; k < n; k++ {
		var err error
		before := len(dst)
		if sp.combos != nil {
			dst, err = s.route(dst, sp.combos[k], nil)
		} else {
			dst, err = s.route(dst, nil, sp.hints[k])
		}
		switch {
		case errors.Is(err, ErrNoTarget):
			dst = dst[:before]
			if !sp.placed(k) {
				sp.errs[k] = err
			}
		case err != nil:
			return dst[:start], err
		default:
			sp.errs[k] = errPlaced
		}
	}
	return sortUniqueFrom(dst, start), nil
}

// errPlaced marks a combination that found a target.
var errPlaced = errors.New("placed")

func (sp *splitRoute) placed(k int) bool { return sp.errs[k] == errPlaced }

// unplaced returns the error of the first combination no data source held
// a target for, or nil.
func (sp *splitRoute) unplaced() error {
	for k, err := range sp.errs {
		if !sp.placed(k) && err != nil {
			return err
		}
	}
	return nil
}

// columnsChecker is a ComplexRouter that refuses some conditions for the
// columns they give values for, whatever the values
// (complexInlineRouter.CheckColumns).
type columnsChecker interface {
	CheckColumns(valued func(i int) bool) error
}

// CheckColumns returns the error Route returns for every AND-group that
// compares exactly the columns valued with = or IN (values that are not
// NULL) and the columns ranged with a range, whatever the values: a
// complex strategy given values for some of its columns but not for a
// column its COMPLEX_INLINE expression reads or its sharding-columns
// lists (ShardingSphere fails such a statement on every execution). nil
// when such a group may route. The planner refuses such a group at
// generate time.
func (t *ShardingTable) CheckColumns(valued, ranged []string) error {
	has := func(cols []string, c string) bool {
		return slices.ContainsFunc(cols, func(x string) bool { return strings.EqualFold(x, c) })
	}
	sides := append([]*sideRouter{&t.db}, make([]*sideRouter, len(t.tables))...)
	for d := range t.tables {
		sides[d+1] = &t.tables[d]
	}
	for _, s := range sides {
		ch, ok := s.complex.(columnsChecker)
		if s.kind != ComplexStrategy || !ok {
			continue
		}
		constrained := false
		for _, c := range s.columns {
			if has(ranged, c) {
				constrained = false // a range routes the side on its own
				break
			}
			constrained = constrained || has(valued, c)
		}
		if !constrained {
			continue
		}
		if err := ch.CheckColumns(func(i int) bool { return has(valued, s.columns[i]) }); err != nil {
			return err
		}
	}
	return nil
}

// RouteAll returns the union of Route over every AND-group (disjunctive
// normal form), ascending and without duplicates.
func (t *ShardingTable) RouteAll(groups [][]ShardingValues, hints HintValues) ([]int, error) {
	var out []int
	var err error
	for _, g := range groups {
		if out, err = t.Route(out, g, hints); err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// RouteConditions is RouteAll for the sharding conditions of a SELECT,
// UPDATE or DELETE, where a NULL sharding value matches no row, as MySQL
// compares (`col = NULL` and `col IN (NULL)` are never true; `col > NULL`,
// `col BETWEEN NULL AND 5` neither): NULL values are dropped from a
// column's value list; an AND-group in which a column is left with no value,
// or whose range has a NULL bound, reaches no data node; when every group
// reaches none, the result is empty (not nil) and the statement runs
// nowhere. ShardingSphere itself hands NULL to the algorithm, which fails
// (ModShardingAlgorithm, InlineShardingAlgorithm); shardgen follows the
// database. Hint values are not conditions and pass as they are.
//
// INSERT rows must use RouteAll, which refuses NULL (a row must be placed).
// Without a NULL value it allocates no more than RouteAll.
func (t *ShardingTable) RouteConditions(groups [][]ShardingValues, hints HintValues) ([]int, error) {
	out := []int{}
	var err error
	for _, g := range groups {
		g, ok := nonNull(g)
		if !ok {
			continue // this AND-group matches no row
		}
		if out, err = t.Route(out, g, hints); err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// nonNull returns g without its NULL values, and false when g can match no
// row: a column whose values are all NULL, or a range with a NULL bound. g
// is returned as it is (no copy) when it holds no NULL.
func nonNull(g []ShardingValues) ([]ShardingValues, bool) {
	copied := false
	for i := range g {
		sv := &g[i]
		if r := sv.Range; r != nil && (r.HasLower && r.Lower.IsNull() || r.HasUpper && r.Upper.IsNull()) {
			return nil, false
		}
		nulls := 0
		for _, v := range sv.Values {
			if v.IsNull() {
				nulls++
			}
		}
		if nulls == 0 {
			continue
		}
		if nulls == len(sv.Values) {
			return nil, false
		}
		if !copied {
			g = slices.Clone(g)
			copied = true
			sv = &g[i]
		}
		vals := make([]Value, 0, len(sv.Values)-nulls)
		for _, v := range sv.Values {
			if !v.IsNull() {
				vals = append(vals, v)
			}
		}
		sv.Values = vals
	}
	return g, true
}

// HintValues are the values of ShardingSphere's HintManager for one logic
// table: database and table sharding values.
type HintValues struct {
	Database []Value
	Table    []Value
}

func (s *sideRouter) route(dst []int, conds []ShardingValues, hints []Value) ([]int, error) {
	switch s.kind {
	case StandardStrategy:
		c := find(conds, s.columns[0])
		if c == nil {
			return all(dst, s.n), nil
		}
		if c.Range != nil {
			r := *c.Range
			r.Lower, r.Upper = padSpace(r.Lower), padSpace(r.Upper)
			return s.standard.Range(dst, r)
		}
		start := len(dst)
		for _, v := range c.Values {
			i, err := s.standard.Precise(padSpace(v))
			if err != nil {
				return dst, err
			}
			dst = append(dst, i)
		}
		slices.Sort(dst[start:])
		return append(dst[:start], slices.Compact(dst[start:])...), nil
	case ComplexStrategy:
		values := make([][]Value, len(s.columns))
		ranges := make([]*Range, len(s.columns))
		constrained := false
		for i, col := range s.columns {
			if c := find(conds, col); c != nil {
				values[i], ranges[i] = padSpaces(c.Values), c.Range
				if r := c.Range; r != nil && (padded(r.Lower) || padded(r.Upper)) {
					nr := *r
					nr.Lower, nr.Upper = padSpace(r.Lower), padSpace(r.Upper)
					ranges[i] = &nr
				}
				constrained = true
			}
		}
		if !constrained {
			return all(dst, s.n), nil
		}
		return s.complex.Route(dst, values, ranges)
	case HintStrategy:
		return s.hint.Route(dst, hints)
	}
	return all(dst, s.n), nil
}

// padSpace returns v without the trailing spaces (U+0020) of a String
// value, before any sharding algorithm sees it: under the PAD SPACE
// collations (every MariaDB collation but *_nopad_*, MySQL's but the 0900
// family) `code = 'ab'` matches the rows 'ab', 'ab ' and 'ab  ' alike, so
// all of them must live on one data node, and a CHAR column stores 'ab ' as
// 'ab'. Under a NO PAD collation the values differ but still route
// together, which is harmless. ShardingSphere routes by the spelling, so a
// value with trailing spaces is the one placement that differs from it.
// Other kinds, and strings without a trailing space, are returned as they
// are (no allocation).
func padSpace(v Value) Value {
	if padded(v) {
		v.Str = strings.TrimRight(v.Str, " ")
	}
	return v
}

func padded(v Value) bool { return v.Kind == KindString && strings.HasSuffix(v.Str, " ") }

// padSpaces is padSpace over vs, copying vs only when a value changes.
func padSpaces(vs []Value) []Value {
	if !slices.ContainsFunc(vs, padded) {
		return vs
	}
	out := make([]Value, len(vs))
	for i, v := range vs {
		out[i] = padSpace(v)
	}
	return out
}

func find(conds []ShardingValues, col string) *ShardingValues {
	for i := range conds {
		if strings.EqualFold(conds[i].Column, col) && (len(conds[i].Values) > 0 || conds[i].Range != nil) {
			return &conds[i]
		}
	}
	return nil
}

func all(dst []int, n int) []int {
	for i := 0; i < n; i++ {
		dst = append(dst, i)
	}
	return dst
}

// ErrShardingValueMoves: an UPDATE sets a sharding column to a value that
// does not route the row back to its own data node, or the statement
// reaches several data nodes, so rows could have to move between data
// nodes, which one statement on one data node cannot do (ShardingSphere's
// UnsupportedUpdatingShardingValueException). The statement runs nowhere.
var ErrShardingValueMoves = errors.New("the row would have to move to another data node; delete and re-insert it instead")

// UpdateStaysOnNode checks, before it runs, an UPDATE that sets sharding
// columns of this table (logicTable names it): assigned holds the new value
// of each column set (one value each), nodes are the data nodes the
// statement routes to, and rows are the sharding conditions of the updated
// rows (the statement's, each set column's replaced by `=` its new value).
// ShardingSphere allows such an UPDATE where the route of the new values is
// the statement's own (ShardingUpdateStatementValidator); here every row
// must stay on its data node:
//
//   - a strategy side (database or table) that reads no set column keeps
//     each row's target;
//   - a side that reads only set columns routes every row to the one target
//     of the new values, which must be the target of every data node in
//     nodes (on its data source, for a table strategy);
//   - a complex strategy that reads set and other columns is decided only
//     for a statement on one data node that rows routes to exactly.
//
// It returns nil when nodes is empty (the statement runs nowhere) or every
// row stays. Otherwise the error wraps ErrShardingValueMoves and names the
// data nodes, or wraps the algorithm's error (e.g. ErrNullShardingValue for
// a NULL new value).
func (t *ShardingTable) UpdateStaysOnNode(logicTable string, nodes []int, assigned []ShardingValues, rows [][]ShardingValues) error {
	cols := make([]string, len(assigned))
	for i, a := range assigned {
		cols[i] = a.Column
	}
	columns := strings.Join(cols, ", ")
	for _, n := range nodes {
		if n < 0 || n >= len(t.nodes) {
			return fmt.Errorf("UPDATE of %s: data node %d is outside its %d data nodes", logicTable, n, len(t.nodes))
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	moves := func(from int) error {
		to, err := t.RouteAll(rows, HintValues{})
		dest := "another data node"
		if err == nil && len(to) > 0 {
			dest = t.nodeList(to)
		}
		return fmt.Errorf("UPDATE sets sharding column %s of %s to a value that routes to %s, not to the row's data node %s: %w",
			columns, logicTable, dest, t.nodes[from], ErrShardingValueMoves)
	}
	failed := func(err error) error {
		return fmt.Errorf("UPDATE sets sharding column %s of %s: %w", columns, logicTable, err)
	}
	dsNew, dbSet, mixed, err := t.db.assignedTarget(assigned)
	if err != nil {
		return failed(err)
	}
	for _, n := range nodes {
		d := t.DataSourceOf(n)
		if dbSet && d != dsNew {
			return moves(n)
		}
		tNew, tbSet, tbMixed, err := t.tables[d].assignedTarget(assigned)
		switch {
		case errors.Is(err, ErrNoTarget):
			return moves(n) // the new value's table is on another data source
		case err != nil:
			return failed(err)
		case tbSet && t.layout[d][tNew] != n:
			return moves(n)
		}
		mixed = mixed || tbMixed
	}
	if !mixed {
		return nil
	}
	if len(nodes) > 1 {
		return fmt.Errorf("UPDATE sets sharding column %s of %s, which a complex strategy reads with other columns, on %d data nodes (%s); it may do so only where it reaches one data node: %w",
			columns, logicTable, len(nodes), t.nodeList(nodes), ErrShardingValueMoves)
	}
	to, err := t.RouteAll(rows, HintValues{})
	if err != nil {
		return failed(err)
	}
	if len(to) != 1 || to[0] != nodes[0] {
		return moves(nodes[0])
	}
	return nil
}

// assignedTarget returns the one target of this side for the new values
// of the columns an UPDATE sets: set is false when the side reads none of
// them (each row keeps its target), mixed when it is a complex strategy
// that reads some of them and other columns (the caller decides by the
// rows' conditions).
func (s *sideRouter) assignedTarget(assigned []ShardingValues) (target int, set, mixed bool, err error) {
	switch s.kind {
	case StandardStrategy:
		c := find(assigned, s.columns[0])
		if c == nil {
			return -1, false, false, nil
		}
		i, err := s.standard.Precise(padSpace(c.Values[0]))
		return i, true, false, err
	case ComplexStrategy:
		n := 0
		for _, col := range s.columns {
			if find(assigned, col) != nil {
				n++
			}
		}
		switch {
		case n == 0:
			return -1, false, false, nil
		case n < len(s.columns):
			return -1, false, true, nil
		}
		tis, err := s.route(nil, assigned, nil)
		if err != nil {
			return -1, false, false, err
		}
		if len(tis) != 1 {
			return -1, false, true, nil
		}
		return tis[0], true, false, nil
	}
	return -1, false, false, nil // no strategy, hint: values do not move rows
}

// nodeList names the data nodes nodes, e.g. "ds_0.t_order_1, ds_1.t_order_1",
// eliding the middle of a long list.
func (t *ShardingTable) nodeList(nodes []int) string {
	const most = 4
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == most-1 && len(nodes) > most {
			b.WriteString("... " + t.nodes[nodes[len(nodes)-1]].String())
			break
		}
		b.WriteString(t.nodes[n].String())
	}
	return b.String()
}
