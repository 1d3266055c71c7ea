#!/usr/bin/env bash
# memory.sh — agent memory end to end (docs/memory.md) through the one
# dispatch path: `dbmcp call --principal` and HTTP with real API keys
# (`dbmcp keys create`, curl). Cases: keyword recall before embeddings
# exist; de-duplication; knowledge versioning with as-of reads before and
# after an update, forgetting; scope isolation between users (arguments,
# links and graph traversal never reach another user's rows; an agent-bound
# key cannot switch agents); clear errors for bad arguments; expiry and
# compaction, including a crash inside a compaction transaction; nothing
# learned across users (bob's memory_search byte-identical whatever alice
# saves or erases with his words); LLM
# summaries from the scripted provider (tests/stub) and the extractive
# fallback when it fails; a server
# killed while embedding jobs are pending, restarted, completing them all.
# Never asserts timings and never sleeps for them: as-of reads use the times
# the product recorded, sessions are made idle by moving their times back,
# servers bind port 0 (tests/cli/serve_http.sh), and waits for a background
# effect poll with a deadline of a minute. Prints "N passed, M failed";
# exits 1 on failure.
#
# Usage: tests/cli/memory.sh     (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"

command -v node >/dev/null || { echo "memory.sh: node is required" >&2; exit 1; }
command -v curl >/dev/null || { echo "memory.sh: curl is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "memory.sh: $BIN not built (run make)" >&2; exit 1; }

# shellcheck source=tests/cli/serve_http.sh
. "$ROOT/tests/cli/serve_http.sh"
# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"

WORK="$(mktemp -d)"
SERVER_PID=""
STUB_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill -9 "$SERVER_PID" 2>/dev/null
  [ -n "$STUB_PID" ] && kill "$STUB_PID" 2>/dev/null
  test_db_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT
# Nothing from the caller's environment (DBMCP_DB, DBMCP_PRINCIPAL, DBMCP_LLM_*, …)
# but the test database server (DBMCP_TEST_PG, see lib/db.sh).
for v in $(compgen -e | grep '^DBMCP_' | grep -v '^DBMCP_TEST_PG'); do unset "$v"; done
export DBMCP_LOG=error

passed=0
failed=0
OUT="$WORK/out"
ERR="$WORK/err"
DB="$(test_db memory)" || exit 1

ok() { passed=$((passed + 1)); }
fail() {
  failed=$((failed + 1))
  echo "FAIL: $1" >&2
  [ -s "$OUT" ] && sed 's/^/  out: /' "$OUT" | head -20 >&2
  [ -s "$ERR" ] && sed 's/^/  err: /' "$ERR" | head -10 >&2
}
# expect NAME CMD...: the command succeeds.
expect() {
  local name=$1
  shift
  if "$@"; then ok; else fail "$name"; fi
}

# call PRINCIPAL TOOL JSON: one tool call as that user (interface memory);
# the result text in $OUT, stderr in $ERR; returns dbmcp's status.
call() {
  "$BIN" call --db "$DB" --interface memory --principal "$1" "$2" "$3" >"$OUT" 2>"$ERR"
}
# j EXPR: evaluate a JS expression over the JSON in $OUT (as r); prints it.
j() { node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const v=('"$1"');process.stdout.write(String(v))' "$OUT"; }
# is EXPR: the expression over $OUT is true.
is() { [ "$(j "$1" 2>/dev/null)" = true ]; }
# sql QUERY: run SQL on the database (never touches the FTS table); `dbmcp sql`
# waits up to a minute for a lock a running server holds.
sql() { db_sql "$DB" "$1"; }
set_setting() { sql "INSERT INTO dbmcp_settings (key, value) VALUES ('$1', '$2') ON CONFLICT (key) DO UPDATE SET value = excluded.value"; }
# ms_before ISO: the ISO time one millisecond earlier (dbmcp's format).
ms_before() { node -e 'process.stdout.write(new Date(Date.parse(process.argv[1]) - 1).toISOString())' "$1"; }
# after ISO: return once the clock has passed ISO (at dbmcp's millisecond
# resolution), so the next write gets a later time than ISO.
# (Compared as numbers, YYYYMMDDhhmmssSSS: no locale collation involved.)
after() {
  local t=${1//[^0-9]/}
  while (( 10#$(date -u +%Y%m%d%H%M%S%3N) <= 10#$t )); do sleep 0.01; done
}
# stats_match: the BM25 figures kept per scope (dbmcp_mem_scope_stats, kept
# by triggers) equal a count of the items, for every scope that has any.
stats_match() {
  test "$(sql "SELECT count(*) FROM (SELECT user_id, agent_id, count(*) AS n, sum(fts_length) AS len FROM dbmcp_mem_items GROUP BY user_id, agent_id) c LEFT JOIN dbmcp_mem_scope_stats s ON s.user_id = c.user_id AND s.agent_id = c.agent_id WHERE s.items IS NULL OR s.items <> c.n OR s.length <> c.len")/$(sql "SELECT count(*) FROM dbmcp_mem_scope_stats s WHERE s.items <> 0 AND NOT EXISTS (SELECT 1 FROM dbmcp_mem_items i WHERE i.user_id = s.user_id AND i.agent_id = s.agent_id)")" = "0/0"
}
# wait_until COMMAND…: poll COMMAND until it succeeds, for up to a minute;
# the effect awaited happens in the background (a server's worker).
wait_until() {
  local i
  for i in $(seq 1 600); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}
# idle_sessions: make every active session but $ACTIVE (when set) look idle
# for two hours, by moving its times back; with memory.session_idle_s 3600
# compaction expires exactly these, however long the test took so far.
# The times are moved here, not in SQL: the engines' date arithmetic
# differs, and the suite runs on both.
idle_sessions() {
  local id created active
  while IFS='|' read -r id created active; do
    sql "UPDATE dbmcp_mem_sessions SET created_at = '$(two_hours_before "$created")',
           last_active_at = '$(two_hours_before "$active")' WHERE id = '$id'"
  done < <(sql "SELECT id, created_at, last_active_at FROM dbmcp_mem_sessions
                WHERE state = 'active' AND id <> '${ACTIVE:-}'")
}
# two_hours_before ISO: the ISO-8601 UTC time (milliseconds, Z) two hours earlier.
two_hours_before() {
  local ms
  ms=$(($(date -u -d "$1" +%s%3N) - 7200000))
  date -u -d "@$((ms / 1000)).$(printf %03d $((ms % 1000)))" +%Y-%m-%dT%H:%M:%S.%3NZ
}
# fails_with TEXT: the last call failed and said TEXT.
fails_with() { ! [ "$1" = "" ] && grep -qF -- "$1" "$OUT" "$ERR"; }

# init: a database with the interface `memory` serving the memory tools, as
# `init --demo` sets it up (the base seed defines the tools, no interface).
init() {
  "$BIN" init --db "$DB" >/dev/null 2>"$ERR" || { cat "$ERR" >&2; exit 1; }
  sql "INSERT INTO dbmcp_interfaces (name, description) VALUES ('memory', 'memory tools');
       INSERT INTO dbmcp_interface_tools (interface, tool) SELECT 'memory', name FROM dbmcp_tools
       WHERE handler IN ('save_message', 'get_session_history', 'save_episode', 'search_episodes',
       'save_knowledge', 'get_knowledge', 'search_knowledge', 'forget_knowledge', 'memory_search',
       'link', 'memory_graph')"
}
init

# --- keyword recall before embeddings ------------------------------------------------

call alice save_message '{"role":"user","content":"The warehouse in Hamburg opens at seven in the morning."}'
SESSION=$(j r.session_id)
expect "save_message opens a session" is 'r.new_session===true && r.message_id>0 && r.agent==="default"'
call alice memory_search '{"query":"when does the Hamburg warehouse open"}'
expect "a fresh message is found by keyword before any embedding exists" \
  is 'r.hits.length===1 && r.hits[0].tier==="message" && r.hits[0].embedded===false && r.hits[0].scores.keyword_rank===1 && r.hits[0].scores.vector_rank===0'
expect "each hit reports its component scores" \
  is '["rrf","bm25","status_weight","recency_weight","frequency_weight","final"].every(k=>typeof r.hits[0].scores[k]==="number")'
expect "the embedding job is still pending (nothing embeds outside serve)" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_jobs")" -ge 1
expect "the search was logged" \
  test "$(sql "SELECT count(*) FROM dbmcp_memory_log WHERE user_id='alice' AND operation='search' AND results=1")" = 1

# --- de-duplication ----------------------------------------------------------------------

call alice save_message "{\"session_id\":\"$SESSION\",\"role\":\"assistant\",\"content\":\"Noted: Hamburg opens at seven.\"}"
M2=$(j r.message_id)
call alice save_message "{\"session_id\":\"$SESSION\",\"role\":\"assistant\",\"content\":\"  Noted: Hamburg opens at seven.\r\n\"}"
expect "an exact repeat of the last message is not stored again" is "r.message_id===$M2 && r.deduplicated===true"
call alice save_message '{"role":"user","content":"Noted: Hamburg opens at seven."}'
expect "the same text in another session shares the stored content" is 'r.deduplicated===true && r.new_session===true'
expect "the content is stored once per scope" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_items WHERE user_id='alice' AND text='Noted: Hamburg opens at seven.'")" = 1
call alice get_session_history "{\"session_id\":\"$SESSION\"}"
expect "history keeps every message of the session in order" \
  is 'r.messages.length===2 && r.messages[0].role==="user" && r.messages[1].content==="Noted: Hamburg opens at seven."'
call bob save_message '{"role":"user","content":"Noted: Hamburg opens at seven."}'
expect "another user's identical text is a separate item" \
  is 'r.deduplicated===false'

# An assistant message carries its tool calls (OpenAI shape); tool messages answer them by id.
call tina save_message '{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"sales_by_region","arguments":"{\"year\":2024}"}},{"id":"c2","function":{"name":"sales_by_region","arguments":"{}"}}]}'
TSESSION=$(j r.session_id)
expect "an assistant message with tool calls and no text is stored" is 'r.message_id>0'
call tina save_message "{\"session_id\":\"$TSESSION\",\"role\":\"tool\",\"content\":\"revenue 42\",\"tool_call_id\":\"c1\",\"tool_name\":\"sales_by_region\"}"
call tina get_session_history "{\"session_id\":\"$TSESSION\"}"
expect "history shows the tool calls and the tool message answering one by id" \
  is 'r.messages[0].tool_calls.length===2 && r.messages[0].tool_calls[0].function.arguments==="{\"year\":2024}" && r.messages[0].tool_calls[1].type==="function" && r.messages[1].tool_call_id==="c1" && r.messages[1].tool_name==="sales_by_region" && r.messages[1].tool_calls===undefined'
call tina save_message '{"role":"user","content":"x","tool_calls":[{"id":"c1","function":{"name":"t","arguments":"{}"}}]}'
expect "only an assistant message may carry tool calls" fails_with "tool_calls: only an assistant message has them"
call tina save_message '{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"name":"t"}}]}'
expect "a tool call without arguments is refused by the schema" fails_with "arguments"
expect "refused tool calls wrote nothing" test "$(sql "SELECT count(*) FROM dbmcp_mem_messages WHERE user_id='tina'")" = 2

# --- knowledge versions and as-of reads ------------------------------------------------------

# The as-of times come from the versions themselves: T0 is just before the
# first took effect, T1 the instant it did, T2 the instant the second did.
# `after` only makes sure each write gets a later millisecond than the last.
call alice save_knowledge '{"key":"home_city","value":"Berlin","category":"user_preference"}'
K1=$(j r.knowledge_id)
T1=$(sql "SELECT effective_from FROM dbmcp_mem_knowledge WHERE id = $K1")
T0=$(ms_before "$T1")
after "$T1"
call alice save_knowledge '{"key":"home_city","value":"Munich","category":"user_preference"}'
K2=$(j r.knowledge_id)
T2=$(sql "SELECT effective_from FROM dbmcp_mem_knowledge WHERE id = $K2")
expect "each version is recorded with the time it took effect" \
  test -n "$T0" -a -n "$T1" -a -n "$T2"
call alice get_knowledge "{\"key\":\"home_city\",\"as_of\":\"$T1\"}"
expect "as of a time before the update the old value is read" is 'r.versions.length===1 && r.versions[0].value==="Berlin" && r.versions[0].effective_to!==null'
call alice get_knowledge '{"key":"home_city"}'
expect "after the update the current value is the new one" is 'r.versions.length===1 && r.versions[0].value==="Munich" && r.versions[0].effective_to===null'
call alice get_knowledge "{\"key\":\"home_city\",\"as_of\":\"$T0\"}"
expect "as of a time before the first version nothing was known" is 'r.versions.length===0'
call alice get_knowledge '{"key":"home_city","history":true}'
expect "the old version was closed, not overwritten" \
  is 'r.versions.length===2 && r.versions[0].closed_by==="update" && r.versions[0].effective_to===r.versions[1].effective_from'
call alice save_knowledge '{"key":"home_city","value":"  Munich ","category":"user_preference"}'
expect "the same value again changes nothing" is "r.unchanged===true && r.knowledge_id===$K2"
call alice search_knowledge '{"query":"home city"}'
expect "search_knowledge sees only the current version" is 'r.hits.length===1 && r.hits[0].key==="home_city" && r.hits[0].text.includes("Munich")'
call alice search_knowledge "{\"query\":\"home city\",\"as_of\":\"$T1\"}"
expect "search_knowledge as_of sees the version then in force" is "r.hits.length===1 && r.hits[0].id===\"$K1\""
call alice memory_graph "{\"kind\":\"knowledge\",\"id\":\"$K2\"}"
expect "the new version supersedes the old one in the graph" \
  is "r.edges.some(e=>e.relation===\"supersedes\" && e.from===\"knowledge:$K2\" && e.to===\"knowledge:$K1\")"
after "$T2"
call alice forget_knowledge '{"key":"home_city"}'
expect "forget closes the current version" is 'r.closed==="home_city" && r.versions===1'
call alice get_knowledge '{"key":"home_city"}'
expect "after forgetting there is no current value" is 'r.versions.length===0'
call alice get_knowledge "{\"key\":\"home_city\",\"as_of\":\"$T2\"}"
expect "the past is still readable after forgetting" is 'r.versions.length===1 && r.versions[0].value==="Munich"'

# --- episodes ------------------------------------------------------------------------------

call alice save_episode "{\"session_id\":\"$SESSION\",\"task_type\":\"lookup\",\"description\":\"Find the opening hours of the Hamburg warehouse\",\"status\":\"success\",\"summary\":\"Opens at seven.\"}"
EP=$(j r.episode_id)
call alice save_episode '{"task_type":"lookup","description":"Find the opening hours of the Bremen warehouse","status":"failed","summary":"Bremen hours unknown."}'
call alice search_episodes '{"query":"opening hours warehouse"}'
expect "successful episodes rank first" is 'r.hits.length===2 && r.hits[0].status==="success" && r.hits[0].scores.status_weight>r.hits[1].scores.status_weight'
call alice save_episode "{\"session_id\":\"$SESSION\",\"task_type\":\"lookup\",\"description\":\"Find the opening hours of the Hamburg warehouse\",\"status\":\"success\",\"summary\":\"Opens at seven.\"}"
expect "the same episode is stored once" is "r.deduplicated===true && r.episode_id===$EP"
call alice link "{\"src_kind\":\"knowledge\",\"src_id\":\"$K1\",\"dst_kind\":\"episode\",\"dst_id\":\"$EP\",\"relation\":\"about\"}"
expect "link connects two items of the caller's memory" is 'r.link_id>0 && r.existed===false'
call alice memory_graph "{\"kind\":\"session\",\"id\":\"$SESSION\",\"depth\":3}"
expect "the graph walks session → episode → knowledge" \
  is "r.nodes.some(n=>n.kind===\"episode\" && n.id===\"$EP\") && r.nodes.some(n=>n.kind===\"knowledge\" && n.id===\"$K1\")"

# --- scope isolation -------------------------------------------------------------------------

ALICE_ROWS="$(sql "SELECT (SELECT count(*) FROM dbmcp_mem_messages WHERE user_id='alice') || '/' || (SELECT count(*) FROM dbmcp_mem_links WHERE user_id='alice') || '/' || (SELECT count(*) FROM dbmcp_mem_knowledge WHERE user_id='alice')")"
call bob memory_search '{"query":"Hamburg warehouse opening hours seven"}'
expect "bob's search never returns alice's rows" is 'r.hits.every(h=>h.text==="Noted: Hamburg opens at seven.") && r.hits.length<=1'
call bob memory_search '{"query":"Hamburg warehouse opening hours seven","agent":"default","tiers":["episode","knowledge"]}'
expect "naming alice's agent does not help bob" is 'r.hits.length===0'
call bob get_session_history "{\"session_id\":\"$SESSION\"}"
expect "bob cannot read alice's session" fails_with "unknown session"
call bob save_message "{\"session_id\":\"$SESSION\",\"role\":\"user\",\"content\":\"injected\"}"
expect "bob cannot write into alice's session" fails_with "unknown session"
call bob get_knowledge '{"key":"home_city","history":true}'
expect "bob cannot read alice's knowledge" is 'r.versions.length===0'
call bob forget_knowledge '{"key":"home_city","erase":true}'
expect "bob cannot erase alice's knowledge" fails_with "no knowledge"
call bob save_message '{"role":"user","content":"bob was here"}'
BOB_SESSION=$(j r.session_id)
call bob link "{\"src_kind\":\"session\",\"src_id\":\"$BOB_SESSION\",\"dst_kind\":\"episode\",\"dst_id\":\"$EP\",\"relation\":\"about\"}"
expect "bob cannot link to alice's episode" fails_with "no episode '$EP'"
call bob memory_graph "{\"kind\":\"episode\",\"id\":\"$EP\"}"
expect "bob cannot start a graph walk at alice's episode" fails_with "no episode '$EP'"
call bob memory_graph "{\"kind\":\"session\",\"id\":\"$BOB_SESSION\",\"depth\":4}"
expect "bob's graph walk stays in bob's memory" is 'r.nodes.length===1 && r.edges.length===0'
expect "alice's rows are untouched by bob's attempts" \
  test "$(sql "SELECT (SELECT count(*) FROM dbmcp_mem_messages WHERE user_id='alice') || '/' || (SELECT count(*) FROM dbmcp_mem_links WHERE user_id='alice') || '/' || (SELECT count(*) FROM dbmcp_mem_knowledge WHERE user_id='alice')")" = "$ALICE_ROWS"
call alice memory_search '{"query":"Hamburg","agent":"planner"}'
expect "another agent of the same user has its own memory" is 'r.hits.length===0'

# Over HTTP with real keys: carol (any agent), dave, and carol bound to agent bot.
KEY_CAROL=$("$BIN" keys create --db "$DB" --interface memory --user carol 2>/dev/null)
KEY_DAVE=$("$BIN" keys create --db "$DB" --interface memory --user dave 2>/dev/null)
KEY_BOT=$("$BIN" keys create --db "$DB" --interface memory --user carol --agent bot 2>/dev/null)
# start_server: dbmcp serve --http on a port the system picks; returns once
# it accepts connections (it says so on stderr); URL is its /mcp endpoint.
start_server() {
  local started=0
  : >"$WORK/server.log"
  serve_http_start "$WORK/server.log" "$BIN" serve --db "$DB" --http 127.0.0.1:0 || started=1
  SERVER_PID=$SERVE_PID
  URL=$SERVE_URL
  if [ "$started" != 0 ]; then
    echo "memory.sh: the server did not start:" >&2
    cat "$WORK/server.log" >&2
    exit 1
  fi
}
stop_server() { # stop_server SIGNAL
  kill "-$1" "$SERVER_PID" 2>/dev/null
  wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}
# http KEY TOOL JSON: a stateless tools/call; the tool's text result in $OUT.
http() {
  local body
  body=$(node -e 'process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:1,method:"tools/call",params:{name:process.argv[1],arguments:JSON.parse(process.argv[2]),_meta:{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}))' "$2" "$3")
  curl -s "$URL" -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/call' -H "Mcp-Name: $2" -d "$body" >"$WORK/http.json" 2>"$ERR"
  node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const c=(r.result&&r.result.content)||[];process.stdout.write(c.map(b=>b.text).join("\n")||JSON.stringify(r));process.exit(r.result&&!r.result.isError?0:1)' "$WORK/http.json" >"$OUT"
}
start_server
http "$KEY_CAROL" save_knowledge '{"key":"salary_band","value":"E13"}'
expect "carol saves over HTTP" is 'r.knowledge_id>0'
http "$KEY_DAVE" get_knowledge '{"key":"salary_band"}'
expect "dave's key cannot read carol's knowledge" is 'r.versions.length===0'
http "$KEY_DAVE" search_knowledge '{"query":"salary band E13","agent":"default"}'
expect "dave's key cannot find carol's knowledge, whatever agent it names" is 'r.hits.length===0'
http "$KEY_CAROL" get_knowledge '{"key":"salary_band"}'
expect "carol reads her own knowledge" is 'r.versions.length===1 && r.versions[0].value==="E13"'
http "$KEY_BOT" get_knowledge '{"key":"salary_band","agent":"default"}'
expect "a key bound to agent bot may not use another agent" fails_with "may only use agent 'bot'"
http "$KEY_BOT" save_knowledge '{"key":"salary_band","value":"E14"}'
http "$KEY_CAROL" get_knowledge '{"key":"salary_band"}'
expect "agent bot's memory is separate from agent default's" is 'r.versions[0].value==="E13"'
http "$KEY_CAROL" get_knowledge '{"key":"salary_band","agent":"bot"}'
expect "a key for any agent of carol may read agent bot" is 'r.versions[0].value==="E14"'
stop_server TERM
expect "every row carries its scope" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_knowledge WHERE user_id IS NULL OR agent_id IS NULL OR user_id='' OR agent_id=''")" = 0

# --- bad arguments -----------------------------------------------------------------------------

call alice get_session_history '{"session_id":"no-such-session"}'
expect "unknown session: clear error" fails_with "session_id: unknown session 'no-such-session'"
set_setting memory.max_content_bytes 100
SESSIONS_BEFORE=$(sql "SELECT count(*) FROM dbmcp_mem_sessions WHERE user_id='alice'")
call alice save_message "{\"role\":\"user\",\"content\":\"$(printf 'x%.0s' $(seq 1 150))\"}"
expect "huge content: clear error naming the limit" fails_with "content is 150 bytes; the limit is 100 (setting memory.max_content_bytes)"
expect "a refused message leaves no empty session behind" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_sessions WHERE user_id='alice'")" = "$SESSIONS_BEFORE"
sql "DELETE FROM dbmcp_settings WHERE key='memory.max_content_bytes'"
call alice get_knowledge '{"key":"home_city","as_of":"last tuesday"}'
expect "invalid time: clear error" fails_with "as_of: 'last tuesday' is not an ISO-8601 time"
call alice memory_search '{"query":"x","from":"2026-02-30"}'
expect "impossible date: clear error" fails_with "from: '2026-02-30' is not a valid date"
call alice memory_search '{"query":"Hamburg","tiers":["facts"]}'
expect "bad tier: clear error" fails_with "tiers"
call alice save_message '{"role":"robot","content":"hi"}'
expect "bad role: clear error" fails_with "role"
call alice save_episode '{"description":"x","status":"done"}'
expect "bad status: clear error" fails_with "status"
call alice link "{\"src_kind\":\"episode\",\"src_id\":\"$EP\",\"dst_kind\":\"episode\",\"dst_id\":\"999999\",\"relation\":\"about\"}"
expect "link to a missing item: clear error" fails_with "dst_id: no episode '999999'"
call alice memory_search '{"query":"!!! ???"}'
expect "a query without words: clear error" fails_with "query"
call alice save_episode '{"description":"x","status":"success","started_at":"2026-12-02T10:00Z","ended_at":"2026-12-01T10:00Z"}'
expect "start after end: clear error" fails_with "started_at: must not be after ended_at"
expect "the kept BM25 figures of every scope equal a count of its items" stats_match

# --- expiry and compaction (own database) ---------------------------------------------------------

DB="$(test_db compact)" || exit 1
init
set_setting memory.session_idle_s 3600
for s in 1 2 3; do
  call erin save_message "{\"role\":\"user\",\"content\":\"Session $s: please book a meeting room for the budget review.\"}"
  eval "S$s=\$(j r.session_id)"
  call erin save_message "{\"session_id\":\"$(j r.session_id)\",\"role\":\"assistant\",\"content\":\"Booked room $s for the budget review on Friday. The projector is reserved too.\"}"
done
call erin save_message '{"role":"user","content":"this session stays active"}'
ACTIVE=$(j r.session_id)
idle_sessions
(DBMCP_TEST_COMPACT_ABORT=2 "$BIN" memory compact --db "$DB"; exit $?) >"$OUT" 2>"$ERR"
expect "the injected crash killed compaction mid-transaction" test $? -ne 0
expect "the crash lost nothing: one session done, its episode whole, the rest untouched" \
  test "$(sql "SELECT (SELECT count(*) FROM dbmcp_mem_sessions WHERE state='compacted') || '/' || (SELECT count(*) FROM dbmcp_mem_episodes) || '/' || (SELECT count(*) FROM dbmcp_mem_messages)")" = "1/1/7"
"$BIN" memory compact --db "$DB" >"$OUT" 2>"$ERR"
expect "a rerun finishes the work" grep -q "sessions expired into episodes: 2" "$OUT"
expect "every expired session became exactly one episode; the active one did not" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_sessions s JOIN dbmcp_mem_episodes e ON e.id = s.episode_id AND e.session_id = s.id WHERE s.state='compacted'")/$(sql "SELECT state FROM dbmcp_mem_sessions WHERE id='$ACTIVE'")" = "3/active"
call erin search_episodes "{\"query\":\"budget review projector\"}"
expect "the episode carries an extractive summary of the session" \
  is 'r.hits.length===3 && r.hits.every(h=>h.task_type==="session" && h.text.includes("budget review") && h.text.includes("assistant: "))'
call erin get_session_history "{\"session_id\":\"$S1\"}"
expect "an expired session keeps its messages until retention" is 'r.messages.length===2 && r.compacted===false'
call erin save_message "{\"session_id\":\"$S1\",\"role\":\"user\",\"content\":\"more\"}"
expect "a compacted session cannot be continued" fails_with "compacted into an episode"
set_setting memory.session_idle_s 3600
set_setting memory.episode_retention_s 0
"$BIN" memory compact --db "$DB" >"$OUT" 2>"$ERR"
expect "retention drops the raw messages of old episodes" grep -q "episodes past retention:        3 (raw messages dropped: 6)" "$OUT"
call erin get_session_history "{\"session_id\":\"$S2\"}"
expect "history says the session was compacted" is 'r.messages.length===0 && r.compacted===true'
call erin search_episodes '{"query":"budget review projector"}'
expect "the episodes keep their summaries" is 'r.hits.length===3'
expect "items no longer referenced are gone with their jobs" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_items i WHERE tier='message' AND NOT EXISTS (SELECT 1 FROM dbmcp_mem_messages m WHERE m.item_id=i.id)")/$(sql "SELECT count(*) FROM dbmcp_mem_jobs j WHERE NOT EXISTS (SELECT 1 FROM dbmcp_mem_items i WHERE i.id=j.item_id)")" = "0/0"
set_setting memory.knowledge_keep_versions 1
for v in A B C; do call erin save_knowledge "{\"key\":\"room\",\"value\":\"$v\"}"; done
"$BIN" memory compact --db "$DB" >"$OUT" 2>"$ERR"
expect "old knowledge versions are pruned by policy" grep -q "knowledge versions pruned:      1" "$OUT"
call erin get_knowledge '{"key":"room","history":true}'
expect "pruning keeps the current and the newest closed versions" is 'r.versions.map(v=>v.value).join()==="B,C"'
expect "after compaction and pruning the kept BM25 figures still equal a count" stats_match

# --- filters before the cut to k (own database) ----------------------------------------------

DB="$(test_db filters)" || exit 1
init
n=0
for t in report report booking booking booking; do
  n=$((n + 1)) # distinct descriptions: the same one twice would be stored once
  call hank save_episode "{\"description\":\"Quarterly numbers task ($t, number $n)\",\"status\":\"success\",\"task_type\":\"$t\"}"
done
call hank search_episodes '{"query":"quarterly numbers","task_type":"booking"}'
expect "search_episodes with a query honours task_type" \
  is 'r.hits.length===3 && r.hits.every(h=>h.task_type==="booking")'
call hank search_episodes '{"task_type":"report"}'
expect "search_episodes without a query honours task_type" \
  is 'r.episodes.length===2 && r.episodes.every(e=>e.task_type==="report")'
# 60 short "invoice" messages of project alpha outrank (BM25) three long ones of
# project beta: a filter applied after the cut would find no beta message.
call hank save_message '{"role":"user","content":"invoice 0","metadata":{"project":"alpha"}}'
HS=$(j r.session_id)
for i in $(seq 1 59); do
  call hank save_message "{\"session_id\":\"$HS\",\"role\":\"user\",\"content\":\"invoice $i\",\"metadata\":{\"project\":\"alpha\"}}"
done
for i in 1 2 3; do
  call hank save_message "{\"session_id\":\"$HS\",\"role\":\"user\",\"content\":\"The invoice $i for the beta project was sent by post to the accounting office of the customer in Bremen last week, together with the delivery notes, the signed contract and a cover letter.\",\"metadata\":{\"project\":\"beta\",\"n\":$i}}"
done
call hank memory_search '{"query":"invoice","limit":5}'
expect "unfiltered, the short alpha messages rank first" \
  is 'r.hits.length===5 && r.hits.every(h=>h.metadata.project==="alpha")'
call hank memory_search '{"query":"invoice","limit":3,"metadata":{"project":"beta"}}'
expect "a narrow metadata filter still returns k hits" \
  is 'r.hits.length===3 && r.hits.every(h=>h.metadata.project==="beta")'
call hank memory_search '{"query":"invoice","limit":5,"metadata":{"project":"beta","n":2}}'
expect "every metadata key must match" is 'r.hits.length===1 && r.hits[0].text.includes("invoice 2 ")'
call hank memory_search '{"query":"invoice","metadata":{"project":"gamma"}}'
expect "a filter nothing matches returns no hits" is 'r.hits.length===0'

# The relevance floor: the 59 "invoice N" messages hold only the word that
# every message has; the question is about the beta invoices sent to Bremen.
call hank memory_search '{"query":"which invoice was sent to Bremen with the delivery notes","min_relevance":0}'
expect "without a floor, limit hits come back, padding included" \
  is 'r.hits.length===10 && r.below_floor===0 && r.min_relevance===0'
call hank memory_search '{"query":"which invoice was sent to Bremen with the delivery notes"}'
expect "the default floor leaves out what shares only a common word, and says so" \
  is 'r.hits.length===3 && r.hits.every(h=>h.metadata.project==="beta" && h.scores.relevance>=r.min_relevance) && r.below_floor>0 && r.min_relevance>0'
set_setting memory.min_relevance 0
call hank memory_search '{"query":"which invoice was sent to Bremen with the delivery notes"}'
expect "the setting memory.min_relevance changes the default floor" \
  is 'r.hits.length===10 && r.min_relevance===0'
sql "DELETE FROM dbmcp_settings WHERE key = 'memory.min_relevance'"
call hank memory_search '{"query":"invoice","min_relevance":1.5}'
expect "min_relevance above 1 is refused" fails_with "min_relevance"

# --- nothing learned across users (own database) --------------------------------------------------

# bob's memory_search answers byte for byte the same whatever alice saves or
# erases: BM25 from bob's own items only (docs/security.md). Each answer is
# read from a copy of the database taken at a step of alice's, all with bob's
# memory in one state (a search counts the uses of what it returns, so bob
# searches only the copies). With memory.recency_weight 0 no score depends on
# the clock; age_s, the seconds since each item was written, is the one
# figure masked.
# SQLite only: the copies are taken with VACUUM INTO.
DB="$WORK/crossuser.db"
init
set_setting memory.recency_weight 0
call bob save_message '{"role":"user","content":"The parcel for the Lisbon office left on Monday with the courier."}'
call bob save_message "{\"session_id\":\"$(j r.session_id)\",\"role\":\"assistant\",\"content\":\"Noted: Lisbon parcel, Monday.\"}"
call bob save_knowledge '{"key":"courier","value":"Parcels to Lisbon go with the express courier"}'
sql "VACUUM INTO '$WORK/cross-0.db'"
for i in 1 2 3 4 5; do
  call alice save_message "{\"role\":\"user\",\"content\":\"Private note $i: the Lisbon parcel is late, Lisbon courier again.\"}"
done
call alice save_knowledge '{"key":"lisbon","value":"Lisbon, Lisbon and Lisbon"}'
call alice memory_search '{"query":"Lisbon","mode":"keyword","min_relevance":0}'
expect "alice's own items hold bob's words" is 'r.hits.length===6'
sql "VACUUM INTO '$WORK/cross-1.db'"
call alice forget_knowledge '{"key":"lisbon","erase":true}'
sql "VACUUM INTO '$WORK/cross-2.db'"
# bob_searches DB: bob's answers to two queries on DB, age_s masked.
bob_searches() {
  local q
  for q in '{"query":"Lisbon parcel courier"}' \
    '{"query":"when did the Lisbon parcel leave","mode":"keyword","min_relevance":0}'; do
    "$BIN" call --db "$1" --interface memory --principal bob memory_search "$q" 2>>"$ERR"
    echo
  done | sed -E 's/"age_s": *[-0-9.eE+]+/"age_s":_/g'
}
bob_searches "$WORK/cross-0.db" >"$WORK/bob-0.txt"
bob_searches "$WORK/cross-1.db" >"$WORK/bob-1.txt"
bob_searches "$WORK/cross-2.db" >"$WORK/bob-2.txt"
expect "bob's answers hold his items with their keyword scores" \
  test "$(grep -c '"bm25"' "$WORK/bob-0.txt")" -ge 2
expect "alice saving items with bob's words leaves bob's memory_search byte-identical" \
  cmp "$WORK/bob-0.txt" "$WORK/bob-1.txt"
expect "alice erasing them leaves it byte-identical too" cmp "$WORK/bob-0.txt" "$WORK/bob-2.txt"

# --- LLM summaries at compaction (scripted provider: tests/stub/openai-stub.mjs) ----------------

DB="$(test_db summary)" || exit 1
init
set_setting memory.session_idle_s 3600
ACTIVE=""
# Step 1 answers the first session's summary; steps 2 and 3 are HTTP 500 (one retry).
cat >"$WORK/summary-scenario.json" <<'JSON'
{"chat": [
  {"expect": {"model": "stub-model", "tools": false, "body_contains": "boardroom"},
   "reply": {"content": "  Gina booked the boardroom for Tuesday; catering is still open.\n"}},
  {"status": 500, "body": {"error": {"message": "boom", "type": "server_error"}}},
  {"status": 500, "body": {"error": {"message": "boom again", "type": "server_error"}}}
]}
JSON
# The stub prints its port (it binds port 0) as its first stdout line: read it
# through a FIFO, as soon as it comes.
mkfifo "$WORK/summary-port"
node "$ROOT/tests/stub/openai-stub.mjs" --port 0 --scenario "$WORK/summary-scenario.json" \
  --log "$WORK/summary-log.jsonl" >"$WORK/summary-port" 2>"$WORK/summary-stub.err" &
STUB_PID=$!
STUB_PORT=""
read -r -t 60 STUB_PORT <"$WORK/summary-port"
[ -n "$STUB_PORT" ] || { echo "memory.sh: the stub did not start:" >&2; cat "$WORK/summary-stub.err" >&2; exit 1; }
llm_compact() {
  DBMCP_LLM_URL="http://127.0.0.1:$STUB_PORT/v1" DBMCP_LLM_MODEL=stub-model DBMCP_LLM_API_KEY_ENV=none \
    DBMCP_LLM_MAX_RETRIES=1 DBMCP_LLM_BACKOFF_BASE_MS=1 DBMCP_LOG=warn \
    "$BIN" memory compact --db "$DB" >"$OUT" 2>"$ERR"
}
call gina save_message '{"role":"user","content":"Please book the boardroom for Tuesday."}'
call gina save_message "{\"session_id\":\"$(j r.session_id)\",\"role\":\"assistant\",\"content\":\"The boardroom is booked for Tuesday. Catering is not arranged yet.\"}"
idle_sessions
expect "compaction with an LLM provider succeeds" llm_compact
# The metadata's "summary" member, in the engine's JSON syntax.
if [ "$(db_engine "$DB")" = postgres ]; then
  META_SUMMARY="(CAST(metadata AS json) ->> 'summary')"
else
  META_SUMMARY="json_extract(metadata, '\$.summary')"
fi
expect "the episode holds the LLM's summary (trimmed) and says so" \
  test "$(sql "SELECT summary || '|' || $META_SUMMARY FROM dbmcp_mem_episodes")" = \
  "Gina booked the boardroom for Tuesday; catering is still open.|llm"
expect "the session's messages were sent to the model, after the summary instruction" \
  node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
    const m=l[0].body.messages; process.exit(l.length===1 && l[0].failures.length===0 && m.length===2 &&
    m[0].role==="system" && /[Ss]ummar/.test(m[0].content) && m[1].role==="user" &&
    m[1].content.includes("user: Please book the boardroom for Tuesday.") &&
    m[1].content.includes("assistant: The boardroom is booked for Tuesday. Catering is not arranged yet.") ? 0 : 1)' \
  "$WORK/summary-log.jsonl"
call gina search_episodes '{"query":"catering"}'
expect "the LLM summary is searchable" is 'r.hits.length===1 && r.hits[0].text.includes("catering is still open")'
call gina save_message '{"role":"user","content":"Order sandwiches for the workshop."}'
call gina save_message "{\"session_id\":\"$(j r.session_id)\",\"role\":\"assistant\",\"content\":\"Sandwiches for twelve are ordered for the workshop.\"}"
idle_sessions
expect "compaction survives a failing provider" llm_compact
expect "on a provider error the extractive summary is used and recorded" \
  test "$(sql "SELECT $META_SUMMARY || '|' || CASE WHEN summary LIKE '%assistant: Sandwiches for twelve%' THEN 1 ELSE 0 END FROM dbmcp_mem_episodes WHERE description LIKE '%sandwiches%'")" = "extractive|1"
expect "the failure was logged for the operator" grep -q "LLM summary failed" "$ERR"
expect "the failing provider was asked (with one retry) for that session" \
  test "$(grep -c 'Sandwiches for twelve' "$WORK/summary-log.jsonl")" = 2
kill "$STUB_PID" 2>/dev/null
wait "$STUB_PID" 2>/dev/null
STUB_PID=""

# --- restart with pending embedding jobs ---------------------------------------------------------

DB="$(test_db jobs)" || exit 1
init
KEY=$("$BIN" keys create --db "$DB" --interface memory --user frank 2>/dev/null)
KEY2=$("$BIN" keys create --db "$DB" --interface memory --user grace 2>/dev/null)
# An embedding service nothing can answer (no socket can listen on port 0, so
# every connection is refused at once): jobs fail and back off.
set_setting embed.kind http
set_setting embed.url "http://127.0.0.1:0/v1"
set_setting embed.model test
set_setting embed.dim 8
set_setting embed.retries 0
set_setting memory.job_backoff_s 1
start_server
for i in $(seq 1 20); do
  http "$KEY" save_message "{\"role\":\"user\",\"content\":\"Fact number $i: the code for locker $i is $((i * 37 % 1000)).\"}" || fail "write $i"
done
failed_jobs() { [ "$(sql "SELECT count(*) FROM dbmcp_mem_jobs WHERE attempts > 0 AND last_error IS NOT NULL")" -gt 0 ]; }
expect "failed jobs are kept with their error, retried with backoff" wait_until failed_jobs
http "$KEY" memory_search '{"query":"locker 7 code"}'
expect "while jobs are pending, recall falls back to keywords" is 'r.hits.length>0 && r.hits[0].text.includes("locker 7 ") && r.hits[0].embedded===false'
stop_server KILL
expect "the killed server left its jobs pending, nothing lost" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_jobs")/$(sql "SELECT count(*) FROM dbmcp_mem_messages")" = "20/20"
sql "DELETE FROM dbmcp_settings WHERE key LIKE 'embed.%'"
start_server
no_jobs() { [ "$(sql "SELECT count(*) FROM dbmcp_mem_jobs")" = 0 ]; }
wait_until no_jobs
expect "after the restart every pending job completed" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_jobs")/$(sql "SELECT count(*) FROM dbmcp_mem_vectors")/$(sql "SELECT count(*) FROM dbmcp_mem_items")" = "0/20/20"
http "$KEY" memory_search '{"query":"locker 7 code"}'
expect "with the builtin embedder, hybrid recall is keyword recall by default (its weight is 0)" \
  is 'r.hits[0].embedded===true && r.mode==="keyword" && r.note.includes("memory.vector_weight.builtin") && r.hits.every(h=>h.scores.vector_rank===0)'
set_setting memory.vector_weight.builtin 1
http "$KEY" memory_search '{"query":"locker 7 code"}'
expect "recall now uses the vectors too" is 'r.hits[0].embedded===true && r.hits.some(h=>h.scores.vector_rank>0) && r.mode==="hybrid"'
# The approximate index (HNSW graph) on this small set with its threshold
# lowered: the same top hits as the exact scan; after the vectors change, a
# graph of the older version is never used (every answer equals the exact
# one of the new version, whether the graph has caught up yet or not).
VQ='{"query":"locker 7 code","mode":"vector","limit":5,"min_relevance":0}'
ids() { j 'JSON.stringify(r.hits.map(h=>h.id))'; }
http "$KEY" memory_search "$VQ"
EXACT=$(ids)
expect "below memory.ann_min_vectors (100000) the vector side is exact" is 'r.hits.length===5 && r.approximate===undefined'
set_setting memory.ann_min_vectors 1
approx_same() { http "$KEY" memory_search "$VQ" && is 'r.approximate===true' && [ "$(ids)" = "$EXACT" ]; }
expect "past memory.ann_min_vectors (lowered to 1) the graph answers, with the exact top 5" wait_until approx_same
set_setting memory.vector_refresh_s 0
SID=$(sql "SELECT id FROM dbmcp_mem_sessions ORDER BY id LIMIT 1") # no new session: compaction below counts them
http "$KEY" save_message "{\"session_id\":\"$SID\",\"role\":\"user\",\"content\":\"New code for locker 7: the code for locker 7 is now 999.\"}"
set_setting memory.ann_min_vectors -1
new_exact() { http "$KEY" memory_search "$VQ" && is 'r.hits.some(h=>h.text.includes("now 999")&&h.embedded)'; }
wait_until new_exact
EXACT=$(ids)
set_setting memory.ann_min_vectors 1
http "$KEY" memory_search "$VQ"
expect "after new vectors, the first answer is the exact one of the new version (no stale graph)" \
  test "$(ids)" = "$EXACT"
expect "and the graph catches up with the new version, with the exact top 5" wait_until approx_same
set_setting memory.ann_min_vectors 100000
# The scope's ids the vector side keeps per data version are per user: a
# second user's message about the same locker never reaches frank, and
# frank's never reach her, cached or not.
http "$KEY2" save_message '{"role":"user","content":"Grace here: the code for locker 7 is 4242."}'
grace_found() { http "$KEY2" memory_search "$VQ" && is 'r.hits.length>0 && r.hits.every(h=>h.text.includes("Grace")) && r.hits[0].embedded'; }
expect "another user's vector search finds only her own message" wait_until grace_found
http "$KEY" memory_search "$VQ"
expect "and frank's vector search never returns it" is 'r.hits.length===5 && !r.hits.some(h=>h.text.includes("Grace"))'
stop_server TERM
"$BIN" memory jobs --db "$DB" >"$OUT" 2>"$ERR"
expect "memory jobs reports an empty queue" grep -q "pending jobs: 0" "$OUT"

# The compaction schedule inside serve.
ACTIVE=""
idle_sessions
set_setting memory.session_idle_s 3600
set_setting memory.compact_interval_s 1
start_server
no_active_sessions() { [ "$(sql "SELECT count(*) FROM dbmcp_mem_sessions WHERE state='active'")" = 0 ]; }
wait_until no_active_sessions
stop_server TERM
# frank's 20 sessions and grace's one
expect "serve compacts expired sessions on its schedule" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_sessions WHERE state='active'")/$(sql "SELECT count(*) FROM dbmcp_mem_episodes")" = "0/21"

# --- acknowledged means durable: kill -9 during concurrent writes ---------------------------------
# Eight clients write at once, so their calls share group-commit transactions
# (store/commit_group.h); the server is killed with SIGKILL while they write.
# Every save_message whose answer a client received must be in the database
# after the crash, with its item and its embedding job (or vector); the calls cut off may or
# may not be there, but never half.

DB="$(test_db crash)" || exit 1
init
KEY=$("$BIN" keys create --db "$DB" --interface memory --user grace 2>/dev/null)
start_server
ACKS="$WORK/acked.txt"
: >"$ACKS"
node "$ROOT/tests/cli/lib/save_load.mjs" "$URL" "$KEY" 8 2000 "$ACKS" &
LOAD_PID=$!
some_acked() { [ "$(wc -l <"$ACKS")" -ge 60 ]; }
expect "eight concurrent writers are acknowledged" wait_until some_acked
stop_server KILL
wait "$LOAD_PID"
ACKED=$(sort -un "$ACKS" | wc -l)
IDS=$(sort -un "$ACKS" | paste -sd, -)
expect "every acknowledged save_message survived kill -9 ($ACKED acknowledged)" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_messages WHERE id IN ($IDS)")" = "$ACKED"
expect "no message was half written: each has its item, each item its job or vector" \
  test "$(sql "SELECT count(*) FROM dbmcp_mem_messages m WHERE NOT EXISTS (SELECT 1 FROM dbmcp_mem_items i WHERE i.id = m.item_id)")/$(sql "SELECT count(*) FROM dbmcp_mem_items i WHERE NOT EXISTS (SELECT 1 FROM dbmcp_mem_jobs j WHERE j.item_id = i.id) AND NOT EXISTS (SELECT 1 FROM dbmcp_mem_vectors v WHERE v.item_id = i.id)")" = "0/0"
start_server
http "$KEY" memory_search '{"query":"client 3 message 0","tiers":["message"],"mode":"keyword"}'
expect "the saved messages are found by keyword after the restart" is 'r.hits.some(h=>h.text.startsWith("client 3 message 0:"))'
stop_server TERM

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
