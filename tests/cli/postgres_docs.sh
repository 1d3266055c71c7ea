#!/usr/bin/env bash
# postgres_docs.sh — runs every command of docs/postgres.md, in order, on a
# throw-away PostgreSQL 15 server and a hot standby of it, so the page
# cannot drift from what dbmcp does. Stage pg-docs of scripts/test.sh.
#
# The page's ```sh blocks are its commands: one a line (a line ending in
# '\' continues), run in one shell so exports carry on, each with stdin
# from /dev/null (psql's \password gets the page's DBMCP_QUERY_PASSWORD
# twice) and its output kept. A command must exit 0, or what its trailing
# "# exit N" says. A ```text block right after a ```sh block shows what the
# block's last command printed: every line of it must appear in that
# command's output (stdout, stderr, and a file it wrote with "> FILE").
# "/run/postgresql-replica" and "/run/postgresql" in the page stand for the
# standby's and the server's socket directories, `dbmcp` for build/dbmcp,
# and psql -U postgres gets the superuser's password from PGPASSWORD.
#
# Besides the page's commands: no dbmcp output shows a password, the
# standby was in recovery, and a database migrated by a newer dbmcp is
# refused with the words the page quotes.
#
# Usage: tests/cli/postgres_docs.sh   (needs postgresql-15, node; root or a user
#                                     who may run the server; KEEP=1 leaves the
#                                     servers and the scratch directory for a look)
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DOC="$ROOT/docs/postgres.md"
PG_BIN=${DBMCP_PG_BIN:-/usr/lib/postgresql/15/bin}
while read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(PG|DBMCP_)' || true)
[ -x "$ROOT/build/dbmcp" ] || { echo "postgres_docs.sh: build/dbmcp not built (run make)" >&2; exit 1; }

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
die() { echo "postgres_docs.sh: $*" >&2; exit 1; }

