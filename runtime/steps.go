package runtime

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// PropMaxCrossNodeRows ("max-cross-node-rows", top-level props) is the
// number of rows a statement evaluated in steps across data nodes may hold
// in memory at once: a subquery's rows, a join's outer side, one batch of
// its inner side, its joined rows, a UNION's rows. More fails the
// statement with an error wrapping ErrCrossNodeRows instead of exhausting
// memory. Default DefaultMaxCrossNodeRows. Generated code and the proxy
// read the same prop.
const PropMaxCrossNodeRows = "max-cross-node-rows"

// DefaultMaxCrossNodeRows is max-cross-node-rows when props do not set it.
const DefaultMaxCrossNodeRows = 100000

// ErrCrossNodeRows is wrapped by the error of a statement evaluated in
// steps whose step holds more rows than max-cross-node-rows.
var ErrCrossNodeRows = errors.New("holds more rows than " + PropMaxCrossNodeRows + " allows")

// Steps is a SELECT that no single route can run, planned at generate time
// into statements that each run on route units fixed then, and the
// operators that combine their rows in process with MySQL's semantics
// (vtgate's join and concatenate primitives, planned once). Exactly one of
// Bind, Join and Union is set. RunSteps evaluates it without parsing SQL:
// the only SQL built at run time is an IN list of bound values expanded at
// a placeholder offset planned at generate time (as for sqlc.slice, see
// SliceUnits).
type Steps struct {
	Bind  *BindStep  `json:"bind,omitempty"`
	Join  *JoinStep  `json:"join,omitempty"`
	Union *UnionStep `json:"union,omitempty"`
}

// StepQuery is one SELECT of a Steps, planned whole: its route units with
// their rewritten SQL, and the merge of their rows when they are several.
type StepQuery struct {
	Stmt Stmt `json:"stmt"`
	// Units are the route units it runs on, chosen at generate time.
	Units []RouteUnit `json:"units"`
	// Columns is the number of columns each unit returns.
	Columns int `json:"columns"`
	// Merge merges the units' rows (ORDER BY, GROUP BY, aggregates,
	// DISTINCT, LIMIT over several units); nil: the rows are concatenated
	// in unit order.
	Merge *MergeSpec `json:"merge,omitempty"`
	// ListAt, when set, holds for each unit the byte offset in its SQL of
	// the one `?` that becomes the IN list of the values bound from an
	// earlier step (`?, ?, …`; `NULL` when there are none).
	ListAt []int `json:"list_at,omitempty"`
	// ListElem is the text of one element of that list, with its one `?`:
	// "" is `?`; a value of a text column is typed as its column, e.g.
	// "CONVERT(? USING latin1)" or "CONVERT(? USING utf8mb4) COLLATE
	// utf8mb4_unicode_ci", so that MariaDB compares it as it compares the
	// subquery's column (a utf8mb4 literal against a latin1 column is
	// converted to latin1 and fails with error 1271 where the subquery's
	// column would convert the other way).
	ListElem string `json:"list_elem,omitempty"`
	// Args are the arguments of the units' other placeholders, in order:
	// indexes in the arguments of RunSteps (the statement's parameters).
	Args []int `json:"args,omitempty"`
	// ListArg is the number of Args whose placeholders come before the IN
	// list (ListAt).
	ListArg int `json:"list_arg,omitempty"`
	// Route, when set, narrows Units at run time by the parameters'
	// values on sharding columns (StepsOptions.Tables routes them); nil:
	// every unit runs.
	Route *StepRoute `json:"route,omitempty"`
	// Lists are the statement's further IN lists of bound values, after
	// the first (ListAt) in SQL order: a statement with several
	// subqueries (BindStep.Then).
	Lists []StepList `json:"lists,omitempty"`
	// ListRoute, when set, gives each unit only the values of its IN list
	// (ListAt) on its data node, and runs no unit that gets none (a
	// SELECT's first unit when none gets one); nil: every unit gets every
	// value.
	ListRoute *StepListRoute `json:"list_route,omitempty"`
	// ListWidth, when above 1, makes each value of the IN list (ListAt)
	// a row of that many values ([]any), the key of a primary key of
	// several columns (BindStep.Write): ListElem is then the condition
	// on one row, with ListWidth `?`, e.g. "(`a`, `b`) = (?, ?)", and the
	// list is written as `(elem OR elem …)` (`NULL` for none) in place of
	// the `?`, which stands alone as a condition. Not IN over rows:
	// MariaDB 10.11's (a, b) IN ((…), (…)) misses rows when a text column
	// and its value differ in character set, where `=` of rows does not.
	// Only without further Lists.
	ListWidth int `json:"list_width,omitempty"`
}

// StepList is an IN list of bound values of a StepQuery after its first.
type StepList struct {
	// At holds for each unit the byte offset in its SQL of the list's
	// one `?` (as StepQuery.ListAt).
	At []int `json:"at"`
	// Arg is the number of Args whose placeholders come before it.
	Arg int `json:"arg,omitempty"`
	// Elem is the text of one element (as StepQuery.ListElem).
	Elem string `json:"elem,omitempty"`
}

// BindStep is a statement with uncorrelated subqueries: each runs first,
// in statement order, and its rows are bound into Statement as its op
// says. For `IN (SELECT …)` (BindIn) the values (distinct, in order,
// without NULL) are bound as an IN list of Statement; with no value the
// list is `NULL`: IN matches no row, and an aggregate without GROUP BY
// still returns its row.
type BindStep struct {
	// Subquery is the statement's first subquery, bound as Op says.
	Subquery  *StepQuery `json:"subquery"`
	Statement *StepQuery `json:"statement"`
	// Op is how the statement takes the subquery's rows. For BindNotIn
	// and BindExists the statement takes a flag (0 or 1), for BindScalar
	// the value, as the argument after the statement's parameters: index
	// len(args) of RunSteps, which Statement.Args names.
	Op BindOp `json:"op,omitempty"`
	// Then are the statement's other subqueries, in statement order, each
	// run after the one before it: a flag or value of one takes the
	// argument after the previous subquery's, and an IN or NOT IN list the
	// statement's next list (ListAt for the first, then Lists).
	Then []BoundSubquery `json:"then,omitempty"`
	// Write says that Statement is an UPDATE or DELETE, which ExecSteps
	// runs (an UPDATE or DELETE with ORDER BY … LIMIT n over several
	// data nodes: Subquery selects the keys of the n rows in order, the
	// statement writes the rows with those keys).
	Write bool `json:"write,omitempty"`
}

// BoundSubquery is a subquery of a BindStep after its first.
type BoundSubquery struct {
	Query *StepQuery `json:"query"`
	Op    BindOp     `json:"op,omitempty"`
}

