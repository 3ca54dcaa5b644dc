package plan

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// mergeKind is how a merged column compares during planning: "int",
// "uint", "decimal", "float", "string" (with Collation), "bytes", "time".
// It becomes a runtime.ColumnKind in the plan.
type mergeKind struct {
	Type      string
	Collation string
	// Scale is the DECIMAL scale of an AVG result (argument scale +
	// div_precision_increment).
	Scale int
	// Weight is the column of the derived WEIGHT_STRING the merge compares
	// a "string" key by (runtime.ColumnKind.Weight); 0 when none.
	Weight int
}

// mergeDraft is the merge spec while it is being planned.
type mergeDraft struct {
	Visible     int
	Kinds       []mergeKind
	OrderBy     []runtime.SortKey
	GroupBy     []int
	Aggregates  []runtime.AggregateSpec
	Distinct    bool
	Offset      *Operand
	Count       *Operand
	StreamGroup bool
	Computed    []runtime.ComputedColumn
	Having      *runtime.Expr
	FirstColumn int
	// weighed are the text columns a comparison by sort keys reads
	// (exprBuilder.weighed): they get WEIGHT_STRING columns.
	weighed []int
}

// mergeNeeded reports why a SELECT needs merging across nodes ("" when rows
// can simply be concatenated).
func mergeNeeded(s *sqlparser.Select) string {
	switch {
	case len(s.OrderBy) > 0:
		return "ORDER BY"
	case s.GroupBy != nil && len(s.GroupBy.Exprs) > 0:
		return "GROUP BY"
	case s.Having != nil:
		return "HAVING"
	case s.Distinct:
		return "DISTINCT"
	case s.Limit != nil:
		return "LIMIT"
	case containsAggregate(s.SelectExprs):
		return "an aggregate function"
	}
	return ""
}

// mergeCol is one column of the per-node select list during analysis.
type mergeCol struct {
	expr  sqlparser.Expr
	alias string // for derived columns
	kind  mergeKind
}

// planMerge analyses a multi-node SELECT that needs merging: it builds the
// per-node statement (expanded select list, derived columns, per-node
// pagination) and the Merge spec. The per-node statement replaces p.stmt for
// the rewrite; printed, it becomes the SQL of every unit.
// dropOrderByNull removes ORDER BY NULL, MySQL's way of asking for no
// order (it only turns off GROUP BY's implicit sort): there is nothing to
// merge by, and a constant NULL key is not a column the merge can compare.
func dropOrderByNull(sel *sqlparser.Select) {
	keep := sel.OrderBy[:0]
	for _, o := range sel.OrderBy {
		if _, null := o.Expr.(*sqlparser.NullVal); !null {
			keep = append(keep, o)
		}
	}
	if len(keep) == 0 {
		keep = nil
	}
	sel.OrderBy = keep
}

