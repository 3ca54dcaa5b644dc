package proxy

import (
	"context"
	"database/sql"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// BI tools and consoles (DBeaver, DataGrip, Metabase, the mariadb CLI)
// browse a database through information_schema and SHOW. The proxy
// answers them for the logic database as one server holding the logic
// tables would, and never shows an actual table:
//
//  1. for each information_schema table the statement reads that
//     describes tables (isTables), the rows of every logic table's first
//     actual table are read from its data source, with the data source's
//     database renamed to the logic database and actual tables to their
//     logic tables (for TABLES, the row and size counts of a sharded
//     table are summed over its actual tables, as one server holding all
//     its rows would count them; a broadcast table counts one copy);
//  2. those rows go into a temporary table of the same columns, created
//     from the information_schema table itself, on one back-end
//     connection of the first data source;
//  3. the client's statement runs there with each information_schema table
//     replaced by its temporary table, so that its WHERE, joins, ORDER BY
//     and functions are evaluated by the server exactly as on one server.
//
// SHOW [FULL] TABLES and SHOW TABLE STATUS are the statements over
// information_schema.TABLES that MariaDB itself runs for them (showTables).
// information_schema tables that describe the server rather than tables
// (ENGINES, COLLATIONS, CHARACTER_SETS, PLUGINS...) are read as they are.

// isTable says how one information_schema table is shown for the logic
// database.
type isTable struct {
	// schema is the column naming the table's database, table the one
	// naming the table: rows are kept for the first actual tables of the
	// logic tables. table is "" for SCHEMATA (one row, the logic
	// database's) and for tables of objects that are not logic tables
	// (routines, events...), which are shown empty (schema "").
	schema, table string
	// schemas and tables are further columns naming a database or a
	// table (a foreign key's referenced table), renamed as well.
	schemas, tables []string
	// ordinal is the column numbering a table's columns (COLUMNS), key
	// and seq those naming a key and numbering its columns (STATISTICS,
	// KEY_COLUMN_USAGE): renumbered after an encrypted table's derived
	// columns are hidden (encryptedRows).
	ordinal, key, seq string
}

// isTables are the information_schema tables of MariaDB 10.11 and MySQL
// 8.0 that name databases or tables, by upper-case name.
var isTables = map[string]isTable{
	"TABLES":                  {schema: "TABLE_SCHEMA", table: "TABLE_NAME"},
	"COLUMNS":                 {schema: "TABLE_SCHEMA", table: "TABLE_NAME", ordinal: "ORDINAL_POSITION"},
	"STATISTICS":              {schema: "TABLE_SCHEMA", table: "TABLE_NAME", schemas: []string{"INDEX_SCHEMA"}, key: "INDEX_NAME", seq: "SEQ_IN_INDEX"},
	"KEY_COLUMN_USAGE":        {schema: "TABLE_SCHEMA", table: "TABLE_NAME", schemas: []string{"CONSTRAINT_SCHEMA", "REFERENCED_TABLE_SCHEMA"}, tables: []string{"REFERENCED_TABLE_NAME"}, key: "CONSTRAINT_NAME", seq: "ORDINAL_POSITION"},
	"TABLE_CONSTRAINTS":       {schema: "TABLE_SCHEMA", table: "TABLE_NAME", schemas: []string{"CONSTRAINT_SCHEMA"}},
	"REFERENTIAL_CONSTRAINTS": {schema: "CONSTRAINT_SCHEMA", table: "TABLE_NAME", schemas: []string{"UNIQUE_CONSTRAINT_SCHEMA"}, tables: []string{"REFERENCED_TABLE_NAME"}},
	"CHECK_CONSTRAINTS":       {schema: "CONSTRAINT_SCHEMA", table: "TABLE_NAME"},
	"PARTITIONS":              {schema: "TABLE_SCHEMA", table: "TABLE_NAME"},
	"TRIGGERS":                {schema: "EVENT_OBJECT_SCHEMA", table: "EVENT_OBJECT_TABLE", schemas: []string{"TRIGGER_SCHEMA"}},
	"VIEWS":                   {schema: "TABLE_SCHEMA", table: "TABLE_NAME"},
	"COLUMN_PRIVILEGES":       {schema: "TABLE_SCHEMA", table: "TABLE_NAME"},
	"TABLE_PRIVILEGES":        {schema: "TABLE_SCHEMA", table: "TABLE_NAME"},
	"TABLE_STATISTICS":        {schema: "TABLE_SCHEMA", table: "TABLE_NAME"},
	"INDEX_STATISTICS":        {schema: "TABLE_SCHEMA", table: "TABLE_NAME"},
	"SCHEMATA":                {schema: "SCHEMA_NAME"},
	"ROUTINES":                {},
	"PARAMETERS":              {},
	"EVENTS":                  {},
	"SCHEMA_PRIVILEGES":       {},
	"FILES":                   {},
	"GEOMETRY_COLUMNS":        {},
	"INNODB_BUFFER_PAGE":      {},
	"INNODB_BUFFER_PAGE_LRU":  {},
	"INNODB_CMP_PER_INDEX":    {},
}

// isTempPrefix names the temporary tables standing for information_schema
// tables ("shardgen_is_COLUMNS").
const isTempPrefix = "shardgen_is_"

// infoSchemaRefs returns the upper-case names of the information_schema
// tables stmt reads, and whether it reads nothing else (a statement that
// mixes them with logic tables is the planner's).
func infoSchemaRefs(stmt sqlparser.Statement) (names []string, only bool) {
	only = true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		ate, ok := n.(*sqlparser.AliasedTableExpr)
		if !ok {
			return true, nil
		}
		tn, ok := ate.Expr.(sqlparser.TableName)
		if !ok {
			return true, nil // a derived table: its own tables are walked
		}
		if !strings.EqualFold(tn.Qualifier.String(), "information_schema") {
			if !strings.EqualFold(tn.Name.String(), "dual") || !tn.Qualifier.IsEmpty() {
				only = false
			}
			return true, nil
		}
		name := strings.ToUpper(tn.Name.String())
		for _, x := range names {
			if x == name {
				return true, nil
			}
		}
		names = append(names, name)
		return true, nil
	}, stmt)
	return names, only
}

