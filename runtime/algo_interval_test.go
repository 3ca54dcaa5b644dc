package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// algoTemporalText describes a parsed temporal, e.g. "2023-01-15 10:20:30.123000000".
func algoTemporalText(t jtemporal) string {
	var parts []string
	switch {
	case t.hasDate:
		parts = append(parts, fmt.Sprintf("%04d-%02d-%02d", t.year, t.month, t.day))
	case t.hasYear && t.hasMonth:
		parts = append(parts, fmt.Sprintf("year=%d month=%d", t.year, t.month))
	case t.hasYear:
		parts = append(parts, fmt.Sprintf("year=%d", t.year))
	case t.hasMonth:
		parts = append(parts, fmt.Sprintf("month=%d", t.month))
	}
	if t.hasTime {
		parts = append(parts, fmt.Sprintf("%02d:%02d:%02d.%09d", t.hour, t.minute, t.second, t.nano))
	}
	return strings.Join(parts, " ")
}

// Expected results were printed by OpenJDK 17's
// DateTimeFormatter.ofPattern(p).parse(text) (ResolverStyle.SMART), except
// where a comment says we differ on purpose.
func TestJavaPatternParse(t *testing.T) {
	for _, tc := range []struct {
		pattern, text string
		want          string // "" means a parse error
	}{
		{"yyyy-MM-dd HH:mm:ss", "2023-01-15 10:20:30", "2023-01-15 10:20:30.000000000"},
		{"yyyy-MM-dd", "2023-02-30", "2023-02-28"}, // SMART clamps the day
		{"yyyy-MM-dd", "2024-02-31", "2024-02-29"},
		{"yyyy-MM-dd", "2023-02-32", ""},
		{"yyyy-MM-dd", "2023-1-15", ""},
		{"yyyy-MM-dd HH:mm:ss", "2023-12-31 24:00:00", "2024-01-01 00:00:00.000000000"},
		{"yyyy-MM-dd HH:mm:ss", "2023-12-31 24:00:01", ""},
		{"yyyy-MM-dd HH:mm:ss", "2023-12-31 23:60:00", ""},
		{"HH:mm:ss", "24:00:00", "00:00:00.000000000"},
		{"yyyyMMdd", "20230115", "2023-01-15"},
		{"yyyyMMdd", "202301151", ""}, // adjacent parsing leaves 5 year digits: EXCEEDS_PAD fails
		{"yyyyMMddHHmmss", "20230115102030", "2023-01-15 10:20:30.000000000"},
		{"yyyy-M-d", "2023-1-5", "2023-01-05"},
		{"yyyy-M-d", "2023-12-25", "2023-12-25"},
		{"yy", "23", "year=2023"},
		{"yyMM", "2301", "year=2023 month=1"},
		{"yyyy", "20230", ""},
		{"yyyy", "0000", ""},
		{"yyyy", "+2023", ""},
		{"HH:mm", "10:20", "10:20:00.000000000"},
		{"HH", "10", "10:00:00.000000000"},
		{"yyyy-MM-dd HH", "2023-01-15 10", "2023-01-15 10:00:00.000000000"},
		{"yyyy-MM-dd HH:ss", "2023-01-15 10:30", "2023-01-15"}, // hour and second without minute: no time
		{"yyyy-MM-dd HH:mm:ss.SSS", "2023-01-15 10:20:30.123", "2023-01-15 10:20:30.123000000"},
		{"yyyy-MM-dd HH:mm:ss.SSS", "2023-01-15 10:20:30.12", ""},
		{"yyyy-MM-dd'T'HH:mm", "2023-01-15T10:20", "2023-01-15 10:20:00.000000000"},
		{"yyyy年MM月dd日", "2023年01月15日", "2023-01-15"},
		{"yyyy-MM", "2023-13", ""},
		{"yyyy-MM-dd yyyy", "2023-01-15 2023", "2023-01-15"},
		{"yyyy-MM-dd yyyy", "2023-01-15 2024", ""}, // conflicting fields
		{"MM", "1", ""},
		// Java parses these; we refuse years outside 1..9999 and month 13
		// (which Java only refuses later, when converting).
		{"y-M-d", "12023-1-5", ""},
		{"uuuu", "0000", ""},
		{"MM", "13", ""},
	} {
		p, err := compileJavaPattern(tc.pattern, false)
		require.NoError(t, err, tc.pattern)
		got, ok := p.parse(tc.text, false)
		if tc.want == "" {
			require.False(t, ok, "%s %s parsed as %s", tc.pattern, tc.text, algoTemporalText(got))
			continue
		}
		require.True(t, ok, "%s %s", tc.pattern, tc.text)
		require.Equal(t, tc.want, algoTemporalText(got), "%s %s", tc.pattern, tc.text)
	}
	// With a ParsePosition, trailing text is left unread.
	p, err := compileJavaPattern(autoIntervalPattern, false)
	require.NoError(t, err)
	got, ok := p.parse("2020-01-01 00:00:11.123 extra", true)
	require.True(t, ok)
	require.Equal(t, "2020-01-01 00:00:11.000000000", algoTemporalText(got))
}

