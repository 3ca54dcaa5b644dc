package proxy

import (
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// Text read across data nodes arrives in the session's character set
// (character_set_results): a character it cannot hold (Chinese under
// latin1, an emoji under utf8mb3) arrives as '?'. The final rows of a
// statement may carry such '?' (MariaDB sends them too), but a value the
// proxy compares itself (a join key, a UNION's duplicate, an ORDER BY over
// joined rows) or binds into the next step's SQL would then equal every
// other '?' and miss its own row; and in a character set other than UTF-8
// the merge's UTF-8 collations cannot compare the converted text either.
//
// So in such a session the steps are planned by the weighing view of the
// planner (weighedSteps): every text key a step compares is compared by
// the data nodes' WEIGHT_STRINGs read alongside it, never by the received
// bytes; a statement merged in one step, and a step's own statement
// merged over several data nodes (stepsRun.query), likewise (weighedPlan).
// What is still lossy is a value bound into a later step's SQL as a
// literal: a text value holding '?' may stand for characters the session
// lost (checkBindable). A join's outer key holding one is not bound: the
// join reads its inner side whole instead (hash join, at most
// max-cross-node-rows rows); a subquery's value holding one is refused.
// Steps the weighing planner refuses run unweighed, and then a step that
// reads such text at all (runtime.LossyText) is refused (checkLossless)
// rather than answered wrongly.

// lossyCharset returns the character set of c's results when it cannot
// hold every character of the text columns of the logic tables statement
// q names (latin1, utf8mb3, ascii, ... where such a column's character
// set is another, or not named by its DDL; q not parsed: every logic
// table's), "" when it can (utf8mb4, binary: no conversion; a latin1
// session over latin1 tables).
func (s *Server) lossyCharset(c *mysql.Conn, q string) string {
	cs := foreignResults(c)
	if cs == "" {
		return ""
	}
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

// foreignResults returns the character set of c's results when it is
// neither utf8mb4 nor binary (latin1, utf8mb3, ...): text then reaches the
// proxy converted from its own character set, which the merge's UTF-8
// collations cannot compare (see weighedPlan); "" otherwise.
func foreignResults(c *mysql.Conn) string {
	name := collations.MySQL8().LookupName(collations.ID(resultCollation(c)))
	if name == "" || name == "binary" || strings.HasPrefix(name, "utf8mb4") {
		return ""
	}
	cs, _, _ := strings.Cut(name, "_")
	return cs
}

// weighedPlan returns p planned again with schema.Query.WeighText (every
// text key merged by the data nodes' sort keys), from the plan cache or
// planned and cached, for a session whose results are not UTF-8
// (foreignResults) when p's merge compares text itself (ComparesText).
func (s *Server) weighedPlan(p *plan.Plan) (*plan.Plan, error) {
	key := "\x00weigh\x00" + p.LogicSQL
	if w := s.cache.get(key); w != nil {
		return w, nil
	}
	w, err := s.buildQuery(p.LogicSQL, true)
	if err != nil {
		return nil, err
	}
	if len(key) <= s.opts.MaxCachedStatementSize {
		s.cache.put(key, w)
	}
	return w, nil
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

// lossyTextError is the refusal of a step's text that runtime.LossyText
// refuses in a session of character set charset: runtime.LossyTextError's text as
// ER_NOT_SUPPORTED_YET (1235).
func lossyTextError(charset string) error {
	return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000", (&runtime.LossyTextError{Charset: charset}).Error())
}

// checkLossless returns lossyTextError when charset is set (lossyCharset)
// and a value of a text column of w is runtime.LossyText; nil otherwise.
func checkLossless(charset string, w *wireResult) error {
	if charset == "" || w == nil || w.Result == nil {
		return nil
	}
	for k, c := range w.columns {
		if !textType(c.typ) {
			continue
		}
		for _, row := range w.Rows {
			if k < len(row) && lossyValue(charset, row[k]) {
				return lossyTextError(charset)
			}
		}
	}
	return nil
}

// checkRead returns checkLossless of a step's rows w that are compared
// (a join side's, a UNION part's) but not bound: nil when the steps weigh
// text (stepsRun.weigh).
func (r *stepsRun) checkRead(w *wireResult) error {
	if r.weigh {
		return nil
	}
	return checkLossless(r.lossy, w)
}

// checkBindable returns lossyTextError when r.lossy is set and a text
// value of w's columns cols (nil: every column) cannot be bound into a
// statement as the literal it was read as: it holds '?', which may stand
// for a character the session lost, or, in a session whose character set
// is not UTF-8, a byte past ASCII where exact(col) is false (the value
// would stay a literal of the session's character set, whose bytes and
// length differ from the column's). Unweighed steps check every value
// (checkLossless).
func (r *stepsRun) checkBindable(w *wireResult, cols []int, exact func(col int) bool) error {
	if !r.weigh {
		return checkLossless(r.lossy, w)
	}
	if r.lossy == "" || w == nil || w.Result == nil {
		return nil
	}
	if cols == nil {
		cols = make([]int, len(w.columns))
		for i := range cols {
			cols[i] = i
		}
	}
	utf8 := r.lossy == "utf8" || r.lossy == "utf8mb3"
	for _, k := range cols {
		if k >= len(w.columns) || !textType(w.columns[k].typ) {
			continue
		}
		strict := !utf8 && !exact(k)
		for _, row := range w.Rows {
			if k >= len(row) {
				continue
			}
			// runtime.LossyText of a UTF-8 character set finds '?' alone.
			if lossyValue("utf8mb3", row[k]) {
				return bindRefusal(r.lossy, false)
			}
			if strict && lossyValue(r.lossy, row[k]) {
				return bindRefusal(r.lossy, true)
			}
		}
	}
	return nil
}

// bindRefusal is ER_NOT_SUPPORTED_YET (1235) for a text value read in a
// session of character set charset that checkBindable refuses to bind
// (beyondASCII: for a byte past ASCII, else for a '?').
func bindRefusal(charset string, beyondASCII bool) error {
	what := "holds '?', which may stand for a character " + charset + " cannot hold"
	if beyondASCII {
		what = "holds a character beyond ASCII and its column's character set is not known, so it cannot be bound as the column's text"
	}
	return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000",
		"a text value that a step across data nodes binds into the next step's SQL "+what+" in this session's character set "+charset+
			"; run the statement from a utf8mb4 session (SET NAMES utf8mb4)")
}

// textType reports whether a column of type t holds text.
func textType(t sqltypes.Type) bool {
	switch t {
	case sqltypes.VarChar, sqltypes.Char, sqltypes.Text, sqltypes.Enum, sqltypes.Set:
		return true
	}
	return false
}

// lossyValue is runtime.LossyText of a value of a wireResult.
func lossyValue(charset string, v any) bool {
	if x, ok := v.(sqltypes.Value); ok {
		return runtime.LossyText(charset, x.Raw())
	}
	return runtime.LossyText(charset, v)
}
