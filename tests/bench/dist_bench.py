#!/usr/bin/env python3
"""Distributed benchmark of docs/performance.md (protocol: BENCHMARKS.md).

Measured side by side in one run on this machine (real engine processes):
  1. throughput of 1 rank x 2 threads vs 2 ranks x 1 thread (Gloo, 127.0.0.1);
  2. exposed gradient all-reduce wait per step with and without overlap;
  3. a bucket-size sweep.
Then the paper model of BENCHMARKS.md for the real MAISI autoencoder
(parameter count and FLOPs from `medsynth-bench --model-sizes`), labelled
"modelled": 8 x H100 NVLink and 4 nodes x 8 GPUs over 400G InfiniBand.

Usage: tests/bench/dist_bench.py [--build build] [--steps 40] [--quick]
Prints tables; asserts nothing.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-3000:]}")
    return r


def events_of(run_dir):
    with open(os.path.join(run_dir, "events.jsonl")) as f:
        for line in f:
            try:
                yield json.loads(line)
            except ValueError:
                pass


def one_run(engine, job, overrides, nproc, threads, steps):
    """Samples/s per logged window (first 2 windows are the warm-up) and the
    gradient-sync statistics of rank 0's log."""
    runs = tempfile.mkdtemp(prefix="medsynth-dist-bench-")
    common = [job, f"training.max_steps={steps}", "training.val_every_steps=100000", "output.log_every_steps=5",
              "output.tensorboard=false", "output.save_reconstructions=0", f"training.num_threads={threads}",
              "--runs-dir", runs, "--no-progress"] + overrides
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if nproc == 1:
        run([engine, "train"] + common, env)
    else:
        run([engine, "launch", "--nproc-per-node", str(nproc), "train"] + common, env)
    run_dir = os.path.join(runs, os.listdir(runs)[0])
    rates = [e["samples_per_s"] for e in events_of(run_dir) if e.get("type") == "progress" and "samples_per_s" in e]
    rates = rates[2:] if len(rates) > 4 else rates
    sync = {}
    with open(os.path.join(run_dir, "logs", "rank0.log")) as f:
        m = re.search(r"gradient sync: (\d+) syncs, (\d+) bucket all-reduces \((\d+) launched during backward\), ([\d.]+) MB, exposed wait ([\d.]+) s",
                      f.read())
        if m:
            sync = {"syncs": int(m[1]), "buckets": int(m[2]) / max(int(m[1]), 1), "in_backward": int(m[3]) / max(int(m[2]), 1),
                    "mb_per_sync": float(m[4]) / max(int(m[1]), 1), "exposed_ms": 1000 * float(m[5]) / max(int(m[1]), 1)}
    return rates, sync


def spread(values):
    if not values:
        return "n/a"
    return f"{statistics.median(values):8.2f}  [{min(values):.2f} .. {max(values):.2f}]"