// Expected output printed by OpenJDK 17's LocalDateTime.format.
func TestJavaPatternFormat(t *testing.T) {
	tm := time.Date(2020, 10, 11, 9, 5, 7, 123456789, time.UTC)
	for pattern, want := range map[string]string{
		"yyyyQQ":           "202004",
		"yyyyQ":            "20204",
		"yyMM":             "2010",
		"yyyyMMdd":         "20201011",
		"HHmm":             "0905",
		"yyyy-M-d H:m:s":   "2020-10-11 9:5:7",
		"SSS":              "123",
		"SSSSSSSSS":        "123456789",
		"S":                "1",
		"'t'yyyy''MM":      "t2020'10",
		"yyyyy":            "02020",
		"yyyy年MM月":         "2020年10月",
		"'it''s' yyyy":     "it's 2020",
		"uuuu-MM-dd HH'h'": "2020-10-11 09h",
	} {
		p, err := compileJavaPattern(pattern, true)
		require.NoError(t, err, pattern)
		tt, ok := temporalOfTime(tm)
		require.True(t, ok)
		require.Equal(t, want, string(p.format(nil, &tt)), pattern)
	}
	for _, tc := range []struct {
		pattern string
		year    int
		want    string
	}{{"yyyy", 5, "0005"}, {"yy", 1999, "99"}, {"yy", 2005, "05"}} {
		p, err := compileJavaPattern(tc.pattern, false)
		require.NoError(t, err)
		tt, _ := temporalOfTime(time.Date(tc.year, 1, 1, 0, 0, 0, 0, time.UTC))
		require.Equal(t, tc.want, string(p.format(nil, &tt)))
	}
}

func TestJavaPatternCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		quarter bool
		want    string
	}{
		{"EEE yyyy", false, `unsupported pattern letter E (supported: y u M L d H m s S, and Q in sharding-suffix-pattern) in "EEE yyyy"`},
		{"yyyy-MMM", false, `3 pattern letters M are not supported (1 or 2) in "yyyy-MMM"`},
		{"ddd", false, `3 pattern letters d are not supported (1 or 2) in "ddd"`},
		{"hh:mm a", false, `unsupported pattern letter h (supported: y u M L d H m s S, and Q in sharding-suffix-pattern) in "hh:mm a"`},
		{"yyyyQQ", false, `pattern letter Q (quarter) is only supported in sharding-suffix-pattern in "yyyyQQ"`},
		{"QQQ", true, `3 pattern letters Q are not supported (1 or 2) in "QQQ"`},
		{"SSSSSSSSSS", false, `too many pattern letters S in "SSSSSSSSSS"`},
		{"yyyyyyyyyyyyyyyyyyyy", false, `too many pattern letters y in "yyyyyyyyyyyyyyyyyyyy"`},
		{"yyyy-MM-dd'T", false, `"yyyy-MM-dd'T" ends with an incomplete 'quoted' literal`},
		{"yyyy[-MM]", false, `optional sections [...] are not supported in "yyyy[-MM]"`},
		{"yyyy#", false, `reserved character '#' in "yyyy#"`},
	} {
		_, err := compileJavaPattern(tc.pattern, tc.quarter)
		require.EqualError(t, err, tc.want)
	}
}

// ssInterval configures INTERVAL as ShardingSphere's
// IntervalShardingAlgorithmTest#createAlgorithm does.
func ssInterval(t testing.TB, pattern, lower, upper, suffix string, amount int, unit string, targets []string) StandardRouter {
	t.Helper()
	props := Props{"datetime-pattern": pattern, "datetime-lower": lower, "datetime-upper": upper,
		"sharding-suffix-pattern": suffix, "datetime-interval-amount": fmt.Sprint(amount)}
	if unit != "" {
		props["datetime-interval-unit"] = unit
	}
	return algoRouter(t, "INTERVAL", props, targets)
}

// algoFormatNames returns fmt.Sprintf(format, a, b) for a in as, b in bs.
func algoFormatNames(format string, as, bs []int) []string {
	var names []string
	for _, a := range as {
		for _, b := range bs {
			names = append(names, fmt.Sprintf(format, a, b))
		}
	}
	return names
}

func algoInts(from, to, step int) []int {
	var r []int
	for i := from; i <= to; i += step {
		r = append(r, i)
	}
	return r
}

