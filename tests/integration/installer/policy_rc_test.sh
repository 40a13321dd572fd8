#!/usr/bin/env bash
# The installer's policy-rc.d (installer/policy_rc.sh) refuses service starts
# only while the installer that wrote it runs: killed with SIGKILL (no trap
# runs), it leaves a file that allows every start, which its next run removes,
# and a policy file of anyone else is never touched. Issue 37: a plain
# "exit 101" left behind stopped every service on the machine from starting.
# Real processes stand in for the installer; the file is a private path.
set -uo pipefail
repo="${1:?usage: $0 REPO}"
# shellcheck source=../../../installer/policy_rc.sh
source "$repo/installer/policy_rc.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"; kill "$installer" 2>/dev/null' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=1; }

sleep 60 &
installer=$!
file="$tmp/policy-rc.d"
policy_rc_text "$installer" >"$file"
chmod 755 "$file"
"$file" ssh start; status=$?
[ $status = 101 ] || fail "while the installer runs, the policy should refuse starts (101), got $status"
remove_stale_policy_rc "$file"
[ -f "$file" ] || fail "a live installer's policy was removed"

kill -9 "$installer"; wait "$installer" 2>/dev/null
"$file" ssh start; status=$?
[ $status = 0 ] || fail "after the installer was killed, the policy should allow starts (0), got $status"
remove_stale_policy_rc "$file"
[ ! -e "$file" ] && echo "ok: a killed installer's policy allows starts and is removed by the next run" ||
  fail "a dead installer's policy was left in place"

printf '#!/bin/sh\nexit 101\n' >"$file"
remove_stale_policy_rc "$file"
[ -f "$file" ] || fail "someone else's policy-rc.d was removed"
exit $failures