func (p *planner) planMerge(sel *sqlparser.Select) error {
	dropOrderByNull(sel)
	// Grouped by every sharding column of exactly comparable type, each
	// group lives whole on one data node: the node computes its aggregates,
	// HAVING and expressions exactly, and the merge only orders and pages.
	colocated := p.groupsColocated(sel)
	if sel.GroupBy != nil && sel.GroupBy.WithRollup {
		return p.errorf(p.findWord("ROLLUP"), "GROUP BY ... WITH ROLLUP over several data nodes is not supported: its subtotal rows add up groups from every data node, which the merge does not compute; compare every sharding column (%s) with one value so the statement routes to one data node, or drop WITH ROLLUP and add up the groups' rows", strings.Join(shardingColumns(p.plan.Route), ", "))
	}
	node := sqlparser.Clone(sel)
	m := &mergeDraft{}
	p.concatGroup = nil
	var cols []mergeCol
	// 1. The visible columns: the select list with * expanded.
	for _, se := range sel.SelectExprs.Exprs {
		switch e := se.(type) {
		case *sqlparser.StarExpr:
			for _, c := range levelStarColumns(p.refs, e.TableName.Name.String()) {
				qual := c.ref.alias
				if qual == "" {
					qual = c.ref.info.name
				}
				cn := sqlparser.NewColNameWithQualifier(c.col.Name, sqlparser.NewTableName(qual))
				p.cols[cn] = c
				cols = append(cols, mergeCol{expr: cn, kind: p.columnKind(c.ref.info, c.col)})
			}
		case *sqlparser.AliasedExpr:
			cols = append(cols, mergeCol{expr: e.Expr, alias: e.As.String(), kind: p.exprKind(e.Expr)})
		}
	}
	m.Visible = len(cols)
	derived := func(kind string, e sqlparser.Expr, k mergeKind) int {
		n := 0
		for _, c := range cols[m.Visible:] {
			if strings.HasPrefix(c.alias, kind) {
				n++
			}
		}
		cols = append(cols, mergeCol{expr: e, alias: fmt.Sprintf("%s_%d", kind, n), kind: k})
		return len(cols) - 1
	}
	// find returns the visible column an ORDER BY / GROUP BY item names:
	// a position, an alias, or an equal expression.
	find := func(e sqlparser.Expr) int {
		if l, ok := e.(*sqlparser.Literal); ok && l.Type == sqlparser.IntVal {
			var n int
			fmt.Sscan(l.Val, &n)
			if n >= 1 && n <= m.Visible {
				return n - 1
			}
			return -2
		}
		if c, ok := e.(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() {
			for i, col := range cols[:m.Visible] {
				if col.alias != "" && strings.EqualFold(col.alias, c.Name.String()) {
					return i
				}
			}
		}
		for i, col := range cols { // visible columns, then derived ones
			if p.sameExpr(col.expr, e) {
				return i
			}
		}
		return -1
	}
	// 2. GROUP BY keys.
	if sel.GroupBy != nil {
		for _, g := range sel.GroupBy.Exprs {
			i := find(g)
			if i == -2 {
				return p.errorIn("GROUP", g, "GROUP BY position %s is out of range", sqlparser.String(g))
			}
			if i < 0 {
				i = derived("GROUP_BY_DERIVED", g, p.exprKind(g))
			}
			m.GroupBy = append(m.GroupBy, i)
		}
	}
	// 3. Aggregates of the visible columns (AVG adds its SUM and COUNT).
	hasAgg := false
	for i := 0; i < m.Visible; i++ {
		a, ok := cols[i].expr.(sqlparser.AggrFunc)
		if !ok {
			continue
		}
		hasAgg = true
		if colocated {
			continue // the node's value is the group's
		}
		agg, err := p.aggregate(a, i, derived)
		if err != nil {
			return err
		}
		m.Aggregates = append(m.Aggregates, agg)
	}
	// 3b. Expressions over aggregates, evaluated on the merged groups
	// (each node still computes the expression itself, which the merge
	// ignores: its result column's metadata is the proxy's).
	xb := &exprBuilder{p: p, m: m, cols: &cols, derived: derived, roundAvg: sortsGroups(sel)}
	for i := 0; i < m.Visible && !colocated; i++ {
		if _, bare := cols[i].expr.(sqlparser.AggrFunc); bare || !containsAggregate(cols[i].expr) {
			continue
		}
		x, err := xb.build(cols[i].expr)
		if err != nil {
			return err
		}
		m.Computed = append(m.Computed, runtime.ComputedColumn{Column: i, Expr: x})
	}
	for _, o := range sel.OrderBy {
		i := find(o.Expr)
		if i == -2 {
			return p.errorIn("ORDER", o.Expr, "ORDER BY position %s is out of range", sqlparser.String(o.Expr))
		}
		if i < 0 {
			if sel.Distinct {
				return p.errorIn("ORDER", o.Expr, "ORDER BY %s of a SELECT DISTINCT must name a selected column", sqlparser.String(o.Expr))
			}
			if a, ok := o.Expr.(sqlparser.AggrFunc); ok && !colocated {
				i = derived("ORDER_BY_DERIVED", o.Expr, p.exprKind(o.Expr))
				agg, err := p.aggregate(a, i, derived)
				if err != nil {
					return err
				}
				m.Aggregates = append(m.Aggregates, agg)
				hasAgg = true
			} else {
				i = derived("ORDER_BY_DERIVED", o.Expr, p.exprKind(o.Expr))
				if containsAggregate(o.Expr) && !colocated {
					x, err := xb.build(o.Expr)
					if err != nil {
						return err
					}
					m.Computed = append(m.Computed, runtime.ComputedColumn{Column: i, Expr: x})
				}
			}
		}
		for _, a := range m.Aggregates {
			if a.Column == i && a.GroupConcat != nil {
				return p.errorIn("ORDER", o.Expr, "ORDER BY the GROUP_CONCAT %s over several data nodes is not supported; order by a GROUP BY column, or GROUP BY every sharding column (%s) so each group is on one data node", sqlparser.String(o.Expr), strings.Join(shardingColumns(p.plan.Route), ", "))
			}
		}
		m.OrderBy = append(m.OrderBy, runtime.SortKey{Column: i, Desc: o.Direction == sqlparser.DescOrder})
	}
	if sel.Having != nil && !colocated {
		xb.having = true
		x, err := xb.build(sel.Having.Expr)
		if err != nil {
			return err
		}
		m.Having = &x
		node.Having = nil // the nodes hold partial groups: filter after the merge
	}
	hasAgg = hasAgg || xb.hasAgg
	m.Distinct = sel.Distinct
	grouping := hasAgg || len(m.GroupBy) > 0 || m.Distinct
	m.StreamGroup = len(m.GroupBy) > 0 && len(m.OrderBy) >= len(m.GroupBy) && func() bool {
		for i, g := range m.GroupBy {
			if m.OrderBy[i].Column != g {
				return false
			}
		}
		return true
	}()
	// SELECT DISTINCT ordered by every selected column (sysbench's
	// distinct range: SELECT DISTINCT c ... ORDER BY c): equal rows are
	// adjacent in the merged order, so duplicates are dropped as the sorted
	// node streams merge, instead of loading every row into memory.
	if m.Distinct && len(m.GroupBy) == 0 && !hasAgg && len(m.OrderBy) >= m.Visible {
		covered := make([]bool, m.Visible)
		n := 0
		for _, k := range m.OrderBy[:m.Visible] {
			if k.Column < m.Visible && !covered[k.Column] {
				covered[k.Column] = true
				n++
			}
		}
		m.StreamGroup = n == m.Visible
	}
	// 5. Pagination: every node returns its first offset+count rows (all of
	// them when groups are merged in memory); the merge skips and takes.
	if sel.Limit != nil {
		if sel.Limit.Offset != nil {
			o, ok := p.operand(sel.Limit.Offset)
			if !ok || (o.Literal != nil && o.Literal.Kind > 2) {
				return p.errorAt("LIMIT", "LIMIT offset must be an integer or a parameter")
			}
			m.Offset = &o
		}
		c, ok := p.operand(sel.Limit.Rowcount)
		if !ok {
			return p.errorAt("LIMIT", "LIMIT row count must be an integer or a parameter")
		}
		m.Count = &c
	}
	firstDistinct := false
	if grouping && !colocated {
		m.FirstColumn, firstDistinct = p.firstRowColumn(m, cols, hasAgg, derived)
	}
	if err := p.checkMergeKeys(m, cols); err != nil {
		return err
	}
	// The per-node statement.
	exprs := make([]sqlparser.SelectExpr, 0, len(cols))
	for i, c := range cols {
		ae := &sqlparser.AliasedExpr{Expr: c.expr}
		if i < m.Visible {
			ae.As = sqlparser.NewIdentifierCI(c.alias)
		} else {
			ae.As = sqlparser.NewIdentifierCI(c.alias)
		}
		exprs = append(exprs, ae)
		k := c.kind
		if k.Type == "" {
			// Not a key (checkMergeKeys): its values pass through as text.
			k = mergeKind{Type: "bytes"}
		}
		m.Kinds = append(m.Kinds, k)
	}
	node.SelectExprs = &sqlparser.SelectExprs{Exprs: exprs}
	if firstDistinct {
		// SELECT DISTINCT x, MIN(pk) would be one row: group by the
		// selected columns instead, so each node returns each value class
		// once, with its least primary key.
		node.Distinct = false
		var keys []sqlparser.Expr
		for _, se := range exprs[:m.Visible] {
			keys = append(keys, sqlparser.Clone(se.(*sqlparser.AliasedExpr).Expr))
		}
		node.GroupBy = &sqlparser.GroupBy{Exprs: keys}
	}
	if err := p.rewriteDistinctAggregates(node, m); err != nil {
		return err
	}
	if err := p.addWeightStrings(node, m); err != nil {
		return err
	}
	if err := p.resolveWeighed(m); err != nil {
		return err
	}
	switch {
	case sel.Limit == nil:
	case grouping && !m.StreamGroup, m.Having != nil:
		node.Limit = nil // groups are partial per node: every node returns all
	case m.Offset == nil:
		node.Limit = &sqlparser.Limit{Rowcount: sel.Limit.Rowcount}
	default:
		node.Limit = &sqlparser.Limit{Rowcount: p.limitSum(m.Offset, m.Count)}
	}
	if grouping && !m.StreamGroup {
		node.OrderBy = nil // merged in memory: node order does not matter
	}
	spec, err := p.mergeSpec(m, len(m.Kinds))
	if err != nil {
		return err
	}
	p.plan.Merge = spec
	p.nodeStmt = node
	return nil
}

// firstRowColumn adds, for a merge whose groups (GROUP BY or DISTINCT)
// are keyed by text or show a column that is neither a key nor an
// aggregate, the derived column MIN(pk) of the table's primary key
// (runtime.MergeSpec.FirstColumn): values a collation calls equal but
// spells differently ('a', 'A ', 'á') then merge into the spelling of the
// group's row with the least primary key, the first row one MySQL reads
// in a full scan and so the one it shows (each node shows its own first
// row likewise). Only for one table with a one-column primary key, and a
// DISTINCT without aggregates (distinct is true: the nodes then group by
// the selected columns). It returns 0 when it adds none.
func (p *planner) firstRowColumn(m *mergeDraft, cols []mergeCol, hasAgg bool, derived func(string, sqlparser.Expr, mergeKind) int) (col int, distinct bool) {
	if len(p.refs) != 1 || p.refs[0].info.ddl == nil || len(p.refs[0].info.ddl.PrimaryKey) != 1 || p.refs[0].info.enc != nil {
		return 0, false
	}
	keys := m.GroupBy
	if len(keys) == 0 {
		if !m.Distinct || hasAgg {
			return 0, false
		}
		for i := 0; i < m.Visible; i++ {
			keys = append(keys, i)
		}
		distinct = true
	}
	for _, a := range m.Aggregates {
		switch a.Func {
		case runtime.AggCountDistinct, runtime.AggSumDistinct, runtime.AggAvgDistinct, runtime.AggGroupConcat, runtime.AggGroupConcatDistinct:
			// MariaDB groups these by sorting: its first row of a group
			// is the sort's, not the scan's.
			return 0, false
		}
	}
	// A text key, or a column neither a key nor an aggregate (any value
	// of the group), shows a row's own value.
	shown := false
	isKey := map[int]bool{}
	for _, k := range keys {
		isKey[k] = true
		shown = shown || k < m.Visible && cols[k].kind.Type == "string"
	}
	for i := 0; i < m.Visible; i++ {
		shown = shown || !isKey[i] && !containsAggregate(cols[i].expr)
	}
	if !shown {
		return 0, false
	}
	r := p.refs[0]
	qual := r.alias
	if qual == "" {
		qual = r.info.name
	}
	pk := r.info.ddl.Column(r.info.ddl.PrimaryKey[0])
	if pk == nil {
		return 0, false
	}
	cn := sqlparser.NewColNameWithQualifier(pk.Name, sqlparser.NewTableName(qual))
	p.cols[cn] = &colRef{ref: r, col: pk}
	k := p.columnKind(r.info, pk)
	switch k.Type {
	case "int", "uint", "decimal", "time", "bytes": // compared exactly in process
	default:
		return 0, false
	}
	return derived("GROUP_FIRST_DERIVED", &sqlparser.Min{Arg: cn}, k), distinct
}

// sortsGroups reports whether MariaDB groups sel by sorting (an aggregate
// over DISTINCT values, a GROUP_CONCAT) and then sorts the groups again for an ORDER BY
// that is not the GROUP BY list: it then keeps the groups' aggregates in a
// temporary table of their SQL types, so AVG(x) inside an expression is
// rounded to its scale first (checked on MariaDB 10.11: GROUP BY name
// ORDER BY COUNT(DISTINCT k), name gives AVG(k)/3*3 = -0.43330000, GROUP BY
// name ORDER BY name gives -0.43333333).
func sortsGroups(sel *sqlparser.Select) bool {
	if sel.GroupBy == nil || len(sel.OrderBy) == 0 {
		return false
	}
	distinct := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch a := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.GroupConcatExpr:
			distinct = true // grouped by sorting too
		case sqlparser.DistinctableAggr:
			distinct = distinct || a.IsDistinct()
		}
		return true, nil
	}, sel.SelectExprs, sel.Having, sel.OrderBy)
	if !distinct {
		return false
	}
	if len(sel.OrderBy) < len(sel.GroupBy.Exprs) {
		return true
	}
	for i, g := range sel.GroupBy.Exprs {
		if !sqlparser.Equals.Expr(g, sel.OrderBy[i].Expr) {
			return true
		}
	}
	return false
}

