#!/usr/bin/env bash
# The whole test suite, as `make test` and CI run it. Each stage prints its
# own runner's summary; the last line sums up the stages.
set -uo pipefail
cd "$(dirname "$0")/.."

stages=()
failed=()
run_stage() {
  local name=$1
  shift
  echo
  echo "==== $name ===="
  if "$@"; then
    stages+=("$name")
  else
    failed+=("$name")
    echo "==== $name FAILED ===="
  fi
}

run_stage build make -j2 all
run_stage schema-compare scripts/schema-compare.sh
run_stage format scripts/format-check.sh
run_stage unit make -j2 unit
run_stage unit-pg make -j2 unit-pg
run_stage unit-asan make -j2 unit-asan
run_stage repair-corpus node tests/cases/repair/generate.mjs --check
run_stage cli-sql tests/cli/sql.sh
run_stage cli-admin tests/cli/admin.sh
run_stage cli-report tests/cli/report.sh
run_stage cli-thesaurus tests/cli/thesaurus.sh
run_stage cli-embed-http tests/cli/embed_http.sh
run_stage cli-hostile-http tests/cli/hostile_http.sh
run_stage cli-metrics tests/cli/metrics.sh
run_stage cli-hostile-audit tests/cli/hostile_audit.sh
run_stage cli-memory tests/cli/memory.sh
run_stage cli-replicas tests/cli/replicas.sh
run_stage cli-chat tests/cli/chat.sh
run_stage cli-search bash -c 'tests/cli/ingest.sh && tests/cli/search.sh'
run_stage cli-hostile-sql tests/cli/hostile_sql.sh
run_stage pg-hostile-sql tests/cli/hostile_pg.sh
run_stage pg-docs tests/cli/postgres_docs.sh
run_stage cli-hostile-ingest tests/cli/hostile_ingest.sh
run_stage valgrind scripts/valgrind-stdio.sh
run_stage protocol scripts/protocol-tests.sh
run_stage tsan scripts/tsan-protocol.sh
run_stage conformance scripts/conformance.sh
run_stage fuzz scripts/fuzz.sh --ci

echo
echo "stages passed: ${stages[*]:-none}"
[ ${#failed[@]} -gt 0 ] && echo "stages failed: ${failed[*]}"
echo "stages: ${#stages[@]} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
