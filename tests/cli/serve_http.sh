# serve_http.sh — sourced (not run) by the scripts that start
# `dbmcp serve --http`: tests/cli/memory.sh and scripts/conformance.sh.
#
# serve_http_start LOG COMMAND...
#   runs COMMAND, a `dbmcp serve ... --http HOST:0`, in the background and
#   waits for the line dbmcp prints on stderr once it accepts connections:
#     listening on http://HOST:PORT/mcp
#   Port 0 lets the system pick a free port, so nothing can take it between
#   choosing and binding, and two copies of a suite never collide. The wait
#   reads stderr through a FIFO: it returns as soon as the line comes (no
#   polling, no sleeps), or when the server exits, or after SERVE_WAIT
#   seconds (default 60) without a line. Everything the server writes goes
#   to LOG; LOG.fifo is used on the way (LOG's directory must be private).
#   Sets SERVE_PID and SERVE_URL (http://HOST:PORT/mcp); returns 1 when the
#   server did not get that far.
serve_http_start() {
  local log=$1 line fd
  shift
  rm -f "$log.fifo"
  mkfifo "$log.fifo" || return 1
  "$@" >>"$log" 2>"$log.fifo" &
  SERVE_PID=$!
  exec {fd}<"$log.fifo"
  rm -f "$log.fifo"
  SERVE_URL=
  while IFS= read -r -t "${SERVE_WAIT:-60}" -u "$fd" line; do
    printf '%s\n' "$line" >>"$log"
    case $line in
      "listening on http://"*/mcp) SERVE_URL=${line#listening on }; break ;;
    esac
  done
  # Go on reading what follows (until the server exits), so that it never
  # blocks writing to stderr.
  cat <&"$fd" >>"$log" &
  exec {fd}<&-
  [ -n "$SERVE_URL" ]
}
