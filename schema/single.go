package schema

import "strings"

// SingleDataSource returns the logic data source of a table that no
// !SHARDING or !BROADCAST rule names (a single table), by the first rule
// that applies:
//   - a !SINGLE entry "ds.table" or "ds.*" that names it;
//   - the !SINGLE defaultDataSource;
//   - the only logic data source, when there is one (one data source, or
//     one !READWRITE_SPLITTING group standing for its members): ShardingSphere
//     5.1–5.3 route every table without a rule there. only is true then, so
//     `shardgen vet` can say so.
//
// It returns "" when none applies (several logic data sources and no
// !SINGLE entry): a statement on the table is refused. "*.*" entries name
// no data source and are skipped.
func (c *Config) SingleDataSource(table string) (ds string, only bool) {
	if s := c.Single; s != nil {
		for _, e := range s.Tables {
			ds, t, ok := strings.Cut(e, ".")
			if !ok || ds == "*" {
				continue
			}
			if t == "*" || strings.EqualFold(t, table) {
				return ds, false
			}
		}
		if s.DefaultDataSource != "" {
			return s.DefaultDataSource, false
		}
	}
	if len(c.LogicDataSources) == 1 {
		return c.LogicDataSources[0], true
	}
	return "", false
}

// HasRule reports whether a !SHARDING (tables or autoTables) or !BROADCAST
// rule names the logic table (case-insensitive).
func (c *Config) HasRule(table string) bool {
	if sh := c.Sharding; sh != nil {
		for _, t := range sh.Tables {
			if strings.EqualFold(t.LogicTable, table) {
				return true
			}
		}
	}
	if b := c.Broadcast; b != nil {
		for _, t := range b.Tables {
			if strings.EqualFold(t, table) {
				return true
			}
		}
	}
	return false
}
