package proxy

import (
	"context"
	"errors"
	"strconv"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// The planner's metadata comes from one of two places, as the design
// says ("Metadata has two sources"):
//
//   - without --ddl (Config.HasDDL false), the data sources: at Start every
//     table of the rules is read from its first actual table (SHOW CREATE
//     TABLE, renamed to the logic table), as ShardingSphere-Proxy loads
//     its metadata. A table of the rules that exists nowhere yet is
//     allowed: the CREATE TABLE that creates it through the proxy brings
//     its definition (refreshTable). A definition the rules do not fit (a
//     rule's column the table does not have) stops Start, as --ddl's and
//     generate's check does; found after Start, it answers the statements
//     naming the table with that error (rulesRefusedError), not 1146;
//   - with --ddl, the files; Start reads the same definitions and logs a
//     warning for each difference (checkDDL), and the files stay in force.
//
// Either way the single tables of a wildcard !SINGLE entry ("*.*",
// "ds_0.*") and every table of a one-data-source database are found on the
// data sources at Start, and a statement that names a table the planner
// does not know reads that table again before it is answered with ERROR
// 1146 (rereadTables), so a table created on a data source after Start is
// found too.

// loadMetadata fills the planner at Start (see above). A data source that
// cannot be read is logged and skipped: its tables are read again when a
// statement names them. A table of the rules whose definition the data
// source gives but the rules do not fit (a sharding, key-generate or
// encrypt column the table does not have: schema.CheckDDL, as generate and
// --ddl check it) is an error: the server does not start, and the error
// lists every such rule at its file:line:col.
func (s *Server) loadMetadata(ctx context.Context) error {
	s.ddlMu.Lock()
	defer s.ddlMu.Unlock()
	defer s.metadataChanged()
	var refused schema.Errors
	for _, name := range s.ruleTables() {
		nodes, _, err := s.tableNodes(name)
		if err != nil || len(nodes) == 0 {
			continue
		}
		t, err := s.readTable(ctx, name, nodes[0])
		switch {
		case err != nil:
			s.log.Warn("table metadata not read from its first actual table", "table", name, "data_node", s.nodeName(nodes[0]), "error", err.Error())
		case s.cfg.HasDDL:
			s.checkDDL(name, nodes[0], t)
		case t == nil:
			// Not created yet: a CREATE TABLE through the proxy brings it.
		default:
			if err := s.b.SetTableDDL(name, t); err != nil {
				addErr(&refused, err)
			}
		}
	}
	if err := refused.Err(); err != nil {
		return err
	}
	found := map[string]string{} // lower-case single table -> where it was found first
	for _, ds := range s.wildcardSources() {
		names, err := s.listTables(ctx, ds)
		if err != nil {
			s.log.Warn("single tables not listed", "data_source", s.in.names[ds], "error", err.Error())
			continue
		}
		for _, name := range names {
			key := strings.ToLower(name)
			if s.actualTable(ds, name) {
				continue
			}
			if first, ok := found[key]; ok {
				s.log.Warn("single table found on several data sources; the first one is used", "table", name, "data_source", first, "also_on", s.in.names[ds])
				continue
			}
			found[key] = s.in.names[ds]
			if s.b.Table(name) != nil {
				continue // the DDL files define it
			}
			s.addSingleTable(ctx, name, ds)
		}
	}
	return nil
}

// rereadTables reads again, after the planner refused a statement with an
// unknown table (err), every table stmtText names that the planner does
// not know; it reports whether one was found, so that the statement is
// planned again. refused is the first such table whose definition the
// rules do not fit (rereadTable): the error to answer instead of ERROR
// 1146 when no table was found.
func (s *Server) rereadTables(ctx context.Context, stmtText string, err error) (again bool, refused error) {
	if !unknownTable(err) {
		return false, nil
	}
	stmt, perr := s.b.Parser().Parse(stmtText)
	if perr != nil {
		return false, nil
	}
	for _, name := range sqlparser.ExtractAllTables(stmt) {
		if s.b.Table(name) != nil {
			continue
		}
		ok, rerr := s.rereadTable(ctx, name)
		if ok {
			again = true
		} else if rerr != nil && refused == nil {
			refused = rerr
		}
	}
	return again, refused
}

// rulesRefusedError is a logic table that exists on its data source but
// whose definition the rules do not fit (schema.CheckDDL's problems, in
// Err, each at the rule's file:line:col): statements on it are answered
// with it rather than ERROR 1146 (Server.plan), since the table is there.
type rulesRefusedError struct {
	Table string
	Err   error
}

func (e *rulesRefusedError) Error() string {
	return "table " + e.Table + " exists on its data source, but the rules do not fit its definition, so the proxy cannot use it: " +
		strings.ReplaceAll(e.Err.Error(), "\n", "; ")
}

// unknownTable reports whether err is the planner's "unknown table" (the
// proxy's ERROR 1146).
func unknownTable(err error) bool {
	var pe *schema.Error
	var list schema.Errors
	if errors.As(err, &list) && len(list) > 0 {
		pe = list[0]
	} else if !errors.As(err, &pe) {
		return false
	}
	return strings.HasPrefix(strings.TrimPrefix(pe.Msg, `query "proxy": `), "unknown table ")
}

// rereadTable reads the definition of the table name from the data
// sources: its first actual table when a rule names it, else the first
// data source of the wildcard !SINGLE entries (wildcardSources) that holds
// it. It reports whether the planner now knows the table; when a rule
// names the table and its first actual table exists but the rules do not
// fit it (SetTableDDL's error: a sharding column it does not have, ...),
// the error is a *rulesRefusedError saying so.
func (s *Server) rereadTable(ctx context.Context, name string) (bool, error) {
	s.ddlMu.Lock()
	defer s.ddlMu.Unlock()
	if s.b.Table(name) != nil {
		return true, nil // another session read it meanwhile
	}
	defer s.metadataChanged()
	if s.ruleTable(name) {
		nodes, _, err := s.tableNodes(name)
		if err != nil || len(nodes) == 0 {
			return false, nil
		}
		t, err := s.readTable(ctx, name, nodes[0])
		if err != nil || t == nil {
			return false, nil
		}
		if err := s.b.SetTableDDL(name, t); err != nil {
			return false, &rulesRefusedError{Table: name, Err: err}
		}
		return true, nil
	}
	for _, ds := range s.wildcardSources() {
		if !s.actualTable(ds, name) && s.addSingleTable(ctx, name, ds) {
			return true, nil
		}
	}
	return false, nil
}

// knownTableNodes is tableNodes, reading a table the planner does not
// know from the data sources first when tableNodes cannot place it (a
// single table created on a data source after Start).
func (s *Server) knownTableNodes(ctx context.Context, name string) ([]node, bool, error) {
	nodes, sharded, err := s.tableNodes(name)
	if err != nil && s.b.Table(name) == nil {
		if ok, _ := s.rereadTable(ctx, name); ok {
			return s.tableNodes(name)
		}
	}
	return nodes, sharded, err
}

// addSingleTable reads the single table name of the data source ds (an
// index into the interpreter's names) into the planner; false when it is
// not there or its definition cannot be used (logged).
func (s *Server) addSingleTable(ctx context.Context, name string, ds int) bool {
	n := node{ds: ds, table: name}
	t, err := s.readTable(ctx, name, n)
	if err == nil && t == nil {
		return false
	}
	if err == nil {
		err = s.b.SetSingleTableDDL(name, s.in.names[ds], t)
	}
	if err != nil {
		s.log.Warn("single table metadata not read", "table", name, "data_node", s.nodeName(n), "error", err.Error())
		return false
	}
	return true
}

// metadataChanged drops what was derived from the planner's metadata:
// cached plans and the AUTO_INCREMENT sharding columns. Callers hold
// ddlMu.
func (s *Server) metadataChanged() {
	s.cache.clear()
	s.steps.clear()
	s.fast.clear()
	s.shapes.clear()
	s.stmts.clear()
	ai := autoIncShardingColumns(s.cfg.Rules, s.b.Table)
	s.autoInc.Store(&ai)
	s.autoIncChecks.Clear()
	s.autoIncCount.Store(0)
}

// ruleTables returns the logic tables the rules name: sharding tables,
// broadcast tables and the single tables of "ds.table" entries, in rule
// order, each once.
func (s *Server) ruleTables() []string {
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if k := strings.ToLower(name); !seen[k] {
			seen[k] = true
			out = append(out, name)
		}
	}
	r := s.cfg.Rules
	if r.Sharding != nil {
		for _, tr := range r.Sharding.Tables {
			add(tr.LogicTable)
		}
	}
	if r.Broadcast != nil {
		for _, t := range r.Broadcast.Tables {
			add(t)
		}
	}
	if r.Single != nil {
		for _, e := range r.Single.Tables {
			if _, t, ok := strings.Cut(e, "."); ok && t != "*" {
				add(t)
			}
		}
	}
	return out
}

