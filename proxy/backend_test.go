package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/internal/testdb"
	"github.com/shardgen/shardgen/runtime"
)

// TestProxyDataSourceConnectErrors: a data source refusing the proxy's own
// credentials or database, or not answering, is ERROR 1105 (HY000) naming
// the data source, not the back end's 1045 / 1049 that reads like the
// client's login failing; statement errors keep their MySQL codes.
func TestProxyDataSourceConnectErrors(t *testing.T) {
	closed := closedAddr(t)
	tests := []struct {
		name   string
		change func(*encDataSource)
		err    string
	}{
		{"wrong password", func(d *encDataSource) { d.password = "e9-wrong" },
			"data source ds_1: Access denied for user '" + testdb.Config("ds_1").User + "'@'127.0.0.1' (using password: YES)"},
		{"unknown database", func(d *encDataSource) { d.db = "e9_nosuchdb" },
			"data source ds_1: Unknown database 'e9_nosuchdb'"},
		{"nothing listening", func(d *encDataSource) { d.addr = closed },
			"data source ds_1: dial tcp " + closed + ": connect: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEncEnvWith(t, func(name string, d *encDataSource) {
				if name == "ds_1" {
					tt.change(d)
				}
			}, encRules)
			db := e.client(t)
			want := "Error 1105 (HY000): " + tt.err
			_, err := db.Exec("SELECT id FROM e9_user WHERE id = 1") // ds_1
			require.EqualError(t, err, want)
			_, err = db.Exec("SELECT COUNT(*) FROM e9_user") // every data source
			require.EqualError(t, err, want)
			_, err = db.Exec("INSERT INTO e9_user (id, name) VALUES (3, 'c')")
			require.EqualError(t, err, want)
			// In a transaction: the branch on ds_1 fails to start.
			conn, err := db.Conn(context.Background())
			require.NoError(t, err)
			defer conn.Close()
			_, err = conn.ExecContext(context.Background(), "BEGIN")
			require.NoError(t, err)
			_, err = conn.ExecContext(context.Background(), "UPDATE e9_user SET name = 'x' WHERE id = 5")
			require.EqualError(t, err, want)
			_, err = conn.ExecContext(context.Background(), "ROLLBACK")
			require.NoError(t, err)
			// ds_0 works, and its statement errors keep their codes.
			_, err = db.Exec("INSERT INTO e9_user (id, name) VALUES (2, 'b')")
			require.NoError(t, err)
			_, err = db.Exec("INSERT INTO e9_user (id, name) VALUES (2, 'b')")
			require.EqualError(t, err, "Error 1062 (23000): Duplicate entry '2' for key 'PRIMARY'")
		})
	}
}

// closedAddr returns a local address that refuses connections for the rest
// of the test: a TCP socket bound to it but never listening (Linux answers a
// connect to it with a reset). Unlike a port listened on and closed again, no
// other process on the machine can take it while the test runs.
func closedAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })
	require.NoError(t, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	require.NoError(t, err)
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}

// TestSQLErrorConnect: which back-end errors are connection failures.
func TestSQLErrorConnect(t *testing.T) {
	node := func(err error) error { return &runtime.NodeError{DataSource: "ds_1", SQL: "SELECT 1", Err: err} }
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	tests := []struct {
		err  error
		want string
	}{
		{node(&gomysql.MySQLError{Number: 1045, SQLState: [5]byte{'2', '8', '0', '0', '0'}, Message: "Access denied for user 'app'@'10.0.0.1' (using password: YES)"}),
			"data source ds_1: Access denied for user 'app'@'10.0.0.1' (using password: YES) (errno 1105) (sqlstate HY000)"},
		{node(&gomysql.MySQLError{Number: 1044, SQLState: [5]byte{'4', '2', '0', '0', '0'}, Message: "Access denied for user 'app'@'%' to database 'ds_1'"}),
			"data source ds_1: Access denied for user 'app'@'%' to database 'ds_1' (errno 1105) (sqlstate HY000)"},
		{node(&gomysql.MySQLError{Number: 1040, SQLState: [5]byte{'0', '8', '0', '0', '4'}, Message: "Too many connections"}),
			"data source ds_1: Too many connections (errno 1105) (sqlstate HY000)"},
		{node(dial), "data source ds_1: dial tcp: connect: connection refused (errno 1105) (sqlstate HY000)"},
		{node(&net.DNSError{Err: "no such host", Name: "db.example"}), "data source ds_1: lookup db.example: no such host (errno 1105) (sqlstate HY000)"},
		{node(gomysql.ErrUnknownPlugin), "data source ds_1: this authentication plugin is not supported (errno 1105) (sqlstate HY000)"},
		{&gomysql.MySQLError{Number: 1049, SQLState: [5]byte{'4', '2', '0', '0', '0'}, Message: "Unknown database 'x'"},
			"a data source: Unknown database 'x' (errno 1105) (sqlstate HY000)"},
		// Statement errors keep their codes.
		{node(&gomysql.MySQLError{Number: 1062, SQLState: [5]byte{'2', '3', '0', '0', '0'}, Message: "Duplicate entry '2' for key 'PRIMARY'"}),
			"Duplicate entry '2' for key 'PRIMARY' (errno 1062) (sqlstate 23000)"},
		{node(&gomysql.MySQLError{Number: 1146, SQLState: [5]byte{'4', '2', 'S', '0', '2'}, Message: "Table 'ds_1.t' doesn't exist"}),
			"Table 'ds_1.t' doesn't exist (errno 1146) (sqlstate 42S02)"},
		{node(&net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}),
			"data node ds_1: read tcp: connection reset by peer (errno 1105) (sqlstate HY000)"},
		// A COMMIT that timed out on a data source after another committed
		// says so (fresh user: only the timeout was reported, and a client
		// that retried wrote the rows twice).
		{errors.Join(fmt.Errorf("%w: committed on ds_0", runtime.ErrLocalPartialCommit),
			&runtime.NodeError{DataSource: "ds_1", SQL: "COMMIT", Err: &runtime.TimeoutError{DataSource: "ds_1", Key: "socketTimeout", Limit: 3 * time.Second}}),
			"LOCAL transaction partly committed: committed on ds_0\ndata source ds_1 timed out: no answer within its socketTimeout of 3000 ms (errno 1105) (sqlstate HY000)"},
	}
	for _, tt := range tests {
		require.EqualError(t, sqlError(tt.err), tt.want)
	}
}
