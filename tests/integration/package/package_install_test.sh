#!/usr/bin/env bash
# The two Debian packages, built from this build folder with CPack and unpacked
# into a scratch root (dpkg -x), work from their installed paths:
#   - Depends come from dpkg-shlibdeps: the engine's name ITK and no Qt/VTK/libssh,
#     the console's name Qt and medsynth-engine;
#   - every installed executable's RUNPATH is $ORIGIN-relative (nothing absolute,
#     nothing of the build folder);
#   - without a LibTorch the engine says how to name one; medsynth-libtorch
#     refuses another LibTorch version and accepts ours; then `info --json`,
#     a 2-step training run, `medsynth snapshot` of its reconstruction and
#     `medsynth FILE` (what the .desktop entry runs) work;
#   - desktop-file-validate passes, the MIME types map .nii/.nii.gz/.nrrd/.mha,
#     the man pages render with every verb, the bash completion registers.
# Usage: package_install_test.sh BUILD_DIR
set -euo pipefail
build="$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)"
for tool in cpack dpkg-deb dpkg-shlibdeps help2man desktop-file-validate update-mime-database man Xvfb; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (installer/packages/package.txt, test.txt)"; exit 77; }
done
grep -q '^MEDSYNTH_BUILD_CONSOLE:BOOL=ON' "$build/CMakeCache.txt" || { echo "SKIP: the build has no console"; exit 77; }
torch_dir="$(sed -n 's/^Torch_DIR:PATH=//p' "$build/CMakeCache.txt")/../../.."
work="$(mktemp -d /tmp/medsynth-package-XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok   $*"; }

# --- build and inspect the packages -----------------------------------------
cpack --config "$build/CPackConfig.cmake" -B "$work/debs" > "$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack"; }
engine_deb="$(ls "$work"/debs/medsynth-engine_*.deb)"
console_deb="$(ls "$work"/debs/medsynth_*.deb)"
ok "built $(basename "$engine_deb") and $(basename "$console_deb")"
engine_depends="$(dpkg-deb -f "$engine_deb" Depends)"
console_depends="$(dpkg-deb -f "$console_deb" Depends)"
grep -q 'libinsighttoolkit5.2' <<<"$engine_depends" || fail "engine Depends lacks ITK: $engine_depends"
if grep -qE 'libqt|libvtk|libssh' <<<"$engine_depends"; then fail "engine depends on the console's libraries: $engine_depends"; fi
grep -q 'libqt6widgets6' <<<"$console_depends" || fail "console Depends lacks Qt: $console_depends"
grep -q 'medsynth-engine (= ' <<<"$console_depends" || fail "console does not depend on medsynth-engine: $console_depends"
ok "Depends (dpkg-shlibdeps): engine: $engine_depends"

root="$work/root"
dpkg -x "$engine_deb" "$root"
dpkg -x "$console_deb" "$root"
[ -z "$(find "$root" -mindepth 1 -maxdepth 1 ! -name usr)" ] || fail "files outside /usr: $(ls "$root")"

for exe in "$root"/usr/lib/medsynth/bin/*; do
  runpath="$(readelf -d "$exe" | sed -n 's/.*\(RUNPATH\|RPATH\).*\[\(.*\)\]/\2/p')"
  IFS=: read -ra entries <<<"$runpath"
  for entry in "${entries[@]}"; do
    case "$entry" in '$ORIGIN'*) ;; *) fail "$(basename "$exe"): RUNPATH entry '$entry' is not \$ORIGIN-relative ($runpath)" ;; esac
  done
  if grep -qF "$build" "$exe"; then fail "$(basename "$exe") names the build folder $build"; fi
  ok "$(basename "$exe"): RUNPATH '${runpath}'"
done

# --- LibTorch: named by the user, checked -----------------------------------
set +e
message="$("$root/usr/bin/medsynth-engine" info --json 2>&1)"; rc=$?
set -e
[ $rc -ne 0 ] && grep -q 'medsynth-libtorch' <<<"$message" || fail "no LibTorch yet: want a clear error, got exit $rc: $message"
ok "without LibTorch: $(head -1 <<<"$message")"
mkdir -p "$work/other-torch/lib"
: > "$work/other-torch/lib/libtorch.so"
echo "__version__ = '1.13.1+cpu'" > "$work/other-torch/version.py"
if "$root/usr/bin/medsynth-libtorch" "$work/other-torch" > "$work/refused.log" 2>&1; then fail "accepted LibTorch 1.13.1"; fi
grep -q '1.13.1' "$work/refused.log" || fail "the refusal does not name the version: $(cat "$work/refused.log")"
[ ! -e "$root/usr/lib/medsynth/libtorch" ] || fail "a refused LibTorch was linked"
ok "another LibTorch version refused: $(head -1 "$work/refused.log")"
"$root/usr/bin/medsynth-libtorch" "$torch_dir/.." > "$work/accepted.log"  # a site-packages-like folder
[ "$("$root/usr/bin/medsynth-libtorch")" = "$(cd "$torch_dir" && pwd -P)" ] || fail "medsynth-libtorch does not show $torch_dir"
ok "$(cat "$work/accepted.log")"

# --- the installed programs work --------------------------------------------
"$root/usr/bin/medsynth-engine" info --json > "$work/info.json"
python3 - "$work/info.json" <<'PY' || fail "info --json: $(cat "$work/info.json")"
import json, sys
info = json.load(open(sys.argv[1]))
assert info["medsynth"] and info["libtorch"] and info["threads"] >= 1, info
print("ok   info --json: medsynth", info["medsynth"], "libtorch", info["libtorch"], "itk", info["itk"])
PY
cat > "$work/job.yaml" <<'JOB'
name: installed
task: autoencoder
data: {num_train: 2, num_val: 1, phantom_size: [32, 32, 32], phantom_spacing: [8.0, 8.0, 8.0], patch_size: [16, 16, 16], num_workers: 0}
model: {autoencoder: {num_channels: [4, 8, 8], num_res_blocks: [1, 1, 1], norm_num_groups: 4}}
training: {batch_size: 1, max_steps: 2, val_every_steps: 2, num_threads: 1, val_sliding_window: false}
output: {save_reconstructions: 1, tensorboard: false}
JOB
"$root/usr/bin/medsynth-engine" validate "$root/usr/share/medsynth/jobs/quickstart.yaml" 2> /dev/null || fail "the installed quickstart job does not validate"
"$root/usr/bin/medsynth-engine" train "$work/job.yaml" --runs-dir "$work/runs" --no-progress --quiet > /dev/null
recon="$(ls "$work"/runs/*/output/reconstruction-*.nii.gz | head -1)"
ok "installed engine trained 2 steps: $(basename "$recon")"

