#!/usr/bin/env python3
"""GPU memory presets per workflow (issue 36 item 5): measure, fit, size.

What it measures: the peak resident memory (/usr/bin/time -f %M) of
`medsynth-engine train` for 2 optimizer steps on the CPU in fp32
(training.device=cpu, training.amp=false, discriminators from step 0, no
TensorBoard, no reconstructions), at three or four batch x voxel sizes per
workflow, and the parameter count of each network from the run's checkpoint.

What it derives, per workflow: peak = intercept + slope x (batch x voxels) by
least squares; the slope is the activation bytes per voxel of one sample in
fp32. A GPU estimate is
    16 bytes x trained parameters (weights, gradients, 2 AdamW moments)
  + 4 bytes x parameters of the EMA copy (training.ema_decay > 0)
  + factor x slope x batch x voxels
  + 1.5 GiB                     (CUDA context and cuDNN workspace)
where the factor scales the CPU slope to the H200 peaks of the same networks
(ANCHORS, calibrate()). Each preset takes the largest patch, then the largest batch dividing the
template's effective batch, whose estimate stays under 85 % of the GPU
(16, 24, 32, 80 GB as 10^9 bytes). Every number is an estimate until a GPU run
reads the caching allocator's peak (docs/gpu-presets.md).

Rerun (from the repository root; stdlib Python only; ~25 min on 2 cores):
  python3 tests/bench/gpu_presets.py --engine build/bin/medsynth-engine --measure --again
  python3 tests/bench/gpu_presets.py --write --markdown  # presets/*.yaml, docs/gpu-presets.md
--measure adds to tests/bench/gpu_presets_cpu.json the runs it lacks (all of
them with --again); the tables are printed from it on every call.
The committed numbers: a 2-core AMD EPYC (family 26, Zen 5, KVM guest,
`lscpu`), 24 GiB RAM, the engine of commit afb1c73, 2026-11-27.
"""

import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROWS = os.path.join(ROOT, "tests", "bench", "gpu_presets_cpu.json")
GIB = 2**30
MARGIN_GIB = 1.5
FILL = 0.85
GPUS_GB = [16, 24, 32, 80]

COMMON = [
    "training.device=cpu", "training.amp=false", "training.max_steps=2",
    "training.val_every_steps=100000", "training.gradient_accumulation_steps=1",
    "output.tensorboard=false", "output.tensorboard_images=false",
    "output.save_reconstructions=0", "data.num_workers=0",
]


def cube(n):
    return [n, n, n]


def fmt(v):
    return "[" + ",".join(str(x) for x in v) + "]"


