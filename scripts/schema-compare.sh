#!/usr/bin/env bash
# schema-compare.sh — do the SQLite and the PostgreSQL migrations build the
# same tables?
#
#   scripts/schema-compare.sh [POSTGRES_URI]
#
# Builds the SQLite schema with `build/dbmcp init` (make first; $DBMCP names
# another binary) and the PostgreSQL one by running
# src/store/schema/postgres/*.sql in order with psql, each in one
# transaction with search_path = dbmcp, as the migration runner does. With
# no URI it starts a throw-away server (scripts/pg.sh); with one, it creates
# a scratch database on that server and drops it afterwards.
#
# Then it lists, for every dbmcp_* table on each side, in one normalised
# form: columns in order (type class int/text/real/blob, NOT NULL, default),
# primary keys, unique constraints and indexes, plain indexes by name and
# foreign keys with their actions — and diffs the lists. The full-text
# tables differ by design (an FTS5 virtual table against a table with a
# tsvector): they are compared by name only. CHECK constraints are not
# listed (SQLite keeps them only in the CREATE text). Deliberate
# differences are listed in `expected` below; anything else fails.
# Exit status: 0 same, 1 different or failed.
set -euo pipefail
cd "$(dirname "$0")/.."

dbmcp=${DBMCP:-build/dbmcp}
[ -x "$dbmcp" ] || {
  echo "schema-compare: $dbmcp not built (make)" >&2
  exit 1
}

