package proxy

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pxPermittedYAML serves px_db to root (every database) and app (px_db),
// but not to guest, whose mapping names another database.
func pxPermittedYAML() string {
	head := strings.Split(pxYAML(), "authority:")[0]
	return head + `authority:
  users:
    - user: root@%
      password: secret
    - user: app@%
      password: app
    - user: guest@%
      password: guest
  privilege:
    type: DATABASE_PERMITTED
    props:
      user-database-mappings: root@%=*, app@%=px_db, guest@%=other_db
`
}

func TestProxyDatabasePermitted(t *testing.T) {
	e := newPxEnvYAML(t, pxPermittedYAML())
	tests := []struct {
		user, pass, db string
		err            string
	}{
		{"root", "secret", "px_db", ""},
		{"root", "secret", "", ""},
		{"app", "app", "PX_DB", ""},
		{"root", "secret", "nope", "Error 1049 (42000): Unknown database 'nope'"},
		{"guest", "guest", "nope", "Error 1049 (42000): Unknown database 'nope'"},
		{"guest", "guest", "px_db", "Error 1044 (42000): Access denied for user 'guest'@'127.0.0.1' to database 'px_db'"},
		{"guest", "guest", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.user+"/"+tt.db, func(t *testing.T) {
			err := e.clientDB(t, tt.user, tt.pass, tt.db, nil).Ping()
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.err)
		})
	}
	// A guest without a database sees no database, cannot USE px_db and
	// cannot query its tables.
	db := e.clientDB(t, "guest", "guest", "", nil)
	require.Empty(t, rowsOf(t, db, "SHOW DATABASES"))
	_, err := db.Exec("USE px_db")
	require.EqualError(t, err, "Error 1044 (42000): Access denied for user 'guest'@'127.0.0.1' to database 'px_db'")
	_, err = db.Exec("SELECT id FROM px_item")
	require.EqualError(t, err, "Error 1044 (42000): Access denied for user 'guest'@'127.0.0.1' to database 'px_db'")
	_, err = db.Exec("SHOW TABLES FROM px_db")
	require.EqualError(t, err, "Error 1044 (42000): Access denied for user 'guest'@'127.0.0.1' to database 'px_db'")
	// app sees px_db.
	require.Equal(t, []string{"string:px_db"}, rowsOf(t, e.client(t, "app", "app", nil), "SHOW DATABASES"))
	conn, err := e.clientDB(t, "app", "app", "", nil).Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(context.Background(), "USE px_db")
	require.NoError(t, err)
}
