package plan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// ShardingTable returns the bound router of a sharded logic table, or nil.
func (b *Builder) ShardingTable(logicTable string) *runtime.ShardingTable {
	if t := b.tables()[strings.ToLower(logicTable)]; t != nil {
		return t.route
	}
	return nil
}

// Units returns the indexes in p.Route.Units of the route units the plan
// runs on for the given parameter values (one per Plan.Params entry, in
// order; the caller must not change the result, which may be shared): the
// run-time half of routing, which the proxy and `shardgen
// preview` use and generated code does in straight-line Go. Broadcast reads
// take the first data source.
//
// Every value (literal or parameter) is first converted for its sharding
// column as MySQL compares it (runtime.ColumnClass.Equal and Bound): `= '5'`,
// `= 5.0`, `= 5e0` on an integer column route as 5, a value no row can
// hold (5.5) matches no row, and a value whose comparison cannot be mirrored
// exactly routes that column's side to every target. An INSERT's value is
// converted as the server stores it (ColumnClass.Stored), or refused.
//
// In a SELECT, UPDATE or DELETE a NULL sharding value matches no row, as in
// MySQL (runtime.ShardingTable.RouteConditions): the result may be empty
// (not nil), and the statement then runs nowhere. An INSERT row's NULL
// sharding value is an error naming the query and the column, e.g.
// "InsertPay: sharding column user_id of t_pay is NULL" (without the query
// name for an ad-hoc statement): a row must be placed.
//
// A pushed-down route (Route.Pushdown) runs on exactly one unit, which must
// agree with Route.Agree (runtime.NotColocatedError otherwise).
//
// An UPDATE that sets sharding columns (Route.Update) is refused unless
// every updated row stays on its data node
// (runtime.ShardingTable.UpdateStaysOnNode).
func (b *Builder) Units(p *Plan, params []runtime.Value) ([]int, error) {
	units, err := b.routeUnits(p, params)
	if err != nil {
		return nil, err
	}
	if p.Route.Update != nil {
		if err := b.checkUpdate(p, units, params); err != nil {
			return nil, err
		}
	}
	if !p.Route.Pushdown {
		return units, nil
	}
	return b.agree(p, units, params)
}

// checkUpdate applies runtime.ShardingTable.UpdateStaysOnNode to the units
// of an UPDATE that sets sharding columns; the new values are converted as
// the server stores them.
func (b *Builder) checkUpdate(p *Plan, units []int, params []runtime.Value) error {
	rt, u := p.Route, p.Route.Update
	st := b.ShardingTable(rt.LogicTable)
	if st == nil {
		return fmt.Errorf("table %q is not sharded", rt.LogicTable)
	}
	stored := func(column string) bool {
		return slices.ContainsFunc(u.Set.Columns, func(c ColumnCondition) bool { return strings.EqualFold(c.Column, column) })
	}
	set, err := b.convertedValues(p, rt.LogicTable, []Condition{u.Set}, params, false, stored)
	if err != nil {
		return err
	}
	if len(set[0]) != len(u.Set.Columns) {
		return fmt.Errorf("UPDATE sets sharding column %s of %s to values shardgen cannot convert exactly", u.ColumnsText(), rt.LogicTable)
	}
	rows, err := b.convertedValues(p, rt.LogicTable, u.Conditions, params, false, stored)
	if err != nil {
		return err
	}
	return st.UpdateStaysOnNode(rt.LogicTable, units, set[0], rows)
}

