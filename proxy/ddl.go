package proxy

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"sort"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/plan"
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
// single data source (plan.Builder.SingleDataSource: where it was found,
// the !SINGLE entry naming it, the default data source, or the only data
// source). sharded is true for a sharding rule's table. A table in no
// rule without a single data source is an ERROR 1235 naming the fix.
func (s *Server) tableNodes(name string) (nodes []node, sharded bool, err error) {
	named, sharded, err := dataNodesOf(s.cfg.Rules, s.b, name)
	if err != nil {
		return nil, sharded, err
	}
	for _, dn := range named {
		i := slices.Index(s.in.names, dn.ds)
		if i < 0 {
			return nil, sharded, errors.New("data source " + dn.ds + " of table " + name + " is not configured")
		}
		nodes = append(nodes, node{ds: i, table: dn.table})
	}
	return nodes, sharded, nil
}

// namedNode is a data node by data source name: where an actual table is.
type namedNode struct{ ds, table string }

// dataNodesOf returns the data nodes of logic table name under rules r
// (tableNodes), by data source name.
func dataNodesOf(r *schema.Config, b *plan.Builder, name string) (nodes []namedNode, sharded bool, err error) {
	if r.Sharding != nil {
		for _, tr := range r.Sharding.Tables {
			if !strings.EqualFold(tr.LogicTable, name) {
				continue
			}
			for _, dn := range tr.DataNodes {
				nodes = append(nodes, namedNode{ds: dn.DataSource, table: dn.Table})
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
					nodes = append(nodes, namedNode{ds: ds, table: name})
				}
				return nodes, false, nil
			}
		}
	}
	ds := b.SingleDataSource(name)
	if ds == "" {
		return nil, false, sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000",
			"table "+name+" is in no rule and there are several data sources: list it in !SINGLE (e.g. tables: [\"ds_0."+name+"\"]) or set a defaultDataSource")
	}
	return []namedNode{{ds: ds, table: name}}, false, nil
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
	if err := implicitCommit(c, sess); err != nil {
		return nil, true, err
	}
	logic := tables[0]
	nodes, texts, err := h.s.ddlUnits(ctx, stmt, logic)
	if err != nil {
		return nil, true, err
	}
	_, truncate := stmt.(*sqlparser.TruncateTable)
	_, drop := stmt.(*sqlparser.DropTable)
	var applied []string // data nodes the statement ran on
	for i, n := range nodes {
		text := texts[i]
		if _, err := h.base(sess).Exec(ctx, &runtime.Stmt{Name: "ddl", LogicSQL: sqlparser.String(stmt)}, runtime.RouteUnit{DataSource: n.ds, SQL: sess.toBackend(text)}); err != nil {
			if len(applied) == 0 {
				return nil, true, err
			}
			// DDL is not transactional: the actual tables before this one
			// changed. Say so, and let the planner follow the first one.
			if !truncate {
				h.s.refreshTable(ctx, logic.Name.String(), nodes[0], drop)
			}
			return nil, true, partialDDLError(err, applied, h.s.in.names[n.ds]+"."+n.table)
		}
		applied = append(applied, h.s.in.names[n.ds]+"."+n.table)
	}
	if !truncate && len(nodes) > 0 {
		h.s.refreshTable(ctx, logic.Name.String(), nodes[0], drop)
	}
	return &sqltypes.Result{}, true, nil
}

