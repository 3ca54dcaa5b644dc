package runtime

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUUIDText(t *testing.T) {
	// Expected values are Java's new UUID(msb, lsb).toString().replace("-", "").
	tests := []struct {
		msb, lsb uint64
		want     string
	}{
		{0, 0, "00000000000000000000000000000000"},
		{1, 2, "00000000000000010000000000000002"},
		{0x0123456789abcdef, 0xfedcba9876543210, "0123456789abcdeffedcba9876543210"},
		{^uint64(0), ^uint64(0), "ffffffffffffffffffffffffffffffff"},
		{1 << 63, 0xf, "8000000000000000000000000000000f"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, uuidText(tt.msb, tt.lsb))
	}
}

func TestUUIDGenerate(t *testing.T) {
	kg, err := NewKeyGenerator("uuid", Props{"ignored": "x"})
	require.NoError(t, err)
	require.Equal(t, "UUID", kg.Type())
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 10000 {
		v, err := kg.Generate()
		require.NoError(t, err)
		require.Equal(t, KindString, v.Kind)
		require.Regexp(t, hex32, v.Str)
		require.False(t, seen[v.Str], "duplicate %s", v.Str)
		seen[v.Str] = true
	}
}

func TestNewKeyGeneratorUnknown(t *testing.T) {
	_, err := NewKeyGenerator("COSID", nil)
	require.EqualError(t, err, `unknown key generator type "COSID" (known: SNOWFLAKE, UUID)`)
}

func BenchmarkUUID(b *testing.B) {
	kg, err := NewKeyGenerator("UUID", nil)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := kg.Generate(); err != nil {
			b.Fatal(err)
		}
	}
}
