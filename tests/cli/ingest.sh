#!/usr/bin/env bash
# ingest.sh — `dbmcp ingest` and `dbmcp reembed` end to end on a fresh
# database: every format (tests/cases/ingest: .txt, .md, .html, .pdf),
# search over what was ingested, chunk resources, re-ingest as a no-op,
# changed content replacing chunks/FTS/vectors, broken input (truncated
# PDF, invalid UTF-8, a 100 MB file, an unknown format, a failure injected
# in the middle of the write) refused with a clear message and the
# database dump byte-identical afterwards, re-embedding with another
# model, and that `dbmcp serve` maps none of the libraries opened on first
# use. Prints "ok"/"FAIL" per check and "N passed, M failed".
#
# Usage: tests/cli/ingest.sh        (DBMCP=path/to/dbmcp to test another build)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${DBMCP:-$ROOT/build/dbmcp}"
FIX="$ROOT/tests/cases/ingest"
[ -x "$BIN" ] || { echo "ingest.sh: $BIN not built (run make)" >&2; exit 1; }

# shellcheck source=tests/cli/lib/db.sh
. "$ROOT/tests/cli/lib/db.sh"

# Nothing from the caller's environment (DBMCP_DB, DBMCP_INTERFACE, …) but
# the test database server (DBMCP_TEST_PG, see lib/db.sh).
for v in $(compgen -e | grep '^DBMCP_' | grep -v '^DBMCP_TEST_PG'); do unset "$v"; done
WORK="$(mktemp -d)"
trap 'test_db_cleanup; rm -rf "$WORK"' EXIT
DB="$(test_db ingest)" || exit 1
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
dump() { db_dump_sum "$DB"; }
q() { db_sql "$DB" "$1"; }
# qjoin SEP SQL: the rows of SQL (one column) joined by SEP.
qjoin() { q "$2" | paste -sd "$1" -; }

# run NAME WANT_STATUS ARGS…: run dbmcp, keep stdout/stderr in $WORK/out|err.
run() {
  local name=$1 want=$2
  shift 2
  "$BIN" "$@" --db "$DB" >"$WORK/out" 2>"$WORK/err" </dev/null
  local got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$name" "exit $got, want $want; stderr: $(head -c 400 "$WORK/err")"
    return 1
  fi
  return 0
}
expect_out() { grep -qF -- "$2" "$WORK/out" && ok "$1" || fail "$1" "stdout lacks '$2': $(head -c 400 "$WORK/out")"; }
expect_err() { grep -qF -- "$2" "$WORK/err" && ok "$1" || fail "$1" "stderr lacks '$2': $(head -c 400 "$WORK/err")"; }
expect_eq() { [ "$2" == "$3" ] && ok "$1" || fail "$1" "got '$2', want '$3'"; }
# refused NAME MESSAGE ARGS…: exit 1, MESSAGE on stderr, database unchanged.
refused() {
  local name=$1 msg=$2 before
  shift 2
  before="$(dump)"
  run "$name" 1 "$@" && expect_err "$name: message" "$msg"
  expect_eq "$name: database unchanged" "$(dump)" "$before"
}
search() { "$BIN" call search_documents "$1" --db "$DB" --interface default --json 2>"$WORK/err"; }

"$BIN" init --db "$DB" 2>/dev/null || { echo "ingest.sh: init failed" >&2; exit 1; }
"$BIN" interfaces add-tool default search_documents --db "$DB" 2>/dev/null ||
  { echo "ingest.sh: interfaces add-tool failed" >&2; exit 1; }

# --- every format ---------------------------------------------------------------
run "ingest four formats" 0 ingest "$FIX/plain.txt" "$FIX/notes.md" "$FIX/page.html" \
  "$FIX/agreement.pdf" --collection t --interface default --meta 'team=hr,site=München' &&
  expect_out "ingest four formats: report" "collection t: 4 added, 0 replaced, 0 unchanged"
expect_eq "mime types" "$(qjoin ' ' "SELECT slug || '=' || mime_type FROM dbmcp_documents ORDER BY slug")" \
  "agreement=application/pdf notes=text/markdown page=text/html plain=text/plain"
expect_eq "titles" "$(qjoin '|' "SELECT title FROM dbmcp_documents ORDER BY slug")" \
  "Zusammenfassung Druckindustrie|Betriebsvereinbarung Homeoffice|Parental leave policy|Staff handbook: travel expenses"
