package runtime

import "database/sql"

// QueryError is an error returned by a generated query method: it names the
// annotated query and where it is written, and wraps the cause (often a
// *NodeError naming the data node). Error() reads, e.g.,
// "GetOrder (queries/orders.sql:11): data node ds_1: Error 1146 (42S02): …";
// errors.Is and errors.As see the cause.
type QueryError struct {
	// Query is the query's name and source, e.g.
	// "GetOrder (queries/orders.sql:11)", fixed at generate time.
	Query string
	Err   error // the cause, never nil
}

// Error returns "<query>: <cause>".
func (e *QueryError) Error() string { return e.Query + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *QueryError) Unwrap() error { return e.Err }

// WrapQuery is what a generated query method returns for err: nil for nil;
// sql.ErrNoRows itself, unwrapped, so that `err == sql.ErrNoRows` holds for a
// :one that matched no row (an answer, not a failure); a *QueryError naming
// query (e.g. "GetOrder (queries/orders.sql:11)") for any other error. It
// allocates only for an error, and inlines into the caller.
func WrapQuery(query string, err error) error {
	if err == nil || err == sql.ErrNoRows {
		return err
	}
	return wrapQuery(query, err)
}

// wrapQuery is WrapQuery's error path, kept out of line so that the
// inlined check stays small in every generated method.
//
//go:noinline
func wrapQuery(query string, err error) error {
	if qe, ok := err.(*QueryError); ok && qe.Query == query {
		return err // already named, e.g. by a nested call
	}
	return &QueryError{Query: query, Err: err}
}
