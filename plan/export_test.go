package plan

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardgen/shardgen/runtime"
)

// ConditionUnits exports routeUnits without its fast path (preciseUnit)
// for TestPreciseUnitMatchesConditions.
func (b *Builder) ConditionUnits(p *Plan, params []runtime.Value) ([]int, error) {
	st := b.ShardingTable(p.Route.LogicTable)
	return b.conditionUnits(p, st, params)
}

// MergeDerivedSQL exports mergeDerived for TestMergeDerived: sql merged
// and printed, and whether it was merged.
func MergeDerivedSQL(sql string) (string, bool, error) {
	parser, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		return "", false, err
	}
	stmt, err := parser.Parse(sql)
	if err != nil {
		return "", false, err
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok {
		return "", false, nil
	}
	merged := mergeDerived(sel)
	return sqlparser.String(sel), merged, nil
}
