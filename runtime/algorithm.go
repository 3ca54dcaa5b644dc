package runtime

import "errors"

// Range is a range of sharding values taken from BETWEEN, <, <=, > or >=.
// A missing bound means the range is unbounded on that side. Open bounds come
// from < and >; BETWEEN gives two closed bounds.
//
// Source: Guava Range as used by ShardingSphere's RangeShardingValue.
type Range struct {
	Lower, Upper         Value
	HasLower, HasUpper   bool
	LowerOpen, UpperOpen bool
}

// Algorithm is a configured sharding algorithm, before it is bound to the
// targets it routes over. Every built-in type (MOD, HASH_MOD, VOLUME_RANGE,
// BOUNDARY_RANGE, AUTO_INTERVAL, INTERVAL, INLINE, COMPLEX_INLINE,
// HINT_INLINE, CLASS_BASED) implements it together with one or more of
// StandardAlgorithm, ComplexAlgorithm and HintAlgorithm.
type Algorithm interface {
	// Type returns the ShardingSphere type name, e.g. "MOD".
	Type() string
}

// AutoAlgorithm is an algorithm usable in autoTables: it knows how many actual
// tables it shards into (ShardingSphere's ShardingAutoTableAlgorithm).
type AutoAlgorithm interface {
	Algorithm
	// AutoTablesAmount returns the number of actual tables, > 0.
	AutoTablesAmount() int
}

// StandardAlgorithm serves a `standard` strategy: one sharding column.
type StandardAlgorithm interface {
	Algorithm
	// BindStandard prepares routing of the sharding column column over
	// targets, the available target names in data node order: data source
	// names for a database strategy, actual table names of one data source
	// for a table strategy. All per-target work (suffix tables, name
	// look-ups, binding the column in an inline expression) happens here,
	// once.
	BindStandard(column string, targets []string) (StandardRouter, error)
}

// StandardRouter routes sharding values over the targets it was bound to.
// Methods are safe for concurrent use and do not allocate for integer values
// (Precise) unless an error is returned.
type StandardRouter interface {
	// Precise returns the index in targets of the one target for v (from `=`
	// or one item of `IN`). Errors: ErrNullShardingValue for NULL,
	// ErrNoTarget when the computed target is not among the targets.
	Precise(v Value) (int, error)
	// Range appends to dst the indexes of the targets r may reach, ascending
	// and without duplicates, and returns the extended slice.
	Range(dst []int, r Range) ([]int, error)
}

// ComplexAlgorithm serves a `complex` strategy: several sharding columns.
type ComplexAlgorithm interface {
	Algorithm
	BindComplex(columns []string, targets []string) (ComplexRouter, error)
}

// ComplexRouter routes a complex strategy. values[i] and ranges[i] belong to
// columns[i] as given to BindComplex; a nil values[i] with a nil ranges[i]
// means the statement has no condition on that column.
type ComplexRouter interface {
	Route(dst []int, values [][]Value, ranges []*Range) ([]int, error)
}

// HintAlgorithm serves a `hint` strategy: values come from a hint, not SQL.
type HintAlgorithm interface {
	Algorithm
	BindHint(targets []string) (HintRouter, error)
}

// HintRouter routes hint values. No values routes to every target.
type HintRouter interface {
	Route(dst []int, values []Value) ([]int, error)
}

// Sentinel errors shared by every algorithm. Wrap them with the data node,
// value and rule so callers can both test with errors.Is and read the cause.
var (
	// ErrNullShardingValue: a NULL sharding value (NullShardingValueException).
	ErrNullShardingValue = errors.New("sharding value must not be NULL")
	// ErrNoTarget: the algorithm computed a target that is not available.
	ErrNoTarget = errors.New("no data node matches the sharding value")
	// ErrRangeUnsupported: the algorithm cannot route a range (INLINE without
	// allow-range-query-with-inline-sharding).
	ErrRangeUnsupported = errors.New("range sharding condition is not supported by this algorithm")
)

// KeyGenerator produces keys for a keyGenerateStrategy column. Safe for
// concurrent use.
type KeyGenerator interface {
	// Type returns the ShardingSphere type name, e.g. "SNOWFLAKE".
	Type() string
	// Generate returns the next key: KindLong for SNOWFLAKE, KindString for UUID.
	Generate() (Value, error)
}
