package runtime

import (
	"context"
	"database/sql"
	"slices"
)

// Runner runs the single-unit statements of generated code (its Queries
// holds one per Executor it runs on): on a *Sources called directly when the
// queries run on the pools, else on the Executor it holds (a transaction).
// A call through the Executor interface makes the compiler move the call's
// variadic argument slice to the heap, one allocation per statement that
// careful database/sql code (a reused *sql.Stmt) does not pay; the direct
// call on *Sources keeps the slice on the caller's stack. In a transaction
// the arguments are copied once, as the interface call would have. The
// zero Runner is not usable; make one with RunnerOf.
type Runner struct {
	src *Sources // the pools, called directly; nil in a transaction
	ex  Executor // when src is nil
}

// RunnerOf returns the Runner of ex.
func RunnerOf(ex Executor) Runner {
	if s, ok := ex.(*Sources); ok {
		return Runner{src: s}
	}
	return Runner{ex: ex}
}

// QueryRow runs u as Executor.QueryRow does.
func (r Runner) QueryRow(ctx context.Context, st *Stmt, u RouteUnit, args ...any) Row {
	if r.src != nil {
		return r.src.QueryRow(ctx, st, u, args...)
	}
	return r.ex.QueryRow(ctx, st, u, slices.Clone(args)...)
}

// Query runs u as Executor.Query does.
func (r Runner) Query(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (*sql.Rows, error) {
	if r.src != nil {
		return r.src.Query(ctx, st, u, args...)
	}
	return r.ex.Query(ctx, st, u, slices.Clone(args)...)
}

// Exec runs u as Executor.Exec does.
func (r Runner) Exec(ctx context.Context, st *Stmt, u RouteUnit, args ...any) (sql.Result, error) {
	if r.src != nil {
		return r.src.Exec(ctx, st, u, args...)
	}
	return r.ex.Exec(ctx, st, u, slices.Clone(args)...)
}
