package runtime

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MergeSpec says how the results of several route units combine into the
// one result an unsharded MySQL returns for the statement: ShardingSphere's
// merge engine (features/sharding/core/.../merge/dql: iterator, order-by
// stream, group-by stream and memory mergers, aggregation units and the
// pagination decorator; ../shared/spec/shardingsphere.md §11), decided once
// by the planner and executed by Merge. It is plain data: generated code
// keeps it in a package-level variable, the proxy caches it with the plan,
// and `shardgen explain` prints it as JSON, e.g.
//
//	{"columns":4,"visible":1,
//	 "kinds":[{"type":"Decimal"},{"type":"Int"},{"type":"Decimal"},
//	          {"type":"String","collation":"utf8mb4_general_ci"}],
//	 "order_by":[{"column":3}],"group_by":[3],
//	 "aggregates":[{"column":0,"func":"Avg","sum_column":2,"count_column":1,"scale":4}],
//	 "offset":{"value":0},"count":{"value":-1},"stream_group":true}
//
// is SELECT AVG(val2) FROM aggr_test GROUP BY val1 ORDER BY val1 (case
// C02), whose nodes run SELECT AVG(val2), COUNT(val2), SUM(val2), val1 …
// GROUP BY val1 ORDER BY val1.
//
// The per-node SQL the spec goes with returns Columns columns: the
// statement's Visible columns, then the derived ones the rewrite appended
// (AVG's SUM and COUNT, ORDER BY and GROUP BY items not selected; §10;
// the sort keys of text, see ColumnKind.Weight),
// which Merge drops. Column indexes are 0-based positions in that row.
type MergeSpec struct {
	// Columns is the number of columns every node returns, derived ones
	// included. At least 1.
	Columns int `json:"columns"`
	// Visible is the number of leading columns returned to the caller
	// (1..Columns).
	Visible int `json:"visible"`
	// Kinds has one entry per column: how to decode, compare and aggregate
	// it.
	Kinds []ColumnKind `json:"kinds"`
	// OrderBy are the ORDER BY keys, most significant first. Without
	// grouping, every node must return its rows sorted by them (the
	// rewrite keeps the ORDER BY on every node) and Merge interleaves
	// them; with an in-memory group-by they sort the merged groups.
	OrderBy []SortKey `json:"order_by,omitempty"`
	// GroupBy are the GROUP BY columns. Two rows are one group when every
	// GROUP BY column compares equal (ColumnKind.Compare: 'abc' and 'ABC'
	// under a _ci collation, 5 and 5.00). A group shows the values of its
	// first row seen (in merge order) in every non-aggregate column, where
	// MySQL shows those of an arbitrary member: 'abc' or 'ABC'.
	GroupBy []int `json:"group_by,omitempty"`
	// Aggregates are the aggregate columns, combined per group. Aggregates
	// without GroupBy make a scalar aggregate: exactly one row, even when
	// no node returned any.
	Aggregates []AggregateSpec `json:"aggregates,omitempty"`
	// Distinct removes duplicate rows (SELECT DISTINCT): without grouping
	// it is a GROUP BY of every visible column; after a GROUP BY it drops
	// the later of two equal rows.
	Distinct bool `json:"distinct,omitempty"`
	// Offset is the number of merged rows to skip (LIMIT o, n). Literal 0
	// when the statement has none.
	Offset LimitValue `json:"offset"`
	// Count is the number of rows to return after Offset (LIMIT n); a
	// negative literal (NoLimit) means no LIMIT, and the zero value is
	// LIMIT 0 (no rows), so a statement without LIMIT must set NoLimit.
	//
	// Offset and Count describe pagination the nodes did not apply: the
	// rewrite sends LIMIT 0, o+n to every node (or no LIMIT when groups
	// merge in memory). A statement routed to one unit is sent unchanged
	// and must have no pagination here, or the offset is skipped twice
	// (ShardingSphere #1643).
	Count LimitValue `json:"count"`
	// StreamGroup says the nodes return their groups in merge order: the
	// first len(GroupBy) OrderBy keys are the GroupBy columns (in any
	// order; for DISTINCT without GROUP BY: the visible columns), so a
	// group's rows from all nodes arrive together and only one group is
	// held in memory. When false, groups are collected in a hash map and
	// then sorted by OrderBy (by the GROUP BY columns when there is no
	// OrderBy, for a deterministic order).
	StreamGroup bool `json:"stream_group,omitempty"`
	// Computed are columns whose merged value is an expression over the
	// merged aggregates and GROUP BY columns (SUM(a)/COUNT(b) in the select
	// list, or an ORDER BY item), evaluated in order after the aggregates
	// of each group. The nodes' values of these columns are ignored.
	Computed []ComputedColumn `json:"computed,omitempty"`
	// Having, when set, keeps only the merged groups for which it is true
	// (not 0, not NULL): the statement's HAVING, evaluated after Computed
	// on the merged values (the nodes do not filter their partial groups).
	Having *Expr `json:"having,omitempty"`
	// FirstColumn, when > 0, is a column (beyond Visible) that orders a
	// group's node rows as the server reads them: each node's least
	// primary key of the group, MIN(pk). A merged group's non-aggregate
	// columns are then those of its node row with the least value, the
	// spelling one MySQL shows for values its collation calls equal ('a',
	// 'A ', 'á'), as it reads a table in primary key order. 0: the first
	// row the merge reads.
	FirstColumn int `json:"first_column,omitempty"`
}

