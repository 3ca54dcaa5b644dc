package plan

import (
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/schema"
)

// FederationSteps evaluates a SELECT that no other kind of steps can
// (ShardingSphere's SQL federation, with MariaDB as the evaluator): the
// rows of every logic table it names, at every query level, are read
// across data nodes (each FederationTable's SELECT, routed and merged like
// any statement, narrowed by the conditions on that table alone), loaded
// into temporary tables of one connection of the first data source, and
// the statement runs there whole with each table read from its temporary
// table (SQL). Derived tables, correlated subqueries, HAVING, window
// functions and join conditions of any shape so keep MySQL's semantics
// exactly; each table may hold at most max-cross-node-rows rows.
type FederationSteps struct {
	Tables []*FederationTable `json:"tables"`
	// SQL is the statement with every logic table replaced by its
	// temporary table (under the name or alias the statement uses).
	SQL string `json:"sql"`
}

// FederationTable is one logic table of a FederationSteps.
type FederationTable struct {
	Table string `json:"table"`
	// Temp is the temporary table's name; Create creates it (typed as the
	// logic table's DDL, without keys but for a plain index on the
	// primary key's columns).
	Temp   string `json:"temp"`
	Create string `json:"create"`
	// Columns are the columns SQL reads, in the temporary table's order.
	Columns []string `json:"columns"`
	// Hex marks the character columns SQL reads as HEX(column): their
	// bytes in the column's own character set, whatever the session's
	// (a latin1 or utf8mb3 session would turn CJK text or emoji into
	// '?'), loaded back as _binary literals.
	Hex []bool `json:"hex,omitempty"`
	// SQL reads the rows the statement can use: every row of the table,
	// or those meeting the conditions on the table alone of one of its
	// references.
	SQL string `json:"sql"`

	sel *sqlparser.Select
}

// LimitedSQL is SQL reading at most n rows.
func (t *FederationTable) LimitedSQL(n int) string {
	c := sqlparser.Clone(t.sel)
	c.SetLimit(&sqlparser.Limit{Rowcount: sqlparser.NewIntLiteral(strconv.Itoa(n))})
	return sqlparser.String(c)
}

// InsertSQL returns the INSERT of rows (one value per column, each the
// literal its type class makes) into the temporary table.
func (t *FederationTable) InsertSQL(rows [][]BoundValue) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + t.Temp + " VALUES ")
	for i, row := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j, v := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sqlparser.String(v.Expr()))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// federationSteps plans sql as FederationSteps.
