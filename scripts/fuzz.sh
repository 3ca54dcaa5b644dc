#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a bounded number of executions
# each ($1, default 20000x: seconds per target here; a duration such as
# 10s works too). A count, not a duration: Go 1.26's fuzz coordinator can
# fail a duration-bounded run with a bare "context deadline exceeded" when
# the deadline races a busy worker (golang/go#75804, fixed in Go 1.27); a
# count has no deadline to race. Minimising a new input is bounded the same
# way. go test -fuzz accepts one target per run, so list them per package
# first.
set -euo pipefail
fuzztime=${1:-20000x}
cd "$(dirname "$0")/.."
found=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    found=1
    echo "fuzz: $pkg $target ($fuzztime)"
    go test -run '^$' -parallel 1 -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 200x "$pkg"
  done
done
[ "$found" = 1 ] || echo "fuzz: no fuzz targets yet"
