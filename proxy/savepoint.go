package proxy

import (
	"context"
	"errors"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/shardgen/shardgen/runtime"
)

// spKind is the kind of a savepoint statement.
type spKind uint8

const (
	spSet      spKind = iota + 1 // SAVEPOINT name
	spRollback                   // ROLLBACK [WORK] TO [SAVEPOINT] name
	spRelease                    // RELEASE SAVEPOINT name
)

// savepointStmt recognizes a savepoint statement q (any case, comments
// and white space between words, a backquoted or plain name, at most a
// trailing ';') and returns its kind and the name as written (unquoted).
// ok is false for any other statement. vitess's parser refuses ROLLBACK
// WORK TO, which MySQL runs.
func savepointStmt(q string) (k spKind, name string, ok bool) {
	w, i := nextWord(q, 0)
	switch strings.ToLower(w) {
	case "savepoint":
		k = spSet
	case "release":
		if w, i = nextWord(q, i); !strings.EqualFold(w, "savepoint") {
			return 0, "", false
		}
		k = spRelease
	case "rollback":
		if w, i = nextWord(q, i); strings.EqualFold(w, "work") {
			w, i = nextWord(q, i)
		}
		if !strings.EqualFold(w, "to") {
			return 0, "", false
		}
		k = spRollback
		if name, end, ok := spName(q, i); ok && end == len(q) {
			return k, name, true // ROLLBACK TO name (even one named savepoint)
		}
		if w, i = nextWord(q, i); !strings.EqualFold(w, "savepoint") {
			return 0, "", false
		}
	default:
		return 0, "", false
	}
	name, end, ok := spName(q, i)
	if !ok || end != len(q) {
		return 0, "", false
	}
	return k, name, true
}

// spName reads a savepoint name at or after i: `back quoted` (“ is one
// `) or a plain identifier, followed by blanks and at most one ';'. end is
// len(q) when nothing else follows.
func spName(q string, i int) (name string, end int, ok bool) {
	i = skipBlank(q, i)
	if i < len(q) && q[i] == '`' {
		var b strings.Builder
		for j := i + 1; j < len(q); j++ {
			if q[j] != '`' {
				b.WriteByte(q[j])
				continue
			}
			if j+1 < len(q) && q[j+1] == '`' {
				b.WriteByte('`')
				j++
				continue
			}
			name, i = b.String(), j+1
			break
		}
		if name == "" {
			return "", i, false
		}
	} else {
		j := i
		for j < len(q) && (q[j] == '_' || q[j] == '$' || q[j] >= '0' && q[j] <= '9' || q[j]|0x20 >= 'a' && q[j]|0x20 <= 'z' || q[j] >= 0x80) {
			j++
		}
		if j == i {
			return "", i, false
		}
		name, i = q[i:j], j
	}
	i = skipBlank(q, i)
	if i < len(q) && q[i] == ';' {
		i = skipBlank(q, i+1)
	}
	return name, i, true
}

// skipBlank returns the index of the first byte at or after i that is not
// white space or in a comment.
func skipBlank(q string, i int) int {
	if w, j := nextWord(q, i); w != "" {
		return j - len(w)
	}
	return len(q)
}

// savepoint runs a client's savepoint statement (see runtime.DistTx's
// savepoints: sent to every data source the transaction uses, and set on
// those that join it later). Under autocommit=0 it begins the
// transaction, as MySQL's. Outside a transaction, as MySQL: SAVEPOINT does
// nothing; ROLLBACK TO and RELEASE answer ERROR 1305 (42000) "SAVEPOINT
// name does not exist", as for a name the transaction has no savepoint of.
func (h *handler) savepoint(ctx context.Context, c *mysql.Conn, sess *session, k spKind, name string) error {
	if sess.tx == nil && sess.manual {
		if _, err := h.executor(c, sess); err != nil {
			return err
		}
	}
	dt, ok := sess.tx.(*runtime.DistTx)
	var err error
	switch {
	case !ok && k == spSet:
		return nil
	case !ok:
		err = runtime.ErrNoSavepoint
	case k == spSet:
		err = dt.Savepoint(ctx, name)
	case k == spRollback:
		err = dt.RollbackToSavepoint(ctx, name)
	default:
		err = dt.ReleaseSavepoint(ctx, name)
	}
	if errors.Is(err, runtime.ErrNoSavepoint) {
		return sqlerror.NewSQLError(sqlerror.ErrorCode(1305), "42000", "SAVEPOINT "+name+" does not exist")
	}
	return err
}
