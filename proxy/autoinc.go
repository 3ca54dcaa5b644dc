package proxy

import (
	"strings"

	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/plan"
	"github.com/shardgen/shardgen/schema"
)

// autoIncShardingColumns returns, by lower-case logic table name, the
// sharding columns (database or table strategy) that are AUTO_INCREMENT in
// the DDL table returns for a logic table (nil: none known).
func autoIncShardingColumns(cfg *schema.Config, table func(name string) *schema.Table) map[string][]string {
	out := map[string][]string{}
	if cfg.Sharding == nil {
		return out
	}
	for _, tr := range cfg.Sharding.Tables {
		t := table(tr.LogicTable)
		if t == nil {
			continue
		}
		for _, st := range []*schema.Strategy{tr.DatabaseStrategy, tr.TableStrategy} {
			if st == nil {
				continue
			}
			for _, sc := range st.Columns {
				for _, c := range t.Columns {
					if c.AutoIncrement && strings.EqualFold(c.Name, sc) {
						out[strings.ToLower(tr.LogicTable)] = append(out[strings.ToLower(tr.LogicTable)], c.Name)
					}
				}
			}
		}
	}
	return out
}

// checkAutoIncZero refuses an INSERT that gives an AUTO_INCREMENT sharding
// column the value 0 or NULL (a literal, or a client parameter of
// client): the back end would replace it with its own next id, which
// belongs to whatever shard the id routes to, not to the one the row was
// routed to with 0 — the row would land on the wrong data node (sysbench
// oltp_insert does this unless --auto_inc=off). Configure a
// keyGenerateStrategy on the column and omit it instead. What to check is
// worked out once per plan (autoIncCheckOf), not per execution.
func (s *Server) checkAutoIncZero(p *plan.Plan, client []any) error {
	if p.Statement != plan.StmtInsert || len(*s.autoInc.Load()) == 0 {
		return nil
	}
	c := s.autoIncCheckOf(p)
	if c == nil {
		return nil
	}
	if c.literal != "" {
		return autoIncError(c.literal, c.table)
	}
	for i, arg := range c.args {
		if arg >= len(client) {
			continue
		}
		zero := false
		switch x := client[arg].(type) {
		case nil:
			zero = true
		case int64:
			zero = x == 0
		case uint64:
			zero = x == 0
		case string:
			zero = strings.Trim(x, "0") == ""
		case fileText:
			zero = strings.Trim(x.text, "0") == ""
		}
		if zero {
			return autoIncError(c.columns[i], c.table)
		}
	}
	return nil
}

func autoIncError(column, table string) error {
	return sqlerror.NewSQLError(sqlerror.ERNotSupportedYet, "42000",
		"INSERT of 0 or NULL into the AUTO_INCREMENT sharding column "+column+" of "+table+
			": the back end would assign an id of another shard; omit the column with a keyGenerateStrategy, or give explicit ids (sysbench: --auto_inc=off)")
}

// autoIncCheck is what checkAutoIncZero checks for one INSERT plan: a
// literal 0 or NULL given to an AUTO_INCREMENT sharding column (literal,
// the column's name), and the client parameters (by 0-based ? ordinal)
// that give one its value (args, with the column of each in columns).
type autoIncCheck struct {
	table   string
	literal string
	args    []int
	columns []string
}

// maxAutoIncChecks bounds the per-plan cache of autoIncCheckOf; past it the
// cache starts over (plans themselves are bounded by the plan cache).
const maxAutoIncChecks = 4096

// autoIncCheckOf returns the check of p, parsing its logic SQL the first
// time p is seen; nil when p gives no AUTO_INCREMENT sharding column a
// value.
func (s *Server) autoIncCheckOf(p *plan.Plan) *autoIncCheck {
	if v, ok := s.autoIncChecks.Load(p); ok {
		return v.(*autoIncCheck)
	}
	c := s.buildAutoIncCheck(p)
	if s.autoIncCount.Add(1) > maxAutoIncChecks {
		s.autoIncChecks.Clear()
		s.autoIncCount.Store(1)
	}
	s.autoIncChecks.Store(p, c)
	return c
}

func (s *Server) buildAutoIncCheck(p *plan.Plan) *autoIncCheck {
	stmt, err := s.b.Parser().Parse(p.LogicSQL)
	if err != nil {
		return nil // the planner accepted it; nothing to add
	}
	ins, ok := stmt.(*sqlparser.Insert)
	if !ok {
		return nil
	}
	tn, err := ins.Table.TableName()
	if err != nil {
		return nil
	}
	cols := (*s.autoInc.Load())[strings.ToLower(tn.Name.String())]
	rows, ok := ins.Rows.(sqlparser.Values)
	if len(cols) == 0 || !ok {
		return nil
	}
	c := &autoIncCheck{table: tn.Name.String()}
	// The columns the values go to: the column list, or, without one, the
	// table's visible columns (INVISIBLE ones take no value), as the server
	// counts them.
	var names []string
	for _, ident := range ins.Columns {
		names = append(names, ident.String())
	}
	if len(ins.Columns) == 0 {
		if t := s.b.Table(tn.Name.String()); t != nil {
			for _, tc := range t.VisibleColumns() {
				names = append(names, tc.Name)
			}
		}
	}
	// The ? placeholders before each row's values, in text order.
	arg := 0
	for _, row := range rows {
		for i, e := range row {
			var col string
			if i < len(names) {
				for _, ac := range cols {
					if strings.EqualFold(names[i], ac) {
						col = ac
					}
				}
			}
			switch v := e.(type) {
			case *sqlparser.NullVal:
				if col != "" && c.literal == "" {
					c.literal = col
				}
			case *sqlparser.Literal:
				if col != "" && c.literal == "" && v.Type == sqlparser.IntVal && strings.Trim(v.Val, "0") == "" {
					c.literal = col
				}
			case *sqlparser.Argument:
				if col != "" {
					c.args = append(c.args, arg)
					c.columns = append(c.columns, col)
				}
			}
			if _, isArg := e.(*sqlparser.Argument); isArg {
				arg++
			} else {
				_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
					if _, ok := n.(*sqlparser.Argument); ok {
						arg++
					}
					return true, nil
				}, e)
			}
		}
	}
	if c.literal == "" && len(c.args) == 0 {
		return nil
	}
	return c
}
