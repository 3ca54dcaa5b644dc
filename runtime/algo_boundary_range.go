package runtime

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// BoundaryRangeAlgorithm is ShardingSphere's BOUNDARY_RANGE auto sharding
// algorithm: partitions split at the given long boundaries b1 ≤ … ≤ bn.
//
// Partitions (the target suffixes): 0 = (-∞, b1); i = [bi, bi+1) for
// 1 ≤ i < n; n = [bn, +∞). The auto-table amount is n+1.
//
// Props: sharding-ranges (required), "b1,b2,…": entries are trimmed and
// sorted ascending, as in ShardingSphere; a repeated boundary keeps its
// (empty) partition, so later partition numbers match ShardingSphere's. One
// difference: ShardingSphere silently drops an entry that is not a long
// (including an empty one, "1,,2"), which shifts every later partition; we
// report it as an error instead.
//
// Values and ranges are read and routed as for VOLUME_RANGE
// (Long.parseLong(value.toString()), lower bound's partition to upper
// bound's).
//
// Source: ShardingSphere BoundaryBasedRangeShardingAlgorithm,
// AbstractRangeShardingAlgorithm;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/
type BoundaryRangeAlgorithm struct {
	bounds []int64 // ascending, repeats kept
}

var (
	_ StandardAlgorithm = (*BoundaryRangeAlgorithm)(nil)
	_ AutoAlgorithm     = (*BoundaryRangeAlgorithm)(nil)
)

func newBoundaryRangeAlgorithm(props Props) (Algorithm, error) {
	text, err := props.Required("sharding-ranges")
	if err != nil {
		return nil, err
	}
	parts := strings.Split(text, ",")
	bounds := make([]int64, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, &PropError{Prop: "sharding-ranges", Msg: fmt.Sprintf("has an entry that is not a long integer: %q (ShardingSphere would drop it and renumber the partitions after it)", p)}
		}
		bounds = append(bounds, n)
	}
	slices.Sort(bounds)
	return &BoundaryRangeAlgorithm{bounds: bounds}, nil
}

// Type returns "BOUNDARY_RANGE".
func (a *BoundaryRangeAlgorithm) Type() string { return "BOUNDARY_RANGE" }

// AutoTablesAmount returns the number of partitions, boundaries + 1.
func (a *BoundaryRangeAlgorithm) AutoTablesAmount() int { return len(a.bounds) + 1 }

// Boundaries returns the sorted boundaries (a copy).
func (a *BoundaryRangeAlgorithm) Boundaries() []int64 { return slices.Clone(a.bounds) }

// BindStandard resolves every partition to its target (see autoTargets).
// Errors: an empty targets list.
func (a *BoundaryRangeAlgorithm) BindStandard(column string, targets []string) (StandardRouter, error) {
	count := int64(len(a.bounds) + 1)
	t, err := bindAutoTargets(targets, count, 0)
	if err != nil {
		return nil, fmt.Errorf("BOUNDARY_RANGE on %s: %w", column, err)
	}
	return &partitionRouter{typ: "BOUNDARY_RANGE", column: column, count: count, partition: a.partition, intPartition: a.partitionOf, targets: t}, nil
}

// partition returns the partition holding v.
func (a *BoundaryRangeAlgorithm) partition(v Value) (int64, error) {
	x, err := javaParseLong(v)
	if err != nil {
		return 0, err
	}
	return a.partitionOf(x), nil
}

// partitionOf is the number of boundaries ≤ x: 0 below b1, n from bn on,
// and past any empty partitions of repeated boundaries.
func (a *BoundaryRangeAlgorithm) partitionOf(x int64) int64 {
	lo, hi := 0, len(a.bounds)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a.bounds[m] <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return int64(lo)
}
