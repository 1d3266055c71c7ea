# cases.sh — the one runner of data-driven CLI cases, sourced by admin.sh
# and report.sh (not run on its own).
#
# A case file holds one case a line, fields separated by `|`:
#   name | exit status | db | command | checks
# (blank lines and lines starting with # are skipped). The command runs
# with `eval` in $FILES, stdin closed, its stdout and stderr captured; it
# is prefixed with $CASE_PREFIX (e.g. "dbmcp "), empty when unset. db is
# "same" (`dbmcp dump` of $DB must not change: a refused write leaves the
# database exactly as it was), "changed" or "-" (not checked). checks are
# joined by " && ":
#   out~TEXT / err~TEXT     stdout / stderr contains TEXT
#   out!~TEXT / err!~TEXT   … does not contain TEXT
#   line N~TEXT             stdout line N contains TEXT
#   bytes<N                 stdout is shorter than N bytes
#   sql:QUERY => VALUE      `dbmcp sql` on $DB prints VALUE for QUERY
#   hint=N                  stderr shows at least one `dbmcp …` hint (in
#                           backquotes), and each, pasted as it stands into
#                           bash in $FILES (dbmcp being $BIN), exits N: a
#                           hint must name the --db (and --interface) it needs
#                           (a PostgreSQL hint leaves the password out: it
#                           runs with PGPASSWORD, as libpq reads it)
#
# Engines. Cases run on SQLite or, with DBMCP_TEST_PG, on PostgreSQL
# (tests/cli/lib/db.sh). A case whose name starts with "[sqlite] " or
# "[postgres] " runs on that engine only, and a check so prefixed is made
# on that engine only; everything else holds on both. Use them where the
# engines truly differ (SQL that only one accepts, the engine's own error
# wording), giving each engine a case or check that proves the same.
#
# The sourcing script sets BIN and FILES, calls cases_init_demo NAME (or
# sets DB and WORK itself) and defines the functions its commands use; run_cases CASEFILE then runs every case, in
# order, prints "ok"/"FAIL" a case and "N passed, M failed" last, and
# returns 1 on any failure.

# shellcheck source=tests/cli/lib/db.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/db.sh"

# cases_init_demo NAME: what every case script starts with. Needs an
# executable $BIN; unsets every DBMCP_* variable of the caller's
# environment (DBMCP_DB, DBMCP_PRINCIPAL, DBMCP_INTERFACE, … would change
# what the commands do) but DBMCP_TEST_PG (tests/cli/lib/db.sh); makes the
# scratch directory $WORK (removed on exit) and $DB = `test_db NAME`
# initialised with the demo data (init's stderr stays in $WORK/init.err),
# and defines `dbmcp ARGS`, which runs $BIN with --db $DB appended (help
# takes none).
cases_init_demo() {
  local name=$1 v
  for v in $(compgen -e | grep '^DBMCP_' | grep -v '^DBMCP_TEST_PG'); do unset "$v"; done
  [ -x "$BIN" ] || { echo "$name.sh: $BIN not built (run make)" >&2; exit 1; }
  WORK="$(mktemp -d)"
  trap 'test_db_cleanup; rm -rf "$WORK"' EXIT
  DB="$(test_db "$name")" || { echo "$name.sh: no database" >&2; exit 1; }
  export WORK DB
  if ! "$BIN" init --db "$DB" --demo 2>"$WORK/init.err"; then
    echo "$name.sh: dbmcp init failed:" >&2
    cat "$WORK/init.err" >&2
    exit 1
  fi
}

dbmcp() {
  if [ "${1:-}" = help ]; then "$BIN" "$@"; else "$BIN" "$@" --db "$DB"; fi
}

dump_sum() { db_dump_sum "$DB"; }

trim() {
  local s="$1"
  s="${s#"${s%%[![:space:]]*}"}"
  s="${s%"${s##*[![:space:]]}"}"
  printf '%s' "$s"
}

# on_engine TEXT: TEXT without its "[sqlite] "/"[postgres] " prefix, when it
# has none or the prefix names the engine of $DB; returns 1 when it names
# the other engine.
on_engine() {
  case "$1" in
    "[sqlite] "* | "[postgres] "*)
      local engine=${1%%]*}
      [ "${engine#[}" = "$(db_engine "$DB")" ] || return 1
      printf '%s' "${1#*] }" ;;
    *) printf '%s' "$1" ;;
  esac
}

# check_one CHECK: one check of the last case; prints why it fails.
check_one() {
  local check query want got n hint
  check="$(trim "$1")"
  check="$(on_engine "$check")" || return 0
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
      got="$(db_sql "$DB" "$query" 2>&1)"
      [ "$got" = "$want" ] || { echo "sql '$query' gave '$got', want '$want'"; return 1; } ;;
    hint=*)
      want="${check#hint=}"
      n=0
      while IFS= read -r hint; do
        n=$((n + 1))
        hint="${hint#\`}"
        hint="${hint%\`}"
        (cd "$FILES" && db_paste_password "$DB" && eval "\"\$BIN\" ${hint#dbmcp }") </dev/null >"$WORK/hint.out" 2>"$WORK/hint.err"
        got=$?
        [ "$got" = "$want" ] || { echo "hint \`$hint\` exits $got, want $want: $(head -c 300 "$WORK/hint.err")"; return 1; }
      done < <(grep -o '`dbmcp [^`]*`' "$WORK/stderr")
      [ "$n" -gt 0 ] || { echo "stderr has no \`dbmcp …\` hint"; return 1; } ;;
    "") ;;
    *)
      echo "unknown check '$check'"; return 1 ;;
  esac
}

# run_case NAME EXIT DB COMMAND CHECKS: one case; counts it in passed/failed.
run_case() {
  local name="$1" want_exit="$2" want_db="$3" cmd="${CASE_PREFIX:-}$4" checks="$5"
  local before after status problems=""
  # A dump is the slow part of a case: only cases that check it make one.
  [ "$want_db" = - ] || before="$(dump_sum)"
  (cd "$FILES" && eval "$cmd") </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
  status=$?
  [ "$want_db" = - ] || after="$(dump_sum)"
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

# run_cases CASEFILE: every case of the file, then the totals.
run_cases() {
  local name want_exit want_db cmd checks
  passed=0
  failed=0
  while IFS='|' read -r name want_exit want_db cmd checks; do
    name="$(trim "$name")"
    case "$name" in ''|'#'*) continue ;; esac
    on_engine "$name" >/dev/null || continue
    run_case "$name" "$(trim "$want_exit")" "$(trim "$want_db")" "$(trim "$cmd")" "$(trim "${checks:-}")"
  done <"$1"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
