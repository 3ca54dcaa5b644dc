package runtime

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Property keys shared by the inline algorithms.
const (
	propAlgorithmExpression = "algorithm-expression"
	propAllowRangeInline    = "allow-range-query-with-inline-sharding"
)

// InlineAlgorithm is ShardingSphere's INLINE standard sharding algorithm:
// the target is an inline expression evaluated with the sharding column
// bound to the sharding value, e.g. `t_order_${order_id % 2}`.
//
// Props:
//   - algorithm-expression (required): the expression, see
//     docs/inline-expressions.md. Its syntax is checked here; that it names
//     the sharding column is checked by BindStandard, which knows the column.
//   - allow-range-query-with-inline-sharding (default false): when true a
//     range condition routes to every target; when false it is an error.
//
// Source: ShardingSphere InlineShardingAlgorithm
// (https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#inline-sharding-algorithm).
type InlineAlgorithm struct {
	expr       *InlineExpr
	allowRange bool
}

var _ StandardAlgorithm = (*InlineAlgorithm)(nil)

// inlinePropError is the error for an algorithm-expression that does not
// compile: it reads and matches as a *PropError for the property (errors.As)
// and unwraps to the *InlineError, whose Offset is relative to the trimmed
// expression.
type inlinePropError struct {
	prop *PropError
	err  *InlineError
}

// Error reads as the *PropError.
func (e *inlinePropError) Error() string { return e.prop.Error() }

// Unwrap gives the *InlineError.
func (e *inlinePropError) Unwrap() error { return e.err }

// As lets errors.As find the *PropError.
func (e *inlinePropError) As(target any) bool {
	if p, ok := target.(**PropError); ok {
		*p = e.prop
		return true
	}
	return false
}

// compileAlgorithmExpression compiles the trimmed expression text of prop.
func compileAlgorithmExpression(prop, text string) (*InlineExpr, error) {
	e, err := CompileInline(text)
	if err != nil {
		var ie *InlineError
		if errors.As(err, &ie) {
			return nil, &inlinePropError{prop: &PropError{Prop: prop, Msg: "is not a valid inline expression: " + ie.Msg}, err: ie}
		}
		return nil, err
	}
	return e, nil
}

func newInlineAlgorithm(props Props) (Algorithm, error) {
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
	return &InlineAlgorithm{expr: expr, allowRange: allow}, nil
}

// Type returns "INLINE".
func (a *InlineAlgorithm) Type() string { return "INLINE" }

// Expression returns the compiled algorithm-expression, for the generator.
func (a *InlineAlgorithm) Expression() *InlineExpr { return a.expr }

// AllowRangeQuery reports allow-range-query-with-inline-sharding.
func (a *InlineAlgorithm) AllowRangeQuery() bool { return a.allowRange }

// BindStandard binds the expression to the sharding column column over
// targets. The expression must read column and no other name: ShardingSphere
// binds only the sharding column, so any other name would evaluate to null
// and misroute or fail on every statement. Targets are matched exactly
// (case-sensitive); when a name repeats, its first index wins.
func (a *InlineAlgorithm) BindStandard(column string, targets []string) (StandardRouter, error) {
	names := a.expr.names
	for i, n := range names {
		if n != column {
			return nil, &PropError{Prop: propAlgorithmExpression, Msg: fmt.Sprintf(
				"%q reads %q at offset %d, but the sharding column is %q", a.expr.src, n, a.expr.nameOffs[i], column)}
		}
	}
	if len(names) == 0 {
		return nil, &PropError{Prop: propAlgorithmExpression, Msg: fmt.Sprintf(
			"%q does not use the sharding column %q", a.expr.src, column)}
	}
	r := &inlineRouter{
		expr:    a.expr,
		column:  column,
		targets: newTargetIndex(targets),
	}
	if a.expr.single != nil {
		r.nums = newNumberTable(targets, a.expr.prefix, a.expr.suffix)
	}
	if a.allowRange {
		r.all = make([]int, len(targets))
		for i := range r.all {
			r.all[i] = i
		}
	} else {
		r.rangeErr = fmt.Errorf("%w: INLINE %q needs %s=true to route a range condition on %q",
			ErrRangeUnsupported, a.expr.src, propAllowRangeInline, column)
	}
	return r, nil
}

// inlineRouter routes one bound INLINE algorithm.
//
// Precise with an Integer or Long value never builds the target name: for
// `prefix${col % N}` it computes v % N directly, and for any other
// expression of the form prefix${...}suffix whose placeholder yields an
// integer it evaluates the AST (no allocation for integer arithmetic); the
// number is then looked up in a table built at bind time from the targets
// that read prefix + decimal + suffix. Other results go through the generic
// path: the name is built in a stack buffer and looked up by text.
type inlineRouter struct {
	expr     *InlineExpr
	column   string
	targets  targetIndex
	nums     numberTable
	all      []int // every index, when ranges are allowed
	rangeErr error // when they are not
}

