#!/usr/bin/env bash
# ingest.sh — ingestion throughput: MB/s of text turned into searchable
# chunks (extracted, split, embedded with the builtin embedder, written
# with their full-text rows and vectors in one transaction) by
# `dbmcp ingest`. See bench/README.md, section "Ingestion throughput".
#
# The corpus is built from the demo's eighteen Tarifvertrag documents
# (German Markdown, plus English, Japanese and Chinese summaries): FILES
# Markdown files of about FILE_KB KiB each, every file a different
# rotation of the documents under its own heading, so no two files are
# equal. Then, each timed with the wall clock:
#   1. ingest of every file (structure chunking, 200 tokens)
#   2. the same again: every file unchanged, a no-op (hashing only)
#   3. ingest into a second collection with --chunk tokens --max-tokens 200 --overlap 40
# Measures, does not test: exits 0 whatever the figures.
#
# Environment: DBMCP (default build/dbmcp), FILES (200), FILE_KB (64).
set -euo pipefail

cd "$(dirname "$0")/.."
bin=${DBMCP:-build/dbmcp}
[ -x "$bin" ] || { echo "bench/ingest: $bin not built (run make)" >&2; exit 1; }
bin=$(realpath "$bin")
files=${FILES:-200}
file_kb=${FILE_KB:-64}
command -v sqlite3 >/dev/null || { echo "bench/ingest: sqlite3 is required" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" init --demo --db "$work/src.db" 2>/dev/null
mkdir -p "$work/docs/src" "$work/corpus"
n=0
while IFS= read -r slug; do
  sqlite3 "$work/src.db" "SELECT content FROM dbmcp_documents WHERE slug = '$slug'" >"$work/docs/src/$n.md"
  n=$((n + 1))
done < <(sqlite3 "$work/src.db" "SELECT slug FROM dbmcp_documents ORDER BY slug")

sizes=()
for ((i = 0; i < n; i++)); do sizes+=("$(stat -c %s "$work/docs/src/$i.md")"); done
for ((f = 0; f < files; f++)); do
  out="$work/corpus/doc-$f.md"
  printf '# Sammlung %d\n\n' "$f" >"$out"
  i=$f
  size=0
  while [ "$size" -lt $((file_kb * 1024)) ]; do
    cat "$work/docs/src/$((i % n)).md" >>"$out"
    printf '\n' >>"$out"
    size=$((size + ${sizes[$((i % n))]} + 1))
    i=$((i + 7))
  done
done
bytes=$(cat "$work/corpus"/*.md | wc -c)

"$bin" init --db "$work/bench.db" 2>/dev/null
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

# timed CMD…: "wall cpu" seconds (cpu = user + system of the command), so a
# busy shared machine shows in the wall figure but not in the CPU one.
timed() {
  local TIMEFORMAT='%R %U %S' t
  t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  read -r wall user sys <<<"$t"
  echo "$wall $(calc "$user + $sys")"
}

mb=$(calc "$bytes / 1048576")
row() { # label "wall cpu" chunks
  local wall cpu
  read -r wall cpu <<<"$2"
  printf '%-44s %7.2f %7.2f %9.2f %9.2f %8s\n' "$1" "$wall" "$cpu" "$(calc "$mb / $wall")" \
    "$(calc "$mb / $cpu")" "$3"
}

t_ingest=$(timed "$bin" ingest "$work/corpus" --db "$work/bench.db" --collection bench)
chunks=$(sqlite3 "$work/bench.db" "SELECT count(*) FROM dbmcp_chunks")
t_noop=$(timed "$bin" ingest "$work/corpus" --db "$work/bench.db" --collection bench)
t_tokens=$(timed "$bin" ingest "$work/corpus" --db "$work/bench.db" --collection bench_tokens \
  --chunk tokens --max-tokens 200 --overlap 40)
chunks_tokens=$(sqlite3 "$work/bench.db" "SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id WHERE d.collection = 'bench_tokens'")
db_mb=$(calc "$(stat -c %s "$work/bench.db") / 1048576")

printf 'corpus: %d Markdown files, %.1f MB of text (de/en/ja/zh demo documents)\n' "$files" "$mb"
printf 'cpu: %s, %s cores, load average %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" \
  "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
printf '%-44s %7s %7s %9s %9s %8s\n' "run" "wall s" "cpu s" "MB/s wall" "MB/s cpu" "chunks"
row "ingest, structure chunking (200 tokens)" "$t_ingest" "$chunks"
row "re-ingest unchanged (no-op, hash only)" "$t_noop" "-"
row "ingest, token chunking (200, overlap 40)" "$t_tokens" "$chunks_tokens"
printf 'database after both collections: %.1f MB\n' "$db_mb"
