package proxy

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
)

// TestProxyFirstDataSourceDown: with the first data source (ds_0) down, a
// session still takes a character set — by its handshake (a latin1
// collation) or by SET NAMES — and runs on ds_1: the proxy asks any data
// source that answers what the character set's collations are, not only
// ds_0; so do a statement without a table, SHOW VARIABLES, DO and a SET of
// sql_mode.
func TestProxyFirstDataSourceDown(t *testing.T) {
	env := &pxEnv{srv: startProxy(t, paYAML(t, 2, 0), paDDL)}
	ds1 := testdb.Open(t, "ds_1")
	execAll(t, ds1, "DROP TABLE IF EXISTS pa_item")
	execAll(t, ds1, "CREATE TABLE pa_item (id BIGINT NOT NULL, v VARCHAR(40) NOT NULL, PRIMARY KEY (id))")
	execAll(t, ds1, "INSERT INTO pa_item VALUES (1, 'café')")
	t.Cleanup(func() { execAll(t, ds1, "DROP TABLE IF EXISTS pa_item") })
	for _, params := range []map[string]string{nil, {"collation": "latin1_swedish_ci"}} {
		client := env.clientDB(t, "root", "secret", "pa_db", params)
		for _, setup := range [][]string{nil, {"SET NAMES latin1"}, {"SET NAMES utf8mb3"}} {
			conn := sessionConn(t, client, setup...)
			require.Len(t, rowsOf(t, conn, "SELECT v FROM pa_item WHERE id = 1"), 1, "%v %v", params, setup)
			require.Equal(t, []string{"int64:2"}, rowsOf(t, conn, "SELECT 1 + 1"))
			require.Len(t, rowsOf(t, conn, "SHOW VARIABLES LIKE 'character_set_results'"), 1)
			_, err := conn.ExecContext(context.Background(), "SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
			require.NoError(t, err)
			_, err = conn.ExecContext(context.Background(), "DO 1")
			require.NoError(t, err)
			require.NoError(t, conn.Close())
		}
	}
}
