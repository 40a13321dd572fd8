#!/usr/bin/env python3
"""Writes the MONAI reference fixtures read by monai_parity_test.cpp.

Each <name>.safetensors holds a MONAI model's state_dict under MONAI's own
names (GroupNorm affine parameters randomised, so a swapped weight/bias would
show) plus "io.*" tensors: a fixed input and MONAI's outputs for it.

Needs torch, monai and einops (pip). Run from this folder:
    python3 make_monai_reference.py
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import json
import struct

import torch
from monai.networks.nets import AutoencoderKL, PatchDiscriminator


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"source": "MONAI reference, make_monai_reference.py"}
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


def discriminator(name, norm):
    net = PatchDiscriminator(spatial_dims=3, num_layers_d=2, channels=4, in_channels=1, out_channels=1, norm=norm).eval()
    randomise_norms(net)
    x = torch.rand(1, 1, 16, 16, 16)
    with torch.no_grad():
        y = net(x)[-1]
    write_safetensors(f"{name}.safetensors", {**net.state_dict(), "io.x": x, "io.logits": y})


if __name__ == "__main__":
    torch.manual_seed(0)
    autoencoder("monai_autoencoder_attention", channels=(4, 8), num_res_blocks=(1, 1), attention_levels=(False, True),
                norm_num_groups=4, latent_channels=2, with_encoder_nonlocal_attn=True, with_decoder_nonlocal_attn=True)
    autoencoder("monai_autoencoder_deconv", channels=(4, 4, 8), num_res_blocks=(1, 2, 1),
                attention_levels=(False, False, False), norm_num_groups=4, latent_channels=2,
                with_encoder_nonlocal_attn=False, with_decoder_nonlocal_attn=False, use_convtranspose=True)
    discriminator("monai_discriminator_instance", "INSTANCE")
    discriminator("monai_discriminator_group", ("GROUP", {"num_groups": 4}))
