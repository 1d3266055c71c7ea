#!/usr/bin/env bash
# admin.sh — data-driven tests of the catalog administration commands
# (dbmcp interfaces|tools|prompts|resources|templates list|show|add|update|
# enable|disable|remove).
#
# Runs every case of tests/cases/admin/cases.txt, in order, against one fresh
# `dbmcp init --demo` database; the JSON files the cases name are in
# tests/cases/admin/files. A case's command is the arguments of `dbmcp`.
# tests/cli/cases.sh runs them: it checks the exit status, the expected
# stderr/stdout substrings and SQL results, and that the database dump is
# unchanged ("same") or changed ("changed") afterwards: a refused write must
# leave the database exactly as it was. Adding a case never needs a change
# here. Prints "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/admin.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/admin/cases.txt"
FILES="$ROOT/tests/cases/admin/files"

# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
cases_init_demo admin

CASE_PREFIX="dbmcp "
run_cases "$CASES"
