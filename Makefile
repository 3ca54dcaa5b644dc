# shardgen — see README.md. Every target works on a fresh Debian machine:
# db-up installs Debian's mariadb-server when it is missing (as root).
SHELL := /bin/bash
GO ?= go

.PHONY: test-deps check-generated all build test test-unit bench tpcc db-up db-down db-status db-clean generate demo fuzz vet clean

all: build

build:
	$(GO) build ./...

## test: bring up the local MariaDB servers, then run every test (real servers, no mocks).
test: db-up test-deps check-generated
	$(GO) vet ./...
	$(GO) test -count=1 -p 1 ./...  # packages share the test databases: one at a time
	$(MAKE) --no-print-directory fuzz FUZZTIME=20000x

## test-deps: tools the tests drive besides MariaDB (sysbench; node and npm).
test-deps:
	@bash scripts/test-deps.sh

## fuzz: a short run of every fuzz target (FUZZTIME executions per target: a count, see scripts/fuzz.sh).
FUZZTIME ?= 20000x
fuzz:
	@bash scripts/fuzz.sh $(FUZZTIME)

## bench: algorithm and routing micro-benchmarks (ns/op, allocs/op; short
## -benchtime: runtime algorithms, the generated route of examples/orders, the
## proxy planner's miss and per-execution route and the generated sbtest calls
## next to careful direct database/sql in bench/micro, one proxy session's
## point select over in-process data sources, text and binary protocol:
## proxy/inproc_bench_test.go), then the load harness
## (bench/cmd/shardgen-bench, pinned to CPU 0 with taskset): generated code
## over 4 data nodes vs the careful direct path (prepared statements, reused),
## then sysbench direct / through haproxy / through `shardgen proxy` (sharded,
## and with empty rules for oltp_read_write) at 8 and 64 threads, unpinned and
## then pinned (sysbench on CPU 0, the hops on CPU 1), written to
## docs/benchmarks.md and docs/benchmarks.svg. Installs Debian's sysbench and
## haproxy when missing (as root). About 25 minutes; BENCH_QUICK=1 about 5
## (1 s rounds, one measured sysbench round per path). Not part of `make test`.
## Ports (127.0.0.1): the servers at SHARDGEN_DB_PORT_0/1/2
## (13306/13307/13308, as db-up); the sysbench phase's shardgen proxy at
## SHARDGEN_BENCH_PROXY_PORT (13310), haproxy at SHARDGEN_BENCH_HAPROXY_PORT
## (13311) and the empty-rules proxy at SHARDGEN_BENCH_EMPTY_PROXY_PORT
## (13312), checked free before the run starts; give two runs on one machine
## different values of all six.
BENCH_QUICK ?=
BENCH_FLAGS ?= $(if $(BENCH_QUICK),-rounds 3 -duration 1s -warmup 1s -sysbench-rounds 1,-rounds 3 -duration 5s -warmup 1s)
bench: db-up
	@if ! command -v sysbench >/dev/null || ! command -v haproxy >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y sysbench haproxy >/dev/null || \
	    { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y sysbench haproxy >/dev/null; }; \
	  else echo "make bench: install sysbench and haproxy (Debian: apt-get install sysbench haproxy)" >&2; exit 1; fi; \
	fi
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(if $(BENCH_QUICK),20ms,100ms) ./runtime/...
	$(GO) test -run '^$$' -bench 'Route(GetOrder|PreciseNode)$$' -benchmem -benchtime $(if $(BENCH_QUICK),20ms,200ms) ./examples/orders/
	$(GO) test -run . -bench . -benchmem -benchtime $(if $(BENCH_QUICK),20ms,200ms) ./bench/micro/
	$(GO) test -run '^$$' -bench 'SessionPointSelect' -benchmem -benchtime $(if $(BENCH_QUICK),2000x,20000x) ./proxy/
	$(GO) build -o bin/shardgen-bench ./bench/cmd/shardgen-bench
	$$(command -v taskset >/dev/null && echo taskset -c 0) bin/shardgen-bench $(BENCH_FLAGS) -sysbench -out docs/benchmarks.md -svg docs/benchmarks.svg
	@# The benchmark writes some rows with sql_log_bin=0; re-seed the replica if that broke replication.
	@bash scripts/db.sh up

## tpcc: go-tpc v1.0.7 (TPC-C) unmodified through `shardgen proxy` with
## examples/tpcc/proxy.yaml (sharded by warehouse over two data sources),
## then against direct MariaDB: prepare (with every consistency check), a
## TPCC_TIME (60s) run, check; prints both tpmC (scripts/tpcc.sh: ports,
## TPCC_WAREHOUSES, TPCC_THREADS). Installs go-tpc with `go install`.
## 1 warehouse took 43 minutes on the loaded 2-core machine, most of it
## go-tpc's check 3.3.2.10 (in prepare and check, on both sides). Not part of
## `make test` (TestTPCC runs go-tpc's statements there on a tiny database).
tpcc: db-up
	@bash scripts/tpcc.sh

## db-up: install MariaDB if missing (root + apt), start the two local servers
## (127.0.0.1:13306 and :13307, data in .local/mariadb/); a no-op when they run.
## db-down: stop them (data kept); db-clean: stop them and delete the data;
## db-status: each server, port, pid and databases. See README "Local MariaDB servers".
db-up:
	@bash scripts/db.sh up
db-down:
	@bash scripts/db.sh down
db-status:
	@bash scripts/db.sh status
db-clean:
	@bash scripts/db.sh clean

## generate: regenerate the committed generated code (examples, golden cases).
generate:
	$(GO) generate ./examples/... ./bench/...
	$(GO) test ./gen_test -run Golden -update

## check-generated: fail when committed generated code is stale (examples/orders, and bench/sbtest, which make bench runs).
check-generated:
	$(GO) run ./cmd/shardgen generate --check -f examples/orders/shardgen.yaml
	$(GO) run ./cmd/shardgen generate --check -f bench/sbtest/shardgen.yaml

## demo: the main job on real MariaDB shards: generate examples/orders/db from
## its rules, DDL and queries, create its actual tables with shardgen migrate
## (once: a second run has nothing to do), then run the example on the servers.
demo: db-up
	$(GO) run ./cmd/shardgen generate -f examples/orders/shardgen.yaml
	$(GO) run ./cmd/shardgen migrate -f examples/orders/shardgen.yaml
	$(GO) run ./examples/orders

vet:
	$(GO) vet ./...

clean:
	rm -rf bin
