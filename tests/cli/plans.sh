#!/usr/bin/env bash
# plans.sh — data-driven tests of execution plan administration (dbmcp plans
# list|show|add|update|enable|disable|remove) and of the audit rows every
# CLI admin change writes (`dbmcp audit`).
#
# Runs every case of tests/cases/plans/cases.txt, in order, against one
# fresh `dbmcp init --demo` database; the JSON files the cases name are in
# tests/cases/plans/files. tests/cli/cases.sh runs them and checks exit
# status, output, SQL results and whether the database changed (a refused
# write must leave it exactly as it was). Prints "N passed, M failed";
# exits 1 on any failure.
#
# Usage: tests/cli/plans.sh        (DBMCP=path/to/dbmcp to test another build)
#        DBMCP_TEST_PG=postgresql://… tests/cli/plans.sh
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/plans/cases.txt"
FILES="$ROOT/tests/cases/plans/files"

# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
cases_init_demo plans

CASE_PREFIX="dbmcp "
run_cases "$CASES"
