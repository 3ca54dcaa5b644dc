package runtime

import (
	"database/sql"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDriverArgs checks that a sql.Null[uint64] reaches the driver as its
// value (nil for NULL), in a copy, and that other arguments pass as they are.
func TestDriverArgs(t *testing.T) {
	plain := []any{int64(1), "x", sql.NullInt64{Int64: 2, Valid: true}}
	require.Same(t, &plain[0], &driverArgs(plain)[0], "no copy without a sql.Null[uint64]")

	args := []any{int64(1), sql.Null[uint64]{V: math.MaxUint64, Valid: true}, sql.Null[uint64]{}, uint64(7)}
	got := driverArgs(args)
	require.Equal(t, []any{int64(1), uint64(math.MaxUint64), nil, uint64(7)}, got)
	require.Equal(t, sql.Null[uint64]{V: math.MaxUint64, Valid: true}, args[1], "the caller's arguments are not changed")
	require.Nil(t, driverArgs(nil))
}
