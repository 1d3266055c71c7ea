#!/usr/bin/env bash
# oidc.sh — single sign-on (docs/security.md, "Single sign-on"): `dbmcp serve
# --http` accepts access tokens of a configured OpenID Connect provider
# beside API keys. The provider is tests/cli/oidc_issuer.mjs, a local
# stand-in speaking the real protocol over HTTPS with a certificate and
# signing keys made here; dbmcp trusts it through DBMCP_OIDC_CA_FILE
# (verification stays on).
#
#   discovery    the 401 challenge names the resource metadata and the scopes
#                of oidc.scope_map; the RFC 9728 metadata names the issuer
#   valid        an RS256 and an ES256 token are accepted; the scope picks
#                the interface, so each caller lists only its tools; the
#                audit row has sub, iss and jti, and the token appears
#                neither in the log nor in the database
#   refused      expired, not yet valid, wrong audience, wrong issuer,
#                tampered payload, alg none, HS256 keyed with the public key,
#                oversized: 401 error="invalid_token"
#   unknown kid  refetches the JWK Set once, then refuses
#   rotation     after the provider rotates its key a token of the new key
#                is accepted (one refetch) and one of the old key refused
#   scope        a scope that maps to no interface: 403 insufficient_scope
#   session      a 2025-11-25 session opened with a token belongs to its
#                subject: another subject's token gets 404, a new token of
#                the same subject goes on
#   api key      an API key still works beside tokens
#   reload       SIGHUP re-reads oidc.scope_map while the server keeps
#                running
#   sdk          the official SDK client (ClientCredentialsProvider) starts
#                without a token, follows the 401 challenge to the metadata and
#                the issuer, gets a token for this server's resource URL (the
#                default audience) and lists and calls tools
#   cli          `dbmcp oidc set` refuses malformed values; `dbmcp oidc
#                check --token-file -` prints the identity a token maps to
#
# Prints "N passed, M failed"; exits 1 on any failure. Needs node, curl,
# openssl. DBMCP_TEST_PG runs it on PostgreSQL (tests/cli/lib/db.sh).
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
for cmd in curl node openssl; do
  command -v "$cmd" >/dev/null || { echo "oidc.sh: $cmd is required" >&2; exit 1; }
done
[ -x "$BIN" ] || { echo "oidc.sh: $BIN not built (run make)" >&2; exit 1; }
# The SDK the client test uses, installed under a lock like scripts/protocol-tests.sh does.
(cd "$ROOT/tests/node" && flock . sh -c '[ -d node_modules/@modelcontextprotocol/sdk ] || npm ci --no-audit --no-fund' >&2) ||
  { echo "oidc.sh: cannot install tests/node's packages" >&2; exit 1; }

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"
# shellcheck source=tests/cli/serve_http.sh
. "$ROOT/tests/cli/serve_http.sh"

