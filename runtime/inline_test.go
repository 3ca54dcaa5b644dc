package runtime

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// expandCases are list expressions (actualDataNodes / actualDataSources)
// with their expansion, in ShardingSphere's order. They also seed FuzzInline.
var expandCases = []struct {
	expr string
	want []string
}{
	{"ds_${0..1}.t_order_${0..1}", []string{"ds_0.t_order_0", "ds_0.t_order_1", "ds_1.t_order_0", "ds_1.t_order_1"}},
	{"ds_$->{0..1}.t_order_$->{0..1}", []string{"ds_0.t_order_0", "ds_0.t_order_1", "ds_1.t_order_0", "ds_1.t_order_1"}},
	{"t_${['a','b']}", []string{"t_a", "t_b"}},
	{`t_${["a", 'b']}`, []string{"t_a", "t_b"}},
	{"t_${0..<4}", []string{"t_0", "t_1", "t_2", "t_3"}},
	{"t_${3..0}", []string{"t_3", "t_2", "t_1", "t_0"}},
	{"t_${3..<0}", []string{"t_3", "t_2", "t_1"}},
	{"t_${-1..1}", []string{"t_-1", "t_0", "t_1"}},
	{"t_${0..<0}", nil},
	{"t_${[]}", nil},
	{"t_${0..0}", []string{"t_0"}},
	{"ds_${[0, 1]}.t_order, ds_2.t_order", []string{"ds_0.t_order", "ds_1.t_order", "ds_2.t_order"}},
	{"ds_${0..1}.t_${['x', 'y']}, ds_2.t_z", []string{"ds_0.t_x", "ds_0.t_y", "ds_1.t_x", "ds_1.t_y", "ds_2.t_z"}},
	{"t_${[1, 1, 2, '1']}", []string{"t_1", "t_2"}},
	{"t_${[1, 2]}_${[1, 2]}", []string{"t_1_1", "t_1_2", "t_2_1", "t_2_2"}},
	{" t_order_0 , t_order_1 ", []string{"t_order_0", "t_order_1"}},
	{"a, ,b,", []string{"a", "b"}},
	{"t_order_0", []string{"t_order_0"}},
	{"", nil},
	{"<LITERAL>ds_${0..1}, b", []string{"ds_${0..1}", "b"}},
	{"<literal>a,b,", []string{"a", "b"}},
	{"<GROOVY>t_${0..1}", []string{"t_0", "t_1"}},
	{"<HOTSPOT>t_${0..1}", []string{"t_0", "t_1"}},
	{"<GROOVY>", nil},
	{"t_${['new','old']}_order_${1..2}, t_config", []string{"t_new_order_1", "t_new_order_2", "t_old_order_1", "t_old_order_2", "t_config"}},
	{`t_${["new${1+2}",'old']}_order_${1..2}`, []string{"t_new3_order_1", "t_new3_order_2", "t_old_order_1", "t_old_order_2"}},
	{`t_$->{["new$->{1+2}",'old']}_order_$->{1..2}`, []string{"t_new3_order_1", "t_new3_order_2", "t_old_order_1", "t_old_order_2"}},
	{"ds_${0..1}.t_${'a'.padLeft(3, '0')}", []string{"ds_0.t_00a", "ds_1.t_00a"}},
	{"ds_${0..1}.t_order_${0..1},", []string{"ds_0.t_order_0", "ds_0.t_order_1", "ds_1.t_order_0", "ds_1.t_order_1"}},
	{"ds_${[0]}.t_${1 + 1}", []string{"ds_0.t_2"}},
	{"ds_${0..1}.t,\n  ds_2.t", []string{"ds_0.t", "ds_1.t", "ds_2.t"}},
	{"t_${String.format('%02d', 7)}", []string{"t_07"}},
	{"t_${(0..2)}", []string{"t_0", "t_1", "t_2"}},
	{"t_${1 == 1 ? 'a' : 'b'}", []string{"t_a"}},
	{"t_${[' a ', 'b']}", []string{"t_ a", "t_b"}},
	{"t_${2147483647..2147483648}", []string{"t_2147483647", "t_2147483648"}},
	{"a}b,c${1}", []string{"a}b", "c1"}},
}

