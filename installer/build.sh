#!/usr/bin/env bash
# Configures and builds medsynth into build/ (Ninja, Release, ccache, 2 jobs:
# a LibTorch TU needs ~1 GB and our machines have 2 cores).
# Usage: installer/build.sh [ninja targets...]   (default: everything)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MEDSYNTH_BUILD_DIR:-$repo/build}"
jobs="${MEDSYNTH_JOBS:-2}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${MEDSYNTH_CMAKE_ARGS:-} >&2
fi
ninja -C "$build" -j "$jobs" "$@" >&2
