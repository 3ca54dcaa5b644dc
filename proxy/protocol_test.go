package proxy

import (
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