func TestExpandInlineList(t *testing.T) {
	for _, tc := range expandCases {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := ExpandInlineList(tc.expr)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// expandErrorCases are list expressions ExpandInlineList refuses, with the
// exact message. They also seed FuzzInline.
var expandErrorCases = []struct {
	expr string
	err  string
}{
	{"t_${order_id % 2}", `unknown name "order_id" at offset 4: list expressions bind no names`},
	{"t_${0..}", `unexpected "}" at offset 7`},
	{"t_${0..1", `unterminated placeholder "${" at offset 2`},
	{"t_${", `unterminated placeholder "${" at offset 2`},
	{"ds_${0..3.t", `unterminated placeholder "${" at offset 3: no "}" closes it (unsupported property "t" at offset 10)`},
	{"t_${1 / 2}", `unsupported operator "/" at offset 6: Groovy "/" on integers yields a BigDecimal; use .intdiv(n)`},
	{"t_${[[1]]}", `nested collections are not supported at offset 4`},
	{"a${1},,b", `empty element at offset 6`},
	{"a${1}, ,b", `empty element at offset 6`},
	{"${''}", `empty element at offset 0`},
	{"<FOO>a", `unknown inline expression type "<FOO>" at offset 0: known types are <GROOVY> and <LITERAL>`},
	{"<INTERVAL>P=t_;SP=yyyy", `inline expression type "<INTERVAL>" is not supported at offset 0: list the data nodes with ${...} ranges or <LITERAL>`},
	{"<LITERAL>a,,b", `empty element at offset 11`},
	{"t_${0..2000000}", `range has more than 1048576 elements at offset 5`},
	{"t_${0..1023}_${0..1023}_${0..1}", `element expands to more than 1048576 names at offset 0`},
	{`t_"${1}`, `unsupported character '"' in expression text at offset 2: ShardingSphere evaluates the text inside a Groovy string`},
	{`t_\${1}`, `unsupported character '\' in expression text at offset 2: ShardingSphere evaluates the text inside a Groovy string`},
	{"t_$x${1}", `unsupported "$" without "{" at offset 2: write "${...}" (Groovy's "$name" form is not supported)`},
	{"t_${}", `empty placeholder at offset 2`},
	{"t_${'a}", `unterminated string literal at offset 4`},
	{`t_${"a}`, `unterminated string literal at offset 7`},
	{`t_${"a$b"}`, `unsupported "$" without "{" at offset 6: write "${...}" (Groovy's "$name" form is not supported)`},
	{`t_${'\q'}`, `unsupported escape "\\q" at offset 5`},
	{"t_${1.5}", `unsupported number literal "1.5" at offset 4: only decimal integers (optionally with an L, G or I suffix) are supported`},
	{"t_${010}", `unsupported number literal "010" at offset 4: only decimal integers (optionally with an L, G or I suffix) are supported`},
	{"t_${0x1F}", `unsupported number literal "0x1F" at offset 4: only decimal integers (optionally with an L, G or I suffix) are supported`},
	{"t_${x.foo()}", `unsupported method "foo" at offset 6`},
	{"t_${Math.max(1, 2)}", `unsupported method "Math.max" at offset 9`},
	{"t_${x.size}", `unsupported property "size" at offset 6`},
	{"t_${1 ** 2}", `unsupported operator "**" at offset 6`},
	{"t_${1 ?: 2}", `unsupported operator "?:" at offset 6`},
	{"t_${x?.y}", `unsupported operator "?." at offset 5`},
	{"t_${1 < 2 < 3}", `comparison operators cannot be chained at offset 10`},
	{"t_${0..1..2}", `range operators cannot be chained at offset 8`},
	{"t_${null}", `unsupported keyword "null" at offset 4`},
	{"t_${[1, 2][0]}", `unsupported subscript "[" at offset 10`},
	{"t_${1 +}", `unexpected "}" at offset 7`},
	{"t_${(1}", `unexpected "}" at offset 6: expected ")"`},
	{"t_${1 1}", `unexpected "1" at offset 6: expected "}"`},
	{"t_${[1 2]}", `unexpected "2" at offset 7: expected "," or "]"`},
	{"t_${a.substring()}", `wrong number of arguments to "substring": want 1 or 2, got 0 at offset 6`},
	{"t_${1; 2}", `unsupported operator ";" at offset 5`},
	{"t_${{ -> 1 }()}", `unsupported operator "{" at offset 4`},
	{"t_${1..'a'}", `range bounds must be Integer or Long, not Integer and String at offset 5`},
	{"t_${'a' % 2}", `operator "%" is not supported for String and Integer at offset 8`},
	{"t_${1 % 0}", `division by zero at offset 6`},
	{"t_${1G..2}", `range bounds must be Integer or Long, not BigInteger and Integer at offset 6`},
	{"t_${99999999999L1}", `unsupported number literal "99999999999L1" at offset 4: only decimal integers (optionally with an L, G or I suffix) are supported`},
	{"t_${99999999999999999999L}", `number literal "99999999999999999999L" does not fit a Long at offset 4`},
	{"t_${#}", `unsupported operator "#" at offset 4`},
	{"t_${é}", `unexpected character 'é' at offset 4`},
	{"t_${a$}", `unsupported identifier "a$" at offset 4: "$" in names is not supported`},
	{"t\n_${1}", `newline in expression text at offset 1`},
	{"t_${[1, 2] + 'a'}", `operator "+" is not supported for List and String at offset 11`},
	{"t_${'a' + [1]}", `a collection cannot be used as text at offset 8`},
	{"t_${String.format('%d', 'a')}", `String.format: %d needs an integer, not String at offset 4`},
	{"t_${String.format('%x', 1)}", `unsupported format "%x" at offset 18: only %d, %s, %0Nd, %Nd, %-Nd, %Ns, %-Ns and %% are supported`},
	{"t_${String.format('%05s', 1)}", `unsupported format "%05s" at offset 18: only %d, %s, %0Nd, %Nd, %-Nd, %Ns, %-Ns and %% are supported`},
	{"t_${String.format('%-0d', 1)}", `unsupported format "%-0d" at offset 18: only %d, %s, %0Nd, %Nd, %-Nd, %Ns, %-Ns and %% are supported`},
	{"t_${String.format('%d %d', 1)}", `String.format has 2 conversions but 1 arguments at offset 11`},
	{"t_${String.format(x, 1)}", `String.format needs a string literal as its format at offset 11`},
	{"t_${String.valueOf(1)}", `unsupported method "String.valueOf" at offset 11`},
	{"t_${'abc'.padLeft(100000)}", `padding width 100000 is larger than 65536 at offset 10`},
	{"t_${'abc'.padLeft(5, '')}", `padding must not be empty at offset 10`},
	{"t_${'abc'.substring(2, 1)}", `substring(2, 1) is out of range for a String of length 3 at offset 10`},
}

func TestExpandInlineListErrors(t *testing.T) {
	for _, tc := range expandErrorCases {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := ExpandInlineList(tc.expr)
			require.EqualError(t, err, tc.err)
			require.Nil(t, got)
			var ie *InlineError
			require.True(t, errors.As(err, &ie))
			require.True(t, strings.Contains(ie.Msg, " at offset "))
			require.GreaterOrEqual(t, ie.Offset, 0)
			require.LessOrEqual(t, ie.Offset, len(tc.expr))
		})
	}
}