# Per workflow: the template, the CPU runs (size, batch), the overrides that
# make a run of that size, and what the GPU presets may choose from.
WORKFLOWS = {
    "maisi-autoencoder": {
        "job": "maisi-autoencoder.yaml",
        "runs": [(cube(32), 1), (cube(32), 2), (cube(48), 1)],
        "overrides": lambda s, b: [
            "data.num_train=2", "data.num_val=1", "data.cache_rate=0",
            "data.phantom_spacing=[1.0,1.0,1.0]", "data.target_spacing=[1.0,1.0,1.0]",
            f"data.phantom_size={fmt(s)}", f"data.patch_size={fmt(s)}",
            "model.discriminator.start_step=0", f"training.batch_size={b}"],
        # The seed's 16 GB preset: batch 1 x accumulation 4.
        "effective_batch": 4,
        "patches": [cube(64), cube(96), cube(112), cube(128), cube(144)],
    },
    "vqgan-ctpa-patches": {
        "job": "vqgan-ctpa-patches.yaml",
        "runs": [(cube(32), 1), (cube(32), 2), (cube(48), 1)],
        "overrides": lambda s, b: [
            "data.num_train=2", "data.num_val=1", "data.cache_rate=0",
            "data.phantom_spacing=[1.0,1.0,1.0]",
            f"data.phantom_size={fmt(s)}", f"data.patch_size={fmt(s)}", f"data.patch_stride={fmt(s)}",
            "model.vqgan.discriminator_iter_start=0", "training.val_max_volumes=1",
            f"training.batch_size={b}"],
        "effective_batch": 2,  # the seed: 1 per GPU x 2 accumulation
        "patches": [cube(64), cube(96), cube(112), cube(128)],  # up to the seed's 128
    },
    "resnet-survival": {
        "job": "resnet-survival.yaml",
        "runs": [([64, 64, 16], 2), ([64, 64, 16], 4), ([128, 128, 32], 1)],
        "overrides": lambda s, b: [
            "data.num_train=4", "data.num_val=4", "data.smart_cache=false", "data.cache_rate=0",
            f"data.phantom_size={fmt(s)}", f"data.patch_size={fmt(s)}", f"training.batch_size={b}"],
        "effective_batch": 12,  # the guide: 48 over 4 GPUs
        # The guide's --image_size (every volume is resized to it) where it
        # fits; smaller GPUs resize to less.
        "patches": [[128, 128, 32], [192, 192, 48], [256, 256, 64]],
    },
    "maisi3d-rflow": {
        "job": "maisi3d-rflow.yaml",
        # Sizes are the phantoms; the diffusion stage trains on their whole
        # latents (1/4 per axis), measured as such.
        "runs": [(cube(64), 1), (cube(64), 2), (cube(96), 1), (cube(128), 1)],
        "overrides": lambda s, b: [
            "data.num_train=2", "data.num_val=1", f"data.phantom_size={fmt(s)}",
            "data.patch_size=[16,16,16]", "ldm.autoencoder_steps=1",
            "generate.output_size=[32,32,32]", "generate.decode_tile=8",
            "scheduler.num_inference_steps=1", f"training.batch_size={b}"],
        "effective_batch": 1,  # MAISI: whole latents, one per GPU
        "latent_div": 4,
        # Whole latents of 256 x 256 x 128 volumes (generate.output_size),
        # then larger volumes: 512 x 512 x 128, x 256 and x 512.
        "patches": [[64, 64, 32], [128, 128, 32], [128, 128, 64], [128, 128, 128]],
        # Stage 1 trains the autoencoder at the template's patch, batch 1: the
        # maisi-autoencoder fit (with its discriminator: an upper bound).
        "stage1": ("maisi-autoencoder", cube(64)),
        "trained": ["unet"],  # the diffusion stage; the autoencoder is stage 1's
    },
    "fast-ddpm-brats": {
        "job": "fast-ddpm-brats.yaml",
        "runs": [(cube(32), 1), (cube(32), 2), (cube(48), 1), (cube(48), 2)],
        "overrides": lambda s, b: [
            f"data.patch_size={fmt(s)}", "data.val_fraction=0.34",
            "training.val_max_volumes=1", f"training.batch_size={b}"],
        "effective_batch": 4,  # the seed: 1 per GPU x 4 accumulation
        "patches": [cube(64), cube(96), cube(112), cube(128), cube(144)],
        "brats_case": cube(48),
    },
}


def write_nifti(path, size, values):
    """An uncompressed NIfTI-1 float32 volume, 1 mm, identity sform."""
    hdr = bytearray(348)
    struct.pack_into("<i", hdr, 0, 348)
    struct.pack_into("<8h", hdr, 40, 3, size[0], size[1], size[2], 1, 1, 1, 1)
    struct.pack_into("<hh", hdr, 70, 16, 32)  # float32
    struct.pack_into("<8f", hdr, 76, 1, 1, 1, 1, 1, 1, 1, 1)
    struct.pack_into("<ff", hdr, 108, 352.0, 1.0)  # vox_offset, scl_slope
    struct.pack_into("<hh", hdr, 252, 0, 1)  # qform_code, sform_code
    struct.pack_into("<12f", hdr, 280, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0)
    hdr[344:348] = b"n+1\0"
    with open(path, "wb") as f:
        f.write(hdr + b"\0\0\0\0")
        f.write(struct.pack(f"<{len(values)}f", *values))


def write_brats(root, size, cases=3):
    """BraTS 2023 case folders of a smooth pattern per contrast (as
    tests/support/brats_cases.hpp, without its tissue model)."""
    n = size[0] * size[1] * size[2]
    for c in range(cases):
        case = f"BraTS-GLI-{c:05d}-000"
        os.makedirs(os.path.join(root, case), exist_ok=True)
        for k, suffix in enumerate(["t1n", "t1c", "t2w", "t2f", "seg"]):
            values = [float(((i * (7 + k + c)) % 251) if suffix != "seg" else (i % 3 == 0)) for i in range(n)]
            write_nifti(os.path.join(root, case, f"{case}-{suffix}.nii"), size, values)


