#!/usr/bin/env bash
# The console's viewer entry points end to end, under our own Xvfb:
#   medsynth snapshot RECON.nii.gz OUT.png   -> exit 0, a 1024x1024 PNG with content
#   medsynth snapshot garbage OUT.png        -> exit 3, the volume layer's message
#   medsynth --open-volume RECON --screenshot -> the window with the viewer tab
# The volume is a real reconstruction written by a 2-step engine run.
# Usage: cli_viewer_test.sh MEDSYNTH MEDSYNTH_ENGINE
set -euo pipefail
console="$1"; engine="$2"
work="$(mktemp -d /tmp/medsynth-cli-viewer-XXXXXX)"
# Our own X server (Xvfb picks a free display and tells us which): the exit
# codes checked below are then the console's own, not xvfb-run's.
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp -noreset 3> "$work/display" 2> "$work/xvfb.log" &
xvfb_pid=$!
trap 'kill $xvfb_pid 2>/dev/null; wait $xvfb_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.05; done
[ -s "$work/display" ] || { echo "Xvfb did not start"; cat "$work/xvfb.log"; exit 1; }
export DISPLAY=":$(head -1 "$work/display")"
cat > "$work/job.yaml" <<'JOB'
name: viewer
task: autoencoder
data: {num_train: 2, num_val: 1, phantom_size: [32, 32, 32], phantom_spacing: [8.0, 8.0, 8.0], patch_size: [16, 16, 16], num_workers: 0}
model: {autoencoder: {num_channels: [4, 8, 8], num_res_blocks: [1, 1, 1], norm_num_groups: 4}}
training: {batch_size: 1, max_steps: 2, val_every_steps: 2, num_threads: 1, val_sliding_window: false}
output: {save_reconstructions: 1, tensorboard: false}
JOB
"$engine" train "$work/job.yaml" --runs-dir "$work/runs" --no-progress --quiet > /dev/null
recon="$(ls "$work"/runs/*/output/reconstruction-*.nii.gz | head -1)"
[ -f "$recon" ] || { echo "the engine wrote no reconstruction"; exit 1; }

png_size() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); assert d[:8]==b"\x89PNG\r\n\x1a\n", "not a PNG"; print(*struct.unpack(">II", d[16:24]))' "$1"; }
xvfb() { "$@"; }  # DISPLAY points at our server

xvfb "$console" snapshot "$recon" "$work/snap.png"
[ "$(png_size "$work/snap.png")" = "1024 1024" ] || { echo "snapshot is not a 1024x1024 PNG"; exit 1; }
# A blank image compresses to almost nothing; three slices and a rendering do not.
[ "$(stat -c %s "$work/snap.png")" -gt 20000 ] || { echo "snapshot PNG looks blank ($(stat -c %s "$work/snap.png") bytes)"; exit 1; }

head -c 4096 /dev/urandom > "$work/garbage.nii.gz"
set +e
xvfb "$console" snapshot "$work/garbage.nii.gz" "$work/bad.png" 2> "$work/bad.err"
code=$?
set -e
[ $code = 3 ] || { echo "a garbage volume gave exit $code, expected 3"; cat "$work/bad.err"; exit 1; }
grep -q "garbage.nii.gz" "$work/bad.err" || { echo "the error does not name the file:"; cat "$work/bad.err"; exit 1; }
[ ! -e "$work/bad.png" ] || { echo "a PNG was written for a bad volume"; exit 1; }

QT_QPA_PLATFORM=xcb xvfb "$console" --settings "$work/settings.ini" --open-volume "$recon" \
  --screenshot "$work/window.png" --quit-after-ms 5000 > /dev/null
[ "$(stat -c %s "$work/window.png")" -gt 20000 ] || { echo "main window screenshot looks blank"; exit 1; }
# No display at all: a clear message and exit 2, not Qt's abort (exit 134).
set +e
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$console" --settings "$work/settings.ini" 2> "$work/nodisplay.err"
code=$?
set -e
[ $code = 2 ] || { echo "without a display the console gave exit $code, expected 2"; cat "$work/nodisplay.err"; exit 1; }
grep -q "no display to open a window on" "$work/nodisplay.err" || { echo "no message naming the display:"; cat "$work/nodisplay.err"; exit 1; }
echo "snapshot, bad-file exit 3, --open-volume and no display all behave"
