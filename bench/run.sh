#!/usr/bin/env bash
# Performance benchmark: dbmcp vs. an echo server on the official MCP
# TypeScript SDK, side by side in one run. Entry point of `make bench`;
# see bench/README.md for what is measured and how to read it.
#
# Exits 0 whether or not the goals are met (this is a measurement, not a
# test); exits non-zero, loudly, when a server cannot be built, set up or
# started, or answers wrongly.
#
# Environment:
#   DBMCP        dbmcp binary (default build/dbmcp)
#   BENCH_OUT    JSON results file (default build/bench/results.json)
#   BENCH_ARGS   extra driver options, e.g. "--n 5000 --http-seconds 10"
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

fail() {
  echo "bench: FATAL: $*" >&2
  exit 1
}

dbmcp=${DBMCP:-build/dbmcp}
out=${BENCH_OUT:-build/bench/results.json}

[ -x "$dbmcp" ] || fail "$dbmcp not found or not executable (run \`make\` first)"
dbmcp=$(realpath "$dbmcp")
command -v node >/dev/null 2>&1 || fail "node not found (scripts/deps.sh installs it)"
[ "$(getconf CLK_TCK)" = 100 ] || fail "CLK_TCK is $(getconf CLK_TCK), the driver assumes 100"

# The Node peer's dependencies, pinned by bench/node/package-lock.json.
if ! (cd bench/node && node -e "import('@modelcontextprotocol/sdk/server/mcp.js')" >/dev/null 2>&1); then
  echo "bench: installing the Node peer's packages (npm ci in bench/node)" >&2
  (cd bench/node && npm ci --no-audit --no-fund >&2) || fail "npm ci in bench/node failed"
fi

# A small helper that reads another process's CPU clock with ns resolution
# (/proc/PID/stat counts 10 ms ticks). Without it the driver falls back to /proc.
helper=build/bench/cpuclock
mkdir -p build/bench
if [ ! -x "$helper" ] || [ bench/cpuclock.c -nt "$helper" ]; then
  ${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$helper" bench/cpuclock.c ||
    echo "bench: warning: cannot build $helper; CPU figures fall back to /proc" >&2
fi

# The floor: a C program that only reads each line and writes a canned
# echo answer (bench/stdio_floor.c), run in the stdio phase beside the two
# servers: the kernel's and the pipe's share of a call on this machine.
floor=build/bench/stdio_floor
if [ ! -x "$floor" ] || [ bench/stdio_floor.c -nt "$floor" ]; then
  ${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$floor" bench/stdio_floor.c ||
    fail "cannot build $floor"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$dbmcp" init --db "$tmp/bench.db" >"$tmp/init.log" 2>&1 || {
  cat "$tmp/init.log" >&2
  fail "\`$dbmcp init --db $tmp/bench.db\` failed"
}

# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
node bench/driver.mjs \
  --dbmcp "$dbmcp" \
  --db "$tmp/bench.db" \
  --node-server "$root/bench/node/echo-server.mjs" \
  --out "$out" \
  --cpuclock "$root/$helper" \
  --floor "$root/$floor" \
  ${BENCH_ARGS:-} || fail "the benchmark driver failed (see above)"
