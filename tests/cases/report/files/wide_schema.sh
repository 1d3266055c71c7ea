#!/bin/sh
# wide_schema.sh N — print SQL that adds N user tables t_0001 … t_N (each
# with an id, an amount_NNNN column and a commented note column), for
# `dbmcp sql`, so schema discovery can be checked on a database too large
# to list whole.
n="${1:-500}"
echo "BEGIN;"
i=1
while [ "$i" -le "$n" ]; do
  t=$(printf '%04d' "$i")
  printf 'CREATE TABLE t_%s (\n    -- Wide-schema table %s.\n    id INTEGER PRIMARY KEY,\n    amount_%s REAL, -- an amount\n    note TEXT -- free text\n);\n' "$t" "$t" "$t"
  i=$((i + 1))
done
echo "COMMIT;"
