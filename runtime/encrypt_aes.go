package runtime

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// AESEncryptor is ShardingSphere's AES encrypt algorithm, byte-compatible:
//
//	key    = first 16 bytes of digest(UTF-8(aes-key-value))   (AES-128)
//	cipher = Base64(AES/ECB/PKCS5Padding(key, UTF-8(String.valueOf(value))))
//
// Java's Cipher.getInstance("AES") is ECB mode with PKCS#5 (16-byte
// PKCS#7) padding and no IV: each 16-byte block is encrypted on its own with
// crypto/aes. Base64 is the standard alphabet with '=' padding.
// Decrypt trims the text as Java's String.trim does, reads it with Java's
// basic Base64 decoder (padding optional, no line breaks) and checks the
// padding as PKCS5Padding.unpad does; the plain bytes are returned as they
// are (ShardingSphere's new String(bytes, UTF-8) would replace invalid UTF-8,
// which its own cipher texts never contain).
//
// Props:
//   - aes-key-value (required, not trimmed): the secret; `${env:NAME}`
//     references are expanded by NewEncryptor. It never appears in errors.
//   - digest-algorithm-name (default SHA-1, upper-cased): MD5, SHA-1 (also
//     SHA, SHA1), SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224,
//     SHA-512/256, SHA3-224, SHA3-256, SHA3-384, SHA3-512. 5.1–5.3 always
//     use SHA-1; 5.4 defaults to it; 5.5 requires the prop.
//
// Supports: decrypt and equality (a fixed key and no IV make equal plain
// texts give equal cipher texts).
//
// Source: ShardingSphere AESEncryptAlgorithm (5.4) / AESCryptographicAlgorithm
// (5.5); spec §5.A;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/encrypt/
type AESEncryptor struct {
	block cipher.Block // AES-128 with the derived key, built once
}

var _ Encryptor = (*AESEncryptor)(nil)

// aesDigests maps an upper-cased Java MessageDigest name to the digest.
var aesDigests = map[string]func([]byte) []byte{
	"MD5":         func(b []byte) []byte { s := md5.Sum(b); return s[:] },
	"SHA-1":       func(b []byte) []byte { s := sha1.Sum(b); return s[:] },
	"SHA":         func(b []byte) []byte { s := sha1.Sum(b); return s[:] },
	"SHA1":        func(b []byte) []byte { s := sha1.Sum(b); return s[:] },
	"SHA-224":     func(b []byte) []byte { s := sha256.Sum224(b); return s[:] },
	"SHA-256":     func(b []byte) []byte { s := sha256.Sum256(b); return s[:] },
	"SHA-384":     func(b []byte) []byte { s := sha512.Sum384(b); return s[:] },
	"SHA-512":     func(b []byte) []byte { s := sha512.Sum512(b); return s[:] },
	"SHA-512/224": func(b []byte) []byte { s := sha512.Sum512_224(b); return s[:] },
	"SHA-512/256": func(b []byte) []byte { s := sha512.Sum512_256(b); return s[:] },
	"SHA3-224":    func(b []byte) []byte { s := sha3.Sum224(b); return s[:] },
	"SHA3-256":    func(b []byte) []byte { s := sha3.Sum256(b); return s[:] },
	"SHA3-384":    func(b []byte) []byte { s := sha3.Sum384(b); return s[:] },
	"SHA3-512":    func(b []byte) []byte { s := sha3.Sum512(b); return s[:] },
}

// aesDigestNames lists aesDigests' keys for error messages.
const aesDigestNames = "MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224, SHA-512/256, SHA3-224, SHA3-256, SHA3-384, SHA3-512"

func newAESEncryptor(props Props) (*AESEncryptor, error) {
	key := props["aes-key-value"]
	if key == "" {
		return nil, &PropError{Prop: "aes-key-value", Msg: "is required"}
	}
	name := strings.ToUpper(strings.TrimSpace(props["digest-algorithm-name"]))
	if name == "" {
		name = "SHA-1"
	}
	digest, ok := aesDigests[name]
	if !ok {
		return nil, &PropError{Prop: "digest-algorithm-name", Msg: "names unknown digest " + strconv.Quote(props["digest-algorithm-name"]) + " (known: " + aesDigestNames + ")"}
	}
	block, err := aes.NewCipher(digest([]byte(key))[:16])
	if err != nil { // unreachable: the key is always 16 bytes
		return nil, errors.New("AES: cannot build the cipher")
	}
	return &AESEncryptor{block: block}, nil
}

