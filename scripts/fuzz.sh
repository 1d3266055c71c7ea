#!/usr/bin/env bash
# fuzz.sh — build every fuzz/fuzz_*.c target with libFuzzer, ASan and UBSan
# and run each in turn. Two modes:
#
#   scripts/fuzz.sh --ci        # what `make test` runs: deterministic
#   scripts/fuzz.sh             # `make fuzz`: random seeds, 60 seconds in all
#   FUZZ_SECONDS=600 scripts/fuzz.sh          # a longer random run
#   FUZZ_TARGETS=admission scripts/fuzz.sh    # only some targets (names without fuzz_)
#   scripts/fuzz.sh build/fuzz/artifacts/admission-crash-<sha1>   # replay one input
#
# --ci gives the same verdict on every run of the same commit: each target
# first replays every committed input of its corpus (every crash ever found
# is kept there, so a fixed bug stays fixed), then mutates a copy of it for
# a fixed number of inputs (FUZZ_RUNS) from a fixed seed. No clock decides
# what runs, so a slow or loaded machine runs the same inputs, only later.
#
# The default mode explores: random seeds, a time budget. What it finds is
# a bug to fix; add its input to the target's corpus with the fix (the
# script prints the command), and --ci replays it from then on.
#
# Targets: fuzz/fuzz_<name>.c, one libFuzzer entry point each. A target's
# seeds are fuzz/corpus_<name>/ (fuzz/corpus/ for jsonrpc, the first
# target) and its dictionary fuzz/<name>.dict when present.
#
# The library (src/ except src/cli/) is compiled with clang into
# build/fuzz/obj through the Makefile's own rules, so flags and dependencies
# stay the ones `make` uses; each target links with -fsanitize=fuzzer. Each
# run mutates a fresh copy of its seeds (the seeds stay as they are). A
# crash, leak, sanitizer report, timeout or broken contract stops that
# target's run: the input is saved as build/fuzz/artifacts/<name>-crash-…
# (or -leak-…, -timeout-…), the reproducer is printed, and the script exits
# non-zero after the remaining targets ran. A reproducer names its target,
# so replaying one needs no other argument.
#
# Variables: FUZZ_SECONDS (default mode: 60, shared equally, at least 1 per
# target), FUZZ_RUNS (--ci: mutated inputs per target, 4000), FUZZ_SEED
# (--ci: base seed, 1; target i uses FUZZ_SEED + i), FUZZ_TARGETS (all),
# FUZZ_MAX_LEN (16384), FUZZ_TIMEOUT (seconds per input, 10), FUZZ_JOBS
# (make -j, nproc), CLANG (clang).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

ci=0
if [ "${1:-}" = --ci ]; then
  ci=1
  shift
fi
seconds="${FUZZ_SECONDS:-60}"
runs="${FUZZ_RUNS:-4000}"
seed_base="${FUZZ_SEED:-1}"
max_len="${FUZZ_MAX_LEN:-16384}"
per_input="${FUZZ_TIMEOUT:-10}"
jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
clang="${CLANG:-clang}"
build="build/fuzz"
# The Makefile's PKGS (headers) and LINK_PKGS (linked, + -lstemmer below): libcurl,
# libxml2, poppler-glib and raptor2 are opened with dlopen on first use (src/core/optlib.h).
pkgs="sqlite3 libpq libcrypto jansson libmicrohttpd libsodium libcurl libutf8proc libxml-2.0 poppler-glib raptor2"
link_pkgs="sqlite3 libpq libcrypto jansson libmicrohttpd libsodium libutf8proc"

command -v "$clang" >/dev/null || { echo "fuzz: $clang not found (scripts/deps.sh installs it)" >&2; exit 2; }

