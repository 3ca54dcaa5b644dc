package proxy

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"unicode/utf8"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/runtime"
)

// sessionStatement answers the statements the proxy handles itself rather
// than planning them: USE, SET, BEGIN/START TRANSACTION, COMMIT, ROLLBACK,
// SHOW DATABASES/TABLES, PREVIEW and SELECTs without a table. ok is false
// for every other statement. The plain transaction statements (plainTx)
// are answered without parsing (directTx).
func (h *handler) sessionStatement(ctx context.Context, c *mysql.Conn, sess *session, q string) (res *sqltypes.Result, ok bool, err error) {
	if k := plainTx(q); k != txNone {
		return &sqltypes.Result{}, true, h.directTx(c, sess, k)
	}
	if k, name, ok := savepointStmt(q); ok {
		return &sqltypes.Result{}, true, h.savepoint(ctx, c, sess, k, name)
	}
	word, rest := firstWord(q)
	switch word {
	case "preview":
		res, err = h.preview(ctx, c, sess, rest)
		return res, true, err
	case "explain":
		// EXPLAIN t [column] is DESCRIBE t [column] (unsupportedStatement
		// refused EXPLAIN of a statement).
		if res, ok, err := h.showTable(ctx, c, "DESCRIBE "+rest); ok {
			return res, true, err
		}
		return nil, true, notSupported("EXPLAIN: PREVIEW <statement> shows the actual SQL of every data source")
	case "show", "describe", "desc":
		if res, ok, err := h.showWarnings(c, sess, q); ok {
			return res, true, err
		}
		if res, ok, err := h.showTable(ctx, c, q); ok {
			return res, true, err
		}
		if word != "show" {
			return nil, false, nil
		}
		if res, ok, err := h.showShardingTableRules(c, q); ok {
			return res, true, err
		}
		if stmt, err := h.s.b.Parser().Parse(q); err == nil {
			if show, ok := stmt.(*sqlparser.Show); ok {
				if basic, ok := show.Internal.(*sqlparser.ShowBasic); ok {
					if res, ok, err := h.showTables(ctx, c, sess, basic); ok {
						return res, true, err
					}
					if res, ok, err := h.showVariables(ctx, c, sess, basic); ok {
						return res, true, err
					}
				}
			}
		}
		res, err = h.show(c, q)
		return res, true, err
	case "create", "alter", "drop", "truncate", "rename":
		if err := checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName); err != nil {
			return nil, true, err
		}
		stmt, err := h.s.b.Parser().Parse(q)
		if err != nil {
			switch w := leadingWords(q, 2); w[1] {
			case "table", "temporary", "index", "unique", "fulltext", "spatial", "online", "offline", "ignore":
			default:
				if w[0] != "truncate" {
					// CREATE USER, DROP EVENT, ...: statements the SQL
					// parser does not know, which are not logic tables'.
					return nil, true, notSupported(statementKind(q) + " statements")
				}
			}
			return nil, true, sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "You have an error in your SQL syntax; "+err.Error())
		}
		if res, ok, err := h.ddl(ctx, sess, c, stmt); ok {
			return res, true, err
		}
		// CREATE VIEW, CREATE DATABASE, DROP PROCEDURE, ...
		return nil, true, notSupported(statementKind(q) + " statements")
	case "do":
		res, err = h.do(ctx, c, sess, q, rest)
		return res, true, err
	case "use", "set", "begin", "start", "commit", "rollback", "select":
	case "":
		if !strings.HasPrefix(q, "(") {
			return nil, false, nil
		}
		word = "select" // (SELECT ...)
	default:
		return nil, false, nil
	}
	stmt, err := h.s.b.Parser().Parse(q)
	if err != nil && word == "set" {
		if st, err2 := h.s.b.Parser().Parse(colonEqualsAsEquals(q)); err2 == nil {
			stmt, err = st, nil // the back ends run q as written
		}
	}
	if err != nil {
		if word == "select" {
			return nil, false, nil // the planner reports it
		}
		return nil, true, sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "You have an error in your SQL syntax; "+err.Error())
	}
	if res, ok, err := h.infoSchema(ctx, c, sess, q, stmt); ok {
		return res, true, err
	}
	if res, ok, err := h.connectAttrs(ctx, c, sess, q, stmt); ok {
		return res, true, err
	}
	switch st := stmt.(type) {
	case *sqlparser.Use:
		name := st.DBName.String()
		if name == "" {
			return nil, true, sqlerror.NewSQLError(sqlerror.ERNoDb, "3D000", "No database selected")
		}
		if err := checkDatabase(h.s.cfg, c.UserData, name); err != nil {
			return nil, true, err
		}
		sess.db = h.s.cfg.Rules.DatabaseName
		return &sqltypes.Result{}, true, nil
	case *sqlparser.Set:
		return h.set(ctx, c, sess, st, q)
	case *sqlparser.Begin:
		var readOnly *bool
		for _, m := range st.TxAccessModes {
			if m == sqlparser.ReadOnly || m == sqlparser.ReadWrite {
				ro := m == sqlparser.ReadOnly
				readOnly = &ro
			}
		}
		return &sqltypes.Result{}, true, h.txBegin(c, sess, readOnly)
	case *sqlparser.Commit:
		return &sqltypes.Result{}, true, h.txEnd(c, sess, true)
	case *sqlparser.Rollback:
		return &sqltypes.Result{}, true, h.txEnd(c, sess, false)
	case *sqlparser.Select:
		if !tableless(st) {
			return nil, false, nil
		}
		res, err = h.selectNoTable(ctx, c, sess, q, st)
		return res, true, err
	case *sqlparser.Union:
		if !tableless(st) {
			return nil, false, nil
		}
		if h.s.backends != nil && h.learnNoTable(q, q) && h.fastNow(c, sess) {
			return nil, true, errFastNow
		}
		res, err = h.runNoTable(ctx, c, sess, q)
		return res, true, err
	}
	return nil, false, nil
}

