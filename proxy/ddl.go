package proxy

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// node is one actual table: a data source (an index into the
// interpreter's names) and the table's name there.
type node struct {
	ds    int
	table string
}

// tableNodes returns the actual tables of the logic table name, as
// ShardingSphere routes DDL (ShardingDDLStatementValidator /
// broadcast route): every data node of a sharding rule, the same name on
// every data source of a broadcast table, and for any other table its
// single data source (the !SINGLE entry naming it, the default data
// source, or the only data source). sharded is true for a sharding rule's
// table. A table in no rule without a single data source is an ERROR 1235
// naming the fix.
func (s *Server) tableNodes(name string) (nodes []node, sharded bool, err error) {
	dsIndex := func(ds string) (int, error) {
		for i, n := range s.in.names {
			if n == ds {
				return i, nil
			}
		}
		return 0, errors.New("data source " + ds + " of table " + name + " is not configured")
	}
	r := s.cfg.Rules
	if r.Sharding != nil {
		for _, tr := range r.Sharding.Tables {
			if !strings.EqualFold(tr.LogicTable, name) {
				continue
			}
			for _, dn := range tr.DataNodes {
				i, err := dsIndex(dn.DataSource)
				if err != nil {
					return nil, true, err
				}
				nodes = append(nodes, node{ds: i, table: dn.Table})
			}
			return nodes, true, nil
		}
	}
	if r.Broadcast != nil {
		for _, t := range r.Broadcast.Tables {
			if strings.EqualFold(t, name) {
				// Every logic data source: read/write groups stand for
				// their members (a replica is never written directly).
				for _, ds := range r.LogicDataSources {
					i, err := dsIndex(ds)
					if err != nil {
						return nil, false, err
					}
					nodes = append(nodes, node{ds: i, table: name})
				}
				return nodes, false, nil
			}
		}
	}
	ds := singleDataSource(r, name)
	if ds == "" {
		return nil, false, sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000",
			"table "+name+" is in no rule and there are several data sources: list it in !SINGLE (e.g. tables: [\"ds_0."+name+"\"]) or set a defaultDataSource")
	}
	i, err := dsIndex(ds)
	if err != nil {
		return nil, false, err
	}
	return []node{{ds: i, table: name}}, false, nil
}

// singleDataSource is the data source of a table in no sharding or
// broadcast rule (the planner's rule, plan.Builder): the !SINGLE entry
// "ds.table" or "ds.*" naming it, else the !SINGLE defaultDataSource, else
// the only data source; "" when none applies.
func singleDataSource(cfg *schema.Config, table string) string {
	if s := cfg.Single; s != nil {
		for _, e := range s.Tables {
			ds, t, ok := strings.Cut(e, ".")
			if !ok || ds == "*" {
				continue
			}
			if t == "*" || strings.EqualFold(t, table) {
				return ds
			}
		}
		if s.DefaultDataSource != "" {
			return s.DefaultDataSource
		}
	}
	if len(cfg.DataSources) == 1 {
		return cfg.DataSources[0].Name
	}
	return ""
}

