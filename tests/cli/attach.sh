#!/usr/bin/env bash
# attach.sh — dbmcp stays out of the user's file (issue #17): `init` refuses
# a file that holds tables of its own and prints the commands that attach it
# instead (run here as pasted); `databases attach|detach|list`; a session
# of calls through `dbmcp serve` (schema tools, execute_query, a report
# tool, an sql resource template) sees the attached tables as NAME.table
# while agent SQL that attaches, detaches, writes to the attached database
# or reads dbmcp's own tables through a qualified name is refused; the
# user's file is byte-identical (sha256) afterwards and gains no journal;
# and serving works with the file in a directory without write permission
# and, as root, on a read-only bind mount (also with --immutable, which a
# WAL-mode file there needs).
#
# The user's file is made with the sqlite3 shell (scripts/deps.sh), as a
# user would make theirs: it is the one file here dbmcp did not create.
#
# On PostgreSQL (DBMCP_TEST_PG) there is nothing to attach: the suite
# checks that `databases attach` says so and names the equivalent, and
# that the list is empty.
#
# Usage: tests/cli/attach.sh     (DBMCP=path/to/dbmcp for another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
[ -x "$BIN" ] || { echo "attach.sh: $BIN not built (run make)" >&2; exit 1; }
unset DBMCP_PRINCIPAL DBMCP_INTERFACE DBMCP_ALLOWED_TOOLS DBMCP_DB DBMCP_QUERY_DB
export DBMCP_LOG=warn

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"

WORK="$(mktemp -d)"
MNT=""
trap 'test_db_cleanup; chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
finish() {
  echo "attach.sh: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
}

# --- PostgreSQL: no attach step ------------------------------------------------
if [ -n "${DBMCP_TEST_PG:-}" ]; then
  DB="$(test_db attach)" || exit 1
  "$BIN" init --db "$DB" >/dev/null 2>"$WORK/init.err" || { cat "$WORK/init.err" >&2; exit 1; }
  touch "$WORK/books.db"
  "$BIN" databases attach --db "$DB" books "$WORK/books.db" >"$WORK/out" 2>&1
  rc=$?
  if [ "$rc" = 2 ] && grep -qF "PostgreSQL needs no attach step" "$WORK/out" &&
    grep -qF -- "--query-schemas" "$WORK/out"; then
    ok "postgres: databases attach says PostgreSQL needs none and names --query-schemas"
  else bad "postgres: databases attach" "exit $rc: $(cat "$WORK/out")"; fi
  out="$("$BIN" databases list --db "$DB" 2>"$WORK/err")"
  if [ "$out" = "$(printf '%-20s %-10s %s' NAME MODE PATH)" ] && grep -qF "schemas the query role is granted" "$WORK/err"; then
    ok "postgres: databases list is empty and says why"
  else bad "postgres: databases list" "$out $(cat "$WORK/err")"; fi
  finish
fi

command -v sqlite3 >/dev/null || { echo "attach.sh: the sqlite3 shell is required (scripts/deps.sh)" >&2; exit 1; }

# The user's own database, rollback-journal mode (SQLite's default).
make_user_db() {
  sqlite3 "$1" <<'SQL'
CREATE TABLE authors (
  -- people who wrote books
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL,
  author_id INTEGER REFERENCES authors (id));
CREATE INDEX books_author ON books (author_id);
INSERT INTO authors VALUES (1, 'Fontane'), (2, 'Mann');
INSERT INTO books VALUES (1, 'Effi Briest', 1), (2, 'Buddenbrooks', 2), (3, 'Der Stechlin', 1);
SQL
}
sum() { sha256sum "$1" | cut -d' ' -f1; }
# No journal, WAL or shared-memory file beside path: nothing opened it for writing.
no_side_files() { ! ls "$1"-journal "$1"-wal "$1"-shm >/dev/null 2>&1; }

