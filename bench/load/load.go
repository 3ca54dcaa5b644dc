// Package load is the load harness of `make bench` (issue 8): it runs an
// operation from N workers for a fixed time, the way sysbench runs a
// scenario's event, and compares two implementations of the same scenario
// in interleaved rounds (A B B A A B …), reporting the median throughput of each
// and their ratio. It knows nothing about databases; bench/cmd/shardgen-bench
// supplies the operations.
//
// Model: sysbench 1.0's event loop (threads, --time, events per second)
// (https://github.com/akopytov/sysbench), without its rate limiter.
package load

import (
	"context"
	"errors"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Worker is the state one worker goroutine passes to every call of its Op:
// its index (0 … workers-1) and a private random source (PCG seeded by the
// index, so runs are repeatable and workers never share a lock).
type Worker struct {
	ID   int
	Rand *rand.Rand
	// Buf is scratch space an Op may reuse between its calls.
	Buf []byte
}

// Op is one event of a scenario (one statement, or one group of statements
// for a mix). A non-nil error stops the round.
type Op func(ctx context.Context, w *Worker) error

// Sample is the outcome of one round: events completed, the wall time from
// the first worker's start to the last worker's end, and events per second.
type Sample struct {
	Events  int64
	Elapsed time.Duration
	PerSec  float64
	// Probe is the increase of CompareProbe's probe over the round (0
	// without a probe), e.g. CPU seconds some processes spent.
	Probe float64
}

// Round runs op from workers goroutines until d has passed (an event that
// started before the deadline finishes; every worker completes at least one
// event, even when the scheduler starts it after the deadline, so a round
// on a loaded machine never measures nothing) and returns the events per
// second.
// It returns the first error of any worker (the round is then abandoned) or
// an error when workers < 1 or d <= 0.
func Round(ctx context.Context, workers int, d time.Duration, op Op) (Sample, error) {
	if workers < 1 {
		return Sample{}, errors.New("load: workers must be >= 1, got " + strconv.Itoa(workers))
	}
	if d <= 0 {
		return Sample{}, errors.New("load: round duration must be positive, got " + d.String())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		stop   atomic.Bool
		events atomic.Int64
		wg     sync.WaitGroup
		once   sync.Once
		first  error
	)
	start := time.Now()
	timer := time.AfterFunc(d, func() { stop.Store(true) })
	defer timer.Stop()
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			w := &Worker{ID: id, Rand: rand.New(rand.NewPCG(uint64(id)+1, uint64(start.UnixNano())))}
			var n int64
			for {
				if err := op(ctx, w); err != nil {
					once.Do(func() { first = err; stop.Store(true); cancel() })
					break
				}
				n++
				if stop.Load() {
					break
				}
			}
			events.Add(n)
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if first != nil {
		return Sample{}, first
	}
	s := Sample{Events: events.Load(), Elapsed: elapsed}
	s.PerSec = float64(s.Events) / elapsed.Seconds()
	return s, nil
}

// Comparison holds the rounds of a reference implementation A and a
// candidate B of one scenario, in the order they ran.
type Comparison struct {
	A, B []Sample
}

// MedianA is the median events/s of A's rounds (0 without rounds).
func (c Comparison) MedianA() float64 { return Median(perSec(c.A)) }

// MedianB is the median events/s of B's rounds (0 without rounds).
func (c Comparison) MedianB() float64 { return Median(perSec(c.B)) }

// Ratio is MedianB / MedianA: above 1 means B is faster (0 when A has no
// throughput).
func (c Comparison) Ratio() float64 {
	a := c.MedianA()
	if a == 0 {
		return 0
	}
	return c.MedianB() / a
}

// Compare runs rounds rounds of A and of B interleaved, each a Round of
// workers for d, after one unmeasured warm-up round of each of warmup length
// (none when warmup <= 0). The order alternates (A B, B A, A B, …: ABBA
// counterbalancing), so a drift of the servers over the run, such as purge
// work that a side's updates leave for the next round, does not always fall
// on the same side. It stops at the first error, naming the side and round.
func Compare(ctx context.Context, rounds, workers int, d, warmup time.Duration, a, b Op) (Comparison, error) {
	return CompareProbe(ctx, rounds, workers, d, warmup, a, b, nil)
}

// CompareProbe is Compare reading probe (a monotonic counter, such as the
// CPU seconds of the database servers; nil for none) before and after every
// measured round and storing the difference in the round's Sample.Probe.
func CompareProbe(ctx context.Context, rounds, workers int, d, warmup time.Duration, a, b Op, probe func() float64) (Comparison, error) {
	var c Comparison
	measure := func(op Op) (Sample, error) {
		if probe == nil {
			return Round(ctx, workers, d, op)
		}
		p0 := probe()
		s, err := Round(ctx, workers, d, op)
		s.Probe = probe() - p0
		return s, err
	}
	if rounds < 1 {
		return c, errors.New("load: rounds must be >= 1, got " + strconv.Itoa(rounds))
	}
	if warmup > 0 {
		if _, err := Round(ctx, workers, warmup, a); err != nil {
			return c, errors.New("warm-up A: " + err.Error())
		}
		if _, err := Round(ctx, workers, warmup, b); err != nil {
			return c, errors.New("warm-up B: " + err.Error())
		}
	}
	for r := 1; r <= rounds; r++ {
		first, second := "A", "B"
		if r%2 == 0 {
			first, second = "B", "A"
		}
		for _, side := range []string{first, second} {
			op, dst := a, &c.A
			if side == "B" {
				op, dst = b, &c.B
			}
			s, err := measure(op)
			if err != nil {
				return c, errors.New("round " + strconv.Itoa(r) + " " + side + ": " + err.Error())
			}
			*dst = append(*dst, s)
		}
	}
	return c, nil
}

func perSec(s []Sample) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = x.PerSec
	}
	return out
}

// Median returns the median of xs (the mean of the two middle values for an
// even count; 0 for none). xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
