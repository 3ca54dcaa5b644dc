package proxy

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestProxyClientDisconnectKillsBackend checks that a client going away
// mid-statement stops the back-end statement: a SLEEP(30) on one data node
// is running on ds_1, the client's connection closes (go-sql-driver closes
// it when the query's context is cancelled), and within two seconds no
// back-end thread runs it any more.
func TestProxyClientDisconnectKillsBackend(t *testing.T) {
	e := newPxEnv(t)
	cl := e.client(t, "root", "secret", nil)
	_, err := cl.Exec("INSERT INTO px_item (id, name) VALUES (1, 'a')")
	require.NoError(t, err)
	backend := testdb.Open(t, "ds_1")
	running := func() int {
		var n int
		// On the database/sql path the text starts with the session's tag;
		// on the fast path it is the data node's prepared statement.
		require.NoError(t, backend.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%SLEEP(30)%' AND ID <> CONNECTION_ID()").Scan(&n))
		return n
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var id int64
		var slept sql.NullInt64
		done <- cl.QueryRowContext(ctx, "SELECT id, CAST(SLEEP(30) AS SIGNED) AS slept FROM px_item WHERE id = ?", 1).Scan(&id, &slept)
	}()
	require.Eventually(t, func() bool { return running() == 1 }, 5*time.Second, 20*time.Millisecond, "the back end never ran the statement")
	cancel()
	require.EqualError(t, <-done, "context canceled")
	start := time.Now()
	require.Eventually(t, func() bool { return running() == 0 }, 2*time.Second, 20*time.Millisecond, "the back-end statement still runs after the client left")
	t.Logf("back-end statement stopped %v after the client disconnected", time.Since(start).Round(time.Millisecond))
	// The proxy still serves.
	var n int
	require.NoError(t, cl.QueryRow("SELECT COUNT(*) FROM px_item WHERE id = ?", 1).Scan(&n))
	require.Equal(t, 1, n)
}

// TestProxyClientDisconnectKillsMergePath is
// TestProxyClientDisconnectKillsBackend for a statement of the
// database/sql path (two data nodes, merged): the back-end thread whose
// last command the session owned (owner.go) is stopped with KILL QUERY.
func TestProxyClientDisconnectKillsMergePath(t *testing.T) {
	e := newPxEnv(t)
	cl := e.client(t, "root", "secret", nil)
	_, err := cl.Exec("INSERT INTO px_item (id, name) VALUES (1, 'a')")
	require.NoError(t, err)
	backend := testdb.Open(t, "ds_1")
	running := func() int {
		var n int
		require.NoError(t, backend.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%SLEEP(31)%' AND ID <> CONNECTION_ID()").Scan(&n))
		return n
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		rows, err := cl.QueryContext(ctx, "SELECT id, CAST(SLEEP(31) AS SIGNED) AS slept FROM px_item WHERE id IN (1, 2)")
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			_ = rows.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return running() == 1 }, 5*time.Second, 20*time.Millisecond, "the back end never ran the statement")
	cancel()
	require.Error(t, <-done)
	require.Eventually(t, func() bool { return running() == 0 }, 2*time.Second, 20*time.Millisecond, "the back-end statement still runs after the client left")
	var n int
	require.NoError(t, cl.QueryRow("SELECT COUNT(*) FROM px_item WHERE id IN (1, 2)").Scan(&n))
	require.Equal(t, 1, n)
}
