package runtime

import (
	"errors"
	"math"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
)

// Every hash below was printed by OpenJDK 17 for the same Java object
// (x.hashCode() and Math.abs((long) x.hashCode()) % 4); the first nine rows
// are the spec's vectors (../shared/spec/shardingsphere.md §3.3).
var javaHashVectors = []struct {
	name string
	v    Value
	hash int32
	mod4 int64 // HASH_MOD with sharding-count 4
}{
	{"String a", String("a"), 97, 1},
	{"Integer 100", Int(100), 100, 0},
	{"Long 100", Long(100), 100, 0},
	{"String 100", String("100"), 48625, 1},
	{"Integer -7", Int(-7), -7, 3},
	{"Long -7", Long(-7), 6, 2},
	{"Long 12345678901", Long(12345678901), -539222985, 1},
	{"String 13800138000", String("13800138000"), 1430905456, 0},
	{"BigDecimal 10.5", Decimal("10.5"), 3256, 0},

	{"Integer MIN_VALUE", Int(math.MinInt32), math.MinInt32, 0},
	{"Long MIN_VALUE", Long(math.MinInt64), math.MinInt32, 0},
	{"Long -1", Long(-1), 0, 0},
	{"empty String", String(""), 0, 0},
	{"String é (one UTF-16 unit)", String("é"), 233, 1},
	{"String 😀 (surrogate pair)", String("😀"), 1772899, 3},
	{"String 中文", String("中文"), 646394, 2},
	{"String overflowing int", String("Hello, World"), -505841268, 0},
	{"BigInteger three words", BigInteger("12345678901234567890123"), -2057333646, 2},
	{"BigInteger negative", BigInteger("-12345678901234567890123"), 2057333646, 2},
	{"BigInteger 2^32", BigInteger("4294967296"), 31, 3},
	{"BigInteger -1", BigInteger("-1"), -1, 1},
	{"BigInteger 0", BigInteger("0"), 0, 0},
	{"BigInteger +42", BigInteger("+42"), 42, 2},
	{"BigDecimal 10.50 (scale 2)", Decimal("10.50"), 32552, 0},
	{"BigDecimal -10.5", Decimal("-10.5"), -3254, 2},
	{"BigDecimal 1E+3 (scale -3)", Decimal("1E+3"), 28, 0},
	{"BigDecimal 1.5E+3", Decimal("1.5E+3"), 463, 3},
	{"BigDecimal -1.25e-2", Decimal("-1.25e-2"), -3871, 3},
	{"BigDecimal 0.000", Decimal("0.000"), 3, 3},
	{"BigDecimal -0.0", Decimal("-0.0"), 1, 1},
	{"BigDecimal .5", Decimal(".5"), 156, 0},
	{"BigDecimal 5.", Decimal("5."), 155, 3},
	{"BigDecimal +7", Decimal("+7"), 217, 1},
	{"BigDecimal wide", Decimal("123456789012345678901234.5"), 292950206, 2},
	{"BigDecimal 2^63", Decimal("9223372036854775808"), math.MinInt32, 0},
	{"Timestamp 2021-07-01T00:00:01.123Z", Time(time.Date(2021, 7, 1, 0, 0, 1, 123456789, time.UTC)), 1599963417, 1},
	{"Timestamp before 1970", Time(time.Date(1960, 1, 1, 0, 0, 0, 500000000, time.UTC)), 2086586946, 2},
}

func TestJavaHashCode(t *testing.T) {
	for _, tc := range javaHashVectors {
		t.Run(tc.name, func(t *testing.T) {
			h, err := JavaHashCode(tc.v)
			require.NoError(t, err)
			require.Equal(t, tc.hash, h)
		})
	}
}

