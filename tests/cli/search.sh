#!/usr/bin/env bash
# search.sh — search relevance cases (tests/cases/search/*.json, run by
# tests/cli/search_cases.mjs) against a fresh `dbmcp init --demo` database:
# German, English, Japanese and Chinese queries with the demo documents
# they must find, in keyword, vector and hybrid mode. The runner gives the
# `default` interface the tool (but no documents) for the scope cases.
# Prints "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/search.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
command -v node >/dev/null || { echo "search.sh: node is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "search.sh: $BIN not built (run make)" >&2; exit 1; }

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"

# Nothing from the caller's environment (DBMCP_DB, DBMCP_INTERFACE, …) but
# the test database server (DBMCP_TEST_PG, see lib/db.sh).
for v in $(compgen -e | grep '^DBMCP_' | grep -v '^DBMCP_TEST_PG'); do unset "$v"; done
WORK="$(mktemp -d)"
trap 'test_db_cleanup; rm -rf "$WORK"' EXIT
DB="$(test_db search)" || exit 1

"$BIN" init --demo --db "$DB" 2>"$WORK/init.log" || { cat "$WORK/init.log" >&2; exit 1; }
db_sql "$DB" "INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('default', 'search_documents', 90)" ||
  exit 1
# Chunk resources on the demo: the most specific template wins over
# doc://tarif/{slug}, and only interfaces exposing the document may read it.
read_chunk() {
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"doc://tarif/metall-elektro-bayern/chunks/5"}}' |
    "$BIN" serve --db "$DB" --interface "$1" 2>/dev/null | grep '"id":2'
}
resources_failed=0
read_chunk document_analysis | grep -q 'Passage 5 of 7 of doc://tarif/metall-elektro-bayern' &&
  echo "ok   chunk resource through document_analysis" ||
  { echo "FAIL chunk resource through document_analysis"; resources_failed=1; }
read_chunk ontology | grep -q 'Resource not found' &&
  echo "ok   chunk resource hidden from ontology" ||
  { echo "FAIL chunk resource hidden from ontology"; resources_failed=1; }

node "$ROOT/tests/cli/search_cases.mjs" "$BIN" "$DB" "$ROOT/tests/cases/search" && [ "$resources_failed" -eq 0 ]
