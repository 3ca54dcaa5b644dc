package runtime

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzMergeDecimal checks the allocation-free decimal comparison, the
// group key and the exact accumulator against math/big on any pair of
// decimal texts.
func FuzzMergeDecimal(f *testing.F) {
	for _, s := range [][2]string{
		{"1.50", "1.5"}, {"-0.00", "0"}, {"+3", "3.0"}, {"10", "9.99"}, {"0.5", "0.51"}, {"-10", "-9.99"},
		{".5", "0.5"}, {"99999999999999999999999", "9223372036854775807"}, {"0.000000000000000000001", "-1"},
		{"92233720368547758.07", "0.001"}, {"00012.500", "-0.5"},
	} {
		f.Add(s[0], s[1])
	}
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(strings.TrimPrefix(s, "+"))
		if !ok {
			panic("big.Rat refuses " + s)
		}
		return r
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !validDecimal([]byte(a)) || !validDecimal([]byte(b)) || len(a) > 80 || len(b) > 80 {
			return
		}
		want := rat(a).Cmp(rat(b))
		require.Equal(t, want, compareDecimal([]byte(a), []byte(b)), "%q vs %q", a, b)
		ka := appendDecimalKey(nil, []byte(a))
		kb := appendDecimalKey(nil, []byte(b))
		require.Equal(t, want == 0, string(ka) == string(kb), "keys of %q and %q", a, b)

		var d decimalSum
		d.addText([]byte(a))
		d.addText([]byte(b))
		sum := new(big.Rat).Add(rat(a), rat(b))
		got := string(d.appendText(nil))
		require.Zero(t, sum.Cmp(rat(got)), "%q + %q gave %q", a, b, got)

		// AVG of the two at scale 4, HALF_UP.
		n := decimalSum{small: 2}
		avg := d.divide(&n, 4).String()
		exact := new(big.Rat).Quo(sum, big.NewRat(2, 1))
		scaled := new(big.Rat).Mul(exact, big.NewRat(10000, 1))
		q, r := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
		if new(big.Int).Lsh(new(big.Int).Abs(r), 1).Cmp(scaled.Denom()) >= 0 {
			q.Add(q, big.NewInt(int64(scaled.Num().Sign())))
		}
		require.Zero(t, new(big.Rat).SetFrac(q, big.NewInt(10000)).Cmp(rat(avg)), "AVG(%q, %q) gave %q", a, b, avg)
		require.Equal(t, 4, len(avg)-strings.IndexByte(avg, '.')-1, "scale of %q", avg)
	})
}

// FuzzMergeCollation checks, for any two byte strings (valid UTF-8 or
// not) and every collation, that Compare does not panic, is
// antisymmetric, and agrees with the group key on equality.
func FuzzMergeCollation(f *testing.F) {
	for i := range collationCorpus {
		f.Add(collationCorpus[i], collationCorpus[(i+1)%len(collationCorpus)])
	}
	f.Add("a\xff", "a\xfe")
	f.Add("l·", "ŀ")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 64 || len(b) > 64 {
			return // longer strings add nothing but time
		}
		for c := CollationBinary; int(c) < len(collationInfo); c++ {
			r := c.Compare([]byte(a), []byte(b))
			require.Equal(t, -r, c.Compare([]byte(b), []byte(a)), "%s: %q vs %q", c, a, b)
			ka, kb := c.appendKey(nil, []byte(a)), c.appendKey(nil, []byte(b))
			require.Equal(t, r == 0, string(ka) == string(kb), "%s: keys of %q and %q", c, a, b)
		}
	})
}
