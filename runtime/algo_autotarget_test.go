package runtime

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// algoRouter configures a standard algorithm with NewAlgorithm and binds it
// to targets for the column order_id.
func algoRouter(t testing.TB, typ string, props Props, targets []string) StandardRouter {
	t.Helper()
	a, err := NewAlgorithm(typ, props)
	require.NoError(t, err)
	sa, ok := a.(StandardAlgorithm)
	require.True(t, ok, "%s is not a StandardAlgorithm", typ)
	r, err := sa.BindStandard("order_id", targets)
	require.NoError(t, err)
	return r
}

// algoNames returns prefix+i for i in from..to.
func algoNames(prefix string, from, to int) []string {
	var names []string
	for i := from; i <= to; i++ {
		names = append(names, fmt.Sprintf("%s%d", prefix, i))
	}
	return names
}

// algoPrecise routes v and returns the target name.
func algoPrecise(t testing.TB, r StandardRouter, targets []string, v Value) string {
	t.Helper()
	i, err := r.Precise(v)
	require.NoError(t, err)
	return targets[i]
}

// algoRange routes rg and returns the target names, checking the indexes
// ascend without duplicates and that dst's prefix is kept.
func algoRange(t testing.TB, r StandardRouter, targets []string, rg Range) ([]string, error) {
	t.Helper()
	got, err := r.Range([]int{-7}, rg)
	require.Equal(t, -7, got[0], "Range must append to dst")
	var names []string
	for k, i := range got[1:] {
		if k > 0 {
			require.Less(t, got[k], i, "indexes must ascend without duplicates")
		}
		names = append(names, targets[i])
	}
	return names, err
}

// rgClosed, rgOpen, rgAtLeast, rgAtMost, rgGreater and rgLess build Ranges
// like Guava's closed, open, atLeast, atMost, greaterThan and lessThan.
func rgClosed(l, u Value) Range { return Range{Lower: l, Upper: u, HasLower: true, HasUpper: true} }
func rgOpen(l, u Value) Range {
	return Range{Lower: l, Upper: u, HasLower: true, HasUpper: true, LowerOpen: true, UpperOpen: true}
}
func rgAtLeast(l Value) Range { return Range{Lower: l, HasLower: true} }
func rgAtMost(u Value) Range  { return Range{Upper: u, HasUpper: true} }
func rgGreater(l Value) Range { return Range{Lower: l, HasLower: true, LowerOpen: true} }
func rgLess(u Value) Range    { return Range{Upper: u, HasUpper: true, UpperOpen: true} }

func TestAutoTargetsMatching(t *testing.T) {
	for _, tc := range []struct {
		name    string
		targets []string
		count   int64
		pad     int
		prefix  string
		minLen  int
		want    map[int64]string // suffix → target; unlisted suffixes have none
	}{
		{"plain", []string{"t_0", "t_1", "t_2"}, 3, 0, "t_", 1,
			map[int64]string{0: "t_0", 1: "t_1", 2: "t_2"}},
		{"zero-padded names pad to minLen", []string{"t_00", "t_01", "t_10", "t_11"}, 12, 0, "t_", 2,
			map[int64]string{0: "t_00", 1: "t_01", 10: "t_10", 11: "t_11"}},
		{"uneven: minLen is the shortest", []string{"t_0", "t_1", "t_10", "t_011"}, 12, 0, "t_", 1,
			map[int64]string{0: "t_0", 1: "t_1", 10: "t_10"}},
		{"MOD zero-padding", []string{"t_00", "t_07", "t_15"}, 16, 2, "t_", 2,
			map[int64]string{0: "t_00", 7: "t_07", 15: "t_15"}},
		{"prefix from the first target only", []string{"ds_0", "db_1", "ds_2"}, 3, 0, "ds_", 1,
			map[int64]string{0: "ds_0", 2: "ds_2"}},
		{"no trailing digits", []string{"ds_a", "ds_b"}, 2, 0, "ds_a", 0, map[int64]string{}},
		{"names ending in digits only", []string{"0", "1", "12"}, 13, 0, "", 1,
			map[int64]string{0: "0", 1: "1", 12: "12"}},
		{"suffix beyond count", []string{"t_0", "t_1", "t_5"}, 4, 0, "t_", 1, map[int64]string{0: "t_0", 1: "t_1"}},
		{"repeated name keeps the first", []string{"t_0", "t_1", "t_0"}, 2, 0, "t_", 1, map[int64]string{0: "t_0", 1: "t_1"}},
		{"unicode prefix", []string{"订单_0", "订单_1"}, 2, 0, "订单_", 1, map[int64]string{0: "订单_0", 1: "订单_1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, err := bindAutoTargets(tc.targets, tc.count, tc.pad)
			require.NoError(t, err)
			require.Equal(t, tc.prefix, at.prefix)
			require.Equal(t, tc.minLen, at.minLen)
			for n := int64(-1); n <= tc.count; n++ {
				i := at.lookup(n)
				want, ok := tc.want[n]
				if !ok {
					require.Equal(t, -1, i, "suffix %d", n)
					continue
				}
				require.Equal(t, want, tc.targets[i], "suffix %d", n)
			}
		})
	}
}

