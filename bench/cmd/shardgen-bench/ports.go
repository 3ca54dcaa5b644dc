package main

import (
	"errors"
	"net"
	"strconv"
	"syscall"
)

// Environment variables naming the TCP ports of one run on 127.0.0.1. The
// database ports are the ones scripts/db.sh and internal/testdb read; the
// two bench ports are this harness's own listeners in the sysbench phase,
// overridable so two runs on one machine (parallel CI jobs) do not collide.
const (
	envDBPort0     = "SHARDGEN_DB_PORT_0"
	envDBPort1     = "SHARDGEN_DB_PORT_1"
	envProxyPort   = "SHARDGEN_BENCH_PROXY_PORT"
	envHAProxyPort = "SHARDGEN_BENCH_HAPROXY_PORT"
	envEmptyPort   = "SHARDGEN_BENCH_EMPTY_PROXY_PORT"
	defDBPort0     = "13306"
	defDBPort1     = "13307"
	defProxyPort   = "13310"
	defHAProxyPort = "13311"
	defEmptyPort   = "13312"
)

// portsUsage is the environment part of -h.
const portsUsage = "Environment (127.0.0.1 ports; defaults in parentheses):\n" +
	"  " + envDBPort0 + "          first MariaDB server: ds_0, ds_2, reference (" + defDBPort0 + ")\n" +
	"  " + envDBPort1 + "          second MariaDB server: ds_1, ds_3 (" + defDBPort1 + ")\n" +
	"  " + envProxyPort + "   shardgen proxy of the sysbench phase (" + defProxyPort + ")\n" +
	"  " + envHAProxyPort + " haproxy hop of the sysbench phase (" + defHAProxyPort + ")\n" +
	"  " + envEmptyPort + " shardgen proxy of the empty-rules test (" + defEmptyPort + ")\n" +
	"  SHARDGEN_DB_USER, SHARDGEN_DB_PASSWORD  account on both servers (shardgen, shardgen)\n"

// benchPorts are the decimal TCP ports (1..65535, as strings ready for a
// DSN or a command line) one run uses on 127.0.0.1.
type benchPorts struct {
	db0, db1       string // the two MariaDB primaries (scripts/db.sh s0, s1)
	proxy, haproxy string // the sysbench phase's shardgen proxy and haproxy
	empty          string // the shardgen proxy of the empty-rules test
}

// portsFromEnv reads SHARDGEN_DB_PORT_0/1, SHARDGEN_BENCH_PROXY_PORT,
// SHARDGEN_BENCH_HAPROXY_PORT and SHARDGEN_BENCH_EMPTY_PROXY_PORT (unset or
// empty: 13306, 13307, 13310, 13311, 13312). It fails, naming the
// variable, when a value is not a port 1..65535 or when two of the three
// hop ports are the same; scripts/db.sh makes the
// same checks of the database ports.
func portsFromEnv() (benchPorts, error) {
	var p benchPorts
	for _, v := range []struct {
		dst       *string
		name, def string
	}{
		{&p.db0, envDBPort0, defDBPort0},
		{&p.db1, envDBPort1, defDBPort1},
		{&p.proxy, envProxyPort, defProxyPort},
		{&p.haproxy, envHAProxyPort, defHAProxyPort},
		{&p.empty, envEmptyPort, defEmptyPort},
	} {
		s := env(v.name, v.def)
		if n, err := strconv.Atoi(s); err != nil || n < 1 || n > 65535 {
			return benchPorts{}, errors.New(v.name + "=\"" + s + "\" is not a port (1..65535)")
		}
		*v.dst = s
	}
	for _, pair := range [][4]string{
		{envProxyPort, p.proxy, envHAProxyPort, p.haproxy},
		{envProxyPort, p.proxy, envEmptyPort, p.empty},
		{envHAProxyPort, p.haproxy, envEmptyPort, p.empty},
	} {
		if pair[1] == pair[3] {
			return benchPorts{}, errors.New(pair[0] + " and " + pair[2] + " are both " + pair[1])
		}
	}
	return p, nil
}

// checkPortFree fails when nothing of ours may listen on 127.0.0.1:port: it
// binds the port once and closes it at once. A taken port gives
// "<variable>: 127.0.0.1:<port> is already in use (another make bench?); set
// <variable> to a free port", any other bind failure the system's error
// after the same variable and address. haproxy (SO_REUSEPORT by default) and
// shardgen proxy would otherwise share or lose the port while the harness
// probed the other program on it.
func checkPortFree(variable, port string) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return errors.New(variable + ": 127.0.0.1:" + port + " is already in use (another make bench?); set " +
				variable + " to a free port")
		}
		return errors.New(variable + ": cannot listen on 127.0.0.1:" + port + ": " + err.Error())
	}
	return l.Close()
}

// checkBenchPortsFree runs checkPortFree on the hop ports.
func checkBenchPortsFree(p benchPorts) error {
	if err := checkPortFree(envProxyPort, p.proxy); err != nil {
		return err
	}
	if err := checkPortFree(envHAProxyPort, p.haproxy); err != nil {
		return err
	}
	return checkPortFree(envEmptyPort, p.empty)
}

// envPrefix is the "VAR=value " assignments of the ports that differ from
// their defaults, in the order db0, db1, proxy, haproxy, empty ("" when
// none do),
// for the report's command line.
func (p benchPorts) envPrefix() string {
	var s string
	for _, v := range [][3]string{
		{envDBPort0, p.db0, defDBPort0},
		{envDBPort1, p.db1, defDBPort1},
		{envProxyPort, p.proxy, defProxyPort},
		{envHAProxyPort, p.haproxy, defHAProxyPort},
		{envEmptyPort, p.empty, defEmptyPort},
	} {
		if v[1] != v[2] {
			s += v[0] + "=" + v[1] + " "
		}
	}
	return s
}
