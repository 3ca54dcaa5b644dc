package main

import (
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPortsFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    benchPorts
		wantErr string
	}{
		{name: "defaults", want: benchPorts{db0: "13306", db1: "13307", proxy: "13310", haproxy: "13311"}},
		{name: "empty is default", env: map[string]string{envProxyPort: ""},
			want: benchPorts{db0: "13306", db1: "13307", proxy: "13310", haproxy: "13311"}},
		{name: "overrides", env: map[string]string{envDBPort0: "43306", envDBPort1: "43307", envProxyPort: "43310", envHAProxyPort: "43311"},
			want: benchPorts{db0: "43306", db1: "43307", proxy: "43310", haproxy: "43311"}},
		{name: "not a number", env: map[string]string{envProxyPort: "abc"},
			wantErr: `SHARDGEN_BENCH_PROXY_PORT="abc" is not a port (1..65535)`},
		{name: "zero", env: map[string]string{envHAProxyPort: "0"},
			wantErr: `SHARDGEN_BENCH_HAPROXY_PORT="0" is not a port (1..65535)`},
		{name: "too large", env: map[string]string{envDBPort1: "65536"},
			wantErr: `SHARDGEN_DB_PORT_1="65536" is not a port (1..65535)`},
		{name: "same hop ports", env: map[string]string{envProxyPort: "13311"},
			wantErr: "SHARDGEN_BENCH_PROXY_PORT and SHARDGEN_BENCH_HAPROXY_PORT are both 13311"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{envDBPort0, envDBPort1, envProxyPort, envHAProxyPort} {
				t.Setenv(v, tc.env[v])
			}
			got, err := portsFromEnv()
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// freePort returns a port nothing listens on (just released by the kernel).
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, err := net.SplitHostPort(l.Addr().String())
	require.NoError(t, err)
	require.NoError(t, l.Close())
	return port
}

func TestCheckPortFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	_, busy, err := net.SplitHostPort(l.Addr().String())
	require.NoError(t, err)

	require.EqualError(t, checkPortFree(envProxyPort, busy),
		"SHARDGEN_BENCH_PROXY_PORT: 127.0.0.1:"+busy+" is already in use (another make bench?); set SHARDGEN_BENCH_PROXY_PORT to a free port")
	require.NoError(t, checkPortFree(envProxyPort, freePort(t)))

	free := freePort(t)
	require.EqualError(t, checkBenchPortsFree(benchPorts{proxy: free, haproxy: busy}),
		"SHARDGEN_BENCH_HAPROXY_PORT: 127.0.0.1:"+busy+" is already in use (another make bench?); set SHARDGEN_BENCH_HAPROXY_PORT to a free port")
	require.NoError(t, checkBenchPortsFree(benchPorts{proxy: free, haproxy: freePort(t)}))
}

// TestBackgroundExited: a hop that dies before answering (as shardgen proxy
// does when its port is taken) is an error naming the port's variable, not
// a success because something else answers on the port.
func TestBackgroundExited(t *testing.T) {
	port := freePort(t)
	cmd := exec.Command("sh", "-c", "exit 3")
	stop, err := background(cmd, port, envProxyPort)
	require.Nil(t, stop)
	require.EqualError(t, err, "sh -c exit 3 exited (exit status 3) before it answered on 127.0.0.1:"+port+
		" (see its output above); if another program holds the port, set SHARDGEN_BENCH_PROXY_PORT to a free one")
}

func TestEnvPrefix(t *testing.T) {
	require.Equal(t, "", benchPorts{db0: "13306", db1: "13307", proxy: "13310", haproxy: "13311"}.envPrefix())
	require.Equal(t, "SHARDGEN_DB_PORT_0=43306 SHARDGEN_BENCH_HAPROXY_PORT=43311 ",
		benchPorts{db0: "43306", db1: "13307", proxy: "13310", haproxy: "43311"}.envPrefix())
}

func TestSbPathsAndHAProxyConfig(t *testing.T) {
	p := benchPorts{db0: "43306", db1: "43307", proxy: "43310", haproxy: "43311"}
	require.Equal(t, []sbPath{{"direct", "43306", "reference"}, {"haproxy", "43311", "reference"}, {"shardgen proxy", "43310", "sbtest"}}, sbPaths(p))
	cfg := haproxyConfig(p)
	require.Contains(t, cfg, "  noreuseport\n")
	require.Contains(t, cfg, "  bind 127.0.0.1:43311\n  server s0 127.0.0.1:43306\n")
}

// TestReportPorts: the report names the ports of the run, never the
// defaults it was not given.
func TestReportPorts(t *testing.T) {
	r := report{opts: options{
		rows: 100, workers: 2, rounds: 1, sysbench: true, sbThreads: 2, clientCPU: "0", proxyCPU: "1",
		ports: benchPorts{db0: "43306", db1: "43307", proxy: "43310", haproxy: "43311"},
	}}
	md, _ := r.markdown()
	for _, want := range []string{
		"(scripts/db.sh: 43306 holds ds_0, ds_2, reference; 43307 holds ds_1, ds_3)",
		"in database `reference` on 43306 with the same rows",
		"**direct**: 43306, database reference",
		"**haproxy**: on 43311, a TCP passthrough",
		"**shardgen proxy**: on 43310, `shardgen proxy -c bench/sysbench/proxy.yaml`",
		"over ds_0 (43306) and ds_1 (43307)",
		"SHARDGEN_DB_PORT_0=43306 SHARDGEN_DB_PORT_1=43307 SHARDGEN_BENCH_PROXY_PORT=43310 SHARDGEN_BENCH_HAPROXY_PORT=43311 taskset -c 0 bin/shardgen-bench",
	} {
		require.Contains(t, md, want)
	}
	for _, def := range []string{"13306", "13307", "13310", "13311"} {
		require.False(t, strings.Contains(md, def), "report mentions default port %s", def)
	}
}
