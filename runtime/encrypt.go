package runtime

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Encryptor is a configured ShardingSphere encrypt algorithm: it turns the
// value of a logic column into what the cipher, assisted-query or like-query
// column stores, byte for byte as ShardingSphere does, so that data written
// by ShardingSphere and by shardgen can be read by either.
//
// ShardingSphere encrypts the text of Java's String.valueOf(value), never
// the value itself: the Long 1000 and the String "1000" give the same
// cipher. JavaText says how a Go value becomes that text.
//
// Implementations are immutable after construction and safe for concurrent
// use; all key derivation and property parsing happens in NewEncryptor.
//
// Source: ShardingSphere EncryptAlgorithm (5.4+) and its metadata
// EncryptAlgorithmMetaData; ../shared/spec/shardingsphere.md §5.
type Encryptor interface {
	// Type returns the ShardingSphere type name, e.g. "AES".
	Type() string
	// Supports says what the algorithm can serve: decryption of a cipher
	// column, equality filters (=, IN, GROUP BY, DISTINCT, JOIN), LIKE.
	Supports() EncryptSupport
	// Encrypt returns what the column stores for the logic value v: nil for
	// a NULL v (nil, a nil pointer, an invalid sql.Null*, a NULL Value),
	// else a string. Errors: a value that has no Java text (see JavaText).
	Encrypt(v any) (any, error)
	// EncryptText encrypts plain, the Java text of a non-NULL value. It is
	// the hot path generated code calls for string columns: no boxing and
	// no error (every input encrypts).
	EncryptText(plain string) string
	// Decrypt returns the plain text of a cipher column value. Errors:
	// ErrNotDecryptable (wrapped) for one-way algorithms, or a malformed
	// cipher text. The error never contains key material.
	Decrypt(cipher string) (string, error)
}

// ErrNotDecryptable is returned (wrapped, with the type name) by Decrypt of
// one-way encryptors: MD5 and CHAR_DIGEST_LIKE. Test with errors.Is.
var ErrNotDecryptable = errors.New("encryptor cannot decrypt")

// EncryptSupport is a set of the uses an encryptor supports
// (ShardingSphere's EncryptAlgorithmMetaData: supportDecrypt,
// supportEquivalentFilter, supportLike).
type EncryptSupport uint8

const (
	// SupportDecrypt: the algorithm can decrypt, so it may serve a cipher
	// column that queries read back (AES, RC4).
	SupportDecrypt EncryptSupport = 1 << iota
	// SupportEquality: equal plain values give equal stored values, so it
	// may serve equality filters (AES, RC4, MD5).
	SupportEquality
	// SupportLike: the stored value keeps LIKE wildcards and matches
	// patterns encrypted the same way (CHAR_DIGEST_LIKE).
	SupportLike
)

// Has reports whether s includes every use in u.
func (s EncryptSupport) Has(u EncryptSupport) bool { return s&u == u }

// String lists the uses joined by '|', e.g. "decrypt|equality"; "none" for
// the empty set.
func (s EncryptSupport) String() string {
	var parts []string
	for _, p := range [...]struct {
		bit  EncryptSupport
		name string
	}{{SupportDecrypt, "decrypt"}, {SupportEquality, "equality"}, {SupportLike, "like"}} {
		if s&p.bit != 0 {
			parts = append(parts, p.name)
			s &^= p.bit
		}
	}
	if s != 0 {
		parts = append(parts, "EncryptSupport("+strconv.Itoa(int(s))+")")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}

// MarshalJSON encodes the set as its String form, e.g. "decrypt|equality".
func (s EncryptSupport) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(s.String())), nil
}

// EncryptorTypes lists the encryptor types NewEncryptor accepts: the 5.4+
// core types first, then the 5.1–5.3 ones.
var EncryptorTypes = []string{"AES", "MD5", "CHAR_DIGEST_LIKE", "RC4"}

// NewEncryptor configures the encryptor of the given ShardingSphere type
// (case-insensitive) from its props. Every prop value is first expanded
// with ExpandEnv, so keys may be written as `${env:NAME}`; the expanded
// value never appears in an error. Errors: *PropError for a missing or bad
// property, or an error naming an unknown or unsupported type (SM3 and SM4
// are refused: they are not in Go's standard library and shardgen does not
// hand-roll cryptographic primitives).
//
// Source: ShardingSphere builtin encrypt algorithms,
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/encrypt/
func NewEncryptor(typ string, props Props) (Encryptor, error) {
	t := strings.ToUpper(strings.TrimSpace(typ))
	switch t {
	case "SM3", "SM4":
		return nil, fmt.Errorf("encryptor type %q is not supported: %s is not in Go's standard library and shardgen does not hand-roll cryptographic primitives", typ, t)
	}
	if !slices.Contains(EncryptorTypes, t) {
		return nil, fmt.Errorf("unknown encryptor type %q (known: %s)", typ, strings.Join(EncryptorTypes, ", "))
	}
	props, err := expandProps(props)
	if err != nil {
		return nil, err
	}
	switch t {
	case "AES":
		return newAESEncryptor(props)
	case "MD5":
		return newMD5Encryptor(props), nil
	case "CHAR_DIGEST_LIKE":
		return newCharDigestLike(props)
	default: // "RC4"
		return newRC4Encryptor(props)
	}
}