// UsesArgs reports whether Merge reads the statement's arguments: a LIMIT
// parameter, or a parameter in Computed or Having.
func (s *MergeSpec) UsesArgs() bool {
	if s.Offset.Param || s.Count.Param || s.Having != nil && s.Having.usesArgs() {
		return true
	}
	for i := range s.Computed {
		if s.Computed[i].Expr.usesArgs() {
			return true
		}
	}
	return false
}

// SortKey is one ORDER BY key: a column and its direction. ASC puts NULL
// first, DESC last (MySQL's NULL-is-lowest rule).
type SortKey struct {
	Column int  `json:"column"`
	Desc   bool `json:"desc,omitempty"`
}

// LimitValue is a LIMIT offset or row count: the literal Value, or, when
// Param is set, the argument at 0-based index Value of the statement's
// args (an integer ≥ 0). Example: LIMIT ?, 10 gives Offset {Value: 0,
// Param: true} and Count {Value: 10}.
type LimitValue struct {
	Value int64 `json:"value"`
	Param bool  `json:"param,omitempty"`
}

// NoLimit is the Count of a statement without LIMIT.
var NoLimit = LimitValue{Value: -1}

// AggFunc is an aggregate function the merge engine combines across nodes.
// Source: ShardingSphere's AggregationUnit implementations
// (ComparableAggregationUnit, AccumulationAggregationUnit,
// AverageAggregationUnit and their Distinct variants).
type AggFunc uint8

const (
	// AggCount: the nodes' COUNTs summed (0 when no node returned a row).
	// Column must be Int, Uint or Decimal; the result is Int.
	AggCount AggFunc = iota + 1
	// AggSum: the nodes' SUMs added exactly (Int, Uint, Decimal: as a
	// decimal of the widest scale seen; Float: as float64); NULL when every
	// node's SUM is NULL (no non-NULL value anywhere). The result keeps the
	// column's type (Int/Uint while it fits, else Decimal).
	AggSum
	// AggMin: the least non-NULL value by the column's comparison; NULL if
	// none.
	AggMin
	// AggMax: the greatest non-NULL value; NULL if none.
	AggMax
	// AggAvg: ΣSUM / ΣCOUNT over the nodes' derived SUM (SumColumn) and
	// COUNT (CountColumn) columns; NULL when ΣCOUNT is 0. Exact sums give a
	// Decimal rounded HALF_UP to Scale digits ("18.3333"), Float sums a
	// Float.
	AggAvg
	// AggCountDistinct: the number of distinct non-NULL values of Column
	// over all nodes. The nodes return the argument values themselves,
	// grouped per node by the GROUP BY columns and the argument
	// (ShardingSphere's AGGREGATION_DISTINCT_DERIVED), and the merge
	// collects them in a set per group (equality by the column's
	// comparison). Result: Int.
	AggCountDistinct
	// AggSumDistinct: the sum of the distinct non-NULL values (Decimal for
	// exact values, as MySQL's SUM(DISTINCT) is DECIMAL; Float for floats);
	// NULL if none.
	AggSumDistinct
	// AggAvgDistinct: the average of the distinct non-NULL values, as
	// AggAvg (Scale applies); NULL if none.
	AggAvgDistinct
	// AggGroupConcat: GROUP_CONCAT over groups that span data nodes, as
	// GroupConcat describes; NULL when no row has a non-NULL value.
	AggGroupConcat
	// AggGroupConcatDistinct: GROUP_CONCAT(DISTINCT ...).
	AggGroupConcatDistinct
	// AggBitAnd: the bitwise AND of the nodes' BIT_AND values (each an
	// unsigned 64-bit integer; a node's BIT_AND over no non-NULL value is
	// all ones, which the AND leaves unchanged). Column must be Uint; the
	// result is Uint, 18446744073709551615 when no node returned a row, as
	// MySQL's BIT_AND of an empty set.
	AggBitAnd
	// AggBitOr: the bitwise OR of the nodes' BIT_OR values; Uint, 0 when
	// no node returned a row.
	AggBitOr
	// AggBitXor: the bitwise XOR of the nodes' BIT_XOR values; Uint, 0
	// when no node returned a row.
	AggBitXor
)

