package runtime

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// TextColumn is the text column an INSERT or UPDATE stores a value in
// when the data node cannot check the value itself: an encrypted column,
// whose data node receives cipher text while its character set is the
// logic column's (the DDL's column charset, else the table's DEFAULT
// CHARSET, else utf8mb4).
type TextColumn struct {
	// Table and Column are the logic table and column, for the message.
	Table  string `json:"table"`
	Column string `json:"column"`
	// Charset is the column's character set (a MySQL name, lower case;
	// utf8 is utf8mb3).
	Charset string `json:"charset"`
	// Row is the row of the statement (from 1) the value belongs to.
	Row int `json:"row"`
}

// IncorrectStringError is MySQL's error 1366 (SQLSTATE 22007) for a value
// that holds a character its column's character set lacks, which a
// strict sql_mode (STRICT_TRANS_TABLES, MariaDB's default) refuses.
type IncorrectStringError struct {
	// Schema is the database named in the message ("" leaves it out).
	Schema string
	Column TextColumn
	// Value is the value's text from the first character the column's
	// character set lacks.
	Value string
}

// Error returns MariaDB's message: the first bytes of Value (printable
// ASCII as is, other bytes as \xHH; "..." when more follow), the column
// and the row.
func (e *IncorrectStringError) Error() string {
	var b strings.Builder
	b.WriteString("Incorrect string value: '")
	const shown = 6 // MariaDB prints at most 6 bytes of the value
	for i := 0; i < len(e.Value) && i < shown; i++ {
		c := e.Value[i]
		if c >= 0x20 && c < 0x7F {
			b.WriteByte(c)
			continue
		}
		b.WriteString(`\x`)
		b.WriteByte("0123456789ABCDEF"[c>>4])
		b.WriteByte("0123456789ABCDEF"[c&15])
	}
	if len(e.Value) > shown {
		b.WriteString("...")
	}
	b.WriteString("' for column ")
	if e.Schema != "" {
		b.WriteString("`" + e.Schema + "`.")
	}
	b.WriteString("`" + e.Column.Table + "`.`" + e.Column.Column + "` at row " + strconv.Itoa(e.Column.Row))
	return b.String()
}

// Check returns an *IncorrectStringError when the text of v (a string,
// []byte, or the text an encryptor encrypts of another value; NULL
// passes) holds a character the column's
// character set lacks, as MySQL refuses it in a strict sql_mode. Only
// the character sets whose repertoire it knows are checked: utf8mb3
// (no character beyond U+FFFF), latin1 (MariaDB's, which is cp1252),
// ascii; others pass.
func (c TextColumn) Check(v any) error {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		text, null, err := JavaText(v)
		if err != nil || null {
			return nil // the encryptor reports what it cannot encrypt
		}
		s = text
	}
	if i := lackedChar(c.Charset, s); i >= 0 {
		return &IncorrectStringError{Column: c, Value: s[i:]}
	}
	return nil
}

// lackedChar returns the byte offset in the UTF-8 text s of its first
// character that character set cs lacks, -1 when it has them all (or cs
// is one whose repertoire is not known here).
func lackedChar(cs, s string) int {
	var holds func(r rune) bool
	switch cs {
	case "utf8mb3", "utf8":
		holds = func(r rune) bool { return r <= 0xFFFF }
	case "latin1":
		holds = Latin1Has
	case "ascii":
		holds = func(r rune) bool { return r < 0x80 }
	default:
		return -1
	}
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return -1 // not UTF-8: the encryptor's concern, not the charset's
		}
		if !holds(r) {
			return i
		}
	}
	return -1
}

// Latin1Has reports whether MariaDB's latin1 (which is cp1252) has
// character r.
func Latin1Has(r rune) bool {
	return r < 0x80 || r >= 0xA0 && r <= 0xFF || strings.ContainsRune(latin1Upper, r)
}

// latin1Upper are the characters of MariaDB's latin1 (cp1252) at
// 0x80-0x9F; the five cp1252 leaves undefined are the C1 controls of the
// same number.
const latin1Upper = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ"
