package runtime

import "database/sql"

// Result is a sql.Result whose values are known when the statement finished:
// what generated code returns from an :execresult query that ran on several
// route units (rows affected summed over the units, as ShardingSphere's
// update result merger sums them), or from an INSERT whose key shardgen
// generated (LastInsertId is the generated SNOWFLAKE key, as
// ShardingSphere's getGeneratedKeys returns it instead of MySQL's
// AUTO_INCREMENT value).
//
// Source: ShardingSphere's JDBC getGeneratedKeys, which returns the keys its
// key generator produced (../shared/spec/shardingsphere.md §14), and its
// update result merger, which sums the affected rows of the units.
type Result struct {
	lastInsertID int64
	rowsAffected int64
}

// Compile-time check that Result is a sql.Result.
var _ sql.Result = Result{}

// NewResult returns a Result reporting lastInsertID (0 when the statement
// generated no key) and rowsAffected (the sum over the route units that ran).
func NewResult(lastInsertID, rowsAffected int64) Result {
	return Result{lastInsertID: lastInsertID, rowsAffected: rowsAffected}
}

// LastInsertId returns the generated key given to NewResult; the error is
// always nil.
func (r Result) LastInsertId() (int64, error) { return r.lastInsertID, nil }

// RowsAffected returns the rows affected given to NewResult; the error is
// always nil.
func (r Result) RowsAffected() (int64, error) { return r.rowsAffected, nil }
