package runtime

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestJavaText(t *testing.T) {
	type userID int64
	type label string
	s := "x"
	var nilStr *string
	var nilValue *Value
	ts := time.Date(2024, 1, 2, 3, 4, 5, 120000000, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name string
		in   any
		want string
		null bool
	}{
		{"nil", nil, "", true},
		{"string", "hello", "hello", false},
		{"empty string", "", "", false},
		{"string null text", "null", "null", false},
		{"int64", int64(1000), "1000", false},
		{"int64 min", int64(math.MinInt64), "-9223372036854775808", false},
		{"int", -7, "-7", false},
		{"int32", int32(42), "42", false},
		{"int16", int16(-3), "-3", false},
		{"int8", int8(8), "8", false},
		{"uint64 beyond long", uint64(math.MaxUint64), "18446744073709551615", false},
		{"uint", uint(5), "5", false},
		{"uint32", uint32(6), "6", false},
		{"uint16", uint16(7), "7", false},
		{"uint8", uint8(9), "9", false},
		{"bool true", true, "true", false},
		{"bool false", false, "false", false},
		{"timestamp", ts, "2024-01-02 03:04:05.12", false},
		{"timestamp no fraction", time.Date(2024, 12, 31, 23, 59, 59, 0, time.UTC), "2024-12-31 23:59:59.0", false},
		{"timestamp nanos", time.Date(1999, 1, 1, 0, 0, 0, 123456789, time.UTC), "1999-01-01 00:00:00.123456789", false},
		{"float64", 100.0, "100.0", false},
		{"float32", float32(1.1), "1.1", false},
		{"Value Long", Long(1000), "1000", false},
		{"Value Int", Int(-1), "-1", false},
		{"Value String", String("abc"), "abc", false},
		{"Value Decimal", Decimal("0.0000001"), "1E-7", false},
		{"Value BigInteger", BigInteger("+0012345678901234567890"), "12345678901234567890", false},
		{"Value Time", Time(ts), "2024-01-02 03:04:05.12", false},
		{"Value Null", Null, "", true},
		{"*Value", &[]Value{Long(3)}[0], "3", false},
		{"nil *Value", nilValue, "", true},
		{"NullString valid", sql.NullString{String: "a", Valid: true}, "a", false},
		{"NullString null", sql.NullString{}, "", true},
		{"NullInt64", sql.NullInt64{Int64: 12, Valid: true}, "12", false},
		{"NullTime", sql.NullTime{Time: ts, Valid: true}, "2024-01-02 03:04:05.12", false},
		{"*sql.NullString nil", (*sql.NullString)(nil), "", true},
		{"pointer", &s, "x", false},
		{"nil pointer", nilStr, "", true},
		{"named int64", userID(77), "77", false},
		{"named string", label("l"), "l", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, null, err := JavaText(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.null, null)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestJavaTextErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		err  string
	}{
		{"bytes", []byte("x"), "cannot encrypt a []byte: ShardingSphere encrypts String.valueOf(value), which for byte[] is not its content; pass a string"},
		{"struct", struct{}{}, "cannot encrypt a struct {}: no Java text for it (pass a string, integer, float, bool, time.Time or runtime.Value)"},
		{"bad decimal", Decimal("1.2.3"), `BigDecimal "1.2.3" is not a decimal number`},
		{"bad big integer", BigInteger("12a"), `BigInteger "12a" is not an integer`},
		{"bad kind", Value{Kind: 99}, "cannot encrypt a value of kind ValueKind(99)"},
		{"valuer error", badValuer{}, "cannot encrypt a runtime.badValuer: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := JavaText(tc.in)
			require.EqualError(t, err, tc.err)
		})
	}
}

type badValuer struct{}

func (badValuer) Value() (driver.Value, error) { return nil, errors.New("boom") }

// TestBigDecimalText checks BigDecimal.toString of new BigDecimal(text);
// the expectations are Java's.
func TestBigDecimalText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10.50", "10.50"},
		{"0", "0"},
		{"-0.00", "0.00"},
		{"007.50", "7.50"},
		{"+1", "1"},
		{"1.", "1"},
		{".5", "0.5"},
		{"-1.5", "-1.5"},
		{"1E+3", "1E+3"},
		{"1e3", "1E+3"},
		{"-12E+5", "-1.2E+6"},
		{"123.456e2", "12345.6"},
		{"1.23E-10", "1.23E-10"},
		{"0.000001", "0.000001"},
		{"0.0000001", "1E-7"},
		{"0.0000001000", "1.000E-7"},
		{"0E-10", "0E-10"},
		{"0E+3", "0E+3"},
		{"12345678901234567890.12", "12345678901234567890.12"},
		{"1E0", "1"},
		{"12.5E1", "125"},
	} {
		got, ok := bigDecimalText(tc.in)
		require.True(t, ok, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"", "-", ".", "1e", "1e+", "a", "1 ", "1e99999999999"} {
		_, ok := bigDecimalText(bad)
		require.False(t, ok, bad)
	}
}

