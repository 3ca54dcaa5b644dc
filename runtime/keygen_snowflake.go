package runtime

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"time"
)

// SnowflakeEpochUTC is ShardingSphere's snowflake epoch, 2016-11-01
// 00:00:00.000, read in UTC: 1477958400000 Unix milliseconds. It is the
// default epoch of the SNOWFLAKE key generator and the one to pass to
// SnowflakeParts for keys made by a JVM that ran in UTC.
//
// Source: SnowflakeKeyGenerateAlgorithm.EPOCH (../shared/spec §4).
const SnowflakeEpochUTC int64 = 1477958400000

// ErrClockMovedBackwards is returned (wrapped, with both times in Unix
// milliseconds) by the SNOWFLAKE generator when the wall clock went back by at
// least max-tolerate-time-difference-milliseconds since the last key.
// ShardingSphere throws "Clock is moving backwards" in the same case.
var ErrClockMovedBackwards = errors.New("clock is moving backwards")

// Snowflake layout: 1 sign bit (0), 41 bits of milliseconds since the epoch,
// 10 bits of worker id, 12 bits of sequence.
const (
	snowflakeSequenceBits = 12
	snowflakeWorkerBits   = 10
	snowflakeWorkerShift  = snowflakeSequenceBits
	snowflakeTimeShift    = snowflakeSequenceBits + snowflakeWorkerBits
	snowflakeSequenceMask = 1<<snowflakeSequenceBits - 1 // 4095
	snowflakeMaxWorkerID  = 1<<snowflakeWorkerBits - 1   // 1023
	snowflakeMaxMillis    = 1<<41 - 1                    // about 69.7 years after the epoch
	javaIntMax            = 1<<31 - 1
)

// Props of the SNOWFLAKE key generator.
const (
	propWorkerID           = "worker-id"
	propMaxVibrationOffset = "max-vibration-offset"
	propMaxTolerateMillis  = "max-tolerate-time-difference-milliseconds"
	propEpochTimeZone      = "epoch-time-zone"    // shardgen extension
	propEpochMillis        = "epoch-milliseconds" // shardgen extension
)

// snowflake is ShardingSphere's SNOWFLAKE key generator
// (SnowflakeKeyGenerateAlgorithm, 5.x):
//
//	id = (millis − epoch) << 22 | workerID << 12 | seq
//
// Each call reads the wall clock in Unix milliseconds:
//   - Same millisecond as the last key: seq = (seq+1) & 4095; when that wraps
//     to 0, spin until the clock shows a later millisecond and use it with
//     seq 0 (so a millisecond yields at most 4096 keys).
//   - A later millisecond: seq starts at the vibration offset, which rotates
//     0, 1, …, max-vibration-offset, 0, … once per new millisecond. With the
//     default 1 the low bit alternates, so `id % 2^n` sharding does not put
//     every low-traffic key on an even node.
//   - An earlier millisecond (the clock moved back by d ms): if d <
//     max-tolerate-time-difference-milliseconds, sleep d ms and read the
//     clock again; otherwise fail with ErrClockMovedBackwards.
//
// One deviation, for uniqueness: ShardingSphere uses the re-read clock even if
// it is still behind the last key's millisecond, which can repeat keys.
// shardgen re-checks after every sleep and fails once the total wait reaches
// the tolerance, so keys from one generator are strictly increasing.
//
// A mutex serialises Generate, like ShardingSphere's synchronized
// generateKey. It is held per generator (one per keyGenerators: entry), never
// across generators, and for at most about a millisecond (the spin after
// 4096 keys) or the tolerance (a clock step back).
//
// Source: SnowflakeKeyGenerateAlgorithm and
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/keygen/
type snowflake struct {
	epoch        int64 // Unix milliseconds of the epoch
	workerBits   int64 // workerID << 12, precomputed
	maxVibration int64 // 0..4095
	tolerance    int64 // milliseconds, 0..2^31-1

	now   func() int64        // wall clock, Unix milliseconds; replaced in tests
	sleep func(time.Duration) // replaced in tests

	mu     sync.Mutex
	last   int64 // millisecond of the last key (Unix ms); 0 before the first
	seq    int64 // sequence of the last key
	offset int64 // vibration offset of the current millisecond; -1 before the first
}