func TestExpandInlineListDeepNesting(t *testing.T) {
	expr := "t_${" + strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100) + "}"
	_, err := ExpandInlineList(expr)
	require.EqualError(t, err, "expression nests deeper than 128 levels at offset 68")
	ok := "t_${" + strings.Repeat("(", 30) + "1" + strings.Repeat(")", 30) + "}"
	got, err := ExpandInlineList(ok)
	require.NoError(t, err)
	require.Equal(t, []string{"t_1"}, got)
}

var ts = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// evalCases are algorithm expressions evaluated with bindings; they also
// seed FuzzInline.
var evalCases = []struct {
	expr string
	bind map[string]Value
	want string
}{
	{"t_${id % 2}", map[string]Value{"id": Long(3)}, "t_1"},
	{"t_${id % 2}", map[string]Value{"id": Long(-3)}, "t_-1"},
	{"t_${id % 2}", map[string]Value{"id": Int(-3)}, "t_-1"},
	{"t_$->{id % 2}", map[string]Value{"id": Long(4)}, "t_0"},
	{"t_${id.intdiv(10) % 4}", map[string]Value{"id": Long(57)}, "t_1"},
	{"t_${id.intdiv(10) % 4}", map[string]Value{"id": Long(-57)}, "t_-1"},
	{"t_${id.intdiv(-2)}", map[string]Value{"id": Int(7)}, "t_-3"},
	// HASH_MOD-style vectors from the spec (§3.3, count 4).
	{"t_${Math.abs(id.hashCode()) % 4}", map[string]Value{"id": Long(12345678901)}, "t_1"},
	{"t_${Math.abs(id.hashCode()) % 4}", map[string]Value{"id": String("13800138000")}, "t_0"},
	{"t_${Math.abs(id.hashCode()) % 4}", map[string]Value{"id": Int(100)}, "t_0"},
	{"t_${Math.abs(id.hashCode()) % 4}", map[string]Value{"id": Long(-7)}, "t_2"},
	{"t_${Math.abs(id.hashCode()) % 4}", map[string]Value{"id": Int(-7)}, "t_3"},
	{"t_${Math.abs(id.hashCode()) % 4}", map[string]Value{"id": String("100")}, "t_1"},
	{"t_${Math.abs(id.hashCode()) % 4}", map[string]Value{"id": String("a")}, "t_1"},
	{"t_${Math.abs(id.hashCode()) % 4}", map[string]Value{"id": Decimal("10.5")}, "t_0"},
	{"${id.hashCode()}", map[string]Value{"id": Long(12345678901)}, "-539222985"},
	{"${id.hashCode()}", map[string]Value{"id": String("100")}, "48625"},
	{"${id.hashCode()}", map[string]Value{"id": Long(100)}, "100"},
	{"${id.hashCode()}", map[string]Value{"id": BigInteger("4294967296")}, "31"},
	{"${id.hashCode()}", map[string]Value{"id": BigInteger("-18446744073709551616")}, "-961"},
	{"${(id == 1).hashCode()}", map[string]Value{"id": Long(1)}, "1231"},
	{"${Math.abs(id)}", map[string]Value{"id": Int(-2147483648)}, "-2147483648"},
	{"${Math.abs(id)}", map[string]Value{"id": Long(-5)}, "5"},
	{"${id + 1}", map[string]Value{"id": Int(2147483647)}, "-2147483648"},
	{"${id + 1}", map[string]Value{"id": Long(2147483647)}, "2147483648"},
	{"${id + 1}", map[string]Value{"id": Long(9223372036854775807)}, "-9223372036854775808"},
	{"${id * 2}", map[string]Value{"id": Int(1073741824)}, "-2147483648"},
	{"${id + 1L}", map[string]Value{"id": Int(2147483647)}, "2147483648"},
	{"${-id}", map[string]Value{"id": Int(-2147483648)}, "-2147483648"},
	{"${id - 10}", map[string]Value{"id": Long(3)}, "-7"},
	{"${id.toString().padLeft(4, '0')}", map[string]Value{"id": Long(7)}, "0007"},
	{"${id.toString().padLeft(4, '0')}", map[string]Value{"id": Long(12345)}, "12345"},
	{"${id.padLeft(5, 'ab')}", map[string]Value{"id": String("x")}, "ababx"},
	{"${id.padRight(3)}|", map[string]Value{"id": String("x")}, "x  |"},
	{"${id.padLeft(3, '0')}", map[string]Value{"id": String("é")}, "00é"},
	{"t_${String.format('%02d', id % 16)}", map[string]Value{"id": Long(5)}, "t_05"},
	{"t_${String.format('%02d', id % 16)}", map[string]Value{"id": Long(-5)}, "t_-5"},
	{"${String.format('%05d', id)}", map[string]Value{"id": Long(-42)}, "-0042"},
	{"${String.format('%-4d|%3s|%-3s|%%|%s', id, 'a', 'b', id)}", map[string]Value{"id": Int(7)}, "7   |  a|b  |%|7"},
	{"${String.format('%d', id)}", map[string]Value{"id": BigInteger("123456789012345678901")}, "123456789012345678901"},
	{"${id % 2 == 0 ? 'even' : 'odd'}", map[string]Value{"id": Long(4)}, "even"},
	{"${id % 2 == 0 ? 'even' : 'odd'}", map[string]Value{"id": Long(3)}, "odd"},
	{"${id > 100 && id <= 200 ? 1 : id > 200 ? 2 : 0}", map[string]Value{"id": Long(250)}, "2"},
	{"${id < 0 || id >= 10 ? 'x' : 'y'}", map[string]Value{"id": Int(5)}, "y"},
	{"${!(id == 1)}", map[string]Value{"id": Int(1)}, "false"},
	{"${id != 1L}", map[string]Value{"id": Int(1)}, "false"},
	{"${id == '1'}", map[string]Value{"id": Int(1)}, "false"},
	{"${id == 1}", map[string]Value{"id": Decimal("1.00")}, "true"},
	{"${id < 'b'}", map[string]Value{"id": String("a")}, "true"},
	{"${id ? 'y' : 'n'}", map[string]Value{"id": String("")}, "n"},
	{"${id ? 'y' : 'n'}", map[string]Value{"id": Long(0)}, "n"},
	{"${name.substring(0, 2)}", map[string]Value{"name": String("beijing")}, "be"},
	{"${name.substring(5)}", map[string]Value{"name": String("beijing")}, "ng"},
	{"${name.substring(1, 2)}", map[string]Value{"name": String("a𝄞b")}, "\ufffd"},
	{"${'t_' + id % 4}", map[string]Value{"id": Long(7)}, "t_3"},
	{"${id + '_x'}", map[string]Value{"id": Long(7)}, "7_x"},
	{"${id + 1}", map[string]Value{"id": String("5")}, "51"},
	{"${id.toString() + true}", map[string]Value{"id": Long(5)}, "5true"},
	{`${"x${id}y"}`, map[string]Value{"id": Long(5)}, "x5y"},
	{`${"a\tb\u0041\$"}`, nil, "a\tbA$"},
	{"t_order_0", nil, "t_order_0"},
	{`t_$x\"`, nil, `t_$x\"`},
	{"t_${id % 2},x", map[string]Value{"id": Long(3)}, "t_1,x"},
	{"t_${id % 16}", map[string]Value{"id": BigInteger("12345678910111213141516")}, "t_12"},
	{"t_${id % 4}", map[string]Value{"id": BigInteger("-7")}, "t_1"},
	{"${id.intdiv(2)}", map[string]Value{"id": BigInteger("-7")}, "-3"},
	{"${id + 1}", map[string]Value{"id": BigInteger("9223372036854775807")}, "9223372036854775808"},
	{"${id * 99999999999999999999}", map[string]Value{"id": Int(2)}, "199999999999999999998"},
	{"${ts}", map[string]Value{"ts": Time(ts)}, "2024-01-02 03:04:05.0"},
	{"${ts == ts}", map[string]Value{"ts": Time(ts)}, "true"},
	{"${id}", map[string]Value{"id": Decimal("10.50")}, "10.50"},
	{"${id == 1}", map[string]Value{"id": Long(1)}, "true"},
	{"${a}_${b}", map[string]Value{"a": Long(1), "b": String("x")}, "1_x"},
	{"<GROOVY>t_${id % 2}", map[string]Value{"id": Long(1)}, "t_1"},
	{"${+id}", map[string]Value{"id": Long(-1)}, "-1"},
	{"${2147483648}", nil, "2147483648"},
	{"${3I + 4i + 5l}", nil, "12"},
	{"${a == b}", map[string]Value{"a": String("x"), "b": String("x")}, "true"},
	{"${(a == 1) == (b == 2)}", map[string]Value{"a": Long(1), "b": Long(2)}, "true"},
	{"${[a, 2] == [1, 2]}", map[string]Value{"a": Long(1)}, "true"},
	{"${[a, 2] == [1]}", map[string]Value{"a": Long(1)}, "false"},
	{"${[a] == [2]}", map[string]Value{"a": Long(1)}, "false"},
	{"${a == b}", map[string]Value{"a": Time(ts), "b": Time(ts.Add(time.Second))}, "false"},
	{"${a == b}", map[string]Value{"a": Long(1), "b": BigInteger("1")}, "true"},
	{"${a == b}", map[string]Value{"a": Decimal("1.5"), "b": Decimal("1.50")}, "true"},
	{"${a == true}", map[string]Value{"a": Long(1)}, "false"},
	{"${a < b}", map[string]Value{"a": Time(ts), "b": Time(ts.Add(time.Second))}, "true"},
	{"${(a == 1) > false}", map[string]Value{"a": Long(1)}, "true"},
	{"${a >= 2}", map[string]Value{"a": BigInteger("99999999999999999999")}, "true"},
	{"${a > 1}", map[string]Value{"a": Decimal("1.5")}, "true"},
	{"${a <= 1}", map[string]Value{"a": Decimal("1E+1")}, "false"},
	{"${a < 'z'}", map[string]Value{"a": String("é")}, "false"},
	{"${a < b}", map[string]Value{"a": String("\uffff"), "b": String("𝄞")}, "false"},
	{"${a < b}", map[string]Value{"a": String("ab"), "b": String("abc")}, "true"},
	{"${a ? 1 : 0}", map[string]Value{"a": BigInteger("0")}, "0"},
	{"${a ? 1 : 0}", map[string]Value{"a": Decimal("0.00")}, "0"},
	{"${a ? 1 : 0}", map[string]Value{"a": Decimal("0.01")}, "1"},
	{"${a ? 1 : 0}", map[string]Value{"a": Time(ts)}, "1"},
	{"${[] ? 1 : 0}${[a] ? 1 : 0}", map[string]Value{"a": Long(1)}, "01"},
	{"${-a}", map[string]Value{"a": BigInteger("5")}, "-5"},
	{"${+a}", map[string]Value{"a": BigInteger("5")}, "5"},
	{"${a - 1}", map[string]Value{"a": BigInteger("5")}, "4"},
	{"${a * 2}", map[string]Value{"a": Long(5)}, "10"},
	{"${a.toString()}", map[string]Value{"a": Decimal("1.50")}, "1.50"},
	{"${(a == 1).toString()}", map[string]Value{"a": Long(1)}, "true"},
	{`${'\b\t\n\f\r\'\"\\\$\u00e9'}`, nil, "\b\t\n\f\r'\"\\$é"},
	{"${'$->{x}'}", nil, "${x}"},
	{"${a.hashCode()}", map[string]Value{"a": String("𝄞")}, "1772394"},
}

