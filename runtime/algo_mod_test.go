package runtime

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ssModTargets is the shuffled target list of ShardingSphere's
// ModShardingAlgorithmTest; ssModPaddedTargets its zero-padded twin.
var (
	ssModTargets = []string{"t_order_8", "t_order_9", "t_order_10", "t_order_11", "t_order_12", "t_order_13", "t_order_14", "t_order_15",
		"t_order_0", "t_order_1", "t_order_2", "t_order_3", "t_order_4", "t_order_5", "t_order_6", "t_order_7"}
	ssModPaddedTargets = []string{"t_order_08", "t_order_09", "t_order_10", "t_order_11", "t_order_12", "t_order_13", "t_order_14", "t_order_15",
		"t_order_00", "t_order_01", "t_order_02", "t_order_03", "t_order_04", "t_order_05", "t_order_06", "t_order_07"}
)

func TestModProps(t *testing.T) {
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{Props{}, `property "sharding-count" is required`},
		{Props{"sharding-count": " "}, `property "sharding-count" is required`},
		{Props{"sharding-count": "x"}, `property "sharding-count" must be an integer, got "x"`},
		{Props{"sharding-count": "0"}, `property "sharding-count" must be a positive integer, got 0`},
		{Props{"sharding-count": "-3"}, `property "sharding-count" must be a positive integer, got -3`},
		{Props{"sharding-count": "2147483648"}, `property "sharding-count" must be at most 2147483647, got 2147483648`},
		{Props{"sharding-count": "4", "start-offset": "-1"}, `property "start-offset" must not be negative, got -1`},
		{Props{"sharding-count": "4", "stop-offset": "a"}, `property "stop-offset" must be an integer, got "a"`},
		{Props{"sharding-count": "4", "zero-padding": "yes"}, `property "zero-padding" must be true or false, got "yes"`},
	} {
		_, err := NewAlgorithm("MOD", tc.props)
		require.EqualError(t, err, tc.want)
		var pe *PropError
		require.True(t, errors.As(err, &pe))
	}
}

func TestModAccessors(t *testing.T) {
	for _, tc := range []struct {
		props        Props
		count        int64
		start, stop  int
		pad          bool
		padWidth     int
		autoAmount   int
		algorithmTyp string
	}{
		{Props{"sharding-count": "16"}, 16, 0, 0, false, 2, 16, "MOD"},
		{Props{"sharding-count": "1", "zero-padding": "TRUE"}, 1, 0, 0, true, 1, 1, "MOD"},
		{Props{"sharding-count": "100", "start-offset": "2", "stop-offset": "3"}, 100, 2, 3, false, 2, 100, "MOD"},
		{Props{"sharding-count": "101"}, 101, 0, 0, false, 3, 101, "MOD"},
	} {
		a, err := NewAlgorithm("MOD", tc.props)
		require.NoError(t, err)
		m := a.(*ModAlgorithm)
		require.Equal(t, tc.algorithmTyp, m.Type())
		require.Equal(t, tc.count, m.ShardingCount())
		require.Equal(t, tc.autoAmount, m.AutoTablesAmount())
		start, stop := m.Offsets()
		require.Equal(t, [2]int{tc.start, tc.stop}, [2]int{start, stop})
		pad, width := m.ZeroPadding()
		require.Equal(t, tc.pad, pad)
		require.Equal(t, tc.padWidth, width)
	}
}