// columnTypes maps planning kinds to the runtime's column types.
var columnTypes = map[string]runtime.ColumnType{
	"int": runtime.ColumnInt, "uint": runtime.ColumnUint, "decimal": runtime.ColumnDecimal,
	"float": runtime.ColumnFloat, "string": runtime.ColumnString, "bytes": runtime.ColumnBytes, "time": runtime.ColumnTime,
}

// mergeSpec turns the draft into the runtime's MergeSpec. LIMIT
// parameters become indexes into the plan's parameter values, which the
// caller passes to runtime.Merge as its args.
func (p *planner) mergeSpec(m *mergeDraft, columns int) (*runtime.MergeSpec, error) {
	spec := &runtime.MergeSpec{
		Columns: columns, Visible: m.Visible, OrderBy: m.OrderBy, GroupBy: m.GroupBy,
		Aggregates: m.Aggregates, Distinct: m.Distinct, StreamGroup: m.StreamGroup,
		Offset: runtime.LimitValue{}, Count: runtime.NoLimit,
		Computed: m.Computed, Having: m.Having, FirstColumn: m.FirstColumn,
	}
	for _, k := range m.Kinds {
		ck := runtime.ColumnKind{Type: columnTypes[k.Type]}
		if k.Type == "string" {
			switch c, err := runtime.ParseCollation(k.Collation); {
			case k.Weight > 0:
				ck.Weight = k.Weight
			case err == nil:
				ck.Collation = c
			default:
				// Not a key (addWeightStrings): its text passes through.
				ck.Type = runtime.ColumnBytes
			}
		}
		spec.Kinds = append(spec.Kinds, ck)
	}
	for i := range spec.Aggregates {
		a := &spec.Aggregates[i]
		if a.Func == runtime.AggAvg || a.Func == runtime.AggAvgDistinct {
			a.Scale = m.Kinds[a.Column].Scale
		}
	}
	limit := func(o *Operand) runtime.LimitValue {
		if o.Literal != nil {
			return runtime.LimitValue{Value: o.Literal.Int}
		}
		return runtime.LimitValue{Value: int64(o.Param), Param: true}
	}
	if m.Offset != nil {
		spec.Offset = limit(m.Offset)
	}
	if m.Count != nil {
		spec.Count = limit(m.Count)
	}
	return spec, nil
}

