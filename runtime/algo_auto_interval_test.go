package runtime

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ssAutoIntervalProps is ShardingSphere's AutoIntervalShardingAlgorithmTest
// set-up: 4-second partitions over 16 seconds, 16/4+2 = 6 tables.
var ssAutoIntervalProps = Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-01 00:00:16", "sharding-seconds": "4"}

func TestAutoIntervalProps(t *testing.T) {
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{Props{"datetime-upper": "2020-01-01 00:00:16", "sharding-seconds": "4"}, `property "datetime-lower" is required`},
		// ShardingSphere's assertInitFailedWithInvalidDatetimeFormat.
		{Props{"datetime-lower": "invalid"}, `property "datetime-lower" must be a datetime "yyyy-MM-dd HH:mm:ss", got "invalid"`},
		{Props{"datetime-lower": "2020-01-01 00:00:00.0"}, `property "datetime-lower" must be a datetime "yyyy-MM-dd HH:mm:ss", got "2020-01-01 00:00:00.0"`},
		{Props{"datetime-lower": "2020-13-01 00:00:00"}, `property "datetime-lower" must be a datetime "yyyy-MM-dd HH:mm:ss", got "2020-13-01 00:00:00"`},
		{Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-01 00:00:16"}, `property "sharding-seconds" is required`},
		{Props{"datetime-lower": "2020-01-01 00:00:00", "sharding-seconds": "0"}, `property "sharding-seconds" must be a positive integer, got 0`},
		{Props{"datetime-lower": "2020-01-01 00:00:00", "sharding-seconds": "1.5"}, `property "sharding-seconds" must be an integer, got "1.5"`},
		{Props{"datetime-lower": "2020-01-01 00:00:00", "sharding-seconds": "4"}, `property "datetime-upper" is required`},
		{Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-01", "sharding-seconds": "4"},
			`property "datetime-upper" must be a datetime "yyyy-MM-dd HH:mm:ss", got "2020-01-01"`},
		{Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2019-12-31 23:59:59", "sharding-seconds": "4"},
			`property "datetime-upper" must not be before datetime-lower "2020-01-01 00:00:00", got "2019-12-31 23:59:59"`},
		{Props{"datetime-lower": "0001-01-01 00:00:00", "datetime-upper": "9999-01-01 00:00:00", "sharding-seconds": "1"},
			`property "sharding-seconds" gives more than 2147483647 partitions`},
	} {
		_, err := NewAlgorithm("AUTO_INTERVAL", tc.props)
		require.EqualError(t, err, tc.want)
	}
}

func TestAutoIntervalAmount(t *testing.T) {
	for _, tc := range []struct {
		lower, upper, seconds string
		want                  int
	}{
		{"2020-01-01 00:00:00", "2020-01-01 00:00:16", "4", 6},
		// ShardingSphere's assertGetAutoTablesAmount: 366 days of 2020 + 2.
		{"2020-01-01 00:00:00", "2021-01-01 00:00:00", "86400", 368},
		// Long division before Math.ceil: 17/4 = 4, so 6 tables, not 7.
		{"2020-01-01 00:00:00", "2020-01-01 00:00:17", "4", 6},
		{"2020-01-01 00:00:00", "2020-01-01 00:00:00", "4", 2},
		// Only the leading datetime of datetime-upper is read.
		{"2020-01-01 00:00:00", "2020-01-01 00:00:16.999 tail", "4", 6},
	} {
		a, err := NewAlgorithm("AUTO_INTERVAL", Props{"datetime-lower": tc.lower, "datetime-upper": tc.upper, "sharding-seconds": tc.seconds})
		require.NoError(t, err)
		require.Equal(t, "AUTO_INTERVAL", a.Type())
		require.Equal(t, tc.want, a.(AutoAlgorithm).AutoTablesAmount(), tc.upper)
	}
}

