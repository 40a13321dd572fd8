#!/usr/bin/env python3
"""Writes the MONAI reference fixtures read by monai_parity_test.cpp.

Each <name>.safetensors holds a MONAI model's state_dict under MONAI's own
names (GroupNorm affine parameters randomised, so a swapped weight/bias would
show) plus "io.*" tensors: a fixed input and MONAI's outputs for it.

Needs torch, monai and einops (pip). Run from this folder:
    python3 make_monai_reference.py [fixture names...]   (default: all)
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import json
import struct
import sys

import torch
from monai.networks.nets import AutoencoderKL, DiffusionModelUNet, PatchDiscriminator


def write_safetensors(path, tensors, dtype=torch.float32, source="MONAI reference, make_monai_reference.py"):
    code = {torch.float32: "F32", torch.float64: "F64"}[dtype]
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().to(dtype).contiguous().numpy().tobytes()
        header[name] = {"dtype": code, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"source": source}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def randomise_norms(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:
                (p.uniform_(0.5, 1.5) if name.endswith("weight") else p.uniform_(-0.2, 0.2))


def autoencoder(name, **cfg):
    net = AutoencoderKL(spatial_dims=3, in_channels=1, out_channels=1, norm_eps=1e-6, **cfg).eval()
    randomise_norms(net)
    x = torch.rand(1, 1, 8, 8, 8)
    with torch.no_grad():
        z_mu, z_sigma = net.encode(x)
        recon = net.reconstruct(x)
    io = {"io.x": x, "io.z_mu": z_mu, "io.z_sigma": z_sigma, "io.reconstruction": recon}
    write_safetensors(f"{name}.safetensors", {**net.state_dict(), **io})


def discriminator(name, norm, spatial_dims=3):
    net = PatchDiscriminator(spatial_dims=spatial_dims, num_layers_d=2, channels=4, in_channels=1, out_channels=1, norm=norm).eval()
    randomise_norms(net)
    x = torch.rand(1, 1, 16, 16, 16) if spatial_dims == 3 else torch.rand(2, 1, 24, 20)
    with torch.no_grad():
        y = net(x)[-1]
    write_safetensors(f"{name}.safetensors", {**net.state_dict(), "io.x": x, "io.logits": y})


def diffusion_unet(name, **cfg):
    # MONAI zero-initialises each resnet's conv2 and the output conv: give every
    # parameter random values so that a misplaced or skipped weight shows.
    net = DiffusionModelUNet(spatial_dims=3, norm_eps=1e-6, **cfg).eval()
    with torch.no_grad():
        for pname, p in net.named_parameters():
            if p.dim() == 1:
                (p.uniform_(0.5, 1.5) if "norm" in pname and pname.endswith("weight") else p.uniform_(-0.2, 0.2))
            else:
                p.normal_(0.0, 0.3 / (p[0].numel() ** 0.5))
    x = torch.randn(2, cfg["in_channels"], 8, 8, 8)
    t = torch.tensor([17.0, 731.5])
    with torch.no_grad():
        y = net(x, t)
    write_safetensors(f"{name}.safetensors", {**net.state_dict(), "io.x": x, "io.t": t, "io.y": y})


# Each fixture with its own seed, so that one can be remade alone.
FIXTURES = {
    "monai_autoencoder_attention": lambda n: autoencoder(
        n, channels=(4, 8), num_res_blocks=(1, 1), attention_levels=(False, True), norm_num_groups=4, latent_channels=2,
        with_encoder_nonlocal_attn=True, with_decoder_nonlocal_attn=True),
    "monai_autoencoder_deconv": lambda n: autoencoder(
        n, channels=(4, 4, 8), num_res_blocks=(1, 2, 1), attention_levels=(False, False, False), norm_num_groups=4,
        latent_channels=2, with_encoder_nonlocal_attn=False, with_decoder_nonlocal_attn=False, use_convtranspose=True),
    "monai_discriminator_instance": lambda n: discriminator(n, "INSTANCE"),
    "monai_discriminator_group": lambda n: discriminator(n, ("GROUP", {"num_groups": 4})),
    # Attention at the two coarse levels, one head each (as MAISI's levels 3-4).
    "monai_diffusion_unet": lambda n: diffusion_unet(
        n, in_channels=2, out_channels=2, channels=(8, 16, 16), num_res_blocks=(1, 1, 1),
        attention_levels=(False, True, True), num_head_channels=(8, 16, 16), norm_num_groups=4),
    # Two res blocks per level and 2/4 heads: checks the head split and the skip bookkeeping.
    "monai_diffusion_unet_heads": lambda n: diffusion_unet(
        n, in_channels=3, out_channels=1, channels=(8, 16), num_res_blocks=(2, 1), attention_levels=(True, True),
        num_head_channels=(4, 4), norm_num_groups=4),
    # The VQ-GAN's slice discriminator (2D).
    "monai_discriminator_2d": lambda n: discriminator(n, ("GROUP", {"num_groups": 4}), spatial_dims=2),
}

if __name__ == "__main__":
    for index, fixture in enumerate(FIXTURES):
        if len(sys.argv) < 2 or fixture in sys.argv[1:]:
            torch.manual_seed(index)
            FIXTURES[fixture](fixture)