// addWeightStrings makes every text key of the merge (ORDER BY and GROUP
// BY columns, the columns of a SELECT DISTINCT, MIN/MAX and DISTINCT
// aggregate arguments) compare exactly as the data nodes compare it. The
// merge engine compares binary, *_bin and *_general_ci text itself
// (runtime.Collation); for any other collation, and for a column whose DDL
// names none (the database default applies: latin1_swedish_ci on a latin1
// server, utf8mb4_uca1400_ai_ci on MariaDB 11.5+), each node also returns
// the column's sort key and its pad weight, e.g. for a name column
//
//	WEIGHT_STRING(name) AS WEIGHT_STRING_DERIVED_0,
//	IF(LEFT(name, 0) = ' ', WEIGHT_STRING(CONCAT(LEFT(name, 0), ' ')), '') AS WEIGHT_PAD_DERIVED_0
//
// (see runtime.ColumnKind.Weight), which the merge compares and drops. A
// collation whose WEIGHT_STRING is not exact (runtime.WeightCollationError)
// is refused.
func (p *planner) addWeightStrings(node *sqlparser.Select, m *mergeDraft) error {
	keys := make([]bool, len(m.Kinds))
	for _, c := range m.GroupBy {
		keys[c] = true
	}
	for _, k := range m.OrderBy {
		keys[k.Column] = true
	}
	for _, c := range m.weighed {
		keys[c] = true
	}
	for i := 0; m.Distinct && i < m.Visible; i++ {
		keys[i] = true
	}
	for _, a := range m.Aggregates {
		switch a.Func {
		case runtime.AggMin, runtime.AggMax:
			keys[a.Column] = true
		case runtime.AggCountDistinct, runtime.AggSumDistinct, runtime.AggAvgDistinct:
			for _, c := range a.ArgColumns {
				keys[c] = true
			}
		case runtime.AggGroupConcatDistinct:
			keys[a.GroupConcat.ValueColumn] = true
		}
		if a.GroupConcat != nil {
			for _, k := range a.GroupConcat.OrderBy {
				keys[k.Column] = true
			}
		}
	}
	n := 0
	for i, key := range keys {
		k := &m.Kinds[i]
		if !key || k.Type != "string" {
			continue
		}
		if c, err := runtime.ParseCollation(k.Collation); err == nil && (!p.weighText() || c == runtime.CollationBinary) {
			continue // compared in process, exactly
		}
		expr := node.SelectExprs.Exprs[i].(*sqlparser.AliasedExpr).Expr
		for _, c := range m.Computed {
			if c.Column == i {
				// Its value is computed after the merge: a node's sort key
				// of its own partial value would order the merged rows
				// wrongly.
				coll := k.Collation
				if coll == "" {
					coll = "the database default"
				}
				return p.errorIn("ORDER", expr, "%s over several data nodes cannot be merged: it is text computed from the merged groups and compared by %s, which the merge compares only by the data nodes' sort keys; order by a GROUP BY column or MIN / MAX instead", sqlparser.String(expr), coll)
			}
		}
		if k.Collation != "" {
			if err := runtime.WeightCollationError(k.Collation); err != nil {
				return p.errorOn(expr, "%s over several data nodes cannot be merged: %v", sqlparser.String(expr), err)
			}
		}
		k.Weight = len(m.Kinds)
		weight, pad := weightExprs(expr)
		node.SelectExprs.Exprs = append(node.SelectExprs.Exprs,
			&sqlparser.AliasedExpr{Expr: weight, As: sqlparser.NewIdentifierCI(fmt.Sprintf("WEIGHT_STRING_DERIVED_%d", n))},
			&sqlparser.AliasedExpr{Expr: pad, As: sqlparser.NewIdentifierCI(fmt.Sprintf("WEIGHT_PAD_DERIVED_%d", n))})
		m.Kinds = append(m.Kinds, mergeKind{Type: "bytes"}, mergeKind{Type: "bytes"})
		n++
	}
	if n > 0 && node.Distinct && node.GroupBy == nil {
		// SELECT DISTINCT x, WEIGHT_STRING(x) would keep 'a' and 'a ' apart
		// on a node (equal under PAD SPACE, their weights differ), and a
		// per-node LIMIT would then count one value twice: group by the
		// selected columns instead, so each value class comes once, with
		// one member's sort key.
		node.Distinct = false
		var exprs []sqlparser.Expr
		for _, se := range node.SelectExprs.Exprs[:m.Visible] {
			exprs = append(exprs, sqlparser.Clone(se.(*sqlparser.AliasedExpr).Expr))
		}
		node.GroupBy = &sqlparser.GroupBy{Exprs: exprs}
	}
	return nil
}

// weightExprs returns the server sort key of the text expression expr and
// its pad weight (see runtime.ColumnKind.Weight):
//
//	WEIGHT_STRING(expr)
//	IF(LEFT(expr, 0) = ' ', WEIGHT_STRING(CONCAT(LEFT(expr, 0), ' ')), '')
func weightExprs(expr sqlparser.Expr) (weight, pad sqlparser.Expr) {
	empty := func() sqlparser.Expr { // LEFT(expr, 0): '' in expr's collation
		return &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("LEFT"), Exprs: []sqlparser.Expr{sqlparser.Clone(expr), sqlparser.NewIntLiteral("0")}}
	}
	pad = &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("IF"), Exprs: []sqlparser.Expr{
		&sqlparser.ComparisonExpr{Operator: sqlparser.EqualOp, Left: empty(), Right: sqlparser.NewStrLiteral(" ")},
		&sqlparser.WeightStringFuncExpr{Expr: &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("CONCAT"), Exprs: []sqlparser.Expr{empty(), sqlparser.NewStrLiteral(" ")}}},
		sqlparser.NewStrLiteral(""),
	}}
	return &sqlparser.WeightStringFuncExpr{Expr: sqlparser.Clone(expr)}, pad
}