// agree applies the agreements of a pushed-down route to its units (at
// most one).
func (b *Builder) agree(p *Plan, units []int, params []runtime.Value) ([]int, error) {
	rt := p.Route
	main := b.ShardingTable(rt.LogicTable)
	if main == nil {
		return nil, fmt.Errorf("table %q is not sharded", rt.LogicTable)
	}
	unit := -1
	if len(units) > 0 {
		unit = units[0]
	}
	for _, a := range rt.Agree {
		picked := unit
		var ok bool
		other, where := "", a.DataSource
		if a.DataSource != "" {
			picked, ok = runtime.AgreeDataSource(main, unit, a.DataSource)
		} else {
			st := b.ShardingTable(a.Router)
			if st == nil {
				return nil, fmt.Errorf("table %q is not sharded", a.Router)
			}
			groups, err := b.conditionValues(p, a.Router, a.Conditions, params, false)
			if err != nil {
				return nil, err
			}
			nodes, err := st.RouteConditions(groups, runtime.HintValues{})
			if err != nil {
				return nil, err
			}
			picked, ok = runtime.Agree(main, unit, st, nodes, a.SameNode)
			var names []string
			for _, n := range nodes {
				if a.SameNode {
					names = append(names, b.ShardingTable(a.Table).Nodes()[n].String())
				} else {
					names = append(names, st.Nodes()[n].String())
				}
			}
			where = strings.Join(names, ", ")
			other = a.Table
		}
		if other == "" {
			other = a.Table
		}
		if !ok {
			here := "no data node"
			if unit >= 0 {
				here = main.Nodes()[unit].String()
			}
			return nil, runtime.NotColocatedError(rt.LogicTable, here, other, where)
		}
		unit = picked
	}
	if unit < 0 {
		unit = 0 // every table's values match no row: any data node answers alike
	}
	return []int{unit}, nil
}

