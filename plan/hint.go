package plan

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// sqlHint is a ShardingSphere SQL hint: a comment before the statement,
// `/* SHARDINGSPHERE_HINT: k=v, k=v */` (../shared/spec §8). Keys, case
// insensitive: DATA_SOURCE_NAME (run the statement unchanged on that data
// source), SKIP_SQL_REWRITE, WRITE_ROUTE_ONLY, SHARDING_DATABASE_VALUE and
// SHARDING_TABLE_VALUE (also `<table>.SHARDING_…`), the values a hint
// sharding strategy routes by. Other keys (DISABLE_AUDIT_NAMES, SHADOW,
// SKIP_METADATA_VALIDATE) are accepted and ignored. Other comments before
// it are kept.
type sqlHint struct {
	dataSource  string
	skipRewrite bool
	writeOnly   bool
	// database and table are the hint values for every table (key "")
	// and per lower-case logic table.
	database map[string][]runtime.Value
	table    map[string][]runtime.Value
}

const hintPrefix = "SHARDINGSPHERE_HINT:"

// parseHint finds a SHARDINGSPHERE_HINT comment among the comments that
// open sql and returns sql with that comment blanked to spaces (so byte
// offsets are unchanged and other comments stay), and the hint (nil when
// there is none). A malformed entry is an error message.
func parseHint(sql string) (string, *sqlHint, string) {
	i := 0
	for {
		for i < len(sql) && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r') {
			i++
		}
		if !strings.HasPrefix(sql[i:], "/*") || strings.HasPrefix(sql[i:], "/*!") {
			return sql, nil, ""
		}
		end := strings.Index(sql[i+2:], "*/")
		if end < 0 {
			return sql, nil, ""
		}
		end += i + 4
		body := strings.TrimSpace(sql[i+2 : end-2])
		if len(body) >= len(hintPrefix) && strings.EqualFold(body[:len(hintPrefix)], hintPrefix) {
			h, msg := hintEntries(body[len(hintPrefix):])
			return sql[:i] + strings.Repeat(" ", end-i) + sql[end:], h, msg
		}
		i = end
	}
}

// hintEntries parses `k=v, k=v`.
func hintEntries(s string) (*sqlHint, string) {
	h := &sqlHint{database: map[string][]runtime.Value{}, table: map[string][]runtime.Value{}}
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			return nil, "SHARDINGSPHERE_HINT entry " + e + " is not key=value"
		}
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `'"`)
		table := ""
		if t, key, ok := strings.Cut(k, "."); ok {
			table, k = strings.ToLower(t), key
		}
		switch strings.ToUpper(k) {
		case "DATA_SOURCE_NAME":
			h.dataSource = v
		case "SKIP_SQL_REWRITE":
			h.skipRewrite = strings.EqualFold(v, "true")
		case "WRITE_ROUTE_ONLY":
			h.writeOnly = strings.EqualFold(v, "true")
		case "SHARDING_DATABASE_VALUE":
			h.database[table] = append(h.database[table], hintValue(v))
		case "SHARDING_TABLE_VALUE":
			h.table[table] = append(h.table[table], hintValue(v))
		case "DISABLE_AUDIT_NAMES", "SHADOW", "SKIP_METADATA_VALIDATE":
		default:
			return nil, "unknown SHARDINGSPHERE_HINT key " + k + " (known: DATA_SOURCE_NAME, SKIP_SQL_REWRITE, WRITE_ROUTE_ONLY, SHARDING_DATABASE_VALUE, SHARDING_TABLE_VALUE)"
		}
	}
	return h, ""
}

// hintValue types a hint value: an integer is a Long, anything else a
// String.
func hintValue(v string) runtime.Value {
	if parsed := runtime.IntegerLiteral(v); parsed.Kind == runtime.KindInt || parsed.Kind == runtime.KindLong {
		if _, ok := parseDecimalInt(v); ok {
			return runtime.Long(parsed.Int)
		}
	}
	return runtime.String(v)
}

// values returns the hint values for a logic table: its own, else those
// for every table.
func (h *sqlHint) values(table string) runtime.HintValues {
	if h == nil {
		return runtime.HintValues{}
	}
	pick := func(m map[string][]runtime.Value) []runtime.Value {
		if v, ok := m[strings.ToLower(table)]; ok {
			return v
		}
		return m[""]
	}
	return runtime.HintValues{Database: pick(h.database), Table: pick(h.table)}
}

// hasValues reports whether the hint gives a hint strategy of table any
// value.
func (h *sqlHint) hasValues(table string) bool {
	v := h.values(table)
	return len(v.Database) > 0 || len(v.Table) > 0
}

// hintActualTables lets a statement that a SHARDINGSPHERE_HINT sends
// unchanged to one data source (DATA_SOURCE_NAME with
// SKIP_SQL_REWRITE=true) name actual tables, as ShardingSphere does:
// `SELECT * FROM t_order_0` plans as its logic table t_order (aliased
// t_order_0, so that t_order_0.col resolves), whose data node
// ds.t_order_0 is; the data source gets the text as written. A name that
// is no data node of that data source stays as it is (an unknown table
// is then refused as usual).
func (p *planner) hintActualTables() {
	if p.hint == nil || p.hint.dataSource == "" || !p.hint.skipRewrite {
		return
	}
	logic := func(tn sqlparser.TableName) (sqlparser.TableName, bool) {
		name := tn.Name.String()
		if p.tables[strings.ToLower(name)] != nil || p.b.cfg.Sharding == nil {
			return tn, false
		}
		for _, tr := range p.b.cfg.Sharding.Tables {
			for _, dn := range tr.DataNodes {
				if dn.DataSource == p.hint.dataSource && strings.EqualFold(dn.Table, name) {
					return sqlparser.TableName{Name: sqlparser.NewIdentifierCS(tr.LogicTable), Qualifier: tn.Qualifier}, true
				}
			}
		}
		return tn, false
	}
	var target *sqlparser.AliasedTableExpr
	if ins, ok := p.stmt.(*sqlparser.Insert); ok {
		// INSERT INTO t_order_0: no alias (its column list is unqualified).
		target = ins.Table
		if tn, ok := ins.Table.Expr.(sqlparser.TableName); ok {
			if to, ok := logic(tn); ok {
				ins.Table.Expr = to
			}
		}
	}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		at, ok := n.(*sqlparser.AliasedTableExpr)
		if !ok || at == target {
			return true, nil
		}
		if tn, ok := at.Expr.(sqlparser.TableName); ok {
			if to, ok := logic(tn); ok {
				if at.As.IsEmpty() {
					at.As = tn.Name
				}
				at.Expr = to
			}
		}
		return true, nil
	}, p.stmt)
}
