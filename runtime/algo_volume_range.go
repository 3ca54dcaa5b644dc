package runtime

import (
	"fmt"
	"math"
)

// VolumeRangeAlgorithm is ShardingSphere's VOLUME_RANGE auto sharding
// algorithm: fixed-size partitions of the long range [range-lower,
// range-upper), plus one partition below and one above it.
//
// Partitions (the target suffixes): 0 = (-∞, lower); i+1 = [lower+i·volume,
// min(lower+(i+1)·volume, upper)) for i < ceil((upper-lower)/volume);
// last = [upper, +∞). The auto-table amount is
// ceil((upper-lower)/volume) + 2.
//
// Props (all required, Java longs): range-lower, range-upper,
// sharding-volume. sharding-volume must be > 0 and upper-lower ≥ volume
// (so upper > lower); ShardingSphere divides by zero on volume 0 and gets
// negative partitions on upper < lower, we refuse both. More than
// 2147483645 inner partitions is refused (Java's Math.toIntExact).
//
// Values are read with Long.parseLong(value.toString()): Integer and Long as
// they are, any other kind's text as a decimal long, else an error. A range
// routes to the partitions from the lower bound's to the upper bound's,
// open or closed alike; a missing bound means the first or last partition.
//
// Source: ShardingSphere VolumeBasedRangeShardingAlgorithm,
// AbstractRangeShardingAlgorithm;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/
type VolumeRangeAlgorithm struct {
	lower, upper, volume int64
	inner                int64 // number of partitions between lower and upper
}

var (
	_ StandardAlgorithm = (*VolumeRangeAlgorithm)(nil)
	_ AutoAlgorithm     = (*VolumeRangeAlgorithm)(nil)
)

func newVolumeRangeAlgorithm(props Props) (Algorithm, error) {
	lower, err := props.RequiredInt64("range-lower")
	if err != nil {
		return nil, err
	}
	upper, err := props.RequiredInt64("range-upper")
	if err != nil {
		return nil, err
	}
	volume, err := props.RequiredInt64("sharding-volume")
	if err != nil {
		return nil, err
	}
	if volume <= 0 {
		return nil, &PropError{Prop: "sharding-volume", Msg: fmt.Sprintf("must be a positive integer, got %d", volume)}
	}
	if upper <= lower {
		return nil, &PropError{Prop: "range-upper", Msg: fmt.Sprintf("must be greater than range-lower %d, got %d", lower, upper)}
	}
	span := uint64(upper) - uint64(lower) // exact: upper > lower
	if span < uint64(volume) {
		return nil, &PropError{Prop: "sharding-volume", Msg: fmt.Sprintf("must not exceed range-upper - range-lower (%d), got %d", span, volume)}
	}
	inner := span / uint64(volume)
	if span%uint64(volume) != 0 {
		inner++
	}
	if inner > math.MaxInt32-2 {
		return nil, &PropError{Prop: "sharding-volume", Msg: fmt.Sprintf("gives more than %d partitions", math.MaxInt32)}
	}
	return &VolumeRangeAlgorithm{lower: lower, upper: upper, volume: volume, inner: int64(inner)}, nil
}

// Type returns "VOLUME_RANGE".
func (a *VolumeRangeAlgorithm) Type() string { return "VOLUME_RANGE" }

// AutoTablesAmount returns the number of partitions, inner + 2.
func (a *VolumeRangeAlgorithm) AutoTablesAmount() int { return int(a.inner + 2) }

// BindStandard resolves every partition to its target (see autoTargets).
// Errors: an empty targets list.
func (a *VolumeRangeAlgorithm) BindStandard(column string, targets []string) (StandardRouter, error) {
	t, err := bindAutoTargets(targets, a.inner+2, 0)
	if err != nil {
		return nil, fmt.Errorf("VOLUME_RANGE on %s: %w", column, err)
	}
	return &partitionRouter{typ: "VOLUME_RANGE", column: column, count: a.inner + 2, partition: a.partition, intPartition: a.partitionOf, targets: t}, nil
}

// partition returns the partition holding v.
func (a *VolumeRangeAlgorithm) partition(v Value) (int64, error) {
	x, err := javaParseLong(v)
	if err != nil {
		return 0, err
	}
	return a.partitionOf(x), nil
}

func (a *VolumeRangeAlgorithm) partitionOf(x int64) int64 {
	switch {
	case x < a.lower:
		return 0
	case x >= a.upper:
		return a.inner + 1
	}
	return 1 + int64((uint64(x)-uint64(a.lower))/uint64(a.volume))
}
