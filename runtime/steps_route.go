package runtime

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// StepRoute narrows the route units of a StepQuery at run time by the
// values of the statement's parameters on the sharding columns of one
// logic table (`user_id = ?`, `user_id IN (?, ?)`), as a single route
// computes its units from its parameters: the step then runs only on the
// data nodes the sharding algorithm picks for those values. Each value is
// first converted for its column as MySQL compares it (ColumnClass.Equal):
// '7' routes as 7 on an integer column, a value no row can hold (7.5) or
// NULL matches no row, and a value whose comparison cannot be mirrored
// exactly leaves that column's side on every target. Ranges and literal
// values are not conditions here (they were decided at generate time or
// route to every unit). Whenever narrowing cannot be exact (no router for
// Table, an argument of another Go type, a value whose comparison cannot
// be mirrored) every unit runs, as without
// a StepRoute: the rows are the same, only fewer data nodes are asked. A
// sharding algorithm that refuses the values (no data node matches a
// value, an expression that fails on it) refuses the statement with a
// *StepRouteError, as the same condition refuses a statement routed once
// (a query without steps, a literal routed at generate time).
type StepRoute struct {
	// Table is the logic table whose router (StepsOptions.Tables) computes
	// the data nodes.
	Table string `json:"table"`
	// Nodes holds, for each unit of the StepQuery, its data node's index
	// in Table's data nodes (ShardingTable.Nodes).
	Nodes []int `json:"nodes"`
	// Conditions are the sharding conditions in disjunctive normal form:
	// the data nodes are the union over the groups (an empty group: every
	// data node).
	Conditions []StepConditions `json:"conditions"`
}

// StepConditions is one AND-group of a StepRoute.
type StepConditions struct {
	Columns []StepCondition `json:"columns"`
}

// StepCondition is `Column = ?` or `Column IN (?, …)` over parameters of
// the statement.
type StepCondition struct {
	Column string `json:"column"`
	// Class is how MySQL compares the column with a value of another type.
	Class ColumnClass `json:"class,omitempty"`
	// Args index the arguments of RunSteps (the statement's parameters).
	Args []int `json:"args"`
	// Kinds are the Java kinds of the arguments' Go types (a Go integer
	// is Long, a decimal's text BigDecimal), as a single route builds
	// them: they decide hashing algorithms' data nodes.
	Kinds []ValueKind `json:"kinds,omitempty"`
}

// String describes the route as explain and PREVIEW show it, e.g. "by ?
// (t_order.user_id)", "by ?, ? (t_user.user_id)" for an IN list; AND-groups
// are joined by " or ".
func (rt *StepRoute) String() string {
	var b strings.Builder
	b.WriteString("by ")
	for i, g := range rt.Conditions {
		if i > 0 {
			b.WriteString(" or ")
		}
		for k, c := range g.Columns {
			if k > 0 {
				b.WriteString(" and ")
			}
			for a := range c.Args {
				if a > 0 {
					b.WriteString(", ")
				}
				b.WriteByte('?')
			}
			b.WriteString(" (" + rt.Table + "." + c.Column + ")")
		}
	}
	return b.String()
}

// StepRouteError is a step's statement refused by the sharding algorithm
// of its StepRoute for the statement's parameters: the error routing the
// same statement once gives (ShardingTable.RouteConditions).
type StepRouteError struct {
	Table string // the logic table routed
	Err   error  // the algorithm's refusal
}

// Error returns `routing table "<table>": <reason>`, the planner's text
// for the same refusal of a literal.
func (e *StepRouteError) Error() string {
	return "routing table " + strconv.Quote(e.Table) + ": " + e.Err.Error()
}

// Unwrap returns the algorithm's refusal.
func (e *StepRouteError) Unwrap() error { return e.Err }