// ErrSubqueryRows is MySQL's error 1242 (SQLSTATE 21000), which RunSteps
// returns when a scalar subquery (BindScalar) returns more than one row,
// as MySQL fails the statement. errors.Is matches it by its number.
var ErrSubqueryRows error = &mysql.MySQLError{Number: 1242, SQLState: [5]byte{'2', '1', '0', '0', '0'}, Message: "Subquery returns more than 1 row"}

// BindOp is how the statement of a BindStep takes its subquery's rows.
type BindOp uint8

const (
	// BindIn: `x IN (list)`, the distinct non-NULL values as the list.
	BindIn BindOp = iota
	// BindNotIn: `(flag OR x NOT IN (list))`: the flag is 1 when the
	// subquery returned no row (NOT IN of no row is TRUE, even for a NULL
	// x); the list holds the distinct non-NULL values and one NULL when
	// the subquery returned one (then NOT IN is never TRUE), as MySQL
	// evaluates NOT IN.
	BindNotIn
	// BindExists: the flag is 1 when the subquery returned a row, else 0
	// (`EXISTS (…)` is the flag, `NOT EXISTS (…)` NOT the flag); no list.
	BindExists
	// BindScalar: a scalar subquery (one column; its SQL reads two rows at
	// most): its one value, NULL when it returned no row, ErrSubqueryRows
	// when it returned more than one. The statement types the placeholder
	// as the subquery's column (e.g. CAST(? AS DECIMAL(65,4))).
	BindScalar
)

// JoinStep is a join of two table references that do not co-locate: the
// Outer side's rows are read first, then the inner side's, by one of two
// strategies (JoinStrategy):
//
//   - nested loop: for every Batch of outer rows the Inner side runs with
//     the batch's distinct non-NULL key values (Spec.OuterKeys[0]) bound
//     as its IN list (ListAt), and JoinRows pairs the rows;
//   - hash join: the Build side (the inner side's statement without the
//     IN list, with its own conditions) runs once, and JoinRows pairs all
//     outer rows with its rows through a hash table keyed by the join keys
//     as MySQL compares them (JoinKey).
//
// A join without key columns runs the inner side once, without a list,
// and pairs every row with every row. The joined rows (the outer side's
// columns, then the inner side's) are then sorted (OrderBy), paginated
// (Offset, Count) and projected (Output).
type JoinStep struct {
	// Outer is the outer side's statement; nil when OuterJoin is set.
	Outer *StepQuery `json:"outer"`
	// OuterJoin, for a join of three or more tables (split left-deep), is
	// the join of all but the last table reference, itself evaluated in
	// steps: its result rows are the outer side's.
	OuterJoin *JoinStep  `json:"outer_join,omitempty"`
	Inner     *StepQuery `json:"inner"`
	// Build is the inner side's statement without the IN list (same
	// columns as Inner), which a hash join reads whole; nil when the join
	// has no key column (Inner then runs once without a list anyway).
	Build *StepQuery `json:"build,omitempty"`
	Spec  JoinSpec   `json:"spec"`
	// Output are the visible result columns: indexes in the joined row.
	Output []int `json:"output"`
	// Kinds describe the joined row's columns (Weight indexes the joined
	// row) for OrderBy.
	Kinds   []ColumnKind `json:"kinds"`
	OrderBy []SortKey    `json:"order_by,omitempty"`
	// Offset and Count paginate the sorted rows; Count -1: no LIMIT.
	Offset int64 `json:"offset,omitempty"`
	Count  int64 `json:"count"`
	// LimitArgs, when set, take LIMIT ?, ? from the statement's
	// parameters: the indexes in the arguments of RunSteps of the offset,
	// then of the row count; -1 keeps Offset or Count.
	LimitArgs []int `json:"limit_args,omitempty"`
	// Batch is the number of outer rows whose key values one run of the
	// inner side binds.
	Batch int `json:"batch"`
	// Null are columns of the joined row that must be NULL (WHERE b.x IS
	// NULL on the inner side of an outer join): the other joined rows are
	// dropped before OrderBy or Merge.
	Null []int `json:"null,omitempty"`
	// Merge is set for GROUP BY, DISTINCT or aggregates over the joined
	// rows: every joined row becomes one row of MergeColumns (the partial
	// aggregates of that row alone), sorted by Merge.OrderBy and merged
	// (grouped, ordered, paginated, cut to its visible columns); Output,
	// OrderBy, Offset and Count are then unused.
	Merge        *MergeSpec        `json:"merge,omitempty"`
	MergeColumns []JoinMergeColumn `json:"merge_columns,omitempty"`
}

// JoinMergeOp is how a merge column of a grouped join is computed from one
// joined row.
type JoinMergeOp uint8

const (
	JoinValue   JoinMergeOp = iota // the joined row's column Column (a group key, SUM's, MIN's or MAX's argument)
	JoinOne                        // 1: COUNT(*) of one row
	JoinNotNull                    // 1 when column Column is not NULL, else 0: COUNT(x) of one row
	JoinNull                       // NULL (AVG, which the merge computes from its SUM and COUNT columns)
)

// JoinMergeColumn is one column of the rows a grouped join feeds its merge.
type JoinMergeColumn struct {
	Op     JoinMergeOp `json:"op"`
	Column int         `json:"column,omitempty"`
}

// JoinStrategy is how RunSteps evaluates a JoinStep with key columns.
type JoinStrategy uint8

const (
	// JoinAuto chooses per statement at run time, after the outer side is
	// read (n rows): the nested loop when n <= Batch (one IN batch: one
	// statement per data node, reading only matching inner rows); the
	// hash join when n > Batch (the nested loop would run ceil(n/Batch)
	// statements per data node, the hash join one). The hash join's build
	// side is read up to HashJoinBuildFactor*n rows (at most
	// max-cross-node-rows): an inner side holding more is read no further
	// and the nested loop runs instead, reading only the matching rows.
	JoinAuto JoinStrategy = iota
	// JoinNestedLoop always runs the nested loop.
	JoinNestedLoop
	// JoinHash always runs the hash join when Build is set; a build side
	// of more than max-cross-node-rows rows fails the statement
	// (ErrCrossNodeRows).
	JoinHash
)

// HashJoinBuildFactor bounds the build side JoinAuto reads before it
// gives up the hash join: HashJoinBuildFactor rows per outer row.
const HashJoinBuildFactor = 4

// PropCrossNodeJoin ("cross-node-join", top-level props) sets the
// JoinStrategy of joins across data nodes: "auto" (default),
// "nested-loop" or "hash". Generated code and the proxy read the same
// prop.
const PropCrossNodeJoin = "cross-node-join"

var joinStrategyNames = [...]string{"auto", "nested-loop", "hash"}

// String returns the strategy's name as PropCrossNodeJoin spells it.
func (s JoinStrategy) String() string {
	if int(s) < len(joinStrategyNames) {
		return joinStrategyNames[s]
	}
	return fmt.Sprintf("JoinStrategy(%d)", s)
}