expect_eq "languages detected" "$(qjoin ' ' "SELECT language FROM dbmcp_documents ORDER BY slug")" "de de en en"
expect_eq "metadata" "$(q "SELECT metadata FROM dbmcp_documents WHERE slug = 'notes'")" '{"site":"München","team":"hr"}'
expect_eq "html: no script, style or noscript text" \
  "$(q "SELECT count(*) FROM dbmcp_documents WHERE content LIKE '%SHOULDNOTAPPEAR%' OR content LIKE '%ALSONOT%' OR content LIKE '%font-family%'")" "0"
expect_eq "html: headings as Markdown" "$(q "SELECT count(*) FROM dbmcp_documents WHERE slug = 'page' AND content LIKE '%## Notice period%'")" "1"
expect_eq "pdf: text of both pages" "$(q "SELECT count(*) FROM dbmcp_documents WHERE slug = 'agreement' AND content LIKE '%Wochenarbeitszeit%' AND content LIKE '%Kuendigungsfrist%'")" "1"
expect_eq "every chunk has an FTS row and a vector" \
  "$(q "SELECT (SELECT count(*) FROM dbmcp_chunks) = (SELECT count(*) FROM dbmcp_chunk_vectors) AND (SELECT count(*) FROM dbmcp_chunks) > 4")" "1"
# Offsets count bytes: SQLite's substr does on a BLOB, PostgreSQL's on a bytea.
if [ "$(db_engine "$DB")" = postgres ]; then
  bytes_of() { printf "convert_to(%s, 'UTF8')" "$1"; }
else
  bytes_of() { printf 'CAST(%s AS BLOB)' "$1"; }
fi
# A chunk is a byte range of its document's content (the text is stored once).
expect_eq "chunk offsets point into the content" \
  "$(q "SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id WHERE c.start_byte < 0 OR c.end_byte <= c.start_byte OR c.end_byte > length($(bytes_of d.content))")" "0"
expect_eq "chunks cover the content in order" \
  "$(q "SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_chunks n ON n.document_id = c.document_id AND n.seq = c.seq + 1 WHERE n.start_byte < c.start_byte")" "0"
expect_eq "resource rows" "$(q "SELECT count(*) FROM dbmcp_resources WHERE uri LIKE 'doc://t/%'")" "4"
search '{"query":"Homeoffice Pauschale","mode":"keyword","k":1}' | grep -q '"document": "doc://t/notes"' &&
  ok "keyword search finds the Markdown document" || fail "keyword search" "$(cat "$WORK/err")"
search '{"query":"parental leave notice","mode":"vector","k":1}' | grep -q '"document": "doc://t/page"' &&
  ok "vector search finds the HTML document" || fail "vector search" "$(cat "$WORK/err")"
search '{"query":"Kündigungsfrist Quartalsende","k":1}' | grep -q '"document": "doc://t/agreement"' &&
  ok "hybrid search finds the PDF" || fail "hybrid search" "$(cat "$WORK/err")"
search '{"query":"travel","filters":{"metadata":{"team":"sales"}}}' | grep -q '"shown": 0' &&
  ok "metadata filter excludes" || fail "metadata filter" "$(cat "$WORK/err")"

# --- chunk resources --------------------------------------------------------------
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"doc://t/notes/chunks/2"}}' \
  '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"doc://t/notes/chunks/99"}}' \
  '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"doc://t/notes"}}' |
  "$BIN" serve --db "$DB" >"$WORK/rpc" 2>/dev/null
grep '"id":2' "$WORK/rpc" | grep -q 'Passage 2 of 4 of doc://t/notes' && ok "chunk resource read" || fail "chunk resource read" "$(head -c 400 "$WORK/rpc")"
grep '"id":3' "$WORK/rpc" | grep -q 'Resource not found' && ok "missing chunk is not found" || fail "missing chunk" "$(head -c 400 "$WORK/rpc")"
grep '"id":4' "$WORK/rpc" | grep -q 'Kernarbeitszeit' && ok "document resource read" || fail "document resource read" "$(head -c 400 "$WORK/rpc")"

# --- re-ingest: unchanged is a no-op --------------------------------------------------
before="$(dump)"
run "re-ingest unchanged" 0 ingest "$FIX/plain.txt" "$FIX/notes.md" "$FIX/page.html" "$FIX/agreement.pdf" \
  --collection t --meta 'team=hr,site=München' && expect_out "re-ingest: reported" "0 added, 0 replaced, 4 unchanged"
expect_eq "re-ingest: database unchanged" "$(dump)" "$before"

