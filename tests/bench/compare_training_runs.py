#!/usr/bin/env python3
"""Bit-identity of two medsynth-engine builds on short deterministic jobs.

A refactoring of the training loop must not move one bit: this runs the same
short jobs (autoencoder, autoencoder with injected NaNs and rollbacks, the
autoencoder on two ranks through the launcher, the ldm pipeline, vqgan,
survival; one thread per rank) with a "before" and an "after"
binary and compares every tensor of every checkpoint file by name and bytes,
every metric event (step, name, value; throughput is wall-clock and left out)
and the validation tables written to output/. Not part of CI: it needs two
builds. Used for issue 23 (the training core), e.g.

  tests/bench/compare_training_runs.py --before /work/main/build/bin/medsynth-engine \
      --after build/bin/medsynth-engine --work /tmp/bitcmp

The "translation" case writes four BraTS 2023 case folders, trains the
Fast-DDPM translation on them and translates every case with generate (the
sampling loop with the known contrasts concatenated). The "maisi-generate" case imports the miniature NV-Generate folder of
tests/engine/diffusion/data (import-maisi), then generates with it on two
ranks, plain and steered by a label map (the ControlNet): every voxel of every
written NIfTI is compared (the provenance extension names times and paths and
is left out).

`--reuse-before` keeps the before runs of an earlier call (same --work).
`--added-line 'max_volumes: 0'` names a line of the resolved job that only the
after build writes: a new job field at its default, which changes nothing
else. It is dropped from the after job (once per file) before the jobs are
compared; tensors and metrics are compared as always.
Exit 0 when everything is identical, 1 otherwise.
"""
import argparse
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMON = ["training.num_threads=1", "output.log_every_steps=1", "data.num_workers=0"]

# name -> (job file, overrides, extra arguments)
CASES = {
    "autoencoder": ("resources/jobs/quickstart.yaml",
                    ["training.max_steps=20", "training.val_every_steps=10", "training.warmup_steps=5",
                     "checkpoint.every_steps=5", "data.num_train=8", "data.num_val=2", "output.save_reconstructions=1"], []),
    "autoencoder-accum-nan": ("resources/jobs/quickstart.yaml",
                              ["training.max_steps=16", "training.val_every_steps=8", "training.warmup_steps=4",
                               "training.gradient_accumulation_steps=2", "training.nan_max_bad_steps=1",
                               "checkpoint.every_steps=4", "data.num_train=8", "data.num_val=2"],
                              ["--inject-nan-at", "3,9"]),
    # Two ranks through our launcher (Gloo): the step agreement, gradient
    # buckets and the validation reduce; `--launch N` below.
    "autoencoder-2ranks": ("resources/jobs/quickstart.yaml",
                           ["training.max_steps=12", "training.val_every_steps=6", "training.warmup_steps=3",
                            "data.num_train=8", "data.num_val=2", "distributed.check_parameters_every=4"],
                           ["--launch", "2"]),
    "ldm": ("resources/jobs/ldm-tiny.yaml",
            ["ldm.autoencoder_steps=8", "training.max_steps=8", "training.val_every_steps=4", "training.warmup_steps=2",
             "scheduler.num_inference_steps=3", "generate.evaluate=false", "data.num_train=4", "data.num_val=1"], []),
    "vqgan": ("resources/jobs/vqgan-tiny.yaml",
              ["training.max_steps=16", "training.val_every_steps=8",
               "data.num_train=2", "data.num_val=1"], []),
    # The discriminator's phase: not bit-reproducible even between two runs of
    # one build (main at dae5a59 too: losses part at the 4th digit 3 steps after
    # the discriminator joins), so it is left out of the default cases.
    "vqgan-gan": ("resources/jobs/vqgan-tiny.yaml",
                  ["training.max_steps=16", "training.val_every_steps=8", "model.vqgan.discriminator_iter_start=8",
                   "data.num_train=2", "data.num_val=1"], []),
    "survival": ("resources/jobs/survival-tiny.yaml",
                 ["training.max_steps=8", "training.val_every_steps=4", "training.batch_size=4",
                  "data.num_train=16", "data.num_val=8"], []),
}


MAISI_DATA = os.path.join(SOURCE, "tests", "engine", "diffusion", "data")
MAISI_CASE = "maisi-generate"
TRANSLATION_CASE = "translation"
SPECIAL_CASES = [MAISI_CASE, TRANSLATION_CASE]
# Fast-DDPM's translation at toy size (as tests/engine/diffusion/translation_test.cpp trains it).
TRANSLATION_OVERRIDES = ["model.diffusion_unet.channels=[8,16]", "model.diffusion_unet.num_res_blocks=[1,1]",
                         "model.diffusion_unet.attention_levels=[false,false]",
                         "model.diffusion_unet.num_head_channels=[0,0]", "model.diffusion_unet.norm_num_groups=4",
                         "data.patch_size=[16,16,16]", "data.val_fraction=0.25", "training.max_steps=12",
                         "training.gradient_accumulation_steps=1", "training.val_every_steps=6",
                         "training.val_max_volumes=1", "training.device=cpu"]


