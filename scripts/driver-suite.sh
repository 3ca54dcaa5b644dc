#!/usr/bin/env bash
# driver-suite.sh HOST:PORT USER PASSWORD DATABASE
#
# Runs go-sql-driver/mysql v1.10.1's own test suite against any MySQL-protocol endpoint (a MariaDB server, or
# `shardgen proxy` in front of one) and prints the failing tests and one closing line:
#   driver suite: P passed, F failed, S skipped
# The suite's source comes from the Go module cache (downloaded if missing). connector_test.go is left out: it
# dials an address outside this machine. DRIVER_SKIP (a go test -skip pattern), DRIVER_RUN (a -run pattern) and DRIVER_TIMEOUT (seconds,
# default 600) are optional. The suite creates and drops its own tables (named test, and test_<name>) in DATABASE.
#
# Direct to MariaDB 10.11 without TLS: 162 passed, 3 failed (TestLongData needs max_allowed_packet >= 16 MB;
# TestTLS and TestIssue1567 need TLS), 2 skipped. An endpoint that speaks MySQL as a server does passes the same.
#
# make test runs it through the proxy: proxy/driversuite_test.go (TestDriverSuite) starts a proxy over ds_0 and
# fails on any failure outside its list of known failures (driverSuiteKnownFailures).
set -u
ADDR=$1 USER=$2 PASS=$3 DB=$4
VER=v1.10.1
SRC=$(go env GOMODCACHE)/github.com/go-sql-driver/mysql@$VER
if [ ! -d "$SRC" ]; then
  T=$(mktemp -d); (cd $T && go mod init fetch >/dev/null 2>&1 && go mod download github.com/go-sql-driver/mysql@$VER >/dev/null 2>&1); rm -rf $T
fi
[ -d "$SRC" ] || { echo "driver-suite: cannot find github.com/go-sql-driver/mysql@$VER in the module cache"; exit 2; }
W=$(mktemp -d -t driver-suite.XXXXXX); trap 'rm -rf $W' EXIT
cp -r "$SRC"/. $W; chmod -R u+w $W; rm -f $W/connector_test.go
cd $W && MYSQL_TEST_ADDR=$ADDR MYSQL_TEST_USER=$USER MYSQL_TEST_PASS=$PASS MYSQL_TEST_DBNAME=$DB \
  timeout ${DRIVER_TIMEOUT:-600} go test -count=1 -v ${DRIVER_SKIP:+-skip "$DRIVER_SKIP"} ${DRIVER_RUN:+-run "$DRIVER_RUN"} . >$W/out.log 2>&1
rc=$?
p=$(grep -c '^--- PASS' $W/out.log); f=$(grep -c '^--- FAIL' $W/out.log); s=$(grep -c '^--- SKIP' $W/out.log)
[ $rc = 124 ] && echo "TIMEOUT after ${DRIVER_TIMEOUT:-600}s; last test started: $(grep '^=== RUN' $W/out.log | tail -1)"
grep -q '^panic' $W/out.log && echo "PANIC (the suite stopped early): $(grep -m1 -B3 '^panic' $W/out.log | tr '\n' ' ' | cut -c1-300)"
echo "failing: $(grep '^--- FAIL' $W/out.log | awk '{print $3}' | tr '\n' ' ')"
[ -n "${DRIVER_LOG:-}" ] && cp $W/out.log "$DRIVER_LOG"
echo "driver suite: $p passed, $f failed, $s skipped"