// do answers DO expr, ... (rest: the expressions) when the expressions read
// no table: the statement runs on the first data source, as selectNoTable
// runs a SELECT without a table, and answers OK.
func (h *handler) do(ctx context.Context, c *mysql.Conn, sess *session, q, rest string) (*sqltypes.Result, error) {
	stmt, err := h.s.b.Parser().Parse("SELECT " + rest)
	if err != nil {
		return nil, sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "You have an error in your SQL syntax; "+err.Error())
	}
	if !tableless(stmt) {
		return nil, notSupported("DO statements that read tables")
	}
	e, err := h.executor(c, sess)
	if err != nil {
		return nil, err
	}
	if err := h.onLiveDataSource(sess, func(ds int) error {
		_, err := e.Exec(withOwner(ctx, sess.tag), &runtime.Stmt{Name: "proxy", LogicSQL: q}, runtime.RouteUnit{DataSource: ds, SQL: sess.toBackend(q)})
		return err
	}); err != nil {
		return nil, err
	}
	return &sqltypes.Result{}, nil
}

// tableless reports whether stmt reads no table (SELECT 1, SELECT NOW()
// FROM dual, SELECT 1 UNION SELECT 2, ...): the proxy runs it on one data
// source (selectNoTable, runNoTable).
func tableless(stmt sqlparser.Statement) bool {
	for _, t := range sqlparser.ExtractAllTables(stmt) {
		if !strings.EqualFold(t, "dual") {
			return false
		}
	}
	return true
}

// firstWord returns the lower-cased first word of q and the text after it.
func firstWord(q string) (string, string) {
	i := strings.IndexAny(q, " \t\r\n(")
	if i < 0 {
		return strings.ToLower(q), ""
	}
	return strings.ToLower(q[:i]), strings.TrimSpace(q[i:])
}

// sysVarName reports whether name can be a system variable name (letters,
// digits, _), so that it may go into SQL text.
func sysVarName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// sameVariable reports whether the session variable name already has the
// value expr on every data source (false when a back end cannot compare).
func (h *handler) sameVariable(ctx context.Context, name string, expr sqlparser.Expr) bool {
	q := "SELECT @@session." + name + " <=> " + sqlparser.String(expr)
	for i := range h.s.in.names {
		rows, err := h.s.in.src.Query(ctx, &runtime.Stmt{Name: "set", LogicSQL: q}, runtime.RouteUnit{DataSource: i, SQL: q})
		if err != nil {
			return false
		}
		_, vals, err := readRows(rows)
		if err != nil || len(vals) != 1 || len(vals[0]) != 1 {
			return false
		}
		if n, ok := vals[0][0].(int64); !ok || n != 1 {
			return false
		}
	}
	return true
}