def write_nifti(path, xyz, spacing):
    """A float32 NIfTI-1 file (.nii) of the [x][y][z] nested list `xyz`, x fastest on disk."""
    nx, ny, nz = len(xyz), len(xyz[0]), len(xyz[0][0])
    h = bytearray(352)
    struct.pack_into("<i", h, 0, 348)
    struct.pack_into("<8h", h, 40, 3, nx, ny, nz, 1, 1, 1, 1)
    struct.pack_into("<hh", h, 70, 16, 32)  # float32
    struct.pack_into("<8f", h, 76, 1.0, *spacing, 1, 1, 1, 1)
    struct.pack_into("<f", h, 108, 352.0)
    struct.pack_into("<f", h, 112, 1.0)  # scl_slope
    struct.pack_into("<h", h, 254, 1)  # sform_code
    struct.pack_into("<4f", h, 280, spacing[0], 0, 0, 0)
    struct.pack_into("<4f", h, 296, 0, spacing[1], 0, 0)
    struct.pack_into("<4f", h, 312, 0, 0, spacing[2], 0)
    h[344:348] = b"n+1\0"
    data = struct.pack(f"<{nx * ny * nz}f", *(xyz[x][y][z] for z in range(nz) for y in range(ny) for x in range(nx)))
    with open(path, "wb") as f:
        f.write(bytes(h) + data)


def run_maisi_case(binary, work, side):
    """import-maisi, then generate on two ranks without and with a label map."""
    runs = fresh_folder(work, MAISI_CASE)
    run_dir = os.path.join(runs, "run")
    tensors, _ = read_safetensors(os.path.join(MAISI_DATA, "maisi_folder_expected.safetensors"))
    dtype, shape, raw = tensors["io.label_xyz"]
    values = struct.unpack(f"<{len(raw) // 4}f", raw)
    nx, ny, nz = shape
    label = [[[values[(x * ny + y) * nz + z] for z in range(nz)] for y in range(ny)] for x in range(nx)]
    write_nifti(os.path.join(runs, "label.nii"), label, (1.5, 1.2, 2.0))
    launch = [binary, "launch", "--nproc-per-node", "2", "generate", run_dir, "--base-seed", "7", "--num-images", "2"]
    for cmd in ([binary, "import-maisi", os.path.join(MAISI_DATA, "maisi_folder"), "--out", run_dir],
                launch,
                launch + ["--label", os.path.join(runs, "label.nii"), "--output-dir", os.path.join(run_dir, "steered")]):
        run_or_exit(MAISI_CASE, cmd, cwd=runs)
    return os.path.join(keep(runs, work, side, MAISI_CASE), "run")


def write_brats_cases(root, cases=4, size=(20, 20, 16)):
    """BraTS 2023 case folders (t1n, t1c, t2w, t2f, seg) of a sphere of brain, a ventricle box and a lesion."""
    intensity = [(0, 600, 200, 400), (0, 600, 200, 900), (0, 400, 900, 700), (0, 500, 100, 950)]
    nx, ny, nz = size
    for n in range(cases):
        case = f"BraTS-GLI-{n:05d}-000"
        os.makedirs(os.path.join(root, case))
        lx, ly, lz = nx / 2 + (3 if n % 2 else -3), ny / 2 + (n % 3 - 1) * 2.5, nz / 2 + (-2 if n % 2 else 2)
        tissue = [[[0] * nz for _ in range(ny)] for _ in range(nx)]
        for x in range(nx):
            for y in range(ny):
                for z in range(nz):
                    bx, by, bz = (x - nx / 2) / (0.42 * nx), (y - ny / 2) / (0.42 * ny), (z - nz / 2) / (0.42 * nz)
                    t = 1 if bx * bx + by * by + bz * bz < 1 else 0
                    if abs(x - nx / 2) < 1.5 and abs(y - ny / 2) < 2.5 and abs(z - nz / 2) < 2.5:
                        t = 2
                    if ((x - lx) ** 2 + (y - ly) ** 2 + (z - lz) ** 2) ** 0.5 < 2.2:
                        t = 3
                    tissue[x][y][z] = t
        for c, suffix in enumerate(["t1n", "t1c", "t2w", "t2f", "seg"]):
            values = tissue if suffix == "seg" else \
                [[[intensity[c][tissue[x][y][z]] + 5.0 * ((x * 7 + y * 3 + z + n + c) % 5) for z in range(nz)]
                  for y in range(ny)] for x in range(nx)]
            write_nifti(os.path.join(root, case, f"{case}-{suffix}.nii"), values, (1.0, 1.0, 1.0))


