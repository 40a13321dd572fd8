#!/usr/bin/env bash
# .ci/check-format holds the lines changed after the format base to
# .clang-format and leaves older lines alone (issue 33: .clang-format existed
# and nothing applied it). In a scratch git repository: a badly formatted line
# committed before the base passes; one added after it fails, naming the
# file; the same line formatted passes. Skips (77) without git-clang-format.
set -uo pipefail
repo="${1:?usage: $0 REPO}"
command -v git-clang-format-14 >/dev/null || command -v git-clang-format >/dev/null || {
  echo "skip: git-clang-format is not installed (Debian: clang-format-14)"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=1; }
mkdir -p "$tmp/.ci" "$tmp/engine"
cp "$repo/.ci/check-format" "$tmp/.ci/" && cp "$repo/.clang-format" "$tmp/"
cd "$tmp" || exit 1
git init -q . && git config user.email ci@medsynth && git config user.name ci
printf 'int   old_style( int a ){return a;}\n' >engine/old.cpp
git add -A && git commit -qm base
git rev-parse HEAD >.ci/format-base
.ci/check-format >out 2>&1 || fail "an unformatted line from before the base failed: $(cat out)"

printf 'int   added( int a ){return a;}\n' >>engine/old.cpp
git commit -qam "an unformatted line"
if .ci/check-format >out 2>&1; then
  fail "an unformatted line after the base passed"
else
  grep -q "engine/old.cpp" out || fail "the failure does not name the file: $(cat out)"
fi
git reset -q --hard HEAD~1
printf 'int added(int a) { return a; }\n' >>engine/old.cpp
git commit -qam "a formatted line"
.ci/check-format >out 2>&1 || fail "a formatted line after the base failed: $(cat out)"
[ $failures = 0 ] && echo "ok: check-format holds changed lines to .clang-format and leaves older lines alone"
exit $failures
