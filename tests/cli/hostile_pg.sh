#!/usr/bin/env bash
# hostile_pg.sh — the hostile SQL suite of issue #11 on a real PostgreSQL
# 15 server: agent SQL under the query role must leave every byte of data
# unchanged and leak nothing, whatever admission would have said.
#
# Until the PostgreSQL driver lands, the two halves run apart:
#   - admission's verdict on every case (tests/cases/hostile_pg, "expect"
#     and "rule") is checked by the unit test build/tests/test_admission,
#     which reads the same files with sql_admit's PostgreSQL rules;
#   - the server's verdict ("engine") is checked here by pg_guard_run
#     (tests/cli/pg_guard_run.c, libpq), which sends EVERY case, refused
#     or not, the way the driver will: over one connection as the query
#     role, wrapped in store/pg_guard's opening and closing statements, one
#     statement over the extended protocol, at most 26 rows fetched.
# When `dbmcp call execute_query` runs on PostgreSQL, the cases go through
# it instead and both halves are checked on the same path.
#
# Steps: start a throw-away server (scripts/pg.sh when present, else a
# private one here), load fixture.sql, create the query role from
# pg_guard's script, run pg_guard's check (it must refuse dblink, executable
# by PUBLIC, and pass once the printed fix is applied), show that the check
# names each misconfiguration of the role with its fix, start another
# caller's long query as the same role, dump the database and the roles,
# run the cases, dump again and compare byte for byte, and stop the server.
#
# Usage: tests/cli/hostile_pg.sh      (needs postgresql-15, libpq-dev; run as root
#                                     or as a user who may run the server)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CASES="$ROOT/tests/cases/hostile_pg"
PG_BIN=${DBMCP_PG_BIN:-/usr/lib/postgresql/15/bin}
MARKER=TOPSECRET
while read -r var; do unset "$var"; done < <(compgen -e | grep '^PG' || true)

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
die() { echo "hostile_pg.sh: $*" >&2; exit 1; }

# --- the runner ----------------------------------------------------------------
make -C "$ROOT" -s all build/tests/test_admission >/dev/null || die "make failed"
RUNNER="$ROOT/build/tests/pg_guard_run"
objs=$(find "$ROOT/build/obj" -name '*.o' ! -path '*/cli/*' | sort)
# shellcheck disable=SC2086
cc -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$ROOT/src" \
  -I"$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)" \
  $(pkg-config --cflags jansson) -o "$RUNNER" "$ROOT/tests/cli/pg_guard_run.c" $objs \
  $(pkg-config --libs sqlite3 jansson libmicrohttpd libsodium libutf8proc) \
  -lstemmer -lpthread -lm -ldl -lpq || die "cannot build pg_guard_run (libpq-dev?)"

# --- a throw-away server -------------------------------------------------------
WORK="$(mktemp -d /tmp/dbmcp-hostile-pg.XXXXXX)"
chmod 755 "$WORK"
PGDIR="$WORK/pg"
server_pid=""
cleanup() {
  [ -n "${tenant_pid:-}" ] && kill "$tenant_pid" 2>/dev/null
  if [ -x "$ROOT/scripts/pg.sh" ]; then
    "$ROOT/scripts/pg.sh" stop "$PGDIR" >/dev/null 2>&1
  elif [ -n "$server_pid" ]; then
    as_server "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m fast stop >/dev/null 2>&1
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
as_server() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd "$PGDIR" && setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups -- "$@")
  else
    (cd "$PGDIR" && "$@")
  fi
}

if [ -x "$ROOT/scripts/pg.sh" ]; then
  SUPER_URI=$("$ROOT/scripts/pg.sh" start "$PGDIR") || die "scripts/pg.sh start failed"
else
  # The same server scripts/pg.sh starts: a Unix socket in $PGDIR only,
  # scram-sha-256, fsync off, locale C, UTC.
  mkdir -p "$PGDIR"
  [ "$(id -u)" -eq 0 ] && chown nobody "$PGDIR"
  superpw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  printf '%s\n' "$superpw" >"$PGDIR/pw"
  [ "$(id -u)" -eq 0 ] && chown nobody "$PGDIR/pw"
  as_server "$PG_BIN/initdb" -D "$PGDIR/data" -U postgres --pwfile="$PGDIR/pw" \
    --auth=scram-sha-256 --locale=C -E UTF8 >"$WORK/initdb.log" 2>&1 ||
    { cat "$WORK/initdb.log" >&2; die "initdb failed"; }
  rm -f "$PGDIR/pw"
  as_server "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -o \
    "-c listen_addresses='' -c unix_socket_directories='$PGDIR' -c fsync=off -c TimeZone=UTC" \
    start >/dev/null || { cat "$PGDIR/server.log" >&2; die "the server did not start"; }
  server_pid=$(head -n 1 "$PGDIR/data/postmaster.pid")
  SUPER_URI="postgresql://postgres:$superpw@/postgres?host=$PGDIR"