// ddlUnits returns the data nodes a DDL statement on the logic table
// logic runs on and, for each, the statement over its actual table (what
// the proxy executes and PREVIEW shows). A database qualifier other than
// the logic database is ERROR 1049.
func (s *Server) ddlUnits(ctx context.Context, stmt sqlparser.Statement, logic sqlparser.TableName) ([]node, []string, error) {
	if q := logic.Qualifier.String(); q != "" && !strings.EqualFold(q, s.cfg.Rules.DatabaseName) {
		return nil, nil, sqlerror.NewSQLError(sqlerror.ERBadDb, sqlerror.SSClientError, "Unknown database '"+q+"'")
	}
	nodes, _, err := s.knownTableNodes(ctx, logic.Name.String())
	if err != nil {
		return nil, nil, err
	}
	if ct, ok := stmt.(*sqlparser.CreateTable); ok {
		// An encrypt table written in logic form gets its cipher, assisted
		// and like query columns, as ShardingSphere-Proxy and `shardgen
		// migrate` create them: the planner writes to those.
		ct = sqlparser.Clone(ct)
		if _, err := schema.EncryptCreateTable(s.cfg.Rules.Encrypt, ct); err != nil {
			return nil, nil, err
		}
		stmt = ct
	}
	if at, ok := stmt.(*sqlparser.AlterTable); ok {
		// ADD / MODIFY / DROP of a logic column change its physical
		// columns, as under ShardingSphere-Proxy and `shardgen migrate`,
		// unless the actual table has a column of the logic name: then
		// the clauses naming it run as written (encryptAsItStands).
		at = sqlparser.Clone(at)
		rule, err := s.encryptAsItStands(ctx, logic.Name.String(), nodes)
		if err != nil {
			return nil, nil, err
		}
		if _, err := schema.EncryptAlterTable(rule, at); err != nil {
			return nil, nil, err
		}
		stmt = at
	}
	texts := make([]string, len(nodes))
	for i, n := range nodes {
		actual := sqlparser.TableName{Name: sqlparser.NewIdentifierCS(n.table)}
		out := sqlparser.Rewrite(sqlparser.Clone(stmt), nil, func(cur *sqlparser.Cursor) bool {
			if tn, ok := cur.Node().(sqlparser.TableName); ok && strings.EqualFold(tn.Name.String(), logic.Name.String()) {
				cur.Replace(actual)
			}
			return true
		})
		texts[i] = sqlparser.String(out)
	}
	return nodes, texts, nil
}

// encryptAsItStands returns the !ENCRYPT rule an ALTER TABLE of logic
// table name is rewritten under: the rules' rule without the encrypt
// columns whose logic name is a column of the table's first actual table
// (nodes[0], read with SHOW CREATE TABLE) as it stands. That column is a
// plain column from before the rule listed it (older migrations created
// phone, a later one adds phone_cipher, then drops phone), and the
// statement names that column: MODIFY phone must not change phone_cipher
// (which may not exist yet), and DROP COLUMN phone after phone_cipher was
// added must drop the plain phone, not the cipher column and its data. The
// generator (schema.ParseDDLFiles) and `shardgen migrate`
// (schema.EncryptRuleAsRun) read such a history the same way. A table in
// logic form has no column of the logic name (CREATE TABLE through the
// proxy derives its physical columns), so its clauses are rewritten as
// ShardingSphere-Proxy rewrites them. The rule itself when the table is
// not encrypted or has no actual table yet.
func (s *Server) encryptAsItStands(ctx context.Context, name string, nodes []node) (*schema.EncryptRule, error) {
	rule := s.cfg.Rules.Encrypt
	var et *schema.EncryptTable
	if rule != nil {
		for _, t := range rule.Tables {
			if strings.EqualFold(t.Name, name) {
				et = t
			}
		}
	}
	if et == nil || len(nodes) == 0 {
		return rule, nil
	}
	t, err := s.readTable(ctx, name, nodes[0])
	if err != nil || t == nil {
		return rule, err
	}
	view := *t
	view.PlainEncrypt = map[string]bool{}
	for _, ec := range et.Columns {
		if t.Column(ec.Name) != nil {
			view.PlainEncrypt[strings.ToLower(ec.Name)] = true
		}
	}
	return schema.EncryptRuleAsRun(rule, &view), nil
}

// ddlTable returns the logic table a DDL statement the proxy fans out
// names (the first of a DROP TABLE's), and false for any other statement.
func ddlTable(stmt sqlparser.Statement) (sqlparser.TableName, bool) {
	switch st := stmt.(type) {
	case *sqlparser.CreateTable:
		return st.Table, st.OptLike == nil && st.Select == nil
	case *sqlparser.AlterTable:
		return st.Table, true
	case *sqlparser.TruncateTable:
		return st.Table, true
	case *sqlparser.DropTable:
		return st.FromTables[0], len(st.FromTables) == 1
	}
	return sqlparser.TableName{}, false
}