def ring_allreduce_s(grad_bytes, ranks, bus_bytes_per_s, alpha_s, buckets):
    return 2 * (ranks - 1) * alpha_s * buckets + 2 * (ranks - 1) / ranks * grad_bytes / bus_bytes_per_s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    engine = os.path.join(a.build, "bin", "medsynth-engine")
    bench = os.path.join(a.build, "bin", "medsynth-bench")
    job = os.path.join(REPO, "resources", "jobs", "quickstart.yaml")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    info = json.loads(run([engine, "info", "--json"]).stdout)
    print(f"machine: {cpu} | {os.cpu_count()} cores | LibTorch {info['libtorch']} | NCCL {info['nccl']} | Gloo over 127.0.0.1")
    print(f"job: resources/jobs/quickstart.yaml (bf16 autocast, batch 2 x 32^3 per rank), {a.steps} steps per run; "
          "samples/s per 5-step window, first 2 windows dropped; median [min .. max]\n")

    print("1. one process with 2 threads vs two processes with 1 thread (same per-rank batch, so 2 ranks do twice the samples per step)")
    r1, _ = one_run(engine, job, [], 1, 2, a.steps)
    r2, s2 = one_run(engine, job, [], 2, 1, a.steps)
    print(f"   {'1 rank x 2 threads':28s} samples/s {spread(r1)}")
    print(f"   {'2 ranks x 1 thread':28s} samples/s {spread(r2)}")
    if r1 and r2:
        print(f"   ratio (2 ranks / 1 rank): {statistics.median(r2) / statistics.median(r1):.2f}x")

    print("\n2. exposed all-reduce wait per step, 2 ranks x 1 thread (the wait after backward that overlap could not hide)")
    _, off = one_run(engine, job, ["distributed.overlap=false"], 2, 1, a.steps)
    for name, s in (("overlap on (default)", s2), ("overlap off", off)):
        if s:
            print(f"   {name:22s} exposed {s['exposed_ms']:7.2f} ms/step   buckets/step {s['buckets']:.1f}   "
                  f"launched during backward {100 * s['in_backward']:5.1f} %   {s['mb_per_sync']:.2f} MB/step")
    if not a.quick:
        print("\n3. bucket size sweep, 2 ranks x 1 thread, a wider model (num_channels [32,64,64], 2 res blocks)")
        wide = ["model.autoencoder.num_channels=[32,64,64]", "model.autoencoder.num_res_blocks=[2,2,2]", "model.autoencoder.norm_num_groups=16"]
        for mb in (0.25, 1, 4, 25):
            rates, s = one_run(engine, job, wide + [f"distributed.bucket_cap_mb={mb}"], 2, 1, a.steps)
            if s:
                print(f"   bucket_cap_mb {mb:6.2f}: samples/s {spread(rates)}   exposed {s['exposed_ms']:7.2f} ms/step   buckets/step {s['buckets']:.0f}")

    print("\n4. MODELLED (not measured): ring all-reduce of the MAISI autoencoder's fp32 gradients, T = 2(n-1)*alpha*buckets + 2(n-1)/n * S/B")
    sizes = [json.loads(l) for l in run([bench, "--model-sizes"]).stdout.splitlines() if l.startswith("{")]
    maisi = next(m for m in sizes if m["model"] == "maisi_autoencoder")
    grad_bytes = 4 * maisi["parameters"]
    buckets = max(1, round(grad_bytes / (25 * 2**20)))
    # Step time on paper: forward + backward = 3x the forward conv FLOPs of one 64^3 patch
    # at 40 % of H100 dense bf16 (989 TFLOP/s); backward (2/3 of it) is what overlap can hide.
    step_s = 3 * maisi["forward_gflops"] * 1e9 / (0.40 * 989e12)
    backward_s = step_s * 2 / 3
    print(f"   MAISI autoencoder: {maisi['parameters'] / 1e6:.1f} M parameters -> {grad_bytes / 2**20:.0f} MB of fp32 gradients, "
          f"{buckets} bucket(s) of 25 MB; forward {maisi['forward_gflops']:.0f} GFLOP per 64^3 patch -> step ~{1000 * step_s:.1f} ms "
          "at 40 % of H100 bf16 peak (modelled)")
    for name, ranks, bus, alpha in (("8 x H100, NVLink (450 GB/s bus)", 8, 450e9, 5e-6),
                                    ("4 nodes x 8 GPUs, 400G InfiniBand (46 GB/s/NIC, alpha 46 us)", 32, 46e9, 46e-6)):
        t = ring_allreduce_s(grad_bytes, ranks, bus, alpha, buckets)
        exposed = max(0.0, t - backward_s)
        print(f"   {name:60s} all-reduce {1000 * t:7.2f} ms   exposed with overlap {1000 * exposed:6.2f} ms "
              f"({100 * exposed / step_s:4.1f} % of the step)   [modelled]")


if __name__ == "__main__":
    main()
