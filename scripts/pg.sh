#!/usr/bin/env bash
# pg.sh — a real, throw-away PostgreSQL 15 server for tests.
#
#   scripts/pg.sh start DIR           initdb and start a server in DIR; prints one line,
#                                     the superuser's libpq URI:
#                                       postgresql://postgres:PASSWORD@/postgres?host=DIR
#   scripts/pg.sh stop DIR            stop the server in DIR (fast shutdown) and remove DIR
#   scripts/pg.sh uri DIR             print the URI `start` printed (kept in DIR/uri)
#   scripts/pg.sh createdb URI NAME   create database NAME on the server of URI; prints
#                                     the new database's URI (the same with /NAME)
#   scripts/pg.sh dropdb URI NAME     drop database NAME on the server of URI, if it
#                                     exists (its sessions are ended first)
#   scripts/pg.sh query-role URI FILE give the server of URI (a superuser's) the query
#                                     role dbmcp_query with a test password, kept in
#                                     FILE (a libpq password file); prints URI with
#                                     passfile=FILE, as DBMCP_TEST_PG for the suites
#
# The server listens on a Unix socket in DIR only (no TCP), with fsync off
# (a test server loses nothing worth keeping in a crash; DBMCP_PG_DURABLE=on
# turns fsync, synchronous_commit and full_page_writes on), locale C (text
# sorts by code point, as SQLite's BINARY collation does) and time zone UTC.
# Local connections authenticate with scram-sha-256, so a test can connect
# as root over the socket with the password (peer authentication would
# refuse root as postgres) and a wrong password is refused.
#
# PostgreSQL refuses to run as root. Run as root, this script runs the
# server as `nobody` (setpriv; DBMCP_PG_USER names another account) and
# gives DIR to that user: nothing is created system-wide. DIR's parent
# directories must be searchable by that user (/tmp is; a home directory
# of mode 0700 is not, and start says so). Run as anyone else, the server
# runs as the caller.
#
# start on a DIR left behind (a test killed before its `stop`) first stops
# the server still running there, then starts afresh; it removes only a
# DIR that it made itself (marked by DIR/.dbmcp-pg) or an empty one.
#
# Callers arm a trap before starting, so the server goes away however the
# script ends (exit, error under set -e, Ctrl-C, SIGTERM):
#
#   pgdir=$(mktemp -d /tmp/dbmcp-pg.XXXXXX)
#   trap 'scripts/pg.sh stop "$pgdir"' EXIT
#   uri=$(scripts/pg.sh start "$pgdir")
#   db=$(scripts/pg.sh createdb "$uri" suite_admin)
#
# A caller killed with SIGKILL runs no trap: its server keeps running until
# the next `start` or `stop` on the same DIR, so suites that can be killed
# that way use a fixed DIR (under /tmp, say) rather than a fresh mktemp.
# Remove DIR only with `stop`: a server whose directory was deleted under
# it keeps running where no script can find it.
set -euo pipefail

PG_BIN=${DBMCP_PG_BIN:-/usr/lib/postgresql/15/bin}
# The port names the socket file DIR/.s.PGSQL.PORT. There is no TCP port
# unless DBMCP_PG_TCP_PORT is set (bench/query_pg.sh: a peer that cannot use
# a socket): then the server also listens on 127.0.0.1 at that port, and the
# printed URI carries it.
PG_PORT=${DBMCP_PG_TCP_PORT:-5432}
PG_LISTEN=''
[ -n "${DBMCP_PG_TCP_PORT:-}" ] && PG_LISTEN='127.0.0.1'
PG_URI_PORT=''
[ -n "${DBMCP_PG_TCP_PORT:-}" ] && PG_URI_PORT="&port=$PG_PORT"
MARKER=.dbmcp-pg
# DBMCP_PG_DURABLE=on: fsync, synchronous_commit and full_page_writes on,
# as on a production server (bench/query_pg.sh's durable run); off by
# default, since a test server loses nothing worth keeping in a crash.
PG_DURABLE=off
[ "${DBMCP_PG_DURABLE:-}" = on ] && PG_DURABLE=on

# The caller's PG* variables (PGHOST, PGPASSWORD, PGOPTIONS, …) would steer
# psql and pg_isready elsewhere than the URI says.
while read -r var; do unset "$var"; done < <(compgen -e | grep '^PG' || true)

