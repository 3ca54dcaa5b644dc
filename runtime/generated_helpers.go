package runtime

import "math"

// LimitSum returns the row count every data node of a merged SELECT with
// `LIMIT offset, count` must return: offset+count. It is ShardingSphere's
// pagination rewrite (`LIMIT o, n` becomes `LIMIT 0, o+n` on every route
// unit, and the merge then skips o rows and returns n; ../shared/spec
// §10, §11), for generated code whose offset or count is a parameter.
//
// The sum saturates at math.MaxInt64 (a count of math.MaxInt64, "every
// row", stays every row instead of wrapping to a negative LIMIT). A negative
// offset or count gives 0: the nodes then return nothing, and Merge reports
// the bad LIMIT value. No allocation.
func LimitSum(offset, count int64) int64 {
	if offset < 0 || count < 0 {
		return 0
	}
	if offset > math.MaxInt64-count {
		return math.MaxInt64
	}
	return offset + count
}
