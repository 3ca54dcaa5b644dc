package proxy

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/runtime"
)

// settingsConns returns the open connections of the keyed pools of ds,
// by key.
func settingsConns(t *testing.T, srv *Server, ds string) map[string]int {
	t.Helper()
	stats, ok := srv.in.db.SettingsStats(ds)
	require.True(t, ok, ds)
	out := map[string]int{}
	for k, s := range stats {
		out[k] = s.OpenConnections
	}
	return out
}

// sessionConn opens one client session (one back-end proxy session) of db
// and runs setup on it.
func sessionConn(t *testing.T, db *sql.DB, setup ...string) *sql.Conn {
	t.Helper()
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	for _, q := range setup {
		_, err := conn.ExecContext(context.Background(), q)
		require.NoError(t, err, q)
	}
	return conn
}

// TestProxySettingsPools: sessions whose settings differ from the pools'
// (a latin1 handshake, SET sql_mode and time_zone) see them on every data
// source (px_item rows 1 and 2 live on ds_1 and ds_0), write and read as
// the unsharded reference database does with the same settings, share
// the connections of one keyed pool per data source with every session
// that set the same things, and never see another session's settings.
func TestProxySettingsPools(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	latin := map[string]string{"collation": "latin1_swedish_ci"}
	settings := []string{"SET sql_mode = ''", "SET time_zone = '+05:00'"}
	pxLatin := sessionConn(t, e.client(t, "root", "secret", latin))
	refLatin := sessionConn(t, refClient(t, latin))
	pxSet := sessionConn(t, e.client(t, "root", "secret", nil), settings...)
	refSet := sessionConn(t, refClient(t, nil), settings...)
	long := strings.Repeat("n", 70) // name is VARCHAR(64): truncated with sql_mode ''
	for _, side := range []struct {
		name       string
		latin, set *sql.Conn
	}{{"proxy", pxLatin, pxSet}, {"reference", refLatin, refSet}} {
		// 'é' is two bytes in UTF-8: the latin1 session stores two
		// characters, which it reads back as the same two bytes.
		for _, id := range []int{1, 2} {
			_, err := side.latin.ExecContext(ctx, "INSERT INTO px_item (id, name) VALUES (?, 'é')", id)
			require.NoError(t, err, side.name)
		}
		for _, id := range []int{3, 4} {
			_, err := side.set.ExecContext(ctx, fmt.Sprintf("INSERT INTO px_item (id, name, created) VALUES (%d, '%s', FROM_UNIXTIME(86400))", id, long))
			require.NoError(t, err, side.name)
		}
	}
	for _, q := range []string{
		"SELECT id, name, HEX(name), LENGTH(name), CHAR_LENGTH(name), @@character_set_client, @@collation_connection FROM px_item WHERE id = 1",
		"SELECT id, name, HEX(name), LENGTH(name), CHAR_LENGTH(name), @@character_set_client, @@collation_connection FROM px_item WHERE id = 2",
		"SELECT id, LENGTH(name), created, UNIX_TIMESTAMP(created), @@time_zone, @@sql_mode FROM px_item WHERE id = 3",
		"SELECT id, LENGTH(name), created, UNIX_TIMESTAMP(created), @@time_zone, @@sql_mode FROM px_item WHERE id = 4",
		"SELECT id, name, LENGTH(name), created FROM px_item ORDER BY id",
	} {
		for _, s := range []struct{ px, ref *sql.Conn }{{pxLatin, refLatin}, {pxSet, refSet}} {
			want := rowsOf(t, s.ref, q)
			require.NotEmpty(t, want, q)
			require.Equal(t, want, rowsOf(t, s.px, q), q)
		}
	}
	require.Equal(t, []string{"int64:1 | string:é | string:C383C2A9 | int64:4 | int64:2 | string:latin1 | string:latin1_swedish_ci"},
		rowsOf(t, pxLatin, "SELECT id, name, HEX(name), LENGTH(name), CHAR_LENGTH(name), @@character_set_client, @@collation_connection FROM px_item WHERE id = 1"))
	require.Equal(t, []string{"int64:4 | int64:64 | string:1970-01-02 05:00:00.000 | string:86400.000 | string:+05:00 | string:"},
		rowsOf(t, pxSet, "SELECT id, LENGTH(name), created, UNIX_TIMESTAMP(created), @@time_zone, @@sql_mode FROM px_item WHERE id = 4"))

	// Sessions with the same settings share one keyed pool per data
	// source: ten sessions, their statements one after the other, hold
	// one connection each of ds_0 and ds_1.
	db := e.client(t, "root", "secret", nil)
	var conns []*sql.Conn
	for range 10 {
		c := sessionConn(t, db, settings...)
		conns = append(conns, c)
		require.Equal(t, []string{"int64:3 | string:+05:00 | string:", "int64:4 | string:+05:00 | string:"}, rowsOf(t, c, "SELECT id, @@time_zone, @@sql_mode FROM px_item WHERE id IN (3, 4) ORDER BY id"))
	}
	key := strings.Join(settings, ";\n")
	for _, ds := range []string{"ds_0", "ds_1"} {
		got := settingsConns(t, e.srv, ds)
		require.Equal(t, 1, got[key], "%s: %v", ds, got)
		require.Contains(t, got, "SET NAMES latin1 COLLATE latin1_swedish_ci", ds)
	}
	// A transaction of such a session runs on the keyed pools too.
	_, err := conns[0].ExecContext(ctx, "BEGIN")
	require.NoError(t, err)
	_, err = conns[0].ExecContext(ctx, "UPDATE px_item SET created = FROM_UNIXTIME(0) WHERE id IN (3, 4)")
	require.NoError(t, err)
	plain := sessionConn(t, db)
	format := "SELECT id, DATE_FORMAT(created, '%Y-%m-%d %H:%i:%s') FROM px_item WHERE id IN (3, 4) ORDER BY id"
	require.Equal(t, []string{"int64:3 | string:1970-01-02 05:00:00", "int64:4 | string:1970-01-02 05:00:00"}, rowsOf(t, plain, format))
	_, err = conns[0].ExecContext(ctx, "COMMIT")
	require.NoError(t, err)
	require.Equal(t, []string{"int64:3 | string:1970-01-01 05:00:00", "int64:4 | string:1970-01-01 05:00:00"}, rowsOf(t, plain, format))

	// A session with default settings stays on the data sources' pools
	// and sees their values, whatever the sessions around it set.
	var mode, tz string
	require.NoError(t, testdbRow(ctx, plain, "SELECT @@sql_mode, @@time_zone", &mode, &tz))
	require.NotEqual(t, "", mode)
	require.NotEqual(t, "+05:00", tz)
	require.Equal(t, []string{"int64:1 | string:utf8mb4 | string:utf8mb4_general_ci"}, rowsOf(t, plain, "SELECT id, @@character_set_client, @@collation_connection FROM px_item WHERE id = 1"))
}

