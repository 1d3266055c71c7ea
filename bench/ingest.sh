#!/usr/bin/env bash
# ingest.sh — ingestion throughput and database size on real public text:
# MB of text per CPU second turned into searchable chunks by `dbmcp ingest`
# (extracted, split, embedded with the builtin embedder, written with their
# full-text rows and vectors in one transaction), and the database's size
# against the text it indexes. See bench/README.md, "Ingestion throughput".
#
# The corpus is the paragraphs of XQuAD (English, German, Chinese) and
# JSQuAD (Japanese) — Wikipedia text, professionally translated for XQuAD —
# from the cache bench/retrieval/extract.sh fills ($DBMCP_EVAL_DATA,
# default ~/.cache/dbmcp-eval): one Markdown file per article, its title as
# a heading, then its distinct paragraphs (203 files, 1.1 MB). Skipped with
# a message when the data is missing. Not generated text.
#
# Side by side in one run, ROUNDS fresh databases each (median CPU):
#   dbmcp            the build under test (DBMCP, default build/dbmcp)
#   dbmcp before     another build (DBMCP_BEFORE, e.g. one of main), if given
#   stock FTS5       the peer: the sqlite3 shell loading the same files into
#                    an FTS5 table (unicode61, content stored), one row per
#                    file — full-text only, no chunks, no vectors, no stems
#   floor            reading the files, and normalising their text once with
#                    core/textnorm (bench/textnorm_floor.c): the one pass
#                    over the text any ingestion with dbmcp's tokenizer makes
# Runs per dbmcp build: ingest with structure chunking (200 tokens), the same
# again (every file unchanged: read, extract, hash, no write), ingest into a
# second collection with token chunking (200, overlap 40).
# Measures, does not test: exits 0 whatever the figures.
#
# Run by `make bench-ingest`, which builds the floor's program.
# Environment: DBMCP, DBMCP_BEFORE, DBMCP_EVAL_DATA, ROUNDS (3),
# TEXTNORM_FLOOR (default build/bench/textnorm_floor).
set -euo pipefail

cd "$(dirname "$0")/.."
bin=${DBMCP:-build/dbmcp}
[ -x "$bin" ] || { echo "bench/ingest: $bin not built (run make)" >&2; exit 1; }
bin=$(realpath "$bin")
before=${DBMCP_BEFORE:-}
[ -z "$before" ] || { [ -x "$before" ] && before=$(realpath "$before"); } ||
  { echo "bench/ingest: DBMCP_BEFORE=$before is not executable" >&2; exit 1; }
rounds=${ROUNDS:-3}
data=${DBMCP_EVAL_DATA:-$HOME/.cache/dbmcp-eval}
for f in xquad/xquad.en.json xquad/xquad.de.json xquad/xquad.zh.json jsquad/valid-v1.3.json; do
  if [ ! -f "$data/$f" ]; then
    echo "bench/ingest: skipped: $data/$f is missing." >&2
    echo "  Get the data sets with: bench/retrieval/extract.sh --xquad REPO --jglue REPO" >&2
    exit 0
  fi
