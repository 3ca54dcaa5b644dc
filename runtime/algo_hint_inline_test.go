package runtime

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHintInlineRoute(t *testing.T) {
	for _, tc := range []struct {
		name    string
		props   Props
		targets []string
		values  []Value
		want    []int
		err     string
	}{
		{"default expression", nil, []string{"ds_0", "ds_1"}, []Value{String("ds_1")}, []int{1}, ""},
		{"no values", nil, []string{"ds_0", "ds_1"}, nil, []int{0, 1}, ""},
		{"modulo", Props{"algorithm-expression": "ds_${value % 2}"}, []string{"ds_0", "ds_1"}, []Value{Long(3), Long(1), Int(2)}, []int{0, 1}, ""},
		{"arrow placeholder", Props{"algorithm-expression": " ds_$->{value % 2} "}, []string{"ds_0", "ds_1"}, []Value{Long(4)}, []int{0}, ""},
		{"constant", Props{"algorithm-expression": "ds_1"}, []string{"ds_0", "ds_1"}, []Value{Long(4), String("x")}, []int{1}, ""},
		{"null", nil, []string{"ds_0"}, []Value{Null}, nil, "sharding value must not be NULL"},
		{"no target", Props{"algorithm-expression": "ds_${value % 2}"}, []string{"ds_0", "ds_1"}, []Value{Long(1), Long(-1)}, nil,
			`no data node matches the sharding value: HINT_INLINE "ds_${value % 2}" gives "ds_-1" for hint value Long -1, which is not an available target`},
		{"mismatch", Props{"algorithm-expression": "ds_${value % 2}"}, []string{"ds_0", "ds_1"}, []Value{String("a")}, nil,
			`HINT_INLINE algorithm expression "ds_${value % 2}" cannot route hint value String "a": operator "%" is not supported for String and Integer at offset 11`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAlgorithm("HINT_INLINE", tc.props)
			require.NoError(t, err)
			require.Equal(t, "HINT_INLINE", a.Type())
			r, err := a.(HintAlgorithm).BindHint(tc.targets)
			require.NoError(t, err)
			got, err := r.Route([]int{}, tc.values)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestHintInlineErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props Props
		err   string
	}{
		{"empty", Props{"algorithm-expression": " "}, `property "algorithm-expression" must not be empty`},
		{"other name", Props{"algorithm-expression": "ds_${user_id % 2}"},
			`property "algorithm-expression" "ds_${user_id % 2}" reads "user_id" at offset 5, but HINT_INLINE binds only "value"`},
		{"syntax", Props{"algorithm-expression": "ds_${value.x}"},
			`property "algorithm-expression" is not a valid inline expression: unsupported property "x" at offset 11`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAlgorithm("HINT_INLINE", tc.props)
			require.EqualError(t, err, tc.err)
			var pe *PropError
			require.True(t, errors.As(err, &pe))
		})
	}
	a, err := NewAlgorithm("hint_inline", nil)
	require.NoError(t, err)
	require.Equal(t, "${value}", a.(*HintInlineAlgorithm).Expression().String())
}

func TestHintInlineAllocs(t *testing.T) {
	a, err := NewAlgorithm("HINT_INLINE", Props{"algorithm-expression": "t_${value % 2}_${value % 3}"})
	require.NoError(t, err)
	r, err := a.(HintAlgorithm).BindHint([]string{"t_0_0", "t_1_1", "t_1_2", "t_0_1"})
	require.NoError(t, err)
	dst := make([]int, 0, 8)
	values := []Value{Long(7), Long(1)}
	got, err := r.Route(dst, values)
	require.NoError(t, err)
	require.Equal(t, []int{1}, got)
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _ = r.Route(dst[:0], values) }))
}