die() {
  echo "pg.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '2,17s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

# The account the server runs as, and a prefix that runs a command as it.
if [ "$(id -u)" -eq 0 ]; then
  run_user=${DBMCP_PG_USER:-nobody}
  id "$run_user" >/dev/null 2>&1 || die "no user '$run_user' to run PostgreSQL as"
  as_server=(setpriv --reuid="$(id -u "$run_user")" --regid="$(id -g "$run_user")" --clear-groups --)
else
  run_user=$(id -un)
  as_server=()
fi

# Run a command as the server's account from inside DIR: the server's tools
# need a working directory they may enter.
server_run() {
  (cd "$dir" && "${as_server[@]}" "$@")
}

# Percent-encode $1 for a URI's query value: everything but unreserved
# characters and '/' (libpq takes a path as host=/a/b).
uri_encode() {
  local LC_ALL=C s=$1 out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case "$c" in
      [A-Za-z0-9._~/-]) out+=$c ;;
      *) out+=$(printf '%%%02X' "'$c") ;;
    esac
  done
  printf '%s' "$out"
}

# Stop the server whose data directory is $dir/data, if one runs. Fast
# shutdown (disconnect clients, no wait for them); immediate if that fails.
stop_server() {
  local data=$dir/data
  [ -f "$data/postmaster.pid" ] || return 0
  local owner
  owner=$(stat -c %u "$data")
  local as_owner=()
  [ "$(id -u)" -eq 0 ] && as_owner=(setpriv --reuid="$owner" --regid="$(stat -c %g "$data")" --clear-groups --)
  if ! (cd "$dir" && "${as_owner[@]}" "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1); then
    return 0 # a pid file without a server: killed, or the machine restarted
  fi
  (cd "$dir" && "${as_owner[@]}" "$PG_BIN/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null) ||
    (cd "$dir" && "${as_owner[@]}" "$PG_BIN/pg_ctl" -D "$data" -m immediate -w -t 30 stop >/dev/null) ||
    die "could not stop the server in $dir (see $dir/server.log)"
}

# Remove $dir when it is ours (marker) or empty; refuse anything else.
remove_dir() {
  [ -e "$dir" ] || return 0
  [ -d "$dir" ] || die "$dir is not a directory"
  if [ -e "$dir/$MARKER" ] || [ -z "$(ls -A "$dir")" ]; then
    rm -rf -- "$dir"
  else
    die "$dir is not empty and was not made by pg.sh; not removing it"
  fi
}

# unix_socket_directories is a list: a comma, quote or space in DIR would
# need quoting there that is easy to get wrong, so such names are refused.
check_dir_name() {
  case "$dir" in
    *[[:space:],\'\"\\]*) die "DIR must not contain spaces, commas, quotes or backslashes: $dir" ;;
  esac
}

cmd_start() {
  [ -x "$PG_BIN/initdb" ] || die "no PostgreSQL 15 in $PG_BIN (scripts/deps.sh installs postgresql-15)"
  check_dir_name
  stop_server
  remove_dir
  mkdir -p -- "$dir"
  dir=$(cd "$dir" && pwd -P)
  check_dir_name
  # The socket's path must fit sockaddr_un.sun_path (108 bytes with the NUL).
  [ ${#dir} -le 90 ] || die "DIR is too long for a Unix socket path (${#dir} > 90 bytes): $dir"
  : >"$dir/$MARKER"
  chmod 700 "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown "$run_user:" "$dir" "$dir/$MARKER"; fi
  "${as_server[@]}" test -w "$dir" ||
    die "$run_user cannot reach $dir (a parent directory is closed to it); use a directory under /tmp"

  local password
  password=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
  (umask 077 && printf '%s\n' "$password" >"$dir/pwfile")
  if [ "$(id -u)" -eq 0 ]; then chown "$run_user:" "$dir/pwfile"; fi
  if ! server_run "$PG_BIN/initdb" -D "$dir/data" -U postgres --pwfile="$dir/pwfile" \
    --auth=scram-sha-256 --encoding=UTF8 --no-locale --no-sync --no-instructions \
    >"$dir/initdb.log" 2>&1; then
    rm -f "$dir/pwfile"
    cat "$dir/initdb.log" >&2
    die "initdb failed in $dir/data"
  fi
  rm -f "$dir/pwfile"

  cat >>"$dir/data/postgresql.conf" <<EOF

# scripts/pg.sh: a throw-away test server
listen_addresses = '$PG_LISTEN'
unix_socket_directories = '$dir'
port = $PG_PORT
fsync = $PG_DURABLE
synchronous_commit = $PG_DURABLE
full_page_writes = $PG_DURABLE
timezone = 'UTC'
log_timezone = 'UTC'
EOF
  if ! server_run "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null; then
    tail -n 20 "$dir/server.log" >&2 || true
    die "the server in $dir did not start (log: $dir/server.log)"
  fi
  "$PG_BIN/pg_isready" -q -h "$dir" -p "$PG_PORT" -t 30 ||
    die "the server in $dir does not accept connections (log: $dir/server.log)"

  local uri
  uri="postgresql://postgres:$password@/postgres?host=$(uri_encode "$dir")$PG_URI_PORT"
  # Prove what we print: libpq parses it and the password authenticates.
  psql -X -q -At -v ON_ERROR_STOP=1 -d "$uri" -c 'SELECT 1' >/dev/null ||
    die "the server in $dir refuses its own URI"
  (umask 077 && printf '%s\n' "$uri" >"$dir/uri")
  printf '%s\n' "$uri"
}

cmd_stop() {
  [ -e "$dir" ] || return 0
  stop_server
  remove_dir
}

cmd_uri() {
  [ -r "$dir/uri" ] || die "no server started by pg.sh in $dir"
  cat "$dir/uri"
}

# URI with its database (the path after the authority) replaced by $2.
uri_with_database() {
  local uri=$1 name=$2 scheme rest query=""
  case "$uri" in
    postgresql://* | postgres://*) ;;
    *) die "not a postgresql:// URI: $uri" ;;
  esac
  scheme=${uri%%://*}
  rest=${uri#*://}
  case "$rest" in *\?*)
    query="?${rest#*\?}"
    rest=${rest%%\?*}
    ;;
  esac
  rest=${rest%%/*} # user:password@host:port
  printf '%s://%s/%s%s\n' "$scheme" "$rest" "$name" "$query"
}

cmd_createdb() {
  local uri=$1 name=$2
  [[ "$name" =~ ^[a-z_][a-z0-9_]{0,62}$ ]] ||
    die "database name must be a lower-case identifier of at most 63 bytes: $name"
  psql -X -q -v ON_ERROR_STOP=1 -d "$uri" -c "CREATE DATABASE \"$name\"" >/dev/null ||
    die "could not create database $name"
  uri_with_database "$uri" "$name"
}

cmd_dropdb() {
  local uri=$1 name=$2
  [[ "$name" =~ ^[a-z_][a-z0-9_]{0,62}$ ]] ||
    die "database name must be a lower-case identifier of at most 63 bytes: $name"
  psql -X -q -v ON_ERROR_STOP=1 -d "$uri" -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null ||
    die "could not drop database $name"
}

# The query role `dbmcp init` makes on PostgreSQL belongs to the whole
# server, and dbmcp logs agent SQL in as it (docs/postgres.md). Suites that
# share a server share the role, so it gets one known password before any
# init runs (init keeps an existing role's password), and every dbmcp of
# every suite finds it in the password file the URI names: dbmcp derives
# the query connection's URI from --db with only user and password
# replaced. DBMCP_QUERY_PASSWORD, where a suite sets it, must be this one.
# The functions the query role check warns about (a call could end other
# calls, or write in a read-only transaction) are revoked from PUBLIC in
# template1, as docs/postgres.md advises operators, so every database made
# afterwards has them revoked and no suite's output carries the warnings.
TEST_QUERY_ROLE=dbmcp_query
TEST_QUERY_PASSWORD=dbmcp_test_query

cmd_query_role() {
  local uri=$1 file=$2
  case "$file" in /*) ;; *) die "FILE must be an absolute path: $file" ;; esac
  psql -X -q -v ON_ERROR_STOP=1 -d "$uri" >/dev/null <<SQL || die "could not make the query role"
DO \$\$ BEGIN
  CREATE ROLE $TEST_QUERY_ROLE LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END \$\$;
ALTER ROLE $TEST_QUERY_ROLE PASSWORD '$TEST_QUERY_PASSWORD';
SQL
  psql -X -q -v ON_ERROR_STOP=1 -d "$(uri_with_database "$uri" template1)" >/dev/null <<SQL ||
REVOKE EXECUTE ON FUNCTION pg_cancel_backend(integer), pg_terminate_backend(integer, bigint),
  pg_current_xact_id(), txid_current(), pg_logical_emit_message(boolean, text, bytea),
  pg_logical_emit_message(boolean, text, text) FROM PUBLIC;
SQL
    die "could not revoke the functions the query role must not run"
  (umask 077 && printf '*:*:*:%s:%s\n' "$TEST_QUERY_ROLE" "$TEST_QUERY_PASSWORD" >"$file")
  case "$uri" in
    *\?*) printf '%s&passfile=%s\n' "$uri" "$(uri_encode "$file")" ;;
    *) printf '%s?passfile=%s\n' "$uri" "$(uri_encode "$file")" ;;
  esac
}

[ $# -ge 1 ] || usage
case "$1" in
  start | stop | uri)
    if [ $# -ne 2 ] || [ -z "$2" ]; then usage; fi
    dir=$2
    "cmd_$1"
    ;;
  createdb | dropdb)
    [ $# -eq 3 ] || usage
    "cmd_$1" "$2" "$3"
    ;;
  query-role)
    [ $# -eq 3 ] || usage
    cmd_query_role "$2" "$3"
    ;;
  *) usage ;;
esac
