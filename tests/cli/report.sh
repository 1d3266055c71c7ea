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
# With DBMCP_TEST_PG (tests/cli/lib/db.sh) the databases are PostgreSQL
# ones: init then also makes the query role read the schema public (the
# operator's choice --query-schemas public, so tables the cases make later
# are readable too), agent and report SQL log in as that role with
# DBMCP_QUERY_PASSWORD, and $DIALECT is "postgres" ("sqlite" otherwise) for
# commands that differ. A case whose name starts with [sqlite] or
# [postgres] runs on that engine only: where the engines' own words differ
# (type names, row estimates, error messages, JSON functions in checks),
# the case is written once per engine with that engine's exact words; cases
# about what only one engine has (comments inside CREATE text, FTS5 shadow
# tables; COMMENT ON, the query role's start check) run on it alone.
#
# Usage: tests/cli/report.sh        (DBMCP=path/to/dbmcp to test another build)
#        DBMCP_TEST_PG=postgresql://… tests/cli/report.sh
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/report/cases.txt"
FILES="$ROOT/tests/cases/report/files"

# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
cases_init_demo report
DIALECT=sqlite
QUERY_READS=""
if [ -n "${DBMCP_TEST_PG:-}" ]; then
  # The query role belongs to the whole server, so every suite on it gives
  # it the same password (init sets it from DBMCP_QUERY_PASSWORD).
  DIALECT=postgres
  QUERY_READS="--query-schemas public"
  export DBMCP_QUERY_PASSWORD="${DBMCP_TEST_QUERY_PASSWORD:-dbmcp_test_query}"
  # shellcheck disable=SC2086
  "$BIN" init --db "$DB" $QUERY_READS >/dev/null 2>>"$WORK/init.err" ||
    { cat "$WORK/init.err" >&2; exit 1; }
fi
export DIALECT QUERY_READS
WIDE="$(test_db wide)" || exit 1
export WIDE

dbmcp_wide() { "$BIN" "$@" --db "$WIDE"; }
sq() { db_sql "$DB" "$@"; }

other=postgres
[ "$DIALECT" = postgres ] && other=sqlite
grep -v "^\[$other\] " "$CASES" >"$WORK/cases.txt"
run_cases "$WORK/cases.txt"
