package runtime

import "fmt"

// HashModAlgorithm is ShardingSphere's HASH_MOD auto sharding algorithm: the
// target suffix is Math.abs((long) value.hashCode()) % sharding-count, where
// hashCode is the Java hashCode of the value's Java object (see
// JavaHashCode). The Java kind decides placement: Long 100 and String "100"
// hash differently. The hash is widened to long before abs, so
// Integer.MIN_VALUE is safe.
//
// Props: sharding-count (required, Java int > 0), also the auto-table amount.
// Range: every target (a hash preserves no order).
//
// Source: ShardingSphere HashModShardingAlgorithm;
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/
type HashModAlgorithm struct {
	count int64
}

var (
	_ StandardAlgorithm = (*HashModAlgorithm)(nil)
	_ AutoAlgorithm     = (*HashModAlgorithm)(nil)
)

func newHashModAlgorithm(props Props) (Algorithm, error) {
	count, err := javaIntProp(props, "sharding-count", true, 0, 1)
	if err != nil {
		return nil, err
	}
	return &HashModAlgorithm{count: count}, nil
}

// Type returns "HASH_MOD".
func (a *HashModAlgorithm) Type() string { return "HASH_MOD" }

// AutoTablesAmount returns sharding-count.
func (a *HashModAlgorithm) AutoTablesAmount() int { return int(a.count) }

// ShardingCount returns sharding-count, the modulus.
func (a *HashModAlgorithm) ShardingCount() int64 { return a.count }

// BindStandard resolves every suffix 0..sharding-count-1 to its target (see
// autoTargets). Errors: an empty targets list.
func (a *HashModAlgorithm) BindStandard(column string, targets []string) (StandardRouter, error) {
	t, err := bindAutoTargets(targets, a.count, 0)
	if err != nil {
		return nil, fmt.Errorf("HASH_MOD on %s: %w", column, err)
	}
	return &hashModRouter{count: a.count, column: column, targets: t}, nil
}

type hashModRouter struct {
	count   int64
	column  string
	targets *autoTargets
}

// Precise routes v by its Java hashCode. It does not allocate for Integer,
// Long, String and Time values.
func (r *hashModRouter) Precise(v Value) (int, error) {
	if v.Kind == KindNull {
		return -1, nullValueError("HASH_MOD", r.column)
	}
	h, err := JavaHashCode(v)
	if err != nil {
		return -1, fmt.Errorf("HASH_MOD on %s: %w", r.column, err)
	}
	n := int64(h)
	if n < 0 {
		n = -n
	}
	n %= r.count
	if i := r.targets.lookup(n); i >= 0 {
		return i, nil
	}
	return -1, r.targets.noTarget("HASH_MOD", r.column, v, n)
}

// Range appends every target, as ShardingSphere does for any range.
func (r *hashModRouter) Range(dst []int, _ Range) ([]int, error) {
	return r.targets.appendAll(dst), nil
}