// infoSchemaPrepared reports whether the prepared statement q reads
// information_schema tables and nothing else (infoSchema answers it), and
// its number of ? placeholders: each execution runs it as a text
// statement with the values in place. Statements that do not name
// information_schema are told apart without parsing.
func (h *handler) infoSchemaPrepared(q string) (uint16, bool) {
	if !containsFold(q, "information_schema") {
		return 0, false
	}
	stmt, err := h.s.b.Parser().Parse(q)
	if err != nil {
		return 0, false
	}
	switch stmt.(type) {
	case *sqlparser.Select, *sqlparser.Union:
	default:
		return 0, false
	}
	if names, only := infoSchemaRefs(stmt); len(names) == 0 || !only {
		return 0, false
	}
	return countArguments(stmt), true
}

// containsFold reports whether s contains the lower-case ASCII word sub,
// ignoring case, without allocating.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// infoSchema answers a SELECT or UNION (stmt, of the text q) that reads
// information_schema tables and no logic table (see the comment at the top
// of the file); ok is false for any other statement. stmt is changed.
func (h *handler) infoSchema(ctx context.Context, c *mysql.Conn, sess *session, q string, stmt sqlparser.Statement) (*sqltypes.Result, bool, error) {
	switch stmt.(type) {
	case *sqlparser.Select, *sqlparser.Union:
	default:
		return nil, false, nil
	}
	names, only := infoSchemaRefs(stmt)
	if len(names) == 0 || !only {
		return nil, false, nil
	}
	nameAsWritten(q, stmt)
	// A user the logic database is not permitted to sees none of it, as
	// a server shows no table a user has no privilege on.
	visible := checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName) == nil
	res, err := h.s.runInfoSchema(ctx, stmt, names, sess.db, visible, resultCollation(c))
	return res, true, err
}

