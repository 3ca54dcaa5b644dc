#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a short time each ($1, e.g. 10s).
# go test -fuzz accepts one target per run, so list them per package first.
set -euo pipefail
fuzztime=${1:-10s}
cd "$(dirname "$0")/.."
found=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    found=1
    echo "fuzz: $pkg $target ($fuzztime)"
    go test -run '^$' -parallel 1 -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
  done
done
[ "$found" = 1 ] || echo "fuzz: no fuzz targets yet"