# Differences made on purpose: '<' only in SQLite, '>' only in PostgreSQL.
# (0003_thesaurus.sql says why: a btree entry must stay under ~2.7 kB, so
# notes are unique by the MD5 of their text; the relation kind goes through
# a recursive query that needs the database's collation.)
expected='< pk dbmcp_thesaurus_notes (concept_id, kind, lang, text)
> unique-index dbmcp_thesaurus_notes_key dbmcp_thesaurus_notes (concept_id, kind, lang, md5(text))
> text-not-C dbmcp_thesaurus_relations.kind'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dbmcp-schema.XXXXXX")
pgdir="" pguri="" scratch=schema_compare_$$
# shellcheck disable=SC2317 # called by the trap
cleanup() {
  if [ -n "$pguri" ] && [ -z "$pgdir" ]; then
    psql -X -q -d "$pguri" -c "DROP DATABASE IF EXISTS $scratch" >/dev/null 2>&1 || true
  fi
  [ -n "$pgdir" ] && scripts/pg.sh stop "$pgdir"
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ $# -ge 1 ]; then
  pguri=$1
else
  # Its own directory: the server's account must reach it, and $tmp is
  # closed to anyone but us.
  pgdir=$(mktemp -d /tmp/dbmcp-pg.XXXXXX)
  pguri=$(scripts/pg.sh start "$pgdir")
fi
db=$(scripts/pg.sh createdb "$pguri" "$scratch")

# --- PostgreSQL: the migrations, as the runner applies them --------------
psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c 'CREATE SCHEMA IF NOT EXISTS dbmcp'
for f in src/store/schema/postgres/[0-9]*.sql; do
  psql -X -q -v ON_ERROR_STOP=1 --single-transaction -d "$db" \
    -c 'SET search_path = dbmcp' -f "$f" >/dev/null ||
    {
      echo "schema-compare: $f failed on PostgreSQL" >&2
      exit 1
    }
done

# --- SQLite: dbmcp's own init ----------------------------------------------
"$dbmcp" init --db "$tmp/s.db" >"$tmp/init.log" 2>&1 || { cat "$tmp/init.log" >&2; exit 1; }

# Virtual tables (FTS5) and their shadow tables are left out of the lists.
sqlite_tables="
  WITH v AS (SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%')
  SELECT name FROM sqlite_master m
   WHERE type = 'table' AND name LIKE 'dbmcp\\_%' ESCAPE '\\'
     AND name <> 'dbmcp_schema_migrations'
     AND name NOT IN (SELECT name FROM v)
     AND NOT EXISTS (SELECT 1 FROM v WHERE m.name LIKE v.name || '\\_%' ESCAPE '\\')"

sqlite3 -batch -bail -noheader "$tmp/s.db" >"$tmp/sqlite.txt" <<EOF
.mode list
.separator ' '
WITH t AS ($sqlite_tables)
SELECT 'col', t.name, p.cid + 1, p.name,
       CASE upper(p.type) WHEN 'INTEGER' THEN 'int' WHEN 'TEXT' THEN 'text'
            WHEN 'REAL' THEN 'real' WHEN 'BLOB' THEN 'blob' ELSE p.type END,
       CASE WHEN p."notnull" OR p.pk > 0 THEN 'not-null' ELSE 'null' END,
       'default=' || CASE
            WHEN p.dflt_value IS NULL THEN '-'
            WHEN p.dflt_value LIKE '%strftime(%''now'')%' THEN 'now'
            ELSE p.dflt_value END
  FROM t, pragma_table_info(t.name) p;
WITH t AS ($sqlite_tables)
SELECT 'pk', t.name, '(' || (SELECT group_concat(name, ', ') FROM
         (SELECT name FROM pragma_table_info(t.name) WHERE pk > 0 ORDER BY pk)) || ')'
  FROM t WHERE EXISTS (SELECT 1 FROM pragma_table_info(t.name) WHERE pk > 0);
WITH t AS ($sqlite_tables)
SELECT CASE WHEN i."unique" AND i.origin = 'c' THEN 'unique-index ' || i.name || ' ' || t.name
            WHEN i."unique" THEN 'unique ' || t.name
            ELSE 'index ' || i.name || ' ' || t.name END,
       '(' || (SELECT group_concat(name, ', ') FROM
               (SELECT name FROM pragma_index_info(i.name) ORDER BY seqno)) || ')'
       || CASE WHEN i.partial THEN ' partial' ELSE '' END
  FROM t, pragma_index_list(t.name) i
 WHERE i.origin <> 'pk';
WITH t AS ($sqlite_tables)
SELECT 'fk', t.name,
       '(' || (SELECT group_concat("from", ', ') FROM
               (SELECT "from" FROM pragma_foreign_key_list(t.name) WHERE id = f.id ORDER BY seq)) || ')',
       '->', f."table",
       '(' || (SELECT group_concat("to", ', ') FROM
               (SELECT "to" FROM pragma_foreign_key_list(t.name) WHERE id = f.id ORDER BY seq)) || ')',
       'delete=' || f.on_delete, 'update=' || f.on_update
  FROM t, pragma_foreign_key_list(t.name) f
 WHERE f.seq = 0;
SELECT 'fts', name FROM sqlite_master
 WHERE sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' AND name LIKE 'dbmcp\\_%' ESCAPE '\\';
EOF

# A table with a tsvector column is the full-text index of its engine.
pg_tables="
  SELECT c.oid, c.relname FROM pg_class c
   WHERE c.relnamespace = 'dbmcp'::regnamespace AND c.relkind = 'r'
     AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
                      AND a.atttypid = 'tsvector'::regtype)"

psql -X -q -At -F ' ' -v ON_ERROR_STOP=1 -d "$db" >"$tmp/postgres.txt" <<EOF
SET search_path = dbmcp;
WITH t AS ($pg_tables)
SELECT 'col', t.relname, row_number() OVER (PARTITION BY t.relname ORDER BY a.attnum), a.attname,
       CASE WHEN a.atttypid IN ('bigint'::regtype, 'integer'::regtype, 'smallint'::regtype) THEN 'int'
            WHEN a.atttypid = 'text'::regtype THEN 'text'
            WHEN a.atttypid = 'double precision'::regtype THEN 'real'
            WHEN a.atttypid = 'bytea'::regtype THEN 'blob'
            ELSE format_type(a.atttypid, a.atttypmod) END,
       CASE WHEN a.attnotnull THEN 'not-null' ELSE 'null' END,
       'default=' || CASE
            WHEN d.adbin IS NULL THEN '-'
            WHEN pg_get_expr(d.adbin, d.adrelid) = 'dbmcp_now()' THEN 'now'
            ELSE regexp_replace(pg_get_expr(d.adbin, d.adrelid), '::[a-z ]+$', '') END
  FROM t JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a.attnum;
WITH t AS ($pg_tables),
     ix AS (SELECT t.relname AS tbl, ic.relname AS name, i.indisprimary, i.indisunique,
                   i.indpred IS NOT NULL AS partial,
                   EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) AS backs,
                   (SELECT string_agg(pg_get_indexdef(i.indexrelid, k, true), ', ' ORDER BY k)
                      FROM generate_series(1, i.indnkeyatts) k) AS cols
              FROM t JOIN pg_index i ON i.indrelid = t.oid JOIN pg_class ic ON ic.oid = i.indexrelid)