// The cases of ShardingSphere's IntervalShardingAlgorithmTest, with its
// expected targets and sizes.
func TestIntervalShardingSphereCases(t *testing.T) {
	quarters := algoFormatNames("t_order_%04d%02d", algoInts(2016, 2020, 1), algoInts(1, 4, 1))
	months := algoFormatNames("t_order_%04d%02d", algoInts(2016, 2020, 1), algoInts(1, 12, 1))
	days := append(algoFormatNames("t_order_%04d06%02d", []int{2021}, algoInts(1, 30, 2)),
		algoFormatNames("t_order_%04d07%02d", []int{2021}, algoInts(1, 31, 2))...)
	byQuarter := ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2016-01-01 00:00:00", "2021-12-31 00:00:00", "yyyyQQ", 3, "Months", quarters)
	byMonth := ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2016-01-01 00:00:00", "2021-12-31 00:00:00", "yyyyMM", 1, "Months", months)
	byDay := ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2021-06-01 00:00:00", "2021-07-31 00:00:00", "yyyyMMdd", 2, "", days)

	t.Run("precise by quarter", func(t *testing.T) {
		require.Equal(t, "t_order_202001", algoPrecise(t, byQuarter, quarters, String("2020-01-01 00:00:01")))
		require.Equal(t, "t_order_202001", algoPrecise(t, byQuarter, quarters, String("2020-02-01 00:00:01")))
	})
	t.Run("range by quarter", func(t *testing.T) {
		for _, tc := range []struct {
			rg   Range
			size int
		}{
			{rgClosed(String("2019-10-15 10:59:08"), String("2020-04-08 10:59:08")), 3},
			{rgAtLeast(String("2018-10-15 10:59:08")), 9},
			{rgAtMost(String("2019-09-01 00:00:00")), 15},
		} {
			got, err := algoRange(t, byQuarter, quarters, tc.rg)
			require.NoError(t, err)
			require.Len(t, got, tc.size)
		}
	})
	t.Run("precise by month", func(t *testing.T) {
		require.Equal(t, "t_order_202001", algoPrecise(t, byMonth, months, String("2020-01-01 00:00:01")))
		_, err := byMonth.Precise(String("2030-01-01 00:00:01"))
		require.True(t, errors.Is(err, ErrNoTarget))
	})
	t.Run("range by month", func(t *testing.T) {
		got, err := algoRange(t, byMonth, months, rgClosed(String("2019-10-15 10:59:08"), String("2020-04-08 10:59:08")))
		require.NoError(t, err)
		require.Equal(t, []string{"t_order_201910", "t_order_201911", "t_order_201912", "t_order_202001", "t_order_202002", "t_order_202003", "t_order_202004"}, got)
	})
	t.Run("by day", func(t *testing.T) {
		got, err := algoRange(t, byDay, days, rgAtLeast(String("2021-01-01 00:00:00")))
		require.NoError(t, err)
		require.Len(t, got, 31)
		got, err = algoRange(t, byDay, days, rgAtMost(String("2021-07-31 01:00:00")))
		require.NoError(t, err)
		require.Len(t, got, 31)
		require.Equal(t, "t_order_20210701", algoPrecise(t, byDay, days, String("2021-07-01 00:00:01")))
		require.Equal(t, "t_order_20210701", algoPrecise(t, byDay, days, String("2021-07-02 00:00:01")))
	})
	t.Run("range by days in several value types", func(t *testing.T) {
		withMillis := ssInterval(t, "yyyy-MM-dd HH:mm:ss.SSS", "2021-06-01 00:00:00.000", "2021-07-31 00:00:00.000", "yyyyMMdd", 2, "DAYS", days)
		lower, upper := time.Date(2021, 6, 15, 2, 25, 27, 0, time.Local), time.Date(2021, 7, 31, 2, 25, 27, 0, time.Local)
		for _, tc := range []struct {
			name string
			r    StandardRouter
			rg   Range
		}{
			{"Timestamp", withMillis, rgClosed(Time(lower), Time(upper))},
			{"String shorter than the pattern", withMillis, rgClosed(String("2021-06-15 02:25:27"), String("2021-07-31 02:25:27"))},
			{"String, day algorithm", byDay, rgClosed(String("2021-06-15 02:25:27"), String("2021-07-31 02:25:27"))},
			{"LocalDate pattern", ssInterval(t, "yyyy-MM-dd", "2021-06-01", "2021-07-31", "yyyyMMdd", 2, "", days),
				rgClosed(String("2021-06-15"), String("2021-07-31"))},
			{"LocalDate pattern, Timestamp values", ssInterval(t, "yyyy-MM-dd", "2021-06-01", "2021-07-31", "yyyyMMdd", 2, "", days),
				rgClosed(Time(lower), Time(upper))},
		} {
			got, err := algoRange(t, tc.r, days, tc.rg)
			require.NoError(t, err, tc.name)
			require.Len(t, got, 24, tc.name)
		}
	})
	t.Run("range by hours", func(t *testing.T) {
		targets := algoFormatNames("t_order_%02d%02d", algoInts(2, 12, 1), []int{0})
		r := ssInterval(t, "HH:mm:ss.SSS", "02:00:00.000", "13:00:00.000", "HHmm", 2, "Hours", targets)
		got, err := algoRange(t, r, targets, rgClosed(String("02:25:27"), String("12:25:27")))
		require.NoError(t, err)
		require.Equal(t, []string{"t_order_0200", "t_order_0400", "t_order_0600", "t_order_0800", "t_order_1000", "t_order_1200"}, got)
		got, err = algoRange(t, r, targets, rgClosed(Time(time.Date(2000, 1, 1, 2, 25, 27, 0, time.UTC)), Time(time.Date(1999, 1, 1, 12, 25, 27, 0, time.UTC))))
		require.NoError(t, err)
		require.Len(t, got, 6)
	})
	t.Run("range by years", func(t *testing.T) {
		targets := algoFormatNames("t_order_%04d%.0d", algoInts(2000, 2022, 1), []int{0})
		r := ssInterval(t, "yyyy", "2000", "2022", "yyyy", 2, "Years", targets)
		got, err := algoRange(t, r, targets, rgClosed(String("2001"), Int(2013)))
		require.NoError(t, err)
		require.Equal(t, []string{"t_order_2000", "t_order_2002", "t_order_2004", "t_order_2006", "t_order_2008", "t_order_2010", "t_order_2012"}, got)
	})
	t.Run("range by years in year-month", func(t *testing.T) {
		targets := algoFormatNames("t_order_%04d%02d", algoInts(2016, 2021, 1), algoInts(1, 12, 1))
		r := ssInterval(t, "yyyy-MM", "2016-01", "2021-12", "yyyyMM", 2, "Years", targets)
		got, err := algoRange(t, r, targets, rgClosed(String("2016-01"), String("2020-01")))
		require.NoError(t, err)
		require.Equal(t, []string{"t_order_201601", "t_order_201801", "t_order_202001"}, got)
	})
	t.Run("range by months in Month", func(t *testing.T) {
		targets := algoFormatNames("t_order_%02d%.0d", algoInts(2, 12, 1), []int{0})
		r := ssInterval(t, "MM", "02", "12", "MM", 2, "Months", targets)
		for _, rg := range []Range{rgClosed(Int(4), Int(10)), rgClosed(String("04"), String("10"))} {
			got, err := algoRange(t, r, targets, rg)
			require.NoError(t, err)
			require.Equal(t, []string{"t_order_04", "t_order_06", "t_order_08", "t_order_10"}, got)
		}
	})
}

