// Command shardgen-bench is the load benchmark of `make bench` (issue 8). It
// runs sysbench-style scenarios (point select, single-row insert, the
// oltp_read_write mix, a full-route aggregate) through the generated package
// bench/sbtest/db, whose sbtest table is sharded by id (MOD 4) over ds_0..ds_3,
// and the same statements through the careful direct path (plain
// database/sql, one *sql.Stmt per statement prepared once and reused): on
// the same data nodes and pools, routed by hand, for the single-node
// scenarios; on one unsharded sbtest table with the same rows (database
// reference on the first server) for those with full routes; in
// interleaved rounds; with -sysbench it also drives Debian's sysbench through
// `shardgen proxy`, an haproxy TCP hop and direct to MariaDB. It writes the
// medians and ratios to a Markdown report and an SVG chart.
//
// Run from the repository root after `make db-up`:
//
//	go build -o bin/shardgen-bench ./bench/cmd/shardgen-bench
//	taskset -c 0 bin/shardgen-bench -out docs/benchmarks.md -svg docs/benchmarks.svg
//
// The servers are found at SHARDGEN_DB_PORT_0 / SHARDGEN_DB_PORT_1 (13306,
// 13307, as scripts/db.sh); the sysbench phase listens on
// SHARDGEN_BENCH_PROXY_PORT (shardgen proxy, 13310) and
// SHARDGEN_BENCH_HAPROXY_PORT (haproxy, 13311) and fails, naming the
// variable, when one of them is already in use. The report prints the ports
// the run used.
package main

//go:generate go run github.com/shardgen/shardgen/cmd/shardgen generate -f ../../sbtest/shardgen.yaml

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/shardgen/shardgen/bench/load"
	"github.com/shardgen/shardgen/bench/sbtest/db"
	shardrt "github.com/shardgen/shardgen/runtime"
)

type options struct {
	config, schema   string
	rows, workers    int
	rounds           int
	duration, warmup time.Duration
	out, svg         string
	only             string
	sysbench         bool
	sbThreads        string
	sbRounds         int
	// threads are the sysbench thread counts of sbThreads, set by run.
	threads    []int
	proxyCPU   string
	clientCPU  string
	cpuProfile string
	memProfile string
	// ports are the run's ports from the environment (portsFromEnv), set by run.
	ports benchPorts
}

func main() {
	var o options
	flag.StringVar(&o.config, "config", "bench/sbtest/sharding.yaml", "ShardingSphere YAML of the sharded side (data sources)")
	flag.StringVar(&o.schema, "schema", "bench/sbtest/schema.sql", "CREATE TABLE of sbtest")
	flag.IntVar(&o.rows, "rows", 10000, "rows in sbtest (sysbench --table-size)")
	flag.IntVar(&o.workers, "workers", 8, "concurrent workers per round (sysbench --threads)")
	flag.IntVar(&o.rounds, "rounds", 3, "measured rounds per side and scenario")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "length of one round")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured warm-up round per side and scenario")
	flag.StringVar(&o.out, "out", "", "write the Markdown report here (default: stdout only)")
	flag.StringVar(&o.svg, "svg", "", "write the SVG chart here")
	flag.StringVar(&o.only, "only", "", "comma-separated scenario names to run (default: all)")
	flag.BoolVar(&o.sysbench, "sysbench", false, "also run the sysbench proxy phase (needs sysbench, haproxy and the shardgen binary)")
	flag.StringVar(&o.sbThreads, "sysbench-threads", "8,64", "comma-separated sysbench --threads values; the phase runs at each")
	flag.IntVar(&o.sbRounds, "sysbench-rounds", 0, "measured rounds per path in the sysbench phase (0: -rounds)")
	flag.StringVar(&o.proxyCPU, "proxy-cpu", "1", "taskset CPU list for shardgen proxy / haproxy in the sysbench phase's pinned placement (empty: no pinned placement)")
	flag.StringVar(&o.clientCPU, "client-cpu", "0", "taskset CPU list for sysbench in the pinned placement")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a pprof CPU profile of the embedded scenarios (not the preparation, not the sysbench phase) here")
	flag.StringVar(&o.memProfile, "memprofile", "", "write a pprof allocation profile (every allocation sampled) taken after the embedded scenarios here")
	flag.Usage = func() {
		out := flag.CommandLine.Output()
		_, _ = io.WriteString(out, "Usage of "+os.Args[0]+":\n")
		flag.PrintDefaults()
		_, _ = io.WriteString(out, "\n"+portsUsage)
	}
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("shardgen-bench: ")
	if err := run(context.Background(), o); err != nil {
		log.Fatal(err)
	}
}