func TestModPrecise(t *testing.T) {
	count4 := algoNames("t_order_", 0, 3)
	count7 := algoNames("t_order_", 0, 6)
	padded16 := algoNames("t_order_", 0, 15)
	for i := range padded16 {
		padded16[i] = ssModPaddedTargets[(i+8)%16]
	}
	for _, tc := range []struct {
		name    string
		props   Props
		targets []string
		v       Value
		want    string
	}{
		// Spec §3.3 and ShardingSphere's ModShardingAlgorithmTest.
		{"Long -7 mod 4 is 1", Props{"sharding-count": "4"}, count4, Long(-7), "t_order_1"},
		{"Integer -7 mod 4 is 1", Props{"sharding-count": "4"}, count4, Int(-7), "t_order_1"},
		{"Integer 17 mod 16", Props{"sharding-count": "16"}, ssModTargets, Int(17), "t_order_1"},
		{"String beyond long mod 16", Props{"sharding-count": "16"}, ssModTargets, String("12345678910111213141516"), "t_order_12"},
		{"offsets 1/1 and zero-padding", Props{"sharding-count": "16", "zero-padding": "true", "start-offset": "1", "stop-offset": "1"},
			ssModPaddedTargets, String("12345678910111213141516"), "t_order_07"},

		// Our own; expected values by BigInteger.mod worked by hand and
		// checked with OpenJDK 17.
		{"Long MIN_VALUE mod 7", Props{"sharding-count": "7"}, count7, Long(math.MinInt64), "t_order_6"},
		{"Long MAX_VALUE mod 7", Props{"sharding-count": "7"}, count7, Long(math.MaxInt64), "t_order_0"},
		{"String with sign", Props{"sharding-count": "4"}, count4, String("-7"), "t_order_1"},
		{"String with plus sign", Props{"sharding-count": "4"}, count4, String("+7"), "t_order_3"},
		{"String with leading zeros", Props{"sharding-count": "16"}, ssModTargets, String("00017"), "t_order_1"},
		{"BigDecimal truncates: 10.9 → 10", Props{"sharding-count": "4"}, count4, Decimal("10.9"), "t_order_2"},
		{"BigDecimal truncates toward zero: -10.9 → -10", Props{"sharding-count": "4"}, count4, Decimal("-10.9"), "t_order_2"},
		{"BigInteger keeps its low 64 bits: 2^64+5 → 5", Props{"sharding-count": "7"}, count7, BigInteger("18446744073709551621"), "t_order_5"},
		{"the same digits as a String: (2^64+5) mod 7 = 0", Props{"sharding-count": "7"}, count7, String("18446744073709551621"), "t_order_0"},
		{"zero-padding", Props{"sharding-count": "16", "zero-padding": "true"}, ssModPaddedTargets, Long(7), "t_order_07"},
		{"padded names without zero-padding: DataNodeInfo pads", Props{"sharding-count": "16"}, padded16, Long(7), "t_order_07"},
		{"offsets cut a String", Props{"sharding-count": "4", "start-offset": "2", "stop-offset": "1"}, count4, String("AB1234X"), "t_order_2"},
		{"offsets cut a Long's text", Props{"sharding-count": "4", "start-offset": "1", "stop-offset": "2"}, count4, Long(123456), "t_order_2"},
		{"offsets count UTF-16 units", Props{"sharding-count": "4", "start-offset": "1"}, count4, String("é12"), "t_order_0"},
		{"offsets on a BigDecimal's text", Props{"sharding-count": "4", "stop-offset": "2"}, count4, Decimal("17.5"), "t_order_1"},
		{"uneven targets", Props{"sharding-count": "11"}, []string{"t_0", "t_1", "t_10"}, Int(21), "t_10"},
		{"fewer data sources than the count", Props{"sharding-count": "4"}, []string{"ds_0", "ds_1"}, Long(5), "ds_1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := algoRouter(t, "MOD", tc.props, tc.targets)
			require.Equal(t, tc.want, algoPrecise(t, r, tc.targets, tc.v))
		})
	}
}

func TestModPreciseErrors(t *testing.T) {
	count4 := algoNames("t_order_", 0, 3)
	for _, tc := range []struct {
		name    string
		props   Props
		targets []string
		v       Value
		want    string
		is      error
	}{
		{"NULL", Props{"sharding-count": "4"}, count4, Null,
			"MOD on order_id: sharding value must not be NULL", ErrNullShardingValue},
		{"NULL with offsets", Props{"sharding-count": "4", "start-offset": "1"}, count4, Null,
			"MOD on order_id: sharding value must not be NULL", ErrNullShardingValue},
		{"missing target", Props{"sharding-count": "4"}, count4[:3], Long(3),
			`MOD on order_id: sharding value Long 3 routes to "t_order_3", which is not among the targets: no data node matches the sharding value`, ErrNoTarget},
		{"targets not in suffix form", Props{"sharding-count": "2"}, []string{"ds_a", "ds_b"}, Long(1),
			`MOD on order_id: sharding value Long 1 routes to "ds_a1", which is not among the targets: no data node matches the sharding value`, ErrNoTarget},
		{"missing zero-padded target", Props{"sharding-count": "16", "zero-padding": "true"}, algoNames("t_order_", 0, 15), Long(7),
			`MOD on order_id: sharding value Long 7 routes to "t_order_07", which is not among the targets: no data node matches the sharding value`, ErrNoTarget},
		{"non-numeric String", Props{"sharding-count": "4"}, count4, String("abc"),
			`MOD on order_id: sharding value String "abc" is not an integer`, nil},
		{"decimal text in a String", Props{"sharding-count": "4"}, count4, String("10.5"),
			`MOD on order_id: sharding value String "10.5" is not an integer`, nil},
		{"empty String", Props{"sharding-count": "4"}, count4, String(""),
			`MOD on order_id: sharding value String "" is too short for start-offset 0 and stop-offset 0`, nil},
		{"Timestamp", Props{"sharding-count": "4"}, count4, Time(time.Date(2021, 7, 1, 0, 0, 1, 0, time.UTC)),
			`MOD on order_id: sharding value Time 2021-07-01 00:00:01.0 is not an integer`, nil},
		{"bad BigDecimal text", Props{"sharding-count": "4"}, count4, Decimal("1..0"),
			`MOD on order_id: sharding value Decimal "1..0" is not a number`, nil},
		{"too short for the offsets", Props{"sharding-count": "4", "start-offset": "2", "stop-offset": "1"}, count4, String("AB1"),
			`MOD on order_id: sharding value String "AB1" is too short for start-offset 2 and stop-offset 1`, nil},
		{"cut is not a number", Props{"sharding-count": "4", "start-offset": "2", "stop-offset": "1"}, count4, String("ABXYZ"),
			`MOD on order_id: sharding value String "ABXYZ" cut to "XY" by start-offset 2 and stop-offset 1 is not an integer`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := algoRouter(t, "MOD", tc.props, tc.targets)
			i, err := r.Precise(tc.v)
			require.Equal(t, -1, i)
			require.EqualError(t, err, tc.want)
			if tc.is != nil {
				require.True(t, errors.Is(err, tc.is))
			}
		})
	}
}

