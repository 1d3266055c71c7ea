#!/bin/sh
# wide_schema.sh N [DIALECT] — print SQL that adds N user tables t_0001 …
# t_N (each with an id, an amount_NNNN column and a commented note column),
# for `dbmcp sql`, so schema discovery can be checked on a database too
# large to list whole. DIALECT sqlite (default) keeps the comments in the
# CREATE text, where SQLite's introspection reads them; postgres makes the
# tables in the schema public (`dbmcp sql` runs with dbmcp's schema first
# in its search_path) and gives the same comments with COMMENT ON.
n="${1:-500}"
dialect="${2:-sqlite}"
echo "BEGIN;"
i=1
while [ "$i" -le "$n" ]; do
  t=$(printf '%04d' "$i")
  if [ "$dialect" = postgres ]; then
    printf 'CREATE TABLE public.t_%s (id INTEGER PRIMARY KEY, amount_%s REAL, note TEXT);\n' "$t" "$t"
    printf "COMMENT ON TABLE public.t_%s IS 'Wide-schema table %s.';\n" "$t" "$t"
    printf "COMMENT ON COLUMN public.t_%s.amount_%s IS 'an amount';\n" "$t" "$t"
    printf "COMMENT ON COLUMN public.t_%s.note IS 'free text';\n" "$t"
  else
    printf 'CREATE TABLE t_%s (\n    -- Wide-schema table %s.\n    id INTEGER PRIMARY KEY,\n    amount_%s REAL, -- an amount\n    note TEXT -- free text\n);\n' "$t" "$t" "$t"
  fi
  i=$((i + 1))
done
echo "COMMIT;"
