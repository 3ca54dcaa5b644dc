package runtime

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Collation is a MySQL/MariaDB collation the merge engine compares in
// process, exactly as the server does: the ones whose order is a fixed
// function of the UTF-8 text the driver delivers. Names follow the server's
// (`SHOW COLLATION`); ParseCollation maps utf8mb3/utf8 names to the same
// values, as the weights do not depend on the character set for the BMP.
//
//   - binary, *_bin, *_nopad_bin, utf8mb4_0900_bin: byte order (for UTF-8
//     that is code point order).
//   - *_general_ci, *_general_nopad_ci: one weight per character from
//     MySQL's general_ci table (simple upper-case mapping, plus folding of
//     some accented letters: 'À' = 'A', 'ß' = 'S', 'Ё' = 'Е'), every
//     character outside the BMP weighs U+FFFD (so all emoji are equal).
//     The table was taken from MariaDB 10.11's WEIGHT_STRING for every BMP
//     code point and is checked against the server by the tests.
//
// Every other collation (latin1_swedish_ci, the UCA families, gbk, big5,
// ...) is compared by the server's own sort key instead: the planner adds
// a WEIGHT_STRING column to the per-node SQL (ColumnKind.Weight), so no
// table of this package approximates it.
//
// PAD SPACE collations (all MariaDB ones except *_nopad_*, and MySQL's
// non-0900 ones) compare as if the shorter string were padded with spaces,
// so 'a' = 'a  ' and 'a\t' < 'a'; NO PAD ones (utf8mb4_0900_*, *_nopad_*)
// do not, so 'a' < 'a '.
//
// The zero value, CollationNone, is not a collation: a ColumnString
// without one (and without a Weight column) is refused by Merge.
//
// Sources: MariaDB "Character Sets and Collations" and "Supported
// Character Sets and Collations" docs; MySQL 8.0 Reference Manual 10.8.5
// "The binary Collation Compared to _bin Collations".
type Collation uint8

const (
	// CollationNone is the zero value: no collation.
	CollationNone Collation = iota
	// CollationBinary is "binary": byte order, NO PAD (BINARY, VARBINARY,
	// BLOB).
	CollationBinary
	// CollationUTF8MB4Bin is "utf8mb4_bin" (also utf8mb3_bin, ascii_bin):
	// code point order, PAD SPACE.
	CollationUTF8MB4Bin
	// CollationUTF8MB4NopadBin is MariaDB's "utf8mb4_nopad_bin" and MySQL's
	// "utf8mb4_0900_bin": code point order, NO PAD.
	CollationUTF8MB4NopadBin
	// CollationUTF8MB4GeneralCI is "utf8mb4_general_ci" (MariaDB 10.x's
	// default), PAD SPACE.
	CollationUTF8MB4GeneralCI
	// CollationUTF8MB4GeneralNopadCI is "utf8mb4_general_nopad_ci".
	CollationUTF8MB4GeneralNopadCI
)

// collFamily is how a collation computes weights.
type collFamily uint8

const (
	famBytes   collFamily = iota // byte order
	famGeneral                   // general_ci table, one weight per character
)

// collationInfo describes each Collation value.
var collationInfo = [...]struct {
	name string
	fam  collFamily
	pad  bool // PAD SPACE
}{
	CollationNone:                  {name: ""},
	CollationBinary:                {name: "binary", fam: famBytes},
	CollationUTF8MB4Bin:            {name: "utf8mb4_bin", fam: famBytes, pad: true},
	CollationUTF8MB4NopadBin:       {name: "utf8mb4_nopad_bin", fam: famBytes},
	CollationUTF8MB4GeneralCI:      {name: "utf8mb4_general_ci", fam: famGeneral, pad: true},
	CollationUTF8MB4GeneralNopadCI: {name: "utf8mb4_general_nopad_ci", fam: famGeneral},
}