# --- changed content replaces chunks, FTS rows and vectors -----------------------------------
sed 's/drei Tage/zwei Tage/; s/Kernarbeitszeit/Gleitzeitrahmen/' "$FIX/notes.md" >"$WORK/notes.md"
run "changed content" 0 ingest "$WORK/notes.md" --collection t --meta 'team=hr,site=München' &&
  expect_out "changed content: replaced" "replaced doc://t/notes"
expect_eq "same document id kept" "$(q "SELECT count(*) FROM dbmcp_documents WHERE slug = 'notes'")" "1"
expect_eq "old text gone from the document" "$(q "SELECT count(*) FROM dbmcp_documents WHERE content LIKE '%Kernarbeitszeit%'")" "0"
search '{"query":"Kernarbeitszeit","mode":"keyword"}' | grep -q '"shown": 0' && ok "keyword search: old word gone" || fail "old word gone" "$(cat "$WORK/err")"
search '{"query":"Gleitzeitrahmen","mode":"keyword","k":1}' | grep -q '"document": "doc://t/notes"' &&
  ok "keyword search: new word found" || fail "new word found" "$(cat "$WORK/err")"
expect_eq "vectors match chunks after replace" "$(q "SELECT (SELECT count(*) FROM dbmcp_chunks) = (SELECT count(*) FROM dbmcp_chunk_vectors)")" "1"
expect_eq "resource text replaced" "$(q "SELECT count(*) FROM dbmcp_resources WHERE uri = 'doc://t/notes' AND content_text LIKE '%Gleitzeitrahmen%'")" "1"

# --- broken input leaves everything as it was -----------------------------------------
head -c 700 "$FIX/agreement.pdf" >"$WORK/truncated.pdf"
refused "truncated PDF" "PDF is truncated or corrupt" ingest "$WORK/truncated.pdf" --collection t
refused "invalid UTF-8" "is not valid UTF-8 (byte 13: 0xfc)" ingest "$FIX/latin1.txt" --collection t
truncate -s 100M "$WORK/huge.txt"
refused "100 MB input" "is 104857600 bytes; the limit is 52428800 bytes (setting ingest.max_bytes)" \
  ingest "$WORK/huge.txt" --collection t
rm -f "$WORK/huge.txt"
printf '\x00\x01\x02\xff\xfe binary' >"$WORK/blob.bin"
refused "unknown format" "unknown format" ingest "$WORK/blob.bin" --collection t
refused "one bad file among good ones" "not valid UTF-8" ingest "$WORK/notes.md" "$FIX/plain.txt" \
  "$FIX/latin1.txt" --collection t2
expect_eq "no collection t2" "$(q "SELECT count(*) FROM dbmcp_collections WHERE name = 't2'")" "0"
# A failure in the middle of the write (after the old chunks were deleted),
# injected by a trigger (on PostgreSQL, one that calls a trigger function).
if [ "$(db_engine "$DB")" = postgres ]; then
  q 'CREATE FUNCTION test_fail() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN
       IF NEW.item_id % 2 = 0 THEN RAISE EXCEPTION '"'injected failure'"'; END IF; RETURN NEW;
     END $body$;
     CREATE TRIGGER test_fail BEFORE INSERT ON dbmcp_chunk_vectors FOR EACH ROW EXECUTE FUNCTION test_fail()'
else
  q "CREATE TRIGGER test_fail BEFORE INSERT ON dbmcp_chunk_vectors WHEN NEW.item_id % 2 = 0 BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
fi
refused "failure mid-transaction" "injected failure" ingest "$FIX/notes.md" --collection t --meta 'team=hr,site=München'
if [ "$(db_engine "$DB")" = postgres ]; then
  q "DROP TRIGGER test_fail ON dbmcp_chunk_vectors; DROP FUNCTION test_fail()"
else
  q "DROP TRIGGER test_fail"
fi
refused "unknown interface" "no interface named 'nope'" ingest "$FIX/plain.txt" --collection t3 --interface nope
refused "bad collection name" "collection name 'Bad Name!' is not allowed" ingest "$FIX/plain.txt" --collection 'Bad Name!'
run "overlap >= max-tokens is a usage error" 2 ingest "$FIX/plain.txt" --chunk tokens --max-tokens 20 --overlap 20 &&
  expect_err "overlap: message" "--overlap (20) must be smaller than --max-tokens (20)"

