package runtime

import (
	"context"
	"errors"
	"strings"
)

// Savepoints of a DistTx: a client's SAVEPOINT, ROLLBACK TO SAVEPOINT and
// RELEASE SAVEPOINT inside a transaction, run as ShardingSphere runs them
// for LOCAL transactions (its ConnectionSavepointManager sends each to
// every connection the transaction holds), made exact for data sources
// that join the transaction after a savepoint was set:
//
//   - Savepoint sets the savepoint on every branch begun so far and
//     remembers it. A branch that begins later sets every remembered
//     savepoint first, in order, right after it begins, before any work:
//     rolling back to one of them there undoes all that branch did, which
//     is exactly the state it was in when the savepoint was set (it had
//     done nothing). So the transaction reads as one MySQL's.
//   - RollbackToSavepoint rolls every branch back to it and forgets the
//     savepoints set after it (MySQL deletes them); it stays set.
//   - ReleaseSavepoint releases it on every branch and forgets it with the
//     savepoints set after it (MySQL deletes those too).
//
// Names compare case-insensitively, as MySQL's; setting a name again moves
// it (MySQL replaces a savepoint of the same name). The same holds for XA
// branches (MySQL allows savepoints between XA START and XA END).
//
// A failure on one branch after others succeeded leaves the savepoints as
// the servers have them, which no longer agree; the error names the data
// source, and the transaction should be rolled back.

// ErrNoSavepoint is wrapped by the error of RollbackToSavepoint and
// ReleaseSavepoint for a name the transaction has no savepoint of; a proxy
// answers MySQL's ERROR 1305 (42000) "SAVEPOINT name does not exist".
var ErrNoSavepoint = errors.New("savepoint does not exist")

// ErrReservedSavepoint is returned by Savepoint for the name of the
// savepoint shardgen sets before a write on several data nodes inside a
// transaction (shardgen_stmt), which a client's savepoint would clash with.
var ErrReservedSavepoint = errors.New("savepoint name " + savepointName + " is reserved by shardgen (the savepoint of a write on several data nodes); choose another name")

// Savepoint sets savepoint name on every branch of t and remembers it for
// the branches that begin later (see above). Errors: ErrReservedSavepoint,
// or a *NodeError of the branch that failed.
func (t *DistTx) Savepoint(ctx context.Context, name string) error {
	if strings.EqualFold(name, savepointName) {
		return ErrReservedSavepoint
	}
	if err := t.acquire(); err != nil {
		return err
	}
	defer t.release()
	if err := t.onBranches(ctx, "SAVEPOINT "+quoteSavepoint(name)); err != nil {
		return err
	}
	if i := t.savepointIndex(name); i >= 0 {
		t.savepoints = append(t.savepoints[:i], t.savepoints[i+1:]...)
	}
	t.savepoints = append(t.savepoints, name)
	return nil
}

// RollbackToSavepoint rolls every branch of t back to savepoint name and
// forgets the savepoints set after it. Errors: ErrNoSavepoint (wrapped,
// naming it), or a *NodeError of the branch that failed.
func (t *DistTx) RollbackToSavepoint(ctx context.Context, name string) error {
	return t.toSavepoint(ctx, "ROLLBACK TO SAVEPOINT ", name, 1)
}

// ReleaseSavepoint releases savepoint name on every branch of t and
// forgets it with the savepoints set after it. Errors as
// RollbackToSavepoint's.
func (t *DistTx) ReleaseSavepoint(ctx context.Context, name string) error {
	return t.toSavepoint(ctx, "RELEASE SAVEPOINT ", name, 0)
}

// toSavepoint sends verb+name to every branch, then keeps the remembered
// savepoints up to name's index + keep.
func (t *DistTx) toSavepoint(ctx context.Context, verb, name string, keep int) error {
	if err := t.acquire(); err != nil {
		return err
	}
	defer t.release()
	i := t.savepointIndex(name)
	if i < 0 {
		return &savepointError{name: name}
	}
	if err := t.onBranches(ctx, verb+quoteSavepoint(name)); err != nil {
		return err
	}
	t.savepoints = t.savepoints[:i+keep]
	return nil
}

// savepointIndex returns the index of name in t.savepoints, -1 if absent.
func (t *DistTx) savepointIndex(name string) int {
	for i, s := range t.savepoints {
		if strings.EqualFold(s, name) {
			return i
		}
	}
	return -1
}

// onBranches runs q on every branch of t, in the order they began; the
// error is the first failure's *NodeError.
func (t *DistTx) onBranches(ctx context.Context, q string) error {
	for _, b := range t.branches {
		if err := t.adopt(b); err != nil {
			return err
		}
		if _, err := b.target(nil).exec(ctx, q, nil); err != nil {
			return &NodeError{DataSource: t.src.db.names[b.pool], SQL: q, Err: err}
		}
	}
	return nil
}

// replaySavepoints sets t's remembered savepoints on b, which just began.
func (t *DistTx) replaySavepoints(b *txBranch) error {
	for _, s := range t.savepoints {
		q := "SAVEPOINT " + quoteSavepoint(s)
		if _, err := b.target(nil).exec(t.ctx, q, nil); err != nil {
			return &NodeError{DataSource: t.src.db.names[b.pool], SQL: q, Err: err}
		}
	}
	return nil
}

// quoteSavepoint returns name as a quoted MySQL identifier.
func quoteSavepoint(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// savepointError is ErrNoSavepoint for one name.
type savepointError struct{ name string }

// Error returns MySQL's message, "SAVEPOINT name does not exist".
func (e *savepointError) Error() string { return "SAVEPOINT " + e.name + " does not exist" }

// Unwrap returns ErrNoSavepoint.
func (e *savepointError) Unwrap() error { return ErrNoSavepoint }