// routeUnits is Units before the agreements of a pushed-down route.
func (b *Builder) routeUnits(p *Plan, params []runtime.Value) ([]int, error) {
	rt := p.Route
	if rt.Fixed != nil {
		return rt.Fixed, nil
	}
	if rt.Kind == runtime.RouteAllNodes {
		if n := len(rt.Units); n <= len(unitIndexes) {
			return unitIndexes[:n:n], nil
		}
		all := make([]int, len(rt.Units))
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	st := b.ShardingTable(rt.LogicTable)
	if st == nil {
		return nil, fmt.Errorf("table %q is not sharded", rt.LogicTable)
	}
	if n, ok := b.preciseUnit(p, st, params); ok {
		return oneUnit(n), nil
	}
	return b.conditionUnits(p, st, params)
}

// conditionUnits is routeUnits for a computed route, without the fast
// path: every condition converted and routed by the runtime.
func (b *Builder) conditionUnits(p *Plan, st *runtime.ShardingTable, params []runtime.Value) ([]int, error) {
	rt := p.Route
	insert := p.Statement == StmtInsert
	groups, err := b.conditionValues(p, rt.LogicTable, rt.Conditions, params, insert)
	if err != nil {
		return nil, err
	}
	if insert {
		return st.RouteAll(groups, runtime.HintValues{})
	}
	return st.RouteConditions(groups, runtime.HintValues{})
}

// preciseUnit is routeUnits' fast path, without allocation, for a route
// decided by one value of one sharding column (`id = ?`, a one-row INSERT):
// the unit of the data node runtime.ShardingTable.PreciseColumn finds for
// the value. The value must need no conversion beyond convertRun's
// in-place one (an integer of an integer column becomes a Long; any
// non-hexadecimal value of a column compared as it is); ok is false for
// everything else (NULL, ranges, lists, several columns or AND-groups,
// values to convert, algorithms that fail), which conditionValues and the
// runtime's route then answer in full.
func (b *Builder) preciseUnit(p *Plan, st *runtime.ShardingTable, params []runtime.Value) (int, bool) {
	rt := p.Route
	if len(rt.Conditions) != 1 || len(rt.Conditions[0].Columns) != 1 {
		return -1, false
	}
	cc := &rt.Conditions[0].Columns[0]
	if cc.Range != nil || len(cc.Values) != 1 {
		return -1, false
	}
	var v runtime.Value
	switch o := cc.Values[0]; {
	case o.Literal != nil:
		v = *o.Literal
	case o.Param >= 0 && o.Param < len(params):
		v = params[o.Param]
	default:
		return -1, false
	}
	switch class := b.columnClass(rt.LogicTable, cc.Column, cc.Binary); class {
	case runtime.ClassInteger:
		if v.Kind != runtime.KindInt && v.Kind != runtime.KindLong {
			return -1, false
		}
		v = asLong(class, v)
	case runtime.ClassAsIs:
		if v.Kind == runtime.KindHexNumber {
			return -1, false
		}
	default:
		return -1, false
	}
	return st.PreciseColumn(cc.Column, v)
}

// unitIndexes holds 0, 1, 2, …: oneUnit's result is a slice of it.
var unitIndexes = func() (a [1024]int) {
	for i := range a {
		a[i] = i
	}
	return a
}()

// oneUnit returns the unit list {n} without allocating for n below
// len(unitIndexes) (routeUnits returns every unit of a smaller route the
// same way). Its capacity is 1, so an append copies; the caller must
// not change its element (Route.Fixed is shared the same way).
func oneUnit(n int) []int {
	if n >= 0 && n < len(unitIndexes) {
		return unitIndexes[n : n+1 : n+1]
	}
	return []int{n}
}

// conditionValues binds the operands of conds to values. For an INSERT
// (insert set) a NULL value is InsertNullError.
//
// Each value is converted as MySQL compares it with table's sharding
// column.
func (b *Builder) conditionValues(p *Plan, table string, conds []Condition, params []runtime.Value, insert bool) ([][]runtime.ShardingValues, error) {
	return b.convertedValues(p, table, conds, params, insert, func(string) bool { return insert })
}

// convertedValues is conditionValues with the conversion chosen per
// column: as the server stores the value where stored reports true, else
// as MySQL compares it. nullErr makes a NULL value InsertNullError.
func (b *Builder) convertedValues(p *Plan, table string, conds []Condition, params []runtime.Value, nullErr bool, stored func(column string) bool) ([][]runtime.ShardingValues, error) {
	insert := nullErr
	value := func(o Operand) (runtime.Value, error) {
		if o.Literal != nil {
			return *o.Literal, nil
		}
		if o.Param < 0 || o.Param >= len(params) {
			return runtime.Value{}, fmt.Errorf("no value for parameter %d", o.Param+1)
		}
		return params[o.Param], nil
	}
	groups := make([][]runtime.ShardingValues, len(conds))
	for i, c := range conds {
		for _, cc := range c.Columns {
			sv := runtime.ShardingValues{Column: cc.Column}
			for _, o := range cc.Values {
				v, err := value(o)
				if err != nil {
					return nil, err
				}
				if insert && v.IsNull() {
					return nil, InsertNullError(p, cc.Column, p.Route.LogicTable, 0)
				}
				sv.Values = append(sv.Values, v)
			}
			if r := cc.Range; r != nil {
				rg := &runtime.Range{LowerOpen: r.LowerOpen, UpperOpen: r.UpperOpen}
				var err error
				if r.Lower != nil {
					if rg.Lower, err = value(*r.Lower); err != nil {
						return nil, err
					}
					rg.HasLower = true
				}
				if r.Upper != nil {
					if rg.Upper, err = value(*r.Upper); err != nil {
						return nil, err
					}
					rg.HasUpper = true
				}
				sv.Range = rg
			}
			// Convert every value as MySQL compares (or, for an INSERT,
			// stores) it for the column's type: `user_id = '5'` routes as 5.
			sv, ok, err := convertRun(b.columnClass(table, cc.Column, cc.Binary), sv, cc.Values, stored(cc.Column))
			if err != nil {
				return nil, err
			}
			if !ok {
				continue // not exactly convertible: this side routes to every target
			}
			groups[i] = append(groups[i], sv)
		}
	}
	return groups, nil
}

// InsertNullError is the error of an INSERT whose sharding column's value
// is NULL: "<query>: sharding column <column> of <table> is NULL", without
// "<query>: " for an ad-hoc statement (AdHocFile). Generated code returns
// the same text, its query named by runtime.WrapQuery. row > 0 (1-based) names the VALUES row of a multi-row
// INSERT: "... is NULL in row 2". ShardingSphere's algorithms fail on NULL too, with their
// own words; a row must be placed on a data node.
func InsertNullError(p *Plan, column, table string, row int) error {
	msg := InsertNullText(column, table, row)
	if !strings.HasPrefix(p.Source, AdHocFile) && p.Name != "" {
		msg = p.Name + ": " + msg
	}
	return errors.New(msg)
}

// InsertNullText is InsertNullError's text without the query's name:
// "sharding column <column> of <table> is NULL[ in row <row>]". Generated
// code returns it named by runtime.WrapQuery.
func InsertNullText(column, table string, row int) string {
	msg := "sharding column " + column + " of " + table + " is NULL"
	if row > 0 {
		msg += " in row " + strconv.Itoa(row)
	}
	return msg
}

// ParseValue converts the text of a parameter value into the sharding value
// a Go value of type t would be: integers become Long (as go-sql-driver
// sends them), DECIMAL text Decimal, everything else String. For an integer
// type, decimal or double text (5.0, 5e0) is a Decimal that Units converts
// as MySQL compares it; other text is an error. "NULL" (any
// case) is NULL.
func ParseValue(t GoType, text string) (runtime.Value, error) {
	if strings.EqualFold(text, "null") {
		return runtime.Null, nil
	}
	switch t.Kind {
	case runtime.KindLong, runtime.KindInt:
		v := runtime.IntegerLiteral(text)
		if v.Kind == runtime.KindBigInteger {
			if _, ok := parseDecimalInt(text); !ok {
				if _, err := strconv.ParseFloat(text, 64); err == nil {
					// 5.0 or 5e0: a decimal or a double, converted for the
					// column as MySQL compares it (Builder.Units).
					return runtime.Decimal(text), nil
				}
				return runtime.Value{}, fmt.Errorf("%q is not an integer", text)
			}
			return v, nil
		}
		return runtime.Long(v.Int), nil
	case runtime.KindDecimal:
		return runtime.Decimal(text), nil
	}
	return runtime.String(text), nil
}

func parseDecimalInt(s string) (string, bool) {
	t := strings.TrimPrefix(s, "-")
	if t == "" {
		return "", false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return s, true
}

// ReturnsRows reports whether sql is a statement that returns rows (a
// SELECT, leading comments allowed), so an ad-hoc caller can pick :many or
// :execrows for it.
func ReturnsRows(sql string) bool {
	for {
		sql = strings.TrimSpace(sql)
		switch {
		case strings.HasPrefix(sql, "#"), strings.HasPrefix(sql, "--"):
			if i := strings.IndexByte(sql, '\n'); i >= 0 {
				sql = sql[i+1:]
				continue
			}
			return false
		case strings.HasPrefix(sql, "/*") && !strings.HasPrefix(sql, "/*!"):
			if i := strings.Index(sql, "*/"); i >= 0 {
				sql = sql[i+2:]
				continue
			}
			return false
		}
		break
	}
	switch sqlparser.Preview(sql) {
	case sqlparser.StmtSelect, sqlparser.StmtShow, sqlparser.StmtExplain:
		return true
	}
	return afterWith(sql) == "select"
}

// afterWith returns, for a statement that starts with WITH, the lower-case
// keyword of the statement its common table expressions precede ("select",
// "update", "delete"): the first such word outside parentheses (the
// expressions' bodies and column lists). Otherwise "".
func afterWith(sql string) string {
	if len(sql) < 5 || !strings.EqualFold(sql[:4], "with") || isIdentByte(sql[4]) {
		return ""
	}
	depth := 0
	for i := 4; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(sql, i) - 1
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && isIdentByte(c) && !isIdentByte(sql[i-1]):
			j := i
			for j < len(sql) && isIdentByte(sql[j]) {
				j++
			}
			switch w := strings.ToLower(sql[i:j]); w {
			case "select", "update", "delete", "insert", "replace", "values", "table":
				if w == "values" || w == "table" {
					return "select"
				}
				return w
			}
			i = j - 1
		}
	}
	return ""
}

