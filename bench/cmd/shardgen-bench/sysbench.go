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
// (sbtest1 sharded by id MOD 2 over ds_0/ds_1, bench/sysbench/proxy.yaml;
// SHARDGEN_BENCH_PROXY_PORT), through an haproxy TCP passthrough
// (SHARDGEN_BENCH_HAPROXY_PORT) to the first server (SHARDGEN_DB_PORT_0), and
// direct to that server (database reference, unsharded sbtest1). Same
// settings on every path, rounds interleaved direct, haproxy, proxy, direct,
// ….

const sbTableSize = 10000

// sbPath is one way from sysbench to the data.
type sbPath struct{ name, port, db string }

// sbResult is one sysbench test over every path: the per-second rate of
// each round per path, the CPU each process spent per query in each round,
// or the failure that stopped a path.
type sbResult struct {
	test   string
	rounds map[string][]float64
	// cpu holds, per path, one cpuRound per measured round.
	cpu    map[string][]cpuRound
	failed map[string]string
}

// cpuRound is the CPU time (user + system, from the processes' own
// accounting: /proc/<pid>/stat utime+stime of the hop and the servers,
// rusage of sysbench) spent per query of one round, in microseconds.
type cpuRound struct {
	client, hop, servers float64
}

// sbTests are the sysbench tests of the phase with the options every path
// gets. oltp_read_write runs as sysbench ships it (BEGIN … COMMIT around its
// 18 statements). oltp_insert runs with --auto_inc=off, so sysbench chooses
// the ids itself and the proxy routes each row by its id (with auto_inc
// every id is 0, which the proxy refuses for an AUTO_INCREMENT sharding
// column); its ids repeat from run to run, so every run is followed by
// sbCleanInserts, and the rare id that falls into the prepared 1..10000 is
// a duplicate key (1062), ignored and retried like sysbench's default
// deadlock codes.
var sbTests = []struct {
	name  string
	extra []string
}{
	{"oltp_point_select", nil},
	{"oltp_insert", []string{"--auto_inc=off", "--mysql-ignore-errors=1213,1020,1205,1062"}},
	{"oltp_read_write", nil},
}

// sbPaths are the paths of the phase in the order each round runs them.
func sbPaths(p benchPorts) []sbPath {
	return []sbPath{
		{"direct", p.db0, "reference"},
		{"haproxy", p.haproxy, "reference"},
		{"shardgen proxy", p.proxy, "sbtest"},
	}
}

var (
	sbRate    = regexp.MustCompile(`transactions:\s+\d+\s+\(([0-9.]+) per sec`)
	sbQueries = regexp.MustCompile(`queries:\s+(\d+)\s+\(`)
)

// clockTicks is the kernel's USER_HZ (getconf CLK_TCK; 100 when getconf
// fails), the unit of utime and stime in /proc/<pid>/stat.
func clockTicks() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err != nil {
		return 100
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil || v <= 0 {
		return 100
	}
	return v
}

// procCPU returns utime+stime of pid in clock ticks (proc(5): fields 14 and
// 15 of /proc/<pid>/stat, counted after the parenthesised command name),
// or 0 when pid is 0 or the file cannot be read.
func procCPU(pid int) float64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return u + st
}

// serverCPU returns the CPU seconds (user + system) the two MariaDB
// primaries have used so far, from /proc/<pid>/stat (0 when their pid
// files are missing): the probe of the embedded rounds.
func serverCPU() float64 {
	var t float64
	for _, pid := range serverPids() {
		t += procCPU(pid)
	}
	return t / hz
}

// hz is clockTicks, read once.
var hz = clockTicks()

