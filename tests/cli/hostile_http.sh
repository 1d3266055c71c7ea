#!/usr/bin/env bash
# hostile_http.sh — `dbmcp serve --http` under attack, each reproduction of
# the issue "Bounded under attack" scaled down, on loopback only:
#
#   slowloris    200 connections from 127.0.0.2 sending one header line per
#                second: every one of them is ended by the server (408 or
#                503), and calls from 127.0.0.1 are answered meanwhile; at
#                the same time 40 connections trickling their body (408) and
#                a keep-alive connection gone silent (closed when idle)
#   burst        2000 connections opened at once from one address (more than
#                the 512 served at once): every one
#                gets an HTTP answer (none is closed unanswered)
#   sessions     one key opening 20 sessions past its limit of 5 drops its own
#                idle ones; another key's initialize succeeds; with all five
#                held open (GET streams) the key gets 503, the other key not
#   in flight    one key with 6 slow calls at once past its limit of 2 gets
#                503 for some; another key's call is answered meanwhile
#   4 MB name    20 calls naming a 4,000,000-character tool: the database
#                grows by a few hundred KB, not 80 MB; the audit row is cut
#                with a marker
#   escapes      ESC sequences and newlines in the client name and the tool
#                name never reach `dbmcp audit` output raw
#   idle session a legacy session left unused past http.session_idle_s is gone
#   revoke       `dbmcp keys revoke` ends the key's open subscriptions/listen
#                stream and legacy GET stream
#
# The server runs with small limits (DBMCP_HTTP_* variables) so the suite is
# quick. Assertions are on outcomes; the only times are generous upper bounds
# for "answered at all" (10 s per legitimate call, 40 s for the slow
# connections to be ended, 10 s for revoked streams to close), and one wait
# that outlasts the 10 s session idle time. Every step has
# a timeout; the server's peak memory is printed and bounded. Needs bash,
# curl and node; binds a free port (port 0) on 127.0.0.1 and uses 127.0.0.2
# to 127.0.0.5 as other client addresses (Linux routes all of 127/8 to lo).
# Prints "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/hostile_http.sh     (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
HELPER="$ROOT/tests/cli/hostile_http.mjs"