func TestIntervalPrecise(t *testing.T) {
	days := algoFormatNames("t_order_202107%02d%.0d", algoInts(1, 31, 1), []int{0})
	byDay := ssInterval(t, "yyyyMMdd", "20210701", "20210731", "yyyyMMdd", 1, "Days", days)
	for _, tc := range []struct {
		name string
		v    Value
		want string
	}{
		{"Long in the pattern's form", Long(20210705), "t_order_20210705"},
		{"Integer", Int(20210706), "t_order_20210706"},
		{"longer String: the first 8 characters", String("20210707 10:00"), "t_order_20210707"},
		{"Timestamp: its wall clock", Time(time.Date(2021, 7, 8, 23, 59, 0, 0, time.FixedZone("UTC-10", -10*3600))), "t_order_20210708"},
		{"SMART clamping", String("20210231"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				_, err := byDay.Precise(tc.v)
				require.EqualError(t, err, `INTERVAL on order_id: sharding value String "20210231" is outside the windows from datetime-lower to datetime-upper: no data node matches the sharding value`)
				return
			}
			require.Equal(t, tc.want, algoPrecise(t, byDay, days, tc.v))
		})
	}

	// Months clamp cumulatively, as LocalDateTime.plus(1, MONTHS) does:
	// 01-31, 02-28, 03-28, ... (OpenJDK 17).
	clamped := []string{"t_20230131", "t_20230228", "t_20230328", "t_20230428"}
	r := ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2023-01-31 00:00:00", "2023-04-30 00:00:00", "yyyyMMdd", 1, "months", clamped)
	require.Equal(t, "t_20230228", algoPrecise(t, r, clamped, String("2023-03-27 10:00:00")))
	require.Equal(t, "t_20230328", algoPrecise(t, r, clamped, String("2023-03-28 00:00:00")))

	// Millisecond windows with a fraction suffix.
	millis := []string{"t_000", "t_005", "t_010"}
	r = ssInterval(t, "yyyy-MM-dd HH:mm:ss.SSS", "2021-01-01 00:00:00.000", "2021-01-01 00:00:00.010", "SSS", 5, "Millis", millis)
	require.Equal(t, "t_005", algoPrecise(t, r, millis, String("2021-01-01 00:00:00.007")))
	require.Equal(t, "t_010", algoPrecise(t, r, millis, Time(time.Date(2021, 1, 1, 0, 0, 0, 14999999, time.UTC))))

	// HalfDays is a ChronoUnit display name.
	halves := []string{"t_00", "t_12"}
	r = ssInterval(t, "yyyy-MM-dd HH", "2021-01-01 00", "2021-01-01 23", "HH", 1, "HALFDAYS", halves)
	require.Equal(t, "t_12", algoPrecise(t, r, halves, String("2021-01-01 13")))

	// A String shorter than a LocalDate pattern is parsed with the cut
	// pattern; longer ones are cut to the pattern's length.
	r = ssInterval(t, "yyyy-MM-dd", "2021-07-01", "2021-07-31", "yyyyMMdd", 1, "", days)
	require.Equal(t, "t_order_20210709", algoPrecise(t, r, days, String("2021-07-09 10:00:00")))

	// Quoted literals make the pattern (18 characters) longer than the text
	// it formats (16): ShardingSphere then parses "2021-07-10T10:20" with the
	// cut pattern "yyyy-MM-dd'T'HH:", which leaves "20" unread, and a longer
	// text is cut to "2021-07-10T10:20:0". Such a pattern routes no value.
	r = ssInterval(t, "yyyy-MM-dd'T'HH:mm", "2021-07-01T00:00", "2021-07-31T00:00", "yyyyMMdd", 1, "", days)
	_, err := r.Precise(Time(time.Date(2021, 7, 10, 10, 20, 0, 0, time.UTC)))
	require.EqualError(t, err, `INTERVAL on order_id: sharding value Time 2021-07-10 10:20:00.0 does not match datetime-pattern "yyyy-MM-dd'T'HH:mm"`)
	_, err = r.Precise(String("2021-07-10T10:20:00"))
	require.EqualError(t, err, `INTERVAL on order_id: sharding value String "2021-07-10T10:20:00" does not match datetime-pattern "yyyy-MM-dd'T'HH:mm"`)
}

