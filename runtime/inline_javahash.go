package runtime

// inlineHashCode returns Java's hashCode() of v's Java object for
// `x.hashCode()` in an inline expression. Integer, Long, String, BigInteger
// and BigDecimal go through JavaHashCode, the same function HASH_MOD uses,
// so both algorithms agree on every value; Boolean is 1231 (true) or 1237
// (false), as java.lang.Boolean.hashCode.
//
// Timestamp is refused: its hashCode is the epoch milliseconds, which depend
// on the time zone the JVM read the DATETIME in, and an inline expression
// over a hashed timestamp is not worth a silent misroute. Lists are refused.
func inlineHashCode(v ival, off int) (int32, *InlineError) {
	var val Value
	switch v.k {
	case ivInt:
		val = Value{Kind: KindInt, Int: v.n}
	case ivLong:
		val = Value{Kind: KindLong, Int: v.n}
	case ivBig:
		val = Value{Kind: KindBigInteger, Str: v.b.String()}
	case ivDec:
		val = Value{Kind: KindDecimal, Str: v.s}
	case ivStr:
		val = Value{Kind: KindString, Str: v.s}
	case ivBool:
		if v.n != 0 {
			return 1231, nil
		}
		return 1237, nil
	case ivTime:
		return 0, inlineErrHint(off, `method "hashCode" is not supported on a Timestamp`, "its value depends on the JVM time zone")
	default:
		return 0, inlineErr(off, `method "hashCode" is not supported on a List`)
	}
	h, err := JavaHashCode(val)
	if err != nil {
		return 0, inlineErr(off, err.Error())
	}
	return h, nil
}
