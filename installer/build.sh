#!/usr/bin/env bash
# Configures and builds medsynth into build/ (Ninja, Release, ccache, 2 jobs:
# a LibTorch TU needs ~1 GB and our machines have 2 cores).
# Usage: installer/build.sh [ninja targets...]   (default: everything)
# MEDSYNTH_CONSOLE: on  = the console (Qt, VTK, libssh) and the tests are part
#                         of the build; a build folder configured without them
#                         is reconfigured;
#                   auto = a new build folder gets the console and the tests
#                         only when their packages are installed (README
#                         command (1) installs the engine's alone); an existing
#                         folder stays as it is;
#                   off  = the engine-only profile of a GPU or cluster node:
#                         medsynth-engine, its benchmarks and its tests, no Qt,
#                         VTK or libssh (installer/test.sh builds it in
#                         build-engine/ against the venv's pip torch).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MEDSYNTH_BUILD_DIR:-$repo/build}"
jobs="${MEDSYNTH_JOBS:-2}"
console="${MEDSYNTH_CONSOLE:-on}"

installed() {  # every package named
  local p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1; done
}
cached() { sed -n "s/^$1:BOOL=//p" "$build/CMakeCache.txt" 2>/dev/null; }

want_console="" want_tests=""
case "$console" in
  on)
    if [ ! -f "$build/build.ninja" ] || [ "$(cached MEDSYNTH_BUILD_CONSOLE)" != ON ] || [ "$(cached MEDSYNTH_BUILD_TESTS)" != ON ]; then
      want_console=ON want_tests=ON
    fi ;;
  auto)
    if [ ! -f "$build/build.ninja" ]; then
      # shellcheck disable=SC2046
      if installed $(sed -e 's/#.*//' "$repo/installer/packages/build-console.txt"); then want_console=ON; else want_console=OFF; fi
      if installed libgtest-dev libgmock-dev; then want_tests=ON; else want_tests=OFF; fi
    fi ;;
  off)
    if [ ! -f "$build/build.ninja" ] || [ "$(cached MEDSYNTH_BUILD_CONSOLE)" != OFF ] || [ "$(cached MEDSYNTH_BUILD_TESTS)" != ON ]; then
      want_console=OFF want_tests=ON
    fi ;;
  *) echo "build.sh: MEDSYNTH_CONSOLE must be 'on', 'auto' or 'off' (got '$console')" >&2; exit 2 ;;
esac
if [ -n "$want_console" ]; then
  # shellcheck disable=SC2086
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMEDSYNTH_BUILD_CONSOLE="$want_console" -DMEDSYNTH_BUILD_TESTS="$want_tests" ${MEDSYNTH_CMAKE_ARGS:-} >&2
fi
ninja -C "$build" -j "$jobs" "$@" >&2
