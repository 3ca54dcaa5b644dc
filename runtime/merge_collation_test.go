package runtime

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseCollation(t *testing.T) {
	for name, want := range map[string]Collation{
		"binary":                       CollationBinary,
		"utf8mb4_bin":                  CollationUTF8MB4Bin,
		"UTF8MB3_BIN":                  CollationUTF8MB4Bin,
		"utf8_bin":                     CollationUTF8MB4Bin,
		"latin1_bin":                   CollationUTF8MB4Bin,
		"ascii_bin":                    CollationUTF8MB4Bin,
		"utf8mb4_nopad_bin":            CollationUTF8MB4NopadBin,
		"utf8mb4_0900_bin":             CollationUTF8MB4NopadBin,
		" utf8mb4_general_ci ":         CollationUTF8MB4GeneralCI,
		"utf8_general_ci":              CollationUTF8MB4GeneralCI,
		"utf8mb3_general_nopad_ci":     CollationUTF8MB4GeneralNopadCI,
		"utf8mb4_unicode_ci":           CollationUTF8MB4UnicodeCI,
		"utf8mb4_unicode_nopad_ci":     CollationUTF8MB4UnicodeNopadCI,
		"utf8mb4_unicode_520_ci":       CollationUTF8MB4Unicode520CI,
		"utf8mb4_unicode_520_nopad_ci": CollationUTF8MB4Unicode520NopadCI,
		"utf8mb4_uca1400_ai_ci":        CollationUTF8MB4UCA1400AICI,
		"utf8mb4_uca1400_nopad_ai_ci":  CollationUTF8MB4UCA1400NopadAICI,
		"utf8mb4_0900_ai_ci":           CollationUTF8MB4_0900AICI,
	} {
		got, err := ParseCollation(name)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
		back, err := ParseCollation(got.String())
		require.NoError(t, err)
		require.Equal(t, got, back)
	}
	for _, name := range []string{"", "latin1_swedish_ci", "utf8mb4_german2_ci", "utf8mb4_0900_as_cs", "utf8mb4_", "utf16_bin", "latin1_general_ci"} {
		_, err := ParseCollation(name)
		require.EqualError(t, err, `runtime: collation "`+name+`" is not supported by the merge engine`)
	}
	require.Equal(t, "", CollationNone.String())
	require.Equal(t, "Collation(99)", Collation(99).String())
	require.Equal(t, 1, Collation(99).Compare([]byte("b"), []byte("a")), "an invalid collation compares bytes")
}