// partialDDLError is the error of a DDL statement that ran on the data
// nodes applied and then failed on the data node failed with err (MySQL
// DDL commits implicitly: the applied ones stay changed, the rest were not
// reached). It keeps the failure's MySQL error code and state.
func partialDDLError(err error, applied []string, failed string) error {
	se, ok := sqlError(err).(*sqlerror.SQLError)
	if !ok {
		return err
	}
	return sqlerror.NewSQLError(se.Num, se.State, "the statement ran on "+strings.Join(applied, ", ")+
		" and failed on "+failed+" (the data nodes after it were not changed): "+se.Message)
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
	defer s.metadataChanged()
	if drop {
		_ = s.b.SetTableDDL(name, nil)
		return
	}
	t, err := s.readTable(ctx, name, n)
	if err == nil && t == nil {
		err = errors.New("the actual table does not exist")
	}
	if err == nil {
		err = s.b.SetTableDDL(name, t)
	}
	if err != nil {
		s.log.Warn("planner metadata not refreshed after DDL; the previous definition stays", "table", name, "data_node", s.nodeName(n), "error", err.Error())
	}
}

var (
	showCreateRE  = regexp.MustCompile("(?is)^show\\s+create\\s+table\\s+(`[^`]+`|[\\w$]+)(?:\\.(`[^`]+`|[\\w$]+))?\\s*$")
	showColumnsRE = regexp.MustCompile("(?is)^show\\s+(full\\s+)?(?:columns|fields)\\s+(?:from|in)\\s+(`[^`]+`|[\\w$]+)(?:\\.(`[^`]+`|[\\w$]+))?(?:\\s+(?:from|in)\\s+(`[^`]+`|[\\w$]+))?(\\s+(?:like|where)\\s.*)?$")
	showIndexRE   = regexp.MustCompile("(?is)^show\\s+(?:extended\\s+)?(?:index|indexes|keys)\\s+(?:from|in)\\s+(`[^`]+`|[\\w$]+)(?:\\.(`[^`]+`|[\\w$]+))?(?:\\s+(?:from|in)\\s+(`[^`]+`|[\\w$]+))?(\\s+where\\s.*)?$")
	describeRE    = regexp.MustCompile("(?is)^(?:describe|desc)\\s+(`[^`]+`|[\\w$]+)(?:\\.(`[^`]+`|[\\w$]+))?(\\s+\\S+)?\\s*$")
)

// showUnit is where the proxy runs a SHOW about one logic table (showTable)
// and what it sends there.
type showUnit struct {
	logic                   string
	n                       node
	text                    string // the statement on the actual table
	view                    *encryptedView
	create, describe, index bool
}

// showTableUnit parses SHOW CREATE TABLE t, SHOW [FULL] COLUMNS|FIELDS
// FROM t [FROM db] [LIKE ...|WHERE ...], SHOW INDEX|INDEXES|KEYS FROM t
// [FROM db] [WHERE ...] and DESCRIBE t [column] and returns the data node
// it runs on (the logic table's first actual table) and the statement sent
// there, which PREVIEW shows. ok is false for other statements.
func (h *handler) showTableUnit(ctx context.Context, c *mysql.Conn, q string) (*showUnit, bool, error) {
	t, ok := parseShowTable(q)
	if !ok {
		return nil, false, nil
	}
	for _, db := range t.dbs {
		if err := checkDatabase(h.s.cfg, c.UserData, db); err != nil {
			return nil, true, err
		}
	}
	if err := checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName); err != nil {
		return nil, true, err
	}
	if h.s.b.Table(t.logic) == nil {
		if ok, err := h.s.rereadTable(ctx, t.logic); err != nil {
			return nil, true, err
		} else if !ok {
			return nil, true, sqlerror.NewSQLError(sqlerror.ERNoSuchTable, "42S02", "Table '"+h.s.cfg.Rules.DatabaseName+"."+t.logic+"' doesn't exist")
		}
	}
	nodes, _, err := h.s.tableNodes(t.logic)
	if err != nil {
		return nil, true, err
	}
	n := nodes[0]
	text, view, err := t.actualText(h.s.cfg.Rules, h.s.b.Parser(), n.table)
	if err != nil {
		return nil, true, err
	}
	return &showUnit{logic: t.logic, n: n, text: text, view: view, create: t.create, describe: t.describe, index: t.index}, true, nil
}

