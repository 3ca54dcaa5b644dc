package plan

import (
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// JoinBatch is the number of outer rows whose key values one inner
// statement binds (as IN lists).
const JoinBatch = 500

// JoinSteps is a nested-loop join of table references that do not
// co-locate (vtgate's join with bind variables, planned once). The FROM
// splits left-deep into two sides: the last table reference (a comma
// list's last item, the right operand of the outermost JOIN) and
// everything before it, so a join of n tables is a join of the first n-1
// (one statement, pushed down whole where those co-locate, else evaluated
// in steps again) with the last:
//
//  1. the outer side's statement runs (routed and merged like any
//     SELECT): the left side of JOIN and LEFT JOIN, the right side of
//     RIGHT JOIN, with the WHERE and ON conditions on it alone;
//  2. for every JoinBatch outer rows, the inner side's statement runs with
//     each of its key columns compared with the batch's distinct key
//     values (InnerSQL: `AND b.k IN (…)`), which may route it; or, as a
//     hash join (runtime.JoinStrategy decides), once, whole, with its own
//     conditions (LimitedSQL); with no key (no equality of a column of
//     each side) it runs once and every outer row pairs with every inner
//     row;
//  3. runtime.JoinRows pairs the rows by equal keys (Spec); then the
//     joined rows are sorted (OrderBy), paginated (Offset, Count) and
//     projected (Output).
//
// Every result column is computed by one side's statement, so a select
// expression may use the columns of one side only; conditions other than
// key equalities must be on one side (for an outer join, in ON on the
// inner side or in WHERE on the outer one), or compare a column of each
// side of one kind and collation (<, <=, >, >=, <>) in ON or in the WHERE
// of an inner join, applied to the pairs of equal keys
// (runtime.JoinSpec.Residual) when the join has a key equality.
type JoinSteps struct {
	Outer *JoinSide        `json:"outer"`
	Inner *JoinSide        `json:"inner"`
	Spec  runtime.JoinSpec `json:"spec"`
	// Output are the visible result columns, in order: indexes in the
	// joined row (the outer side's columns, then the inner side's).
	Output []int `json:"output"`
	// Kinds describe the joined row's columns (Weight indexes the joined
	// row) for OrderBy.
	Kinds   []runtime.ColumnKind `json:"kinds"`
	OrderBy []runtime.SortKey    `json:"order_by,omitempty"`
	// Offset and Count paginate the sorted joined rows; Count -1: no LIMIT.
	Offset int64 `json:"offset,omitempty"`
	Count  int64 `json:"count"`
	// LimitArgs, for a LIMIT of placeholders (generated code), are the
	// indexes of its offset and row count in the statement's arguments
	// (runtime.JoinStep.LimitArgs); nil when both are literals.
	LimitArgs []int `json:"limit_args,omitempty"`
	// Batch is JoinBatch.
	Batch int `json:"batch"`
	// Null are columns of the joined row that must be NULL (WHERE b.x IS
	// NULL on the inner side of an outer join): the other joined rows are
	// dropped before OrderBy or Merge.
	Null []int `json:"null,omitempty"`
	// Merge is set for GROUP BY, DISTINCT or aggregates over the joined
	// rows: every joined row becomes one row of MergeColumns (a partial
	// aggregate of that row alone), which the merge groups, orders,
	// paginates and cuts to its visible columns; Output, OrderBy, Offset
	// and Count are then unused.
	Merge        *runtime.MergeSpec `json:"merge,omitempty"`
	MergeColumns []JoinMergeColumn  `json:"merge_columns,omitempty"`
}

// JoinMergeOp is how a merge column is computed from one joined row.
type JoinMergeOp uint8

const (
	JoinValue   JoinMergeOp = iota // the joined row's column Column (an expression, SUM's, MIN's or MAX's argument)
	JoinOne                        // 1: COUNT(*) of one row
	JoinNotNull                    // 1 when column Column is not NULL, else 0: COUNT(x) of one row
	JoinNull                       // NULL (AVG, which the merge computes from its SUM and COUNT columns)
)

// JoinMergeColumn is one column of the rows a grouped join feeds its
// merge.
type JoinMergeColumn struct {
	Op     JoinMergeOp `json:"op"`
	Column int         `json:"column,omitempty"`
	// Aggregate marks COUNT, SUM and AVG, whose result type is the merge
	// kind's, not the argument's.
	Aggregate bool `json:"aggregate,omitempty"`
	// Name is the result column's name (visible columns).
	Name string `json:"name,omitempty"`
}

// JoinSide is one side of a JoinSteps: a SELECT of one table reference,
// or of several joined (the left side of a join of three or more).
type JoinSide struct {
	// Table names the side's logic tables, in FROM order, separated by
	// ", ".
	Table string `json:"table"`
	// SQL is the side's statement; for the inner side without the IN
	// lists InnerSQL adds.
	SQL string `json:"sql"`

	sel  *sqlparser.Select
	keys []sqlparser.Expr
}

// LimitedSQL is the side's SQL reading at most n rows (LIMIT n).
func (s *JoinSide) LimitedSQL(n int) string {
	c := sqlparser.Clone(s.sel)
	c.SetLimit(&sqlparser.Limit{Rowcount: sqlparser.NewIntLiteral(strconv.Itoa(n))})
	return sqlparser.String(c)
}

// InnerSQL returns the inner side's statement with key i compared with
// the values keys[i] (distinct, not NULL): `AND k IN (v1, …)`; with no
// value `IN (NULL)`, which matches no row. limit > 0 reads at most limit
// rows (LIMIT limit).
func (j *JoinSteps) InnerSQL(keys [][]BoundValue, limit int) string {
	return j.innerSQL(keys, limit, -1)
}

// innerSQL is InnerSQL, but with the list of key split (not -1) as
// `IN (listMarker)` (SplitInner).
func (j *JoinSteps) innerSQL(keys [][]BoundValue, limit, split int) string {
	c := sqlparser.Clone(j.Inner.sel)
	for i, k := range j.Inner.keys {
		list := sqlparser.ValTuple{&sqlparser.NullVal{}}
		if i == split {
			list = sqlparser.ValTuple{sqlparser.NewIntLiteral(listMarker)}
		} else if i < len(keys) && len(keys[i]) > 0 {
			list = make(sqlparser.ValTuple, len(keys[i]))
			for n, v := range keys[i] {
				list[n] = v.Expr()
			}
		}
		c.AddWhere(&sqlparser.ComparisonExpr{Operator: sqlparser.InOp, Left: sqlparser.Clone(k), Right: list})
	}
	if limit > 0 {
		c.SetLimit(&sqlparser.Limit{Rowcount: sqlparser.NewIntLiteral(strconv.Itoa(limit))})
	}
	return sqlparser.String(c)
}

// joinDraft is one side while a join is planned.
type joinDraft struct {
	refs  map[*tableRef]bool
	from  sqlparser.TableExprs
	exprs []sqlparser.SelectExpr
	kinds []mergeKind
	conds []sqlparser.Expr
	keys  []int
	// weighText: every text key by the server's sort keys (Builder.weighText).
	weighText bool
}

func (d *joinDraft) add(e sqlparser.Expr, as string, k mergeKind) int {
	ae := &sqlparser.AliasedExpr{Expr: sqlparser.Clone(e)}
	if as != "" {
		ae.As = sqlparser.NewIdentifierCI(as)
	}
	d.exprs = append(d.exprs, ae)
	d.kinds = append(d.kinds, k)
	return len(d.exprs) - 1
}

// weigh makes column c of the side (expression e, a text key) comparable:
// in process by its collation, or by the server's sort key and pad weight
// (see addWeightStrings), which it appends.
func (d *joinDraft) weigh(c int, e sqlparser.Expr) error {
	k := &d.kinds[c]
	if k.Type != "string" || k.Weight > 0 {
		return nil
	}
	if c, err := runtime.ParseCollation(k.Collation); err == nil && (!d.weighText || c == runtime.CollationBinary) {
		return nil
	}
	if k.Collation != "" {
		if err := runtime.WeightCollationError(k.Collation); err != nil {
			return err
		}
	}
	n := len(d.exprs)
	k.Weight = n
	weight, pad := weightExprs(e)
	d.add(weight, fmt.Sprintf("WEIGHT_STRING_DERIVED_%d", n), mergeKind{Type: "bytes"})
	d.add(pad, fmt.Sprintf("WEIGHT_PAD_DERIVED_%d", n), mergeKind{Type: "bytes"})
	return nil
}

// columnKinds converts the side's kinds, Weight shifted by off.
func columnKinds(kinds []mergeKind, off int) []runtime.ColumnKind {
	out := make([]runtime.ColumnKind, len(kinds))
	for i, k := range kinds {
		ck := runtime.ColumnKind{Type: columnTypes[k.Type]}
		switch {
		case ck.Type == 0:
			ck.Type = runtime.ColumnBytes
		case k.Type == "string" && k.Weight > 0:
			ck.Weight = k.Weight + off
		case k.Type == "string":
			if c, err := runtime.ParseCollation(k.Collation); err == nil {
				ck.Collation = c
			} else {
				ck.Type = runtime.ColumnBytes // not a key: its text passes through
			}
		}
		out[i] = ck
	}
	return out
}

// joinRefusal is the reason a join is not evaluated in steps.
func joinRefusal(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCrossNode, fmt.Sprintf(format, args...))
}