// aggregate describes one aggregate column and adds AVG's derived columns.
func (p *planner) aggregate(a sqlparser.AggrFunc, col int, derived func(string, sqlparser.Expr, mergeKind) int) (runtime.AggregateSpec, error) {
	agg := runtime.AggregateSpec{Column: col}
	switch a := a.(type) {
	case *sqlparser.CountStar:
		agg.Func = runtime.AggCount
	case *sqlparser.Count:
		agg.Func = runtime.AggCount
		if a.Distinct {
			agg.Func = runtime.AggCountDistinct
			p.distinctArgs(&agg, a.Args, derived)
		}
	case *sqlparser.Sum:
		agg.Func = runtime.AggSum
		if a.Distinct {
			agg.Func = runtime.AggSumDistinct
			p.distinctArgs(&agg, []sqlparser.Expr{a.Arg}, derived)
		}
	case *sqlparser.Min:
		agg.Func = runtime.AggMin
	case *sqlparser.Max:
		agg.Func = runtime.AggMax
	case *sqlparser.Avg:
		agg.Func = runtime.AggAvg
		if a.Distinct {
			agg.Func = runtime.AggAvgDistinct
			p.distinctArgs(&agg, []sqlparser.Expr{a.Arg}, derived)
			break
		}
		agg.CountColumn = derived("AVG_DERIVED_COUNT", &sqlparser.Count{Args: []sqlparser.Expr{a.Arg}}, mergeKind{Type: "int"})
		agg.SumColumn = derived("AVG_DERIVED_SUM", &sqlparser.Sum{Arg: a.Arg}, p.sumKind(a.Arg))
	case *sqlparser.GroupConcatExpr:
		return p.groupConcat(a, agg, derived)
	case *sqlparser.BitAnd:
		agg.Func = runtime.AggBitAnd
	case *sqlparser.BitOr:
		agg.Func = runtime.AggBitOr
	case *sqlparser.BitXor:
		agg.Func = runtime.AggBitXor
	default:
		return agg, p.errorOn(a, "aggregate %s over several data nodes is not supported yet; GROUP BY every sharding column (%s) so each group is on one data node, or route to one data node", strings.ToUpper(a.AggrName()), strings.Join(shardingColumns(p.plan.Route), ", "))
	}
	if o, ok := a.(interface{ GetOverClause() *sqlparser.OverClause }); ok && o.GetOverClause() != nil {
		return agg, p.errorOn(a, "an aggregate window function (%s) over several data nodes is not supported; compare the sharding columns (%s) with one value so the statement routes to one data node", sqlparser.String(a), strings.Join(shardingColumns(p.plan.Route), ", "))
	}
	return agg, nil
}

// distinctArgs adds the derived columns of the arguments of an aggregate
// over DISTINCT values (COUNT(DISTINCT a, b), SUM(DISTINCT a), AVG(DISTINCT
// a)): each node returns them beside the aggregate itself, grouped by them
// too (rewriteDistinctAggregates), and the merge collects the distinct
// argument tuples (runtime.AggregateSpec.ArgColumns). The aggregate's own
// column stays the aggregate, so its column definition is MariaDB's.
func (p *planner) distinctArgs(agg *runtime.AggregateSpec, args []sqlparser.Expr, derived func(string, sqlparser.Expr, mergeKind) int) {
	for _, arg := range args {
		agg.ArgColumns = append(agg.ArgColumns, derived("DISTINCT_DERIVED", arg, p.exprKind(arg)))
	}
}

// groupsColocated reports whether a multi-node SELECT groups by every
// sharding column of the route's table (or of a table bound to it at the
// statement's level), each of a type whose equal values are one value
// (integers, DECIMAL, times, binary strings; not text, where 'a' = 'A ' under
// a PAD SPACE or _ci collation): rows of one group then share their
// sharding values and so their data node.
func (p *planner) groupsColocated(sel *sqlparser.Select) bool {
	if sel.GroupBy == nil || len(sel.GroupBy.Exprs) == 0 || sel.GroupBy.WithRollup || p.plan.Route == nil {
		return false
	}
	return p.keysColocated(p.tables[strings.ToLower(p.plan.Route.LogicTable)], sel.GroupBy.Exprs)
}

// windowsColocated reports whether every window of sel (not those of its
// subqueries) partitions by every sharding column of route, the table a
// multi-node SELECT is routed by (as groupsColocated groups): each
// partition is then whole on one data node, which computes its window
// functions exactly.
func (p *planner) windowsColocated(sel *sqlparser.Select, route *tableInfo) bool {
	named := map[string]*sqlparser.WindowSpecification{}
	for _, nw := range sel.Windows {
		for _, d := range nw.Windows {
			named[d.Name.Lowered()] = d.WindowSpec
		}
	}
	ok := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.Subquery, *sqlparser.DerivedTable:
			return false, nil
		case *sqlparser.OverClause:
			spec := n.WindowSpec
			if spec == nil {
				spec = named[n.WindowName.Lowered()]
			}
			if spec != nil && len(spec.PartitionClause) == 0 && !spec.Name.IsEmpty() {
				spec = named[spec.Name.Lowered()]
			}
			if spec == nil || !p.keysColocated(route, spec.PartitionClause) {
				ok = false
			}
		}
		return ok, nil
	}, sel.SelectExprs, sel.OrderBy, sel.Having)
	return ok
}