// ParseJoinStrategy returns the strategy named name ("" is JoinAuto);
// another name is an error listing the valid ones.
func ParseJoinStrategy(name string) (JoinStrategy, error) {
	if strings.TrimSpace(name) == "" {
		return JoinAuto, nil
	}
	for i, n := range joinStrategyNames {
		if strings.EqualFold(strings.TrimSpace(name), n) {
			return JoinStrategy(i), nil
		}
	}
	return JoinAuto, fmt.Errorf("must be auto, nested-loop or hash, got %q", name)
}

// MergeJoined groups joined rows as a grouped join's merge says (see
// JoinStep.Merge): each row becomes a row of partial aggregates (cols),
// sorted by m.OrderBy and merged.
func MergeJoined(m *MergeSpec, cols []JoinMergeColumn, joined [][]any) ([][]any, error) {
	rows := make([][]any, len(joined))
	for r, jr := range joined {
		row := make([]any, len(cols))
		for i, mc := range cols {
			switch mc.Op {
			case JoinValue:
				row[i] = jr[mc.Column]
			case JoinOne:
				row[i] = int64(1)
			case JoinNotNull:
				row[i] = int64(0)
				if jr[mc.Column] != nil {
					row[i] = int64(1)
				}
			}
		}
		rows[r] = row
	}
	if err := SortRows(m.Kinds, m.OrderBy, rows); err != nil {
		return nil, err
	}
	return mergeOne(m, rows)
}

// UnionStep runs each SELECT of a UNION on its own (Parts, each returning
// the Visible columns and then the sort keys Kinds[i].Weight needs) and
// concatenates their rows in order; the rows of the first Distinct parts
// are deduplicated as MySQL's UNION DISTINCT compares rows (the first row
// of a value class stays). Then the rows are sorted (OrderBy), paginated
// (Offset, Count) and cut to the Visible columns.
type UnionStep struct {
	Parts    []*StepQuery `json:"parts"`
	Distinct int          `json:"distinct,omitempty"`
	Visible  int          `json:"visible"`
	Kinds    []ColumnKind `json:"kinds"`
	OrderBy  []SortKey    `json:"order_by,omitempty"`
	// Offset and Count paginate the sorted rows; Count -1: no LIMIT.
	Offset int64 `json:"offset,omitempty"`
	Count  int64 `json:"count"`
	// LimitArgs are as JoinStep.LimitArgs.
	LimitArgs []int `json:"limit_args,omitempty"`
}

// RunSteps evaluates st on e (s itself, or a transaction over s) and
// returns its result rows, each value as database/sql scans it into *any
// (int64, float64, []byte, time.Time or nil). Every step holds at most
// s.MaxCrossNodeRows() rows: more is an error wrapping ErrCrossNodeRows
// that names the step. Errors of a unit name its data node (NodeError).
// args are the statement's parameters, in the order of its placeholders
// (StepQuery.Args index them).
func (s *Sources) RunSteps(ctx context.Context, e Executor, st *Steps, args ...any) ([][]any, error) {
	return s.RunStepsWith(ctx, e, st, nil, args...)
}

// StepsOptions are what a caller other than generated code adds to
// RunStepsWith: the proxy, which answers on the wire.
type StepsOptions struct {
	// UnitSQL, when set, returns the SQL a route unit runs instead of its
	// own (after the bound IN list is expanded): the proxy's session with
	// NO_BACKSLASH_ESCAPES rewrites its string literals.
	UnitSQL func(sql string) string
	// Columns, when set, receives the back end's column types of each
	// StepQuery after it ran (of its first unit that returned a row, or of
	// its first unit run again when none did).
	Columns func(q *StepQuery, types []*sql.ColumnType)
	// MaxRows, when positive, replaces the max-cross-node-rows of s.
	MaxRows int
	// Join, when not JoinAuto, replaces the cross-node-join of s.
	Join JoinStrategy
	// Tables returns the router of a logic table (nil when it has none),
	// which a StepQuery's Route narrows its units with; nil: every unit
	// of every step runs.
	Tables func(logicTable string) *ShardingTable
	// LossyCharset, when set, names the session's character set that
	// cannot hold every character (latin1, utf8mb3): the text the steps
	// read arrives in it, a character it lacks as '?', and the steps
	// compare and bind it themselves, so a CHAR / VARCHAR / TEXT / ENUM /
	// SET value holding '?' fails the statement with *LossyTextError
	// instead of answering wrongly. Only read per unit (with Columns set,
	// as the proxy sets it).
	LossyCharset string
}

// LossyTextError is the error of a step that read text under
// StepsOptions.LossyCharset that LossyText refuses.
type LossyTextError struct {
	Charset string // e.g. "latin1"
}

// Error names the character set and what would make the statement run.
func (e *LossyTextError) Error() string {
	return "a text value read across data nodes holds '?' (or, in a character set other than UTF-8, a character beyond ASCII) in this session's character set " +
		e.Charset + ", where it may stand for a character " + e.Charset + " cannot hold or not compare as the data node compares it, and the steps compare or bind such values themselves" +
		"; run the statement from a utf8mb4 session (SET NAMES utf8mb4)"
}

// LossyText reports whether the text value v (string or []byte), read in
// a session of character set charset, may not be the text the data node
// holds, or may not compare in process as it compares there: it holds
// '?' (what a character charset lacks becomes), or charset is not UTF-8
// (utf8, utf8mb3) and v holds a byte beyond ASCII.
func LossyText(charset string, v any) bool {
	utf8 := charset == "utf8" || charset == "utf8mb3"
	lossy := func(c byte) bool { return c == '?' || c >= 0x80 && !utf8 }
	switch x := v.(type) {
	case []byte:
		return slices.ContainsFunc(x, lossy)
	case string:
		for i := range len(x) {
			if lossy(x[i]) {
				return true
			}
		}
	}
	return false
}

// textDatabaseType reports whether databaseType (as
// sql.ColumnType.DatabaseTypeName gives it) is a text column's.
func textDatabaseType(databaseType string) bool {
	switch databaseType {
	case "CHAR", "VARCHAR", "TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET":
		return true
	}
	return false
}

// RunStepsWith is RunSteps with the options o (nil: none).
func (s *Sources) RunStepsWith(ctx context.Context, e Executor, st *Steps, o *StepsOptions, args ...any) ([][]any, error) {
	r := s.newStepsRun(e, o, args)
	switch {
	case st == nil:
		return nil, errors.New("runtime.RunSteps: nil steps")
	case st.Bind != nil:
		return st.Bind.run(ctx, r)
	case st.Join != nil:
		return st.Join.run(ctx, r)
	case st.Union != nil:
		return st.Union.run(ctx, r)
	}
	return nil, errors.New("runtime.RunSteps: empty steps")
}