// showTarget is a SHOW CREATE TABLE, SHOW COLUMNS, SHOW INDEX or DESCRIBE
// of one logic table, parsed (parseShowTable).
type showTarget struct {
	logic string
	// dbs are the databases the statement names (t's qualifier, FROM db).
	dbs []string
	// text is the statement up to the table's name, rest what follows it
	// (LIKE, WHERE, DESCRIBE's column).
	text, rest              string
	create, describe, index bool
}

// parseShowTable parses SHOW CREATE TABLE t, SHOW [FULL] COLUMNS|FIELDS
// FROM t [FROM db] [LIKE ...|WHERE ...], SHOW INDEX|INDEXES|KEYS FROM t
// [FROM db] [WHERE ...] and DESCRIBE t [column]; ok is false for other
// statements.
func parseShowTable(q string) (t showTarget, ok bool) {
	unquote := func(s string) string { return strings.ReplaceAll(strings.Trim(s, "`"), "``", "`") }
	// table sets t.logic from a "name" or "db.name" match.
	table := func(a, b, db string) {
		t.logic = unquote(a)
		if b != "" {
			db, t.logic = a, unquote(b)
		}
		if db != "" {
			t.dbs = append(t.dbs, unquote(db))
		}
	}
	if m := showCreateRE.FindStringSubmatch(q); m != nil {
		t.create = true
		table(m[1], m[2], "")
		t.text = "SHOW CREATE TABLE "
	} else if m := showColumnsRE.FindStringSubmatch(q); m != nil {
		table(m[2], m[3], m[4])
		t.text = "SHOW " + strings.ToUpper(strings.TrimSpace(m[1])) + " COLUMNS FROM "
		t.rest = m[5]
	} else if m := showIndexRE.FindStringSubmatch(q); m != nil {
		table(m[1], m[2], m[3])
		t.text = "SHOW INDEX FROM "
		t.rest = m[4]
		t.index = true
	} else if m := describeRE.FindStringSubmatch(q); m != nil {
		table(m[1], m[2], "")
		t.text = "DESCRIBE "
		t.rest = m[3]
		t.describe = true
	} else {
		return t, false
	}
	return t, true
}

// actualText is the statement t runs as on the actual table named table:
// on a table with an !ENCRYPT rule of cfg, SHOW COLUMNS with its LIKE,
// WHERE or DESCRIBE column read over the logic columns (encryptedView).
func (t showTarget) actualText(cfg *schema.Config, parser *sqlparser.Parser, table string) (string, *encryptedView, error) {
	text, rest := t.text, t.rest
	view := encryptedViewOf(cfg, t.logic)
	if view != nil && !t.create && !t.index {
		if t.describe {
			text = "SHOW COLUMNS FROM " // the same columns as DESCRIBE, and it takes a WHERE
		}
		var err error
		if rest, err = view.columnsWhere(parser, rest, t.describe); err != nil {
			return "", nil, err
		}
	}
	return text + "`" + strings.ReplaceAll(table, "`", "``") + "`" + rest, view, nil
}

