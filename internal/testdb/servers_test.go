package testdb

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServers checks the environment `make db-up` promises, on the real
// servers: every data source and Reference answer as the test account on
// the server ServerIndex names (right database, right port), the two
// servers are distinct (different @@server_id), binlog is on (ROW) for the
// replica and XA tests, and the account may run XA RECOVER. It fails, never
// skips, when a server is down.
func TestServers(t *testing.T) {
	serverIDs := map[int]int64{} // server index -> @@server_id
	for _, name := range append(DataSources(), Reference) {
		t.Run(name, func(t *testing.T) {
			db := Open(t, name)
			var (
				got      string
				serverID int64
				port     int
				logBin   int
				format   string
			)
			require.NoError(t, db.QueryRow(
				"SELECT DATABASE(), @@server_id, @@port, @@log_bin, @@binlog_format").
				Scan(&got, &serverID, &port, &logBin, &format))
			require.Equal(t, name, got)
			_, wantPort := Server(name)
			require.Equal(t, wantPort, port)
			require.Equal(t, 1, logBin, "binlog must be on")
			require.Equal(t, "ROW", format)

			rows, err := db.Query("XA RECOVER")
			require.NoError(t, err)
			require.NoError(t, rows.Close())

			i := ServerIndex(name)
			if id, ok := serverIDs[i]; ok {
				require.Equal(t, id, serverID, "%s is on server %d", name, i)
			}
			serverIDs[i] = serverID
		})
	}
	if t.Failed() {
		return // each failed subtest has said why
	}
	require.Len(t, serverIDs, NumServers)
	require.NotEqual(t, serverIDs[0], serverIDs[1], "servers 0 and 1 must be different mariadbd processes")
}
