package proxy

import (
	"encoding/json"
	"regexp"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// shardingTableRuleColumns are the columns of SHOW SHARDING TABLE RULES
// (ShardingSphere 5.4+ ShowShardingTableRuleExecutor; spec §13).
var shardingTableRuleColumns = []string{"table", "actual_data_nodes", "actual_data_sources",
	"database_strategy_type", "database_sharding_column", "database_sharding_algorithm_type", "database_sharding_algorithm_props",
	"table_strategy_type", "table_sharding_column", "table_sharding_algorithm_type", "table_sharding_algorithm_props",
	"key_generate_column", "key_generator_type", "key_generator_props", "auditor_types", "allow_hint_disable"}

var showShardingRulesRE = regexp.MustCompile("(?is)^show\\s+sharding\\s+table\\s+(?:rules|rule\\s+(`[^`]+`|[\\w$]+))(?:\\s+from\\s+(`[^`]+`|[\\w$]+))?$")

// showShardingTableRules answers the DistSQL `SHOW SHARDING TABLE RULES
// [FROM db]` and `SHOW SHARDING TABLE RULE t [FROM db]`: one row per
// sharding table rule, in YAML order, with the columns of
// shardingTableRuleColumns. Strategy types are STANDARD, COMPLEX, HINT or
// NONE; props are JSON objects with sorted keys ("" when empty);
// actual_data_nodes lists the expanded data nodes ("ds_0.t_0,ds_0.t_1")
// of a tables: rule, and actual_data_sources the data sources of an
// autoTables: rule. Empty cells are "". ok is false for other statements.
func (h *handler) showShardingTableRules(c *mysql.Conn, q string) (*sqltypes.Result, bool, error) {
	m := showShardingRulesRE.FindStringSubmatch(q)
	if m == nil {
		return nil, false, nil
	}
	unquote := func(s string) string { return strings.ReplaceAll(strings.Trim(s, "`"), "``", "`") }
	if m[2] != "" {
		if err := checkDatabase(h.s.cfg, c.UserData, unquote(m[2])); err != nil {
			return nil, true, err
		}
	}
	if err := checkDatabase(h.s.cfg, c.UserData, h.s.cfg.Rules.DatabaseName); err != nil {
		return nil, true, err
	}
	charset := resultCollation(c)
	res := &sqltypes.Result{}
	for _, name := range shardingTableRuleColumns {
		res.Fields = append(res.Fields, &querypb.Field{Name: name, Type: sqltypes.VarChar, Charset: charset, ColumnLength: 65535})
	}
	sr := h.s.cfg.Rules.Sharding
	if sr == nil {
		return res, true, nil
	}
	for _, tr := range sr.Tables {
		if m[1] != "" && !strings.EqualFold(unquote(m[1]), tr.LogicTable) {
			continue
		}
		var nodes, sources []string
		for _, n := range tr.DataNodes {
			nodes = append(nodes, n.String())
			if len(sources) == 0 || sources[len(sources)-1] != n.DataSource {
				sources = append(sources, n.DataSource)
			}
		}
		if tr.Auto {
			nodes = nil
		} else {
			sources = nil
		}
		row := []string{tr.LogicTable, strings.Join(nodes, ","), strings.Join(sources, ",")}
		row = append(row, strategyCells(tr.DatabaseStrategy)...)
		row = append(row, strategyCells(tr.TableStrategy)...)
		kg := tr.KeyGenerate
		if kg == nil {
			kg = sr.DefaultKeyGenerate
		}
		if kg != nil && kg.Generator != nil {
			row = append(row, kg.Column, kg.Generator.Type, propsJSON(kg.Generator.Props))
		} else {
			row = append(row, "", "", "")
		}
		au := tr.Audit
		if au == nil {
			au = sr.DefaultAuditStrategy
		}
		if au != nil {
			var types []string
			for _, a := range au.AuditorNames {
				if spec := sr.Auditors[a]; spec != nil {
					types = append(types, spec.Type)
				} else {
					types = append(types, a)
				}
			}
			allow := "false"
			if au.AllowHintDisable {
				allow = "true"
			}
			row = append(row, strings.Join(types, ","), allow)
		} else {
			row = append(row, "", "")
		}
		out := make(sqltypes.Row, len(row))
		for i, v := range row {
			out[i] = sqltypes.NewVarChar(v)
		}
		res.Rows = append(res.Rows, out)
	}
	return res, true, nil
}

// strategyCells returns type, sharding column(s), algorithm type and
// algorithm props of a strategy ("NONE" and empty cells for none).
func strategyCells(s *schema.Strategy) []string {
	if s == nil || s.Kind == schema.StrategyNone {
		return []string{"NONE", "", "", ""}
	}
	typ, props := "", ""
	if s.Algorithm != nil {
		typ, props = s.Algorithm.Type, propsJSON(s.Algorithm.Props)
	}
	return []string{strings.ToUpper(s.Kind.String()), strings.Join(s.Columns, ","), typ, props}
}

// propsJSON renders algorithm props as a JSON object with sorted keys, ""
// when there are none.
func propsJSON(p runtime.Props) string {
	if len(p) == 0 {
		return ""
	}
	b, err := json.Marshal(map[string]string(p))
	if err != nil {
		return ""
	}
	return string(b)
}
