package runtime

import (
	"fmt"
	"slices"
	"strings"
)

const propShardingColumns = "sharding-columns"

// ComplexInlineAlgorithm is ShardingSphere's COMPLEX_INLINE complex sharding
// algorithm: an inline expression over several sharding columns, e.g.
// `t_order_${(user_id + order_id) % 4}`. For `=`/IN conditions it evaluates
// the expression once per combination of the columns' values (cartesian
// product) and routes to the union of the results. A condition that gives
// values for some of the strategy's columns but not for one the expression
// reads, or sharding-columns lists, fails whatever the values, as in
// ShardingSphere; the planner refuses it when it plans the statement
// (ShardingTable.CheckColumns).
//
// Props:
//   - algorithm-expression (required): see docs/inline-expressions.md.
//   - sharding-columns (optional, "a,b"): when set, a statement must give
//     values for every listed column. ShardingSphere only compares the count
//     of listed columns with the count of columns that have values; shardgen
//     checks the names, which agrees whenever the list names strategy
//     columns, and BindComplex refuses a list that does not.
//   - allow-range-query-with-inline-sharding (default false): a range
//     condition on any column routes to every target when true, else is an
//     error.
//
// Source: ShardingSphere ComplexInlineShardingAlgorithm
// (https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#complex-inline-sharding-algorithm).
type ComplexInlineAlgorithm struct {
	expr            *InlineExpr
	shardingColumns []string // trimmed, empty when the property is not set
	allowRange      bool
}

var _ ComplexAlgorithm = (*ComplexInlineAlgorithm)(nil)

func newComplexInlineAlgorithm(props Props) (Algorithm, error) {
	text, err := props.Required(propAlgorithmExpression)
	if err != nil {
		return nil, err
	}
	expr, err := compileAlgorithmExpression(propAlgorithmExpression, text)
	if err != nil {
		return nil, err
	}
	allow, err := props.Bool(propAllowRangeInline, false)
	if err != nil {
		return nil, err
	}
	a := &ComplexInlineAlgorithm{expr: expr, allowRange: allow}
	for _, c := range strings.Split(props[propShardingColumns], ",") {
		if c = strings.TrimSpace(c); c != "" {
			a.shardingColumns = append(a.shardingColumns, c)
		}
	}
	return a, nil
}

// Type returns "COMPLEX_INLINE".
func (a *ComplexInlineAlgorithm) Type() string { return "COMPLEX_INLINE" }

// Expression returns the compiled algorithm-expression, for the generator.
func (a *ComplexInlineAlgorithm) Expression() *InlineExpr { return a.expr }

// ShardingColumns returns the sharding-columns property, trimmed; nil when
// it is not set.
func (a *ComplexInlineAlgorithm) ShardingColumns() []string {
	return slices.Clone(a.shardingColumns)
}

// AllowRangeQuery reports allow-range-query-with-inline-sharding.
func (a *ComplexInlineAlgorithm) AllowRangeQuery() bool { return a.allowRange }

// BindComplex binds the expression to the strategy's sharding columns
// (configured spelling) over targets. Every name the expression reads must
// be one of columns, spelled exactly (ShardingSphere binds the configured
// spelling; another name would be null). Every sharding-columns entry must
// be one of columns (case-insensitive).
func (a *ComplexInlineAlgorithm) BindComplex(columns []string, targets []string) (ComplexRouter, error) {
	r := &complexInlineRouter{
		expr:    a.expr,
		columns: slices.Clone(columns),
		targets: newTargetIndex(targets),
		all:     allIndexes(len(targets)),
	}
	for i, n := range a.expr.names {
		c := slices.Index(columns, n)
		if c < 0 {
			return nil, &PropError{Prop: propAlgorithmExpression, Msg: fmt.Sprintf(
				"%q reads %q at offset %d, which is not a sharding column (%s)", a.expr.src, n, a.expr.nameOffs[i], strings.Join(columns, ", "))}
		}
		r.slots = append(r.slots, c)
	}
	for _, sc := range a.shardingColumns {
		c := slices.IndexFunc(columns, func(col string) bool { return strings.EqualFold(col, sc) })
		if c < 0 {
			return nil, &PropError{Prop: propShardingColumns, Msg: fmt.Sprintf(
				"lists %q, which is not a sharding column (%s)", sc, strings.Join(columns, ", "))}
		}
		r.required = append(r.required, c)
	}
	if !a.allowRange {
		r.rangeErr = fmt.Errorf("%w: COMPLEX_INLINE %q needs %s=true to route a range condition",
			ErrRangeUnsupported, a.expr.src, propAllowRangeInline)
	}
	return r, nil
}

// complexInlineRouter routes one bound COMPLEX_INLINE algorithm.
type complexInlineRouter struct {
	expr     *InlineExpr
	columns  []string
	slots    []int // slots[i]: column index bound to expr.names[i]
	required []int // column indexes listed in sharding-columns
	targets  targetIndex
	all      []int
	rangeErr error
}

