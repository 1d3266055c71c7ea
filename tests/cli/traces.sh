#!/usr/bin/env bash
# traces.sh — spans of `dbmcp serve --http` exported over OTLP/HTTP JSON to
# a collector the test runs (tests/stub/otlp-collector.mjs), the trace id in
# the audit table, and the drop counters in /metrics when the collector is
# slow or down (docs/operations.md, "Traces"). The cases are listed in
# tests/cli/traces.mjs, which this runs. On PostgreSQL with DBMCP_TEST_PG
# set (tests/cli/lib/db.sh).
#
# Usage: tests/cli/traces.sh     (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
command -v node >/dev/null || { echo "traces.sh: node is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "traces.sh: $BIN not built (run make)" >&2; exit 1; }
# The SDK the test uses, installed under a lock like scripts/protocol-tests.sh does.
(cd "$ROOT/tests/node" && flock . sh -c '[ -d node_modules/@modelcontextprotocol/sdk ] || npm ci --no-audit --no-fund' >&2) ||
  { echo "traces.sh: cannot install tests/node's packages" >&2; exit 1; }
exec node "$ROOT/tests/cli/traces.mjs" "$@"