// units returns the indexes of the units of q that the route reaches for
// args (ascending; at least one: when the values match no row, the first
// unit answers, as any data node would), and false when every unit must
// run; a *StepRouteError when the sharding algorithm refuses the values.
func (rt *StepRoute) units(q *StepQuery, tables func(string) *ShardingTable, args []any) ([]int, bool, error) {
	if tables == nil || len(rt.Nodes) != len(q.Units) {
		return nil, false, nil
	}
	st := tables(rt.Table)
	if st == nil {
		return nil, false, nil
	}
	groups := make([][]ShardingValues, 0, len(rt.Conditions))
	for _, g := range rt.Conditions {
		var group []ShardingValues
		for _, c := range g.Columns {
			sv := ShardingValues{Column: c.Column}
			exact := true
			for k, a := range c.Args {
				if a < 0 || a >= len(args) {
					return nil, false, nil
				}
				kind := KindLong
				if k < len(c.Kinds) {
					kind = c.Kinds[k]
				}
				v, ok := stepValue(kind, c.Class, args[a])
				if !ok {
					exact = false
					break
				}
				sv.Values = append(sv.Values, v)
			}
			if exact && len(sv.Values) > 0 {
				group = append(group, sv)
			}
		}
		groups = append(groups, group)
	}
	nodes, err := st.RouteConditions(groups, HintValues{})
	if err != nil {
		return nil, false, &StepRouteError{Table: rt.Table, Err: err}
	}
	var keep []int
	for i, n := range rt.Nodes {
		for _, m := range nodes {
			if m == n {
				keep = append(keep, i)
				break
			}
		}
	}
	if len(keep) == 0 {
		keep = []int{0}
	}
	return keep, true, nil
}

// stepValue converts a, an argument of Java kind kind compared with `=` or
// IN to a column of class class, to the sharding value it routes as (Null
// when it can equal no value of the column, see ColumnClass.Equal); ok is
// false when the comparison cannot be mirrored exactly (ArgValue refuses
// a, or EveryTarget).
func stepValue(kind ValueKind, class ColumnClass, a any) (Value, bool) {
	v, ok := ArgValue(kind, a)
	if !ok {
		return Value{}, false
	}
	v, conv := class.Equal(v)
	switch conv {
	case EveryTarget:
		return Value{}, false
	case NoRow:
		return Null, true
	}
	if v.Kind == KindInt {
		v = Long(v.Int) // a parameter's integer, as go-sql-driver sends it
	}
	return v, true
}

// StepListRoute routes the values of a StepQuery's IN list (ListAt), which
// compares a sharding column of Table with them (a write's keys, see
// BindStep.Write; a nested-loop join's outer keys on the inner table's
// sharding column, `user_id IN (SELECT …)`): each unit gets only the
// values whose data nodes the sharding algorithm picks for its own, and a
// unit that gets none does not run. This is exact because a row lives on
// the data node of its column's value, and a value equals the row's only
// if it converts to that value as MySQL compares them: each value is
// converted as StepRoute converts a parameter's (ColumnClass.Equal after
// ArgValue: '3' and 3.0 route as 3, 7.5 equals no BIGINT and goes
// nowhere). Whenever a value's data nodes cannot be computed exactly (no
// router for Table, a value of another Go type, a double from 2^53 on, an
// algorithm that fails on it) every unit gets every value, as without a
// StepListRoute. The planner sets it for values read from another table
// only on integer, DATE and DATETIME columns (never text, whose collation
// may equal other spellings).
type StepListRoute struct {
	// Table is the logic table whose router (StepsOptions.Tables) computes
	// the data nodes.
	Table string `json:"table"`
	// Nodes holds, for each unit of the StepQuery, its data node's index
	// in Table's data nodes (ShardingTable.Nodes).
	Nodes []int `json:"nodes"`
	// Column is the sharding column the list compares.
	Column string `json:"column"`
	// Class is how MySQL compares the column with a value of another type.
	Class ColumnClass `json:"class,omitempty"`
	// Kind is the Java kind of the values (as StepCondition.Kinds).
	Kind ValueKind `json:"kind,omitempty"`
	// Part, for an IN list of rows (StepQuery.ListWidth), is the index
	// in each row of the value of Column.
	Part int `json:"part,omitempty"`
}

// split returns, for each unit of q whose index in q.Units is keep[i]
// (i itself when keep is nil; n units), the values of list that it gets,
// nil for a unit that gets none; ok is false when every unit must get
// every value.
func (lr *StepListRoute) split(q *StepQuery, tables func(string) *ShardingTable, keep []int, n int, list []any) ([][]any, bool) {
	if len(lr.Nodes) != len(q.Units) {
		return nil, false
	}
	idx, ok := lr.Split(tables, keep, n, q.ListWidth, list)
	if !ok {
		return nil, false
	}
	out := make([][]any, n)
	for i, vals := range idx {
		for _, v := range vals {
			out[i] = append(out[i], list[v])
		}
	}
	return out, true
}

