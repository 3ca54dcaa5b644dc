package runtime

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSliceUnits expands the list's `?` per data node: nil runs nothing, an
// empty list becomes NULL, and the arguments are before, the values, after.
func TestSliceUnits(t *testing.T) {
	src := &Sources{names: []string{"ds_0", "ds_1"}}
	all := []RouteUnit{
		{DataSource: 0, SQL: "SELECT a FROM t_0 WHERE b = ? AND a IN (?) LIMIT ?"},
		{DataSource: 1, SQL: "SELECT a FROM t_1 WHERE b = ? AND a IN (?) LIMIT ?"},
		{DataSource: 1, SQL: "SELECT a FROM t_2 WHERE b = ? AND a IN (?) LIMIT ?"},
	}
	at := []int{40, 40, 40}
	units, err := src.SliceUnits(all, at, [][]any{{int64(1), int64(3)}, nil, {}}, []any{"x"}, []any{10})
	require.NoError(t, err)
	require.Equal(t, []RouteUnit{
		{DataSource: 0, SQL: "SELECT a FROM t_0 WHERE b = ? AND a IN (?, ?) LIMIT ?", Args: []any{"x", int64(1), int64(3), 10}},
		{DataSource: 1, SQL: "SELECT a FROM t_2 WHERE b = ? AND a IN (NULL) LIMIT ?", Args: []any{"x", 10}},
	}, units)

	units, err = src.SliceUnits(all, at, make([][]any, 3), nil, nil)
	require.NoError(t, err)
	require.Empty(t, units)

	_, err = src.SliceUnits(all, []int{40, 41, 40}, [][]any{nil, {1}, nil}, nil, nil)
	require.EqualError(t, err, "slice units: offset 41 of unit 1 is not a placeholder")
	_, err = src.SliceUnits(all, at[:2], [][]any{nil, {1}, nil}, nil, nil)
	require.EqualError(t, err, "slice units: 3 units, 2 offsets, 3 value lists")

	// Over the limit, repeated values are dropped first: 200,000 values of
	// which 3 differ (an int64, a string and a []byte equal by content) run.
	many := make([]any, 0, 200000)
	for i := range 200000 {
		switch i % 3 {
		case 0:
			many = append(many, int64(7))
		case 1:
			many = append(many, "7")
		default:
			many = append(many, []byte{'7'})
		}
	}
	units, err = src.SliceUnits(all, at, [][]any{many, nil, nil}, []any{"x"}, []any{10})
	require.NoError(t, err)
	require.Equal(t, []RouteUnit{
		{DataSource: 0, SQL: "SELECT a FROM t_0 WHERE b = ? AND a IN (?, ?, ?) LIMIT ?", Args: []any{"x", int64(7), "7", []byte{'7'}, 10}},
	}, units)
	distinct := make([]any, MaxPlaceholders+1)
	for i := range distinct {
		distinct[i] = int64(i)
	}
	_, err = src.SliceUnits(all, at, [][]any{append(distinct, int64(0)), nil, nil}, nil, nil)
	require.EqualError(t, err, "data node ds_0: sqlc.slice list of 65536 distinct values there, 65536 placeholders with the other arguments: more placeholders than MySQL's limit of 65535 for one statement (ER_PS_MANY_PARAM)")
	require.ErrorIs(t, err, ErrTooManyPlaceholders)
	_, err = src.SliceUnits(all, at, [][]any{nil, distinct[:MaxPlaceholders], nil}, []any{1}, nil)
	require.EqualError(t, err, "data node ds_1: sqlc.slice list of 65535 distinct values there, 65536 placeholders with the other arguments: more placeholders than MySQL's limit of 65535 for one statement (ER_PS_MANY_PARAM)")
	// A unit whose data source is not one of the Sources.
	_, err = src.SliceUnits([]RouteUnit{{DataSource: 2, SQL: "SELECT ?"}}, []int{7}, [][]any{{1}}, nil, nil)
	require.ErrorIs(t, err, ErrBadRouteUnit)
}

// TestSliceUnitsRows: an IN list of rows (StepQuery.ListWidth) is written
// as one condition per row, ORed in parentheses, its values flattened in
// order; NULL for none; a value that is not a row of that width fails.
func TestSliceUnitsRows(t *testing.T) {
	src := &Sources{names: []string{"ds_0", "ds_1"}}
	all := []RouteUnit{
		{DataSource: 0, SQL: "DELETE FROM t WHERE n > ? AND ?"},
		{DataSource: 1, SQL: "DELETE FROM t WHERE n > ? AND ?"},
	}
	at := []int{30, 30}
	elem := "(a, b) = (?, CONVERT(? USING latin1))"
	units, err := src.sliceUnits(all, at, elem, 2, [][]any{{[]any{int64(1), "x"}, []any{int64(3), "é"}}, {}}, []any{7}, nil)
	require.NoError(t, err)
	require.Equal(t, []RouteUnit{
		{DataSource: 0, SQL: "DELETE FROM t WHERE n > ? AND ((a, b) = (?, CONVERT(? USING latin1)) OR (a, b) = (?, CONVERT(? USING latin1)))", Args: []any{7, int64(1), "x", int64(3), "é"}},
		{DataSource: 1, SQL: "DELETE FROM t WHERE n > ? AND NULL", Args: []any{7}},
	}, units)
	_, err = src.sliceUnits(all, at, elem, 2, [][]any{{int64(1)}, nil}, nil, nil)
	require.EqualError(t, err, "slice units: a value of an IN list of rows of 2 is int64")
}

// TestLimitArgs: a step's LIMIT parameter is read as the data nodes read
// it from the binary protocol: a negative integer is every row, NULL none;
// the caller's arguments are not changed.
func TestLimitArgs(t *testing.T) {
	spec := &MergeSpec{Count: LimitValue{Value: 1, Param: true}}
	args := []any{"x", int64(-1)}
	require.Equal(t, []any{"x", int64(math.MaxInt64)}, limitArgs(spec, args))
	require.Equal(t, []any{"x", int64(-1)}, args)
	require.Equal(t, []any{"x", int64(0)}, limitArgs(spec, []any{"x", nil}))
	require.Equal(t, []any{"x", int32(3)}, limitArgs(spec, []any{"x", int32(3)}))
	require.Equal(t, []any{"x"}, limitArgs(&MergeSpec{Count: NoLimit}, []any{"x"}))
}
