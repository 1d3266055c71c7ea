#!/usr/bin/env bash
# hostile_pg.sh — the hostile SQL suite of issue #11 on a real PostgreSQL
# 15 server, through dbmcp: agent SQL runs as the query role dbmcp init
# made, inside pg_guard's call, and must leave every byte of data unchanged
# and leak nothing. Stage pg-hostile-sql of scripts/test.sh.
#
# Steps, on a throw-away server (scripts/pg.sh) and a database owned by
# dbmcp_owner, a role without CREATEROLE that stands for the catalog
# connection's user:
#   (a) dbmcp init as dbmcp_owner prints the statements that create the
#       query role and exits 1 without touching the database; a superuser
#       runs them; init again creates dbmcp's schema and grants what it may;
#   (b) the fixture (user data, extensions, secrets marked TOPSECRET in
#       dbmcp's tables and elsewhere); init --query-schemas public leaves the
#       grants on tables others own as statements, which the superuser runs;
#   (c) the check serve runs: `dbmcp call` refuses to start while the query
#       role may call dblink or read a view over dbmcp's keys, naming each
#       fix; with the fixes applied it starts. Then each misconfiguration
#       of the role alone: dbmcp refuses it with its fix, the fix clears it;
#   (d) the call's names: application_name carries the call id while a call
#       runs;
#   (e) another caller's long query as the same role; dumps (the database
#       but dbmcp's audit rows, the roles, the large objects);
#   (f) every case of tests/cases/hostile_pg through `dbmcp call
#       execute_query` (tests/cli/hostile_pg_cases.mjs): refused by
#       admission with its rule, refused by the server, stopped at the time
#       limit, or answered, as each case records; every call audited;
#   (g) the server alone: every case again, refused or not, straight to the
#       server as the query role in pg_guard's call (tests/cli/pg_guard_run.c,
#       libpq), since admission is only the first lock; the session must be
#       as it was after each;
#   (h) dumps again, compared byte for byte; no advisory lock, no prepared
#       transaction left.
# Admission's own verdict on every case (rule by rule) is
# build/tests/test_admission's, which reads the same files.
#
# Usage: tests/cli/hostile_pg.sh   (needs postgresql-15, libpq-dev, node; run as
#                                   root or as a user who may run the server)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/hostile_pg"
MARKER=TOPSECRET
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(PG|DBMCP_)' || true)
export DBMCP_LOG=warn

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
die() { echo "hostile_pg.sh: $*" >&2; exit 1; }

# --- builds ----------------------------------------------------------------------
make -C "$ROOT" -s all build/tests/test_admission >/dev/null || die "make failed"
RUNNER="$ROOT/build/tests/pg_guard_run"
objs=$(find "$ROOT/build/obj" -name '*.o' ! -path '*/cli/*' | sort)
# shellcheck disable=SC2086
cc -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$ROOT/src" \
  -I"$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)" \
  $(pkg-config --cflags jansson) -o "$RUNNER" "$ROOT/tests/cli/pg_guard_run.c" $objs \
  $(pkg-config --libs sqlite3 libcrypto jansson libmicrohttpd libsodium libutf8proc) \
  -lstemmer -lpthread -lm -ldl -lpq || die "cannot build pg_guard_run (libpq-dev?)"