# --- chunk options --------------------------------------------------------------------
run "token chunking" 0 ingest "$FIX/plain.txt" --collection small --chunk tokens --max-tokens 16 --overlap 4
expect_eq "token chunking: several chunks" "$(q "SELECT count(*) > 2 FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id WHERE d.collection = 'small'")" "1"
expect_eq "token chunking: recorded on the collection" "$(q "SELECT chunk_strategy || '/' || chunk_max_tokens || '/' || chunk_overlap FROM dbmcp_collections WHERE name = 'small'")" "tokens/16/4"

# --- reembed ------------------------------------------------------------------------
q "INSERT INTO dbmcp_settings (key, value) VALUES ('embed.dim', '128') ON CONFLICT (key) DO UPDATE SET value = excluded.value"
sed 's/zwei Tage/vier Tage/' "$WORK/notes.md" >"$WORK/notes2.md"
refused "ingest with another model refused" "holds vectors of model builtin-lexical-v1@384 but the configured embedder is builtin-lexical-v1@128; run \`dbmcp reembed --collection t --db $(db_hint "$DB")\` first" ingest "$WORK/notes2.md" --collection t
run "reembed" 0 reembed --collection t && expect_out "reembed: report" "embedded with builtin-lexical-v1@128"
expect_eq "reembed: only the new model" "$(qjoin , "SELECT DISTINCT model FROM dbmcp_chunk_vectors v JOIN dbmcp_chunks c ON c.id = v.item_id JOIN dbmcp_documents d ON d.id = c.document_id WHERE d.collection = 't'")" "builtin-lexical-v1@128"
expect_eq "reembed: collection model" "$(q "SELECT embed_model || ' ' || embed_dim FROM dbmcp_collections WHERE name = 't'")" "builtin-lexical-v1@128 128"
search '{"query":"parental leave notice","mode":"vector","k":1,"filters":{"collection":"t"}}' | grep -q '"document": "doc://t/page"' &&
  ok "vector search with the new model" || fail "vector search after reembed" "$(cat "$WORK/err")"
# reembed reads each chunk's text as a range of its document: the vectors it wrote are the
# ones an ingest of the same files with the new model writes.
run "ingest the same files with the new model" 0 ingest "$FIX/plain.txt" "$WORK/notes.md" "$FIX/page.html" \
  "$FIX/agreement.pdf" --collection same
same_vectors="SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id AND d.collection = 't'
  JOIN dbmcp_documents d2 ON d2.collection = 'same' AND d2.slug = d.slug
  JOIN dbmcp_chunks c2 ON c2.document_id = d2.id AND c2.seq = c.seq
  JOIN dbmcp_chunk_vectors v ON v.item_id = c.id JOIN dbmcp_chunk_vectors v2 ON v2.item_id = c2.id"
expect_eq "reembed: the vectors a fresh ingest writes" \
  "$(q "$same_vectors WHERE v.vec = v2.vec")/$(q "$same_vectors WHERE v.vec <> v2.vec")" \
  "$(q "SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id WHERE d.collection = 't'")/0"
run "reembed unknown collection" 1 reembed --collection nope && expect_err "reembed unknown: message" "no collection named 'nope'"
run "help ingest" 0 help ingest && expect_out "help ingest: flags" "--max-tokens"

# --- migration 0010: the text stored once --------------------------------------------------
# A database as migration 0009 left it (each chunk's text in dbmcp_chunks.text; on SQLite the
# vectors in a WITHOUT ROWID table) is made from this one by hand, then converted again.
if [ "$(db_engine "$DB")" = postgres ]; then
  chunk_range="convert_from(substring(convert_to(d.content, 'UTF8') FROM CAST(c.start_byte + 1 AS integer) FOR CAST(c.end_byte - c.start_byte AS integer)), 'UTF8')"
  old_schema="ALTER TABLE dbmcp_chunks ADD COLUMN text text COLLATE \"C\" NOT NULL DEFAULT '';"
  # The migrations after 0010 undone too, so that 0010 runs again with them.
  later="DROP TABLE dbmcp_attachments;
    DROP TRIGGER dbmcp_mem_items_stats_ai ON dbmcp_mem_items; DROP TRIGGER dbmcp_mem_items_stats_ad ON dbmcp_mem_items;
    DROP TRIGGER dbmcp_mem_items_stats_au ON dbmcp_mem_items; DROP FUNCTION dbmcp_mem_scope_stats_keep();
    DROP TABLE dbmcp_mem_scope_stats; DROP INDEX dbmcp_audit_trace; ALTER TABLE dbmcp_audit DROP COLUMN trace_id; DROP TABLE dbmcp_replicas;
    ALTER TABLE dbmcp_audit DROP COLUMN auth_subject; ALTER TABLE dbmcp_audit DROP COLUMN auth_issuer; ALTER TABLE dbmcp_audit DROP COLUMN auth_token_id; DROP TABLE dbmcp_tasks;"