// RowNodes returns, for a multi-row INSERT (p.Insert set), the unit index
// each VALUES row routes to, given the parameter values: rows are routed one
// by one (Route.Conditions[r] is row r's condition). Error: a row that
// reaches no data node or several, or whose sharding value is NULL
// (InsertNullError with the row).
func (b *Builder) RowNodes(p *Plan, params []runtime.Value) ([]int, error) {
	if p.Insert == nil {
		return nil, fmt.Errorf("query %s is not a multi-row INSERT", p.Name)
	}
	nodes := make([]int, len(p.Route.Conditions))
	for r := range p.Route.Conditions {
		for _, cc := range p.Route.Conditions[r].Columns {
			for _, o := range cc.Values {
				if o.Literal == nil && o.Param >= 0 && o.Param < len(params) && params[o.Param].IsNull() {
					return nil, InsertNullError(p, cc.Column, p.Route.LogicTable, r+1)
				}
			}
		}
		one := *p
		rt := *p.Route
		rt.Conditions = p.Route.Conditions[r : r+1]
		rt.Fixed = nil
		one.Route = &rt
		n, err := b.Units(&one, params)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", r+1, err)
		}
		if len(n) != 1 {
			return nil, fmt.Errorf("row %d of the INSERT routes to %d data nodes", r+1, len(n))
		}
		nodes[r] = n[0]
	}
	return nodes, nil
}
