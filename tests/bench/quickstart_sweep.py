#!/usr/bin/env python3
"""Quick-start quality sweep: seed x precision x threads -> val/psnr, val/ssim, minutes.

Columns: minutes = wall time from run_started to run_finished (training and
validations); cpu min = the run's own CPU time (user + system), which other
work on the machine does not inflate; load = the 1-minute load average when
the run ended (above the run's own threads = the minutes were contended).

Runs resources/jobs/quickstart.yaml (or --job) once per cell of the matrix with
the real engine and prints one table, then the minimum and median of each
precision. The quick-start test's floor and the README's range come from this
table (docs/performance.md), not from one run.

  tests/bench/quickstart_sweep.py --engine build/bin/medsynth-engine
  tests/bench/quickstart_sweep.py --seeds 42,43 --precisions bf16 --threads 2 --jobs 1

Precision: `bf16` = training.amp=true with the engine's own choice (bf16 only
where the CPU has native bf16; a row whose run fell back to fp32 says so),
`fp32` = MEDSYNTH_CPU_BF16=0 (the path of every CPU without native bf16),
`fp32-avx2` = fp32 with ATen's and oneDNN's kernels capped at AVX2 (the path
of an AVX2-only CPU such as older EPYCs, reproduced on an AVX-512 machine).
With --jobs 2, one-thread runs go two at a time side by side (two busy cores);
two-thread runs always run alone, so their minutes are those of 2 idle cores.
Standard library only: a benchmark, never a CI dependency (label bench).
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]


def machine_line():
    model, flags = platform.processor() or "?", set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and model in ("?", "", platform.machine()):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    shown = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile") if f in flags]
    return f"{model} | {os.cpu_count()} cores | flags: {' '.join(shown) or 'none of avx2/avx512/amx'}"


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")


def read_run(run_dir):
    """Final val metrics, the precision the engine chose, and training minutes."""
    psnr = ssim = amp = None
    started = finished = None
    for line in (run_dir / "events.jsonl").read_text().splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        kind = e.get("type")
        if kind == "run_started":
            started = parse_time(e["time"])
            amp = e.get("extra", {}).get("amp")
        elif kind == "run_finished":
            finished = parse_time(e["time"])
        elif kind == "metric" and e.get("name") == "val/psnr":
            psnr = e.get("value")
        elif kind == "metric" and e.get("name") == "val/ssim":
            ssim = e.get("value")
    minutes = (finished - started).total_seconds() / 60 if started and finished else None
    return psnr, ssim, amp, minutes


def run_cell(args, seed, precision, threads, work):
    env = dict(os.environ)
    env.pop("MEDSYNTH_CPU_BF16", None)
    if precision.startswith("fp32"):
        env["MEDSYNTH_CPU_BF16"] = "0"
    if precision == "fp32-avx2":
        # The kernels an AVX2-only CPU runs, on this one: ATen's and oneDNN's
        # dispatch capped at AVX2 (their own switches; no other change).
        env["ATEN_CPU_CAPABILITY"] = "avx2"
        env["ONEDNN_MAX_CPU_ISA"] = "AVX2"
    runs = work / f"s{seed}-{precision}-t{threads}"
    cmd = [args.engine, "train", args.job, f"training.base_seed={seed}", f"training.num_threads={threads}",
           "training.amp=true", "--runs-dir", str(runs), "--no-progress", *args.overrides]
    runs.mkdir(parents=True, exist_ok=True)
    wall = time.monotonic()
    with open(runs / "stderr.txt", "w+") as err:
        proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err)
        # wait4: this child's own CPU time, which other work on the machine
        # does not inflate (the wall minutes it does).
        _, status, usage = os.wait4(proc.pid, 0)
        err.seek(0)
        stderr = err.read()
    wall = (time.monotonic() - wall) / 60
    code = os.waitstatus_to_exitcode(status)
    row = {"seed": seed, "precision": precision, "threads": threads, "exit": code, "wall_min": wall,
           "cpu_min": (usage.ru_utime + usage.ru_stime) / 60, "load": os.getloadavg()[0]}
    run_dirs = sorted(runs.glob("*/events.jsonl"))
    if code != 0 or not run_dirs:
        row["error"] = stderr.strip().splitlines()[-1:] if stderr else ["no run directory"]
        return row
    psnr, ssim, amp, minutes = read_run(run_dirs[-1].parent)
    row.update(psnr=psnr, ssim=ssim, ran=("bf16" if amp else "fp32"), minutes=minutes)
    return row


def fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) else "-".rjust(int(spec.split(".")[0]))


def print_row(row):
    note = "" if row.get("ran", row["precision"]) == row["precision"] else f"  (ran {row['ran']}: no native bf16)"
    if "error" in row:
        note = f"  FAILED exit {row['exit']}: {' '.join(row['error'])}"
    print(f"{row['seed']:>6} {row['precision']:>9} {row['threads']:>7} {fmt(row.get('psnr'), '9.2f')} "
          f"{fmt(row.get('ssim'), '7.3f')} {fmt(row.get('minutes'), '8.2f')} {fmt(row.get('cpu_min'), '8.2f')} "
          f"{fmt(row.get('load'), '5.1f')}{note}", flush=True)


def summarise(rows):
    print("\nper precision (runs that finished):  min / median / max")
    for precision in sorted({r["precision"] for r in rows}):
        done = [r for r in rows if r["precision"] == precision and r.get("psnr") is not None]
        if not done:
            continue
        p = [r["psnr"] for r in done]
        s = [r["ssim"] for r in done]
        m = [r["minutes"] for r in done]
        print(f"  {precision:>5} n={len(done):>2}  psnr {min(p):.2f} / {statistics.median(p):.2f} / {max(p):.2f}"
              f"   ssim {min(s):.3f} / {statistics.median(s):.3f} / {max(s):.3f}"
              f"   minutes {min(m):.2f} / {statistics.median(m):.2f} / {max(m):.2f}")
    done = [r for r in rows if r.get("psnr") is not None]
    if done:
        print(f"  all   n={len(done):>2}  psnr min {min(r['psnr'] for r in done):.2f} median "
              f"{statistics.median(r['psnr'] for r in done):.2f}   ssim min {min(r['ssim'] for r in done):.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default=str(REPO / "build/bin/medsynth-engine"))
    ap.add_argument("--job", default=str(REPO / "resources/jobs/quickstart.yaml"))
    ap.add_argument("--seeds", default="42,43,44,45,46", help="comma-separated training.base_seed values")
    ap.add_argument("--precisions", default="bf16,fp32")
    ap.add_argument("--threads", default="1,2", help="comma-separated training.num_threads values")
    ap.add_argument("--jobs", type=int, default=1, help="one-thread runs at once (2 = side by side)")
    ap.add_argument("--keep", help="keep the run directories under this folder")
    ap.add_argument("--json", help="also append one JSON line per run to this file")
    ap.add_argument("--version", action="version", version="quickstart_sweep (medsynth bench)")
    ap.add_argument("overrides", nargs="*", help="job overrides passed to every run, e.g. training.max_steps=100")
    ap.add_argument("--table-from", help="print the table of an earlier --json file instead of running")
    args = ap.parse_args()

    if args.table_from:
        rows = [json.loads(line) for line in open(args.table_from) if line.strip()]
        rows.sort(key=lambda r: (-r["threads"], r["precision"], r["seed"]))
        print(f"{'seed':>6} {'precision':>9} {'threads':>7} {'val/psnr':>9} {'val/ssim':>7} {'minutes':>8} {'cpu min':>8} {'load':>5}")
        for row in rows:
            print_row(row)
        summarise(rows)
        return 0

    seeds = [int(s) for s in args.seeds.split(",")]
    precisions = args.precisions.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    work = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp(prefix="quickstart-sweep-"))
    work.mkdir(parents=True, exist_ok=True)

    print(f"machine: {machine_line()}")
    print(f"job: {args.job} {' '.join(args.overrides)}   load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{'seed':>6} {'precision':>9} {'threads':>7} {'val/psnr':>9} {'val/ssim':>7} {'minutes':>8} {'cpu min':>8} {'load':>5}", flush=True)
    cells = [(s, p, t) for t in sorted(threads, reverse=True) for p in precisions for s in seeds]
    rows, lock = [], threading.Lock()

    def record(row):
        with lock:
            rows.append(row)
            print_row(row)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps(row) + "\n")

    single = [c for c in cells if c[2] == 1]
    for cell in [c for c in cells if c[2] != 1]:
        record(run_cell(args, *cell, work))
    pending = list(single)

    def worker():
        while True:
            with lock:
                if not pending:
                    return
                cell = pending.pop(0)
            record(run_cell(args, *cell, work))

    pool = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    summarise(rows)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all("error" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
