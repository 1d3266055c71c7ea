#!/usr/bin/env bash
# Installs the Debian packages dbmcp builds, tests and runs with.
# Idempotent: runs `apt-get update` and `apt-get install` only when a package
# is missing. Debian 12, as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential pkg-config clang clang-format libclang-rt-14-dev
  # The PostgreSQL backend: libpq to build against, and the server binaries
  # (/usr/lib/postgresql/15/bin) that scripts/pg.sh starts throw-away test
  # servers with. The package's own cluster and service are not used.
  libpq-dev postgresql-15
  libsqlite3-dev
  # The sqlite3 shell: not for reaching dbmcp's databases in tests (they go
  # through `dbmcp sql` and `dbmcp dump`) but for bench/ (the baselines
  # measured in the shell), the operator's backups in docs/operations.md and
  # tests/cli/attach.sh, which makes a user's own file as a user would.
  sqlite3
  libjansson-dev
  libmicrohttpd-dev
  libsodium-dev
  # OIDC access tokens (src/core/jose.c): OpenSSL's EVP verifies RS*/PS*/ES*
  # signatures with keys built from JWKs. libpq already links libcrypto, so
  # linking it adds no library to the process.
  libssl-dev
  # libraptor2-dev depends on the GnuTLS flavour of libcurl's headers; the
  # OpenSSL flavour conflicts with it, so both use libcurl4-gnutls-dev.
  libcurl4-gnutls-dev
  libutf8proc-dev libstemmer-dev libxml2-dev libpoppler-glib-dev libraptor2-dev
  # Not linked: dbmcp opens these with dlopen on first use (src/core/optlib.h) and
  # names them when missing. The -dev packages above pull them in; listed for clarity.
  libcurl3-gnutls libxml2 libpoppler-glib8 libraptor2-0
  mythes-de mythes-en-us
  libcmocka-dev
  # The admin console's end-to-end tests drive this browser through
  # playwright-core (tests/node/console_browser.test.mjs); no browser is
  # downloaded from anywhere else.
  chromium
  # bench/ann.sh only: FAISS and hnswlib driven directly, beside dbmcp's HNSW
  # (Debian's libfaiss-dev ships the C API's headers but not its code, and
  # hnswlib is C++: their Python bindings are the way to run them unchanged).
  python3-faiss python3-hnswlib python3-numpy
  valgrind curl ca-certificates
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# Node.js and npm come with the machine image on our CI kind; install
# Debian's only when the commands are absent.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
