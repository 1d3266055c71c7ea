#!/usr/bin/env bash
# idle_cpu.sh — CPU time an idle `dbmcp serve --http` uses over a window.
#
#   bench/idle_cpu.sh [BIN] [SECONDS]      (defaults: build/dbmcp, 10)
#   DBMCP_TEST_PG=URL bench/idle_cpu.sh     the same on PostgreSQL
#   PGDATA=DIR (with DBMCP_TEST_PG)          also the CPU of that server's
#                                             processes (its backends answer
#                                             the polls)
#
# Starts the server on a fresh database (SQLite in a temp dir, or the
# PostgreSQL database given), lets it settle for 2 s, then reads its user +
# system CPU time from /proc/PID/stat at the start and the end of the window
# and prints the difference in milliseconds. Nothing calls the server
# meanwhile: what it uses is its background threads' (the memory worker's
# polling, the catalog listener's). It measures, it does not test.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/build/dbmcp}
SECS=${2:-10}
WORK=$(mktemp -d)
PID=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
# shellcheck source=tests/cli/serve_http.sh
. "$ROOT/tests/cli/serve_http.sh"
if [ -n "${DBMCP_TEST_PG:-}" ]; then
  DB=$DBMCP_TEST_PG
  engine=postgres
else
  DB=$WORK/idle.db
  engine=sqlite
fi
"$BIN" init --db "$DB" >/dev/null 2>&1 || true
serve_http_start "$WORK/serve.log" "$BIN" serve --db "$DB" --http 127.0.0.1:0 --no-auth || {
  cat "$WORK/serve.log" >&2
  exit 1
}
PID=$SERVE_PID
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
# "PID TICKS" of every process of the PostgreSQL server (postmaster and
# its children); pg_delta sums the ticks of the processes present at both
# reads (a backend that exits in between would count negative).
pg_ticks() {
  local pm p
  pm=$(head -1 "$PGDATA/postmaster.pid")
  for p in $pm $(pgrep -P "$pm"); do
    [ -r "/proc/$p/stat" ] && echo "$p $(awk '{print $14 + $15}' "/proc/$p/stat")"
  done
}
pg_delta() { awk 'NR == FNR { t[$1] = $2; next } ($1 in t) { s += $2 - t[$1] } END { print s + 0 }' "$1" "$2"; }
pg=0
[ "$engine" = postgres ] && [ -n "${PGDATA:-}" ] && pg=1
sleep 2
t0=$(ticks)
[ "$pg" = 1 ] && pg_ticks >"$WORK/pg0"
sleep "$SECS"
t1=$(ticks)
[ "$pg" = 1 ] && pg_ticks >"$WORK/pg1"
hz=$(getconf CLK_TCK)
echo "$engine idle serve: $(((t1 - t0) * 1000 / hz)) ms CPU in ${SECS} s"
if [ "$pg" = 1 ]; then
  echo "postgres server processes: $(($(pg_delta "$WORK/pg0" "$WORK/pg1") * 1000 / hz)) ms CPU in ${SECS} s"
fi
