#!/usr/bin/env bash
# `srun -n 2 medsynth-engine train JOB` on a real single-node SLURM started by
# this test: the workers read SLURM_PROCID/SLURM_NTASKS/SLURM_NODELIST, rank 0
# hosts the store on the first node of the list, and the run reports world
# size 2 with both ranks' logs. Usage: srun_train_test.sh ENGINE
set -euo pipefail
engine="$1"
# slurmd must run as root (it launches tasks as their users); skipped otherwise.
[ "$(id -u)" = 0 ] || { echo "SKIP: the private SLURM needs root"; exit 77; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d /tmp/medsynth-slurm-XXXXXX)"
trap '"$here/slurm_cluster.sh" stop "$work/cluster"; rm -rf "$work"' EXIT
export SLURM_CONF="$("$here/slurm_cluster.sh" start "$work/cluster")"

cat > "$work/job.yaml" <<'JOB'
name: srun
task: autoencoder
data: {num_train: 4, num_val: 2, phantom_size: [24, 24, 24], phantom_spacing: [10.0, 10.0, 10.0], patch_size: [16, 16, 16], num_workers: 0}
model: {autoencoder: {num_channels: [4, 8, 8], num_res_blocks: [1, 1, 1], norm_num_groups: 4}}
training: {batch_size: 2, max_steps: 4, val_every_steps: 2, num_threads: 1}
distributed: {timeout_s: 60, join_timeout_s: 60}
output: {log_every_steps: 1, tensorboard: false}
JOB
# A port of our own instead of the job-id-derived default: parallel tests.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
MASTER_PORT=$port srun -n 2 -O --export=ALL "$engine" train "$work/job.yaml" --runs-dir "$work/runs" --no-progress \
  > "$work/out.txt" 2> "$work/err.txt" || { echo "srun failed:"; cat "$work/err.txt"; exit 1; }
run="$(ls -d "$work"/runs/*)"
[ "$(echo "$run" | wc -l)" = 1 ] || { echo "expected one shared run directory, got: $run"; exit 1; }
grep -q '"type":"run_started".*"world_size":2' "$run/events.jsonl" || { echo "run_started does not say world_size 2"; head -2 "$run/events.jsonl"; exit 1; }
grep -q '"type":"run_finished".*"status":"completed"' "$run/events.jsonl" || { echo "the run did not complete"; tail -3 "$run/events.jsonl"; exit 1; }
for r in 0 1; do
  grep -q "as rank $r of 2 (gloo on " "$run/logs/rank$r.log" || { echo "rank $r log missing its start line"; cat "$run/logs/rank$r.log"; exit 1; }
done
echo "srun -n 2: world size 2, both ranks logged, run completed ($run)"
