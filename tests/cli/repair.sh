#!/usr/bin/env bash
# repair.sh — `dbmcp repair` on the command line: the commands shown in
# docs/repair.md with their exact output, and the real corpus
# (tests/cases/repair/real, model outputs quoted in public reports) through
# the CLI, --several included (tests/cli/repair_real.mjs). No database.
#
# Usage: tests/cli/repair.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
pass=0 fail=0

# expect NAME GOT WANT
expect() {
  if [ "$2" == "$3" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    printf 'FAIL %s\n  got:  %s\n  want: %s\n' "$1" "$2" "$3"
  fi
}

# docs/repair.md, "dbmcp repair": a cut-off fenced answer, with the log.
got=$(printf '```json\n{"name": "sales_by_region", "arguments": {"year": 2024,}' |
  "$BIN" repair --log 2>"$WORK/log")
expect "fenced, cut off" "$got" '{"name":"sales_by_region","arguments":{"year":2024}}'
expect "its log" "$(cat "$WORK/log")" "dbmcp repair: removed unterminated markdown fence
dbmcp repair: closed 1 brackets at end
dbmcp repair: removed 1 trailing commas
dbmcp repair: lossy (the input was cut off)"

# Plain text is refused (exit 1).
printf 'Internal Server Error' | "$BIN" repair >/dev/null 2>"$WORK/err"
expect "plain text: exit" "$?" 1
expect "plain text: reason" "$(cat "$WORK/err")" "dbmcp: no JSON object or array found in the input"

# Mistral's name[ARGS] calls.
got=$(printf '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city": "Tokyo"}</s>' |
  "$BIN" repair)
expect "Mistral calls" "$got" '[{"name":"get_weather","arguments":{"city":"Paris"}},{"name":"get_weather","arguments":{"city":"Tokyo"}}]'

# Several calls: refused without --several, an array with it.
printf '{"name": "a", "arguments": {}}; {"name": "b", "arguments": {}}' |
  "$BIN" repair >/dev/null 2>"$WORK/err"
expect "several without --several: exit" "$?" 1
expect "several without --several: reason" "$(cat "$WORK/err")" \
  "dbmcp: several JSON values (2) where one was expected; a caller that expects several tool calls asks for them as an array (--several)"
got=$(printf '{"name": "a", "arguments": {}}; {"name": "b", "arguments": {}}' | "$BIN" repair --several --log 2>"$WORK/log")
expect "several with --several" "$got" '[{"name":"a","arguments":{}},{"name":"b","arguments":{}}]'
expect "several: log" "$(cat "$WORK/log")" "dbmcp repair: combined 2 JSON values into an array"

# A stream retry, and the arguments sent twice.
got=$(printf '{"language":"python","code":"pri{"language":"python","code":"print(1)"}' | "$BIN" repair --log 2>"$WORK/log")
expect "stream retry" "$got" '{"language":"python","code":"print(1)"}'
expect "stream retry: log" "$(cat "$WORK/log")" "dbmcp repair: dropped text repeated by a stream retry or a duplicated delta"

# --batch, as in the docs.
printf '["{\\"a\\": 1,", "<html></html>"]' >"$WORK/answers.json"
got=$("$BIN" repair --batch "$WORK/answers.json" | node -e 'process.stdout.write(JSON.stringify(JSON.parse(require("fs").readFileSync(0, "utf8"))))')
expect "batch" "$got" '[{"ok":true,"output":{"a":1},"repairs":["closed 1 brackets at end","dropped a dangling comma"],"lossy":true},{"ok":false,"error":"input is an HTML page, not JSON"}]'

echo "repair.sh: $pass passed, $fail failed"
node "$ROOT/tests/cli/repair_real.mjs" "$BIN" || fail=$((fail + 1))
[ "$fail" -eq 0 ]
