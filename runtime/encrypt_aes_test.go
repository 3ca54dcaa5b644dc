package runtime

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAESVectors checks every vector of spec §5.A byte for byte, plus
// vectors made with `openssl enc -aes-128-ecb` from the same derived key.
func TestAESVectors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		props  Props
		plain  any
		cipher string
	}{
		// spec §5.A, key "123456abc", digest SHA-1 (default)
		{"hello", Props{"aes-key-value": "123456abc"}, "hello", "CxlvIvN1rRziSGk+hcqy6w=="},
		{"phone", Props{"aes-key-value": "123456abc"}, "13800138000", "U08fr/IA0IKZ+RG/NurTiA=="},
		{"empty", Props{"aes-key-value": "123456abc"}, "", "CrZkuFZyp9Dz8RCciozH6A=="},
		{"SS yang", Props{"aes-key-value": "123456abc"}, "yang", "zeqc7uDyv9tT/3cvl2rJzg=="},
		{"SS test_user", Props{"aes-key-value": "123456abc"}, "test_user", "o07WOpLlazifLKU747nd8w=="},
		{"SS admin123", Props{"aes-key-value": "123456abc"}, "admin123", "beO6rTHBW9jmVeSPPb62QA=="},
		{"SS email", Props{"aes-key-value": "123456abc"}, "admin@gmail.com", "zclI1Wk2uaVYHyNckTRYzA=="},
		{"SS key test", Props{"aes-key-value": "test", "digest-algorithm-name": "SHA-1"}, "test", "dSpPiyENQGDUXMKFMJPGWA=="},
		// digest name is upper-cased, SHA and SHA1 are Java aliases of SHA-1
		{"lower-case digest", Props{"aes-key-value": "123456abc", "digest-algorithm-name": "sha-1"}, "hello", "CxlvIvN1rRziSGk+hcqy6w=="},
		{"alias SHA", Props{"aes-key-value": "123456abc", "digest-algorithm-name": "SHA"}, "hello", "CxlvIvN1rRziSGk+hcqy6w=="},
		{"alias SHA1", Props{"aes-key-value": "123456abc", "digest-algorithm-name": "SHA1"}, "hello", "CxlvIvN1rRziSGk+hcqy6w=="},
		// openssl: key = first 16 bytes of SHA-256("123456abc")
		{"SHA-256", Props{"aes-key-value": "123456abc", "digest-algorithm-name": "SHA-256"}, "hello", "no/8k0l6on+nAA9aF9bfwQ=="},
		// openssl, SHA-1 key: multi-byte UTF-8, a full block (16 bytes of padding), several blocks
		{"chinese", Props{"aes-key-value": "123456abc"}, "中文测试", "IkpyjoWzJy9MvC+psfxPgQ=="},
		{"one block", Props{"aes-key-value": "123456abc"}, "0123456789abcdef", "7IpSj/X8M2yXNHacR8f6fAq2ZLhWcqfQ8/EQnIqMx+g="},
		{"long", Props{"aes-key-value": "123456abc"}, strings.Repeat("a", 74), "E0GJrIHf7SuJPUqhWQxXvBNBiayB3+0riT1KoVkMV7wTQYmsgd/tK4k9SqFZDFe8E0GJrIHf7SuJPUqhWQxXvNn0Q1UzQX3rjFU5C/mB3Mo="},
		// Java text of non-string values: Long 1000 is "1000"
		{"Long", Props{"aes-key-value": "123456abc"}, int64(1000), "lu87Uc9Z6mOocjIkKH3/QQ=="},
		{"Value Long", Props{"aes-key-value": "123456abc"}, Long(1000), "lu87Uc9Z6mOocjIkKH3/QQ=="},
		{"Decimal", Props{"aes-key-value": "123456abc"}, Decimal("1E+3"), mustAES(t, "123456abc", "1E+3")},
		{"Timestamp", Props{"aes-key-value": "123456abc"}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), mustAES(t, "123456abc", "2024-01-02 03:04:05.0")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEncryptor("AES", tc.props)
			require.NoError(t, err)
			got, err := e.Encrypt(tc.plain)
			require.NoError(t, err)
			require.Equal(t, tc.cipher, got)
			text, _, err := JavaText(tc.plain)
			require.NoError(t, err)
			require.Equal(t, tc.cipher, e.EncryptText(text))
			plain, err := e.Decrypt(tc.cipher)
			require.NoError(t, err)
			require.Equal(t, text, plain)
		})
	}
}

func mustAES(t *testing.T, key, plain string) string {
	t.Helper()
	e, err := NewEncryptor("AES", Props{"aes-key-value": key})
	require.NoError(t, err)
	return e.EncryptText(plain)
}

