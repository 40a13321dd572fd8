#!/usr/bin/env python3
"""medsynth ÷ MONAI on the MAISI workloads, side by side on one device and one
torch (issue 18; BENCHMARKS.md: ratios taken in one run, the machine named).

For each workload it runs build/bin/medsynth-bench-maisi-step and
tests/bench/monai_maisi_step_bench.py alternately (--rounds pairs, each a
process with its own warm-up and timed runs), takes the median of each side's
medians, and prints one markdown table with the C++ ÷ Python ratio and each
step's throughput as a fraction of the device's matrix-product peak measured
in the same run (bf16 on a GPU, fp32 on a CPU):

  tests/bench/maisi_vs_monai.py --bench build/bin/medsynth-bench-maisi-step \
      --python python3 --out results.json            # full size, on a GPU
  tests/bench/maisi_vs_monai.py ... --small --threads 2  # the plumbing, on a CPU
  tests/bench/maisi_vs_monai.py ... --cpu --threads 2 --rounds 3 --amp bf16 --profile
      # issue 51's CPU rows: the quick start's and the half-width autoencoder
      # step at 64^3, the UNet step at a 16^3 latent, 10 rflow steps at 16^3

Each workload's ratio is the median of the C++ side's per-round medians over
MONAI's, with the spread of the per-round ratios (round i's C++ over round
i's MONAI). --profile adds, per workload, the self time per operator class on
each side (tests/bench/op_profile.hpp), from one more process each.

The Python must import torch (the same torch the C++ was built against) and
monai; tests/gpu/run-on-gpu-node.sh carries MONAI's wheel to a GPU node.
Asserts nothing; never part of CI.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (C++ subcommand arguments, MONAI arguments), full size and --small.
WORKLOADS = {
    "ae-train-step": (["ae-train-step", "--patch", "{patch}", "--batch", "2"],
                      ["ae-train-step", "--patch", "{patch}", "--batch", "2"]),
    "unet-train-step": (["unet-train-step", "--latent", "{unet_latent}", "--batch", "1"],
                        ["unet-train-step", "--latent", "{unet_latent}", "--batch", "1"]),
    "rflow-sample": (["rflow-sample", "--latent", "{sample_latent}", "--steps", "{steps}"],
                     ["rflow-sample", "--latent", "{sample_latent}", "--steps", "{steps}"]),
    "ae-quickstart-step": (["ae-train-step", "--model", "quickstart", "--patch", "{patch}", "--batch", "1"],
                           ["ae-train-step", "--model", "quickstart", "--patch", "{patch}", "--batch", "1"]),
    "ae-half-step": (["ae-train-step", "--model", "half", "--patch", "{patch}", "--batch", "1"],
                     ["ae-train-step", "--model", "half", "--patch", "{patch}", "--batch", "1"]),
}
FULL = {"patch": 64, "unet_latent": 64, "sample_latent": 128, "steps": 30}
SMALL = {"patch": 16, "unet_latent": 16, "sample_latent": 16, "steps": 2}
CPU = {"patch": 64, "unet_latent": 16, "sample_latent": 16, "steps": 10}
CPU_WORKLOADS = ["ae-quickstart-step", "ae-half-step", "unet-train-step", "rflow-sample"]
GPU_WORKLOADS = ["ae-train-step", "unet-train-step", "rflow-sample"]


def run_json(command):
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"maisi_vs_monai: {command[0]} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if not rows:
        sys.exit(f"maisi_vs_monai: {command[0]} printed no result:\n{done.stdout[-2000:]}")
    return rows[-1]


def machine(python):
    probe = ("import json, platform, torch, monai\n"
             "cuda = torch.cuda.is_available()\n"
             "print(json.dumps({'torch': torch.__version__, 'monai': monai.__version__, 'cuda': torch.version.cuda,"
             " 'cudnn': torch.backends.cudnn.version() if cuda else None,"
             " 'gpu': torch.cuda.get_device_name(0) if cuda else None,"
             " 'gpu_memory_gib': round(torch.cuda.get_device_properties(0).total_memory / 2**30, 1) if cuda else None,"
             " 'cpu': platform.processor()}))")
    info = json.loads(subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout)
    try:
        model = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")]
        info["cpu"] = f"{model[0]} ({len(model)} logical CPUs)"
    except OSError:
        pass
    return info


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=os.path.join(HERE, "../../build/bin/medsynth-bench-maisi-step"))
    parser.add_argument("--python", default=sys.executable, help="a Python with torch and monai")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=2, help="C++/MONAI process pairs per workload")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--small", action="store_true", help="tiny sizes: checks the plumbing on a CPU")
    parser.add_argument("--cpu", action="store_true", help="issue 51's CPU sizes and workloads")
    parser.add_argument("--amp", default="auto", choices=["auto", "bf16", "off"], help="both sides")
    parser.add_argument("--optimizer", default="fused", choices=["fused", "loop"], help="the C++ side's AdamW")
    parser.add_argument("--upsample-conv", default="phases", choices=["phases", "direct"], help="the C++ side's")
    parser.add_argument("--profile", action="store_true", help="also the self time per operator class")
    parser.add_argument("--only", nargs="*", choices=list(WORKLOADS), help="a subset of the workloads")
    parser.add_argument("--out", help="write every row and the table's numbers as JSON")
    args = parser.parse_args()
    sizes = SMALL if args.small else CPU if args.cpu else FULL
    common = ["--device", args.device, "--runs", str(args.runs), "--warmup", str(args.warmup), "--amp", args.amp]
    if args.threads:
        common += ["--threads", str(args.threads)]

    info = machine(args.python)
    peak = run_json([args.bench, *common, "peak"])
    rows, table = [peak], []
    profiles = []
    monai_script = os.path.join(HERE, "monai_maisi_step_bench.py")
    for name in args.only or (CPU_WORKLOADS if args.cpu else GPU_WORKLOADS):
        cpp_args, py_args = ([a.format(**sizes) for a in part] for part in WORKLOADS[name])
        cpp_args = ["--optimizer", args.optimizer, "--upsample-conv", args.upsample_conv, *cpp_args]
        cpp, py = [], []
        for _ in range(args.rounds):
            cpp.append(run_json([args.bench, *common, *cpp_args]))
            py.append(run_json([args.python, monai_script, *py_args, *common]))
        flops = run_json([args.python, monai_script, *py_args, *common,
                          "--runs", "1", "--warmup", "0", "--flops"]).get("flops", 0)
        if args.profile:
            profiles.append((name, run_json([args.bench, *common, "--profile", *cpp_args]),
                             run_json([args.python, monai_script, *py_args, *common, "--profile"])))
        rows += cpp + py
        c = statistics.median(r["median_s"] for r in cpp)
        p = statistics.median(r["median_s"] for r in py)
        table.append({"workload": name, "shape": cpp[0]["shape"], "amp": cpp[0]["amp"],
                      "medsynth_s": c, "medsynth_spread": [min(r["min_s"] for r in cpp), max(r["max_s"] for r in cpp)],
                      "monai_s": p, "monai_spread": [min(r["min_s"] for r in py), max(r["max_s"] for r in py)],
                      "ratio": c / p, "round_ratios": [a["median_s"] / b["median_s"] for a, b in zip(cpp, py)],
                      "flops": flops,
                      "medsynth_peak_fraction": flops / c / 1e12 / peak["tflops"] if flops else None,
                      "monai_peak_fraction": flops / p / 1e12 / peak["tflops"] if flops else None,
                      "monai_peak_memory_gib": py[0].get("peak_memory_gib")})

    where = info["gpu"] or info["cpu"]
    print(f"\nDevice: {where}; CPU: {info['cpu']}; torch {info['torch']} (CUDA {info['cuda']}, cuDNN {info['cudnn']}); "
          f"MONAI {info['monai']}; {peak['device']}, threads {peak['threads']}; "
          f"peak {peak['shape']}: {peak['tflops']:.1f} TFLOP/s; {args.rounds} rounds x {args.runs} runs\n")
    print("| workload | shape | amp | medsynth s (min–max) | MONAI s (min–max) | medsynth ÷ MONAI (rounds) | GFLOP/step |"
          " medsynth % of peak | MONAI % of peak |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in table:
        pct = lambda f: f"{100 * f:.1f} %" if f is not None else "–"
        print(f"| {t['workload']} | {t['shape']} | {t['amp']} | {t['medsynth_s']:.4f} ({t['medsynth_spread'][0]:.4f}–"
              f"{t['medsynth_spread'][1]:.4f}) | {t['monai_s']:.4f} ({t['monai_spread'][0]:.4f}–{t['monai_spread'][1]:.4f})"
              f" | **{t['ratio']:.2f}** ({min(t['round_ratios']):.2f}–{max(t['round_ratios']):.2f})"
              f" | {t['flops'] / 1e9:.0f} | {pct(t['medsynth_peak_fraction'])} |"
              f" {pct(t['monai_peak_fraction'])} |")
    for name, cpp, py in profiles:
        print_profile(name, cpp, py)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"machine": info, "peak": peak, "table": table, "rows": rows,
                       "profiles": [{"workload": n, "medsynth": c, "monai": p} for n, c, p in profiles]}, f, indent=1)


def print_profile(name, cpp, py):
    """Self ms per step by operator class, the two sides side by side."""
    print(f"\n{name}: self time per step by operator class (ms; under the profiler's hooks, wall "
          f"{1e3 * cpp['profile_wall_s']:.0f} ms medsynth, {1e3 * py['profile_wall_s']:.0f} ms MONAI)\n")
    print("| class | medsynth ms | MONAI ms | medsynth − MONAI ms |")
    print("|---|---|---|---|")
    classes = sorted(set(cpp["profile"]) | set(py["profile"]), key=lambda k: -py["profile"].get(k, 0))
    for k in classes:
        a, b = 1e3 * cpp["profile"].get(k, 0), 1e3 * py["profile"].get(k, 0)
        print(f"| {k} | {a:.1f} | {b:.1f} | {a - b:+.1f} |")
    a, b = 1e3 * sum(cpp["profile"].values()), 1e3 * sum(py["profile"].values())
    print(f"| unattributed (wall − operators) | {1e3 * cpp['profile_wall_s'] - a:.1f} | {1e3 * py['profile_wall_s'] - b:.1f} | |")


if __name__ == "__main__":
    main()
