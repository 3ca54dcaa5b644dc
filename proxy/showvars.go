package proxy

import (
	"context"
	"crypto/tls"
	"database/sql"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// showVariables answers SHOW [GLOBAL | SESSION] VARIABLES | STATUS [LIKE
// 'pattern' | WHERE condition] as the first data source answers it on the session's
// connection (its transaction, its reserved connection with its settings,
// or the pools), as SELECT @@x reads them, with the values the proxy
// decides: version
// and version_comment are the proxy's (as SELECT @@version reads them),
// autocommit the session's, and the session status Ssl_cipher and
// Ssl_version those of the client's connection to the proxy ("" without
// TLS). ok is false for other SHOW statements.
func (h *handler) showVariables(ctx context.Context, c *mysql.Conn, sess *session, show *sqlparser.ShowBasic) (*sqltypes.Result, bool, error) {
	switch show.Command {
	case sqlparser.VariableSession, sqlparser.VariableGlobal, sqlparser.StatusSession, sqlparser.StatusGlobal:
	default:
		return nil, false, nil
	}
	var cipher, version string // the client connection's TLS (Ssl_cipher, Ssl_version of SHOW STATUS)
	if tc, ok := c.GetRawConn().(*tls.Conn); ok {
		st := tc.ConnectionState()
		cipher, version = tls.CipherSuiteName(st.CipherSuite), tls.VersionName(st.Version)
	}
	q := sqlparser.String(&sqlparser.Show{Internal: show})
	var e runtime.Executor = h.base(sess) // the session's settings, no transaction opened
	if sess.tx != nil {
		e = sess.tx
	}
	var rows *sql.Rows
	err := h.onLiveDataSource(sess, func(ds int) (err error) {
		rows, err = e.Query(ctx, &runtime.Stmt{Name: "show", LogicSQL: q}, runtime.RouteUnit{DataSource: ds, SQL: sess.toBackend(q)})
		return err
	})
	if err != nil {
		return nil, true, err
	}
	cols, vals, err := readRows(rows)
	if err != nil {
		return nil, true, err
	}
	for _, r := range vals {
		if len(r) < 2 {
			continue
		}
		switch strings.ToLower(textOf(r[0])) {
		case "version":
			r[1] = h.s.opts.ServerVersion
		case "version_comment":
			r[1] = versionComment
		case "autocommit":
			if sess.manual && show.Command == sqlparser.VariableSession {
				r[1] = "OFF"
			}
		case "ssl_cipher":
			if show.Command == sqlparser.StatusSession {
				r[1] = cipher
			}
		case "ssl_version":
			if show.Command == sqlparser.StatusSession {
				r[1] = version
			}
		}
	}
	res, err := rowsResult(cols, vals, resultCollation(c))
	return res, true, err
}

// versionComment is the proxy's @@version_comment.
const versionComment = "shardgen proxy"

// sysVarText is the text s typed as MySQL types a text system variable
// (SELECT @@version_comment): a nullable utf8mb3 VARCHAR, i.e.
// CONVERT(NULLIF('s', ”) USING utf8mb3).
func sysVarText(s string) sqlparser.Expr {
	return &sqlparser.ConvertUsingExpr{Expr: &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("NULLIF"), Exprs: []sqlparser.Expr{sqlparser.NewStrLiteral(s), sqlparser.NewStrLiteral("")}}, Type: "utf8mb3"}
}