command -v node >/dev/null || { echo "hostile_http.sh: node is required" >&2; exit 1; }
command -v curl >/dev/null || { echo "hostile_http.sh: curl is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "hostile_http.sh: $BIN not built (run make)" >&2; exit 1; }

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"

WORK="$(mktemp -d)"
DB="$(test_db hostile)" || exit 1
SERVER_PID=""
BACKGROUND=()
cleanup() {
  for pid in "${BACKGROUND[@]}"; do kill "$pid" 2>/dev/null; done
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  test_db_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT
unset DBMCP_DB

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
measure() { echo "     measured: $*"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# seconds since START_MS, with tenths
since() { local ms=$(($(now_ms) - $1)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }

# --- setup ----------------------------------------------------------------------

"$BIN" init --db "$DB" >/dev/null 2>&1 || { echo "hostile_http.sh: init failed" >&2; exit 1; }
new_key() { "$BIN" keys create --db "$DB" --interface default --principal "$1" 2>/dev/null; }
KEY_A="$(new_key attacker)"
KEY_B="$(new_key bystander)"
KEY_C="$(new_key revoked)"
KEY_C_ID="$(echo "$KEY_C" | cut -d_ -f2)"

DBMCP_HTTP_HEADER_TIMEOUT_S=3 DBMCP_HTTP_BODY_TIMEOUT_S=3 DBMCP_HTTP_IDLE_TIMEOUT_S=4 \
  DBMCP_HTTP_WAIT_TIMEOUT_S=5 DBMCP_HTTP_MAX_CONNECTIONS_PER_IP=32 DBMCP_HTTP_MAX_SESSIONS_PER_KEY=5 \
  DBMCP_HTTP_MAX_IN_FLIGHT_PER_KEY=2 DBMCP_HTTP_SESSION_IDLE_S=10 \
  "$BIN" serve --db "$DB" --http 127.0.0.1:0 2>"$WORK/serve.err" &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 100); do
  PORT="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$WORK/serve.err" 2>/dev/null | grep -o '[0-9]*$')"
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || { echo "hostile_http.sh: the server did not start:" >&2; cat "$WORK/serve.err" >&2; exit 1; }
URL="http://127.0.0.1:$PORT/mcp"

# The address helpers need: a client socket bound to 127.0.0.2 must work.
if ! node -e 'const s=require("net").connect({port:+process.argv[1],host:"127.0.0.1",localAddress:"127.0.0.2"});s.on("connect",()=>{s.destroy();process.exit(0)});s.on("error",e=>{console.error(e.message);process.exit(1)})' "$PORT"; then
  echo "hostile_http.sh: cannot connect from 127.0.0.2 (loopback aliases needed)" >&2
  exit 1
fi

MODERN_HEADERS=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'
  -H 'MCP-Protocol-Version: 2026-07-28')
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# echo_call KEY: a 2026-07-28 tools/call of echo; prints "STATUS BODY".
echo_call() {
  curl -s --max-time 10 -o "$WORK/echo.out" -w '%{http_code}' "$URL" -H "Authorization: Bearer $1" \
    "${MODERN_HEADERS[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},$META}}"
  printf ' %s' "$(cat "$WORK/echo.out" 2>/dev/null)"
}

# initialize KEY [CLIENT_NAME_JSON]: a legacy initialize; prints "STATUS SESSION_ID"
# (the body is left in $WORK/init.body).
initialize() {
  local name="${2:-\"hostile-test\"}"
  curl -s --max-time 10 -D "$WORK/init.headers" -o "$WORK/init.body" -w '%{http_code}' "$URL" \
    -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":$name,\"version\":\"1\"}}}"
  printf ' %s' "$(grep -i '^mcp-session-id:' "$WORK/init.headers" | tr -d '\r' | cut -d' ' -f2)"
}

# legacy KEY SESSION BODY: one message on a legacy session; prints the status.
legacy() {
  curl -s --max-time 10 -o "$WORK/legacy.out" -w '%{http_code}' "$URL" -H "Authorization: Bearer $1" \
    -H "Mcp-Session-Id: $2" -H 'Content-Type: application/json' -H 'Accept: application/json' -d "$3"
}
PING='{"jsonrpc":"2.0","id":7,"method":"ping"}'

# peak_kib: the server's peak resident memory so far.
peak_kib() { awk '/VmHWM/ {print $2}' "/proc/$SERVER_PID/status" 2>/dev/null || echo 0; }

# A session left alone from now on: it must expire (http.session_idle_s 10).
got="$(initialize "$KEY_B")"
SID_IDLE="${got#* }"
IDLE_SINCE=$(now_ms)

# --- slowloris --------------------------------------------------------------------

# Three slow attacks at once, each from its own address: header lines, body
# bytes, and a keep-alive connection that goes silent after one call.
timeout 60 node "$HELPER" slow "$PORT" 200 127.0.0.2 40 >"$WORK/slow.json" &
SLOW_PID=$!
timeout 60 node "$HELPER" slowbody "$PORT" "$KEY_B" 40 127.0.0.4 40 >"$WORK/slowbody.json" &
SLOWBODY_PID=$!
timeout 60 node "$HELPER" idle "$PORT" "$KEY_B" 127.0.0.5 30 >"$WORK/idle.json" &
IDLE_PID=$!
BACKGROUND+=("$SLOW_PID" "$SLOWBODY_PID" "$IDLE_PID")
sleep 1.5
legit_ok=0
legit_report=()
for i in 1 2 3 4 5; do
  start=$(now_ms)
  got="$(echo_call "$KEY_B")"
  took=$(since "$start")
  legit_report+=("call $i: ${got:0:3} in ${took}s")
  [[ "$got" == 200* && "$got" == *'"text":"hi"'* ]] && legit_ok=$((legit_ok + 1))
done
init_during="$(initialize "$KEY_B")"
wait "$SLOW_PID"
slow="$(cat "$WORK/slow.json")"
slow_open="$(node -e 'console.log(JSON.parse(process.argv[1]).open)' "$slow" 2>/dev/null)"
if [ "$legit_ok" = 5 ] && [[ "$init_during" == 200* ]]; then
  ok "slowloris: calls from another address are answered while 200 slow connections run"
else
  not_ok "slowloris: calls from another address are answered while 200 slow connections run" \
    "${legit_report[@]}" "initialize: $init_during"
fi
measure "${legit_report[*]}"
if [ "$slow_open" = 0 ]; then
  ok "slowloris: the server ends every slow connection (408 after the header deadline, 503 after waiting)"
else
  not_ok "slowloris: the server ends every slow connection" "$slow"
fi
measure "slow connections: $slow"
wait "$SLOWBODY_PID"
slowbody="$(cat "$WORK/slowbody.json")"
if node -e 'const r=JSON.parse(process.argv[1]);process.exit(r.open===0&&r.statuses["408"]>0?0:1)' "$slowbody" 2>/dev/null; then
  ok "slow body: the server ends every connection trickling its body (408 after the body deadline)"
else
  not_ok "slow body: the server ends every connection trickling its body" "$slowbody"
fi
measure "slow bodies: $slowbody"
wait "$IDLE_PID"
idle="$(cat "$WORK/idle.json")"
if [[ "$idle" == *'"first":"200","closed":true'* ]]; then
  ok "idle keep-alive: a connection silent after its call is closed (idle deadline)"
else
  not_ok "idle keep-alive: a connection silent after its call is closed (idle deadline)" "$idle"
fi
measure "idle keep-alive connection: $idle"

# --- burst --------------------------------------------------------------------------

burst="$(timeout 90 node "$HELPER" burst "$PORT" "$KEY_B" 2000 127.0.0.3)"
unanswered="$(node -e 'console.log(JSON.parse(process.argv[1]).unanswered)' "$burst" 2>/dev/null)"
if [ "$unanswered" = 0 ]; then
  ok "burst: 2000 connections opened at once from one address all get an answer"
else
  not_ok "burst: 2000 connections opened at once from one address all get an answer" "$burst"
fi
measure "burst: $burst"

# --- sessions per key -----------------------------------------------------------------

A_SIDS=()
init_codes=""
for i in $(seq 1 20); do
  got="$(initialize "$KEY_A")"
  init_codes+="${got:0:3} "
  A_SIDS+=("${got#* }")
done
first_gone="$(legacy "$KEY_A" "${A_SIDS[0]}" "$PING")"
last_alive="$(legacy "$KEY_A" "${A_SIDS[19]}" "$PING")"
other="$(initialize "$KEY_B")"
not_200=$(echo "$init_codes" | tr ' ' '\n' | grep -v '^$' | grep -vc '^200$')
if [[ "$not_200" = 0 && "$first_gone" = 404 && "$last_alive" = 200 && "$other" == 200* ]]; then
  ok "sessions: a key past its limit drops its own oldest idle session; another key's initialize succeeds"
else
  not_ok "sessions: a key past its limit drops its own oldest idle session; another key's initialize succeeds" \
    "initialize codes: $init_codes" "first session ping: $first_gone (want 404)" \
    "last session ping: $last_alive (want 200)" "other key: $other"
fi

# Hold the key's five live sessions open with GET streams: nothing is idle.
GET_PIDS=()
for sid in "${A_SIDS[@]:15:5}"; do
  curl -sN --max-time 60 "$URL" -H "Authorization: Bearer $KEY_A" -H "Mcp-Session-Id: $sid" \
    -H 'Accept: text/event-stream' >/dev/null 2>&1 &
  GET_PIDS+=($!)
  BACKGROUND+=($!)
done
sleep 1
held="$(initialize "$KEY_A")"
cp "$WORK/init.body" "$WORK/held.out"
other="$(initialize "$KEY_B")"
if [[ "$held" == 503* && "$other" == 200* ]] && grep -q 'for this API key' "$WORK/held.out"; then
  ok "sessions: a key whose sessions are all in use gets 503; another key's initialize succeeds"
else
  not_ok "sessions: a key whose sessions are all in use gets 503; another key's initialize succeeds" \
    "held key: $held $(cat "$WORK/held.out")" "other key: $other"
fi
for pid in "${GET_PIDS[@]}"; do kill "$pid" 2>/dev/null; done

# --- requests in flight per key ---------------------------------------------------------

FLIGHT_PIDS=()
SLOW_SQL='WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1500000) SELECT count(*) AS n FROM c'
for i in 1 2 3 4 5 6; do
  curl -s --max-time 60 -o "$WORK/flight$i.out" -w '%{http_code}\n' "$URL" -H "Authorization: Bearer $KEY_A" \
    "${MODERN_HEADERS[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: execute_query' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_query\",\"arguments\":{\"query\":\"$SLOW_SQL\"},$META}}" \
    >"$WORK/flight$i.code" &
  BACKGROUND+=($!)
  FLIGHT_PIDS[$i]=$!
done
sleep 0.3
other="$(echo_call "$KEY_B")"
for i in 1 2 3 4 5 6; do wait "${FLIGHT_PIDS[$i]}"; done
codes="$(cat "$WORK"/flight*.code | tr '\n' ' ')"
busy=$(cat "$WORK"/flight*.code | grep -c 503)
answered=$(cat "$WORK"/flight*.code | grep -cE '^(200|503)$')
if [ "$busy" -ge 1 ] && [ "$answered" = 6 ] && [[ "$other" == 200* ]] &&
  grep -q 'too many requests in flight for this API key' "$WORK"/flight*.out; then
  ok "in flight: a key past its limit gets 503 for the extra calls; another key is answered"
else
  not_ok "in flight: a key past its limit gets 503 for the extra calls; another key is answered" \
    "key A codes: $codes" "key B: ${other:0:200}"
fi
measure "key A's 6 concurrent slow calls: $codes"

# --- a 4 MB tool name -----------------------------------------------------------------------

# The size of a SQLite database: its file and its WAL.
size_of() { stat -c %s "$DB" "$DB-wal" 2>/dev/null | awk '{s+=$1} END {print s+0}'; }
got="$(initialize "$KEY_B")"
SID_B="${got#* }"
before=$(size_of)
big="$(timeout 120 node "$HELPER" big "$PORT" "$KEY_B" "$SID_B" 4000000 20)"
sleep 1 # the audit writer flushes every 200 ms
after=$(size_of)
grown=$((after - before))
# An unknown tool is audited as denied (not_found), as docs/security.md states.
"$BIN" audit --db "$DB" --status denied --limit 20 >"$WORK/audit_big.out" 2>&1
rows=$(grep -c '…\[truncated, 4000000 bytes\]' "$WORK/audit_big.out")
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$WORK/audit_big.out")
if [[ "$big" == *'"200":20'* ]] && [ "$grown" -lt 4000000 ] && [ "$rows" = 20 ] && [ "$longest" -lt 2000 ]; then
  ok "4 MB tool name: 20 calls grow the database by less than 4 MB; each audit row is cut with a marker"
else
  not_ok "4 MB tool name: 20 calls grow the database by less than 4 MB; each audit row is cut with a marker" \
    "calls: $big" "grown: $grown bytes" "rows with the marker: $rows of 20" "longest audit line: $longest"
fi
measure "database grew by $grown bytes for 20 calls (unbounded: 80,000,000+); longest audit line $longest characters"

# --- escape sequences in stored names ---------------------------------------------------------

got="$(initialize "$KEY_B" '"ev\u001b[2J\u001b[1;1Hil\nFAKE ROW"')"
SID_E="${got#* }"
legacy "$KEY_B" "$SID_E" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t\u001b[31mx\u001b]0;owned\u0007\r\nFAKE ROW\u009b2J","arguments":{}}}' >/dev/null
sleep 1
"$BIN" audit --db "$DB" --limit 1 >"$WORK/audit_esc.out" 2>&1
raw_controls=$(LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$WORK/audit_esc.out")
lines=$(wc -l <"$WORK/audit_esc.out")
if [ "$raw_controls" = 0 ] && [ "$lines" = 2 ] && grep -qF 'ev[2J[1;1HilFAKE ROW' "$WORK/audit_esc.out" &&
  grep -qF 't\x1b[31mx\x1b]0;owned\x07\r\nFAKE ROW\u009b2J' "$WORK/audit_esc.out"; then
  ok "escapes: dbmcp audit shows control characters as visible escapes; the client name is stored without them"
else
  not_ok "escapes: dbmcp audit shows control characters as visible escapes; the client name is stored without them" \
    "lines: $lines (want 2), raw control bytes: $raw_controls" "$(cat -v "$WORK/audit_esc.out")"
fi

# --- idle sessions expire ------------------------------------------------------------------------

# 10 s of idleness plus the 5 s sweep, with room to spare
left=$((17000 - ($(now_ms) - IDLE_SINCE)))
[ "$left" -gt 0 ] && sleep "$((left / 1000)).$((left % 1000 / 100))"
expired="$(legacy "$KEY_B" "$SID_IDLE" "$PING")"
fresh="$(legacy "$KEY_B" "$SID_E" "$PING")"
if [ "$expired" = 404 ] && [ "$fresh" = 200 ]; then
  ok "idle sessions: a session unused past http.session_idle_s is gone; a recently used one is not"
else
  not_ok "idle sessions: a session unused past http.session_idle_s is gone; a recently used one is not" \
    "idle session ping: $expired (want 404)" "recent session ping: $fresh (want 200)"
fi

# --- revoke ends open streams ------------------------------------------------------------------

curl -sN --max-time 60 "$URL" -H "Authorization: Bearer $KEY_C" "${MODERN_HEADERS[@]}" \
  -H 'Mcp-Method: subscriptions/listen' \
  -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{$META}}" \
  >"$WORK/listen.out" 2>&1 &
LISTEN_PID=$!
BACKGROUND+=("$LISTEN_PID")
got="$(initialize "$KEY_C")"
SID_C="${got#* }"
curl -sN --max-time 60 "$URL" -H "Authorization: Bearer $KEY_C" -H "Mcp-Session-Id: $SID_C" \
  -H 'Accept: text/event-stream' >"$WORK/get.out" 2>&1 &
GET_PID=$!
BACKGROUND+=("$GET_PID")
for _ in $(seq 1 50); do
  grep -q acknowledged "$WORK/listen.out" && [ -s "$WORK/get.out" ] && break
  sleep 0.1
done
opened=$(grep -c acknowledged "$WORK/listen.out")
start=$(now_ms)
"$BIN" keys revoke --db "$DB" "$KEY_C_ID" 2>/dev/null
closed=""
for _ in $(seq 1 100); do
  if ! kill -0 "$LISTEN_PID" 2>/dev/null && ! kill -0 "$GET_PID" 2>/dev/null; then
    closed=$(since "$start")
    break
  fi
  sleep 0.1
done
if [ "$opened" = 1 ] && [ -n "$closed" ] && grep -q '"resultType":"complete"' "$WORK/listen.out"; then
  ok "revoke: the key's subscriptions/listen stream and GET stream end (within 10 s)"
else
  not_ok "revoke: the key's subscriptions/listen stream and GET stream end (within 10 s)" \
    "listen opened: $opened" "listen stream: $(head -c 400 "$WORK/listen.out")"
fi
measure "streams closed ${closed:-never}s after dbmcp keys revoke"

# --- the server afterwards --------------------------------------------------------------------

peak=$(peak_kib)
still="$(echo_call "$KEY_B")"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
SERVER_PID=""
stats="$(grep -o '"msg":"connections:[^"]*"' "$WORK/serve.err")"
if [[ "$still" == 200* ]] && [ "$peak" -lt 1048576 ]; then
  ok "the server still answers afterwards; peak memory stays under 1 GiB"
else
  not_ok "the server still answers afterwards; peak memory stays under 1 GiB" "call: ${still:0:200}" "peak: $peak KiB"
fi
measure "server peak RSS $((peak / 1024)) MiB; $stats"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
