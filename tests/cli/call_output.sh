#!/usr/bin/env bash
# call_output.sh — what `dbmcp call` writes where, the same for every tool
# (search_documents, execute_query, a report tool, an unknown tool): the
# result on stdout, log lines, hints and refusals on stderr, and the exit
# codes; and the same split for admin commands.
#
# Runs every case of tests/cases/call_output/cases.txt against one fresh
# `dbmcp init --demo` database through tests/cli/cases.sh. Prints "N passed,
# M failed"; exits 1 on any failure.
#
# Usage: tests/cli/call_output.sh   (DBMCP=path/to/dbmcp to test another build)
#        DBMCP_TEST_PG=postgresql://… tests/cli/call_output.sh
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/call_output/cases.txt"
FILES="$ROOT/tests/cases/call_output/files"

# shellcheck source=tests/cli/cases.sh
. "$ROOT/tests/cli/cases.sh"
cases_init_demo call_output

CASE_PREFIX="dbmcp "
run_cases "$CASES"