// startProfiles starts a CPU profile into cpu and samples every allocation
// when mem is set (runtime.MemProfileRate = 1); the returned stop ends the
// CPU profile and writes the allocation profile. Empty paths profile
// nothing.
func startProfiles(cpu, mem string) (stop func() error, err error) {
	var cpuFile *os.File
	if cpu != "" {
		if cpuFile, err = os.Create(cpu); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			cpuFile.Close()
			return nil, err
		}
	}
	if mem != "" {
		goruntime.MemProfileRate = 1
	}
	return func() error {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				return err
			}
		}
		if mem == "" {
			return nil
		}
		f, err := os.Create(mem)
		if err != nil {
			return err
		}
		goruntime.GC()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, nil
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// referenceDSN is the unsharded side: database reference on the first
// server, 127.0.0.1:port0.
func referenceDSN(port0 string) string {
	c := mysql.NewConfig()
	c.User = env("SHARDGEN_DB_USER", "shardgen")
	c.Passwd = env("SHARDGEN_DB_PASSWORD", "shardgen")
	c.Net = "tcp"
	c.Addr = "127.0.0.1:" + port0
	c.DBName = "reference"
	c.Params = map[string]string{"sql_log_bin": "0"}
	return c.FormatDSN()
}

func run(ctx context.Context, o options) error {
	var err error
	if o.ports, err = portsFromEnv(); err != nil {
		return err
	}
	if o.threads, err = parseThreads(o.sbThreads); err != nil {
		return err
	}
	if o.sysbench {
		// Fail now, not after the embedded scenarios; runSysbench checks again.
		if err := checkBenchPortsFree(o.ports); err != nil {
			return errors.New("sysbench phase: " + err.Error())
		}
	}
	rep := report{opts: o}
	if err := runEmbedded(ctx, o, &rep); err != nil {
		return err
	}
	if o.sysbench {
		// The embedded phase's pools are closed by now: their idle
		// connections do not count against the servers' max_connections
		// while sysbench runs 64 threads.
		sb, err := runSysbench(ctx, o)
		if err != nil {
			return errors.New("sysbench phase: " + err.Error())
		}
		rep.sysbench = sb
	}
	return rep.write()
}

// runEmbedded prepares the rows and runs the embedded scenarios into rep
// (and fills rep.machine).
func runEmbedded(ctx context.Context, o options, rep *report) error {
	cfg, err := shardrt.LoadConfig(o.config)
	if err != nil {
		return err
	}
	rt, err := shardrt.Open(cfg)
	if err != nil {
		return err
	}
	defer rt.Close()
	if err := rt.Ping(ctx); err != nil {
		return fmt.Errorf("%w (start the servers with `make db-up`)", err)
	}
	q, err := db.New(rt)
	if err != nil {
		return err
	}
	ref, err := sql.Open("mysql", referenceDSN(o.ports.db0))
	if err != nil {
		return err
	}
	defer ref.Close()
	ref.SetMaxOpenConns(32)
	ref.SetMaxIdleConns(32)
	ddl, err := os.ReadFile(o.schema)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := prepare(ctx, rt, q, ref, string(ddl), o.rows); err != nil {
		return err
	}
	log.Printf("prepared %d rows on the sharded side and the reference in %v", o.rows, time.Since(start).Round(time.Millisecond))

	rep.machine = machineInfo(ctx, ref)
	b := &bench{q: q, ref: ref, rows: o.rows, workers: o.workers}
	if err := b.prepareStatements(ctx, rt); err != nil {
		return err
	}
	defer b.closeStatements()
	stopProfiles, err := startProfiles(o.cpuProfile, o.memProfile)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, n := range strings.Split(o.only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	for _, sc := range b.scenarios() {
		if len(want) > 0 && !want[sc.name] {
			continue
		}
		if sc.reset != nil {
			sc.reset()
		}
		t0 := time.Now()
		c, err := load.CompareProbe(ctx, o.rounds, o.workers, o.duration, o.warmup, sc.reference, sc.sharded, serverCPU)
		if err != nil {
			return errors.New(sc.name + ": " + err.Error())
		}
		log.Printf("%-18s reference %9.0f/s  shardgen %9.0f/s  ratio %.3f  (%v)", sc.name, c.MedianA(), c.MedianB(), c.Ratio(), time.Since(t0).Round(time.Second))
		rep.embedded = append(rep.embedded, result{sc: sc, c: c})
	}
	if err := stopProfiles(); err != nil {
		return err
	}
	return cleanupInserts(ctx, rt, ref, o.rows)
}