// Precise returns the index of the target the expression names for v.
// Errors: ErrNullShardingValue; ErrNoTarget (wrapped, naming the computed
// target) when it is not among the targets, where ShardingSphere 5.5's
// StandardShardingStrategy throws ShardingRouteAlgorithmException; an
// evaluation error wrapped as an expression/column mismatch.
func (r *inlineRouter) Precise(v Value) (int, error) {
	if v.Kind == KindNull {
		return 0, ErrNullShardingValue
	}
	e := r.expr
	if v.Kind == KindInt || v.Kind == KindLong {
		if e.modName != "" {
			// Java int % int and long % long agree with int64 % on the same
			// values; Go's % truncates like Java's.
			x := v.Int
			if v.Kind == KindInt {
				x = int64(int32(x))
			}
			n := x % e.modN
			if i, ok := r.nums.lookup(n); ok {
				return i, nil
			}
			return 0, r.noTarget(e.prefix+strconv.FormatInt(n, 10), v)
		}
		if e.single != nil {
			env := [1]Value{v}
			res, ierr := e.single.eval(env[:])
			if ierr != nil {
				return 0, r.mismatch(ierr)
			}
			if res.k == ivInt || res.k == ivLong {
				if i, ok := r.nums.lookup(res.n); ok {
					return i, nil
				}
				return 0, r.noTarget(e.prefix+strconv.FormatInt(res.n, 10)+e.suffix, v)
			}
		}
	}
	var buf [128]byte
	env := [1]Value{v}
	name, err := e.AppendEval(buf[:0], env[:])
	if err != nil {
		return 0, r.mismatch(err)
	}
	if i, ok := r.targets.m[string(name)]; ok {
		return i, nil
	}
	return 0, r.noTarget(string(name), v)
}

// Range appends every target when allow-range-query-with-inline-sharding is
// true, else returns ErrRangeUnsupported (wrapped).
func (r *inlineRouter) Range(dst []int, _ Range) ([]int, error) {
	if r.rangeErr != nil {
		return dst, r.rangeErr
	}
	return append(dst, r.all...), nil
}

// mismatch wraps an evaluation error the way ShardingSphere reports a
// MissingMethodException from the closure
// (MismatchedInlineShardingAlgorithmExpressionAndColumnException).
func (r *inlineRouter) mismatch(err error) error {
	return fmt.Errorf("INLINE algorithm expression %q and sharding column %q do not match: %w", r.expr.src, r.column, err)
}

func (r *inlineRouter) noTarget(name string, v Value) error {
	return fmt.Errorf("%w: INLINE %q gives %q for %s, which is not an available target",
		ErrNoTarget, r.expr.src, name, describeValue(v))
}

// targetIndex maps a target name to its first index.
type targetIndex struct {
	m map[string]int
}

func newTargetIndex(targets []string) targetIndex {
	m := make(map[string]int, len(targets))
	for i, t := range targets {
		if _, dup := m[t]; !dup {
			m[t] = i
		}
	}
	return targetIndex{m: m}
}

// numberTable maps the number in targets named prefix + decimal + suffix to
// the target's index. The decimal must be canonical (strconv.FormatInt
// text), since the target is chosen by comparing names: "t_01" is not the
// target of 1. Numbers in a compact span use a slice; others a sorted slice
// searched by halving.
type numberTable struct {
	lo     int64
	dense  []int32 // index+1 per number lo+i; 0 = none
	keys   []int64 // sparse: sorted numbers
	values []int32 // sparse: index per key
}

func newNumberTable(targets []string, prefix, suffix string) numberTable {
	type pair struct {
		n int64
		i int32
	}
	var pairs []pair
	seen := map[int64]bool{}
	for i, t := range targets {
		if len(t) <= len(prefix)+len(suffix) || !strings.HasPrefix(t, prefix) || !strings.HasSuffix(t, suffix) {
			continue
		}
		mid := t[len(prefix) : len(t)-len(suffix)]
		n, err := strconv.ParseInt(mid, 10, 64)
		if err != nil || strconv.FormatInt(n, 10) != mid || seen[n] {
			continue
		}
		seen[n] = true
		pairs = append(pairs, pair{n, int32(i)})
	}
	var t numberTable
	if len(pairs) == 0 {
		return t
	}
	sort.Slice(pairs, func(a, b int) bool { return pairs[a].n < pairs[b].n })
	lo, hi := pairs[0].n, pairs[len(pairs)-1].n
	if span := uint64(hi - lo); span < uint64(4*len(pairs)+64) {
		t.lo = lo
		t.dense = make([]int32, span+1)
		for _, p := range pairs {
			t.dense[p.n-lo] = p.i + 1
		}
		return t
	}
	for _, p := range pairs {
		t.keys = append(t.keys, p.n)
		t.values = append(t.values, p.i)
	}
	return t
}

// lookup returns the index of the target numbered n.
func (t *numberTable) lookup(n int64) (int, bool) {
	if t.dense != nil {
		d := uint64(n - t.lo)
		if n >= t.lo && d < uint64(len(t.dense)) && t.dense[d] != 0 {
			return int(t.dense[d] - 1), true
		}
		return 0, false
	}
	lo, hi := 0, len(t.keys)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.keys[m] < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.keys) && t.keys[lo] == n {
		return int(t.values[lo]), true
	}
	return 0, false
}
