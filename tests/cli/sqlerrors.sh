#!/usr/bin/env bash
# sqlerrors.sh — data-driven tests of what an agent is told when its SQL
# fails (tools/sql_failure.h): each class of engine error becomes a
# sentence it can act on, on SQLite and PostgreSQL alike, and a table the
# caller may not see is answered byte for byte like one that does not
# exist, its name never offered as a close name.
#
# Runs every case of tests/cases/sqlerrors/cases.txt, in order, in
# tests/cases/sqlerrors/files, against one fresh `dbmcp init --demo`
# database; tests/cli/cases.sh is the runner. Prints "N passed, M
# failed"; exits 1 on any failure.
#
# Usage: tests/cli/sqlerrors.sh   (DBMCP=path/to/dbmcp to test another build;
#                                  DBMCP_TEST_PG=URI to run on PostgreSQL)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/sqlerrors/cases.txt"
FILES="$ROOT/tests/cases/sqlerrors/files"

# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
cases_init_demo sqlerrors

# ask QUERY: execute_query's answer to QUERY, its call id masked.
ask() {
  local q
  q=$(jq -nc --arg q "$1" '{query: $q}')
  dbmcp call execute_query "$q" 2>/dev/null | sed -E 's/\(call id [0-9a-f-]+\)/(call id …)/'
}

# hidden_like_missing SETUP QUERY: QUERY's answer while the object it names
# does not exist, then again after SETUP (run with `dbmcp sql` on the
# catalog side) made it exist but hidden from the query connection. Prints
# both; fails unless they are the same bytes.
hidden_like_missing() {
  local missing hidden
  missing=$(ask "$2")
  dbmcp sql "$1" >/dev/null || { echo "setup failed: $1"; return 3; }
  hidden=$(ask "$2")
  printf 'missing: %s\nhidden:  %s\n' "$missing" "$hidden"
  [ -n "$missing" ] && [ "$missing" = "$hidden" ]
}

# same_text_renamed A B QUERY_A QUERY_B: the answers to QUERY_A and QUERY_B
# are the same once name A in the first is read as B (for dbmcp's own
# tables, which cannot be made to vanish).
same_text_renamed() {
  local a b
  a=$(ask "$3" | sed "s/$1/$2/g")
  b=$(ask "$4")
  printf 'renamed: %s\nmissing: %s\n' "$a" "$b"
  [ -n "$b" ] && [ "$a" = "$b" ]
}

# call_answers_exactly TEXT TOOL ARGS: `dbmcp call TOOL ARGS`'s answer, call
# id masked; fails unless it is TEXT, byte for byte (the same sentence on
# both engines, nothing engine-specific added).
call_answers_exactly() {
  local got
  got=$(dbmcp call "$2" "$3" 2>/dev/null | sed -E 's/\(call id [0-9a-f-]+\)/(call id …)/')
  printf '%s\n' "$got"
  [ "$got" = "$1" ]
}

# read_resource URI: the JSON-RPC answer to resources/read of URI over stdio.
read_resource() {
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    "$(jq -nc --arg u "$1" '{jsonrpc: "2.0", id: 2, method: "resources/read", params: {uri: $u}}')" |
    "$BIN" serve --db "$DB" 2>/dev/null | grep '"id":2'
}

run_cases "$CASES"