// selectNoTable answers a SELECT without a table (SELECT 1, NOW(),
// @@max_allowed_packet...): it runs noTableSQL on the first data source.
// ShardingSphere routes such a statement to one data source of the rule
// too (a random one, ShardingUnicastRoutingEngine); the first one keeps
// the answer and PREVIEW deterministic.
func (h *handler) selectNoTable(ctx context.Context, c *mysql.Conn, sess *session, q string, st *sqlparser.Select) (*sqltypes.Result, error) {
	text, bySession := h.noTableSQLOf(sess, q, st)
	if !bySession && h.s.backends != nil && h.learnNoTable(q, text) && h.fastNow(c, sess) {
		return nil, errFastNow
	}
	return h.runNoTable(ctx, c, sess, text)
}

// runNoTable runs text, a statement without a table, on the first data
// source in the session's transaction or on its connections, and returns
// its rows.
func (h *handler) runNoTable(ctx context.Context, c *mysql.Conn, sess *session, text string) (*sqltypes.Result, error) {
	e, err := h.executor(c, sess)
	if err != nil {
		return nil, err
	}
	var rows *sql.Rows
	err = h.onLiveDataSource(sess, func(ds int) (err error) {
		rows, err = e.Query(withOwner(ctx, sess.tag), &runtime.Stmt{Name: "proxy", LogicSQL: text}, runtime.RouteUnit{DataSource: ds, SQL: sess.toBackend(text)})
		return err
	})
	if err != nil {
		return nil, err
	}
	cols, vals, err := readRows(rows)
	if err != nil {
		return nil, err
	}
	return rowsResult(cols, vals, resultCollation(c))
}

// noTableSQL returns the text selectNoTable runs for st, the SELECT
// without a table q: each column named as the client wrote it, DATABASE()
// and SCHEMA() the session's logic database, LAST_INSERT_ID() and
// @@autocommit the session's, @@version and @@version_comment the proxy's.
// st is changed.
func (h *handler) noTableSQL(sess *session, q string, st *sqlparser.Select) string {
	text, _ := h.noTableSQLOf(sess, q, st)
	return text
}

// noTableSQLOf is noTableSQL; bySession is true when the text holds a
// value of the session (its database, LAST_INSERT_ID(), @@autocommit).
func (h *handler) noTableSQLOf(sess *session, q string, st *sqlparser.Select) (text string, bySession bool) {
	// Name each column as the client wrote it, as MySQL does, before the
	// rewrite below changes the expression.
	nameAsWritten(q, st)
	var db sqlparser.Expr = &sqlparser.NullVal{}
	if sess.db != "" {
		db = sqlparser.NewStrLiteral(sess.db)
	}
	out := sqlparser.Rewrite(st, nil, func(cur *sqlparser.Cursor) bool {
		switch n := cur.Node().(type) {
		case *sqlparser.FuncExpr:
			fn := n.Name.Lowered()
			if (fn == "database" || fn == "schema") && len(n.Exprs) == 0 {
				cur.Replace(db)
				bySession = true
			}
			if fn == "last_insert_id" && len(n.Exprs) == 0 {
				cur.Replace(sqlparser.NewIntLiteral(strconv.FormatUint(sess.lastInsertID, 10)))
				bySession = true
			}
		case *sqlparser.Variable:
			if n.Scope == sqlparser.VariableScope || n.Scope == sqlparser.GlobalScope {
				return true
			}
			switch n.Name.Lowered() {
			case "autocommit":
				bySession = true
				// The pools' connections run in autocommit: their value
				// (1, a nullable BIGINT as MySQL types it) is the
				// session's unless it turned autocommit off.
				if sess.manual {
					cur.Replace(&sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("LEAST"), Exprs: []sqlparser.Expr{n, sqlparser.NewIntLiteral("0")}})
				}
			case "last_insert_id", "identity":
				bySession = true
				cur.Replace(sqlparser.NewIntLiteral(strconv.FormatUint(sess.lastInsertID, 10)))
			case "version":
				cur.Replace(sysVarText(h.s.opts.ServerVersion))
			case "version_comment":
				cur.Replace(sysVarText(versionComment))
			case "warning_count", "error_count":
				// The session's last statement's (warnings.go), typed
				// as MySQL types them (BIGINT UNSIGNED: n | 0).
				bySession = true
				count := sess.warn.count
				if n.Name.Lowered() == "error_count" {
					count = sess.warn.errorCount()
				}
				cur.Replace(&sqlparser.BinaryExpr{Operator: sqlparser.BitOrOp, Left: sqlparser.NewIntLiteral(strconv.Itoa(count)), Right: sqlparser.NewIntLiteral("0")})
			}
		}
		return true
	})
	return sqlparser.String(out), bySession
}