var _ KeyGenerator = (*snowflake)(nil)

// newSnowflake configures a SNOWFLAKE generator from its props:
//
//   - worker-id: 0..1023, default 0. ShardingSphere 5.4+ in cluster mode
//     assigns worker ids itself; shardgen has no registry, so give each
//     process that generates keys for the same table its own worker-id.
//   - max-vibration-offset: 0..4095, default 1.
//   - max-tolerate-time-difference-milliseconds: 0..2147483647, default 10.
//   - epoch-time-zone (shardgen): IANA zone name, default UTC. ShardingSphere
//     reads 2016-11-01 00:00 in the JVM's default time zone, so keys from a
//     JVM that ran in Asia/Shanghai count from 1477929600000. Set the zone the
//     JVM ran in to continue its key space (keys stay comparable and the
//     timestamp decodes correctly). The offset is the zone's offset on
//     2016-11-01 (what 5.1's Calendar used); 5.4+ uses the offset in force
//     when the JVM started, which differs for zones with daylight saving time
//     — use epoch-milliseconds for those.
//   - epoch-milliseconds (shardgen): the epoch as Unix milliseconds, e.g.
//     1477929600000; not together with epoch-time-zone.
//
// Unknown props are ignored, as ShardingSphere does. Errors are *PropError.
func newSnowflake(props Props) (KeyGenerator, error) {
	worker, err := intProp(props, propWorkerID, 0, 0, snowflakeMaxWorkerID)
	if err != nil {
		return nil, err
	}
	vibration, err := intProp(props, propMaxVibrationOffset, 1, 0, snowflakeSequenceMask)
	if err != nil {
		return nil, err
	}
	tolerance, err := intProp(props, propMaxTolerateMillis, 10, 0, javaIntMax)
	if err != nil {
		return nil, err
	}
	epoch, err := snowflakeEpoch(props)
	if err != nil {
		return nil, err
	}
	return &snowflake{
		epoch:        epoch,
		workerBits:   worker << snowflakeWorkerShift,
		maxVibration: vibration,
		tolerance:    tolerance,
		now:          wallMillis,
		sleep:        time.Sleep,
		offset:       -1,
	}, nil
}

// intProp reads key as an integer in [lo, hi], def when absent.
func intProp(props Props, key string, def, lo, hi int64) (int64, error) {
	n, err := props.Int64(key, def)
	if err != nil {
		return 0, err
	}
	if n < lo || n > hi {
		return 0, &PropError{Prop: key, Msg: fmt.Sprintf("must be between %d and %d, got %d", lo, hi, n)}
	}
	return n, nil
}

// snowflakeEpoch returns the epoch in Unix milliseconds from
// epoch-milliseconds or epoch-time-zone; SnowflakeEpochUTC when neither is set.
func snowflakeEpoch(props Props) (int64, error) {
	_, hasMillis := props[propEpochMillis]
	_, hasZone := props[propEpochTimeZone]
	if hasMillis && hasZone {
		return 0, &PropError{Prop: propEpochMillis, Msg: fmt.Sprintf("must not be set together with %q", propEpochTimeZone)}
	}
	if hasMillis {
		ms, err := props.RequiredInt64(propEpochMillis)
		if err != nil {
			return 0, err
		}
		if ms < 0 {
			return 0, &PropError{Prop: propEpochMillis, Msg: fmt.Sprintf("must not be negative, got %d", ms)}
		}
		return ms, nil
	}
	if !hasZone {
		return SnowflakeEpochUTC, nil
	}
	name, err := props.Required(propEpochTimeZone)
	if err != nil {
		return 0, err
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return 0, &PropError{Prop: propEpochTimeZone, Msg: fmt.Sprintf("must be an IANA time zone name such as Asia/Shanghai, got %q", name)}
	}
	return time.Date(2016, time.November, 1, 0, 0, 0, 0, loc).UnixMilli(), nil
}

// wallMillis is the wall clock in Unix milliseconds, what Java's
// System.currentTimeMillis returns.
func wallMillis() int64 { return time.Now().UnixMilli() }