var aggFuncNames = [...]string{"", "Count", "Sum", "Min", "Max", "Avg", "CountDistinct", "SumDistinct", "AvgDistinct", "GroupConcat", "GroupConcatDistinct",
	"BitAnd", "BitOr", "BitXor"}

// String returns the function's name, e.g. "CountDistinct".
func (f AggFunc) String() string {
	if f > 0 && int(f) < len(aggFuncNames) {
		return aggFuncNames[f]
	}
	return "AggFunc(" + strconv.Itoa(int(f)) + ")"
}

// MarshalJSON encodes the function as its name.
func (f AggFunc) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(f.String())), nil }

// UnmarshalJSON decodes a function name, ignoring case and underscores
// ("count_distinct" is AggCountDistinct).
func (f *AggFunc) UnmarshalJSON(b []byte) error {
	name, err := strconv.Unquote(string(b))
	if err != nil {
		return fmt.Errorf("runtime: AggFunc must be a JSON string, got %s", b)
	}
	name = strings.ReplaceAll(name, "_", "")
	for i := 1; i < len(aggFuncNames); i++ {
		if strings.EqualFold(aggFuncNames[i], name) {
			*f = AggFunc(i)
			return nil
		}
	}
	return fmt.Errorf("runtime: unknown AggFunc %q", name)
}

// AggregateSpec is one aggregate column: the function, the column its
// per-node value arrives in and its merged value is written to, and for
// AVG the derived columns and the result scale.
type AggregateSpec struct {
	Column int     `json:"column"`
	Func   AggFunc `json:"func"`
	// SumColumn and CountColumn are AggAvg's derived per-node SUM(x) and
	// COUNT(x) columns (AVG_DERIVED_SUM_i, AVG_DERIVED_COUNT_i).
	SumColumn   int `json:"sum_column,omitempty"`
	CountColumn int `json:"count_column,omitempty"`
	// Scale is the number of fraction digits of an exact AVG result: the
	// argument's scale plus div_precision_increment (4 by default), so 4
	// for an integer argument and 6 for DECIMAL(10,2). 0..38.
	Scale int `json:"scale,omitempty"`
	// GroupConcat describes an AggGroupConcat (CountColumn is then the
	// number of rows of each value).
	GroupConcat *GroupConcatSpec `json:"group_concat,omitempty"`
	// ArgColumns are the columns of the arguments of an aggregate over
	// DISTINCT values (AggCountDistinct, AggSumDistinct, AggAvgDistinct),
	// e.g. the nodes' a and b of COUNT(DISTINCT a, b), whose Column then
	// holds only the result (the nodes' own COUNT(DISTINCT a, b), ignored).
	// A row counts when none of its arguments is NULL, once per distinct
	// tuple (each value compared by its column's comparison); SUM and AVG
	// take one argument. Empty: Column holds the one argument itself.
	ArgColumns []int `json:"arg_columns,omitempty"`
}

// maxAvgScale is MariaDB's maximum DECIMAL scale.
const maxAvgScale = 38