// nameAsWritten names each unnamed expression column of the SELECT st
// (the first SELECT of a UNION) as the statement text q spells it, as
// MySQL names it, so that printing st again (lower-cased functions,
// quoted identifiers) does not change the column's name. Columns that
// are column references keep their own name.
func nameAsWritten(q string, st sqlparser.Statement) {
	for {
		u, ok := st.(*sqlparser.Union)
		if !ok {
			break
		}
		st = u.Left
	}
	sel, ok := st.(*sqlparser.Select)
	if !ok {
		return
	}
	for _, se := range sel.GetColumns() {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() || namedByValue(ae.Expr) {
			continue
		}
		if _, col := ae.Expr.(*sqlparser.ColName); col {
			continue
		}
		// vitess prints an identifier rune by rune: text that is not
		// UTF-8 (a latin1 session's 'caf\xe9') would reach the server as
		// U+FFFD; such a column keeps the server's name for the text.
		if name := originalName(q, sqlparser.String(ae.Expr)); utf8.ValidString(name) {
			ae.As = sqlparser.NewIdentifierCI(name)
		}
	}
}

// namedByValue reports whether the server names a column of e by the
// value of e whatever its spelling: a string literal, with or without an
// introducer. Such a column needs no alias (which would carry the value in
// UTF-8 into a session of another character set, whose server converts a
// literal's value to character_set_results for its name).
func namedByValue(e sqlparser.Expr) bool {
	if in, ok := e.(*sqlparser.IntroducerExpr); ok {
		e = in.Expr
	}
	l, ok := e.(*sqlparser.Literal)
	return ok && l.Type == sqlparser.StrVal
}

// show answers SHOW DATABASES / SCHEMAS with the logic database (SHOW
// [FULL] TABLES and TABLE STATUS: showTables).
func (h *handler) show(c *mysql.Conn, q string) (*sqltypes.Result, error) {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 2 && (words[1] == "databases" || words[1] == "schemas") {
		res := &sqltypes.Result{Fields: []*querypb.Field{{Name: "Database", Type: sqltypes.VarChar, Charset: resultCollation(c),
			ColumnLength: 256, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)}}}
		if checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName) == nil {
			res.Rows = []sqltypes.Row{{sqltypes.NewVarChar(h.s.cfg.Rules.DatabaseName)}}
		}
		return res, nil
	}
	return nil, notSupported(q)
}