func bindMap(m map[string]Value) func(string) (Value, bool) {
	return func(name string) (Value, bool) {
		v, ok := m[name]
		return v, ok
	}
}

func TestInlineEval(t *testing.T) {
	for _, tc := range evalCases {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := CompileInline(tc.expr)
			require.NoError(t, err)
			got, err := e.Eval(bindMap(tc.bind))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)

			values := make([]Value, 0, len(e.Names()))
			for _, n := range e.Names() {
				values = append(values, tc.bind[n])
			}
			got, err = e.EvalValues(values)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// evalErrorCases are evaluation errors (the expression compiles).
var evalErrorCases = []struct {
	expr string
	bind map[string]Value
	err  string
}{
	{"t_${id % 2}", map[string]Value{"id": String("3")}, `operator "%" is not supported for String and Integer at offset 7`},
	{"t_${id % 2}", map[string]Value{"id": Decimal("3.5")}, `operator "%" is not supported for BigDecimal and Integer at offset 7`},
	{"t_${id % 2}", map[string]Value{"id": Time(ts)}, `operator "%" is not supported for Timestamp and Integer at offset 7`},
	{"t_${id - 'a'}", map[string]Value{"id": String("3")}, `operator "-" is not supported for String and String at offset 7`},
	{"t_${-id}", map[string]Value{"id": String("3")}, `operator "-" is not supported for String at offset 4`},
	{"${id.intdiv(0)}", map[string]Value{"id": Long(5)}, `division by zero at offset 5`},
	{"${id % 0}", map[string]Value{"id": Int(5)}, `division by zero at offset 5`},
	{"${id % 0}", map[string]Value{"id": BigInteger("5")}, `BigInteger modulus not positive at offset 5`},
	{"${id.intdiv(2)}", map[string]Value{"id": String("5")}, `method "intdiv" is not supported for String and Integer at offset 5`},
	{"${name.substring(5)}", map[string]Value{"name": String("abc")}, `substring(5, 3) is out of range for a String of length 3 at offset 7`},
	{"${name.substring(id)}", map[string]Value{"name": String("abc"), "id": String("1")}, `argument of "substring" must be an Integer, not String at offset 7`},
	{"${id.padLeft(3)}", map[string]Value{"id": Long(1)}, `method "padLeft" is not supported for Long at offset 5`},
	{"${id.substring(1)}", map[string]Value{"id": Long(12)}, `method "substring" is not supported for Long at offset 5`},
	{"${Math.abs(id)}", map[string]Value{"id": String("-1")}, `method "Math.abs" is not supported for String at offset 2`},
	{"${'a'.padLeft(id)}", map[string]Value{"id": String("1")}, `argument of "padLeft" must be a number, not String at offset 6`},
	{"${'a'.padLeft(3, id)}", map[string]Value{"id": Long(1)}, `padding of "padLeft" must be a String, not Long at offset 6`},
	{"${[id]}", map[string]Value{"id": Long(1)}, `a collection cannot be used as text at offset 2`},
	{"${0..id}", map[string]Value{"id": Long(1)}, `a collection cannot be used as text at offset 2`},
	{"${id}", map[string]Value{}, `no value bound to "id" at offset 2`},
	{"${id}", map[string]Value{"id": Null}, `"id" is bound to NULL at offset 2`},
	{"${id}", map[string]Value{"id": BigInteger("x1")}, `"id" is bound to an invalid BigInteger "x1" at offset 2`},
	{"${ts.hashCode()}", map[string]Value{"ts": Time(ts)}, `method "hashCode" is not supported on a Timestamp at offset 5: its value depends on the JVM time zone`},
	{"${[id].hashCode()}", map[string]Value{"id": Long(1)}, `method "hashCode" is not supported on a List at offset 7`},
	{"${id.hashCode()}", map[string]Value{"id": Decimal("1.2.3")}, `BigDecimal "1.2.3" is not a decimal number at offset 5`},
	{"${'a' < id}", map[string]Value{"id": Long(1)}, `cannot compare String with Long at offset 6`},
	{"${String.format('%d', id)}", map[string]Value{"id": String("1")}, `String.format: %d needs an integer, not String at offset 2`},
	{"${id == 1 ? [1] : 2}", map[string]Value{"id": Long(1)}, `a collection cannot be used as text at offset 2`},
	{"${+id}", map[string]Value{"id": String("1")}, `operator "+" is not supported for String at offset 2`},
	{"${[id].toString()}", map[string]Value{"id": Long(1)}, `a collection cannot be used as text at offset 7`},
	{"${id > 1}", map[string]Value{"id": Decimal("1E+9999")}, `cannot compare BigDecimal values this large at offset 5`},
	{"${id < ts}", map[string]Value{"id": Long(1), "ts": Time(ts)}, `cannot compare Long with Timestamp at offset 5`},
}

func TestInlineEvalErrors(t *testing.T) {
	for _, tc := range evalErrorCases {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := CompileInline(tc.expr)
			require.NoError(t, err)
			got, err := e.Eval(bindMap(tc.bind))
			require.EqualError(t, err, tc.err)
			require.Equal(t, "", got)
			var ie *InlineError
			require.True(t, errors.As(err, &ie))
		})
	}
}