// ParseCollation returns the Collation named name (case-insensitive), as
// SHOW COLLATION or a column's DDL spells it: "binary", or a supported
// collation of utf8mb4, utf8mb3 or utf8 ("utf8mb3_general_ci" is
// CollationUTF8MB4GeneralCI), "utf8mb4_0900_bin" and "ascii_bin" (byte
// order is code point order for it too). Every other collation is an error
// naming it: latin1_bin among them, as MariaDB's latin1 is cp1252, whose
// byte order is not the code point order of the UTF-8 the driver returns
// ('€' is 0x80).
func ParseCollation(name string) (Collation, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "binary":
		return CollationBinary, nil
	case "ascii_bin":
		return CollationUTF8MB4Bin, nil
	case "utf8mb4_0900_bin":
		return CollationUTF8MB4NopadBin, nil
	}
	for _, cs := range [...]string{"utf8mb4_", "utf8mb3_", "utf8_"} {
		if rest, ok := strings.CutPrefix(n, cs); ok {
			for c := CollationUTF8MB4Bin; int(c) < len(collationInfo); c++ {
				if collationInfo[c].name[len("utf8mb4_"):] == rest {
					return c, nil
				}
			}
		}
	}
	return CollationNone, fmt.Errorf("runtime: collation %q is not supported by the merge engine", name)
}

// String returns the collation's name, e.g. "utf8mb4_general_ci";
// CollationNone gives "" and an invalid value "Collation(n)".
func (c Collation) String() string {
	if int(c) < len(collationInfo) {
		return collationInfo[c].name
	}
	return "Collation(" + strconv.Itoa(int(c)) + ")"
}

// MarshalJSON encodes the collation as its name.
func (c Collation) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(c.String())), nil }

// UnmarshalJSON decodes a name accepted by ParseCollation ("" is
// CollationNone).
func (c *Collation) UnmarshalJSON(b []byte) error {
	name, err := strconv.Unquote(string(b))
	if err != nil {
		return fmt.Errorf("runtime: Collation must be a JSON string, got %s", b)
	}
	if name == "" {
		*c = CollationNone
		return nil
	}
	v, err := ParseCollation(name)
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Compare compares two strings under the collation: -1, 0 or +1. a and b
// are UTF-8 (for binary, any bytes); an invalid UTF-8 byte weighs as
// U+FFFD. An invalid Collation compares bytes.
func (c Collation) Compare(a, b []byte) int {
	if int(c) >= len(collationInfo) {
		return bytes.Compare(a, b)
	}
	info := &collationInfo[c]
	switch info.fam {
	case famGeneral:
		return compareGeneral(a, b, info.pad)
	}
	if !info.pad {
		return bytes.Compare(a, b)
	}
	n := min(len(a), len(b))
	if r := bytes.Compare(a[:n], b[:n]); r != 0 {
		return r
	}
	if len(a) > n {
		return padCompare(a[n:])
	}
	return -padCompare(b[n:])
}

// padCompare compares the tail of the longer string with the spaces PAD
// SPACE pads the shorter one with.
func padCompare(rest []byte) int {
	for _, c := range rest {
		if c != ' ' {
			return cmp.Compare(c, ' ')
		}
	}
	return 0
}

// appendKey appends the collation's equality key of s: two strings get
// equal keys exactly when Compare says they are equal.
func (c Collation) appendKey(dst, s []byte) []byte {
	if int(c) >= len(collationInfo) {
		return append(dst, s...)
	}
	info := &collationInfo[c]
	switch info.fam {
	case famGeneral:
		end := len(dst)
		for i := 0; i < len(s); {
			w, n := generalWeightAt(s[i:])
			i += n
			dst = binary.BigEndian.AppendUint16(dst, uint16(w))
			if !info.pad || w != ' ' {
				end = len(dst)
			}
		}
		return dst[:end]
	}
	if info.pad {
		s = bytes.TrimRight(s, " ")
	}
	return append(dst, s...)
}

// generalWeightAt returns the general_ci weight of the character at the
// start of s (non-empty) and its length in bytes.
func generalWeightAt(s []byte) (uint32, int) {
	if c := s[0]; c < utf8.RuneSelf {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		return uint32(c), 1
	}
	r, n := utf8.DecodeRune(s)
	return generalWeight(r), n
}

// generalWeight is the general_ci weight of r: generalRuns for the BMP,
// U+FFFD above it.
func generalWeight(r rune) uint32 {
	if r > 0xFFFF || r < 0 {
		return 0xFFFD
	}
	lo, hi := 0, len(generalRuns)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rune(generalRuns[m].hi) < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(generalRuns) || rune(generalRuns[lo].lo) > r {
		return uint32(r)
	}
	g := &generalRuns[lo]
	switch g.mode {
	case gFix:
		return uint32(g.w)
	case gAdd2:
		if (r-rune(g.lo))&1 != 0 {
			return uint32(r)
		}
	}
	return uint32(r + g.w)
}

// compareGeneral compares under general_ci (PAD SPACE when pad).
func compareGeneral(a, b []byte, pad bool) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		wa, na := generalWeightAt(a[i:])
		wb, nb := generalWeightAt(b[j:])
		if wa != wb {
			return cmp.Compare(wa, wb)
		}
		i += na
		j += nb
	}
	switch {
	case i == len(a) && j == len(b):
		return 0
	case !pad:
		return cmp.Compare(len(a)-i, len(b)-j)
	case i < len(a):
		return padGeneral(a[i:])
	default:
		return -padGeneral(b[j:])
	}
}