// ExecSteps runs the steps of a write (BindStep.Write) on e (s itself, or
// a transaction over s) and returns its rows affected: its subqueries run
// first, on the write data sources of read/write groups (WithPrimary), and
// their values are bound into the statement, which runs on its units as
// one all-or-nothing write (ExecUnits). args and o are as RunStepsWith's.
func (s *Sources) ExecSteps(ctx context.Context, e Executor, st *Steps, o *StepsOptions, args ...any) (int64, error) {
	if st == nil || st.Bind == nil || !st.Bind.Write {
		return 0, errors.New("runtime.ExecSteps: not the steps of a write")
	}
	r := s.newStepsRun(e, o, args)
	b := st.Bind
	lists, err := b.bind(WithPrimary(ctx), r)
	if err != nil {
		return 0, err
	}
	switch {
	case len(lists) == 0:
		return b.Statement.exec(ctx, r, nil, finalStatement)
	case b.Op == BindIn && len(b.Then) == 0 && len(lists[0]) == 0:
		// No key: the write would change no row on any data node (IN
		// (NULL)); it does not run, as MySQL's changes none.
		return 0, nil
	}
	return b.Statement.exec(ctx, r, lists[0], finalStatement, lists[1:]...)
}

// newStepsRun returns an evaluation of steps on e with the options o
// (nil: none) and the statement's parameters args.
func (s *Sources) newStepsRun(e Executor, o *StepsOptions, args []any) *stepsRun {
	if o == nil {
		o = &StepsOptions{}
	}
	r := &stepsRun{src: s, e: e, limit: s.MaxCrossNodeRows(), join: s.CrossNodeJoin(), opt: o, args: args}
	if o.MaxRows > 0 {
		r.limit = o.MaxRows
	}
	if o.Join != JoinAuto {
		r.join = o.Join
	}
	return r
}

// stepsRun is one evaluation of a Steps.
type stepsRun struct {
	src   *Sources
	e     Executor
	limit int
	join  JoinStrategy
	opt   *StepsOptions
	args  []any // the statement's parameters (StepQuery.Args)
}

// MaxCrossNodeRows returns the props' max-cross-node-rows of the DB s
// belongs to (DefaultMaxCrossNodeRows when unset), the bound of RunSteps.
func (s *Sources) MaxCrossNodeRows() int {
	if s == nil || s.db == nil || s.db.maxCrossNodeRows < 1 {
		return DefaultMaxCrossNodeRows
	}
	return s.db.maxCrossNodeRows
}

// CrossNodeJoin returns the props' cross-node-join of the DB s belongs to
// (JoinAuto when unset).
func (s *Sources) CrossNodeJoin() JoinStrategy {
	if s == nil || s.db == nil {
		return JoinAuto
	}
	return s.db.crossNodeJoin
}

// tooMany is the error of a step holding more than max rows.
func tooMany(what string, limit int) error {
	return fmt.Errorf("%s %w (%d); raise it in props or narrow the statement", what, ErrCrossNodeRows, limit)
}

// rows runs q, with list as its IN list when q.ListAt is set (and more as
// its further Lists), and returns at most max rows (more:
// ErrCrossNodeRows naming what and q's SQL).
func (q *StepQuery) rows(ctx context.Context, r *stepsRun, list []any, what string, more ...[]any) ([][]any, error) {
	what += " (" + q.Stmt.LogicSQL + ")"
	units, args, err := q.boundUnits(r, list, true, what, more...)
	if err != nil {
		return nil, err
	}
	return q.query(ctx, r, units, args, what)
}

// exec runs q, a write, as rows runs a SELECT, on its units as one
// all-or-nothing write (ExecUnits) and returns its rows affected.
func (q *StepQuery) exec(ctx context.Context, r *stepsRun, list []any, what string, more ...[]any) (int64, error) {
	what += " (" + q.Stmt.LogicSQL + ")"
	units, args, err := q.boundUnits(r, list, false, what, more...)
	if err != nil {
		return 0, err
	}
	return ExecUnits(ctx, r.e, &q.Stmt, units, args)
}

// boundUnits returns the units q runs on (narrowed by its Route) with its
// IN lists expanded to list and more (the first split by its ListRoute),
// and the arguments of units that carry none of their own. read says that
// q is a SELECT: when its ListRoute gives no unit a value, its first unit
// still runs with the list NULL, as any data node would answer (an
// aggregate returns its row); a write then runs nowhere.
func (q *StepQuery) boundUnits(r *stepsRun, list []any, read bool, what string, more ...[]any) ([]RouteUnit, []any, error) {
	units, listAt := q.Units, q.ListAt
	var args []any
	for _, a := range q.Args {
		if a < 0 || a >= len(r.args) {
			return nil, nil, fmt.Errorf("%s: argument %d of %d", what, a+1, len(r.args))
		}
		args = append(args, r.args[a])
	}
	var keep []int // the indexes in q.Units of units, nil: every unit
	if q.Route != nil {
		k, ok, err := q.Route.units(q, r.opt.Tables, r.args)
		if err != nil {
			return nil, nil, err
		}
		if ok && len(k) < len(units) {
			keep = k
			units = make([]RouteUnit, len(keep))
			for i, k := range keep {
				units[i] = q.Units[k]
			}
			if listAt != nil {
				listAt = make([]int, len(keep))
				for i, k := range keep {
					listAt[i] = q.ListAt[k]
				}
			}
		}
	}
	var split [][]any // the first IN list of each unit (ListRoute); nil: list whole
	if q.ListRoute != nil && listAt != nil {
		if vals, ok := q.ListRoute.split(q, r.opt.Tables, keep, len(units), list); ok {
			split = vals
			if read && len(split) > 0 && !slices.ContainsFunc(split, func(v []any) bool { return v != nil }) {
				split[0] = []any{}
			}
		}
	}
	if len(q.Lists) > 0 {
		if q.ListWidth > 1 {
			return nil, nil, fmt.Errorf("%s: an IN list of rows with further IN lists", what)
		}
		var err error
		if units, err = r.src.listUnits(q, units, keep, args, append([][]any{list}, more...), split); err != nil {
			return nil, nil, err
		}
		args = nil // each unit carries its own (RouteUnit.Args)
	} else if listAt != nil {
		if list == nil {
			list = []any{}
		}
		if q.ListArg < 0 || q.ListArg > len(args) {
			return nil, nil, fmt.Errorf("%s: %d arguments before the IN list of %d", what, q.ListArg, len(args))
		}
		vals, routed := split, split != nil
		if !routed {
			vals = make([][]any, len(units))
			for i := range vals {
				vals[i] = list
			}
		}
		var err error
		if units, err = r.src.sliceUnits(units, listAt, q.ListElem, q.ListWidth, vals, args[:q.ListArg], args[q.ListArg:]); err != nil {
			return nil, nil, err
		}
		args = nil // each unit carries its own (RouteUnit.Args)
	}
	if r.opt.UnitSQL != nil {
		units = append([]RouteUnit(nil), units...)
		for i := range units {
			units[i].SQL = r.opt.UnitSQL(units[i].SQL)
		}
	}
	return units, args, nil
}

