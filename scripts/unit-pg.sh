#!/usr/bin/env bash
# unit-pg.sh — the backend-neutral unit tests against PostgreSQL.
#
#   scripts/unit-pg.sh BINARY…
#
# Where the database comes from, first match wins:
#   DBMCP_TEST_DB=postgresql://…  that database (each test makes and drops
#                                 its own tables or databases)
#   DBMCP_TEST_PG=postgresql://…  a server's base URI (what `scripts/pg.sh
#                                 start` prints; scripts/test.sh exports the
#                                 one its PostgreSQL stages share): a
#                                 database is created on it for this run
#                                 and dropped at the end
#   neither                       a throw-away server started with
#                                 scripts/pg.sh in a fixed directory under
#                                 /tmp (so a killed run's server is stopped
#                                 by the next one), stopped and removed at
#                                 the end
# The role must be allowed to create databases (test_replicas makes one per
# test). The totals line is scripts/run-unit.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${DBMCP_TEST_DB:-}" ]; then
  if [ -n "${DBMCP_TEST_PG:-}" ]; then
    name=unit_pg_$$_${RANDOM}
    trap 'scripts/pg.sh dropdb "$DBMCP_TEST_PG" "$name" >/dev/null 2>&1 || true' EXIT
    DBMCP_TEST_DB=$(scripts/pg.sh createdb "$DBMCP_TEST_PG" "$name")
    # As test_db does (tests/cli/lib/db.sh): the runner sees PostgreSQL was used.
    if [ -n "${DBMCP_TEST_PG_TRACE:-}" ]; then echo "$name" >>"$DBMCP_TEST_PG_TRACE"; fi
  else
    # A fixed directory: a run killed before its trap leaves a server that
    # the next start stops. The socket path must stay short (pg.sh checks).
    pgdir=${DBMCP_PG_DIR:-/tmp/dbmcp-unit-pg-$(id -u)}
    trap 'scripts/pg.sh stop "$pgdir" >/dev/null 2>&1 || true' EXIT
    uri=$(scripts/pg.sh start "$pgdir")
    DBMCP_TEST_DB=$(scripts/pg.sh createdb "$uri" unit_contract)
  fi
  export DBMCP_TEST_DB
fi
scripts/run-unit.sh "$@"
