package runtime

import (
	"fmt"
	"strings"
)

// hintInlineDefaultExpression is HINT_INLINE's default algorithm-expression:
// the hint value itself names the target.
const hintInlineDefaultExpression = "${value}"

// hintInlineName is the one name a HINT_INLINE expression binds.
const hintInlineName = "value"

// HintInlineAlgorithm is ShardingSphere's HINT_INLINE hint sharding
// algorithm: each hint value is bound as `value` in an inline expression,
// e.g. `ds_${value % 2}`; the targets are the union of the results.
//
// Props:
//   - algorithm-expression (default "${value}"): see
//     docs/inline-expressions.md. It may read no name other than `value`.
//
// Source: ShardingSphere HintInlineShardingAlgorithm
// (https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#hint-inline-sharding-algorithm).
type HintInlineAlgorithm struct {
	expr *InlineExpr
}

var _ HintAlgorithm = (*HintInlineAlgorithm)(nil)

func newHintInlineAlgorithm(props Props) (Algorithm, error) {
	text, present := props[propAlgorithmExpression]
	if !present {
		text = hintInlineDefaultExpression
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, &PropError{Prop: propAlgorithmExpression, Msg: "must not be empty"}
	}
	expr, err := compileAlgorithmExpression(propAlgorithmExpression, text)
	if err != nil {
		return nil, err
	}
	for i, n := range expr.names {
		if n != hintInlineName {
			return nil, &PropError{Prop: propAlgorithmExpression, Msg: fmt.Sprintf(
				"%q reads %q at offset %d, but HINT_INLINE binds only %q", expr.src, n, expr.nameOffs[i], hintInlineName)}
		}
	}
	return &HintInlineAlgorithm{expr: expr}, nil
}

// Type returns "HINT_INLINE".
func (a *HintInlineAlgorithm) Type() string { return "HINT_INLINE" }

// Expression returns the compiled algorithm-expression, for the generator.
func (a *HintInlineAlgorithm) Expression() *InlineExpr { return a.expr }

// BindHint binds the expression over targets (matched exactly; the first
// index of a repeated name wins).
func (a *HintInlineAlgorithm) BindHint(targets []string) (HintRouter, error) {
	return &hintInlineRouter{expr: a.expr, targets: newTargetIndex(targets), all: allIndexes(len(targets))}, nil
}

// hintInlineRouter routes one bound HINT_INLINE algorithm.
type hintInlineRouter struct {
	expr    *InlineExpr
	targets targetIndex
	all     []int
}

// Route appends the targets of the hint values, ascending and without
// duplicates; no values gives every target. Errors: a NULL value
// (ErrNullShardingValue), an evaluation error, a result that is not a
// target (ErrNoTarget).
func (r *hintInlineRouter) Route(dst []int, values []Value) ([]int, error) {
	if len(values) == 0 {
		return append(dst, r.all...), nil
	}
	start := len(dst)
	var buf [128]byte
	env := [1]Value{}
	bound := env[:len(r.expr.names)] // 0 names for a constant expression, else `value`
	for _, v := range values {
		if v.Kind == KindNull {
			return dst[:start], ErrNullShardingValue
		}
		env[0] = v
		name, err := r.expr.AppendEval(buf[:0], bound)
		if err != nil {
			return dst[:start], fmt.Errorf("HINT_INLINE algorithm expression %q cannot route hint value %s: %w",
				r.expr.src, describeValue(v), err)
		}
		i, ok := r.targets.m[string(name)]
		if !ok {
			return dst[:start], fmt.Errorf("%w: HINT_INLINE %q gives %q for hint value %s, which is not an available target",
				ErrNoTarget, r.expr.src, string(name), describeValue(v))
		}
		dst = append(dst, i)
	}
	return sortUniqueFrom(dst, start), nil
}