// Type returns "AES".
func (e *AESEncryptor) Type() string { return "AES" }

// Supports returns SupportDecrypt|SupportEquality.
func (e *AESEncryptor) Supports() EncryptSupport { return SupportDecrypt | SupportEquality }

// Encrypt returns the Base64 cipher text (a string) of JavaText(v), or nil
// for NULL.
func (e *AESEncryptor) Encrypt(v any) (any, error) {
	text, null, err := JavaText(v)
	if err != nil || null {
		return nil, err
	}
	return e.EncryptText(text), nil
}

// aesStackBytes is the padded plain text size encrypted without a heap
// buffer for the blocks (47 bytes of text or less).
const aesStackBytes = 48

// EncryptText returns Base64(AES-ECB-PKCS5(UTF-8 bytes of plain)).
func (e *AESEncryptor) EncryptText(plain string) string {
	n := len(plain)
	size := n - n%aes.BlockSize + aes.BlockSize // PKCS#5 always adds 1..16 bytes
	var small [aesStackBytes]byte
	var buf []byte
	if size <= len(small) {
		buf = small[:size]
	} else {
		buf = make([]byte, size)
	}
	copy(buf, plain)
	pad := byte(size - n)
	for i := n; i < size; i++ {
		buf[i] = pad
	}
	for i := 0; i < size; i += aes.BlockSize {
		e.block.Encrypt(buf[i:i+aes.BlockSize], buf[i:i+aes.BlockSize])
	}
	var smallOut [aesStackBytes / 3 * 4]byte
	var out []byte
	if m := base64.StdEncoding.EncodedLen(size); m <= len(smallOut) {
		out = smallOut[:m]
	} else {
		out = make([]byte, m)
	}
	base64.StdEncoding.Encode(out, buf)
	return string(out)
}

// Decrypt returns the plain text of an AES cipher text. Errors: the text is
// not Base64, its length is not a whole number of blocks, or the padding is
// wrong (a different key, or not an AES cipher text). An empty text (after
// trimming) decrypts to "" as in Java.
func (e *AESEncryptor) Decrypt(cipherText string) (string, error) {
	raw, err := decodeJavaBase64(javaTrim(cipherText))
	if err != nil {
		return "", errors.New("AES decrypt: " + err.Error())
	}
	if len(raw)%aes.BlockSize != 0 {
		return "", errors.New("AES decrypt: cipher text is " + strconv.Itoa(len(raw)) + " bytes, not a multiple of 16")
	}
	if len(raw) == 0 {
		return "", nil
	}
	for i := 0; i < len(raw); i += aes.BlockSize {
		e.block.Decrypt(raw[i:i+aes.BlockSize], raw[i:i+aes.BlockSize])
	}
	pad := int(raw[len(raw)-1])
	if pad == 0 || pad > aes.BlockSize {
		return "", errBadAESPadding
	}
	for _, b := range raw[len(raw)-pad:] {
		if int(b) != pad {
			return "", errBadAESPadding
		}
	}
	return string(raw[:len(raw)-pad]), nil
}

// errBadAESPadding is Java's BadPaddingException.
var errBadAESPadding = errors.New("AES decrypt: bad padding (wrong key, or not an AES cipher text)")

// decodeJavaBase64 decodes s as java.util.Base64.getDecoder() does: the
// standard alphabet, '=' padding optional but complete when present, and no
// other characters (Go's decoder would skip '\r' and '\n'; Java's refuses
// them).
func decodeJavaBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("cipher text is not Base64: it contains a line break")
	}
	enc := base64.RawStdEncoding
	if strings.IndexByte(s, '=') >= 0 {
		enc = base64.StdEncoding
	}
	raw, err := enc.DecodeString(s)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, errors.New("cipher text is not Base64: bad input at byte " + strconv.FormatInt(int64(ce), 10))
		}
		return nil, errors.New("cipher text is not Base64")
	}
	return raw, nil
}
