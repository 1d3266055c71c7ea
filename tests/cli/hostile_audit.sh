#!/usr/bin/env bash
# hostile_audit.sh — the audit and the query connections of
# `dbmcp serve --http` under attack, from the issue "Bounded under attack",
# scaled down, on loopback only:
#
#   held lock    another process (tests/cli/hold_write_lock.c) holds the
#                database's write lock while clients call execute_query and
#                echo; the lock is released only after the audit writer has
#                failed twice past its busy timeout (the writer's warning
#                in the operator log says so: the old writer dropped the
#                batch at that point). Every call is answered with its
#                result, and after the release every call has exactly one
#                audit row; the warning names the rows pending
#   kill -9      clients call execute_query continuously from two keys;
#                after 150 answers the server is killed with SIGKILL. Every
#                call whose answer a client received whole has its audit
#                row (answers wait for their committed row)
#   query caps   query.max_concurrent_per_key 2 and query.max_concurrent 4:
#                one key fires 8 endless queries at once; 2 run and 6 are
#                refused at once with a tool error naming the cap and its
#                setting; its `sql` resource template read is refused the
#                same way; another key's query succeeds while the 2 still
#                run (before: it waited for their connections); once two
#                keys hold all 4 slots a third key is refused by the total
#                cap
#
# Waits are for events: the server's "listening on" line, a line of its
# operator log, the lock holder's "locked", a helper's "threshold", curl
# processes ending. The only time bounds are generous upper bounds on
# those waits (60 s). Needs bash, curl and node;
# builds build/tests/cli/hold_write_lock. Prints "N passed, M failed";
# exits 1 on any failure.
#
# Usage: tests/cli/hostile_audit.sh     (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
LOAD="$ROOT/tests/cli/hostile_audit.mjs"
LOCKER="$ROOT/build/tests/cli/hold_write_lock"