// showTable answers SHOW CREATE TABLE, SHOW COLUMNS, SHOW INDEX and
// DESCRIBE of a logic table (showTableUnit) as ShardingSphere does: the
// statement runs on the table's first actual table, and the actual name in
// the answer becomes the logic one. A table with an !ENCRYPT rule shows
// its logic columns (encryptedView): its LIKE pattern, WHERE condition or
// DESCRIBE column then applies to the logic names. ok is false for other
// statements.
func (h *handler) showTable(ctx context.Context, c *mysql.Conn, q string) (*sqltypes.Result, bool, error) {
	u, ok, err := h.showTableUnit(ctx, c, q)
	if !ok || err != nil {
		return nil, ok, err
	}
	logic, n, text, view, create, index := u.logic, u.n, u.text, u.view, u.create, u.index
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
				r[1] = []byte(logicCreateTable(renameCreate(string(b), n.table, logic), view))
			} else if s, ok := r[1].(string); ok {
				r[1] = logicCreateTable(renameCreate(s, n.table, logic), view)
			}
		}
	} else if index {
		// Table and Column_name: the logic table and columns, each
		// logic column once per key (Seq_in_index renumbered).
		for _, r := range vals {
			if len(r) < 5 {
				continue
			}
			r[0] = logic
			if view != nil {
				if l, ok := view.logicName(textOf(r[4])); ok {
					r[4] = l
				}
			}
		}
		if view != nil && len(cols) >= 5 {
			vals = h.s.encryptedRows(vals, 0, 2, 3, 4)
		}
	} else if view != nil {
		vals = view.columnRows(vals)
	}
	res, err := rowsResult(cols, vals, resultCollation(c))
	return res, true, err
}

// renameCreate replaces the table name of a SHOW CREATE TABLE answer.
func renameCreate(create, actual, logic string) string {
	quote := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	return strings.Replace(create, "TABLE "+quote(actual), "TABLE "+quote(logic), 1)
}

// encryptedView is how SHOW presents a table with an !ENCRYPT rule, as
// ShardingSphere-Proxy does (EncryptShowColumnsMergedResult and
// EncryptShowCreateTableMergedResult, 5.1 to 5.5): each cipher column
// appears as its logic column, with the cipher column's definition, at the
// cipher column's place; the assisted-query, like-query and (5.1) plain
// columns are hidden. ShardingSphere keeps keys as the back end has them;
// here a key, a foreign key, a CHECK constraint or a generated column names
// the logic column wherever the back end's names a derived column of it.
// Map keys are lower case (MySQL column names are case-insensitive).
type encryptedView struct {
	logic  map[string]string // cipher column → logic column
	hidden map[string]string // assisted-query, like-query, plain column → logic column
}

// encryptedViewOf returns the view of logic table table under the
// !ENCRYPT rule of cfg, nil when the rule does not name the table.
func encryptedViewOf(cfg *schema.Config, table string) *encryptedView {
	if cfg.Encrypt == nil {
		return nil
	}
	for _, et := range cfg.Encrypt.Tables {
		if !strings.EqualFold(et.Name, table) {
			continue
		}
		v := &encryptedView{logic: map[string]string{}, hidden: map[string]string{}}
		for _, c := range et.Columns {
			v.logic[strings.ToLower(c.Cipher.Column)] = c.Name
			for _, d := range []*schema.EncryptDerived{c.AssistedQuery, c.LikeQuery} {
				if d != nil {
					v.hidden[strings.ToLower(d.Column)] = c.Name
				}
			}
			if c.Plain != "" {
				v.hidden[strings.ToLower(c.Plain)] = c.Name
			}
		}
		return v
	}
	return nil
}

// logicName returns the logic column a physical column col stands for
// (cipher or hidden), and whether it is one.
func (v *encryptedView) logicName(col string) (string, bool) {
	l := strings.ToLower(col)
	if n, ok := v.logic[l]; ok {
		return n, true
	}
	n, ok := v.hidden[l]
	return n, ok
}

