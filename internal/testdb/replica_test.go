package testdb

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReplica checks the replica `make db-up` starts on the real servers: a
// row written on server ReplicaOf appears on the replica, which is a
// different mariadbd (server_id ReplicaServerID), read-only, with both
// replication threads running on GTID.
func TestReplica(t *testing.T) {
	primary := Open(t, "ds_0")
	replica := OpenReplica(t, "ds_0")

	var primaryID, replicaID int64
	require.NoError(t, primary.QueryRow("SELECT @@server_id").Scan(&primaryID))
	require.NoError(t, replica.QueryRow("SELECT @@server_id").Scan(&replicaID))
	require.NotEqual(t, primaryID, replicaID)
	require.EqualValues(t, ReplicaServerID, replicaID)

	var readOnly int
	require.NoError(t, replica.QueryRow("SELECT @@read_only").Scan(&readOnly))
	require.Equal(t, 1, readOnly)

	_, err := primary.Exec("CREATE TABLE IF NOT EXISTS testdb_replica (id BIGINT PRIMARY KEY, v VARCHAR(32))")
	require.NoError(t, err)
	v := strconv.FormatInt(time.Now().UnixNano(), 10)
	_, err = primary.Exec("REPLACE INTO testdb_replica VALUES (1, ?)", v)
	require.NoError(t, err)
	WaitReplicated(t, primary, replica, 10*time.Second)
	var got string
	require.NoError(t, replica.QueryRow("SELECT v FROM testdb_replica WHERE id = 1").Scan(&got))
	require.Equal(t, v, got)

	rows, err := replica.Query("SHOW SLAVE STATUS")
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	require.True(t, rows.Next(), "replication is configured")
	vals := make([]any, len(cols))
	raw := make([][]byte, len(cols))
	for i := range vals {
		vals[i] = &raw[i]
	}
	require.NoError(t, rows.Scan(vals...))
	status := map[string]string{}
	for i, c := range cols {
		status[c] = string(raw[i])
	}
	require.Equal(t, "Yes", status["Slave_IO_Running"])
	require.Equal(t, "Yes", status["Slave_SQL_Running"])
	require.Equal(t, "Slave_Pos", status["Using_Gtid"])
}

func TestReplicaDSN(t *testing.T) {
	clearEnv(t)
	t.Setenv(EnvPort2, "")
	require.Equal(t, "shardgen:shardgen@tcp(127.0.0.1:13308)/ds_0", ReplicaDSN("ds_0"))
	t.Setenv(EnvPort2, "23308")
	require.Equal(t, "shardgen:shardgen@tcp(127.0.0.1:23308)/ds_2", ReplicaDSN("ds_2"))
	t.Setenv(EnvPort2, "x")
	_, _, err := replicaServer()
	require.EqualError(t, err, `testdb: SHARDGEN_DB_PORT_2="x" is not a TCP port (1..65535)`)
}
