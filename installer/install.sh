#!/usr/bin/env bash
# Installs what medsynth needs on Debian 12:
#   1. the missing Debian packages of the chosen profile (installer/packages/):
#        --for engine  runtime-engine + build-engine: README command (1);
#        --for full    the engine's, the console's, test.txt and package.txt
#                      (default: README command (2) and CI);
#   2. LibTorch, taken from PyTorch's wheel on PyPI (pinned in installer/versions.env)
#      together with the CUDA runtime wheels it links against, pip-installed
#      into a project-owned venv (linked as .deps/venv). Nothing goes into the
#      system Python.
# A user's machine stays as it was: the installer never stops, disables or
# reconfigures a service. Daemons that a package install would start (the test
# list's sshd, slurmd, munge) are kept from starting by a temporary
# policy-rc.d; the tests start private copies of their own (docs/install.md).
# Idempotent and cached: wheels are kept in $MEDSYNTH_CACHE (default
# ~/.cache/medsynth) and the venv carries a stamp, so a second run,
# even from a fresh clone, only checks and returns.
# Progress goes to stderr (the LibTorch download shows pip's progress bar on a
# terminal); the last line on stdout is the Torch CMake directory.
# Usage: install.sh [--for engine|full] [--packages-only] [--package-list FILE]...
#   --package-list replaces the profile's lists (the installer's own test uses it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
# shellcheck source=versions.env
source "$here/versions.env"

cache="${MEDSYNTH_CACHE:-$HOME/.cache/medsynth}"
venv="$cache/venv-torch-$TORCH_VERSION"
wheels="$cache/wheels-$TORCH_VERSION"

log() { printf '[install] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

usage() { sed -n '/^# Usage: /,/^[^#]/s/^# //p' "${BASH_SOURCE[0]}"; }
profile=full packages_only=0 lists=()
while [ $# -gt 0 ]; do
  case "$1" in
    --for) profile="${2:-}"; shift 2 ;;
    --packages-only) packages_only=1; shift ;;
    --package-list) lists+=("${2:?--package-list needs a file}"); profile=custom; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if [ "$profile" != custom ]; then
  case "$profile" in
    engine) lists=("$here/packages/runtime-engine.txt" "$here/packages/build-engine.txt") ;;
    full) lists=("$here"/packages/{runtime-engine,build-engine,runtime-console,build-console,test,package}.txt) ;;
    *) echo "install.sh: --for must be 'engine' or 'full' (got '$profile')" >&2; exit 2 ;;
  esac
fi

# Package installs must not start daemons on a user's machine (Debian starts
# and enables a service when its package is installed). invoke-rc.d and
# deb-systemd-invoke ask /usr/sbin/policy-rc.d first: exit 101 = "do not
# start, stop or restart". It is only created when absent, and removed after;
# a running service is never touched, an enabled one stays enabled. The file
# says "no" only while this installer's process lives, so an installer killed
# with SIGKILL (no trap runs) leaves a file that says "yes", not a machine
# whose services never start again; the next run removes it
# (installer/policy_rc.sh).
policy_rc="${MEDSYNTH_POLICY_RC:-/usr/sbin/policy-rc.d}"
# shellcheck source=policy_rc.sh
source "$here/policy_rc.sh"
created_policy_rc=0
remove_policy_rc() { if [ "$created_policy_rc" = 1 ]; then as_root rm -f "$policy_rc"; created_policy_rc=0; fi; }
trap remove_policy_rc EXIT
trap 'remove_policy_rc; exit 130' INT
trap 'remove_policy_rc; exit 143' TERM
trap 'remove_policy_rc; exit 129' HUP
remove_stale_policy_rc "$policy_rc"

install_debian_packages() {
  mapfile -t wanted < <(sed -e 's/#.*//' -e '/^\s*$/d' "${lists[@]}" | sort -u)
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "Debian packages ($profile): all ${#wanted[@]} present"
    return
  fi
  log "Debian packages ($profile): installing ${#missing[@]} (${missing[*]})"
  if [ ! -e "$policy_rc" ]; then
    policy_rc_text $$ | as_root tee "$policy_rc" >/dev/null
    as_root chmod 755 "$policy_rc"
    created_policy_rc=1
  fi
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  remove_policy_rc
}

install_libtorch() {
  local stamp="$venv/.medsynth-stamp"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$TORCH_VERSION" ]; then
    log "LibTorch $TORCH_VERSION: present in $venv"
    return
  fi
  mkdir -p "$wheels"
  log "LibTorch $TORCH_VERSION: fetching the wheel and its CUDA runtime wheels into $wheels"
  # --python-version pins the wheel of Debian 12's Python 3.11, which the venv
  # below runs; pip skips what is already in $wheels.
  local quiet=-q
  [ -t 2 ] && quiet=  # a terminal sees pip's progress bar (3-4 GB); a log gets no bar lines
  # shellcheck disable=SC2086
  python3 -m pip download $quiet --disable-pip-version-check \
    --only-binary=:all: --python-version "$TORCH_PYTHON_TAG" \
    -d "$wheels" "torch==$TORCH_VERSION" >&2
  # A plain pip install into a venv, offline from the wheels just fetched: the
  # engine builds against a pip torch exactly as on a cluster node with its own
  # PyTorch (found through torch.utils.cmake_prefix_path,
  # cmake/MedsynthDependencies.cmake), and the wheel's RPATH
  # ($ORIGIN/../../nvidia/...) resolves in site-packages. Made aside and
  # renamed, so an interrupted install is never taken for a finished one (only
  # bin/python is used, which does not depend on the folder's name).
  local tmp="$venv.partial"
  rm -rf "$tmp"
  log "LibTorch $TORCH_VERSION: pip install into $venv"
  python3 -m venv "$tmp" >&2
  # shellcheck disable=SC2086
  "$tmp/bin/python" -m pip install $quiet --disable-pip-version-check --no-index \
    --find-links "$wheels" "torch==$TORCH_VERSION" >&2
  echo "$TORCH_VERSION" > "$tmp/.medsynth-stamp"
  rm -rf "$venv"; mv "$tmp" "$venv"
}

install_debian_packages
[ "$packages_only" = 1 ] && exit 0
install_libtorch
mkdir -p "$repo/.deps"
ln -sfn "$venv" "$repo/.deps/venv"
log "done"
"$repo/.deps/venv/bin/python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path + "/Torch")' 2>/dev/null