# Each console command under an X server of its own (tests/support/run_with_xvfb.sh).
with_x="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../support" && pwd)/run_with_xvfb.sh"
"$with_x" --screen 1600x1000x24 "$root/usr/bin/medsynth" snapshot "$recon" "$work/snapshot.png"
[ -s "$work/snapshot.png" ] || fail "medsynth snapshot wrote nothing"
ok "installed console: snapshot $(stat -c %s "$work/snapshot.png") bytes"
# What a file manager's "Open with medsynth" runs (Exec=medsynth %F).
"$with_x" --screen 1600x1000x24 "$root/usr/bin/medsynth" --settings "$work/settings.ini" --quit-after-ms 4000 --screenshot "$work/open-with.png" "$recon" > /dev/null
[ -s "$work/open-with.png" ] || fail "medsynth FILE did not come up"
ok "installed console: medsynth FILE opened a window"

# --- desktop entry, MIME types, man pages, completion ------------------------
desktop-file-validate "$root/usr/share/applications/medsynth.desktop" || fail "desktop-file-validate"
grep -q '^Exec=medsynth %F' "$root/usr/share/applications/medsynth.desktop" || fail "the desktop entry does not open files"
ok "desktop-file-validate passes"
mkdir -p "$work/mime/packages"
cp /usr/share/mime/packages/freedesktop.org.xml "$root/usr/share/mime/packages/medsynth.xml" "$work/mime/packages/"
update-mime-database "$work/mime" 2> "$work/mime.log" || { cat "$work/mime.log"; fail "update-mime-database"; }
for pair in 'image/x-nifti:*.nii' 'image/x-nifti-gz:*.nii.gz' 'image/x-nrrd:*.nrrd' 'image/x-metaimage:*.mha'; do
  grep -qF ":$pair" "$work/mime/globs2" || fail "MIME database lacks $pair"
done
for type in image/x-nifti image/x-nifti-gz application/dicom; do
  grep -q "^MimeType=.*$type;" "$root/usr/share/applications/medsynth.desktop" || fail "the desktop entry does not claim $type"
done
# Issue 37: claiming inode/directory let medsynth become the default for
# opening every folder; a DICOM folder is opened from the console instead.
grep -q "^MimeType=.*inode/directory" "$root/usr/share/applications/medsynth.desktop" && fail "the desktop entry claims every folder (inode/directory)"
ok "MIME types: .nii .nii.gz .nrrd .mha known, DICOM claimed, folders not"
page="$(MANWIDTH=100 man -l "$root/usr/share/man/man1/medsynth-engine.1.gz" 2>/dev/null)"
for verb in $("$root/usr/bin/medsynth-engine" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}'); do
  grep -q "^ *$verb\$" <<<"$page" || fail "the engine's man page lacks the verb $verb"
done
MANWIDTH=100 man -l "$root/usr/share/man/man1/medsynth.1.gz" 2>/dev/null | grep 'snapshot' >/dev/null || fail "the console's man page lacks snapshot"
ok "man pages render with every verb"
bash -c "source '$root/usr/share/bash-completion/completions/medsynth-engine' && complete -p medsynth-engine" > /dev/null ||
  fail "the bash completion does not register"
ok "bash completion registers"
echo "packages: all checks passed"
