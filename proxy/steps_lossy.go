package proxy

import (
	"bytes"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// Text read across data nodes arrives in the session's character set
// (character_set_results): a character it cannot hold (Chinese under
// latin1, an emoji under utf8mb3) arrives as '?'. The final rows of a
// statement may carry such '?' (MariaDB sends them too), but a value the
// proxy compares itself (a join key, a UNION's duplicate, an ORDER BY over
// joined rows) or binds into the next step's SQL would then equal every
// other '?' and miss its own row. Until the steps read text losslessly, a
// step that reads text holding '?' in such a session is refused
// (lossyCharset, checkLossless) rather than answered wrongly.

// lossyCharset returns the character set of c's results when it cannot
// hold every character of the text columns of the logic tables statement
// q names (latin1, utf8mb3, ascii, ... where such a column's character
// set is another, or not named by its DDL; q not parsed: every logic
// table's), "" when it can (utf8mb4, binary: no conversion; a latin1
// session over latin1 tables).
func (s *Server) lossyCharset(c *mysql.Conn, q string) string {
	name := collations.MySQL8().LookupName(collations.ID(resultCollation(c)))
	if name == "" || name == "binary" || strings.HasPrefix(name, "utf8mb4") {
		return ""
	}
	cs, _, _ := strings.Cut(name, "_")
	var tables []string
	if stmt, err := s.b.Parser().Parse(q); err == nil {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if t, ok := n.(sqlparser.TableName); ok && !t.Name.IsEmpty() {
				tables = append(tables, t.Name.String())
			}
			return true, nil
		}, stmt)
	}
	for _, col := range s.b.TextCharsets(tables...) {
		if !holdsCharset(cs, col) {
			return cs
		}
	}
	return ""
}

// holdsCharset reports whether every character of character set col has
// one in character set session ("" col: unknown, no).
func holdsCharset(session, col string) bool {
	switch {
	case col == "":
		return false
	case col == session, col == "ascii":
		return true
	case col == "utf8" || col == "utf8mb3":
		return session == "utf8" || session == "utf8mb3"
	case col == "latin1":
		return session == "utf8" || session == "utf8mb3"
	}
	return false
}

// lossyTextError is the refusal of a step's text that holds '?' in a
// session of character set charset: runtime.LossyTextError's text as
// ER_NOT_SUPPORTED_YET (1235).
func lossyTextError(charset string) error {
	return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000", (&runtime.LossyTextError{Charset: charset}).Error())
}

// checkLossless returns lossyTextError when charset is set (lossyCharset)
// and a text column of w holds '?'; nil otherwise.
func checkLossless(charset string, w *wireResult) error {
	if charset == "" || w == nil || w.Result == nil {
		return nil
	}
	for k, c := range w.columns {
		switch c.typ {
		case sqltypes.VarChar, sqltypes.Char, sqltypes.Text, sqltypes.Enum, sqltypes.Set:
		default:
			continue
		}
		for _, row := range w.Rows {
			if k < len(row) && holdsQuestionMark(row[k]) {
				return lossyTextError(charset)
			}
		}
	}
	return nil
}

// holdsQuestionMark reports whether the text value v holds '?'.
func holdsQuestionMark(v any) bool {
	switch x := v.(type) {
	case []byte:
		return bytes.IndexByte(x, '?') >= 0
	case string:
		return strings.IndexByte(x, '?') >= 0
	case sqltypes.Value:
		return bytes.IndexByte(x.Raw(), '?') >= 0
	}
	return false
}