// TestCollationCompare pins the behaviour of each family on the cases
// that tell them apart; merge_exec_test.go checks the same against
// MariaDB.
func TestCollationCompare(t *testing.T) {
	const (
		bin      = CollationUTF8MB4Bin
		nopadBin = CollationUTF8MB4NopadBin
		general  = CollationUTF8MB4GeneralCI
		gNopad   = CollationUTF8MB4GeneralNopadCI
		uni      = CollationUTF8MB4UnicodeCI
		uni520   = CollationUTF8MB4Unicode520CI
		uca1400  = CollationUTF8MB4UCA1400AICI
		c0900    = CollationUTF8MB4_0900AICI
	)
	for _, tc := range []struct {
		coll Collation
		a, b string
		want int
	}{
		{CollationBinary, "a", "a ", -1},
		{CollationBinary, "a", "B", 1},
		{bin, "a", "a  ", 0},     // PAD SPACE
		{bin, "a\t", "a", -1},    // the tab is below the pad space
		{bin, "a", "a\t", 1},     //
		{bin, "a", "ab", -1},     //
		{bin, "é", "f", 1},       // code point order
		{bin, "\uffff", "😀", -1}, // UTF-8 byte order is code point order
		{nopadBin, "a", "a ", -1},
		{general, "abc", "ABC", 0},
		{general, "a ", "A", 0},
		{general, "a\t", "a", -1},
		{general, "À", "a", 0},           // Latin-1 letters fold to their base letter
		{general, "ß", "s", 0},           // general_ci's famous ß = s
		{general, "ß", "ss", -1},         //
		{general, "Æ", "A", 1},           // Æ is its own letter, after Z
		{general, "Æ", "Z", 1},           //
		{general, "ё", "Е", 0},           // Cyrillic Ё folds to Е
		{general, "😀", "😁", 0},           // everything above the BMP weighs U+FFFD
		{general, "😀", "\ufffd", 0},      //
		{general, "_", "a", 1},           // '_' (0x5F) sorts after 'A' (0x41)
		{general, "Straße", "STRASE", 0}, //
		{gNopad, "a", "a ", -1},
		{gNopad, "a ", "A ", 0},
		{uni, "ß", "ss", 0}, // UCA expansion
		{uni, "Æ", "AE", 1}, // UCA 4.0: Æ is a letter after A
		{uni520, "Æ", "ae", 0},
		{uni, "Ø", "o", 1}, // UCA 4.0: Ø after O
		{uni520, "Ø", "o", 0},
		{uni, "_", "a", -1}, // punctuation before letters
		{uni, "a\x00", "a", 0},
		{uni, "a", "a ", 0},
		{uni, "a\t", "a", -1},
		{uni, "e\u0301", "é", 0}, // combining acute is ignorable
		{uni, "1", "a", -1},
		{uni, "¼", "1⁄4", 0},
		{uni, "ạ", "a", 0},         // outside the table, folded by general_ci into 'A'
		{uni, "α", "Α", 0},         // Greek, case folded
		{uni, "α", "z", 1},         // after every Latin letter
		{uni, "α", "β", -1},        //
		{uni, "😀", "😁", -1},        // told apart, unlike general_ci
		{uni, "😀", "a", 1},         //
		{uni1400(), "`", "_", 1},   // UCA 9+: '`' among the symbols, after '_'
		{uni, "`", "_", -1},        // UCA 4.0: before
		{c0900, "a", "a ", -1},     // NO PAD
		{c0900, "a", "A", 0},       //
		{c0900, "Æ", "ae", 0},      //
		{uca1400, "a", "a ", 0},    // PAD SPACE
		{uca1400, "\u00ad", "", 0}, // soft hyphen ignorable from UCA 6
		{uni, "\u00ad", "", 1},     // but not in 4.0
	} {
		require.Equal(t, tc.want, tc.coll.Compare([]byte(tc.a), []byte(tc.b)), "%s: %q vs %q", tc.coll, tc.a, tc.b)
		require.Equal(t, -tc.want, tc.coll.Compare([]byte(tc.b), []byte(tc.a)), "%s: %q vs %q", tc.coll, tc.b, tc.a)
		ka, kb := tc.coll.appendKey(nil, []byte(tc.a)), tc.coll.appendKey(nil, []byte(tc.b))
		require.Equal(t, tc.want == 0, string(ka) == string(kb), "%s keys: %q vs %q", tc.coll, tc.a, tc.b)
	}
}

// uni1400 is utf8mb4_uca1400_ai_ci (a function so the table above reads).
func uni1400() Collation { return CollationUTF8MB4UCA1400AICI }

// collationCorpus is a set of strings that exercise padding, case,
// accents, expansions, ignorables and characters outside the tables.
var collationCorpus = []string{
	"", " ", "  ", "\t", "a", "A", "a ", "a\t", "a\x00", "ab", "aB", "Ab ", "b", "B", "z", "Z", "_", "-", "0", "1", "9",
	"à", "À", "á", "ä", "å", "æ", "Æ", "ae", "AE", "ß", "ss", "SS", "s", "ø", "Ø", "o", "œ", "oe", "ð", "d", "đ", "þ",
	"ı", "i", "İ", "ĳ", "ij", "ŀ", "l·", "ŉ", "ʼn", "¼", "1⁄4", "µ", "μ", "e\u0301", "é", "\u00ad", "a\u00ada",
	"ạ", "ǅ", "α", "Α", "ά", "β", "ё", "Е", "е", "я", "中", "文", "😀", "😁", "\ufffd", "€", "–", "\u00a0", "a\u00a0",
}