command -v node >/dev/null || { echo "hostile_audit.sh: node is required" >&2; exit 1; }
command -v curl >/dev/null || { echo "hostile_audit.sh: curl is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "hostile_audit.sh: $BIN not built (run make)" >&2; exit 1; }
make -s -C "$ROOT" build/tests/cli/hold_write_lock >&2 ||
  { echo "hostile_audit.sh: cannot build $LOCKER" >&2; exit 1; }
. "$ROOT/tests/cli/serve_http.sh"

WORK="$(mktemp -d)"
DB="$WORK/audit.db"
SERVE_PID=""
LOCK_FD=""
BACKGROUND=()
cleanup() {
  [ -n "$LOCK_FD" ] && exec {LOCK_FD}>&-
  for pid in "${BACKGROUND[@]}"; do kill "$pid" 2>/dev/null; done
  [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
unset DBMCP_DB DBMCP_PRINCIPAL DBMCP_INTERFACE DBMCP_ALLOWED_TOOLS

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

# --- setup ----------------------------------------------------------------------

"$BIN" init --db "$DB" >/dev/null 2>&1 || { echo "hostile_audit.sh: init failed" >&2; exit 1; }
new_key() { "$BIN" keys create --db "$DB" --interface default --principal "$1" 2>/dev/null; }
KEY_A="$(new_key alice)"
KEY_B="$(new_key bob)"
KEY_C="$(new_key carol)"
setting() {
  "$BIN" sql --db "$DB" "INSERT INTO dbmcp_settings (key, value) VALUES ('$1', '$2')
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value"
}

# start_server NAME: `dbmcp serve --http` on a free port; its stderr (the
# operator log) goes to $WORK/NAME.log. Sets SERVE_PID, SERVE_URL, LOG.
start_server() {
  LOG="$WORK/$1.log"
  if ! serve_http_start "$LOG" "$BIN" serve --db "$DB" --http 127.0.0.1:0; then
    echo "hostile_audit.sh: the server did not start:" >&2
    cat "$LOG" >&2
    exit 1
  fi
}

stop_server() {
  kill -TERM "$SERVE_PID" 2>/dev/null
  wait "$SERVE_PID" 2>/dev/null
  SERVE_PID=""
}

# wait_log REGEX SECONDS: until a line of $LOG matches (tail follows the
# file as it grows); 1 when none did within SECONDS.
wait_log() {
  local line fd found=1 end=$((SECONDS + $2))
  exec {fd}< <(exec tail -n +1 -F "$LOG" 2>/dev/null)
  local tail_pid=$!
  while [ "$SECONDS" -lt "$end" ] && IFS= read -r -t "$((end - SECONDS + 1))" -u "$fd" line; do
    if [[ $line =~ $1 ]]; then
      found=0
      MATCHED="$line"
      break
    fi
  done
  kill "$tail_pid" 2>/dev/null
  exec {fd}<&-
  return $found
}

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# post KEY METHOD NAME PARAMS_JSON OUT: one 2026-07-28 request; the body
# goes to OUT, the HTTP status to OUT.code, curl's process id to OUT.pid
# (so that the suite can end this client, and only it).
post() {
  curl -s --max-time 60 -o "$5" -w '%{http_code}' "$SERVE_URL" -H "Authorization: Bearer $1" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: $2" -H "Mcp-Name: $3" \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$2\",\"params\":${4%\}},$META}}" >"$5.code" &
  local pid=$!
  echo "$pid" >"$5.pid"
  wait "$pid"
}
# tool KEY NAME ARGUMENTS_JSON OUT
tool() { post "$1" tools/call "$2" "{\"name\":\"$2\",\"arguments\":$3}" "$4"; }
call_id() { grep -o '"dbmcp/callId":"[^"]*"' "$1" 2>/dev/null | head -n 1 | cut -d'"' -f4; }

# audit_rows_of FILE: for each call id in FILE (one a line), how many rows
# `dbmcp audit` shows; prints "ids missing duplicated".
audit_rows_of() {
  "$BIN" audit --db "$DB" --limit 1000000 2>/dev/null | awk 'NR > 1 { print $2 }' | sort >"$WORK/audited"
  sort "$1" | awk -v audited="$WORK/audited" '
    BEGIN { while ((getline id < audited) > 0) n[id]++ }
    { ids++; if (!($1 in n)) missing++; else if (n[$1] > 1) dup++ }
    END { printf "%d %d %d\n", ids, missing + 0, dup + 0 }'
}

# --- held lock ------------------------------------------------------------------------

setting audit.lag_warn_ms 1000
start_server lock
# One call per key first: its last_used_at is then fresh, so the calls
# below do not also wait on the key's (best-effort) last-use write.
for key in "$KEY_A" "$KEY_B"; do tool "$key" echo '{"text":"warm"}' "$WORK/warm.out"; done

mkfifo "$WORK/lock.in"
"$LOCKER" "$DB" <"$WORK/lock.in" >"$WORK/lock.out" 2>&1 &
LOCKER_PID=$!
BACKGROUND+=("$LOCKER_PID")
exec {LOCK_FD}>"$WORK/lock.in"
locked=""
exec {lfd}< <(exec tail -n +1 -F "$WORK/lock.out" 2>/dev/null)
LTAIL=$!
IFS= read -r -t 60 -u "$lfd" locked
kill "$LTAIL" 2>/dev/null
exec {lfd}<&-
[ "$locked" = locked ] || { echo "hostile_audit.sh: the lock holder failed: $(cat "$WORK/lock.out")" >&2; exit 1; }

# The clients must not inherit the pipe's write end: the lock holder sees
# the end of its input only when every writer has closed it.
LOCK_PIDS=()
for i in 1 2 3 4 5 6 7 8; do
  key=$KEY_A
  [ $((i % 2)) = 0 ] && key=$KEY_B
  (
    exec {LOCK_FD}>&-
    tool "$key" execute_query "{\"query\":\"SELECT $i AS call\"}" "$WORK/locked$i.out"
  ) &
  LOCK_PIDS+=($!)
done
for i in 1 2; do
  (
    exec {LOCK_FD}>&-
    tool "$KEY_A" echo "{\"text\":\"during $i\"}" "$WORK/locked_echo$i.out"
  ) &
  LOCK_PIDS+=($!)
done
BACKGROUND+=("${LOCK_PIDS[@]}")
# Two failed attempts of about 5 s each (the busy timeout): the previous
# writer dropped the batch here.
warned=0
wait_log 'audit writer behind: [0-9]+ rows pending.* ([2-9]|[1-9][0-9]+) failed write attempts' 60 && warned=1
warning="${MATCHED:-}"
exec {LOCK_FD}>&-
LOCK_FD=""
wait "$LOCKER_PID"
for pid in "${LOCK_PIDS[@]}"; do wait "$pid"; done
answered=0
: >"$WORK/lock_ids"
for f in "$WORK"/locked*.out; do
  if [ "$(cat "$f.code")" = 200 ] && ! grep -q '"isError":true' "$f" && [ -n "$(call_id "$f")" ]; then
    answered=$((answered + 1))
    call_id "$f" >>"$WORK/lock_ids"
  fi
done
caught_up=0
wait_log 'audit writer caught up' 60 && caught_up=1
stop_server
read -r ids missing dup < <(audit_rows_of "$WORK/lock_ids")
if [ "$warned" = 1 ] && [ "$answered" = 10 ] && [ "$ids" = 10 ] && [ "$missing" = 0 ] && [ "$dup" = 0 ] &&
  [ "$caught_up" = 1 ]; then
  ok "held lock: 10 calls made while another process held the write lock past two busy timeouts each have exactly one audit row"
else
  not_ok "held lock: 10 calls made while another process held the write lock past two busy timeouts each have exactly one audit row" \
    "warning after two failed attempts: $warned ($warning)" "answered with a result: $answered of 10" \
    "call ids: $ids, without a row: $missing, with several: $dup" "caught-up line: $caught_up" \
    "$(grep '"audit"' "$LOG" | tail -n 5)"
fi
measure "$(sed 's/.*"msg":"\(.*\)"}$/\1/' <<<"$warning")"
if [[ "$warning" =~ ([0-9]+)\ rows\ pending ]] && [ "${BASH_REMATCH[1]}" -ge 1 ]; then
  ok "held lock: the operator log shows the pending rows, their age and the failed attempts"
else
  not_ok "held lock: the operator log shows the pending rows, their age and the failed attempts" "$warning"
fi

# --- kill -9 ---------------------------------------------------------------------------

start_server kill
mkfifo "$WORK/load.fifo"
node "$LOAD" load "$SERVE_URL" "$KEY_A,$KEY_B" 3 150 "$WORK/answered" >"$WORK/load.fifo" &
LOAD_PID=$!
BACKGROUND+=("$LOAD_PID")
exec {load_fd}<"$WORK/load.fifo"
rm -f "$WORK/load.fifo"
first=""
IFS= read -r -t 60 -u "$load_fd" first
kill -KILL "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null
SERVE_PID=""
summary="$(cat <&"$load_fd")"
exec {load_fd}<&-
wait "$LOAD_PID"
read -r ids missing dup < <(audit_rows_of "$WORK/answered")
if [ "$first" = threshold ] && [ "$ids" -ge 150 ] && [ "$missing" = 0 ] && [ "$dup" = 0 ]; then
  ok "kill -9: every one of $ids calls whose answer a client received has its audit row"
else
  not_ok "kill -9: every call whose answer a client received has its audit row" \
    "helper: ${first:-no threshold} $summary" "answers: $ids, without a row: $missing, with several: $dup"
fi
measure "load under SIGKILL: $summary"

# --- query caps ---------------------------------------------------------------------------

setting query.max_concurrent_per_key 2
setting query.max_concurrent 4
ENDLESS='WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c'
echo '{"uri_template": "slow://{n}", "name": "slow", "handler_kind": "sql",
  "handler": "WITH RECURSIVE c(x) AS (VALUES(:n) UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
  "interfaces": ["default"]}' >"$WORK/slow.json"
"$BIN" templates add --db "$DB" --file "$WORK/slow.json" >/dev/null 2>&1 ||
  { echo "hostile_audit.sh: templates add failed" >&2; exit 1; }
start_server caps

# slow KEY N TAG: N endless queries at once; each curl reports its index on
# the FIFO $WORK/TAG.done when its answer came.
slow() {
  local i
  mkfifo "$WORK/$3.done"
  exec {done_fd}<>"$WORK/$3.done"
  for i in $(seq 1 "$2"); do
    (tool "$1" execute_query "{\"query\":\"$ENDLESS\"}" "$WORK/$3$i.out"; echo "$i" >&"$done_fd") &
    BACKGROUND+=($!)
  done
}
# answers N: read N indexes from the last slow() FIFO (60 s at most).
answers() {
  local n=0 i
  while [ "$n" -lt "$1" ] && IFS= read -r -t 60 -u "$done_fd" i; do n=$((n + 1)); done
  echo "$n"
}
refused_by() { grep -l "$1" "$WORK"/"$2"*.out 2>/dev/null | wc -l; }

slow "$KEY_A" 8 a
got_a=$(answers 6)
refused_a=$(refused_by 'query.max_concurrent_per_key' a)
post "$KEY_A" resources/read slow://1 '{"uri":"slow://1"}' "$WORK/a_resource.out"
tool "$KEY_B" execute_query '{"query":"SELECT 42 AS answer"}' "$WORK/b_quick.out"
# curl writes the status when it ends: key A's two endless queries must
# still be running when B's answer is in (B did not wait for a connection
# they hold).
a_done=0
for f in "$WORK"/a[1-8].out.code; do [ -s "$f" ] && a_done=$((a_done + 1)); done
if [ "$got_a" = 6 ] && [ "$refused_a" = 6 ] && grep -q '"isError":true' "$WORK"/a*.out &&
  grep -q 'Too many queries are running for this API key: at most 2 at once (setting query.max_concurrent_per_key)' "$WORK"/a[1-8].out; then
  ok "query caps: a key firing 8 endless queries has 2 running and 6 refused at once, naming the cap and its setting"
else
  not_ok "query caps: a key firing 8 endless queries has 2 running and 6 refused at once, naming the cap and its setting" \
    "answered at once: $got_a of 6, refused by the per-key cap: $refused_a" "$(head -c 400 "$WORK/a1.out")"
fi
if grep -q '"code":-32000' "$WORK/a_resource.out" && grep -q 'query.max_concurrent_per_key' "$WORK/a_resource.out"; then
  ok "query caps: the key's sql resource template read is refused by the same cap"
else
  not_ok "query caps: the key's sql resource template read is refused by the same cap" \
    "$(cat "$WORK/a_resource.out.code") $(head -c 400 "$WORK/a_resource.out")"
fi
if [ "$(cat "$WORK/b_quick.out.code")" = 200 ] && grep -q '42' "$WORK/b_quick.out" &&
  ! grep -q '"isError":true' "$WORK/b_quick.out" && [ "$a_done" = 6 ]; then
  ok "query caps: another key's query succeeds while the first key's queries still run"
else
  not_ok "query caps: another key's query succeeds while the first key's queries still run" \
    "$(cat "$WORK/b_quick.out.code") $(head -c 400 "$WORK/b_quick.out")" \
    "key A's calls answered before it: $a_done (want the 6 refused ones only)"
fi

# B takes two more slots (its third query is refused by the per-key cap,
# which proves the two run): all 4 are taken, and C is refused by the total.
slow "$KEY_B" 3 b
got_b=$(answers 1)
refused_b=$(refused_by 'query.max_concurrent_per_key' b)
tool "$KEY_C" execute_query '{"query":"SELECT 1 AS one"}' "$WORK/c_quick.out"
if [ "$got_b" = 1 ] && [ "$refused_b" = 1 ] &&
  grep -q 'Too many queries are running on this server: at most 4 at once (setting query.max_concurrent)' "$WORK/c_quick.out"; then
  ok "query caps: with all 4 slots taken by two keys a third key is refused by query.max_concurrent"
else
  not_ok "query caps: with all 4 slots taken by two keys a third key is refused by query.max_concurrent" \
    "key B: $got_b answered, $refused_b refused by its cap" "key C: $(head -c 400 "$WORK/c_quick.out")"
fi

# The running queries end when their clients leave (2026-07-28: closing the
# response cancels); the server then stops.
for f in "$WORK"/a[1-8].out.pid "$WORK"/b[1-3].out.pid; do kill "$(cat "$f")" 2>/dev/null; done
stop_server

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