// query runs q's bound units (boundUnits) and returns their rows, merged
// by q.Merge, at most r.limit of them.
func (q *StepQuery) query(ctx context.Context, r *stepsRun, units []RouteUnit, args []any, what string) ([][]any, error) {
	e, limit := r.e, r.limit
	if q.Merge != nil && len(units) > 1 && r.opt.Columns == nil {
		merged, err := QueryMerged(ctx, e, &q.Stmt, units, args, q.Merge, limitArgs(q.Merge, args))
		if err != nil {
			return nil, err
		}
		defer merged.Close()
		var out [][]any
		for {
			row, err := merged.Next()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return nil, err
			}
			if len(out) == limit {
				return nil, tooMany(what, limit)
			}
			vals := make([]any, len(row))
			for i, c := range row {
				v := cellDriverValue(c)
				if b, ok := v.([]byte); ok {
					v = append([]byte(nil), b...)
				}
				vals[i] = v
			}
			out = append(out, vals)
		}
	}
	var (
		n     atomic.Int64
		once  sync.Once
		types []*sql.ColumnType
		terr  error
	)
	// The text a step reads in a lossy session (StepsOptions.LossyCharset)
	// is checked, but not a BindStep's final rows, which the statement
	// only returns: no step compares or binds them.
	lossy := r.opt.LossyCharset != "" && !strings.HasPrefix(what, finalStatement+" (")
	perUnit, err := QueryUnitsEach(ctx, e, &q.Stmt, units, args, func(rs *sql.Rows) ([]any, error) {
		if n.Add(1) > int64(limit) {
			return nil, tooMany(what, limit)
		}
		if r.opt.Columns != nil || lossy {
			once.Do(func() { types, terr = rs.ColumnTypes() })
		}
		vals := make([]any, q.Columns)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil || !lossy {
			return vals, err
		}
		if terr != nil {
			return nil, terr
		}
		for i, v := range vals {
			if i < len(types) && textDatabaseType(types[i].DatabaseTypeName()) && LossyText(r.opt.LossyCharset, v) {
				return nil, &LossyTextError{Charset: r.opt.LossyCharset}
			}
		}
		return vals, nil
	})
	if errors.Is(err, ErrCrossNodeRows) {
		return nil, tooMany(what, limit) // without the data node: the step, not the node, holds them
	}
	if err != nil {
		return nil, err
	}
	if r.opt.Columns != nil {
		if types == nil && terr == nil && len(units) > 0 {
			// No unit returned a row: ask the first unit again for its columns.
			rs, err := e.Query(ctx, &q.Stmt, units[0], args...)
			if err != nil {
				return nil, err
			}
			types, terr = rs.ColumnTypes()
			if cerr := rs.Close(); terr == nil {
				terr = cerr
			}
		}
		if terr != nil {
			return nil, terr
		}
		r.opt.Columns(q, types)
	}
	if q.Merge != nil {
		return mergeUnitsArgs(q.Merge, limitArgs(q.Merge, args), perUnit)
	}
	var rows [][]any
	for _, u := range perUnit {
		rows = append(rows, u...)
	}
	return rows, nil
}

// mergeOne applies a merge spec to the rows of one source, already in the
// order the merge needs (a single unit's SQL ordered them).
func mergeOne(spec *MergeSpec, rows [][]any) ([][]any, error) {
	return mergeUnits(spec, [][][]any{rows})
}

// mergeUnits applies a merge spec to the rows of each unit, each already
// in the order the merge needs (the unit's SQL ordered them).
func mergeUnits(spec *MergeSpec, perUnit [][][]any) ([][]any, error) {
	return mergeUnitsArgs(spec, nil, perUnit)
}

// limitArgs returns args (a step's arguments, whose LIMIT parameters its
// merge spec names) with those LIMIT values as each data node read them
// from go-sql-driver's binary protocol: a negative integer as the unsigned
// count it is there (-1 is 2^64-1: every row; math.MaxInt64), NULL as 0
// (LIMIT NULL of a prepared statement returns no row). A copy when one
// changes; args when spec has no LIMIT parameter.
func limitArgs(spec *MergeSpec, args []any) []any {
	out, copied := args, false
	for _, v := range [...]LimitValue{spec.Offset, spec.Count} {
		if !v.Param || v.Value < 0 || v.Value >= int64(len(args)) {
			continue
		}
		a := args[v.Value]
		n, isInt := anyInt(a)
		if a != nil && (!isInt || n >= 0) {
			continue
		}
		if !copied {
			out, copied = slices.Clone(args), true
		}
		out[v.Value] = int64(0)
		if a != nil {
			out[v.Value] = int64(math.MaxInt64)
		}
	}
	return out
}

// mergeUnitsArgs is mergeUnits with the statement's arguments args, which
// the spec's LIMIT parameters name.
func mergeUnitsArgs(spec *MergeSpec, args []any, perUnit [][][]any) ([][]any, error) {
	sources := make([]RowSource, len(perUnit))
	for u, rows := range perUnit {
		cells := make([][]Cell, len(rows))
		for r, row := range rows {
			cells[r] = make([]Cell, len(row))
			for c, v := range row {
				kind := ColumnKind{Type: ColumnBytes}
				if c < len(spec.Kinds) {
					kind = spec.Kinds[c]
				}
				var err error
				if cells[r][c], err = DecodeCell(kind, v); err != nil {
					return nil, err
				}
			}
		}
		sources[u] = NewBufferedRows(cells)
	}
	src, err := Merge(spec, args, sources)
	if err != nil {
		return nil, err
	}
	var out [][]any
	for {
		row, err := src.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		vals := make([]any, len(row))
		for i, c := range row {
			vals[i] = cellDriverValue(c.clone())
		}
		out = append(out, vals)
	}
}

// listKind is the kind of column c of a subquery whose merge is m (nil:
// none) as listValues takes it: ColumnBytes for a binary column, else
// ColumnString.
func listKind(m *MergeSpec, c int) ColumnKind {
	if m != nil && c < len(m.Kinds) && m.Kinds[c].Type == ColumnBytes {
		return ColumnKind{Type: ColumnBytes}
	}
	return ColumnKind{Type: ColumnString}
}