// RowSource is a stream of result rows: one route unit's result, or a
// merged result. Next returns the next row, or io.EOF after the last one
// (and on every later call);
// any other error ends the stream (Merge returns it unchanged, so
// errors.As still finds a *NodeError). A row has one Cell per column.
//
// The returned slice and the bytes its cells point to belong to the source
// and are valid only until the next call to Next: a consumer that keeps a
// row must copy it (the mergers copy what they keep). This lets a source
// reuse one buffer for every row.
//
// Concurrency: a RowSource is used by one goroutine at a time; Merge calls
// its sources from the goroutine that calls its own Next.
type RowSource interface {
	Next() ([]Cell, error)
}

// Compile-time checks of the row sources and mergers.
var (
	_ RowSource = (*BufferedRows)(nil)
	_ RowSource = (*SQLRows)(nil)
	_ RowSource = (*concatRows)(nil)
	_ RowSource = (*sortMerge)(nil)
	_ RowSource = (*streamGroup)(nil)
	_ RowSource = (*memoryGroup)(nil)
	_ RowSource = (*distinctRows)(nil)
	_ RowSource = (*limitRows)(nil)
)

// BufferedRows is a RowSource over rows already in memory, e.g. what a
// route unit returned through QueryUnits. Rows are returned as they are
// (not copied) and never modified.
type BufferedRows struct {
	rows [][]Cell
	i    int
}

// NewBufferedRows returns a source yielding rows in order.
func NewBufferedRows(rows [][]Cell) *BufferedRows { return &BufferedRows{rows: rows} }

// Next returns the next row, or io.EOF.
func (b *BufferedRows) Next() ([]Cell, error) {
	if b.i >= len(b.rows) {
		return nil, io.EOF
	}
	b.i++
	return b.rows[b.i-1], nil
}

// SQLRows is a RowSource over a *sql.Rows, streaming: each Next scans one
// row into []any (what go-sql-driver/mysql gives: see DecodeCell) and
// decodes it with the columns' kinds. The returned row slice is reused by
// the next call. SQLRows closes the rows when it returns io.EOF or an
// error; a caller that stops early must call Close.
type SQLRows struct {
	rows  *sql.Rows
	kinds []ColumnKind
	vals  []any
	ptrs  []any
	row   []Cell
	err   error
}

// NewSQLRows returns a source reading rows, whose columns must be exactly
// len(kinds) (checked on the first Next).
func NewSQLRows(rows *sql.Rows, kinds []ColumnKind) *SQLRows {
	return &SQLRows{rows: rows, kinds: kinds}
}

// Next scans and decodes the next row. Errors: the driver's, a column
// count that differs from the kinds, or a DecodeCell error naming the
// column.
func (s *SQLRows) Next() ([]Cell, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.vals == nil {
		cols, err := s.rows.Columns()
		if err != nil {
			return nil, s.fail(err)
		}
		if len(cols) != len(s.kinds) {
			return nil, s.fail(fmt.Errorf("runtime.SQLRows: the result has %d columns, the merge spec %d", len(cols), len(s.kinds)))
		}
		s.vals = make([]any, len(cols))
		s.ptrs = make([]any, len(cols))
		for i := range s.vals {
			s.ptrs[i] = &s.vals[i]
		}
		s.row = make([]Cell, len(cols))
	}
	if !s.rows.Next() {
		err := s.rows.Err()
		if err == nil {
			err = io.EOF
		}
		return nil, s.fail(err)
	}
	if err := s.rows.Scan(s.ptrs...); err != nil {
		return nil, s.fail(err)
	}
	for i, v := range s.vals {
		c, err := DecodeCell(s.kinds[i], v)
		if err != nil {
			return nil, s.fail(fmt.Errorf("column index %d: %w", i, err))
		}
		s.row[i] = c
		s.vals[i] = nil
	}
	return s.row, nil
}

// fail records the error that ends the stream and closes the rows.
func (s *SQLRows) fail(err error) error {
	s.err = err
	s.rows.Close()
	return err
}

// Close closes the rows (safe to call more than once).
func (s *SQLRows) Close() error { return s.rows.Close() }