done
command -v node >/dev/null || { echo "bench/ingest: node is required (scripts/deps.sh)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "bench/ingest: sqlite3 is required (the FTS5 peer)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
node - "$data" "$work/corpus" <<'EOF'
const fs = require("fs");
const [data, out] = process.argv.slice(2);
const sets = [["xquad-en", "xquad/xquad.en.json"], ["xquad-de", "xquad/xquad.de.json"],
              ["xquad-zh", "xquad/xquad.zh.json"], ["jsquad", "jsquad/valid-v1.3.json"]];
for (const [name, file] of sets) {
  const d = JSON.parse(fs.readFileSync(`${data}/${file}`, "utf8"));
  d.data.forEach((article, i) => {
    const paragraphs = [...new Set(article.paragraphs.map((p) => p.context))];
    const text = (article.title ? `# ${article.title}\n\n` : "") + paragraphs.join("\n\n") + "\n";
    fs.writeFileSync(`${out}/${name}-${String(i).padStart(3, "0")}.md`, text);
  });
}
EOF
files=$(find "$work/corpus" -name '*.md' | wc -l)
bytes=$(cat "$work/corpus"/*.md | wc -c)

floor=${TEXTNORM_FLOOR:-build/bench/textnorm_floor}
[ -x "$floor" ] || { echo "bench/ingest: $floor not built (make bench-ingest builds it)" >&2; exit 1; }

calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# cpu CMD…: CPU seconds (user + system) of the command; its output is dropped.
cpu() {
  local TIMEFORMAT='%U %S' t user sys
  t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
  read -r user sys <<<"$t"
  calc "$user + $sys"
}
size() { local s=0 f; for f in "$1" "$1-wal"; do [ -f "$f" ] && s=$((s + $(stat -c %s "$f"))); done; echo "$s"; }
mb=$(calc "$bytes / 1048576")

# dbmcp_runs LABEL BIN: ROUNDS fresh databases; prints one table row per run and the size.
declare -A result
dbmcp_runs() {
  local label=$1 b=$2 r db c1=() c2=() c3=() empty=0 full=0 chunks=0
  for ((r = 0; r < rounds; r++)); do
    db="$work/$label-$r.db"
    "$b" init --db "$db" >/dev/null 2>&1
    empty=$(size "$db")
    c1+=("$(cpu "$b" ingest "$work/corpus" --db "$db" --collection bench)")
    full=$(size "$db")
    c2+=("$(cpu "$b" ingest "$work/corpus" --db "$db" --collection bench)")
    c3+=("$(cpu "$b" ingest "$work/corpus" --db "$db" --collection bench_tokens --chunk tokens --max-tokens 200 --overlap 40)")
    chunks=$(sqlite3 "$db" "SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id WHERE d.collection = 'bench'")
    rm -f "$db" "$db-wal" "$db-shm"
  done
  result[$label.ingest]=$(printf '%s\n' "${c1[@]}" | median)
  result[$label.noop]=$(printf '%s\n' "${c2[@]}" | median)
  result[$label.tokens]=$(printf '%s\n' "${c3[@]}" | median)
  result[$label.empty]=$empty
  result[$label.full]=$full
  result[$label.chunks]=$chunks
}

fts5_runs() {
  local r db c=() full=0
  for ((r = 0; r < rounds; r++)); do
    db="$work/fts5-$r.db"
    {
      echo "CREATE VIRTUAL TABLE docs USING fts5(name, body, tokenize = 'unicode61');"
      echo "BEGIN;"
      for f in "$work/corpus"/*.md; do
        echo "INSERT INTO docs (name, body) VALUES ('$(basename "$f")', CAST(readfile('$f') AS TEXT));"
      done
      echo "COMMIT;"
    } >"$work/fts5.sql"
    c+=("$(cpu sqlite3 "$db" ".read $work/fts5.sql")")
    full=$(size "$db")
    rm -f "$db"
  done
  result[fts5.ingest]=$(printf '%s\n' "${c[@]}" | median)
  result[fts5.full]=$full
}

floor_runs() {
  local r out read=() norm=()
  for ((r = 0; r < rounds; r++)); do
    out=$("$floor" "$work/corpus"/*.md)
    read -r rd nm _ _ <<<"$out"
    read+=("$rd")
    norm+=("$nm")
  done
  result[floor.read]=$(printf '%s\n' "${read[@]}" | median)
  result[floor.norm]=$(printf '%s\n' "${norm[@]}" | median)
}

dbmcp_runs dbmcp "$bin"
[ -z "$before" ] || dbmcp_runs before "$before"
fts5_runs
floor_runs

printf 'corpus: %d Markdown files, %.2f MB of text (XQuAD en/de/zh, JSQuAD paragraphs)\n' "$files" "$mb"
printf 'cpu: %s, %s cores, load average %s; median of %d rounds, CPU = user + system\n' \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" "$(nproc)" \
  "$(cut -d' ' -f1 /proc/loadavg)" "$rounds"
printf '%-52s %8s %10s %14s\n' "run" "cpu s" "MB/cpu-s" "cpu ÷ dbmcp's"
row() { # label seconds [reference seconds]
  local ratio="-"
  [ -z "${3:-}" ] || ratio=$(printf '%.3f' "$(calc "$2 / $3")")
  printf '%-52s %8.3f %10.2f %14s\n' "$1" "$2" "$(calc "$mb / $2")" "$ratio"
}
row "dbmcp: ingest, structure chunking (200 tokens)" "${result[dbmcp.ingest]}"
[ -z "$before" ] || row "dbmcp before: the same" "${result[before.ingest]}" "${result[dbmcp.ingest]}"
row "dbmcp: re-ingest unchanged (read, extract, hash)" "${result[dbmcp.noop]}"
[ -z "$before" ] || row "dbmcp before: the same" "${result[before.noop]}" "${result[dbmcp.noop]}"
row "dbmcp: ingest, token chunking (200, overlap 40)" "${result[dbmcp.tokens]}"
[ -z "$before" ] || row "dbmcp before: the same" "${result[before.tokens]}" "${result[dbmcp.tokens]}"
row "stock FTS5 (sqlite3 shell, unicode61, no vectors)" "${result[fts5.ingest]}" "${result[dbmcp.ingest]}"
row "floor: read the files" "${result[floor.read]}" "${result[dbmcp.ingest]}"
row "floor: read + normalise once (core/textnorm)" "$(calc "${result[floor.read]} + ${result[floor.norm]}")" \
  "${result[dbmcp.ingest]}"
echo "(cpu ÷ dbmcp's: the row's CPU over that of the dbmcp run above it (its structure ingest for the peer and the floor))"

printf '\n%-52s %8s %10s %12s\n' "database after the structure ingest" "MB" "× text" "× (- empty)"
srow() { # label bytes empty-bytes
  printf '%-52s %8.2f %10.2f %12s\n' "$1" "$(calc "$2 / 1048576")" "$(calc "$2 / $bytes")" \
    "$([ -n "${3:-}" ] && printf '%.2f' "$(calc "($2 - $3) / $bytes")" || echo -)"
}
srow "dbmcp (${result[dbmcp.chunks]} chunks)" "${result[dbmcp.full]}" "${result[dbmcp.empty]}"
[ -z "$before" ] || srow "dbmcp before" "${result[before.full]}" "${result[before.empty]}"
srow "stock FTS5 (text + index, no vectors)" "${result[fts5.full]}"
vec=$((result[dbmcp.chunks] * 384 * 4))
srow "  of dbmcp's: the vectors alone (384 float32 per chunk)" "$vec"
echo "(× (- empty): the database less a fresh \`dbmcp init\`'s, $(calc "${result[dbmcp.empty]} / 1048576" | cut -c1-4) MB of catalog)"
