#!/usr/bin/env bash
# Repair benchmark: dbmcp's response repair engine (src/core/json_repair.c) vs.
# the npm jsonrepair library, on the same corpus (tests/cases/repair), side
# by side in one run. Entry point of `make bench-repair`; see bench/README.md,
# "Repair benchmark".
#
# Exits 0 whether or not the goals are met (this is a measurement, not a
# test); exits non-zero, loudly, when a side cannot be built, installed or run.
#
# Environment:
#   BENCH_REPAIR   the C bench program (default: built by `make bench-repair`)
#   BENCH_SECONDS  wall time each tool loops over the corpus (default 3)
#   BENCH_OUT      JSON results file (default build/bench/repair-results.json)
set -euo pipefail

cd "$(dirname "$0")/.."

fail() {
  echo "bench-repair: FATAL: $*" >&2
  exit 1
}

command -v node >/dev/null 2>&1 || fail "node not found (scripts/deps.sh installs it)"

bench=${BENCH_REPAIR:-}
if [ -z "$bench" ]; then
  make -s build/bench/repair_bench >&2 || fail "cannot build build/bench/repair_bench"
  bench=build/bench/repair_bench
fi
[ -x "$bench" ] || fail "$bench not found or not executable"

# jsonrepair, pinned by bench/repair/package-lock.json.
peer=bench/repair
installed() {
  (cd "$peer" && node -p "require('./package.json').dependencies.jsonrepair === \
    require('./node_modules/jsonrepair/package.json').version" 2>/dev/null)
}
if [ "$(installed)" != true ]; then
  echo "bench-repair: installing jsonrepair (npm ci in $peer)" >&2
  (cd "$peer" && npm ci --no-audit --no-fund >&2) || fail "npm ci in $peer failed"
fi

node "$peer/run.mjs" --ours "$bench" --seconds "${BENCH_SECONDS:-3}" \
  --out "${BENCH_OUT:-build/bench/repair-results.json}" || fail "the runner failed"
