package runtime

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLimitSum(t *testing.T) {
	tests := []struct {
		name          string
		offset, count int64
		want          int64
	}{
		{"both zero", 0, 0, 0},
		{"no offset", 0, 10, 10},
		{"offset and count", 20, 10, 30},
		{"count zero", 5, 0, 5},
		{"every row", 5, math.MaxInt64, math.MaxInt64},
		{"offset near the top", math.MaxInt64 - 1, 1, math.MaxInt64},
		{"overflow saturates", math.MaxInt64 - 1, 2, math.MaxInt64},
		{"both huge", math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{"negative offset", -1, 10, 0},
		{"negative count", 10, -1, 0},
		{"both negative", math.MinInt64, math.MinInt64, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, LimitSum(tt.offset, tt.count))
		})
	}
}

func TestLimitSumDoesNotAllocate(t *testing.T) {
	var sink int64
	allocs := testing.AllocsPerRun(100, func() { sink += LimitSum(sink&7, 10) })
	require.Zero(t, allocs)
}