// joinSteps plans a nested-loop join of the SELECT sql (see JoinSteps).
func (b *Builder) joinSteps(sql string) (*JoinSteps, error) {
	pos := schema.Pos{File: AdHocFile, Line: 1, Col: 1}
	p := &planner{b: b, tables: b.tables(), q: &schema.Query{Name: "proxy", Cmd: schema.CmdMany, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos}}
	if err := p.bindStatement(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCrossNode, err)
	}
	sel, ok := p.stmt.(*sqlparser.Select)
	switch {
	case !ok:
		return nil, joinRefusal("not a SELECT")
	case strings.Contains(p.sql, "?") && !p.stepParams():
		return nil, joinRefusal("a join across data nodes with placeholders (?) is not evaluated")
	case len(p.refs) < 2:
		return nil, joinRefusal("not a join")
	case len(p.allRefs) != len(p.refs):
		return nil, joinRefusal("a join with a subquery or derived table across data nodes is not evaluated")
	case sel.Having != nil:
		return nil, joinRefusal("HAVING over the rows of a join across data nodes is not evaluated yet")
	case sel.With != nil || sel.Into != nil || sel.Lock != sqlparser.NoLock || hasWindow(sel):
		return nil, joinRefusal("WITH, INTO, locking reads and window functions are not evaluated across data nodes")
	}
	for _, r := range p.refs {
		if r.info.derived != nil || r.info.dual {
			return nil, joinRefusal("a join of a derived table across data nodes is not evaluated")
		}
	}
	// The FROM splits into two sides, left-deep: everything but the last
	// table reference (a comma list's last item, a JOIN's right operand)
	// is the left side, itself a statement that may be pushed down whole
	// or evaluated in steps again.
	var (
		from  [2]sqlparser.TableExprs
		on    sqlparser.Expr
		outer = 0
		left  bool
	)
	switch {
	case len(sel.From) >= 2:
		from[0] = append(sqlparser.TableExprs(nil), sel.From[:len(sel.From)-1]...)
		from[1] = sqlparser.TableExprs{sel.From[len(sel.From)-1]}
	case len(sel.From) == 1:
		je, ok := sel.From[0].(*sqlparser.JoinTableExpr)
		if !ok {
			return nil, joinRefusal("not a join")
		}
		from[0], from[1] = sqlparser.TableExprs{je.LeftExpr}, sqlparser.TableExprs{je.RightExpr}
		switch je.Join {
		case sqlparser.NormalJoinType, sqlparser.StraightJoinType:
		case sqlparser.LeftJoinType:
			left = true
		case sqlparser.RightJoinType:
			left, outer = true, 1
		default:
			return nil, joinRefusal("a NATURAL join across data nodes is not evaluated; name the columns in ON")
		}
		if je.Condition != nil {
			if len(je.Condition.Using) > 0 {
				return nil, joinRefusal("JOIN … USING across data nodes is not evaluated; write ON a.x = b.x")
			}
			on = je.Condition.On
		}
	}
	if len(from[0]) == 0 || len(from[1]) == 0 {
		return nil, joinRefusal("not a join")
	}
	var sideRefs [2]map[*tableRef]bool
	for pos := range from {
		sideRefs[pos] = map[*tableRef]bool{}
		names := map[string]bool{}
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch n := n.(type) {
			case *sqlparser.AliasedTableExpr:
				name := n.As.String()
				if name == "" {
					if tn, ok := n.Expr.(sqlparser.TableName); ok {
						name = tn.Name.String()
					}
				}
				names[strings.ToLower(name)] = true
				return false, nil
			case *sqlparser.JoinCondition:
				return false, nil
			}
			return true, nil
		}, from[pos])
		for _, r := range p.refs {
			name := r.alias
			if name == "" {
				name = r.info.name
			}
			if names[strings.ToLower(name)] {
				sideRefs[pos][r] = true
			}
		}
		if len(sideRefs[pos]) == 0 {
			return nil, joinRefusal("not a join of tables")
		}
	}
	if len(sideRefs[0])+len(sideRefs[1]) != len(p.refs) {
		return nil, joinRefusal("the table references of the join could not be told apart")
	}
	inner := 1 - outer
	d := [2]*joinDraft{{refs: sideRefs[0], from: from[0], weighText: b.weighText}, {refs: sideRefs[1], from: from[1], weighText: b.weighText}}
	// sides reports the FROM positions whose columns e names (bit 0: the
	// first table, bit 1: the second); -1 when e names something else.
	sides := func(e sqlparser.SQLNode) int {
		mask := 0
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch n := n.(type) {
			case *sqlparser.Subquery:
				mask = -1
				return false, nil
			case *sqlparser.ColName:
				c := p.cols[n]
				switch {
				case mask < 0:
				case c == nil:
					mask = -1
				case d[0].refs[c.ref]:
					mask |= 1
				case d[1].refs[c.ref]:
					mask |= 2
				default:
					mask = -1
				}
			}
			return mask >= 0, nil
		}, e)
		return mask
	}
	// sideOf returns the FROM position of the one table e uses (the outer
	// side for a constant); ok is false when e uses both or neither.
	sideOf := func(e sqlparser.Expr) (pos int, ok bool) {
		switch m := sides(e); m {
		case 0:
			return outer, true
		case 1, 2:
			return m - 1, true
		}
		return 0, false
	}
	// A WHERE condition that is never TRUE for NULL in a column of the
	// inner side of an outer join (b.x = 1, b.x IN (…), b.x IS NOT NULL)
	// drops the rows without a match: the join is an inner join, as MySQL
	// rewrites it.
	if left && sel.Where != nil {
		for _, e := range conjuncts(sel.Where.Expr) {
			if sides(e) == 1<<inner && nullRejecting(e) {
				left = false
				break
			}
		}
	}
	// residualOps are the comparisons of two columns, one of each side,
	// that JoinRows applies after the key match (JoinSpec.Residual).
	residualOps := map[sqlparser.ComparisonExprOperator]runtime.CompareOp{
		sqlparser.EqualOp: runtime.CompareEq, sqlparser.NotEqualOp: runtime.CompareNe,
		sqlparser.LessThanOp: runtime.CompareLt, sqlparser.LessEqualOp: runtime.CompareLe,
		sqlparser.GreaterThanOp: runtime.CompareGt, sqlparser.GreaterEqualOp: runtime.CompareGe,
	}
	type residualCond struct {
		outer, inner *sqlparser.ColName
		op           runtime.CompareOp
		expr         sqlparser.Expr
	}
	var residuals []residualCond
	var (
		keyPairs  [][2]*sqlparser.ColName // outer, inner
		outerOn   []sqlparser.Expr        // ON conditions of an outer join on the outer side alone
		innerNull []*sqlparser.ColName    // WHERE b.x IS NULL on the inner side of an outer join
	)
	// innerStrict refuses an expression of the inner side of an outer
	// join that is not NULL for a NULL-extended row: the inner side
	// computes it from its own rows, and a row that matched none has
	// NULL in every column of it (COALESCE(b.x, 0) would read NULL).
	nullFrom := map[int]int{} // inner column: outer column of its value for NULL columns
	innerStrict := func(pos int, e sqlparser.Expr) error {
		if left && pos == inner && !nullStrict(e) {
			return joinRefusal("the expression %s of the inner table of an outer join may not be NULL where no row matches; evaluating it across data nodes is not supported (select the column and compute it in the client)", sqlparser.String(e))
		}
		return nil
	}
	condition := func(e sqlparser.Expr, inOn bool) error {
		m := sides(e)
		if c, ok := e.(*sqlparser.ComparisonExpr); ok && c.Operator == sqlparser.EqualOp && m == 3 && (inOn || !left) {
			l, lok := c.Left.(*sqlparser.ColName)
			r, rok := c.Right.(*sqlparser.ColName)
			if lok && rok {
				for _, k := range []*sqlparser.ColName{l, r} {
					if c := p.cols[k]; c.ref.info.enc != nil && c.ref.info.enc.columns[strings.ToLower(c.col.Name)] != nil {
						return joinRefusal("the join compares encrypted column %s, whose stored text the other side cannot be matched with across data nodes; join on a plain column", sqlparser.String(k))
					}
				}
				if !d[outer].refs[p.cols[l].ref] {
					l, r = r, l
				}
				keyPairs = append(keyPairs, [2]*sqlparser.ColName{l, r})
				return nil
			}
		}
		switch {
		case m == 0 && inOn:
			d[inner].conds = append(d[inner].conds, e)
		case m == 0:
			d[outer].conds = append(d[outer].conds, e)
		case m == 1<<outer && (!left || !inOn):
			d[outer].conds = append(d[outer].conds, e)
		case m == 1<<inner && (!left || inOn):
			d[inner].conds = append(d[inner].conds, e)
		case m == 1<<outer:
			// The outer row is kept, but matches nothing unless the
			// condition holds: the outer side computes it.
			outerOn = append(outerOn, e)
		case m == 1<<inner:
			if is, ok := e.(*sqlparser.IsExpr); ok && is.Right == sqlparser.IsNullOp {
				if cn, ok := is.Left.(*sqlparser.ColName); ok {
					innerNull = append(innerNull, cn)
					return nil
				}
			}
			return joinRefusal("the WHERE condition %s of an outer join is on the inner side, which is NULL where no row matches; evaluating it across data nodes is not supported (only a column IS NULL is)", sqlparser.String(e))
		case m == 3 && (inOn || !left):
			// a.x < b.y: applied to the pairs of equal keys (Residual).
			c, ok := e.(*sqlparser.ComparisonExpr)
			var l, r *sqlparser.ColName
			var op runtime.CompareOp
			if ok {
				l, _ = c.Left.(*sqlparser.ColName)
				r, _ = c.Right.(*sqlparser.ColName)
				op, ok = residualOps[c.Operator]
			}
			if !ok || l == nil || r == nil {
				return joinRefusal("the condition %s compares columns of both sides of the join other than by = of two columns; evaluating it across data nodes is not supported", sqlparser.String(e))
			}
			for _, k := range []*sqlparser.ColName{l, r} {
				if c := p.cols[k]; c.ref.info.enc != nil && c.ref.info.enc.columns[strings.ToLower(c.col.Name)] != nil {
					return joinRefusal("the join compares encrypted column %s, whose stored text cannot be compared across data nodes; compare a plain column", sqlparser.String(k))
				}
			}
			if !d[outer].refs[p.cols[l].ref] {
				l, r = r, l
				op = map[runtime.CompareOp]runtime.CompareOp{runtime.CompareLt: runtime.CompareGt, runtime.CompareLe: runtime.CompareGe,
					runtime.CompareGt: runtime.CompareLt, runtime.CompareGe: runtime.CompareLe, runtime.CompareEq: runtime.CompareEq, runtime.CompareNe: runtime.CompareNe}[op]
			}
			residuals = append(residuals, residualCond{outer: l, inner: r, op: op, expr: e})
		default:
			return joinRefusal("the condition %s compares columns of both sides of the join other than by = of two columns; evaluating it across data nodes is not supported", sqlparser.String(e))
		}
		return nil
	}
	for _, e := range conjuncts(on) {
		if err := condition(e, true); err != nil {
			return nil, err
		}
	}
	if sel.Where != nil {
		for _, e := range conjuncts(sel.Where.Expr) {
			if err := condition(e, false); err != nil {
				return nil, err
			}
		}
	}
	// The select list: each expression computed by one side (grouped:
	// the merge's columns, below).
	grouping := sel.GroupBy != nil || sel.Distinct || containsAggregate(sel.SelectExprs) || containsAggregate(sel.OrderBy)
	var output [][2]int // side, column
	if !grouping {
		for _, se := range sel.SelectExprs.Exprs {
			switch se := se.(type) {
			case *sqlparser.StarExpr:
				for _, r := range p.refs {
					pos := 0
					if d[1].refs[r] {
						pos = 1
					}
					for _, sc := range starColumns(se, r) {
						c := d[pos].add(sc.expr, "", p.columnKind(r.info, sc.col.col))
						output = append(output, [2]int{pos, c})
					}
				}
			case *sqlparser.AliasedExpr:
				pos, ok := sideOf(se.Expr)
				if !ok {
					return nil, joinRefusal("the select expression %s uses columns of both tables; evaluating it across data nodes is not supported", sqlparser.String(se.Expr))
				}
				c := d[pos].add(se.Expr, se.As.String(), p.exprKind(se.Expr))
				if left && pos == inner && !nullStrict(se.Expr) {
					// Not NULL where no row matches (COALESCE(b.x, 0),
					// b.x IS NULL): the outer side computes its value
					// for NULL columns, which such a row takes.
					nullFrom[c] = d[outer].add(nullColumns(se.Expr), "", p.exprKind(se.Expr))
				}
				output = append(output, [2]int{pos, c})
			default:
				return nil, joinRefusal("select expression %s", sqlparser.String(se))
			}
		}
	}
	// The join keys.
	for _, kp := range keyPairs {
		ko, ki := p.cols[kp[0]], p.cols[kp[1]]
		if err := sameKeyKind(p, ko, ki); err != nil {
			return nil, err
		}
		for s, pos := range [2]int{outer, inner} {
			c := d[pos].add(kp[s], "", p.exprKind(kp[s]))
			if err := d[pos].weigh(c, kp[s]); err != nil {
				return nil, joinRefusal("join key %s: %v", sqlparser.String(kp[s]), err)
			}
			d[pos].keys = append(d[pos].keys, c)
		}
	}
	// The residual comparisons: after the key match, of one kind and
	// collation each (a join without key equality runs over temporary
	// tables instead).
	var residualSpec []runtime.JoinResidual
	if len(residuals) > 0 && len(keyPairs) == 0 {
		return nil, joinRefusal("the condition %s compares columns of both sides of the join other than by = of two columns, and no = of two columns is there to match the rows by; evaluating it across data nodes is not supported", sqlparser.String(residuals[0].expr))
	}
	for _, rc := range residuals {
		ko, ki := p.cols[rc.outer], p.cols[rc.inner]
		if err := sameKeyKind(p, ko, ki); err != nil {
			return nil, joinRefusal("the condition %s: %v", sqlparser.String(rc.expr), err)
		}
		var at [2]int
		for s, pos := range [2]int{outer, inner} {
			cn := [2]*sqlparser.ColName{rc.outer, rc.inner}[s]
			c := d[pos].add(cn, "", p.exprKind(cn))
			if err := d[pos].weigh(c, cn); err != nil {
				return nil, joinRefusal("the condition %s: %v", sqlparser.String(rc.expr), err)
			}
			at[s] = c
		}
		residualSpec = append(residualSpec, runtime.JoinResidual{Outer: at[0], Op: rc.op, Inner: at[1]})
	}
	outerCond := -1
	if len(outerOn) > 0 {
		var e sqlparser.Expr
		for _, c := range outerOn {
			if e == nil {
				e = sqlparser.Clone(c)
			} else {
				e = &sqlparser.AndExpr{Left: e, Right: sqlparser.Clone(c)}
			}
		}
		outerCond = d[outer].add(e, "", mergeKind{Type: "int"})
	}
	var nullCols []int
	for _, cn := range innerNull {
		nullCols = append(nullCols, d[inner].add(cn, "", p.exprKind(cn)))
	}
	// ORDER BY over the joined rows.
	type orderCol struct {
		side, col int
		desc      bool
	}
	var orders []orderCol
	orderBy := sel.OrderBy
	if grouping {
		orderBy = nil // the merge's
	}
	for _, o := range orderBy {
		desc := o.Direction == sqlparser.DescOrder
		if lit, ok := o.Expr.(*sqlparser.Literal); ok && lit.Type == sqlparser.IntVal {
			n, err := strconv.Atoi(lit.Val)
			if err != nil || n < 1 || n > len(output) {
				return nil, joinRefusal("ORDER BY position %s", lit.Val)
			}
			oc := output[n-1]
			if _, ok := nullFrom[oc[1]]; ok && oc[0] == inner {
				return nil, joinRefusal("ORDER BY %s: an expression of the inner table of an outer join that is not NULL where no row matches cannot sort the rows of a join across data nodes", lit.Val)
			}
			if err := d[oc[0]].weigh(oc[1], d[oc[0]].exprs[oc[1]].(*sqlparser.AliasedExpr).Expr); err != nil {
				return nil, joinRefusal("ORDER BY %s: %v", lit.Val, err)
			}
			orders = append(orders, orderCol{oc[0], oc[1], desc})
			continue
		}
		if cn, ok := o.Expr.(*sqlparser.ColName); ok && cn.Qualifier.IsEmpty() && p.cols[cn] == nil {
			found := false
			for i, se := range sel.SelectExprs.Exprs {
				if ae, ok := se.(*sqlparser.AliasedExpr); ok && ae.As.EqualString(cn.Name.String()) {
					oc := output[i]
					if _, ok := nullFrom[oc[1]]; ok && oc[0] == inner {
						return nil, joinRefusal("ORDER BY %s: an expression of the inner table of an outer join that is not NULL where no row matches cannot sort the rows of a join across data nodes", cn.Name.String())
					}
					if err := d[oc[0]].weigh(oc[1], ae.Expr); err != nil {
						return nil, joinRefusal("ORDER BY %s: %v", cn.Name.String(), err)
					}
					orders = append(orders, orderCol{oc[0], oc[1], desc})
					found = true
					break
				}
			}
			if found {
				continue
			}
		}
		m := sides(o.Expr)
		if m != 1 && m != 2 {
			return nil, joinRefusal("ORDER BY %s must be a column or an expression of one table to sort the rows of a join across data nodes", sqlparser.String(o.Expr))
		}
		pos := m - 1
		if err := innerStrict(pos, o.Expr); err != nil {
			return nil, err
		}
		k := p.exprKind(o.Expr)
		if k.Type == "" {
			return nil, joinRefusal("ORDER BY %s: the type of the expression is not known, so its values cannot be compared as MySQL does", sqlparser.String(o.Expr))
		}
		c := d[pos].add(o.Expr, "", k)
		if err := d[pos].weigh(c, o.Expr); err != nil {
			return nil, joinRefusal("ORDER BY %s: %v", sqlparser.String(o.Expr), err)
		}
		orders = append(orders, orderCol{pos, c, desc})
	}
	js := &JoinSteps{Batch: JoinBatch}
	var err error
	if js.Offset, js.Count, js.LimitArgs, err = p.stepsLimit(sel.Limit); err != nil {
		return nil, err
	}
	if grouping && js.LimitArgs != nil {
		return nil, joinRefusal("a LIMIT of a join across data nodes with GROUP BY, DISTINCT or aggregates is not taken from a parameter yet; write the number in the SQL")
	}
	// Grouped: the merge of the per-node plan (planMerge), fed one row per
	// joined row, whose columns are partial aggregates of that row.
	var mergeCols []JoinMergeColumn
	var mergeAt [][2]int
	if grouping {
		var bad sqlparser.Expr
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch n := n.(type) {
			case *sqlparser.CountStar, *sqlparser.Count, *sqlparser.Sum, *sqlparser.Avg, *sqlparser.Min, *sqlparser.Max:
			case sqlparser.AggrFunc:
				bad = n
			}
			return bad == nil, nil
		}, sel.SelectExprs, sel.OrderBy)
		if bad != nil {
			return nil, joinRefusal("%s over the rows of a join across data nodes is not evaluated", sqlparser.String(bad))
		}
		p.plan.Route = &Route{} // no sharding columns: no group lives on one data node
		if err := p.planMerge(sel); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCrossNode, err)
		}
		js.Merge = p.plan.Merge
		for _, se := range p.nodeStmt.(*sqlparser.Select).SelectExprs.Exprs {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				return nil, joinRefusal("select expression %s", sqlparser.String(se))
			}
			mc := JoinMergeColumn{Op: JoinValue}
			arg := ae.Expr
			switch f := ae.Expr.(type) {
			case *sqlparser.CountStar:
				mc, arg = JoinMergeColumn{Op: JoinOne, Aggregate: true}, nil
			case *sqlparser.Count:
				if f.Distinct || len(f.Args) != 1 {
					return nil, joinRefusal("%s over the rows of a join across data nodes is not evaluated", sqlparser.String(f))
				}
				mc, arg = JoinMergeColumn{Op: JoinNotNull, Aggregate: true}, f.Args[0]
			case *sqlparser.Sum:
				mc, arg = JoinMergeColumn{Op: JoinValue, Aggregate: true}, f.Arg
			case *sqlparser.Avg:
				mc, arg = JoinMergeColumn{Op: JoinNull, Aggregate: true}, nil // the merge divides its SUM by its COUNT
			case *sqlparser.Min:
				arg = f.Arg
			case *sqlparser.Max:
				arg = f.Arg
			case sqlparser.AggrFunc:
				return nil, joinRefusal("%s over the rows of a join across data nodes is not evaluated", sqlparser.String(f))
			}
			at := [2]int{-1, -1}
			if arg != nil {
				pos, ok := sideOf(arg)
				if !ok {
					return nil, joinRefusal("%s uses columns of both tables; evaluating it over a join across data nodes is not supported", sqlparser.String(ae.Expr))
				}
				if containsAggregate(arg) {
					if w, ok := ae.Expr.(*sqlparser.WeightStringFuncExpr); ok {
						// The merge's hidden key of MIN / MAX of text,
						// which the statement does not spell.
						return nil, joinRefusal("%s of text compared by its collation's WEIGHT_STRING over the rows of a join across data nodes is not evaluated", sqlparser.String(w.Expr))
					}
					return nil, joinRefusal("%s over the rows of a join across data nodes is not evaluated", sqlparser.String(ae.Expr))
				}
				if err := innerStrict(pos, arg); err != nil {
					return nil, err
				}
				at = [2]int{pos, d[pos].add(arg, "", p.exprKind(arg))}
			}
			switch {
			case !ae.As.IsEmpty():
				mc.Name = ae.As.String()
			case func() bool { _, ok := ae.Expr.(*sqlparser.ColName); return ok }():
				mc.Name = ae.Expr.(*sqlparser.ColName).Name.String()
			default:
				mc.Name = sqlparser.String(ae.Expr)
			}
			mergeCols = append(mergeCols, mc)
			mergeAt = append(mergeAt, at)
		}
	}
	// The side statements.
	for _, dr := range []*joinDraft{d[outer], d[inner]} {
		if len(dr.exprs) == 0 { // no column of the side is used (COUNT(*), ON 1=1): its rows still count, one each
			one := sqlparser.NewIntLiteral("1")
			dr.add(one, "", p.exprKind(one))
		}
	}
	build := func(dr *joinDraft) *JoinSide {
		s := &sqlparser.Select{From: sqlparser.Clone(dr.from), SelectExprs: &sqlparser.SelectExprs{Exprs: dr.exprs}}
		for _, c := range dr.conds {
			s.AddWhere(sqlparser.Clone(c))
		}
		var names []string
		for _, r := range p.refs {
			if dr.refs[r] {
				names = append(names, r.info.name)
			}
		}
		return &JoinSide{Table: strings.Join(names, ", "), SQL: sqlparser.String(s), sel: s}
	}
	js.Outer, js.Inner = build(d[outer]), build(d[inner])
	if len(p.names) > 0 {
		js.Outer.SQL, js.Inner.SQL = p.stepArguments(js.Outer.sel), p.stepArguments(js.Inner.sel)
	}
	for _, c := range d[inner].keys {
		js.Inner.keys = append(js.Inner.keys, d[inner].exprs[c].(*sqlparser.AliasedExpr).Expr)
	}
	width := len(d[outer].exprs)
	js.Spec = runtime.JoinSpec{Left: left, OuterKeys: d[outer].keys, InnerKeys: d[inner].keys,
		OuterKinds: columnKinds(d[outer].kinds, 0), InnerKinds: columnKinds(d[inner].kinds, 0), OuterCond: outerCond + 1, Residual: residualSpec}
	if len(nullFrom) > 0 {
		js.Spec.NullFrom = make([]int, len(d[inner].exprs))
		for c, oc := range nullFrom {
			js.Spec.NullFrom[c] = oc + 1
		}
	}
	js.Kinds = append(columnKinds(d[outer].kinds, 0), columnKinds(d[inner].kinds, width)...)
	at := func(side, col int) int {
		if side == outer {
			return col
		}
		return width + col
	}
	for _, o := range output {
		js.Output = append(js.Output, at(o[0], o[1]))
	}
	for _, c := range nullCols {
		js.Null = append(js.Null, at(inner, c))
	}
	for _, o := range orders {
		js.OrderBy = append(js.OrderBy, runtime.SortKey{Column: at(o.side, o.col), Desc: o.desc})
	}
	for i, mc := range mergeCols {
		if mergeAt[i][0] >= 0 {
			mc.Column = at(mergeAt[i][0], mergeAt[i][1])
		}
		js.MergeColumns = append(js.MergeColumns, mc)
	}
	return js, nil
}

