package proxy

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// Session settings follow vitess's settings pools: a session runs on the
// data sources' own pools until a setting differs from the pools' defaults
// (the handshake's character set, SET NAMES, SET sql_mode, SET time_zone,
// ...). From then on it runs on pools keyed by its settings
// (runtime.Settings): the SET statements it ran, in order, as the client
// wrote them, which every connection of those pools ran when it connected.
// Sessions that set the same things share those connections (sysbench's
// and the mariadb CLI's sessions, whose handshake asks for utf8mb3 or
// latin1, all share one key), and a session with settings costs what one
// on the data sources' pools costs. A session that assigns a user variable
// (SET @x = ...), or whose key finds no free settings pool
// (runtime.MaxSettingsPools), runs on its own back-end connections instead
// (runtime.Reserved), one per data source, which ran its settings and run
// every later SET; they are discarded, never pooled, when the session ends
// or is reset. A SET that repeats what the pools already have changes
// nothing, so sessions with default settings pay nothing.
//
// A SET inside a transaction of a session that is not on Reserved applies
// to the statements after the transaction (the open transaction keeps the
// connections it began on).
//
// Handled by the proxy itself: autocommit (the proxy opens and ends the
// transactions, see executor), SET TRANSACTION without SESSION (the next
// transaction's isolation level and access mode, given to its START
// TRANSACTION on every data source), and SET GLOBAL (refused: set it on the
// data sources).

// poolCollation is the collation of the pools' connections:
// go-sql-driver's default, utf8mb4_general_ci (the DSN sets no other).
const poolCollation = collationUTF8MB4

// applyHandshakeCharset applies SET NAMES for the character set and
// collation the client asked for at handshake when they are not the
// pools'; once per session (and again after a reset). MySQL 8's
// utf8mb4_0900_ai_ci (255), which MariaDB does not know, counts as the
// pools' utf8mb4. The statement of each collation id is looked up on the
// first data source once per Server.
func (h *handler) applyHandshakeCharset(ctx context.Context, c *mysql.Conn, sess *session) error {
	if sess.charsetDone {
		return nil
	}
	sess.charsetDone = true
	id := uint32(c.CharacterSet)
	if id == 0 || id == poolCollation || id == 255 {
		return nil
	}
	if q, ok := h.s.setNames.Load(id); ok {
		return h.applySetting(ctx, sess, q.(string), false)
	}
	var charset, coll string
	err := h.onLiveDataSource(nil, func(ds int) error {
		return h.s.in.src.QueryRow(ctx, &runtime.Stmt{Name: "charset", LogicSQL: "collation"},
			runtime.RouteUnit{DataSource: ds, SQL: "SELECT CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLLATIONS WHERE ID = ?"}, int64(id)).Scan(&charset, &coll)
	})
	if err != nil {
		if err == sql.ErrNoRows {
			return sqlerror.NewSQLError(sqlerror.ERUnknownCharacterSet, "42000", "Unknown collation id "+strconv.Itoa(int(id))+" of the handshake")
		}
		return err
	}
	q := "SET NAMES " + charset + " COLLATE " + coll
	h.s.setNames.Store(id, q)
	return h.applySetting(ctx, sess, q, false)
}

// applySetting applies the SET statement text to the session's later
// statements (see the comment at the top of this file): on its reserved
// connections when it has them or when user (text assigns or reads a user
// variable) is set, else by moving the session to the pools keyed by its
// settings and text. Its key holds text as sent to the back ends
// (sess.toBackend). On error the session keeps its settings.
func (h *handler) applySetting(ctx context.Context, sess *session, text string, user bool) error {
	text = sess.toBackend(text)
	var setup []string
	if sess.set != nil {
		setup = sess.set.Setup()
	}
	if sess.res == nil && !user {
		set, err := h.sources(sess).Settings(ctx, append(setup, text))
		if err == nil {
			sess.leave()
			sess.set = set
			return nil
		}
		if !errors.Is(err, runtime.ErrNoSettingsPool) {
			return err
		}
	}
	fresh := sess.res == nil
	if fresh {
		sess.res = h.sources(sess).Reserve(setup...)
	}
	if err := sess.res.Apply(ctx, text); err != nil {
		if fresh {
			// The session stays where it was.
			_ = sess.res.Close()
			sess.res = nil
		}
		return err
	}
	sess.leave()
	return nil
}

