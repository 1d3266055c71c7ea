#!/bin/sh
# layers.sh — fails when a file under src/ includes a header from a layer
# above its own (ARCHITECTURE.md, "Layers": nothing reaches up). Includes
# within one layer (memory/, docs/ and thesaurus/ are one) are fine; an
# include without a directory is the file's own directory. A directory of
# src/ that is in no layer fails too, so a new module gets a place below.
# Run by scripts/format-check.sh; prints each offending include and the rule.
set -eu
cd "$(dirname "$0")/.."

# Top to bottom; a comma joins directories of one layer.
order='cli transport web mcp agent llm tools memory,docs,thesaurus search catalog store core'

grep -rn --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' src |
  awk -v order="$order" '
BEGIN {
    n = split(order, layer, " ")
    for (i = 1; i <= n; i++) {
        m = split(layer[i], dirs, ",")
        for (j = 1; j <= m; j++)
            rank[dirs[j]] = n - i
    }
}
{
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2)
    lineno = rest; sub(/:.*/, "", lineno)
    text = substr(rest, length(lineno) + 2)
    match(text, /"[^"]*"/)
    inc = substr(text, RSTART + 1, RLENGTH - 2)
    split(file, part, "/")
    from = part[2]
    if (!(from in rank)) {
        if (!(from in told))
            printf "layers: %s: src/%s/ is in no layer; give it its place in the order at the top of scripts/layers.sh\n", file, from
        told[from] = 1
        bad = 1
        next
    }
    slash = index(inc, "/")
    if (slash == 0)
        next
    to = substr(inc, 1, slash - 1)
    if (!(to in rank)) {
        printf "layers: %s:%s: #include \"%s\": %s/ is no layer of src/\n", file, lineno, inc, to
        bad = 1
    } else if (rank[to] > rank[from]) {
        printf "layers: %s:%s: #include \"%s\": %s/ is above %s/, and nothing includes a header from a layer above it\n", file, lineno, inc, to, from
        bad = 1
    }
}
END {
    if (bad)
        exit 1
    print "layers: no include reaches up"
}'
