package runtime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// denseSuffixLimit is the largest suffix count for which autoTargets keeps a
// dense suffix → target table (4 bytes a suffix). Above it, look-ups binary
// search a sorted table holding only the suffixes that have a target.
const denseSuffixLimit = 1 << 16

// autoTargets is ShardingSphere's auto-table target matching, precomputed
// when an auto algorithm (MOD, HASH_MOD, VOLUME_RANGE, BOUNDARY_RANGE,
// AUTO_INTERVAL) is bound to its targets.
//
// ShardingSphere describes the targets by a DataNodeInfo: prefix = the first
// target name with its trailing digits ([0-9]+$) removed, minLen = the
// smallest `len(name) - len(prefix)` over all targets (UTF-16 units, may be
// ≤ 0), padding char '0'. An algorithm computes a suffix text (the partition
// number, zero-padded for MOD's zero-padding) and the target is
// prefix + leftPad(suffix, minLen, '0') if a target has that exact name,
// else none. Here every suffix number 0..count-1 is resolved once, so routing
// is an array index (or a binary search when count > denseSuffixLimit): no
// string is built at routing time.
//
// Two differences from ShardingSphere, both outside auto tables' own naming:
// ShardingSphere computes the DataNodeInfo over all data nodes of the logic
// table (and, for tables, strips the logic table name before the digits),
// while BindStandard only sees the targets of one strategy; for tables named
// <logic>_<n> the results are the same.
//
// Source: ShardingSphere ShardingTable#createDataSourceDataNode /
// #createTableDataNode and ShardingAutoTableAlgorithmUtils#findMatchedTargetName.
type autoTargets struct {
	names  []string
	prefix string
	minLen int   // DataNodeInfo suffixMinLength, in UTF-16 units
	pad    int   // zero-pad width of the suffix text (MOD zero-padding), 0 = none
	count  int64 // suffix numbers are 0..count-1

	dense   []int32 // suffix number → target index or -1 (count ≤ denseSuffixLimit)
	sparseN []int64 // ascending suffix numbers that have a target (count > denseSuffixLimit)
	sparseI []int32 // target index of sparseN[i]

	// suffixOf[i] is the suffix number that routes to target i, or -1 when
	// no suffix does (a name out of the prefix+digits form, or a repeat of
	// an earlier name).
	suffixOf []int64
}

// errNoTargets is returned by BindStandard for an empty target list.
var errNoTargets = errors.New("no targets to bind")

// bindAutoTargets precomputes the matching of suffix numbers 0..count-1 over
// targets. pad > 0 zero-pads the suffix text to pad digits first (MOD's
// zero-padding). Errors: errNoTargets for an empty list.
func bindAutoTargets(targets []string, count int64, pad int) (*autoTargets, error) {
	if len(targets) == 0 {
		return nil, errNoTargets
	}
	t := &autoTargets{
		names:    targets,
		prefix:   strings.TrimRight(targets[0], "0123456789"),
		pad:      pad,
		count:    count,
		suffixOf: make([]int64, len(targets)),
	}
	prefixLen := javaStringLength(t.prefix)
	t.minLen = javaStringLength(targets[0]) - prefixLen
	for _, name := range targets[1:] {
		t.minLen = min(t.minLen, javaStringLength(name)-prefixLen)
	}
	first := make(map[int64]int32, len(targets))
	for i, name := range targets {
		t.suffixOf[i] = -1
		n, ok := t.parseSuffix(name)
		if !ok {
			continue
		}
		if _, dup := first[n]; dup {
			continue
		}
		first[n] = int32(i)
		t.suffixOf[i] = n
	}
	if count <= denseSuffixLimit {
		t.dense = make([]int32, count)
		for i := range t.dense {
			t.dense[i] = -1
		}
		for n, i := range first {
			t.dense[n] = i
		}
		return t, nil
	}
	for i, n := range t.suffixOf {
		if n >= 0 {
			t.sparseN = append(t.sparseN, n)
			t.sparseI = append(t.sparseI, int32(i))
		}
	}
	sortPairs(t.sparseN, t.sparseI)
	return t, nil
}

// parseSuffix returns the suffix number n whose target name is name, if any:
// name must be prefix + digits and equal targetName(n) exactly.
func (t *autoTargets) parseSuffix(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, t.prefix)
	if !ok || rest == "" || len(rest) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n >= t.count || t.targetName(n) != name {
		return 0, false
	}
	return n, true
}

// targetName returns prefix + leftPad(suffix text of n, minLen, '0'): the
// name ShardingSphere looks for. It allocates; routing never calls it except
// to describe an error.
func (t *autoTargets) targetName(n int64) string {
	s := strconv.FormatInt(n, 10)
	if len(s) < t.pad {
		s = strings.Repeat("0", t.pad-len(s)) + s
	}
	if len(s) < t.minLen {
		s = strings.Repeat("0", t.minLen-len(s)) + s
	}
	return t.prefix + s
}

// lookup returns the index of the target for suffix number n, or -1.
func (t *autoTargets) lookup(n int64) int {
	if n < 0 || n >= t.count {
		return -1
	}
	if t.dense != nil {
		return int(t.dense[n])
	}
	lo, hi := 0, len(t.sparseN)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.sparseN[m] < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.sparseN) && t.sparseN[lo] == n {
		return int(t.sparseI[lo])
	}
	return -1
}