def run_translation_case(binary, work, side):
    """Trains the translation task on BraTS case folders, then generate translates every case."""
    runs = fresh_folder(work, TRANSLATION_CASE)
    data = os.path.join(runs, "BraTS2023")
    write_brats_cases(data)
    job = os.path.join(SOURCE, "resources", "jobs", "fast-ddpm-brats.yaml")
    run_or_exit(TRANSLATION_CASE, [binary, "train", job, *COMMON, *TRANSLATION_OVERRIDES, "--data", data,
                                   "--runs-dir", os.path.join(runs, "runs"), "--no-progress", "--quiet"], cwd=runs)
    (run_name,) = os.listdir(os.path.join(runs, "runs"))
    run_or_exit(TRANSLATION_CASE, [binary, "generate", os.path.join(runs, "runs", run_name)], cwd=runs)
    return os.path.join(keep(runs, work, side, TRANSLATION_CASE), "runs", run_name)


def fresh_folder(work, name):
    """work/running/NAME, empty: the same path for both binaries (a job's runs_dir is part of its config hash)."""
    runs = os.path.join(work, "running", name)
    shutil.rmtree(runs, ignore_errors=True)
    os.makedirs(runs)
    return runs


def run_or_exit(name, cmd, cwd=None):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        sys.exit(f"{name}: {' '.join(cmd)} exited {r.returncode}\n{r.stderr[-3000:]}")


def keep(runs, work, side, name):
    """Moves the finished work/running/NAME to work/SIDE/NAME and returns that."""
    kept = os.path.join(work, side, name)
    shutil.rmtree(kept, ignore_errors=True)
    os.makedirs(os.path.dirname(kept), exist_ok=True)
    os.rename(runs, kept)
    return kept


def nifti_voxels(path):
    """Header fields that define the image, and the voxel bytes (after vox_offset)."""
    raw = open(path, "rb").read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    vox_offset = int(struct.unpack_from("<f", raw, 108)[0])
    return raw[40:108] + raw[252:348], raw[vox_offset:]


def run_case(binary, name, work, side):
    """Runs one case in work/running/NAME, then moves it to work/SIDE/NAME."""
    if name == MAISI_CASE:
        return run_maisi_case(binary, work, side)
    if name == TRANSLATION_CASE:
        return run_translation_case(binary, work, side)
    job, overrides, extra = CASES[name]
    runs = fresh_folder(work, name)
    launch = []
    if "--launch" in extra:
        i = extra.index("--launch")
        launch = ["launch", "--nproc-per-node", extra[i + 1]]
        extra = extra[:i] + extra[i + 2:]
    cmd = [binary, *launch, "train", os.path.join(SOURCE, job), *COMMON, *overrides, *extra, "--runs-dir", runs, "--no-progress", "--quiet"]
    run_or_exit(name, cmd)
    kept = keep(runs, work, side, name)
    (run_dir,) = [os.path.join(kept, d) for d in os.listdir(kept)]
    return run_dir


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    tensors = {k: (v["dtype"], tuple(v["shape"]), data[v["data_offsets"][0]:v["data_offsets"][1]]) for k, v in header.items()}
    return tensors, meta


def run_files(run_dir):
    """Relative path -> absolute path of every checkpoint and output table (stage runs of a pipeline included)."""
    found = {}
    for root, _, files in os.walk(run_dir):
        for f in files:
            if f.endswith((".safetensors", ".csv", ".nii.gz", ".nii")):
                full = os.path.join(root, f)
                found[os.path.relpath(full, run_dir)] = full
    return found


def metric_events(run_dir):
    """Every events.jsonl of the run (a pipeline has one per stage): (file, step, name, value) in order."""
    out = []
    for root, _, files in sorted(os.walk(run_dir)):
        if "events.jsonl" not in files:
            continue
        rel = os.path.relpath(os.path.join(root, "events.jsonl"), run_dir)
        with open(os.path.join(root, "events.jsonl")) as f:
            for line in f:
                e = json.loads(line)
                if e.get("type") == "metric" and "throughput/" not in e["name"]:  # wall-clock (pipeline stages prefix it)
                    out.append((rel, e["step"], e["name"], e["value"]))
                elif e.get("type") == "checkpoint":
                    out.append((rel, e["step"], "checkpoint:" + e["kind"], os.path.basename(e["path"])))
    return out


