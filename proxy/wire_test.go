package proxy

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFormatDouble checks MySQL's text of DOUBLE and FLOAT values; every
// expected text was read from MariaDB 10.11 (a DOUBLE / FLOAT column).
func TestFormatDouble(t *testing.T) {
	doubles := []struct {
		f    float64
		want string
	}{
		{15000000000, "15000000000"}, {1e14, "100000000000000"}, {1e15, "1e15"}, {-1e15, "-1e15"}, {1e16, "1e16"},
		{123456789012345678, "1.2345678901234568e17"}, {0.30000000000000004, "0.30000000000000004"}, {0.0001, "0.0001"},
		{0.00001, "0.00001"}, {123.456, "123.456"}, {math.MaxFloat64, "1.7976931348623157e308"},
		{12345678901234567890, "1.2345678901234567e19"}, {-0.000123456789, "-0.000123456789"}, {5e-324, "5e-324"},
		{1e20, "1e20"}, {1e21, "1e21"}, {0.000001, "0.000001"}, {123456789.123456789, "123456789.12345679"},
		{1.5e-7, "0.00000015"}, {1.25e-10, "0.000000000125"}, {0.000000123456789012, "0.000000123456789012"},
		{1234567890123456, "1.234567890123456e15"}, {123456789012345.6, "123456789012345.6"},
		{12345678901234.56, "12345678901234.56"}, {1.0000000000000002, "1.0000000000000002"},
		{99999999999999.9, "99999999999999.9"}, {999999999999999, "999999999999999"}, {1e100, "1e100"},
		{1.5e300, "1.5e300"}, {2.5e-5, "0.000025"}, {1.0 / 3, "0.3333333333333333"}, {1e-14, "0.00000000000001"},
		{1e-15, "0.000000000000001"}, {1e-16, "1e-16"}, {1e-20, "1e-20"}, {1.2345e-15, "0.0000000000000012345"},
		{0.12345678901234567, "0.12345678901234566"}, {0.000012345678901234567, "0.000012345678901234568"},
		{0, "0"}, {-2.5, "-2.5"},
	}
	for _, d := range doubles {
		require.Equal(t, d.want, string(formatDouble(d.f, notFixedDec, false)), "%v", d.f)
	}
	floats := []struct {
		f    float32
		want string
	}{
		{1.1, "1.1"}, {1e14, "100000000000000"}, {1e15, "1e15"}, {123456789, "123457000"}, {1234567, "1234570"},
		{0.1, "0.1"}, {0.0001, "0.0001"}, {0.00001, "0.00001"}, {3.4e38, "3.4e38"}, {-1.5e-7, "-0.00000015"},
		{16777216, "16777200"}, {0, "0"}, {1e-45, "1.4013e-45"}, {1234567.5, "1234570"}, {12345.678, "12345.7"},
		{0.001234567, "0.00123457"},
	}
	for _, f := range floats {
		require.Equal(t, f.want, string(formatDouble(float64(f.f), notFixedDec, true)), "%v", f.f)
	}
	require.Equal(t, "1.50", string(formatDouble(1.5, 2, false)))
}

func TestInterpolate(t *testing.T) {
	ts := time.Date(2024, 2, 29, 13, 4, 5, 123456000, time.UTC)
	tests := []struct {
		sql  string
		args []any
		want string
		err  string
	}{
		{"select ? from t where a = ? and b = '?' and `c?` = \"?\" -- ?\n and d in (?, ?) /* ? */ # ?", []any{int64(-1), "o'hara", nil, uint64(1 << 63)},
			"select -1 from t where a = 'o''hara' and b = '?' and `c?` = \"?\" -- ?\n and d in (NULL, 9223372036854775808) /* ? */ # ?", ""},
		{"select ?, ?, ?, ?", []any{`a\b`, []byte{0, 1}, ts, 1.5e10}, `select X'615c62', X'0001', '2024-02-29 13:04:05.123456', 1.5e+10`, ""},
		{"select 'it\\'s ?', ?", []any{"é"}, `select 'it\'s ?', 'é'`, ""},
		{"select ?", nil, "select ?", ""},
		{"select ?", []any{int64(1), int64(2)}, "", "the statement has 1 placeholders but 2 arguments"},
		{"select ?, ?", []any{int64(1)}, "", "the statement has more placeholders than arguments (1)"},
		{"select ?", []any{math.NaN()}, "", "a NaN or infinite floating-point parameter cannot be sent to MySQL"},
		{"select ?", []any{struct{}{}}, "", "unsupported parameter type unsupported"},
	}
	for _, tt := range tests {
		got, err := interpolate(tt.sql, tt.args)
		if tt.err != "" {
			require.EqualError(t, err, tt.err, tt.sql)
			continue
		}
		require.NoError(t, err, tt.sql)
		require.Equal(t, tt.want, got)
	}
}
