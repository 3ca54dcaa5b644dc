package runtime

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
)

// Server sort keys.
//
// A text column whose collation the merge engine cannot compare in process
// (see Collation) is compared by the sort key the data node itself computes:
// the planner appends two derived columns to the per-node SQL,
//
//	WEIGHT_STRING(x)                                          -- column Weight
//	IF(LEFT(x,0) = ' ', WEIGHT_STRING(CONCAT(LEFT(x,0),' ')), '') -- column Weight+1
//
// and sets ColumnKind.Weight of x to the first. WEIGHT_STRING returns the
// collation's weights of every character, trailing spaces included (MariaDB
// 10.11: 'a  ' under utf8mb4_unicode_ci is 0E33 0209 0209), so two weight
// strings compared as bytes order the values as the server does except for
// PAD SPACE: there the shorter string counts as padded with spaces ('a' =
// 'a  ', but 'a\t' < 'a'). The second column carries what that needs: the
// weight of one space in x's collation when the collation pads (LEFT(x,0)
// = ' ' holds exactly under PAD SPACE), and the empty string under NO PAD.
// compareWeights pads the shorter weight string with it; appendWeightKey
// strips trailing pads, so equal values get equal GROUP BY keys.
//
// This is exact for every single-level collation: weights are a sequence
// the server compares left to right, and a weight string that is a byte
// prefix of another ends on a weight boundary (a weight sequence decodes
// from the left). Collations with several levels (MariaDB's uca1400
// *_as_ci/*_ai_cs/*_as_cs, czech_cs, thai_520_w2) concatenate their levels
// in one weight string, which no padding rule can compare; the planner
// refuses them, and the few whose WEIGHT_STRING disagrees with the
// server's own comparison (WeightCollationError).

