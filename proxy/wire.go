package proxy

import (
	"database/sql"
	"encoding/hex"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// MySQL collation ids used in result fields.
const (
	collationBinary  = 63 // binary: numbers, dates, BLOB, VARBINARY
	collationUTF8MB4 = 45 // utf8mb4_general_ci, MariaDB's utf8mb4 default
)

// notFixedDec is MySQL's NOT_FIXED_DEC (31): a FLOAT or DOUBLE column
// without a fixed number of decimals.
const notFixedDec = 31

// column is the metadata of one result column as the back end reported it
// (go-sql-driver's ColumnType), reduced to what a MySQL field needs.
type column struct {
	name     string
	typ      querypb.Type
	nullable bool
	// decimals is the fixed number of decimals of a DECIMAL, of a
	// FLOAT(M,D)/DOUBLE(M,D), or the fractional digits of a DATETIME,
	// TIMESTAMP or TIME; notFixedDec for other floats.
	decimals int
	length   uint32
	// exact marks values read from the back end in the binary protocol:
	// floating-point values carry all their bits (formatExact) rather than
	// the text protocol's rounding.
	exact bool
	// decrypted marks a column of values an encryptor decrypted: UTF-8
	// text that rowsResult converts to the session's result character set.
	decrypted bool
}

// dbTypes maps go-sql-driver's DatabaseTypeName (fields.go
// typeDatabaseName) to the MySQL type sent to clients.
var dbTypes = map[string]querypb.Type{
	"BIT": sqltypes.Bit, "BLOB": sqltypes.Blob, "TEXT": sqltypes.Text,
	"TINYBLOB": sqltypes.Blob, "TINYTEXT": sqltypes.Text, "MEDIUMBLOB": sqltypes.Blob, "MEDIUMTEXT": sqltypes.Text,
	"LONGBLOB": sqltypes.Blob, "LONGTEXT": sqltypes.Text,
	"DATE": sqltypes.Date, "DATETIME": sqltypes.Datetime, "TIMESTAMP": sqltypes.Timestamp, "TIME": sqltypes.Time,
	"YEAR": sqltypes.Year, "DECIMAL": sqltypes.Decimal, "DOUBLE": sqltypes.Float64, "FLOAT": sqltypes.Float32,
	"ENUM": sqltypes.Enum, "SET": sqltypes.Set, "GEOMETRY": sqltypes.Geometry, "JSON": sqltypes.TypeJSON,
	"TINYINT": sqltypes.Int8, "UNSIGNED TINYINT": sqltypes.Uint8,
	"SMALLINT": sqltypes.Int16, "UNSIGNED SMALLINT": sqltypes.Uint16,
	"MEDIUMINT": sqltypes.Int24, "UNSIGNED MEDIUMINT": sqltypes.Uint24,
	"INT": sqltypes.Int32, "UNSIGNED INT": sqltypes.Uint32,
	"BIGINT": sqltypes.Int64, "UNSIGNED BIGINT": sqltypes.Uint64,
	"VARCHAR": sqltypes.VarChar, "VARBINARY": sqltypes.VarBinary,
	"CHAR": sqltypes.Char, "BINARY": sqltypes.Binary, "NULL": sqltypes.Null,
}

// defaultLengths are MySQL's display widths of the fixed-width types; the
// driver does not expose the back end's column length.
var defaultLengths = map[querypb.Type]uint32{
	sqltypes.Int8: 4, sqltypes.Uint8: 3, sqltypes.Int16: 6, sqltypes.Uint16: 5, sqltypes.Int24: 9, sqltypes.Uint24: 8,
	sqltypes.Int32: 11, sqltypes.Uint32: 10, sqltypes.Int64: 20, sqltypes.Uint64: 20,
	sqltypes.Float32: 12, sqltypes.Float64: 22, sqltypes.Date: 10, sqltypes.Year: 4, sqltypes.Bit: 1,
	sqltypes.Datetime: 19, sqltypes.Timestamp: 19, sqltypes.Time: 10,
}

// columnOf reads one back-end column type.
func columnOf(name string, ct *sql.ColumnType) column {
	c := column{name: name, nullable: true, decimals: 0}
	typ, ok := dbTypes[ct.DatabaseTypeName()]
	if !ok {
		typ = sqltypes.VarBinary
	}
	c.typ = typ
	if n, ok := ct.Nullable(); ok {
		c.nullable = n
	}
	if p, s, ok := ct.DecimalSize(); ok {
		switch {
		case typ == sqltypes.Decimal:
			c.decimals = int(s)
			c.length = uint32(p) + 1
			if s > 0 {
				c.length++
			}
		case s == math.MaxInt64:
			c.decimals = notFixedDec
		default:
			c.decimals = int(s)
		}
	} else if typ == sqltypes.Float32 || typ == sqltypes.Float64 {
		c.decimals = notFixedDec
	}
	if c.length == 0 {
		c.length = defaultLengths[typ]
		if (typ == sqltypes.Datetime || typ == sqltypes.Timestamp || typ == sqltypes.Time) && c.decimals > 0 {
			c.length += uint32(c.decimals) + 1
		}
	}
	if l, ok := ct.Length(); ok && l > 0 && l < math.MaxUint32 {
		c.length = uint32(l)
	}
	return c
}

// field builds the MySQL column definition of c; charset is the client's
// collation for text columns.
func (c column) field(charset uint32) *querypb.Field {
	_, flags := sqltypes.TypeToMySQL(c.typ)
	f := &querypb.Field{Name: c.name, Type: c.typ, ColumnLength: c.length, Charset: collationBinary}
	if sqltypes.IsText(c.typ) || c.typ == sqltypes.Enum || c.typ == sqltypes.Set {
		f.Charset = charset
		// The column length of a text column counts bytes: up to 4 per
		// character in utf8mb4.
		f.ColumnLength = c.length
	}
	if c.typ == sqltypes.Binary || c.typ == sqltypes.VarBinary || c.typ == sqltypes.Blob {
		flags |= int64(querypb.MySqlFlag_BINARY_FLAG)
	}
	if !c.nullable {
		flags |= int64(querypb.MySqlFlag_NOT_NULL_FLAG)
	}
	f.Flags = uint32(flags)
	if c.decimals > 0 {
		f.Decimals = uint32(c.decimals)
	}
	return f
}

// textValue returns the MySQL text of v, a value database/sql scanned (or a
// merger produced) for column c: exactly the bytes the back end sent in the
// text protocol. go-sql-driver parses integer and floating-point columns of
// the text protocol; they are formatted back here as MySQL prints them
// (formatDouble, formatFloat).
func textValue(c *column, v any) (sqltypes.Value, error) {
	var b []byte
	switch x := v.(type) {
	case nil:
		return sqltypes.NULL, nil
	case []byte:
		b = x
	case string:
		b = []byte(x)
	case int64:
		b = strconv.AppendInt(nil, x, 10)
	case uint64:
		b = strconv.AppendUint(nil, x, 10)
	case int:
		b = strconv.AppendInt(nil, int64(x), 10)
	case bool:
		b = []byte{'0'}
		if x {
			b[0] = '1'
		}
	case float64:
		if c.exact {
			b = formatExact(x, c.typ == sqltypes.Float32)
		} else {
			b = formatDouble(x, c.decimals, c.typ == sqltypes.Float32)
		}
	case float32:
		if c.exact {
			b = formatExact(float64(x), true)
		} else {
			b = formatDouble(float64(x), c.decimals, true)
		}
	case time.Time:
		b = formatTime(x, c.typ, c.decimals)
	default:
		return sqltypes.NULL, errors.New("column " + c.name + ": cannot send a value of Go type " + typeName(v))
	}
	return sqltypes.MakeTrusted(c.typ, b), nil
}

// formatDouble prints f as MySQL prints a DOUBLE (float32: a FLOAT) in the
// text protocol (MariaDB 10.11, checked value by value against the server):
//   - a column with fixed decimals D (DOUBLE(M,D)) prints "%.Df";
//   - otherwise the shortest digits that read back as f (a FLOAT: rounded to
//     6 significant digits, trailing zeros dropped), in fixed notation when
//     the decimal exponent is between -15 and 14 (15000000000,
//     0.000000000000001) and in scientific notation otherwise, with no "+"
//     and no leading zeros in the exponent (1e15, 1.2345678901234568e17,
//     1e-16).
func formatDouble(f float64, decimals int, float bool) []byte {
	if decimals >= 0 && decimals < notFixedDec {
		return strconv.AppendFloat(nil, f, 'f', decimals, 64)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.AppendFloat(nil, f, 'g', -1, 64)
	}
	var e []byte
	if float {
		e = strconv.AppendFloat(nil, f, 'e', 5, 64)
	} else {
		e = strconv.AppendFloat(nil, f, 'e', -1, 64)
	}
	// e is [-]d[.ddd]e±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	mant, expText, _ := strings.Cut(string(e), "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return []byte{'0'}
	}
	out := make([]byte, 0, 24)
	if neg {
		out = append(out, '-')
	}
	switch {
	case exp < -15 || exp > 14:
		out = append(out, digits[0])
		if len(digits) > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		out = strconv.AppendInt(out, int64(exp), 10)
	case exp < 0:
		out = append(out, '0', '.')
		for i := -1; i > exp; i-- {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		if len(digits) <= exp+1 {
			out = append(out, digits...)
			for i := len(digits); i <= exp; i++ {
				out = append(out, '0')
			}
		} else {
			out = append(out, digits[:exp+1]...)
			out = append(out, '.')
			out = append(out, digits[exp+1:]...)
		}
	}
	return out
}

// formatExact prints f with the fewest digits that read back as the same
// float32 (a FLOAT column) or float64: a value that came from the back end
// in the binary protocol goes on to a binary-protocol client as the same
// bits (vitess parses this text back per the field type).
func formatExact(f float64, float bool) []byte {
	if float {
		return strconv.AppendFloat(nil, f, 'g', -1, 32)
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64)
}

// formatTime prints t as MySQL prints a DATE ("2006-01-02"), or a
// DATETIME/TIMESTAMP with its fractional digits ("2006-01-02
// 15:04:05.000123" for DATETIME(6)).
//
// The zero time.Time is MySQL's zero date ("0000-00-00", "0000-00-00
// 00:00:00"): the mergers decode a zero date so, and MySQL has no year 1
// date a client could tell apart from it in practice.
func formatTime(t time.Time, typ querypb.Type, decimals int) []byte {
	if t.IsZero() {
		t = time.Time{}
		b := []byte("0000-00-00")
		if typ != sqltypes.Date {
			b = append(b, " 00:00:00"...)
			if decimals > 0 && decimals <= 6 {
				b = append(b, '.')
				b = append(b, "000000"[:decimals]...)
			}
		}
		return b
	}
	if typ == sqltypes.Date {
		return t.AppendFormat(nil, "2006-01-02")
	}
	b := t.AppendFormat(nil, "2006-01-02 15:04:05")
	if decimals > 0 && decimals <= 6 {
		frac := t.Nanosecond() / 1000
		s := strconv.Itoa(1000000 + frac)[1:] // six digits
		b = append(b, '.')
		b = append(b, s[:decimals]...)
	}
	return b
}

// typeName names v's Go type without fmt.
func typeName(v any) string {
	switch v.(type) {
	case float32:
		return "float32"
	case time.Time:
		return "time.Time"
	}
	return "unsupported"
}

// errBadFloat is returned for a NaN or infinite parameter, which MySQL
// cannot store.
var errBadFloat = errors.New("a NaN or infinite floating-point parameter cannot be sent to MySQL")

// appendLiteral appends v as a MySQL literal for the text protocol, the way
// go-sql-driver's interpolateParams does, but independent of the back end's
// NO_BACKSLASH_ESCAPES: a string is quoted with ” for ' when it is valid
// UTF-8 without backslashes, and sent as a hex literal (X'...') otherwise;
// []byte is always a hex literal, a fileText (LOAD DATA) a hex literal
// with its character set's introducer (_latin1 X'...'). NULL, integers, floats (shortest
// round-trip text) and times ('2006-01-02 15:04:05.999999') as usual.
func appendLiteral(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "NULL"...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case bool:
		if x {
			return append(b, '1'), nil
		}
		return append(b, '0'), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, errBadFloat
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), nil
	case float32:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return nil, errBadFloat
		}
		return strconv.AppendFloat(b, float64(x), 'g', -1, 32), nil
	case string:
		if !utf8.ValidString(x) || strings.IndexByte(x, '\\') >= 0 {
			return appendHex(b, []byte(x)), nil
		}
		b = append(b, '\'')
		for i := 0; i < len(x); i++ {
			if x[i] == '\'' {
				b = append(b, '\'')
			}
			b = append(b, x[i])
		}
		return append(b, '\''), nil
	case []byte:
		return appendHex(b, x), nil
	case fileText:
		if x.cs != "binary" {
			b = append(append(append(b, '_'), x.cs...), ' ')
		}
		return appendHex(b, x.raw), nil
	case time.Time:
		b = append(b, '\'')
		b = x.AppendFormat(b, "2006-01-02 15:04:05.999999")
		return append(b, '\''), nil
	}
	return nil, errors.New("unsupported parameter type " + typeName(v))
}