// leave ends the session's use of its settings pools (sess.set = nil).
// An open transaction still runs on them, so then they stay the session's
// (held) until it ends or is reset: a pool no session uses may be closed
// for a new key.
func (sess *session) leave() {
	if sess.set == nil {
		return
	}
	if sess.tx != nil {
		sess.held = append(sess.held, sess.set)
	} else {
		sess.set.Release()
	}
	sess.set = nil
}

// set answers a SET statement st (q as the client wrote it); see the
// comment at the top of this file.
func (h *handler) set(ctx context.Context, c *mysql.Conn, sess *session, st *sqlparser.Set, q string) (*sqltypes.Result, bool, error) {
	autocommit := -1
	nextTx := leadingWords(q, 2)[1] == "transaction" // SET TRANSACTION ...: the next transaction only
	var forward []*sqlparser.SetExpr
	same := true  // every forwarded assignment repeats the pools' value
	user := false // a forwarded assignment sets or reads a user variable
	for _, e := range st.Exprs {
		name := e.Var.Name.Lowered()
		val := strings.Trim(strings.ToLower(sqlparser.String(e.Expr)), "'\"`")
		switch e.Var.Scope {
		case sqlparser.GlobalScope, sqlparser.PersistSysScope, sqlparser.PersistOnlySysScope:
			return nil, true, notSupported("SET GLOBAL " + name + " through the proxy (set it on the data sources)")
		case sqlparser.NextTxScope:
			if nextTx {
				switch name {
				case sqlparser.TransactionIsolationStr:
					sess.next.Isolation = isolationLevel(val)
				case sqlparser.TransactionReadOnlyStr:
					sess.next.ReadOnly = val == "on"
				}
				continue
			}
		}
		if name == "sql_mode" && e.Var.Scope != sqlparser.VariableScope {
			if m := parsingSQLMode(val); m != "" {
				return nil, true, notSupported("sql_mode " + strings.ToUpper(m) + ": the proxy parses every statement as MySQL does without ANSI_QUOTES and PIPES_AS_CONCAT (\"x\" is a string, || is OR), so a session with it would route, merge and name columns differently from its data sources")
			}
		}
		if name == "autocommit" && e.Var.Scope != sqlparser.VariableScope {
			switch val {
			case "1", "on", "true":
				autocommit = 1
			case "0", "off", "false":
				autocommit = 0
			default:
				return nil, true, sqlerror.NewSQLError(sqlerror.ERWrongValueForVar, "42000", "Variable 'autocommit' can't be set to the value of '"+val+"'")
			}
			continue
		}
		forward = append(forward, e)
		if !user && userVariable(e) {
			user = true
		}
		if same && sess.res == nil && sess.set == nil && !h.poolsHave(ctx, e, val) {
			same = false
		}
	}
	if len(forward) > 0 && (!same || sess.res != nil || sess.set != nil) {
		text := q
		if len(forward) != len(st.Exprs) {
			// autocommit or SET TRANSACTION mixed in: send the rest.
			text = sqlparser.String(&sqlparser.Set{Exprs: forward})
		}
		if err := h.applySetting(ctx, sess, text, user); err != nil {
			return nil, true, err
		}
	}
	for _, e := range forward {
		if e.Var.Name.Lowered() == "sql_mode" && e.Var.Scope != sqlparser.VariableScope {
			if err := h.readSQLMode(ctx, c, sess); err != nil {
				return nil, true, err
			}
			break
		}
	}
	for _, e := range forward {
		if n := e.Var.Name.Lowered(); (n == "names" || n == "charset" || n == "character_set_results") && e.Var.Scope != sqlparser.VariableScope {
			if err := h.readResultsCharset(ctx, sess); err != nil {
				return nil, true, err
			}
			break
		}
	}
	switch autocommit {
	case 0:
		sess.manual = true
		c.StatusFlags &^= mysql.ServerStatusAutocommit
	case 1:
		sess.manual = false
		c.StatusFlags |= mysql.ServerStatusAutocommit
		if err := implicitCommit(c, sess); err != nil {
			return nil, true, err
		}
	}
	return &sqltypes.Result{}, true, nil
}