// listRows returns the rows of the first w columns of rows (subquery rows
// read with merge m) as the values of an IN list of rows
// (StepQuery.ListWidth), each a []any of w values converted as
// listValues converts them; a row with a NULL is left out (it equals no
// row). The keys of a LIMIT over a primary key are distinct already.
func listRows(rows [][]any, w int, m *MergeSpec) []any {
	out := make([]any, 0, len(rows))
	for _, row := range rows {
		if len(row) < w || slices.Contains(row[:w], nil) {
			continue
		}
		key := make([]any, w)
		for c := range key {
			key[c] = listValue(row[c], listKind(m, c))
		}
		out = append(out, key)
	}
	return out
}

// listValues returns the distinct non-NULL values of column c of rows, as
// arguments that compare as the column does: text (which database/sql
// scans as []byte) as a string, so that it compares under the column's
// collation, not as a binary string, unless kind says the column is
// binary.
func listValues(rows [][]any, c int, kind ColumnKind) []any {
	vals := make([]any, 0, len(rows))
	for _, row := range rows {
		if row[c] != nil {
			vals = append(vals, listValue(row[c], kind))
		}
	}
	return distinctValues(vals)
}

// listValue is v as listValues binds a value of a column of kind.
func listValue(v any, kind ColumnKind) any {
	if b, ok := v.([]byte); ok && kind.Type != ColumnBytes {
		return string(b)
	}
	return v
}

func (b *BindStep) run(ctx context.Context, r *stepsRun) ([][]any, error) {
	if b.Write {
		return nil, errors.New("runtime.RunSteps: the steps of a write run with ExecSteps")
	}
	lists, err := b.bind(ctx, r)
	if err != nil {
		return nil, err
	}
	if len(lists) == 0 {
		return b.Statement.rows(ctx, r, nil, finalStatement)
	}
	return b.Statement.rows(ctx, r, lists[0], finalStatement, lists[1:]...)
}

// bind runs the subqueries of b and returns the statement's IN lists of
// their values; the flags and scalar values are appended to r.args.
func (b *BindStep) bind(ctx context.Context, r *stepsRun) ([][]any, error) {
	subs := append([]BoundSubquery{{Query: b.Subquery, Op: b.Op}}, b.Then...)
	var lists [][]any
	args := r.args[:len(r.args):len(r.args)]
	for _, sq := range subs {
		sub, err := sq.Query.rows(ctx, r, nil, sq.Op.subquery())
		if err != nil {
			return nil, err
		}
		switch sq.Op {
		case BindExists, BindNotIn:
			flag := int64(0)
			if (len(sub) > 0) == (sq.Op == BindExists) {
				flag = 1
			}
			args = append(args, flag)
		case BindScalar:
			if len(sub) > 1 {
				return nil, ErrSubqueryRows
			}
			var v any
			if len(sub) == 1 && len(sub[0]) > 0 {
				v = sub[0][0]
			}
			args = append(args, v)
		}
		if sq.Op != BindIn && sq.Op != BindNotIn {
			continue
		}
		var list []any
		if w := b.Statement.ListWidth; w > 1 && len(lists) == 0 {
			list = listRows(sub, w, sq.Query.Merge)
		} else {
			list = listValues(sub, 0, listKind(sq.Query.Merge, 0))
		}
		if sq.Op == BindNotIn && slices.ContainsFunc(sub, func(row []any) bool { return row[0] == nil }) {
			list = append(list, nil)
		}
		lists = append(lists, list)
	}
	r.args = args
	return lists, nil
}

// finalStatement names a BindStep's Statement in errors.
const finalStatement = "the statement"

// subquery names a subquery bound as op in errors, e.g. "the subquery".
func (op BindOp) subquery() string {
	if op == BindScalar {
		return "the scalar subquery"
	}
	return "the subquery"
}

// listUnits returns the units of q (all: its route units, or those of
// them whose indexes in q.Units are keep, when set) with each of its IN
// lists (ListAt, then Lists) expanded to the values of lists (one element
// per value, `NULL` for none) and each unit's arguments (args with every
// list's values at its place). first, when set, holds each unit's own
// first list (StepListRoute.split) instead of lists[0]: a unit whose first
// list is nil does not run.
func (s *Sources) listUnits(q *StepQuery, all []RouteUnit, keep []int, args []any, lists [][]any, first [][]any) ([]RouteUnit, error) {
	type list struct {
		at   []int
		arg  int
		elem string
	}
	kept := func(at []int) []int {
		if keep == nil {
			return at
		}
		out := make([]int, len(keep))
		for i, k := range keep {
			if k < 0 || k >= len(at) {
				return nil
			}
			out[i] = at[k]
		}
		return out
	}
	ls := []list{{kept(q.ListAt), q.ListArg, q.ListElem}}
	for _, l := range q.Lists {
		ls = append(ls, list{kept(l.At), l.Arg, l.Elem})
	}
	if len(lists) != len(ls) {
		return nil, fmt.Errorf("%d lists of values for %d IN lists", len(lists), len(ls))
	}
	n := len(args)
	for k, l := range ls {
		if len(l.at) != len(all) || l.arg < 0 || l.arg > len(args) || k > 0 && l.arg < ls[k-1].arg {
			return nil, fmt.Errorf("IN list %d has %d offsets for %d units, %d arguments before it of %d", k+1, len(l.at), len(all), l.arg, len(args))
		}
		if l.elem == "" {
			ls[k].elem = "?"
		}
		n += len(lists[k])
	}
	if n > MaxPlaceholders {
		return nil, fmt.Errorf("%d IN list values with the other arguments: %w", n, ErrTooManyPlaceholders)
	}
	if first != nil && len(first) != len(all) {
		return nil, fmt.Errorf("%d first IN lists for %d units", len(first), len(all))
	}
	units := make([]RouteUnit, 0, len(all))
	for i, u := range all {
		if first != nil && first[i] == nil {
			continue
		}
		if uint(u.DataSource) >= uint(len(s.names)) {
			return nil, s.badUnit(&u)
		}
		var b strings.Builder
		uargs := make([]any, 0, n)
		from, arg := 0, 0
		for k, l := range ls {
			at := l.at[i]
			if at < from || at >= len(u.SQL) || u.SQL[at] != '?' {
				return nil, fmt.Errorf("offset %d of IN list %d in unit %d is not a placeholder", at, k+1, i)
			}
			b.WriteString(u.SQL[from:at])
			vals := lists[k]
			if k == 0 && first != nil {
				vals = first[i]
			}
			if len(vals) == 0 {
				b.WriteString("NULL")
			}
			for v := range vals {
				if v > 0 {
					b.WriteString(", ")
				}
				b.WriteString(l.elem)
			}
			from = at + 1
			uargs = append(append(uargs, args[arg:l.arg]...), vals...)
			arg = l.arg
		}
		b.WriteString(u.SQL[from:])
		units = append(units, RouteUnit{DataSource: u.DataSource, SQL: b.String(), Args: append(uargs, args[arg:]...)})
	}
	return units, nil
}

