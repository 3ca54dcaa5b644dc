package load

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		require.Equal(t, tc.want, Median(tc.in))
	}
}

func TestRoundErrors(t *testing.T) {
	ctx := context.Background()
	nop := func(context.Context, *Worker) error { return nil }
	_, err := Round(ctx, 0, time.Millisecond, nop)
	require.EqualError(t, err, "load: workers must be >= 1, got 0")
	_, err = Round(ctx, 1, 0, nop)
	require.EqualError(t, err, "load: round duration must be positive, got 0s")
	_, err = Round(ctx, 2, time.Second, func(context.Context, *Worker) error { return errors.New("boom") })
	require.EqualError(t, err, "boom")
	_, err = Compare(ctx, 0, 1, time.Millisecond, 0, nop, nop)
	require.EqualError(t, err, "load: rounds must be >= 1, got 0")
}

// TestCompareInterleaves checks the order of the rounds (warm-up A B, then
// A B, B A, A B: ABBA counterbalancing), that every round counted events,
// and the ratio's arithmetic; it asserts nothing about time, so a loaded
// machine cannot fail it.
func TestCompareInterleaves(t *testing.T) {
	var order []string
	mk := func(name string) Op {
		return func(_ context.Context, w *Worker) error {
			if len(order) == 0 || order[len(order)-1] != name {
				order = append(order, name)
			}
			return nil
		}
	}
	// The probe runs before and after every measured round: "|" marks the
	// rounds' ends, so two rounds of one side in a row stay apart.
	probe := func() float64 { order = append(order, "|"); return 0 }
	c, err := CompareProbe(context.Background(), 3, 1, time.Millisecond, time.Millisecond, mk("A"), mk("B"), probe)
	require.NoError(t, err)
	require.Equal(t, "A B | A | | B | | B | | A | | A | | B |", strings.Join(order, " "))
	require.Len(t, c.A, 3)
	require.Len(t, c.B, 3)
	for _, s := range append(c.A, c.B...) {
		require.Positive(t, s.Events)
		require.Positive(t, s.PerSec)
	}
	require.Equal(t, c.MedianB()/c.MedianA(), c.Ratio())
}

// TestRoundOneEventPerWorker: a worker that starts after the round's
// deadline still completes one event (the deadline is in the past before
// any worker runs).
func TestRoundOneEventPerWorker(t *testing.T) {
	var n atomic.Int64
	s, err := Round(context.Background(), 4, time.Nanosecond, func(context.Context, *Worker) error {
		n.Add(1)
		time.Sleep(time.Millisecond) // past the deadline after the first event
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, n.Load(), s.Events)
	require.GreaterOrEqual(t, s.Events, int64(4))
}

func TestRatio(t *testing.T) {
	c := Comparison{
		A: []Sample{{PerSec: 10}, {PerSec: 30}, {PerSec: 20}},
		B: []Sample{{PerSec: 5}, {PerSec: 15}, {PerSec: 40}},
	}
	require.Equal(t, 20.0, c.MedianA())
	require.Equal(t, 15.0, c.MedianB())
	require.Equal(t, 0.75, c.Ratio())
	require.Equal(t, 0.0, Comparison{B: c.B}.Ratio())
}

func TestCompareProbe(t *testing.T) {
	ctx := context.Background()
	nop := func(context.Context, *Worker) error { return nil }
	for _, tc := range []struct {
		name  string
		probe func() float64
		want  float64
	}{
		{"no probe", nil, 0},
		{"counter", func() func() float64 {
			var n float64
			return func() float64 { n += 2; return n }
		}(), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompareProbe(ctx, 2, 1, time.Millisecond, 0, nop, nop, tc.probe)
			require.NoError(t, err)
			require.Len(t, c.A, 2)
			require.Len(t, c.B, 2)
			for _, s := range append(c.A, c.B...) {
				require.Equal(t, tc.want, s.Probe)
			}
		})
	}
}