// padGeneral compares a general_ci tail with space padding.
func padGeneral(rest []byte) int {
	for i := 0; i < len(rest); {
		w, n := generalWeightAt(rest[i:])
		if w != ' ' {
			return cmp.Compare(w, ' ')
		}
		i += n
	}
	return 0
}

// generalRun gives the general_ci weight of the code points lo..hi: the
// weight w itself (gFix), or r+w for every r (gAdd1), or r+w for every
// second r starting at lo, the others weighing themselves (gAdd2, for
// alternating upper/lower case pairs). Code points in no run weigh
// themselves.
type generalRun struct {
	lo, hi uint16
	mode   uint8
	w      rune
}

const (
	gFix uint8 = iota
	gAdd1
	gAdd2
)

// generalRuns is MySQL/MariaDB's general_ci weight table for the BMP, as
// runs of code points that do not weigh themselves (sorted, disjoint):
// read from MariaDB 10.11 (SELECT WEIGHT_STRING(... COLLATE
// utf8mb4_general_ci) for every code point) and checked against it by
// TestGeneralCIMatchesServer; MySQL 8's table (as vitess carries it) is
// the same.
var generalRuns = [...]generalRun{
	{0x0061, 0x007A, gAdd1, -32}, {0x00B5, 0x00B5, gFix, 0x039C}, {0x00C0, 0x00C5, gFix, 0x0041},
	{0x00C7, 0x00C7, gFix, 0x0043}, {0x00C8, 0x00CB, gFix, 0x0045}, {0x00CC, 0x00CF, gFix, 0x0049},
	{0x00D1, 0x00D1, gFix, 0x004E}, {0x00D2, 0x00D6, gFix, 0x004F}, {0x00D9, 0x00DC, gFix, 0x0055},
	{0x00DD, 0x00DD, gFix, 0x0059}, {0x00DF, 0x00DF, gFix, 0x0053}, {0x00E0, 0x00E5, gFix, 0x0041},
	{0x00E6, 0x00E6, gFix, 0x00C6}, {0x00E7, 0x00E7, gFix, 0x0043}, {0x00E8, 0x00EB, gFix, 0x0045},
	{0x00EC, 0x00EF, gFix, 0x0049}, {0x00F0, 0x00F0, gFix, 0x00D0}, {0x00F1, 0x00F1, gFix, 0x004E},
	{0x00F2, 0x00F6, gFix, 0x004F}, {0x00F8, 0x00F8, gFix, 0x00D8}, {0x00F9, 0x00FC, gFix, 0x0055},
	{0x00FD, 0x00FD, gFix, 0x0059}, {0x00FE, 0x00FE, gFix, 0x00DE}, {0x00FF, 0x00FF, gFix, 0x0059},
	{0x0100, 0x0105, gFix, 0x0041}, {0x0106, 0x010D, gFix, 0x0043}, {0x010E, 0x010F, gFix, 0x0044},
	{0x0111, 0x0111, gFix, 0x0110}, {0x0112, 0x011B, gFix, 0x0045}, {0x011C, 0x0123, gFix, 0x0047},
	{0x0124, 0x0125, gFix, 0x0048}, {0x0127, 0x0127, gFix, 0x0126}, {0x0128, 0x0131, gFix, 0x0049},
	{0x0133, 0x0133, gFix, 0x0132}, {0x0134, 0x0135, gFix, 0x004A}, {0x0136, 0x0137, gFix, 0x004B},
	{0x0139, 0x013E, gFix, 0x004C}, {0x0140, 0x0140, gFix, 0x013F}, {0x0142, 0x0142, gFix, 0x0141},
	{0x0143, 0x0148, gFix, 0x004E}, {0x014B, 0x014B, gFix, 0x014A}, {0x014C, 0x0151, gFix, 0x004F},
	{0x0153, 0x0153, gFix, 0x0152}, {0x0154, 0x0159, gFix, 0x0052}, {0x015A, 0x0161, gFix, 0x0053},
	{0x0162, 0x0165, gFix, 0x0054}, {0x0167, 0x0167, gFix, 0x0166}, {0x0168, 0x0173, gFix, 0x0055},
	{0x0174, 0x0175, gFix, 0x0057}, {0x0176, 0x0178, gFix, 0x0059}, {0x0179, 0x017E, gFix, 0x005A},
	{0x017F, 0x017F, gFix, 0x0053}, {0x0183, 0x0183, gFix, 0x0182}, {0x0185, 0x0185, gFix, 0x0184},
	{0x0188, 0x0188, gFix, 0x0187}, {0x018C, 0x018C, gFix, 0x018B}, {0x0192, 0x0192, gFix, 0x0191},
	{0x0195, 0x0195, gFix, 0x01F6}, {0x0199, 0x0199, gFix, 0x0198}, {0x01A0, 0x01A1, gFix, 0x004F},
	{0x01A3, 0x01A3, gFix, 0x01A2}, {0x01A5, 0x01A5, gFix, 0x01A4}, {0x01A8, 0x01A8, gFix, 0x01A7},
	{0x01AD, 0x01AD, gFix, 0x01AC}, {0x01AF, 0x01B0, gFix, 0x0055}, {0x01B4, 0x01B4, gFix, 0x01B3},
	{0x01B6, 0x01B6, gFix, 0x01B5}, {0x01B9, 0x01B9, gFix, 0x01B8}, {0x01BD, 0x01BD, gFix, 0x01BC},
	{0x01BF, 0x01BF, gFix, 0x01F7}, {0x01C5, 0x01C6, gFix, 0x01C4}, {0x01C8, 0x01C9, gFix, 0x01C7},
	{0x01CB, 0x01CC, gFix, 0x01CA}, {0x01CD, 0x01CE, gFix, 0x0041}, {0x01CF, 0x01D0, gFix, 0x0049},
	{0x01D1, 0x01D2, gFix, 0x004F}, {0x01D3, 0x01DC, gFix, 0x0055}, {0x01DD, 0x01DD, gFix, 0x018E},
	{0x01DE, 0x01E1, gFix, 0x0041}, {0x01E2, 0x01E3, gFix, 0x00C6}, {0x01E5, 0x01E5, gFix, 0x01E4},
	{0x01E6, 0x01E7, gFix, 0x0047}, {0x01E8, 0x01E9, gFix, 0x004B}, {0x01EA, 0x01ED, gFix, 0x004F},
	{0x01EE, 0x01EF, gFix, 0x01B7}, {0x01F0, 0x01F0, gFix, 0x004A}, {0x01F2, 0x01F3, gFix, 0x01F1},
	{0x01F4, 0x01F5, gFix, 0x0047}, {0x01F8, 0x01F9, gFix, 0x004E}, {0x01FA, 0x01FB, gFix, 0x0041},
	{0x01FC, 0x01FD, gFix, 0x00C6}, {0x01FE, 0x01FF, gFix, 0x00D8}, {0x0200, 0x0203, gFix, 0x0041},
	{0x0204, 0x0207, gFix, 0x0045}, {0x0208, 0x020B, gFix, 0x0049}, {0x020C, 0x020F, gFix, 0x004F},
	{0x0210, 0x0213, gFix, 0x0052}, {0x0214, 0x0217, gFix, 0x0055}, {0x0218, 0x0219, gFix, 0x0053},
	{0x021A, 0x021B, gFix, 0x0054}, {0x021D, 0x021D, gFix, 0x021C}, {0x021E, 0x021F, gFix, 0x0048},
	{0x0223, 0x0223, gFix, 0x0222}, {0x0225, 0x0225, gFix, 0x0224}, {0x0226, 0x0227, gFix, 0x0041},
	{0x0228, 0x0229, gFix, 0x0045}, {0x022A, 0x0231, gFix, 0x004F}, {0x0232, 0x0233, gFix, 0x0059},
	{0x0253, 0x0253, gFix, 0x0181}, {0x0254, 0x0254, gFix, 0x0186}, {0x0256, 0x0256, gFix, 0x0189},
	{0x0257, 0x0257, gFix, 0x018A}, {0x0259, 0x0259, gFix, 0x018F}, {0x025B, 0x025B, gFix, 0x0190},
	{0x0260, 0x0260, gFix, 0x0193}, {0x0263, 0x0263, gFix, 0x0194}, {0x0268, 0x0268, gFix, 0x0197},
	{0x0269, 0x0269, gFix, 0x0196}, {0x026F, 0x026F, gFix, 0x019C}, {0x0272, 0x0272, gFix, 0x019D},
	{0x0275, 0x0275, gFix, 0x019F}, {0x0280, 0x0280, gFix, 0x01A6}, {0x0283, 0x0283, gFix, 0x01A9},
	{0x0288, 0x0288, gFix, 0x01AE}, {0x028A, 0x028A, gFix, 0x01B1}, {0x028B, 0x028B, gFix, 0x01B2},
	{0x0292, 0x0292, gFix, 0x01B7}, {0x0345, 0x0345, gFix, 0x0399}, {0x0386, 0x0386, gFix, 0x0391},
	{0x0388, 0x0388, gFix, 0x0395}, {0x0389, 0x0389, gFix, 0x0397}, {0x038A, 0x038A, gFix, 0x0399},
	{0x038C, 0x038C, gFix, 0x039F}, {0x038E, 0x038E, gFix, 0x03A5}, {0x038F, 0x038F, gFix, 0x03A9},
	{0x0390, 0x0390, gFix, 0x0399}, {0x03AA, 0x03AA, gFix, 0x0399}, {0x03AB, 0x03AB, gFix, 0x03A5},
	{0x03AC, 0x03AC, gFix, 0x0391}, {0x03AD, 0x03AD, gFix, 0x0395}, {0x03AE, 0x03AE, gFix, 0x0397},
	{0x03AF, 0x03AF, gFix, 0x0399}, {0x03B0, 0x03B0, gFix, 0x03A5}, {0x03B1, 0x03C1, gAdd1, -32},
	{0x03C2, 0x03C3, gFix, 0x03A3}, {0x03C4, 0x03C9, gAdd1, -32}, {0x03CA, 0x03CA, gFix, 0x0399},
	{0x03CB, 0x03CB, gFix, 0x03A5}, {0x03CC, 0x03CC, gFix, 0x039F}, {0x03CD, 0x03CD, gFix, 0x03A5},
	{0x03CE, 0x03CE, gFix, 0x03A9}, {0x03D0, 0x03D0, gFix, 0x0392}, {0x03D1, 0x03D1, gFix, 0x0398},
	{0x03D3, 0x03D4, gFix, 0x03D2}, {0x03D5, 0x03D5, gFix, 0x03A6}, {0x03D6, 0x03D6, gFix, 0x03A0},
	{0x03DB, 0x03EF, gAdd2, -1}, {0x03F0, 0x03F0, gFix, 0x039A}, {0x03F1, 0x03F1, gFix, 0x03A1},
	{0x03F2, 0x03F2, gFix, 0x03A3}, {0x0400, 0x0401, gFix, 0x0415}, {0x0403, 0x0403, gFix, 0x0413},
	{0x0407, 0x0407, gFix, 0x0406}, {0x040C, 0x040C, gFix, 0x041A}, {0x040D, 0x040D, gFix, 0x0418},
	{0x040E, 0x040E, gFix, 0x0423}, {0x0430, 0x044F, gAdd1, -32}, {0x0450, 0x0451, gFix, 0x0415},
	{0x0452, 0x0452, gFix, 0x0402}, {0x0453, 0x0453, gFix, 0x0413}, {0x0454, 0x0456, gAdd1, -80},
	{0x0457, 0x0457, gFix, 0x0406}, {0x0458, 0x045B, gAdd1, -80}, {0x045C, 0x045C, gFix, 0x041A},
	{0x045D, 0x045D, gFix, 0x0418}, {0x045E, 0x045E, gFix, 0x0423}, {0x045F, 0x045F, gFix, 0x040F},
	{0x0461, 0x0475, gAdd2, -1}, {0x0476, 0x0477, gFix, 0x0474}, {0x0479, 0x0481, gAdd2, -1},
	{0x048D, 0x04BF, gAdd2, -1}, {0x04C1, 0x04C2, gFix, 0x0416}, {0x04C4, 0x04C4, gFix, 0x04C3},
	{0x04C8, 0x04C8, gFix, 0x04C7}, {0x04CC, 0x04CC, gFix, 0x04CB}, {0x04D0, 0x04D3, gFix, 0x0410},
	{0x04D5, 0x04D5, gFix, 0x04D4}, {0x04D6, 0x04D7, gFix, 0x0415}, {0x04D9, 0x04DB, gFix, 0x04D8},
	{0x04DC, 0x04DD, gFix, 0x0416}, {0x04DE, 0x04DF, gFix, 0x0417}, {0x04E1, 0x04E1, gFix, 0x04E0},
	{0x04E2, 0x04E5, gFix, 0x0418}, {0x04E6, 0x04E7, gFix, 0x041E}, {0x04E9, 0x04EB, gFix, 0x04E8},
	{0x04EC, 0x04ED, gFix, 0x042D}, {0x04EE, 0x04F3, gFix, 0x0423}, {0x04F4, 0x04F5, gFix, 0x0427},
	{0x04F8, 0x04F9, gFix, 0x042B}, {0x0561, 0x0586, gAdd1, -48}, {0x1E00, 0x1E01, gFix, 0x0041},
	{0x1E02, 0x1E07, gFix, 0x0042}, {0x1E08, 0x1E09, gFix, 0x0043}, {0x1E0A, 0x1E13, gFix, 0x0044},
	{0x1E14, 0x1E1D, gFix, 0x0045}, {0x1E1E, 0x1E1F, gFix, 0x0046}, {0x1E20, 0x1E21, gFix, 0x0047},
	{0x1E22, 0x1E2B, gFix, 0x0048}, {0x1E2C, 0x1E2F, gFix, 0x0049}, {0x1E30, 0x1E35, gFix, 0x004B},
	{0x1E36, 0x1E3D, gFix, 0x004C}, {0x1E3E, 0x1E43, gFix, 0x004D}, {0x1E44, 0x1E4B, gFix, 0x004E},
	{0x1E4C, 0x1E53, gFix, 0x004F}, {0x1E54, 0x1E57, gFix, 0x0050}, {0x1E58, 0x1E5F, gFix, 0x0052},
	{0x1E60, 0x1E69, gFix, 0x0053}, {0x1E6A, 0x1E71, gFix, 0x0054}, {0x1E72, 0x1E7B, gFix, 0x0055},
	{0x1E7C, 0x1E7F, gFix, 0x0056}, {0x1E80, 0x1E89, gFix, 0x0057}, {0x1E8A, 0x1E8D, gFix, 0x0058},
	{0x1E8E, 0x1E8F, gFix, 0x0059}, {0x1E90, 0x1E95, gFix, 0x005A}, {0x1E96, 0x1E96, gFix, 0x0048},
	{0x1E97, 0x1E97, gFix, 0x0054}, {0x1E98, 0x1E98, gFix, 0x0057}, {0x1E99, 0x1E99, gFix, 0x0059},
	{0x1E9B, 0x1E9B, gFix, 0x0053}, {0x1EA0, 0x1EB7, gFix, 0x0041}, {0x1EB8, 0x1EC7, gFix, 0x0045},
	{0x1EC8, 0x1ECB, gFix, 0x0049}, {0x1ECC, 0x1EE3, gFix, 0x004F}, {0x1EE4, 0x1EF1, gFix, 0x0055},
	{0x1EF2, 0x1EF9, gFix, 0x0059}, {0x1F00, 0x1F0F, gFix, 0x0391}, {0x1F10, 0x1F15, gFix, 0x0395},
	{0x1F18, 0x1F1D, gFix, 0x0395}, {0x1F20, 0x1F2F, gFix, 0x0397}, {0x1F30, 0x1F3F, gFix, 0x0399},
	{0x1F40, 0x1F45, gFix, 0x039F}, {0x1F48, 0x1F4D, gFix, 0x039F}, {0x1F50, 0x1F57, gFix, 0x03A5},
	{0x1F59, 0x1F59, gFix, 0x03A5}, {0x1F5B, 0x1F5B, gFix, 0x03A5}, {0x1F5D, 0x1F5D, gFix, 0x03A5},
	{0x1F5F, 0x1F5F, gFix, 0x03A5}, {0x1F60, 0x1F6F, gFix, 0x03A9}, {0x1F70, 0x1F70, gFix, 0x0391},
	{0x1F71, 0x1F71, gFix, 0x1FBB}, {0x1F72, 0x1F72, gFix, 0x0395}, {0x1F73, 0x1F73, gFix, 0x1FC9},
	{0x1F74, 0x1F74, gFix, 0x0397}, {0x1F75, 0x1F75, gFix, 0x1FCB}, {0x1F76, 0x1F76, gFix, 0x0399},
	{0x1F77, 0x1F77, gFix, 0x1FDB}, {0x1F78, 0x1F78, gFix, 0x039F}, {0x1F79, 0x1F79, gFix, 0x1FF9},
	{0x1F7A, 0x1F7A, gFix, 0x03A5}, {0x1F7B, 0x1F7B, gFix, 0x1FEB}, {0x1F7C, 0x1F7C, gFix, 0x03A9},
	{0x1F7D, 0x1F7D, gFix, 0x1FFB}, {0x1F80, 0x1F8F, gFix, 0x0391}, {0x1F90, 0x1F9F, gFix, 0x0397},
	{0x1FA0, 0x1FAF, gFix, 0x03A9}, {0x1FB0, 0x1FB4, gFix, 0x0391}, {0x1FB6, 0x1FBA, gFix, 0x0391},
	{0x1FBC, 0x1FBC, gFix, 0x0391}, {0x1FBE, 0x1FBE, gFix, 0x0399}, {0x1FC2, 0x1FC4, gFix, 0x0397},
	{0x1FC6, 0x1FC7, gFix, 0x0397}, {0x1FC8, 0x1FC8, gFix, 0x0395}, {0x1FCA, 0x1FCA, gFix, 0x0397},
	{0x1FCC, 0x1FCC, gFix, 0x0397}, {0x1FD0, 0x1FD2, gFix, 0x0399}, {0x1FD6, 0x1FDA, gFix, 0x0399},
	{0x1FE0, 0x1FE2, gFix, 0x03A5}, {0x1FE4, 0x1FE5, gFix, 0x03A1}, {0x1FE6, 0x1FEA, gFix, 0x03A5},
	{0x1FEC, 0x1FEC, gFix, 0x03A1}, {0x1FF2, 0x1FF4, gFix, 0x03A9}, {0x1FF6, 0x1FF7, gFix, 0x03A9},
	{0x1FF8, 0x1FF8, gFix, 0x039F}, {0x1FFA, 0x1FFA, gFix, 0x03A9}, {0x1FFC, 0x1FFC, gFix, 0x03A9},
	{0x2170, 0x217F, gAdd1, -16}, {0x24D0, 0x24E9, gAdd1, -26}, {0xFF41, 0xFF5A, gAdd1, -32},
}
