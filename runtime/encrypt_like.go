package runtime

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// CharDigestLikeEncryptor is ShardingSphere's CHAR_DIGEST_LIKE encrypt
// algorithm (5.3): it maps each UTF-16 code unit of String.valueOf(value)
// to another one, so that `LIKE '%abc%'` on the like-query column, with the
// pattern mapped the same way, finds the rows whose plain value matches.
// Java works on UTF-16 code units, and so does this: a character outside
// the BMP is two units, each mapped on its own.
//
// Per unit c (Java int arithmetic, the result cut to 16 bits as a char):
//
//	c is '%' or '_'        → c
//	c ≤ 255                → (c + delta) & mask
//	c at index i in dict   → ((i + delta) & mask) + start
//	otherwise              → ((c + delta) & mask) + start
//
// and when the mapped unit is '%' or '_' the original unit is kept instead
// (so '$' stays '$' with the default props: '$'+1 is '%'), as ShardingSphere
// does, so that an encrypted value never contains a LIKE wildcard it did
// not have. Examples with the default props: "test_%" → "udtu_%",
// "_1234__5678__" → "_0145__4589__".
//
// The mapped units become a Go (UTF-8) string; a lone surrogate, which only
// unusual props can produce, becomes '?' as Java's String.getBytes(UTF-8)
// writes it.
//
// Props (each parsed as Java's Integer.parseInt: decimal, optional sign,
// 32 bits; an empty value counts as absent):
//   - delta (default 1)
//   - mask (default 0b1111_0111_1101 = 3965; spec §5.C prints this literal
//     but states it as 4093, which is a miscalculation: ShardingSphere's
//     DEFAULT_MASK is the binary literal, 3965)
//   - start (default 0x4e00 = 19968)
//   - dict: the characters whose index replaces their code. When the prop
//     is absent or empty ShardingSphere loads a long built-in dictionary of
//     common Chinese characters (common_chinese_character.dict), which
//     shardgen does not ship: here the dictionary is then empty, so every
//     character of that dictionary encrypts differently from
//     ShardingSphere. Give `dict` explicitly (the same text on both sides)
//     for byte compatibility; DefaultDict reports the case. A character
//     listed twice keeps its last index (Java HashMap.put).
//
// Supports: like only; it cannot decrypt.
//
// Source: ShardingSphere CharDigestLikeEncryptAlgorithm; spec §5.C;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/encrypt/
type CharDigestLikeEncryptor struct {
	delta, mask, start int32
	// dict[c-dictLo] is the dictionary index of unit c, or -1; dictLo..
	// dictLo+len(dict)-1 covers every unit of the dictionary.
	dict        []int32
	dictLo      int32
	defaultDict bool
}

var _ Encryptor = (*CharDigestLikeEncryptor)(nil)

// Default CHAR_DIGEST_LIKE props (ShardingSphere DEFAULT_DELTA,
// DEFAULT_MASK, DEFAULT_START).
const (
	likeDefaultDelta = 1
	likeDefaultMask  = 0b1111_0111_1101 // 3965
	likeDefaultStart = 0x4e00
)

func newCharDigestLike(props Props) (*CharDigestLikeEncryptor, error) {
	e := &CharDigestLikeEncryptor{}
	var err error
	if e.delta, err = javaParseIntProp(props, "delta", likeDefaultDelta); err != nil {
		return nil, err
	}
	if e.mask, err = javaParseIntProp(props, "mask", likeDefaultMask); err != nil {
		return nil, err
	}
	if e.start, err = javaParseIntProp(props, "start", likeDefaultStart); err != nil {
		return nil, err
	}
	dict := props["dict"]
	if dict == "" {
		e.defaultDict = true
		return e, nil
	}
	units := utf16.Encode([]rune(dict))
	lo, hi := units[0], units[0]
	for _, u := range units {
		lo, hi = min(lo, u), max(hi, u)
	}
	e.dictLo = int32(lo)
	e.dict = make([]int32, int(hi)-int(lo)+1)
	for i := range e.dict {
		e.dict[i] = -1
	}
	for i, u := range units {
		e.dict[int32(u)-e.dictLo] = int32(i)
	}
	return e, nil
}

// javaParseIntProp reads key as Java's Integer.parseInt would, or def when
// key is absent or empty. Errors are *PropError.
func javaParseIntProp(props Props, key string, def int32) (int32, error) {
	v, ok := props[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0, &PropError{Prop: key, Msg: "must be a decimal integer in Java int range, got " + strconv.Quote(v)}
	}
	return int32(n), nil
}

// Type returns "CHAR_DIGEST_LIKE".
func (e *CharDigestLikeEncryptor) Type() string { return "CHAR_DIGEST_LIKE" }

// Supports returns SupportLike.
func (e *CharDigestLikeEncryptor) Supports() EncryptSupport { return SupportLike }

// DefaultDict reports whether the dict prop was absent or empty, so that
// characters of ShardingSphere's built-in dictionary encrypt differently
// here than in ShardingSphere (see the type's doc).
func (e *CharDigestLikeEncryptor) DefaultDict() bool { return e.defaultDict }

// Encrypt returns the mapped text (a string) of JavaText(v), or nil for
// NULL.
func (e *CharDigestLikeEncryptor) Encrypt(v any) (any, error) {
	text, null, err := JavaText(v)
	if err != nil || null {
		return nil, err
	}
	return e.EncryptText(text), nil
}

// likeStackUnits is the text length in UTF-16 units mapped without a heap
// buffer.
const likeStackUnits = 32

// EncryptText maps every UTF-16 unit of plain (see the type's doc). Invalid
// UTF-8 in plain reads as U+FFFD, as a Java decoder would read it.
func (e *CharDigestLikeEncryptor) EncryptText(plain string) string {
	var small [likeStackUnits]uint16
	units := small[:0]
	if len(plain) > likeStackUnits { // one unit per byte at most
		units = make([]uint16, 0, len(plain))
	}
	for _, r := range plain {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			units = append(units, e.digest(uint16(hi)), e.digest(uint16(lo)))
			continue
		}
		units = append(units, e.digest(uint16(r)))
	}
	var smallOut [3 * likeStackUnits]byte
	out := smallOut[:0]
	if 3*len(units) > len(smallOut) {
		out = make([]byte, 0, 3*len(units))
	}
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		switch {
		case utf16.IsSurrogate(u) && u < 0xdc00 && i+1 < len(units) && units[i+1] >= 0xdc00 && units[i+1] < 0xe000:
			out = utf8.AppendRune(out, utf16.DecodeRune(u, rune(units[i+1])))
			i++
		case utf16.IsSurrogate(u):
			out = append(out, '?')
		default:
			out = utf8.AppendRune(out, u)
		}
	}
	return string(out)
}

// digest maps one UTF-16 unit, keeping c when the result is a wildcard.
func (e *CharDigestLikeEncryptor) digest(c uint16) uint16 {
	if c == '%' || c == '_' {
		return c
	}
	var m int32
	switch {
	case c <= 255:
		m = (int32(c) + e.delta) & e.mask
	default:
		x := int32(c)
		if i := x - e.dictLo; e.dict != nil && i >= 0 && int(i) < len(e.dict) && e.dict[i] >= 0 {
			x = e.dict[i]
		}
		m = ((x + e.delta) & e.mask) + e.start
	}
	if mc := uint16(m); mc != '%' && mc != '_' {
		return mc
	}
	return c
}

// Decrypt always fails with ErrNotDecryptable: the mapping is one-way.
func (e *CharDigestLikeEncryptor) Decrypt(string) (string, error) {
	return "", notDecryptable("CHAR_DIGEST_LIKE")
}