fi
db_uri() { # URI of database $2 for user $1 with password $3 (URI's host kept)
  local host=${SUPER_URI#*\?}
  echo "postgresql://$1${3:+:$3}@/$2?$host"
}
SUPER_DB=$(echo "$SUPER_URI" | sed 's|/postgres?|/hostile?|')
psql_super() { psql "$SUPER_DB" -X -q -v ON_ERROR_STOP=1 "$@"; }

psql "$SUPER_URI" -X -q -c "CREATE DATABASE hostile" || die "createdb failed"
psql_super -f "$CASES/fixture.sql" >"$WORK/fixture.log" 2>&1 ||
  { cat "$WORK/fixture.log" >&2; die "fixture.sql failed"; }

# --- (a) the query role, from pg_guard's script --------------------------------
"$RUNNER" role hostile >"$WORK/role.sql"
if psql_super -f "$WORK/role.sql" >"$WORK/role.log" 2>&1; then ok "the role script runs as a superuser"
else bad "the role script" "$(cat "$WORK/role.log")"; fi
"$RUNNER" role hostile | psql_super -f - >/dev/null 2>&1 && ok "… and runs again (idempotent)" ||
  bad "the role script, twice" "failed the second time"
querypw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
psql_super -c "ALTER ROLE dbmcp_query PASSWORD '$querypw'"
QUERY_URI=$(db_uri dbmcp_query hostile "$querypw")
got=$(psql "$QUERY_URI" -X -A -t -c "SELECT current_setting('temp_file_limit'), current_setting('track_activities'), current_setting('default_transaction_read_only')" 2>&1)
[ "$got" = "1GB|off|on" ] && ok "the role's defaults apply at login ($got)" ||
  bad "the role's defaults" "$got"

# --- (b) the check serve runs --------------------------------------------------
"$RUNNER" check "$SUPER_DB" dbmcp_query >"$WORK/check1.txt"
rc=$?
if [ $rc -eq 3 ] && grep -q $'^refuse\tfunction\tEXECUTE on dblink' "$WORK/check1.txt"; then
  ok "the check refuses a role that may call dblink (PUBLIC may, after CREATE EXTENSION)"
else bad "the check on dblink" "exit $rc: $(cat "$WORK/check1.txt")"; fi
awk -F'\t' '$1 == "refuse" {print $4}' "$WORK/check1.txt" >"$WORK/fix.sql"
psql_super -f "$WORK/fix.sql" >/dev/null || bad "the printed fix" "$(cat "$WORK/fix.sql")"
"$RUNNER" check "$SUPER_DB" dbmcp_query >"$WORK/check2.txt"
rc=$?
if [ $rc -eq 0 ]; then ok "the check passes once its fix ran; warnings:"
  sed 's/^/       /' "$WORK/check2.txt"
else bad "the check after the fix" "exit $rc: $(cat "$WORK/check2.txt")"; fi

# Each misconfiguration alone: the check names it and its fix, the fix
# clears it. "setup" breaks the role, "expect" is a line's code and
# object, the fix comes from the check itself.
while IFS='|' read -r what setup expect; do
  [ -z "$what" ] && continue
  psql_super -c "$setup" >/dev/null 2>&1 || { bad "check: $what" "setup failed: $setup"; continue; }
  "$RUNNER" check "$SUPER_DB" dbmcp_query >"$WORK/c.txt"
  rc=$?
  line=$(grep -F -- "$expect" "$WORK/c.txt" | grep '^refuse' | head -n 1)
  if [ $rc -ne 3 ] || [ -z "$line" ]; then
    bad "check: $what" "exit $rc, no refusal with '$expect': $(cat "$WORK/c.txt")"
  else
    fix=$(printf '%s' "$line" | cut -f4)
    psql_super -c "$fix" >/dev/null 2>&1
    "$RUNNER" check "$SUPER_DB" dbmcp_query >/dev/null
    [ $? -eq 0 ] && ok "check: $what → $fix" || bad "check: $what" "still refused after: $fix"
  fi
done <<'EOF'
superuser|ALTER ROLE dbmcp_query SUPERUSER|superuser	role dbmcp_query has SUPERUSER
createrole|ALTER ROLE dbmcp_query CREATEROLE|createrole	role dbmcp_query has CREATEROLE
bypassrls|ALTER ROLE dbmcp_query BYPASSRLS|bypassrls	role dbmcp_query has BYPASSRLS
member of pg_read_all_data|GRANT pg_read_all_data TO dbmcp_query|member	member of role pg_read_all_data
member of the catalog role|GRANT dbmcp_owner TO dbmcp_query|member	member of role dbmcp_owner
owns a table|CREATE TABLE public.q_owned (a int); ALTER TABLE public.q_owned OWNER TO dbmcp_query|owner	owns table q_owned
INSERT to PUBLIC|GRANT INSERT ON public.items TO PUBLIC|write	INSERT on table items
UPDATE on a column|GRANT UPDATE (name) ON public.people TO dbmcp_query|write	UPDATE on column name of people
TRUNCATE|GRANT TRUNCATE ON public.docs TO dbmcp_query|write	TRUNCATE on table docs
REFERENCES|GRANT REFERENCES ON public.items TO dbmcp_query|write	REFERENCES on table items
TRIGGER|GRANT TRIGGER ON public.items TO dbmcp_query|write	TRIGGER on table items
setval on a sequence|GRANT UPDATE ON SEQUENCE public.order_no TO dbmcp_query|write	UPDATE on sequence order_no
nextval on a sequence|GRANT USAGE ON SEQUENCE public.order_no TO PUBLIC|write	USAGE on sequence order_no
CREATE on a schema|GRANT CREATE ON SCHEMA public TO PUBLIC|create	CREATE on schema public
CREATE on the database|GRANT CREATE ON DATABASE hostile TO dbmcp_query|create	CREATE on database hostile
UPDATE on a large object|GRANT UPDATE ON LARGE OBJECT 424242 TO dbmcp_query|write	UPDATE on large object 424242
SET on a parameter|GRANT SET ON PARAMETER temp_file_limit TO dbmcp_query|parameter	SET on parameter temp_file_limit
future tables writable|ALTER DEFAULT PRIVILEGES FOR ROLE app_owner IN SCHEMA public GRANT INSERT ON TABLES TO dbmcp_query|default	INSERT on future tables of app_owner in schema public
USAGE on dbmcp's schema|GRANT USAGE ON SCHEMA dbmcp TO PUBLIC|internal	USAGE on schema dbmcp
SELECT on a dbmcp table|GRANT SELECT ON dbmcp.dbmcp_settings TO dbmcp_query|internal	SELECT on dbmcp.dbmcp_settings
a view reading dbmcp as its owner|GRANT SELECT ON public.v_owner_keys TO PUBLIC|view	SELECT on v_owner_keys, which reads dbmcp with the rights of dbmcp_owner
a view whose owner may read a dbmcp table|GRANT SELECT ON dbmcp.dbmcp_api_keys TO app_owner|view	SELECT on v_secret, which reads dbmcp with the rights of app_owner
a view over that view|CREATE VIEW public.v_nested AS SELECT * FROM public.v_owner_keys; GRANT SELECT ON public.v_nested TO dbmcp_query|view	SELECT on v_nested
a definer function run by dbmcp's owner|CREATE FUNCTION public.keys_count() RETURNS bigint LANGUAGE sql SECURITY DEFINER AS 'SELECT count(*) FROM dbmcp.dbmcp_api_keys'; ALTER FUNCTION public.keys_count() OWNER TO dbmcp_owner|definer	EXECUTE on keys_count(), which runs as dbmcp_owner
reading server files|GRANT EXECUTE ON FUNCTION pg_read_file(text) TO dbmcp_query|function	EXECUTE on pg_read_file(text)
cannot log in|ALTER ROLE dbmcp_query NOLOGIN|login	role dbmcp_query cannot log in
EOF
"$RUNNER" check "$SUPER_DB" dbmcp_query >/dev/null && ok "check: clean again after every fix" ||
  bad "check: clean again" "$("$RUNNER" check "$SUPER_DB" dbmcp_query)"
psql_super -c "DROP VIEW IF EXISTS public.v_nested; DROP TABLE IF EXISTS public.q_owned;
  DROP FUNCTION IF EXISTS public.keys_count(); REVOKE SELECT ON dbmcp.dbmcp_api_keys FROM app_owner;
  GRANT SELECT ON public.v_secret TO dbmcp_query" >/dev/null 2>&1
"$RUNNER" check "$SUPER_DB" dbmcp_query >/dev/null || bad "check after the scenarios" "refused"

# --- another caller's query, as the same role ----------------------------------
tenant_uri="$QUERY_URI&application_name=dbmcp-tenant"
psql "$tenant_uri" -X -q -c "SELECT 'TOPSECRET-tenant-4b1e', pg_sleep(600)" >/dev/null 2>&1 &
tenant_pid=$!
sleep 1

# --- the cases -------------------------------------------------------------------
dump() {
  # pg_dump 15.14 and later write a random \restrict key: not data.
  pg_dump "$SUPER_DB" 2>"$WORK/$1.err" | grep -v '^\\\(un\)\?restrict ' >"$WORK/$1.sql"
  pg_dumpall -d "$SUPER_URI" --globals-only --no-role-passwords 2>&1 |
    grep -v '^\\\(un\)\?restrict ' >"$WORK/$1.globals.sql"
  psql_super -A -t -c "SELECT count(*), coalesce(sum(length(lo_get(oid))), 0)
    FROM pg_largeobject_metadata" >"$WORK/$1.lo.txt"
}
dump before
admission=$(cd "$ROOT" && build/tests/test_admission 2>&1 | grep -E '^hostile_pg:|FAIL|refus|PASSED|FAILED' | tail -n 5)
if grep -q 'PASSED' <<<"$admission" && grep -q '^hostile_pg: [0-9]* cases in [0-9]* files, 0 failed' <<<"$admission"; then
  ok "admission: $(grep '^hostile_pg:' <<<"$admission")"
else bad "admission (build/tests/test_admission)" "$admission"; fi
"$RUNNER" cases "$QUERY_URI" "$CASES" "$MARKER" | tee "$WORK/cases.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] && ok "the server's verdicts: $(grep '^hostile_pg:' "$WORK/cases.txt")" ||
  bad "the server's verdicts" "see above"
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
