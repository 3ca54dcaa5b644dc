package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJoinRows: keys compare as MySQL's = (5 = 5.00, 'a' = 'A ' under
// utf8mb4_general_ci), NULL keys match nothing, a LEFT join keeps an
// unmatched outer row with NULLs, and the row limit is enforced.
func TestJoinRows(t *testing.T) {
	gci, err := ParseCollation("utf8mb4_general_ci")
	require.NoError(t, err)
	spec := &JoinSpec{
		OuterKeys: []int{1}, InnerKeys: []int{0},
		OuterKinds: []ColumnKind{{Type: ColumnInt}, {Type: ColumnDecimal}},
		InnerKinds: []ColumnKind{{Type: ColumnInt}, {Type: ColumnBytes}},
	}
	outer := [][]any{{int64(1), []byte("5.00")}, {int64(2), nil}, {int64(3), []byte("7")}}
	inner := [][]any{{int64(5), []byte("x")}, {nil, []byte("n")}, {int64(5), []byte("y")}}
	rows, err := JoinRows(spec, outer, inner, 10)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(1), []byte("5.00"), int64(5), []byte("x")}, {int64(1), []byte("5.00"), int64(5), []byte("y")}}, rows)
	spec.Left = true
	rows, err = JoinRows(spec, outer, inner, 10)
	require.NoError(t, err)
	require.Len(t, rows, 4)
	require.Equal(t, []any{int64(2), nil, nil, nil}, rows[2])
	require.Equal(t, []any{int64(3), []byte("7"), nil, nil}, rows[3])
	_, err = JoinRows(spec, outer, inner, 3)
	require.ErrorIs(t, err, ErrJoinRows)
	// NullFrom: inner column 1 of an unmatched row is outer column 0's.
	spec.NullFrom = []int{0, 1}
	rows, err = JoinRows(spec, outer, inner, 10)
	require.NoError(t, err)
	require.Equal(t, []any{int64(2), nil, nil, int64(2)}, rows[2])
	require.Equal(t, []any{int64(1), []byte("5.00"), int64(5), []byte("x")}, rows[0])
	spec.NullFrom = nil

	text := &JoinSpec{OuterKeys: []int{0}, InnerKeys: []int{0},
		OuterKinds: []ColumnKind{{Type: ColumnString, Collation: gci}}, InnerKinds: []ColumnKind{{Type: ColumnString, Collation: gci}}}
	rows, err = JoinRows(text, [][]any{{[]byte("a")}}, [][]any{{[]byte("A ")}, {[]byte("b")}}, 10)
	require.NoError(t, err)
	require.Equal(t, [][]any{{[]byte("a"), []byte("A ")}}, rows)
}

