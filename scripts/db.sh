#!/usr/bin/env bash
# scripts/db.sh up|down|status|clean — the local MariaDB servers that tests,
# the demo and CI run against (real servers, no mocks).
#
#   up      install MariaDB if missing (root + apt only), then start two
#           independent mariadbd servers on 127.0.0.1 and create the data
#           sources on them, and a third, s2, a read-only GTID replica of
#           s0; wait until its replication IO and SQL threads run. A second
#           `up` is a no-op; a replica whose replication broke is re-seeded.
#   down    stop exactly the servers `up` started (pid files); keep the data.
#   status  print each server, its port, pid and databases, and the
#           replica's replication state; exit 1 if any is down.
#   clean   down, then remove the data dirs (.local/mariadb/).
#
# Layout (all under the git-ignored .local/mariadb/ of this checkout):
#   s<i>/data/        data dir (mariadb-install-db)
#   s<i>/mysqld.sock  unix socket (root, empty password: local only)
#   s<i>/mysqld.pid   pid file; s<i>/error.log server log
#
# Server i holds data source ds_j for every j with j%2 == i; server 0 also
# holds the unsharded database `reference`. internal/testdb follows the same
# map. Server 2 (the replica) replicates everything of server 0 (binlog,
# GTID, MASTER_USE_GTID=slave_pos) and runs with read_only=1, server_id 3.
# Environment (same names as internal/testdb):
#   SHARDGEN_DB_PORT_0 (13306), SHARDGEN_DB_PORT_1 (13307),
#   SHARDGEN_DB_PORT_2 (13308, the replica)
#   SHARDGEN_DB_USER / SHARDGEN_DB_PASSWORD (shardgen / shardgen): the account
#     created with ALL PRIVILEGES ON *.* at 127.0.0.1 and localhost
#   SHARDGEN_DB_START_TIMEOUT (60): seconds to wait for a server to accept
#     connections
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=$ROOT/.local/mariadb
PORTS=("${SHARDGEN_DB_PORT_0:-13306}" "${SHARDGEN_DB_PORT_1:-13307}" "${SHARDGEN_DB_PORT_2:-13308}")
DATABASES=("ds_0 ds_2 reference latin1_ds_0 latin1_ds_1 latin1_reference" "ds_1 ds_3" "ds_0 ds_2 reference latin1_ds_0 latin1_ds_1 latin1_reference")
# Databases whose default character set is latin1 (latin1_swedish_ci, the
# default of MySQL 5.x and of a MariaDB built without other settings): the
# tests of text merged as a latin1 server compares it use them.
LATIN1_DATABASES="latin1_ds_0 latin1_ds_1 latin1_reference"
DB_USER=${SHARDGEN_DB_USER:-shardgen}
DB_PASSWORD=${SHARDGEN_DB_PASSWORD:-shardgen}
START_TIMEOUT=${SHARDGEN_DB_START_TIMEOUT:-60}
NSERVERS=2  # independent primaries s0, s1
REPLICA=2   # s2: replica of REPLICA_OF
REPLICA_OF=0
NALL=${#PORTS[@]}
# The replication account on s0 (local only, like the test account).
REPL_USER=shardgen_repl
REPL_PASSWORD=shardgen_repl

log() { echo "db: $*"; }
die() {
  echo "db: error: $*" >&2
  exit 1
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
elapsed() { # elapsed START_MS -> "1.234s"
  local ms=$(($(now_ms) - $1))
  printf '%d.%03ds' $((ms / 1000)) $((ms % 1000))
}

# ---- input checks ---------------------------------------------------------

check_inputs() {
  local i p
  for i in "${!PORTS[@]}"; do
    p=${PORTS[$i]}
    [[ $p =~ ^[0-9]+$ ]] && ((p >= 1 && p <= 65535)) ||
      die "SHARDGEN_DB_PORT_$i=\"$p\" is not a port (1..65535)"
  done
  [ "${PORTS[0]}" != "${PORTS[1]}" ] || die "SHARDGEN_DB_PORT_0 and SHARDGEN_DB_PORT_1 are both ${PORTS[0]}"
  [ "${PORTS[2]}" != "${PORTS[0]}" ] && [ "${PORTS[2]}" != "${PORTS[1]}" ] ||
    die "SHARDGEN_DB_PORT_2 (${PORTS[2]}) must differ from SHARDGEN_DB_PORT_0 and SHARDGEN_DB_PORT_1"
  [[ $DB_USER =~ ^[A-Za-z0-9_.-]{1,32}$ ]] ||
    die "SHARDGEN_DB_USER=\"$DB_USER\" must be 1..32 characters of [A-Za-z0-9_.-]"
  [[ $DB_PASSWORD =~ ^[A-Za-z0-9_.@%+=-]*$ ]] ||
    die "SHARDGEN_DB_PASSWORD may only hold [A-Za-z0-9_.@%+=-]"
  [[ $START_TIMEOUT =~ ^[0-9]+$ ]] || die "SHARDGEN_DB_START_TIMEOUT=\"$START_TIMEOUT\" is not a number of seconds"
}

# ---- paths ----------------------------------------------------------------

sdir() { echo "$BASE/s$1"; }
datadir() { echo "$BASE/s$1/data"; }
pidfile() { echo "$BASE/s$1/mysqld.pid"; }
errlog() { echo "$BASE/s$1/error.log"; }

# sock i: the server's unix socket. A socket path must fit in 107 bytes; in
# a deeply nested checkout it moves to a per-checkout directory under /tmp.
sock() {
  local s="$BASE/s$1/mysqld.sock"
  if ((${#s} > 100)); then
    s="${TMPDIR:-/tmp}/shardgen-$(printf '%s' "$ROOT" | md5sum | cut -c1-10)/s$1.sock"
  fi
  echo "$s"
}

# ---- binaries -------------------------------------------------------------

# find_bin NAME... prints the first of NAME... on PATH or in the usual sbin
# and libexec dirs (mariadbd lives in /usr/sbin, which a non-root PATH lacks).
find_bin() {
  local n d
  for n in "$@"; do
    if command -v "$n" >/dev/null 2>&1; then
      command -v "$n"
      return 0
    fi
    for d in /usr/sbin /usr/local/sbin /usr/libexec /usr/local/mysql/bin; do
      if [ -x "$d/$n" ]; then
        echo "$d/$n"
        return 0
      fi
    done
  done
  return 1
}

find_binaries() {
  MARIADBD=$(find_bin mariadbd mysqld || true)
  INSTALL_DB=$(find_bin mariadb-install-db mysql_install_db || true)
  CLIENT=$(find_bin mariadb mysql || true)
  ADMIN=$(find_bin mariadb-admin mysqladmin || true)
  DUMP=$(find_bin mariadb-dump mysqldump || true)
  [ -n "$DUMP" ] && [ -n "$MARIADBD" ] && [ -n "$INSTALL_DB" ] && [ -n "$CLIENT" ] && [ -n "$ADMIN" ]
}

# install_mariadb installs Debian's mariadb-server and mariadb-client when
# this is root on an apt system, and makes sure the package's own service
# (port 3306, /run/mysqld) is not left running: our servers do not use it.
install_mariadb() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    die "MariaDB is not installed (need mariadbd, mariadb-install-db, mariadb, mariadb-admin).
    On Debian/Ubuntu: sudo apt-get install mariadb-server mariadb-client
    (or run 'make db-up' as root on Debian/Ubuntu, which installs them)."
  fi
  local t0 aptlog policy_made=0
  t0=$(now_ms)
  mkdir -p "$BASE"
  aptlog=$BASE/apt.log
  log "MariaDB is not installed: apt-get install mariadb-server mariadb-client (log: $aptlog)"
  # Keep the package's init script from starting a server of its own.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# shardgen scripts/db.sh: no service starts during install\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    policy_made=1
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT # also when interrupted
  fi
  local rc=0
  {
    export DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a
    apt-get update -q &&
      apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        mariadb-server mariadb-client
  } </dev/null >"$aptlog" 2>&1 || rc=$?
  if [ "$policy_made" = 1 ]; then
    rm -f /usr/sbin/policy-rc.d
    trap - EXIT
  fi
  if [ "$rc" != 0 ]; then
    tail -n 30 "$aptlog" >&2
    die "apt-get failed (exit $rc); full log: $aptlog"
  fi
  stop_distro_service
  find_binaries || die "mariadb-server is installed but its programs were not found"
  log "installed $("$MARIADBD" --version 2>/dev/null | head -n1) in $(elapsed "$t0")"
}

# stop_distro_service stops a mariadbd that the Debian package may have
# started (a machine without policy-rc.d): it would only cost memory.
stop_distro_service() {
  local pf=/run/mysqld/mysqld.pid pid
  [ -f "$pf" ] || return 0
  pid=$(cat "$pf" 2>/dev/null || true)
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 0
  log "stopping the mariadb service the Debian package started (pid $pid); shardgen uses its own servers"
  service mariadb stop >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
  wait_gone "$pid" 30 || kill -9 "$pid" 2>/dev/null || true
}

# ---- process helpers ------------------------------------------------------

# ours i: prints the pid of server i if its pid file names a live mariadbd
# started with this server's data dir (a reused pid never matches).
ours() {
  local pf pid
  pf=$(pidfile "$1")
  [ -f "$pf" ] || return 1
  pid=$(cat "$pf" 2>/dev/null || true)
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "--datadir=$(datadir "$1")" || return 1
  echo "$pid"
}

# alive PID: the process runs. A zombie (exited, not yet reaped: a server
# whose starter has gone is reaped by init, sometimes seconds later) is not.
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

wait_gone() { # wait_gone PID SECONDS
  local n=$(($2 * 20))
  while alive "$1"; do
    ((n-- > 0)) || return 1
    sleep 0.05
  done
}

ping_socket() { # ping_socket i: root over the unix socket
  "$ADMIN" --no-defaults --socket="$(sock "$1")" -uroot --connect-timeout=2 ping >/dev/null 2>&1
}

port_busy() { # port_busy PORT: something accepts TCP on 127.0.0.1:PORT
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

root_sql() { # root_sql i SQL
  "$CLIENT" --no-defaults --socket="$(sock "$1")" -uroot -N -B -e "$2"
}

tcp_sql() { # tcp_sql i SQL: as $DB_USER over TCP, as the tests connect
  MYSQL_PWD=$DB_PASSWORD "$CLIENT" --no-defaults --protocol=TCP -h127.0.0.1 -P"${PORTS[$1]}" \
    -u"$DB_USER" --connect-timeout=2 -N -B -e "$2"
}

log_tail() {
  echo "---- last lines of $(errlog "$1") ----" >&2
  tail -n 25 "$(errlog "$1")" >&2 2>/dev/null || echo "(no log)" >&2
  echo "----" >&2
}

# ---- server lifecycle -----------------------------------------------------

# server_opts i: the options both mariadb-install-db and mariadbd get. Light:
# small buffer pool and redo log, relaxed flushing, the performance schema on
# s0 only (the proxy's go-sql-driver suite reads it, TestConnectionAttributes).
# Binlog (ROW) with a distinct server_id per server, for the GTID replica and
# XA tests that come later.
server_opts() {
  local i=$1
  OPTS=(
    --datadir="$(datadir "$i")"
    --tmpdir="$(sdir "$i")/tmp"
    --innodb-buffer-pool-size=64M
    --innodb-log-file-size=32M
    --innodb-flush-log-at-trx-commit=2
    --skip-name-resolve
  )
  [ "$(id -u)" != 0 ] || OPTS+=(--user=root)
}

init_datadir() { # init_datadir i: mariadb-install-db into a fresh data dir
  local i=$1 d
  d=$(datadir "$i")
  rm -rf "$d"
  mkdir -p "$d" "$(sdir "$i")/tmp"
  server_opts "$i"
  if ! "$INSTALL_DB" --no-defaults "${OPTS[@]}" --auth-root-authentication-method=normal \
    --skip-test-db >"$(sdir "$i")/install.log" 2>&1; then
    tail -n 25 "$(sdir "$i")/install.log" >&2
    echo "db: error: mariadb-install-db failed for s$i; log: $(sdir "$i")/install.log" >&2
    return 1
  fi
  touch "$d/.shardgen-initialized"
}

start_server() { # start_server i: launch mariadbd in its own session
  local i=$1 s
  s=$(sock "$i")
  mkdir -p "$(dirname "$s")" "$(sdir "$i")/tmp"
  rm -f "$s" "$s.lock" "$(pidfile "$i")"
  server_opts "$i"
  OPTS+=(
    --port="${PORTS[$i]}"
    --bind-address=127.0.0.1
    --socket="$s"
    --pid-file="$(pidfile "$i")"
    --log-error="$(errlog "$i")"
    --server-id=$((i + 1))
    --log-bin=mariadb-bin
    --binlog-format=ROW
    --sync-binlog=0
    --expire-logs-days=1
    --max-connections=1000
    --max-allowed-packet=64M
    --performance-schema="$([ "$i" = 0 ] && echo ON || echo OFF)"
    --character-set-server=utf8mb4
    --collation-server=utf8mb4_general_ci
    --default-time-zone=+00:00
  )
  if [ "$i" = "$REPLICA" ]; then
    # Replication resumes by itself when the replica restarts (master.info
    # and mysql.gtid_slave_pos persist); MASTER_CONNECT_RETRY is 1 s.
    OPTS+=(--read-only=1 --relay-log=relay-bin --slave-net-timeout=10)
  fi
  local launcher=()
  command -v setsid >/dev/null 2>&1 && launcher=(setsid)
  # 9>&-: the server must not inherit (and so hold) our lock.
  "${launcher[@]}" "$MARIADBD" --no-defaults "${OPTS[@]}" </dev/null >>"$(sdir "$i")/stdout.log" 2>&1 9>&- &
  STARTED_PID[$i]=$!
}

# wait_ready i: bounded wait until server i answers on its socket.
wait_ready() {
  local i=$1 deadline pid
  deadline=$(($(date +%s) + START_TIMEOUT))
  until ping_socket "$i"; do
    pid=${STARTED_PID[$i]:-}
    if [ -n "$pid" ] && ! alive "$pid" && ! ours "$i" >/dev/null; then
      log_tail "$i"
      die "mariadbd s$i (port ${PORTS[$i]}) exited during start-up; see the log above"
    fi
    if (($(date +%s) >= deadline)); then
      log_tail "$i"
      die "mariadbd s$i (port ${PORTS[$i]}) did not accept connections within ${START_TIMEOUT}s"
    fi
    sleep 0.1
  done
}

# provision i: databases and the test account (idempotent).
provision() {
  local i=$1 db sql="" h
  for db in ${DATABASES[$i]}; do
    if [[ " $LATIN1_DATABASES " == *" $db "* ]]; then
      sql+="CREATE DATABASE IF NOT EXISTS \`$db\` CHARACTER SET latin1 COLLATE latin1_swedish_ci;"
    else
      sql+="CREATE DATABASE IF NOT EXISTS \`$db\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci;"
    fi
  done
  for h in 127.0.0.1 localhost; do
    sql+="CREATE USER IF NOT EXISTS '$DB_USER'@'$h' IDENTIFIED BY '$DB_PASSWORD';"
    sql+="ALTER USER '$DB_USER'@'$h' IDENTIFIED BY '$DB_PASSWORD';"
    sql+="GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'$h' WITH GRANT OPTION;"
  done
  root_sql "$i" "$sql" || die "could not create the databases and user on s$i"
}

# verify i: as the tests connect (TCP, $DB_USER): right port, every database.
# Prints nothing; returns 1 when something is missing.
verify() {
  local i=$1 want got
  want="${PORTS[$i]} $(tr ' ' '\n' <<<"${DATABASES[$i]}" | LC_ALL=C sort | tr '\n' ' ')"
  got=$(tcp_sql "$i" "SELECT CONCAT(@@port, ' ', COALESCE((SELECT GROUP_CONCAT(schema_name ORDER BY schema_name SEPARATOR ' ')
    FROM information_schema.schemata WHERE schema_name IN ('$(sed "s/ /','/g" <<<"${DATABASES[$i]}")')), ''), ' ')" 2>/dev/null) || return 1
  [ "$got" = "$want" ]
}

# wait_verified i: bounded wait for the TCP check (the first TCP accept can
# trail the socket by a moment).
wait_verified() {
  local i=$1 n=50 err
  until verify "$i"; do
    if ((n-- <= 0)); then
      err=$(tcp_sql "$i" "SELECT @@port" 2>&1 || true)
      log_tail "$i"
      die "s$i does not accept $DB_USER at 127.0.0.1:${PORTS[$i]} with databases ${DATABASES[$i]}: $err"
    fi
    sleep 0.1
  done
}

# ---- the replica ----------------------------------------------------------

# slave_status: reads SHOW SLAVE STATUS of the replica into SLAVE_STATUS
# (one "Field: value" per line; empty when replication is not configured).
slave_status() {
  SLAVE_STATUS=$("$CLIENT" --no-defaults --socket="$(sock "$REPLICA")" -uroot -E -e "SHOW SLAVE STATUS" 2>/dev/null || true)
}

# slave_field NAME: the value of NAME in SLAVE_STATUS.
slave_field() {
  sed -n "s/^ *$1: //p" <<<"$SLAVE_STATUS" | head -n1
}

# provision_replica: the test account on the replica, outside its binlog
# (the same statements arrive from s0 later and are idempotent there).
provision_replica() {
  local sql="SET SESSION sql_log_bin=0;" h
  for h in 127.0.0.1 localhost; do
    sql+="CREATE USER IF NOT EXISTS '$DB_USER'@'$h' IDENTIFIED BY '$DB_PASSWORD';"
    sql+="ALTER USER '$DB_USER'@'$h' IDENTIFIED BY '$DB_PASSWORD';"
    sql+="GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'$h' WITH GRANT OPTION;"
  done
  root_sql "$REPLICA" "$sql" || die "could not create the user on the replica s$REPLICA"
}

# seed_replica: (re)start replication from scratch: a consistent dump of
# every user database of s0 (--single-transaction, with the GTID position
# it was taken at), loaded into the replica (old copies dropped), then
# CHANGE MASTER TO ... MASTER_USE_GTID=slave_pos from that position.
seed_replica() {
  local r=$REPLICA m=$REPLICA_OF t1 dbs gtid dump db
  t1=$(now_ms)
  dump=$(sdir "$r")/seed.sql
  root_sql "$m" "CREATE USER IF NOT EXISTS '$REPL_USER'@'127.0.0.1' IDENTIFIED BY '$REPL_PASSWORD';
    ALTER USER '$REPL_USER'@'127.0.0.1' IDENTIFIED BY '$REPL_PASSWORD';
    GRANT REPLICATION SLAVE ON *.* TO '$REPL_USER'@'127.0.0.1'" ||
    die "could not create the replication account on s$m"
  dbs=$(root_sql "$m" "SELECT schema_name FROM information_schema.schemata
    WHERE schema_name NOT IN ('mysql','information_schema','performance_schema','sys')") ||
    die "could not list the databases of s$m"
  root_sql "$r" "STOP SLAVE; RESET SLAVE ALL" || die "could not stop replication on s$r"
  # Old copies go: the dump recreates them as of its GTID position.
  for db in $(root_sql "$r" "SELECT schema_name FROM information_schema.schemata
    WHERE schema_name NOT IN ('mysql','information_schema','performance_schema','sys')"); do
    root_sql "$r" "SET SESSION sql_log_bin=0; DROP DATABASE \`$db\`" || die "could not drop $db on s$r"
  done
  # shellcheck disable=SC2086 # one word per database
  "$DUMP" --no-defaults --socket="$(sock "$m")" -uroot --single-transaction --master-data=2 --gtid \
    --routines --events --triggers --databases $dbs >"$dump" 2>"$dump.err" ||
    die "mariadb-dump of s$m failed: $(cat "$dump.err")"
  gtid=$(sed -n "s/^-- SET GLOBAL gtid_slave_pos='\([^']*\)'.*/\1/p" "$dump" | head -n1)
  { echo "SET SESSION sql_log_bin=0;"; cat "$dump"; } |
    "$CLIENT" --no-defaults --socket="$(sock "$r")" -uroot ||
    die "could not load the dump of s$m into s$r ($dump)"
  root_sql "$r" "SET GLOBAL gtid_slave_pos='$gtid';
    CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${PORTS[$m]},
      MASTER_USER='$REPL_USER', MASTER_PASSWORD='$REPL_PASSWORD',
      MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1;
    START SLAVE" || die "could not start replication on s$r"
  rm -f "$dump" "$dump.err"
  touch "$(datadir "$r")/.shardgen-seeded"
  log "s$r seeded from s$m at GTID ${gtid:-(empty)} ($(wc -w <<<"$dbs") databases) in $(elapsed "$t1")"
}

# wait_replicating: bounded wait until both replication threads run.
# Returns 1 at once when replication reports an error (e.g. s0's binlog no
# longer holds the replica's position, or an event failed to apply).
wait_replicating() {
  local n=$((START_TIMEOUT * 10))
  while :; do
    slave_status
    [ -n "$SLAVE_STATUS" ] || return 1
    if [ "$(slave_field Slave_IO_Running)" = Yes ] && [ "$(slave_field Slave_SQL_Running)" = Yes ]; then
      return 0
    fi
    if [ "$(slave_field Last_IO_Errno)" != 0 ] || [ "$(slave_field Last_SQL_Errno)" != 0 ]; then
      log "s$REPLICA replication error: $(slave_field Last_IO_Error)$(slave_field Last_SQL_Error)"
      return 1
    fi
    if [ "$(slave_field Slave_SQL_Running)" = No ] && [ "$(slave_field Slave_IO_Running)" = No ]; then
      root_sql "$REPLICA" "START SLAVE" >/dev/null 2>&1 || true
    fi
    ((n-- > 0)) || return 1
    sleep 0.1
  done
}

# replica_up: the replica (already started by cmd_up) is provisioned and
# replicating: seeded on first use, re-seeded when replication broke.
replica_up() {
  local r=$REPLICA
  if [ ! -f "$(datadir "$r")/.shardgen-seeded" ]; then
    provision_replica
    seed_replica
  fi
  if ! wait_replicating; then
    log "s$r is not replicating; re-seeding it from s$REPLICA_OF"
    provision_replica
    seed_replica
    wait_replicating || {
      log_tail "$r"
      die "s$r does not replicate from s$REPLICA_OF: $(slave_field Last_IO_Error)$(slave_field Last_SQL_Error)"
    }
  fi
  wait_verified "$r"
  log "s$r up: 127.0.0.1:${PORTS[$r]} pid $(ours "$r" || echo '?') server_id $((r + 1)) read_only replica of s$REPLICA_OF (GTID $(root_sql "$r" "SELECT @@gtid_slave_pos" 2>/dev/null))"
}

cmd_up() {
  local t0 i pid todo=() fresh=() pids=() rc
  t0=$(now_ms)
  check_inputs
  find_binaries || install_mariadb
  mkdir -p "$BASE"

  for i in $(seq 0 $((NALL - 1))); do
    if pid=$(ours "$i"); then
      # Running (or still starting): it must answer on its socket.
      STARTED_PID[$i]=$pid
      wait_ready "$i"
      [ "$i" != "$REPLICA" ] || continue # replica_up checks it
      if ! verify "$i"; then
        local p
        p=$(root_sql "$i" "SELECT @@port" 2>/dev/null || echo "?")
        [ "$p" = "${PORTS[$i]}" ] ||
          die "s$i (pid $pid) runs on port $p, not SHARDGEN_DB_PORT_$i=${PORTS[$i]}; run 'make db-down' first"
        provision "$i"
        wait_verified "$i"
        log "s$i was running on port ${PORTS[$i]} (pid $pid); recreated its databases/user"
      fi
      continue
    fi
    if port_busy "${PORTS[$i]}"; then
      die "port ${PORTS[$i]} on 127.0.0.1 is in use by a process this script did not start;
    free it or choose another port with SHARDGEN_DB_PORT_$i"
    fi
    todo+=("$i")
    mkdir -p "$(sdir "$i")"
    [ -f "$(datadir "$i")/.shardgen-initialized" ] || fresh+=("$i")
  done

  if [ ${#todo[@]} = 0 ]; then
    replica_up
    log "already up: ${NALL} servers on ports ${PORTS[*]} ($(elapsed "$t0"))"
    return 0
  fi

  # Initialise new data dirs in parallel.
  if [ ${#fresh[@]} -gt 0 ]; then
    local t1
    t1=$(now_ms)
    for i in "${fresh[@]}"; do
      init_datadir "$i" &
      pids+=($!)
    done
    rc=0
    for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
    [ "$rc" = 0 ] || die "could not initialise the data dirs"
    log "initialised data dirs for$(printf ' s%s' "${fresh[@]}") in $(elapsed "$t1")"
  fi

  for i in "${todo[@]}"; do start_server "$i"; done
  for i in "${todo[@]}"; do
    wait_ready "$i"
    [ "$i" != "$REPLICA" ] || continue # replica_up provisions it
    verify "$i" || provision "$i"
    wait_verified "$i"
    log "s$i up: 127.0.0.1:${PORTS[$i]} pid $(ours "$i" || echo '?') server_id $((i + 1)) databases: ${DATABASES[$i]}"
  done
  replica_up
  log "up in $(elapsed "$t0") (user $DB_USER, data in ${BASE#"$ROOT"/})"
}

cmd_down() {
  local i pid
  find_binaries || true
  for i in $(seq $((NALL - 1)) -1 0); do # the replica first
    if ! pid=$(ours "$i"); then
      rm -f "$(pidfile "$i")"
      log "s$i not running"
      continue
    fi
    # SHUTDOWN over the socket returns at once (mariadb-admin shutdown polls
    # the pid file once a second); then watch the process itself.
    if [ -n "${CLIENT:-}" ]; then
      timeout 30 "$CLIENT" --no-defaults --socket="$(sock "$i")" -uroot --connect-timeout=2 -e SHUTDOWN \
        >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
    else
      kill "$pid" 2>/dev/null || true
    fi
    if ! wait_gone "$pid" 30; then
      log "s$i (pid $pid) ignored shutdown; sending SIGTERM"
      kill "$pid" 2>/dev/null || true
      wait_gone "$pid" 20 || { kill -9 "$pid" 2>/dev/null || true; }
    fi
    rm -f "$(pidfile "$i")"
    log "s$i stopped (pid $pid, port ${PORTS[$i]}); data kept in ${BASE#"$ROOT"/}/s$i"
  done
}

cmd_status() {
  local i pid down=0 info
  find_binaries || true
  for i in $(seq 0 $((NALL - 1))); do
    if pid=$(ours "$i") && [ -n "${CLIENT:-}" ] &&
      info=$(root_sql "$i" "SELECT CONCAT('port ', @@port, '  server_id ', @@server_id, '  ', VERSION(), '  databases: ',
        COALESCE((SELECT GROUP_CONCAT(schema_name ORDER BY schema_name SEPARATOR ' ') FROM information_schema.schemata
        WHERE schema_name NOT IN ('mysql','information_schema','performance_schema','sys')), '-'))" 2>/dev/null); then
      echo "s$i  running  pid $pid  $info"
      if [ "$i" = "$REPLICA" ]; then
        slave_status
        echo "    replica of s$REPLICA_OF: io $(slave_field Slave_IO_Running)  sql $(slave_field Slave_SQL_Running)" \
          " gtid_slave_pos $(root_sql "$i" "SELECT @@gtid_slave_pos" 2>/dev/null || echo '?')" \
          " behind $(slave_field Seconds_Behind_Master)s$(
            e=$(slave_field Last_IO_Error)$(slave_field Last_SQL_Error)
            [ -z "$e" ] || echo "  error: $e"
          )"
        [ "$(slave_field Slave_IO_Running)/$(slave_field Slave_SQL_Running)" = Yes/Yes ] || down=1
      fi
    elif pid=$(ours "$i"); then
      echo "s$i  not answering  pid $pid  port ${PORTS[$i]}  (log: $(errlog "$i"))"
      down=1
    else
      echo "s$i  stopped  port ${PORTS[$i]}  (data dir: $([ -d "$(datadir "$i")" ] && echo "${BASE#"$ROOT"/}/s$i/data" || echo none))"
      down=1
    fi
  done
  return "$down"
}

cmd_clean() {
  cmd_down
  rm -rf "$BASE"
  log "removed ${BASE#"$ROOT"/}"
}

usage() {
  echo "usage: scripts/db.sh up|down|status|clean" >&2
  exit 2
}

declare -a STARTED_PID=()
[ $# = 1 ] || usage
case $1 in up | down | status | clean) ;; *) usage ;; esac

# One db.sh at a time per checkout: parallel `make test` runs would race.
mkdir -p "$BASE"
exec 9>"$BASE/.lock"
if command -v flock >/dev/null 2>&1; then
  flock -w 600 9 || die "another scripts/db.sh holds $BASE/.lock for over 10 minutes"
fi

case $1 in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
clean) cmd_clean ;;
esac