func (b *Builder) federationSteps(sql string) (*FederationSteps, error) {
	pos := schema.Pos{File: AdHocFile, Line: 1, Col: 1}
	p := &planner{b: b, tables: b.tables(), q: &schema.Query{Name: "proxy", Cmd: schema.CmdMany, SQL: sql, AllowFullRoute: true, Pos: pos, SQLPos: pos}}
	if err := p.bindStatement(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCrossNode, err)
	}
	switch s := p.stmt.(type) {
	case *sqlparser.Select:
		if s.With != nil || s.Into != nil || s.Lock != sqlparser.NoLock || s.SQLCalcFoundRows {
			return nil, joinRefusal("WITH, INTO, locking reads and SQL_CALC_FOUND_ROWS are not evaluated across data nodes")
		}
	case *sqlparser.Union:
	default:
		return nil, joinRefusal("only SELECT statements are evaluated in steps")
	}
	if len(p.names) > 0 { // its placeholders; a '?' in a string literal or comment is none
		return nil, joinRefusal("a statement with placeholders (?) is not evaluated across data nodes")
	}
	var bad string
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.AssignmentExpr:
			bad = "a variable assignment (" + sqlparser.String(n) + ")"
		case *sqlparser.Variable:
			// The statement over the temporary tables runs with the
			// session's settings and variables (the proxy replays them on
			// its connection); the variables the proxy answers itself
			// are not that connection's.
			if n.Scope != sqlparser.VariableScope && proxyAnswered[n.Name.Lowered()] {
				bad = "the variable " + sqlparser.String(n)
			}
		case *sqlparser.FuncExpr:
			switch n.Name.Lowered() {
			case "database", "schema", "last_insert_id", "found_rows", "row_count", "connection_id", "user", "current_user", "session_user", "system_user":
				bad = "the session function " + n.Name.String() + "()"
			}
		case *sqlparser.With:
			bad = "WITH"
		}
		return bad == "", nil
	}, p.stmt)
	if bad != "" {
		return nil, joinRefusal("%s names the session, which the evaluation across data nodes runs outside of", bad)
	}
	// Every logic table reference, grouped by logic table.
	type group struct {
		info    *tableInfo
		filters []sqlparser.Expr // nil entry: a reference without a filter
		all     bool
	}
	var groups []*group
	byName := map[string]*group{}
	for _, r := range p.allRefs {
		if r.info.derived != nil || r.info.dual {
			continue
		}
		key := strings.ToLower(r.info.name)
		g := byName[key]
		if g == nil {
			g = &group{info: r.info}
			byName[key] = g
			groups = append(groups, g)
		}
		f := p.federationFilter(r)
		if f == nil {
			g.all = true
		} else {
			g.filters = append(g.filters, f)
		}
	}
	if len(groups) == 0 {
		return nil, joinRefusal("the statement names no logic table")
	}
	fs := &FederationSteps{}
	temps := map[string]string{}
	for i, g := range groups {
		t := &FederationTable{Table: g.info.name, Temp: fmt.Sprintf("shardgen_federation_%d", i+1)}
		temps[strings.ToLower(g.info.name)] = t.Temp
		create, cols, err := temporaryTable(t.Temp, g.info.ddl)
		if err != nil {
			return nil, joinRefusal("table %s: %v", g.info.name, err)
		}
		t.Create, t.Columns = create, cols
		s := &sqlparser.Select{From: sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: sqlparser.NewTableName(g.info.name)}}, SelectExprs: &sqlparser.SelectExprs{}}
		for _, c := range g.info.ddl.Columns {
			var e sqlparser.Expr = sqlparser.NewColName(c.Name)
			// An encrypted column is read decrypted, as a projection
			// only (no HEX over cipher text).
			hex := characterColumn(c.Type) && (g.info.enc == nil || g.info.enc.columns[strings.ToLower(c.Name)] == nil)
			if hex {
				e = &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI("hex"), Exprs: []sqlparser.Expr{e}}
			}
			t.Hex = append(t.Hex, hex)
			s.SelectExprs.Exprs = append(s.SelectExprs.Exprs, &sqlparser.AliasedExpr{Expr: e})
		}
		if !g.all {
			var e sqlparser.Expr
			for _, f := range g.filters {
				if e == nil {
					e = f
				} else {
					e = &sqlparser.OrExpr{Left: e, Right: f}
				}
			}
			s.AddWhere(e)
		}
		t.sel, t.SQL = s, sqlparser.String(s)
		fs.Tables = append(fs.Tables, t)
	}
	logicDB := strings.ToLower(b.cfg.DatabaseName)
	stmt := sqlparser.Clone(p.stmt)
	nameResultColumns(stmt)
	out := sqlparser.Rewrite(stmt, func(c *sqlparser.Cursor) bool {
		switch n := c.Node().(type) {
		case *sqlparser.AliasedTableExpr:
			tn, ok := n.Expr.(sqlparser.TableName)
			if !ok {
				return true
			}
			q := strings.ToLower(tn.Qualifier.String())
			temp, ok := temps[strings.ToLower(tn.Name.String())]
			if !ok || q != "" && q != logicDB {
				return true
			}
			if n.As.IsEmpty() {
				n.As = sqlparser.NewIdentifierCS(tn.Name.String())
			}
			n.Expr = sqlparser.NewTableName(temp)
		case *sqlparser.ColName:
			if !n.Qualifier.Qualifier.IsEmpty() {
				n.Qualifier = sqlparser.TableName{Name: n.Qualifier.Name}
			}
		}
		return true
	}, nil)
	fs.SQL = sqlparser.String(out)
	return fs, nil
}

// federationFilter returns the conditions of r's query level on r alone
// (its WHERE and inner joins' ON conjuncts), with columns unqualified, as
// one expression; nil when there is none or r is the inner side of an
// outer join (its rows may be NULL-extended, which a filter cannot tell).
func (p *planner) federationFilter(r *tableRef) sqlparser.Expr {
	if r.outer || r.scope == nil {
		return nil
	}
	var out sqlparser.Expr
	for _, e := range conjuncts(r.scope.condition()) {
		if !p.onlyOf(e, r) {
			continue
		}
		c := sqlparser.Rewrite(sqlparser.Clone(e), func(c *sqlparser.Cursor) bool {
			if cn, ok := c.Node().(*sqlparser.ColName); ok {
				c.Replace(&sqlparser.ColName{Name: cn.Name})
			}
			return true
		}, nil).(sqlparser.Expr)
		if out == nil {
			out = c
		} else {
			out = &sqlparser.AndExpr{Left: out, Right: c}
		}
	}
	return out
}

