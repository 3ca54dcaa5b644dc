package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRC4 checks ShardingSphere 5.x RC4EncryptAlgorithmTest's vector.
func TestRC4(t *testing.T) {
	e, err := NewEncryptor("RC4", Props{"rc4-key-value": "test-sharding"})
	require.NoError(t, err)
	got, err := e.Encrypt("test")
	require.NoError(t, err)
	require.Equal(t, "4Tn7lQ==", got)
	// the key stream restarts for every value
	require.Equal(t, "4Tn7lQ==", e.EncryptText("test"))
	for _, in := range []string{"4Tn7lQ==", "4Tn7lQ", " 4Tn7\nlQ== ", "4Tn7lQ==junk"} {
		plain, err := e.Decrypt(in)
		require.NoError(t, err)
		require.Equal(t, "test", plain, in)
	}
	for _, plain := range []string{"", "a", "hello world", strings.Repeat("中", 50)} {
		back, err := e.Decrypt(e.EncryptText(plain))
		require.NoError(t, err)
		require.Equal(t, plain, back)
	}
	_, err = NewEncryptor("RC4", Props{"rc4-key-value": strings.Repeat("test", 100)})
	require.EqualError(t, err, `property "rc4-key-value" must be 5 to 255 bytes long, got 400`)
}

func TestDecodeCodecBase64(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"aGVsbG8=", "hello"},
		{"aGVsbG8", "hello"},
		{"aGVs\r\nbG8=", "hello"},
		{"-_-_", "\xfb\xff\xbf"},
		{"+/+/", "\xfb\xff\xbf"},
		{"a", ""},
		{"", ""},
	} {
		require.Equal(t, tc.want, string(decodeCodecBase64(tc.in)), tc.in)
	}
}
