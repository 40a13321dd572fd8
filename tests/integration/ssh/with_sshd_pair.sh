#!/usr/bin/env bash
# Runs a command with two private sshd nodes up (sshd_pair.sh), and stops them
# afterwards whatever happens. Usage: with_sshd_pair.sh ENGINE COMMAND [ARGS...]
# The command finds the pair's files in $MEDSYNTH_TEST_SSH_DIR.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
engine="$1"; shift
work="$(mktemp -d /tmp/medsynth-ssh-XXXXXX)"
cleanup() {
  "$here/sshd_pair.sh" stop "$work/pair"
  # No engine of these tests may outlive them (the tests check this too).
  pkill -KILL -f "$work/" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
"$here/sshd_pair.sh" start "$work/pair" "$engine"
rc=$?
[ $rc = 0 ] || exit $rc
export MEDSYNTH_TEST_SSH_DIR="$work/pair" MEDSYNTH_LAUNCH_RECORDS="$work/records"
"$@"