func TestModRange(t *testing.T) {
	count4 := algoNames("t_order_", 0, 3)
	withStray := append(algoNames("t_order_", 0, 3), "t_order_x")
	for _, tc := range []struct {
		name    string
		props   Props
		targets []string
		rg      Range
		want    []string
	}{
		// ShardingSphere's ModShardingAlgorithmTest.
		{"closed 1..16 is every target", Props{"sharding-count": "16"}, ssModTargets, rgClosed(Long(1), Long(16)), ssModTargets},
		{"closed 1..2", Props{"sharding-count": "16"}, ssModTargets, rgClosed(Long(1), Long(2)), []string{"t_order_1", "t_order_2"}},
		{"closed 1..16 zero-padded", Props{"sharding-count": "16", "zero-padding": "true", "start-offset": "1", "stop-offset": "1"},
			ssModPaddedTargets, rgClosed(Long(1), Long(16)), ssModPaddedTargets},

		// Our own, by the rules of ModShardingAlgorithm#doSharding(range).
		{"no upper bound: every target", Props{"sharding-count": "4"}, withStray, rgGreater(Long(5)), withStray},
		// ShardingSphere fails on these (lowerEndpoint() of a range without
		// one); every residue may hold a value below the bound.
		{"no lower bound: every target", Props{"sharding-count": "4"}, withStray, rgLess(Long(5)), withStray},
		{"at most, no lower bound: every target", Props{"sharding-count": "4"}, withStray, rgAtMost(Long(-5)), withStray},
		{"span ≥ count-1: every target, even one no suffix names", Props{"sharding-count": "4"}, withStray, rgClosed(Long(0), Long(10)), withStray},
		{"iterated residues wrap", Props{"sharding-count": "16"}, ssModTargets, rgClosed(Long(14), Long(17)),
			[]string{"t_order_14", "t_order_15", "t_order_0", "t_order_1"}},
		{"open bounds still iterate both endpoints", Props{"sharding-count": "16"}, ssModTargets, rgOpen(Long(14), Long(17)),
			[]string{"t_order_14", "t_order_15", "t_order_0", "t_order_1"}},
		{"negative bounds use BigInteger.mod", Props{"sharding-count": "4"}, count4, rgClosed(Long(-3), Long(-2)), []string{"t_order_1", "t_order_2"}},
		{"negative span covering the count", Props{"sharding-count": "4"}, count4, rgClosed(Int(-3), Int(1)), count4},
		{"lower above upper: nothing", Props{"sharding-count": "4"}, count4, rgClosed(Long(5), Long(3)), nil},
		{"span 2^32+1: intValue 1, so the residues are iterated (matched targets only)", Props{"sharding-count": "4"}, withStray,
			rgClosed(Long(0), Long(1<<32+1)), count4},
		{"span wrapping int64", Props{"sharding-count": "4"}, count4, rgClosed(Long(math.MinInt64), Long(math.MaxInt64)), count4},
		{"String bounds", Props{"sharding-count": "16"}, ssModTargets, rgClosed(String("10"), String("12")),
			[]string{"t_order_10", "t_order_11", "t_order_12"}},
		{"BigDecimal bounds spanning the count need no parsing", Props{"sharding-count": "16"}, ssModTargets,
			rgClosed(Decimal("0.5"), Long(100)), ssModTargets},
		{"BigInteger lower bound reads 0 for the span, its full value when iterated", Props{"sharding-count": "16"}, ssModTargets,
			rgClosed(BigInteger("18446744073709551616"), Long(2)), nil},
		{"zero-padded residues", Props{"sharding-count": "16", "zero-padding": "true"}, ssModPaddedTargets,
			rgClosed(Long(1), Long(2)), []string{"t_order_01", "t_order_02"}},
		{"offsets are not applied to ranges", Props{"sharding-count": "16", "start-offset": "1"}, ssModTargets,
			rgClosed(Long(123), Long(124)), []string{"t_order_11", "t_order_12"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := algoRouter(t, "MOD", tc.props, tc.targets)
			got, err := algoRange(t, r, tc.targets, tc.rg)
			require.NoError(t, err)
			require.ElementsMatch(t, tc.want, got)
		})
	}
}

