package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/shardgen/shardgen/proxy"
	"github.com/shardgen/shardgen/schema"
)

// runProxy serves the fallback proxy until SIGTERM or SIGINT:
// `shardgen proxy -c config.yaml [--ddl schema.sql...] [--listen addr]
// [--insecure] [--shutdown-timeout 10s] [--metrics 127.0.0.1:9307] [--fast-path=false]`.
func runProxy(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return runProxyCtx(ctx, args, stdout, stderr)
}

// runProxyCtx is runProxy stopping when ctx is done. Once listening it
// prints "shardgen proxy: listening on ADDR" to stdout; after a graceful
// shutdown it prints "shardgen proxy: stopped" and returns 0.
func runProxyCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conf := fs.String("c", "", "ShardingSphere proxy database YAML with an authority section (required)")
	var ddl stringList
	fs.Var(&ddl, "ddl", "CREATE TABLE file or migration directory of the logic tables (repeatable); without it the definitions are read from the data sources")
	listen := fs.String("listen", proxy.DefaultListen, "TCP address to listen on")
	insecure := fs.Bool("insecure", false, "start without configured users, accepting any user and password")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at http://ADDR/metrics (e.g. 127.0.0.1:9307); off when empty")
	timeout := fs.Duration("shutdown-timeout", proxy.DefaultShutdownTimeout, "how long shutdown waits for running statements")
	fastPath := fs.Bool("fast-path", true, "relay the back end's packets for single-node SELECTs of the text protocol (false: every statement takes the database/sql path)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *conf == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: shardgen proxy -c config.yaml [--ddl schema.sql...] [--listen 127.0.0.1:3307] [--insecure] [--shutdown-timeout 10s] [--metrics 127.0.0.1:9307] [--fast-path=false]")
		return 2
	}
	cfg, err := proxy.LoadConfig(*conf, ddl)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	srv, err := proxy.NewServer(cfg, proxy.Options{Listen: *listen, Insecure: *insecure, ShutdownTimeout: *timeout, Logger: logger, DisableFastPath: !*fastPath})
	if err != nil {
		printStartError(stderr, *conf, err)
		return 1
	}
	if err := srv.Start(); err != nil {
		_ = srv.Close()
		printStartError(stderr, *conf, err)
		return 1
	}
	fmt.Fprintln(stdout, "shardgen proxy: listening on", srv.Addr())
	if *metricsAddr != "" {
		ln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			_ = srv.Close()
			fmt.Fprintln(stderr, "shardgen proxy: metrics:", err)
			return 1
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", srv.MetricsHandler())
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = hs.Serve(ln) }()
		defer hs.Close()
		fmt.Fprintln(stdout, "shardgen proxy: metrics on http://"+ln.Addr().String()+"/metrics")
	}
	<-ctx.Done()
	start := time.Now()
	if err := srv.Close(); err != nil {
		fmt.Fprintln(stderr, "shardgen proxy: shutdown:", err)
		return 1
	}
	fmt.Fprintf(stdout, "shardgen proxy: stopped (%s)\n", time.Since(start).Round(time.Millisecond))
	return 0
}

// printStartError prints an error of proxy.NewServer or Server.Start with
// one prefix: a problem of the configuration file conf (schema errors, or
// a message that starts with the file's name, such as "proxy.yaml: no
// users are configured ...") as it is, like LoadConfig's errors; anything
// else as "shardgen proxy: <message>" without the proxy package's own
// "proxy: " ("shardgen proxy: listen on 127.0.0.1:3307: ...").
func printStartError(w io.Writer, conf string, err error) {
	var one *schema.Error
	var list schema.Errors
	if errors.As(err, &list) || errors.As(err, &one) || strings.HasPrefix(err.Error(), conf+":") {
		printErrors(w, err)
		return
	}
	fmt.Fprintln(w, "shardgen proxy: "+strings.TrimPrefix(err.Error(), "proxy: "))
}
