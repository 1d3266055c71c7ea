#!/usr/bin/env bash
# unit-pg.sh — the backend-neutral unit tests against PostgreSQL.
#
#   scripts/unit-pg.sh BINARY…
#
# With DBMCP_TEST_DB set to a postgresql:// URI, the binaries run against
# that database (each test makes and drops its own tables). Without it, a
# throw-away server is started with scripts/pg.sh in a directory under
# build/ (so a killed run's server is stopped by the next one), a database
# is created on it, and the server is stopped and removed at the end. The
# totals line is scripts/run-unit.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${DBMCP_TEST_DB:-}" ]; then
  if [ ! -x scripts/pg.sh ]; then
    echo "unit-pg: set DBMCP_TEST_DB=postgresql://… or add scripts/pg.sh to start a test server" >&2
    exit 2
  fi
  # A fixed directory: a run killed before its trap leaves a server that
  # the next start stops. The socket path must stay short (pg.sh checks).
  pgdir=${DBMCP_PG_DIR:-/tmp/dbmcp-unit-pg-$(id -u)}
  trap 'scripts/pg.sh stop "$pgdir" >/dev/null 2>&1 || true' EXIT
  uri=$(scripts/pg.sh start "$pgdir")
  DBMCP_TEST_DB=$(scripts/pg.sh createdb "$uri" unit_contract)
  export DBMCP_TEST_DB
fi
scripts/run-unit.sh "$@"