mkdir -p "$WORK/data"
USER_DB="$WORK/data/books.db"
make_user_db "$USER_DB"
BEFORE="$(sum "$USER_DB")"

# --- init refuses the user's file, and its hint works when pasted ----------------
(cd "$WORK/data" && "$BIN" init --db books.db --demo >"$WORK/out" 2>&1)
rc=$?
if [ "$rc" = 2 ] && [ "$(sum "$USER_DB")" = "$BEFORE" ] && no_side_files "$USER_DB" &&
  grep -qF "books.db holds 2 tables or views of its own (authors, books)" "$WORK/out"; then
  ok "init --demo on a user's file: exit 2, names its tables, the file untouched"
else bad "init on a user's file" "exit $rc, sum $(sum "$USER_DB"): $(cat "$WORK/out")"; fi
hint="$(sed -n 's/^  \(dbmcp init .*\)$/\1/p' "$WORK/out")"
if [ "$hint" = "dbmcp init --db dbmcp.db && dbmcp databases attach --db dbmcp.db books books.db" ]; then
  ok "the hint: init a catalog beside it and attach the file as books"
else bad "the hint" "got '$hint'"; fi
mkdir -p "$WORK/bin" && ln -s "$BIN" "$WORK/bin/dbmcp"
(cd "$WORK/data" && PATH="$WORK/bin:$PATH" bash -c "$hint" >"$WORK/out" 2>&1)
rc=$?
CAT="$WORK/data/dbmcp.db"
if [ "$rc" = 0 ] && [ -f "$CAT" ] && grep -qF "attached read-only as books" "$WORK/out"; then
  ok "the hint, pasted, makes dbmcp.db and attaches books.db"
else bad "the hint, pasted" "exit $rc: $(cat "$WORK/out")"; fi
# README, tour step 13, as shown.
out="$(cd "$WORK/data" && "$BIN" call --db dbmcp.db execute_query '{"query":"SELECT count(*) FROM books.authors"}' 2>&1)"
if grep -qF "| 2 |" <<<"$out"; then ok "the README's execute_query over books.authors"
else bad "README execute_query" "$out"; fi
list="$("$BIN" databases list --db "$CAT" 2>&1)"
if grep -qE "^books +read-only +$USER_DB\$" <<<"$list"; then ok "databases list: books, read-only, absolute path"
else bad "databases list" "$list"; fi

printf 'not a database, just text\n' >"$WORK/data/notes.txt"
"$BIN" init --db "$WORK/data/notes.txt" >"$WORK/out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -qF "cannot read $WORK/data/notes.txt" "$WORK/out" && grep -qF "not a database" "$WORK/out" &&
  [ "$(cat "$WORK/data/notes.txt")" = "not a database, just text" ]; then
  ok "init on a file that is not a database: named, left as it is"
else bad "init on a non-database" "exit $rc: $(cat "$WORK/out")"; fi

# --- names and files attach refuses ---------------------------------------------
"$BIN" databases attach --db "$CAT" main "$USER_DB" >"$WORK/out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -qF "is reserved" "$WORK/out"; then ok "attach as main: usage error, reserved"
else bad "attach as main" "exit $rc: $(cat "$WORK/out")"; fi
"$BIN" databases attach --db "$CAT" books "$USER_DB" >"$WORK/out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -qF "attached as 'books' already" "$WORK/out"; then ok "attach a taken name: refused"
else bad "attach a taken name" "exit $rc: $(cat "$WORK/out")"; fi
"$BIN" databases attach --db "$CAT" self "$CAT" >"$WORK/out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -qF "dbmcp's own database" "$WORK/out"; then ok "attach the catalog itself: refused"
else bad "attach the catalog itself" "exit $rc: $(cat "$WORK/out")"; fi
printf 'not a database, just text\n' >"$WORK/data/notes.db"
"$BIN" databases attach --db "$CAT" notes "$WORK/data/notes.db" >"$WORK/out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -qF "attached as 'notes'" "$WORK/out" && grep -qF "not a database" "$WORK/out" &&
  ! "$BIN" databases list --db "$CAT" 2>/dev/null | grep -q '^notes'; then
  ok "attach a file that is not a database: named, not recorded"