// TestCollationKeysAgreeWithCompare checks, for every pair of the corpus
// and every collation, that equal keys mean Compare 0, that Compare is
// antisymmetric, and that sorting by Compare is consistent (transitive).
func TestCollationKeysAgreeWithCompare(t *testing.T) {
	for c := CollationBinary; int(c) < len(collationInfo); c++ {
		for _, a := range collationCorpus {
			for _, b := range collationCorpus {
				r := c.Compare([]byte(a), []byte(b))
				require.Equal(t, -r, c.Compare([]byte(b), []byte(a)), "%s: %q vs %q", c, a, b)
				ka, kb := c.appendKey(nil, []byte(a)), c.appendKey(nil, []byte(b))
				require.Equal(t, r == 0, string(ka) == string(kb), "%s: keys of %q and %q", c, a, b)
			}
		}
		sorted := slices.Clone(collationCorpus)
		slices.SortStableFunc(sorted, func(a, b string) int { return c.Compare([]byte(a), []byte(b)) })
		for i := range sorted {
			for j := i + 1; j < len(sorted); j++ {
				require.LessOrEqual(t, c.Compare([]byte(sorted[i]), []byte(sorted[j])), 0, "%s: %q before %q", c, sorted[i], sorted[j])
			}
		}
	}
}

// TestGeneralRuns checks the general_ci table's shape: sorted, disjoint
// runs of BMP code points.
func TestGeneralRuns(t *testing.T) {
	prev := -1
	for i, g := range generalRuns {
		require.LessOrEqual(t, g.lo, g.hi, "run %d", i)
		require.Greater(t, int(g.lo), prev, "run %d", i)
		require.Contains(t, []uint8{gFix, gAdd1, gAdd2}, g.mode, "run %d", i)
		prev = int(g.hi)
	}
	require.Equal(t, uint32('A'), generalWeight('a'))
	require.Equal(t, uint32('A'), generalWeight('Å'))
	require.Equal(t, uint32(0x0460), generalWeight(0x0461)) // Ѡ ѡ, an alternating pair
	require.Equal(t, uint32(0x0460), generalWeight(0x0460))
	require.Equal(t, uint32(0x4E2D), generalWeight('中'))
	require.Equal(t, uint32(0xFFFD), generalWeight('😀'))
	require.Equal(t, uint32(0xFFFD), generalWeight(-1))
}

// TestUCATables checks the static UCA data: every listed code point is
// covered and listed once, expansions expand into single-weight
// characters, and the fallback weights sit above the table.
func TestUCATables(t *testing.T) {
	for name, v := range map[string]*ucaVersion{"4.0.0": &uca400, "5.2.0": &uca520, "9.0.0": &uca900} {
		seen := map[rune]string{}
		note := func(r rune, where string) {
			_, ok := ucaIndex(r)
			require.True(t, ok, "%s: %U in %s is not covered", name, r, where)
			require.NotContains(t, seen, r, "%s: %U listed twice (%s and %s)", name, r, seen[r], where)
			seen[r] = where
		}
		for _, class := range v.order {
			require.NotEmpty(t, class)
			for _, r := range class {
				note(r, "order")
			}
		}
		w := buildUCA(v)
		for _, e := range v.expand {
			note(e.r, "expand")
			x, _ := ucaIndex(e.r)
			require.Equal(t, len([]rune(e.to)), int(w.n[x]), "%s: %U expands to %q", name, e.r, e.to)
			for _, r := range e.to {
				y, _ := ucaIndex(r)
				require.Equal(t, uint8(1), w.n[y], "%s: %U expands to %U, which has no single weight", name, e.r, r)
			}
		}
		for _, r := range v.uncovered {
			note(r, "uncovered")
		}
		require.Equal(t, uint32(len(v.order)+1), w.base)
		require.Equal(t, w.w[' '][0], uint16(w.space))
		var ws [3]uint32
		require.Equal(t, 1, w.weights('中', &ws))
		require.Equal(t, w.base+0x4E2D, ws[0])
		require.Equal(t, 0, w.weights(0x0301, &ws), "combining acute is ignorable")
		require.Equal(t, 2, w.weights('ß', &ws))
	}
	require.Same(t, uca900Weights(), uca900Weights(), "built once")
	require.True(t, strings.Contains(uca400.order[0], "\t"))
}