// onlyOf reports whether e is a deterministic condition on columns of r
// alone: columns, literals, comparisons, IN lists, IS, BETWEEN, LIKE,
// arithmetic and logic, nothing else.
func (p *planner) onlyOf(e sqlparser.Expr, r *tableRef) bool {
	ok, cols := true, 0
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.ColName:
			if c := p.cols[n]; c == nil || c.ref != r {
				ok = false
			}
			cols++
		case *sqlparser.Literal, *sqlparser.NullVal, sqlparser.BoolVal, sqlparser.ValTuple,
			*sqlparser.ComparisonExpr, *sqlparser.AndExpr, *sqlparser.OrExpr, *sqlparser.NotExpr, *sqlparser.IsExpr,
			*sqlparser.BetweenExpr, *sqlparser.BinaryExpr, *sqlparser.UnaryExpr, sqlparser.IdentifierCI, sqlparser.IdentifierCS, sqlparser.TableName:
		default:
			ok = false
		}
		return ok, nil
	}, e)
	return ok && cols > 0
}

// temporaryTable returns the CREATE TEMPORARY TABLE of name typed as the
// logic table t's columns, and their names.
func temporaryTable(name string, t *schema.Table) (string, []string, error) {
	var b strings.Builder
	b.WriteString("CREATE TEMPORARY TABLE " + name + " (")
	var cols []string
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(schema.ColumnSQL(c))
		cols = append(cols, c.Name)
	}
	if len(t.PrimaryKey) > 0 {
		ok := true
		for _, k := range t.PrimaryKey {
			c := t.Column(k)
			if c == nil || !strings.Contains(c.Type, "int") && c.Type != "decimal" && !strings.Contains(c.Type, "date") && !strings.Contains(c.Type, "time") && c.Type != "year" {
				ok = false // a key of text could exceed the index length
			}
		}
		if ok {
			ids := make([]string, len(t.PrimaryKey))
			for i, k := range t.PrimaryKey {
				ids[i] = sqlparser.String(sqlparser.NewIdentifierCI(k))
			}
			b.WriteString(", KEY (" + strings.Join(ids, ", ") + ")")
		}
	}
	b.WriteString(")")
	if t.Charset != "" {
		b.WriteString(" DEFAULT CHARSET=" + t.Charset)
	}
	if t.Collation != "" {
		b.WriteString(" COLLATE=" + t.Collation)
	}
	return b.String(), cols, nil
}

// nameResultColumns gives each result column of stmt that holds a
// subquery, and has no alias, its text as the statement spells it for an
// alias: MariaDB names such a column by that text, which the statement
// over the temporary tables would otherwise change (its tables renamed).
func nameResultColumns(stmt sqlparser.Statement) {
	ts, ok := stmt.(sqlparser.TableStatement)
	if !ok {
		return
	}
	s, err := sqlparser.GetFirstSelect(ts)
	if err != nil || s == nil || s.SelectExprs == nil {
		return
	}
	for _, e := range s.SelectExprs.Exprs {
		ae, ok := e.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			continue
		}
		sub := false
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if _, ok := n.(*sqlparser.Subquery); ok {
				sub = true
			}
			return !sub, nil
		}, ae.Expr)
		if name := sqlparser.String(ae.Expr); sub && len(name) <= 256 {
			ae.As = sqlparser.NewIdentifierCI(name)
		}
	}
}

// characterColumn reports whether a column of type typ holds text in a
// character set.
func characterColumn(typ string) bool {
	switch typ {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
		return true
	}
	return false
}

// proxyAnswered are the system variables whose session value the proxy
// answers itself rather than a back end's connection: the proxy's version,
// the session's autocommit, last insert id and diagnostics counts.
var proxyAnswered = map[string]bool{
	"version": true, "version_comment": true, "autocommit": true, "last_insert_id": true, "identity": true,
	"warning_count": true, "error_count": true, "in_transaction": true,
}