// ruleTable reports whether the rules name the table (ruleTables).
func (s *Server) ruleTable(name string) bool {
	for _, t := range s.ruleTables() {
		if strings.EqualFold(t, name) {
			return true
		}
	}
	return false
}

// wildcardSources returns the data sources (indexes into the interpreter's
// names) whose tables are single tables without being named: every logic
// data source for a "*.*" entry of !SINGLE, ds for a "ds.*" entry, and the
// only data source of a one-data-source database; in rule order, each
// once.
func (s *Server) wildcardSources() []int {
	r := s.cfg.Rules
	var out []int
	add := func(name string) {
		for i, n := range s.in.names {
			if n != name {
				continue
			}
			for _, j := range out {
				if j == i {
					return
				}
			}
			out = append(out, i)
			return
		}
	}
	if r.Single != nil {
		for _, e := range r.Single.Tables {
			ds, t, ok := strings.Cut(e, ".")
			if !ok || t != "*" {
				continue
			}
			if ds == "*" {
				for _, l := range r.LogicDataSources {
					add(l)
				}
			} else {
				add(ds)
			}
		}
	}
	if len(r.LogicDataSources) == 1 {
		add(r.LogicDataSources[0])
	}
	return out
}

// actualTable reports whether table of the data source ds belongs to a
// rule rather than being a single table: an actual table of a sharding
// rule, a table named as a sharding table's logic table, or a broadcast
// table.
func (s *Server) actualTable(ds int, table string) bool {
	r := s.cfg.Rules
	if r.Sharding != nil {
		for _, tr := range r.Sharding.Tables {
			if strings.EqualFold(tr.LogicTable, table) {
				return true
			}
			for _, dn := range tr.DataNodes {
				if dn.DataSource == s.in.names[ds] && strings.EqualFold(dn.Table, table) {
					return true
				}
			}
		}
	}
	if r.Broadcast != nil {
		for _, t := range r.Broadcast.Tables {
			if strings.EqualFold(t, table) {
				return true
			}
		}
	}
	return false
}

