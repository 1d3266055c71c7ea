#!/usr/bin/env bash
# extract.sh — put the public retrieval data sets where bench/retrieval/run.mjs
# reads them: a data directory outside the repository (nothing of it is ever
# committed). See bench/README.md, "Retrieval benchmark".
#
#   $DATA/locomo/*.json          LoCoMo (snap-research/locomo, data/locomo10.zip):
#                                10 long multi-session conversations with QA
#   $DATA/xquad/xquad.LANG.json  XQuAD (google-deepmind/xquad) for en, de, zh
#   $DATA/jsquad/valid-v1.3.json JSQuAD (yahoojapan/JGLUE, datasets/jsquad-v1.3)
#
# DATA is $DBMCP_EVAL_DATA, else $HOME/.cache/dbmcp-eval. Each source is a
# git repository — a clone or a bare mirror (read with `git show HEAD:path`,
# no work tree needed) — or a plain directory holding the files:
#
#   bench/retrieval/extract.sh [--locomo REPO] [--xquad REPO] [--jglue REPO]
#   bench/retrieval/extract.sh --mirrors DIR   (DIR/<owner>+<name>/repo, e.g. /work/.mirror)
#
# A data set whose source is not given is left as it is; one that is still
# missing afterwards is reported as skipped, with where to get it. Exits 0
# unless a given source is unreadable.
set -euo pipefail

DATA=${DBMCP_EVAL_DATA:-$HOME/.cache/dbmcp-eval}
locomo="" xquad="" jglue=""
while [ $# -gt 0 ]; do
  case "$1" in
    --locomo) locomo=$2; shift 2 ;;
    --xquad) xquad=$2; shift 2 ;;
    --jglue) jglue=$2; shift 2 ;;
    --mirrors)
      [ -d "$2/snap-research+locomo/repo" ] && locomo="$2/snap-research+locomo/repo"
      [ -d "$2/google-deepmind+xquad/repo" ] && xquad="$2/google-deepmind+xquad/repo"
      [ -d "$2/yahoojapan+JGLUE/repo" ] && jglue="$2/yahoojapan+JGLUE/repo"
      shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "extract.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

fail() { echo "extract.sh: $*" >&2; exit 1; }

# read_file SOURCE PATH DEST: PATH of a git repository (bare or not) or a directory.
read_file() {
  local src=$1 path=$2 dest=$3
  mkdir -p "$(dirname "$dest")"
  if [ -f "$src/$path" ]; then
    cp "$src/$path" "$dest.tmp"
  elif git --git-dir="$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    git --git-dir="$src" show "HEAD:$path" >"$dest.tmp" || fail "$src has no $path"
  elif [ -d "$src/.git" ]; then
    git -C "$src" show "HEAD:$path" >"$dest.tmp" || fail "$src has no $path"
  else
    fail "$src: neither a git repository nor a directory with $path"
  fi
  mv "$dest.tmp" "$dest"
}

if [ -n "$locomo" ]; then
  command -v unzip >/dev/null || fail "unzip is required for LoCoMo's zip"
  tmp=$(mktemp -d)
  read_file "$locomo" data/locomo10.zip "$tmp/locomo10.zip"
  unzip -q -o "$tmp/locomo10.zip" -d "$tmp/x"
  mkdir -p "$DATA/locomo"
  find "$tmp/x" -name '*.json' -exec cp {} "$DATA/locomo/" \;
  rm -rf "$tmp"
fi
if [ -n "$xquad" ]; then
  for lang in en de zh; do
    read_file "$xquad" "xquad.$lang.json" "$DATA/xquad/xquad.$lang.json"
  done
fi
if [ -n "$jglue" ]; then
  read_file "$jglue" datasets/jsquad-v1.3/valid-v1.3.json "$DATA/jsquad/valid-v1.3.json"
fi

status() {
  if [ -e "$2" ]; then
    echo "extract.sh: $1: $2"
  else
    echo "extract.sh: $1: skipped, $2 is missing (get it from $3 and pass --${4})"
  fi
}
n=0
[ -d "$DATA/locomo" ] && n=$(find "$DATA/locomo" -name '*.json' | wc -l)
if [ "$n" -ge 10 ]; then echo "extract.sh: LoCoMo: $n conversations in $DATA/locomo"
else status LoCoMo "$DATA/locomo/26.json" https://github.com/snap-research/locomo locomo; fi
for lang in en de zh; do
  status "XQuAD $lang" "$DATA/xquad/xquad.$lang.json" https://github.com/google-deepmind/xquad xquad
done
status JSQuAD "$DATA/jsquad/valid-v1.3.json" https://github.com/yahoojapan/JGLUE jglue
