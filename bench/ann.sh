#!/usr/bin/env bash
# ANN benchmark: approximate top-10 by cosine over 1M x 384 vectors —
# dbmcp's HNSW (core/hnsw.h) against exact search (core/vector.h, the
# truth) and against FAISS 1.7.3 (IndexHNSWFlat) and hnswlib 0.6.2 used
# directly through their Debian Python bindings, on the same vectors, with
# the same graph parameters, side by side in one run. Entry point of
# `make bench-ann`; see bench/README.md, "ANN benchmark".
#
# The vectors are synthetic (see bench/ann/ann_bench.c): no real
# embedding set of this size can be fetched on the benchmark machine.
# Exits 0 whether or not the goal is met (a measurement, not a test).
#
# Environment:
#   BENCH_ANN    the bench program (default build/bench/ann_bench)
#   BENCH_ARGS   options of ann_bench (default: --n 1000000 --dim 384 --queries 200)
#   BENCH_EF     ef values searched (default 16,32,64,128)
#   BENCH_BUILD_THREADS  threads the peers may build with (default 2)
#   BENCH_DIR    where the vectors are written (default a temporary directory, removed)
#   BENCH_OUT    where the table is also written (default build/bench/ann-results.txt)
set -euo pipefail
cd "$(dirname "$0")/.."

prog=${BENCH_ANN:-build/bench/ann_bench}
out=${BENCH_OUT:-build/bench/ann-results.txt}
ef=${BENCH_EF:-16,32,64,128}
[ -x "$prog" ] || { echo "bench-ann: $prog not built (run \`make bench-ann\`)" >&2; exit 1; }
/usr/bin/python3 -c 'import faiss, hnswlib, numpy' 2>/dev/null ||
  { echo "bench-ann: needs python3-faiss, python3-hnswlib and python3-numpy (scripts/deps.sh)" >&2; exit 1; }
dir=${BENCH_DIR:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d /tmp/bench-ann.XXXXXX)
  trap 'rm -rf "$dir"' EXIT
fi
args=${BENCH_ARGS:---n 1000000 --dim 384 --queries 200}
dim=$(echo "$args" | sed -n 's/.*--dim \([0-9]*\).*/\1/p'); dim=${dim:-384}
mkdir -p "$(dirname "$out")"
{
  echo "bench-ann: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%FT%TZ)"
  # shellcheck disable=SC2086
  "$prog" --out "$dir" --ef "$ef" $args
  /usr/bin/python3 bench/ann/peers.py "$dir" "$dim" 16 100 "$ef" "${BENCH_BUILD_THREADS:-2}"
  echo "bench-ann: goal: p50 <= 2 ms at recall >= 0.95 (1M x 384); dbmcp builds on 1 thread, the peers on ${BENCH_BUILD_THREADS:-2}"
} | tee "$out"
