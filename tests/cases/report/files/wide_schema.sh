#!/bin/sh
# wide_schema.sh DB N — add N user tables t_0001 … t_N (each with an id, an
# amount_NNNN column and a commented note column) to the SQLite file DB, so
# schema discovery can be checked on a database too large to list whole.
db="$1"
n="${2:-500}"
{
  echo "BEGIN;"
  i=1
  while [ "$i" -le "$n" ]; do
    t=$(printf '%04d' "$i")
    printf 'CREATE TABLE t_%s (\n    -- Wide-schema table %s.\n    id INTEGER PRIMARY KEY,\n    amount_%s REAL, -- an amount\n    note TEXT -- free text\n);\n' "$t" "$t" "$t"
    i=$((i + 1))
  done
  echo "COMMIT;"
} | sqlite3 "$db"
