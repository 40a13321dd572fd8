#!/usr/bin/env bash
# Issue 34 / NV-Generate-CTMR#45: the loss floor of a diffusion UNet trained on
# stored latent means (medsynth's default) against one trained on stored
# samples mu + sigma * eps (what NV-Generate's diff_model_create_training_data
# stores). Same imported MAISI networks (the miniature NV-Generate folder of
# the tests), same phantoms, seeds and steps; only ldm.encode_sample differs.
# Prints a table: the mean training loss of the last 20 steps and the final
# held-out loss (fixed timesteps and noise) of each.
#   tests/bench/latent_noise_floor.sh [ENGINE] [STEPS]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
engine=${1:-$here/build/bin/medsynth-engine}
steps=${2:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$engine" import-maisi "$here/tests/engine/diffusion/data/maisi_folder" --out "$work/imported" >/dev/null
echo "| latents stored | last-20-step train loss | final val loss |"
echo "|---|---|---|"
for sample in false true; do
  "$engine" train "$work/imported" data.phantom_size=[32,32,32] data.patch_size=[16,16,16] data.size_multiple=16 \
    data.num_train=8 data.num_val=2 data.noise_hu=0 training.max_steps="$steps" training.lr=3e-3 \
    training.val_every_steps="$steps" output.log_every_steps=1 ldm.encode_sample="$sample" training.num_threads=1 \
    --runs-dir "$work/runs-$sample" --quiet >/dev/null
  python3 - "$work/runs-$sample" "$sample" <<'PY'
import glob, json, sys
events = [json.loads(l) for l in open(glob.glob(sys.argv[1] + "/*/diffusion/events.jsonl")[0])]
train = [e["value"] for e in events if e.get("name") == "train/diffusion_loss"]
val = [e["value"] for e in events if e.get("name") == "val/diffusion_loss"]
label = "mu + sigma * eps (encode_sample)" if sys.argv[2] == "true" else "mu (default)"
print(f"| {label} | {sum(train[-20:]) / 20:.4f} | {val[-1]:.4f} |")
PY
done