// expandProps returns a copy of props with every value expanded by
// ExpandEnv. Errors are *PropError naming the property; ExpandEnv's message
// names the reference, never a variable's value.
func expandProps(props Props) (Props, error) {
	out := make(Props, len(props))
	for k, v := range props {
		x, err := ExpandEnv(v)
		if err != nil {
			return nil, &PropError{Prop: k, Msg: "cannot be expanded: " + err.Error()}
		}
		out[k] = x
	}
	return out, nil
}

// notDecryptable is the Decrypt error of a one-way encryptor.
func notDecryptable(typ string) error {
	return fmt.Errorf("%s: %w", typ, ErrNotDecryptable)
}

// JavaText returns the text ShardingSphere encrypts for a logic column
// value: Java's String.valueOf of the JDBC object the value corresponds to.
// null is true (and text empty) for SQL NULL: nil, a nil pointer, a
// driver.Valuer that yields nil (an invalid sql.NullString), a NULL Value.
//
// Go value → Java object → text:
//   - string → String, unchanged. Pass any other Java rendering as a string,
//     e.g. a DATE as "2024-01-31" (java.sql.Date and LocalDate print that).
//   - int, int8…int64, uint…uint64 → Integer/Long/BigInteger: decimal, "1000".
//   - float64 → Double, float32 → Float: Double.toString/Float.toString of
//     JDK 19+ (shortest text that reads back; "100.0", "1.0E7", "1.0E-4",
//     "NaN", "Infinity"). Older JDKs print a longer text for a few values.
//   - bool → Boolean: "true" / "false".
//   - time.Time → java.sql.Timestamp: "2006-01-02 15:04:05.0", the fraction
//     without trailing zeros but at least one digit; the wall clock of t as
//     given (its location is not converted).
//   - Value: by Kind; KindDecimal is BigDecimal.toString of new
//     BigDecimal(text): "10.50" stays, "1E+3" stays, "0.0000001" becomes
//     "1E-7", "-0.00" becomes "0.00".
//   - driver.Valuer (sql.NullString, sql.NullInt64, ...) → its Value().
//   - pointers → what they point to; named types of the kinds above → as
//     their underlying kind (a slow path through reflection).
//
// Errors: []byte (Java's String.valueOf(byte[]) is "[B@hash", not the
// content), a KindDecimal or KindBigInteger text that Java would not parse,
// or any other type.
//
// Source: java.lang.String.valueOf, BigDecimal.toString, Double.toString,
// java.sql.Timestamp.toString; ShardingSphere AESEncryptAlgorithm.encrypt.
func JavaText(v any) (text string, null bool, err error) {
	switch x := v.(type) {
	case nil:
		return "", true, nil
	case string:
		return x, false, nil
	case int64:
		return strconv.FormatInt(x, 10), false, nil
	case int:
		return strconv.FormatInt(int64(x), 10), false, nil
	case int32:
		return strconv.FormatInt(int64(x), 10), false, nil
	case int16:
		return strconv.FormatInt(int64(x), 10), false, nil
	case int8:
		return strconv.FormatInt(int64(x), 10), false, nil
	case uint64:
		return strconv.FormatUint(x, 10), false, nil
	case uint:
		return strconv.FormatUint(uint64(x), 10), false, nil
	case uint32:
		return strconv.FormatUint(uint64(x), 10), false, nil
	case uint16:
		return strconv.FormatUint(uint64(x), 10), false, nil
	case uint8:
		return strconv.FormatUint(uint64(x), 10), false, nil
	case float64:
		return javaFloatText(x, 64), false, nil
	case float32:
		return javaFloatText(float64(x), 32), false, nil
	case bool:
		return strconv.FormatBool(x), false, nil
	case time.Time:
		return timestampText(x), false, nil
	case Value:
		return valueJavaText(x)
	case *Value:
		if x == nil {
			return "", true, nil
		}
		return valueJavaText(*x)
	case []byte:
		return "", false, errors.New("cannot encrypt a []byte: ShardingSphere encrypts String.valueOf(value), which for byte[] is not its content; pass a string")
	case driver.Valuer:
		return valuerJavaText(x)
	}
	return reflectJavaText(v)
}

// valueJavaText is JavaText of a sharding Value.
func valueJavaText(v Value) (string, bool, error) {
	switch v.Kind {
	case KindNull:
		return "", true, nil
	case KindDecimal:
		s, ok := bigDecimalText(v.Str)
		if !ok {
			return "", false, fmt.Errorf("BigDecimal %q is not a decimal number", v.Str)
		}
		return s, false, nil
	case KindBigInteger:
		n, ok := parseJavaBigInteger(v.Str)
		if !ok {
			return "", false, fmt.Errorf("BigInteger %q is not an integer", v.Str)
		}
		return n.String(), false, nil
	case KindInt, KindLong, KindString, KindTime:
		return v.Text(), false, nil
	}
	return "", false, fmt.Errorf("cannot encrypt a value of kind %s", v.Kind)
}