// When several targets end with the suffix, a precise value gets the one
// java.util.HashSet iterates first, whatever the target order: for suffix
// "1" over t_1..t_31 OpenJDK 17 iterates [t_1, t_21, t_11, t_31].
func TestIntervalPreciseFirstInJavaHashSet(t *testing.T) {
	reversed := algoNames("t_", 1, 31)
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	r := ssInterval(t, "yyyy-MM-dd", "2021-01-01", "2021-01-31", "d", 1, "Days", reversed)
	require.Equal(t, "t_1", algoPrecise(t, r, reversed, String("2021-01-01")))
	require.Equal(t, "t_10", algoPrecise(t, r, reversed, String("2021-01-10")))
	require.Equal(t, "t_21", algoPrecise(t, r, reversed, String("2021-01-21")))
	got, err := algoRange(t, r, reversed, rgClosed(String("2021-01-01"), String("2021-01-02")))
	require.NoError(t, err)
	require.Equal(t, []string{"t_31", "t_22", "t_21", "t_12", "t_11", "t_2", "t_1"}, got)
}

func TestIntervalRangeBounds(t *testing.T) {
	days := algoFormatNames("t_202106%02d%.0d", algoInts(1, 10, 1), []int{0})
	r := ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2021-06-01 00:00:00", "2021-06-10 00:00:00", "yyyyMMdd", 1, "", days)
	for _, tc := range []struct {
		name string
		rg   Range
		want []string
	}{
		{"open: (06-02 00:00, 06-04 00:00)", rgOpen(String("2021-06-02 00:00:00"), String("2021-06-04 00:00:00")), []string{"t_20210602", "t_20210603"}},
		{"closed: [06-02 00:00, 06-04 00:00]", rgClosed(String("2021-06-02 00:00:00"), String("2021-06-04 00:00:00")), []string{"t_20210602", "t_20210603", "t_20210604"}},
		// (06-10, datetime-upper 06-10] is a valid, empty Guava range.
		{"greater than the last window start", rgGreater(String("2021-06-10 00:00:00")), nil},
		{"at least the last window start", rgAtLeast(String("2021-06-10 00:00:00")), []string{"t_20210610"}},
		{"a point at a window start", rgClosed(String("2021-06-03 00:00:00"), String("2021-06-03 00:00:00")), []string{"t_20210603"}},
		{"empty [a, a)", Range{Lower: String("2021-06-03 00:00:00"), Upper: String("2021-06-03 00:00:00"), HasLower: true, HasUpper: true, UpperOpen: true}, nil},
		{"beyond datetime-upper", rgClosed(String("2022-01-01 00:00:00"), String("2022-02-01 00:00:00")), nil},
		{"unbounded", Range{}, days},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := algoRange(t, r, days, tc.rg)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestIntervalErrors(t *testing.T) {
	days := algoFormatNames("t_202106%02d%.0d", algoInts(1, 9, 1), []int{0})
	r := ssInterval(t, "yyyy-MM-dd HH:mm:ss", "2021-06-01 00:00:00", "2021-06-10 00:00:00", "yyyyMMdd", 1, "", days)
	for _, tc := range []struct {
		v    Value
		want string
		is   error
	}{
		{Null, "INTERVAL on order_id: sharding value must not be NULL", ErrNullShardingValue},
		{String("2021-06-10 12:00:00"), `INTERVAL on order_id: sharding value String "2021-06-10 12:00:00" routes to suffix "20210610", which no target ends with: no data node matches the sharding value`, ErrNoTarget},
		{String("2021-05-31 23:59:59"), `INTERVAL on order_id: sharding value String "2021-05-31 23:59:59" is outside the windows from datetime-lower to datetime-upper: no data node matches the sharding value`, ErrNoTarget},
		{String("2021-06-11 00:00:00"), `INTERVAL on order_id: sharding value String "2021-06-11 00:00:00" is outside the windows from datetime-lower to datetime-upper: no data node matches the sharding value`, ErrNoTarget},
		// Shorter than the pattern: the cut pattern "yyyy-MM-dd" has no time.
		{String("2021-06-05"), `INTERVAL on order_id: sharding value String "2021-06-05" does not match datetime-pattern "yyyy-MM-dd HH:mm:ss"`, nil},
		{String("2021/06/05 00:00:00"), `INTERVAL on order_id: sharding value String "2021/06/05 00:00:00" does not match datetime-pattern "yyyy-MM-dd HH:mm:ss"`, nil},
		{Long(20210605), `INTERVAL on order_id: sharding value Long 20210605 does not match datetime-pattern "yyyy-MM-dd HH:mm:ss"`, nil},
		{Time(time.Date(0, 6, 5, 0, 0, 0, 0, time.UTC)), `INTERVAL on order_id: sharding value Time 0000-06-05 00:00:00.0 has a year outside 1..9999`, nil},
	} {
		_, err := r.Precise(tc.v)
		require.EqualError(t, err, tc.want)
		if tc.is != nil {
			require.True(t, errors.Is(err, tc.is))
		}
	}
	for _, tc := range []struct {
		rg   Range
		want string
	}{
		// A missing lower bound is datetime-lower, after this upper bound:
		// Guava's Range.range throws in ShardingSphere.
		{rgLess(String("2021-05-01 00:00:00")),
			"INTERVAL on order_id: invalid range [2021-06-01T00:00:00.000000000..2021-05-01T00:00:00.000000000); a missing bound stands for datetime-lower or datetime-upper, and ShardingSphere fails such a range"},
		{rgOpen(String("2021-06-03 00:00:00"), String("2021-06-03 00:00:00")),
			"INTERVAL on order_id: invalid range (2021-06-03T00:00:00.000000000..2021-06-03T00:00:00.000000000); a missing bound stands for datetime-lower or datetime-upper, and ShardingSphere fails such a range"},
		{rgClosed(String("2021-06-03 00:00:00"), Null), "INTERVAL on order_id: sharding value must not be NULL"},
		{rgAtLeast(String("x")), `INTERVAL on order_id: sharding value String "x" does not match datetime-pattern "yyyy-MM-dd HH:mm:ss"`},
	} {
		_, err := r.Range(nil, tc.rg)
		require.EqualError(t, err, tc.want)
	}
	// A cut pattern that is not a pattern (inside a quote) fails the value.
	quoted := ssInterval(t, "yyyy-MM-dd'T'HH", "2021-06-01T00", "2021-06-10T00", "yyyyMMdd", 1, "", days)
	_, err := quoted.Precise(String("2021-06-05T1"))
	require.EqualError(t, err, `INTERVAL on order_id: sharding value String "2021-06-05T1" does not match datetime-pattern "yyyy-MM-dd'T'HH"`)
}

func TestIntervalMonthAndTimeQuirks(t *testing.T) {
	months := algoFormatNames("t_%02d%.0d", algoInts(1, 12, 1), []int{0})
	// Month windows stop once cursor+step would pass December, so with a
	// step of one December has no window (MonthTemporalHandler#isAfter).
	a, err := NewAlgorithm("INTERVAL", Props{"datetime-pattern": "MM", "datetime-lower": "01", "datetime-upper": "12", "sharding-suffix-pattern": "MM", "datetime-interval-unit": "Months"})
	require.NoError(t, err)
	require.Equal(t, 11, a.(*IntervalAlgorithm).Windows())
	r, err := a.(StandardAlgorithm).BindStandard("order_id", months)
	require.NoError(t, err)
	require.Equal(t, "t_11", algoPrecise(t, r, months, String("11")))
	require.Equal(t, "t_03", algoPrecise(t, r, months, String("3"))) // Integer.parseInt of the text
	_, err = r.Precise(String("12"))
	require.True(t, errors.Is(err, ErrNoTarget))
	_, err = r.Precise(String("13"))
	require.EqualError(t, err, `INTERVAL on order_id: sharding value String "13" does not match datetime-pattern "MM"`)
	require.Equal(t, "t_05", algoPrecise(t, r, months, Time(time.Date(2021, 5, 17, 0, 0, 0, 0, time.UTC))))

	// A LocalTime window past midnight fails every query in ShardingSphere.
	_, err = NewAlgorithm("INTERVAL", Props{"datetime-pattern": "HH:mm", "datetime-lower": "00:00", "datetime-upper": "23:30", "sharding-suffix-pattern": "HH", "datetime-interval-unit": "Hours"})
	require.EqualError(t, err, `property "datetime-interval-amount" window from 23:00:00.000000000 wraps past midnight (1 Hours); ShardingSphere fails every query on it`)
	// Java's int overflow in MonthTemporalHandler#isAfter lets a huge step
	// through; the window it makes ends before it starts.
	_, err = NewAlgorithm("INTERVAL", Props{"datetime-pattern": "MM", "datetime-lower": "01", "datetime-upper": "12", "sharding-suffix-pattern": "MM", "datetime-interval-amount": "2147483647"})
	require.EqualError(t, err, `property "datetime-interval-amount" window from August wraps past December (2147483647 Days); ShardingSphere fails every query on it`)
	_, err = NewAlgorithm("INTERVAL", Props{"datetime-pattern": "HH:mm", "datetime-lower": "00:00", "datetime-upper": "23:30", "sharding-suffix-pattern": "HH", "datetime-interval-unit": "Hours", "datetime-interval-amount": "24"})
	require.EqualError(t, err, `property "datetime-interval-amount" 24 Hours does not advance a LocalTime`)
}

func TestIntervalDefaultUpperIsNow(t *testing.T) {
	props := Props{"datetime-pattern": "yyyy-MM-dd HH:mm:ss", "datetime-lower": "2021-01-01 00:00:00", "sharding-suffix-pattern": "yyyyMMdd"}
	a, err := newIntervalAlgorithmAt(props, time.Date(2021, 1, 10, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	require.Equal(t, 10, a.(*IntervalAlgorithm).Windows())
	a, err = newIntervalAlgorithmAt(Props{"datetime-pattern": "yyyy", "datetime-lower": "2020", "sharding-suffix-pattern": "yyyy", "datetime-interval-unit": "years"},
		time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	require.Equal(t, 4, a.(*IntervalAlgorithm).Windows())
	_, err = newIntervalAlgorithmAt(props, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
	require.EqualError(t, err, `property "datetime-upper" defaults to now, whose year is outside 1..9999`)
	// Real clock: later than 2021-01-01.
	a, err = NewAlgorithm("INTERVAL", props)
	require.NoError(t, err)
	require.Greater(t, a.(*IntervalAlgorithm).Windows(), 1000)
}

func TestIntervalProps(t *testing.T) {
	base := func(kv ...string) Props {
		p := Props{"datetime-pattern": "yyyy-MM-dd HH:mm:ss", "datetime-lower": "2021-01-01 00:00:00", "datetime-upper": "2021-12-31 00:00:00", "sharding-suffix-pattern": "yyyyMM"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "<unset>" {
				delete(p, kv[i])
				continue
			}
			p[kv[i]] = kv[i+1]
		}
		return p
	}
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{base("datetime-pattern", "<unset>"), `property "datetime-pattern" is required`},
		{base("datetime-pattern", "EEE"), `property "datetime-pattern" unsupported pattern letter E (supported: y u M L d H m s S, and Q in sharding-suffix-pattern) in "EEE"`},
		{base("datetime-lower", "<unset>"), `property "datetime-lower" is required`},
		// ShardingSphere's assertInitFailedWithInvalidDatetimeFormat.
		{base("datetime-pattern", "yyyy", "datetime-lower", "invalid"), `property "datetime-lower" must match datetime-pattern "yyyy", got "invalid"`},
		{base("datetime-upper", "2021/12/31"), `property "datetime-upper" must match datetime-pattern "yyyy-MM-dd HH:mm:ss", got "2021/12/31"`},
		{base("datetime-pattern", "mm:ss", "datetime-lower", "10:20"), `property "datetime-pattern" "mm:ss" gives neither a date, a year, a month nor a time of day`},
		{base("sharding-suffix-pattern", "<unset>"), `property "sharding-suffix-pattern" is required`},
		{base("sharding-suffix-pattern", "yyyyMMM"), `property "sharding-suffix-pattern" 3 pattern letters M are not supported (1 or 2) in "yyyyMMM"`},
		{base("datetime-pattern", "yyyy-MM", "datetime-lower", "2021-01", "datetime-upper", "2021-12", "sharding-suffix-pattern", "yyyyMMdd", "datetime-interval-unit", "Months"),
			`property "sharding-suffix-pattern" "yyyyMMdd" needs day-of-month, which a YearMonth window start (from datetime-pattern "yyyy-MM") does not have`},
		{base("datetime-pattern", "HH:mm", "datetime-lower", "01:00", "datetime-upper", "05:00", "sharding-suffix-pattern", "yyyyHH", "datetime-interval-unit", "Hours"),
			`property "sharding-suffix-pattern" "yyyyHH" needs year-of-era, which a LocalTime window start (from datetime-pattern "HH:mm") does not have`},
		{base("datetime-interval-amount", "0"), `property "datetime-interval-amount" must be a positive integer, got 0`},
		{base("datetime-interval-amount", "x"), `property "datetime-interval-amount" must be an integer, got "x"`},
		// ShardingSphere's assertInitFailedWithInvalidStepUnit; HALF_DAYS is
		// not a ChronoUnit display name.
		{base("datetime-interval-unit", "invalid"), `property "datetime-interval-unit" must be a ChronoUnit name (Nanos, Micros, Millis, Seconds, Minutes, Hours, HalfDays, Days, Weeks, Months, Years, Decades, Centuries, Millennia, Eras, Forever; case-insensitive), got "invalid"`},
		{base("datetime-interval-unit", "HALF_DAYS"), `property "datetime-interval-unit" must be a ChronoUnit name (Nanos, Micros, Millis, Seconds, Minutes, Hours, HalfDays, Days, Weeks, Months, Years, Decades, Centuries, Millennia, Eras, Forever; case-insensitive), got "HALF_DAYS"`},
		{base("datetime-pattern", "yyyy-MM-dd", "datetime-lower", "2021-01-01", "datetime-upper", "2021-12-31", "datetime-interval-unit", "Hours"),
			`property "datetime-interval-unit" Hours cannot step a LocalDate (datetime-pattern "yyyy-MM-dd")`},
		{base("datetime-interval-unit", "Eras"), `property "datetime-interval-unit" Eras cannot step a LocalDateTime (datetime-pattern "yyyy-MM-dd HH:mm:ss")`},
		{base("datetime-pattern", "yyyy", "datetime-lower", "2020", "datetime-upper", "2021", "sharding-suffix-pattern", "yyyy"),
			`property "datetime-interval-unit" Days cannot step a Year (datetime-pattern "yyyy")`},
		{base("datetime-lower", "2000-01-01 00:00:00", "datetime-upper", "2030-01-01 00:00:00", "datetime-interval-unit", "Seconds"),
			`property "datetime-interval-amount" gives more than 1048576 windows between datetime-lower and datetime-upper`},
		{base("datetime-interval-amount", "2147483647", "datetime-interval-unit", "Millennia"),
			`property "datetime-interval-amount" 2147483647 Millennia from 2021-01-01T00:00:00.000000000 overflows`},
	} {
		_, err := NewAlgorithm("INTERVAL", tc.props)
		require.EqualError(t, err, tc.want)
	}
	// Lower after upper: no windows, every value is unroutable, ranges route nowhere.
	a, err := NewAlgorithm("INTERVAL", base("datetime-lower", "2022-01-01 00:00:00"))
	require.NoError(t, err)
	require.Equal(t, "INTERVAL", a.Type())
	require.Equal(t, 0, a.(*IntervalAlgorithm).Windows())
	r, err := a.(StandardAlgorithm).BindStandard("order_id", []string{"t_202201"})
	require.NoError(t, err)
	_, err = r.Precise(String("2022-01-01 00:00:00"))
	require.EqualError(t, err, `INTERVAL on order_id: there is no window from datetime-lower to datetime-upper to hold sharding value String "2022-01-01 00:00:00": no data node matches the sharding value`)
	got, err := r.Range(nil, Range{})
	require.NoError(t, err)
	require.Empty(t, got)
}

// Any text either parses or fails cleanly, and a full date-time pattern
// reads back what it printed; seeded with the parse table's texts.
func FuzzJavaPatternParse(f *testing.F) {
	f.Add("yyyy-MM-dd HH:mm:ss", "2023-01-15 10:20:30")
	f.Add("yyyyMMddHHmmssSSS", "20230115102030123")
	f.Add("yy-M-d H:m:s", "23-1-5 9:5:7")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		p, err := compileJavaPattern(pattern, true)
		if err != nil {
			return
		}
		got, ok := p.parse(text, false)
		if !ok || !got.hasDate || !got.hasTime || !p.fields.has(jfSecond) || p.fields.has(jfQuarter) {
			return
		}
		// Printing the parsed value and parsing it again is stable.
		again, ok := p.parse(string(p.format(nil, &got)), false)
		require.True(t, ok, "%q: %q", pattern, text)
		require.Equal(t, got, again)
	})
}
