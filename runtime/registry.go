package runtime

import (
	"fmt"
	"strings"
)

// AlgorithmTypes lists the sharding algorithm types NewAlgorithm accepts, in
// the order ShardingSphere's documentation lists them.
var AlgorithmTypes = []string{
	"MOD", "HASH_MOD", "VOLUME_RANGE", "BOUNDARY_RANGE", "AUTO_INTERVAL",
	"INTERVAL", "INLINE", "COMPLEX_INLINE", "HINT_INLINE", "CLASS_BASED",
}

// NewAlgorithm configures the sharding algorithm of the given ShardingSphere
// type (case-insensitive) from its props. It validates every property once,
// so routing later does no property look-ups. Errors are *PropError for a bad
// or missing property, or an error naming the unknown type.
//
// Source: ShardingSphere builtin-algorithm/sharding (../shared/spec §3.3).
func NewAlgorithm(typ string, props Props) (Algorithm, error) {
	if props == nil {
		props = Props{}
	}
	switch strings.ToUpper(strings.TrimSpace(typ)) {
	case "MOD":
		return newModAlgorithm(props)
	case "HASH_MOD":
		return newHashModAlgorithm(props)
	case "VOLUME_RANGE":
		return newVolumeRangeAlgorithm(props)
	case "BOUNDARY_RANGE":
		return newBoundaryRangeAlgorithm(props)
	case "AUTO_INTERVAL":
		return newAutoIntervalAlgorithm(props)
	case "INTERVAL":
		return newIntervalAlgorithm(props)
	case "INLINE":
		return newInlineAlgorithm(props)
	case "COMPLEX_INLINE":
		return newComplexInlineAlgorithm(props)
	case "HINT_INLINE":
		return newHintInlineAlgorithm(props)
	case "CLASS_BASED":
		return newClassBasedAlgorithm(props)
	}
	return nil, fmt.Errorf("unknown sharding algorithm type %q (known: %s)", typ, strings.Join(AlgorithmTypes, ", "))
}

// KeyGeneratorTypes lists the key generator types NewKeyGenerator accepts.
var KeyGeneratorTypes = []string{"SNOWFLAKE", "UUID"}

// NewKeyGenerator configures a key generator of the given ShardingSphere type
// (case-insensitive). Errors as NewAlgorithm.
func NewKeyGenerator(typ string, props Props) (KeyGenerator, error) {
	if props == nil {
		props = Props{}
	}
	switch strings.ToUpper(strings.TrimSpace(typ)) {
	case "SNOWFLAKE":
		return newSnowflake(props)
	case "UUID":
		return newUUID(props)
	}
	return nil, fmt.Errorf("unknown key generator type %q (known: %s)", typ, strings.Join(KeyGeneratorTypes, ", "))
}