def without_added_lines(job, added_lines):
    lines = job.split("\n")
    for added in added_lines:
        matches = [i for i, line in enumerate(lines) if line.strip() == added]
        if len(matches) == 1:
            del lines[matches[0]]
    return "\n".join(lines)


def compare(name, a_dir, b_dir, added_lines=()):
    problems = []
    fa, fb = run_files(a_dir), run_files(b_dir)
    if sorted(fa) != sorted(fb):
        problems.append(f"files differ: only before {sorted(set(fa) - set(fb))}, only after {sorted(set(fb) - set(fa))}")
    tensors = 0
    checkpoints = 0
    volumes = 0
    for rel in sorted(set(fa) & set(fb)):
        if rel.endswith(".csv"):
            if open(fa[rel], "rb").read() != open(fb[rel], "rb").read():
                problems.append(f"{rel}: contents differ")
            continue
        if rel.endswith((".nii.gz", ".nii")):
            volumes += 1
            if nifti_voxels(fa[rel]) != nifti_voxels(fb[rel]):
                problems.append(f"{rel}: header or voxels differ")
            continue
        ta, ma = read_safetensors(fa[rel])
        tb, mb = read_safetensors(fb[rel])
        checkpoints += 1
        if sorted(ta) != sorted(tb):
            problems.append(f"{rel}: tensor names differ")
        for k in sorted(set(ta) & set(tb)):
            tensors += 1
            if ta[k] != tb[k]:
                problems.append(f"{rel}: tensor {k} differs")
        # The resolved job of a pipeline's stage names the run directory (embedding_dir),
        # whose name carries the start time: compared without it, and the config hash
        # (a hash of that job) only where the jobs are equal as written.
        ja = ma.get("job", "").replace(os.path.basename(a_dir), "RUN")
        jb = without_added_lines(mb.get("job", ""), added_lines).replace(os.path.basename(b_dir), "RUN")
        if ja != jb:
            problems.append(f"{rel}: metadata job differs")
        keys = ("progress", "model_hash", "task") + (("config_hash",) if ma.get("job") == mb.get("job") else ())
        for key in keys:
            if ma.get(key) != mb.get(key):
                problems.append(f"{rel}: metadata {key} differs: {ma.get(key)} vs {mb.get(key)}")
    ea, eb = metric_events(a_dir), metric_events(b_dir)
    if len(ea) != len(eb):
        problems.append(f"metric/checkpoint events: {len(ea)} before, {len(eb)} after")
    for x, y in zip(ea, eb):
        if x != y:
            problems.append(f"event differs: {x} vs {y}")
            break
    losses = [e for e in ea if e[2] == "train/loss"]
    vals = [e for e in ea if e[2].startswith("val/")]
    status = "IDENTICAL" if not problems else "DIFFERENT"
    print(f"{name:24s} {status}: {checkpoints} checkpoint files, {tensors} tensors byte-equal; "
          f"{volumes} NIfTI volumes voxel-equal; {len(ea)} metric/checkpoint events equal ({len(losses)} train/loss, {len(vals)} val/*)")
    if losses:
        print(f"{'':24s} last train/loss {losses[-1][3]!r} at step {losses[-1][1]}; "
              + ", ".join(f"{e[2]}={e[3]!r}" for e in vals[-3:]))
    for p in problems[:20]:
        print(f"{'':24s} {p[:300]}")
    return not problems


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", required=True, help="medsynth-engine of the base commit")
    p.add_argument("--after", required=True, help="medsynth-engine with the change")
    p.add_argument("--work", required=True, help="scratch folder (before/ and after/ runs)")
    p.add_argument("--reuse-before", action="store_true", help="keep the before runs of an earlier call")
    p.add_argument("--added-line", action="append", default=[],
                   help="a line only the after build's resolved job holds (a new field at its default)")
    default = [c for c in CASES if c != "vqgan-gan"] + SPECIAL_CASES
    p.add_argument("--cases", default=",".join(default), help="comma-separated subset of " + ",".join([*CASES, *SPECIAL_CASES]))
    a = p.parse_args()
    ok = True
    for name in a.cases.split(","):
        before_root = os.path.join(a.work, "before", name)
        if a.reuse_before and os.path.isdir(before_root) and os.listdir(before_root):
            if name == MAISI_CASE:
                before = os.path.join(before_root, "run")
            elif name == TRANSLATION_CASE:
                before = os.path.join(before_root, "runs", os.listdir(os.path.join(before_root, "runs"))[0])
            else:
                before = os.path.join(before_root, os.listdir(before_root)[0])
        else:
            before = run_case(a.before, name, a.work, "before")
        after = run_case(a.after, name, a.work, "after")
        ok = compare(name, before, after, a.added_line) and ok
    print("all identical" if ok else "DIFFERENCES FOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
