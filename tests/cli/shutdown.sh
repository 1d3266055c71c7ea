#!/usr/bin/env bash
# shutdown.sh — graceful shutdown and reload of `dbmcp serve --http`
# (docs/operations.md, "Shutdown and reload"):
#
#   drain        a slow agent query and a subscriptions/listen stream are
#                open when SIGTERM comes: the
#                server logs that it stopped accepting with 1 call running,
#                a connection attempted then is refused, the query finishes
#                and its client gets the whole answer, the audit has its
#                row (status ok), the listen stream ends cleanly, and serve
#                exits 0
#   grace        with http.shutdown_grace_ms 300 an endless query is
#                cancelled when the grace is over: the log says so, its row
#                in the audit says cancelled, and serve exits 3
#   second       a second SIGTERM while a query holds the shutdown ends the
#                process at once with status 143
#   stdio        SIGTERM on `dbmcp serve` (stdio) while a slow query runs:
#                the query is answered, audited, and serve exits 0
#   reload       SIGHUP on a server with an open 2025-11-25 session: a row
#                cap (query.max_rows_default) changed with `dbmcp sql`
#                applies to the session's next call, the session and its
#                connection go on working, the log names the changed
#                setting; log.level is applied, and an invalid log.level
#                or http.shutdown_grace_ms is refused with a log line while
#                the old value stays (the next SIGTERM still drains)
#
# Servers bind port 0 and are waited for through their "listening on" line
# (tests/cli/serve_http.sh); every other wait is for an event: a log line,
# /status showing the call running, a client or the server exiting. The
# time bounds are generous upper bounds on those waits (60 s); nothing
# asserts how long anything took. Needs bash and curl. Prints "N passed,
# M failed"; exits 1 on any failure.
#
# Usage: tests/cli/shutdown.sh     (DBMCP=path/to/dbmcp to test another build;
#                                   KEEP=1 keeps the scratch directory and logs)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"