// columnsWhere returns the condition to run SHOW [FULL] COLUMNS of the
// actual table with, in place of the client's rest (" LIKE 'p%'",
// " WHERE ...", or DESCRIBE's " column", which is a LIKE pattern too):
// " WHERE <condition>" with every Field of it reading the logic name of a
// cipher column (CASE Field WHEN 'phone_cipher' THEN 'phone' ... END), so
// that the pattern or condition sees the names the client does. "" when
// rest is empty. A condition that does not parse is ERROR 1064.
func (v *encryptedView) columnsWhere(parser *sqlparser.Parser, rest string, describe bool) (string, error) {
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return "", nil
	}
	field := &sqlparser.ColName{Name: sqlparser.NewIdentifierCI("Field")}
	var cond sqlparser.Expr
	if describe && rest[0] != '\'' && rest[0] != '"' {
		// DESCRIBE t col: the column name, as a pattern.
		name := strings.ReplaceAll(strings.Trim(rest, "`"), "``", "`")
		cond = &sqlparser.ComparisonExpr{Operator: sqlparser.LikeOp, Left: field, Right: sqlparser.NewStrLiteral(name)}
	} else {
		word, arg := "like", rest
		if !describe {
			word, arg = firstWord(rest)
		}
		e, err := parser.ParseExpr(arg)
		if err != nil {
			return "", sqlerror.NewSQLError(sqlerror.ERParseError, sqlerror.SSClientError, "You have an error in your SQL syntax near '"+arg+"'")
		}
		cond = e
		if word == "like" {
			cond = &sqlparser.ComparisonExpr{Operator: sqlparser.LikeOp, Left: field, Right: e}
		}
	}
	ciphers := make([]string, 0, len(v.logic))
	for c := range v.logic {
		ciphers = append(ciphers, c)
	}
	sort.Strings(ciphers)
	logicField := &sqlparser.CaseExpr{Expr: field, Else: field}
	for _, c := range ciphers {
		logicField.Whens = append(logicField.Whens, &sqlparser.When{Cond: sqlparser.NewStrLiteral(c), Val: sqlparser.NewStrLiteral(v.logic[c])})
	}
	cond = sqlparser.Rewrite(cond, nil, func(cur *sqlparser.Cursor) bool {
		if c, ok := cur.Node().(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() && c.Name.EqualString("field") {
			cur.Replace(sqlparser.Clone(logicField))
		}
		return true
	}).(sqlparser.Expr)
	return " WHERE " + sqlparser.String(cond), nil
}

// columnRows turns the rows of SHOW [FULL] COLUMNS of the actual table
// (Field first) into the logic table's: rows of hidden columns are
// dropped, a cipher column's row is named after its logic column.
func (v *encryptedView) columnRows(rows [][]any) [][]any {
	out := rows[:0]
	for _, r := range rows {
		if len(r) == 0 {
			continue
		}
		var name string
		switch f := r[0].(type) {
		case []byte:
			name = string(f)
		case string:
			name = f
		}
		l := strings.ToLower(name)
		if _, ok := v.hidden[l]; ok {
			continue
		}
		if logic, ok := v.logic[l]; ok {
			if _, isBytes := r[0].([]byte); isBytes {
				r[0] = []byte(logic)
			} else {
				r[0] = logic
			}
		}
		out = append(out, r)
	}
	return out
}