WORK="$(mktemp -d)"
SERVE_PID=""
ISSUER_PID=""
cleanup() {
  [ -n "$SERVE_PID" ] && kill -KILL "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
  [ -n "$ISSUER_PID" ] && kill "$ISSUER_PID" 2>/dev/null && wait "$ISSUER_PID" 2>/dev/null
  test_db_cleanup
  if [ -n "${KEEP:-}" ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
unset DBMCP_DB DBMCP_PRINCIPAL DBMCP_INTERFACE DBMCP_ALLOWED_TOOLS DBMCP_LOG DBMCP_OIDC_CA_FILE

passed=0
failed=0
ok() {
  passed=$((passed + 1))
  echo "ok   $1"
}
not_ok() {
  failed=$((failed + 1))
  echo "FAIL $1"
  shift
  for line in "$@"; do echo "     $line"; done
}
expect() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else not_ok "$name" "$*" "log: $(tail -n 3 "$LOG" | cut -c1-300)"; fi
}

# --- the provider: a CA, a server certificate for 127.0.0.1, the issuer ------------
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/ca.key" -out "$WORK/ca.pem" -days 1 \
  -subj /CN=dbmcp-oidc-test-ca 2>/dev/null &&
  openssl req -newkey rsa:2048 -nodes -keyout "$WORK/srv.key" -out "$WORK/srv.csr" \
    -subj /CN=127.0.0.1 2>/dev/null &&
  printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$WORK/ext" &&
  openssl x509 -req -in "$WORK/srv.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" \
    -CAcreateserial -out "$WORK/srv.pem" -days 1 -extfile "$WORK/ext" 2>/dev/null ||
  { echo "oidc.sh: cannot make the test certificates" >&2; exit 1; }

mkfifo "$WORK/issuer.fifo"
node "$ROOT/tests/cli/oidc_issuer.mjs" "$WORK/srv.pem" "$WORK/srv.key" >"$WORK/issuer.fifo" \
  2>"$WORK/issuer.err" &
ISSUER_PID=$!
exec {ifd}<"$WORK/issuer.fifo"
read -r -t 60 -u "$ifd" line || line=""
ISS=${line#issuer }
case $ISS in https://127.0.0.1:*) ;; *) echo "oidc.sh: the issuer did not start: $(cat "$WORK/issuer.err")" >&2; exit 1 ;; esac

AUD=https://dbmcp.test/mcp
# mint JSON: a token from the issuer (see oidc_issuer.mjs for the fields).
mint() {
  curl -s --max-time 10 --cacert "$WORK/ca.pem" -X POST "$ISS/admin/token" -d "$1" |
    sed -n 's/.*"token":"\([^"]*\)".*/\1/p'
}
jwks_fetches() {
  curl -s --max-time 10 --cacert "$WORK/ca.pem" "$ISS/admin/stats" | sed -n 's/.*"jwks":\([0-9]*\).*/\1/p'
}
NOW=$(date +%s)
claims() { # claims SCOPE [EXTRA_JSON_MEMBERS]
  printf '{"sub":"alice-sub","email":"alice@example.test","aud":"%s","scope":"%s","jti":"jti-%s"%s}' \
    "$AUD" "$1" "$RANDOM$RANDOM" "${2:+,$2}"
}

# --- the database and the server ----------------------------------------------------
DB=$(test_db oidc) || exit 1
LOG="$WORK/serve.log"
"$BIN" init --db "$DB" >/dev/null 2>&1 || { echo "oidc.sh: init failed" >&2; exit 1; }
db_sql "$DB" "INSERT INTO dbmcp_interfaces (name, title, description) VALUES ('reader', 'Reader', 'echo only');
INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('reader', 'echo', 1)" >/dev/null ||
  { echo "oidc.sh: cannot add the interface" >&2; exit 1; }
oidc_set() { "$BIN" oidc set --db "$DB" "$@" 2>>"$WORK/set.err"; }
oidc_set issuer "$ISS" && oidc_set audience "$AUD" && oidc_set user_claim email &&
  oidc_set scope_map 'mcp:admin=default mcp:read=reader/helper' && oidc_set refetch_min_s 0 ||
  { echo "oidc.sh: oidc set failed: $(cat "$WORK/set.err")" >&2; exit 1; }
"$BIN" oidc set --db "$DB" scope_map 'mcp:read' >/dev/null 2>&1
expect "settings: oidc set refuses a malformed scope_map (exit 1)" test $? = 1
"$BIN" oidc set --db "$DB" algorithms 'RS256,HS256' >/dev/null 2>&1
expect "settings: oidc set refuses HS256 in the allowlist (exit 1)" test $? = 1
KEY=$("$BIN" keys create --db "$DB" --interface default --principal bob 2>/dev/null | grep -o 'dbmcp_[A-Za-z0-9_]*' | head -1)

if ! DBMCP_OIDC_CA_FILE="$WORK/ca.pem" serve_http_start "$LOG" "$BIN" serve --db "$DB" --http 127.0.0.1:0; then
  echo "oidc.sh: serve did not start: $(tail -n 5 "$LOG")" >&2
  exit 1
fi
BASE=${SERVE_URL%/mcp}
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# list TOKEN OUT: a 2026-07-28 tools/list with the bearer; prints the HTTP
# status, headers in OUT.h.
list() {
  curl -s --max-time 20 -D "$2.h" -o "$2" -w '%{http_code}' "$SERVE_URL" \
    ${1:+-H "Authorization: Bearer $1"} \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{$META}}"
}
# echo_call TOKEN OUT: tools/call echo; prints the HTTP status.
echo_call() {
  curl -s --max-time 20 -o "$2" -w '%{http_code}' "$SERVE_URL" -H "Authorization: Bearer $1" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},$META}}"
}
challenge() { grep -i '^WWW-Authenticate:' "$1.h" | tr -d '\r'; }