func TestAutoIntervalPrecise(t *testing.T) {
	for _, tc := range []struct {
		name    string
		props   Props
		targets []string
		v       Value
		want    string
	}{
		// ShardingSphere's AutoIntervalShardingAlgorithmTest.
		{"one second in", ssAutoIntervalProps, algoNames("t_order_", 0, 3), String("2020-01-01 00:00:01"), "t_order_1"},
		{"beyond the last partition", ssAutoIntervalProps, algoNames("t_order_", 0, 5), String("2021-01-01 00:00:02"), "t_order_5"},
		// Ours, by doSharding(long) worked by hand.
		{"exactly datetime-lower", ssAutoIntervalProps, algoNames("t_order_", 0, 5), String("2020-01-01 00:00:00"), "t_order_0"},
		{"before datetime-lower", ssAutoIntervalProps, algoNames("t_order_", 0, 5), String("2019-01-01 00:00:00"), "t_order_0"},
		{"a partition's end belongs to it: 4/4 = 1.00", ssAutoIntervalProps, algoNames("t_order_", 0, 5), String("2020-01-01 00:00:04"), "t_order_1"},
		{"5/4 = 1.25 → 2", ssAutoIntervalProps, algoNames("t_order_", 0, 5), String("2020-01-01 00:00:05"), "t_order_2"},
		{"fraction and trailing text ignored", ssAutoIntervalProps, algoNames("t_order_", 0, 5), String("2020-01-01 00:00:05.999xyz"), "t_order_2"},
		{"Timestamp wall clock, milliseconds dropped", ssAutoIntervalProps, algoNames("t_order_", 0, 5),
			Time(time.Date(2020, 1, 1, 0, 0, 8, 999000000, time.FixedZone("X", 5*3600))), "t_order_2"},
		// 1/200 = 0.005 as a double lies above 0.005: DecimalFormat gives
		// "0.01", so partition 1 (OpenJDK 17).
		{"rounding 0.005 up", Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-02 00:00:00", "sharding-seconds": "200"},
			algoNames("t_", 0, 5), String("2020-01-01 00:00:01"), "t_1"},
		// 401/200 = 2.005 as a double lies below: "2.00", partition 2, where
		// a plain ceil would say 3 (OpenJDK 17).
		{"rounding 2.005 down", Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-02 00:00:00", "sharding-seconds": "200"},
			algoNames("t_", 0, 5), String("2020-01-01 00:06:41"), "t_2"},
		{"zero-padded names", ssAutoIntervalProps, algoNames("t_0", 0, 5), String("2020-01-01 00:00:09"), "t_03"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := algoRouter(t, "AUTO_INTERVAL", tc.props, tc.targets)
			require.Equal(t, tc.want, algoPrecise(t, r, tc.targets, tc.v))
		})
	}
}

