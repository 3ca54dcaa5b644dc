package schema

import (
	"fmt"
	"strings"
)

// CheckDDL attaches the tables of the DDL files to cfg.Tables (keyed by lower
// case table name; cfg.Tables is replaced) and checks the rules of cfg
// against them. Every problem is reported at the position of the rule in the
// YAML that names the missing table or column, with the CREATE TABLE's
// position in the message; the error is a schema.Errors holding all of them,
// or nil.
//
// Checked, comparing names case-insensitively as ShardingSphere and MySQL do:
//   - a table defined twice (in two DDL files): an error at the second one;
//   - every sharding table (tables: and autoTables:), broadcast table, single
//     table named as "ds.t" and encrypt table has a CREATE TABLE; the
//     generator needs the columns of every table it sees;
//   - the sharding columns of each table's effective database and table
//     strategy (standard: shardingColumn, or defaultShardingColumn when it is
//     omitted; complex: every one of shardingColumns; hint and none: none),
//     whether the strategy is the table's own or the rule's default, are
//     columns of that table: ShardingSphere would otherwise never see a
//     sharding value, and refuses an INSERT that routes to several data nodes;
//   - the keyGenerateStrategy column of each sharding table (its own, else
//     defaultKeyGenerateStrategy) is a column of that table: ShardingSphere
//     appends the column to every INSERT that lacks it.
//
// Encrypt tables: the DDL is the PHYSICAL table, as it exists on the data
// nodes, because that is what a user dumps from the database and what the
// generator must write SQL against. So every cipher, assisted query, like
// query and (5.1) plain column must be a column of the CREATE TABLE, no
// physical column may serve two of these purposes, and a logic column must
// not be a physical column, except when it names its own cipher column (the
// 5.4+ docs' "username: cipher: {name: username}") or its own 5.1 plainColumn
// ("pwd: {plainColumn: pwd, cipherColumn: pwd_cipher}"). The logic columns an
// application sees are then the physical ones minus the derived columns, plus
// the logic columns.
//
// An encrypt column whose column (logic or cipher) an ALTER TABLE dropped
// while the rule still lists it is not an error of CheckDDL but one of
// cfg.DroppedEncryptColumns, naming the ALTER TABLE.
//
// CheckDDL reads only the rule fields of cfg (it does not need a loaded
// algorithm), so a hand-built Config is enough.
func CheckDDL(cfg *Config, tables []*Table) error {
	c := &ddlChecker{cfg: cfg, seen: map[string]bool{}}
	cfg.Tables = make(map[string]*Table, len(tables))
	cfg.DroppedEncryptColumns = nil
	for _, t := range tables {
		key := strings.ToLower(t.Name)
		if first, ok := cfg.Tables[key]; ok {
			c.add(t.Pos, "table %q is already defined at %s (table names compare case-insensitively); remove one CREATE TABLE", t.Name, first.Pos)
			continue
		}
		cfg.Tables[key] = t
	}
	deriveEncryptColumns(cfg)
	if cfg.Sharding != nil {
		c.sharding(cfg.Sharding)
	}
	if cfg.Broadcast != nil {
		for _, name := range cfg.Broadcast.Tables {
			if c.table(name) == nil {
				c.add(cfg.Broadcast.Pos, "broadcast table %q has no CREATE TABLE; add one to a DDL file", name)
			}
		}
	}
	if cfg.Single != nil {
		for _, entry := range cfg.Single.Tables {
			parts := strings.Split(entry, ".")
			name := parts[len(parts)-1]
			if name == "" || name == "*" {
				continue // "ds.*" and "*.*" load whatever the data sources hold
			}
			if c.table(name) == nil {
				c.add(cfg.Single.Pos, "single table %q (%q) has no CREATE TABLE; add one to a DDL file", name, entry)
			}
		}
	}
	if cfg.Encrypt != nil {
		for _, et := range cfg.Encrypt.Tables {
			c.encryptTable(et)
		}
	}
	return c.errs.Err()
}

