#!/usr/bin/env bash
# Memory benchmark: retrieval quality of agent memory on a generated long
# multi-session conversation (recall@5, recall@10, MRR of the message that
# holds the answer, keyword-only against hybrid; as-of accuracy for facts
# that changed), then write throughput, embedding backlog and search latency
# with 100k messages in one scope. Everything goes through
# `dbmcp serve --http` with an API key. See bench/README.md, "Memory
# benchmark".
#
# Exits 0 whether or not hybrid wins (a measurement, not a test); exits
# non-zero, loudly, when dbmcp cannot be set up, started or answers wrongly.
#
# Environment:
#   DBMCP        dbmcp binary (default build/dbmcp)
#   BENCH_ARGS   driver options, e.g. "--seeds 42,7 --scale 20000" (default:
#                seeds 42,7,2026, 60 sessions each, --scale 100000); the searches
#                alone on a database loaded before: "--reuse DB --peer OLD --rounds 2"
#   BENCH_OUT    JSON results (default build/bench/memory-results.json)
#   DBMCP_TEST_PG  a PostgreSQL server's base URI: the scale part runs on a
#                fresh database there (BENCH_ARGS must hold --only scale)
#
# Before the driver, bench/write_floor.c prints the physical floor under
# save_message on this disk: fdatasync calls per second and bare SQLite
# inserts per second (one row per commit and 128, synchronous NORMAL and FULL).
set -euo pipefail

cd "$(dirname "$0")/.."

fail() {
  echo "bench-memory: FATAL: $*" >&2
  exit 1
}

dbmcp=${DBMCP:-build/dbmcp}
out=${BENCH_OUT:-build/bench/memory-results.json}
[ -x "$dbmcp" ] || fail "$dbmcp not found (run \`make\` first)"
command -v node >/dev/null 2>&1 || fail "node not found (scripts/deps.sh installs it)"
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

floor=build/bench/write_floor
if [ ! -x "$floor" ] || [ bench/write_floor.c -nt "$floor" ]; then
  ${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$floor" bench/write_floor.c -lsqlite3 ||
    fail "cannot build $floor"
fi
echo "bench-memory: the floor on this disk ($work): operations per second, CPU µs per operation" >&2
"$floor" "$work" 1 | tee "$work/floor.json"

# The stock FTS5 peer of the keyword searches (fts5_peer.c), for --reuse runs.
peer_bin=build/bench/fts5_peer
if [ ! -x "$peer_bin" ] || [ bench/memory/fts5_peer.c -nt "$peer_bin" ]; then
  ${CC:-cc} -O2 -o "$peer_bin" bench/memory/fts5_peer.c -lsqlite3 || fail "cannot build $peer_bin"
fi
# shellcheck disable=SC2086
node bench/memory/run.mjs --dbmcp "$(realpath "$dbmcp")" --work "$work" --out "$out" --fts5-peer "$(realpath "$peer_bin")" ${BENCH_ARGS:---seeds 42,7,2026}
echo "bench-memory: results in $out" >&2
