#!/usr/bin/env bash
# `medsynth run --cluster` end to end on two private sshd nodes (label ssh):
# trains the quickstart job (shortened by overrides) as 2 nodes x 1 process,
# cuts the console's SSH connections mid-run by killing the sshd processes
# serving them, and checks that the run ends with world size 2 in
# events.jsonl and that the metrics the console printed are exactly the
# metric events of events.jsonl (nothing lost, nothing repeated). One
# intra-op thread per engine: the two "nodes" share this machine's cores.
# Usage: cluster_run_test.sh MEDSYNTH ENGINE SOURCE_DIR
set -euo pipefail
medsynth="$1"; engine="$2"; src="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/with_sshd_pair.sh" "$engine" bash -c '
set -euo pipefail
medsynth="$1"; src="$2"; pair="$MEDSYNTH_TEST_SSH_DIR"
out="$pair/console.out"
"$medsynth" run --cluster "$pair/cluster.yaml" "$src/resources/jobs/quickstart.yaml" \
  training.max_steps=60 training.val_every_steps=60 output.log_every_steps=2 data.num_train=8 data.num_val=2 \
  training.num_threads=1 \
  > "$out" 2> "$pair/console.err" &
console=$!
# Once metrics stream, cut every live SSH connection of both nodes.
for _ in $(seq 600); do
  [ "$(grep -c "train/loss" "$out" || true)" -ge 5 ] && break
  kill -0 $console 2>/dev/null || break
  sleep 0.1
done
for n in node-a node-b; do pkill -KILL -P "$(cat "$pair/$n/sshd.pid")" || true; done
echo "cut the console links after $(grep -c "train/loss" "$out" || true) train/loss lines"
rc=0; wait $console || rc=$?
[ $rc = 0 ] || { echo "medsynth run exited $rc"; tail -20 "$out"; tail -20 "$pair/console.err"; exit 1; }
grep -q "reconnected; events continue at byte" "$pair/console.err" || { echo "no reconnect was reported"; tail "$pair/console.err"; exit 1; }
run="$(ls -d "$pair"/work/runs/quickstart-*)"
python3 "$3" "$run/events.jsonl" "$out"
' _ "$medsynth" "$src" "$here/console_matches_events.py"
