#!/usr/bin/env bash
# Runs a command (a GL/VTK test) under an X server of its own and returns the
# command's exit code. Xvfb chooses a free display itself (-displayfd), so two
# tests never share or reuse a display, and access control is off (-ac, the
# server only listens on a local socket), so no xauth cookie can go missing.
# Replaces `xvfb-run -a`, which picked displays racily and lost a server
# mid-test ("bad X server connection") in fresh clones.
# -noreset: by default an X server resets when its last client disconnects and
# refuses connections while it does; a test that opens and closes one VTK
# window per test function raced that reset (CI stop 11: "bad X server
# connection. DISPLAY=:0" in the sixth function of viewer_snapshot_test).
# Usage: run_with_xvfb.sh [--screen WxHxD] COMMAND [ARGS...]
set -u
screen="1280x1024x24"
if [ "${1:-}" = "--screen" ]; then screen="$2"; shift 2; fi
work="$(mktemp -d /tmp/medsynth-xvfb-XXXXXX)"
Xvfb -displayfd 3 -screen 0 "$screen" -nolisten tcp -ac -noreset 3> "$work/display" 2> "$work/xvfb.log" &
xvfb_pid=$!
cleanup() { kill "$xvfb_pid" 2>/dev/null; wait "$xvfb_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
# Poll (bounded) until the server has written its display number.
for _ in $(seq 400); do
  [ -s "$work/display" ] && break
  kill -0 "$xvfb_pid" 2>/dev/null || break
  sleep 0.025
done
if [ ! -s "$work/display" ]; then
  echo "run_with_xvfb.sh: Xvfb did not start:" >&2
  cat "$work/xvfb.log" >&2
  exit 1
fi
export DISPLAY=":$(head -1 "$work/display")"
unset XAUTHORITY
"$@"
