#!/usr/bin/env bash
# Runs a command with a private single-node SLURM up (slurm_cluster.sh) and
# stops it afterwards whatever happens. Usage: with_slurm.sh ENGINE COMMAND [ARGS...]
# The command gets SLURM_CONF, MEDSYNTH_ENGINE and a scratch directory in
# $MEDSYNTH_TEST_SLURM_DIR. Skips (77) without root: slurmd must run as root.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
engine="$(realpath "$1")"; shift
[ "$(id -u)" = 0 ] || { echo "SKIP: the private SLURM needs root"; exit 77; }
work="$(mktemp -d /tmp/medsynth-slurm-XXXXXX)"
cleanup() {
  [ -n "${SLURM_CONF:-}" ] && scancel --full --signal=KILL -u "$(id -un)" 2>/dev/null
  "$here/slurm_cluster.sh" stop "$work/cluster"
  pkill -KILL -f "$work/" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
SLURM_CONF="$("$here/slurm_cluster.sh" start "$work/cluster")" || exit 1
export SLURM_CONF MEDSYNTH_ENGINE="$engine" MEDSYNTH_TEST_SLURM_DIR="$work" MEDSYNTH_LAUNCH_RECORDS="$work/records"
"$@"