func TestModRangeErrors(t *testing.T) {
	count16 := algoNames("t_order_", 0, 15)
	for _, tc := range []struct {
		name string
		rg   Range
		want string
	}{
		{"NULL bound", rgClosed(Null, Long(5)), "MOD on order_id: sharding value must not be NULL"},
		{"BigDecimal bound iterated", rgClosed(Decimal("10.5"), Long(12)), `MOD on order_id: range bound Decimal "10.5" is not an integer`},
		{"non-numeric String bound", rgClosed(String("a"), String("b")), `MOD on order_id: range bound String "b" is not an integer`},
		{"bad BigDecimal text", rgClosed(Long(1), Decimal("x")), `MOD on order_id: range bound Decimal "x" is not a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := algoRouter(t, "MOD", Props{"sharding-count": "16"}, count16)
			got, err := r.Range(nil, tc.rg)
			require.EqualError(t, err, tc.want)
			require.Empty(t, got)
		})
	}
}

func TestHashModProps(t *testing.T) {
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{Props{}, `property "sharding-count" is required`},
		{Props{"sharding-count": "four"}, `property "sharding-count" must be an integer, got "four"`},
		{Props{"sharding-count": "0"}, `property "sharding-count" must be a positive integer, got 0`},
		{Props{"sharding-count": "4294967296"}, `property "sharding-count" must be at most 2147483647, got 4294967296`},
	} {
		_, err := NewAlgorithm("HASH_MOD", tc.props)
		require.EqualError(t, err, tc.want)
	}
	a, err := NewAlgorithm("HASH_MOD", Props{"sharding-count": "8"})
	require.NoError(t, err)
	h := a.(*HashModAlgorithm)
	require.Equal(t, "HASH_MOD", h.Type())
	require.Equal(t, int64(8), h.ShardingCount())
	require.Equal(t, 8, h.AutoTablesAmount())
}

// Every JVM vector of javaHashVectors routes to t_order_<mod4>.
func TestHashModPrecise(t *testing.T) {
	targets := algoNames("t_order_", 0, 3)
	r := algoRouter(t, "HASH_MOD", Props{"sharding-count": "4"}, targets)
	for _, tc := range javaHashVectors {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, targets[tc.mod4], algoPrecise(t, r, targets, tc.v))
		})
	}
	// Shuffled and zero-padded targets route by name, not position.
	padded := []string{"t_03", "t_01", "t_02", "t_00"}
	r = algoRouter(t, "HASH_MOD", Props{"sharding-count": "4"}, padded)
	require.Equal(t, "t_01", algoPrecise(t, r, padded, String("a")))
	require.Equal(t, "t_00", algoPrecise(t, r, padded, Long(100)))
}

func TestHashModErrors(t *testing.T) {
	r := algoRouter(t, "HASH_MOD", Props{"sharding-count": "4"}, algoNames("t_order_", 0, 2))
	for _, tc := range []struct {
		v    Value
		want string
		is   error
	}{
		{Null, "HASH_MOD on order_id: sharding value must not be NULL", ErrNullShardingValue},
		{Int(-7), `HASH_MOD on order_id: sharding value Int -7 routes to "t_order_3", which is not among the targets: no data node matches the sharding value`, ErrNoTarget},
		{Decimal("1,5"), `HASH_MOD on order_id: BigDecimal "1,5" is not a decimal number`, nil},
	} {
		_, err := r.Precise(tc.v)
		require.EqualError(t, err, tc.want)
		if tc.is != nil {
			require.True(t, errors.Is(err, tc.is))
		}
	}
}

func TestHashModRangeIsEveryTarget(t *testing.T) {
	targets := append(algoNames("t_order_", 0, 3), "t_order_bak")
	r := algoRouter(t, "HASH_MOD", Props{"sharding-count": "4"}, targets)
	for _, rg := range []Range{rgClosed(Long(1), Long(2)), rgLess(Long(1)), rgGreater(String("x")), rgClosed(Null, Null)} {
		got, err := algoRange(t, r, targets, rg)
		require.NoError(t, err)
		require.Equal(t, targets, got)
	}
}