// compareWeights compares two weight strings of one column: bytes, the
// shorter padded with repetitions of pad (none when pad is empty).
func compareWeights(a, b, pad []byte) int {
	n := min(len(a), len(b))
	if c := bytes.Compare(a[:n], b[:n]); c != 0 || len(a) == len(b) {
		return c
	}
	if len(pad) == 0 {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	if len(a) > n {
		return padWeights(a[n:], pad)
	}
	return -padWeights(b[n:], pad)
}

// padWeights compares the tail of the longer weight string with the
// repeated pad weight.
func padWeights(tail, pad []byte) int {
	for i, c := range tail {
		if p := pad[i%len(pad)]; c != p {
			if c < p {
				return -1
			}
			return 1
		}
	}
	if len(tail)%len(pad) != 0 {
		return 1 // a partial pad weight: longer (never seen from a server)
	}
	return 0
}

// appendWeightKey appends the GROUP BY key of weight string w: w without
// its trailing pad weights, so it is equal for two values exactly when
// compareWeights says so.
func appendWeightKey(dst, w, pad []byte) []byte {
	if len(pad) > 0 {
		for bytes.HasSuffix(w, pad) {
			w = w[:len(w)-len(pad)]
		}
	}
	dst = binary.BigEndian.AppendUint32(append(dst, 'w'), uint32(len(w)))
	return append(dst, w...)
}

// WeightCollationError returns nil when the merge engine compares text of
// the collation named name (as SHOW COLLATION spells it) exactly by the
// server's WEIGHT_STRING, and otherwise the reason it cannot:
//
//   - the collation has weights on several levels (accents, then case),
//     which WEIGHT_STRING concatenates so that no byte order compares
//     them: MariaDB's uca1400 accent- or case-sensitive collations
//     (utf8mb4_uca1400_as_cs, utf8mb4_uca1400_swedish_ai_cs, ...), MySQL
//     8's *_0900_as_cs / *_0900_as_ci / ja_0900_as_cs_ks, latin2_czech_cs,
//     cp1250_czech_cs and the *_thai_520_w2 collations (TestMultiLevel
//     checks the rule against every collation of the test server);
//   - the server's WEIGHT_STRING disagrees with its own comparison:
//     big5_chinese_ci and big5_chinese_nopad_ci give 'α' and 'μ' one
//     weight although STRCMP tells them apart (and GROUP BY keeps them
//     apart), and tis620_thai_nopad_ci weighs 'a\x00' and 'a' differently
//     although STRCMP calls them equal (MariaDB 10.11; found by
//     TestWeightStringsMatchServer, which checks that these are the only
//     single-level collations whose weights disagree with STRCMP).
func WeightCollationError(name string) error {
	n := strings.ToLower(strings.TrimSpace(name))
	multi := false
	switch {
	case strings.HasSuffix(n, "_czech_cs"), strings.HasSuffix(n, "_w2"):
		multi = true
	case strings.Contains(n, "uca1400"), strings.Contains(n, "_0900_"):
		multi = strings.Contains(n, "_as_") || strings.HasSuffix(n, "_cs") || strings.HasSuffix(n, "_ks")
	}
	if multi {
		return fmt.Errorf("collation %q compares accents and case on separate levels, which its WEIGHT_STRING does not keep apart", name)
	}
	if strings.HasPrefix(n, "big5_chinese_") || n == "tis620_thai_nopad_ci" {
		return fmt.Errorf("collation %q has a WEIGHT_STRING that disagrees with the server's own comparison", name)
	}
	return nil
}

// keyOrder is how the mergers compare one key column (an ORDER BY key, a
// grouping column, a MIN/MAX or DISTINCT aggregate argument): by the
// column's collation, or when weight > 0 by the server sort key in column
// weight (and its pad in weight+1).
type keyOrder struct {
	col    int
	coll   Collation
	weight int
}

// orderOf returns the keyOrder of column col of spec.
func orderOf(spec *MergeSpec, col int) keyOrder {
	k := &spec.Kinds[col]
	return keyOrder{col: col, coll: k.coll(), weight: k.Weight}
}

// compare orders rows a and b by the column (ColumnKind.Compare).
func (o *keyOrder) compare(a, b []Cell) int {
	va, vb := &a[o.col], &b[o.col]
	if o.weight == 0 || va.kind == CellNull || vb.kind == CellNull {
		return compareCells(va, vb, o.coll)
	}
	return compareWeights(a[o.weight].b, b[o.weight].b, a[o.weight+1].b)
}

// appendKey appends the column's GROUP BY key of row.
func (o *keyOrder) appendKey(dst []byte, row []Cell) []byte {
	v := &row[o.col]
	if o.weight == 0 || v.kind == CellNull {
		return appendKey(dst, v, o.coll)
	}
	return appendWeightKey(dst, row[o.weight].b, row[o.weight+1].b)
}

// checkRow is the error for a source row of the wrong width, or one whose
// non-NULL value has no sort key (a *NoSortKeyError): such a row cannot
// be ordered.
func checkRow(spec *MergeSpec, row []Cell, source int) error {
	if err := checkWidth(row, spec.Columns, source); err != nil {
		return err
	}
	for i := range spec.Kinds {
		w := spec.Kinds[i].Weight
		if w > 0 && row[i].kind != CellNull && (row[w].kind != CellBytes || row[w+1].kind != CellBytes) {
			return &NoSortKeyError{Source: source, Column: i, Value: row[i].kind}
		}
	}
	return nil
}

// NoSortKeyError is a merge key the plan compares as text by the data
// nodes' sort keys (ColumnKind.Weight) for which a data node returned a
// non-NULL value without one. The server's WEIGHT_STRING is NULL for a
// value that is not text (a number or a time: the planner took an
// expression it could not type for text) and for a sort key longer than
// max_allowed_packet. Either way the statement cannot be merged as
// planned; the proxy refuses it (ERROR 1235) with the way out.
type NoSortKeyError struct {
	Source int      // the source (unit) of the row; -1 when not known
	Column int      // the merged column, from 0
	Value  CellKind // the kind of the value: Bytes for text or a DECIMAL
}

// Error names the column and what to do about it.
func (e *NoSortKeyError) Error() string {
	node := "a data node"
	if e.Source >= 0 {
		node = fmt.Sprintf("a data node (unit %d)", e.Source)
	}
	const fix = "CAST the expression in the statement to the type it has (e.g. CAST(x AS SIGNED), CAST(x AS DECIMAL(10,2))) or to CHAR"
	if e.Value != CellBytes {
		return fmt.Sprintf("merging across data nodes: column %d of the merged rows is compared as text by the data nodes' sort keys (WEIGHT_STRING), but %s returned a value of kind %s, which is not text and has no sort key: the proxy could not tell the expression's type; %s",
			e.Column+1, node, e.Value, fix)
	}
	return fmt.Sprintf("merging across data nodes: %s returned no sort key (WEIGHT_STRING is NULL) for a value of column %d of the merged rows, which is compared as text by them: the value is not text (a DECIMAL whose type the proxy could not tell: %s) or its sort key is longer than the data node's max_allowed_packet",
		node, e.Column+1, fix)
}
