#!/usr/bin/env bash
# chat.sh — `dbmcp chat` and POST /v1/chat against the scripted
# OpenAI-compatible stub: one case per tests/cases/chat/*.json, run by
# tests/cli/chat.mjs (see its header for the case format and the checks made
# on every case: the stub's request log, audit rows per LLM and tool call).
# Prints "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/chat.sh [NAME-SUBSTRING]   (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
command -v node >/dev/null || { echo "chat.sh: node is required" >&2; exit 1; }
BIN="${DBMCP:-$ROOT/build/dbmcp}"
[ -x "$BIN" ] || { echo "chat.sh: $BIN not built (run make)" >&2; exit 1; }
exec node "$ROOT/tests/cli/chat.mjs" "$@"