// ReadAll reads src to its end and returns its rows, each copied (cells
// and their bytes), so they stay valid. An error from src is returned with
// the rows read before it.
func ReadAll(src RowSource) ([][]Cell, error) {
	var out [][]Cell
	for {
		row, err := src.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		c := make([]Cell, len(row))
		for i := range row {
			c[i] = row[i].clone()
		}
		out = append(out, c)
	}
}

// Merge returns the merged result of sources (one per route unit, in
// route order) as a RowSource of rows of spec.Visible cells. args are the
// statement's arguments, read for parameter LIMIT values. The merger is
// chosen as ShardingSphere chooses it:
//
//   - no ORDER BY, GROUP BY, aggregate or DISTINCT: the iterator merge,
//     sources concatenated in order;
//   - ORDER BY alone: the order-by stream merge (see sortMerge);
//   - GROUP BY, aggregates or DISTINCT: the group-by stream merge over the
//     order-by stream when spec.StreamGroup (see streamGroup), else the
//     in-memory group-by (see memoryGroup); a scalar aggregate always
//     yields one row;
//   - then DISTINCT after a GROUP BY (see distinctRows), then the
//     pagination decorator (see limitRows), which also drops the derived
//     columns.
//
// Merge reads nothing: the sources are read by the result's Next, whose
// errors are the sources' errors (unchanged) or a row of the wrong width.
// Merge's own errors are a spec that fails Validate or a bad LIMIT
// argument; it never panics. The sources are not closed.
func Merge(spec *MergeSpec, args []any, sources []RowSource) (RowSource, error) {
	if spec == nil {
		return nil, errors.New("runtime.Merge: nil MergeSpec")
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	offset, err := limitArg(spec.Offset, args, "offset")
	if err != nil {
		return nil, err
	}
	count, err := limitArg(spec.Count, args, "row count")
	if err != nil {
		return nil, err
	}
	for i, s := range sources {
		if s == nil {
			return nil, fmt.Errorf("runtime.Merge: source %d is nil", i)
		}
	}
	var in RowSource
	switch {
	case spec.grouping():
		in = newGroupMerge(spec, args, sources)
	case len(spec.OrderBy) > 0:
		in = newSortMerge(spec, spec.OrderBy, sources)
	default:
		in = &concatRows{sources: sources, spec: spec}
	}
	return &limitRows{in: in, skip: offset, take: count, visible: spec.Visible}, nil
}

// grouping reports whether rows are combined (GROUP BY, aggregates,
// DISTINCT).
func (s *MergeSpec) grouping() bool {
	return len(s.GroupBy) > 0 || len(s.Aggregates) > 0 || s.Distinct || s.Having != nil
}

// groupColumns returns the columns that identify a group, and whether
// DISTINCT is done by the grouping itself (DISTINCT without GROUP BY or
// aggregates groups by every visible column).
func (s *MergeSpec) groupColumns() ([]int, bool) {
	if len(s.GroupBy) == 0 && len(s.Aggregates) == 0 && s.Distinct {
		cols := make([]int, s.Visible)
		for i := range cols {
			cols[i] = i
		}
		return cols, true
	}
	return s.GroupBy, false
}

// Validate checks that spec is consistent: column counts, kinds, every
// column index, aggregate argument types, AVG scales, StreamGroup's
// ordering and literal LIMIT values. Errors start with "runtime.Merge: "
// and name the offending item.
func (s *MergeSpec) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("runtime.Merge: "+format, a...)
	}
	if s.Columns < 1 {
		return bad("Columns is %d, want at least 1", s.Columns)
	}
	if s.Visible < 1 || s.Visible > s.Columns {
		return bad("Visible is %d, want 1..%d (Columns)", s.Visible, s.Columns)
	}
	if len(s.Kinds) != s.Columns {
		return bad("%d kinds for %d columns", len(s.Kinds), s.Columns)
	}
	for i, k := range s.Kinds {
		if err := k.validate(); err != nil {
			return bad("column %d: %v", i, err)
		}
		if w := k.Weight; w != 0 {
			if w < 0 || w+1 >= s.Columns || w == i || w+1 == i {
				return bad("column %d: weight column %d out of range (%d columns, and the pad column after it)", i, w, s.Columns)
			}
			if s.Kinds[w].Type != ColumnBytes || s.Kinds[w+1].Type != ColumnBytes {
				return bad("column %d: weight columns %d and %d must be Bytes", i, w, w+1)
			}
		}
	}
	inRange := func(c int) bool { return c >= 0 && c < s.Columns }
	for i, k := range s.OrderBy {
		if !inRange(k.Column) {
			return bad("ORDER BY key %d: column %d out of range (%d columns)", i, k.Column, s.Columns)
		}
	}
	if s.FirstColumn != 0 && (s.FirstColumn < s.Visible || s.FirstColumn >= s.Columns) {
		return bad("FirstColumn %d out of range %d..%d", s.FirstColumn, s.Visible, s.Columns-1)
	}
	role := make([]string, s.Columns) // what each column already is, for duplicates
	for i, c := range s.GroupBy {
		if !inRange(c) {
			return bad("GROUP BY item %d: column %d out of range (%d columns)", i, c, s.Columns)
		}
		if role[c] != "" {
			return bad("GROUP BY item %d: column %d is already %s", i, c, role[c])
		}
		role[c] = "GROUP BY item " + strconv.Itoa(i)
	}
	for i := range s.Aggregates {
		if err := s.validateAggregate(i, role); err != nil {
			return err
		}
	}
	for i := range s.Computed {
		c := &s.Computed[i]
		if !inRange(c.Column) {
			return bad("computed column %d: column %d out of range (%d columns)", i, c.Column, s.Columns)
		}
		if role[c.Column] != "" {
			return bad("computed column %d: column %d is already %s", i, c.Column, role[c.Column])
		}
		role[c.Column] = "computed column " + strconv.Itoa(i)
		if err := c.Expr.validate(s.Columns); err != nil {
			return bad("computed column %d: %v", i, err)
		}
	}
	if s.Having != nil {
		if len(s.GroupBy) == 0 && len(s.Aggregates) == 0 {
			return bad("HAVING without GROUP BY or aggregates")
		}
		if err := s.Having.validate(s.Columns); err != nil {
			return bad("HAVING: %v", err)
		}
	}
	scalar := len(s.Aggregates) > 0 && len(s.GroupBy) == 0 // one group: StreamGroup has nothing to say
	if s.StreamGroup && !scalar {
		cols, _ := s.groupColumns()
		if len(cols) == 0 {
			return bad("StreamGroup without GROUP BY, aggregates or DISTINCT")
		}
		if len(s.OrderBy) < len(cols) {
			return bad("StreamGroup needs the first %d ORDER BY keys to be the grouping columns, have %d keys", len(cols), len(s.OrderBy))
		}
		for _, c := range cols {
			found := false
			for _, k := range s.OrderBy[:len(cols)] {
				found = found || k.Column == c
			}
			if !found {
				return bad("StreamGroup: grouping column %d is not among the first %d ORDER BY keys", c, len(cols))
			}
		}
	}
	if !s.Offset.Param && s.Offset.Value < 0 {
		return bad("LIMIT offset %d is negative", s.Offset.Value)
	}
	for _, v := range [...]LimitValue{s.Offset, s.Count} {
		if v.Param && v.Value < 0 {
			return bad("LIMIT parameter index %d is negative", v.Value)
		}
	}
	return nil
}