func TestAutoIntervalRange(t *testing.T) {
	five, six := algoNames("t_order_", 0, 4), algoNames("t_order_", 0, 5)
	for _, tc := range []struct {
		name    string
		props   Props
		targets []string
		rg      Range
		want    []string
	}{
		// ShardingSphere's AutoIntervalShardingAlgorithmTest.
		{"all range", ssAutoIntervalProps, five, rgClosed(String("2019-01-01 00:00:00"), String("2020-01-01 00:00:15")), five},
		{"part range", ssAutoIntervalProps, five, rgClosed(String("2020-01-01 00:00:04"), String("2020-01-01 00:00:10")),
			[]string{"t_order_1", "t_order_2", "t_order_3"}},
		{"without lower bound", ssAutoIntervalProps, algoNames("t_order_", 0, 3), rgLess(String("2020-01-01 00:00:11")),
			algoNames("t_order_", 0, 3)},
		{"without upper bound", ssAutoIntervalProps, six, rgGreater(String("2020-01-01 00:00:09")),
			[]string{"t_order_3", "t_order_4", "t_order_5"}},
		{"more than ten tables", Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-01 00:00:30", "sharding-seconds": "1"},
			algoNames("t_order_", 0, 31), rgClosed(String("2020-01-01 00:00:00"), String("2020-01-01 00:00:10")), algoNames("t_order_", 0, 10)},
		{"milliseconds in values", Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-01 00:00:30", "sharding-seconds": "1"},
			algoNames("t_order_", 0, 31), rgClosed(String("2020-01-01 00:00:11.123"), String("2020-01-01 00:00:21.123")), algoNames("t_order_", 11, 21)},
		// Ours.
		{"Timestamp bounds", ssAutoIntervalProps, six,
			rgOpen(Time(time.Date(2020, 1, 1, 0, 0, 1, 0, time.UTC)), Time(time.Date(2020, 1, 1, 0, 0, 4, 0, time.UTC))), []string{"t_order_1"}},
		{"lower after upper", ssAutoIntervalProps, six, rgClosed(String("2020-01-01 00:00:10"), String("2020-01-01 00:00:01")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := algoRouter(t, "AUTO_INTERVAL", tc.props, tc.targets)
			got, err := algoRange(t, r, tc.targets, tc.rg)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestAutoIntervalErrors(t *testing.T) {
	r := algoRouter(t, "AUTO_INTERVAL", ssAutoIntervalProps, algoNames("t_order_", 0, 3))
	for _, tc := range []struct {
		v    Value
		want string
		is   error
	}{
		{Null, "AUTO_INTERVAL on order_id: sharding value must not be NULL", ErrNullShardingValue},
		{String("2020-01-01 00:00:16"), `AUTO_INTERVAL on order_id: sharding value String "2020-01-01 00:00:16" routes to "t_order_4", which is not among the targets: no data node matches the sharding value`, ErrNoTarget},
		{String("2020-01-01T00:00:01"), `AUTO_INTERVAL on order_id: sharding value String "2020-01-01T00:00:01" does not start with a datetime "yyyy-MM-dd HH:mm:ss"`, nil},
		{String("2020-01-01"), `AUTO_INTERVAL on order_id: sharding value String "2020-01-01" does not start with a datetime "yyyy-MM-dd HH:mm:ss"`, nil},
		{Long(20200101000001), `AUTO_INTERVAL on order_id: sharding value Long 20200101000001 does not start with a datetime "yyyy-MM-dd HH:mm:ss"`, nil},
		{Time(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)), `AUTO_INTERVAL on order_id: sharding value Time 10000-01-01 00:00:00.0 has a year outside 1..9999`, nil},
	} {
		_, err := r.Precise(tc.v)
		require.EqualError(t, err, tc.want)
		if tc.is != nil {
			require.True(t, errors.Is(err, tc.is))
		}
	}
	_, err := r.Range(nil, rgClosed(Null, String("2020-01-01 00:00:01")))
	require.EqualError(t, err, "AUTO_INTERVAL on order_id: sharding value must not be NULL")
}

// index agrees with a literal transcription of doSharding(long):
// format to two decimals (strconv rounds the exact binary value half to
// even, as JDK 8+ DecimalFormat does), parse, ceil, clamp. The rule was also
// checked against OpenJDK 17 on 3.8 million (s, seconds) pairs.
func TestAutoIntervalIndexMatchesDecimalFormat(t *testing.T) {
	for _, secs := range []int64{1, 3, 4, 7, 8, 200, 400, 1000, 2600, 86400, 99999} {
		a := &AutoIntervalAlgorithm{seconds: secs, count: 1 << 30}
		for s := int64(-100); s <= 200000; s++ {
			pos, err := strconv.ParseFloat(strconv.FormatFloat(float64(s)/float64(secs), 'f', 2, 64), 64)
			require.NoError(t, err)
			want := min(max(0, int64(math.Ceil(pos))), a.count-1)
			if got := a.index(s); got != want {
				require.Equal(t, want, got, "s=%d seconds=%d", s, secs)
			}
		}
	}
	a := &AutoIntervalAlgorithm{seconds: 1, count: 5}
	require.Equal(t, int64(4), a.index(math.MaxInt64))
	require.Equal(t, int64(0), a.index(math.MinInt64))
}