func appendHex(b, x []byte) []byte {
	b = append(b, 'X', '\'')
	b = hex.AppendEncode(b, x)
	return append(b, '\'')
}

// interpolate replaces each `?` placeholder of query, outside quoted
// strings, quoted identifiers and comments, by the literal of the next arg.
// The number of placeholders must equal len(args).
func interpolate(query string, args []any) (string, error) {
	if len(args) == 0 {
		return query, nil
	}
	b, err := appendInterpolated(make([]byte, 0, len(query)+16*len(args)), query, args)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// appendInterpolated appends to b the query of interpolate with its
// placeholders replaced.
func appendInterpolated(b []byte, query string, args []any) ([]byte, error) {
	n := 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch c {
		case '\'', '"', '`':
			j := i + 1
			for j < len(query) {
				if query[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if query[j] == c {
					if j+1 < len(query) && query[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j >= len(query) {
				j = len(query) - 1
			}
			b = append(b, query[i:j+1]...)
			i = j
			continue
		case '#':
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				j = len(query) - i - 1
			}
			b = append(b, query[i:i+j+1]...)
			i += j
			continue
		case '-', '/':
			if c == '-' && strings.HasPrefix(query[i:], "-- ") {
				j := strings.IndexByte(query[i:], '\n')
				if j < 0 {
					j = len(query) - i - 1
				}
				b = append(b, query[i:i+j+1]...)
				i += j
				continue
			}
			if c == '/' && strings.HasPrefix(query[i:], "/*") {
				j := strings.Index(query[i+2:], "*/")
				end := len(query) - 1
				if j >= 0 {
					end = i + 2 + j + 1
				}
				b = append(b, query[i:end+1]...)
				i = end
				continue
			}
		case '?':
			if n >= len(args) {
				return b, errors.New("the statement has more placeholders than arguments (" + strconv.Itoa(len(args)) + ")")
			}
			var err error
			if b, err = appendLiteral(b, args[n]); err != nil {
				return b, err
			}
			n++
			continue
		}
		b = append(b, c)
	}
	if n != len(args) {
		return b, errors.New("the statement has " + strconv.Itoa(n) + " placeholders but " + strconv.Itoa(len(args)) + " arguments")
	}
	return b, nil
}

// clientCollation is the collation of text fields: the one the client
// asked for at handshake, or utf8mb4_general_ci when it asked for none, for
// binary, or for MySQL 8's utf8mb4_0900_ai_ci (255), which the MariaDB
// client cannot name.
func clientCollation(id collations.ID) uint32 {
	if id == 0 || id == collationBinary || id == 255 {
		return collationUTF8MB4
	}
	return uint32(id)
}

// asciiLower is s with A-Z lowered and every other byte kept, so that an
// index into it is an index into s (strings.ToLower changes the length of
// text that is not UTF-8, such as a latin1 session's 'caf\xe9').
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// originalName returns how the statement text q spells the result column
// name (case-insensitively equal to it) when name is an expression such as
// "count(*)": MySQL names such a column by the text the client wrote
// ("COUNT(*)"), while the planner prints it lower-cased. As MariaDB does, a
// string literal (_latin1'w', 'a' 'b', 'it\'s') is named by its value and
// NULL, TRUE and FALSE by the upper-cased keyword.
func originalName(q, name string) string {
	if strings.Contains(name, ":v") && strings.IndexByte(q, '?') >= 0 {
		// The planner prints a ? placeholder as :vN ("? + 1" as ":v1 + 1").
		if n := placeholderName.ReplaceAllString(name, "?"); n != name {
			if got := originalName(q, n); got != n || strings.Contains(q, n) {
				return got
			}
		}
	}
	if v, ok := literalName(name); ok {
		return v
	}
	switch strings.ToLower(name) {
	case "null", "true", "false":
		return strings.ToUpper(name)
	}
	if !strings.ContainsAny(name, "( `'") && !strings.HasPrefix(name, "@@") {
		return name // a column, a number, a placeholder: as written
	}
	if quotedIn(q, name) {
		// An alias spelled as the expression but in another case (as
		// nameAsWritten writes them: count(*) AS `COUNT(*)`): as quoted.
		return name
	}
	if i := strings.Index(asciiLower(q), asciiLower(name)); i >= 0 {
		return q[i : i+len(name)]
	}
	if len(name) > maxNameMatch {
		return name
	}
	// The planner prints identifiers quoted, spaces its own way and drops
	// a variable's SESSION scope ("LENGTH(`name`)", "a + b", "date'x'",
	// "@@time_zone"): match the client's spelling with optional quotes,
	// any spacing between tokens and an optional scope.
	var re strings.Builder
	re.WriteString("(?i)")
	start := 0
	if strings.HasPrefix(name, "@@") && !strings.HasPrefix(strings.ToLower(name), "@@global.") {
		re.WriteString(`@@(?:(?:session|local)\.)?`)
		start = 2
	}
	for i := start; i < len(name); i++ {
		// Words the planner adds: ASC after an ORDER BY item
		// (GROUP_CONCAT(x ORDER BY x) prints "order by x asc") and FROM
		// DUAL after a SELECT without a table ("(select 5 from dual)").
		if w, ok := addedWord(name[i:]); ok {
			re.WriteString(`(?:\s+` + strings.ReplaceAll(w, " ", `\s+`) + `\b)?`)
			i += len(w)
			continue
		}
		switch c := name[i]; {
		case c == '`':
			j := strings.IndexByte(name[i+1:], '`')
			if j < 0 {
				return name
			}
			re.WriteString("`?" + regexp.QuoteMeta(name[i+1:i+1+j]) + "`?")
			i += j + 1
		case c == ' ':
			re.WriteString(`\s*`)
		case c >= 0x80:
			// A whole UTF-8 character ('、' in a SEPARATOR): string(c)
			// would be another character.
			_, n := utf8.DecodeRuneInString(name[i:])
			re.WriteString(regexp.QuoteMeta(name[i : i+n]))
			i += n - 1
		case c == '_' || c == '$' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			re.WriteString(regexp.QuoteMeta(string(c)))
		default:
			re.WriteString(`\s*` + regexp.QuoteMeta(string(c)) + `\s*`)
		}
	}
	m, err := regexp.Compile(re.String())
	if err != nil {
		return name
	}
	if loc := m.FindStringIndex(q); loc != nil {
		return strings.TrimSpace(q[loc[0]:loc[1]])
	}
	return name
}

// quotedIn reports whether q holds name exactly, between backquotes.
func quotedIn(q, name string) bool {
	for i := 0; name != ""; {
		j := strings.Index(q[i:], name)
		if j < 0 {
			return false
		}
		at := i + j
		if at > 0 && q[at-1] == '`' && at+len(name) < len(q) && q[at+len(name)] == '`' {
			return true
		}
		i = at + 1
	}
	return false
}

// addedWord returns the word ("asc", "from dual") that s, the rest of a
// planner-printed name, starts with after a space, when the planner prints
// it whether or not the client wrote it.
func addedWord(s string) (string, bool) {
	for _, w := range []string{"asc", "from dual"} {
		if len(s) > len(w) && s[0] == ' ' && strings.EqualFold(s[1:1+len(w)], w) &&
			(len(s) == 1+len(w) || !isWordChar(rune(s[1+len(w)]))) {
			return w, true
		}
	}
	return "", false
}

// placeholderName matches a ? placeholder as the planner prints it.
var placeholderName = regexp.MustCompile(`:v[0-9]+\b`)

// maxNameMatch is the longest column name originalName looks for in the
// statement text with optional quotes and spacing (the match takes time
// proportional to the statement's length times the name's); MariaDB keeps
// 256 characters of a column name.
const maxNameMatch = 256

// isWordChar reports whether r may stand in an unquoted identifier or a
// number.
func isWordChar(r rune) bool {
	return r == '_' || r == '$' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80
}

// literalName returns the value of name when it is a string literal as
// the planner prints one ('it\'s', with an optional character set
// introducer _latin1 or N), the name MariaDB gives such a column; ok is
// false for anything else ('a' = 'b' included).
func literalName(name string) (string, bool) {
	s := name
	if strings.HasPrefix(s, "_") {
		i := strings.IndexByte(s, '\'')
		if i < 0 || strings.IndexFunc(strings.TrimSpace(s[1:i]), func(r rune) bool { return !isWordChar(r) }) >= 0 {
			return "", false
		}
		s = s[i:]
	} else if len(s) > 1 && (s[0] == 'N' || s[0] == 'n') && s[1] == '\'' {
		s = s[1:]
	}
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s)-1:
			i++
			switch c = s[i]; c {
			case '0':
				c = 0
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'Z':
				c = 26
			}
		case c == '\'' && i+1 < len(s)-1 && s[i+1] == '\'':
			i++
		case c == '\'' || c == '\\':
			return "", false // a quote ends the literal before the end: an expression
		}
		b.WriteByte(c)
	}
	return b.String(), true
}
