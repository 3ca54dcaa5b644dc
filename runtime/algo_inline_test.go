package runtime

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func tableNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func bindInline(t *testing.T, props Props, column string, targets []string) StandardRouter {
	t.Helper()
	a, err := NewAlgorithm("INLINE", props)
	require.NoError(t, err)
	r, err := a.(StandardAlgorithm).BindStandard(column, targets)
	require.NoError(t, err)
	return r
}

func TestInlinePrecise(t *testing.T) {
	for _, tc := range []struct {
		name    string
		expr    string
		targets []string
		v       Value
		want    int
		err     string
	}{
		{"mod long", "t_order_${order_id % 2}", tableNames("t_order_", 2), Long(3), 1, ""},
		{"mod int", "t_order_${order_id % 2}", tableNames("t_order_", 2), Int(4), 0, ""},
		{"placeholder arrow", "t_order_$->{order_id % 2}", tableNames("t_order_", 2), Long(5), 1, ""},
		{"negative remainder", "t_order_${order_id % 2}", tableNames("t_order_", 2), Long(-3), 0,
			`no data node matches the sharding value: INLINE "t_order_${order_id % 2}" gives "t_order_-1" for Long -3, which is not an available target`},
		{"string value", "t_order_${order_id % 2}", tableNames("t_order_", 2), String("3"), 0,
			`INLINE algorithm expression "t_order_${order_id % 2}" and sharding column "order_id" do not match: operator "%" is not supported for String and Integer at offset 19`},
		{"decimal value", "t_order_${order_id % 2}", tableNames("t_order_", 2), Decimal("3.0"), 0,
			`INLINE algorithm expression "t_order_${order_id % 2}" and sharding column "order_id" do not match: operator "%" is not supported for BigDecimal and Integer at offset 19`},
		{"big integer value", "t_order_${order_id % 16}", tableNames("t_order_", 16), BigInteger("12345678910111213141516"), 12, ""},
		{"null", "t_order_${order_id % 2}", tableNames("t_order_", 2), Null, 0, "sharding value must not be NULL"},
		{"hash long", "t_${Math.abs(id.hashCode()) % 4}", tableNames("t_", 4), Long(12345678901), 1, ""},
		{"hash string", "t_${Math.abs(id.hashCode()) % 4}", tableNames("t_", 4), String("13800138000"), 0, ""},
		{"hash int vs long", "t_${Math.abs(id.hashCode()) % 4}", tableNames("t_", 4), Int(-7), 3, ""},
		{"hash long -7", "t_${Math.abs(id.hashCode()) % 4}", tableNames("t_", 4), Long(-7), 2, ""},
		{"suffix", "t_${id % 4}_log", []string{"t_0_log", "t_1_log", "t_2_log", "t_3_log"}, Long(6), 2, ""},
		{"suffix miss", "t_${id % 4}_log", []string{"t_0_log", "t_1_log"}, Long(6), 0,
			`no data node matches the sharding value: INLINE "t_${id % 4}_log" gives "t_2_log" for Long 6, which is not an available target`},
		{"padLeft", "t_${id.toString().padLeft(2, '0')}", []string{"t_00", "t_01", "t_02", "t_03"}, Long(3), 3, ""},
		{"padLeft miss", "t_${id.toString().padLeft(2, '0')}", []string{"t_00", "t_01"}, Long(3), 0,
			`no data node matches the sharding value: INLINE "t_${id.toString().padLeft(2, '0')}" gives "t_03" for Long 3, which is not an available target`},
		{"format", "t_${String.format('%02d', id % 4)}", []string{"t_00", "t_01", "t_02", "t_03"}, Long(7), 3, ""},
		{"non canonical target", "t_${id % 2}", []string{"t_01", "t_1", "t_0"}, Long(1), 1, ""},
		{"first duplicate wins", "t_${id % 2}", []string{"t_0", "t_1", "t_1"}, Long(1), 1, ""},
		{"sparse numbers", "t_${id}", []string{"t_0", "t_1000000", "t_-5"}, Long(1000000), 1, ""},
		{"sparse negative", "t_${id}", []string{"t_0", "t_1000000", "t_-5"}, Int(-5), 2, ""},
		{"sparse miss", "t_${id}", []string{"t_0", "t_1000000"}, Long(7), 0,
			`no data node matches the sharding value: INLINE "t_${id}" gives "t_7" for Long 7, which is not an available target`},
		{"string target", "ds_${id}", []string{"ds_a", "ds_b"}, String("b"), 1, ""},
		{"ternary", "ds_${id > 100 ? 'new' : 'old'}", []string{"ds_old", "ds_new"}, Long(101), 1, ""},
		{"divide by zero", "t_${id.intdiv(0)}", tableNames("t_", 2), Long(1), 0,
			`INLINE algorithm expression "t_${id.intdiv(0)}" and sharding column "id" do not match: division by zero at offset 7`},
		{"timestamp", "t_${ts}", []string{"t_2024-01-02 03:04:05.0"}, Time(ts), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAlgorithm("INLINE", Props{"algorithm-expression": tc.expr})
			require.NoError(t, err)
			require.Equal(t, "INLINE", a.Type())
			col := a.(*InlineAlgorithm).Expression().Names()[0]
			r, err := a.(StandardAlgorithm).BindStandard(col, tc.targets)
			require.NoError(t, err)
			got, err := r.Precise(tc.v)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestInlinePreciseSentinels(t *testing.T) {
	r := bindInline(t, Props{"algorithm-expression": "t_order_${order_id % 2}"}, "order_id", tableNames("t_order_", 2))
	_, err := r.Precise(Long(-3))
	require.True(t, errors.Is(err, ErrNoTarget))
	_, err = r.Precise(Null)
	require.True(t, errors.Is(err, ErrNullShardingValue))
	_, err = r.Precise(String("x"))
	var ie *InlineError
	require.True(t, errors.As(err, &ie))
	require.Equal(t, 19, ie.Offset)
}

func TestInlineRange(t *testing.T) {
	r := bindInline(t, Props{"algorithm-expression": "t_order_${order_id % 4}"}, "order_id", tableNames("t_order_", 4))
	dst, err := r.Range([]int{9}, Range{Lower: Long(1), HasLower: true})
	require.EqualError(t, err, `range sharding condition is not supported by this algorithm: INLINE "t_order_${order_id % 4}" needs allow-range-query-with-inline-sharding=true to route a range condition on "order_id"`)
	require.True(t, errors.Is(err, ErrRangeUnsupported))
	require.Equal(t, []int{9}, dst)

	r = bindInline(t, Props{"algorithm-expression": "t_order_${order_id % 4}", "allow-range-query-with-inline-sharding": "TRUE"}, "order_id", tableNames("t_order_", 4))
	dst, err = r.Range([]int{9}, Range{Lower: Long(1), HasLower: true})
	require.NoError(t, err)
	require.Equal(t, []int{9, 0, 1, 2, 3}, dst)
}

func TestInlineAlgorithmErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props Props
		err   string
	}{
		{"missing", Props{}, `property "algorithm-expression" is required`},
		{"blank", Props{"algorithm-expression": "  "}, `property "algorithm-expression" is required`},
		{"syntax", Props{"algorithm-expression": "t_order_${id.foo()}"}, `property "algorithm-expression" is not a valid inline expression: unsupported method "foo" at offset 13`},
		{"divide", Props{"algorithm-expression": "t_${id / 2}"}, `property "algorithm-expression" is not a valid inline expression: unsupported operator "/" at offset 7: Groovy "/" on integers yields a BigDecimal; use .intdiv(n)`},
		{"range flag", Props{"algorithm-expression": "t_${id % 2}", "allow-range-query-with-inline-sharding": "yes"}, `property "allow-range-query-with-inline-sharding" must be true or false, got "yes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAlgorithm("INLINE", tc.props)
			require.EqualError(t, err, tc.err)
			var pe *PropError
			require.True(t, errors.As(err, &pe))
		})
	}

	_, err := NewAlgorithm("INLINE", Props{"algorithm-expression": " t_order_${id.foo()}"})
	var ie *InlineError
	require.True(t, errors.As(err, &ie), "the *InlineError with its offset is reachable")
	require.Equal(t, 13, ie.Offset)
	var pe *PropError
	require.True(t, errors.As(err, &pe))
	require.Equal(t, "algorithm-expression", pe.Prop)
}

func TestInlineBindErrors(t *testing.T) {
	for _, tc := range []struct {
		expr, column, err string
	}{
		{"t_${user_id % 2}", "order_id", `property "algorithm-expression" "t_${user_id % 2}" reads "user_id" at offset 4, but the sharding column is "order_id"`},
		{"t_${order_id % 2}_${user_id}", "order_id", `property "algorithm-expression" "t_${order_id % 2}_${user_id}" reads "user_id" at offset 20, but the sharding column is "order_id"`},
		{"t_${ORDER_ID % 2}", "order_id", `property "algorithm-expression" "t_${ORDER_ID % 2}" reads "ORDER_ID" at offset 4, but the sharding column is "order_id"`},
		{"t_order_0", "order_id", `property "algorithm-expression" "t_order_0" does not use the sharding column "order_id"`},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			a, err := NewAlgorithm("INLINE", Props{"algorithm-expression": tc.expr})
			require.NoError(t, err)
			_, err = a.(StandardAlgorithm).BindStandard(tc.column, tableNames("t_", 2))
			require.EqualError(t, err, tc.err)
		})
	}
}

func TestInlinePreciseAllocs(t *testing.T) {
	for _, expr := range []string{
		"t_order_${order_id % 16}",
		"t_order_${Math.abs(order_id.hashCode()) % 16}",
		"t_order_${order_id.intdiv(16) % 16}_x",
		"t_order_${order_id % 16 == 0 ? 1 : 2}",
	} {
		targets := append(tableNames("t_order_", 16), tableNames("t_order_x", 16)...)
		for i := range 16 {
			targets = append(targets, fmt.Sprintf("t_order_%d_x", i))
		}
		r := bindInline(t, Props{"algorithm-expression": expr}, "order_id", targets)
		for _, v := range []Value{Long(123456789), Int(77)} {
			_, err := r.Precise(v)
			require.NoError(t, err, expr)
			allocs := testing.AllocsPerRun(200, func() { _, _ = r.Precise(v) })
			require.Zero(t, allocs, expr)
		}
	}
}

// BenchmarkInline routes an integer sharding value through the integer form
// `t_order_${order_id % 16}` (0 allocs/op) and through an integer-valued
// expression evaluated on the AST (also 0 allocs/op).
func BenchmarkInline(b *testing.B) {
	for _, bc := range []struct{ name, expr string }{
		{"mod", "t_order_${order_id % 16}"},
		{"hash", "t_order_${Math.abs(order_id.hashCode()) % 16}"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a, err := NewAlgorithm("INLINE", Props{"algorithm-expression": bc.expr})
			require.NoError(b, err)
			r, err := a.(StandardAlgorithm).BindStandard("order_id", tableNames("t_order_", 16))
			require.NoError(b, err)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := r.Precise(Long(int64(i))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInlineGeneric routes through the generic path: the target name
// is built as text and looked up by name.
func BenchmarkInlineGeneric(b *testing.B) {
	for _, bc := range []struct {
		name, expr string
		v          func(i int) Value
	}{
		{"padLeft", "t_order_${order_id.toString().padLeft(2, '0')}", func(i int) Value { return Long(int64(i % 16)) }},
		{"string-hash", "t_order_${Math.abs(order_id.hashCode()) % 16}", func(i int) Value { return String("13800138000") }},
		{"format", "t_order_${String.format('%02d', order_id % 16)}", func(i int) Value { return Long(int64(i)) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			targets := tableNames("t_order_", 16)
			if bc.name != "string-hash" {
				for i := range targets {
					targets[i] = fmt.Sprintf("t_order_%02d", i)
				}
			}
			a, err := NewAlgorithm("INLINE", Props{"algorithm-expression": bc.expr})
			require.NoError(b, err)
			r, err := a.(StandardAlgorithm).BindStandard("order_id", targets)
			require.NoError(b, err)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := r.Precise(bc.v(i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
