#!/usr/bin/env bash
# medsynth-libtorch links only a LibTorch that no one but root and the user
# running it can replace (issue 37: it linked a world-writable folder owned by
# another user, so every user's engine would load a library that user
# controls). The script is made from its template as the package makes it;
# the "LibTorch" is a folder with lib/libtorch.so and version.py.
# Usage: libtorch_link_test.sh REPO   (the foreign-owner case needs root; skipped with the reason otherwise)
set -uo pipefail
repo="${1:?usage: $0 REPO}"
tmp="$(mktemp -d)"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=1; }
mkdir -p "$tmp/bin" "$tmp/lib/medsynth"
sed -e 's/@Torch_VERSION@/2.15.0/' -e 's/@MEDSYNTH_TORCH_SERIES@/2.15/' -e 's/@PROJECT_VERSION@/0.1.0/' \
  "$repo/installer/package/medsynth-libtorch.in" >"$tmp/bin/medsynth-libtorch"
chmod 755 "$tmp/bin/medsynth-libtorch"
torch_in() {  # a fake torch folder at $1
  mkdir -p "$1/lib"
  : >"$1/lib/libtorch.so"
  echo "__version__ = '2.15.0'" >"$1/version.py"
  chmod 755 "$1" "$1/lib"
}

torch_in "$tmp/good/torch"
chmod 755 "$tmp/good"
"$tmp/bin/medsynth-libtorch" "$tmp/good/torch" >/dev/null 2>"$tmp/err" || fail "a LibTorch only its owner can write was refused: $(cat "$tmp/err")"

torch_in "$tmp/shared/torch"
chmod 777 "$tmp/shared"  # world-writable, not sticky: anyone can swap torch/ for their own
"$tmp/bin/medsynth-libtorch" --remove
if "$tmp/bin/medsynth-libtorch" "$tmp/shared/torch" >/dev/null 2>"$tmp/err"; then
  fail "a LibTorch in a world-writable folder was linked"
else
  grep -q "$tmp/shared is writable by group and others" "$tmp/err" || fail "the refusal should name the folder: $(cat "$tmp/err")"
fi
[ -e "$tmp/lib/medsynth/libtorch" ] && fail "a refused LibTorch was linked"

torch_in "$tmp/group/torch"
chmod 775 "$tmp/group/torch/lib"
if "$tmp/bin/medsynth-libtorch" "$tmp/group/torch" >/dev/null 2>"$tmp/err"; then fail "a group-writable lib/ was accepted"; fi

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  torch_in "$tmp/foreign/torch"
  chmod 755 "$tmp/foreign"
  chown -R nobody "$tmp/foreign/torch"
  if "$tmp/bin/medsynth-libtorch" "$tmp/foreign/torch" >/dev/null 2>"$tmp/err"; then
    fail "a LibTorch owned by another user was linked"
  else
    grep -q "is owned by user nobody" "$tmp/err" || fail "the refusal should name the owner: $(cat "$tmp/err")"
  fi
else
  echo "skip (foreign owner): needs root and a user 'nobody' to own the folder"
fi
[ $failures = 0 ] && echo "ok: linked only a LibTorch that root or the user alone can write"
exit $failures