else bad "attach a non-database" "exit $rc: $(cat "$WORK/out")"; fi

# --- a report tool on the attached data --------------------------------------------
cat >"$WORK/by_author.sql" <<'SQL'
-- Books by one author, from the attached database books
SELECT b.title FROM books.books b JOIN books.authors a ON a.id = b.author_id
WHERE a.name = :author ORDER BY b.title
SQL
echo '{"type":"object","properties":{"author":{"type":"string"}},"required":["author"]}' >"$WORK/by_author.json"
if "$BIN" tools add-report books_by_author --db "$CAT" --sql "$WORK/by_author.sql" \
  --schema "$WORK/by_author.json" --interface default >"$WORK/out" 2>&1; then
  ok "tools add-report over books.books and books.authors"
else bad "tools add-report" "$(cat "$WORK/out")"; fi

echo '{"uri_template":"book://{id}","name":"book_title","handler_kind":"sql","handler":"SELECT title FROM books.books WHERE id = :id","interfaces":["default"]}' >"$WORK/template.json"
if "$BIN" templates add --db "$CAT" --file "$WORK/template.json" >"$WORK/out" 2>&1; then
  ok "templates add: an sql resource template over books.books"
else bad "templates add" "$(cat "$WORK/out")"; fi

# --- a session through dbmcp serve ---------------------------------------------------
# session CATALOG NAME: list, describe, search, query and report through
# `dbmcp serve` (stdio) on CATALOG, the user's database attached as NAME;
# the responses in $WORK/session.out.
session() {
  local cat=$1 name=$2
  cat >"$WORK/session.jsonl" <<EOT
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"attach.sh","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"describe_table","arguments":{"table":"$name.books"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_objects","arguments":{"pattern":"author"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"execute_query","arguments":{"query":"SELECT a.name, count(*) AS n FROM $name.books b JOIN $name.authors a ON a.id = b.author_id GROUP BY a.name ORDER BY n DESC"}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"execute_query","arguments":{"query":"SELECT title FROM books WHERE id = 2"}}}
EOT
  if [ "$name" = books ]; then
    echo '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"books_by_author","arguments":{"author":"Fontane"}}}' >>"$WORK/session.jsonl"
    echo '{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"book://2"}}' >>"$WORK/session.jsonl"
  fi
  "$BIN" serve --db "$cat" --interface default <"$WORK/session.jsonl" >"$WORK/session.out" 2>"$WORK/session.err"
}
# expect_session NAME WHAT: the session's answers as the attached NAME
expect_session() {
  local name=$1 what=$2 want
  for want in "| $name.authors | table | 2 | people who wrote books |" "| $name.books | table | 3 |" \
    "FK → $name.authors(id)" "Indexes: books_author (author_id)" "| Fontane | 2 |" "| Buddenbrooks |"; do
    grep -qF -- "$want" "$WORK/session.out" || { bad "$what" "no '$want' in: $(cat "$WORK/session.out" "$WORK/session.err")"; return; }
  done
  if grep -q '"isError":true' "$WORK/session.out"; then bad "$what" "an error: $(cat "$WORK/session.out")"; return; fi
  ok "$what"
}
session "$CAT" books
expect_session books "serve: list_tables, describe_table, search_objects and execute_query see books.*"
# JSON-escaped text: the two Fontane titles in order, Mann's left out.
report="$(grep '"id":6' "$WORK/session.out")"
if grep -qF '| Der Stechlin |\n| Effi Briest |' <<<"$report" && ! grep -qF Buddenbrooks <<<"$report"; then
  ok "serve: the report tool books_by_author reads the attached tables"