// Type returns "SNOWFLAKE".
func (g *snowflake) Type() string { return "SNOWFLAKE" }

// Generate returns the next key as a KindLong Value. Errors: a wrapped
// ErrClockMovedBackwards, or an error when the clock is before the epoch or
// more than 2^41 ms after it. Safe for concurrent use; does not allocate
// unless it returns an error.
func (g *snowflake) Generate() (Value, error) {
	g.mu.Lock()
	id, err := g.next()
	g.mu.Unlock()
	if err != nil {
		return Value{}, err
	}
	return Value{Kind: KindLong, Int: id}, nil
}

// next computes the next key; g.mu is held.
func (g *snowflake) next() (int64, error) {
	now := g.now()
	if now < g.last {
		var err error
		if now, err = g.waitClockBack(now); err != nil {
			return 0, err
		}
	}
	if now == g.last {
		g.seq = (g.seq + 1) & snowflakeSequenceMask
		if g.seq == 0 {
			var err error
			if now, err = g.waitNextMillis(); err != nil {
				return 0, err
			}
		}
	} else {
		if g.offset == g.maxVibration {
			g.offset = 0
		} else {
			g.offset++
		}
		g.seq = g.offset
	}
	g.last = now
	elapsed := now - g.epoch
	if elapsed < 0 || elapsed > snowflakeMaxMillis {
		return 0, g.rangeError(now)
	}
	return elapsed<<snowflakeTimeShift | g.workerBits | g.seq, nil
}

// waitClockBack handles a clock that shows now < g.last: it sleeps the
// difference and re-reads the clock until it has caught up, failing once the
// difference or the total wait reaches the tolerance.
func (g *snowflake) waitClockBack(now int64) (int64, error) {
	var waited int64
	for now < g.last {
		d := g.last - now
		if d >= g.tolerance || waited >= g.tolerance {
			return 0, fmt.Errorf("%w: last time is %d milliseconds, current time is %d milliseconds (max-tolerate-time-difference-milliseconds is %d)",
				ErrClockMovedBackwards, g.last, now, g.tolerance)
		}
		g.sleep(time.Duration(d) * time.Millisecond)
		waited += d
		now = g.now()
	}
	return now, nil
}

// waitNextMillis spins until the clock shows a millisecond after g.last (the
// sequence of g.last is used up). A clock that steps back meanwhile by at
// least the tolerance is an error, as in next.
func (g *snowflake) waitNextMillis() (int64, error) {
	for {
		now := g.now()
		if now > g.last {
			return now, nil
		}
		if d := g.last - now; d > 0 && d >= g.tolerance {
			return 0, fmt.Errorf("%w: last time is %d milliseconds, current time is %d milliseconds (max-tolerate-time-difference-milliseconds is %d)",
				ErrClockMovedBackwards, g.last, now, g.tolerance)
		}
		goruntime.Gosched()
	}
}

func (g *snowflake) rangeError(now int64) error {
	return fmt.Errorf("SNOWFLAKE: clock %s is outside the 41-bit range of epoch %s (+%d ms)",
		time.UnixMilli(now).UTC().Format(time.RFC3339Nano), time.UnixMilli(g.epoch).UTC().Format(time.RFC3339Nano), int64(snowflakeMaxMillis))
}

// SnowflakeParts decodes a SNOWFLAKE key: the time it was generated (UTC,
// millisecond precision), the worker id (0..1023) and the sequence (0..4095).
// epochMillis is the generator's epoch in Unix milliseconds: SnowflakeEpochUTC
// unless epoch-time-zone or epoch-milliseconds was set (1477929600000 for
// Asia/Shanghai). id must be a key (non-negative); other values decode to
// meaningless parts.
//
// Source: the bit layout of SnowflakeKeyGenerateAlgorithm.
func SnowflakeParts(id int64, epochMillis int64) (t time.Time, workerID, seq int64) {
	t = time.UnixMilli(id>>snowflakeTimeShift + epochMillis).UTC()
	workerID = id >> snowflakeWorkerShift & snowflakeMaxWorkerID
	seq = id & snowflakeSequenceMask
	return t, workerID, seq
}