// listTables returns the base tables of the data source ds (SHOW FULL
// TABLES: views are not single tables the planner can route).
func (s *Server) listTables(ctx context.Context, ds int) ([]string, error) {
	const q = "SHOW FULL TABLES WHERE Table_type = 'BASE TABLE'"
	rows, err := s.in.src.Query(ctx, &runtime.Stmt{Name: "metadata", LogicSQL: q}, runtime.RouteUnit{DataSource: ds, SQL: q})
	if err != nil {
		return nil, err
	}
	_, vals, err := readRows(rows)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(vals))
	for _, r := range vals {
		out = append(out, textOf(r[0]))
	}
	return out, nil
}

// readTable returns the definition of the actual table n as the logic
// table name: SHOW CREATE TABLE, renamed and parsed. It returns nil and
// no error when the actual table does not exist (ERROR 1146).
func (s *Server) readTable(ctx context.Context, name string, n node) (*schema.Table, error) {
	rows, err := s.in.src.Query(ctx, &runtime.Stmt{Name: "metadata", LogicSQL: "SHOW CREATE TABLE " + name},
		runtime.RouteUnit{DataSource: n.ds, SQL: "SHOW CREATE TABLE " + quoteIdent(n.table)})
	if err != nil {
		var me *gomysql.MySQLError
		if errors.As(err, &me) && me.Number == 1146 {
			return nil, nil
		}
		return nil, err
	}
	_, vals, err := readRows(rows)
	if err == nil && (len(vals) != 1 || len(vals[0]) < 2) {
		err = errors.New("SHOW CREATE TABLE returned no definition")
	}
	if err != nil {
		return nil, err
	}
	tables, err := schema.ParseDDL("SHOW CREATE TABLE "+s.nodeName(n), []byte(renameCreate(textOf(vals[0][1]), n.table, name)))
	if err == nil && len(tables) != 1 {
		err = errors.New("SHOW CREATE TABLE did not return one table")
	}
	if err != nil {
		return nil, err
	}
	return tables[0], nil
}

