#!/usr/bin/env bash
# The whole test suite, as `make test` and CI run it. Each stage prints its
# own runner's summary; the last line sums up the stages.
set -uo pipefail
cd "$(dirname "$0")/.."

stages=()
failed=()
times=()
run_stage() {
  local name=$1 start=$SECONDS
  shift
  echo
  echo "==== $name ===="
  if "$@"; then
    stages+=("$name")
  else
    failed+=("$name")
    echo "==== $name FAILED ===="
  fi
  times+=("$name $((SECONDS - start))s")
}

# One throw-away PostgreSQL 15 server for every PostgreSQL stage, started
# when the first one runs (scripts/pg.sh, a fresh directory under /tmp) and
# stopped when this script ends, however it ends.
pg_dir=""
pg_uri=""
trap '[ -z "$pg_dir" ] || scripts/pg.sh stop "$pg_dir" >/dev/null 2>&1 || true' EXIT
pg_server() {
  [ -n "$pg_uri" ] && return 0
  [ -z "$pg_dir" ] || return 1 # it failed to start once already
  pg_dir=$(mktemp -d /tmp/dbmcp-test-pg.XXXXXX) && pg_uri=$(scripts/pg.sh start "$pg_dir") &&
    pg_uri=$(scripts/pg.sh query-role "$pg_uri" "$pg_dir/pgpass")
}
# pg_stage NAME COMMAND...: a stage run on PostgreSQL. DBMCP_TEST_PG makes
# test_db (tests/cli/lib/db.sh) and testDb create a fresh database per
# suite on the server; a stage in which none was created ran on SQLite
# and fails.
pg_stage() {
  local name=$1
  shift
  run_stage "$name" pg_run "$@"
}
pg_run() {
  pg_server || { echo "test.sh: no PostgreSQL server (scripts/pg.sh start failed)" >&2; return 1; }
  local trace status=0
  trace=$(mktemp)
  DBMCP_TEST_PG=$pg_uri DBMCP_TEST_PG_TRACE=$trace "$@" || status=$?
  if [ "$status" -eq 0 ] && [ ! -s "$trace" ]; then
    echo "test.sh: no database was created on PostgreSQL: the stage ran on SQLite" >&2
    status=1
  fi
  rm -f "$trace"
  return "$status"
}

run_stage build make -j2 all
run_stage schema-compare scripts/schema-compare.sh
run_stage format scripts/format-check.sh
run_stage unit make -j2 unit
run_stage unit-asan make -j2 unit-asan
run_stage repair-corpus node tests/cases/repair/generate.mjs --check
run_stage cli-repair tests/cli/repair.sh
run_stage docs scripts/docs-check.sh
run_stage cli-sql tests/cli/sql.sh
run_stage cli-admin tests/cli/admin.sh
run_stage cli-plans tests/cli/plans.sh
run_stage cli-call-output tests/cli/call_output.sh
run_stage cli-report tests/cli/report.sh
run_stage cli-sqlerrors tests/cli/sqlerrors.sh
run_stage cli-thesaurus tests/cli/thesaurus.sh
run_stage cli-embed-http tests/cli/embed_http.sh
run_stage cli-hostile-http tests/cli/hostile_http.sh
run_stage console scripts/console-tests.sh
run_stage cli-metrics tests/cli/metrics.sh
run_stage cli-traces tests/cli/traces.sh
run_stage cli-hostile-audit tests/cli/hostile_audit.sh
run_stage cli-shutdown tests/cli/shutdown.sh
run_stage cli-oidc tests/cli/oidc.sh
run_stage cli-memory tests/cli/memory.sh
run_stage cli-replicas tests/cli/replicas.sh
run_stage cli-chat tests/cli/chat.sh
run_stage cli-search bash -c 'tests/cli/ingest.sh && tests/cli/search.sh'
run_stage cli-hostile-sql tests/cli/hostile_sql.sh
run_stage cli-attach tests/cli/attach.sh
run_stage cli-hostile-ingest tests/cli/hostile_ingest.sh
run_stage valgrind scripts/valgrind-stdio.sh
run_stage protocol scripts/protocol-tests.sh
run_stage tsan scripts/tsan-protocol.sh
run_stage conformance scripts/conformance.sh
run_stage fuzz scripts/fuzz.sh --ci

# The suites again on PostgreSQL, where what they prove depends on the
# engine (store SQL, dialect fragments, the driver, LISTEN/NOTIFY,
# sessions and claims shared by replicas). Left out: hostile_sql.sh and
# hostile_audit.sh test SQLite's own guards (its memory budget, its write
# lock; PostgreSQL's guard is tests/cli/hostile_pg.sh), valgrind, tsan and
# fuzz run code that does not depend on the engine. hostile_pg.sh and
# postgres_docs.sh start servers of their own (they test roles and
# server-wide settings).
run_stage pg-hostile-sql tests/cli/hostile_pg.sh
run_stage pg-docs tests/cli/postgres_docs.sh
pg_stage unit-pg make -j2 unit-pg
pg_stage pg-cli-sql tests/cli/sql.sh
pg_stage pg-cli-admin tests/cli/admin.sh
pg_stage pg-cli-plans tests/cli/plans.sh
pg_stage pg-cli-call-output tests/cli/call_output.sh
pg_stage pg-cli-report tests/cli/report.sh
pg_stage pg-cli-sqlerrors tests/cli/sqlerrors.sh
pg_stage pg-cli-thesaurus tests/cli/thesaurus.sh
pg_stage pg-cli-embed-http tests/cli/embed_http.sh
pg_stage pg-cli-hostile-http tests/cli/hostile_http.sh
pg_stage pg-console scripts/console-tests.sh
pg_stage pg-cli-metrics tests/cli/metrics.sh
pg_stage pg-cli-traces tests/cli/traces.sh
pg_stage pg-cli-shutdown tests/cli/shutdown.sh
pg_stage pg-cli-oidc tests/cli/oidc.sh
pg_stage pg-cli-memory tests/cli/memory.sh
pg_stage pg-cli-replicas tests/cli/replicas.sh
pg_stage pg-cli-chat tests/cli/chat.sh
pg_stage pg-cli-search bash -c 'tests/cli/ingest.sh && tests/cli/search.sh'
pg_stage pg-cli-hostile-ingest tests/cli/hostile_ingest.sh
pg_stage pg-cli-attach tests/cli/attach.sh
pg_stage pg-protocol scripts/protocol-tests.sh
pg_stage pg-conformance scripts/conformance.sh
pg_stage pg-fts-parity scripts/fts-parity.sh

echo
echo "stage times: ${times[*]}"
echo "stages passed: ${stages[*]:-none}"
[ ${#failed[@]} -gt 0 ] && echo "stages failed: ${failed[*]}"
echo "stages: ${#stages[@]} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