// runInfoSchema runs stmt, which reads the information_schema tables
// names (upper case), on one back-end connection with each table of
// isTables replaced by a temporary table of its logic rows (none unless
// visible); DATABASE() reads db (the session's database, "" for none).
func (s *Server) runInfoSchema(ctx context.Context, stmt sqlparser.Statement, names []string, db string, visible bool, charset uint32) (*sqltypes.Result, error) {
	pool, _ := s.db.Pool(s.db.DataSourceNames()[0])
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var temps []string
	defer func() {
		for _, t := range temps {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "DROP TEMPORARY TABLE IF EXISTS "+t)
		}
	}()
	replaced := map[string]bool{}
	for _, name := range names {
		spec, ok := isTables[name]
		if !ok {
			continue
		}
		temp := isTempPrefix + name
		for _, q := range []string{"DROP TEMPORARY TABLE IF EXISTS " + temp,
			"CREATE TEMPORARY TABLE " + temp + " AS SELECT * FROM information_schema." + name + " WHERE 1 = 0"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return nil, err
			}
		}
		temps = append(temps, temp)
		replaced[name] = true
		if !visible {
			continue
		}
		rows, err := s.logicInfoRows(ctx, name, spec)
		if err != nil {
			return nil, err
		}
		if err := insertRows(ctx, conn, temp, rows); err != nil {
			return nil, err
		}
	}
	text := sqlparser.String(rewriteInfoSchema(stmt, replaced, db))
	rows, err := conn.QueryContext(ctx, text)
	if err != nil {
		return nil, err
	}
	cols, vals, err := readRows(rows)
	if err != nil {
		return nil, err
	}
	return rowsResult(cols, vals, charset)
}

// rewriteInfoSchema returns stmt with every information_schema table of
// replaced read from its temporary table under its own name (so that
// qualified columns still resolve), and DATABASE() / SCHEMA() reading db.
func rewriteInfoSchema(stmt sqlparser.Statement, replaced map[string]bool, db string) sqlparser.SQLNode {
	var dbExpr sqlparser.Expr = &sqlparser.NullVal{}
	if db != "" {
		dbExpr = sqlparser.NewStrLiteral(db)
	}
	return sqlparser.Rewrite(sqlparser.Clone(stmt), func(cur *sqlparser.Cursor) bool {
		switch n := cur.Node().(type) {
		case *sqlparser.AliasedTableExpr:
			tn, ok := n.Expr.(sqlparser.TableName)
			if !ok || !strings.EqualFold(tn.Qualifier.String(), "information_schema") || !replaced[strings.ToUpper(tn.Name.String())] {
				return true
			}
			if n.As.IsEmpty() {
				n.As = sqlparser.NewIdentifierCS(tn.Name.String())
			}
			n.Expr = sqlparser.TableName{Name: sqlparser.NewIdentifierCS(isTempPrefix + strings.ToUpper(tn.Name.String()))}
			return false
		case *sqlparser.ColName:
			// information_schema.COLUMNS.TABLE_NAME: the table is aliased
			// by its own name now.
			if strings.EqualFold(n.Qualifier.Qualifier.String(), "information_schema") && replaced[strings.ToUpper(n.Qualifier.Name.String())] {
				n.Qualifier = sqlparser.TableName{Name: n.Qualifier.Name}
			}
		case *sqlparser.FuncExpr:
			if fn := n.Name.Lowered(); (fn == "database" || fn == "schema") && len(n.Exprs) == 0 {
				cur.Replace(dbExpr)
			}
		}
		return true
	}, nil)
}

// insertRows inserts rows into the temporary table temp of conn, a few
// hundred rows a statement, each with its values in its text (one round
// trip a statement). Text values are sent as strings, so that a count
// read as text goes into a number column as that number.
func insertRows(ctx context.Context, conn *sql.Conn, temp string, rows [][]any) error {
	const batch = 200
	for len(rows) > 0 {
		n := min(batch, len(rows))
		var b strings.Builder
		b.WriteString("INSERT INTO " + temp + " VALUES ")
		var args []any
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			for j, v := range r {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteByte('?')
				if x, ok := v.([]byte); ok {
					v = string(x)
				}
				args = append(args, v)
			}
			b.WriteByte(')')
		}
		text, err := interpolate(b.String(), args)
		if err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, text); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// logicInfoRows returns the rows of information_schema table name for the