command -v curl >/dev/null || { echo "shutdown.sh: curl is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "shutdown.sh: $BIN not built (run make)" >&2; exit 1; }

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"
# shellcheck source=tests/cli/serve_http.sh
. "$ROOT/tests/cli/serve_http.sh"

WORK="$(mktemp -d)"
SERVE_PID=""
BACKGROUND=()
cleanup() {
  for pid in "${BACKGROUND[@]}"; do kill "$pid" 2>/dev/null; done
  [ -n "$SERVE_PID" ] && kill -KILL "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
  test_db_cleanup
  if [ -n "${KEEP:-}" ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
unset DBMCP_DB DBMCP_PRINCIPAL DBMCP_INTERFACE DBMCP_ALLOWED_TOOLS DBMCP_LOG
unset DBMCP_HTTP_SHUTDOWN_GRACE_MS

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
# expect NAME CONDITION...: ok when the command succeeds.
expect() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else not_ok "$name" "$*" "log: $(tail -n 4 "${LOG:-/dev/null}" | cut -c1-300)"; fi
}

# --- setup -------------------------------------------------------------------------

DB="$(test_db shutdown)" || exit 1
"$BIN" init --db "$DB" >/dev/null 2>&1 || { echo "shutdown.sh: init failed" >&2; exit 1; }
KEY="$("$BIN" keys create --db "$DB" --interface default --principal tester 2>/dev/null)"
setting() {
  "$BIN" sql --db "$DB" "INSERT INTO dbmcp_settings (key, value) VALUES ('$1', '$2')
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value" >/dev/null
}
unset_setting() { "$BIN" sql --db "$DB" "DELETE FROM dbmcp_settings WHERE key = '$1'" >/dev/null; }
# The slow queries must not meet the query time limit.
setting query.timeout_ms 600000
# Long enough to be seen running (it is waited for, not timed); it ends by itself.
SLOW='WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT count(*) AS n FROM c'
ENDLESS='WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c'

# start_server NAME: serve --http on a free port, operator log in $WORK/NAME.log.
start_server() {
  LOG="$WORK/$1.log"
  if ! serve_http_start "$LOG" "$BIN" serve --db "$DB" --http 127.0.0.1:0; then
    echo "shutdown.sh: the server did not start:" >&2
    cat "$LOG" >&2
    exit 1
  fi
  STATUS_URL="${SERVE_URL%/mcp}/status"
}

# server_exit: wait for the server (60 s at most); sets STATUS to its exit
# status, or "running" when it did not end (it is then killed).
server_exit() {
  local i
  STATUS=running
  for ((i = 0; i < 1200; i++)); do
    if ! kill -0 "$SERVE_PID" 2>/dev/null; then
      wait "$SERVE_PID"
      STATUS=$?
      SERVE_PID=""
      return
    fi
    sleep 0.05
  done
  kill -KILL "$SERVE_PID" 2>/dev/null
  wait "$SERVE_PID" 2>/dev/null
  SERVE_PID=""
}

# wait_log REGEX: until a line of $LOG matches (60 s at most); 1 when none did.
wait_log() {
  local i
  for ((i = 0; i < 1200; i++)); do
    grep -Eq -- "$1" "$LOG" && return 0
    sleep 0.05
  done
  return 1
}

# wait_running: until /status shows a tool call in flight (60 s at most).
wait_running() {
  local i
  for ((i = 0; i < 1200; i++)); do
    curl -s --max-time 5 "$STATUS_URL" | grep -Eq '"tool_calls": ?[1-9]' && return 0
    sleep 0.05
  done
  return 1
}

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# query_bg SQL OUT: one 2026-07-28 execute_query call in the background;
# the body goes to OUT, the HTTP status to OUT.code. Sets QUERY_PID.
query_bg() {
  local body
  body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_query\",\"arguments\":{\"query\":\"$1\"},$META}}"
  curl -s --max-time 120 -o "$2" -w '%{http_code}' "$SERVE_URL" -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
    -H 'Mcp-Name: execute_query' -d "$body" >"$2.code" &
  QUERY_PID=$!
  BACKGROUND+=("$QUERY_PID")
}
# listen_open OUT: an open subscriptions/listen stream, waited for until
# acknowledged (60 s at most). Sets LISTEN_PID.
listen_open() {
  local i
  curl -sN --max-time 120 "$SERVE_URL" -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: subscriptions/listen' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":{$META}}" \
    >"$1" 2>&1 &
  LISTEN_PID=$!
  BACKGROUND+=("$LISTEN_PID")
  for ((i = 0; i < 1200; i++)); do
    grep -q acknowledged "$1" && break
    sleep 0.05
  done
}
call_id() { grep -o '"dbmcp/callId":"[^"]*"' "$1" 2>/dev/null | head -n 1 | cut -d'"' -f4; }
# audit_status ID: the status column of the audit row of call ID (empty: none).
audit_status() {
  "$BIN" sql --db "$DB" "SELECT status FROM dbmcp_audit WHERE call_id = '$1'" 2>/dev/null |
    tr -d ' \r'
}

# --- drain: a running query finishes, new connections are refused -------------------

# The grace is long: the query must finish on its own however loaded the machine is.
setting http.shutdown_grace_ms 600000
start_server drain
listen_open "$WORK/listen.out"
query_bg "$SLOW" "$WORK/slow.out"
running=0
wait_running && running=1
kill -TERM "$SERVE_PID"
stopped=0
wait_log 'shutting down: new connections are refused; 1 call\(s\) running' && stopped=1
curl -s --max-time 10 -o /dev/null "$STATUS_URL"
refused=$?
wait "$QUERY_PID"
server_exit
wait "$LISTEN_PID"
listen_status=$?
expect "drain: the open subscriptions/listen stream was acknowledged, then ended cleanly (curl exit 0)" \
  test "$(grep -c acknowledged "$WORK/listen.out")/$listen_status" = 1/0
expect "drain: the slow query was running when SIGTERM came (the log counts it)" \
  test "$running$stopped" = 11
# curl exit 7: could not connect (the listening socket is closed).
expect "drain: a connection attempted after SIGTERM is refused (curl exit 7)" test "$refused" = 7
if [ "$(cat "$WORK/slow.out.code")" = 200 ] && grep -q '1000000' "$WORK/slow.out" &&
  ! grep -q '"isError":true' "$WORK/slow.out"; then
  ok "drain: the query running at SIGTERM finishes and its client gets the answer"
else
  not_ok "drain: the query running at SIGTERM finishes and its client gets the answer" \
    "$(cat "$WORK/slow.out.code") $(head -c 400 "$WORK/slow.out")"
fi
id=$(call_id "$WORK/slow.out")
expect "drain: the answered call has its audit row (status ok)" \
  test -n "$id" -a "$(audit_status "$id")" = ok
expect "drain: serve exits 0" test "$STATUS" = 0

unset_setting http.shutdown_grace_ms

# --- grace: past the deadline the query is cancelled and audited so --------------------

setting http.shutdown_grace_ms 300
start_server grace
query_bg "$ENDLESS" "$WORK/endless.out"
wait_running
kill -TERM "$SERVE_PID"
cancelled=0
wait_log 'shutdown grace of 300 ms is over: cancelling 1 request' && cancelled=1
wait "$QUERY_PID"
server_exit
expect "grace: the endless query is cancelled when http.shutdown_grace_ms is over" \
  test "$cancelled" = 1
rows=$("$BIN" sql --db "$DB" "SELECT count(*) AS n FROM dbmcp_audit
         WHERE target = 'execute_query' AND status = 'cancelled'" 2>/dev/null | tr -d ' \r')
expect "grace: its audit row says cancelled" test "$rows" = 1
expect "grace: serve exits 3 (requests were cancelled)" test "$STATUS" = 3

# --- second: a second SIGTERM exits at once ------------------------------------------

# A listen stream is no call: past a short grace with only a stream open,
# nothing was cancelled.
start_server stream
listen_open "$WORK/listen2.out"
kill -TERM "$SERVE_PID"
server_exit
wait "$LISTEN_PID"
listen_status=$?
expect "grace: an open listen stream alone ends cleanly and serve exits 0, not 3" \
  test "$(grep -c acknowledged "$WORK/listen2.out")/$listen_status/$STATUS" = 1/0/0

setting http.shutdown_grace_ms 600000
start_server second
query_bg "$ENDLESS" "$WORK/second.out"
wait_running
kill -TERM "$SERVE_PID"
wait_log 'shutting down: new connections are refused' ||
  not_ok "second: the first SIGTERM started the shutdown" "$(tail -n 3 "$LOG")"
kill -TERM "$SERVE_PID"
server_exit
expect "second: a second SIGTERM during the shutdown exits at once with 143" test "$STATUS" = 143
kill "$QUERY_PID" 2>/dev/null
wait "$QUERY_PID" 2>/dev/null
unset_setting http.shutdown_grace_ms

# --- stdio: SIGTERM finishes the running request ---------------------------------------

mkfifo "$WORK/stdio.in"
"$BIN" serve --db "$DB" <"$WORK/stdio.in" >"$WORK/stdio.out" 2>"$WORK/stdio.log" &
STDIO_PID=$!
BACKGROUND+=("$STDIO_PID")
exec {STDIO_IN}>"$WORK/stdio.in"
{
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"shutdown.sh","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_query\",\"arguments\":{\"query\":\"$SLOW\"}}}"
  # Answered at once, and only after the line before it was read: once its
  # answer is out, the query has been taken up.
  echo '{"jsonrpc":"2.0","id":3,"method":"ping"}'
} >&"$STDIO_IN"
for ((i = 0; i < 1200; i++)); do
  grep -q '"id":3' "$WORK/stdio.out" && break
  sleep 0.05
done
pinged=$(grep -c '"id":3' "$WORK/stdio.out")
kill -TERM "$STDIO_PID"
wait "$STDIO_PID"
stdio_status=$?
exec {STDIO_IN}>&-
answer=$(grep '"id":2' "$WORK/stdio.out")
if [ "$pinged" = 1 ] && [[ $answer == *1000000* ]] && [[ $answer != *'"isError":true'* ]]; then
  ok "stdio: a query read before SIGTERM finishes and is answered"
else
  not_ok "stdio: a query read before SIGTERM finishes and is answered" "ping answered: $pinged" \
    "answer: ${answer:0:300}" "$(tail -n 3 "$WORK/stdio.log")"
fi
id=$(call_id "$WORK/stdio.out")
expect "stdio: its audit row is written (status ok) and serve exits 0" \
  test -n "$id" -a "$(audit_status "$id")/$stdio_status" = ok/0

# --- reload: SIGHUP re-reads settings, the session goes on ------------------------------

start_server reload
HDR="$WORK/init.headers"
curl -s -D "$HDR" -o "$WORK/init.out" "$SERVE_URL" -H "Authorization: Bearer $KEY" \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"shutdown.sh","version":"1"}}}'
SID=$(grep -i '^mcp-session-id:' "$HDR" | cut -d' ' -f2 | tr -d '\r')
# legacy ID METHOD PARAMS OUT: one message in the session (ID empty: a
# notification); prints the HTTP status.
legacy() {
  curl -s --max-time 60 -o "$4" -w '%{http_code}' "$SERVE_URL" -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2025-11-25' -H "Mcp-Session-Id: $SID" \
    -d "{\"jsonrpc\":\"2.0\",${1:+\"id\":2,}\"method\":\"$2\"${3:+,\"params\":$3}}"
}
legacy "" notifications/initialized "" /dev/null >/dev/null
ROWS='SELECT x FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5) t ORDER BY x'
rows_call() { legacy 1 tools/call "{\"name\":\"execute_query\",\"arguments\":{\"query\":\"$ROWS\"}}" "$1"; }
before=$(rows_call "$WORK/before.out")
setting query.max_rows_default 2
setting log.level debug
kill -HUP "$SERVE_PID"
reloaded=0
wait_log '"reloaded: [0-9]+ setting\(s\) changed; log level debug' && reloaded=1
after=$(rows_call "$WORK/after.out")
expect "reload: SIGHUP keeps the server and the 2025-11-25 session (calls before and after answered 200)" \
  test "$before/$after/$reloaded" = "200/200/1"
