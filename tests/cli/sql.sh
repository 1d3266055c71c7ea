#!/usr/bin/env bash
# sql.sh — data-driven tests of `dbmcp sql` and `dbmcp dump`, the commands
# every other suite reaches the database with (tests/cli/lib/db.sh): rows in
# the sqlite3 shell's list mode and as JSON, scripts split into statements
# (triggers, quotes, comments), errors that stop a script, and a dump that
# is deterministic, canonical and changes with any table, view or row.
#
# Runs every case of tests/cases/sql/cases.txt, in order, in
# tests/cases/sql/files, against one fresh `dbmcp init --demo` database;
# tests/cli/cases.sh is the runner. Prints "N passed, M failed"; exits 1 on
# any failure.
#
# Usage: tests/cli/sql.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/sql/cases.txt"
FILES="$ROOT/tests/cases/sql/files"

# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
cases_init_demo sql

run_cases "$CASES"
