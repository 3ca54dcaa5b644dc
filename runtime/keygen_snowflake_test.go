package runtime

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// t2024 is 2024-01-01T00:00:00Z in Unix milliseconds.
const t2024 int64 = 1704067200000

// fakeClock is a scripted wall clock: at returns the time of the n-th read
// (n counts from 0). Sleeps are recorded, not taken.
type fakeClock struct {
	at     func(n int) int64
	reads  int
	sleeps []time.Duration
}

func (c *fakeClock) now() int64 {
	t := c.at(c.reads)
	c.reads++
	return t
}

func (c *fakeClock) sleep(d time.Duration) { c.sleeps = append(c.sleeps, d) }

// seqClock returns the given times in order, then repeats the last one.
func seqClock(times ...int64) *fakeClock {
	return &fakeClock{at: func(n int) int64 {
		if n >= len(times) {
			return times[len(times)-1]
		}
		return times[n]
	}}
}

// newTestSnowflake configures a SNOWFLAKE generator driven by clock.
func newTestSnowflake(t testing.TB, props Props, clock *fakeClock) *snowflake {
	t.Helper()
	kg, err := NewKeyGenerator("snowflake", props)
	require.NoError(t, err)
	g := kg.(*snowflake)
	g.now = clock.now
	g.sleep = clock.sleep
	return g
}

// gen returns the next key of g as an int64.
func gen(t testing.TB, g KeyGenerator) int64 {
	t.Helper()
	v, err := g.Generate()
	require.NoError(t, err)
	require.Equal(t, KindLong, v.Kind)
	return v.Int
}

// key builds a snowflake key from its parts with the UTC epoch.
func key(millis, worker, seq int64) int64 {
	return (millis-SnowflakeEpochUTC)<<22 | worker<<12 | seq
}

