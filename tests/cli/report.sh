#!/usr/bin/env bash
# report.sh — data-driven tests of report tools and schema discovery:
# `dbmcp tools add-report`, `dbmcp audit top-queries`, `dbmcp tools promote`
# and the builtins list_tables, describe_table and search_objects called
# through `dbmcp call` (the same dispatch as MCP clients).
#
# Runs every case of tests/cases/report/cases.txt, in order, in
# tests/cases/report/files, against one fresh `dbmcp init --demo` database
# ($DB) and one wide database ($WIDE, filled by a case). A case's command
# is a shell command line using these functions:
#   dbmcp ARGS        build/dbmcp ARGS --db $DB (help takes no --db)
#   dbmcp_wide ARGS   build/dbmcp ARGS --db $WIDE
#   sq SQL            sqlite3 $DB SQL (reads standard input without SQL)
# For each case it checks the exit status, the expected output and SQL
# results, and whether $DB's dump is unchanged ("same") or changed
# ("changed"): a refused write must leave the database exactly as it was.
# Adding a case never needs a change here. Prints "N passed, M failed" as
# its last line; exits 1 on any failure.
#
# Usage: tests/cli/report.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/report/cases.txt"
FILES="$ROOT/tests/cases/report/files"

command -v sqlite3 >/dev/null || { echo "report.sh: sqlite3 is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "report.sh: $BIN not built (run make)" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
DB="$WORK/report.db"
WIDE="$WORK/wide.db"
export WORK DB WIDE
unset DBMCP_PRINCIPAL DBMCP_INTERFACE DBMCP_ALLOWED_TOOLS DBMCP_DB

if ! "$BIN" init --db "$DB" --demo 2>"$WORK/init.err"; then
  echo "report.sh: dbmcp init failed:" >&2
  cat "$WORK/init.err" >&2
  exit 1
fi

dbmcp() {
  if [ "${1:-}" = help ]; then "$BIN" "$@"; else "$BIN" "$@" --db "$DB"; fi
}
dbmcp_wide() { "$BIN" "$@" --db "$WIDE"; }
sq() { if [ $# -gt 0 ]; then sqlite3 "$DB" "$@"; else sqlite3 "$DB"; fi; }

dump_sum() { sqlite3 "$DB" .dump | md5sum | cut -d' ' -f1; }

trim() {
  local s="$1"
  s="${s#"${s%%[![:space:]]*}"}"
  s="${s%"${s##*[![:space:]]}"}"
  printf '%s' "$s"
}

passed=0
failed=0

# check_one CHECK: one check; prints why it fails.
#   out~TEXT / err~TEXT     stdout / stderr contains TEXT
#   out!~TEXT / err!~TEXT   … does not contain TEXT
#   line N~TEXT             stdout line N contains TEXT
#   bytes<N                 stdout is shorter than N bytes
#   sql:QUERY => VALUE      sqlite3 $DB prints VALUE for QUERY
check_one() {
  local check query want got n
  check="$(trim "$1")"
  case "$check" in
    out!~*)
      ! grep -qF -- "${check#out!~}" "$WORK/stdout" || { echo "stdout has: ${check#out!~}"; return 1; } ;;
    err!~*)
      ! grep -qF -- "${check#err!~}" "$WORK/stderr" || { echo "stderr has: ${check#err!~}"; return 1; } ;;
    out~*)
      grep -qF -- "${check#out~}" "$WORK/stdout" || { echo "stdout lacks: ${check#out~}"; return 1; } ;;
    err~*)
      grep -qF -- "${check#err~}" "$WORK/stderr" || { echo "stderr lacks: ${check#err~}"; return 1; } ;;
    line\ *)
      n="${check#line }"
      n="${n%%~*}"
      want="${check#line "$n"~}"
      got="$(sed -n "${n}p" "$WORK/stdout")"
      [[ "$got" == *"$want"* ]] || { echo "line $n is '$got', want '$want'"; return 1; } ;;
    bytes\<*)
      n="${check#bytes<}"
      got="$(wc -c <"$WORK/stdout")"
      [ "$got" -lt "$n" ] || { echo "stdout has $got bytes, want < $n"; return 1; } ;;
    sql:*)
      query="$(trim "${check#sql:}")"
      want="$(trim "${query##*=> }")"
      query="${query% => *}"
      got="$(sqlite3 "$DB" "$query" 2>&1)"
      [ "$got" = "$want" ] || { echo "sql '$query' gave '$got', want '$want'"; return 1; } ;;
    "") ;;
    *)
      echo "unknown check '$check'"; return 1 ;;
  esac
}

run_case() {
  local name="$1" want_exit="$2" want_db="$3" cmd="$4" checks="$5"
  local before after status problems=""
  before="$(dump_sum)"
  (cd "$FILES" && eval "$cmd") </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
  status=$?
  after="$(dump_sum)"
  [ "$status" = "$want_exit" ] || problems+="exit $status, want $want_exit; "
  case "$want_db" in
    same) [ "$before" = "$after" ] || problems+="database changed; " ;;
    changed) [ "$before" != "$after" ] || problems+="database unchanged; " ;;
    -) ;;
    *) problems+="bad db column '$want_db'; " ;;
  esac
  local rest="$checks" part why
  while [ -n "$rest" ]; do
    part="${rest%% && *}"
    if [ "$part" = "$rest" ]; then rest=""; else rest="${rest#* && }"; fi
    why="$(check_one "$part")" || problems+="$why; "
  done
  if [ -z "$problems" ]; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name: $problems"
    echo "     command: $cmd"
    sed 's/^/     stderr: /' "$WORK/stderr" | head -5
    sed 's/^/     stdout: /' "$WORK/stdout" | head -5
  fi
}

while IFS='|' read -r name want_exit want_db cmd checks; do
  name="$(trim "$name")"
  case "$name" in ''|'#'*) continue ;; esac
  run_case "$name" "$(trim "$want_exit")" "$(trim "$want_db")" "$(trim "$cmd")" "$(trim "${checks:-}")"
done <"$CASES"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
