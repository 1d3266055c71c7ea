#!/usr/bin/env bash
# report.sh — data-driven tests of report tools and schema discovery:
# `dbmcp tools add-report`, `dbmcp audit top-queries`, `dbmcp tools promote`
# and the builtins list_tables, describe_table and search_objects called
# through `dbmcp call` (the same dispatch as MCP clients).
#
# Runs every case of tests/cases/report/cases.txt, in order, in
# tests/cases/report/files, against one fresh `dbmcp init --demo` database
# ($DB) and one wide database ($WIDE, filled by a case). A case's command
# is a shell command line using these functions:
#   dbmcp ARGS        build/dbmcp ARGS --db $DB (help takes no --db)
#   dbmcp_wide ARGS   build/dbmcp ARGS --db $WIDE
#   sq SQL            dbmcp sql --db $DB SQL (reads standard input without SQL)
# tests/cli/cases.sh runs them: it checks the exit status, the expected
# output (the checks are listed there) and SQL results, and whether $DB's
# dump is unchanged ("same") or changed ("changed"): a refused write must
# leave the database exactly as it was. Adding a case never needs a change
# here. Prints "N passed, M failed" as its last line; exits 1 on any failure.
#
# Usage: tests/cli/report.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/report/cases.txt"
FILES="$ROOT/tests/cases/report/files"

# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
cases_init_demo report
WIDE="$(test_db wide)" || exit 1
export WIDE

dbmcp_wide() { "$BIN" "$@" --db "$WIDE"; }
sq() { db_sql "$DB" "$@"; }

run_cases "$CASES"