func TestCompileInlineErrors(t *testing.T) {
	for _, tc := range []struct {
		expr string
		err  string
	}{
		{"<LITERAL>t_${id}", `inline expression type "<LITERAL>" cannot compute a sharding target at offset 0: remove the prefix`},
		{"<BAR>t_${id}", `unknown inline expression type "<BAR>" at offset 0: known types are <GROOVY> and <LITERAL>`},
		{"t_${id.foo()}", `unsupported method "foo" at offset 7`},
		{"t_${id / 2}", `unsupported operator "/" at offset 7: Groovy "/" on integers yields a BigDecimal; use .intdiv(n)`},
		{"t_\n${id}", `newline in expression text at offset 2`},
		{"t_${id.hashCode(1)}", `wrong number of arguments to "hashCode": want 0, got 1 at offset 7`},
		{"t_${Math.abs()}", `wrong number of arguments to "Math.abs": want 1, got 0 at offset 9`},
		{"t_${Math}", ``},
		{"t_${id.toString}", `unsupported property "toString" at offset 7`},
		{"t_${Math.PI}", `unsupported property "Math.PI" at offset 9`},
		{"t_${it}", `unsupported keyword "it" at offset 4`},
		{"t_${id.}", `unexpected "}" at offset 7: expected a method name`},
		{"t_${id ? 1}", `unexpected "}" at offset 10: expected ":"`},
		{"t_${id(1)}", `unexpected "(" at offset 6: expected "}"`},
		{"t_${in}", `unsupported keyword "in" at offset 4`},
		{`t_${'\u12'}`, `invalid unicode escape at offset 5`},
		{"t_${'a\nb'}", `newline in string literal at offset 6`},
		{"t_${\"a\nb\"}", `newline in string literal at offset 6`},
		{`t_${"a\`, `unterminated escape sequence at offset 6`},
		{"t_${1I2}", `unsupported number literal "1I2" at offset 4: only decimal integers (optionally with an L, G or I suffix) are supported`},
		{"t_${3000000000I}", `number literal "3000000000I" does not fit an Integer at offset 4`},
		{"t_${a.1}", `unexpected "1" at offset 6: expected a method name`},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := CompileInline(tc.expr)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.err)
		})
	}
}

func TestInlineExprIntrospection(t *testing.T) {
	e, err := CompileInline("t_${b % 2}_${a}_${b}")
	require.NoError(t, err)
	require.Equal(t, []string{"b", "a"}, e.Names())
	require.Equal(t, "t_${b % 2}_${a}_${b}", e.String())
	_, ok := e.Constant()
	require.False(t, ok)
	_, err = e.EvalValues([]Value{Long(1)})
	require.EqualError(t, err, `inline expression "t_${b % 2}_${a}_${b}" needs 2 values, got 1`)

	c, err := CompileInline("t_order_0")
	require.NoError(t, err)
	text, ok := c.Constant()
	require.True(t, ok)
	require.Equal(t, "t_order_0", text)
	require.Empty(t, c.Names())

	k, err := CompileInline(`${'a' + 'b'}`)
	require.NoError(t, err)
	_, ok = k.Constant()
	require.False(t, ok)
}

func TestInlineIntegerForm(t *testing.T) {
	type form struct {
		prefix string
		mod    int64
		column string
		ok     bool
	}
	for _, tc := range []struct {
		expr string
		want form
	}{
		{"t_order_${order_id % 16}", form{"t_order_", 16, "order_id", true}},
		{"t_order_$->{ order_id % 16 }", form{"t_order_", 16, "order_id", true}},
		{"${id % 4}", form{"", 4, "id", true}},
		{"ds_${(user_id % 2)}", form{"ds_", 2, "user_id", true}},
		{"ds_${user_id % 4294967296}", form{"ds_", 4294967296, "user_id", true}},
		{"t_${id % 4}_x", form{}},
		{"t_${id % -4}", form{}},
		{"t_${id % 0}", form{}},
		{"t_${id.hashCode() % 4}", form{}},
		{"t_${id % 4}${x}", form{}},
		{"t_${id % 4 + 1}", form{}},
		{"t_${id % 99999999999999999999}", form{}},
		{"t_order_0", form{}},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := CompileInline(tc.expr)
			require.NoError(t, err)
			var got form
			got.prefix, got.mod, got.column, got.ok = e.IntegerForm()
			require.Equal(t, tc.want, got)
		})
	}
}

// TestInlineEvalAllocs checks that integer arithmetic on Integer/Long
// values allocates nothing when the caller supplies the buffer.
func TestInlineEvalAllocs(t *testing.T) {
	e, err := CompileInline("t_${Math.abs(id.hashCode()) % 4}")
	require.NoError(t, err)
	values := []Value{Long(12345678901)}
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = e.AppendEval(buf[:0], values)
	})
	require.Zero(t, allocs)
}
