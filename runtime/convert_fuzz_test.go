package runtime

import (
	"math"
	"testing"
	"time"
)

// FuzzColumnClassEqual checks, for any string or decimal text, that an
// integer column's conversion never panics and that a Converted value is an
// integer whose own conversion is itself (seeds: TestColumnClassEqualInteger).
func FuzzColumnClassEqual(f *testing.F) {
	for _, s := range []string{"5", " 5abc", "5.5", "1e400", "9007199254740993", "-0", ".5e1", "5e", "", "0x10", "1e-400", "+", "-.e5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []Value{String(s), Decimal(s)} {
			for _, c := range []ColumnClass{ClassInteger, ClassIntegerText, ClassDate, ClassDateTime, ClassAsIs} {
				out, conv := c.Equal(v)
				c.Bound(v, true)
				c.Bound(v, false)
				c.Stored(v)
				if conv != Converted || c != ClassInteger {
					continue
				}
				switch out.Kind {
				case KindInt, KindLong, KindBigInteger:
				default:
					t.Fatalf("%v.Equal(%#v) = %#v: not an integer", c, v, out)
				}
				if again, conv := c.Equal(out); conv != Converted || again != out {
					t.Fatalf("%v.Equal(%#v) = %#v, not itself", c, out, again)
				}
			}
		}
	})
}

// FuzzParseDateTime checks that a date ParseDateTime reads prints back as
// MySQL's canonical text, which it reads as the same time.
func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2026-02-01", "20260201", "2026-2-1 0:0:0", "26-02-01", "2026-02-01T10:20:30.5", "2026-02-30", "0000-00-00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDateTime(s)
		if !ok {
			return
		}
		canonical := got.Format("2006-01-02 15:04:05.000000")
		again, ok := ParseDateTime(canonical)
		if !ok || !again.Equal(got) || got.Location() != time.UTC {
			t.Fatalf("ParseDateTime(%q) = %v; its canonical text %q reads as %v, %v", s, got, canonical, again, ok)
		}
		if y := got.Year(); y < 1 || y > 9999 || math.Abs(float64(got.Nanosecond()%1000)) != 0 {
			t.Fatalf("ParseDateTime(%q) = %v: out of MySQL's range or finer than microseconds", s, got)
		}
	})
}
