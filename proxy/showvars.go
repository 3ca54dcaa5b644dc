package proxy

import (
	"context"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// showVariables answers SHOW [GLOBAL | SESSION] VARIABLES [LIKE 'pattern' |
// WHERE condition] as the first data source answers it (the proxy holds
// no variables of its own), with the values the proxy decides: version
// and version_comment are the proxy's (as SELECT @@version reads them),
// autocommit the session's. ok is false for other SHOW statements.
func (h *handler) showVariables(ctx context.Context, c *mysql.Conn, sess *session, show *sqlparser.ShowBasic) (*sqltypes.Result, bool, error) {
	if show.Command != sqlparser.VariableSession && show.Command != sqlparser.VariableGlobal {
		return nil, false, nil
	}
	q := sqlparser.String(&sqlparser.Show{Internal: show})
	cols, vals, err := h.s.queryNode(ctx, h.s.firstLogicSource(), q)
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
		}
	}
	res, err := rowsResult(cols, vals, clientCollation(c.CharacterSet))
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
