# db.sh — the one way test scripts get a database and reach it, sourced by
# the suites under tests/cli and by scripts/ that run dbmcp on a database
# (not run on its own). Every read and write goes through dbmcp (`dbmcp sql`,
# `dbmcp dump`), never through an engine's shell, so a suite runs against
# PostgreSQL by changing only what test_db returns.
#
# The sourcing script sets BIN (the dbmcp binary) and WORK (its scratch
# directory, removed on exit) first.
#
#   test_db NAME      print a fresh database location for NAME (letters,
#                     digits, '_' and '-'): "$WORK/NAME.db" by default —
#                     nothing is created, `dbmcp init` creates the file.
#                     When DBMCP_TEST_PG holds a PostgreSQL server's base
#                     URI (postgresql:///?host=/tmp/pg&user=postgres, or
#                     what `scripts/pg.sh start` prints), a new empty
#                     database on that server instead: created with
#                     `dbmcp sql --db "$DBMCP_TEST_PG" "CREATE DATABASE …"`
#                     under a name unique to this run, printed as the base
#                     URI with that database's name as its path.
#   test_db_cleanup   drop the PostgreSQL databases test_db created (call
#                     it from the EXIT trap); nothing to do on SQLite.
#   db_engine DB      "postgres" for a postgres:// or postgresql:// URI,
#                     else "sqlite"
#   db_sql DB [SQL]   dbmcp sql --db DB (standard input without SQL)
#   db_dump_sum DB    a checksum of `dbmcp dump --db DB`: equal before and
#                     after exactly when no table, column or row changed
#
# With DBMCP_TEST_PG_TRACE naming a file, test_db appends the name of each
# PostgreSQL database it creates to it (testDb in db.mjs too), so a runner
# (scripts/test.sh) can tell a suite that ran on PostgreSQL from one that
# quietly used SQLite. Suites that clear the caller's DBMCP_* variables
# keep every DBMCP_TEST_PG*.
# shellcheck shell=bash

test_db() {
  local name=$1
  case "$name" in
    '' | *[!A-Za-z0-9_-]*) echo "test_db: bad name '$name'" >&2; return 2 ;;
  esac
  if [ -z "${DBMCP_TEST_PG:-}" ]; then
    printf '%s\n' "$WORK/$name.db"
    return 0
  fi
  # Lower case: PostgreSQL folds unquoted names; '-' is not allowed unquoted.
  local db
  db="dbmcp_test_$(printf '%s' "$name" | tr 'A-Z-' 'a-z_')_$$_${RANDOM}"
  "$BIN" sql --db "$DBMCP_TEST_PG" "CREATE DATABASE $db" >&2 || return 1
  printf '%s\n' "$db" >>"$WORK/.test_dbs"
  if [ -n "${DBMCP_TEST_PG_TRACE:-}" ]; then printf '%s\n' "$db" >>"$DBMCP_TEST_PG_TRACE"; fi
  _test_db_uri "$DBMCP_TEST_PG" "$db"
}

# _test_db_uri URI NAME: URI with its path (the database) replaced by NAME,
# its query (host=…, user=…) kept.
_test_db_uri() {
  local uri=$1 name=$2 query="" scheme rest
  case "$uri" in *\?*) query="?${uri#*\?}"; uri=${uri%%\?*} ;; esac
  scheme=${uri%%://*}
  rest=${uri#*://}
  printf '%s://%s/%s%s\n' "$scheme" "${rest%%/*}" "$name" "$query"
}

test_db_cleanup() {
  [ -n "${DBMCP_TEST_PG:-}" ] && [ -s "${WORK:-}/.test_dbs" ] || return 0
  local db
  while read -r db; do
    "$BIN" sql --db "$DBMCP_TEST_PG" "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1
  done <"$WORK/.test_dbs"
  return 0
}

db_engine() {
  case "$1" in
    [Pp][Oo][Ss][Tt][Gg][Rr][Ee][Ss]://* | [Pp][Oo][Ss][Tt][Gg][Rr][Ee][Ss][Qq][Ll]://*) echo postgres ;;
    *) echo sqlite ;;
  esac
}

# db_password URL: the password of a PostgreSQL URL (user:PASSWORD@), else
# nothing: what a pasted hint, which leaves it out, takes from PGPASSWORD.
db_password() {
  [ "$(db_engine "$1")" = postgres ] || return 0
  local rest=${1#*://}
  rest=${rest%%@*}
  case "$rest" in *:*) printf '%s' "${rest#*:}" ;; esac
}

# db_paste_password URL: a pasted PostgreSQL hint leaves the password out,
# as a user's would; make it findable where libpq looks. With a passfile in
# the URL (the query role's password is in it) the password goes into that
# file, since PGPASSWORD would be sent for the query role too and refused;
# else PGPASSWORD. Run it in the subshell that runs the hint.
db_paste_password() {
  local pw user rest pf
  pw=$(db_password "$1")
  [ -n "$pw" ] || return 0
  rest=${1#*://}
  rest=${rest%%@*}
  user=${rest%%:*}
  pf=$(printf '%s' "$1" | sed -n 's/.*[?&]passfile=\([^&]*\).*/\1/p')
  if [ -n "$pf" ] && [ -w "$pf" ]; then
    grep -q "^\*:\*:\*:$user:" "$pf" || printf '*:*:*:%s:%s\n' "$user" "$pw" >>"$pf"
  else
    export PGPASSWORD=$pw
  fi
}

# db_hint URL: the --db value as the CLI prints it in a hint: a PostgreSQL
# URL without its password, in single quotes; a path as it is.
db_hint() {
  if [ "$(db_engine "$1")" = postgres ]; then
    printf "'%s'" "$(printf '%s' "$1" | sed -E 's#^(postgres(ql)?://[^:@/]*):[^@]*@#\1@#')"
  else
    printf '%s' "$1"
  fi
}

db_sql() {
  local db=$1
  shift
  "$BIN" sql --db "$db" "$@"
}

# A dump that fails sums to a different value each time, so a check of "the
# database did not change" fails with it rather than comparing two empties.
db_dump_sum() {
  { "$BIN" dump --db "$1" || echo "dump failed: $RANDOM$RANDOM"; } | md5sum | cut -d' ' -f1
}