// Split returns, for each of n route units, the indexes in list of the
// values the unit gets: those whose data nodes (routed by Table's router
// from tables) include the unit's, Nodes[keep[i]] for unit i (Nodes[i]
// when keep is nil); nil for a unit that gets none. width above 1 makes
// each value a row of that many values ([]any, StepQuery.ListWidth)
// routed by its Part. ok is false when a value's data nodes cannot be
// computed exactly (see StepListRoute): every unit must then get every
// value. The proxy's own operators split the IN lists they bind with it
// too.
func (lr *StepListRoute) Split(tables func(string) *ShardingTable, keep []int, n, width int, list []any) ([][]int, bool) {
	if tables == nil {
		return nil, false
	}
	st := tables(lr.Table)
	if st == nil {
		return nil, false
	}
	unitOf := map[int][]int{} // data node index → indexes of the units (0..n-1) on it
	for i := range n {
		k := i
		if keep != nil {
			k = keep[i]
		}
		if k < 0 || k >= len(lr.Nodes) {
			return nil, false
		}
		unitOf[lr.Nodes[k]] = append(unitOf[lr.Nodes[k]], i)
	}
	out := make([][]int, n)
	for j, arg := range list {
		key := arg
		if width > 1 {
			row, ok := arg.([]any)
			if !ok || lr.Part < 0 || lr.Part >= len(row) {
				return nil, false
			}
			key = row[lr.Part]
		}
		v, ok := stepValue(lr.Kind, lr.Class, key)
		if !ok {
			return nil, false
		}
		nodes, err := st.RouteConditions([][]ShardingValues{{{Column: lr.Column, Values: []Value{v}}}}, HintValues{})
		if err != nil {
			return nil, false
		}
		for _, m := range nodes {
			for _, i := range unitOf[m] {
				out[i] = append(out[i], j)
			}
		}
	}
	return out, true
}

// ArgValue converts an argument's Go value to the sharding value a
// generated function builds for a parameter whose Go type has the Java
// kind kind, as the proxy's parameters are converted too: integers Long
// (BigInteger beyond int64; go-sql-driver sends them as LONGLONG, which
// ShardingSphere reads as java.lang.Long), text String (BigDecimal for a
// decimal, a time for MySQL date or datetime text of a time parameter:
// client libraries send times as text, and go-sql-driver drops the time
// of day at midnight), times Timestamp, nil NULL; a driver.Valuer by its
// value. A float64 (a client that has only doubles, such as JavaScript's
// mysql2) is, for an integer kind, the integer it is when whole and below
// 2^53, else its text with an exponent, which ColumnClass.Equal reads as
// a double and converts as MySQL compares it (5.5 matches no row of an
// integer column, a whole double from 2^53 on routes to every target);
// for another kind a BigDecimal of its shortest text. ok is false for
// anything else (another type, a Valuer that fails): callers route to
// every target or refuse the value.
func ArgValue(kind ValueKind, v any) (Value, bool) {
	if vr, ok := v.(driver.Valuer); ok {
		dv, err := vr.Value()
		if err != nil {
			return Value{}, false
		}
		v = dv
	}
	switch x := v.(type) {
	case nil:
		return Null, true
	case int:
		return Long(int64(x)), true
	case int8:
		return Long(int64(x)), true
	case int16:
		return Long(int64(x)), true
	case int32:
		return Long(int64(x)), true
	case int64:
		return Long(x), true
	case uint8:
		return Long(int64(x)), true
	case uint16:
		return Long(int64(x)), true
	case uint32:
		return Long(int64(x)), true
	case uint:
		return ArgValue(kind, uint64(x))
	case uint64:
		if x > 1<<63-1 {
			return BigInteger(strconv.FormatUint(x, 10)), true
		}
		return Long(int64(x)), true
	case []byte:
		return ArgValue(kind, string(x))
	case string:
		switch kind {
		case KindDecimal:
			return Decimal(x), true
		case KindTime:
			if t, ok := ParseDateTime(x); ok {
				return Time(t), true
			}
		}
		return String(x), true
	case time.Time:
		return Time(x), true
	case float64:
		if kind == KindInt || kind == KindLong {
			if x == float64(int64(x)) && x > -(1<<53) && x < 1<<53 {
				return Long(int64(x)), true
			}
			return Decimal(strconv.FormatFloat(x, 'e', -1, 64)), true
		}
		return Decimal(fmt.Sprint(x)), true // %v: an exponent from 1e21 on
	}
	return Value{}, false
}