// ddl fans a CREATE TABLE, ALTER TABLE (and CREATE/DROP INDEX), DROP TABLE
// or TRUNCATE TABLE out to every actual table of the logic tables it names,
// each statement with the logic name replaced by the actual one, one node
// after the other on the pools, stopping at the first error. As in MySQL,
// DDL first commits the session's open transaction (which could otherwise
// hold the metadata lock the DDL waits for). ok is false for other
// statements.
func (h *handler) ddl(ctx context.Context, sess *session, c *mysql.Conn, stmt sqlparser.Statement) (*sqltypes.Result, bool, error) {
	var tables []sqlparser.TableName
	switch st := stmt.(type) {
	case *sqlparser.CreateTable:
		if st.OptLike != nil || st.Select != nil {
			return nil, true, notSupported("CREATE TABLE ... LIKE / AS SELECT through the proxy")
		}
		tables = []sqlparser.TableName{st.Table}
	case *sqlparser.AlterTable:
		tables = []sqlparser.TableName{st.Table}
	case *sqlparser.TruncateTable:
		tables = []sqlparser.TableName{st.Table}
	case *sqlparser.DropTable:
		if len(st.FromTables) > 1 {
			// One table at a time: each has its own nodes.
			for _, t := range st.FromTables {
				one := *st
				one.FromTables = sqlparser.TableNames{t}
				if _, _, err := h.ddl(ctx, sess, c, &one); err != nil {
					return nil, true, err
				}
			}
			return &sqltypes.Result{}, true, nil
		}
		tables = st.FromTables
	case *sqlparser.RenameTable:
		return nil, true, notSupported("RENAME TABLE of a logic table (the rules name its actual tables)")
	default:
		return nil, false, nil
	}
	if sess.tx != nil {
		tx := sess.tx
		sess.tx = nil
		c.StatusFlags &^= mysql.ServerStatusInTrans
		if err := tx.Commit(); err != nil {
			return nil, true, err
		}
	}
	logic := tables[0]
	if q := logic.Qualifier.String(); q != "" && !strings.EqualFold(q, h.s.cfg.Rules.DatabaseName) {
		return nil, true, sqlerror.NewSQLError(sqlerror.ERBadDb, sqlerror.SSClientError, "Unknown database '"+q+"'")
	}
	nodes, _, err := h.s.tableNodes(logic.Name.String())
	if err != nil {
		return nil, true, err
	}
	for _, n := range nodes {
		actual := sqlparser.TableName{Name: sqlparser.NewIdentifierCS(n.table)}
		out := sqlparser.Rewrite(sqlparser.Clone(stmt), nil, func(cur *sqlparser.Cursor) bool {
			if tn, ok := cur.Node().(sqlparser.TableName); ok && strings.EqualFold(tn.Name.String(), logic.Name.String()) {
				cur.Replace(actual)
			}
			return true
		})
		text := sqlparser.String(out)
		if _, err := h.s.in.src.Exec(ctx, &runtime.Stmt{Name: "ddl", LogicSQL: sqlparser.String(stmt)}, runtime.RouteUnit{DataSource: n.ds, SQL: text}); err != nil {
			return nil, true, err
		}
	}
	if _, truncate := stmt.(*sqlparser.TruncateTable); !truncate && len(nodes) > 0 {
		_, drop := stmt.(*sqlparser.DropTable)
		h.s.refreshTable(ctx, logic.Name.String(), nodes[0], drop)
	}
	return &sqltypes.Result{}, true, nil
}

// refreshTable brings the planner's metadata of logic table name up to
// date after a CREATE, ALTER or DROP TABLE ran on every actual table, as
// ShardingSphere-Proxy refreshes its metadata after DDL: the table is
// forgotten after DROP; otherwise SHOW CREATE TABLE of its first actual
// table n, renamed to the logic table, replaces its DDL. Every cached plan
// is dropped. The DDL already ran, so a refresh that fails (the new
// definition lacks a column a rule needs, or its text does not parse) is
// logged and the previous metadata stays; statements then fail as they
// would have before.
func (s *Server) refreshTable(ctx context.Context, name string, n node, drop bool) {
	s.ddlMu.Lock()
	defer s.ddlMu.Unlock()
	defer s.cache.clear()
	if drop {
		_ = s.b.SetTableDDL(name, nil)
		return
	}
	fail := func(err error) {
		s.log.Warn("planner metadata not refreshed after DDL; the previous definition stays", "table", name, "data_node", s.in.names[n.ds]+"."+n.table, "error", err.Error())
	}
	rows, err := s.in.src.Query(ctx, &runtime.Stmt{Name: "ddl-refresh", LogicSQL: "SHOW CREATE TABLE " + name},
		runtime.RouteUnit{DataSource: n.ds, SQL: "SHOW CREATE TABLE `" + strings.ReplaceAll(n.table, "`", "``") + "`"})
	if err != nil {
		fail(err)
		return
	}
	_, vals, err := readRows(rows)
	if err == nil && (len(vals) != 1 || len(vals[0]) < 2) {
		err = errors.New("SHOW CREATE TABLE returned no definition")
	}
	if err != nil {
		fail(err)
		return
	}
	var create string
	switch v := vals[0][1].(type) {
	case []byte:
		create = string(v)
	case string:
		create = v
	}
	tables, err := schema.ParseDDL("SHOW CREATE TABLE "+s.in.names[n.ds]+"."+n.table, []byte(renameCreate(create, n.table, name)))
	if err == nil && len(tables) != 1 {
		err = errors.New("SHOW CREATE TABLE did not return one table")
	}
	if err == nil {
		err = s.b.SetTableDDL(name, tables[0])
	}
	if err != nil {
		fail(err)
	}
}

