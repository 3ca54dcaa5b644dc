package testdb

import (
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServerIndex(t *testing.T) {
	tests := []struct {
		db   string
		want int
	}{
		{"ds_0", 0},
		{"ds_1", 1},
		{"ds_2", 0},
		{"ds_3", 1},
		{"ds_15", 1},
		{"ds_99999999999999999999999", 1},
		{Reference, 0},
		{"", 0},
		{"ds_", 0},
		{"ds_1x", 0},
		{"ds_-1", 0},
		{"DS_1", 0},
		{"mysql", 0},
	}
	for _, tt := range tests {
		t.Run(tt.db, func(t *testing.T) {
			require.Equal(t, tt.want, ServerIndex(tt.db))
		})
	}
}

func TestServerAndDSN(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		db       string
		params   map[string]string
		wantHost string
		wantPort int
		wantDSN  string
	}{
		{
			name: "defaults, server 0", db: "ds_0",
			wantHost: "127.0.0.1", wantPort: 13306,
			wantDSN: "shardgen:shardgen@tcp(127.0.0.1:13306)/ds_0",
		},
		{
			name: "defaults, server 1", db: "ds_3",
			wantHost: "127.0.0.1", wantPort: 13307,
			wantDSN: "shardgen:shardgen@tcp(127.0.0.1:13307)/ds_3",
		},
		{
			name: "reference on server 0", db: Reference,
			wantHost: "127.0.0.1", wantPort: 13306,
			wantDSN: "shardgen:shardgen@tcp(127.0.0.1:13306)/reference",
		},
		{
			name: "params sorted", db: "ds_2",
			params:   map[string]string{"parseTime": "true", "interpolateParams": "true"},
			wantHost: "127.0.0.1", wantPort: 13306,
			wantDSN: "shardgen:shardgen@tcp(127.0.0.1:13306)/ds_2?interpolateParams=true&parseTime=true",
		},
		{
			name: "env overrides",
			env: map[string]string{
				EnvHost: "localhost", EnvPort0: "23306", EnvPort1: "23307",
				EnvUser: "u", EnvPassword: "p",
			},
			db:       "ds_1",
			wantHost: "localhost", wantPort: 23307,
			wantDSN: "u:p@tcp(localhost:23307)/ds_1",
		},
		{
			name: "IPv6 host", env: map[string]string{EnvHost: "::1"}, db: "ds_0",
			wantHost: "::1", wantPort: 13306,
			wantDSN: "shardgen:shardgen@tcp([::1]:13306)/ds_0",
		},
		{
			name: "empty env is the default", env: map[string]string{EnvPort1: "", EnvUser: ""}, db: "ds_1",
			wantHost: "127.0.0.1", wantPort: 13307,
			wantDSN: "shardgen:shardgen@tcp(127.0.0.1:13307)/ds_1",
		},
		{
			name: "bad port gives 0", env: map[string]string{EnvPort1: "x"}, db: "ds_1",
			wantHost: "127.0.0.1", wantPort: 0,
			wantDSN: "shardgen:shardgen@tcp(127.0.0.1:0)/ds_1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			host, port := Server(tt.db)
			require.Equal(t, tt.wantHost, host)
			require.Equal(t, tt.wantPort, port)
			require.Equal(t, tt.wantDSN, DSNWith(tt.db, tt.params))
			if tt.params == nil {
				require.Equal(t, tt.wantDSN, DSN(tt.db))
			}
		})
	}
}

func TestServerBadPort(t *testing.T) {
	tests := []struct {
		env, value, db, wantErr string
	}{
		{EnvPort0, "abc", "ds_0", `testdb: SHARDGEN_DB_PORT_0="abc" is not a TCP port (1..65535)`},
		{EnvPort1, "0", "ds_3", `testdb: SHARDGEN_DB_PORT_1="0" is not a TCP port (1..65535)`},
		{EnvPort0, "65536", Reference, `testdb: SHARDGEN_DB_PORT_0="65536" is not a TCP port (1..65535)`},
		{EnvPort1, "-1", "ds_1", `testdb: SHARDGEN_DB_PORT_1="-1" is not a TCP port (1..65535)`},
	}
	for _, tt := range tests {
		t.Run(tt.env+"="+tt.value, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(tt.env, tt.value)
			_, _, err := server(tt.db)
			require.EqualError(t, err, tt.wantErr)
		})
	}
}

func TestDataSources(t *testing.T) {
	require.Equal(t, []string{"ds_0", "ds_1", "ds_2", "ds_3"}, DataSources())
	ds := DataSources()
	ds[0] = "changed"
	require.Equal(t, "ds_0", DataSources()[0], "each call returns a new slice")
}

// fatalRecorder is a testing.TB whose Fatalf records the message instead of
// stopping the test, so the failure path of Open can be asserted.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

func TestOpenFailsClearly(t *testing.T) {
	closed := closedPort(t)
	tests := []struct {
		name    string
		env     map[string]string
		db      string
		params  map[string]string
		wantMsg string
	}{
		{
			name: "nothing listens", env: map[string]string{EnvPort1: strconv.Itoa(closed)}, db: "ds_1",
			wantMsg: "MariaDB for ds_1 at 127.0.0.1:" + strconv.Itoa(closed) + " is unreachable: dial tcp 127.0.0.1:" +
				strconv.Itoa(closed) + ": connect: connection refused; run `make db-up`",
		},
		{
			name: "bad port variable", env: map[string]string{EnvPort0: "13306x"}, db: "ds_2",
			wantMsg: `MariaDB for ds_2: testdb: SHARDGEN_DB_PORT_0="13306x" is not a TCP port (1..65535)`,
		},
		{
			name: "bad DSN parameter", db: "ds_0", params: map[string]string{"parseTime": "maybe"},
			wantMsg: `MariaDB for ds_0 at 127.0.0.1:13306: bad DSN: invalid bool value: maybe`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			rec := &fatalRecorder{TB: t}
			db := OpenWith(rec, tt.db, tt.params)
			require.Nil(t, db)
			require.Equal(t, tt.wantMsg, rec.msg)
		})
	}
}

// closedPort returns a loopback TCP port nothing listens on (it was free a
// moment ago).
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// clearEnv unsets every testdb variable for the test (t.Setenv restores them).
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{EnvHost, EnvPort0, EnvPort1, EnvUser, EnvPassword} {
		t.Setenv(k, "")
	}
}
