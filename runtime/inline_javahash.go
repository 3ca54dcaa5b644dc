package runtime

import (
	"math/big"
	"unicode/utf16"
)

// This file computes Java's Object.hashCode() for the values an inline
// expression can call .hashCode() on. It is private to the inline evaluator
// and named apart from the HASH_MOD helper so the two files can land in any
// order; both follow the same JDK definitions.

// inlineHashCode returns the Java hashCode of v's Java object:
//   - Integer: the value; Long: (int)(v ^ (v >>> 32));
//   - String: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units, int overflow;
//   - BigInteger: the JDK's fold over 32-bit magnitude words, times signum;
//   - BigDecimal: 31*unscaledValue.hashCode() + scale;
//   - Boolean: 1231 for true, 1237 for false.
//
// Timestamp is refused: its hashCode depends on the JVM's time zone, which a
// ShardingSphere deployment does not record.
func inlineHashCode(v ival, off int) (int32, *InlineError) {
	switch v.k {
	case ivInt:
		return int32(v.n), nil
	case ivLong:
		return int32(v.n ^ int64(uint64(v.n)>>32)), nil
	case ivBig:
		return inlineBigHash(v.b), nil
	case ivDec:
		u, scale, ok := parseJavaDecimal(v.s)
		if !ok {
			return 0, inlineErr(off, "invalid BigDecimal text "+quoteShort(v.s))
		}
		return 31*inlineBigHash(u) + int32(scale), nil
	case ivStr:
		return inlineStringHash(v.s), nil
	case ivBool:
		if v.n != 0 {
			return 1231, nil
		}
		return 1237, nil
	case ivTime:
		return 0, inlineErrHint(off, `method "hashCode" is not supported on a Timestamp`, "its value depends on the JVM time zone")
	}
	return 0, inlineErr(off, `method "hashCode" is not supported on a List`)
}

// inlineStringHash is java.lang.String.hashCode over UTF-16 code units.
func inlineStringHash(s string) int32 {
	var h int32
	if isASCII(s) {
		for i := 0; i < len(s); i++ {
			h = 31*h + int32(s[i])
		}
		return h
	}
	for _, r := range s {
		if r1, r2 := utf16.EncodeRune(r); r1 != '\uFFFD' || r2 != '\uFFFD' {
			h = 31*h + int32(r1)
			h = 31*h + int32(r2)
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// inlineBigHash is java.math.BigInteger.hashCode: for each 32-bit word of
// the magnitude, most significant first, h = 31*h + word; then h*signum.
func inlineBigHash(b *big.Int) int32 {
	mag := b.Bytes() // big-endian magnitude
	var h int32
	first := len(mag) % 4
	if first > 0 {
		var w uint32
		for _, c := range mag[:first] {
			w = w<<8 | uint32(c)
		}
		h = 31*h + int32(w)
	}
	for i := first; i < len(mag); i += 4 {
		w := uint32(mag[i])<<24 | uint32(mag[i+1])<<16 | uint32(mag[i+2])<<8 | uint32(mag[i+3])
		h = 31*h + int32(w)
	}
	return h * int32(b.Sign())
}
