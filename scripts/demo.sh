#!/usr/bin/env bash
# `make demo`: create demo.db with the demo data set (once), make an API key
# for the chatbot interface and an admin key for the console (both new on
# every run, shown once), and serve it over HTTP on 127.0.0.1:${PORT:-8080}.
set -euo pipefail
cd "$(dirname "$0")/.."
db=${DEMO_DB:-demo.db}
port=${PORT:-8080}
if [ ! -f "$db" ]; then
  build/dbmcp init --db "$db" --demo
fi
key=$(build/dbmcp keys create --db "$db" --interface chatbot --user demo \
  --description "make demo" 2>/dev/null)
admin=$(build/dbmcp keys create --db "$db" --admin --principal demo-admin \
  --description "make demo console login" 2>/dev/null)
cat <<EOT

dbmcp demo — database $db, MCP endpoint http://127.0.0.1:$port/mcp

  API key (interface chatbot, shown once): $key

  Admin console: http://127.0.0.1:$port/admin/
    log in with this admin key (shown once): $admin

  Try it:
    curl -s http://127.0.0.1:$port/mcp -H "Authorization: Bearer $key" \\
      -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \\
      -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: sales_by_region' \\
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sales_by_region","arguments":{"year":2024},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'

    build/dbmcp call --db $db --interface chatbot top_products '{"year":2025,"limit":5}'
    build/dbmcp audit --db $db

  Stop with Ctrl-C.
EOT
exec build/dbmcp serve --db "$db" --http "127.0.0.1:$port"
