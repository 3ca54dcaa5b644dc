package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shardgen/shardgen/bench/load"
)

// The sysbench phase: Debian's sysbench 1.0.20 through `shardgen proxy`
// (sbtest1 sharded by id MOD 2 over ds_0/ds_1, bench/sysbench/proxy.yaml;
// SHARDGEN_BENCH_PROXY_PORT), through an haproxy TCP passthrough
// (SHARDGEN_BENCH_HAPROXY_PORT) to the first server (SHARDGEN_DB_PORT_0),
// direct to that server (database reference, unsharded sbtest1), and, for
// oltp_point_select and oltp_read_write, through a second `shardgen proxy`
// with empty rules (one data source, the reference database;
// bench/sysbench/proxy-empty.yaml; SHARDGEN_BENCH_EMPTY_PROXY_PORT): the
// ShardingSphere performance team's
// test of a proxy's own cost. Same settings on every path, rounds
// interleaved direct, haproxy, proxy, …; the whole phase runs once per
// placement (nothing pinned, then sysbench and the hops on CPUs of their
// own) and sysbench thread count.

const sbTableSize = 10000

// sbPath is one way from sysbench to the data.
type sbPath struct{ name, port, db string }

// The paths' names.
const (
	pathDirect  = "direct"
	pathHAProxy = "haproxy"
	pathProxy   = "shardgen proxy"
	pathEmpty   = "proxy, empty rules"
)

// sbResult is one sysbench test over every path in one placement and at
// one thread count: the per-second rate of each round per path, the CPU
// each process spent per query in each round, or the failure that stopped
// a path.
type sbResult struct {
	placement string
	threads   int
	test      string
	rounds    map[string][]float64
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

// sbPlacement is where the phase's processes run: unpinned (every CPU, as
// when the proxy runs beside the application) or pinned (sysbench on
// client, the hops on hop: a hop with a CPU to itself hides its own cost).
type sbPlacement struct {
	name, client, hop string
}

// sbPlacements are the placements of the phase: unpinned first (the
// issue's targets are for it), then pinned when o.proxyCPU is set. The
// unpinned placement names every online CPU explicitly, because the
// harness itself may run under taskset and its children inherit that.
func sbPlacements(o options) []sbPlacement {
	out := []sbPlacement{{name: "unpinned", client: onlineCPUs(), hop: onlineCPUs()}}
	if o.proxyCPU != "" {
		out = append(out, sbPlacement{name: "pinned", client: o.clientCPU, hop: o.proxyCPU})
	}
	return out
}

// onlineCPUs is the kernel's list of online CPUs
// (/sys/devices/system/cpu/online, e.g. "0-1"), or "" when unknown (then
// nothing is pinned).
func onlineCPUs() string {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// parseThreads reads -sysbench-threads: positive thread counts separated
// by commas.
func parseThreads(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sysbench-threads %q: %q is not a positive thread count", s, f)
		}
		out = append(out, n)
	}
	return out, nil
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
	// empty adds the empty-rules proxy's path.
	empty bool
	// target is issue 13's minimum of proxy ÷ haproxy, emptyTarget of
	// the empty-rules proxy ÷ haproxy (0: none stated).
	target, emptyTarget float64
}{
	{name: "oltp_point_select", target: 0.90, empty: true},
	{name: "oltp_insert", extra: []string{"--auto_inc=off", "--mysql-ignore-errors=1213,1020,1205,1062"}, target: 0.95},
	{name: "oltp_read_write", empty: true, emptyTarget: 0.85},
}