// stepsLimit returns the offset and row count of the LIMIT of a join or
// UNION evaluated in steps: integer literals (count -1 when there is no
// LIMIT), or, for a placeholder of a statement BuildStepsPlan named
// (stepParamName), args: the index in the arguments of runtime.RunSteps
// of the offset, then of the row count (-1 for a literal); nil when both
// are literals.
func (p *planner) stepsLimit(l *sqlparser.Limit) (offset, count int64, args []int, err error) {
	if l == nil {
		return 0, -1, nil, nil
	}
	lim := func(e sqlparser.Expr, which int) (int64, error) {
		if a, ok := e.(*sqlparser.Argument); ok {
			k, err := strconv.Atoi(strings.TrimPrefix(a.Name, "v")) // the parser names them v1, v2, …
			if err == nil && k >= 1 && k <= len(p.names) {
				if i, ok := stepParamIndex(p.names[k-1]); ok {
					if args == nil {
						args = []int{-1, -1}
					}
					args[which] = i
					return 0, nil
				}
			}
			return 0, joinRefusal("a LIMIT of a join or UNION across data nodes is taken from a parameter only in a query file's generated code; write the number in the SQL")
		}
		lit, ok := e.(*sqlparser.Literal)
		if !ok || lit.Type != sqlparser.IntVal {
			return 0, joinRefusal("LIMIT %s must be an integer literal", sqlparser.String(e))
		}
		return strconv.ParseInt(lit.Val, 10, 64)
	}
	count = -1
	if l.Offset != nil {
		if offset, err = lim(l.Offset, 0); err != nil {
			return 0, 0, nil, err
		}
	}
	if l.Rowcount != nil {
		if count, err = lim(l.Rowcount, 1); err != nil {
			return 0, 0, nil, err
		}
	}
	return offset, count, args, nil
}

