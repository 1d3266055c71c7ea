#!/usr/bin/env bash
# embed_http.sh — the http embedder (src/search/embed_http.c) against a real
# local OpenAI-compatible server: tests/stub/openai-stub.mjs, one instance
# per case with its own scripted /embeddings answers, driven through
# `dbmcp embed`. Each case checks what dbmcp printed and, from the stub's
# request log, what it sent: batching, retries after 429 (Retry-After) and
# 5xx, no retry after 401/400, refusal of malformed bodies, missing items
# and wrong dimensions, timeouts, an unreachable service, the key sent in
# the Authorization header and never printed, and settings from a database.
# Never asserts timings. Prints "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/embed_http.sh     (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
STUB="$ROOT/tests/stub/openai-stub.mjs"

command -v node >/dev/null || { echo "embed_http.sh: node is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "embed_http.sh: $BIN not built (run make)" >&2; exit 1; }

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"

WORK="$(mktemp -d)"
STUB_PID=""
cleanup() {
  [ -n "$STUB_PID" ] && kill "$STUB_PID" 2>/dev/null
  test_db_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT
# Nothing from the caller's environment (DBMCP_DB, DBMCP_LOG, …) but the test
# database server (DBMCP_TEST_PG, see lib/db.sh).
for v in $(compgen -e | grep '^DBMCP_' | grep -v '^DBMCP_TEST_PG'); do unset "$v"; done

passed=0
failed=0
CASE=""
PORT=""
LOG=""
OUT="$WORK/out"
ERR="$WORK/err"

# stub_start SCENARIO_JSON: a fresh stub; sets PORT and LOG. The stub binds
# port 0 and prints the port it got as its first stdout line, read here
# through a FIFO as soon as it comes (for up to a minute).
stub_start() {
  stub_stop
  local n=$((passed + failed))
  printf '%s\n' "$1" >"$WORK/scenario$n.json"
  LOG="$WORK/log$n.jsonl"
  : >"$LOG"
  mkfifo "$WORK/port$n"
  node "$STUB" --port 0 --scenario "$WORK/scenario$n.json" --log "$LOG" >"$WORK/port$n" 2>"$WORK/stub$n.err" &
  STUB_PID=$!
  PORT=""
  read -r -t 60 PORT <"$WORK/port$n"
  rm -f "$WORK/port$n"
  [ -n "$PORT" ] && return 0
  echo "embed_http.sh: the stub did not start:" >&2
  cat "$WORK/stub$n.err" >&2
  exit 1
}
stub_stop() {
  if [ -n "$STUB_PID" ]; then
    kill "$STUB_PID" 2>/dev/null
    wait "$STUB_PID" 2>/dev/null
    STUB_PID=""
  fi
}

# run_embed ARGS…: dbmcp embed against the stub; sets RC, OUT and ERR files.
run_embed() {
  "$BIN" embed --url "http://127.0.0.1:$PORT/v1" --model stub-model "$@" >"$OUT" 2>"$ERR"
  RC=$?
}

# Requests the stub received for /embeddings.
requests() { grep -c '"kind":"embeddings"' "$LOG"; }
# The number of inputs of each request, space-separated.
batch_sizes() {
  node -e 'const fs=require("fs");const l=fs.readFileSync(process.argv[1],"utf8").trim().split("\n").filter(Boolean).map(JSON.parse).filter(e=>e.kind==="embeddings");console.log(l.map(e=>e.body.input.length).join(" "))' "$LOG"
}
# check_vectors N DIM: OUT holds N unit vectors of DIM numbers.
check_vectors() {
  node -e 'const o=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const n=+process.argv[2],d=+process.argv[3];
if(o.dim!==d||o.vectors.length!==n)process.exit(1);
for(const v of o.vectors){if(v.length!==d)process.exit(2);const s=Math.sqrt(v.reduce((a,x)=>a+x*x,0));if(Math.abs(s-1)>1e-5)process.exit(3);}' "$OUT" "$1" "$2"
}

begin() { CASE="$1"; CASE_OK=1; }
expect() { # expect DESCRIPTION COMMAND…
  local what=$1
  shift
  if ! "$@"; then
    echo "  $CASE: expected $what" >&2
    CASE_OK=0
  fi
}
end() {
  if [ "$CASE_OK" = 1 ]; then
    passed=$((passed + 1))
    echo "ok   $CASE"
  else
    failed=$((failed + 1))
    echo "FAIL $CASE"
    sed 's/^/    stderr: /' "$ERR" | head -5 >&2
  fi
}
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }
equals() { [ "$1" = "$2" ]; }

# --- cases ---------------------------------------------------------------------

# Without --dim the embedder first learns the dimension with a one-text
# probe request (embedder_probe); with --dim it does not.
begin "batches of --batch inputs, vectors in input order, normalised"
stub_start '{"embeddings": {"dim": 8}}'
run_embed --batch 2 alpha beta gamma delta alpha
expect "exit 0" equals "$RC" 0
expect "4 requests" equals "$(requests)" 4
expect "a probe, then batches 2 2 1" equals "$(batch_sizes)" "1 2 2 1"
expect "5 unit vectors of 8" check_vectors 5 8
expect "model name http:stub-model@8" contains "$OUT" '"model":"http:stub-model@8"'
expect "the same text, the same vector across batches" node -e 'const o=JSON.parse(require("fs").readFileSync(process.argv[1]));process.exit(JSON.stringify(o.vectors[0])===JSON.stringify(o.vectors[4])?0:1)' "$OUT"
expect "the model sent" contains "$LOG" '"model":"stub-model"'
end

begin "data[] in reverse order is placed by index"
stub_start '{"embeddings": {"dim": 4, "reverse": true}}'
run_embed one two three
cp "$OUT" "$WORK/reversed"
stub_start '{"embeddings": {"dim": 4}}'
run_embed one two three
expect "the same vectors as in order" cmp -s "$OUT" "$WORK/reversed"
end

begin "429 with Retry-After, then success"
stub_start '{"embeddings": {"dim": 8, "script": [{"status": 429, "headers": {"Retry-After": "1"}}, {"ok": true}]}}'
run_embed hello
expect "exit 0" equals "$RC" 0
expect "3 requests (probe twice, then the text)" equals "$(requests)" 3
expect "1 unit vector" check_vectors 1 8
end

begin "5xx twice, then success (backoff)"
stub_start '{"embeddings": {"dim": 8, "script": [{"status": 503}, {"status": 500}, {"ok": true}]}}'
run_embed hello
expect "exit 0" equals "$RC" 0
expect "4 requests (probe three times, then the text)" equals "$(requests)" 4
end

begin "5xx with --retries 0 fails at once"
stub_start '{"embeddings": {"dim": 8, "script": [{"status": 503}, {"ok": true}]}}'
run_embed --retries 0 hello
expect "exit 1" equals "$RC" 1
expect "1 request" equals "$(requests)" 1
expect "the status in the message" contains "$ERR" "HTTP 503"
end

begin "429 every time: gives up after 1 + retries attempts"
stub_start '{"embeddings": {"dim": 8, "script": [{"status": 429, "headers": {"Retry-After": "0"}}, {"status": 429, "headers": {"Retry-After": "0"}}, {"status": 429, "headers": {"Retry-After": "0"}}]}}'
run_embed --retries 2 hello
expect "exit 1" equals "$RC" 1
expect "3 requests" equals "$(requests)" 3
expect "attempts counted" contains "$ERR" "after 3 attempts"
end

begin "a Retry-After beyond 60 s fails without waiting"
stub_start '{"embeddings": {"dim": 8, "script": [{"status": 429, "headers": {"Retry-After": "3600"}}]}}'
run_embed hello
expect "exit 1" equals "$RC" 1
expect "1 request" equals "$(requests)" 1
expect "says why" contains "$ERR" "longer than 60 s"
end

begin "401: no retry, key sent as Bearer and never printed"
stub_start '{"embeddings": {"dim": 8, "script": [{"status": 401}, {"ok": true}]}}'
EMBED_TEST_KEY=sk-test-secret-4711 run_embed --api-key-env EMBED_TEST_KEY hello
expect "exit 1" equals "$RC" 1
expect "1 request" equals "$(requests)" 1
expect "HTTP 401 named" contains "$ERR" "HTTP 401"
expect "the env var hint" contains "$ERR" "embed.api_key_env"
expect "the key not printed" lacks "$ERR" "sk-test-secret-4711"
expect "the key sent" contains "$LOG" '"authorization":"Bearer sk-test-secret-4711"'
end

begin "an unset key variable is refused before any request"
stub_start '{"embeddings": {"dim": 8}}'
env -u EMBED_TEST_UNSET "$BIN" embed --url "http://127.0.0.1:$PORT/v1" --model m --api-key-env EMBED_TEST_UNSET hi >"$OUT" 2>"$ERR"
RC=$?
expect "exit 1" equals "$RC" 1
expect "0 requests" equals "$(requests)" 0
expect "names the variable" contains "$ERR" "EMBED_TEST_UNSET"
end

begin "400: no retry, the service's message for the operator"
stub_start '{"embeddings": {"dim": 8, "script": [{"status": 400, "body": {"error": {"message": "input too long for model"}}}]}}'
run_embed hello
expect "exit 1" equals "$RC" 1
expect "1 request" equals "$(requests)" 1
expect "the service message" contains "$ERR" "input too long for model"
end

begin "malformed body"
stub_start '{"embeddings": {"dim": 8, "script": [{"malformed": true}]}}'
run_embed hello
expect "exit 1" equals "$RC" 1
expect "1 request" equals "$(requests)" 1
expect "not JSON" contains "$ERR" "invalid reply: not JSON"
end

begin "one embedding missing from data[]"
stub_start '{"embeddings": {"dim": 8, "script": [{"ok": true}, {"missing": true}]}}'
run_embed a b c
expect "exit 1" equals "$RC" 1
expect "counts" contains "$ERR" "2 embeddings for the 3 inputs sent"
end

begin "wrong dimension against --dim"
stub_start '{"embeddings": {"dim": 8, "script": [{"dim": 3}]}}'
run_embed --dim 8 hello
expect "exit 1" equals "$RC" 1
expect "both dimensions named" contains "$ERR" "returned 3-dimensional vectors; this embedder's dimension is 8"
end

begin "dimension changing between batches"
stub_start '{"embeddings": {"dim": 8, "script": [{"ok": true}, {"ok": true}, {"dim": 5}]}}'
run_embed --batch 1 a b
expect "exit 1" equals "$RC" 1
expect "3 requests (probe + 2 batches)" equals "$(requests)" 3
expect "named" contains "$ERR" "returned 5-dimensional vectors; this embedder's dimension is 8"
end

begin "a text that is not UTF-8 is refused before any request"
stub_start '{"embeddings": {"dim": 8}}'
run_embed --dim 8 ok $'caf\xe9'
expect "exit 1" equals "$RC" 1
expect "0 requests" equals "$(requests)" 0
expect "names the text and the byte" contains "$ERR" "text 1 to embed is not valid UTF-8 (at byte 3)"
end

# The answer would come after ten minutes (the stub is stopped long before):
# only the time limit can end the request, however slow this machine is.
begin "a slow service hits the time limit"
stub_start '{"embeddings": {"dim": 8, "script": [{"ok": true, "delay_ms": 600000}]}}'
run_embed --timeout-ms 300 --retries 0 hello
expect "exit 1" equals "$RC" 1
expect "timeout named" contains "$ERR" "imed out"
end

# Port 0: no socket can listen there, so the connection is refused at once
# (the port of a stopped stub could be taken again by anything meanwhile).
begin "an unreachable service"
stub_stop
"$BIN" embed --url "http://127.0.0.1:0/v1" --model m --retries 1 hi >"$OUT" 2>"$ERR"
RC=$?
expect "exit 1" equals "$RC" 1
expect "the endpoint named" contains "$ERR" "127.0.0.1:0/v1/embeddings"
end

begin "settings embed.* from the database"
stub_start '{"embeddings": {"dim": 6}}'
DB="$(test_db settings)" || exit 1
"$BIN" init --db "$DB" >/dev/null 2>&1
db_sql "$DB" "INSERT INTO dbmcp_settings (key, value) VALUES
  ('embed.kind', 'http'), ('embed.url', 'http://127.0.0.1:$PORT/v1/'),
  ('embed.model', 'from-settings'), ('embed.batch', '3')
  ON CONFLICT (key) DO UPDATE SET value = excluded.value"
"$BIN" embed --db "$DB" a b c d >"$OUT" 2>"$ERR"
RC=$?
expect "exit 0" equals "$RC" 0
expect "model from settings" contains "$OUT" '"model":"http:from-settings@6"'
expect "probe + batches 3 1" equals "$(batch_sizes)" "1 3 1"
expect "4 unit vectors" check_vectors 4 6
db_sql "$DB" "UPDATE dbmcp_settings SET value = 'gopher' WHERE key = 'embed.kind'"
"$BIN" embed --db "$DB" a >"$OUT" 2>"$ERR"
RC=$?
expect "exit 1 on a bad kind" equals "$RC" 1
expect "names the setting" contains "$ERR" "embed.kind"
end

stub_stop
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
