package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shardgen/shardgen/bench/load"
)

// The sysbench phase: Debian's sysbench 1.0.20 through `shardgen proxy`
// (sbtest1 sharded by id MOD 2 over ds_0/ds_1, bench/sysbench/proxy.yaml),
// through an haproxy TCP passthrough to 13306, and direct to 13306 (database
// reference, unsharded sbtest1). Same settings on every path, rounds
// interleaved direct, haproxy, proxy, direct, ….

const (
	proxyPort   = "13310"
	haproxyPort = "13311"
	sbTableSize = 10000
)

// sbPath is one way from sysbench to the data.
type sbPath struct{ name, port, db string }

// sbResult is one sysbench test over every path: the per-second rate of
// each round per path, or the failure that stopped a path.
type sbResult struct {
	test   string
	rounds map[string][]float64
	failed map[string]string
}

var sbPaths = []sbPath{
	{"direct", env("SHARDGEN_DB_PORT_0", "13306"), "reference"},
	{"haproxy", haproxyPort, "reference"},
	{"shardgen proxy", proxyPort, "sbtest"},
}

var sbRate = regexp.MustCompile(`transactions:\s+\d+\s+\(([0-9.]+) per sec`)

func sysbenchArgs(test, port, db string, extra ...string) []string {
	return append([]string{test,
		"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=" + port,
		"--mysql-user=" + env("SHARDGEN_DB_USER", "shardgen"), "--mysql-password=" + env("SHARDGEN_DB_PASSWORD", "shardgen"),
		"--mysql-db=" + db, "--tables=1", "--table-size=" + strconv.Itoa(sbTableSize)}, extra...)
}

func pinned(cpus, name string, args ...string) *exec.Cmd {
	if cpus != "" {
		if _, err := exec.LookPath("taskset"); err == nil {
			return exec.Command("taskset", append([]string{"-c", cpus, name}, args...)...)
		}
	}
	return exec.Command(name, args...)
}

func runOut(cmd *exec.Cmd) (string, error) {
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, lastLines(string(out), 5))
	}
	return string(out), nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}

// sbPrepare creates sbtest1 with sysbench's own prepare: unsharded in
// reference on 13306, and on ds_0 (13306) / ds_1 (13307) the full table
// then cut to the rows whose id % 2 is the data source's index.
func sbPrepare() error {
	type target struct{ port, db string }
	shards := []target{{env("SHARDGEN_DB_PORT_0", "13306"), "ds_0"}, {env("SHARDGEN_DB_PORT_1", "13307"), "ds_1"}}
	for _, t := range append([]target{{env("SHARDGEN_DB_PORT_0", "13306"), "reference"}}, shards...) {
		// cleanup fails harmlessly when the table is missing.
		_, _ = runOut(exec.Command("sysbench", sysbenchArgs("oltp_point_select", t.port, t.db, "cleanup")...))
		if _, err := runOut(exec.Command("sysbench", sysbenchArgs("oltp_point_select", t.port, t.db, "prepare")...)); err != nil {
			return err
		}
	}
	for i, t := range shards {
		sql := "SET sql_log_bin=0; DELETE FROM " + t.db + ".sbtest1 WHERE MOD(id, 2) <> " + strconv.Itoa(i)
		if _, err := runOut(exec.Command("mariadb", "-h127.0.0.1", "-P"+t.port, "-u"+env("SHARDGEN_DB_USER", "shardgen"),
			"-p"+env("SHARDGEN_DB_PASSWORD", "shardgen"), "-e", sql)); err != nil {
			return err
		}
	}
	return nil
}