// poolsHave reports whether the assignment e (val: its value, lower case,
// unquoted) changes nothing on the pools' connections: SET NAMES /
// CHARACTER SET utf8mb4 with the pools' collation, or a session system
// variable that already has the value on every data source. A user
// variable always counts as a change.
func (h *handler) poolsHave(ctx context.Context, e *sqlparser.SetExpr, val string) bool {
	name := e.Var.Name.Lowered()
	if e.Var.Scope == sqlparser.VariableScope {
		return false
	}
	switch name {
	case "names", "charset":
		return val == "utf8mb4" || val == "utf8mb4 collate utf8mb4_general_ci"
	}
	return sysVarName(name) && h.sameVariable(ctx, name, e.Expr)
}

// userVariable reports whether the assignment e sets or reads a user
// variable (@x): user variables stay on the session's own connections.
func userVariable(e *sqlparser.SetExpr) bool {
	if e.Var.Scope == sqlparser.VariableScope {
		return true
	}
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if v, ok := n.(*sqlparser.Variable); ok && v.Scope == sqlparser.VariableScope {
			found = true
		}
		return !found, nil
	}, e.Expr)
	return found
}

// isolationLevel maps vitess's isolation level text ("read-committed") to
// database/sql's.
func isolationLevel(v string) sql.IsolationLevel {
	switch v {
	case sqlparser.ReadUncommittedStr:
		return sql.LevelReadUncommitted
	case sqlparser.ReadCommittedStr:
		return sql.LevelReadCommitted
	case sqlparser.RepeatableReadStr:
		return sql.LevelRepeatableRead
	case sqlparser.SerializableStr:
		return sql.LevelSerializable
	}
	return sql.LevelDefault
}

// parsingSQLModes are the sql_mode flags, and the MariaDB combination modes
// that include them, which change how a statement is parsed in a way
// vitess's parser does not follow: ANSI_QUOTES makes "x" an identifier,
// PIPES_AS_CONCAT makes || concatenate; ANSI, ORACLE, DB2, POSTGRESQL, MSSQL
// and MAXDB set both (MariaDB's SQL_MODE documentation).
var parsingSQLModes = []string{"ansi_quotes", "pipes_as_concat", "ansi", "oracle", "db2", "postgresql", "mssql", "maxdb"}

// parsingSQLMode returns the first of parsingSQLModes that the text of a
// SET sql_mode value (lower case, as written: a literal or an expression
// such as CONCAT(@@sql_mode, ',ansi_quotes')) names, or "". A value that
// only reaches such a mode through a user variable is not seen.
func parsingSQLMode(val string) string {
	for _, w := range strings.FieldsFunc(val, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		for _, m := range parsingSQLModes {
			if w == m {
				return m
			}
		}
	}
	return ""
}

// readResultsCharset reads the session's character_set_results after a SET
// NAMES / CHARACTER SET / character_set_results and keeps its collation
// as the collation of the text columns of its results, as MySQL
// labels them (the rows arrive converted to it): after SET NAMES latin1
// they said the handshake's utf8mb4 over latin1 bytes, which clients that
// decode by the column's character set (mysql2, Connector/J) garbled.
// character_set_results NULL or binary (no conversion) keeps the
// handshake's.
func (h *handler) readResultsCharset(ctx context.Context, sess *session) error {
	// MariaDB labels them with collation_connection when it is of that
	// character set (SET NAMES x COLLATE y), else with its default.
	const q = "SELECT ID FROM information_schema.COLLATIONS WHERE CHARACTER_SET_NAME = @@SESSION.character_set_results AND " +
		"(COLLATION_NAME = @@SESSION.collation_connection OR IS_DEFAULT = 'Yes' AND @@SESSION.character_set_connection <> @@SESSION.character_set_results)"
	var id sql.NullInt64
	err := h.onLiveDataSource(nil, func(ds int) error {
		return h.base(sess).QueryRow(ctx, &runtime.Stmt{Name: "character_set_results", LogicSQL: q}, runtime.RouteUnit{DataSource: ds, SQL: q}).Scan(&id)
	})
	if err != nil && err != sql.ErrNoRows {
		return err
	}
	sess.results = 0
	if id.Valid && id.Int64 != collationBinary {
		sess.results = uint32(id.Int64)
	}
	return nil
}

// resultCollation is the collation of the text fields of c's results: the
// session's character_set_results after a SET NAMES, else the handshake's
// (clientCollation).
func resultCollation(c *mysql.Conn) uint32 {
	if sess, ok := c.ClientData.(*session); ok && sess.results != 0 {
		return sess.results
	}
	return clientCollation(c.CharacterSet)
}
