#!/usr/bin/env bash
# README command (2), also what CI runs (.ci/run): installs what is missing,
# builds everything, then runs ctest; then builds the engine-only profile
# (build-engine/) and runs its unit tests. Benchmarks (label bench) are not run.
# MEDSYNTH_TEST_LABELS selects labels (a ctest -L regex), e.g. "unit".
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MEDSYNTH_BUILD_DIR:-$repo/build}"
"$repo/installer/install.sh" --for full >/dev/null
"$repo/installer/build.sh"
"$repo/.ci/check-layers"
status=0
"$repo/.ci/check-format" || status=1
args=(--output-on-failure -LE 'bench|cuda' -j 2 --timeout 900)
[ -n "${MEDSYNTH_TEST_LABELS:-}" ] && args+=(-L "$MEDSYNTH_TEST_LABELS")
ctest --test-dir "$build" "${args[@]}" || status=$?
# The GPU tests (label cuda, tests/gpu/README.md) on their own and verbose:
# where there is no GPU each case skips, and its reason is then in the log.
if [ -z "${MEDSYNTH_TEST_LABELS:-}" ] || [[ cuda =~ ${MEDSYNTH_TEST_LABELS} ]]; then
  ctest --test-dir "$build" -L cuda --output-on-failure --timeout 900 -V || status=$?
fi

# The engine-only profile of GPU and cluster nodes (issue 18): no Qt, VTK or
# libssh, built against the pip torch of the venv (.deps/venv, found through
# torch.utils.cmake_prefix_path), and its unit tests. Its compile lines equal
# the full build's, so ccache serves them and this costs links and tests only.
if [ "${MEDSYNTH_SKIP_ENGINE_PROFILE:-0}" != 1 ]; then
  engine_build="${MEDSYNTH_ENGINE_BUILD_DIR:-$repo/build-engine}"
  MEDSYNTH_BUILD_DIR="$engine_build" MEDSYNTH_CONSOLE=off \
    MEDSYNTH_CMAKE_ARGS="-DMEDSYNTH_TORCH_PYTHON=$repo/.deps/venv/bin/python ${MEDSYNTH_CMAKE_ARGS:-}" "$repo/installer/build.sh"
  if grep -qE '^(Qt6_DIR|VTK_DIR):PATH=/' "$engine_build/CMakeCache.txt"; then
    echo "test.sh: the engine-only build found Qt or VTK" >&2; status=1
  fi
  ctest --test-dir "$engine_build" --output-on-failure -L "${MEDSYNTH_TEST_LABELS:-unit}" -LE bench -j 2 --timeout 900 || status=$?
fi
exit "$status"
