#!/usr/bin/env bash
# metrics.sh — GET /metrics, GET /status and `dbmcp status` of
# `dbmcp serve --http` (docs/operations.md, "Monitoring"):
#
#   counters     after 3 echo calls, 1 echo call with bad arguments, and 2
#                calls of unknown tools (one named with 10 KB of 'z'), the
#                exact counts per tool, interface and transport, errors
#                included; the unknown names appear only as tool="unknown"
#   format       every scrape is a strict text exposition 0.0.4
#                (tests/cli/metrics_check.mjs parse; also promtool when
#                installed); histogram buckets cumulative, +Inf == _count
#   gauges       sessions, in-flight, resident memory, pools, audit, jobs
#   /status      every field present and sane; the catalog change the
#                watcher saw; `dbmcp status` prints it, --json too, and
#                exits 1 with a reason when the server is gone
#   access       loopback mode: POST 405, a proxy header 403, another
#                loopback address 200; key mode (a settings row, the
#                secret from DBMCP_METRICS_KEY): no key, a wrong key and an
#                MCP API key 401, the metrics key 200, `dbmcp status` with
#                and without it; DBMCP_HTTP_METRICS=off beats the row (404);
#                bad values stop serve with exit 2
#
# Servers bind port 0 and are waited for through their "listening on" line
# (tests/cli/serve_http.sh); the catalog change is waited for through the
# watcher's log line. No fixed port, no sleep. Needs bash, curl and node.
# Prints "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/metrics.sh     (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CHECK="$ROOT/tests/cli/metrics_check.mjs"

command -v node >/dev/null || { echo "metrics.sh: node is required" >&2; exit 1; }
command -v curl >/dev/null || { echo "metrics.sh: curl is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "metrics.sh: $BIN not built (run make)" >&2; exit 1; }

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"
# shellcheck source=tests/cli/serve_http.sh
. "$ROOT/tests/cli/serve_http.sh"

WORK="$(mktemp -d)"
SERVE_PID=""
cleanup() {
  [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
  test_db_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT
unset DBMCP_DB DBMCP_HTTP_METRICS DBMCP_METRICS_KEY

passed=0
failed=0
ok() {
  passed=$((passed + 1))
  echo "ok   $1"
}
not_ok() {
  failed=$((failed + 1))
  echo "FAIL $1"
  shift
  for line in "$@"; do echo "     $line"; done
}
# check NAME EXPECTED GOT [DETAIL...]
check() {
  if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2" "got:      $3" "${@:4}"; fi
}

# --- setup -------------------------------------------------------------------------

DB="$(test_db metrics)" || exit 1
"$BIN" init --db "$DB" >/dev/null 2>&1 || { echo "metrics.sh: init failed" >&2; exit 1; }
KEY="$("$BIN" keys create --db "$DB" --interface default --principal tester 2>/dev/null)"
METRICS_KEY="metrics-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
setting() {
  "$BIN" sql --db "$DB" "INSERT INTO dbmcp_settings (key, value) VALUES ('$1', '$2')
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value"
}

# start NAME [VAR=VALUE...]: serve --http on a free port with those
# variables; sets SERVE_PID, SERVE_URL, BASE (the URL without /mcp), LOG.
start() {
  local name=$1
  shift
  LOG="$WORK/$name.log"
  if ! serve_http_start "$LOG" env "$@" "$BIN" serve --db "$DB" --http 127.0.0.1:0; then
    echo "metrics.sh: the server ($name) did not start:" >&2
    cat "$LOG" >&2
    exit 1
  fi
  BASE="${SERVE_URL%/mcp}"
}

stop() {
  kill -TERM "$SERVE_PID" 2>/dev/null
  wait "$SERVE_PID" 2>/dev/null
  SERVE_PID=""
}

# wait_log REGEX SECONDS: until a line of $LOG matches; 1 when none did.
wait_log() {
  local line fd found=1 end=$((SECONDS + $2))
  exec {fd}< <(exec tail -n +1 -F "$LOG" 2>/dev/null)
  local tail_pid=$!
  while [ "$SECONDS" -lt "$end" ] && IFS= read -r -t "$((end - SECONDS + 1))" -u "$fd" line; do
    if [[ $line =~ $1 ]]; then
      found=0
      break
    fi
  done
  kill "$tail_pid" 2>/dev/null
  exec {fd}<&-
  return $found
}

# get PATH OUT [CURL ARGS...]: GET BASE/PATH into OUT; prints the status.
get() {
  local path=$1 out=$2
  shift 2
  curl -s --max-time 10 -o "$out" -w '%{http_code}' "$@" "$BASE$path"
}

# value FILE SERIES: the value of one series of a scrape ("absent" if none).
value() { node "$CHECK" value "$1" "$2"; }

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# call NAME ARGS_JSON OUT: a 2026-07-28 tools/call; prints the HTTP status.
call() {
  curl -s --max-time 10 -o "$3" -w '%{http_code}' "$SERVE_URL" -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H "Mcp-Name: $1" \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":$2,$META}}"
}

# legacy BODY_FILE OUT: one message on the legacy session $SID.
legacy() {
  curl -s --max-time 10 -o "$2" -w '%{http_code}' "$SERVE_URL" -H "Authorization: Bearer $KEY" \
    -H "Mcp-Session-Id: $SID" -H 'Content-Type: application/json' -H 'Accept: application/json' \
    --data-binary "@$1"
}

# --- counters -------------------------------------------------------------------------

start loopback

code="$(get /metrics "$WORK/m0.txt")"
parsed="$(node "$CHECK" parse "$WORK/m0.txt")"
check "a fresh server's /metrics answers 200 and parses" "200 ok" "$code ${parsed%%:*}" "$parsed"
check "a fresh server counts no tool call" "0" \
  "$(grep -c '^dbmcp_tool_calls_total{' "$WORK/m0.txt")"

codes=""
for i in 1 2 3; do codes+="$(call echo '{"text":"hi"}' "$WORK/echo$i.json") "; done
codes+="$(call echo '{"text":5}' "$WORK/echo_bad.json")"
check "three echo calls and one with bad arguments are answered" "200 200 200 200" "$codes"
check "the bad arguments are a tool error (isError)" "1" \
  "$(grep -c '"isError":true' "$WORK/echo_bad.json")"

curl -s --max-time 10 -D "$WORK/init.h" -o "$WORK/init.json" "$SERVE_URL" \
  -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -H 'Accept: application/json' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"metrics-test","version":"1"}}}'
