package plan

import "github.com/shardgen/shardgen/runtime"

// ConditionUnits exports routeUnits without its fast path (preciseUnit)
// for TestPreciseUnitMatchesConditions.
func (b *Builder) ConditionUnits(p *Plan, params []runtime.Value) ([]int, error) {
	st := b.ShardingTable(p.Route.LogicTable)
	return b.conditionUnits(p, st, params)
}