// appendAll appends every target index: ShardingSphere's "return
// availableTargetNames", which includes names no suffix matches.
func (t *autoTargets) appendAll(dst []int) []int {
	for i := range t.names {
		dst = append(dst, i)
	}
	return dst
}

// appendInterval appends, ascending, the targets whose suffix number lies in
// [lo, hi]: the matched targets of partitions lo..hi.
func (t *autoTargets) appendInterval(dst []int, lo, hi int64) []int {
	for i, n := range t.suffixOf {
		if n >= 0 && n >= lo && n <= hi {
			dst = append(dst, i)
		}
	}
	return dst
}

// appendCyclic appends, ascending, the targets whose suffix number is one of
// (start+k) mod count for 0 ≤ k < length: the residues MOD visits when it
// iterates a range. length ≥ count means every residue.
func (t *autoTargets) appendCyclic(dst []int, start, length int64) []int {
	for i, n := range t.suffixOf {
		if n < 0 {
			continue
		}
		d := n - start
		if d < 0 {
			d += t.count
		}
		if d < length {
			dst = append(dst, i)
		}
	}
	return dst
}

// noTarget describes a computed suffix without a target, wrapping ErrNoTarget.
func (t *autoTargets) noTarget(typ, column string, v Value, n int64) error {
	return fmt.Errorf("%s on %s: sharding value %s routes to %q, which is not among the targets: %w",
		typ, column, shardingValueText(v), t.targetName(n), ErrNoTarget)
}

// sortPairs sorts keys ascending and permutes vals alongside (insertion sort
// is enough: it runs once per bind and the input is nearly sorted).
func sortPairs(keys []int64, vals []int32) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
			vals[j], vals[j-1] = vals[j-1], vals[j]
		}
	}
}

// shardingValueText describes v for an error message: its Java kind and its
// text, strings quoted, e.g. `Long 17`, `String "abc"`.
func shardingValueText(v Value) string {
	switch v.Kind {
	case KindInt, KindLong:
		return v.Kind.String() + " " + strconv.FormatInt(v.Int, 10)
	case KindNull:
		return "NULL"
	case KindTime:
		return "Time " + v.Text()
	}
	return v.Kind.String() + " " + strconv.Quote(v.Str)
}

// nullValueError wraps ErrNullShardingValue with the algorithm and column.
func nullValueError(typ, column string) error {
	return fmt.Errorf("%s on %s: %w", typ, column, ErrNullShardingValue)
}

// partitionRouter routes an algorithm whose precise value maps to one
// partition number 0..count-1 and whose range maps to the partitions from
// partition(lower) to partition(upper) (VOLUME_RANGE, BOUNDARY_RANGE,
// AUTO_INTERVAL). A missing range bound stands for partition 0 or count-1.
// Open and closed bounds route alike, as in ShardingSphere.
//
// Source: ShardingSphere AbstractRangeShardingAlgorithm#doSharding,
// AutoIntervalShardingAlgorithm#doSharding.
type partitionRouter struct {
	typ, column string
	count       int64
	// partition maps a non-NULL value to its partition; its error needs the
	// "<TYPE> on <column>: " prefix.
	partition func(Value) (int64, error)
	// intPartition, when set, is partition for Integer and Long values.
	intPartition func(int64) int64
	targets      *autoTargets
}

var _ StandardRouter = (*partitionRouter)(nil)

// Precise returns the target of v's partition.
func (r *partitionRouter) Precise(v Value) (int, error) {
	var p int64
	switch {
	case r.intPartition != nil && (v.Kind == KindInt || v.Kind == KindLong):
		p = r.intPartition(v.Int)
	case v.Kind == KindNull:
		return -1, nullValueError(r.typ, r.column)
	default:
		var err error
		if p, err = r.partition(v); err != nil {
			return -1, fmt.Errorf("%s on %s: %w", r.typ, r.column, err)
		}
	}
	if i := r.targets.lookup(p); i >= 0 {
		return i, nil
	}
	return -1, r.targets.noTarget(r.typ, r.column, v, p)
}

// Range appends the targets of partitions partition(lower)..partition(upper).
func (r *partitionRouter) Range(dst []int, rg Range) ([]int, error) {
	first, last := int64(0), r.count-1
	var err error
	if rg.HasLower {
		if first, err = r.bound(rg.Lower); err != nil {
			return dst, err
		}
	}
	if rg.HasUpper {
		if last, err = r.bound(rg.Upper); err != nil {
			return dst, err
		}
	}
	return r.targets.appendInterval(dst, first, last), nil
}

func (r *partitionRouter) bound(v Value) (int64, error) {
	if v.Kind == KindNull {
		return 0, nullValueError(r.typ, r.column)
	}
	p, err := r.partition(v)
	if err != nil {
		return 0, fmt.Errorf("%s on %s: %w", r.typ, r.column, err)
	}
	return p, nil
}

// javaParseLong returns Long.parseLong(v.toString()): the integer kinds as
// they are, any other kind's text parsed as a decimal long (optional sign).
func javaParseLong(v Value) (int64, error) {
	if v.Kind == KindInt || v.Kind == KindLong {
		return v.Int, nil
	}
	n, err := strconv.ParseInt(v.Text(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("sharding value %s is not a long integer", shardingValueText(v))
	}
	return n, nil
}
