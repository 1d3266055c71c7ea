#!/usr/bin/env bash
# thesaurus.sh — data-driven tests of `dbmcp thesaurus import|stats`, the
# demo thesaurus loaded by `dbmcp init --demo`, and the thesaurus tools
# through `dbmcp call` (the same dispatch as MCP clients: schema
# validation, policy, audit).
#
# Runs every case of tests/cases/thesaurus/cases.txt, in order, against one
# fresh `dbmcp init --demo` database, with the fixtures of
# tests/cases/thesaurus as the working directory; tests/cli/cases.sh is the
# runner (exit status, output checks, and `sqlite3 .dump` identical for
# "same": a refused import leaves the database exactly as it was). Prints
# "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/thesaurus.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/thesaurus/cases.txt"
FILES="$ROOT/tests/cases/thesaurus"

command -v sqlite3 >/dev/null || { echo "thesaurus.sh: sqlite3 is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "thesaurus.sh: $BIN not built (run make)" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
DB="$WORK/thesaurus.db"
export WORK

if ! "$BIN" init --db "$DB" --demo 2>"$WORK/init.err"; then
  echo "thesaurus.sh: dbmcp init failed:" >&2
  cat "$WORK/init.err" >&2
  exit 1
fi
grep -q "scheme tarif: 50 concepts" "$WORK/init.err" || {
  echo "thesaurus.sh: init --demo did not import the Tarif thesaurus:" >&2
  cat "$WORK/init.err" >&2
  exit 1
}

# Cases call `dbmcp ARGS`; the database is appended here (help takes none).
dbmcp() {
  if [ "${1:-}" = help ]; then "$BIN" "$@"; else "$BIN" "$@" --db "$DB"; fi
}

CASE_PREFIX="dbmcp "
# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
run_cases "$CASES"