# --- discovery ----------------------------------------------------------------------
code=$(list "" "$WORK/none.out")
expect "discovery: no credentials is 401" test "$code" = 401
expect "discovery: the challenge names the metadata and the mapped scopes" \
  grep -q 'resource_metadata=".*/.well-known/oauth-protected-resource", scope="mcp:admin mcp:read"' \
  <(challenge "$WORK/none.out")
curl -s --max-time 10 -o "$WORK/prm.json" "$BASE/.well-known/oauth-protected-resource"
expect "discovery: RFC 9728 metadata lists the issuer as authorization server" \
  grep -q "\"authorization_servers\": *\[\"$ISS\"\]" "$WORK/prm.json"
expect "discovery: RFC 9728 metadata lists scopes_supported" \
  grep -q '"scopes_supported": *\["mcp:admin", *"mcp:read"\]' "$WORK/prm.json"

# --- valid tokens -------------------------------------------------------------------
READ_TOKEN=$(mint "{\"claims\":$(claims mcp:read '"jti":"jti-read-1"')}")
code=$(list "$READ_TOKEN" "$WORK/read.out")
expect "valid: an RS256 token with scope mcp:read is accepted" test "$code" = 200
expect "valid: mcp:read maps to interface reader: echo is listed" grep -q '"name": *"echo"' "$WORK/read.out"
expect "valid: ... and server_info is not" bash -c "! grep -q server_info '$WORK/read.out'"
code=$(echo_call "$READ_TOKEN" "$WORK/echo.out")
expect "valid: the token calls echo" test "$code" = 200
ADMIN_TOKEN=$(mint "{\"claims\":$(claims 'openid mcp:admin')}")
code=$(list "$ADMIN_TOKEN" "$WORK/admin.out")
expect "valid: scope mcp:admin maps to interface default: server_info is listed" \
  grep -q '"name": *"server_info"' "$WORK/admin.out"
EC_TOKEN=$(mint "{\"key\":\"ec\",\"claims\":$(claims mcp:read)}")
code=$(list "$EC_TOKEN" "$WORK/ec.out")
expect "valid: an ES256 token is accepted" test "$code" = 200

DBMCP_OIDC_CA_FILE="$WORK/ca.pem" "$BIN" oidc check --db "$DB" --token-file - \
  <<<"$READ_TOKEN" >"$WORK/check.out" 2>"$WORK/check.err"
expect "check: dbmcp oidc check verifies a token and prints its identity" \
  grep -qx 'interface reader' "$WORK/check.out"
expect "check: ... and never the token" bash -c "! grep -qF -- '${READ_TOKEN##*.}' '$WORK/check.out' '$WORK/check.err'"

