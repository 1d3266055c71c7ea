#!/usr/bin/env bash
# web-build.sh OUT — bundle the admin console's front end (src/web/ui) into
# OUT (build/web/console.js) with esbuild, for web/embedded.S to embed.
#
# The npm packages come from src/web/ui/package-lock.json: `npm ci` runs
# once, when node_modules lacks them (the only step that needs the npm
# registry); after it the build works offline. One lock per directory, as
# scripts/protocol-tests.sh does, so parallel makes do not race.
set -euo pipefail
out=$1
cd "$(dirname "$0")/../src/web/ui"
command -v npm >/dev/null || { echo "web-build: npm is required (scripts/deps.sh installs it)" >&2; exit 1; }
flock . sh -c '[ -x node_modules/.bin/esbuild ] && [ -d node_modules/preact ] || npm ci --no-audit --no-fund >&2'
root=$(cd ../../.. && pwd)
case $out in /*) ;; *) out="$root/$out" ;; esac
mkdir -p "$(dirname "$out")"
node_modules/.bin/esbuild src/main.jsx --bundle --minify --format=iife --target=es2020 \
  --jsx=automatic --jsx-import-source=preact --legal-comments=none \
  --log-level=warning --outfile="$out.tmp"
mv "$out.tmp" "$out"
