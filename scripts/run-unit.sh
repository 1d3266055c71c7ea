#!/usr/bin/env bash
# run-unit.sh — run cmocka unit test binaries and total their results.
#
#   scripts/run-unit.sh build/tests/test_jsonrpc build/tests/test_catalog ...
#
# Each binary runs from the repository root with DBMCP_CASES=tests/cases (so
# the data-driven tests find their case files) and its cmocka output is shown
# as it comes. The last line is the total over all binaries:
#
#   N passed, M failed
#
# A binary that dies before cmocka prints its summary (a crash, a sanitizer
# report, a missing file) counts every test it did not finish as failed, at
# least one; a binary that reports no failures but exits non-zero (say
# LeakSanitizer at exit) counts as one failure. A binary still running after
# UNIT_TIMEOUT seconds (default 300) is stopped and counts as crashed. The
# exit status is non-zero when anything failed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Resolve the arguments before leaving the caller's directory.
binaries=()
for arg in "$@"; do
  case "$arg" in
    /*) binaries+=("$arg") ;;
    *) binaries+=("$PWD/$arg") ;;
  esac
done

cd "$root" || exit 2
export DBMCP_CASES="${DBMCP_CASES:-tests/cases}"
# cmocka's plain format is the one parsed below, whatever the caller set.
export CMOCKA_MESSAGE_OUTPUT=STDOUT

log="$(mktemp "${TMPDIR:-/tmp}/run-unit.XXXXXX")"
trap 'rm -f "$log"' EXIT

total_passed=0
total_failed=0

# N from the first "<tag> N test(s)" in $log, where $1 is the tag as an
# extended regex; empty when there is none. Matched anywhere in a line:
# cmocka's stdout and stderr share the log and may run together.
count_of() {
  grep -Eo -- "$1 [0-9]+ test\(s\)" "$log" | head -n 1 | grep -Eo '[0-9]+' | head -n 1
}

for bin in "${binaries[@]}"; do
  name="${bin#"$root"/}"
  echo "== $name"
  if [ ! -x "$bin" ]; then
    echo "run-unit: $name: not found or not executable" >&2
    total_failed=$((total_failed + 1))
    continue
  fi
  timeout "${UNIT_TIMEOUT:-300}" "$bin" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}

  running="$(count_of '\[=+\] Running')"
  passed="$(count_of '\[  PASSED  \]')"
  # "[  FAILED  ] 2 test(s), listed below:", not the per-test lines after it.
  failed="$(count_of '\[  FAILED  \]')"

  if [ -n "$passed" ]; then
    failed="${failed:-0}"
    if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
      echo "run-unit: $name: all tests passed but it exited with status $status" >&2
      failed=1
    fi
  else
    # No summary: the binary died part-way. What finished OK passed; the
    # rest (at least one) failed.
    passed="$(grep -Fo -- '[       OK ] ' "$log" | wc -l)"
    failed=$(( ${running:-0} - passed ))
    [ "$failed" -lt 1 ] && failed=1
    echo "run-unit: $name: no cmocka summary, exit status $status (crashed?)" >&2
  fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
done

echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