func TestJavaHashCodeErrors(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Null, "sharding value must not be NULL"},
		{BigInteger("12a"), `BigInteger "12a" is not a decimal integer`},
		{BigInteger(""), `BigInteger "" is not a decimal integer`},
		{BigInteger("1.0"), `BigInteger "1.0" is not a decimal integer`},
		{Decimal("1.2.3"), `BigDecimal "1.2.3" is not a decimal number`},
		{Decimal(""), `BigDecimal "" is not a decimal number`},
		{Decimal("."), `BigDecimal "." is not a decimal number`},
		{Decimal("1e"), `BigDecimal "1e" is not a decimal number`},
		{Decimal("1e99999999999"), `BigDecimal "1e99999999999" is not a decimal number`},
		{Decimal(" 1"), `BigDecimal " 1" is not a decimal number`},
		{Value{Kind: 99}, "sharding value of unknown kind ValueKind(99)"},
	} {
		_, err := JavaHashCode(tc.v)
		require.EqualError(t, err, tc.want)
	}
	_, err := JavaHashCode(Null)
	require.True(t, errors.Is(err, ErrNullShardingValue))
}

// Java's Number.longValue() of BigInteger and BigDecimal values, printed by
// OpenJDK 17.
func TestJavaLongValue(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want int64
	}{
		{Decimal("10.9"), 10},
		{Decimal("-10.9"), -10},
		{Decimal("-0.9"), 0},
		{Decimal("-1.5E+2"), -150},
		{Decimal("1E+30"), 5076944270305263616},
		{Decimal("-123456789012345678901.7"), 5670419503621182411},
		{Decimal("1E+64"), 0},
		{Decimal("3E+63"), math.MinInt64},
		{BigInteger("18446744073709551621"), 5},
		{BigInteger("-18446744073709551621"), -5},
		{Long(-3), -3},
	} {
		got, ok := javaLongValue(tc.v)
		require.True(t, ok, tc.v.Str)
		require.Equal(t, tc.want, got, tc.v.Str)
	}
	_, ok := javaLongValue(Decimal("x"))
	require.False(t, ok)
}

func TestDecimalMod(t *testing.T) {
	for _, tc := range []struct {
		s    string
		m    int64
		want int64
		ok   bool
	}{
		{"-7", 4, 1, true},
		{"+7", 4, 3, true},
		{"-0", 4, 0, true},
		{"-8", 4, 0, true},
		{"00017", 16, 1, true},
		{"12345678910111213141516", 16, 12, true},
		{"234567891011121314151", 16, 7, true},
		{"-9223372036854775808", 7, 6, true},
		{"", 4, 0, false},
		{"-", 4, 0, false},
		{"1a", 4, 0, false},
		{"1 ", 4, 0, false},
		{"１", 4, 0, false}, // fullwidth digit: Java accepts it, we do not
	} {
		got, ok := decimalMod(tc.s, tc.m)
		require.Equal(t, tc.ok, ok, tc.s)
		require.Equal(t, tc.want, got, tc.s)
	}
}

func TestJavaStringHelpers(t *testing.T) {
	require.Equal(t, 0, javaStringLength(""))
	require.Equal(t, 3, javaStringLength("abc"))
	require.Equal(t, 3, javaStringLength("😀a"))
	require.Equal(t, 2, javaStringLength("中文"))
	require.Equal(t, "bc", javaSubstring("abc", 1, 3))
	require.Equal(t, "😀", javaSubstring("a😀b", 1, 3))
	require.Equal(t, "b", javaSubstring("a😀b", 3, 4))
	require.Equal(t, "中", javaSubstring("中文", 0, 1))
	require.Equal(t, "", javaSubstring("中文", 2, 2))
}

// javaStringHash agrees with String.hashCode's definition over the UTF-16
// encoding, for any text; seeded with the table's strings.
func FuzzJavaStringHash(f *testing.F) {
	for _, tc := range javaHashVectors {
		if tc.v.Kind == KindString {
			f.Add(tc.v.Str)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want int32
		for _, u := range utf16.Encode([]rune(s)) {
			want = 31*want + int32(u)
		}
		require.Equal(t, want, javaStringHash(s))
		require.Equal(t, len(utf16.Encode([]rune(s))), javaStringLength(s))
	})
}
