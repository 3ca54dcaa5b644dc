package runtime

import (
	"crypto/md5"
	"encoding/hex"
)

// MD5Encryptor is ShardingSphere's MD5 encrypt algorithm: the lower-case hex
// MD5 digest (32 characters) of UTF-8(String.valueOf(value) + salt).
//
// Props: salt (default "", not trimmed; `${env:NAME}` expanded by
// NewEncryptor).
//
// Supports: equality only. 5.4+ allows MD5 only for assisted-query columns
// (its decrypt throws); 5.1's MD5 "decrypt" returned the cipher text
// unchanged, which a 5.1 plan handles by reading the cipher column as is.
// Decrypt here always returns ErrNotDecryptable.
//
// Source: ShardingSphere MD5EncryptAlgorithm / MD5AssistedEncryptAlgorithm;
// spec §5.B;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/encrypt/
type MD5Encryptor struct {
	salt string
}

var _ Encryptor = (*MD5Encryptor)(nil)

func newMD5Encryptor(props Props) *MD5Encryptor {
	return &MD5Encryptor{salt: props["salt"]}
}

// Type returns "MD5".
func (e *MD5Encryptor) Type() string { return "MD5" }

// Supports returns SupportEquality.
func (e *MD5Encryptor) Supports() EncryptSupport { return SupportEquality }

// Encrypt returns the hex digest (a string) of JavaText(v) + salt, or nil
// for NULL.
func (e *MD5Encryptor) Encrypt(v any) (any, error) {
	text, null, err := JavaText(v)
	if err != nil || null {
		return nil, err
	}
	return e.EncryptText(text), nil
}

// md5StackBytes is the plain text + salt size hashed without a heap buffer.
const md5StackBytes = 64

// EncryptText returns md5Hex(plain + salt).
func (e *MD5Encryptor) EncryptText(plain string) string {
	var small [md5StackBytes]byte
	var buf []byte
	if n := len(plain) + len(e.salt); n <= len(small) {
		buf = small[:0]
	} else {
		buf = make([]byte, 0, n)
	}
	buf = append(buf, plain...)
	buf = append(buf, e.salt...)
	sum := md5.Sum(buf)
	var out [2 * md5.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// Decrypt always fails with ErrNotDecryptable: MD5 is one-way.
func (e *MD5Encryptor) Decrypt(string) (string, error) { return "", notDecryptable("MD5") }
