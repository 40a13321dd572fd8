#!/usr/bin/env bash
# Installs everything medsynth needs to build, test and run on Debian 12:
#   1. the Debian packages in installer/debian-packages.txt (only the missing ones);
#   2. LibTorch, taken from PyTorch's wheel on PyPI (pinned in installer/versions.env)
#      together with the CUDA runtime wheels it links against, unpacked into a
#      project-owned prefix. Nothing goes into the system Python.
# Idempotent and cached: wheels are kept in $MEDSYNTH_CACHE (default
# ~/.cache/medsynth) and the unpacked prefix carries a stamp, so a second run,
# even from a fresh clone, only checks and returns.
# Prints nothing but progress; the last line is the Torch CMake directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
# shellcheck source=versions.env
source "$here/versions.env"

cache="${MEDSYNTH_CACHE:-$HOME/.cache/medsynth}"
prefix="$cache/torch-$TORCH_VERSION"
wheels="$cache/wheels-$TORCH_VERSION"

log() { printf '[install] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_debian_packages() {
  mapfile -t wanted < <(sed -e 's/#.*//' -e '/^\s*$/d' "$here/debian-packages.txt")
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "Debian packages: all ${#wanted[@]} present"
    return
  fi
  log "Debian packages: installing ${#missing[@]} (${missing[*]})"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The daemons come up enabled on install; tests start private copies of their own.
  for svc in munge slurmctld slurmd ssh; do
    as_root systemctl disable --now "$svc" >/dev/null 2>&1 || true
  done
}

install_libtorch() {
  local stamp="$prefix/.medsynth-stamp"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$TORCH_VERSION" ]; then
    log "LibTorch $TORCH_VERSION: present in $prefix"
    return
  fi
  mkdir -p "$wheels"
  log "LibTorch $TORCH_VERSION: fetching the wheel and its CUDA runtime wheels into $wheels"
  # --python-version pins the exact wheel whatever Python runs pip (the C++
  # libraries are the same in every cpXY wheel);
  # pip skips what is already in $wheels.
  python3 -m pip download -q --disable-pip-version-check \
    --only-binary=:all: --python-version "$TORCH_PYTHON_TAG" \
    -d "$wheels" "torch==$TORCH_VERSION"
  local tmp="$prefix.partial"
  rm -rf "$tmp"; mkdir -p "$tmp"
  log "LibTorch $TORCH_VERSION: unpacking into $prefix"
  # Only torch and the nvidia runtime libraries are needed by C++. They are laid
  # out as in site-packages, so the wheel's RPATH ($ORIGIN/../../nvidia/...) resolves.
  unzip -q -o "$wheels"/torch-"$TORCH_VERSION"-*.whl 'torch/lib/*' 'torch/include/*' 'torch/share/*' 'torch/version.py' -d "$tmp"
  rm -f "$tmp/torch/lib/libtorch_python.so"
  for w in "$wheels"/nvidia_*.whl; do
    unzip -q -o "$w" 'nvidia/*' -d "$tmp"
  done
  # C++ needs only the shared libraries of the runtime wheels.
  # (Two passes: GNU find refuses -prune together with -delete as an error.)
  find "$tmp/nvidia" -name include -type d -prune -exec rm -rf {} +
  find "$tmp/nvidia" -name '*.a' -type f -delete
  echo "$TORCH_VERSION" > "$tmp/.medsynth-stamp"
  rm -rf "$prefix"; mv "$tmp" "$prefix"
}

install_debian_packages
install_libtorch
mkdir -p "$repo/.deps"
ln -sfn "$prefix" "$repo/.deps/torch"
log "done"
echo "$prefix/torch/share/cmake/Torch"