# --- a throw-away server -----------------------------------------------------------
WORK="$(mktemp -d /tmp/dbmcp-hostile-pg.XXXXXX)"
chmod 755 "$WORK"
PGDIR="$WORK/pg"
cleanup() {
  [ -n "${tenant_pid:-}" ] && kill "$tenant_pid" 2>/dev/null
  "$ROOT/scripts/pg.sh" stop "$PGDIR" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
SUPER_URI=$("$ROOT/scripts/pg.sh" start "$PGDIR") || die "scripts/pg.sh start failed"
HOSTQ=${SUPER_URI#*\?} # host=… of the URI pg.sh printed
uri_for() { echo "postgresql://$1:$2@/$3?$HOSTQ"; } # USER PASSWORD DATABASE
superpw=${SUPER_URI#postgresql://postgres:}
superpw=${superpw%%@*}
secret() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
ownerpw=$(secret)
querypw=$(secret)
SUPER_DB=$(uri_for postgres "$superpw" hostile)
OWNER_DB=$(uri_for dbmcp_owner "$ownerpw" hostile)
QUERY_URI=$(uri_for dbmcp_query "$querypw" hostile)
psql_super() { psql "$SUPER_DB" -X -q -v ON_ERROR_STOP=1 "$@"; }

psql "$SUPER_URI" -X -q -v ON_ERROR_STOP=1 \
  -c "CREATE ROLE dbmcp_owner LOGIN PASSWORD '$ownerpw'" \
  -c "CREATE DATABASE hostile OWNER dbmcp_owner" || die "cannot create the owner and the database"

dump() {
  # pg_dump 15.14 and later write a random \restrict key: not data. The
  # audit rows (and their id sequence) are what every call adds by design,
  # counted apart.
  pg_dump "$SUPER_DB" --exclude-table-data=dbmcp.dbmcp_audit 2>"$WORK/$1.err" |
    grep -v -e '^\\\(un\)\?restrict ' -e "^SELECT pg_catalog.setval('dbmcp.dbmcp_audit_id_seq'" >"$WORK/$1.sql"
  pg_dumpall -d "$SUPER_URI" --globals-only --no-role-passwords 2>&1 |
    grep -v '^\\\(un\)\?restrict ' >"$WORK/$1.globals.sql"
  psql_super -A -t -c "SELECT count(*), coalesce(sum(length(lo_get(oid))), 0)
    FROM pg_largeobject_metadata" >"$WORK/$1.lo.txt"
}

# --- (a) init by a user who may not create roles --------------------------------------
dump empty
"$BIN" init --db "$OWNER_DB" >"$WORK/role.sql" 2>"$WORK/init1.err"
rc=$?
dump empty_after
if ! cmp -s "$WORK/empty.sql" "$WORK/empty_after.sql"; then
  bad "init without CREATEROLE" "the database changed: $(diff "$WORK/empty.sql" "$WORK/empty_after.sql" | head)"
elif [ $rc -eq 1 ] && grep -q 'CREATE ROLE dbmcp_query LOGIN' "$WORK/role.sql" &&
  grep -q 'nothing was changed' "$WORK/init1.err" && ! grep -q 'GRANT' "$WORK/role.sql"; then
  ok "init without CREATEROLE: exit 1, the role's statements on stdout, the database untouched"
else bad "init without CREATEROLE" "exit $rc: $(cat "$WORK/init1.err" "$WORK/role.sql")"; fi
if psql_super -f "$WORK/role.sql" >"$WORK/role.log" 2>&1 &&
  psql_super -c "ALTER ROLE dbmcp_query PASSWORD '$querypw'"; then
  ok "the printed statements run as a superuser (then the password, as psql's \\password would)"
else bad "the printed statements" "$(cat "$WORK/role.log")"; fi
got=$(psql "$QUERY_URI" -X -A -t -c "SELECT current_setting('temp_file_limit'), current_setting('track_activities'), current_setting('default_transaction_read_only')" 2>&1)
[ "$got" = "1GB|off|on" ] && ok "the role's defaults apply at login ($got)" || bad "the role's defaults" "$got"
if DBMCP_QUERY_PASSWORD=$querypw "$BIN" init --db "$OWNER_DB" >"$WORK/init2.out" 2>"$WORK/init2.err" &&
  grep -q 'query role dbmcp_query exists' "$WORK/init2.err" &&
  grep -q 'reads nothing yet' "$WORK/init2.err"; then
  ok "init again: schema made; the role exists, left as it is; it reads nothing yet"
else bad "init again" "$(cat "$WORK/init2.err" "$WORK/init2.out")"; fi

# --- (b) the data, and what the query role may read ---------------------------------
psql_super -f "$CASES/fixture.sql" >"$WORK/fixture.log" 2>&1 ||
  { cat "$WORK/fixture.log" >&2; die "fixture.sql failed"; }
"$BIN" init --db "$OWNER_DB" --query-schemas public >"$WORK/pending.sql" 2>"$WORK/init3.err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'GRANT SELECT ON ALL TABLES IN SCHEMA public TO dbmcp_query;' "$WORK/pending.sql" &&
  grep -q 'were not run' "$WORK/init3.err"; then
  ok "init --query-schemas public: the grants on tables others own are left as statements"
else bad "init --query-schemas public" "exit $rc: $(cat "$WORK/init3.err" "$WORK/pending.sql")"; fi
psql_super -f "$WORK/pending.sql" >"$WORK/pending.log" 2>&1 || bad "the pending statements" "$(cat "$WORK/pending.log")"

# --- (c) the check serve runs ------------------------------------------------------------
export DBMCP_QUERY_PASSWORD=$querypw
# call: one `dbmcp call execute_query` with a trivial query; sets STATUS, OUT, ERR.
call() {
  "$BIN" call --db "$OWNER_DB" execute_query '{"query": "SELECT 1 AS one"}' >"$WORK/call.out" 2>"$WORK/call.err"
  STATUS=$?
  OUT=$(cat "$WORK/call.out")
  ERR=$(cat "$WORK/call.err")
}
# The fixes of the refusals dbmcp logged (those whose text holds $1, when
# given), one statement a line: after "; fix: " on the refusal's line, or
# on the "fix: " lines that follow it when the fix is too long for one.
fixes() {
  node -e '
    let take = false;
    for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
      let o;
      try { o = JSON.parse(line); } catch { continue; }
      if (o.component !== "query-role" || o.level !== "error") continue;
      if (o.msg.startsWith("fix: ")) { if (take) console.log(o.msg.slice(5)); continue; }
      take = o.msg.includes(process.argv[1] || "");
      const fix = o.msg.replace(/^.*?; fix: /, "");
      if (take && fix !== "on the lines below") console.log(fix);
    }' "${1:-}" <"$WORK/call.err"
}
call
if [ "$STATUS" -eq 1 ] && grep -q 'refused: dbmcp_query (function): EXECUTE on dblink' <<<"$ERR" &&
  grep -q 'refused: dbmcp_query (view): SELECT on v_owner_keys' <<<"$ERR" &&
  grep -q 'dbmcp: refusing to serve: ' <<<"$ERR"; then
  ok "dbmcp refuses to start: dblink is executable by PUBLIC, a granted view reads dbmcp as its owner"
else bad "the first start" "exit $STATUS: $ERR"; fi
fixes >"$WORK/fix.sql"
psql_super -f "$WORK/fix.sql" >/dev/null 2>&1 || bad "the logged fixes" "$(cat "$WORK/fix.sql")"
call
if [ "$STATUS" -eq 0 ] && grep -q '| 1 |' <<<"$OUT"; then
  ok "dbmcp starts once its fixes ran; warnings:"
  grep '"query-role"' <<<"$ERR" | sed 's/^.*"msg":"warning: /       /; s/"}$//'
else bad "the start after the fixes" "exit $STATUS: $ERR"; fi

# Each misconfiguration alone: "setup" breaks the role, "expect" is what the
# refusal names (code and object); its fix is taken from dbmcp's log, or
# from "fix" where dbmcp cannot log in at all to check.
while IFS='|' read -r what setup expect fix; do
  [ -z "$what" ] && continue
  psql_super -c "$setup" >/dev/null 2>&1 || { bad "check: $what" "setup failed: $setup"; continue; }
  call
  if [ "$STATUS" -ne 1 ] || ! grep -qF -- "$expect" <<<"$ERR"; then
    bad "check: $what" "exit $STATUS, no refusal with '$expect': $ERR"
    [ -n "$fix" ] && psql_super -c "$fix" >/dev/null 2>&1
    continue
  fi
  [ -z "$fix" ] && fix=$(fixes "$expect" | head -n 1)
  psql_super -c "$fix" >/dev/null 2>&1
  call
  [ "$STATUS" -eq 0 ] && ok "check: $what → $fix" || bad "check: $what" "still refused after: $fix: $ERR"
done <<'EOF'
superuser|ALTER ROLE dbmcp_query SUPERUSER|refused: dbmcp_query (superuser): role dbmcp_query has SUPERUSER|
createrole|ALTER ROLE dbmcp_query CREATEROLE|refused: dbmcp_query (createrole): role dbmcp_query has CREATEROLE|
bypassrls|ALTER ROLE dbmcp_query BYPASSRLS|refused: dbmcp_query (bypassrls): role dbmcp_query has BYPASSRLS|
member of pg_read_all_data|GRANT pg_read_all_data TO dbmcp_query|refused: dbmcp_query (member): member of role pg_read_all_data|
member of the catalog role|GRANT dbmcp_owner TO dbmcp_query|refused: dbmcp_query (member): member of role dbmcp_owner|
owns a table|CREATE TABLE public.q_owned (a int); ALTER TABLE public.q_owned OWNER TO dbmcp_query|refused: dbmcp_query (owner): owns table q_owned|
INSERT to PUBLIC|GRANT INSERT ON public.items TO PUBLIC|refused: dbmcp_query (write): INSERT on table items|
UPDATE on a column|GRANT UPDATE (name) ON public.people TO dbmcp_query|refused: dbmcp_query (write): UPDATE on column name of people|
TRUNCATE|GRANT TRUNCATE ON public.docs TO dbmcp_query|refused: dbmcp_query (write): TRUNCATE on table docs|
REFERENCES|GRANT REFERENCES ON public.items TO dbmcp_query|refused: dbmcp_query (write): REFERENCES on table items|
TRIGGER|GRANT TRIGGER ON public.items TO dbmcp_query|refused: dbmcp_query (write): TRIGGER on table items|
setval on a sequence|GRANT UPDATE ON SEQUENCE public.order_no TO dbmcp_query|refused: dbmcp_query (write): UPDATE on sequence order_no|
nextval on a sequence|GRANT USAGE ON SEQUENCE public.order_no TO PUBLIC|refused: dbmcp_query (write): USAGE on sequence order_no|
CREATE on a schema|GRANT CREATE ON SCHEMA public TO PUBLIC|refused: dbmcp_query (create): CREATE on schema public|
CREATE on the database|GRANT CREATE ON DATABASE hostile TO dbmcp_query|refused: dbmcp_query (create): CREATE on database hostile|
UPDATE on a large object|GRANT UPDATE ON LARGE OBJECT 424242 TO dbmcp_query|refused: dbmcp_query (write): UPDATE on large object 424242|
SET on a parameter|GRANT SET ON PARAMETER temp_file_limit TO dbmcp_query|refused: dbmcp_query (parameter): SET on parameter temp_file_limit|
future tables writable|ALTER DEFAULT PRIVILEGES FOR ROLE app_owner IN SCHEMA public GRANT INSERT ON TABLES TO dbmcp_query|refused: dbmcp_query (default): INSERT on future tables of app_owner in schema public|
USAGE on dbmcp's schema|GRANT USAGE ON SCHEMA dbmcp TO PUBLIC|refused: dbmcp_query (internal): USAGE on schema dbmcp|
SELECT on a dbmcp table|GRANT SELECT ON dbmcp.dbmcp_settings TO dbmcp_query|refused: dbmcp_query (internal): SELECT on dbmcp.dbmcp_settings|
a view reading dbmcp as its owner|GRANT SELECT ON public.v_owner_keys TO PUBLIC|refused: dbmcp_query (view): SELECT on v_owner_keys, which reads dbmcp with the rights of dbmcp_owner|
a view whose owner may read a dbmcp table|GRANT SELECT ON dbmcp.dbmcp_api_keys TO app_owner|refused: dbmcp_query (view): SELECT on v_secret, which reads dbmcp with the rights of app_owner|
a view over that view|CREATE VIEW public.v_nested AS SELECT * FROM public.v_owner_keys; GRANT SELECT ON public.v_nested TO dbmcp_query|refused: dbmcp_query (view): SELECT on v_nested|
a definer function run by dbmcp's owner|CREATE FUNCTION public.keys_count() RETURNS bigint LANGUAGE sql SECURITY DEFINER AS 'SELECT count(*) FROM dbmcp.dbmcp_api_keys'; ALTER FUNCTION public.keys_count() OWNER TO dbmcp_owner|refused: dbmcp_query (definer): EXECUTE on keys_count(), which runs as dbmcp_owner|
reading server files|GRANT EXECUTE ON FUNCTION pg_read_file(text) TO dbmcp_query|refused: dbmcp_query (function): EXECUTE on pg_read_file(text)|
cannot log in|ALTER ROLE dbmcp_query NOLOGIN|is not permitted to log in|ALTER ROLE dbmcp_query LOGIN
EOF
call
[ "$STATUS" -eq 0 ] && ok "check: clean again after every fix" || bad "check: clean again" "$ERR"
psql_super -c "DROP VIEW IF EXISTS public.v_nested; DROP TABLE IF EXISTS public.q_owned;
  DROP FUNCTION IF EXISTS public.keys_count(); REVOKE SELECT ON dbmcp.dbmcp_api_keys FROM app_owner;
  GRANT SELECT ON public.v_secret TO dbmcp_query" >/dev/null 2>&1
call
[ "$STATUS" -eq 0 ] || bad "check after the scenarios" "$ERR"

# --- (d) the call's names on the server ----------------------------------------------------
"$BIN" sql --db "$OWNER_DB" "UPDATE dbmcp_settings SET value = '3000' WHERE key = 'query.timeout_ms'" >/dev/null
"$BIN" call --db "$OWNER_DB" execute_query \
  '{"query": "SELECT count(*) FROM items a, items b, items c, items d, items e, items f"}' \
  >"$WORK/slow.out" 2>&1 &
slow_pid=$!
app=""
for _ in $(seq 50); do
  app=$(psql_super -A -t -c "SELECT application_name FROM pg_stat_activity
    WHERE usename = 'dbmcp_query' AND application_name LIKE 'dbmcp execute_query %'" 2>/dev/null)
  [ -n "$app" ] && break
  sleep 0.1
done
wait "$slow_pid"
callid=$(grep -o 'call id [0-9a-f-]*' "$WORK/slow.out" | cut -d' ' -f3)
if [ -n "$callid" ] && [ "$app" = "dbmcp execute_query $callid" ] &&
  grep -q 'stopped at the time limit of 3000 ms' "$WORK/slow.out"; then
  ok "while a call runs, application_name names it ($app); the server stops it at 3 s"
else bad "the call's application_name" "seen '$app', call id '$callid': $(cat "$WORK/slow.out")"; fi
"$BIN" sql --db "$OWNER_DB" "UPDATE dbmcp_settings SET value = '2000' WHERE key = 'query.timeout_ms'" >/dev/null

# --- (e) another caller's query, as the same role; the dumps --------------------------------
tenant_uri="$QUERY_URI&application_name=dbmcp-tenant"
psql "$tenant_uri" -X -q -c "SELECT 'TOPSECRET-tenant-4b1e', pg_sleep(600)" >/dev/null 2>&1 &
tenant_pid=$!
sleep 1
audit_before=$("$BIN" sql --db "$OWNER_DB" "SELECT count(*) FROM dbmcp_audit")
dump before

# --- (f) the cases through dbmcp --------------------------------------------------------------
admission=$(cd "$ROOT" && build/tests/test_admission 2>&1 | grep -E '^hostile_pg:|FAIL|refus|PASSED|FAILED' | tail -n 5)
if grep -q 'PASSED' <<<"$admission" && grep -q '^hostile_pg: [0-9]* cases in [0-9]* files, 0 failed' <<<"$admission"; then
  ok "admission's rules: $(grep '^hostile_pg:' <<<"$admission")"
else bad "admission (build/tests/test_admission)" "$admission"; fi
node "$ROOT/tests/cli/hostile_pg_cases.mjs" "$BIN" "$OWNER_DB" "$CASES" "$MARKER" | tee "$WORK/dbmcp_cases.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] && ok "$(grep '^hostile_pg through dbmcp:' "$WORK/dbmcp_cases.txt")" ||
  bad "the cases through dbmcp" "see above"
sent=$(node -e '
  const fs = require("fs"); let n = 0;
  for (const f of fs.readdirSync(process.argv[1]).filter((f) => f.endsWith(".json")))
    n += JSON.parse(fs.readFileSync(process.argv[1] + "/" + f, "utf8")).cases.filter((c) => c.query_hex === undefined).length;
  console.log(n)' "$CASES")
audit_after=$("$BIN" sql --db "$OWNER_DB" "SELECT count(*) FROM dbmcp_audit")
[ $((audit_after - audit_before)) -eq "$sent" ] &&
  ok "every call that reached dispatch is audited ($sent rows)" ||
  bad "audit rows" "$((audit_after - audit_before)) new rows for $sent calls"

# --- (g) the server alone ------------------------------------------------------------------------
"$RUNNER" cases "$QUERY_URI" "$CASES" "$MARKER" | tee "$WORK/cases.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] && ok "the server alone: $(grep '^hostile_pg:' "$WORK/cases.txt")" ||
  bad "the server's verdicts" "see above"

# --- (h) nothing changed ---------------------------------------------------------------------------
dump after
for f in sql globals.sql lo.txt; do
  if cmp -s "$WORK/before.$f" "$WORK/after.$f"; then ok "unchanged: $f ($(wc -c <"$WORK/after.$f") bytes)"
  else bad "changed: $f" "$(diff "$WORK/before.$f" "$WORK/after.$f" | head -n 20)"; fi
done
locks=$(psql_super -A -t -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")
[ "$locks" = 0 ] && ok "no advisory lock held anywhere" || bad "advisory locks" "$locks held"
prepared=$(psql_super -A -t -c "SELECT count(*) FROM pg_prepared_xacts")
[ "$prepared" = 0 ] && ok "no prepared transaction" || bad "prepared transactions" "$prepared"
if kill -0 "$tenant_pid" 2>/dev/null; then
  echo "note the other caller's query still runs"
else
  echo "note the other caller's query was ended by a case (pg_cancel_backend and"
  echo "     pg_terminate_backend on sessions of the same role: the server allows them)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