// preview answers ShardingSphere's `PREVIEW <sql>`: one row per route unit,
// (data_source_name, actual_sql), with literal values; a statement with ?
// placeholders is refused. A SELECT without a table previews as the proxy
// runs it (selectNoTable): one row, the first data source. Statements the
// proxy answers itself or does not support (SET, SHOW, DDL, ...) are
// refused with their kind.
func (h *handler) preview(ctx context.Context, c *mysql.Conn, sess *session, q string) (*sqltypes.Result, error) {
	q = trimStatement(q)
	if q == "" {
		return nil, sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "PREVIEW needs a statement")
	}
	charset := resultCollation(c)
	res := &sqltypes.Result{Fields: []*querypb.Field{
		{Name: "data_source_name", Type: sqltypes.VarChar, Charset: charset, ColumnLength: 256},
		{Name: "actual_sql", Type: sqltypes.VarChar, Charset: charset, ColumnLength: 65535},
	}}
	names := h.s.in.names
	switch leadingWords(q, 1)[0] {
	case "select", "(":
		if stmt, err := h.s.b.Parser().Parse(q); err == nil {
			if sel, ok := stmt.(*sqlparser.Select); ok && tableless(sel) {
				res.Rows = append(res.Rows, sqltypes.Row{sqltypes.NewVarChar(names[0]), sqltypes.NewVarChar(h.noTableSQL(sess, q, sel))})
				return res, nil
			}
		}
	case "insert", "update", "delete", "replace", "with":
	case "create", "alter", "drop", "truncate":
		// DDL on a logic table: the statement over each actual table.
		stmt, err := h.s.b.Parser().Parse(q)
		if err != nil {
			return nil, sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, err.Error())
		}
		logic, ok := ddlTable(stmt)
		if !ok {
			return nil, notSupported("PREVIEW of this " + statementKind(q) + " statement (one logic table at a time)")
		}
		nodes, texts, err := h.s.ddlUnits(ctx, stmt, logic)
		if err != nil {
			return nil, err
		}
		for i, n := range nodes {
			res.Rows = append(res.Rows, sqltypes.Row{sqltypes.NewVarChar(names[n.ds]), sqltypes.NewVarChar(texts[i])})
		}
		return res, nil
	case "show", "describe", "desc", "explain":
		// A SHOW the proxy runs on a data node: where and what.
		rows, err := h.previewShow(ctx, c, sess, q)
		if err != nil {
			return nil, err
		}
		res.Rows = rows
		return res, nil
	default:
		if err := unsupportedStatement(q); err != nil {
			return nil, err
		}
		return nil, notSupported("PREVIEW of " + statementKind(q) + " statements")
	}
	p, err := h.s.plan(ctx, q)
	if err != nil {
		if rows, ok, serr := h.previewSteps(q, err); ok {
			res.Rows = rows
			return res, serr
		}
		return nil, err
	}
	if res.Rows, err = h.previewPlan(p, ""); err != nil {
		return nil, err
	}
	return res, nil
}

// previewShow returns the PREVIEW rows of a SHOW statement the proxy runs
// on a data node: SHOW CREATE TABLE, SHOW COLUMNS, SHOW INDEX and DESCRIBE
// of a logic table (its first actual table, showTableUnit), and SHOW
// VARIABLES / STATUS (the first data source, the statement as it is). SHOW
// DATABASES, SHOW TABLES and SHOW TABLE STATUS the proxy answers from its
// own metadata: refused, saying so.
func (h *handler) previewShow(ctx context.Context, c *mysql.Conn, sess *session, q string) ([]sqltypes.Row, error) {
	names := h.s.in.names
	if u, ok, err := h.showTableUnit(ctx, c, describeText(q)); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return []sqltypes.Row{{sqltypes.NewVarChar(names[u.n.ds]), sqltypes.NewVarChar(u.text)}}, nil
	}
	text, err := showOnFirstSource(h.s.b.Parser(), q)
	if err != nil {
		return nil, err
	}
	return []sqltypes.Row{{sqltypes.NewVarChar(names[0]), sqltypes.NewVarChar(sess.toBackend(text))}}, nil
}

// describeText is q with EXPLAIN t spelled DESCRIBE t (the same statement
// in MySQL).
func describeText(q string) string {
	if w := leadingWords(q, 1)[0]; w == "explain" {
		return "DESCRIBE " + strings.TrimSpace(q[len("explain"):])
	}
	return q
}