// Route follows ComplexInlineShardingAlgorithm.doSharding: a range on any
// column gives every target (or ErrRangeUnsupported); no condition at all
// gives every target (ShardingSphere's route engine skips the strategy);
// otherwise the expression is evaluated for each combination of the values
// of the columns it reads. Errors: a NULL value (ErrNullShardingValue), a
// column listed in sharding-columns or read by the expression without
// values, an evaluation error, a result that is not a target (ErrNoTarget).
func (r *complexInlineRouter) Route(dst []int, values [][]Value, ranges []*Range) ([]int, error) {
	if len(values) != len(r.columns) || len(ranges) != len(r.columns) {
		return dst, fmt.Errorf("COMPLEX_INLINE bound to %d columns got %d value lists and %d ranges", len(r.columns), len(values), len(ranges))
	}
	for _, rg := range ranges {
		if rg != nil {
			if r.rangeErr != nil {
				return dst, r.rangeErr
			}
			return append(dst, r.all...), nil
		}
	}
	if !slices.ContainsFunc(values, func(v []Value) bool { return v != nil }) {
		return append(dst, r.all...), nil
	}
	valued := func(c int) bool { return values[c] != nil }
	if err := r.checkRequired(valued); err != nil {
		return dst, err
	}
	for _, vs := range values {
		for _, v := range vs {
			if v.Kind == KindNull {
				return dst, ErrNullShardingValue
			}
		}
	}
	if err := r.checkRead(valued); err != nil {
		return dst, err
	}
	for _, c := range r.slots {
		if len(values[c]) == 0 {
			return dst, nil // an empty IN list: the product is empty
		}
	}
	start := len(dst)
	var envBuf [4]Value
	var idxBuf [4]int
	env, idx := envBuf[:0], idxBuf[:0]
	for _, c := range r.slots {
		env = append(env, values[c][0])
		idx = append(idx, 0)
	}
	var buf [128]byte
	for {
		name, err := r.expr.AppendEval(buf[:0], env)
		if err != nil {
			return dst[:start], fmt.Errorf("COMPLEX_INLINE algorithm expression %q and sharding columns %s do not match: %w",
				r.expr.src, strings.Join(r.columns, ", "), err)
		}
		i, ok := r.targets.m[string(name)]
		if !ok {
			return dst[:start], fmt.Errorf("%w: COMPLEX_INLINE %q gives %q, which is not an available target", ErrNoTarget, r.expr.src, string(name))
		}
		dst = append(dst, i)
		// Next combination; the last column varies fastest.
		s := len(idx) - 1
		for ; s >= 0; s-- {
			col := values[r.slots[s]]
			idx[s]++
			if idx[s] < len(col) {
				env[s] = col[idx[s]]
				break
			}
			idx[s] = 0
			env[s] = col[0]
		}
		if s < 0 {
			return sortUniqueFrom(dst, start), nil
		}
	}
}

// CheckColumns returns the error Route returns for every condition that
// gives = or IN values (none NULL) for the columns whose valued(i) is true
// (i indexes the columns given to BindComplex; at least one) and no range
// on any of them: a column listed in sharding-columns, or read by the
// expression, without values. nil when such a condition may route.
func (r *complexInlineRouter) CheckColumns(valued func(i int) bool) error {
	if err := r.checkRequired(valued); err != nil {
		return err
	}
	return r.checkRead(valued)
}

// checkRequired refuses a condition without values for a column listed in
// sharding-columns (ShardingSphere compares their counts).
func (r *complexInlineRouter) checkRequired(valued func(i int) bool) error {
	for _, c := range r.required {
		if !valued(c) {
			return fmt.Errorf("COMPLEX_INLINE %q: %s lists %q, but the condition gives = or IN values only for %s: add %s = ? or %s IN (…) to it",
				r.expr.src, propShardingColumns, r.columns[c], r.valuedText(valued), r.columns[c], r.columns[c])
		}
	}
	return nil
}

// checkRead refuses a condition without values for a column the
// expression reads: ShardingSphere's closure would find no such property.
func (r *complexInlineRouter) checkRead(valued func(i int) bool) error {
	for i, c := range r.slots {
		if !valued(c) {
			return fmt.Errorf("COMPLEX_INLINE %q reads %q, but the condition gives = or IN values only for %s: add %s = ? or %s IN (…) to it",
				r.expr.src, r.expr.names[i], r.valuedText(valued), r.expr.names[i], r.expr.names[i])
		}
	}
	return nil
}

// valuedText names the columns with values, e.g. "user_id" or "a, b".
func (r *complexInlineRouter) valuedText(valued func(i int) bool) string {
	var names []string
	for i, c := range r.columns {
		if valued(i) {
			names = append(names, c)
		}
	}
	return strings.Join(names, ", ")
}

// allIndexes returns 0, 1, ..., n-1.
func allIndexes(n int) []int {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}

// sortUniqueFrom sorts dst[start:] ascending and removes duplicates in it.
func sortUniqueFrom(dst []int, start int) []int {
	tail := dst[start:]
	slices.Sort(tail)
	return dst[:start+len(slices.Compact(tail))]
}