// valuerJavaText is JavaText of a driver.Valuer's value. A Valuer that
// returns another Valuer is not followed (driver.Value never is one).
func valuerJavaText(x driver.Valuer) (string, bool, error) {
	if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return "", true, nil
	}
	dv, err := x.Value()
	if err != nil {
		return "", false, fmt.Errorf("cannot encrypt a %T: %w", x, err)
	}
	if _, again := dv.(driver.Valuer); again {
		return "", false, fmt.Errorf("cannot encrypt a %T: its Value() is a %T", x, dv)
	}
	return JavaText(dv)
}

// reflectJavaText handles pointers and named types of the basic kinds.
func reflectJavaText(v any) (string, bool, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return "", true, nil
		}
		return JavaText(rv.Elem().Interface())
	case reflect.String:
		return rv.String(), false, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), false, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), false, nil
	case reflect.Float32:
		return javaFloatText(rv.Float(), 32), false, nil
	case reflect.Float64:
		return javaFloatText(rv.Float(), 64), false, nil
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), false, nil
	}
	return "", false, fmt.Errorf("cannot encrypt a %T: no Java text for it (pass a string, integer, float, bool, time.Time or runtime.Value)", v)
}

// bigDecimalText returns BigDecimal.toString() of new BigDecimal(s): the
// unscaled value's digits with the scale applied, in plain notation when
// scale ≥ 0 and the adjusted exponent (-scale + digits - 1) is ≥ -6, else
// in scientific notation ("1.23E-7", "1E+3"). ok is false when Java would
// throw NumberFormatException.
func bigDecimalText(s string) (string, bool) {
	unscaled, scale32, ok := parseJavaBigDecimal(s)
	if !ok {
		return "", false
	}
	neg := unscaled.Sign() < 0
	coeff := unscaled.Abs(unscaled).String()
	scale := int64(scale32)
	adjusted := -scale + int64(len(coeff)-1)
	var b strings.Builder
	b.Grow(len(coeff) + 16)
	if neg {
		b.WriteByte('-')
	}
	switch {
	case scale == 0:
		b.WriteString(coeff)
	case scale > 0 && adjusted >= -6:
		pad := scale - int64(len(coeff))
		if pad >= 0 {
			b.WriteString("0.")
			for ; pad > 0; pad-- {
				b.WriteByte('0')
			}
			b.WriteString(coeff)
		} else {
			point := int64(len(coeff)) - scale
			b.WriteString(coeff[:point])
			b.WriteByte('.')
			b.WriteString(coeff[point:])
		}
	default:
		b.WriteByte(coeff[0])
		if len(coeff) > 1 {
			b.WriteByte('.')
			b.WriteString(coeff[1:])
		}
		if adjusted != 0 {
			b.WriteByte('E')
			if adjusted > 0 {
				b.WriteByte('+')
			}
			b.WriteString(strconv.FormatInt(adjusted, 10))
		}
	}
	return b.String(), true
}

// javaFloatText returns Double.toString (bitSize 64) or Float.toString
// (bitSize 32) as JDK 19+ specifies them: the shortest decimal that reads
// back as f (when that has one digit, the closest two-digit decimal that
// reads back, as Java prefers: 4.9E-324, not 5E-324), printed plainly with
// at least one fraction digit when 10^-3 ≤ |f| < 10^7, else as d.ddd E n.
func javaFloatText(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	digits, exp := floatDigits(f, bitSize, -1)
	if len(digits) == 1 {
		if d2, e2 := floatDigits(f, bitSize, 1); len(d2) == 2 {
			back, err := strconv.ParseFloat(sciText(d2, e2), bitSize)
			if err == nil && back == math.Abs(f) {
				digits, exp = d2, e2
			}
		}
	}
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		digits = "0"
	}
	var b strings.Builder
	if f < 0 {
		b.WriteByte('-')
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		if exp >= 0 {
			intLen := exp + 1
			if len(digits) <= intLen {
				b.WriteString(digits)
				b.WriteString(strings.Repeat("0", intLen-len(digits)))
				b.WriteString(".0")
			} else {
				b.WriteString(digits[:intLen])
				b.WriteByte('.')
				b.WriteString(digits[intLen:])
			}
		} else {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -exp-1))
			b.WriteString(digits)
		}
		return b.String()
	}
	b.WriteByte(digits[0])
	b.WriteByte('.')
	if len(digits) > 1 {
		b.WriteString(digits[1:])
	} else {
		b.WriteByte('0')
	}
	b.WriteByte('E')
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// floatDigits returns the significant digits of |f| and the decimal
// exponent of the first one (|f| ≈ d.ddd × 10^exp), from strconv's 'e'
// format with prec digits after the point (-1: shortest).
func floatDigits(f float64, bitSize, prec int) (string, int) {
	s := strconv.FormatFloat(math.Abs(f), 'e', prec, bitSize)
	mant, e, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(e)
	return strings.Replace(mant, ".", "", 1), exp
}

// sciText is digits × 10^exp as text strconv.ParseFloat reads.
func sciText(digits string, exp int) string {
	return digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(exp)
}