WORK="$(mktemp -d /tmp/dbmcp-pg-docs.XXXXXX)"
chmod 755 "$WORK"
PGDIR="$WORK/pg"
REPLICA="$WORK/replica"
as_server() { # run as the account that owns $PGDIR (pg.sh runs the server as nobody under root)
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid="$(stat -c %u "$PGDIR")" --regid="$(stat -c %g "$PGDIR")" --clear-groups -- "$@"
  else "$@"; fi
}
cleanup() {
  [ -f "$REPLICA/data/postmaster.pid" ] &&
    (cd "$WORK" && as_server "$PG_BIN/pg_ctl" -D "$REPLICA/data" -m immediate -w stop >/dev/null 2>&1)
  "$ROOT/scripts/pg.sh" stop "$PGDIR" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap - EXIT
SUPER_URI=$("$ROOT/scripts/pg.sh" start "$PGDIR") || die "scripts/pg.sh start failed"
superpw=${SUPER_URI#postgresql://postgres:}
superpw=${superpw%%@*}
export PGPASSWORD=$superpw

# --- a hot standby of the server, on a socket directory of its own --------------------
mkdir -p "$REPLICA" && chmod 700 "$REPLICA"
[ "$(id -u)" -eq 0 ] && chown "$(stat -c %u:%g "$PGDIR")" "$REPLICA"
(cd "$WORK" && as_server env PGPASSWORD="$superpw" "$PG_BIN/pg_basebackup" -h "$PGDIR" -U postgres \
  -D "$REPLICA/data" -R -X stream) >"$WORK/basebackup.log" 2>&1 ||
  { cat "$WORK/basebackup.log" >&2; die "pg_basebackup failed"; }
printf "unix_socket_directories = '%s'\nhot_standby = on\n" "$REPLICA" |
  as_server tee -a "$REPLICA/data/postgresql.conf" >/dev/null
(cd "$WORK" && as_server "$PG_BIN/pg_ctl" -D "$REPLICA/data" -l "$REPLICA/server.log" -w -t 60 start) \
  >/dev/null || { tail -n 20 "$REPLICA/server.log" >&2; die "the standby did not start"; }
standby=$(psql -h "$REPLICA" -U postgres -X -A -t -c "SELECT pg_is_in_recovery()" 2>&1)
[ "$standby" = t ] && ok "a hot standby runs beside the server" || bad "the standby" "$standby"

# --- the page's commands as one script ------------------------------------------------------
mkdir -p "$WORK/run"
node - "$DOC" "$WORK" "$PGDIR" "$REPLICA" >"$WORK/doc.sh" <<'EOF' || die "cannot read $DOC"
const fs = require("fs");
const [doc, work, pgdir, replica] = process.argv.slice(2);
const lines = fs.readFileSync(doc, "utf8").split("\n");
const q = (s) => "'" + s.replace(/'/g, "'\\''") + "'";
const out = ["n=0", "checks=0", "failures=0"];
let block = null, kind = "", prevKind = "";
const sub = (s) => s.replaceAll("/run/postgresql-replica", replica).replaceAll("/run/postgresql", pgdir);
for (const raw of lines) {
  const fence = raw.match(/^```(\w*)\s*$/);
  if (fence && block === null) { block = []; kind = fence[1]; continue; }
  if (fence && block !== null) {
    if (kind === "sh") {
      const cmds = [];
      for (const l of block) {
        if (cmds.length && cmds[cmds.length - 1].endsWith("\\")) cmds[cmds.length - 1] = cmds[cmds.length - 1].slice(0, -1) + l.trim();
        else if (l.trim() && !l.trim().startsWith("#")) cmds.push(l);
      }
      for (const c of cmds) {
        const m = c.match(/\s#\s*exit (\d+)\s*$/);
        const want = m ? m[1] : "0";
        const cmd = sub(m ? c.slice(0, m.index) : c);
        const file = cmd.match(/(?:^|\s)>\s*([^\s>&|;]+)\s*$/);
        const stdin = cmd.includes("\\password") ? `"${work}/password.txt"` : "/dev/null";
        out.push(`n=$((n + 1)); echo "\$ "${q(c)}`);
        out.push(`{ ${cmd}\n} >"${work}/out.$n" 2>&1 <${stdin}; rc=$?`);
        if (file) out.push(`cat ${file[1]} >>"${work}/out.$n" 2>/dev/null`);
        out.push(`if [ "$rc" != ${want} ]; then echo "FAIL exit $rc, want ${want}: "${q(c)}; sed 's/^/     /' "${work}/out.$n" | head -n 20; failures=$((failures + 1)); fi`);
      }
    } else if ((kind === "text" || kind === "sql") && prevKind === "sh") {
      for (const l of block.filter((l) => l.trim())) {
        out.push(`checks=$((checks + 1)); grep -qF -- ${q(l.trim())} "${work}/out.$n" || { echo "FAIL output of command $n lacks: "${q(l.trim())}; failures=$((failures + 1)); }`);
      }
    }
    prevKind = kind;
    block = null;
    continue;
  }
  if (block !== null) block.push(raw);
  else if (raw.trim()) prevKind = "prose";
}
out.push('echo "docs: $n commands, $checks output lines checked, $failures failed"');
out.push("exit $((failures > 0))");
console.log(out.join("\n"));
EOF
pw=$(grep -o "DBMCP_QUERY_PASSWORD='[^']*'" "$DOC" | head -n 1 | cut -d"'" -f2)
[ -n "$pw" ] || die "the page sets no DBMCP_QUERY_PASSWORD"
printf '%s\n%s\n' "$pw" "$pw" >"$WORK/password.txt"
(cd "$WORK/run" && PATH="$ROOT/build:$PATH" setsid bash "$WORK/doc.sh") | tee "$WORK/doc.log"
[ "${PIPESTATUS[0]}" -eq 0 ] && ok "$(tail -n 1 "$WORK/doc.log")" || bad "the page's commands" "see above"

# --- what the page says besides its commands -------------------------------------------------
leaks=""
for f in "$WORK"/out.*; do
  grep -qF -e owner-secret -e "$pw" -e "$superpw" "$f" && leaks+=" ${f##*/}"
done
[ -z "$leaks" ] && ok "no output shows a password" || bad "passwords in output" "$leaks"
DB="postgresql://dbmcp_owner:owner-secret@/shop?host=$PGDIR"
psql "$DB" -X -q -c "INSERT INTO dbmcp.dbmcp_schema_migrations (version, name, applied_at)
  SELECT max(version) + 1, 'from_the_future', 'now' FROM dbmcp.dbmcp_schema_migrations" >/dev/null
got=$("$ROOT/build/dbmcp" init --db "$DB" 2>&1)
if [[ "$got" == *"is newer than this dbmcp ("*"); upgrade dbmcp"* ]]; then
  ok "a newer schema is refused as the page says"
else bad "a newer schema" "$got"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