// background starts cmd and waits until port accepts connections.
func background(cmd *exec.Cmd, port string) (stop func(), err error) {
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	for i := 0; i < 100; i++ {
		if out, err := exec.Command("mariadb", "-h127.0.0.1", "-P"+port, "-u"+env("SHARDGEN_DB_USER", "shardgen"),
			"-p"+env("SHARDGEN_DB_PASSWORD", "shardgen"), "-e", "SELECT 1").CombinedOutput(); err == nil {
			return stop, nil
		} else if i == 99 {
			stop()
			return nil, fmt.Errorf("%s never answered on %s: %s", strings.Join(cmd.Args, " "), port, lastLines(string(out), 2))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return stop, nil
}

func runSysbench(ctx context.Context, o options) ([]sbResult, error) {
	for _, bin := range []string{"sysbench", "haproxy", "mariadb"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, errors.New(bin + " is not installed (make bench installs it with apt-get when run as root)")
		}
	}
	if err := sbPrepare(); err != nil {
		return nil, err
	}
	if _, err := runOut(exec.Command("go", "build", "-o", "bin/shardgen", "./cmd/shardgen")); err != nil {
		return nil, err
	}
	stopProxy, err := background(pinned(o.proxyCPU, "bin/shardgen", "proxy", "-c", "bench/sysbench/proxy.yaml",
		"--ddl", "bench/sysbench/sbtest.sql", "--listen", "127.0.0.1:"+proxyPort), proxyPort)
	if err != nil {
		return nil, err
	}
	defer stopProxy()
	hacfg := "global\n  maxconn 4000\ndefaults\n  mode tcp\n  timeout connect 5s\n  timeout client 1h\n  timeout server 1h\n" +
		"listen mysql\n  bind 127.0.0.1:" + haproxyPort + "\n  server s0 127.0.0.1:" + env("SHARDGEN_DB_PORT_0", "13306") + "\n"
	f, err := os.CreateTemp("", "shardgen-bench-haproxy-*.cfg")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(hacfg); err != nil {
		return nil, err
	}
	f.Close()
	stopHA, err := background(pinned(o.proxyCPU, "haproxy", "-db", "-f", f.Name()), haproxyPort)
	if err != nil {
		return nil, err
	}
	defer stopHA()

	var out []sbResult
	for _, test := range []string{"oltp_point_select", "oltp_read_write"} {
		res := sbResult{test: test, rounds: map[string][]float64{}, failed: map[string]string{}}
		for r := 0; r <= o.rounds; r++ { // round 0 is the warm-up
			for _, p := range sbPaths {
				if res.failed[p.name] != "" {
					continue
				}
				d := o.duration
				if r == 0 {
					d = o.warmup
				}
				secs := strconv.Itoa(max(1, int(d.Round(time.Second)/time.Second)))
				text, err := runOut(pinned(o.clientCPU, "sysbench", sysbenchArgs(test, p.port, p.db,
					"--threads="+strconv.Itoa(o.sbThreads), "--time="+secs, "--report-interval=0", "run")...))
				if err != nil {
					res.failed[p.name] = err.Error()
					continue
				}
				m := sbRate.FindStringSubmatch(text)
				if m == nil {
					res.failed[p.name] = "no transactions line in sysbench output: " + lastLines(text, 5)
					continue
				}
				if r > 0 {
					v, _ := strconv.ParseFloat(m[1], 64)
					res.rounds[p.name] = append(res.rounds[p.name], v)
				}
			}
		}
		out = append(out, res)
	}
	return out, nil
}

func sysbenchMarkdown(o options, res []sbResult, bars *[]load.Bar) string {
	var b strings.Builder
	b.WriteString("\n## Proxy load: sysbench through shardgen proxy, an haproxy hop, and direct\n\n")
	b.WriteString("Debian's sysbench, `--tables=1 --table-size=" + strconv.Itoa(sbTableSize) + " --threads=" + strconv.Itoa(o.sbThreads) +
		"`, " + strconv.Itoa(o.rounds) + " rounds of " + o.duration.String() + " per path after one warm-up round, interleaved direct, haproxy, proxy, direct, …. " +
		"**direct**: 13306, database reference (one unsharded sbtest1); **haproxy**: a TCP passthrough (`mode tcp`) to the same server; " +
		"**shardgen proxy**: `shardgen proxy -c bench/sysbench/proxy.yaml` with sbtest1 sharded by id MOD 2 over ds_0 (13306) and ds_1 (13307), " +
		"prepared directly on the back ends with sysbench's own `prepare` and cut to each shard's ids. sysbench is pinned with `taskset -c " + o.clientCPU +
		"`, the proxy and haproxy with `taskset -c " + o.proxyCPU + "`; the servers are not pinned. Rates are transactions per second.\n\n")
	b.WriteString("| test | direct | haproxy | shardgen proxy | haproxy ÷ direct | proxy ÷ direct | proxy ÷ haproxy (target ≥ 0.90) |\n|---|---:|---:|---:|---:|---:|---:|\n")
	var failures []string
	for _, r := range res {
		d, h, p := load.Median(r.rounds["direct"]), load.Median(r.rounds["haproxy"]), load.Median(r.rounds["shardgen proxy"])
		ratio := func(a, b float64) string {
			if a == 0 || b == 0 {
				return "n/a"
			}
			return f2(a/b) + "×"
		}
		cell := func(path string, v float64) string {
			if r.failed[path] != "" {
				return "failed"
			}
			return f0(v) + " (" + strings.Join(func() []string {
				var s []string
				for _, x := range r.rounds[path] {
					s = append(s, f0(x))
				}
				return s
			}(), ", ") + ")"
		}
		b.WriteString("| " + r.test + " | " + cell("direct", d) + " | " + cell("haproxy", h) + " | " + cell("shardgen proxy", p) + " | " +
			ratio(h, d) + " | " + ratio(p, d) + " | " + ratio(p, h) + " |\n")
		if p > 0 && h > 0 {
			*bars = append(*bars, load.Bar{Label: "sysbench " + r.test + " proxy÷haproxy", Ratio: p / h, Target: 0.9})
		}
		if p > 0 && d > 0 {
			*bars = append(*bars, load.Bar{Label: "sysbench " + r.test + " proxy÷direct", Ratio: p / d})
		}
		for _, path := range []string{"direct", "haproxy", "shardgen proxy"} {
			if msg := r.failed[path]; msg != "" {
				failures = append(failures, "- "+r.test+" via "+path+": `"+strings.ReplaceAll(msg, "`", "'")+"`")
			}
		}
	}
	if len(failures) > 0 {
		b.WriteString("\nFailures (reported, not hidden):\n\n" + strings.Join(failures, "\n") + "\n")
	}
	return b.String()
}