// sbPaths are the paths of the phase in the order each round runs them;
// empty adds the empty-rules proxy.
func sbPaths(p benchPorts, empty bool) []sbPath {
	out := []sbPath{
		{pathDirect, p.db0, "reference"},
		{pathHAProxy, p.haproxy, "reference"},
		{pathProxy, p.proxy, "sbtest"},
	}
	if empty {
		out = append(out, sbPath{pathEmpty, p.empty, "sbtest"})
	}
	return out
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

// sbHops are the running hops of one placement: their pids by path, and
// stop.
type sbHops struct {
	pid  map[string]int
	stop func()
}

// startHops starts shardgen proxy (sharded and empty rules) and haproxy on
// the CPUs cpus (every CPU when empty) and waits until each answers.
func startHops(o options, cpus, haproxyCfg string) (*sbHops, error) {
	h := &sbHops{pid: map[string]int{}}
	var stops []func()
	h.stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	for _, x := range []struct {
		path, port, variable string
		cmd                  *exec.Cmd
	}{
		{pathProxy, o.ports.proxy, envProxyPort, pinned(cpus, "bin/shardgen", "proxy", "-c", "bench/sysbench/proxy.yaml",
			"--ddl", "bench/sysbench/sbtest.sql", "--listen", "127.0.0.1:"+o.ports.proxy)},
		{pathEmpty, o.ports.empty, envEmptyPort, pinned(cpus, "bin/shardgen", "proxy", "-c", "bench/sysbench/proxy-empty.yaml",
			"--ddl", "bench/sysbench/sbtest.sql", "--listen", "127.0.0.1:"+o.ports.empty)},
		{pathHAProxy, o.ports.haproxy, envHAProxyPort, pinned(cpus, "haproxy", "-db", "-f", haproxyCfg)},
	} {
		stop, err := background(x.cmd, x.port, x.variable)
		if err != nil {
			h.stop()
			return nil, err
		}
		stops = append(stops, stop)
		h.pid[x.path] = x.cmd.Process.Pid
	}
	return h, nil
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
	f, err := os.CreateTemp("", "shardgen-bench-haproxy-*.cfg")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(haproxyConfig(ports)); err != nil {
		return nil, err
	}
	f.Close()
	rounds := o.sbRounds
	if rounds <= 0 {
		rounds = o.rounds
	}
	var out []sbResult
	for _, pl := range sbPlacements(o) {
		hops, err := startHops(o, pl.hop, f.Name())
		if err != nil {
			return nil, err
		}
		for _, threads := range o.threads {
			for _, test := range sbTests {
				res, err := sbRun(o, pl, hops, threads, rounds, test.name, test.extra, sbPaths(ports, test.empty))
				if err != nil {
					hops.stop()
					return nil, err
				}
				log.Printf("sysbench %-8s %2d threads %-17s %s", pl.name, threads, test.name, res.summary())
				out = append(out, res)
			}
		}
		hops.stop()
	}
	return out, nil
}

// summary is one log line of r: the median rate of each path.
func (r sbResult) summary() string {
	var parts []string
	for _, p := range []string{pathDirect, pathHAProxy, pathProxy, pathEmpty} {
		if msg := r.failed[p]; msg != "" {
			parts = append(parts, p+" failed")
		} else if v, ok := r.rounds[p]; ok {
			parts = append(parts, p+" "+f0(load.Median(v)))
		}
	}
	return strings.Join(parts, ", ")
}

// sbRun runs one sysbench test at threads threads over paths, a warm-up
// round and rounds measured rounds, interleaved.
func sbRun(o options, pl sbPlacement, hops *sbHops, threads, rounds int, test string, extra []string, paths []sbPath) (sbResult, error) {
	res := sbResult{placement: pl.name, threads: threads, test: test,
		rounds: map[string][]float64{}, cpu: map[string][]cpuRound{}, failed: map[string]string{}}
	servers := serverPids()
	for r := 0; r <= rounds; r++ { // round 0 is the warm-up
		for _, p := range paths {
			if res.failed[p.name] != "" {
				continue
			}
			d := o.duration
			if r == 0 {
				d = o.warmup
			}
			secs := strconv.Itoa(max(1, int(d.Round(time.Second)/time.Second)))
			args := sysbenchArgs(test, p.port, p.db, append(append([]string(nil), extra...),
				"--threads="+strconv.Itoa(threads), "--time="+secs, "--report-interval=0", "run")...)
			cmd := pinned(pl.client, "sysbench", args...)
			hop0, srv0 := procCPU(hops.pid[p.name]), 0.0
			for _, pid := range servers {
				srv0 += procCPU(pid)
			}
			text, err := runLimited(cmd, sbLimit(d))
			hop1, srv1 := procCPU(hops.pid[p.name]), 0.0
			for _, pid := range servers {
				srv1 += procCPU(pid)
			}
			if test == "oltp_insert" {
				if cerr := sbCleanInserts(o.ports); cerr != nil {
					return res, cerr
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
	return res, nil
}

// sbLimit is how long one sysbench run of duration d may take before it
// is killed and its path reported as stalled: sysbench waits for every
// thread's event to finish, so a hop that stops answering (e.g. sessions
// waiting for each other's pooled connections) would hang the phase.
func sbLimit(d time.Duration) time.Duration { return 3*d + 30*time.Second }

// runLimited is runOut killing cmd after limit, with an error that says so.
func runLimited(cmd *exec.Cmd, limit time.Duration) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	var stalled atomic.Bool
	timer := time.AfterFunc(limit, func() {
		stalled.Store(true)
		_ = cmd.Process.Kill()
	})
	err := cmd.Wait()
	timer.Stop()
	text := out.String()
	switch {
	case stalled.Load():
		return text, fmt.Errorf("%s: stalled: no result within %v, killed: %s", strings.Join(cmd.Args, " "), limit, lastLines(text, 5))
	case err != nil:
		return text, fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, lastLines(text, 5))
	}
	return text, nil
}

// ratioCell is a ÷ b as "0.62×", with the verdict against target when
// there is one ("0.62× (≥ 0.90 **missed**)"), or "n/a".
func ratioCell(a, b, target float64) string {
	if a == 0 || b == 0 {
		return "n/a"
	}
	cell := f2(a/b) + "×"
	if target > 0 {
		cell += " (" + verdict(a/b, target) + ")"
	}
	return cell
}

func sysbenchMarkdown(o options, res []sbResult, bars *[]load.Bar) string {
	var b strings.Builder
	threads := make([]string, len(o.threads))
	for i, n := range o.threads {
		threads[i] = strconv.Itoa(n)
	}
	rounds := o.sbRounds
	if rounds <= 0 {
		rounds = o.rounds
	}
	b.WriteString("\n## Proxy load: sysbench through shardgen proxy, an haproxy hop, and direct\n\n")
	b.WriteString("Debian's sysbench, `--tables=1 --table-size=" + strconv.Itoa(sbTableSize) + "`, at `--threads` " + strings.Join(threads, " and ") +
		", " + strconv.Itoa(rounds) + " rounds of " + o.duration.String() + " per path after one warm-up round, interleaved direct, haproxy, proxy, direct, …. " +
		"**direct**: " + o.ports.db0 + ", database reference (one unsharded sbtest1); **haproxy**: on " + o.ports.haproxy +
		", a TCP passthrough (`mode tcp`) to the same server; " +
		"**shardgen proxy**: on " + o.ports.proxy + ", `shardgen proxy -c bench/sysbench/proxy.yaml` with sbtest1 sharded by id MOD 2 over ds_0 (" +
		o.ports.db0 + ") and ds_1 (" + o.ports.db1 + "), " +
		"prepared directly on the back ends with sysbench's own `prepare` and cut to each shard's ids; " +
		"**proxy, empty rules** (oltp_point_select and oltp_read_write): on " + o.ports.empty + ", `shardgen proxy -c bench/sysbench/proxy-empty.yaml`, one data source " +
		"(the reference database behind direct and haproxy) and no rule: the ShardingSphere performance team's \"empty rules\" test, the proxy's own cost and nothing else. " +
		"Its point selects also show what the sharded proxy's pay for their two servers: those run on two MariaDB processes where direct, haproxy " +
		"and empty rules use one, and on a machine whose CPUs the servers share with the hops the two spend more CPU per query (the servers column below). " +
		"`oltp_insert` runs with `--auto_inc=off --mysql-ignore-errors=1213,1020,1205,1062` on every path (sysbench picks the ids, so the proxy routes each row by its id; " +
		"with auto_inc every id is 0; the rows it adds are deleted after every run, and the rare random id inside 1..10000 is a duplicate, ignored and retried); " +
		"`oltp_read_write` runs with sysbench's defaults (BEGIN … COMMIT around 18 statements). " +
		"The sharded proxy's back-end sessions set `innodb_lock_wait_timeout=1` (the data source URLs' `sessionVariables`): a deadlock between two transactions " +
		"that each hold rows on a different data source is seen by neither InnoDB, and with the 50 s default it stalled every sysbench thread for 50 s " +
		"(sysbench ignores and retries the 1205 error, as it does 1213 for the deadlocks one server detects). ")
	b.WriteString("The phase runs twice: **unpinned** (sysbench, the hops and the servers share every CPU, as when the proxy runs beside the application; issue 13's targets are for this placement)")
	if o.proxyCPU != "" {
		b.WriteString(", then **pinned** (sysbench under `taskset -c " + o.clientCPU + "`, the proxies and haproxy under `taskset -c " + o.proxyCPU +
			"`; a hop with a CPU to itself hides its own cost)")
	}
	b.WriteString("; the servers are never pinned. Rates are transactions per second, median (rounds).\n\n")
	b.WriteString("| placement | threads | test | direct | haproxy | shardgen proxy | proxy, empty rules | haproxy ÷ direct | proxy ÷ haproxy (target) | empty rules ÷ haproxy (target) |\n|---|---:|---|---:|---:|---:|---:|---:|---|---|\n")
	var failures []string
	for _, r := range res {
		var target, emptyTarget float64
		for _, t := range sbTests {
			if t.name == r.test {
				target, emptyTarget = t.target, t.emptyTarget
			}
		}
		d, h, p, e := load.Median(r.rounds[pathDirect]), load.Median(r.rounds[pathHAProxy]), load.Median(r.rounds[pathProxy]), load.Median(r.rounds[pathEmpty])
		cell := func(path string, v float64) string {
			if r.failed[path] != "" {
				return "failed"
			}
			xs := r.rounds[path]
			if len(xs) == 0 {
				return "—"
			}
			parts := make([]string, len(xs))
			for i, x := range xs {
				parts[i] = f0(x)
			}
			return f0(v) + " (" + strings.Join(parts, ", ") + ")"
		}
		emptyRatio := "—"
		if _, ok := r.rounds[pathEmpty]; ok || r.failed[pathEmpty] != "" {
			emptyRatio = ratioCell(e, h, emptyTarget)
		}
		b.WriteString("| " + r.placement + " | " + strconv.Itoa(r.threads) + " | " + r.test + " | " + cell(pathDirect, d) + " | " + cell(pathHAProxy, h) + " | " +
			cell(pathProxy, p) + " | " + cell(pathEmpty, e) + " | " + ratioCell(h, d, 0) + " | " + ratioCell(p, h, target) + " | " + emptyRatio + " |\n")
		where := " (" + r.placement + ", " + strconv.Itoa(r.threads) + " thr)"
		if p > 0 && h > 0 {
			*bars = append(*bars, load.Bar{Label: r.test + " proxy÷haproxy" + where, Ratio: p / h, Target: target})
		}
		if e > 0 && h > 0 {
			*bars = append(*bars, load.Bar{Label: r.test + " empty rules÷haproxy" + where, Ratio: e / h, Target: emptyTarget})
		}
		for _, path := range []string{pathDirect, pathHAProxy, pathProxy, pathEmpty} {
			if msg := r.failed[path]; msg != "" {
				failures = append(failures, "- "+r.placement+", "+strconv.Itoa(r.threads)+" threads, "+r.test+" via "+path+": `"+strings.ReplaceAll(msg, "`", "'")+"`")
			}
		}
	}
	if len(failures) > 0 {
		b.WriteString("\nFailures (reported, not hidden):\n\n" + strings.Join(failures, "\n") + "\n")
	}
	b.WriteString("\n### CPU per query\n\n" +
		"Microseconds of CPU (user + system) per query, median of the measured rounds, from each process's own accounting: " +
		"`/proc/<pid>/stat` utime+stime of the hop (haproxy or the shardgen proxy of the path) and of the two MariaDB primaries before and after each sysbench run, " +
		"and sysbench's own rusage, divided by the queries sysbench reports. The servers' figure includes whatever else ran on them " +
		"during the round (nothing but this benchmark on a dedicated `make bench` run). Clock tick " +
		"resolution is 10 ms, so short rounds are coarse. The last column is the hop's CPU per query ÷ haproxy's in the same test " +
		"(issue 13's target for oltp_point_select, unpinned: ≤ 1.3).\n\n")
	b.WriteString("| placement | threads | test | path | sysbench µs/query | hop µs/query | servers µs/query | total µs/query | hop ÷ haproxy's |\n|---|---:|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range res {
		pick := func(path string, f func(cpuRound) float64) float64 {
			c := r.cpu[path]
			v := make([]float64, len(c))
			for i := range c {
				v[i] = f(c[i])
			}
			return load.Median(v)
		}
		hopOf := func(x cpuRound) float64 { return x.hop }
		haHop := pick(pathHAProxy, hopOf)
		for _, path := range []string{pathDirect, pathHAProxy, pathProxy, pathEmpty} {
			if len(r.cpu[path]) == 0 {
				continue
			}
			cl := pick(path, func(x cpuRound) float64 { return x.client })
			hop := pick(path, hopOf)
			sv := pick(path, func(x cpuRound) float64 { return x.servers })
			hopCell, rel := f1(hop), "—"
			if path == pathDirect {
				hopCell = "—"
			} else if path != pathHAProxy && haHop > 0 {
				rel = f2(hop/haHop) + "×"
			}
			b.WriteString("| " + r.placement + " | " + strconv.Itoa(r.threads) + " | " + r.test + " | " + path + " | " + f1(cl) + " | " + hopCell + " | " + f1(sv) + " | " + f1(cl+hop+sv) + " | " + rel + " |\n")
		}
	}
	return b.String()
}
