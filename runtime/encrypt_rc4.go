package runtime

import (
	"crypto/rc4"
	"encoding/base64"
	"strconv"
)

// RC4Encryptor is ShardingSphere's RC4 encrypt algorithm (5.1–5.3 core,
// a plugin since 5.4): Base64(RC4(key, UTF-8(String.valueOf(value)))),
// the key stream restarting from the key for every value. RC4 is weak; it
// is here only to read and write data that ShardingSphere already stores
// this way.
//
// Props: rc4-key-value, 5 to 255 bytes of UTF-8 (not trimmed;
// `${env:NAME}` expanded by NewEncryptor; never printed).
//
// Decrypt reads Base64 as commons-codec's Base64.decodeBase64 does:
// characters outside the alphabet are skipped, '-' and '_' are read as '+'
// and '/', '=' ends the data, and leftover bits are dropped.
//
// Supports: decrypt and equality.
//
// Source: ShardingSphere RC4EncryptAlgorithm (5.1–5.3).
type RC4Encryptor struct {
	init rc4.Cipher // the state right after the key schedule, copied per value
}

var _ Encryptor = (*RC4Encryptor)(nil)

func newRC4Encryptor(props Props) (*RC4Encryptor, error) {
	key := props["rc4-key-value"]
	if len(key) < 5 || len(key) > 255 {
		return nil, &PropError{Prop: "rc4-key-value", Msg: "must be 5 to 255 bytes long, got " + strconv.Itoa(len(key))}
	}
	c, err := rc4.NewCipher([]byte(key))
	if err != nil { // unreachable: the length was checked
		return nil, &PropError{Prop: "rc4-key-value", Msg: "is not a valid RC4 key"}
	}
	return &RC4Encryptor{init: *c}, nil
}

// Type returns "RC4".
func (e *RC4Encryptor) Type() string { return "RC4" }

// Supports returns SupportDecrypt|SupportEquality.
func (e *RC4Encryptor) Supports() EncryptSupport { return SupportDecrypt | SupportEquality }

// Encrypt returns the Base64 cipher text (a string) of JavaText(v), or nil
// for NULL.
func (e *RC4Encryptor) Encrypt(v any) (any, error) {
	text, null, err := JavaText(v)
	if err != nil || null {
		return nil, err
	}
	return e.EncryptText(text), nil
}

// EncryptText returns Base64(RC4(UTF-8 bytes of plain)).
func (e *RC4Encryptor) EncryptText(plain string) string {
	buf := []byte(plain)
	e.crypt(buf)
	return base64.StdEncoding.EncodeToString(buf)
}

// Decrypt returns the plain text of an RC4 cipher text. It fails only when
// the cipher is misconfigured, never on the text.
func (e *RC4Encryptor) Decrypt(cipherText string) (string, error) {
	buf := decodeCodecBase64(cipherText)
	e.crypt(buf)
	return string(buf), nil
}

// crypt XORs buf in place with the key stream.
func (e *RC4Encryptor) crypt(buf []byte) {
	c := e.init
	c.XORKeyStream(buf, buf)
}

// codecBase64 maps a byte to its 6-bit value in commons-codec's decode
// table (standard and URL-safe alphabets), or -1.
var codecBase64 = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(std); i++ {
		t[std[i]] = int8(i)
	}
	t['-'], t['_'] = 62, 63
	return t
}()

// decodeCodecBase64 is commons-codec Base64.decodeBase64 (lenient).
func decodeCodecBase64(s string) []byte {
	out := make([]byte, 0, len(s)*3/4)
	var acc uint32
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			break
		}
		v := codecBase64[s[i]]
		if v < 0 {
			continue
		}
		acc = acc<<6 | uint32(v)
		if n++; n == 4 {
			out = append(out, byte(acc>>16), byte(acc>>8), byte(acc))
			acc, n = 0, 0
		}
	}
	switch n {
	case 2:
		out = append(out, byte(acc>>4))
	case 3:
		out = append(out, byte(acc>>10), byte(acc>>2))
	}
	return out
}