// logic database (see isTable): read from the data sources and renamed.
func (s *Server) logicInfoRows(ctx context.Context, name string, spec isTable) ([][]any, error) {
	if spec.schema == "" {
		return nil, nil
	}
	if spec.table == "" {
		// SCHEMATA: the first logic data source's database, renamed.
		ds := s.firstLogicSource()
		q := "SELECT * FROM information_schema." + name + " WHERE " + spec.schema + " = DATABASE()"
		cols, vals, err := s.queryNode(ctx, ds, q)
		if err != nil {
			return nil, err
		}
		m := s.isMapper(cols, spec, nil)
		for _, r := range vals {
			m.rename(r)
		}
		return vals, nil
	}
	// The actual tables to read, by data source: every logic table's
	// first; for TABLES every actual table of a sharded table, whose
	// counts are summed (a broadcast table's copies each hold all its
	// rows: its first copy counts them).
	type logicNode struct {
		logic string
		first bool
	}
	byDS := map[int]map[string]logicNode{} // data source -> lower-case actual table
	var order []int
	for _, logic := range s.b.TableNames() {
		nodes, sharded, err := s.tableNodes(logic)
		if err != nil || len(nodes) == 0 {
			continue
		}
		if name != "TABLES" || !sharded {
			nodes = nodes[:1]
		}
		for i, n := range nodes {
			if byDS[n.ds] == nil {
				byDS[n.ds] = map[string]logicNode{}
				order = append(order, n.ds)
			}
			byDS[n.ds][strings.ToLower(n.table)] = logicNode{logic: logic, first: i == 0}
		}
	}
	var out [][]any
	var cols []column
	firstRow := map[string][]any{} // TABLES: lower-case logic table -> its first actual table's row
	var extra []logicRow           // TABLES: the other actual tables' rows
	for _, ds := range order {
		actual := byDS[ds]
		var list []string
		for t := range actual {
			list = append(list, sqlparser.String(sqlparser.NewStrLiteral(t)))
		}
		sort.Strings(list)
		// information_schema compares names case-insensitively (utf8mb3_general_ci),
		// and names the server can look up directly spare it a scan of
		// the database.
		q := "SELECT * FROM information_schema." + name + " WHERE " + spec.schema + " = DATABASE() AND " + spec.table + " IN (" + strings.Join(list, ",") + ")"
		var vals [][]any
		var err error
		cols, vals, err = s.queryNode(ctx, ds, q)
		if err != nil {
			return nil, err
		}
		logicOf := map[string]string{}
		for t, ln := range actual {
			logicOf[t] = ln.logic
		}
		m := s.isMapper(cols, spec, logicOf)
		for _, r := range vals {
			ln := actual[strings.ToLower(textOf(r[m.table]))]
			keep := m.rename(r)
			switch {
			case !keep:
			case ln.first:
				out = append(out, r)
				if name == "TABLES" {
					firstRow[strings.ToLower(ln.logic)] = r
				}
			default:
				extra = append(extra, logicRow{ln.logic, r})
			}
		}
	}
	if len(extra) > 0 {
		sumTableCounts(cols, firstRow, extra)
	}
	if s.cfg.Rules.Encrypt != nil && cols != nil {
		idx := func(name string) int { return columnIndex(cols, name) }
		if spec.ordinal != "" {
			out = s.encryptedRows(out, idx(spec.table), -1, idx(spec.ordinal), -1)
		}
		if spec.key != "" {
			out = s.encryptedRows(out, idx(spec.table), idx(spec.key), idx(spec.seq), idx("COLUMN_NAME"))
		}
	}
	return out, nil
}

// encryptedRows renumbers the rows of encrypted logic tables (the column
// table names the logic table) after their derived columns were hidden or
// renamed: within each table (and key, when key >= 0) the rows are taken
// in the order of the column seq, a row whose column col (when >= 0)
// repeats an earlier row's is dropped (a key over a cipher and its
// assisted-query column lists the logic column once), and seq is numbered
// 1, 2, ... Other rows and the rows' order stay as they are.
func (s *Server) encryptedRows(rows [][]any, table, key, seq, col int) [][]any {
	if table < 0 || seq < 0 {
		return rows
	}
	type group struct{ table, key string }
	members := map[group][]int{}
	for i, r := range rows {
		t := textOf(r[table])
		if encryptedViewOf(s.cfg.Rules, t) == nil {
			continue
		}
		g := group{table: strings.ToLower(t)}
		if key >= 0 {
			g.key = textOf(r[key])
		}
		members[g] = append(members[g], i)
	}
	drop := map[int]bool{}
	for _, idx := range members {
		sort.SliceStable(idx, func(a, b int) bool {
			x, _ := uintOf(rows[idx[a]][seq])
			y, _ := uintOf(rows[idx[b]][seq])
			return x < y
		})
		seen := map[string]bool{}
		n := uint64(0)
		for _, i := range idx {
			if col >= 0 {
				c := strings.ToLower(textOf(rows[i][col]))
				if seen[c] {
					drop[i] = true
					continue
				}
				seen[c] = true
			}
			n++
			rows[i][seq] = strconv.FormatUint(n, 10)
		}
	}
	out := rows[:0]
	for i, r := range rows {
		if !drop[i] {
			out = append(out, r)
		}
	}
	return out
}

