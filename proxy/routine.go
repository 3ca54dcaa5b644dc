package proxy

import (
	"context"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"

	"github.com/shardgen/shardgen/runtime"
)

// routineStatement reports whether q calls, creates, alters or drops a
// stored routine: CALL, CREATE [OR REPLACE] [DEFINER = ...] [AGGREGATE]
// PROCEDURE | FUNCTION, ALTER PROCEDURE | FUNCTION, DROP PROCEDURE |
// FUNCTION. (CREATE FUNCTION is not known to the SQL parser at all.)
func routineStatement(q string) bool {
	var lx sqlLexer
	lx.init(q)
	kind, tok := lx.next()
	if kind != tokWord {
		return false
	}
	switch strings.ToLower(tok) {
	case "call":
		return true
	case "create", "alter", "drop":
	default:
		return false
	}
	// The object follows the options (OR REPLACE, DEFINER = user,
	// AGGREGATE, ...): the first word that names a kind of object.
	for k := 0; k < 32; k++ {
		kind, tok = lx.next()
		if kind == tokEOF || kind == tokSemicolon || tok == "(" {
			return false
		}
		if kind != tokWord {
			continue
		}
		switch strings.ToLower(tok) {
		case "procedure", "function":
			return true
		case "table", "tables", "temporary", "view", "index", "unique", "fulltext", "spatial", "database", "schema",
			"trigger", "event", "user", "role", "server", "tablespace", "sequence", "package", "logfile", "resource":
			return false
		}
	}
	return false
}

// routineDataSource returns the data source (an index into the
// interpreter's names) that stored routines run on: the one data source
// of the rules when every table is a single table there. Any other
// layout refuses stmt (e.g. "CALL") with ERROR 1235 naming the reason: a
// routine runs its statements on the data source it is called on, where
// the proxy cannot route them, so a sharded table inside it would be read
// or written on one data node only.
func (h *handler) routineDataSource(stmt string) (int, error) {
	rules := h.s.cfg.Rules
	why := ""
	switch {
	case len(rules.LogicDataSources) != 1:
		why = "the rules have " + strconv.Itoa(len(rules.LogicDataSources)) + " data sources: " + strings.Join(rules.LogicDataSources, ", ")
	case rules.Sharding != nil && len(rules.Sharding.Tables) > 0:
		why = "logic table " + rules.Sharding.Tables[0].LogicTable + " is a sharding table"
	}
	if why == "" {
		for i, n := range h.s.in.names {
			if n == rules.LogicDataSources[0] {
				return i, nil
			}
		}
		why = "data source " + rules.LogicDataSources[0] + " is not configured"
	}
	return -1, notSupported(stmt + " statements with these rules: a stored routine's statements run unrouted on one data source, " +
		"so routines pass through only when every table is a single table of one data source (" + why + ")")
}

// routine runs q, a routineStatement, unchanged on the data source of
// routineDataSource, in the session's transaction or on its reserved
// connections when it has them. A CALL answers every result set its
// procedure returns, then the OK that ends it; a failure after some result
// sets returns those with the error (the client gets them, then the
// error). CREATE / ALTER / DROP answer one OK.
//
// The final OK of a CALL reports 0 affected rows: the back end's
// database/sql connection reads the counts of a procedure's statements
// but does not return them with the rows.
func (h *handler) routine(ctx context.Context, c *mysql.Conn, sess *session, q string) ([]*sqltypes.Result, error) {
	if err := h.ownStatementChecks(ctx, c, sess, q); err != nil {
		return nil, err
	}
	q, err := h.callCounters(sess, q)
	if err != nil {
		return nil, err
	}
	kind := statementKind(q)
	ds, err := h.routineDataSource(kind)
	if err != nil {
		return nil, err
	}
	e, err := h.executor(c, sess)
	if err != nil {
		return nil, err
	}
	st := &runtime.Stmt{Name: "pass-through", LogicSQL: q}
	u := runtime.RouteUnit{DataSource: ds, SQL: q} // q as the client wrote it: the back end runs in the session's sql_mode
	ctx = withOwner(ctx, sess.tag)
	if kind != "CALL" {
		r, err := e.Exec(ctx, st, u)
		if err != nil {
			return nil, err
		}
		n, _ := r.RowsAffected()
		return []*sqltypes.Result{{RowsAffected: uint64(n)}}, nil
	}
	rows, err := e.Query(ctx, st, u)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	charset := resultCollation(c)
	var out []*sqltypes.Result
	for {
		cols, vals, err := readResultSet(rows)
		if err != nil {
			return out, err
		}
		if len(cols) > 0 {
			res, err := rowsResult(cols, vals, charset)
			if err != nil {
				return out, err
			}
			out = append(out, res)
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return out, err
	}
	return append(out, &sqltypes.Result{}), nil
}

// ownStatementChecks are what query does before a statement the proxy
// answers on its own path (routine, loadData): the handshake's character
// set applied, the statement's size, the session's database.
func (h *handler) ownStatementChecks(ctx context.Context, c *mysql.Conn, sess *session, q string) error {
	if err := h.applyHandshakeCharset(ctx, c, sess); err != nil {
		return err
	}
	if err := h.s.checkSize(q); err != nil {
		return err
	}
	return checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName)
}