def safetensors_counts(path):
    """Parameters per network ('model.<net>.') and of the EMA copy."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    nets, ema = {}, 0
    for key, v in header.items():
        if key == "__metadata__" or v["dtype"] != "F32":
            continue
        count = 1
        for d in v["shape"]:
            count *= d
        parts = key.split(".")
        if parts[0] == "model":
            nets[parts[1]] = nets.get(parts[1], 0) + count
        elif parts[0] == "ema":
            ema += count
    return nets, ema


def measure_one(engine, name, spec, size, batch, tmp):
    runs_dir = os.path.join(tmp, f"{name}-{'x'.join(map(str, size))}-b{batch}")
    cmd = ["/usr/bin/time", "-f", "%M %e", engine, "train", os.path.join("resources", "jobs", spec["job"]),
           "--runs-dir", runs_dir, "--quiet", "--no-progress"]
    if "brats_case" in spec:
        data = os.path.join(tmp, "brats")
        if not os.path.isdir(data):
            write_brats(data, spec["brats_case"])
        cmd += ["--data", data]
    cmd += COMMON + spec["overrides"](size, batch)
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{name} {size} b{batch} failed:\n{p.stderr[-3000:]}")
    kib, seconds = p.stderr.strip().splitlines()[-1].split()
    row = {"workflow": name, "size": size, "batch": batch, "peak_kib": int(kib), "seconds": float(seconds)}
    # The trained networks: every checkpoint of the run (ldm: both stages).
    nets, ema = {}, 0
    for base, _, files in os.walk(runs_dir):
        if "last.safetensors" in files:
            n, e = safetensors_counts(os.path.join(base, "last.safetensors"))
            nets.update(n)
            ema = max(ema, e)
    row["parameters"], row["ema_parameters"] = nets, ema
    if "latent_div" in spec:
        row["voxels"] = voxels([s // spec["latent_div"] for s in size])
    else:
        row["voxels"] = voxels(size)
    print(json.dumps(row), flush=True)
    return row


def voxels(size):
    return size[0] * size[1] * size[2]


def measure(engine, names, path, again):
    """Runs the sizes of `names` that `path` lacks (all of them with `again`)."""
    rows = json.load(open(path)) if os.path.exists(path) else []
    if again:
        rows = [r for r in rows if r["workflow"] not in names]
    done = {(r["workflow"], tuple(r["size"]), r["batch"]) for r in rows}
    with tempfile.TemporaryDirectory(prefix="gpu-presets-") as tmp:
        for name in names:
            spec = WORKFLOWS[name]
            for size, batch in spec["runs"]:
                if (name, tuple(size), batch) in done:
                    continue
                rows.append(measure_one(engine, name, spec, size, batch, tmp))
                with open(path, "w") as f:
                    json.dump(rows, f, indent=1)
                    f.write("\n")



# The only GPU peaks measured so far (tests/gpu/runs/2026-11-26-h200/
# maisi-vs-monai.json): MONAI's training steps of the same networks on an
# H200, bf16 autocast, torch.cuda.max_memory_allocated (no context, no
# discriminator, no EMA).
ANCHORS = [
    {"workload": "ae-train-step", "workflow": "maisi-autoencoder", "network": "autoencoder",
     "batch": 2, "voxels": 64**3, "gib": 8.24449634552002},
    {"workload": "unet-train-step", "workflow": "maisi3d-rflow", "network": "unet",
     "batch": 1, "voxels": 64**3, "gib": 6.942069053649902},
]


def fit(rows):
    """Least squares peak_bytes = a + b x (batch x voxels)."""
    xs = [r["batch"] * r["voxels"] for r in rows]
    ys = [r["peak_kib"] * 1024 for r in rows]
    n, mx, my = len(xs), sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - slope * mx, slope


def model(rows):
    """Per workflow: the fit and the parameter bytes of training on a GPU."""
    out = {}
    for name in WORKFLOWS:
        mine = [r for r in rows if r["workflow"] == name]
        if len(mine) < 2:
            continue
        intercept, slope = fit(mine)
        params = mine[-1]["parameters"]
        if "trained" in WORKFLOWS[name]:
            params = {k: v for k, v in params.items() if k in WORKFLOWS[name]["trained"]}
        ema = mine[-1]["ema_parameters"]
        out[name] = {"intercept": intercept, "slope": slope, "parameters": params, "ema": ema,
                     "state_bytes": 16 * sum(params.values()) + 4 * ema}
    return out


def anchor_table(models):
    """The CPU-based estimate of each H200 anchor (same terms, no margin)."""
    table = []
    for a in ANCHORS:
        m = models.get(a["workflow"])
        if not m:
            continue
        est = 16 * m["parameters"].get(a["network"], 0) + m["slope"] * a["batch"] * a["voxels"]
        table.append(dict(a, estimate_gib=est / GIB, ratio=est / GIB / a["gib"]))
    return table


# The anchor that calibrates each workflow's CPU slope. The diffusion run's
# CPU peak does not grow with its latent (from 16^3 to 32^3 it is set by what
# the other stages and the 168 M parameters with their EMA copy hold), so its
# GPU slope is the UNet anchor's own. Every other CPU slope is resolved and is
# scaled by the autoencoder anchor's factor: the one check of CPU against GPU.
FAMILY = {"maisi3d-rflow": "unet-train-step"}


def calibrate(models):
    """GPU bytes per voxel = CPU slope x (anchor's activations / CPU estimate of them)."""
    factors = {}
    for a in ANCHORS:
        m = models.get(a["workflow"])
        if m:
            acts = a["gib"] * GIB - 16 * m["parameters"].get(a["network"], 0)
            factors[a["workload"]] = acts / (m["slope"] * a["batch"] * a["voxels"])
    for name, m in models.items():
        m["factor"] = factors.get(FAMILY.get(name, "ae-train-step"), 1.0)
    return factors


def estimate(m, batch, vox):
    return (m["state_bytes"] + m["factor"] * m["slope"] * batch * vox) / GIB + MARGIN_GIB


def size_presets(models):
    presets = []
    for name, spec in WORKFLOWS.items():
        if name not in models:
            continue
        m, eff = models[name], spec["effective_batch"]
        batches = [b for b in range(eff, 0, -1) if eff % b == 0]
        for gb in GPUS_GB:
            budget = FILL * gb * 1e9 / GIB
            choice = None
            for patch in reversed(spec["patches"]):
                for b in batches:
                    if estimate(m, b, voxels(patch)) <= budget:
                        choice = (patch, b)
                        break
                if choice:
                    break
            if not choice:  # nothing fits: the smallest, flagged
                choice = (spec["patches"][0], 1)
            patch, b = choice
            peak = estimate(m, b, voxels(patch))
            if "stage1" in spec and spec["stage1"][0] in models:
                peak = max(peak, estimate(models[spec["stage1"][0]], 1, voxels(spec["stage1"][1])))
            presets.append({"workflow": name, "gb": gb, "patch": patch, "batch": b,
                            "accumulation": eff // b, "effective": eff,
                            "peak_gib": peak, "budget_gib": budget, "fits": peak <= budget})
    return presets


def markdown(rows, models, presets):
    """The three tables of docs/gpu-presets.md, by marker."""
    t = {"presets": ["| workflow | GPU | patch | batch | accumulation | effective batch | estimated peak GiB |",
                     "|---|---|---|---|---|---|---|"],
         "rows": ["| workflow | size | batch | voxels | peak RSS GiB | s |", "|---|---|---|---|---|---|"],
         "anchors": ["| workload | H200 GiB | CPU-based estimate GiB | ratio |", "|---|---|---|---|"],
         "fit": ["| workflow | parameters (M) | EMA (M) | intercept GiB | CPU slope B/voxel | factor | GPU slope B/voxel |",
                 "|---|---|---|---|---|---|---|"]}
    for p in presets:
        t["presets"].append(f"| {p['workflow']} | {p['gb']} GB | {'x'.join(map(str, p['patch']))} | {p['batch']} | "
                            f"{p['accumulation']} | {p['effective']} | {p['peak_gib']:.1f}"
                            f"{'' if p['fits'] else ' (over 85 %)'} |")
    for r in rows:
        t["rows"].append(f"| {r['workflow']} | {'x'.join(map(str, r['size']))} | {r['batch']} | {r['voxels']} | "
                         f"{r['peak_kib'] / 2**20:.2f} | {r['seconds']:.0f} |")
    for a in anchor_table(models):
        t["anchors"].append(f"| {a['workload']} {a['batch']}x{round(a['voxels'] ** (1 / 3))}^3 | {a['gib']:.2f} | "
                            f"{a['estimate_gib']:.2f} | {a['ratio']:.2f} |")
    for name, m in models.items():
        nets = " + ".join(f"{k} {v / 1e6:.1f}" for k, v in m["parameters"].items())
        t["fit"].append(f"| {name} | {nets} | {m['ema'] / 1e6:.1f} | {m['intercept'] / GIB:.2f} | {m['slope']:.0f} | "
                        f"{m['factor']:.2f} | {m['factor'] * m['slope']:.0f} |")
    path = os.path.join(ROOT, "docs", "gpu-presets.md")
    text = open(path).read()
    for key, lines in t.items():
        text = re.sub(rf"<!-- {key} -->.*?<!-- /{key} -->", lambda _: f"<!-- {key} -->\n" + "\n".join(lines) +
                      f"\n<!-- /{key} -->", text, flags=re.S)
    with open(path, "w") as f:
        f.write(text)


def print_tables(rows, models, presets):
    print("measured (CPU, fp32, peak RSS):")
    print(f"{'workflow':20} {'size':>14} {'batch':>5} {'voxels':>8} {'peak GiB':>9} {'s':>6}")
    for r in rows:
        print(f"{r['workflow']:20} {'x'.join(map(str, r['size'])):>14} {r['batch']:>5} {r['voxels']:>8} "
              f"{r['peak_kib'] / 2**20:>9.2f} {r['seconds']:>6.0f}")
    print("\nfit: peak = intercept + slope x batch x voxels; GPU state = 16 B x params (+4 B x EMA)")
    for name, m in models.items():
        nets = ", ".join(f"{k} {v / 1e6:.1f} M" for k, v in m["parameters"].items())
        print(f"{name:20} intercept {m['intercept'] / GIB:.2f} GiB, slope {m['slope']:.0f} B/voxel, "
              f"state {m['state_bytes'] / GIB:.2f} GiB ({nets}; EMA {m['ema'] / 1e6:.1f} M)")
    print("\nH200 anchors (MONAI, bf16, max_memory_allocated) vs the CPU-based estimate:")
    for a in anchor_table(models):
        print(f"{a['workload']:16} {a['batch']}x{round(a['voxels'] ** (1 / 3))}^3: measured {a['gib']:.2f} GiB, "
              f"estimate {a['estimate_gib']:.2f} GiB ({a['ratio']:.2f}x)")
    for name, m in models.items():
        print(f"{name:20} calibrated: {m['factor']:.2f} x the CPU slope = {m['factor'] * m['slope']:.0f} B/voxel")
    print(f"\npresets (estimated peak incl. {MARGIN_GIB} GiB margin; budget {FILL:.0%} of the GPU):")
    for p in presets:
        print(f"{p['workflow']:20} {p['gb']:>3} GB {'x'.join(map(str, p['patch'])):>12} batch {p['batch']:>2} "
              f"x accumulation {p['accumulation']:>2} = {p['effective']:>2}  {p['peak_gib']:6.1f} GiB "
              f"of {p['budget_gib']:.1f}{'' if p['fits'] else '  DOES NOT FIT'}")



def set_key(lines, section, key, value):
    """Set `section.key` of a template (two-space indent), replacing the value
    and its comment, or adding the key at the end of the section."""
    start = next((i for i, l in enumerate(lines) if l == f"{section}:"), None)
    if start is None:
        lines += [f"{section}:", f"  {key}: {value}"]
        return
    end = start + 1
    while end < len(lines) and (lines[end].startswith(" ") or not lines[end].strip()):
        if re.match(rf"  {key}:", lines[end]):
            lines[end] = f"  {key}: {value}"
            return
        end += 1
    lines.insert(end, f"  {key}: {value}")


def preset_text(p, spec):
    lines = open(os.path.join(ROOT, "resources", "jobs", spec["job"])).read().splitlines()
    body = lines[next(i for i, l in enumerate(lines) if not l.startswith("#")):]
    patch = "[" + ", ".join(map(str, p["patch"])) + "]"
    name = p["workflow"]
    if "latent_div" in spec:  # the diffusion stage's size is the data's: a limit, not a field
        what = (f"whole latents up to {'x'.join(map(str, p['patch']))} (volumes of 4x that per axis),\n"
                f"# the autoencoder stage at patch {'x'.join(map(str, spec['stage1'][1]))}")
    else:
        set_key(body, "data", "patch_size", patch)
        if name == "vqgan-ctpa-patches":
            set_key(body, "data", "patch_stride", patch)
        what = f"patch {'x'.join(map(str, p['patch']))}"
    set_key(body, "training", "batch_size", f"{p['batch']}                # per GPU")
    set_key(body, "training", "gradient_accumulation_steps", str(p["accumulation"]))
    set_key(body, "training", "amp", "true")
    if p["gb"] == 16:
        set_key(body, "output", "tensorboard_images", "false    # the seed's 16 GB preset: --no-images")
    data = "--data DIR" if name != "resnet-survival" else "--data cohort.csv"
    head = [
        f"# {spec['job'][:-5]} for {p['gb']} GB GPUs: batch {p['batch']} per GPU x accumulation "
        f"{p['accumulation']} (effective {p['effective']} per GPU), AMP,",
        f"# {what}.",
        f"# Peak: {p['peak_gib']:.1f} GiB estimated: no GPU has measured this preset. From CPU runs",
        "# in fp32 (tests/bench/gpu_presets.py, docs/gpu-presets.md): parameters x 16 B",
        "# + activation bytes per voxel x batch x voxels (the CPU's, scaled to the H200",
        f"# anchor of the same network) + {MARGIN_GIB} GiB for the CUDA context.",
    ]
    if not p["fits"]:
        head.append(f"# Over {FILL:.0%} of the GPU ({p['budget_gib']:.1f} GiB) even so: the smallest size listed.")
    head += [
        "# Generated by tests/bench/gpu_presets.py --write; run on your data with",
        f"#   medsynth-engine launch --nproc-per-node N train resources/jobs/presets/{name}-{p['gb']}gb.yaml {data}",
    ]
    return "\n".join(head + body) + "\n"


def write_presets(presets):
    folder = os.path.join(ROOT, "resources", "jobs", "presets")
    os.makedirs(folder, exist_ok=True)
    for p in presets:
        path = os.path.join(folder, f"{p['workflow']}-{p['gb']}gb.yaml")
        with open(path, "w") as f:
            f.write(preset_text(p, WORKFLOWS[p["workflow"]]))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=os.path.join(ROOT, "build", "bin", "medsynth-engine"))
    ap.add_argument("--measure", action="store_true", help="run the CPU measurements")
    ap.add_argument("--only", nargs="*", default=list(WORKFLOWS), help="workflows to measure")
    ap.add_argument("--again", action="store_true", help="measure again what --rows holds")
    ap.add_argument("--rows", default=ROWS, help="the measured rows (JSON)")
    ap.add_argument("--markdown", action="store_true", help="write the tables into docs/gpu-presets.md")
    ap.add_argument("--write", action="store_true", help="write resources/jobs/presets/*.yaml")
    args = ap.parse_args()
    if args.measure:
        measure(os.path.abspath(args.engine), args.only, args.rows, args.again)
    order = list(WORKFLOWS)
    rows = sorted(json.load(open(args.rows)), key=lambda r: (order.index(r["workflow"]), r["batch"] * r["voxels"]))
    models = model(rows)
    factors = calibrate(models)
    presets = size_presets(models)
    print_tables(rows, models, presets)
    if args.markdown:
        markdown(rows, models, presets)
    if args.write:
        write_presets(presets)