func (j *JoinStep) run(ctx context.Context, r *stepsRun) ([][]any, error) {
	var (
		outer [][]any
		err   error
	)
	if j.OuterJoin != nil {
		outer, err = j.OuterJoin.run(ctx, r)
	} else {
		outer, err = j.Outer.rows(ctx, r, nil, "the outer side of the join")
	}
	if err != nil {
		return nil, err
	}
	var joined [][]any
	if j.Build != nil && len(j.Spec.OuterKeys) > 0 {
		if joined, err = j.hashJoin(ctx, r, outer); err != nil {
			return nil, err
		}
	}
	if joined == nil {
		if joined, err = j.nestedLoop(ctx, r, outer); err != nil {
			return nil, err
		}
	}
	if j.Merge != nil {
		return MergeJoined(j.Merge, j.MergeColumns, joined)
	}
	if err := SortRows(j.Kinds, j.OrderBy, joined); err != nil {
		return nil, err
	}
	offset, count, err := r.pagination(j.Offset, j.Count, j.LimitArgs)
	if err != nil {
		return nil, err
	}
	joined = paginateRows(joined, offset, count)
	for i, row := range joined {
		out := make([]any, len(j.Output))
		for k, c := range j.Output {
			out[k] = row[c]
		}
		joined[i] = out
	}
	return joined, nil
}

// hashJoin joins the outer rows with the Build side's rows when the
// strategy (JoinStrategy) says so: nil rows (and no error) when the nested
// loop runs instead, else the joined rows (never nil).
func (j *JoinStep) hashJoin(ctx context.Context, r *stepsRun, outer [][]any) ([][]any, error) {
	br := *r
	switch r.join {
	case JoinNestedLoop:
		return nil, nil
	case JoinAuto:
		if len(outer) <= max(j.Batch, 1) {
			return nil, nil
		}
		br.limit = min(r.limit, HashJoinBuildFactor*len(outer))
	}
	if r.opt.Columns != nil {
		// The build side's columns are the inner side's.
		o := *r.opt
		o.Columns = func(_ *StepQuery, types []*sql.ColumnType) { r.opt.Columns(j.Inner, types) }
		br.opt = &o
	}
	build, err := j.Build.rows(ctx, &br, nil, "the build side of the hash join")
	if r.join == JoinAuto && errors.Is(err, ErrCrossNodeRows) {
		return nil, nil // more inner rows than the nested loop would read
	}
	if err != nil {
		return nil, err
	}
	rows, err := JoinRows(&j.Spec, outer, build, r.limit)
	if errors.Is(err, ErrJoinRows) {
		return nil, tooMany("the join", r.limit)
	}
	if err != nil {
		return nil, err
	}
	return append([][]any{}, NullRows(rows, j.Null)...), nil
}

// nestedLoop joins the outer rows with the Inner side's, run once per
// Batch outer rows with their key values bound as its IN list (once,
// without a list, when the join has no key column).
func (j *JoinStep) nestedLoop(ctx context.Context, r *stepsRun, outer [][]any) ([][]any, error) {
	batch := max(j.Batch, 1)
	var (
		joined [][]any
		once   [][]any // the inner side's rows when it binds no key
		err    error
	)
	keyed := len(j.Spec.OuterKeys) > 0
	if !keyed {
		if once, err = j.Inner.rows(ctx, r, nil, "the inner side of the join"); err != nil {
			return nil, err
		}
	}
	for start := 0; start == 0 || start < len(outer); start += batch {
		part := outer[start:min(start+batch, len(outer))]
		inner := once
		if keyed {
			key := j.Spec.OuterKeys[0]
			if inner, err = j.Inner.rows(ctx, r, listValues(part, key, j.Spec.OuterKinds[key]), "the inner side of the join"); err != nil {
				return nil, err
			}
		}
		rows, err := JoinRows(&j.Spec, part, inner, r.limit-len(joined))
		if errors.Is(err, ErrJoinRows) {
			return nil, tooMany("the join", r.limit)
		}
		if err != nil {
			return nil, err
		}
		joined = append(joined, NullRows(rows, j.Null)...)
	}
	return joined, nil
}

func (u *UnionStep) run(ctx context.Context, r *stepsRun) ([][]any, error) {
	var (
		rows [][]any
		key  []byte
	)
	seen := map[string]bool{}
	all := make([]int, u.Visible)
	for i := range all {
		all[i] = i
	}
	for i, part := range u.Parts {
		prows, err := part.rows(ctx, r, nil, fmt.Sprintf("SELECT %d of the UNION", i+1))
		if err != nil {
			return nil, err
		}
		for _, row := range prows {
			if i < u.Distinct {
				if key, err = RowKey(key[:0], u.Kinds, row, all); err != nil {
					return nil, err
				}
				if seen[string(key)] {
					continue
				}
				seen[string(key)] = true
			}
			if len(rows) == r.limit {
				return nil, tooMany("the UNION", r.limit)
			}
			rows = append(rows, row)
		}
	}
	if err := SortRows(u.Kinds, u.OrderBy, rows); err != nil {
		return nil, err
	}
	offset, count, err := r.pagination(u.Offset, u.Count, u.LimitArgs)
	if err != nil {
		return nil, err
	}
	rows = paginateRows(rows, offset, count)
	for i, row := range rows {
		rows[i] = row[:u.Visible]
	}
	return rows, nil
}

// pagination returns the LIMIT offset and row count of a join or UNION:
// offset and count, or the arguments args names (JoinStep.LimitArgs).
func (r *stepsRun) pagination(offset, count int64, args []int) (int64, int64, error) {
	if args == nil {
		return offset, count, nil
	}
	if len(args) != 2 {
		return 0, 0, fmt.Errorf("runtime.RunSteps: %d LIMIT arguments, want 2", len(args))
	}
	var err error
	if args[0] >= 0 {
		if offset, err = limitArg(LimitValue{Value: int64(args[0]), Param: true}, r.args, "offset"); err != nil {
			return 0, 0, err
		}
	}
	if args[1] >= 0 {
		if count, err = limitArg(LimitValue{Value: int64(args[1]), Param: true}, r.args, "row count"); err != nil {
			return 0, 0, err
		}
	}
	return offset, count, nil
}

// paginateRows applies LIMIT offset, count to rows (count < 0: no LIMIT).
func paginateRows(rows [][]any, offset, count int64) [][]any {
	if offset > 0 {
		rows = rows[min(int(offset), len(rows)):]
	}
	if count >= 0 && int64(len(rows)) > count {
		rows = rows[:count]
	}
	return rows
}

