#!/usr/bin/env bash
# Vector benchmark: exact top-10 over random 384-dimensional vectors,
# dbmcp's vec_index (float32, and int8 with float32 rescoring) against
# sqlite-vec (npm sqlite-vec-linux-x64, its vec0.so loaded into the system
# SQLite) and against the memory-bandwidth bound, side by side in one run.
# Entry point of `make bench-vector`; see bench/README.md, "Vector benchmark".
#
# Exits 0 whether or not the goals are met (this is a measurement, not a
# test); exits non-zero, loudly, when sqlite-vec cannot be installed or
# loaded, or when it and vec_index disagree on an exact top 10.
#
# Environment:
#   BENCH_VECTOR   the bench program (default build/bench/vector_bench)
#   BENCH_ARGS     options, e.g. "--sizes 100000 --queries 50" (default:
#                  --sizes 100000,1000000 --dim 384; 50 queries per 100k
#                  rows, 10 per 1M, in each of 5 rounds)
#   BENCH_OUT      where the table is also written (default build/bench/vector-results.txt)
set -euo pipefail

cd "$(dirname "$0")/.."

fail() {
  echo "bench-vector: FATAL: $*" >&2
  exit 1
}

prog=${BENCH_VECTOR:-build/bench/vector_bench}
out=${BENCH_OUT:-build/bench/vector-results.txt}
[ -x "$prog" ] || fail "$prog not built (run \`make bench-vector\`)"
command -v npm >/dev/null 2>&1 || fail "npm not found (scripts/deps.sh installs node)"

# sqlite-vec, pinned by bench/vector/package-lock.json.
peer=bench/vector
vec0=$peer/node_modules/sqlite-vec-linux-x64/vec0
installed() {
  (cd "$peer" && node -p "require('./package.json').dependencies['sqlite-vec-linux-x64'] === \
    require('./node_modules/sqlite-vec-linux-x64/package.json').version" 2>/dev/null)
}
if [ ! -f "$vec0.so" ] || [ "$(installed)" != true ]; then
  echo "bench-vector: installing sqlite-vec (npm ci in $peer)" >&2
  (cd "$peer" && npm ci --no-audit --no-fund >&2) || fail "npm ci in $peer failed"
fi

mkdir -p "$(dirname "$out")"
echo "bench-vector: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%FT%TZ)"
# shellcheck disable=SC2086
"$prog" --vec0 "$vec0" ${BENCH_ARGS:-} | tee "$out"
echo "bench-vector: ratios are ours/sqlite-vec and ours/bound (qps); goals: f32/bnd >= 0.5, f32/vec0 >= 3, recall >= 0.95"