SID="$(grep -i '^mcp-session-id:' "$WORK/init.h" | tr -d '\r' | cut -d' ' -f2)"
LONG="$(head -c 10240 /dev/zero | tr '\0' 'z')"
printf '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"%s","arguments":{}}}' \
  "$LONG" >"$WORK/long.json"
printf '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}' \
  >"$WORK/nosuch.json"
codes="$(legacy "$WORK/long.json" "$WORK/long.out") $(legacy "$WORK/nosuch.json" "$WORK/nosuch.out")"
errors="$(grep -c '"code":-32602' "$WORK/long.out") $(grep -c '"code":-32602' "$WORK/nosuch.out")"
check "unknown tools (a 10 KB name, no_such_tool) get -32602 on a legacy session" \
  "200 200 1 1" "$codes $errors"

code="$(get /metrics "$WORK/m1.txt")"
parsed="$(node "$CHECK" parse "$WORK/m1.txt")"
check "after the calls /metrics still parses strictly" "200 ok" "$code ${parsed%%:*}" "$parsed"
S='interface="default",transport="http"'
got="$(value "$WORK/m1.txt" "dbmcp_tool_calls_total{tool=\"echo\",$S}")"
got+=" $(value "$WORK/m1.txt" "dbmcp_tool_call_errors_total{tool=\"echo\",$S}")"
check "echo: 4 calls, 1 error (tool, interface, transport)" "4 1" "$got"
got="$(value "$WORK/m1.txt" "dbmcp_tool_calls_total{tool=\"unknown\",$S}")"
got+=" $(value "$WORK/m1.txt" "dbmcp_tool_call_errors_total{tool=\"unknown\",$S}")"
check "unknown tools: 2 calls, 2 errors, under tool=\"unknown\"" "2 2" "$got"
got="$(value "$WORK/m1.txt" 'dbmcp_tool_call_duration_seconds_count{tool="echo"}')"
got+=" $(value "$WORK/m1.txt" 'dbmcp_tool_call_duration_seconds_bucket{tool="echo",le="+Inf"}')"
got+=" $(value "$WORK/m1.txt" 'dbmcp_tool_call_duration_seconds_count{tool="unknown"}')"
check "the latency histogram counts the same calls (+Inf bucket == _count)" "4 4 2" "$got"
labels="$(grep -o 'tool="[^"]*"' "$WORK/m1.txt" | sort -u | tr '\n' ' ')"
check "tool labels are catalog names or \"unknown\", nothing a caller sent" \
  'tool="echo" tool="unknown" ' "$labels"
check "neither unknown name appears anywhere in /metrics" "0 0" \
  "$(grep -c zzzzzzzzzz "$WORK/m1.txt") $(grep -c no_such_tool "$WORK/m1.txt")"
got="$(value "$WORK/m1.txt" dbmcp_http_sessions) $(value "$WORK/m1.txt" dbmcp_tool_calls_in_flight)"
got+=" $(value "$WORK/m1.txt" dbmcp_http_requests_in_flight)"
check "gauges: 1 legacy session, nothing in flight" "1 0 0" "$got"
rss="$(value "$WORK/m1.txt" dbmcp_process_resident_memory_bytes)"
pool="$(value "$WORK/m1.txt" 'dbmcp_db_pool_size{pool="catalog"}')"
queue="$(value "$WORK/m1.txt" dbmcp_audit_queue_rows)"
jobs="$(value "$WORK/m1.txt" dbmcp_embedding_jobs_pending)"
if [ "$rss" -gt 1000000 ] 2>/dev/null && [ "$pool" -gt 0 ] 2>/dev/null &&
  [ "$queue" -ge 0 ] 2>/dev/null && [ "$jobs" = 0 ]; then
  ok "gauges: resident memory, pool size, audit queue and embedding backlog are there"
else
  not_ok "gauges: resident memory, pool size, audit queue and embedding backlog are there" \
    "rss $rss, catalog pool $pool, audit rows $queue, jobs $jobs"
fi
if command -v promtool >/dev/null; then
  if promtool check metrics <"$WORK/m1.txt" >"$WORK/promtool.out" 2>&1; then
    ok "promtool check metrics accepts the scrape"
  else
    not_ok "promtool check metrics accepts the scrape" "$(head -5 "$WORK/promtool.out")"
  fi
fi

# --- /status and dbmcp status ------------------------------------------------------------

code="$(get /status "$WORK/s1.json")"
shape="$(node "$CHECK" status "$WORK/s1.json" 2>&1)"
check "/status answers 200 with every field sane" "200 ok" "$code $shape" "$(cat "$WORK/s1.json")"
got="$(node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1]));
  console.log(s.sessions, s.in_flight.tool_calls, s.catalog.changed_at)' "$WORK/s1.json")"
check "/status: 1 session, no tool call in flight, no catalog change yet" "1 0 null" "$got"
version="$("$BIN" --version | awk '{print $2}')"
check "/status names this build's version" "$version" \
  "$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).version)' "$WORK/s1.json")"

"$BIN" status --url "$SERVE_URL" >"$WORK/status.out" 2>"$WORK/status.err"
rc=$?
got="$rc $(grep -c "^version *$version\$" "$WORK/status.out") $(grep -c '^sessions *1$' "$WORK/status.out")"
check "dbmcp status --url (the URL serve printed) summarises it" "0 1 1" "$got" \
  "$(cat "$WORK/status.out" "$WORK/status.err")"
"$BIN" status --url "$BASE" --json >"$WORK/status.json" 2>&1
rc=$?
check "dbmcp status --json prints the server's JSON" "0 ok" \
  "$rc $(node "$CHECK" status "$WORK/status.json" 2>&1)"

tools_before="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).catalog.tools_version)' "$WORK/s1.json")"
"$BIN" sql --db "$DB" "UPDATE dbmcp_tools SET description = description || ' (changed)' WHERE name = 'echo'"
if wait_log '"catalog changed' 15; then
  get /status "$WORK/s2.json" >/dev/null
  got="$(node -e 'const s=JSON.parse(require("fs").readFileSync(process.argv[1]));
    console.log(s.catalog.tools_version > +process.argv[2], Math.abs(Date.parse(s.catalog.changed_at) - Date.now()) < 60000)' \
    "$WORK/s2.json" "$tools_before")"
  check "/status: the catalog change the watcher saw, with its time" "true true" "$got" \
    "$(cat "$WORK/s2.json")"
else
  not_ok "/status: the catalog change the watcher saw, with its time" "no 'catalog changed' line"
fi

# --- access in loopback mode ----------------------------------------------------------------

got="$(curl -s -o /dev/null -w '%{http_code}' -X POST "$BASE/metrics")"
got+=" $(get /metrics /dev/null -H 'X-Forwarded-For: 203.0.113.7')"
got+=" $(get /status /dev/null -H 'Forwarded: for=203.0.113.7')"
got+=" $(get /metrics /dev/null --interface 127.0.0.2)"
check "loopback mode: POST 405, through a proxy 403, from 127.0.0.2 200" "405 403 403 200" "$got"

stop
"$BIN" status --url "$SERVE_URL" >"$WORK/gone.out" 2>"$WORK/gone.err"
rc=$?
check "dbmcp status exits 1 with a reason when the server is gone" "1 1" \
  "$rc $(grep -c 'cannot reach' "$WORK/gone.err")" "$(cat "$WORK/gone.err")"

# --- access in key mode -------------------------------------------------------------------------

setting http.metrics key
start key DBMCP_METRICS_KEY="$METRICS_KEY"
got="$(curl -s -D "$WORK/401.h" -o /dev/null -w '%{http_code}' "$BASE/metrics")"
got+=" $(grep -ci '^www-authenticate: bearer' "$WORK/401.h")"
got+=" $(get /metrics /dev/null -H "Authorization: Bearer ${METRICS_KEY}x")"
got+=" $(get /metrics /dev/null -H "Authorization: Bearer $KEY")"
got+=" $(get /status /dev/null)"
check "key mode: no key 401 (with a challenge), a wrong key 401, an MCP API key 401, /status 401" \
  "401 1 401 401 401" "$got"
code="$(get /metrics "$WORK/k.txt" -H "Authorization: Bearer $METRICS_KEY")"
parsed="$(node "$CHECK" parse "$WORK/k.txt")"
code_status="$(get /status /dev/null -H "Authorization: Bearer $METRICS_KEY")"
check "key mode: the metrics key opens /metrics (parses) and /status" "200 ok 200" \
  "$code ${parsed%%:*} $code_status" "$parsed"
check "key mode: /mcp still takes the API key" "200" "$(call echo '{"text":"k"}' "$WORK/k.json")"
"$BIN" status --url "$BASE" >/dev/null 2>"$WORK/nokey.err"
got="$? $(grep -c 'metrics key' "$WORK/nokey.err")"
DBMCP_METRICS_KEY="$METRICS_KEY" "$BIN" status --url "$BASE" >/dev/null 2>&1
got+=" $?"
"$BIN" status --url "$BASE" --key "$METRICS_KEY" >/dev/null 2>&1
got+=" $?"
check "dbmcp status: exit 1 without the key (saying so), 0 with DBMCP_METRICS_KEY or --key" \
  "1 1 0 0" "$got" "$(cat "$WORK/nokey.err")"
stop

# --- precedence and bad values ------------------------------------------------------------------

start off DBMCP_HTTP_METRICS=off
got="$(get /metrics /dev/null) $(get /status /dev/null -H "Authorization: Bearer $METRICS_KEY")"
check "DBMCP_HTTP_METRICS=off beats the settings row (404)" "404 404" "$got"
stop

env DBMCP_HTTP_METRICS=everyone "$BIN" serve --db "$DB" --http 127.0.0.1:0 >/dev/null 2>"$WORK/bad.err"
got="$? $(grep -c 'DBMCP_HTTP_METRICS: "everyone" is not loopback, key or off' "$WORK/bad.err")"
"$BIN" serve --db "$DB" --http 127.0.0.1:0 >/dev/null 2>"$WORK/nokey.err"
got+=" $? $(grep -c 'DBMCP_METRICS_KEY is not set' "$WORK/nokey.err")"
env DBMCP_METRICS_KEY=short "$BIN" serve --db "$DB" --http 127.0.0.1:0 >/dev/null 2>"$WORK/short.err"
got+=" $? $(grep -c 'DBMCP_METRICS_KEY must be' "$WORK/short.err")"
check "serve refuses a bad http.metrics, key mode without a secret or with a short one (exit 2)" \
  "2 1 2 1 2 1" "$got" "$(cat "$WORK/bad.err" "$WORK/nokey.err" "$WORK/short.err")"

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