// serverPids are the pids of the two local MariaDB primaries (scripts/db.sh
// writes .local/mariadb/s<i>/mysqld.pid); missing ones are left out.
func serverPids() []int {
	var out []int
	for _, i := range []string{"0", "1"} {
		b, err := os.ReadFile(".local/mariadb/s" + i + "/mysqld.pid")
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

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
// reference on the first server (p.db0), and on ds_0 (p.db0) / ds_1 (p.db1)
// the full table then cut to the rows whose id % 2 is the data source's
// index.
func sbPrepare(p benchPorts) error {
	type target struct{ port, db string }
	shards := []target{{p.db0, "ds_0"}, {p.db1, "ds_1"}}
	for _, t := range append([]target{{p.db0, "reference"}}, shards...) {
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

// sbCleanInserts deletes the rows oltp_insert added (ids outside
// 1..sbTableSize) from every copy of sbtest1, so the next run's ids (the
// same sequence) do not collide.
func sbCleanInserts(p benchPorts) error {
	for _, t := range [][2]string{{p.db0, "reference"}, {p.db0, "ds_0"}, {p.db1, "ds_1"}} {
		sql := "SET sql_log_bin=0; DELETE FROM " + t[1] + ".sbtest1 WHERE id < 1 OR id > " + strconv.Itoa(sbTableSize)
		if _, err := runOut(exec.Command("mariadb", "-h127.0.0.1", "-P"+t[0], "-u"+env("SHARDGEN_DB_USER", "shardgen"),
			"-p"+env("SHARDGEN_DB_PASSWORD", "shardgen"), "-e", sql)); err != nil {
			return err
		}
	}
	return nil
}

// background starts cmd and waits until 127.0.0.1:port answers a MySQL
// SELECT 1 (10 s at most); cmd's pid is cmd.Process.Pid (taskset execs the
// program in place). When cmd exits first (typically: it could not bind the
// port, and whatever answers there is not ours) it fails naming variable,
// the environment variable that chose the port, rather than measure another
// program.
func background(cmd *exec.Cmd, port, variable string) (stop func(), err error) {
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	exited := func() error {
		return fmt.Errorf("%s exited (%v) before it answered on 127.0.0.1:%s (see its output above); if another program holds the port, set %s to a free one",
			strings.Join(cmd.Args, " "), waitErr, port, variable)
	}
	for i := 0; i < 100; i++ {
		select {
		case <-done:
			return nil, exited()
		default:
		}
		if out, err := exec.Command("mariadb", "-h127.0.0.1", "-P"+port, "-u"+env("SHARDGEN_DB_USER", "shardgen"),
			"-p"+env("SHARDGEN_DB_PASSWORD", "shardgen"), "-e", "SELECT 1").CombinedOutput(); err == nil {
			select {
			case <-done: // something else answered while ours died
				return nil, exited()
			default:
			}
			return stop, nil
		} else if i == 99 {
			stop()
			return nil, fmt.Errorf("%s never answered on %s: %s", strings.Join(cmd.Args, " "), port, lastLines(string(out), 2))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return stop, nil
}

// haproxyConfig is the haproxy configuration of the phase: a TCP
// passthrough from 127.0.0.1:p.haproxy to the first server, 127.0.0.1:p.db0.
// noreuseport makes a second haproxy on a taken port fail to start instead
// of sharing the port's connections with the first (haproxy's default on
// Linux is SO_REUSEPORT).
func haproxyConfig(p benchPorts) string {
	return "global\n  maxconn 4000\n  noreuseport\ndefaults\n  mode tcp\n  timeout connect 5s\n  timeout client 1h\n  timeout server 1h\n" +
		"listen mysql\n  bind 127.0.0.1:" + p.haproxy + "\n  server s0 127.0.0.1:" + p.db0 + "\n"
}

func runSysbench(ctx context.Context, o options) ([]sbResult, error) {
	for _, bin := range []string{"sysbench", "haproxy", "mariadb"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, errors.New(bin + " is not installed (make bench installs it with apt-get when run as root)")
		}
	}
	ports := o.ports
	if err := checkBenchPortsFree(ports); err != nil {
		return nil, err
	}
	if err := sbPrepare(ports); err != nil {
		return nil, err
	}
	if _, err := runOut(exec.Command("go", "build", "-o", "bin/shardgen", "./cmd/shardgen")); err != nil {
		return nil, err
	}
	proxyCmd := pinned(o.proxyCPU, "bin/shardgen", "proxy", "-c", "bench/sysbench/proxy.yaml",
		"--ddl", "bench/sysbench/sbtest.sql", "--listen", "127.0.0.1:"+ports.proxy)
	stopProxy, err := background(proxyCmd, ports.proxy, envProxyPort)
	if err != nil {
		return nil, err
	}
	defer stopProxy()
	hacfg := haproxyConfig(ports)
	f, err := os.CreateTemp("", "shardgen-bench-haproxy-*.cfg")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(hacfg); err != nil {
		return nil, err
	}
	f.Close()
	haCmd := pinned(o.proxyCPU, "haproxy", "-db", "-f", f.Name())
	stopHA, err := background(haCmd, ports.haproxy, envHAProxyPort)
	if err != nil {
		return nil, err
	}
	defer stopHA()
	proxyPid, haPid := proxyCmd.Process.Pid, haCmd.Process.Pid

	hopPid := map[string]int{"haproxy": haPid, "shardgen proxy": proxyPid}
	servers := serverPids()
	var out []sbResult
	for _, test := range sbTests {
		res := sbResult{test: test.name, rounds: map[string][]float64{}, cpu: map[string][]cpuRound{}, failed: map[string]string{}}
		for r := 0; r <= o.rounds; r++ { // round 0 is the warm-up
			for _, p := range sbPaths(ports) {
				if res.failed[p.name] != "" {
					continue
				}
				d := o.duration
				if r == 0 {
					d = o.warmup
				}
				secs := strconv.Itoa(max(1, int(d.Round(time.Second)/time.Second)))
				args := sysbenchArgs(test.name, p.port, p.db, append(append([]string(nil), test.extra...),
					"--threads="+strconv.Itoa(o.sbThreads), "--time="+secs, "--report-interval=0", "run")...)
				cmd := pinned(o.clientCPU, "sysbench", args...)
				hop0, srv0 := procCPU(hopPid[p.name]), 0.0
				for _, pid := range servers {
					srv0 += procCPU(pid)
				}
				text, err := runOut(cmd)
				hop1, srv1 := procCPU(hopPid[p.name]), 0.0
				for _, pid := range servers {
					srv1 += procCPU(pid)
				}
				if test.name == "oltp_insert" {
					if cerr := sbCleanInserts(ports); cerr != nil {
						return nil, cerr
					}
				}
				if err != nil {
					res.failed[p.name] = err.Error()
					continue
				}
				m := sbRate.FindStringSubmatch(text)
				q := sbQueries.FindStringSubmatch(text)
				if m == nil || q == nil {
					res.failed[p.name] = "no transactions or queries line in sysbench output: " + lastLines(text, 5)
					continue
				}
				if r > 0 {
					v, _ := strconv.ParseFloat(m[1], 64)
					res.rounds[p.name] = append(res.rounds[p.name], v)
					if n, _ := strconv.ParseFloat(q[1], 64); n > 0 {
						us := 1e6 / n
						client := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
						res.cpu[p.name] = append(res.cpu[p.name], cpuRound{
							client:  client.Seconds() * us,
							hop:     (hop1 - hop0) / hz * us,
							servers: (srv1 - srv0) / hz * us,
						})
					}
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
		"**direct**: " + o.ports.db0 + ", database reference (one unsharded sbtest1); **haproxy**: on " + o.ports.haproxy +
		", a TCP passthrough (`mode tcp`) to the same server; " +
		"**shardgen proxy**: on " + o.ports.proxy + ", `shardgen proxy -c bench/sysbench/proxy.yaml` with sbtest1 sharded by id MOD 2 over ds_0 (" +
		o.ports.db0 + ") and ds_1 (" + o.ports.db1 + "), " +
		"prepared directly on the back ends with sysbench's own `prepare` and cut to each shard's ids. " +
		"`oltp_insert` runs with `--auto_inc=off --mysql-ignore-errors=1213,1020,1205,1062` on every path (sysbench picks the ids, so the proxy routes each row by its id; " +
		"with auto_inc every id is 0; the rows it adds are deleted after every run, and the rare random id inside 1..10000 is a duplicate, ignored and retried); " +
		"`oltp_read_write` runs with sysbench's defaults (BEGIN … COMMIT around 18 statements). " +
		"The proxy's back-end sessions set `innodb_lock_wait_timeout=1` (the data source URLs' `sessionVariables`): a deadlock between two transactions " +
		"that each hold rows on a different data source is seen by neither InnoDB, and with the 50 s default it stalled every sysbench thread for 50 s " +
		"(sysbench ignores and retries the 1205 error, as it does 1213 for the deadlocks one server detects). sysbench is pinned with `taskset -c " + o.clientCPU +
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
	b.WriteString("\n### CPU per query\n\n" +
		"Microseconds of CPU (user + system) per query, median of the measured rounds, from each process's own accounting: " +
		"`/proc/<pid>/stat` utime+stime of the hop (haproxy or shardgen proxy) and of the two MariaDB primaries before and after each sysbench run, " +
		"and sysbench's own rusage, divided by the queries sysbench reports. The servers' figure includes whatever else ran on them " +
		"during the round (nothing but this benchmark on a dedicated `make bench` run). Clock tick " +
		"resolution is 10 ms, so short rounds are coarse.\n\n")
	b.WriteString("| test | path | sysbench µs/query | hop µs/query | servers µs/query | total µs/query |\n|---|---|---:|---:|---:|---:|\n")
	for _, r := range res {
		for _, path := range []string{"direct", "haproxy", "shardgen proxy"} {
			c := r.cpu[path]
			if len(c) == 0 {
				continue
			}
			pick := func(f func(cpuRound) float64) float64 {
				v := make([]float64, len(c))
				for i := range c {
					v[i] = f(c[i])
				}
				return load.Median(v)
			}
			cl := pick(func(x cpuRound) float64 { return x.client })
			hop := pick(func(x cpuRound) float64 { return x.hop })
			sv := pick(func(x cpuRound) float64 { return x.servers })
			hopCell := f1(hop)
			if path == "direct" {
				hopCell = "—"
			}
			b.WriteString("| " + r.test + " | " + path + " | " + f1(cl) + " | " + hopCell + " | " + f1(sv) + " | " + f1(cl+hop+sv) + " |\n")
		}
	}
	return b.String()
}
