#!/usr/bin/env bash
# README command (1): installs what is missing, builds the engine, and trains
# the MAISI-style 3D KL autoencoder headless on simulated CT phantoms (CPU),
# from resources/jobs/quickstart.yaml. Prints the run directory at the end.
# Extra arguments go to `medsynth-engine train` (e.g. training.max_steps=50).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$repo/installer/install.sh" --for engine >/dev/null
MEDSYNTH_CONSOLE=auto "$repo/installer/build.sh" medsynth-engine
cd "$repo"
exec "${MEDSYNTH_BUILD_DIR:-$repo/build}/bin/medsynth-engine" train resources/jobs/quickstart.yaml "$@"