// starColumn is one column a * stands for.
type starColumn struct {
	expr *sqlparser.ColName // qualified by the table's alias or name
	col  *colRef
}

// starColumns returns the columns of r that the * se stands for (none
// when se names another table), in DDL order.
func starColumns(se *sqlparser.StarExpr, r *tableRef) []starColumn {
	if q := se.TableName.Name.String(); q != "" && !(strings.EqualFold(r.alias, q) || r.alias == "" && strings.EqualFold(r.info.name, q)) {
		return nil
	}
	qual := r.alias
	if qual == "" {
		qual = r.info.name
	}
	var out []starColumn
	for _, col := range r.info.ddl.VisibleColumns() {
		out = append(out, starColumn{expr: sqlparser.NewColNameWithQualifier(col.Name, sqlparser.NewTableName(qual)), col: &colRef{ref: r, col: col}})
	}
	return out
}

// nullRejecting reports whether the condition e is never TRUE when a
// column it compares is NULL: a comparison (not <=>), IN, LIKE or BETWEEN
// of a bare column, or IS NOT NULL / IS TRUE of one.
func nullRejecting(e sqlparser.Expr) bool {
	col := func(e sqlparser.Expr) bool { _, ok := e.(*sqlparser.ColName); return ok }
	switch x := e.(type) {
	case *sqlparser.ComparisonExpr:
		return x.Operator != sqlparser.NullSafeEqualOp && (col(x.Left) || col(x.Right) && x.Operator != sqlparser.InOp && x.Operator != sqlparser.NotInOp)
	case *sqlparser.BetweenExpr:
		return col(x.Left)
	case *sqlparser.IsExpr:
		return col(x.Left) && (x.Right == sqlparser.IsNotNullOp || x.Right == sqlparser.IsTrueOp)
	}
	return false
}

