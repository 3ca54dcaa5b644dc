package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Routing benchmarks of the built-in algorithms: one Precise call per
// iteration on a bound router (go test -bench Algo -benchmem ./runtime/).

func benchPrecise(b *testing.B, r StandardRouter, values []Value) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Precise(values[i%len(values)]); err != nil {
			b.Fatal(err)
		}
	}
}

func benchLongs(n int) []Value {
	vs := make([]Value, n)
	for i := range vs {
		vs[i] = Long(int64(i)*7919 + 1_000_000_007)
	}
	return vs
}

// BenchmarkMOD: MOD over 16 tables, Long keys.
func BenchmarkMOD(b *testing.B) {
	r := algoRouter(b, "MOD", Props{"sharding-count": "16"}, algoNames("t_order_", 0, 15))
	benchPrecise(b, r, benchLongs(64))
}

// BenchmarkHashMOD: HASH_MOD over 16 tables, Long and String keys.
func BenchmarkHashMOD(b *testing.B) {
	r := algoRouter(b, "HASH_MOD", Props{"sharding-count": "16"}, algoNames("t_order_", 0, 15))
	b.Run("Long", func(b *testing.B) { benchPrecise(b, r, benchLongs(64)) })
	b.Run("String", func(b *testing.B) {
		benchPrecise(b, r, []Value{String("13800138000"), String("user-4711@example.com"), String("ORD20240101123456"), String("中文用户")})
	})
}

// BenchmarkInterval: INTERVAL by month over 2016-2021, String and Time keys.
func BenchmarkInterval(b *testing.B) {
	targets := algoFormatNames("t_order_%04d%02d", algoInts(2016, 2021, 1), algoInts(1, 12, 1))
	r := ssInterval(b, "yyyy-MM-dd HH:mm:ss", "2016-01-01 00:00:00", "2021-12-31 00:00:00", "yyyyMM", 1, "Months", targets)
	b.Run("String", func(b *testing.B) {
		benchPrecise(b, r, []Value{String("2020-01-01 00:00:01"), String("2017-06-15 12:30:00"), String("2021-12-30 23:59:59.123")})
	})
	b.Run("Time", func(b *testing.B) {
		benchPrecise(b, r, []Value{Time(time.Date(2020, 1, 1, 0, 0, 1, 0, time.UTC)), Time(time.Date(2017, 6, 15, 12, 30, 0, 0, time.UTC))})
	})
}

// BenchmarkRangeAlgorithms: the other auto algorithms' precise routing.
func BenchmarkRangeAlgorithms(b *testing.B) {
	b.Run("VOLUME_RANGE", func(b *testing.B) {
		r := algoRouter(b, "VOLUME_RANGE", Props{"range-lower": "0", "range-upper": "1000000000", "sharding-volume": "100000000"}, algoNames("t_", 0, 11))
		benchPrecise(b, r, benchLongs(64))
	})
	b.Run("BOUNDARY_RANGE", func(b *testing.B) {
		r := algoRouter(b, "BOUNDARY_RANGE", Props{"sharding-ranges": "1000000000,1000100000,1000200000,1000300000,1000400000"}, algoNames("t_", 0, 5))
		benchPrecise(b, r, benchLongs(64))
	})
	b.Run("AUTO_INTERVAL", func(b *testing.B) {
		r := algoRouter(b, "AUTO_INTERVAL", Props{"datetime-lower": "2020-01-01 00:00:00", "datetime-upper": "2021-01-01 00:00:00", "sharding-seconds": "86400"}, algoNames("t_", 0, 367))
		benchPrecise(b, r, []Value{String("2020-03-01 10:00:00"), String("2020-12-31 23:59:59")})
	})
}

// Integer keys route without allocating, and so do Strings and Times for
// the algorithms that document it.
func TestAlgorithmsDoNotAllocate(t *testing.T) {
	months := algoFormatNames("t_order_%04d%02d", algoInts(2016, 2021, 1), algoInts(1, 12, 1))
	for _, tc := range []struct {
		name string
		r    StandardRouter
		v    Value
	}{
		{"MOD Long", algoRouter(t, "MOD", Props{"sharding-count": "16"}, algoNames("t_", 0, 15)), Long(-123456789)},
		{"MOD Integer", algoRouter(t, "MOD", Props{"sharding-count": "100000"}, algoNames("t_", 0, 99999)), Int(77777)},
		{"MOD sparse table", algoRouter(t, "MOD", Props{"sharding-count": "1000000"}, []string{"t_0", "t_7"}), Long(1000007)},
		{"MOD String", algoRouter(t, "MOD", Props{"sharding-count": "16"}, algoNames("t_", 0, 15)), String("12345678910111213141516")},
		{"HASH_MOD Long", algoRouter(t, "HASH_MOD", Props{"sharding-count": "16"}, algoNames("t_", 0, 15)), Long(12345678901)},
		{"HASH_MOD String", algoRouter(t, "HASH_MOD", Props{"sharding-count": "16"}, algoNames("t_", 0, 15)), String("中文😀")},
		{"HASH_MOD Time", algoRouter(t, "HASH_MOD", Props{"sharding-count": "16"}, algoNames("t_", 0, 15)), Time(time.Unix(1600000000, 0))},
		{"VOLUME_RANGE Long", algoRouter(t, "VOLUME_RANGE", Props{"range-lower": "10", "range-upper": "45", "sharding-volume": "10"}, algoNames("t_", 0, 5)), Long(33)},
		{"BOUNDARY_RANGE Integer", algoRouter(t, "BOUNDARY_RANGE", Props{"sharding-ranges": "1,5,10"}, algoNames("t_", 0, 3)), Int(7)},
		{"AUTO_INTERVAL String", algoRouter(t, "AUTO_INTERVAL", ssAutoIntervalProps, algoNames("t_", 0, 5)), String("2020-01-01 00:00:09")},
		{"AUTO_INTERVAL Time", algoRouter(t, "AUTO_INTERVAL", ssAutoIntervalProps, algoNames("t_", 0, 5)), Time(time.Date(2020, 1, 1, 0, 0, 9, 0, time.UTC))},
		{"INTERVAL String", ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2016-01-01 00:00:00", "2021-12-31 00:00:00", "yyyyMM", 1, "Months", months), String("2020-01-01 00:00:01")},
		{"INTERVAL Time", ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2016-01-01 00:00:00", "2021-12-31 00:00:00", "yyyyMM", 1, "Months", months), Time(time.Date(2020, 1, 1, 0, 0, 1, 0, time.UTC))},
		{"INTERVAL Long", ssInterval(t, "yyyyMMdd", "20210701", "20210731", "yyyyMMdd", 1, "Days", algoFormatNames("t_202107%02d%.0d", algoInts(1, 31, 1), []int{0})), Long(20210705)},
	} {
		_, err := tc.r.Precise(tc.v)
		require.NoError(t, err, tc.name)
		allocs := testing.AllocsPerRun(100, func() { _, _ = tc.r.Precise(tc.v) })
		require.Zero(t, allocs, tc.name)
	}
}
