#!/usr/bin/env bash
# console-tests.sh — the admin console's tests (docs/console.md) against
# build/dbmcp: the API's authorisation suite (tests/node/console_api.test.mjs)
# and the end-to-end suite in a real Chromium (console_browser.test.mjs:
# Debian's chromium driven by playwright-core; screenshots in
# build/console/). Builds nothing: run `make` first. Extra arguments go to
# `node --test`; the two files run side by side (each test has its own
# database and server). With DBMCP_TEST_PG (scripts/test.sh's pg_stage)
# every database is made on that PostgreSQL server. Exit code: node's.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${DBMCP_BIN:-$root/build/dbmcp}"
[ -x "$bin" ] || { echo "console-tests: $bin not built: run make" >&2; exit 1; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" # the suite runs in tests/node
command -v node >/dev/null 2>&1 || { echo "console-tests: node is required" >&2; exit 1; }

cd "$root/tests/node"
# Under a lock on the directory: another suite may be installing too.
flock . sh -c '[ -d node_modules/@modelcontextprotocol/sdk ] && [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund'

export DBMCP_BIN="$bin"
files=(console_api.test.mjs)
[ -f console_browser.test.mjs ] && files+=(console_browser.test.mjs)
exec node --test --test-reporter=spec --test-concurrency=2 "$@" "${files[@]}"
