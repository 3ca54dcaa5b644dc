package runtime

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzInline feeds arbitrary text to ExpandInlineList and CompileInline,
// seeded from the table tests. Properties: nothing panics; every error is an
// *InlineError whose offset lies inside the text and whose message ends with
// it; list elements are non-empty and trimmed; whatever compiles evaluates
// without panicking for every kind of value; IntegerForm agrees with Eval;
// and a bound INLINE router (fast integer paths included) agrees with Eval.
func FuzzInline(f *testing.F) {
	for _, tc := range expandCases {
		f.Add(tc.expr)
	}
	for _, tc := range expandErrorCases {
		f.Add(tc.expr)
	}
	for _, tc := range evalCases {
		f.Add(tc.expr)
	}
	for _, tc := range evalErrorCases {
		f.Add(tc.expr)
	}
	oldElems, oldBytes := inlineMaxElements, inlineMaxBytes
	inlineMaxElements, inlineMaxBytes = 4096, 1<<20 // keep each input fast
	f.Cleanup(func() { inlineMaxElements, inlineMaxBytes = oldElems, oldBytes })

	values := []Value{
		Long(7), Long(-3), Long(1 << 40), Int(-2147483648), Int(12),
		String("abc"), String(""), String("é𝄞"),
		BigInteger("-12345678901234567890"), Decimal("10.50"), Time(ts),
	}
	f.Fuzz(func(t *testing.T, expr string) {
		list, err := ExpandInlineList(expr)
		checkInlineError(t, expr, err)
		for _, s := range list {
			require.NotEmpty(t, s)
			require.Equal(t, javaTrim(s), s)
		}

		e, err := CompileInline(expr)
		checkInlineError(t, expr, err)
		if err != nil {
			return
		}
		names := e.Names()
		results := make([]string, len(values))
		errs := make([]error, len(values))
		for i, v := range values {
			env := make([]Value, len(names))
			for j := range env {
				env[j] = v
			}
			results[i], errs[i] = e.EvalValues(env)
			var ie *InlineError
			if errs[i] != nil {
				require.True(t, errors.As(errs[i], &ie), "%q: %v", expr, errs[i])
			}
			if prefix, n, col, ok := e.IntegerForm(); ok && (v.Kind == KindLong || v.Kind == KindInt) {
				require.Equal(t, []string{col}, names)
				require.NoError(t, errs[i])
				require.Equal(t, prefix+strconv.FormatInt(v.Int%n, 10), results[i])
			}
		}
		if len(names) != 1 {
			return
		}
		// The router must pick exactly the target Eval names.
		var targets []string
		for i := range values {
			if errs[i] == nil && !slices.Contains(targets, results[i]) {
				targets = append(targets, results[i])
			}
		}
		targets = append(targets, "t_0", "t_1", "-1", "0")
		r, err := (&InlineAlgorithm{expr: e}).BindStandard(names[0], targets)
		require.NoError(t, err)
		for i, v := range values {
			idx, err := r.Precise(v)
			if errs[i] != nil {
				require.Error(t, err)
				require.False(t, errors.Is(err, ErrNoTarget), "%q: %v", expr, err)
				continue
			}
			require.NoError(t, err, "%q with %v", expr, v)
			require.Equal(t, slices.Index(targets, results[i]), idx, "%q with %v", expr, v)
		}
	})
}

func checkInlineError(t *testing.T, expr string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ie *InlineError
	require.True(t, errors.As(err, &ie), "%q: %T %v", expr, err, err)
	require.GreaterOrEqual(t, ie.Offset, 0)
	require.LessOrEqual(t, ie.Offset, len(expr))
	require.True(t, strings.Contains(ie.Msg, " at offset "+strconv.Itoa(ie.Offset)), ie.Msg)
}