else bad "serve: report tool" "$(grep '"id":6' "$WORK/session.out")"; fi
if grep '"id":7' "$WORK/session.out" | grep -qF '"text":"Buddenbrooks"'; then
  ok "serve: the sql resource template book://2 reads the attached table"
else bad "serve: sql template" "$(grep '"id":7' "$WORK/session.out")"; fi

# --- hostile agent SQL against the attached database ---------------------------------
# refused NAME QUERY: execute_query refuses QUERY (exit 1, "Query refused").
refused() {
  local args
  args="$(node -e 'process.stdout.write(JSON.stringify({query: process.argv[1]}))' "$2")"
  "$BIN" call --db "$CAT" execute_query "$args" >"$WORK/out" 2>&1
  local rc=$?
  if [ "$rc" = 1 ] && grep -qF "Query refused" "$WORK/out"; then ok "refused: $1"
  else bad "refused: $1" "exit $rc: $(cat "$WORK/out")"; fi
}
refused "ATTACH of dbmcp's own file under another name" "ATTACH DATABASE '$CAT' AS cat"
refused "DETACH of the attached database" "DETACH DATABASE books"
refused "INSERT into the attached database" "INSERT INTO books.authors VALUES (3, 'Kafka')"
refused "UPDATE through a CTE on the attached database" "WITH x AS (SELECT 1) UPDATE books.authors SET name = 'x'"
refused "main's dbmcp_api_keys through a qualified name" "SELECT * FROM main.dbmcp_api_keys"
refused "main's dbmcp_attachments, quoted and qualified" 'SELECT * FROM "main"."dbmcp_attachments"'
refused "the attached database's sqlite_master" "SELECT name FROM books.sqlite_master"
refused "PRAGMA on the attached database" "PRAGMA books.journal_mode = WAL"
refused "pragma_database_list (where files live)" "SELECT * FROM pragma_database_list"

after="$(sum "$USER_DB")"
if [ "$after" = "$BEFORE" ] && no_side_files "$USER_DB"; then
  ok "the user's file is byte-identical after the session (sha256 $BEFORE), no journal beside it"
else bad "byte-identical" "before $BEFORE after $after; $(ls "$WORK/data")"; fi

# --- detach ----------------------------------------------------------------------------
"$BIN" databases detach --db "$CAT" books 2>/dev/null
"$BIN" call --db "$CAT" list_tables '{}' >"$WORK/out" 2>&1
if ! grep -qF "books." "$WORK/out" && [ -z "$("$BIN" databases list --db "$CAT" | tail -n +2)" ]; then
  ok "detach: list_tables and databases list no longer show books"
else bad "detach" "$(cat "$WORK/out")"; fi
"$BIN" databases detach --db "$CAT" books >"$WORK/out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -qF "no database is attached as 'books'" "$WORK/out"; then ok "detach an unknown name: exit 1, says so"
else bad "detach unknown" "exit $rc: $(cat "$WORK/out")"; fi

# --- a file gone since: serve refuses, naming it ----------------------------------------
cp "$USER_DB" "$WORK/data/gone.db"
"$BIN" databases attach --db "$CAT" gone "$WORK/data/gone.db" 2>/dev/null
rm "$WORK/data/gone.db"
"$BIN" call --db "$CAT" list_tables '{}' >"$WORK/out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -qF "attached as 'gone'" "$WORK/out" && grep -qF "dbmcp databases detach gone" "$WORK/out"; then
  ok "an attached file that is gone: the call fails naming it and the fix"
else bad "gone file" "exit $rc: $(cat "$WORK/out")"; fi
"$BIN" databases detach --db "$CAT" gone 2>/dev/null