// logicRow is an information_schema row of an actual table of the logic
// table logic.
type logicRow struct {
	logic string
	row   []any
}

// queryNode runs q on the data source ds and reads its rows.
func (s *Server) queryNode(ctx context.Context, ds int, q string) ([]column, [][]any, error) {
	rows, err := s.in.src.Query(ctx, &runtime.Stmt{Name: "metadata", LogicSQL: q}, runtime.RouteUnit{DataSource: ds, SQL: q})
	if err != nil {
		return nil, nil, err
	}
	return readRows(rows)
}

// firstLogicSource returns the index (into the interpreter's names) of
// the first logic data source.
func (s *Server) firstLogicSource() int {
	if l := s.cfg.Rules.LogicDataSources; len(l) > 0 {
		for i, n := range s.in.names {
			if n == l[0] {
				return i
			}
		}
	}
	return 0
}

// isMapper renames the databases and tables of information_schema rows
// of one data source.
type isMapper struct {
	logicDB string
	schema  int   // the column of isTable.schema
	table   int   // the column of isTable.table, -1 for none
	schemas []int // columns naming a database
	tables  []int // columns naming a table
	column  int   // COLUMN_NAME, -1 for none
	keys    bool  // rows of keys: hidden columns read as their logic column
	logicOf map[string]string
	s       *Server
}

func (s *Server) isMapper(cols []column, spec isTable, logicOf map[string]string) *isMapper {
	idx := func(name string) int { return columnIndex(cols, name) }
	m := &isMapper{logicDB: s.cfg.Rules.DatabaseName, schema: idx(spec.schema), table: -1, column: idx("COLUMN_NAME"), keys: spec.key != "", logicOf: logicOf, s: s}
	if spec.table != "" {
		m.table = idx(spec.table)
		m.tables = append(m.tables, m.table)
	}
	m.schemas = append(m.schemas, m.schema)
	for _, n := range spec.schemas {
		if i := idx(n); i >= 0 {
			m.schemas = append(m.schemas, i)
		}
	}
	for _, n := range spec.tables {
		if i := idx(n); i >= 0 {
			m.tables = append(m.tables, i)
		}
	}
	return m
}

// rename renames r in place: the data source's database (r's own schema
// column) becomes the logic database, actual tables their logic tables,
// and an encrypted table's cipher column its logic column. It returns
// false for a row to drop: an encrypted table's assisted-query, like-query
// or plain column, unless the rows are of keys, where it reads as its
// logic column (encryptedRows then drops repeats).
func (m *isMapper) rename(r []any) bool {
	db := textOf(r[m.schema])
	for _, i := range m.schemas {
		if textOf(r[i]) == db {
			r[i] = m.logicDB
		}
	}
	logic := ""
	for k, i := range m.tables {
		l, ok := m.logicOf[strings.ToLower(textOf(r[i]))]
		if !ok {
			continue
		}
		r[i] = l
		if k == 0 && m.table >= 0 {
			logic = l
		}
	}
	if logic != "" && m.column >= 0 {
		if view := encryptedViewOf(m.s.cfg.Rules, logic); view != nil && r[m.column] != nil {
			col := strings.ToLower(textOf(r[m.column]))
			if l, hidden := view.hidden[col]; hidden {
				if !m.keys {
					return false
				}
				r[m.column] = l
			}
			if l, ok := view.logic[col]; ok {
				r[m.column] = l
			}
		}
	}
	return true
}

