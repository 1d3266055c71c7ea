#!/usr/bin/env bash
# Fails when a C file differs from what clang-format (the repo's
# .clang-format) would write (`make format` fixes it), or when an include
# reaches up a layer (scripts/layers.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
while IFS= read -r f; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "format: $f needs clang-format (run make format)"
    bad=1
  fi
done < <(find src tests/unit tests/cli fuzz -name node_modules -prune -o \( -name '*.c' -o -name '*.h' \) -print 2>/dev/null | sort)
[ $bad -eq 0 ] && echo "format: all C files formatted"
# The include graph follows the layers (nothing includes from a layer above).
scripts/layers.sh || bad=1
exit $bad