// TestAESKey checks the derived key of spec §5.A.
func TestAESKey(t *testing.T) {
	sum := sha1.Sum([]byte("123456abc"))
	require.Equal(t, "a172ffc990129fe6f68b50f6037c54a1", hex.EncodeToString(sum[:16]))
}

func TestAESEnvKey(t *testing.T) {
	t.Setenv("SHARDGEN_TEST_AES_KEY", "123456abc")
	for _, key := range []string{"${env:SHARDGEN_TEST_AES_KEY}", "${env:SHARDGEN_TEST_UNSET_AES:-123456abc}", "123${env:SHARDGEN_TEST_EMPTY:-456}abc"} {
		e, err := NewEncryptor("AES", Props{"aes-key-value": key})
		require.NoError(t, err, key)
		require.Equal(t, "CxlvIvN1rRziSGk+hcqy6w==", e.EncryptText("hello"), key)
	}
	// A key that is not all spaces is used as written (Java does not trim it).
	e, err := NewEncryptor("AES", Props{"aes-key-value": " 123456abc"})
	require.NoError(t, err)
	require.NotEqual(t, "CxlvIvN1rRziSGk+hcqy6w==", e.EncryptText("hello"))
}

func TestAESDecrypt(t *testing.T) {
	e, err := NewEncryptor("AES", Props{"aes-key-value": "123456abc"})
	require.NoError(t, err)
	for _, tc := range []struct{ in, want string }{
		{"CxlvIvN1rRziSGk+hcqy6w==", "hello"},
		{"  CxlvIvN1rRziSGk+hcqy6w==\t\n", "hello"}, // String.trim
		{"CxlvIvN1rRziSGk+hcqy6w", "hello"},         // Java's decoder: padding optional
		{"", ""},                                    // zero blocks decrypt to "" in Java
		{"   ", ""},
	} {
		got, err := e.Decrypt(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got)
	}
	other, err := NewEncryptor("AES", Props{"aes-key-value": "another-key"})
	require.NoError(t, err)
	for _, tc := range []struct{ in, err string }{
		{"CxlvIvN1rRzi\r\nSGk+hcqy6w==", "AES decrypt: cipher text is not Base64: it contains a line break"},
		{"CxlvIvN1rRziSGk+hcqy6w=", "AES decrypt: cipher text is not Base64: bad input at byte 23"},
		{"Cxlv*vN1rRziSGk+hcqy6w==", "AES decrypt: cipher text is not Base64: bad input at byte 4"},
		{"aGVsbG8=", "AES decrypt: cipher text is 5 bytes, not a multiple of 16"},
		{other.EncryptText("hello"), "AES decrypt: bad padding (wrong key, or not an AES cipher text)"},
	} {
		_, err := e.Decrypt(tc.in)
		require.EqualError(t, err, tc.err, tc.in)
		require.NotContains(t, err.Error(), "123456abc")
	}
}

// TestAESRoundTrip encrypts and decrypts texts of every length around the
// block and stack buffer sizes.
func TestAESRoundTrip(t *testing.T) {
	e, err := NewEncryptor("AES", Props{"aes-key-value": "k", "digest-algorithm-name": "SHA3-256"})
	require.NoError(t, err)
	for n := 0; n <= 100; n++ {
		plain := strings.Repeat("é", n/2) + strings.Repeat("x", n%2)
		c := e.EncryptText(plain)
		got, err := e.Decrypt(c)
		require.NoError(t, err)
		require.Equal(t, plain, got)
	}
}

func TestAESDigests(t *testing.T) {
	seen := map[string]string{}
	for name := range aesDigests {
		e, err := NewEncryptor("AES", Props{"aes-key-value": "123456abc", "digest-algorithm-name": name})
		require.NoError(t, err, name)
		c := e.EncryptText("hello")
		switch name {
		case "SHA", "SHA1", "SHA-1":
			require.Equal(t, "CxlvIvN1rRziSGk+hcqy6w==", c)
			continue
		}
		require.NotContains(t, seen, c, name)
		seen[c] = name
	}
}

// BenchmarkAESEncrypt measures the encryption step of an 11-character value
// (a phone number): EncryptText, as generated code calls it for a string,
// and Encrypt with a boxed int64.
func BenchmarkAESEncrypt(b *testing.B) {
	e, err := NewEncryptor("AES", Props{"aes-key-value": "123456abc"})
	require.NoError(b, err)
	b.Run("text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = e.EncryptText("13800138000")
		}
	})
	b.Run("int64", func(b *testing.B) {
		b.ReportAllocs()
		v := any(int64(13800138000))
		for b.Loop() {
			_, _ = e.Encrypt(v)
		}
	})
	b.Run("decrypt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = e.Decrypt("U08fr/IA0IKZ+RG/NurTiA==")
		}
	})
}