# --- read-only locations ----------------------------------------------------------------
RO="$WORK/ro"
mkdir -p "$RO"
make_user_db "$RO/books.db"
RO_SUM="$(sum "$RO/books.db")"
chmod a-w "$RO/books.db" "$RO"
"$BIN" databases attach --db "$CAT" shelf "$RO/books.db" 2>/dev/null
session "$CAT" shelf
expect_session shelf "serve with the file and its directory not writable (chmod a-w)"
if [ "$(sum "$RO/books.db")" = "$RO_SUM" ] && no_side_files "$RO/books.db"; then ok "chmod a-w: the file is byte-identical"
else bad "chmod a-w: byte-identical" "$(ls -la "$RO")"; fi
"$BIN" databases detach --db "$CAT" shelf 2>/dev/null

# A read-only bind mount, in a mount namespace of its own so nothing else
# sees it; as root only.
if [ "$(id -u)" != 0 ]; then
  echo "skip read-only bind mount: needs root (running as uid $(id -u))"
elif ! unshare -m true 2>/dev/null; then
  echo "skip read-only bind mount: unshare -m is not permitted here"
else
  MNT="$WORK/mnt"
  mkdir -p "$MNT"
  for mode in "" --immutable; do
    name=mounted
    [ -n "$mode" ] && name=frozen
    sed -i "s/shelf\./$name./g" "$WORK/session.jsonl"
    unshare -m bash -c '
      mount --bind -o ro "$1" "$2" || exit 3
      if touch "$2/probe" 2>/dev/null; then exit 4; fi
      "$3" databases attach --db "$4" $5 "$6" "$2/books.db" 2>/dev/null || exit 5
      "$3" databases list --db "$4" >"$7/list.out"
      "$3" serve --db "$4" --interface default <"$7/session.jsonl" >"$7/session.out" 2>"$7/session.err"
      "$3" databases detach --db "$4" "$6" 2>/dev/null' _ "$RO" "$MNT" "$BIN" "$CAT" "$mode" "$name" "$WORK"
    rc=$?
    sed -i "s/$name\./shelf./g" "$WORK/session.jsonl"
    if [ "$rc" != 0 ]; then bad "read-only bind mount $mode" "setup failed with $rc (4: the mount is writable)"; continue; fi
    expect_session "$name" "serve from a read-only bind mount${mode:+ ($mode)}"
    if [ -n "$mode" ] && ! grep -qE "^frozen +immutable " "$WORK/list.out"; then
      bad "databases list --immutable" "$(cat "$WORK/list.out")"
    fi
  done
  if [ "$(sum "$RO/books.db")" = "$RO_SUM" ]; then ok "read-only mount: the file is byte-identical"
  else bad "read-only mount: byte-identical" "changed"; fi
  # A WAL-mode file on a read-only mount: SQLite cannot make its -shm
  # file, so only --immutable opens it; the refusal says so.
  mkdir -p "$WORK/walro"
  sqlite3 "$WORK/walro/wal.db" "PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (42);" >/dev/null
  unshare -m bash -c '
    mount --bind -o ro "$1" "$2" || exit 3
    "$3" databases attach --db "$4" wal "$2/wal.db" >"$5/wal1.out" 2>&1 && exit 4
    "$3" databases attach --db "$4" --immutable wal "$2/wal.db" >"$5/wal2.out" 2>&1 || exit 5
    "$3" call --db "$4" execute_query "{\"query\":\"SELECT x FROM wal.t\"}" >"$5/wal3.out" 2>&1 || exit 6
    "$3" databases detach --db "$4" wal 2>/dev/null' _ "$WORK/walro" "$MNT" "$BIN" "$CAT" "$WORK"
  rc=$?
  if [ "$rc" = 0 ] && grep -qF "attached --immutable" "$WORK/wal1.out" && grep -qF "| 42 |" "$WORK/wal3.out"; then
    ok "a WAL file on a read-only mount: refused naming --immutable, served with it"
  else bad "WAL file on a read-only mount" "exit $rc: $(cat "$WORK"/wal?.out 2>/dev/null)"; fi
fi

finish
