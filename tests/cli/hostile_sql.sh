#!/usr/bin/env bash
# hostile_sql.sh — agent SQL bounded by cost, not by steps: the attack
# run's reproductions of "Bounded under attack" (time and memory of agent
# SQL), scaled to run in seconds, through `dbmcp call` (the dispatch path
# every MCP client takes).
#
# What the attack showed before the fix, with a 10 s limit: one call of
# embed() over 700 KB texts per row ran 126 s (316 s here with a 2 s
# limit); twenty nested upper/lower around hex(randomblob(8000000)) ran
# 69 s and took 4.7 GB. Each case below checks the answer the agent gets
# and bounds what the call took: wall time well past the limit means the
# watchdog failed, peak RSS past a few hundred MB means the budget failed.
# The bounds are ten times the limit or more, so a loaded machine passes.
#
# The agent SQL itself is SQLite's (randomblob, hex): these are attacks on
# that engine's functions; the database is reached through dbmcp only.
#
# Usage: tests/cli/hostile_sql.sh     (DBMCP=path/to/dbmcp for another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
[ -x "$BIN" ] || { echo "hostile_sql.sh: $BIN not built (run make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "hostile_sql.sh: /usr/bin/time is required (Debian package time)" >&2; exit 1; }
unset DBMCP_PRINCIPAL DBMCP_INTERFACE DBMCP_ALLOWED_TOOLS DBMCP_DB
# warn: the operator log line (stderr, captured) names the engine's reason.
export DBMCP_LOG=warn

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"

WORK="$(mktemp -d)"
trap 'test_db_cleanup; rm -rf "$WORK"' EXIT
DB="$(test_db hostile)" || exit 1
"$BIN" init --db "$DB" --demo 2>"$WORK/init.err" || { cat "$WORK/init.err" >&2; exit 1; }

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

setting() { db_sql "$DB" "UPDATE dbmcp_settings SET value = '$2' WHERE key = '$1'"; }

# call NAME QUERY: run execute_query; sets STATUS, OUT (stdout + stderr),
# SECS (wall seconds) and KB (peak RSS in KB).
call() {
  local args
  args="$(node -e 'process.stdout.write(JSON.stringify({query: process.argv[1]}))' "$2")"
  /usr/bin/time -f '%e %M' -o "$WORK/time" "$BIN" call --db "$DB" --interface chatbot \
    execute_query "$args" >"$WORK/out" 2>&1
  STATUS=$?
  OUT="$(cat "$WORK/out")"
  read -r SECS KB < <(tail -n 1 "$WORK/time") # time adds a line on a non-zero exit
}

# expect NAME STATUS TEXT MAX_SECS MAX_KB
expect() {
  local name=$1 status=$2 text=$3 max_s=$4 max_kb=$5
  if [ "$STATUS" != "$status" ]; then bad "$name" "exit $STATUS, want $status: $OUT"
  elif ! grep -qF -- "$text" <<<"$OUT"; then bad "$name" "output lacks '$text': $OUT"
  elif awk -v s="$SECS" -v m="$max_s" 'BEGIN { exit !(s > m) }'; then bad "$name" "took ${SECS}s (bound ${max_s}s)"
  elif [ "$KB" -gt "$max_kb" ]; then bad "$name" "peak RSS ${KB} KB (bound ${max_kb} KB)"
  else ok "$name (${SECS}s, ${KB} KB)"
  fi
}

setting query.timeout_ms 1000

# --- defaults -----------------------------------------------------------------
got="$(db_sql "$DB" "SELECT value FROM dbmcp_settings WHERE key IN ('query.max_value_bytes', 'query.max_memory_bytes') ORDER BY key")"
if [ "$got" = "$(printf '67108864\n1048576')" ]; then ok "defaults: 1 MiB values, 64 MiB memory per call"
else bad "defaults" "got $got"; fi

call "embed is off the default allowlist" "SELECT embed('x')"
expect "embed is off the default allowlist" 1 "embed" 30 400000

# --- time: the limit holds inside long function calls -------------------------
# embed() added back by the operator, over 700 KB texts: about 60,000 calls,
# each far longer than a normal step.
fns="$(db_sql "$DB" "SELECT value FROM dbmcp_settings WHERE key = 'query.functions'")"
setting query.functions "$fns,embed"
call "embed per row stops at the time limit" \
  "SELECT sum(length(embed(replace(hex(randomblob(350000)), '0', ' ')))) FROM sales"
expect "embed per row stops at the time limit" 1 "stopped at the time limit of 1000 ms" 15 400000
setting query.functions "$fns"

call "nested upper/lower per row stops at the time limit" \
  "SELECT sum(length(upper(lower(upper(lower(upper(hex(randomblob(400000))))))))) FROM sales"
expect "nested upper/lower per row stops at the time limit" 1 "stopped at the time limit" 15 400000

# --- memory: values and what one call holds ----------------------------------
setting query.timeout_ms 20000 # the memory bound, not the clock, must stop these
nested="hex(randomblob(8000000))"
for i in $(seq 10); do nested="lower(upper($nested))"; done
cols="length($nested)"
for i in $(seq 19); do cols="$cols, length($nested)"; done
call "twenty columns of nested upper/lower over 16 MB" "SELECT $cols FROM sales LIMIT 3"
expect "twenty columns of nested upper/lower over 16 MB" 1 "larger than this server allows (1048576 bytes, setting query.max_value_bytes)" 15 400000
if grep -q "string or blob too big" "$WORK/out"; then ok "… refused for the value size"
else bad "… refused for the value size" "$OUT"; fi

call "randomblob(16000000) per row" "SELECT length(randomblob(16000000)) FROM sales"
expect "randomblob(16000000) per row" 1 "larger than this server allows (1048576 bytes, setting query.max_value_bytes)" 15 400000

call "a sort of 800 KB values hits the memory budget" \
  "SELECT hex(randomblob(400000)) AS x FROM sales ORDER BY x"
expect "a sort of 800 KB values hits the memory budget" 1 "more memory than this server allows" 30 400000

call "DISTINCT over a cross join hits the memory budget" \
  "SELECT count(DISTINCT a.id || hex(randomblob(100))) FROM sales a, sales b"
expect "DISTINCT over a cross join hits the memory budget" 1 "more memory than this server allows" 30 400000

setting query.max_memory_bytes 1048576
call "a 1 MiB budget refuses a GROUP BY the default allows" \
  "SELECT count(*) FROM (SELECT DISTINCT hex(randomblob(64)) FROM sales)"
expect "a 1 MiB budget refuses a GROUP BY the default allows" 1 "more memory than this server allows" 30 400000
setting query.max_memory_bytes 67108864
call "… and the default budget lets it through" \
  "SELECT count(*) FROM (SELECT DISTINCT hex(randomblob(64)) FROM sales)"
expect "… and the default budget lets it through" 0 "| 60000 |" 30 400000

# --- ordinary queries are unaffected ------------------------------------------
call "an ordinary aggregate" "SELECT region, count(*) AS n FROM sales GROUP BY region ORDER BY region"
expect "an ordinary aggregate" 0 "5 rows" 30 400000

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
