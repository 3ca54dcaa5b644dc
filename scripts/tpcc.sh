#!/usr/bin/env bash
# make tpcc: go-tpc v1.0.7 (TPC-C, github.com/pingcap/go-tpc), unmodified,
# through `shardgen proxy` with examples/tpcc/proxy.yaml (every table
# sharded by warehouse over tpcc_0 on server 0 and tpcc_1 on server 1,
# item broadcast), then the same against direct MariaDB (one unsharded
# database, tpcc_direct on server 0): prepare (which runs every consistency
# check, 3.3.2.1 to 3.3.2.12), a timed run, and check. Fails when go-tpc
# reports a failed statement or check. Prints the tpmC of both.
#
# Environment (defaults in parentheses):
#   TPCC_WAREHOUSES (1)  TPCC_THREADS (4)  TPCC_TIME (60s)
#   TPCC_PROXY_PORT (13320): the proxy's port on 127.0.0.1
#   TPCC_OUT: a file the two summaries are appended to
#   SHARDGEN_DB_PORT_0 / _1 (13306 / 13307): the servers of `make db-up`
# The databases are dropped and created anew; the go-tpc and shardgen
# binaries go to .local/bin. 1 warehouse took 43 minutes on the 2-core dev
# machine under load (20-34), most of it go-tpc's check 3.3.2.10, which
# prepare and check run on both sides (direct MariaDB: about 10 minutes each).
set -euo pipefail
cd "$(dirname "$0")/.."

WAREHOUSES=${TPCC_WAREHOUSES:-1}
THREADS=${TPCC_THREADS:-4}
DURATION=${TPCC_TIME:-60s}
PORT=${TPCC_PROXY_PORT:-13320}
P0=${SHARDGEN_DB_PORT_0:-13306}
P1=${SHARDGEN_DB_PORT_1:-13307}
USER_=${SHARDGEN_DB_USER:-shardgen}
PASS=${SHARDGEN_DB_PASSWORD:-shardgen}
export TPCC_PROXY_PASSWORD=${TPCC_PROXY_PASSWORD:-tpcc}
BIN=$PWD/.local/bin
LOG=$PWD/.local/tpcc
mkdir -p "$BIN" "$LOG"

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "tpcc: port $PORT is taken; set TPCC_PROXY_PORT" >&2
  exit 1
fi
bash scripts/db.sh up
if ! go version -m "$BIN/go-tpc" 2>/dev/null | grep -q "github.com/pingcap/go-tpc[[:space:]]*v1.0.7"; then
  echo "tpcc: installing go-tpc v1.0.7"
  GOBIN=$BIN go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
fi
go build -o "$BIN/shardgen" ./cmd/shardgen

sql() { mariadb -h127.0.0.1 -P"$1" -u"$USER_" -p"$PASS" -e "$2"; }
sql "$P0" "DROP DATABASE IF EXISTS tpcc_0; CREATE DATABASE tpcc_0; DROP DATABASE IF EXISTS tpcc_direct; CREATE DATABASE tpcc_direct"
sql "$P1" "DROP DATABASE IF EXISTS tpcc_1; CREATE DATABASE tpcc_1"

"$BIN/shardgen" proxy -c examples/tpcc/proxy.yaml --listen "127.0.0.1:$PORT" >"$LOG/proxy.log" 2>&1 &
PROXY=$!
trap 'kill $PROXY 2>/dev/null; wait $PROXY 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  kill -0 $PROXY 2>/dev/null || { cat "$LOG/proxy.log" >&2; exit 1; }
  sleep 0.1
done

# tpcc NAME PORT USER PASSWORD DATABASE: prepare, run and check; the run's
# summary goes to $LOG/NAME-run.log.
tpcc() {
  local name=$1 args=(-H 127.0.0.1 -P "$2" -U "$3" -p "$4" -D "$5" --warehouses "$WAREHOUSES")
  local t=$SECONDS
  echo "== $name: prepare ($WAREHOUSES warehouses)"
  "$BIN/go-tpc" tpcc "${args[@]}" -T 2 prepare >"$LOG/$name-prepare.log" 2>&1
  echo "   $((SECONDS - t)) s"; t=$SECONDS
  echo "== $name: run ($THREADS threads, $DURATION)"
  "$BIN/go-tpc" tpcc "${args[@]}" -T "$THREADS" --time "$DURATION" run >"$LOG/$name-run.log" 2>&1
  t=$SECONDS
  echo "== $name: check"
  "$BIN/go-tpc" tpcc "${args[@]}" -T 1 check >"$LOG/$name-check.log" 2>&1
  echo "   $((SECONDS - t)) s"
  # go-tpc prints failures and goes on (exit status 0). A run stopped by
  # its deadline counts the transactions it interrupted as *_ERR without
  # printing them (direct MariaDB too): at most one per thread.
  if grep -i 'failed' "$LOG/$name-prepare.log" "$LOG/$name-run.log" "$LOG/$name-check.log"; then
    echo "tpcc: $name: go-tpc reported failures (logs in $LOG)" >&2
    exit 1
  fi
  grep -c '^begin to check' "$LOG/$name-check.log" | xargs echo "   checks passed:"
  grep '^\[Summary\]\|^tpmC' "$LOG/$name-run.log"
}

tpcc proxy "$PORT" root "$TPCC_PROXY_PASSWORD" tpcc
tpcc direct "$P0" "$USER_" "$PASS" tpcc_direct

tpmc() { sed -n 's/^tpmC: \([0-9.]*\).*/\1/p' "$LOG/$1-run.log"; }
summary="go-tpc v1.0.7, $WAREHOUSES warehouse(s), $THREADS threads, $DURATION: tpmC through shardgen proxy $(tpmc proxy), direct MariaDB $(tpmc direct)"
echo "$summary"
if [ -n "${TPCC_OUT:-}" ]; then
  {
    echo "$summary"
    for n in proxy direct; do echo "$n:"; grep '^\[Summary\]' "$LOG/$n-run.log"; done
  } >>"$TPCC_OUT"
fi
