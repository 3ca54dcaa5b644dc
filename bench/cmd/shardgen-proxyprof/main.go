// Command shardgen-proxyprof is `shardgen proxy` with profiling, for the
// issue 8 measurements: `shardgen proxy` itself has no pprof endpoint or
// profile flag, so this command builds the same server (proxy.LoadConfig,
// proxy.NewServer, Start) in a process that also writes a pprof CPU profile
// and an allocation profile. It serves until SIGTERM or SIGINT, then stops
// the profiles, writes them and closes the server.
//
//	go build -o bin/shardgen-proxyprof ./bench/cmd/shardgen-proxyprof
//	taskset -c 1 bin/shardgen-proxyprof -c bench/sysbench/proxy.yaml --ddl bench/sysbench/sbtest.sql \
//	    --listen 127.0.0.1:13312 -cpuprofile proxy.cpu -memprofile proxy.mem -memrate 512
//	sysbench oltp_point_select --mysql-port=13312 ... run; kill -TERM <pid>
//	go tool pprof -top bin/shardgen-proxyprof proxy.cpu
//
// The CPU profile covers the whole serving time (start the load right after
// "listening"); -memrate sets runtime.MemProfileRate (bytes between samples;
// 1 samples every allocation, 0 keeps Go's default of 512 KiB).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/shardgen/shardgen/proxy"
)

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	os.Exit(run())
}

func run() int {
	var ddl files
	conf := flag.String("c", "", "ShardingSphere proxy database YAML with an authority section (required)")
	flag.Var(&ddl, "ddl", "CREATE TABLE file of the logic tables (repeatable)")
	listen := flag.String("listen", "127.0.0.1:13312", "TCP address to listen on")
	cpu := flag.String("cpuprofile", "", "write a pprof CPU profile of the serving time here")
	mem := flag.String("memprofile", "", "write a pprof allocation profile at shutdown here")
	rate := flag.Int("memrate", 0, "runtime.MemProfileRate in bytes (0: Go's default)")
	flag.Parse()
	if *conf == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: shardgen-proxyprof -c config.yaml --ddl schema.sql... [--listen addr] [-cpuprofile f] [-memprofile f] [-memrate n]")
		return 2
	}
	if *rate > 0 {
		goruntime.MemProfileRate = *rate
	}
	cfg, err := proxy.LoadConfig(*conf, ddl)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shardgen-proxyprof:", err)
		return 1
	}
	srv, err := proxy.NewServer(cfg, proxy.Options{Listen: *listen, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "shardgen-proxyprof:", err)
		return 1
	}
	var cpuFile *os.File
	if *cpu != "" {
		if cpuFile, err = os.Create(*cpu); err == nil {
			err = pprof.StartCPUProfile(cpuFile)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "shardgen-proxyprof:", err)
			_ = srv.Close()
			return 1
		}
	}
	if err := srv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "shardgen-proxyprof:", err)
		_ = srv.Close()
		return 1
	}
	fmt.Println("shardgen-proxyprof: listening on", srv.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	code := 0
	if cpuFile != nil {
		pprof.StopCPUProfile()
		if err := cpuFile.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "shardgen-proxyprof:", err)
			code = 1
		}
	}
	if *mem != "" {
		f, err := os.Create(*mem)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "shardgen-proxyprof:", err)
			code = 1
		}
	}
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "shardgen-proxyprof: shutdown:", err)
		code = 1
	}
	return code
}
