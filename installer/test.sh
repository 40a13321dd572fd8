#!/usr/bin/env bash
# README command (2), also what CI runs (.ci/run): installs what is missing,
# builds everything, then runs ctest. Benchmarks (label bench) are not run.
# MEDSYNTH_TEST_LABELS selects labels (a ctest -L regex), e.g. "unit".
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MEDSYNTH_BUILD_DIR:-$repo/build}"
"$repo/installer/install.sh" --for full >/dev/null
"$repo/installer/build.sh"
"$repo/.ci/check-layers"
args=(--test-dir "$build" --output-on-failure -LE bench -j 2 --timeout 900)
[ -n "${MEDSYNTH_TEST_LABELS:-}" ] && args+=(-L "$MEDSYNTH_TEST_LABELS")
exec ctest "${args[@]}"
