#!/usr/bin/env bash
# Runs the MCP protocol tests (tests/node/protocol.test.mjs) against
# build/dbmcp with the official MCP TypeScript SDK as the client.
# Builds nothing: run `make` first (or `make protocol`, which does both).
# Extra arguments go to `node --test` (e.g. --test-name-pattern=HTTP).
# The exit code is node's: 0 when every test passed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${DBMCP_BIN:-$root/build/dbmcp}"

if [ ! -x "$bin" ]; then
  echo "protocol-tests: $bin not found or not executable — run 'make' first" >&2
  exit 1
fi
command -v node >/dev/null 2>&1 || { echo "protocol-tests: node is required" >&2; exit 1; }

cd "$root/tests/node"
# Under a lock on the directory: a second copy of the suite may be installing too.
flock . sh -c '[ -d node_modules/@modelcontextprotocol/sdk ] || npm ci --no-audit --no-fund'

export DBMCP_BIN="$bin"
exec node --test --test-reporter=spec "$@" protocol.test.mjs tasks.test.mjs