// hasWindow reports whether sel has a window function (an OVER clause).
func hasWindow(sel *sqlparser.Select) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.OverClause, *sqlparser.NamedWindow:
			found = true
		}
		return !found, nil
	}, sel)
	return found
}

// nullStrict reports whether e is NULL whenever the columns it names are:
// a column, a literal, and arithmetic, signs and CASTs of them.
func nullStrict(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.ColName, *sqlparser.Literal:
		return true
	case *sqlparser.BinaryExpr:
		return nullStrict(x.Left) && nullStrict(x.Right)
	case *sqlparser.UnaryExpr:
		return nullStrict(x.Expr)
	case *sqlparser.CastExpr:
		return nullStrict(x.Expr)
	}
	return false
}

// nullColumns returns e with every column replaced by NULL: the value of
// an expression of the inner side of an outer join for a row that matched
// none.
func nullColumns(e sqlparser.Expr) sqlparser.Expr {
	return sqlparser.Rewrite(sqlparser.Clone(e), func(c *sqlparser.Cursor) bool {
		if _, ok := c.Node().(*sqlparser.ColName); ok {
			c.Replace(&sqlparser.NullVal{})
		}
		return true
	}, nil).(sqlparser.Expr)
}

// sameKeyKind refuses join keys MySQL would compare other than the
// in-process key compares them: values of different kinds (a number and a
// string compare as doubles), text of different character sets or
// collations.
func sameKeyKind(p *planner, a, b *colRef) error {
	ka, kb := p.columnKind(a.ref.info, a.col), p.columnKind(b.ref.info, b.col)
	num := func(t string) bool { return t == "int" || t == "uint" || t == "decimal" }
	switch {
	case num(ka.Type) && num(kb.Type), ka.Type == kb.Type && ka.Type != "string" && ka.Type != "":
		return nil
	case ka.Type == "string" && kb.Type == "string":
		ca, sa := effectiveCollation(a)
		cb, sb := effectiveCollation(b)
		if strings.EqualFold(ca, cb) && strings.EqualFold(sa, sb) {
			return nil
		}
		return joinRefusal("join key columns %s.%s (%s) and %s.%s (%s) have different collations; evaluating the join across data nodes needs one collation",
			a.ref.info.name, a.col.Name, describeColl(ca, sa), b.ref.info.name, b.col.Name, describeColl(cb, sb))
	}
	return joinRefusal("join key columns %s.%s (%s) and %s.%s (%s) are of different kinds, which MySQL compares as numbers; evaluating the join across data nodes needs keys of one kind",
		a.ref.info.name, a.col.Name, a.col.Type, b.ref.info.name, b.col.Name, b.col.Type)
}

// effectiveCollation returns the collation and character set the DDL
// gives a text column (the table's when the column names none; "" where
// the database default applies).
func effectiveCollation(c *colRef) (coll, charset string) {
	coll, charset = c.col.Collation, c.col.Charset
	t := c.ref.info.ddl
	if charset == "" {
		charset = t.Charset
		if coll == "" {
			coll = t.Collation
		}
	}
	return coll, charset
}

// describeColl names a collation for messages.
func describeColl(coll, charset string) string {
	switch {
	case coll != "":
		return coll
	case charset != "":
		return "default collation of " + charset
	}
	return "the database default"
}
