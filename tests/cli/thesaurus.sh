#!/usr/bin/env bash
# thesaurus.sh — data-driven tests of `dbmcp thesaurus import|stats`, the
# demo thesaurus loaded by `dbmcp init --demo`, and the thesaurus tools
# through `dbmcp call` (the same dispatch as MCP clients: schema
# validation, policy, audit).
#
# Runs every case of tests/cases/thesaurus/cases.txt, in order, against one
# fresh `dbmcp init --demo` database, with the fixtures of
# tests/cases/thesaurus as the working directory; tests/cli/cases.sh is the
# runner (exit status, output checks, and `dbmcp dump` identical for
# "same": a refused import leaves the database exactly as it was). Prints
# "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/thesaurus.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/thesaurus/cases.txt"
FILES="$ROOT/tests/cases/thesaurus"

# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
cases_init_demo thesaurus
grep -q "scheme tarif: 50 concepts" "$WORK/init.err" || {
  echo "thesaurus.sh: init --demo did not import the Tarif thesaurus:" >&2
  cat "$WORK/init.err" >&2
  exit 1
}

CASE_PREFIX="dbmcp "
run_cases "$CASES"