# --- targets ----------------------------------------------------------------
targets=()
if [ -n "${FUZZ_TARGETS:-}" ]; then
  for name in ${FUZZ_TARGETS//,/ }; do
    [ -f "fuzz/fuzz_$name.c" ] || { echo "fuzz: no target fuzz/fuzz_$name.c" >&2; exit 2; }
    targets+=("$name")
  done
else
  # jsonrpc first (the oldest target), then the rest by name.
  [ -f fuzz/fuzz_jsonrpc.c ] && targets+=(jsonrpc)
  for src in fuzz/fuzz_*.c; do
    name="$(basename "$src" .c)"
    name="${name#fuzz_}"
    [ "$name" = jsonrpc ] || targets+=("$name")
  done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no targets in fuzz/" >&2; exit 2; }

corpus_of() {
  if [ -d "fuzz/corpus_$1" ]; then echo "fuzz/corpus_$1"
  elif [ "$1" = jsonrpc ]; then echo "fuzz/corpus"
  fi
}

# A reproducer is saved as <name>-crash-…; replaying picks its target from that.
replay_target=""
if [ $# -gt 0 ]; then
  base="$(basename "$1")"
  for name in "${targets[@]}"; do
    case "$base" in "$name"-*) replay_target="$name" ;; esac
  done
  if [ -z "$replay_target" ]; then
    if [ ${#targets[@]} -eq 1 ]; then replay_target="${targets[0]}"
    else replay_target=jsonrpc
    fi
  fi
  targets=("$replay_target")
fi

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all"
# Library objects: the Makefile adds its own required flags to these.
lib_cflags="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $sanitize"
# The targets themselves are compiled here, with the same required flags.
target_cflags="$lib_cflags -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc \
$(pkg-config --cflags $pkgs)"

# --- build ------------------------------------------------------------------
objects=()
while IFS= read -r src; do
  objects+=("$build/obj/${src#src/}")
done < <(find src -name node_modules -prune -o -name '*.c' ! -path 'src/cli/*' -print | sort | sed 's/\.c$/.o/')
objects+=("$build/obj/store/assets.o" "$build/obj/web/embedded.o")

echo "fuzz: building the library with $clang" >&2
make --no-print-directory -j"$jobs" BUILD="$build" CC="$clang" CFLAGS="$lib_cflags" "${objects[@]}" >&2
for name in "${targets[@]}"; do
  echo "fuzz: linking $build/fuzz_$name" >&2
  # shellcheck disable=SC2086 # flag lists split on purpose
  "$clang" $target_cflags -fsanitize=fuzzer -o "$build/fuzz_$name" "fuzz/fuzz_$name.c" \
    "${objects[@]}" $(pkg-config --libs $link_pkgs) -lstemmer -lpthread -lm -ldl
done

# --- run --------------------------------------------------------------------
mkdir -p "$build/artifacts"
work="$(mktemp -d "${TMPDIR:-/tmp}/dbmcp-fuzz-run.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# The targets' temporary databases go under $work too, so nothing is left
# behind even when a crash skips its atexit cleanup.
export TMPDIR="$work"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

if [ -n "$replay_target" ]; then
  echo "fuzz: replaying $* with fuzz_$replay_target" >&2
  # Full stacks for leaks (slower, fine for one input).
  export ASAN_OPTIONS="${ASAN_OPTIONS:-fast_unwind_on_malloc=0}"
  "$build/fuzz_$replay_target" -runs=1 "$@"
  exit $?
fi

share=$((seconds / ${#targets[@]}))
[ "$share" -ge 1 ] || share=1
failed=()
index=0
for name in "${targets[@]}"; do
  index=$((index + 1))
  corpus="$work/corpus_$name"
  mkdir "$corpus"
  seeds="$(corpus_of "$name")"
  if [ -n "$seeds" ]; then
    cp "$seeds"/* "$corpus/"
  fi
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  common=(-timeout="$per_input" -max_len="$max_len" -rss_limit_mb=4096 "${dict[@]}"
    -artifact_prefix="$build/artifacts/$name-" -print_final_stats=1)
  set +e
  if [ "$ci" = 1 ]; then
    # Replay: -runs=0 executes every input of the corpus once, then stops.
    echo "fuzz: $name: replaying ${seeds:-no seeds} ($(ls "$corpus" | wc -l) inputs)" >&2
    "$build/fuzz_$name" -runs=0 "${common[@]}" "$corpus" >"$work/log_$name" 2>&1
    status=$?
    if [ "$status" -eq 0 ]; then
      echo "fuzz: $name: $runs mutations from seed $((seed_base + index))" >&2
      "$build/fuzz_$name" -seed=$((seed_base + index)) -runs="$runs" "${common[@]}" \
        "$corpus" >>"$work/log_$name" 2>&1
      status=$?
    fi
    [ "$status" -eq 0 ] || cat "$work/log_$name" >&2
  else
    echo "fuzz: $name: running for ${share}s on a copy of ${seeds:-no seeds} ($(ls "$corpus" | wc -l) seeds)" >&2
    "$build/fuzz_$name" -max_total_time="$share" "${common[@]}" "$corpus" 2>&1 |
      tee "$work/log_$name" >&2
    status=${PIPESTATUS[0]}
  fi
  set -e
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $name: FAILED (exit status $status)" >&2
    sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$work/log_$name" | while IFS= read -r f; do
      echo "--- reproducer $f ($(wc -c <"$f") bytes):" >&2
      head -c 1000 "$f" | od -An -c | head -n 16 >&2
      echo "replay: scripts/fuzz.sh $f" >&2
      echo "keep it with the fix: cp $f ${seeds:-fuzz/corpus_$name}/" >&2
    done
    failed+=("$name")
  elif [ "$ci" = 1 ]; then
    echo "fuzz: $name: no crash ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log_$name" | awk '{s += $2} END {print s + 0}') inputs)" >&2
  else
    echo "fuzz: $name: no crash in ${share}s" >&2
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
if [ "$ci" = 1 ]; then
  echo "fuzz: no crash in ${#targets[@]} targets (corpora replayed, $runs fixed-seed mutations each)" >&2
else
  echo "fuzz: no crash in ${#targets[@]} targets (${share}s each)" >&2
fi
