package runtime

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ssVolumeProps is ShardingSphere's VolumeBasedRangeShardingAlgorithmTest
// configuration: partitions (-∞,10) [10,20) [20,30) [30,40) [40,45) [45,+∞).
var ssVolumeProps = Props{"range-lower": "10", "range-upper": "45", "sharding-volume": "10"}

func TestVolumeRangeProps(t *testing.T) {
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{Props{"range-upper": "45", "sharding-volume": "10"}, `property "range-lower" is required`},
		{Props{"range-lower": "10", "sharding-volume": "10"}, `property "range-upper" is required`},
		{Props{"range-lower": "10", "range-upper": "45"}, `property "sharding-volume" is required`},
		{Props{"range-lower": "1.5", "range-upper": "45", "sharding-volume": "10"}, `property "range-lower" must be an integer, got "1.5"`},
		{Props{"range-lower": "10", "range-upper": "45", "sharding-volume": "0"}, `property "sharding-volume" must be a positive integer, got 0`},
		{Props{"range-lower": "10", "range-upper": "45", "sharding-volume": "-5"}, `property "sharding-volume" must be a positive integer, got -5`},
		// ShardingSphere's assertInitFailedWithInvalidRange.
		{Props{"range-lower": "20", "range-upper": "15", "sharding-volume": "10"}, `property "range-upper" must be greater than range-lower 20, got 15`},
		{Props{"range-lower": "20", "range-upper": "20", "sharding-volume": "10"}, `property "range-upper" must be greater than range-lower 20, got 20`},
		{Props{"range-lower": "0", "range-upper": "5", "sharding-volume": "10"}, `property "sharding-volume" must not exceed range-upper - range-lower (5), got 10`},
		{Props{"range-lower": "-9223372036854775808", "range-upper": "9223372036854775807", "sharding-volume": "1"},
			`property "sharding-volume" gives more than 2147483647 partitions`},
	} {
		_, err := NewAlgorithm("VOLUME_RANGE", tc.props)
		require.EqualError(t, err, tc.want)
	}
}

func TestVolumeRangePrecise(t *testing.T) {
	targets := algoNames("t_order_", 0, 5)
	r := algoRouter(t, "VOLUME_RANGE", ssVolumeProps, targets)
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Long(0), "t_order_0"}, // ShardingSphere's assertPreciseDoSharding
		{Int(0), "t_order_0"},  // ... WithIntShardingValue
		{Long(math.MinInt64), "t_order_0"},
		{Long(9), "t_order_0"},
		{Long(10), "t_order_1"},
		{Long(19), "t_order_1"},
		{Long(20), "t_order_2"},
		{Long(39), "t_order_3"},
		{Long(40), "t_order_4"}, // the short last inner partition [40,45)
		{Long(44), "t_order_4"},
		{Long(45), "t_order_5"},
		{Long(math.MaxInt64), "t_order_5"},
		{String("25"), "t_order_2"},
		{String("+25"), "t_order_2"},
		{String("-25"), "t_order_0"},
		{Decimal("30"), "t_order_3"},
	} {
		require.Equal(t, tc.want, algoPrecise(t, r, targets, tc.v), "%v", tc.v)
	}
	a, err := NewAlgorithm("VOLUME_RANGE", Props{"range-lower": "-9223372036854775808", "range-upper": "9223372036854775807", "sharding-volume": "9223372036854775807"})
	require.NoError(t, err)
	require.Equal(t, 5, a.(AutoAlgorithm).AutoTablesAmount())
	wide := algoNames("t_", 0, 4)
	r = algoRouter(t, "VOLUME_RANGE", Props{"range-lower": "-9223372036854775808", "range-upper": "9223372036854775807", "sharding-volume": "9223372036854775807"}, wide)
	require.Equal(t, "t_1", algoPrecise(t, r, wide, Long(math.MinInt64)))
	require.Equal(t, "t_2", algoPrecise(t, r, wide, Long(0)))
	require.Equal(t, "t_3", algoPrecise(t, r, wide, Long(math.MaxInt64-1)))
	require.Equal(t, "t_4", algoPrecise(t, r, wide, Long(math.MaxInt64)))
}

