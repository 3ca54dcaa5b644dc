package proxy

import (
	"context"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// ComPrepare (COM_STMT_PREPARE) plans the statement (the plan is cached by
// its text, so every execution reuses it) and returns its result columns and
// its number of ? placeholders. The columns of a SELECT come from the back
// end: its first route unit as an impossible query (`... where 1 != 1`)
// with every placeholder NULL, on the pools (never inside the session's
// transaction).
func (h *handler) ComPrepare(c *mysql.Conn, query string) ([]*querypb.Field, uint16, error) {
	ctx, end, err := h.begin(c)
	if err != nil {
		return nil, 0, err
	}
	defer end()
	fields, n, err := h.prepare(ctx, c, query)
	if err != nil {
		h.s.metrics.errors.Inc()
		return nil, 0, sqlError(err)
	}
	return fields, n, nil
}

func (h *handler) prepare(ctx context.Context, c *mysql.Conn, query string) ([]*querypb.Field, uint16, error) {
	q := trimStatement(query)
	if q == "" {
		return nil, 0, sqlerror.NewSQLError(sqlerror.EREmptyQuery, sqlerror.SSClientError, "Query was empty")
	}
	if h.sessionPrepared(q) {
		return nil, 0, nil
	}
	if word, _ := firstWord(q); word != "select" && word != "insert" && word != "update" && word != "delete" && word != "replace" {
		return nil, 0, notSupported("preparing " + word + " statements")
	}
	if err := checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName); err != nil {
		return nil, 0, err
	}
	p, err := h.s.plan(q)
	if err != nil {
		return nil, 0, err
	}
	n := len(clientParams(p))
	if n > 65535 {
		return nil, 0, sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, "Prepared statement contains too many placeholders")
	}
	if p.Statement != plan.StmtSelect || len(p.Route.Units) == 0 {
		return nil, uint16(n), nil
	}
	cols, err := h.prepareColumns(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	charset := clientCollation(c.CharacterSet)
	fields := make([]*querypb.Field, len(cols))
	for i := range cols {
		fields[i] = cols[i].field(charset)
	}
	return fields, uint16(n), nil
}

// sessionPrepared reports whether the prepared statement q is one the
// proxy answers itself (BEGIN, COMMIT, ROLLBACK, SET, USE, SHOW, PREVIEW
// and SELECTs without a table, as in sessionStatement) and has no ?
// placeholder: it is prepared with no parameters and no columns, and each
// execution runs it as a text statement (sysbench prepares BEGIN and
// COMMIT).
func (h *handler) sessionPrepared(q string) bool {
	if strings.Contains(q, "?") {
		return false // a statement with parameters is planned, never a session statement; checked first: parsing here cost 15 % of proxy CPU per prepared point select (docs/benchmarks.md)
	}
	word, _ := firstWord(q)
	switch word {
	case "begin", "start", "commit", "rollback", "set", "use", "show", "preview":
	case "select":
		stmt, err := h.s.b.Parser().Parse(q)
		if err != nil {
			return false
		}
		sel, ok := stmt.(*sqlparser.Select)
		if !ok {
			return false
		}
		for _, t := range sqlparser.ExtractAllTables(sel) {
			if !strings.EqualFold(t, "dual") {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// prepareColumns returns the result columns of the SELECT p without its
// parameters.
func (h *handler) prepareColumns(ctx context.Context, p *plan.Plan) ([]column, error) {
	u := p.Route.Units[0]
	stmt, err := h.s.b.Parser().Parse(u.SQL)
	if err != nil {
		return nil, err
	}
	buf := sqlparser.NewTrackedBuffer(func(buf *sqlparser.TrackedBuffer, n sqlparser.SQLNode) {
		if _, ok := n.(*sqlparser.Argument); ok {
			buf.WriteString("null")
			return
		}
		n.Format(buf)
	})
	sqlparser.FormatImpossibleQuery(buf, stmt)
	ds := -1
	for i, name := range h.s.in.names {
		if name == p.Route.DataSources[u.DataSource] {
			ds = i
		}
	}
	if ds < 0 {
		return nil, sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, "data source "+strconv.Quote(p.Route.DataSources[u.DataSource])+" is not configured")
	}
	text := buf.String()
	rows, err := h.s.in.src.Query(ctx, &runtime.Stmt{Name: "prepare", LogicSQL: p.LogicSQL}, runtime.RouteUnit{DataSource: ds, SQL: text})
	if err != nil {
		return nil, err
	}
	cols, _, err := readRows(rows)
	if err != nil {
		return nil, err
	}
	if len(cols) > len(p.Columns) {
		cols = cols[:len(p.Columns)] // derived columns of a merge
	}
	for i := range cols {
		if i < len(p.Columns) {
			cols[i].name = originalName(p.LogicSQL, p.Columns[i].Name)
		}
	}
	return cols, nil
}

// ComStmtExecute (COM_STMT_EXECUTE) runs a prepared statement with the
// values vitess decoded from the binary packet ("v1".."vN"); the rows go
// back in the binary protocol, every value typed as its field.
func (h *handler) ComStmtExecute(c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	ctx, end, err := h.begin(c)
	if err != nil {
		return err
	}
	defer end()
	res, err := h.stmtExecute(ctx, c, prepare)
	if err != nil {
		h.s.metrics.errors.Inc()
		return sqlError(err)
	}
	return callback(res)
}

func (h *handler) stmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData) (*sqltypes.Result, error) {
	q := trimStatement(prepare.PrepareStmt)
	if h.sessionPrepared(q) {
		return h.query(ctx, c, q)
	}
	p, err := h.s.plan(q)
	if err != nil {
		return nil, err
	}
	n := len(clientParams(p))
	vals := make([]any, n)
	for i := range vals {
		bv, ok := prepare.BindVars["v"+strconv.Itoa(i+1)]
		if !ok {
			return nil, sqlerror.NewSQLError(sqlerror.ERWrongArguments, sqlerror.SSUnknownSQLState, "Incorrect arguments to EXECUTE: parameter "+strconv.Itoa(i+1)+" is missing")
		}
		if vals[i], err = bindValue(bv); err != nil {
			return nil, sqlerror.NewSQLError(sqlerror.ERWrongArguments, sqlerror.SSUnknownSQLState, "Incorrect arguments to EXECUTE: parameter "+strconv.Itoa(i+1)+": "+err.Error())
		}
	}
	return h.execute(ctx, c, sessionOf(c), p, vals)
}