// showOnFirstSource returns the statement the proxy runs on the first data
// source for SHOW [SESSION|GLOBAL] VARIABLES or STATUS q; SHOW TABLES,
// TABLE STATUS and DATABASES, which the proxy answers from its logic
// tables, and other SHOW statements are refused (ERROR 1235).
func showOnFirstSource(parser *sqlparser.Parser, q string) (string, error) {
	if stmt, err := parser.Parse(q); err == nil {
		if show, ok := stmt.(*sqlparser.Show); ok {
			if basic, ok := show.Internal.(*sqlparser.ShowBasic); ok {
				switch basic.Command {
				case sqlparser.VariableSession, sqlparser.VariableGlobal, sqlparser.StatusSession, sqlparser.StatusGlobal:
					return sqlparser.String(&sqlparser.Show{Internal: basic}), nil
				case sqlparser.Table, sqlparser.TableStatus, sqlparser.Database:
					return "", notSupported("PREVIEW of SHOW " + strings.ToUpper(strings.TrimSpace(basic.Command.ToString())) + ": the proxy answers it from its logic tables, not by running it on a data node")
				}
			}
		}
	}
	return "", notSupported("PREVIEW of this SHOW statement")
}

// previewPlan returns the PREVIEW rows of p: one per route unit, with
// literal values, each SQL after prefix.
func (h *handler) previewPlan(p *plan.Plan, prefix string) ([]sqltypes.Row, error) {
	if len(clientParams(p)) != 0 {
		return nil, sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "PREVIEW of a statement with placeholders (?) is not supported")
	}
	params, values, _, err := prepareParams(p, nil, h.s.keyGenerator(p))
	if err != nil {
		return nil, err
	}
	units, err := h.s.in.units(p, values, params)
	if err != nil {
		return nil, err
	}
	args, err := h.s.in.nodeArgs(p, params)
	if err != nil {
		return nil, err
	}
	var rows []sqltypes.Row
	for _, u := range units {
		uargs := args
		if u.Args != nil {
			uargs = u.Args
		}
		text, err := interpolate(u.SQL, uargs)
		if err != nil {
			return nil, err
		}
		rows = append(rows, sqltypes.Row{sqltypes.NewVarChar(h.s.in.names[u.DataSource]), sqltypes.NewVarChar(prefix + text)})
	}
	return rows, nil
}

// sameTimeZone reports whether the time zone tz (an expression) shows the
// same local time now as the back end's session time zone, on every data
// source.
func (h *handler) sameTimeZone(ctx context.Context, tz sqlparser.Expr) (bool, error) {
	q := "SELECT CONVERT_TZ(NOW(), @@session.time_zone, " + sqlparser.String(tz) + ") <=> NOW()"
	for i := range h.s.in.names {
		rows, err := h.s.in.src.Query(ctx, &runtime.Stmt{Name: "time_zone", LogicSQL: q}, runtime.RouteUnit{DataSource: i, SQL: q})
		if err != nil {
			return false, err
		}
		_, vals, err := readRows(rows)
		if err != nil {
			return false, err
		}
		if len(vals) != 1 || len(vals[0]) != 1 {
			return false, nil
		}
		if n, ok := vals[0][0].(int64); !ok || n != 1 {
			return false, nil
		}
	}
	return true, nil
}

// implicitCommit commits the session's open transaction, as MySQL does
// before DDL and on SET autocommit=1; nothing when none is open.
func implicitCommit(c *mysql.Conn, sess *session) error {
	if sess.tx == nil {
		return nil
	}
	tx := sess.tx
	sess.tx = nil
	c.StatusFlags &^= mysql.ServerStatusInTrans
	return tx.Commit()
}

// colonEqualsAsEquals returns q with every := outside quotes written " =":
// MySQL's SET accepts both (SET @x := 1), vitess's parser only =.
func colonEqualsAsEquals(q string) string {
	b := []byte(q)
	var quote byte
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case quote != 0:
			if c == '\\' && quote != '`' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == ':' && i+1 < len(b) && b[i+1] == '=':
			b[i] = ' '
		}
	}
	return string(b)
}

// txKind is what a plain transaction statement does (plainTx).
type txKind uint8

// The plain transaction statements.
const (
	txNone     txKind = iota // not one
	txBegin                  // BEGIN [WORK], START TRANSACTION
	txCommit                 // COMMIT [WORK]
	txRollback               // ROLLBACK [WORK]
)