else
  later="DROP TABLE dbmcp_attachments; DROP TRIGGER dbmcp_mem_items_stats_ai; DROP TRIGGER dbmcp_mem_items_stats_ad;
    DROP TRIGGER dbmcp_mem_items_stats_au; DROP TABLE dbmcp_mem_scope_stats;
    DROP INDEX dbmcp_audit_trace; ALTER TABLE dbmcp_audit DROP COLUMN trace_id; DROP TABLE dbmcp_replicas;
    ALTER TABLE dbmcp_audit DROP COLUMN auth_subject; ALTER TABLE dbmcp_audit DROP COLUMN auth_issuer; ALTER TABLE dbmcp_audit DROP COLUMN auth_token_id; DROP TABLE dbmcp_tasks;"
  chunk_range="CAST(substr(CAST(d.content AS BLOB), c.start_byte + 1, c.end_byte - c.start_byte) AS TEXT)"
  old_schema="ALTER TABLE dbmcp_chunks ADD COLUMN text TEXT NOT NULL DEFAULT '';
    CREATE TABLE v8 (model TEXT NOT NULL, item_id INTEGER NOT NULL REFERENCES dbmcp_chunks (id) ON DELETE CASCADE,
      dim INTEGER NOT NULL CHECK (dim >= 1), vec BLOB NOT NULL CHECK (length(vec) = 4 * dim),
      PRIMARY KEY (model, item_id)) WITHOUT ROWID;
    INSERT INTO v8 SELECT model, item_id, dim, vec FROM dbmcp_chunk_vectors; DROP TABLE dbmcp_chunk_vectors;
    ALTER TABLE v8 RENAME TO dbmcp_chunk_vectors; CREATE INDEX dbmcp_chunk_vectors_item ON dbmcp_chunk_vectors (item_id);"
fi
# Search results and a chunk read, without what differs between two calls (time, call id).
answers() {
  {
    search '{"query":"Gleitzeitrahmen Homeoffice","mode":"keyword"}'
    search '{"query":"parental leave notice","mode":"vector"}'
    search '{"query":"Kündigungsfrist Quartalsende"}'
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
      '{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"doc://t/notes/chunks/2"}}' |
      "$BIN" serve --db "$DB" 2>/dev/null | grep '"id":2'
  } | sed -E 's/ · [0-9.]+ ms"/"/; s/"dbmcp\/callId": ?"[^"]*"/"dbmcp\/callId"/g'
}
answers >"$WORK/answers.new"
chunk_texts() { q "SELECT c.id, $chunk_range FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id ORDER BY c.id" | md5sum; }
texts_new="$(chunk_texts)"
q "$old_schema $later
   UPDATE dbmcp_chunks SET text = (SELECT $chunk_range FROM dbmcp_documents d, dbmcp_chunks c WHERE c.id = dbmcp_chunks.id AND d.id = c.document_id);
   DELETE FROM dbmcp_schema_migrations WHERE version >= 10" >/dev/null
q "UPDATE dbmcp_chunks SET text = text || '!' WHERE id = (SELECT min(id) FROM dbmcp_chunks)" >/dev/null
refused "0010 refuses a chunk that is not its range" "a chunk's text is not the range of its document it points to; dbmcp_chunks.text is kept (nothing changed)" init
q "UPDATE dbmcp_chunks SET text = substr(text, 1, length(text) - 1) WHERE id = (SELECT min(id) FROM dbmcp_chunks)" >/dev/null
run "0010 converts the old database" 0 init && expect_err "0010: applied" "7 migrations applied"
expect_eq "0010: every chunk's text kept" "$(chunk_texts)" "$texts_new"
answers >"$WORK/answers.old"
cmp -s "$WORK/answers.new" "$WORK/answers.old" && [ -s "$WORK/answers.new" ] && ok "0010: the same answers after the conversion" ||
  fail "0010: the same answers" "$(diff "$WORK/answers.new" "$WORK/answers.old" | head -c 600)"