var (
	showCreateRE  = regexp.MustCompile("(?is)^show\\s+create\\s+table\\s+(`[^`]+`|[\\w$]+)(?:\\.(`[^`]+`|[\\w$]+))?\\s*$")
	showColumnsRE = regexp.MustCompile("(?is)^show\\s+(full\\s+)?(?:columns|fields)\\s+(?:from|in)\\s+(`[^`]+`|[\\w$]+)(?:\\.(`[^`]+`|[\\w$]+))?(?:\\s+(?:from|in)\\s+(`[^`]+`|[\\w$]+))?(\\s+(?:like|where)\\s.*)?$")
	describeRE    = regexp.MustCompile("(?is)^(?:describe|desc)\\s+(`[^`]+`|[\\w$]+)(?:\\.(`[^`]+`|[\\w$]+))?(\\s+\\S+)?\\s*$")
)

// showTable answers SHOW CREATE TABLE t, SHOW [FULL] COLUMNS|FIELDS
// FROM t [FROM db] [LIKE ...|WHERE ...] and DESCRIBE t [column] for a logic
// table as ShardingSphere does: the statement runs on the table's first
// actual table, and the actual name in the answer becomes the logic one.
// ok is false for other statements.
func (h *handler) showTable(ctx context.Context, c *mysql.Conn, q string) (*sqltypes.Result, bool, error) {
	unquote := func(s string) string { return strings.ReplaceAll(strings.Trim(s, "`"), "``", "`") }
	// table returns the logic table of a "name" or "db.name" match.
	table := func(a, b, db string) (string, error) {
		name := unquote(a)
		if b != "" {
			db, name = a, unquote(b)
		}
		if db != "" {
			if err := checkDatabase(h.s.cfg, c.UserData, unquote(db)); err != nil {
				return "", err
			}
		}
		return name, nil
	}
	var logic, text, rest string
	var err error
	create := false
	if m := showCreateRE.FindStringSubmatch(q); m != nil {
		create = true
		logic, err = table(m[1], m[2], "")
		text = "SHOW CREATE TABLE "
	} else if m := showColumnsRE.FindStringSubmatch(q); m != nil {
		logic, err = table(m[2], m[3], m[4])
		text = "SHOW " + strings.ToUpper(strings.TrimSpace(m[1])) + " COLUMNS FROM "
		rest = m[5]
	} else if m := describeRE.FindStringSubmatch(q); m != nil {
		logic, err = table(m[1], m[2], "")
		text = "DESCRIBE "
		rest = m[3]
	} else {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if err := checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName); err != nil {
		return nil, true, err
	}
	if h.s.b.Table(logic) == nil {
		return nil, true, sqlerror.NewSQLError(sqlerror.ERNoSuchTable, "42S02", "Table '"+h.s.cfg.Rules.DatabaseName+"."+logic+"' doesn't exist")
	}
	nodes, _, err := h.s.tableNodes(logic)
	if err != nil {
		return nil, true, err
	}
	n := nodes[0]
	text += "`" + strings.ReplaceAll(n.table, "`", "``") + "`" + rest
	rows, err := h.s.in.src.Query(ctx, &runtime.Stmt{Name: "show", LogicSQL: q}, runtime.RouteUnit{DataSource: n.ds, SQL: text})
	if err != nil {
		return nil, true, err
	}
	cols, vals, err := readRows(rows)
	if err != nil {
		return nil, true, err
	}
	if create {
		for _, r := range vals {
			if len(r) < 2 {
				continue
			}
			r[0] = logic
			if b, ok := r[1].([]byte); ok {
				r[1] = []byte(renameCreate(string(b), n.table, logic))
			} else if s, ok := r[1].(string); ok {
				r[1] = renameCreate(s, n.table, logic)
			}
		}
	}
	res, err := rowsResult(cols, vals, clientCollation(c.CharacterSet))
	return res, true, err
}

// renameCreate replaces the table name of a SHOW CREATE TABLE answer.
func renameCreate(create, actual, logic string) string {
	quote := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	return strings.Replace(create, "TABLE "+quote(actual), "TABLE "+quote(logic), 1)
}
