package main

import (
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shardgen/shardgen/bench/load"
)

func TestPortsFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    benchPorts
		wantErr string
	}{
		{name: "defaults", want: benchPorts{db0: "13306", db1: "13307", proxy: "13310", haproxy: "13311", empty: "13312"}},
		{name: "empty is default", env: map[string]string{envProxyPort: ""},
			want: benchPorts{db0: "13306", db1: "13307", proxy: "13310", haproxy: "13311", empty: "13312"}},
		{name: "overrides", env: map[string]string{envDBPort0: "43306", envDBPort1: "43307", envProxyPort: "43310", envHAProxyPort: "43311", envEmptyPort: "43312"},
			want: benchPorts{db0: "43306", db1: "43307", proxy: "43310", haproxy: "43311", empty: "43312"}},
		{name: "not a number", env: map[string]string{envProxyPort: "abc"},
			wantErr: `SHARDGEN_BENCH_PROXY_PORT="abc" is not a port (1..65535)`},
		{name: "zero", env: map[string]string{envHAProxyPort: "0"},
			wantErr: `SHARDGEN_BENCH_HAPROXY_PORT="0" is not a port (1..65535)`},
		{name: "too large", env: map[string]string{envDBPort1: "65536"},
			wantErr: `SHARDGEN_DB_PORT_1="65536" is not a port (1..65535)`},
		{name: "same hop ports", env: map[string]string{envProxyPort: "13311"},
			wantErr: "SHARDGEN_BENCH_PROXY_PORT and SHARDGEN_BENCH_HAPROXY_PORT are both 13311"},
		{name: "empty rules proxy on haproxy's port", env: map[string]string{envEmptyPort: "13311"},
			wantErr: "SHARDGEN_BENCH_HAPROXY_PORT and SHARDGEN_BENCH_EMPTY_PROXY_PORT are both 13311"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{envDBPort0, envDBPort1, envProxyPort, envHAProxyPort, envEmptyPort} {
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
	require.EqualError(t, checkBenchPortsFree(benchPorts{proxy: free, haproxy: busy, empty: freePort(t)}),
		"SHARDGEN_BENCH_HAPROXY_PORT: 127.0.0.1:"+busy+" is already in use (another make bench?); set SHARDGEN_BENCH_HAPROXY_PORT to a free port")
	require.EqualError(t, checkBenchPortsFree(benchPorts{proxy: free, haproxy: freePort(t), empty: busy}),
		"SHARDGEN_BENCH_EMPTY_PROXY_PORT: 127.0.0.1:"+busy+" is already in use (another make bench?); set SHARDGEN_BENCH_EMPTY_PROXY_PORT to a free port")
	require.NoError(t, checkBenchPortsFree(benchPorts{proxy: free, haproxy: freePort(t), empty: freePort(t)}))
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
	require.Equal(t, "", benchPorts{db0: "13306", db1: "13307", proxy: "13310", haproxy: "13311", empty: "13312"}.envPrefix())
	require.Equal(t, "SHARDGEN_DB_PORT_0=43306 SHARDGEN_BENCH_HAPROXY_PORT=43311 SHARDGEN_BENCH_EMPTY_PROXY_PORT=43312 ",
		benchPorts{db0: "43306", db1: "13307", proxy: "13310", haproxy: "43311", empty: "43312"}.envPrefix())
}

func TestSbPathsAndHAProxyConfig(t *testing.T) {
	p := benchPorts{db0: "43306", db1: "43307", proxy: "43310", haproxy: "43311", empty: "43312"}
	require.Equal(t, []sbPath{{"direct", "43306", "reference"}, {"haproxy", "43311", "reference"}, {"shardgen proxy", "43310", "sbtest"}}, sbPaths(p, false))
	require.Equal(t, []sbPath{{"direct", "43306", "reference"}, {"haproxy", "43311", "reference"}, {"shardgen proxy", "43310", "sbtest"},
		{"proxy, empty rules", "43312", "sbtest"}}, sbPaths(p, true))
	cfg := haproxyConfig(p)
	require.Contains(t, cfg, "  noreuseport\n")
	require.Contains(t, cfg, "  bind 127.0.0.1:43311\n  server s0 127.0.0.1:43306\n")
}

// TestReportPorts: the report names the ports of the run, never the
// defaults it was not given.
func TestReportPorts(t *testing.T) {
	r := report{opts: options{
		rows: 100, workers: 2, rounds: 1, sysbench: true, sbThreads: "8,64", threads: []int{8, 64}, clientCPU: "0", proxyCPU: "1",
		ports: benchPorts{db0: "43306", db1: "43307", proxy: "43310", haproxy: "43311", empty: "43312"},
	}}
	md, _ := r.markdown()
	for _, want := range []string{
		"(scripts/db.sh: 43306 holds ds_0, ds_2, reference; 43307 holds ds_1, ds_3)",
		"in database `reference` on 43306 with the same rows",
		"**direct**: 43306, database reference",
		"**haproxy**: on 43311, a TCP passthrough",
		"**shardgen proxy**: on 43310, `shardgen proxy -c bench/sysbench/proxy.yaml`",
		"over ds_0 (43306) and ds_1 (43307)",
		"**proxy, empty rules** (oltp_point_select and oltp_read_write): on 43312,",
		"SHARDGEN_DB_PORT_0=43306 SHARDGEN_DB_PORT_1=43307 SHARDGEN_BENCH_PROXY_PORT=43310 SHARDGEN_BENCH_HAPROXY_PORT=43311 SHARDGEN_BENCH_EMPTY_PROXY_PORT=43312 taskset -c 0 bin/shardgen-bench",
	} {
		require.Contains(t, md, want)
	}
	for _, def := range []string{"13306", "13307", "13310", "13311", "13312"} {
		require.False(t, strings.Contains(md, def), "report mentions default port %s", def)
	}
}

func TestParseThreads(t *testing.T) {
	got, err := parseThreads("8, 64")
	require.NoError(t, err)
	require.Equal(t, []int{8, 64}, got)
	_, err = parseThreads("8,0")
	require.EqualError(t, err, `-sysbench-threads "8,0": "0" is not a positive thread count`)
}

// TestSysbenchMarkdown: each placement and thread count is a row per test,
// the empty-rules proxy is reported beside the sharded one for
// oltp_read_write with its own ratio and target, and the chart gets one bar
// per ratio to haproxy.
func TestSysbenchMarkdown(t *testing.T) {
	o := options{rounds: 2, sbThreads: "8,64", threads: []int{8, 64}, clientCPU: "0", proxyCPU: "1",
		ports: benchPorts{db0: "43306", db1: "43307", proxy: "43310", haproxy: "43311", empty: "43312"}}
	cpu := []cpuRound{{client: 10, hop: 20, servers: 30}, {client: 10, hop: 20, servers: 30}}
	res := []sbResult{
		{placement: "unpinned", threads: 8, test: "oltp_point_select",
			rounds: map[string][]float64{pathDirect: {100, 100}, pathHAProxy: {80, 80}, pathProxy: {40, 40}},
			cpu:    map[string][]cpuRound{pathHAProxy: cpu, pathProxy: {{hop: 40}, {hop: 40}}}, failed: map[string]string{}},
		{placement: "pinned", threads: 64, test: "oltp_read_write",
			rounds: map[string][]float64{pathDirect: {10, 10}, pathHAProxy: {8, 8}, pathProxy: {4, 4}, pathEmpty: {7, 7}},
			cpu:    map[string][]cpuRound{}, failed: map[string]string{}},
	}
	var bars []load.Bar
	md := sysbenchMarkdown(o, res, &bars)
	require.Contains(t, md, "| unpinned | 8 | oltp_point_select | 100 (100, 100) | 80 (80, 80) | 40 (40, 40) | — | 0.80× | 0.50× (≥ 0.90 **missed**) | — |\n")
	require.Contains(t, md, "| pinned | 64 | oltp_read_write | 10 (10, 10) | 8 (8, 8) | 4 (4, 4) | 7 (7, 7) | 0.80× | 0.50× | 0.88× (≥ 0.85 met) |\n")
	require.Contains(t, md, "| unpinned | 8 | oltp_point_select | shardgen proxy | 0.0 | 40.0 | 0.0 | 40.0 | 2.00× |\n")
	require.Equal(t, []load.Bar{
		{Label: "oltp_point_select proxy÷haproxy (unpinned, 8 thr)", Ratio: 0.5, Target: 0.9},
		{Label: "oltp_read_write proxy÷haproxy (pinned, 64 thr)", Ratio: 0.5},
		{Label: "oltp_read_write empty rules÷haproxy (pinned, 64 thr)", Ratio: 0.875, Target: 0.85},
	}, bars)
}

// TestRunLimited: a run that outlives its limit is killed and reported as
// stalled, with its output; a quick one returns its output.
func TestRunLimited(t *testing.T) {
	out, err := runLimited(exec.Command("sh", "-c", "echo hello"), time.Minute)
	require.NoError(t, err)
	require.Equal(t, "hello\n", out)
	_, err = runLimited(exec.Command("sh", "-c", "echo waiting; exec sleep 60"), 50*time.Millisecond)
	require.EqualError(t, err, "sh -c echo waiting; exec sleep 60: stalled: no result within 50ms, killed: waiting")
}