// tableCounts are the columns of information_schema.TABLES a sharded
// table's actual tables add up to (one server holding every row would
// count them so); AUTO_INCREMENT is their maximum.
var tableCounts = []string{"TABLE_ROWS", "DATA_LENGTH", "INDEX_LENGTH", "DATA_FREE"}

// sumTableCounts adds the counts of the other actual tables' rows (extra:
// logic table, row) into the first actual table's row of each logic table
// (first, by lower-case logic table), and sets AVG_ROW_LENGTH to
// DATA_LENGTH / TABLE_ROWS.
func sumTableCounts(cols []column, first map[string][]any, extra []logicRow) {
	idx := func(name string) int { return columnIndex(cols, name) }
	touched := map[string]bool{}
	for _, e := range extra {
		logic, row := e.logic, e.row
		base := first[strings.ToLower(logic)]
		if base == nil {
			continue
		}
		touched[strings.ToLower(logic)] = true
		for _, name := range tableCounts {
			if i := idx(name); i >= 0 {
				if a, ok := uintOf(base[i]); ok {
					if b, ok := uintOf(row[i]); ok {
						base[i] = strconv.FormatUint(a+b, 10)
					}
				}
			}
		}
		if i := idx("AUTO_INCREMENT"); i >= 0 {
			a, aok := uintOf(base[i])
			if b, ok := uintOf(row[i]); ok && (!aok || b > a) {
				base[i] = strconv.FormatUint(b, 10)
			}
		}
	}
	rows, data, avg := idx("TABLE_ROWS"), idx("DATA_LENGTH"), idx("AVG_ROW_LENGTH")
	if rows < 0 || data < 0 || avg < 0 {
		return
	}
	for logic := range touched {
		base := first[logic]
		n, ok1 := uintOf(base[rows])
		d, ok2 := uintOf(base[data])
		if ok1 && ok2 {
			a := uint64(0)
			if n > 0 {
				a = d / n
			}
			base[avg] = strconv.FormatUint(a, 10)
		}
	}
}