// nodeName is "ds.table" of n.
func (s *Server) nodeName(n node) string { return s.in.names[n.ds] + "." + n.table }

// textOf returns a text column's value as a string.
func textOf(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	case nil:
		return ""
	}
	return ""
}

// checkDDL logs a warning for each difference between the DDL file's
// definition of the logic table name and actual, its first actual table n
// as the data source has it (nil: it does not exist): a missing or extra
// column, a column's type, signedness, length, scale or nullability, the
// primary key, and a missing or extra index. Display widths of integer
// types and what one side leaves unsaid (a charset, a length) are not
// differences.
func (s *Server) checkDDL(name string, n node, actual *schema.Table) {
	file := s.b.Table(name)
	if file == nil {
		return
	}
	warn := func(diff string) {
		s.log.Warn("--ddl differs from the data source", "table", name, "data_node", s.nodeName(n), "difference", diff)
	}
	if actual == nil {
		warn("the actual table does not exist")
		return
	}
	for _, d := range tableDifferences(file, actual) {
		warn(d)
	}
}

// tableDifferences lists how the definition b (the data source's) differs
// from a (the DDL file's), for checkDDL.
func tableDifferences(a, b *schema.Table) []string {
	var out []string
	for _, ca := range a.Columns {
		cb := b.Column(ca.Name)
		if cb == nil {
			out = append(out, "column "+ca.Name+" is not on the data source")
			continue
		}
		ta, tb := columnType(ca, cb), columnType(cb, ca)
		if ta != tb {
			out = append(out, "column "+ca.Name+" is "+ta+" in the DDL, "+tb+" on the data source")
		}
		if ca.Nullable != cb.Nullable {
			out = append(out, "column "+ca.Name+" is "+nullText(ca.Nullable)+" in the DDL, "+nullText(cb.Nullable)+" on the data source")
		}
	}
	for _, cb := range b.Columns {
		if a.Column(cb.Name) == nil {
			out = append(out, "column "+cb.Name+" of the data source is not in the DDL")
		}
	}
	if pa, pb := strings.ToLower(strings.Join(a.PrimaryKey, ", ")), strings.ToLower(strings.Join(b.PrimaryKey, ", ")); pa != pb {
		out = append(out, "the primary key is ("+pa+") in the DDL, ("+pb+") on the data source")
	}
	keys := func(t *schema.Table) map[string]string {
		m := map[string]string{}
		for _, k := range t.Keys {
			m[strings.ToLower(k.Name)] = k.Kind + " (" + strings.ToLower(strings.Join(k.Columns, ", ")) + ")"
		}
		return m
	}
	ka, kb := keys(a), keys(b)
	for _, k := range a.Keys {
		l := strings.ToLower(k.Name)
		switch {
		case kb[l] == "":
			out = append(out, "index "+k.Name+" is not on the data source")
		case kb[l] != ka[l]:
			out = append(out, "index "+k.Name+" is "+ka[l]+" in the DDL, "+kb[l]+" on the data source")
		}
	}
	for _, k := range b.Keys {
		if ka[strings.ToLower(k.Name)] == "" {
			out = append(out, "index "+k.Name+" of the data source is not in the DDL")
		}
	}
	return out
}

// columnType is c's type as text for a comparison with other's: lengths
// and scales only where both give one, and never an integer's display
// width.
func columnType(c, other *schema.Column) string {
	t := c.Type
	switch t {
	case "integer":
		t = "int"
	case "bool", "boolean":
		t = "tinyint"
	}
	integer := strings.HasSuffix(t, "int")
	if c.Length != nil && other.Length != nil && !integer {
		t += "(" + strconv.Itoa(*c.Length)
		if c.Scale != nil && other.Scale != nil {
			t += "," + strconv.Itoa(*c.Scale)
		}
		t += ")"
	}
	if c.Unsigned {
		t += " unsigned"
	}
	return t
}

func nullText(nullable bool) string {
	if nullable {
		return "NULL"
	}
	return "NOT NULL"
}
