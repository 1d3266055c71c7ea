#!/usr/bin/env bash
# Retrieval benchmark: dbmcp's search_documents and memory_search on real
# public data (XQuAD en/de/zh, JSQuAD, LoCoMo), each mode beside stock SQLite
# FTS5 BM25 computed in the same run, on a tuning half and a reporting half.
# See bench/README.md, "Retrieval benchmark"; the driver is run.mjs.
#
# The data sets are not in the repository: bench/retrieval/extract.sh puts
# them into $DBMCP_EVAL_DATA (default $HOME/.cache/dbmcp-eval). Missing ones
# are skipped with a message; with none at all this prints how to get them
# and exits 0.
#
# Exits 0 whatever the figures (a measurement, not a test); non-zero, loudly,
# when dbmcp cannot be set up, started or answers wrongly.
#
# Environment:
#   DBMCP        dbmcp binary (default build/dbmcp)
#   BENCH_ARGS   driver options, e.g. "--half report --sets xquad-en,locomo"
#   BENCH_OUT    JSON results (default build/bench/retrieval-results.json)
set -euo pipefail

cd "$(dirname "$0")/../.."

fail() {
  echo "bench-retrieval: FATAL: $*" >&2
  exit 1
}

dbmcp=${DBMCP:-build/dbmcp}
data=${DBMCP_EVAL_DATA:-$HOME/.cache/dbmcp-eval}
out=${BENCH_OUT:-build/bench/retrieval-results.json}
[ -x "$dbmcp" ] || fail "$dbmcp not found (run \`make\` first)"
command -v node >/dev/null 2>&1 || fail "node not found (scripts/deps.sh installs it)"
command -v sqlite3 >/dev/null 2>&1 || fail "the sqlite3 shell is required (the FTS5 baseline)"
if [ ! -d "$data" ]; then
  echo "bench-retrieval: skipped: no data in $data." >&2
  echo "  Get the data sets with: bench/retrieval/extract.sh --locomo REPO --xquad REPO --jglue REPO" >&2
  echo "  (git clones or mirrors of snap-research/locomo, google-deepmind/xquad, yahoojapan/JGLUE)" >&2
  exit 0
fi
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck disable=SC2086
node bench/retrieval/run.mjs --dbmcp "$(realpath "$dbmcp")" --data "$data" --work "$work" \
  --out "$out" ${BENCH_ARGS:-}
echo "bench-retrieval: results in $out" >&2
