#!/usr/bin/env bash
# .ci/check-layers passes on the tree as it is and fails, naming the layer, on
# a planted folder loop in each of engine/, app/ and ui/ (issue 33: it
# checked engine/ alone, so an app/launch <-> app/cluster loop and a ui/jobs
# -> ui/shell back arrow passed). Runs on a copy of the sources.
set -uo pipefail
repo="${1:?usage: $0 REPO}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp -r "$repo/.ci" "$repo/engine" "$repo/app" "$repo/ui" "$tmp/"
failures=0
fail() { echo "FAIL: $*"; failures=1; }
"$tmp/.ci/check-layers" >"$tmp/out" 2>&1 || fail "check-layers fails on the tree as it is: $(cat "$tmp/out")"

plant() {  # FILE LINE LAYER: the check must fail naming LAYER, then the file is restored
  local file="$tmp/$1" line="$2" layer="$3"
  cp "$file" "$file.orig"
  printf '%s\n' "$line" | cat - "$file.orig" >"$file"
  if "$tmp/.ci/check-layers" >"$tmp/out" 2>&1; then
    fail "a loop planted in $1 ($line) passed"
  else
    grep -q "^$layer/ folders include each other in a loop" "$tmp/out" || fail "the loop in $1 was not named as $layer/'s: $(cat "$tmp/out")"
  fi
  mv "$file.orig" "$file"
}
plant app/launch/launcher.hpp '#include "app/cluster/cluster_spec.hpp"' app      # cluster -> launch exists
plant ui/history/run_table_model.hpp '#include "ui/shell/main_window.hpp"' ui      # shell -> history exists
plant engine/core/error.hpp '#include "config/job_spec.hpp"' engine                # config -> core exists
# engine/weights reads strangers' files and may include core/ only.
cp "$tmp/engine/weights/torch_archive.hpp" "$tmp/torch_archive.hpp.orig"
printf '#include "config/job_spec.hpp"\n' | cat - "$tmp/torch_archive.hpp.orig" >"$tmp/engine/weights/torch_archive.hpp"
if "$tmp/.ci/check-layers" >"$tmp/out" 2>&1; then
  fail "engine/weights including config/ passed"
else
  grep -q "engine/weights/ may include only core/" "$tmp/out" || fail "the weights rule was not named: $(cat "$tmp/out")"
fi
mv "$tmp/torch_archive.hpp.orig" "$tmp/engine/weights/torch_archive.hpp"
[ $failures = 0 ] && echo "ok: check-layers passes on the tree and names a planted loop in engine/, app/ and ui/"
exit $failures
