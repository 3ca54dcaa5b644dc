package plan

import (
	"strings"

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
