#!/usr/bin/env bash
# Builds dbmcp with ThreadSanitizer and runs the protocol suite (stdio and
# HTTP, concurrent sessions, disconnects, list_changed) against it. Fails on
# any data race report.
set -euo pipefail
cd "$(dirname "$0")/.."
# Under a lock: a second copy of the suite may be building the same tree.
mkdir -p build/tsan
flock build/tsan make -s -j2 BUILD=build/tsan CC=clang CFLAGS="-O1 -g -fsanitize=thread" build/tsan/dbmcp
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
cd tests/node
flock . sh -c '[ -d node_modules/@modelcontextprotocol/sdk ] || npm ci --no-audit --no-fund' >&2
status=0
TSAN_OPTIONS="halt_on_error=0 log_path=$logs/tsan" DBMCP_BIN="$PWD/../../build/tsan/dbmcp" \
  node --test --test-reporter=dot protocol.test.mjs || status=1
if ls "$logs"/tsan.* >/dev/null 2>&1; then
  echo "tsan: ThreadSanitizer reports:" >&2
  cat "$logs"/tsan.* >&2
  status=1
else
  echo "tsan: no data races reported"
fi
exit $status
