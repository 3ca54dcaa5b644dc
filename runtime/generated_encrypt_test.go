package runtime

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecryptString(t *testing.T) {
	aes, err := NewEncryptor("AES", Props{"aes-key-value": "123456abc"})
	require.NoError(t, err)
	md5, err := NewEncryptor("MD5", nil)
	require.NoError(t, err)
	tests := []struct {
		name string
		e    Encryptor
		in   string
		want string
		err  string
	}{
		{"spec vector", aes, "CxlvIvN1rRziSGk+hcqy6w==", "hello", ""},
		{"empty", aes, "", "", ""},
		{"not base64", aes, "!!", "!!", `decrypt column "name": AES decrypt: cipher text is not Base64: bad input at byte 0`},
		{"one-way", md5, "abc", "abc", `decrypt column "name": MD5: encryptor cannot decrypt`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.in
			err := DecryptString(tt.e, "name", &s)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				var de *DecryptError
				require.True(t, errors.As(err, &de))
				require.Equal(t, "name", de.Column)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.want, s)
		})
	}
}

func TestDecryptNullString(t *testing.T) {
	aes, err := NewEncryptor("AES", Props{"aes-key-value": "123456abc"})
	require.NoError(t, err)
	null := sql.NullString{}
	require.NoError(t, DecryptNullString(aes, "name", &null))
	require.Equal(t, sql.NullString{}, null)
	v := sql.NullString{String: "CxlvIvN1rRziSGk+hcqy6w==", Valid: true}
	require.NoError(t, DecryptNullString(aes, "name", &v))
	require.Equal(t, sql.NullString{String: "hello", Valid: true}, v)
	md5, err := NewEncryptor("MD5", nil)
	require.NoError(t, err)
	require.ErrorIs(t, DecryptNullString(md5, "name", &v), ErrNotDecryptable)
}