// ddlChecker collects the problems of one CheckDDL call.
type ddlChecker struct {
	cfg  *Config
	errs Errors
	seen map[string]bool // "pos\x00msg" of every problem, to report each once
}

func (c *ddlChecker) add(pos Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := pos.String() + "\x00" + msg
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.errs.Add(pos, msg)
}

func (c *ddlChecker) table(name string) *Table { return c.cfg.Tables[strings.ToLower(name)] }

// ddlFirstPos returns the first of ps that is known.
func ddlFirstPos(ps ...Pos) Pos {
	for _, p := range ps {
		if p.Line != 0 {
			return p
		}
	}
	return Pos{}
}

func (c *ddlChecker) sharding(s *ShardingRule) {
	for _, tr := range s.Tables {
		t := c.table(tr.LogicTable)
		if t == nil {
			c.add(ddlFirstPos(tr.Pos, s.Pos), "sharding table %q has no CREATE TABLE; add one, named with the logic table name, to a DDL file", tr.LogicTable)
			continue
		}
		c.strategy(s, tr, t, tr.DatabaseStrategy, false)
		c.strategy(s, tr, t, tr.TableStrategy, true)

		kg, label := tr.KeyGenerate, "keyGenerateStrategy"
		if kg == nil || ddlSameKeyGenerate(kg, s.DefaultKeyGenerate) {
			kg, label = s.DefaultKeyGenerate, "defaultKeyGenerateStrategy"
		}
		if kg != nil && kg.Column != "" && t.Column(kg.Column) == nil {
			c.add(ddlFirstPos(kg.Pos, tr.Pos, s.Pos),
				"%s column %q of table %q is not a column of its CREATE TABLE (%s); fix the column or add it to the table",
				label, kg.Column, tr.LogicTable, t.Pos)
		}
	}
}

// strategy checks the sharding columns of one effective strategy of tr.
func (c *ddlChecker) strategy(s *ShardingRule, tr *TableRule, t *Table, st *Strategy, isTable bool) {
	if st == nil {
		return
	}
	label := "databaseStrategy"
	def := s.DefaultDatabaseStrategy
	if isTable {
		label, def = "tableStrategy", s.DefaultTableStrategy
		if tr.Auto {
			label = "shardingStrategy"
		}
	}
	if def != nil && (st == def || st.Pos == def.Pos && st.Pos.Line != 0) {
		label = "default" + strings.ToUpper(label[:1]) + label[1:]
	}
	pos := ddlFirstPos(st.Pos, tr.Pos, s.Pos)
	switch st.Kind {
	case StrategyStandard:
		if len(st.Columns) > 0 && st.Columns[0] != "" {
			if t.Column(st.Columns[0]) == nil {
				c.add(pos, "sharding column %q of table %q (%s) is not a column of its CREATE TABLE (%s); fix shardingColumn or add the column to the table",
					st.Columns[0], tr.LogicTable, label, t.Pos)
			}
			return
		}
		if col := s.DefaultShardingColumn; col != "" && t.Column(col) == nil {
			c.add(pos, "defaultShardingColumn %q, used by the %s of table %q, is not a column of its CREATE TABLE (%s); set shardingColumn or add the column to the table",
				col, label, tr.LogicTable, t.Pos)
		}
	case StrategyComplex:
		for _, col := range st.Columns {
			if col != "" && t.Column(col) == nil {
				c.add(pos, "sharding column %q of table %q (%s shardingColumns) is not a column of its CREATE TABLE (%s); fix shardingColumns or add the column to the table",
					col, tr.LogicTable, label, t.Pos)
			}
		}
	}
}

// ddlSameKeyGenerate reports whether kg is the rule's default (the loader may
// copy the default into each table rule).
func ddlSameKeyGenerate(kg, def *KeyGenerateStrategy) bool {
	return def != nil && (kg == def || kg.Pos == def.Pos && kg.Pos.Line != 0)
}

