#!/usr/bin/env python3
"""MONAI's side of medsynth-bench-maisi-step: the same workloads with MONAI's
MAISI modules, timed the same way (warm-up runs, then the median of timed runs,
the device synchronised around each), one JSON line per run.

  ae-train-step    AutoencoderKlMaisi (NV-Generate's autoencoder_def, unsplit),
                   forward, L1 + 1e-6 KL, backward, AdamW
  unet-train-step  DiffusionModelUNetMaisi (rflow-ct's diffusion_unet_def),
                   forward with class and spacing, MSE to the velocity,
                   backward, AdamW
  rflow-sample     Euler steps of rectified flow, one UNet forward each

`ae-train-step --model quickstart|half` takes MONAI's AutoencoderKL with the
quick start's (16,32,32) or the half-width (32,64,64) shape instead of
MAISI's. `--profile` adds a line with the self time per operator class of
--runs more steps (torch.profiler, classed as tests/bench/op_profile.cpp
classes them; "between operators" is the time no operator accounts for, the
interpreter's share). `--optimizer fused` gives torch.optim.AdamW fused=True
(MONAI's and NV-Generate's scripts use the default, the per-tensor loop on a
CPU). `--flops` adds the step's floating-point operations, counted once by
torch.utils.flop_counter (convolutions, matrix products, attention; forward
and backward), which maisi_vs_monai.py turns into a fraction of the peak.
Needs torch and monai (tests/bench/maisi_vs_monai.py says how they travel to a
GPU node); never part of CI.
"""
import argparse
import json
import statistics
import time

import torch
from torch.autograd.profiler import record_function
from monai.apps.generation.maisi.networks.autoencoderkl_maisi import AutoencoderKlMaisi
from monai.apps.generation.maisi.networks.diffusion_model_unet_maisi import DiffusionModelUNetMaisi


def maisi_autoencoder():
    return AutoencoderKlMaisi(spatial_dims=3, in_channels=1, out_channels=1, latent_channels=4,
                              num_channels=(64, 128, 256), num_res_blocks=(2, 2, 2), norm_num_groups=32,
                              norm_eps=1e-6, attention_levels=(False, False, False),
                              with_encoder_nonlocal_attn=False, with_decoder_nonlocal_attn=False,
                              use_checkpointing=False, use_convtranspose=False, norm_float16=False,
                              num_splits=1, dim_split=1, save_mem=False, include_fc=False)


def plain_autoencoder(model):
    from monai.networks.nets import AutoencoderKL
    quick = model == "quickstart"
    return AutoencoderKL(spatial_dims=3, in_channels=1, out_channels=1, latent_channels=4,
                         channels=(16, 32, 32) if quick else (32, 64, 64),
                         num_res_blocks=(1, 1, 1) if quick else (2, 2, 2),
                         norm_num_groups=8 if quick else 16, norm_eps=1e-6,
                         attention_levels=(False, False, False), with_encoder_nonlocal_attn=False,
                         with_decoder_nonlocal_attn=False)


def make_optimizer(args, params):
    return torch.optim.AdamW(params, lr=1e-4, fused=True if args.optimizer == "fused" else None)


