package runtime

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// XALogTable is the coordinator log of XA transactions, created on the
// coordinator data source (the first data source of the Config) when first
// needed: one row per transaction whose commit was decided and not yet
// finished everywhere.
const XALogTable = "shardgen_xa_log"

// XARecoveryMinAge is the age below which the start-up recovery of
// BeginDistributed leaves a prepared branch alone: it may belong to a
// transaction another process is committing right now.
const XARecoveryMinAge = time.Minute

const xaLogDDL = "CREATE TABLE IF NOT EXISTS " + XALogTable + ` (
  gtrid VARBINARY(64) NOT NULL PRIMARY KEY,
  branches TEXT NOT NULL,
  decided_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB`

// logPool is the coordinator data source's pool.
func (db *DB) logPool() (*sql.DB, string) { return db.pools[0], db.names[0] }

func (db *DB) ensureLog(ctx context.Context) error {
	db.xa.mu.Lock()
	ok := db.xa.tableOK
	db.xa.mu.Unlock()
	if ok {
		return nil
	}
	pool, name := db.logPool()
	if _, err := pool.ExecContext(ctx, xaLogDDL); err != nil {
		return &NodeError{DataSource: name, SQL: "CREATE TABLE " + XALogTable, Err: err}
	}
	db.xa.mu.Lock()
	db.xa.tableOK = true
	db.xa.mu.Unlock()
	return nil
}

// logCommit durably records the decision to commit gtrid.
func (db *DB) logCommit(ctx context.Context, gtrid string, branches []string) error {
	if err := db.ensureLog(ctx); err != nil {
		return err
	}
	pool, name := db.logPool()
	q := "INSERT INTO " + XALogTable + " (gtrid, branches) VALUES (?, ?)"
	if _, err := pool.ExecContext(ctx, q, gtrid, strings.Join(branches, ",")); err != nil {
		return &NodeError{DataSource: name, SQL: q, Err: err}
	}
	return nil
}

// forgetCommit deletes the decision once every branch committed.
func (db *DB) forgetCommit(ctx context.Context, gtrid string) error {
	pool, name := db.logPool()
	q := "DELETE FROM " + XALogTable + " WHERE gtrid = ?"
	if _, err := pool.ExecContext(ctx, q, gtrid); err != nil {
		return &NodeError{DataSource: name, SQL: q, Err: err}
	}
	return nil
}

// XARecovery is what RecoverXA did: the xids (gtrid/bqual) it committed
// and rolled back, each "data source: gtrid".
type XARecovery struct {
	Committed  []string
	RolledBack []string
}

// RecoverXA finishes the XA transactions of shardgen that a crash left
// prepared: it runs XA RECOVER once per server (data sources on one
// host:port share it), and for each prepared branch whose gtrid starts with
// "sg-", is older than minAge and is not open in this process, sends XA
// COMMIT when the coordinator log holds its gtrid and XA ROLLBACK when it
// does not (presumed abort). When every server answered, log rows with no
// prepared branch left are deleted; when one did not, the log is kept
// whole (its branches may still be prepared there) and the errors are
// returned, joined, with what was done so far. Run it at start-up (the
// first XA BeginDistributed does, with XARecoveryMinAge) and whenever a
// commit returned ErrXAIncomplete.
func (db *DB) RecoverXA(ctx context.Context, minAge time.Duration) (XARecovery, error) {
	var out XARecovery
	if err := db.ensureLog(ctx); err != nil {
		return out, err
	}
	logPool, logName := db.logPool()
	decided := map[string]bool{}
	rows, err := logPool.QueryContext(ctx, "SELECT gtrid FROM "+XALogTable)
	if err != nil {
		return out, &NodeError{DataSource: logName, SQL: "SELECT FROM " + XALogTable, Err: err}
	}
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			_ = rows.Close()
			return out, err
		}
		decided[g] = true
	}
	if err := rows.Close(); err != nil {
		return out, err
	}
	db.xa.mu.Lock()
	live := make(map[string]bool, len(db.xa.live))
	for g := range db.xa.live {
		live[g] = true
	}
	db.xa.mu.Unlock()

	var errs []error
	stillPrepared := map[string]bool{}
	seen := map[string]bool{}
	cutoff := time.Now().Add(-minAge).UnixNano()
	for i, pool := range db.pools {
		server := serverOf(db.addrs[i])
		if seen[server] {
			continue
		}
		seen[server] = true
		xids, err := xaRecover(ctx, pool)
		if err != nil {
			errs = append(errs, db.sourceError(i, err))
			continue
		}
		for _, x := range xids {
			if !strings.HasPrefix(x.gtrid, "sg-") || live[x.gtrid] || xidTime(x.gtrid) > cutoff {
				stillPrepared[x.gtrid] = true
				continue
			}
			verb, list := "XA ROLLBACK ", &out.RolledBack
			if decided[x.gtrid] {
				verb, list = "XA COMMIT ", &out.Committed
			}
			if _, err := pool.ExecContext(ctx, verb+xidSQL(x.gtrid, x.bqual)); err != nil {
				var me *mysql.MySQLError
				if !errors.As(err, &me) || me.Number != 1397 { // XAER_NOTA: finished meanwhile
					errs = append(errs, db.sourceError(i, err))
					stillPrepared[x.gtrid] = true
					continue
				}
			}
			*list = append(*list, x.bqual+": "+x.gtrid)
		}
	}
	if len(errs) == 0 {
		for g := range decided {
			if !stillPrepared[g] && !live[g] && xidTime(g) <= cutoff {
				if err := db.forgetCommit(ctx, g); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return out, errors.Join(errs...)
}

type xaXID struct{ gtrid, bqual string }

// xaRecover runs XA RECOVER: formatID, gtrid_length, bqual_length, data.
func xaRecover(ctx context.Context, pool *sql.DB) ([]xaXID, error) {
	rows, err := pool.QueryContext(ctx, "XA RECOVER")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []xaXID
	for rows.Next() {
		var format, gl, bl int64
		var data []byte
		if err := rows.Scan(&format, &gl, &bl, &data); err != nil {
			return nil, err
		}
		if format != 1 || gl < 0 || bl < 0 || int(gl+bl) > len(data) {
			continue // not ours
		}
		out = append(out, xaXID{gtrid: string(data[:gl]), bqual: string(data[gl : gl+bl])})
	}
	return out, rows.Err()
}

// xidTime returns the start time (unix nanoseconds) in a gtrid
// "sg-<hex>-<random>", or 0.
func xidTime(gtrid string) int64 {
	rest, ok := strings.CutPrefix(gtrid, "sg-")
	if !ok {
		return 0
	}
	if i := strings.IndexByte(rest, '-'); i > 0 {
		rest = rest[:i]
	}
	n, err := strconv.ParseInt(rest, 16, 64)
	if err != nil {
		return 0
	}
	return n
}