// plainTx reports which plain transaction statement q is: BEGIN [WORK],
// START TRANSACTION, COMMIT [WORK] or ROLLBACK [WORK], in any letter case,
// after white space and comments (/* ... */, -- ..., # ...; not an
// executable comment /*! ... */ or /*M! ... */, which may hold SQL),
// followed only by white space and at most one ';'. txNone for every
// other statement, START TRANSACTION READ ONLY, COMMIT AND CHAIN and
// ROLLBACK TO SAVEPOINT included: they take the parsed path
// (sessionStatement). It allocates nothing.
func plainTx(q string) txKind {
	i := 0
	for i < len(q) {
		c := q[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		if strings.HasPrefix(q[i:], "/*") {
			if strings.HasPrefix(q[i+2:], "!") || strings.HasPrefix(q[i+2:], "M!") {
				return txNone
			}
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return txNone
			}
			i += end + 4
			continue
		}
		if c == '#' || dashComment(q[i:]) {
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				return txNone
			}
			i += end + 1
			continue
		}
		break
	}
	w, i := txWord(q, i)
	var k txKind
	optional := "work"
	switch {
	case strings.EqualFold(w, "begin"):
		k = txBegin
	case strings.EqualFold(w, "commit"):
		k = txCommit
	case strings.EqualFold(w, "rollback"):
		k = txRollback
	case strings.EqualFold(w, "start"):
		if w, i = txWord(q, i); !strings.EqualFold(w, "transaction") {
			return txNone
		}
		k, optional = txBegin, ""
	default:
		return txNone
	}
	if optional != "" {
		if w, j := txWord(q, i); strings.EqualFold(w, optional) {
			i = j
		}
	}
	i = skipSpace(q, i)
	if i < len(q) && q[i] == ';' {
		i = skipSpace(q, i+1)
	}
	if i != len(q) {
		return txNone
	}
	return k
}

// txWord returns the word (letters, digits, _) of q at i after white
// space, and the index after it; "" when none is there.
func txWord(q string, i int) (string, int) {
	i = skipSpace(q, i)
	j := i
	for j < len(q) && (q[j] == '_' || q[j] >= '0' && q[j] <= '9' || q[j]|0x20 >= 'a' && q[j]|0x20 <= 'z') {
		j++
	}
	return q[i:j], j
}

// skipSpace returns the index of the first byte of q at or after i that
// is not white space.
func skipSpace(q string, i int) int {
	for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r') {
		i++
	}
	return i
}

// directTx runs the plain transaction statement k (plainTx) in c's
// session without parsing it: BEGIN as txBegin, COMMIT and ROLLBACK as
// txEnd.
func (h *handler) directTx(c *mysql.Conn, sess *session, k txKind) error {
	if k == txBegin {
		return h.txBegin(c, sess, nil)
	}
	return h.txEnd(c, sess, k == txCommit)
}

// txBegin begins a transaction in c's session, as MySQL's BEGIN / START
// TRANSACTION: an open one is committed first (its commit error is the
// statement's, and no transaction begins), readOnly (when not nil) is the
// new transaction's access mode (START TRANSACTION READ ONLY / READ
// WRITE), and SERVER_STATUS_IN_TRANS is set. Nothing is sent to the data
// sources: a LOCAL transaction begins on a data source with the first
// statement routed there (runtime.DistTx).
func (h *handler) txBegin(c *mysql.Conn, sess *session, readOnly *bool) error {
	if sess.tx != nil {
		if err := sess.tx.Commit(); err != nil {
			return err
		}
	}
	if readOnly != nil {
		sess.next.ReadOnly = *readOnly
	}
	tx, err := h.beginTx(sess)
	if err != nil {
		return err
	}
	h.txBegun(c)
	sess.tx = tx
	c.StatusFlags |= mysql.ServerStatusInTrans
	return nil
}

// txEnd commits (commit) or rolls back the session's transaction on
// every data source it used, as MySQL's COMMIT / ROLLBACK, and clears
// SERVER_STATUS_IN_TRANS; nothing when none is open.
func (h *handler) txEnd(c *mysql.Conn, sess *session, commit bool) error {
	c.StatusFlags &^= mysql.ServerStatusInTrans
	if sess.tx == nil {
		return nil
	}
	tx := sess.tx
	sess.tx = nil
	if commit {
		return tx.Commit()
	}
	return tx.Rollback()
}