# --- refusals -----------------------------------------------------------------------
refused() { # refused NAME TOKEN: 401 with error="invalid_token"
  local code
  code=$(list "$2" "$WORK/refused.out")
  if [ "$code" = 401 ] && challenge "$WORK/refused.out" | grep -q 'error="invalid_token"'; then
    ok "refused: $1 (401 invalid_token)"
  else
    not_ok "refused: $1 (401 invalid_token)" "status $code" "$(challenge "$WORK/refused.out")" "log: $(tail -n 2 "$LOG")"
  fi
}
refused "expired" "$(mint "{\"claims\":$(claims mcp:read "\"exp\":$((NOW - 3600))")}")"
refused "not yet valid (nbf)" "$(mint "{\"claims\":$(claims mcp:read "\"nbf\":$((NOW + 3600))")}")"
refused "wrong audience" "$(mint "{\"claims\":{\"sub\":\"a\",\"email\":\"a@x\",\"aud\":\"https://other.test/mcp\",\"scope\":\"mcp:read\"}}")"
refused "wrong issuer" "$(mint "{\"claims\":$(claims mcp:read '"iss":"https://evil.test"')}")"
refused "tampered payload" "$(mint "{\"tamper\":true,\"claims\":$(claims mcp:read)}")"
refused "alg none" "$(mint "{\"none\":true,\"claims\":$(claims mcp:read)}")"
refused "HS256 keyed with the public key" "$(mint "{\"alg\":\"HS256\",\"claims\":$(claims mcp:read)}")"
refused "oversized (9000 bytes)" "$(head -c 9000 /dev/zero | tr '\0' 'a').x.y"
expect "refused: the log names the reason (expired)" grep -q 'token refused: token expired' "$LOG"

# --- unknown key id: one refetch, then refusal -----------------------------------
before=$(jwks_fetches)
refused "unknown kid" "$(mint "{\"key\":\"stray\",\"claims\":$(claims mcp:read)}")"
after=$(jwks_fetches)
expect "unknown kid: the JWK Set was fetched exactly once more ($before -> $after)" \
  test "$after" = "$((before + 1))"
expect "unknown kid: the log says it was refused after a refetch" grep -q 'unknown key id stray (after a refetch' "$LOG"

# --- rotation -------------------------------------------------------------------
curl -s --max-time 10 --cacert "$WORK/ca.pem" -X POST "$ISS/admin/rotate" >/dev/null
NEW_TOKEN=$(mint "{\"claims\":$(claims mcp:read)}")
code=$(list "$NEW_TOKEN" "$WORK/rot.out")
expect "rotation: a token of the new key is accepted" test "$code" = 200
refused "rotation: a token of the rotated-out key" "$READ_TOKEN"

# --- scope that maps to no interface ------------------------------------------------
code=$(list "$(mint "{\"claims\":$(claims 'openid profile')}")" "$WORK/scope.out")
expect "scope: a token without a mapped scope is 403" test "$code" = 403
expect "scope: the challenge says insufficient_scope and names the scopes" \
  grep -q 'scope="mcp:admin mcp:read", error="insufficient_scope"' <(challenge "$WORK/scope.out")

# --- a legacy session belongs to its caller ---------------------------------------
# legacy_post TOKEN SID BODY OUT: one POST on a 2025-11-25 session; prints the status.
legacy_post() {
  curl -s --max-time 20 -D "$4.h" -o "$4" -w '%{http_code}' "$SERVE_URL" -H "Authorization: Bearer $1" \
    ${2:+-H "Mcp-Session-Id: $2"} -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -d "$3"
}
code=$(legacy_post "$NEW_TOKEN" "" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"oidc.sh","version":"1"}}}' "$WORK/init.out")
SID=$(grep -i '^Mcp-Session-Id:' "$WORK/init.out.h" | tr -d '\r' | cut -d' ' -f2)
legacy_post "$NEW_TOKEN" "$SID" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$WORK/inited.out" >/dev/null
OTHER_TOKEN=$(mint "{\"claims\":{\"sub\":\"bob-sub\",\"email\":\"bob@example.test\",\"aud\":\"$AUD\",\"scope\":\"mcp:read\"}}")
code_other=$(legacy_post "$OTHER_TOKEN" "$SID" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' "$WORK/other.out")
code_same=$(legacy_post "$(mint "{\"claims\":$(claims mcp:read)}")" "$SID" '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' "$WORK/same.out")
expect "session: a token opens a 2025-11-25 session" test "$code" = 200 -a -n "$SID"
expect "session: another subject's token gets 404 for it" test "$code_other" = 404
expect "session: a fresh token of the same subject goes on using it" test "$code_same" = 200

# --- API keys beside tokens ---------------------------------------------------------
code=$(list "$KEY" "$WORK/key.out")
expect "api key: still accepted" test "$code" = 200
code=$(echo_call "$KEY" "$WORK/key_echo.out")
expect "api key: calls echo" test "$code" = 200

# --- audit and secrecy --------------------------------------------------------------
for _ in $(seq 1 100); do
  "$BIN" sql --db "$DB" "SELECT principal, interface, agent_id, auth_subject, auth_issuer, auth_token_id FROM dbmcp_audit WHERE auth_token_id = 'jti-read-1' AND method = 'tools/call'" >"$WORK/audit.out" 2>&1
  [ -s "$WORK/audit.out" ] && break
  sleep 0.1
done
expect "audit: the call has principal, interface, agent, sub, iss and jti" \
  grep -qx "alice@example.test|reader|helper|alice-sub|$ISS|jti-read-1" "$WORK/audit.out"
# Rows nobody waits for are written within the audit's flush interval.
for _ in $(seq 1 100); do
  "$BIN" sql --db "$DB" "SELECT count(*) FROM dbmcp_audit WHERE auth_subject IS NULL AND principal = 'bob' AND method = 'tools/call'" >"$WORK/audit_key.out" 2>&1
  grep -qx '[1-9][0-9]*' "$WORK/audit_key.out" && break
  sleep 0.1
done
expect "audit: an API key's rows have no token columns" grep -qx '[1-9][0-9]*' "$WORK/audit_key.out"
SIG=${READ_TOKEN##*.}
expect "secrecy: the token is not in the log" bash -c "! grep -qF -- '$SIG' '$LOG'"
expect "secrecy: the token is not in the database" bash -c "! '$BIN' dump --db '$DB' | grep -qF -- '$SIG'"

# --- reload ------------------------------------------------------------------------
oidc_set scope_map 'mcp:read=default'
kill -HUP "$SERVE_PID"
for _ in $(seq 1 600); do grep -q 'reload.*reloaded' "$LOG" && break; sleep 0.1; done
code=$(list "$NEW_TOKEN" "$WORK/reload.out")
expect "reload: after SIGHUP mcp:read maps to default (server_info listed)" \
  grep -q '"name": *"server_info"' "$WORK/reload.out"
code=$(list "" "$WORK/reload_none.out")
expect "reload: the challenge names the new scopes" grep -q 'scope="mcp:read"' <(challenge "$WORK/reload_none.out")
expect "reload: the server is still running" kill -0 "$SERVE_PID"

# --- the SDK client's OAuth flow ----------------------------------------------------
# Without oidc.audience the audience is this server's own resource URL, which
# the SDK asks the provider for (RFC 8707 resource).
oidc_set audience ''
kill -HUP "$SERVE_PID"
for _ in $(seq 1 600); do [ "$(grep -c 'reload.*reloaded' "$LOG")" -ge 2 ] && break; sleep 0.1; done
NODE_EXTRA_CA_CERTS="$WORK/ca.pem" node "$ROOT/tests/cli/oidc_sdk.mjs" "$SERVE_URL" "$ISS" \
  >"$WORK/sdk.out" 2>"$WORK/sdk.err"
expect "sdk: the SDK client got a token by itself (401 -> metadata -> client_credentials) and listed tools" \
  grep -q '"tools":\["echo","server_info"' "$WORK/sdk.out"
expect "sdk: the token came from the issuer's token endpoint" \
  grep -q '"grants":[1-9]' <(curl -s --max-time 10 --cacert "$WORK/ca.pem" "$ISS/admin/stats")
expect "sdk: ... and called echo with it" grep -q '"echo":"sso"' "$WORK/sdk.out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