// columnIndex returns the index of the column name in cols
// (case-insensitive), -1 when there is none.
func columnIndex(cols []column, name string) int {
	for i, c := range cols {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

// uintOf reads an unsigned count of a row value.
func uintOf(v any) (uint64, bool) {
	switch x := v.(type) {
	case int64:
		return uint64(x), x >= 0
	case uint64:
		return x, true
	case string:
		n, err := strconv.ParseUint(x, 10, 64)
		return n, err == nil
	case []byte:
		n, err := strconv.ParseUint(string(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// tableStatusColumns are SHOW TABLE STATUS's columns as MariaDB reads them
// from information_schema.TABLES (its sql_show.cc), in order.
var tableStatusColumns = [][2]string{
	{"TABLE_NAME", "Name"}, {"ENGINE", "Engine"}, {"VERSION", "Version"}, {"ROW_FORMAT", "Row_format"},
	{"TABLE_ROWS", "Rows"}, {"AVG_ROW_LENGTH", "Avg_row_length"}, {"DATA_LENGTH", "Data_length"},
	{"MAX_DATA_LENGTH", "Max_data_length"}, {"INDEX_LENGTH", "Index_length"}, {"DATA_FREE", "Data_free"},
	{"AUTO_INCREMENT", "Auto_increment"}, {"CREATE_TIME", "Create_time"}, {"UPDATE_TIME", "Update_time"},
	{"CHECK_TIME", "Check_time"}, {"TABLE_COLLATION", "Collation"}, {"CHECKSUM", "Checksum"},
	{"CREATE_OPTIONS", "Create_options"}, {"TABLE_COMMENT", "Comment"}, {"MAX_INDEX_LENGTH", "Max_index_length"},
	{"TEMPORARY", "Temporary"},
}

// showTables answers SHOW [FULL] TABLES and SHOW TABLE STATUS ([FROM db]
// [LIKE 'pattern' | WHERE condition]) as the SELECT over
// information_schema.TABLES that MariaDB runs for them, with the logic
// tables (runInfoSchema): the column names (Tables_in_db, with " (pattern)"
// after a LIKE), the order by the names' bytes, and a WHERE over the
// output columns.
// ok is false for other SHOW statements.
func (h *handler) showTables(ctx context.Context, c *mysql.Conn, sess *session, show *sqlparser.ShowBasic) (*sqltypes.Result, bool, error) {
	if show.Command != sqlparser.Table && show.Command != sqlparser.TableStatus {
		return nil, false, nil
	}
	db := sess.db
	if name := show.DbName.String(); name != "" {
		if err := checkDatabase(h.s.cfg, c.UserData, name); err != nil {
			return nil, true, err
		}
		db = h.s.cfg.Rules.DatabaseName
	}
	if db == "" {
		return nil, true, sqlerror.NewSQLError(sqlerror.ERNoDb, "3D000", "No database selected")
	}
	var sel []string
	name := "Name" // the first column, the table's name
	if show.Command == sqlparser.Table {
		name = "Tables_in_" + db
		if show.Filter != nil && show.Filter.Filter == nil {
			name += " (" + show.Filter.Like + ")"
		}
		sel = append(sel, "TABLE_NAME AS "+quoteIdent(name))
		if show.Full {
			sel = append(sel, "TABLE_TYPE AS Table_type")
		}
	} else {
		for _, c := range tableStatusColumns {
			sel = append(sel, c[0]+" AS "+quoteIdent(c[1]))
		}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM information_schema.TABLES WHERE TABLE_SCHEMA = " + sqlparser.String(sqlparser.NewStrLiteral(db))
	if f := show.Filter; f != nil && f.Filter == nil {
		q += " AND TABLE_NAME LIKE " + sqlparser.String(sqlparser.NewStrLiteral(f.Like))
	}
	if f := show.Filter; f != nil && f.Filter != nil {
		q = "SELECT * FROM (" + q + ") AS t WHERE " + sqlparser.String(f.Filter)
	}
	q += " ORDER BY CAST(" + quoteIdent(name) + " AS BINARY)" // MariaDB lists them in byte order
	stmt, err := h.s.b.Parser().Parse(q)
	if err != nil {
		return nil, true, err
	}
	res, err := h.s.runInfoSchema(ctx, stmt, []string{"TABLES"}, sess.db, true, resultCollation(c))
	if err != nil && show.Command == sqlparser.Table && (show.Filter == nil || show.Filter.Filter == nil) {
		// A data source is down (or failed otherwise): list the logic
		// tables of the rules and DDL, as ShardingSphere-Proxy lists
		// them from its metadata, needing no data source.
		h.s.log.Warn("SHOW TABLES answered from the logic tables the proxy knows", "error", err)
		res, err = h.s.showTablesFromRules(name, show, resultCollation(c))
	}
	return res, true, err
}

// showTablesFromRules answers SHOW [FULL] TABLES [LIKE 'p'] from the logic
// tables the planner knows (no data source), in byte order as MariaDB
// lists them; name is the first column's name.
func (s *Server) showTablesFromRules(name string, show *sqlparser.ShowBasic, charset uint32) (*sqltypes.Result, error) {
	cols := []column{{name: name, typ: sqltypes.VarChar, length: 64 * 3}}
	if show.Full {
		cols = append(cols, column{name: "Table_type", typ: sqltypes.VarChar, length: 64 * 3})
	}
	names := s.b.TableNames()
	sort.Strings(names)
	var rows [][]any
	for _, t := range names {
		if show.Filter != nil && !likeFold(show.Filter.Like, t) {
			continue
		}
		row := []any{t}
		if show.Full {
			row = append(row, "BASE TABLE")
		}
		rows = append(rows, row)
	}
	return rowsResult(cols, rows, charset)
}

// likeFold reports whether s matches the LIKE pattern p (% any run, _ one
// character, \ escaping the next) case-insensitively, as information_schema's
// utf8mb3_general_ci names compare.
func likeFold(p, s string) bool {
	pr, sr := []rune(p), []rune(s)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(pr) {
			switch c := pr[i]; {
			case c == '%':
				for k := j; k <= len(sr); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			case c == '_':
				if j >= len(sr) {
					return false
				}
			default:
				if c == '\\' && i+1 < len(pr) {
					i++
					c = pr[i]
				}
				if j >= len(sr) || unicode.ToLower(c) != unicode.ToLower(sr[j]) {
					return false
				}
			}
			i++
			j++
		}
		return j == len(sr)
	}
	return match(0, 0)
}
