#!/usr/bin/env bash
# Runs a stdio session covering every MCP method of both protocol eras under
# valgrind and fails on any memory error or leak (definite or indirect).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/dbmcp
work=$(mktemp -d)
# The database comes from test_db and is reached through dbmcp (tests/cli/lib/db.sh).
BIN=$bin WORK=$work
# shellcheck source=tests/cli/lib/db.sh
. tests/cli/lib/db.sh
trap 'test_db_cleanup; rm -rf "$work"' EXIT
db=$(test_db v)
"$bin" init --db "$db" --demo --conformance 2>/dev/null
db_sql "$db" "UPDATE dbmcp_interfaces SET enabled = 1 WHERE name = 'conformance'"
modern='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{}}}'
run() {
  local iface=$1 input=$2
  valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --error-exitcode=9 \
    "$bin" serve --db "$db" --interface "$iface" <"$input" >"$work/out.txt" 2>"$work/err.txt" || {
    echo "valgrind: errors with interface $iface:" >&2
    grep -v '"level"' "$work/err.txt" >&2
    return 1
  }
  echo "valgrind: interface $iface: $(wc -l <"$work/out.txt") responses, no errors or leaks"
}
cat >"$work/conformance.jsonl" <<EOT
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"valgrind","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
not json at all
{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"p"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_multiple_content_types","arguments":{}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool"}}
{"jsonrpc":"2.0","id":5,"method":"resources/list"}
{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"test://static-binary"}}
{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"test://template/42/data"}}
{"jsonrpc":"2.0","id":8,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}
{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b"}}}
{"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"a"}}}
{"jsonrpc":"2.0","id":11,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"t"}}}
{"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{"level":"debug"}}
{"jsonrpc":"2.0","id":13,"method":"server/discover","params":{$modern}}
{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"test_input_required_result_multi_round","arguments":{},$modern}}
{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"test_input_required_result_tampered_state","arguments":{},"requestState":"bm9wZQ.bm9wZQ",$modern}}
{"jsonrpc":"2.0","id":16,"method":"prompts/get","params":{"name":"test_input_required_result_prompt",$modern}}
{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{"cursor":"bogus"}}
{"jsonrpc":"2.0","id":18,"method":"ping"}
EOT
cat >"$work/chatbot.jsonl" <<EOT
{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sales_by_region","arguments":{"year":2024}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sales_by_region","arguments":{"year":"2024"}}}
{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"doc://tarif/index"}}
{"jsonrpc":"2.0","id":5,"method":"prompts/list"}
EOT
run conformance "$work/conformance.jsonl"
run chatbot "$work/chatbot.jsonl"
