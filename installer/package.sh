#!/usr/bin/env bash
# Builds the Debian packages from this checkout: medsynth-engine (the engine
# alone, for workstations and cluster nodes: no Qt, no VTK) and medsynth (the
# console; depends on medsynth-engine). Installs what packaging needs
# (installer/packages/package.txt), builds with the console (installer/build.sh)
# and runs CPack (cmake/MedsynthInstall.cmake). docs/install.md says how to
# install them and how the engine finds LibTorch.
# Usage: installer/package.sh [OUT_DIR]     (default: build/packages)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MEDSYNTH_BUILD_DIR:-$repo/build}"
case "${1:-}" in
  -h|--help) sed -n '/^# Usage: /s/^# //p' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
out="$(mkdir -p "${1:-$build/packages}" && cd "${1:-$build/packages}" && pwd)"
"$repo/installer/install.sh" --for full >/dev/null
"$repo/installer/install.sh" --packages-only --package-list "$repo/installer/packages/package.txt"
# The man pages need help2man at configure time: a build folder configured
# before it was installed is configured again.
if grep -q '^MEDSYNTH_HELP2MAN:FILEPATH=.*NOTFOUND' "$build/CMakeCache.txt" 2>/dev/null; then
  cmake -U MEDSYNTH_HELP2MAN "$build" >&2
fi
MEDSYNTH_CONSOLE=on "$repo/installer/build.sh"
cpack --config "$build/CPackConfig.cmake" -B "$out" >&2
rm -rf "$out/_CPack_Packages"
ls "$out"/*.deb
