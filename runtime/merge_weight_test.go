package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompareWeights pins the padding rule on weight strings as MariaDB
// 10.11 returns them (utf8mb4_unicode_ci: 'a' 0E33, ' ' 0209, '\t' 0201).
func TestCompareWeights(t *testing.T) {
	a, sp, tab, b := "\x0e\x33", "\x02\x09", "\x02\x01", "\x0e\x4a"
	for _, tc := range []struct {
		x, y, pad string
		want      int
	}{
		{a, a + sp + sp, sp, 0},             // 'a' = 'a  ' (PAD SPACE)
		{a + tab, a, sp, -1},                // 'a\t' < 'a'
		{a, a + sp + b, sp, -1},             // 'a' < 'a b'
		{a, a + sp, "", -1},                 // NO PAD: 'a' < 'a '
		{"", sp, sp, 0},                     // '' = ' '
		{"", "", "", 0},                     //
		{a, b, sp, -1},                      //
		{a + "\x02", a, sp, 1},              // a partial pad weight (never from a server)
		{"\x41", "\x41\x20\x20", "\x20", 0}, // one-byte weights (latin1)
	} {
		require.Equal(t, tc.want, compareWeights([]byte(tc.x), []byte(tc.y), []byte(tc.pad)), "%x vs %x", tc.x, tc.y)
		require.Equal(t, -tc.want, compareWeights([]byte(tc.y), []byte(tc.x), []byte(tc.pad)), "%x vs %x", tc.y, tc.x)
		kx, ky := appendWeightKey(nil, []byte(tc.x), []byte(tc.pad)), appendWeightKey(nil, []byte(tc.y), []byte(tc.pad))
		require.Equal(t, tc.want == 0, string(kx) == string(ky), "keys of %x and %x", tc.x, tc.y)
	}
	require.NoError(t, WeightCollationError("latin1_swedish_ci"))
	require.NoError(t, WeightCollationError("utf8mb4_uca1400_ai_ci"))
	require.EqualError(t, WeightCollationError("utf8mb4_uca1400_as_cs"), `collation "utf8mb4_uca1400_as_cs" compares accents and case on separate levels, which its WEIGHT_STRING does not keep apart`)
	require.EqualError(t, WeightCollationError("big5_chinese_ci"), `collation "big5_chinese_ci" has a WEIGHT_STRING that disagrees with the server's own comparison`)
}

// TestCheckRowNoSortKey: a key weighed as text whose value has no sort key
// (MariaDB's WEIGHT_STRING of a number is NULL) is a NoSortKeyError that
// names CAST, and blames max_allowed_packet only for text.
func TestCheckRowNoSortKey(t *testing.T) {
	spec := &MergeSpec{Columns: 3, Kinds: []ColumnKind{{Type: ColumnString, Weight: 1}, {Type: ColumnBytes}, {Type: ColumnBytes}}}
	require.NoError(t, checkRow(spec, []Cell{NullCell(), NullCell(), NullCell()}, 0))
	require.NoError(t, checkRow(spec, []Cell{StringCell("a"), BytesCell([]byte{1}), BytesCell(nil)}, 0))
	var nk *NoSortKeyError
	err := checkRow(spec, []Cell{IntCell(1), NullCell(), BytesCell(nil)}, 1)
	require.ErrorAs(t, err, &nk)
	require.Equal(t, NoSortKeyError{Source: 1, Column: 0, Value: CellInt}, *nk)
	require.Contains(t, err.Error(), "not text")
	require.Contains(t, err.Error(), "CAST")
	require.NotContains(t, err.Error(), "max_allowed_packet")
	err = checkRow(spec, []Cell{StringCell("1.50"), NullCell(), BytesCell(nil)}, 0)
	require.ErrorAs(t, err, &nk)
	require.Contains(t, err.Error(), "max_allowed_packet")
	require.Contains(t, err.Error(), "CAST")
}
