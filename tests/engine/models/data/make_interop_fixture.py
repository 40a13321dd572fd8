#!/usr/bin/env python3
"""The way back to Python (docs/interop.md), checked: a medsynth checkpoint
loaded into MONAI's AutoencoderKL, and MONAI's reconstruction of a fixed input
written for interop_test.cpp, which asks medsynth for the same numbers.

interop_medsynth_autoencoder.safetensors is what `medsynth-engine train
interop_autoencoder.yaml` wrote as checkpoints/last.safetensors. Its model
tensors are "model.<module>.<MONAI's name>"; MONAI loads them after the
prefix is cut, strict=True (every name and shape agrees). The network's
options are the job's model.autoencoder (the checkpoint's metadata "job").

Needs torch and monai (pip, a throwaway venv). Run from this folder:
    python3 make_interop_fixture.py
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import json
import struct

import torch
from monai.networks.nets import AutoencoderKL

from make_monai_reference import write_safetensors

DTYPES = {"F32": torch.float32, "F64": torch.float64, "I64": torch.int64, "U8": torch.uint8}


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in DTYPES:
            continue
        begin, end = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=DTYPES[info["dtype"]])
        tensors[name] = t.reshape(info["shape"]).clone()
    return tensors, header.get("__metadata__", {})


def main():
    tensors, metadata = read_safetensors("interop_medsynth_autoencoder.safetensors")
    prefix = "model.autoencoder."
    state = {k[len(prefix):]: v for k, v in tensors.items() if k.startswith(prefix)}
    # interop_autoencoder.yaml's model.autoencoder, under MONAI's names.
    net = AutoencoderKL(spatial_dims=3, in_channels=1, out_channels=1, latent_channels=3, channels=(4, 8),
                        num_res_blocks=(1, 1), norm_num_groups=4, norm_eps=1e-6, attention_levels=(False, True),
                        with_encoder_nonlocal_attn=False, with_decoder_nonlocal_attn=False).eval()
    net.load_state_dict(state, strict=True)
    torch.manual_seed(0)
    x = torch.rand(1, 1, 16, 16, 16)  # [N, C, D, H, W]: medsynth's volumes are z, y, x here
    with torch.no_grad():
        z_mu, _ = net.encode(x)
        recon = net.reconstruct(x)
    write_safetensors("interop_monai_reconstruction.safetensors",
                      {"io.x": x, "io.z_mu": z_mu, "io.reconstruction": recon},
                      source="MONAI reconstruction with a medsynth checkpoint, make_interop_fixture.py")


if __name__ == "__main__":
    main()
