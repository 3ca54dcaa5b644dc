package runtime

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseCollation(t *testing.T) {
	for name, want := range map[string]Collation{
		"binary":                   CollationBinary,
		"utf8mb4_bin":              CollationUTF8MB4Bin,
		"UTF8MB3_BIN":              CollationUTF8MB4Bin,
		"utf8_bin":                 CollationUTF8MB4Bin,
		"ascii_bin":                CollationUTF8MB4Bin,
		"utf8mb4_nopad_bin":        CollationUTF8MB4NopadBin,
		"utf8mb4_0900_bin":         CollationUTF8MB4NopadBin,
		" utf8mb4_general_ci ":     CollationUTF8MB4GeneralCI,
		"utf8_general_ci":          CollationUTF8MB4GeneralCI,
		"utf8mb3_general_nopad_ci": CollationUTF8MB4GeneralNopadCI,
	} {
		got, err := ParseCollation(name)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
		back, err := ParseCollation(got.String())
		require.NoError(t, err)
		require.Equal(t, got, back)
	}
	for _, name := range []string{"", "latin1_swedish_ci", "utf8mb4_german2_ci", "utf8mb4_0900_as_cs", "utf8mb4_", "utf16_bin", "latin1_general_ci", "latin1_bin", "utf8mb4_unicode_ci", "utf8mb4_uca1400_ai_ci", "utf8mb4_0900_ai_ci"} {
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
	} {
		require.Equal(t, tc.want, tc.coll.Compare([]byte(tc.a), []byte(tc.b)), "%s: %q vs %q", tc.coll, tc.a, tc.b)
		require.Equal(t, -tc.want, tc.coll.Compare([]byte(tc.b), []byte(tc.a)), "%s: %q vs %q", tc.coll, tc.b, tc.a)
		ka, kb := tc.coll.appendKey(nil, []byte(tc.a)), tc.coll.appendKey(nil, []byte(tc.b))
		require.Equal(t, tc.want == 0, string(ka) == string(kb), "%s keys: %q vs %q", tc.coll, tc.a, tc.b)
	}
}

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