func TestSnowflakePropErrors(t *testing.T) {
	tests := []struct {
		name  string
		props Props
		err   string
	}{
		{"worker-id too big", Props{"worker-id": "2048"}, `property "worker-id" must be between 0 and 1023, got 2048`},
		{"worker-id 1024", Props{"worker-id": "1024"}, `property "worker-id" must be between 0 and 1023, got 1024`},
		{"worker-id negative", Props{"worker-id": "-1"}, `property "worker-id" must be between 0 and 1023, got -1`},
		{"worker-id not a number", Props{"worker-id": "one"}, `property "worker-id" must be an integer, got "one"`},
		{"vibration too big", Props{"max-vibration-offset": "4096"}, `property "max-vibration-offset" must be between 0 and 4095, got 4096`},
		{"vibration negative", Props{"max-vibration-offset": "-1"}, `property "max-vibration-offset" must be between 0 and 4095, got -1`},
		{"tolerance negative", Props{"max-tolerate-time-difference-milliseconds": "-1"}, `property "max-tolerate-time-difference-milliseconds" must be between 0 and 2147483647, got -1`},
		{"tolerance beyond int", Props{"max-tolerate-time-difference-milliseconds": "2147483648"}, `property "max-tolerate-time-difference-milliseconds" must be between 0 and 2147483647, got 2147483648`},
		{"tolerance not a number", Props{"max-tolerate-time-difference-milliseconds": "10ms"}, `property "max-tolerate-time-difference-milliseconds" must be an integer, got "10ms"`},
		{"unknown zone", Props{"epoch-time-zone": "Mars/Olympus"}, `property "epoch-time-zone" must be an IANA time zone name such as Asia/Shanghai, got "Mars/Olympus"`},
		{"Local zone", Props{"epoch-time-zone": "Local"}, `property "epoch-time-zone" must be an IANA time zone name such as Asia/Shanghai, got "Local"`},
		{"empty zone", Props{"epoch-time-zone": " "}, `property "epoch-time-zone" is required`},
		{"both epochs", Props{"epoch-time-zone": "UTC", "epoch-milliseconds": "1477958400000"}, `property "epoch-milliseconds" must not be set together with "epoch-time-zone"`},
		{"negative epoch", Props{"epoch-milliseconds": "-5"}, `property "epoch-milliseconds" must not be negative, got -5`},
		{"epoch not a number", Props{"epoch-milliseconds": "2016-11-01"}, `property "epoch-milliseconds" must be an integer, got "2016-11-01"`},
		{"empty epoch", Props{"epoch-milliseconds": ""}, `property "epoch-milliseconds" is required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewKeyGenerator("SNOWFLAKE", tt.props)
			require.EqualError(t, err, tt.err)
			var pe *PropError
			require.ErrorAs(t, err, &pe)
		})
	}
}

func TestSnowflakeProps(t *testing.T) {
	tests := []struct {
		name      string
		props     Props
		epoch     int64
		worker    int64
		vibration int64
		tolerance int64
	}{
		{"defaults", nil, 1477958400000, 0, 1, 10},
		{"UTC zone", Props{"epoch-time-zone": "UTC"}, 1477958400000, 0, 1, 10},
		{"Shanghai zone", Props{"epoch-time-zone": "Asia/Shanghai"}, 1477929600000, 0, 1, 10},
		// 2016-11-01 was still daylight saving time (UTC-4) in New York.
		{"New York zone", Props{"epoch-time-zone": "America/New_York"}, 1477972800000, 0, 1, 10},
		{"epoch millis", Props{"epoch-milliseconds": "1477929600000"}, 1477929600000, 0, 1, 10},
		{"all set", Props{"worker-id": "1023", "max-vibration-offset": "4095", "max-tolerate-time-difference-milliseconds": "0", "ignored-prop": "x"},
			1477958400000, 1023, 4095, 0},
		{"spaces trimmed", Props{"worker-id": " 7 "}, 1477958400000, 7, 1, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kg, err := NewKeyGenerator("Snowflake", tt.props)
			require.NoError(t, err)
			require.Equal(t, "SNOWFLAKE", kg.Type())
			g := kg.(*snowflake)
			require.Equal(t, tt.epoch, g.epoch)
			require.Equal(t, tt.worker<<12, g.workerBits)
			require.Equal(t, tt.vibration, g.maxVibration)
			require.Equal(t, tt.tolerance, g.tolerance)
		})
	}
}

func TestSnowflakeComputedVector(t *testing.T) {
	// The first millisecond starts at vibration offset 0, the next at 1.
	g := newTestSnowflake(t, nil, seqClock(t2024-1, t2024))
	require.Equal(t, key(t2024-1, 0, 0), gen(t, g))
	id := gen(t, g)
	require.Equal(t, int64(948369044275200001), id)

	at, worker, seq := SnowflakeParts(id, SnowflakeEpochUTC)
	require.Equal(t, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), at)
	require.Equal(t, int64(0), worker)
	require.Equal(t, int64(1), seq)
}

func TestSnowflakeEpochZone(t *testing.T) {
	// A JVM in Asia/Shanghai counts from 2016-10-31T16:00:00Z.
	g := newTestSnowflake(t, Props{"epoch-time-zone": "Asia/Shanghai", "worker-id": "5"}, seqClock(t2024))
	id := gen(t, g)
	require.Equal(t, (t2024-1477929600000)<<22|5<<12, id)
	at, worker, seq := SnowflakeParts(id, 1477929600000)
	require.Equal(t, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), at)
	require.Equal(t, int64(5), worker)
	require.Equal(t, int64(0), seq)
}

func TestSnowflakeParts(t *testing.T) {
	tests := []struct {
		id     int64
		at     time.Time
		worker int64
		seq    int64
	}{
		{0, time.Date(2016, 11, 1, 0, 0, 0, 0, time.UTC), 0, 0},
		{948369044275200001, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 0, 1},
		{key(t2024+999, 1023, 4095), time.Date(2024, 1, 1, 0, 0, 0, 999e6, time.UTC), 1023, 4095},
		{key(t2024, 512, 7), time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 512, 7},
	}
	for _, tt := range tests {
		at, worker, seq := SnowflakeParts(tt.id, SnowflakeEpochUTC)
		require.Equal(t, tt.at, at, "id %d", tt.id)
		require.Equal(t, tt.worker, worker, "id %d", tt.id)
		require.Equal(t, tt.seq, seq, "id %d", tt.id)
	}
}

func TestSnowflakeVibration(t *testing.T) {
	tests := []struct {
		name  string
		props Props
		seqs  []int64 // sequence of the first key of each new millisecond
	}{
		{"default alternates", nil, []int64{0, 1, 0, 1, 0, 1}},
		{"zero keeps 0", Props{"max-vibration-offset": "0"}, []int64{0, 0, 0, 0}},
		{"three rotates", Props{"max-vibration-offset": "3"}, []int64{0, 1, 2, 3, 0, 1, 2, 3, 0}},
		{"max", Props{"max-vibration-offset": "4095"}, []int64{0, 1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{at: func(n int) int64 { return t2024 + int64(n) }}
			g := newTestSnowflake(t, tt.props, clock)
			for i, want := range tt.seqs {
				require.Equal(t, key(t2024+int64(i), 0, want), gen(t, g), "millisecond %d", i)
			}
		})
	}
}

func TestSnowflakeSameMillisecond(t *testing.T) {
	// Two keys in the first millisecond (offset 0), three in the second
	// (offset 1), then a millisecond is skipped (offset 0 again).
	g := newTestSnowflake(t, Props{"worker-id": "3"}, seqClock(t2024, t2024, t2024+1, t2024+1, t2024+1, t2024+5))
	var got []int64
	for range 6 {
		got = append(got, gen(t, g))
	}
	require.Equal(t, []int64{
		key(t2024, 3, 0), key(t2024, 3, 1),
		key(t2024+1, 3, 1), key(t2024+1, 3, 2), key(t2024+1, 3, 3),
		key(t2024+5, 3, 0),
	}, got)
}

func TestSnowflakeSequenceWrapWaitsForNextMillisecond(t *testing.T) {
	tests := []struct {
		name   string
		offset int64 // vibration offset the millisecond starts at
		first  int64 // millisecond of the test's first key
	}{
		{"offset 0", 0, t2024},
		{"offset 1", 1, t2024 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perMs := 4096 - tt.offset // keys the millisecond can hold
			spins := 3                // extra reads that still show the full millisecond
			clock := &fakeClock{}
			clock.at = func(n int) int64 {
				switch {
				case tt.offset == 1 && n == 0:
					return t2024 // a throw-away key so the next millisecond starts at offset 1
				case n < int(tt.offset)+int(perMs)+1+spins:
					return tt.first
				default:
					return tt.first + 1
				}
			}
			g := newTestSnowflake(t, nil, clock)
			if tt.offset == 1 {
				gen(t, g)
			}
			for i := range perMs {
				require.Equal(t, key(tt.first, 0, tt.offset+i), gen(t, g))
			}
			// The sequence wraps to 0: the generator spins on the clock until
			// the next millisecond and uses it with sequence 0.
			readsBefore := clock.reads
			require.Equal(t, key(tt.first+1, 0, 0), gen(t, g))
			require.Equal(t, 1+spins+1, clock.reads-readsBefore)
			// Same millisecond again: the sequence goes on from 0.
			require.Equal(t, key(tt.first+1, 0, 1), gen(t, g))
			require.Empty(t, clock.sleeps)
		})
	}
}

func TestSnowflakeClockBackWithinTolerance(t *testing.T) {
	tests := []struct {
		name   string
		props  Props
		times  []int64 // clock reads; the first makes the first key
		sleeps []time.Duration
		second int64 // the second key
	}{
		{"back 3 ms, caught up", nil, []int64{t2024, t2024 - 3, t2024}, []time.Duration{3 * time.Millisecond}, key(t2024, 0, 1)},
		{"back 9 ms, then later", nil, []int64{t2024, t2024 - 9, t2024 + 1}, []time.Duration{9 * time.Millisecond}, key(t2024+1, 0, 1)},
		{"still behind after the first sleep", nil, []int64{t2024, t2024 - 4, t2024 - 2, t2024}, []time.Duration{4 * time.Millisecond, 2 * time.Millisecond}, key(t2024, 0, 1)},
		{"tolerance 100", Props{"max-tolerate-time-difference-milliseconds": "100"}, []int64{t2024, t2024 - 99, t2024}, []time.Duration{99 * time.Millisecond}, key(t2024, 0, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := seqClock(tt.times...)
			g := newTestSnowflake(t, tt.props, clock)
			require.Equal(t, key(t2024, 0, 0), gen(t, g))
			require.Equal(t, tt.second, gen(t, g))
			require.Equal(t, tt.sleeps, clock.sleeps)
		})
	}
}

func TestSnowflakeClockBackBeyondTolerance(t *testing.T) {
	tests := []struct {
		name   string
		props  Props
		times  []int64
		sleeps []time.Duration
		err    string
	}{
		{"back 10 ms", nil, []int64{t2024, t2024 - 10}, nil,
			"clock is moving backwards: last time is 1704067200000 milliseconds, current time is 1704067199990 milliseconds (max-tolerate-time-difference-milliseconds is 10)"},
		{"back an hour", nil, []int64{t2024, t2024 - 3600000}, nil,
			"clock is moving backwards: last time is 1704067200000 milliseconds, current time is 1704063600000 milliseconds (max-tolerate-time-difference-milliseconds is 10)"},
		{"tolerance 0", Props{"max-tolerate-time-difference-milliseconds": "0"}, []int64{t2024, t2024 - 1}, nil,
			"clock is moving backwards: last time is 1704067200000 milliseconds, current time is 1704067199999 milliseconds (max-tolerate-time-difference-milliseconds is 0)"},
		{"clock stays behind", nil, []int64{t2024, t2024 - 5}, []time.Duration{5 * time.Millisecond, 5 * time.Millisecond},
			"clock is moving backwards: last time is 1704067200000 milliseconds, current time is 1704067199995 milliseconds (max-tolerate-time-difference-milliseconds is 10)"},
		{"back further after the sleep", nil, []int64{t2024, t2024 - 5, t2024 - 20}, []time.Duration{5 * time.Millisecond},
			"clock is moving backwards: last time is 1704067200000 milliseconds, current time is 1704067199980 milliseconds (max-tolerate-time-difference-milliseconds is 10)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := seqClock(tt.times...)
			g := newTestSnowflake(t, tt.props, clock)
			require.Equal(t, key(t2024, 0, 0), gen(t, g))
			v, err := g.Generate()
			require.EqualError(t, err, tt.err)
			require.True(t, errors.Is(err, ErrClockMovedBackwards))
			require.Equal(t, Value{}, v)
			require.Equal(t, tt.sleeps, clock.sleeps)
		})
	}
}

func TestSnowflakeClockBackWhileWaitingForNextMillisecond(t *testing.T) {
	// The sequence of t2024 is used up; while spinning, the clock jumps back
	// beyond the tolerance.
	clock := &fakeClock{at: func(n int) int64 {
		if n <= 4096 {
			return t2024
		}
		return t2024 - 10
	}}
	g := newTestSnowflake(t, Props{"max-vibration-offset": "0"}, clock)
	for i := range int64(4096) {
		require.Equal(t, key(t2024, 0, i), gen(t, g))
	}
	_, err := g.Generate()
	require.EqualError(t, err, "clock is moving backwards: last time is 1704067200000 milliseconds, current time is 1704067199990 milliseconds (max-tolerate-time-difference-milliseconds is 10)")
}

func TestSnowflakeOutOfRange(t *testing.T) {
	tests := []struct {
		name  string
		props Props
		clock int64
		err   string
	}{
		{"before epoch", nil, SnowflakeEpochUTC - 1,
			"SNOWFLAKE: clock 2016-10-31T23:59:59.999Z is outside the 41-bit range of epoch 2016-11-01T00:00:00Z (+2199023255551 ms)"},
		{"after 41 bits", Props{"epoch-milliseconds": "0"}, 1 << 41,
			"SNOWFLAKE: clock 2039-09-07T15:47:35.552Z is outside the 41-bit range of epoch 1970-01-01T00:00:00Z (+2199023255551 ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestSnowflake(t, tt.props, seqClock(tt.clock))
			_, err := g.Generate()
			require.EqualError(t, err, tt.err)
		})
	}
	// The last millisecond of the range still works.
	g := newTestSnowflake(t, Props{"epoch-milliseconds": "0"}, seqClock(1<<41-1))
	require.Equal(t, int64((1<<41-1)<<22), gen(t, g))
}

func TestSnowflakeConcurrent(t *testing.T) {
	const goroutines, perGoroutine = 32, 20000
	kg, err := NewKeyGenerator("SNOWFLAKE", Props{"worker-id": "9"})
	require.NoError(t, err)
	results := make([][]int64, goroutines)
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			ids := make([]int64, perGoroutine)
			for j := range ids {
				v, err := kg.Generate()
				if err != nil {
					errs[i] = err
					return
				}
				ids[j] = v.Int
			}
			results[i] = ids
		})
	}
	wg.Wait()
	seen := make(map[int64]struct{}, goroutines*perGoroutine)
	for i, ids := range results {
		require.NoError(t, errs[i])
		for j, id := range ids {
			if j > 0 && id <= ids[j-1] {
				t.Fatalf("goroutine %d: key %d = %d is not above key %d = %d", i, j, id, j-1, ids[j-1])
			}
			if _, dup := seen[id]; dup {
				t.Fatalf("goroutine %d: duplicate key %d", i, id)
			}
			seen[id] = struct{}{}
			if _, worker, _ := SnowflakeParts(id, SnowflakeEpochUTC); worker != 9 {
				t.Fatalf("key %d has worker %d", id, worker)
			}
		}
	}
	require.Len(t, seen, goroutines*perGoroutine)
}

func TestSnowflakeRealClock(t *testing.T) {
	kg, err := NewKeyGenerator("SNOWFLAKE", nil)
	require.NoError(t, err)
	before := time.Now().Truncate(time.Millisecond)
	id := gen(t, kg)
	after := time.Now()
	at, worker, _ := SnowflakeParts(id, SnowflakeEpochUTC)
	require.False(t, at.Before(before), "%s before %s", at, before)
	require.False(t, at.After(after), "%s after %s", at, after)
	require.Equal(t, int64(0), worker)
}

// BenchmarkSnowflake measures Generate with the real clock. A millisecond
// holds at most 4096 keys, so a single goroutine cannot go below about
// 244 ns/op however cheap the rest is.
func BenchmarkSnowflake(b *testing.B) {
	kg, err := NewKeyGenerator("SNOWFLAKE", nil)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := kg.Generate(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnowflakeNoWait measures the generator's own cost: a fake clock
// advances one millisecond every 1024 reads, so the sequence never runs out.
func BenchmarkSnowflakeNoWait(b *testing.B) {
	var n int64
	clock := &fakeClock{at: func(int) int64 { n++; return t2024 + n>>10 }}
	g := newTestSnowflake(b, nil, clock)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Generate(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnowflakeParallel measures Generate with the real clock from
// GOMAXPROCS goroutines sharing one generator.
func BenchmarkSnowflakeParallel(b *testing.B) {
	kg, err := NewKeyGenerator("SNOWFLAKE", nil)
	require.NoError(b, err)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := kg.Generate(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
