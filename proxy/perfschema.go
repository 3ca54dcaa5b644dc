package proxy

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
)

// The connection attributes a client sends at handshake (go-sql-driver's
// _client_name, _os, _pid, connectionAttributes; Connector/J's
// program_name...) reach the proxy, not the data sources, whose
// performance_schema shows the proxy's own back-end connections. The proxy
// therefore answers a SELECT that reads
// performance_schema.session_connect_attrs or
// session_account_connect_attrs (and no other table) itself: each such
// table becomes a derived table of the proxy's sessions' attributes
// (PROCESSLIST_ID the proxy's connection id, ORDINAL_POSITION by attribute
// name: vitess keeps no order), CONNECTION_ID() the session's proxy
// connection id, and the statement runs on the first data source, which
// evaluates its WHERE, ORDER BY and functions as MySQL does.

// connAttrs is what the proxy shows of one client connection in
// performance_schema.session_connect_attrs.
type connAttrs struct {
	id    uint32
	user  string
	attrs map[string]string
}

// connectAttrTables are the performance_schema tables of connection
// attributes, by lower-case name; the value says whether the table shows
// only the sessions of the client's own account.
var connectAttrTables = map[string]bool{"session_connect_attrs": false, "session_account_connect_attrs": true}

// registerAttrs records c's attributes (after its handshake) for
// performance_schema queries.
func (s *Server) registerAttrs(c *mysql.Conn) {
	a := connAttrs{id: c.ConnectionID, user: c.User, attrs: make(map[string]string, len(c.Attributes))}
	for k, v := range c.Attributes {
		a.attrs[k] = v
	}
	s.mu.Lock()
	if s.attrs == nil {
		s.attrs = map[*mysql.Conn]connAttrs{}
	}
	s.attrs[c] = a
	s.mu.Unlock()
}

// connectAttrsRef returns the lower-case name of the performance_schema
// table of connection attributes stmt reads, when it reads no other table
// (dual aside); "" otherwise.
func connectAttrsRef(stmt sqlparser.Statement) string {
	name, only := "", true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		ate, ok := n.(*sqlparser.AliasedTableExpr)
		if !ok {
			return true, nil
		}
		tn, ok := ate.Expr.(sqlparser.TableName)
		if !ok {
			return true, nil
		}
		t := strings.ToLower(tn.Name.String())
		if _, attr := connectAttrTables[t]; attr && strings.EqualFold(tn.Qualifier.String(), "performance_schema") {
			name = t
		} else if t != "dual" || !tn.Qualifier.IsEmpty() {
			only = false
		}
		return true, nil
	}, stmt)
	if !only {
		return ""
	}
	return name
}

// connectAttrs answers a SELECT or UNION (stmt, of the text q) that reads
// performance_schema's connection attribute tables (see the comment at the
// top of the file); ok is false for any other statement. stmt is changed.
func (h *handler) connectAttrs(ctx context.Context, c *mysql.Conn, sess *session, q string, stmt sqlparser.Statement) (*sqltypes.Result, bool, error) {
	switch stmt.(type) {
	case *sqlparser.Select, *sqlparser.Union:
	default:
		return nil, false, nil
	}
	if connectAttrsRef(stmt) == "" {
		return nil, false, nil
	}
	nameAsWritten(q, stmt)
	var err error
	out := sqlparser.Rewrite(stmt, nil, func(cur *sqlparser.Cursor) bool {
		switch n := cur.Node().(type) {
		case *sqlparser.FuncExpr:
			if n.Name.Lowered() == "connection_id" && len(n.Exprs) == 0 {
				cur.Replace(sqlparser.NewIntLiteral(strconv.FormatUint(uint64(c.ConnectionID), 10)))
			}
		case *sqlparser.AliasedTableExpr:
			tn, ok := n.Expr.(sqlparser.TableName)
			if !ok || !strings.EqualFold(tn.Qualifier.String(), "performance_schema") {
				return true
			}
			account, ok := connectAttrTables[strings.ToLower(tn.Name.String())]
			if !ok {
				return true
			}
			var dt *sqlparser.DerivedTable
			if dt, err = h.s.attrsTable(c, account); err != nil {
				return false
			}
			n.Expr = dt
			if n.As.IsEmpty() {
				n.As = sqlparser.NewIdentifierCS(tn.Name.String())
			}
		}
		return true
	})
	if err != nil {
		return nil, true, err
	}
	res, err := h.runNoTable(ctx, c, sess, sqlparser.String(out))
	return res, true, err
}

// attrsTable returns the rows of session_connect_attrs (account: of
// session_account_connect_attrs for c's user) as a derived table with the
// columns of MySQL's table.
func (s *Server) attrsTable(c *mysql.Conn, account bool) (*sqlparser.DerivedTable, error) {
	s.mu.Lock()
	var sessions []connAttrs
	for _, a := range s.attrs {
		if !account || a.user == c.User {
			sessions = append(sessions, a)
		}
	}
	s.mu.Unlock()
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].id < sessions[j].id })
	var b strings.Builder
	b.WriteString("SELECT * FROM (")
	n := 0
	for _, a := range sessions {
		names := make([]string, 0, len(a.attrs))
		for k := range a.attrs {
			names = append(names, k)
		}
		sort.Strings(names)
		for i, k := range names {
			if n > 0 {
				b.WriteString(" UNION ALL ")
			}
			n++
			b.WriteString("SELECT CAST(" + strconv.FormatUint(uint64(a.id), 10) + " AS UNSIGNED) AS PROCESSLIST_ID, ")
			b.WriteString(sqlparser.String(sqlparser.NewStrLiteral(k)) + " AS ATTR_NAME, ")
			b.WriteString(sqlparser.String(sqlparser.NewStrLiteral(a.attrs[k])) + " AS ATTR_VALUE, ")
			b.WriteString(strconv.Itoa(i) + " AS ORDINAL_POSITION")
		}
	}
	if n == 0 {
		b.WriteString("SELECT CAST(0 AS UNSIGNED) AS PROCESSLIST_ID, '' AS ATTR_NAME, '' AS ATTR_VALUE, 0 AS ORDINAL_POSITION FROM dual WHERE FALSE")
	}
	b.WriteString(") AS t")
	stmt, err := s.b.Parser().Parse(b.String())
	if err != nil {
		return nil, err
	}
	return stmt.(*sqlparser.Select).From[0].(*sqlparser.AliasedTableExpr).Expr.(*sqlparser.DerivedTable), nil
}
