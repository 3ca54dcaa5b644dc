package proxy

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

// TestProxyRequireSecureTransport: with
// proxy-frontend-require-secure-transport a client that does not switch
// to TLS is refused with ERROR 3159 (HY000), as MySQL refuses it under
// require_secure_transport=ON, whatever its password; over TLS it works.
// Without the TLS listener the prop is a start error.
func TestProxyRequireSecureTransport(t *testing.T) {
	y := strings.Replace(pxYAML(), "authority:", "props:\n  proxy-frontend-ssl-enabled: true\n  proxy-frontend-require-secure-transport: true\nauthority:", 1)
	e := newPxEnvYAML(t, y)
	for _, pass := range []string{"secret", "wrong"} {
		db := e.client(t, "root", pass, map[string]string{"tls": "false"})
		err := db.Ping()
		var me *gomysql.MySQLError
		require.True(t, errors.As(err, &me), "%v", err)
		require.Equal(t, uint16(3159), me.Number)
		require.Equal(t, "HY000", string(me.SQLState[:]))
		require.Equal(t, "Connections using insecure transport are prohibited while --require_secure_transport=ON.", me.Message)
	}
	db := e.client(t, "root", "secret", map[string]string{"tls": "skip-verify"})
	require.Equal(t, []string{"int64:1"}, rowsOf(t, db, "SELECT 1"))

	cfg, err := ParseConfig("px.yaml", []byte(strings.Replace(pxYAML(), "authority:", "props:\n  proxy-frontend-require-secure-transport: true\nauthority:", 1)))
	require.NoError(t, err)
	srv, err := NewServer(cfg, Options{Listen: "127.0.0.1:0", ShutdownTimeout: 2 * time.Second})
	require.NoError(t, err)
	err = srv.Start()
	require.EqualError(t, err, "proxy: props: proxy-frontend-require-secure-transport needs the TLS listener (proxy-frontend-ssl-enabled: true)")
	require.NoError(t, srv.Close())
}

// TestProxyFoundRows: a client that sets CLIENT_FOUND_ROWS
// (clientFoundRows=true) gets the rows an UPDATE or an INSERT ... ON
// DUPLICATE KEY UPDATE matched, summed over the data nodes, as the
// unsharded reference database gives them; without the flag the rows
// changed. px_item's rows 1..8 spread over all four data nodes.
func TestProxyFoundRows(t *testing.T) {
	e := newPxEnv(t)
	stmts := []string{
		"UPDATE px_item SET name = 'x' WHERE id IN (1, 2, 3, 4)", // 2 of 4 already 'x'
		"UPDATE px_item SET name = 'x' WHERE name <> 'y'",        // every node: 4 changed, 8 matched
		"UPDATE px_item SET name = 'x' WHERE id = 3",
		"UPDATE px_item SET name = 'x' WHERE id = 42",
		"INSERT INTO px_item (id, name) VALUES (5, 'x') ON DUPLICATE KEY UPDATE name = VALUES(name)",
		"INSERT INTO px_item (id, name) VALUES (6, 'y') ON DUPLICATE KEY UPDATE name = VALUES(name)",
		"DELETE FROM px_item WHERE id IN (7, 8)",
	}
	for _, found := range []string{"true", "false"} {
		params := map[string]string{"clientFoundRows": found}
		px, ref := e.client(t, "root", "secret", params), refClient(t, params)
		for _, db := range []*sql.DB{px, ref} {
			_, err := db.Exec("DELETE FROM px_item")
			require.NoError(t, err)
			_, err = db.Exec("INSERT INTO px_item (id, name) VALUES (1, 'x'), (2, 'a'), (3, 'x'), (4, 'b'), (5, 'c'), (6, 'd'), (7, 'e'), (8, 'f')")
			require.NoError(t, err)
		}
		for _, q := range stmts {
			want, err := ref.Exec(q)
			require.NoError(t, err, q)
			got, err := px.Exec(q)
			require.NoError(t, err, q)
			wn, _ := want.RowsAffected()
			gn, _ := got.RowsAffected()
			require.Equal(t, wn, gn, "clientFoundRows=%s: %s", found, q)
		}
	}
}