// TestJavaFloatText checks Double.toString and Float.toString (JDK 19+);
// the expectations are Java's.
func TestJavaFloatText(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // variables: constant 0.1+0.2 is exactly 0.3
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{1, "1.0"},
		{100, "100.0"},
		{-2.5, "-2.5"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{0.001, "0.001"},
		{0.002, "0.002"},
		{0.0001, "1.0E-4"},
		{1.5e-5, "1.5E-5"},
		{9999999, "9999999.0"},
		{1e7, "1.0E7"},
		{123456789, "1.23456789E8"},
		{1e21, "1.0E21"},
		{tenth + fifth, "0.30000000000000004"},
		{123.456, "123.456"},
		{math.SmallestNonzeroFloat64, "4.9E-324"},
		{math.MaxFloat64, "1.7976931348623157E308"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
	} {
		require.Equal(t, tc.want, javaFloatText(tc.in, 64), "%v", tc.in)
	}
	for _, tc := range []struct {
		in   float32
		want string
	}{
		{1.1, "1.1"},
		{0.1, "0.1"},
		{1e10, "1.0E10"},
		{math.MaxFloat32, "3.4028235E38"},
		{math.SmallestNonzeroFloat32, "1.4E-45"},
		{-33.25, "-33.25"},
	} {
		require.Equal(t, tc.want, javaFloatText(float64(tc.in), 32), "%v", tc.in)
	}
}

func TestNewEncryptorErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		typ   string
		props Props
		err   string
	}{
		{"unknown type", "FOO", nil, `unknown encryptor type "FOO" (known: AES, MD5, CHAR_DIGEST_LIKE, RC4)`},
		{"SM3", "sm3", nil, `encryptor type "sm3" is not supported: SM3 is not in Go's standard library and shardgen does not hand-roll cryptographic primitives`},
		{"SM4", "SM4", Props{"sm4-key": "00"}, `encryptor type "SM4" is not supported: SM4 is not in Go's standard library and shardgen does not hand-roll cryptographic primitives`},
		{"AES without key", "AES", nil, `property "aes-key-value" is required`},
		{"AES empty key", "AES", Props{"aes-key-value": ""}, `property "aes-key-value" is required`},
		{"AES bad digest", "AES", Props{"aes-key-value": "k", "digest-algorithm-name": "MD2"}, `property "digest-algorithm-name" names unknown digest "MD2" (known: MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224, SHA-512/256, SHA3-224, SHA3-256, SHA3-384, SHA3-512)`},
		{"AES unset env", "AES", Props{"aes-key-value": "${env:SHARDGEN_TEST_UNSET_KEY}"}, `property "aes-key-value" cannot be expanded: ${env:SHARDGEN_TEST_UNSET_KEY}: environment variable "SHARDGEN_TEST_UNSET_KEY" is not set and has no default`},
		{"MD5 bad env ref", "MD5", Props{"salt": "${env:1X}"}, `property "salt" cannot be expanded: ${env:1X}: invalid environment variable name "1X" (want a letter or '_' followed by letters, digits or '_')`},
		{"like hex delta", "CHAR_DIGEST_LIKE", Props{"delta": "0x1"}, `property "delta" must be a decimal integer in Java int range, got "0x1"`},
		{"like mask too big", "CHAR_DIGEST_LIKE", Props{"mask": "4294967296"}, `property "mask" must be a decimal integer in Java int range, got "4294967296"`},
		{"like start text", "CHAR_DIGEST_LIKE", Props{"start": "abc"}, `property "start" must be a decimal integer in Java int range, got "abc"`},
		{"RC4 no key", "RC4", nil, `property "rc4-key-value" must be 5 to 255 bytes long, got 0`},
		{"RC4 short key", "RC4", Props{"rc4-key-value": "test"}, `property "rc4-key-value" must be 5 to 255 bytes long, got 4`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEncryptor(tc.typ, tc.props)
			require.Nil(t, e)
			require.EqualError(t, err, tc.err)
		})
	}
}

func TestNewEncryptorPropErrorType(t *testing.T) {
	_, err := NewEncryptor("AES", Props{})
	var pe *PropError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "aes-key-value", pe.Prop)
}

