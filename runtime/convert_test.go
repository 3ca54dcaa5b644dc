package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The expectations follow MariaDB 10.11's answers (internal/difftest's
// value corpus runs the same values against the reference server).
func TestColumnClassEqualInteger(t *testing.T) {
	long := func(n int64) Value { return IntegerLiteral(itoa(n)) }
	for _, c := range []struct {
		in   Value
		want Value
		conv Conversion
	}{
		{Decimal("5.0"), long(5), Converted},
		{Decimal("-0.0"), long(0), Converted},
		{Decimal("5.5"), Value{}, NoRow},
		{Decimal("9223372036854775808.00"), BigInteger("9223372036854775808"), Converted},
		{Decimal("1e0"), long(1), Converted},
		{Decimal("5.5e0"), Value{}, NoRow},
		{Decimal("9007199254740993e0"), Value{}, EveryTarget},
		{Decimal("1e400"), Value{}, EveryTarget},
		{String("5"), long(5), Converted},
		{String(" 5 "), long(5), Converted},
		{String("\t5"), long(5), Converted},
		{String("+5"), long(5), Converted},
		{String("5abc"), long(5), Converted},
		{String("abc"), long(0), Converted},
		{String(""), long(0), Converted},
		{String("0x10"), long(0), Converted},
		{String("1e1"), long(10), Converted},
		{String(".5e1"), long(5), Converted},
		{String("5e"), long(5), Converted},
		{String("5."), long(5), Converted},
		{String("-0"), long(0), Converted},
		{String("5.5"), Value{}, NoRow},
		{String("5.0000000000000000001"), Value{}, EveryTarget},
		{String("9007199254740993"), Value{}, EveryTarget},
		{Value{Kind: KindHexNumber, Str: "\x05"}, long(5), Converted},
		{Long(-7), Long(-7), Converted},
		{Null, Null, Converted},
		{Time(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)), Value{}, EveryTarget},
	} {
		got, conv := ClassInteger.Equal(c.in)
		require.Equal(t, c.conv, conv, "%#v", c.in)
		require.Equal(t, c.want, got, "%#v", c.in)
	}
}

func TestColumnClassIntegerText(t *testing.T) {
	got, conv := ClassIntegerText.Equal(String("-12"))
	require.Equal(t, Converted, conv)
	require.Equal(t, IntegerLiteral("-12"), got)
	for _, s := range []string{"012", "+12", "12 ", "-0", "1e1", ""} {
		_, conv := ClassIntegerText.Equal(String(s))
		require.Equal(t, EveryTarget, conv, s)
	}
	got, conv = ClassIntegerText.Equal(Decimal("12.0000000000000000001")) // a double: 12
	require.Equal(t, Converted, conv)
	require.Equal(t, IntegerLiteral("12"), got)
	_, conv = ClassIntegerText.Equal(Decimal("12.5"))
	require.Equal(t, NoRow, conv)
	_, conv = ClassIntegerText.Equal(Decimal("9007199254740992.49"))
	require.Equal(t, EveryTarget, conv)
}

func TestColumnClassBound(t *testing.T) {
	for _, c := range []struct {
		in     Value
		lower  bool
		want   Value
		closed bool
		conv   Conversion
	}{
		{Decimal("5.5"), true, IntegerLiteral("6"), true, Converted},
		{Decimal("5.5"), false, IntegerLiteral("5"), true, Converted},
		{Decimal("-5.5"), true, IntegerLiteral("-5"), true, Converted},
		{Decimal("-5.5"), false, IntegerLiteral("-6"), true, Converted},
		{String("6.5"), false, IntegerLiteral("6"), true, Converted},
		{Decimal("7.0"), false, IntegerLiteral("7"), false, Converted},
		{String("9007199254740993"), true, Value{}, false, EveryTarget},
		{Long(3), true, Long(3), false, Converted},
	} {
		got, closed, conv := ClassInteger.Bound(c.in, c.lower)
		require.Equal(t, c.conv, conv, "%#v", c.in)
		require.Equal(t, c.want, got, "%#v", c.in)
		require.Equal(t, c.closed, closed, "%#v", c.in)
	}
	day := Time(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	got, closed, conv := ClassDate.Bound(String("2026-02-01 10:00:00"), false)
	require.Equal(t, Converted, conv)
	require.Equal(t, day, got)
	require.True(t, closed)
}

func TestColumnClassStored(t *testing.T) {
	for in, want := range map[Value]Value{
		Decimal("5.5"):                     IntegerLiteral("6"),
		Decimal("-6.5"):                    IntegerLiteral("-7"),
		Decimal("2.5e0"):                   IntegerLiteral("2"),
		Decimal("3.5e0"):                   IntegerLiteral("4"),
		Decimal("0.5e0"):                   IntegerLiteral("0"),
		String("6.5"):                      IntegerLiteral("7"),
		String("2.5e0"):                    IntegerLiteral("3"),
		String("-2.5"):                     IntegerLiteral("-3"),
		String(" 17"):                      IntegerLiteral("17"),
		String("18 "):                      IntegerLiteral("18"),
		String(".5e2"):                     IntegerLiteral("50"),
		String("+21"):                      IntegerLiteral("21"),
		String("-0"):                       IntegerLiteral("0"),
		String("1e18"):                     IntegerLiteral("1000000000000000000"),
		String("9007199254740993"):         IntegerLiteral("9007199254740993"),
		{Kind: KindHexNumber, Str: "\x0c"}: IntegerLiteral("12"),
	} {
		got, err := ClassInteger.Stored(in)
		require.NoError(t, err, "%#v", in)
		require.Equal(t, want, got, "%#v", in)
	}
	for _, in := range []Value{String("+-5"), String("13abc"), String(""), String("0x10"), String("5e"), String("1e400"), String("9007199254740995.5")} {
		_, err := ClassInteger.Stored(in)
		require.Error(t, err, "%#v", in)
	}
	_, err := ClassInteger.Stored(String("13abc"))
	require.EqualError(t, err, `String "13abc" is not a number MySQL stores in an integer column`)
}

func TestParseDateTime(t *testing.T) {
	day := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	at := time.Date(2026, 2, 1, 10, 20, 30, 0, time.UTC)
	for s, want := range map[string]time.Time{
		"2026-02-01": day, "20260201": day, "2026-2-1 0:0:0": day, "2026/02/01": day,
		"26-02-01": day, "260201": day, "2026-02-01T00:00:00": day, "2026.02.01": day,
		" 2026-02-01 ": day, "2026@02@01": day,
		"20260201102030": at, "2026-02-01 10.20.30": at, "2026-2-1 10:20:30": at, "260201102030": at,
		"2026-02-01 10:20:30.5": at.Add(500 * time.Millisecond),
		"20260201102030.000001": at.Add(time.Microsecond),
		"1999-12-31":            time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC),
		"99-12-31":              time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC),
	} {
		got, ok := ParseDateTime(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "2026-02-30", "0000-00-00", "2026-02-01x", "2026-02-01 10:20", "2026-02-01 10",
		"2026--02-01", "2026-02-01 10:20:30.1234567", "202602", "2026-02-01\t", "abc", "2026-13-01", "2026-02-01 24:00:00"} {
		_, ok := ParseDateTime(s)
		require.False(t, ok, s)
	}
}

func itoa(n int64) string { return Long(n).Text() }
