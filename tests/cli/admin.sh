#!/usr/bin/env bash
# admin.sh — data-driven tests of the catalog administration commands
# (dbmcp interfaces|tools|prompts|resources|templates list|show|add|update|
# enable|disable|remove).
#
# Runs every case of tests/cases/admin/cases.txt, in order, against one fresh
# `dbmcp init --demo` database; the JSON files the cases name are in
# tests/cases/admin/files. For each case it checks the exit status, the
# expected stderr/stdout substrings and SQL results, and that the database
# dump is unchanged ("same") or changed ("changed") afterwards: a refused
# write must leave the database exactly as it was. Adding a case never needs
# a change here. Prints "N passed, M failed"; exits 1 on any failure.
#
# Usage: tests/cli/admin.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
CASES="$ROOT/tests/cases/admin/cases.txt"
FILES="$ROOT/tests/cases/admin/files"

command -v sqlite3 >/dev/null || { echo "admin.sh: sqlite3 is required" >&2; exit 1; }
[ -x "$BIN" ] || { echo "admin.sh: $BIN not built (run make)" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
DB="$WORK/admin.db"
export WORK

if ! "$BIN" init --db "$DB" --demo 2>"$WORK/init.err"; then
  echo "admin.sh: dbmcp init failed:" >&2
  cat "$WORK/init.err" >&2
  exit 1
fi

# Cases call `dbmcp ARGS`; the database is appended here (help takes none).
dbmcp() {
  if [ "${1:-}" = help ]; then "$BIN" "$@"; else "$BIN" "$@" --db "$DB"; fi
}

dump_sum() { sqlite3 "$DB" .dump | md5sum | cut -d' ' -f1; }

trim() {
  local s="$1"
  s="${s#"${s%%[![:space:]]*}"}"
  s="${s%"${s##*[![:space:]]}"}"
  printf '%s' "$s"
}

passed=0
failed=0

# check_one NAME CHECK: one "err~", "out~" or "sql:" check; prints why it fails.
check_one() {
  local check query want got
  check="$(trim "$2")"
  case "$check" in
    err~*)
      grep -qF -- "${check#err~}" "$WORK/stderr" || { echo "stderr lacks: ${check#err~}"; return 1; } ;;
    out~*)
      grep -qF -- "${check#out~}" "$WORK/stdout" || { echo "stdout lacks: ${check#out~}"; return 1; } ;;
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
  (cd "$FILES" && eval "dbmcp $cmd") </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
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
    why="$(check_one "$name" "$part")" || problems+="$why; "
  done
  if [ -z "$problems" ]; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name: $problems"
    echo "     command: dbmcp $cmd"
    sed 's/^/     stderr: /' "$WORK/stderr" | head -5
  fi
}

while IFS='|' read -r name want_exit want_db cmd checks; do
  name="$(trim "$name")"
  case "$name" in ''|'#'*) continue ;; esac
  run_case "$name" "$(trim "$want_exit")" "$(trim "$want_db")" "$(trim "$cmd")" "$(trim "${checks:-}")"
done <"$CASES"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
