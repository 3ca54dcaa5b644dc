#!/usr/bin/env bash
# Installs what the tests need besides MariaDB (scripts/db.sh installs that):
# Debian's sysbench, which the proxy's sysbench test drives, and checks for
# node and npm (the mysql2 smoke test installs mysql2 from npm itself).
# As root with apt it installs what is missing; otherwise it says what to
# install and fails, so a test that needs a tool never silently skips.
set -euo pipefail
missing=()
command -v sysbench >/dev/null 2>&1 || missing+=(sysbench)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: missing ${missing[*]}: install them (Debian: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
mkdir -p .local
log=.local/apt-test-deps.log
echo "test-deps: installing ${missing[*]} with apt-get (log: $log)"
if ! { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}"; } >"$log" 2>&1; then
  echo "test-deps: apt-get failed; see $log" >&2
  tail -20 "$log" >&2
  exit 1
fi
