#!/usr/bin/env bash
# docs-check.sh — the doc runner (tests/docs/run.mjs): every shell example of
# README.md and docs/*.md runs on a fresh demo database and its output must
# match the page (docs/contributing-docs.md). First the runner is tested on
# its fixtures (tests/docs/fixtures/): a good page passes, a page with a
# wrong output, a wrong exit status or an unmarked block fails, naming the
# line; a captured id feeds the next command, a capture that finds nothing
# fails, and so does an LLM stand-in step left unused or a request it did not
# expect. Stage docs of scripts/test.sh.
#
# Usage: scripts/docs-check.sh [PAGE...]   (no PAGE: every page; needs build/dbmcp, node)
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BIN="$ROOT/build/dbmcp"
[ -x "$BIN" ] || { echo "docs-check.sh: build/dbmcp not built (run make)" >&2; exit 1; }
# the pages' commands see no DBMCP_* of the caller (a DBMCP_DB would hide a missing --db)
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^DBMCP_' || true)

# one fresh demo database for the self-test's runs and the pages (init --demo takes seconds)
DEMO=$(mktemp -d "${TMPDIR:-/tmp}/dbmcp-docs-demo.XXXXXX")
trap 'rm -rf "$DEMO"' EXIT
(cd "$DEMO" && "$BIN" init --db demo.db --demo >/dev/null 2>&1) || { echo "docs-check.sh: dbmcp init --db demo.db --demo failed" >&2; exit 1; }
run() { node tests/docs/run.mjs --bin "$BIN" --demo-dir "$DEMO" "$@"; }
selftest_fail=0
expect() { # expect NAME STATUS PATTERN FIXTURE: the runner's exit status and a line of its output
  local name=$1 want=$2 pattern=$3 fixture=$4 out status
  out=$(run "tests/docs/fixtures/$fixture" 2>&1)
  status=$?
  if [ "$status" -eq "$want" ] && grep -qF -- "$pattern" <<<"$out"; then
    echo "ok   runner: $name"
  else
    echo "FAIL runner: $name (exit $status, want $want; no line with: $pattern)"
    echo "$out" | sed 's/^/    /'
    selftest_fail=1
  fi
}
if [ $# -eq 0 ]; then
  expect "a good page passes" 0 "1 blocks run (4 commands), 1 blocks skipped, 0 failures" good.md
  expect "a wrong output fails with its line" 1 "FAIL tests/docs/fixtures/wrong-output.md:4:" wrong-output.md
  expect "the failure shows a unified diff" 1 "+| Ost | Ostdeutschland | 2700 | 17248 | 4543087.92 |" wrong-output.md
  expect "a wrong exit status fails" 1 "exit status 1, the page says 0" wrong-exit.md
  expect "an unmarked block fails" 1 "FAIL tests/docs/fixtures/unmarked.md:3: shell block with no" unmarked.md
  expect "a captured id feeds the next command" 0 "2 blocks run (4 commands), 0 blocks skipped, 0 failures" capture.md
  expect "a capture that finds nothing fails" 1 'FAIL tests/docs/fixtures/capture-missing.md:4: capture: no command of the block printed "session_id"' capture-missing.md
  expect "an unused step of the LLM stand-in fails" 1 "1 scripted step(s) of tests/docs/fixtures/llm-stub.json never requested" llm-stub-unused.md
  expect "a request the LLM stand-in did not expect fails" 1 'stub expectation failed: {"seq":1,"step":0,"failures":["model is' llm-stub-expect.md
  [ "$selftest_fail" -eq 0 ] || exit 1
fi
run "$@"