if grep -q '5 rows ·' "$WORK/before.out" && grep -q '2 rows shown (more exist)' "$WORK/after.out"; then
  ok "reload: the row cap set with dbmcp sql applies to the session's next call (5 rows, then 2)"
else
  not_ok "reload: the row cap set with dbmcp sql applies to the session's next call (5 rows, then 2)" \
    "before: $(head -c 300 "$WORK/before.out")" "after:  $(head -c 300 "$WORK/after.out")"
fi
expect "reload: the log names the changed setting" \
  grep -q 'setting query.max_rows_default changed' "$LOG"
expect "reload: log.level debug is applied on SIGHUP" grep -q 'log level info -> debug' "$LOG"
setting log.level loud
setting http.shutdown_grace_ms soon
kill -HUP "$SERVE_PID"
wait_log "log level debug\"" >/dev/null
expect "reload: an invalid log.level is refused with a log line, the level stays" \
  wait_log "setting log.level: 'loud' is not debug, info, warn or error; the level stays debug"
expect "reload: an invalid http.shutdown_grace_ms is refused, the old grace stays" \
  wait_log 'http.shutdown_grace_ms: \\"soon\\" is not a whole number.*keeping the old HTTP limits \(shutdown grace 10000 ms\)'
again=$(rows_call "$WORK/again.out")
expect "reload: the session still works after the refused reload" test "$again" = 200
unset_setting http.shutdown_grace_ms
unset_setting log.level
kill -TERM "$SERVE_PID"
server_exit
expect "reload: serve still drains and exits 0 on SIGTERM afterwards" test "$STATUS" = 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
