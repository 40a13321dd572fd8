#!/usr/bin/env python3
"""Writes the MAISI autoencoder fixtures read by maisi_autoencoder_parity_test.cpp.

Each maisi_autoencoder_<name>.safetensors holds the state_dict of MONAI 1.6.1's
AutoencoderKlMaisi (monai.apps.generation.maisi) under its own names, every
parameter randomised (so a swapped or skipped weight shows), plus "io.*"
tensors: a fixed input and MONAI's z_mu, z_sigma and reconstruction for it.
The configurations together exercise num_splits > 1 on each split axis,
norm_float16 (run under CPU float16 autocast, as MAISI runs it under CUDA
autocast), use_convtranspose, attention levels with include_fc and
use_combined_linear, and the non-local attention blocks.

Needs torch, monai and einops (pip). Run from this folder:
    python3 make_maisi_autoencoder_reference.py [fixture names...]   (default: all)
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import sys

import torch
from monai.apps.generation.maisi.networks.autoencoderkl_maisi import AutoencoderKlMaisi, MaisiGroupNorm3D

from make_monai_reference import write_safetensors


def randomise(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:
                (p.uniform_(0.5, 1.5) if name.endswith("weight") and "norm" in name else p.uniform_(-0.2, 0.2))
            else:
                p.normal_(0.0, 0.5 / (p[0].numel() ** 0.5))


def autoencoder(name, shape, float16=False, **cfg):
    net = AutoencoderKlMaisi(spatial_dims=3, in_channels=1, out_channels=1, norm_eps=1e-6, save_mem=False,
                             norm_float16=float16, **cfg).eval()
    randomise(net)
    x = torch.rand(1, 1, *shape)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16, enabled=float16):
        z_mu, z_sigma = net.encode(x)
        recon = net.reconstruct(x)
    io = {"io.x": x, "io.z_mu": z_mu.float(), "io.z_sigma": z_sigma.float(), "io.reconstruction": recon.float()}
    write_safetensors(f"maisi_autoencoder_{name}.safetensors", {**net.state_dict(), **io},
                      source="MONAI AutoencoderKlMaisi reference, make_maisi_autoencoder_reference.py")


def group_norm(name):
    # The norm alone with norm_float16: its output is float16 (written as float32).
    norm = MaisiGroupNorm3D(num_groups=4, num_channels=8, eps=1e-6, norm_float16=True, save_mem=False)
    randomise(norm)
    x = torch.randn(2, 8, 4, 6, 5) * 3 + 1
    with torch.no_grad():
        y = norm(x)
    assert y.dtype == torch.float16
    write_safetensors(f"maisi_autoencoder_{name}.safetensors", {**norm.state_dict(), "io.x": x, "io.y": y.float()},
                      source="MONAI MaisiGroupNorm3D reference, make_maisi_autoencoder_reference.py")


# Each fixture with its own seed, so that one can be remade alone.
FIXTURES = {
    # MAISI's released layout (no attention, interpolating upsample) split in
    # two along H, on a non-cubic input, with a 1x1 nin_shortcut.
    "split": lambda n: autoencoder(
        n, (16, 24, 16), num_channels=(8, 16, 16), num_res_blocks=(1, 2, 1), attention_levels=(False, False, False),
        latent_channels=3, norm_num_groups=4, num_splits=2, dim_split=1),
    # Split along D into four, transposed-convolution upsampling.
    "deconv": lambda n: autoencoder(
        n, (32, 8, 16), num_channels=(4, 8), num_res_blocks=(1, 1), attention_levels=(False, False),
        latent_channels=2, norm_num_groups=4, num_splits=4, dim_split=0, use_convtranspose=True),
    # Attention at the coarse level and in the non-local blocks, with a single
    # qkv projection and no output projection; split along W.
    "attention": lambda n: autoencoder(
        n, (8, 8, 16), num_channels=(4, 8), num_res_blocks=(1, 1), attention_levels=(False, True), latent_channels=2,
        norm_num_groups=4, num_splits=2, dim_split=2, with_encoder_nonlocal_attn=True,
        with_decoder_nonlocal_attn=True, include_fc=False, use_combined_linear=True),
    # As NV-Generate runs it: norm outputs in float16 under float16 autocast.
    "float16": lambda n: autoencoder(
        n, (8, 16, 8), float16=True, num_channels=(4, 8), num_res_blocks=(1, 1), attention_levels=(False, False),
        latent_channels=2, norm_num_groups=4, num_splits=2, dim_split=1),
    "group_norm_float16": group_norm,
}

if __name__ == "__main__":
    for index, fixture in enumerate(FIXTURES):
        if len(sys.argv) < 2 or fixture in sys.argv[1:]:
            torch.manual_seed(100 + index)
            FIXTURES[fixture](fixture)
