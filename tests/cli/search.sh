#!/usr/bin/env bash
# search.sh — search relevance cases (tests/cases/search/*.json, run by
# tests/cli/search_cases.mjs) against a fresh `dbmcp init --demo` database:
# German, English, Japanese and Chinese queries with the demo documents
# they must find, in keyword, vector and hybrid mode, and the same top
# vector results as on a SQLite twin (PostgreSQL parity). The runner gives the
# `default` interface the tool (but no documents) for the scope cases.
# Before them: chunk resources per interface, and that documents of a
# collection an interface cannot read leave its search_documents result
# byte-identical (nothing learned across collections).
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

# Nothing learned across collections (docs/security.md): what document_analysis
# gets from search_documents — every byte of the result, scores and ranks
# included — must not change when documents it cannot see, in a collection
# only the interface `ontology` reads, are added with its query's words or
# replaced by text without them. Only the elapsed milliseconds and the call
# id (new for every call) may differ.
scope_failed=0
search_as() { # search_as INTERFACE: the whole tools/call result, milliseconds and call id masked
  "$BIN" call search_documents '{"query":"Urlaub Arbeitstage Zuschlag","k":8,"min_relevance":0}' \
    --json --db "$DB" --interface "$1" 2>"$WORK/call.err" |
    sed -E 's/ · [0-9]+\.[0-9] ms/ · _ ms/; s/("dbmcp\/callId": )"[^"]*"/\1"_"/'
}
db_sql "$DB" "INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('ontology', 'search_documents', 90)" ||
  exit 1
search_as document_analysis >"$WORK/a-before.json"
search_as ontology >"$WORK/b-before.json"
mkdir "$WORK/secret"
for i in 1 2 3 4 5; do
  printf '# Urlaub %s\n\nUrlaub, Urlaub: 40 Arbeitstage Urlaub und ein Zuschlag für jeden Arbeitstag.\n' "$i" \
    >"$WORK/secret/urlaub-$i.md"
done
check_scope() { # check_scope NAME: document_analysis's result is what it was
  search_as document_analysis >"$WORK/a-after.json"
  if cmp -s "$WORK/a-after.json" "$WORK/a-before.json"; then
    echo "ok   $1"
  else
    echo "FAIL $1"
    diff "$WORK/a-before.json" "$WORK/a-after.json" | head -8
    scope_failed=1
  fi
}
if "$BIN" ingest "$WORK/secret" --collection secret --interface ontology --db "$DB" >/dev/null 2>"$WORK/ingest.err"; then
  check_scope "documents another interface reads, with the query's words, change nothing in this one's search"
  search_as ontology >"$WORK/b-after.json"
  if grep -q 'doc://secret/urlaub-1' "$WORK/b-after.json" && ! cmp -s "$WORK/b-after.json" "$WORK/b-before.json"; then
    echo "ok   the interface that reads them finds them"
  else
    echo "FAIL the interface that reads them finds them"
    scope_failed=1
  fi
  for i in 1 2 3 4 5; do printf 'Kantine und Parkplatz %s.\n' "$i" >"$WORK/secret/urlaub-$i.md"; done
  "$BIN" ingest "$WORK/secret" --collection secret --interface ontology --db "$DB" >/dev/null 2>>"$WORK/ingest.err"
  check_scope "their words leaving the index change nothing either"
else
  echo "FAIL ingest into the collection of another interface: $(head -c 300 "$WORK/ingest.err")"
  scope_failed=1
fi
[ -s "$WORK/a-before.json" ] && grep -q '"bm25"' "$WORK/a-before.json" ||
  { echo "FAIL the compared search found nothing by keyword"; scope_failed=1; }

# Vector parity: the vector mode of every case also runs on a SQLite twin
# built the same way, and must give the same top results there (on the pg
# stage: PostgreSQL against SQLite; on SQLite: two fresh databases agree).
TWIN="$WORK/twin.db"
"$BIN" init --demo --db "$TWIN" 2>"$WORK/init.log" || { cat "$WORK/init.log" >&2; exit 1; }
"$BIN" sql --db "$TWIN" "INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('default', 'search_documents', 90)" >/dev/null ||
  exit 1

node "$ROOT/tests/cli/search_cases.mjs" "$BIN" "$DB" "$ROOT/tests/cases/search" "$TWIN" &&
  [ "$resources_failed" -eq 0 ] && [ "$scope_failed" -eq 0 ]