// validateAggregate checks aggregate i and marks its column in role.
func (s *MergeSpec) validateAggregate(i int, role []string) error {
	a := &s.Aggregates[i]
	bad := func(format string, args ...any) error {
		return fmt.Errorf("runtime.Merge: aggregate %d (%s): "+format, append([]any{i, a.Func}, args...)...)
	}
	if a.Func == 0 || int(a.Func) >= len(aggFuncNames) {
		return fmt.Errorf("runtime.Merge: aggregate %d: unknown function %s", i, a.Func)
	}
	if a.Column < 0 || a.Column >= s.Columns {
		return bad("column %d out of range (%d columns)", a.Column, s.Columns)
	}
	if role[a.Column] != "" {
		return bad("column %d is already %s", a.Column, role[a.Column])
	}
	role[a.Column] = "aggregate " + strconv.Itoa(i)
	typ := s.Kinds[a.Column].Type
	exact := func(t ColumnType) bool { return t == ColumnInt || t == ColumnUint || t == ColumnDecimal }
	numeric := func(t ColumnType) bool { return exact(t) || t == ColumnFloat }
	switch a.Func {
	case AggCount:
		if !exact(typ) {
			return bad("column %d is %s, want Int, Uint or Decimal", a.Column, typ)
		}
	case AggSum, AggSumDistinct, AggAvgDistinct:
		if !numeric(typ) {
			return bad("column %d is %s, want Int, Uint, Decimal or Float", a.Column, typ)
		}
	case AggGroupConcat, AggGroupConcatDistinct:
		if err := a.GroupConcat.validate(a, s.Columns); err != nil {
			return bad("%v", err)
		}
	case AggBitAnd, AggBitOr, AggBitXor:
		if typ != ColumnUint {
			return bad("column %d is %s, want Uint", a.Column, typ)
		}
	case AggAvg:
		for _, c := range [...]struct {
			name string
			col  int
			ok   func(ColumnType) bool
			want string
		}{
			{"SumColumn", a.SumColumn, numeric, "Int, Uint, Decimal or Float"},
			{"CountColumn", a.CountColumn, exact, "Int, Uint or Decimal"},
		} {
			if c.col < 0 || c.col >= s.Columns {
				return bad("%s %d out of range (%d columns)", c.name, c.col, s.Columns)
			}
			if c.col == a.Column {
				return bad("%s is the AVG column itself", c.name)
			}
			if t := s.Kinds[c.col].Type; !c.ok(t) {
				return bad("%s %d is %s, want %s", c.name, c.col, t, c.want)
			}
		}
		if a.SumColumn == a.CountColumn {
			return bad("SumColumn and CountColumn are both column %d", a.SumColumn)
		}
	}
	switch {
	case len(a.ArgColumns) > 0 && a.Func != AggCountDistinct && a.Func != AggSumDistinct && a.Func != AggAvgDistinct:
		return bad("ArgColumns are only for an aggregate over DISTINCT values")
	case len(a.ArgColumns) > 1 && a.Func != AggCountDistinct:
		return bad("%d argument columns, want 1", len(a.ArgColumns))
	case len(a.ArgColumns) == 1 && a.Func != AggCountDistinct && !numeric(s.Kinds[a.ArgColumns[0]].Type):
		return bad("argument column %d is %s, want Int, Uint, Decimal or Float", a.ArgColumns[0], s.Kinds[a.ArgColumns[0]].Type)
	}
	for _, c := range a.ArgColumns {
		if c < 0 || c >= s.Columns {
			return bad("argument column %d out of range (%d columns)", c, s.Columns)
		}
		if role[c] != "" {
			return bad("argument column %d is already %s", c, role[c])
		}
		role[c] = "argument of aggregate " + strconv.Itoa(i)
	}
	if a.Scale < 0 || a.Scale > maxAvgScale {
		return bad("scale %d out of range 0..%d", a.Scale, maxAvgScale)
	}
	return nil
}