// TestJoinRowsResidual: residual comparisons filter the pairs of equal
// keys (text by collation, PAD SPACE: 'a' <> 'A ' is FALSE; numbers by
// value; NULL never TRUE); a LEFT join row whose pairs all fail keeps
// NULLs.
func TestJoinRowsResidual(t *testing.T) {
	gci, err := ParseCollation("utf8mb4_general_ci")
	require.NoError(t, err)
	kinds := []ColumnKind{{Type: ColumnInt}, {Type: ColumnString, Collation: gci}, {Type: ColumnDecimal}}
	spec := &JoinSpec{Left: true, OuterKeys: []int{0}, InnerKeys: []int{0}, OuterKinds: kinds, InnerKinds: kinds,
		Residual: []JoinResidual{{Outer: 1, Op: CompareNe, Inner: 1}, {Outer: 2, Op: CompareLt, Inner: 2}}}
	outer := [][]any{{int64(1), []byte("a"), []byte("1.50")}, {int64(2), []byte("b"), nil}}
	inner := [][]any{
		{int64(1), []byte("A "), []byte("9")},   // 'a' = 'A ': <> is FALSE
		{int64(1), []byte("c"), []byte("1.5")},  // 1.50 < 1.5 is FALSE
		{int64(1), []byte("d"), []byte("1.51")}, // matches
		{int64(2), []byte("x"), []byte("3")},    // NULL < 3 is not TRUE
	}
	rows, err := JoinRows(spec, outer, inner, 10)
	require.NoError(t, err)
	require.Equal(t, [][]any{
		{int64(1), []byte("a"), []byte("1.50"), int64(1), []byte("d"), []byte("1.51")},
		{int64(2), []byte("b"), nil, nil, nil, nil},
	}, rows)
	for op, want := range map[CompareOp][]int{CompareEq: {0}, CompareNe: {1, 2}, CompareLt: {1, 2}, CompareLe: {0, 1, 2}, CompareGt: nil, CompareGe: {0}} {
		spec := &JoinSpec{OuterKeys: []int{0}, InnerKeys: []int{0}, OuterKinds: kinds, InnerKinds: kinds, Residual: []JoinResidual{{Outer: 1, Op: op, Inner: 1}}}
		rows, err := JoinRows(spec, outer[:1], inner[:3], 10)
		require.NoError(t, err)
		var got []int
		for _, r := range rows {
			for i, in := range inner[:3] {
				if string(r[4].([]byte)) == string(in[1].([]byte)) {
					got = append(got, i)
				}
			}
		}
		require.Equal(t, want, got, op)
	}
}

// TestSortRows: NULL first ascending, numbers by value, DESC, stable.
func TestSortRows(t *testing.T) {
	kinds := []ColumnKind{{Type: ColumnDecimal}, {Type: ColumnInt}}
	rows := [][]any{{[]byte("10"), int64(1)}, {nil, int64(2)}, {[]byte("9.5"), int64(3)}, {[]byte("10.0"), int64(4)}}
	require.NoError(t, SortRows(kinds, []SortKey{{Column: 0}}, rows))
	require.Equal(t, []any{int64(2), int64(3), int64(1), int64(4)}, []any{rows[0][1], rows[1][1], rows[2][1], rows[3][1]})
	require.NoError(t, SortRows(kinds, []SortKey{{Column: 0, Desc: true}, {Column: 1, Desc: true}}, rows))
	require.Equal(t, []any{int64(4), int64(1), int64(3), int64(2)}, []any{rows[0][1], rows[1][1], rows[2][1], rows[3][1]})
}

// TestJoinNoSortKey: a text key or residual column weighed by the data
// nodes' sort keys whose value came as a number (MariaDB's WEIGHT_STRING of
// a number is NULL) is a NoSortKeyError naming CAST.
func TestJoinNoSortKey(t *testing.T) {
	kinds := []ColumnKind{{Type: ColumnString, Weight: 1}, {Type: ColumnBytes}, {Type: ColumnBytes}}
	var nk *NoSortKeyError
	_, err := RowKey(nil, kinds, []any{int64(7), nil, []byte{}}, []int{0})
	require.ErrorAs(t, err, &nk)
	require.Equal(t, NoSortKeyError{Source: -1, Column: 0, Value: CellInt}, *nk)
	require.Contains(t, err.Error(), "CAST")
	kinds = []ColumnKind{{Type: ColumnString, Weight: 2}, {Type: ColumnInt}, {Type: ColumnBytes}, {Type: ColumnBytes}}
	spec := &JoinSpec{OuterKeys: []int{1}, InnerKeys: []int{1}, OuterKinds: kinds, InnerKinds: kinds,
		Residual: []JoinResidual{{Outer: 0, Op: CompareLt, Inner: 0}}}
	_, err = JoinRows(spec, [][]any{{[]byte("a"), int64(1), []byte("w"), []byte{}}}, [][]any{{int64(7), int64(1), nil, []byte{}}}, 10)
	require.ErrorAs(t, err, &nk)
	require.Equal(t, NoSortKeyError{Source: -1, Column: 0, Value: CellInt}, *nk)
}