def maisi_unet(device):
    # NV-Generate sets use_flash_attention (torch's SDPA); MONAI refuses it without CUDA.
    return DiffusionModelUNetMaisi(spatial_dims=3, in_channels=4, out_channels=4,
                                   num_channels=(64, 128, 256, 512), attention_levels=(False, False, True, True),
                                   num_head_channels=(0, 0, 32, 32), num_res_blocks=2, norm_num_groups=32,
                                   norm_eps=1e-6, resblock_updown=True, num_class_embeds=128,
                                   include_spacing_input=True, include_fc=True,
                                   use_flash_attention=device.type == "cuda")


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_runs(args, device, step):
    for _ in range(args.warmup):
        step()
    seconds = []
    for _ in range(args.runs):
        synchronize(device)
        start = time.perf_counter()
        step()
        synchronize(device)
        seconds.append(time.perf_counter() - start)
    seconds.sort()
    return seconds[len(seconds) // 2], seconds[0], seconds[-1]


def op_class(name, in_optimizer):
    """tests/bench/op_profile.cpp's op_class, rule for rule."""
    if in_optimizer:
        return "optimizer"
    if name in ("forward", "backward", "loss"):
        return "between operators"
    if "autograd::engine::evaluate_function" in name:
        return "autograd engine"
    if "conv" in name:
        return "convolution"
    if "group_norm" in name or "GroupNorm" in name:
        return "group_norm"
    if "silu" in name or "Silu" in name:
        return "silu"
    if "upsample" in name or "Upsample" in name:
        return "upsample"
    if (name == "aten::to" or any(k in name for k in ("_to_copy", "copy_", "contiguous", "clone", "ToCopy",
                                                      "CloneBackward"))):
        return "cast and copy"
    if any(k in name for k in ("empty", "zeros", "resize_", "fill_")):
        return "allocate and fill"
    return "other"


def profile_steps(args, device, step):
    """Self seconds per class and step, over the main thread's events."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        synchronize(device)
        start = time.perf_counter()
        for _ in range(args.runs):
            step()
        synchronize(device)
        wall = (time.perf_counter() - start) / args.runs
    events = prof.events()
    main = next(e.thread for e in events if e.name == "forward")
    by_class = {}
    for e in events:
        if e.thread != main:
            continue
        in_optimizer, up = False, e
        while up is not None:
            if up.name == "optimizer":
                in_optimizer = True
                break
            up = up.cpu_parent
        key = op_class(e.name, in_optimizer)
        by_class[key] = by_class.get(key, 0.0) + e.self_cpu_time_total / 1e6 / args.runs
    return wall, by_class


def count_flops(step):
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False) as counter:
        step()
    return counter.get_total_flops()


def autocast(args, device):
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=use_bf16(args, device))


def use_bf16(args, device):
    return args.amp == "bf16" or (args.amp == "auto" and device.type == "cuda")


def ae_train_step(args, device):
    net = (maisi_autoencoder() if args.model == "maisi" else plain_autoencoder(args.model)).to(device).train()
    optimizer = make_optimizer(args, net.parameters())
    x = torch.rand(args.batch, 1, args.patch, args.patch, args.patch, device=device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with record_function("forward"), autocast(args, device):
            recon, z_mu, z_sigma = net(x)
            kl = 0.5 * (z_mu.pow(2) + z_sigma.pow(2) - torch.log(z_sigma.pow(2) + 1e-8) - 1.0)
            loss = (recon.float() - x).abs().mean() + 1e-6 * kl.sum(dim=(1, 2, 3, 4)).mean()
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            optimizer.step()
    return step, f"{args.model} {args.batch}x1x{args.patch}^3"


def conditioning(batch, device):
    return {"class_labels": torch.ones(batch, dtype=torch.long, device=device),
            "spacing_tensor": torch.full((batch, 3), 150.0, device=device)}


def unet_train_step(args, device):
    net = maisi_unet(device).to(device).train()
    optimizer = make_optimizer(args, net.parameters())
    b = args.batch
    x0 = torch.randn(b, 4, args.latent, args.latent, args.latent, device=device)
    noise = torch.randn_like(x0)
    t = torch.rand(b, device=device) * 1000.0
    s = (t / 1000.0).view(b, 1, 1, 1, 1)
    xt = (1.0 - s) * x0 + s * noise
    velocity = noise - x0
    cond = conditioning(b, device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with record_function("forward"), autocast(args, device):
            loss = (net(xt, t, **cond).float() - velocity).pow(2).mean()
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            optimizer.step()
    return step, f"{b}x4x{args.latent}^3"


def rflow_sample(args, device):
    net = maisi_unet(device).to(device).eval()
    cond = conditioning(1, device)

    def sample():
        with record_function("forward"), torch.no_grad(), autocast(args, device):
            x = torch.randn(1, 4, args.latent, args.latent, args.latent, device=device)
            for i in range(args.steps):
                t_now = 1000.0 * (1.0 - i / args.steps)
                t_next = 1000.0 * (1.0 - (i + 1) / args.steps)
                v = net(x, torch.full((1,), t_now, device=device), **cond).float()
                x = x + (t_next - t_now) / 1000.0 * v
    return sample, f"{args.steps} steps 1x4x{args.latent}^3"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bench", choices=["ae-train-step", "unet-train-step", "rflow-sample"])
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--amp", default="auto", choices=["auto", "bf16", "off"])
    parser.add_argument("--patch", type=int, default=64)
    parser.add_argument("--batch", type=int, default=None, help="ae-train-step: 2, unet-train-step: 1")
    parser.add_argument("--latent", type=int, default=64)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--model", default="maisi", choices=["maisi", "quickstart", "half"])
    parser.add_argument("--optimizer", default="default", choices=["default", "fused"])
    parser.add_argument("--profile", action="store_true", help="also print the self time per operator class")
    parser.add_argument("--flops", action="store_true", help="also count the step's FLOPs (one extra run)")
    args = parser.parse_args()
    if args.batch is None:
        args.batch = 2 if args.bench == "ae-train-step" else 1
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device(("cuda:0" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device)
    torch.manual_seed(0)
    make = {"ae-train-step": ae_train_step, "unet-train-step": unet_train_step, "rflow-sample": rflow_sample}
    step, shape = make[args.bench](args, device)
    median, fastest, slowest = time_runs(args, device, step)
    row = {"impl": "monai", "bench": args.bench, "shape": shape, "device": str(device),
           "amp": "bf16" if use_bf16(args, device) else "off", "threads": torch.get_num_threads(),
           "runs": args.runs, "median_s": median, "min_s": fastest, "max_s": slowest}
    if device.type == "cuda":
        row["peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
    if args.flops:
        row["flops"] = count_flops(step)
    print(json.dumps(row), flush=True)
    if args.profile:
        wall, by_class = profile_steps(args, device, step)
        print(json.dumps({"impl": "monai", "bench": args.bench, "profile_wall_s": wall,
                          "profile": dict(sorted(by_class.items()))}), flush=True)


if __name__ == "__main__":
    main()