// keysColocated reports whether keys hold every sharding column of route
// (or of a table bound to it at the statement's level), each of a type
// whose equal values are one value, so rows with equal keys share a data
// node.
func (p *planner) keysColocated(route *tableInfo, keys []sqlparser.Expr) bool {
	if route == nil || !route.sharded() {
		return false
	}
	for i := range ruleColumns(route.rule) {
		found := false
		for _, g := range keys {
			c := p.colOf(g)
			if c == nil || !c.ref.info.sharded() || c.ref.scope != p.root || !sameLayout(route, c.ref.info) {
				continue
			}
			rc := ruleColumns(c.ref.info.rule)
			if i >= len(rc) || !strings.EqualFold(rc[i], c.col.Name) {
				continue
			}
			switch p.columnKind(c.ref.info, c.col).Type {
			case "int", "uint", "decimal", "time", "bytes":
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// containsAggregate reports whether e holds an aggregate function of its
// own query level (not one inside a subquery, which each data node
// evaluates whole).
func containsAggregate(e sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case sqlparser.AggrFunc:
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// rewriteDistinctAggregates groups the per-node statement by its keys and
// the arguments of each COUNT/SUM/AVG(DISTINCT x, …), which every node
// returns in derived columns (distinctArgs), so the merge sees every
// distinct argument tuple once per node and computes the aggregate over
// their union (adding per-node distinct counts would count a value held by
// two nodes twice). The arguments of the GROUP_CONCATs (concatGroup) are
// grouped by likewise.
func (p *planner) rewriteDistinctAggregates(node *sqlparser.Select, m *mergeDraft) error {
	extra := p.concatGroup
	for _, a := range m.Aggregates {
		for _, c := range a.ArgColumns {
			extra = append(extra, node.SelectExprs.Exprs[c].(*sqlparser.AliasedExpr).Expr)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	if m.Distinct {
		return p.errorAt("DISTINCT", "SELECT DISTINCT with an aggregate over DISTINCT values is not supported across data nodes; GROUP BY every sharding column (%s) so each group is on one data node, or route to one data node", strings.Join(shardingColumns(p.plan.Route), ", "))
	}
	var keys []sqlparser.Expr
	for _, g := range m.GroupBy {
		keys = append(keys, node.SelectExprs.Exprs[g].(*sqlparser.AliasedExpr).Expr)
	}
	node.GroupBy = &sqlparser.GroupBy{Exprs: append(keys, extra...)}
	// Nodes now return sub-groups (keys, argument): they must all be read
	// and grouped in memory, so no per-node LIMIT and no streaming.
	m.StreamGroup = false
	return nil
}

// limitSum returns the per-node row count offset+count: a literal when both
// are literals, else a placeholder whose value the caller computes.
func (p *planner) limitSum(off, cnt *Operand) sqlparser.Expr {
	if off.Literal != nil && cnt.Literal != nil {
		return sqlparser.NewIntLiteral(fmt.Sprint(off.Literal.Int + cnt.Literal.Int))
	}
	return sqlparser.NewArgument(limitArg)
}

// limitArg names the placeholder of a computed per-node LIMIT row count.
const limitArg = "shardgen_limit"

// sameExpr compares two expressions, treating column references that
// resolve to the same table column as equal.
func (p *planner) sameExpr(a, b sqlparser.Expr) bool {
	ca, ok1 := a.(*sqlparser.ColName)
	cb, ok2 := b.(*sqlparser.ColName)
	if ok1 && ok2 {
		ra, rb := p.cols[ca], p.cols[cb]
		if ra != nil && rb != nil {
			return ra.ref == rb.ref && ra.col == rb.col
		}
	}
	return sqlparser.Equals.Expr(a, b)
}

// NodeArg is one argument of a merged statement's per-node SQL, in
// placeholder order: a parameter, or (LimitSum) the per-node LIMIT row count
// Merge.Offset + Merge.Count computed at run time.
type NodeArg struct {
	Param    int  `json:"param"`
	LimitSum bool `json:"limit_sum,omitempty"`
	// Encrypt names the encryptor (of the !ENCRYPT rule) whose output for
	// the parameter's value is sent, for a cipher, assisted-query or
	// like-query column; "" sends the value itself.
	Encrypt string `json:"encrypt,omitempty"`
	// Literal is the value when Param is -1 and the argument stands for a
	// literal of the statement that must be encrypted at run time.
	Literal *runtime.Value `json:"literal,omitempty"`
	// Store is set on the values an INSERT or UPDATE writes to an
	// encrypted column (each derived column's): the logic column, whose
	// character set the value must fit before it is encrypted, since the
	// data node only sees cipher text.
	Store *runtime.TextColumn `json:"store,omitempty"`
}

// columnKind is the merge kind of a table column.
func (p *planner) columnKind(t *tableInfo, c *schema.Column) mergeKind {
	switch strings.ToLower(c.Type) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year", "bool", "boolean":
		if c.Unsigned && strings.EqualFold(c.Type, "bigint") {
			return mergeKind{Type: "uint"}
		}
		return mergeKind{Type: "int"}
	case "decimal", "numeric", "dec", "fixed":
		return mergeKind{Type: "decimal"}
	case "float", "double", "real":
		return mergeKind{Type: "float"}
	case "date", "datetime", "timestamp":
		return mergeKind{Type: "time"}
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "bit":
		return mergeKind{Type: "bytes"}
	case "":
		// A derived table's column of an expression (no DDL type): the
		// expression's kind when it is a number or a time (COUNT(*), a
		// column's MAX), which MySQL does not compare as text; of a
		// UNION, the common kind of its SELECTs' expressions
		// (unionColumnKind). Text and unknown kinds compare as text
		// below.
		if d := t.derived; d != nil {
			k := mergeKind{}
			if d.union {
				k = p.unionColumnKind(d, c.Name)
			} else if e := d.exprs[strings.ToLower(c.Name)]; e != nil {
				k = p.exprKind(e)
			}
			switch k.Type {
			case "int", "uint", "decimal", "float", "time":
				return k
			}
		}
	}
	// The collation the DDL names: the column's, else the table's unless
	// the column names another character set. "" when the DDL names none:
	// the server's default applies, and the merge asks the server for sort
	// keys (addWeightStrings).
	coll := c.Collation
	if coll == "" && c.Charset == "" {
		coll = t.ddl.Collation
	}
	if coll == "" {
		// The DDL names only a character set (the column's, else the
		// table's DEFAULT CHARSET): its default collation applies.
		cs := c.Charset
		if cs == "" {
			cs = t.ddl.Charset
		}
		coll = charsetDefaultCollation[cs]
	}
	return mergeKind{Type: "string", Collation: coll}
}

// unionColumnKind is the kind of the column name of a derived table of a
// UNION when every SELECT's expression at the column's place is a number
// (or NULL), or every one a date or time: MySQL's common type of the
// column (Type Conversion in Expression Evaluation; UNION): integers stay
// integers (unsigned ones only among themselves), integers and DECIMALs
// make a DECIMAL, and a DOUBLE with other numbers a DOUBLE. Otherwise
// (text, a mix of text and numbers, which MySQL returns as VARCHAR, or an
// expression the planner cannot type) Type is "".
func (p *planner) unionColumnKind(d *derivedTable, name string) mergeKind {
	at := -1
	for i, se := range d.sel.SelectExprs.Exprs {
		if ae, ok := se.(*sqlparser.AliasedExpr); ok && strings.EqualFold(columnName(ae), name) {
			at = i
			break
		}
	}
	if at < 0 {
		return mergeKind{}
	}
	var out mergeKind
	for _, s := range d.parts {
		if s.SelectExprs == nil || len(s.SelectExprs.Exprs) <= at {
			return mergeKind{}
		}
		ae, ok := s.SelectExprs.Exprs[at].(*sqlparser.AliasedExpr)
		if !ok {
			return mergeKind{}
		}
		if _, null := ae.Expr.(*sqlparser.NullVal); null {
			continue
		}
		k := mergeKind{Type: p.exprKind(ae.Expr).Type}
		numeric := func(t string) bool { return t == "int" || t == "decimal" || t == "float" }
		switch {
		case k.Type != "int" && k.Type != "uint" && k.Type != "decimal" && k.Type != "float" && k.Type != "time":
			return mergeKind{}
		case out.Type == "", out.Type == k.Type:
			out = k
		case out.Type == "float" && numeric(k.Type), k.Type == "float" && numeric(out.Type):
			out = mergeKind{Type: "float"}
		case out.Type == "int" && k.Type == "decimal", out.Type == "decimal" && k.Type == "int":
			out = mergeKind{Type: "decimal"}
		default:
			return mergeKind{}
		}
	}
	return out
}

// charsetDefaultCollation is the default collation of each character set
// whose default is the same on MySQL 8 and MariaDB 10.11. utf8mb4 is not
// here: its default differs (utf8mb4_0900_ai_ci on MySQL 8,
// utf8mb4_general_ci on MariaDB), so a utf8mb4 column without a collation
// keeps the database's default ("").
var charsetDefaultCollation = map[string]string{
	"latin1": "latin1_swedish_ci", "latin2": "latin2_general_ci", "ascii": "ascii_general_ci",
	"utf8mb3": "utf8mb3_general_ci", "utf8": "utf8mb3_general_ci",
	"ucs2": "ucs2_general_ci", "utf16": "utf16_general_ci", "utf32": "utf32_general_ci",
	"cp1251": "cp1251_general_ci", "gbk": "gbk_chinese_ci",
	"big5":   "big5_chinese_ci", // whose WEIGHT_STRING is not exact (runtime.WeightCollationError)
	"binary": "binary",
}

// exprKind is the merge kind of a select, GROUP BY or ORDER BY expression:
// how MySQL compares and returns its values. Type is "" when the planner
// cannot tell (a function it does not know, arithmetic on unsigned or
// string operands); such an expression may not be a key a merge compares
// (checkMergeKeys).
func (p *planner) exprKind(e sqlparser.Expr) mergeKind {
	switch e := e.(type) {
	case *sqlparser.ColName:
		if c := p.cols[e]; c != nil {
			return p.columnKind(c.ref.info, c.col)
		}
	case *sqlparser.CountStar, *sqlparser.Count:
		return mergeKind{Type: "int"}
	case *sqlparser.Sum:
		if e.Distinct {
			return p.exprKind(e.Arg)
		}
		return p.sumKind(e.Arg)
	case *sqlparser.Avg:
		k := p.sumKind(e.Arg)
		if e.Distinct {
			k = p.exprKind(e.Arg)
			if k.Type == "int" || k.Type == "uint" {
				k.Type = "decimal"
			}
		}
		if k.Type == "decimal" {
			k.Scale = p.argScale(e.Arg) + divPrecisionIncrement
		}
		return k
	case *sqlparser.BitAnd, *sqlparser.BitOr, *sqlparser.BitXor:
		return mergeKind{Type: "uint"} // BIGINT UNSIGNED
	case *sqlparser.ArgumentLessWindowExpr:
		if e.Type == sqlparser.CumeDistExprType || e.Type == sqlparser.PercentRankExprType {
			return mergeKind{Type: "float"}
		}
		return mergeKind{Type: "int"} // ROW_NUMBER, RANK, DENSE_RANK
	case *sqlparser.NtileExpr:
		return mergeKind{Type: "int"}
	case *sqlparser.LagLeadExpr:
		if e.Default == nil {
			return p.exprKind(e.Expr)
		}
	case *sqlparser.FirstOrLastValueExpr:
		return p.exprKind(e.Expr)
	case *sqlparser.NTHValueExpr:
		return p.exprKind(e.Expr)
	case *sqlparser.GroupConcatExpr:
		return mergeKind{Type: "bytes"} // not a key of a merge (groupConcat)
	case *sqlparser.CollateExpr:
		// x COLLATE c: x's text, compared in c (an explicit collation);
		// x a text column or the result of a function that returns text
		// (CONCAT(a, '-', b) COLLATE utf8mb4_bin: the server refuses a
		// collation its character set does not have).
		f, text := e.Expr.(*sqlparser.FuncExpr)
		if text {
			_, text = stringFuncs[f.Name.Lowered()]
			text = text && f.Qualifier.IsEmpty()
		}
		if k := p.exprKind(e.Expr); k.Type == "string" || text {
			return mergeKind{Type: "string", Collation: strings.ToLower(e.Collation)}
		}
	case *sqlparser.Subquery:
		if k, ok := lookupKind(e); ok {
			return k
		}
		if sel, ok := e.Select.(*sqlparser.Select); ok && sel.SelectExprs != nil && len(sel.SelectExprs.Exprs) == 1 {
			if ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr); ok {
				return p.exprKind(ae.Expr)
			}
		}
	case *sqlparser.Min:
		return p.exprKind(e.Arg)
	case *sqlparser.Max:
		return p.exprKind(e.Arg)
	case *sqlparser.Literal:
		switch e.Type {
		case sqlparser.IntVal:
			return mergeKind{Type: "int"}
		case sqlparser.DecimalVal:
			return mergeKind{Type: "decimal"}
		case sqlparser.FloatVal:
			return mergeKind{Type: "float"}
		case sqlparser.StrVal:
			return mergeKind{Type: "string"} // the connection's collation
		}
	case *sqlparser.CastExpr:
		if t := strings.ToLower(e.Type.Type); t == "date" || t == "datetime" {
			return mergeKind{Type: "time"} // compared as dates and times
		}
		switch convertType(e.Type).Name {
		case "int64":
			if strings.HasPrefix(strings.ToLower(e.Type.Type), "unsigned") {
				return mergeKind{Type: "uint"}
			}
			return mergeKind{Type: "int"}
		case "float64":
			return mergeKind{Type: "float"}
		case "string":
			if strings.EqualFold(e.Type.Type, "char") {
				return mergeKind{Type: "string"} // the connection's collation
			}
			if strings.EqualFold(e.Type.Type, "decimal") {
				return mergeKind{Type: "decimal"}
			}
		}
	case *sqlparser.ComparisonExpr, *sqlparser.IsExpr, *sqlparser.AndExpr, *sqlparser.OrExpr,
		*sqlparser.NotExpr, *sqlparser.XorExpr, *sqlparser.BetweenExpr:
		return mergeKind{Type: "int"} // MySQL's 0, 1 or NULL
	case *sqlparser.UnaryExpr:
		if e.Operator == sqlparser.UMinusOp {
			if k := p.exprKind(e.Expr); k.Type == "int" || k.Type == "decimal" || k.Type == "float" {
				return mergeKind{Type: k.Type}
			}
		}
	case *sqlparser.BinaryExpr:
		return p.arithKind(e)
	case *sqlparser.FuncExpr:
		switch e.Name.Lowered() {
		case "length", "char_length", "character_length", "octet_length", "bit_length", "sign":
			return mergeKind{Type: "int"}
		case "date":
			if len(e.Exprs) == 1 {
				return mergeKind{Type: "time"} // a DATE, compared as one
			}
		case "upper", "lower", "ucase", "lcase":
			// The argument's character set and collation (binary
			// strings unchanged).
			if len(e.Exprs) == 1 {
				if k := p.exprKind(e.Exprs[0]); k.Type == "string" || k.Type == "bytes" {
					return k
				}
			}
		case "round":
			if len(e.Exprs) >= 1 {
				if k := p.exprKind(e.Exprs[0]); k.Type == "int" || k.Type == "decimal" || k.Type == "float" {
					return mergeKind{Type: k.Type}
				}
			}
		case "ifnull", "coalesce":
			// The arguments' common type: one type, or exact numbers of
			// several (DECIMAL); text compares by its first column's
			// collation.
			var out mergeKind
			for _, a := range e.Exprs {
				if _, null := a.(*sqlparser.NullVal); null {
					continue
				}
				k := p.exprKind(a)
				_, lit := a.(*sqlparser.Literal)
				switch {
				case k.Type == "":
					return mergeKind{}
				case out.Type == "", out.Type == k.Type && out.Collation == "" && !lit:
					out = k
				case out.Type == k.Type:
				case (out.Type == "int" || out.Type == "decimal") && (k.Type == "int" || k.Type == "decimal"):
					out = mergeKind{Type: "decimal"}
				default:
					return mergeKind{}
				}
			}
			return out
		case "abs":
			if len(e.Exprs) == 1 {
				if k := p.exprKind(e.Exprs[0]); k.Type == "int" || k.Type == "decimal" || k.Type == "float" {
					return mergeKind{Type: k.Type}
				}
			}
		}
	}
	return mergeKind{}
}

// arithKind is the kind of an arithmetic or bit expression, following
// MySQL's rules for exact and approximate operands (Arithmetic Operators,
// MySQL 8.0 manual): a float or string operand makes a DOUBLE; otherwise a
// DECIMAL operand, or `/`, makes a DECIMAL; integers stay integers. Unsigned
// operands (whose result may be unsigned or out of range) are unknown.
func (p *planner) arithKind(e *sqlparser.BinaryExpr) mergeKind {
	switch e.Operator {
	case sqlparser.BitAndOp, sqlparser.BitOrOp, sqlparser.BitXorOp, sqlparser.ShiftLeftOp, sqlparser.ShiftRightOp:
		return mergeKind{Type: "uint"}
	}
	l, r := p.exprKind(e.Left), p.exprKind(e.Right)
	known := func(k mergeKind) bool {
		return k.Type == "int" || k.Type == "decimal" || k.Type == "float" || k.Type == "string"
	}
	if !known(l) || !known(r) {
		return mergeKind{}
	}
	switch {
	case l.Type == "float" || r.Type == "float" || l.Type == "string" || r.Type == "string":
		return mergeKind{Type: "float"}
	case e.Operator == sqlparser.IntDivOp:
		return mergeKind{Type: "int"}
	case e.Operator == sqlparser.DivOp || l.Type == "decimal" || r.Type == "decimal":
		return mergeKind{Type: "decimal"}
	}
	return mergeKind{Type: "int"}
}

// checkMergeKeys refuses a merge that would compare the values of a column
// whose kind the planner cannot tell (exprKind), instead of guessing and
// merging rows in a wrong order or wrong groups.
// roleClause maps a role of checkMergeKeys to the keyword of its clause.
var roleClause = map[string]string{"GROUP BY": "GROUP", "ORDER BY": "ORDER", "SELECT DISTINCT of": "DISTINCT"}

func (p *planner) checkMergeKeys(m *mergeDraft, cols []mergeCol) error {
	check := func(i int, role string) error {
		if i >= 0 && i < len(cols) && cols[i].kind.Type == "" {
			return p.errorIn(roleClause[role], cols[i].expr, "%s %s over several data nodes cannot be merged: shardgen cannot tell how MySQL compares its values; CAST it (AS SIGNED, DECIMAL(p,s), DOUBLE), name the collation of text (COLLATE utf8mb4_bin) or use a column", role, sqlparser.String(cols[i].expr))
		}
		return nil
	}
	for _, i := range m.GroupBy {
		if err := check(i, "GROUP BY"); err != nil {
			return err
		}
	}
	for _, k := range m.OrderBy {
		if err := check(k.Column, "ORDER BY"); err != nil {
			return err
		}
	}
	if m.Distinct {
		for i := 0; i < m.Visible; i++ {
			if err := check(i, "SELECT DISTINCT of"); err != nil {
				return err
			}
		}
	}
	for _, a := range m.Aggregates {
		if err := check(a.Column, "the aggregate"); err != nil {
			return err
		}
		for _, c := range a.ArgColumns {
			if err := check(c, "the argument"); err != nil {
				return err
			}
		}
	}
	return nil
}

// divPrecisionIncrement is MySQL's default div_precision_increment: AVG of
// an exact value has the argument's scale plus this many digits.
const divPrecisionIncrement = 4

// sumKind is the kind of SUM(arg): DECIMAL for exact arguments (MySQL sums
// integers exactly as DECIMAL), DOUBLE for approximate ones.
func (p *planner) sumKind(arg sqlparser.Expr) mergeKind {
	if k := p.exprKind(arg); k.Type == "float" {
		return k
	}
	return mergeKind{Type: "decimal"}
}

// argScale is the DECIMAL scale of an aggregate's argument (0 for integers).
func (p *planner) argScale(e sqlparser.Expr) int {
	if c, ok := e.(*sqlparser.ColName); ok {
		if cr := p.cols[c]; cr != nil && cr.col.Scale != nil {
			return *cr.col.Scale
		}
	}
	return 0
}
