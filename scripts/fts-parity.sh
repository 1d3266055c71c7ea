#!/usr/bin/env bash
# fts-parity.sh — keyword search on PostgreSQL gives what it gives on
# SQLite: the same chunks, in the same order, with the same BM25 scores.
#
#   scripts/fts-parity.sh        (DBMCP=path/to/dbmcp to test another build)
#
# Both databases get `dbmcp init --demo`; each query below (German,
# English, Japanese, Chinese; phrases, +required, -excluded) runs through
# search_documents in keyword mode on both, and the whole results —
# ranks, scores, bm25, coverage, text — must be byte-identical (the
# elapsed milliseconds and the call id masked). PostgreSQL is the server
# of $DBMCP_TEST_PG (a superuser base URI, as scripts/pg.sh start prints)
# or a throw-away one started here. The tools run as a role without
# SUPERUSER, which the query connection requires.
# Prints "N passed, M failed"; exits 1 on any failure.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
[ -x "$BIN" ] || { echo "fts-parity: $BIN not built (run make)" >&2; exit 1; }
WORK="$(mktemp -d)"
pgdir=""
cleanup() {
  [ -n "$pgdir" ] && "$ROOT/scripts/pg.sh" stop "$pgdir" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
if [ -z "${DBMCP_TEST_PG:-}" ]; then
  pgdir=/tmp/dbmcp-fts-parity-$(id -u)
  DBMCP_TEST_PG=$("$ROOT/scripts/pg.sh" start "$pgdir") || exit 1
fi
name="fts_parity_$$_${RANDOM}"
pg=$("$ROOT/scripts/pg.sh" createdb "$DBMCP_TEST_PG" "$name") || exit 1
# As test_db does (tests/cli/lib/db.sh): the runner sees PostgreSQL was used.
if [ -n "${DBMCP_TEST_PG_TRACE:-}" ]; then echo "$name" >>"$DBMCP_TEST_PG_TRACE"; fi
lite="$WORK/parity.db"
role="fts_parity_$$"
"$BIN" init --demo --db "$pg" 2>"$WORK/init.log" || { cat "$WORK/init.log" >&2; exit 1; }
"$BIN" init --demo --db "$lite" 2>"$WORK/init.log" || { cat "$WORK/init.log" >&2; exit 1; }
"$BIN" sql --db "$pg" "CREATE ROLE $role LOGIN PASSWORD '$role';
  GRANT USAGE ON SCHEMA dbmcp TO $role;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA dbmcp TO $role;
  GRANT USAGE ON ALL SEQUENCES IN SCHEMA dbmcp TO $role" >/dev/null || exit 1
trap '"$BIN" sql --db "$DBMCP_TEST_PG" "DROP DATABASE IF EXISTS $name" >/dev/null 2>&1;
  "$BIN" sql --db "$DBMCP_TEST_PG" "DROP ROLE IF EXISTS $role" >/dev/null 2>&1; cleanup' EXIT
pg_query=$(printf '%s' "$pg" | sed -E "s#^(postgres(ql)?://)[^@]*@#\\1$role:$role@#")

search() { # search DB QUERY: the keyword result, milliseconds and call id masked
  local args
  args=$(QUERY="$2" node -e 'process.stdout.write(JSON.stringify({query: process.env.QUERY,
    k: 10, min_relevance: 0, mode: "keyword"}))')
  "$BIN" call search_documents "$args" --json --db "$1" --interface document_analysis 2>&1 |
    sed -E 's/ · [0-9]+\.[0-9] ms/ · _ ms/; s/("dbmcp\/callId": )"[^"]*"/\1"_"/'
}

passed=0 failed=0
while IFS= read -r q; do
  [ -z "$q" ] && continue
  search "$lite" "$q" >"$WORK/lite.out"
  search "$pg_query" "$q" >"$WORK/pg.out"
  if ! grep -q 'bm25' "$WORK/lite.out"; then
    echo "FAIL $q: no keyword result on SQLite"; failed=$((failed + 1))
  elif cmp -s "$WORK/lite.out" "$WORK/pg.out"; then
    echo "ok   $q"; passed=$((passed + 1))
  else
    echo "FAIL $q"; diff "$WORK/lite.out" "$WORK/pg.out" | head -10; failed=$((failed + 1))
  fi
done <<'EOF'
Urlaub Arbeitstage Zuschlag
Wochenarbeitszeit Metallindustrie Bayern
Arbeitszeiten Gebäudereinigung
"30 Arbeitstage" +Kalenderjahr
Urlaub -Bayern
Kündigungsfrist Chemie
annual leave nursing
How many days of annual leave do nurses get?
weekly working hours
年次有給休暇
ホテル 賃金
汉堡零售业的员工每年有多少天年假？
银行 月薪
EOF
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
