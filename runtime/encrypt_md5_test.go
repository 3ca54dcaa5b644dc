package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMD5Vectors checks every vector of spec §5.B byte for byte.
func TestMD5Vectors(t *testing.T) {
	for _, tc := range []struct {
		salt  string
		plain any
		want  string
	}{
		{"", "hello", "5d41402abc4b2a76b9719d911017c592"},
		{"123456", "hello", "eeb9bad681184779aa6570e402d6ef6c"},
		{"", "13800138000", "7945bd83237335e5376ff44d62e4f0ae"},
		{"123456", "13800138000", "e7d341c6253c8c3f0d15517da52b1466"},
		{"", "", "d41d8cd98f00b204e9800998ecf8427e"},
		{"123456", "", "e10adc3949ba59abbe56e057f20f883e"},
		{"", "test", "098f6bcd4621d373cade4e832627b4f6"},
		{"202cb962ac5907", "test", "0c243d2934937738f36514035d95344a"},
		// String.valueOf: the Long 13800138000 hashes like its text
		{"", int64(13800138000), "7945bd83237335e5376ff44d62e4f0ae"},
		{"123456", Long(13800138000), "e7d341c6253c8c3f0d15517da52b1466"},
	} {
		e, err := NewEncryptor("MD5", Props{"salt": tc.salt})
		require.NoError(t, err)
		got, err := e.Encrypt(tc.plain)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%v + %q", tc.plain, tc.salt)
	}
}

func TestMD5NoProps(t *testing.T) {
	e, err := NewEncryptor("md5", nil)
	require.NoError(t, err)
	require.Equal(t, "MD5", e.Type())
	require.Equal(t, "5d41402abc4b2a76b9719d911017c592", e.EncryptText("hello"))
}

func TestMD5EnvSalt(t *testing.T) {
	t.Setenv("SHARDGEN_TEST_SALT", "123456")
	e, err := NewEncryptor("MD5", Props{"salt": "${env:SHARDGEN_TEST_SALT}"})
	require.NoError(t, err)
	require.Equal(t, "eeb9bad681184779aa6570e402d6ef6c", e.EncryptText("hello"))
}

// TestMD5Long crosses the stack buffer size.
func TestMD5Long(t *testing.T) {
	e, err := NewEncryptor("MD5", Props{"salt": strings.Repeat("s", 40)})
	require.NoError(t, err)
	short, err := NewEncryptor("MD5", nil)
	require.NoError(t, err)
	for n := 0; n < 80; n++ {
		plain := strings.Repeat("p", n)
		require.Equal(t, short.EncryptText(plain+strings.Repeat("s", 40)), e.EncryptText(plain))
	}
}

// BenchmarkMD5 measures the assisted-query step of an 11-character value.
func BenchmarkMD5(b *testing.B) {
	e, err := NewEncryptor("MD5", Props{"salt": "123456"})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		_ = e.EncryptText("13800138000")
	}
}