// testdbRow scans the one row of q on conn.
func testdbRow(ctx context.Context, conn *sql.Conn, q string, dest ...any) error {
	return conn.QueryRowContext(ctx, q).Scan(dest...)
}

// TestProxySettingsNoLeak: sessions with different settings, interleaved
// and concurrent, each read their own values on both data sources; the
// keyed pools are bounded (runtime.MaxSettingsPools keys in use, then a
// session runs on its own connections, runtime.Reserved), a key no
// session uses makes room for a new one, a setting the server refuses
// leaves the session as it was, and a user variable keeps the session's
// settings.
func TestProxySettingsNoLeak(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	db := e.client(t, "root", "secret", nil)
	_, err := db.Exec("INSERT INTO px_item (id, name) VALUES (1, 'x'), (2, 'x')")
	require.NoError(t, err)
	q := "SELECT id, @@time_zone, @@sql_mode, @@collation_connection FROM px_item WHERE id IN (1, 2) ORDER BY id"
	plain := sessionConn(t, db)
	defaults := rowsOf(t, plain, q)
	var defaultMode string
	require.NoError(t, plain.QueryRowContext(ctx, "SELECT @@sql_mode").Scan(&defaultMode))
	n := runtime.MaxSettingsPools + 2
	conns := make([]*sql.Conn, n)
	want := make([][]string, n)
	for i := range conns {
		tz := fmt.Sprintf("+%02d:00", i+1)
		setup := []string{"SET time_zone = '" + tz + "'"}
		mode, coll := defaultMode, "utf8mb4_general_ci"
		if i%2 == 1 {
			setup = append(setup, "SET sql_mode = 'NO_ZERO_DATE'")
			mode = "NO_ZERO_DATE"
		}
		if i%3 == 2 {
			setup = append(setup, "SET NAMES latin1")
			coll = "latin1_swedish_ci"
		}
		conns[i] = sessionConn(t, db, setup...)
		row := " | string:" + tz + " | string:" + mode + " | string:" + coll
		want[i] = []string{"int64:1" + row, "int64:2" + row}
	}
	// Sessions past the bound run on runtime.Reserved: the keys in use
	// stay at the bound.
	require.Len(t, settingsConns(t, e.srv, "ds_0"), runtime.MaxSettingsPools)
	check := func() {
		for round := range 3 {
			for i, c := range conns {
				require.Equal(t, want[i], rowsOf(t, c, q), "session %d round %d", i, round)
			}
			require.Equal(t, defaults, rowsOf(t, plain, q))
		}
	}
	check()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				rows, err := c.QueryContext(ctx, q)
				if err != nil {
					errs <- err
					return
				}
				var got []string
				for rows.Next() {
					var id, tz, mode, coll string
					if err := rows.Scan(&id, &tz, &mode, &coll); err != nil {
						errs <- err
						return
					}
					got = append(got, "int64:"+id+" | string:"+tz+" | string:"+mode+" | string:"+coll)
				}
				rows.Close()
				if strings.Join(got, ";") != strings.Join(want[i], ";") {
					errs <- fmt.Errorf("session %d read %q, want %q", i, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	// A refused setting: the server's error, the session keeps its
	// settings and pools, and the refused key is not kept.
	_, err = conns[0].ExecContext(ctx, "SET sql_mode = 'NO_SUCH_MODE'")
	require.EqualError(t, err, "Error 1231 (42000): Variable 'sql_mode' can't be set to the value of 'NO_SUCH_MODE'")
	require.Equal(t, want[0], rowsOf(t, conns[0], q))
	for k := range settingsConns(t, e.srv, "ds_0") {
		require.NotContains(t, k, "NO_SUCH_MODE")
	}

	// A user variable: the session moves to its own connections with its
	// settings.
	_, err = conns[1].ExecContext(ctx, "SET @x = 42")
	require.NoError(t, err)
	require.Equal(t, want[1], rowsOf(t, conns[1], q))
	require.Equal(t, []string{"int64:42 | string:+02:00"}, rowsOf(t, conns[1], "SELECT @x, @@time_zone"))

	// Ending sessions leaves their keys to the next sessions with their
	// settings; a new key takes the place of one no session uses.
	for _, c := range conns {
		require.NoError(t, c.Close())
	}
	db.SetMaxIdleConns(0) // closes the client connections Close returned
	// The proxy ends a session when it reads the client's COM_QUIT: wait
	// for that (no time limit but the test's).
	for {
		e.srv.mu.Lock()
		open := len(e.srv.conns)
		e.srv.mu.Unlock()
		if open <= 1 { // plain
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	late := sessionConn(t, db, "SET time_zone = '-03:00'")
	require.Equal(t, []string{"int64:1 | string:-03:00", "int64:2 | string:-03:00"}, rowsOf(t, late, "SELECT id, @@time_zone FROM px_item WHERE id IN (1, 2) ORDER BY id"))
	require.Contains(t, settingsConns(t, e.srv, "ds_0"), "SET time_zone = '-03:00'")
	require.Len(t, settingsConns(t, e.srv, "ds_0"), runtime.MaxSettingsPools)
}

// TestProxySettingsDataSourceDown: with data source ds_2 down, a session
// still takes settings (the check skips ds_2) and runs on the live data
// sources with them; every write that reaches ds_2 fails as it fails for
// a session with default settings and leaves ds_0 and ds_1 as they were.
func TestProxySettingsDataSourceDown(t *testing.T) {
	ctx := context.Background()
	env := &pxEnv{srv: newAtomicProxy(t, true)}
	client := env.clientDB(t, "root", "secret", "pa_db", nil)
	paReset(t)
	conn := sessionConn(t, client, "SET time_zone = '+01:00'")
	require.Equal(t, []string{"int64:0 | string:+01:00", "int64:1 | string:+01:00"},
		rowsOf(t, conn, "SELECT id, @@time_zone FROM pa_item WHERE id IN (0, 1) ORDER BY id"))
	require.Contains(t, settingsConns(t, env.srv, "ds_0"), "SET time_zone = '+01:00'")
	for _, w := range paWrites {
		var args []any
		if strings.Contains(w.sql, "?") {
			args = []any{"changed", "x"}
		}
		_, want := client.ExecContext(ctx, w.sql, args...)
		require.ErrorContains(t, want, w.fails, w.name)
		_, err := conn.ExecContext(ctx, w.sql, args...)
		require.EqualError(t, err, want.Error(), w.name)
		require.Equal(t, paSeed(0), paRows(t, "ds_0"), w.name)
		require.Equal(t, paSeed(1), paRows(t, "ds_1"), w.name)
	}
}

// TestProxySettingsInTransaction: a SET inside a transaction of a session
// on the settings pools applies after the transaction, which goes on, and
// commits, on the connections it began on even when runtime.MaxSettingsPools
// other keys come and go before its end (the pools it runs on stay the
// session's until then).
func TestProxySettingsInTransaction(t *testing.T) {
	e := newPxEnv(t)
	ctx := context.Background()
	db := e.client(t, "root", "secret", nil)
	_, err := db.Exec("INSERT INTO px_item (id, name) VALUES (1, 'a'), (2, 'b')")
	require.NoError(t, err)
	conn := sessionConn(t, db, "SET time_zone = '+05:00'", "BEGIN")
	_, err = conn.ExecContext(ctx, "UPDATE px_item SET created = FROM_UNIXTIME(0) WHERE id = 1")
	require.NoError(t, err)
	_, err = conn.ExecContext(ctx, "SET time_zone = '+06:00'")
	require.NoError(t, err)
	// Other sessions with other settings, one after the other: each key
	// in turn is the least recently used one no session uses.
	other := e.client(t, "root", "secret", nil)
	other.SetMaxIdleConns(0)
	for i := range runtime.MaxSettingsPools + 2 {
		c := sessionConn(t, other, fmt.Sprintf("SET time_zone = '-%02d:00'", i+1))
		require.Equal(t, []string{fmt.Sprintf("string:-%02d:00", i+1)}, rowsOf(t, c, "SELECT @@time_zone"))
		require.NoError(t, c.Close())
	}
	// The transaction goes on, with its prepared statements, on its
	// connections (time zone +05:00), and commits.
	_, err = conn.ExecContext(ctx, "UPDATE px_item SET created = FROM_UNIXTIME(?) WHERE id = ?", 0, 2)
	require.NoError(t, err)
	require.Equal(t, []string{"int64:1 | string:1970-01-01 05:00:00", "int64:2 | string:1970-01-01 05:00:00"},
		rowsOf(t, conn, "SELECT id, DATE_FORMAT(created, ?) FROM px_item WHERE id IN (1, 2) ORDER BY id", "%Y-%m-%d %H:%i:%s"))
	_, err = conn.ExecContext(ctx, "COMMIT")
	require.NoError(t, err)
	require.Equal(t, []string{"string:+06:00"}, rowsOf(t, conn, "SELECT @@time_zone"))
	require.Equal(t, []string{"int64:1 | string:1970-01-01 05:00:00", "int64:2 | string:1970-01-01 05:00:00"},
		rowsOf(t, db, "SELECT id, DATE_FORMAT(created, '%Y-%m-%d %H:%i:%s') FROM px_item WHERE id IN (1, 2) ORDER BY id"))
}
