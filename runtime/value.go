package runtime

import (
	"encoding/hex"
	"strconv"
	"time"
)

// ValueKind is the Java type a sharding value has when ShardingSphere hands it
// to a sharding algorithm. The kind decides placement for algorithms that hash
// the Java object (HASH_MOD, INLINE with hashCode()), so a Go value must carry
// it: the int64 100 hashes like java.lang.Long, the string "100" like
// java.lang.String, and they land on different data nodes.
//
// Source: ShardingSphere 5.x NumberLiteralValue and the JDBC/MySQL binary
// protocol type mapping (../shared/spec/shardingsphere.md §3.2).
type ValueKind uint8

const (
	// KindNull is SQL NULL (`col IS NULL`, or a NULL parameter). Every built-in
	// algorithm refuses it (ShardingSphere's NullShardingValueException).
	KindNull ValueKind = iota
	// KindInt is java.lang.Integer: an integer literal in int32 range, or a
	// MySQL binary-protocol LONG/INT24/SHORT/TINY parameter. Int holds it.
	KindInt
	// KindLong is java.lang.Long: an integer literal outside int32 range, a
	// LONGLONG parameter (what go-sql-driver sends for every Go integer), or a
	// generated snowflake key. Int holds it.
	KindLong
	// KindBigInteger is java.math.BigInteger: an integer literal outside int64
	// range. Str holds its decimal text (optional leading '-').
	KindBigInteger
	// KindDecimal is java.math.BigDecimal: a decimal literal such as 10.50.
	// Str holds its text exactly as written (scale matters for hashCode).
	KindDecimal
	// KindString is java.lang.String. Str holds it (UTF-8).
	KindString
	// KindTime is java.sql.Timestamp / LocalDateTime. Time holds it; its
	// location is ignored (ShardingSphere ignores time zones when routing).
	KindTime
	// KindHexNumber is a hexadecimal (0x05) or bit (b'101') number literal,
	// which MySQL reads as an unsigned integer in numeric context and as a
	// binary string otherwise. Str holds its bytes, big-endian. It is
	// converted for its column (ColumnClass) before any algorithm sees it.
	KindHexNumber
)

var kindNames = [...]string{"Null", "Int", "Long", "BigInteger", "Decimal", "String", "Time", "HexNumber"}

// String returns the kind's name, e.g. "Long".
func (k ValueKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "ValueKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalJSON encodes the kind as its name, so explain output reads "Long".
func (k ValueKind) MarshalJSON() ([]byte, error) {
	return []byte(`"` + k.String() + `"`), nil
}

// Value is one sharding value: a tagged union keyed by Kind. It is passed by
// value and never allocates for integer kinds, which keeps routing of integer
// sharding keys free of allocations.
type Value struct {
	Kind ValueKind
	Int  int64     // KindInt, KindLong
	Str  string    // KindBigInteger, KindDecimal, KindString, KindHexNumber
	Time time.Time // KindTime
}

// Null is the SQL NULL sharding value.
var Null = Value{Kind: KindNull}

// Int returns v as a java.lang.Integer value. The caller guarantees v fits int32.
func Int(v int32) Value { return Value{Kind: KindInt, Int: int64(v)} }

// Long returns v as a java.lang.Long value: the kind of every Go integer
// parameter sent by go-sql-driver/mysql (MySQL type LONGLONG).
func Long(v int64) Value { return Value{Kind: KindLong, Int: v} }

// String returns s as a java.lang.String value.
func String(s string) Value { return Value{Kind: KindString, Str: s} }

// Decimal returns text (e.g. "10.50") as a java.math.BigDecimal value.
func Decimal(text string) Value { return Value{Kind: KindDecimal, Str: text} }

// BigInteger returns the decimal integer text as a java.math.BigInteger value.
func BigInteger(text string) Value { return Value{Kind: KindBigInteger, Str: text} }

// Time returns t as a java.sql.Timestamp value.
func Time(t time.Time) Value { return Value{Kind: KindTime, Time: t} }

// IntegerLiteral returns the Value ShardingSphere builds for an SQL integer
// literal: Integer when it fits int32, Long when it fits int64, else
// BigInteger. text must be a decimal integer (optional '-').
func IntegerLiteral(text string) Value {
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return BigInteger(text)
	}
	if n >= -1<<31 && n < 1<<31 {
		return Value{Kind: KindInt, Int: n}
	}
	return Long(n)
}

// IsNull reports whether v is SQL NULL.
func (v Value) IsNull() bool { return v.Kind == KindNull }

// Text returns Java's String.valueOf(v): what ShardingSphere gets from
// toString() before parsing or formatting a value. Time is formatted as
// java.sql.Timestamp does ("2006-01-02 15:04:05.0" with the fraction trimmed
// to at least one digit). NULL returns "null".
func (v Value) Text() string {
	switch v.Kind {
	case KindInt, KindLong:
		return strconv.FormatInt(v.Int, 10)
	case KindBigInteger, KindDecimal, KindString:
		return v.Str
	case KindHexNumber:
		return "0x" + hex.EncodeToString([]byte(v.Str))
	case KindTime:
		return timestampText(v.Time)
	default:
		return "null"
	}
}

// timestampText formats t as java.sql.Timestamp.toString: nanoseconds with
// trailing zeros removed but at least one digit.
func timestampText(t time.Time) string {
	s := t.Format("2006-01-02 15:04:05")
	ns := t.Nanosecond()
	frac := strconv.Itoa(ns + 1e9)[1:] // 9 digits, zero padded
	end := len(frac)
	for end > 1 && frac[end-1] == '0' {
		end--
	}
	return s + "." + frac[:end]
}