func TestVolumeRangeRange(t *testing.T) {
	targets := algoNames("t_order_", 0, 5)
	r := algoRouter(t, "VOLUME_RANGE", ssVolumeProps, targets)
	for _, tc := range []struct {
		name string
		rg   Range
		want []string
	}{
		// ShardingSphere's VolumeBasedRangeShardingAlgorithmTest.
		{"less than 12", rgLess(Long(12)), []string{"t_order_0", "t_order_1"}},
		{"less than Integer 12", rgLess(Int(12)), []string{"t_order_0", "t_order_1"}},
		{"greater than 40", rgGreater(Long(40)), []string{"t_order_4", "t_order_5"}},
		{"closed 12..55", rgClosed(Long(12), Long(55)), []string{"t_order_1", "t_order_2", "t_order_3", "t_order_4", "t_order_5"}},
		// Ours: bound types do not matter, partitions are whole.
		{"open 19..20", rgOpen(Long(19), Long(20)), []string{"t_order_1", "t_order_2"}},
		{"at most 9", rgAtMost(Long(9)), []string{"t_order_0"}},
		{"at least 45", rgAtLeast(String("45")), []string{"t_order_5"}},
		{"lower above upper", rgClosed(Long(30), Long(10)), nil},
		{"unbounded", Range{}, targets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := algoRange(t, r, targets, tc.rg)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestVolumeRangeErrors(t *testing.T) {
	r := algoRouter(t, "VOLUME_RANGE", ssVolumeProps, algoNames("t_order_", 0, 4))
	for _, tc := range []struct {
		v    Value
		want string
		is   error
	}{
		{Null, "VOLUME_RANGE on order_id: sharding value must not be NULL", ErrNullShardingValue},
		{Long(45), `VOLUME_RANGE on order_id: sharding value Long 45 routes to "t_order_5", which is not among the targets: no data node matches the sharding value`, ErrNoTarget},
		{String("abc"), `VOLUME_RANGE on order_id: sharding value String "abc" is not a long integer`, nil},
		{Decimal("10.5"), `VOLUME_RANGE on order_id: sharding value Decimal "10.5" is not a long integer`, nil},
		{BigInteger("9223372036854775808"), `VOLUME_RANGE on order_id: sharding value BigInteger "9223372036854775808" is not a long integer`, nil},
		{Time(time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)), `VOLUME_RANGE on order_id: sharding value Time 2021-01-01 00:00:00.0 is not a long integer`, nil},
	} {
		_, err := r.Precise(tc.v)
		require.EqualError(t, err, tc.want)
		if tc.is != nil {
			require.True(t, errors.Is(err, tc.is))
		}
	}
	_, err := r.Range(nil, rgClosed(Long(1), Null))
	require.EqualError(t, err, "VOLUME_RANGE on order_id: sharding value must not be NULL")
	_, err = r.Range(nil, rgClosed(String("x"), Long(1)))
	require.EqualError(t, err, `VOLUME_RANGE on order_id: sharding value String "x" is not a long integer`)
}

func TestBoundaryRangeProps(t *testing.T) {
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{Props{}, `property "sharding-ranges" is required`},
		{Props{"sharding-ranges": "1,,5"}, `property "sharding-ranges" has an entry that is not a long integer: "" (ShardingSphere would drop it and renumber the partitions after it)`},
		{Props{"sharding-ranges": "1,5,"}, `property "sharding-ranges" has an entry that is not a long integer: "" (ShardingSphere would drop it and renumber the partitions after it)`},
		{Props{"sharding-ranges": "1, a ,5"}, `property "sharding-ranges" has an entry that is not a long integer: "a" (ShardingSphere would drop it and renumber the partitions after it)`},
		{Props{"sharding-ranges": "1.5"}, `property "sharding-ranges" has an entry that is not a long integer: "1.5" (ShardingSphere would drop it and renumber the partitions after it)`},
	} {
		_, err := NewAlgorithm("BOUNDARY_RANGE", tc.props)
		require.EqualError(t, err, tc.want)
	}
	a, err := NewAlgorithm("BOUNDARY_RANGE", Props{"sharding-ranges": " 10, 1 ,5"})
	require.NoError(t, err)
	b := a.(*BoundaryRangeAlgorithm)
	require.Equal(t, "BOUNDARY_RANGE", b.Type())
	require.Equal(t, []int64{1, 5, 10}, b.Boundaries())
	require.Equal(t, 4, b.AutoTablesAmount())
}

// Partitions by BoundaryBasedRangeShardingAlgorithm#calculatePartitionRange,
// worked by hand: "1,5,10" gives (-∞,1) [1,5) [5,10) [10,+∞); the unsorted
// " 10, 1 ,5" the same; "1,1,5" gives (-∞,1) [1,1) [1,5) [5,+∞), the
// repeated boundary's empty partition 1 keeping 2 and 3 numbered as
// ShardingSphere numbers them.
func TestBoundaryRangePrecise(t *testing.T) {
	targets := algoNames("t_order_", 0, 3)
	for _, tc := range []struct {
		ranges string
		v      Value
		want   string
	}{
		{"1,5,10", Long(-100), "t_order_0"},
		{"1,5,10", Long(0), "t_order_0"},
		{"1,5,10", Long(1), "t_order_1"},
		{"1,5,10", Int(4), "t_order_1"},
		{"1,5,10", Long(5), "t_order_2"},
		{"1,5,10", String("9"), "t_order_2"},
		{"1,5,10", Long(10), "t_order_3"},
		{"1,5,10", Long(math.MaxInt64), "t_order_3"},
		{" 10, 1 ,5", Long(7), "t_order_2"},
		{"1,1,5", Long(0), "t_order_0"},
		{"1,1,5", Long(1), "t_order_2"},
		{"1,1,5", Long(4), "t_order_2"},
		{"1,1,5", Long(5), "t_order_3"},
		{"-5", Long(-6), "t_order_0"},
		{"-5", Long(-5), "t_order_1"},
	} {
		r := algoRouter(t, "BOUNDARY_RANGE", Props{"sharding-ranges": tc.ranges}, targets)
		require.Equal(t, tc.want, algoPrecise(t, r, targets, tc.v), "%s %v", tc.ranges, tc.v)
	}
}

func TestBoundaryRangeRange(t *testing.T) {
	targets := algoNames("t_order_", 0, 3)
	r := algoRouter(t, "BOUNDARY_RANGE", Props{"sharding-ranges": "1,5,10"}, targets)
	for _, tc := range []struct {
		rg   Range
		want []string
	}{
		{rgClosed(Long(2), Long(7)), []string{"t_order_1", "t_order_2"}},
		{rgOpen(Long(0), Long(5)), []string{"t_order_0", "t_order_1", "t_order_2"}},
		{rgLess(Long(1)), []string{"t_order_0", "t_order_1"}},
		{rgAtLeast(Long(10)), []string{"t_order_3"}},
		{rgGreater(Long(-1)), targets},
	} {
		got, err := algoRange(t, r, targets, tc.rg)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	// Targets that skip partitions route only to those present.
	sparse := []string{"t_order_0", "t_order_3"}
	r = algoRouter(t, "BOUNDARY_RANGE", Props{"sharding-ranges": "1,5,10"}, sparse)
	got, err := algoRange(t, r, sparse, Range{})
	require.NoError(t, err)
	require.Equal(t, sparse, got)
	_, err = r.Precise(Long(3))
	require.EqualError(t, err, `BOUNDARY_RANGE on order_id: sharding value Long 3 routes to "t_order_1", which is not among the targets: no data node matches the sharding value`)
	_, err = r.Precise(Null)
	require.EqualError(t, err, "BOUNDARY_RANGE on order_id: sharding value must not be NULL")
	_, err = r.Range(nil, rgLess(Decimal("1e3")))
	require.EqualError(t, err, `BOUNDARY_RANGE on order_id: sharding value Decimal "1e3" is not a long integer`)
}