// limitArg resolves a LIMIT value: the literal, or the integer argument it
// names. It returns -1 for NoLimit.
func limitArg(v LimitValue, args []any, what string) (int64, error) {
	if !v.Param {
		if v.Value < 0 {
			return -1, nil
		}
		return v.Value, nil
	}
	if v.Value >= int64(len(args)) {
		return 0, fmt.Errorf("runtime.Merge: LIMIT %s is parameter %d, but len(args) is %d", what, v.Value, len(args))
	}
	a := args[v.Value]
	n, ok := anyInt(a)
	if !ok {
		if _, big := a.(uint64); big {
			return 0, fmt.Errorf("runtime.Merge: LIMIT %s parameter %d is %v, too large", what, v.Value, a)
		}
		return 0, fmt.Errorf("runtime.Merge: LIMIT %s parameter %d is %T, want an integer", what, v.Value, a)
	}
	if n < 0 {
		return 0, fmt.Errorf("runtime.Merge: LIMIT %s parameter %d is %d, want ≥ 0", what, v.Value, n)
	}
	return n, nil
}

// checkWidth is the error for a source row of the wrong width.
func checkWidth(row []Cell, columns, source int) error {
	if len(row) == columns {
		return nil
	}
	return fmt.Errorf("runtime.Merge: source %d returned a row of %d columns, want %d", source, len(row), columns)
}