SELECT CASE WHEN indisprimary THEN 'pk ' || tbl
            WHEN indisunique AND NOT backs THEN 'unique-index ' || name || ' ' || tbl
            WHEN indisunique THEN 'unique ' || tbl
            ELSE 'index ' || name || ' ' || tbl END,
       '(' || cols || ')' || CASE WHEN partial THEN ' partial' ELSE '' END
  FROM ix;
WITH t AS ($pg_tables)
SELECT 'fk', t.relname,
       '(' || (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY k(att, n)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.att) || ')',
       '->', r.relname,
       '(' || (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY k(att, n)
                 JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.att) || ')',
       'delete=' || CASE c.confdeltype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT'
                    WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' ELSE 'SET DEFAULT' END,
       'update=' || CASE c.confupdtype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT'
                    WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' ELSE 'SET DEFAULT' END
  FROM t JOIN pg_constraint c ON c.conrelid = t.oid AND c.contype = 'f'
  JOIN pg_class r ON r.oid = c.confrelid;
SELECT 'fts', c.relname FROM pg_class c
 WHERE c.relnamespace = 'dbmcp'::regnamespace AND c.relkind = 'r'
   AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
                AND a.atttypid = 'tsvector'::regtype);
-- Every text column compares byte-wise, as SQLite's BINARY does.
SELECT 'text-not-C', c.relname || '.' || a.attname FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid
 WHERE c.relnamespace = 'dbmcp'::regnamespace AND c.relkind = 'r'
   AND a.attnum > 0 AND a.atttypid = 'text'::regtype AND a.attcollation <> '"C"'::regcollation;
EOF

sort "$tmp/sqlite.txt" >"$tmp/sqlite.sorted"
sort "$tmp/postgres.txt" >"$tmp/postgres.sorted"
diff "$tmp/sqlite.sorted" "$tmp/postgres.sorted" | grep '^[<>]' >"$tmp/diff.txt" || true
printf '%s\n' "$expected" | sort >"$tmp/expected.txt"
sort "$tmp/diff.txt" >"$tmp/diff.sorted"

tables=$(grep -c '^pk ' "$tmp/sqlite.sorted" || true)
columns=$(grep -c '^col ' "$tmp/sqlite.sorted" || true)
if cmp -s "$tmp/diff.sorted" "$tmp/expected.txt"; then
  echo "schema-compare: SQLite and PostgreSQL agree on $tables tables, $columns columns," \
    "their keys, indexes and foreign keys ($(wc -l <"$tmp/expected.txt") expected differences)"
  exit 0
fi
echo "schema-compare: the schemas differ ('<' SQLite, '>' PostgreSQL):" >&2
comm -23 "$tmp/diff.sorted" "$tmp/expected.txt" >&2
missing=$(comm -13 "$tmp/diff.sorted" "$tmp/expected.txt")
[ -z "$missing" ] || printf 'expected but not found:\n%s\n' "$missing" >&2
exit 1