# --- optional libraries stay unmapped (src/core/optlib.h) -------------------------------
# The PDF and HTML above were read by poppler-glib and libxml2, opened on first use; an
# MCP server that only searches maps neither of them, nor libcurl or raptor2.
mkfifo "$WORK/serve.in"
"$BIN" serve --db "$DB" <"$WORK/serve.in" >"$WORK/serve.out" 2>"$WORK/serve.err" &
serve_pid=$!
exec 3>"$WORK/serve.in"
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ingest.sh","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_documents","arguments":{"query":"Kuendigungsfrist"}}}' >&3
# Wait for the answer (up to a minute) while the server runs: its mapped
# libraries are read from /proc below, before it exits.
for _ in $(seq 600); do
  grep -q '"id":2' "$WORK/serve.out" && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.1
done
mapped="$(grep -oE 'lib(poppler|raptor2|curl|xml2|glib-2\.0|gobject-2\.0)[^/ ]*\.so[.0-9]*' "/proc/$serve_pid/maps" | sort -u | tr '\n' ' ')"
grep -q '"id":2,"result"' "$WORK/serve.out" && ok "serve: search answered" ||
  fail "serve: search answered" "$(head -c 400 "$WORK/serve.out") $(head -c 400 "$WORK/serve.err")"
expect_eq "serve maps no poppler, raptor2, libcurl, libxml2, glib" "$mapped" ""
exec 3>&-
wait "$serve_pid"
# Without poppler-glib a PDF is refused with the library and its package named, and nothing
# is written. Hiding the library needs a private mount namespace (root): skipped otherwise.
poppler="$(ldconfig -p | awk '$1 == "libpoppler-glib.so.8" {print $NF; exit}')"
# --- many paths; a collection exposed later keeps its documents and metadata -------
mkdir -p "$WORK/many"
for i in $(seq 1 240); do printf 'Memo %d about the Zugspitze rota.\n' "$i" >"$WORK/many/memo$i.txt"; done
run "240 paths in one call" 0 ingest "$WORK"/many/memo*.txt --collection later --meta 'dept=ops' &&
  expect_out "240 paths: report" "collection later: 240 added, 0 replaced, 0 unchanged"
expect_err "unexposed collection warns" \
  "warning: no interface exposes collection later, so search_documents and resources/list do not see it"
hint="$(grep -o '`dbmcp collections expose [^`]*`' "$WORK/err" | tr -d '`')"
expect_eq "the warning's hint names --db" "$(printf '%s' "$hint" | grep -cF -- "--db $(db_hint "$DB")")" "1"
expect_eq "unexposed: search finds nothing" \
  "$(search '{"query": "Zugspitze"}' | grep -c 'doc://later/')" "0"
before_docs="$(q "SELECT count(*) || ' ' || min(metadata) || ' ' || max(updated_at) FROM dbmcp_documents WHERE collection = 'later'")"
(db_paste_password "$DB" && eval "\"\$BIN\" ${hint#dbmcp }") >"$WORK/out" 2>"$WORK/err" </dev/null
expect_eq "pasted expose hint: exit status" "$?" "0"
expect_err "expose: message" "interface 'default' now exposes collection later"
expect_eq "expose keeps documents and metadata" \
  "$(q "SELECT count(*) || ' ' || min(metadata) || ' ' || max(updated_at) FROM dbmcp_documents WHERE collection = 'later'")" \
  "$before_docs"
expect_eq "exposed later: search finds it" \
  "$(search '{"query": "Zugspitze"}' | grep -q 'doc://later/memo' && echo found)" "found"
run "re-ingest unchanged: no warning once exposed" 0 ingest "$WORK/many/memo1.txt" --collection later --meta 'dept=ops' &&
  expect_eq "re-ingest: no warning" "$(grep -c warning "$WORK/err")" "0"
refused "expose unknown collection" "no collection named 'nosuch'" collections expose nosuch --interface default
run "expose without --interface" 2 collections expose later && expect_err "expose: usage" "--interface NAME is required"

if [ -n "$poppler" ] && unshare -m true 2>/dev/null; then
  before="$(dump)"
  unshare -m sh -c 'mount --bind /dev/null "$(readlink -f "$1")" && shift && exec "$@"' sh \
    "$poppler" "$BIN" ingest "$FIX/agreement.pdf" --collection nopdf --db "$DB" \
    >"$WORK/out" 2>"$WORK/err" </dev/null
  expect_eq "without poppler-glib: exit status" "$?" "1"
  expect_err "without poppler-glib: message" \
    "agreement.pdf: PDF extraction needs libpoppler-glib.so.8 (Debian package libpoppler-glib8): "
  expect_eq "without poppler-glib: database unchanged" "$(dump)" "$before"
else
  echo "skip without poppler-glib (needs root and unshare -m)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