// logicCreateTable rewrites the SHOW CREATE TABLE text of an actual table
// (MySQL's and MariaDB's layout: "CREATE TABLE `t` (\n", one column, key
// or constraint per line, "\n) ENGINE=...") for the view v: a hidden
// column's line goes, a cipher column's line names its logic column, and
// derived column names in keys (each logic column listed once), foreign
// keys, CHECK constraints and generated columns become logic names. A nil
// view or text of another layout is returned as it is.
func logicCreateTable(create string, v *encryptedView) string {
	if v == nil {
		return create
	}
	start := strings.Index(create, "(\n")
	end := strings.LastIndex(create, "\n)")
	if start < 0 || end <= start {
		return create
	}
	lines := strings.Split(create[start+2:end], "\n")
	out := make([]string, 0, len(lines))
	for _, line := range lines {
		def := strings.TrimSuffix(line, ",")
		body := strings.TrimLeft(def, " ")
		indent := def[:len(def)-len(body)]
		if strings.HasPrefix(body, "`") {
			// A column: `name` type ...
			n := sqlTokenEnd(body, 0)
			name := strings.ReplaceAll(body[1:n-1], "``", "`")
			if _, ok := v.hidden[strings.ToLower(name)]; ok {
				continue
			}
			head := body[:n]
			if logic, ok := v.logic[strings.ToLower(name)]; ok {
				head = quoteIdent(logic)
			}
			out = append(out, indent+head+v.renameIdents(body[n:]))
			continue
		}
		open := sqlIndexByte(body, 0, '(')
		if open < 0 {
			out = append(out, def)
			continue
		}
		if !keyDefinition(body[:open]) {
			out = append(out, indent+body[:open]+v.renameIdents(body[open:]))
			continue
		}
		// A key: logic names in its column list, each once.
		closing := matchingParen(body, open)
		if closing < 0 {
			out = append(out, def)
			continue
		}
		var parts []string
		seen := map[string]bool{}
		for _, part := range splitTopLevel(body[open+1 : closing]) {
			if strings.HasPrefix(part, "`") {
				n := sqlTokenEnd(part, 0)
				name := strings.ReplaceAll(part[1:n-1], "``", "`")
				if logic, ok := v.logicName(name); ok {
					name = logic
					part = quoteIdent(logic) + part[n:]
				}
				if seen[strings.ToLower(name)] {
					continue
				}
				seen[strings.ToLower(name)] = true
			} else {
				part = v.renameIdents(part)
			}
			parts = append(parts, part)
		}
		out = append(out, indent+body[:open+1]+strings.Join(parts, ",")+body[closing:])
	}
	return create[:start+2] + strings.Join(out, ",\n") + create[end:]
}

// keyDefinition reports whether head, the text of a SHOW CREATE TABLE line
// before its first parenthesis, starts a key or a foreign key (PRIMARY KEY,
// UNIQUE KEY `u`, KEY `k`, FULLTEXT KEY, SPATIAL KEY, CONSTRAINT `c`
// FOREIGN KEY ...) rather than a CHECK constraint or a period.
func keyDefinition(head string) bool {
	var text strings.Builder // head without its quoted names
	for i := 0; i < len(head); {
		j := sqlTokenEnd(head, i)
		if head[i] == '`' {
			text.WriteByte(' ')
		} else {
			text.WriteString(head[i:j])
		}
		i = j
	}
	for _, w := range strings.Fields(strings.ToUpper(text.String())) {
		if w == "KEY" || w == "INDEX" {
			return true
		}
	}
	return false
}

// renameIdents replaces every quoted identifier of s that names a cipher
// or hidden column with its logic column; string literals stay as they
// are.
func (v *encryptedView) renameIdents(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := sqlTokenEnd(s, i)
		if s[i] == '`' && j-i >= 2 {
			if logic, ok := v.logicName(strings.ReplaceAll(s[i+1:j-1], "``", "`")); ok {
				b.WriteString(quoteIdent(logic))
				i = j
				continue
			}
		}
		b.WriteString(s[i:j])
		i = j
	}
	return b.String()
}

// sqlTokenEnd returns where the token of s at i ends: past the closing
// quote of a `quoted identifier` or a 'string' / "string" (doubled quotes
// and backslash escapes inside), else i+1. An unterminated quote runs to
// the end of s.
func sqlTokenEnd(s string, i int) int {
	q := s[i]
	if q != '`' && q != '\'' && q != '"' {
		return i + 1
	}
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// sqlIndexByte returns the index of the first c in s at or after from that
// is outside quotes, -1 when there is none.
func sqlIndexByte(s string, from int, c byte) int {
	for i := from; i < len(s); i = sqlTokenEnd(s, i) {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// matchingParen returns the index of the parenthesis closing the one at
// open, outside quotes; -1 when it is not closed.
func matchingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i = sqlTokenEnd(s, i) {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTopLevel splits a column list at the commas outside parentheses and
// quotes.
func splitTopLevel(s string) []string {
	var parts []string
	depth, from := 0, 0
	for i := 0; i < len(s); i = sqlTokenEnd(s, i) {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[from:i])
				from = i + 1
			}
		}
	}
	return append(parts, s[from:])
}

// quoteIdent quotes a MySQL identifier with backticks.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