// encryptTable checks one !ENCRYPT table against its physical CREATE TABLE.
func (c *ddlChecker) encryptTable(et *EncryptTable) {
	t := c.table(et.Name)
	if t == nil {
		c.add(ddlFirstPos(et.Pos, c.cfg.Encrypt.Pos), "encrypt table %q has no CREATE TABLE; add the physical table, with its cipher columns, to a DDL file", et.Name)
		return
	}
	roles := map[string]string{} // lower-case physical column -> its purpose
	for _, ec := range et.Columns {
		colPos := ddlFirstPos(ec.Pos, et.Pos, c.cfg.Encrypt.Pos)
		type derived struct {
			role, column string
			pos          Pos
		}
		ds := []derived{{"cipher", ec.Cipher.Column, ddlFirstPos(ec.Cipher.Pos, colPos)}}
		if ec.AssistedQuery != nil {
			ds = append(ds, derived{"assisted query", ec.AssistedQuery.Column, ddlFirstPos(ec.AssistedQuery.Pos, colPos)})
		}
		if ec.LikeQuery != nil {
			ds = append(ds, derived{"like query", ec.LikeQuery.Column, ddlFirstPos(ec.LikeQuery.Pos, colPos)})
		}
		if ec.Plain != "" {
			ds = append(ds, derived{"plain", ec.Plain, colPos})
		}
		if drop, col, ok := droppedLogic(t, ec); ok {
			// One message for the column a migration dropped, not one per
			// physical column the rule still names.
			c.cfg.DroppedEncryptColumns.Add(colPos, fmt.Sprintf("encrypt column %q of table %q: %s drops it (ALTER TABLE %s DROP COLUMN %s), but the !ENCRYPT rule still lists it; remove %s from the rule's columns of %s (shardgen migrate drops its physical columns %s on every actual table while the rule lists it, so run it before removing it)",
				ec.Name, et.Name, drop, et.Name, col, ec.Name, et.Name, strings.Join(physicalNames(ec), ", ")))
			continue
		}
		for _, d := range ds {
			if d.column == "" {
				continue
			}
			if t.Column(d.column) == nil {
				c.add(d.pos, "%s column %q of encrypt column %q (table %q) is not a column of its CREATE TABLE (%s); the DDL describes the physical table, so add the column or fix the rule",
					d.role, d.column, ec.Name, et.Name, t.Pos)
			}
			role := fmt.Sprintf("the %s column of %q", d.role, ec.Name)
			key := strings.ToLower(d.column)
			if prev, ok := roles[key]; ok {
				c.add(d.pos, "column %q of table %q is both %s and %s; give each purpose its own physical column", d.column, et.Name, prev, role)
				continue
			}
			roles[key] = role
		}
		if t.Column(ec.Name) != nil && !strings.EqualFold(ec.Name, ec.Cipher.Column) && !strings.EqualFold(ec.Name, ec.Plain) {
			c.add(colPos, "logic column %q of encrypt table %q is also a column of its CREATE TABLE (%s); the DDL describes the physical table, where only the column's own cipher column (or 5.1 plainColumn) may carry the logic name: rename the physical column or the logic column",
				ec.Name, et.Name, t.Pos)
		}
	}
}

// droppedLogic returns the ALTER TABLE that dropped the column ec stands
// for from t, and that column's name, when t has none of ec's physical
// columns left: the logic column (logic DDL) or its cipher column
// (physical DDL).
func droppedLogic(t *Table, ec *EncryptColumn) (Pos, string, bool) {
	if t.Column(ec.Name) != nil {
		return Pos{}, "", false
	}
	for _, n := range physicalNames(ec) {
		if t.Column(n) != nil {
			return Pos{}, "", false
		}
	}
	for _, n := range []string{ec.Name, ec.Cipher.Column} {
		if p, ok := t.Dropped[strings.ToLower(n)]; ok {
			return p, n, true
		}
	}
	return Pos{}, "", false
}