// ScanValues copies a row of RunSteps into dest as ScanCells does, each
// value decoded as a column of kind (nil: its Go type decides).
func ScanValues(row []any, dest ...any) error {
	if len(row) != len(dest) {
		return fmt.Errorf("runtime.ScanValues: %d values into %d destinations", len(row), len(dest))
	}
	for i, v := range row {
		if err := scanCell(valueCell(v), dest[i]); err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return nil
}

// valueCell is the cell of a value as database/sql scans it.
func valueCell(v any) Cell {
	switch x := v.(type) {
	case nil:
		return Cell{}
	case int64:
		return IntCell(x)
	case uint64:
		return UintCell(x)
	case float64:
		return FloatCell(x)
	case float32:
		return Float32Cell(x)
	case []byte:
		return BytesCell(x)
	case string:
		return StringCell(x)
	case bool:
		if x {
			return IntCell(1)
		}
		return IntCell(0)
	case time.Time:
		return TimeCell(x)
	}
	return StringCell(fmt.Sprint(v))
}

// StepsQuery is one statement of a Steps with what it is, as explain and
// the proxy's PREVIEW show it.
type StepsQuery struct {
	// What says what the statement is, e.g. "outer side of the join".
	What  string
	Query *StepQuery
}

// Queries returns the statements of st in the order RunSteps first runs
// them.
func (st *Steps) Queries() []StepsQuery {
	switch {
	case st.Bind != nil && st.Bind.Write && st.Bind.Op == BindIn && len(st.Bind.Then) == 0:
		what := "the write of the rows with those keys, its IN list (?) the keys of step 1, as one all-or-nothing write"
		if lr := st.Bind.Statement.ListRoute; lr != nil {
			what = "the write of the rows with those keys, its IN list (?) the keys of step 1 on its data node (routed by " + lr.Table + "." + lr.Column + "; a data node without one is not written), as one all-or-nothing write"
		}
		return []StepsQuery{{"the keys of the rows to write, in the statement's ORDER BY and LIMIT across data nodes", st.Bind.Subquery},
			{what, st.Bind.Statement}}
	case st.Bind != nil && (len(st.Bind.Then) > 0 || st.Bind.Op == BindScalar):
		return st.Bind.queries()
	case st.Bind != nil && st.Bind.Op == BindExists:
		return []StepsQuery{{"the EXISTS subquery (one row at most)", st.Bind.Subquery},
			{"the statement, its cast(? as signed) 1 when step 1 returned a row, else 0", st.Bind.Statement}}
	case st.Bind != nil && st.Bind.Op == BindNotIn:
		return []StepsQuery{{"the NOT IN subquery", st.Bind.Subquery},
			{"the statement, its NOT IN list (?) the values of step 1 (NULL among them when it returned one), its cast(? as signed) 1 when step 1 returned no row", st.Bind.Statement}}
	case st.Bind != nil:
		return []StepsQuery{{"the IN subquery", st.Bind.Subquery},
			{"the statement, its IN list (?) the values of step 1" + listRouteNote(st.Bind.Statement), st.Bind.Statement}}
	case st.Join != nil:
		return st.Join.queries()
	case st.Union != nil:
		out := make([]StepsQuery, len(st.Union.Parts))
		for i, part := range st.Union.Parts {
			out[i] = StepsQuery{fmt.Sprintf("SELECT %d of the UNION", i+1), part}
		}
		return out
	}
	return nil
}

// NullRows keeps the rows whose columns cols are all NULL (JoinStep.Null),
// in place; every row when cols is empty.
func NullRows(rows [][]any, cols []int) [][]any {
	if len(cols) == 0 {
		return rows
	}
	kept := rows[:0]
rows:
	for _, row := range rows {
		for _, c := range cols {
			if row[c] != nil {
				continue rows
			}
		}
		kept = append(kept, row)
	}
	return kept
}

// queries lists the statements of a BindStep with several subqueries or
// a scalar one: each subquery, then the statement, which says what each
// of its placeholders takes from which step.
func (b *BindStep) queries() []StepsQuery {
	subs := append([]BoundSubquery{{Query: b.Subquery, Op: b.Op}}, b.Then...)
	var out []StepsQuery
	var takes []string
	for i, sq := range subs {
		step := strconv.Itoa(i + 1)
		switch sq.Op {
		case BindIn:
			out = append(out, StepsQuery{"the IN subquery", sq.Query})
			takes = append(takes, "an IN list (?) the values of step "+step)
		case BindNotIn:
			out = append(out, StepsQuery{"the NOT IN subquery", sq.Query})
			takes = append(takes, "a NOT IN list (?) the values of step "+step+" (NULL among them when it returned one) and a cast(? as signed) 1 when it returned no row")
		case BindExists:
			out = append(out, StepsQuery{"the EXISTS subquery (one row at most)", sq.Query})
			takes = append(takes, "a cast(? as signed) 1 when step "+step+" returned a row, else 0")
		case BindScalar:
			out = append(out, StepsQuery{"the scalar subquery (two rows at most)", sq.Query})
			takes = append(takes, "a ? the value of step "+step+" (NULL when it returned no row; more than one row fails with error 1242)")
		}
	}
	return append(out, StepsQuery{"the statement, taking " + strings.Join(takes, ", ") + listRouteNote(b.Statement), b.Statement})
}

// queries lists the statements of a join: its outer side's (those of its
// OuterJoin, numbered first), then the build side's and the inner side's,
// each saying which steps' rows it takes.
func (j *JoinStep) queries() []StepsQuery {
	out := []StepsQuery{{"outer side of the join", j.Outer}}
	rows := "step 1"
	if j.OuterJoin != nil {
		out = nil
		for _, q := range j.OuterJoin.queries() {
			out = append(out, StepsQuery{"outer side (a join): " + q.What, q.Query})
		}
		rows = fmt.Sprintf("the join of steps 1-%d", len(out))
	}
	n := len(out)
	what := fmt.Sprintf("inner side of the join, run for every %d rows of %s with their key values as its IN list (?)", j.Batch, rows)
	if j.Inner.ListAt == nil {
		what = "inner side of the join, run once (no key columns): every outer row pairs with every inner row"
	}
	if j.Build != nil {
		out = append(out, StepsQuery{fmt.Sprintf("build side of the hash join, run once instead of step %d when the rows of %s number more than %d (reading at most %d rows per row of %s), its rows hashed by the join key", n+2, rows, j.Batch, HashJoinBuildFactor, rows), j.Build})
		what = fmt.Sprintf("nested loop: %s, when step %d does not run", what, n+1)
	}
	return append(out, StepsQuery{what + listRouteNote(j.Inner), j.Inner})
}

// listRouteNote is what a statement whose ListRoute splits its IN list
// adds to its description (explain, PREVIEW), e.g. "; its IN list split
// by the data nodes of its values (t_user.user_id): a data node that gets
// none is not asked"; "" without a ListRoute.
func listRouteNote(q *StepQuery) string {
	if q == nil || q.ListRoute == nil {
		return ""
	}
	return "; its IN list split by the data nodes of its values (" + q.ListRoute.Table + "." + q.ListRoute.Column + "): a data node that gets none is not asked"
}
