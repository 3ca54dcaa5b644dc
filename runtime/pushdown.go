package runtime

import (
	"errors"
	"fmt"
)

// ErrNotColocated is wrapped by the error of a pushed-down statement (a
// subquery, a derived table, INSERT … SELECT, a join not on the sharding
// columns) whose tables' own sharding values reach different data nodes:
// such a statement runs whole on one data node, and evaluating it across
// data nodes is not supported yet. Nothing was executed.
var ErrNotColocated = errors.New("evaluating it across data nodes is not supported yet")

// NotColocatedError is the error of a pushed-down statement whose table a
// routes to data node nodeA and table b to nodeB ("ds_1.t_order_1", or a
// data source name for a single table). It wraps ErrNotColocated.
func NotColocatedError(a, nodeA, b, nodeB string) error {
	return fmt.Errorf("tables %q (on %s) and %q (on %s) route to different data nodes, and the statement must run whole on one: %w", a, nodeA, b, nodeB, ErrNotColocated)
}

// Agree checks one agreement of a pushed-down statement: unit is the data
// node of table main that the route picked (-1 when the route's sharding
// values match no row), nodes the data nodes of table other computed from
// its own sharding values. When sameNode, other lays its data nodes out as
// main does and the indexes must be equal; otherwise the data sources must
// be. Values that match no row (nodes empty) agree with any unit. It
// returns the unit to run on (the one other needs when unit was -1) and
// whether they agree.
func Agree(main *ShardingTable, unit int, other *ShardingTable, nodes []int, sameNode bool) (int, bool) {
	if len(nodes) == 0 {
		return unit, true
	}
	if len(nodes) > 1 {
		return unit, false
	}
	if sameNode {
		if unit < 0 {
			return nodes[0], true
		}
		return unit, unit == nodes[0]
	}
	return AgreeDataSource(main, unit, other.nodes[nodes[0]].DataSource)
}

// AgreeDataSource checks that the route's unit (a data node of main; -1:
// none yet) is on data source ds, the data source of a single table of a
// pushed-down statement, or of another table's data node. With unit -1 it
// picks main's first data node on ds.
func AgreeDataSource(main *ShardingTable, unit int, ds string) (int, bool) {
	if unit >= 0 {
		return unit, main.nodes[unit].DataSource == ds
	}
	for i, n := range main.nodes {
		if n.DataSource == ds {
			return i, true
		}
	}
	return unit, false
}
