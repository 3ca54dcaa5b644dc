package proxy

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// waitLockWait waits until n transactions of data source ds's server wait
// for a row lock (the statement sent by the other goroutine is blocked),
// failing after 30 s. It reads every 150 ms: MariaDB refreshes what
// INNODB_TRX shows only when it was last read more than 100 ms before.
func waitLockWait(t *testing.T, ds string, n int) {
	t.Helper()
	db := testdb.Open(t, ds)
	for i := 0; i < 200; i++ {
		var k int
		require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'").Scan(&k))
		if k >= n {
			return
		}
		time.Sleep(150 * time.Millisecond)
	}
	t.Fatalf("no lock wait on %s", ds)
}

// twoTransactions starts a proxy over pa_item (ds_0 and ds_1, reset to
// the seed rows) and returns two client sessions, each in a transaction
// begun after the statements before (run through the first session only
// when they write, through both when they SET).
func twoTransactions(t *testing.T, before ...string) (a, b *sql.Conn) {
	t.Helper()
	ctx := context.Background()
	env := &pxEnv{srv: newAtomicProxy(t, false)}
	client := env.clientDB(t, "root", "secret", "pa_db", nil)
	paReset(t)
	var err error
	a, err = client.Conn(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	b, err = client.Conn(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	for i, c := range []*sql.Conn{a, b} {
		for _, q := range before {
			if i == 1 && !strings.HasPrefix(q, "SET") {
				continue
			}
			_, err := c.ExecContext(ctx, q)
			require.NoError(t, err, q)
		}
		_, err := c.ExecContext(ctx, "BEGIN")
		require.NoError(t, err)
	}
	return a, b
}

// TestProxyDeadlockAcrossDataSources: two transactions that lock pa_item's
// rows on ds_0 and ds_1 (two servers) in opposite orders wait for each
// other, which neither server can see. The proxy finds the cycle
// (deadlock.go): one client gets ERROR 1213, its whole transaction is
// rolled back on both data sources (its COMMIT afterwards commits
// nothing), and the other transaction goes on and commits both rows. The
// sessions run with innodb_lock_wait_timeout = 100 s, so without the
// detector both statements would wait that long and fail with 1205.
func TestProxyDeadlockAcrossDataSources(t *testing.T) {
	ctx := context.Background()
	a, b := twoTransactions(t, "SET SESSION innodb_lock_wait_timeout = 100")
	_, err := a.ExecContext(ctx, "UPDATE pa_item SET v = 'a' WHERE id = 0") // ds_0
	require.NoError(t, err)
	_, err = b.ExecContext(ctx, "UPDATE pa_item SET v = 'b' WHERE id = 1") // ds_1
	require.NoError(t, err)
	errA := make(chan error, 1)
	go func() {
		_, err := a.ExecContext(ctx, "UPDATE pa_item SET v = ? WHERE id = 1", "a") // prepared; waits for b on ds_1
		errA <- err
	}()
	waitLockWait(t, "ds_1", 1)
	_, errB := b.ExecContext(ctx, "UPDATE pa_item SET v = 'b' WHERE id = 0") // waits for a on ds_0: the cycle
	eA := <-errA
	var victim, winner *sql.Conn
	var want string
	switch {
	case mysqlErrNo(eA) == 1213 && errB == nil:
		victim, winner, want = a, b, "b"
	case mysqlErrNo(errB) == 1213 && eA == nil:
		victim, winner, want = b, a, "a"
	default:
		t.Fatalf("want one deadlock error (1213) and one success, got %v and %v", eA, errB)
	}
	_, err = victim.ExecContext(ctx, "COMMIT") // no transaction left: commits nothing
	require.NoError(t, err)
	_, err = winner.ExecContext(ctx, "COMMIT")
	require.NoError(t, err)
	require.Equal(t, "item:0="+want+";dict:1=a", paRows(t, "ds_0"))
	require.Equal(t, "item:1="+want+";dict:1=a", paRows(t, "ds_1"))
	// The victim's session goes on.
	var n int
	require.NoError(t, victim.QueryRowContext(ctx, "SELECT COUNT(*) FROM pa_item").Scan(&n))
	require.Equal(t, 2, n)
}

// TestProxyDeadlockOneServerRollsBackAll: a deadlock on one data source
// (found by the server, ERROR 1213) rolls back that data source's part of
// the transaction only; the proxy rolls back its other data sources too,
// as MySQL rolls back the whole transaction of a deadlock victim, so a
// client that commits after the error commits nothing.
func TestProxyDeadlockOneServerRollsBackAll(t *testing.T) {
	ctx := context.Background()
	a, b := twoTransactions(t, "INSERT INTO pa_item VALUES (2, 'a'), (4, 'a'), (6, 'a'), (8, 'a')")
	// a: row 1 on ds_1, then row 0 on ds_0; b: rows 2, 4, 6 and 8 on ds_0
	// (more than a's there, so that InnoDB chooses a as the victim).
	for _, s := range []struct {
		c *sql.Conn
		q string
	}{{a, "UPDATE pa_item SET v = 'x' WHERE id = 1"}, {a, "UPDATE pa_item SET v = 'x' WHERE id = 0"}, {b, "UPDATE pa_item SET v = 'y' WHERE id = 2"}, {b, "UPDATE pa_item SET v = 'y' WHERE id = 4"},
		{b, "UPDATE pa_item SET v = 'y' WHERE id = 6"}, {b, "UPDATE pa_item SET v = 'y' WHERE id = 8"}} {
		_, err := s.c.ExecContext(ctx, s.q)
		require.NoError(t, err, s.q)
	}
	errA := make(chan error, 1)
	go func() {
		_, err := a.ExecContext(ctx, "UPDATE pa_item SET v = 'x' WHERE id = 2") // waits for b on ds_0
		errA <- err
	}()
	waitLockWait(t, "ds_0", 1)
	_, errB := b.ExecContext(ctx, "UPDATE pa_item SET v = 'y' WHERE id = 0") // the cycle on ds_0
	eA := <-errA
	for _, c := range []*sql.Conn{a, b} {
		_, err := c.ExecContext(ctx, "COMMIT")
		require.NoError(t, err)
	}
	require.Equal(t, uint16(1213), mysqlErrNo(eA), "a: %v", eA)
	require.NoError(t, errB)
	// a's row on ds_1 is not committed.
	require.Equal(t, "item:0=y,2=y,4=y,6=y,8=y;dict:1=a", paRows(t, "ds_0"))
	require.Equal(t, paSeed(1), paRows(t, "ds_1"))
}