func TestEncryptorSupports(t *testing.T) {
	for _, tc := range []struct {
		typ   string
		props Props
		want  EncryptSupport
		text  string
	}{
		{"AES", Props{"aes-key-value": "k"}, SupportDecrypt | SupportEquality, "decrypt|equality"},
		{"aes", Props{"aes-key-value": "k"}, SupportDecrypt | SupportEquality, "decrypt|equality"},
		{"MD5", nil, SupportEquality, "equality"},
		{"CHAR_DIGEST_LIKE", nil, SupportLike, "like"},
		{"RC4", Props{"rc4-key-value": "test-sharding"}, SupportDecrypt | SupportEquality, "decrypt|equality"},
	} {
		e, err := NewEncryptor(tc.typ, tc.props)
		require.NoError(t, err)
		require.Equal(t, tc.want, e.Supports(), tc.typ)
		require.Equal(t, tc.text, e.Supports().String())
		js, err := json.Marshal(e.Supports())
		require.NoError(t, err)
		require.Equal(t, `"`+tc.text+`"`, string(js))
	}
	require.Equal(t, "none", EncryptSupport(0).String())
	require.Equal(t, "like|EncryptSupport(8)", (SupportLike | 8).String())
	require.True(t, (SupportDecrypt | SupportEquality).Has(SupportEquality))
	require.False(t, SupportEquality.Has(SupportDecrypt|SupportEquality))
}

// TestEncryptNull checks that NULL stays NULL for every type: nil out, never
// the string "null".
func TestEncryptNull(t *testing.T) {
	for _, tc := range []struct {
		typ   string
		props Props
	}{
		{"AES", Props{"aes-key-value": "k"}},
		{"MD5", Props{"salt": "s"}},
		{"CHAR_DIGEST_LIKE", nil},
		{"RC4", Props{"rc4-key-value": "test-sharding"}},
	} {
		e, err := NewEncryptor(tc.typ, tc.props)
		require.NoError(t, err)
		require.Equal(t, tc.typ, e.Type())
		for _, null := range []any{nil, Null, sql.NullString{}, (*string)(nil)} {
			got, err := e.Encrypt(null)
			require.NoError(t, err)
			require.Nil(t, got, "%s %#v", tc.typ, null)
		}
		_, err = e.Encrypt([]byte("x"))
		require.EqualError(t, err, "cannot encrypt a []byte: ShardingSphere encrypts String.valueOf(value), which for byte[] is not its content; pass a string")
	}
}

func TestNotDecryptable(t *testing.T) {
	for _, tc := range []struct {
		typ string
		err string
	}{
		{"MD5", "MD5: encryptor cannot decrypt"},
		{"CHAR_DIGEST_LIKE", "CHAR_DIGEST_LIKE: encryptor cannot decrypt"},
	} {
		e, err := NewEncryptor(tc.typ, nil)
		require.NoError(t, err)
		_, err = e.Decrypt("abc")
		require.EqualError(t, err, tc.err)
		require.ErrorIs(t, err, ErrNotDecryptable)
	}
}

// FuzzBigDecimalText checks that BigDecimal text read back gives the same
// unscaled value and scale, as Java's new BigDecimal(d.toString()) does.
func FuzzBigDecimalText(f *testing.F) {
	for _, s := range []string{"10.50", "-0.00", "1E+3", "0.0000001000", "-12E+5", ".5", "1.", "0E-10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, ok := bigDecimalText(s)
		if !ok {
			return
		}
		u1, sc1, _ := parseJavaBigDecimal(s)
		u2, sc2, ok2 := parseJavaBigDecimal(out)
		require.True(t, ok2, "%q → %q", s, out)
		require.Equal(t, sc1, sc2, "%q → %q", s, out)
		require.Zero(t, u1.Cmp(u2), "%q → %q", s, out)
	})
}

// FuzzJavaFloatText checks that the Java text of a double reads back as
// the same double.
func FuzzJavaFloatText(f *testing.F) {
	for _, x := range []float64{1, 0.1, 1e7, 1e-3, 123456789, math.SmallestNonzeroFloat64, math.MaxFloat64} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		s := javaFloatText(x, 64)
		back, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, s)
		require.Equal(t, x, back, s)
		s32 := javaFloatText(float64(float32(x)), 32)
		back32, err := strconv.ParseFloat(s32, 32)
		if !math.IsInf(float64(float32(x)), 0) {
			require.NoError(t, err, s32)
			require.Equal(t, float32(x), float32(back32), s32)
		}
	})
}
