#!/usr/bin/env bash
# fuzz.sh — build fuzz/fuzz_jsonrpc with libFuzzer, ASan and UBSan and run it.
#
#   scripts/fuzz.sh                    # 60 seconds
#   FUZZ_SECONDS=20 scripts/fuzz.sh    # what `make test` uses
#   scripts/fuzz.sh crash-<sha1>       # replay one input (a reproducer)
#
# The library (src/ except src/cli/) is compiled with clang into
# build/fuzz/obj through the Makefile's own rules, so flags and dependencies
# stay the ones `make` uses; the target links with -fsanitize=fuzzer. Each
# run mutates a fresh copy of fuzz/corpus (the seeds stay as they are) with
# fuzz/jsonrpc.dict. A crash, leak, sanitizer report, timeout or broken
# server contract stops the run: the input is saved as
# build/fuzz/artifacts/crash-… (or leak-…, timeout-…) and the script exits
# non-zero after printing the reproducer.
#
# Variables: FUZZ_SECONDS (60), FUZZ_MAX_LEN (16384), FUZZ_TIMEOUT (seconds
# per input, 10), FUZZ_JOBS (make -j, nproc), CLANG (clang).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds="${FUZZ_SECONDS:-60}"
max_len="${FUZZ_MAX_LEN:-16384}"
per_input="${FUZZ_TIMEOUT:-10}"
jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
clang="${CLANG:-clang}"
build="build/fuzz"
pkgs="sqlite3 jansson libmicrohttpd libsodium"

command -v "$clang" >/dev/null || { echo "fuzz: $clang not found (scripts/deps.sh installs it)" >&2; exit 2; }

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all"
# Library objects: the Makefile adds its own required flags to these.
lib_cflags="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $sanitize"
# The target itself is compiled here, with the same required flags.
target_cflags="$lib_cflags -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc \
$(pkg-config --cflags $pkgs)"

# --- build ------------------------------------------------------------------
objects=()
while IFS= read -r src; do
  objects+=("$build/obj/${src#src/}")
done < <(find src -name '*.c' ! -path 'src/cli/*' | sort | sed 's/\.c$/.o/')
objects+=("$build/obj/store/assets.o")

echo "fuzz: building the library with $clang" >&2
make --no-print-directory -j"$jobs" BUILD="$build" CC="$clang" CFLAGS="$lib_cflags" "${objects[@]}" >&2
echo "fuzz: linking $build/fuzz_jsonrpc" >&2
# shellcheck disable=SC2086 # flag lists split on purpose
"$clang" $target_cflags -fsanitize=fuzzer -o "$build/fuzz_jsonrpc" fuzz/fuzz_jsonrpc.c "${objects[@]}" \
  $(pkg-config --libs $pkgs) -lpthread -lm

# --- run --------------------------------------------------------------------
mkdir -p "$build/artifacts"
work="$(mktemp -d "${TMPDIR:-/tmp}/dbmcp-fuzz-run.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# The target's temporary database goes under $work too, so nothing is left
# behind even when a crash skips its atexit cleanup.
export TMPDIR="$work"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

if [ $# -gt 0 ]; then
  echo "fuzz: replaying $*" >&2
  # Full stacks for leaks (slower, fine for one input).
  export ASAN_OPTIONS="${ASAN_OPTIONS:-fast_unwind_on_malloc=0}"
  "$build/fuzz_jsonrpc" -runs=1 "$@"
  exit $?
fi

mkdir "$work/corpus"
cp fuzz/corpus/* "$work/corpus/"
echo "fuzz: running for ${seconds}s on a copy of fuzz/corpus ($(ls fuzz/corpus | wc -l) seeds)" >&2
set +e
"$build/fuzz_jsonrpc" \
  -max_total_time="$seconds" \
  -timeout="$per_input" \
  -max_len="$max_len" \
  -rss_limit_mb=4096 \
  -dict=fuzz/jsonrpc.dict \
  -artifact_prefix="$build/artifacts/" \
  -print_final_stats=1 \
  "$work/corpus" 2>&1 | tee "$work/log" >&2
status=${PIPESTATUS[0]}
set -e

if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED (exit status $status)" >&2
  sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$work/log" | while IFS= read -r f; do
    echo "--- reproducer $f ($(wc -c <"$f") bytes):" >&2
    head -c 1000 "$f" | od -An -c | head -n 16 >&2
    echo "replay: scripts/fuzz.sh $f" >&2
  done
  exit 1
fi
echo "fuzz: no crash in ${seconds}s" >&2
