#!/usr/bin/env bash
# Every program in the build's bin/ answers --help (usage on stdout, exit 0)
# and --version ("<name> <version>", exit 0) without doing its work and without
# a display: a user's first question to a program must never start a
# benchmark or a window. The time limit only catches a program that started
# working instead of answering; it measures nothing.
# Usage: binaries_answer_help_test.sh BIN_DIR
set -uo pipefail
bin_dir="${1:?usage: $0 BIN_DIR}"
unset DISPLAY WAYLAND_DISPLAY QT_QPA_PLATFORM
failures=0 checked=0
for program in "$bin_dir"/*; do
  [ -f "$program" ] && [ -x "$program" ] || continue
  name="$(basename "$program")"
  checked=$((checked + 1))
  help="$(timeout 60 "$program" --help 2>/tmp/help.$$.err)"; rc=$?
  if [ $rc -ne 0 ] || ! grep -qi '^usage:\|^ *usage:' <<<"$help"; then
    echo "FAIL $name --help: exit $rc, stdout without a 'Usage:' line"; head -5 <<<"$help"; head -5 /tmp/help.$$.err
    failures=$((failures + 1))
  fi
  version="$(timeout 60 "$program" --version 2>/tmp/help.$$.err)"; rc=$?
  if [ $rc -ne 0 ] || ! grep -qE "^$name [0-9]+\.[0-9]+\.[0-9]+" <<<"$version"; then
    echo "FAIL $name --version: exit $rc, printed '$(head -1 <<<"$version")' (want '$name X.Y.Z')"; head -5 /tmp/help.$$.err
    failures=$((failures + 1))
  else
    echo "ok   $name: $(head -1 <<<"$version")"
  fi
done
rm -f /tmp/help.$$.err
if [ $checked -eq 0 ]; then echo "FAIL: no programs in $bin_dir"; exit 1; fi
echo "$checked programs checked, $failures failures"
[ $failures -eq 0 ]
