package runtime

import (
	"fmt"
	"math"
)

// autoIntervalPattern is the only datetime format AUTO_INTERVAL reads.
const autoIntervalPattern = "yyyy-MM-dd HH:mm:ss"

// AutoIntervalAlgorithm is ShardingSphere's AUTO_INTERVAL auto sharding
// algorithm: partitions of sharding-seconds from datetime-lower, with every
// time before datetime-lower in partition 0 and every time after the last
// partition in the last one.
//
// Props (validated once, here):
//   - datetime-lower (required): "yyyy-MM-dd HH:mm:ss", the whole text.
//   - datetime-upper (required): the same format; like ShardingSphere, only
//     the leading "yyyy-MM-dd HH:mm:ss" is read. Must not be before
//     datetime-lower.
//   - sharding-seconds (required): a long > 0 (ShardingSphere fails on 0
//     and misroutes negatives).
//
// The auto-table amount is (upper-lower in seconds) / sharding-seconds + 2,
// with Java's long division: ShardingSphere's Math.ceil applies to the
// already truncated quotient, so 17 s in partitions of 4 s make 4+2 tables,
// not 5+2.
//
// A value's partition: s = whole seconds from datetime-lower to the value;
// index = ceil(DecimalFormat("0.00").format(s / sharding-seconds)), the
// quotient a double rounded HALF_EVEN to two decimals (the decimal
// separator is '.', as ShardingSphere now fixes it), clamped to
// [0, amount-1]. So with datetime-lower 2020-01-01 00:00:00 and 4 seconds,
// 00:00:00 → 0, 00:00:01 → 1, 00:00:04 → 1, 00:00:05 → 2. Values are read
// from their text with the leading "yyyy-MM-dd HH:mm:ss" (fractions and
// anything after are ignored); a Time uses its wall clock. A range routes to
// partition(lower)..partition(upper), open or closed alike; a missing bound
// means the first or last partition.
//
// Source: ShardingSphere AutoIntervalShardingAlgorithm;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/
type AutoIntervalAlgorithm struct {
	pattern *jpattern
	lower   int64 // datetime-lower, seconds since 1970-01-01 00:00:00 (wall clock)
	seconds int64 // sharding-seconds
	count   int64 // auto-table amount
}

var (
	_ StandardAlgorithm = (*AutoIntervalAlgorithm)(nil)
	_ AutoAlgorithm     = (*AutoIntervalAlgorithm)(nil)
)

func newAutoIntervalAlgorithm(props Props) (Algorithm, error) {
	pat, err := compileJavaPattern(autoIntervalPattern, false)
	if err != nil {
		return nil, err
	}
	a := &AutoIntervalAlgorithm{pattern: pat}
	lowerText, err := props.Required("datetime-lower")
	if err != nil {
		return nil, err
	}
	lower, ok := a.parseSeconds(lowerText, false)
	if !ok {
		return nil, &PropError{Prop: "datetime-lower", Msg: fmt.Sprintf("must be a datetime %q, got %q", autoIntervalPattern, lowerText)}
	}
	a.lower = lower
	if a.seconds, err = props.RequiredInt64("sharding-seconds"); err != nil {
		return nil, err
	}
	if a.seconds <= 0 {
		return nil, &PropError{Prop: "sharding-seconds", Msg: fmt.Sprintf("must be a positive integer, got %d", a.seconds)}
	}
	upperText, err := props.Required("datetime-upper")
	if err != nil {
		return nil, err
	}
	upper, ok := a.parseSeconds(upperText, true)
	if !ok {
		return nil, &PropError{Prop: "datetime-upper", Msg: fmt.Sprintf("must be a datetime %q, got %q", autoIntervalPattern, upperText)}
	}
	if upper < lower {
		return nil, &PropError{Prop: "datetime-upper", Msg: fmt.Sprintf("must not be before datetime-lower %q, got %q", lowerText, upperText)}
	}
	count := (upper-lower)/a.seconds + 2
	if count > math.MaxInt32 {
		return nil, &PropError{Prop: "sharding-seconds", Msg: fmt.Sprintf("gives more than %d partitions", math.MaxInt32)}
	}
	a.count = count
	return a, nil
}

// parseSeconds reads text as "yyyy-MM-dd HH:mm:ss" (prefix: only the
// leading datetime) and returns its seconds since 1970-01-01 00:00:00.
func (a *AutoIntervalAlgorithm) parseSeconds(text string, prefix bool) (int64, bool) {
	t, ok := a.pattern.parse(text, prefix)
	if !ok {
		return 0, false
	}
	k, ok := t.key(tkDateTime)
	return k.a, ok
}

// Type returns "AUTO_INTERVAL".
func (a *AutoIntervalAlgorithm) Type() string { return "AUTO_INTERVAL" }

// AutoTablesAmount returns the number of partitions.
func (a *AutoIntervalAlgorithm) AutoTablesAmount() int { return int(a.count) }

// BindStandard resolves every partition to its target (see autoTargets).
// Errors: an empty targets list.
func (a *AutoIntervalAlgorithm) BindStandard(column string, targets []string) (StandardRouter, error) {
	t, err := bindAutoTargets(targets, a.count, 0)
	if err != nil {
		return nil, fmt.Errorf("AUTO_INTERVAL on %s: %w", column, err)
	}
	return &partitionRouter{typ: "AUTO_INTERVAL", column: column, count: a.count, partition: a.partition, targets: t}, nil
}

// partition returns the partition of v. String values and Time values do
// not allocate.
func (a *AutoIntervalAlgorithm) partition(v Value) (int64, error) {
	var secs int64
	if v.Kind == KindTime {
		t, ok := temporalOfTime(v.Time)
		if !ok {
			return 0, fmt.Errorf("sharding value %s has a year outside 1..9999", shardingValueText(v))
		}
		k, _ := t.key(tkDateTime)
		secs = k.a
	} else {
		var ok bool
		if secs, ok = a.parseSeconds(v.Text(), true); !ok {
			return 0, fmt.Errorf("sharding value %s does not start with a datetime %q", shardingValueText(v), autoIntervalPattern)
		}
	}
	return a.index(secs - a.lower), nil
}

// index is AutoIntervalShardingAlgorithm#doSharding(long): ceil of s/seconds
// rounded HALF_EVEN to two decimals, clamped to [0, count-1].
//
// DecimalFormat rounds the exact binary value of the double (JDK 8+), so the
// rounded value has a fraction > 0 exactly when the quotient's fraction f is
// above 0.005 (a tie at exactly 0.005 cannot occur in binary). The double
// nearest 0.005 lies above 0.005, so f ≥ 0.005 (as doubles) is that test.
func (a *AutoIntervalAlgorithm) index(s int64) int64 {
	x := float64(s) / float64(a.seconds)
	if !(x > 0) {
		return 0
	}
	if x >= float64(a.count) {
		return a.count - 1
	}
	n := math.Floor(x)
	if x-n >= 0.005 {
		n++
	}
	return min(int64(n), a.count-1)
}