// Above denseSuffixLimit the table is sparse; look-ups must agree.
func TestAutoTargetsSparse(t *testing.T) {
	targets := []string{"t_99999", "t_3", "t_70000", "t_0"}
	at, err := bindAutoTargets(targets, 100000, 0)
	require.NoError(t, err)
	require.Nil(t, at.dense)
	require.Equal(t, []int64{0, 3, 70000, 99999}, at.sparseN)
	for n, want := range map[int64]int{0: 3, 3: 1, 70000: 2, 99999: 0, 1: -1, 69999: -1, 100000: -1} {
		require.Equal(t, want, at.lookup(n), "suffix %d", n)
	}
	require.Equal(t, []int{1, 2}, at.appendInterval(nil, 1, 70000))
	require.Equal(t, []int{0, 3}, at.appendCyclic(nil, 99999, 2))
}

func TestAutoTargetsEmpty(t *testing.T) {
	for _, typ := range []string{"MOD", "HASH_MOD"} {
		a, err := NewAlgorithm(typ, Props{"sharding-count": "2"})
		require.NoError(t, err)
		_, err = a.(StandardAlgorithm).BindStandard("order_id", nil)
		require.EqualError(t, err, typ+" on order_id: no targets to bind")
	}
	for typ, props := range map[string]Props{
		"VOLUME_RANGE":   {"range-lower": "0", "range-upper": "10", "sharding-volume": "5"},
		"BOUNDARY_RANGE": {"sharding-ranges": "1"},
		"AUTO_INTERVAL":  {"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-02 00:00:00", "sharding-seconds": "3600"},
		"INTERVAL":       {"datetime-pattern": "yyyy", "datetime-lower": "2020", "datetime-upper": "2021", "sharding-suffix-pattern": "yyyy", "datetime-interval-unit": "Years"},
	} {
		a, err := NewAlgorithm(typ, props)
		require.NoError(t, err)
		_, err = a.(StandardAlgorithm).BindStandard("order_id", []string{})
		require.EqualError(t, err, typ+" on order_id: no targets to bind")
	}
}

// NewAlgorithm hands out the algorithm types of this package, and the auto
// algorithms report their auto-table amount.
func TestNewAlgorithmTypes(t *testing.T) {
	for _, tc := range []struct {
		typ    string
		props  Props
		amount int // -1: not an AutoAlgorithm
	}{
		{"mod", Props{"sharding-count": "16"}, 16},
		{"HASH_MOD", Props{"sharding-count": "4"}, 4},
		{"VOLUME_RANGE", Props{"range-lower": "10", "range-upper": "45", "sharding-volume": "10"}, 6},
		{"BOUNDARY_RANGE", Props{"sharding-ranges": "1,5,10"}, 4},
		{"AUTO_INTERVAL", Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2020-01-01 00:00:16", "sharding-seconds": "4"}, 6},
		{"Interval", Props{"datetime-pattern": "yyyy", "datetime-lower": "2020", "datetime-upper": "2021", "sharding-suffix-pattern": "yyyy", "datetime-interval-unit": "Years"}, -1},
	} {
		a, err := NewAlgorithm(tc.typ, tc.props)
		require.NoError(t, err, tc.typ)
		auto, ok := a.(AutoAlgorithm)
		if tc.amount < 0 {
			require.False(t, ok, tc.typ)
			continue
		}
		require.True(t, ok, tc.typ)
		require.Equal(t, tc.amount, auto.AutoTablesAmount(), tc.typ)
	}
}

// Bound routers are shared by every query: route from many goroutines at
// once (run with -race).
func TestRoutersConcurrent(t *testing.T) {
	months := algoFormatNames("t_order_%04d%02d", algoInts(2016, 2021, 1), algoInts(1, 12, 1))
	routers := []struct {
		r StandardRouter
		v Value
	}{
		{algoRouter(t, "MOD", Props{"sharding-count": "16"}, algoNames("t_", 0, 15)), Long(17)},
		{algoRouter(t, "HASH_MOD", Props{"sharding-count": "16"}, algoNames("t_", 0, 15)), String("abc")},
		{algoRouter(t, "BOUNDARY_RANGE", Props{"sharding-ranges": "1,5,10"}, algoNames("t_", 0, 3)), Long(7)},
		{algoRouter(t, "AUTO_INTERVAL", ssAutoIntervalProps, algoNames("t_", 0, 5)), String("2020-01-01 00:00:09")},
		{ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2016-01-01 00:00:00", "2021-12-31 00:00:00", "yyyyMM", 1, "Months", months), String("2020-01-01 00:00:01")},
	}
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			var err error
			for i := 0; i < 200 && err == nil; i++ {
				for _, c := range routers {
					if _, err = c.r.Precise(c.v); err != nil {
						break
					}
					if _, err = c.r.Range(nil, rgAtLeast(c.v)); err != nil {
						break
					}
				}
			}
			done <- err
		}()
	}
	for g := 0; g < 8; g++ {
		require.NoError(t, <-done)
	}
}
