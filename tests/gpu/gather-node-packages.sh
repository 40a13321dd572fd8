#!/usr/bin/env bash
# Run here (a Debian 12 machine with network): downloads what
# tests/gpu/run-on-gpu-node.sh needs on a GPU node that has no network into
# .gpu-node/ (ignored by git; the device tool carries it):
#   .gpu-node/debs/    the Debian 12 packages of tests/gpu/node-packages.txt
#   .gpu-node/wheels/  MONAI 1.6.1 and einops, for the MONAI side of the benchmark
# Idempotent: what is there is kept. Fails when the folder would not fit the
# device tool's 64 MiB limit beside the working tree.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$repo/.gpu-node"
budget_mib="${MEDSYNTH_NODE_BUDGET_MIB:-40}"
mkdir -p "$out/debs" "$out/wheels"

mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$repo/tests/gpu/node-packages.txt")
missing=()
for p in "${packages[@]}"; do
  compgen -G "$out/debs/${p}_*.deb" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  # apt-get download writes into the current folder; _apt cannot write into
  # root's folders, so this warns "unsandboxed" as root: harmless.
  (cd "$out/debs" && apt-get download "${missing[@]}" 2>&1 | grep -v "unsandboxed" || true)
fi
for p in "${packages[@]}"; do
  compgen -G "$out/debs/${p}_*.deb" >/dev/null || { echo "gather-node-packages: $p was not downloaded" >&2; exit 1; }
done

if ! compgen -G "$out/wheels/monai-1.6.1-*.whl" >/dev/null || ! compgen -G "$out/wheels/einops-*.whl" >/dev/null; then
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$out/wheels" monai==1.6.1 einops
fi

total_mib=$(du -smc "$out/debs" "$out/wheels" | tail -1 | cut -f1)
echo "gather-node-packages: ${#packages[@]} packages and $(ls "$out/wheels" | wc -l) wheels in $out (${total_mib} MiB)"
if [ "$total_mib" -gt "$budget_mib" ]; then
  echo "gather-node-packages: $out is ${total_mib} MiB, over the ${budget_mib} MiB left beside the working tree" >&2
  exit 1
fi
