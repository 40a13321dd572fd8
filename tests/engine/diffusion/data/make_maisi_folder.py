#!/usr/bin/env python3
"""Writes maisi_folder/: a miniature NV-Generate-CTMR folder for import_maisi_test.cpp.

The layout is NV-Generate's (configs/config_network_rflow.json,
configs/environment_rflow-ct.json, configs/config_infer.json,
models/autoencoder_v1.pt, models/diff_unet_3d_rflow-ct.pt,
models/controlnet_3d_rflow-ct.pt); the .pt files are written by torch.save
from MONAI 1.6.1's MAISI modules, tiny and with random weights. Beside it,
maisi_folder_expected.safetensors holds the image NV-Generate's inference
loop makes from them in float32 (seeded noise, RFlowScheduler, class and
spacing inputs, decode, clip, HU), which `generate` must reproduce, and a
label map with the image its ControlNet-steered loop makes from it
(image-from-mask: the label's 8 binary channels into ControlNetMaisi, whose
residuals go into the UNet at every step).

Needs torch, monai and einops (pip). Run from this folder:
    python3 make_maisi_folder.py
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import json
import os
import sys

import torch
from monai.apps.generation.maisi.networks.autoencoderkl_maisi import AutoencoderKlMaisi
from monai.apps.generation.maisi.networks.controlnet_maisi import ControlNetMaisi
from monai.apps.generation.maisi.networks.diffusion_model_unet_maisi import DiffusionModelUNetMaisi
from monai.networks.schedulers.rectified_flow import RFlowScheduler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "data"))
from make_monai_reference import write_safetensors  # noqa: E402

SEED = 7  # generate.base_seed of the test; image 0 uses it

# use_flash_attention is False: MONAI refuses True without CUDA (the reader accepts both).
NETWORK = {
    "spatial_dims": 3,
    "image_channels": 1,
    "latent_channels": 4,
    "include_body_region": False,
    "autoencoder_def": {
        "_target_": "monai.apps.generation.maisi.networks.autoencoderkl_maisi.AutoencoderKlMaisi",
        "spatial_dims": "@spatial_dims", "in_channels": "@image_channels", "out_channels": "@image_channels",
        "latent_channels": "@latent_channels", "num_channels": [4, 8, 8], "num_res_blocks": [1, 1, 1],
        "norm_num_groups": 4, "norm_eps": 1e-06, "attention_levels": [False, False, False],
        "with_encoder_nonlocal_attn": False, "with_decoder_nonlocal_attn": False, "use_checkpointing": False,
        "use_convtranspose": False, "norm_float16": False, "num_splits": 2, "dim_split": 1,
    },
    "diffusion_unet_def": {
        "_target_": "monai.apps.generation.maisi.networks.diffusion_model_unet_maisi.DiffusionModelUNetMaisi",
        "spatial_dims": "@spatial_dims", "in_channels": "@latent_channels", "out_channels": "@latent_channels",
        "num_channels": [8, 16], "attention_levels": [False, True], "num_head_channels": [0, 8],
        "num_res_blocks": 1, "norm_num_groups": 4, "use_flash_attention": False,
        "include_top_region_index_input": "@include_body_region",
        "include_bottom_region_index_input": "@include_body_region", "include_spacing_input": True,
        "num_class_embeds": 8, "resblock_updown": True, "include_fc": True,
    },
    "controlnet_def": {
        "_target_": "monai.apps.generation.maisi.networks.controlnet_maisi.ControlNetMaisi",
        "spatial_dims": "@spatial_dims", "in_channels": "@latent_channels", "num_channels": [8, 16],
        "attention_levels": [False, True], "num_head_channels": [0, 8], "num_res_blocks": 1, "norm_num_groups": 4,
        "use_flash_attention": False, "conditioning_embedding_in_channels": 8,
        "conditioning_embedding_num_channels": [8, 8, 8], "num_class_embeds": 8, "resblock_updown": True,
        "include_fc": True,
    },
    "noise_scheduler": {
        "_target_": "monai.networks.schedulers.rectified_flow.RFlowScheduler", "num_train_timesteps": 1000,
        "use_discrete_timesteps": False, "use_timestep_transform": True, "sample_method": "uniform", "scale": 1.4,
    },
}
INFER = {"num_inference_steps": 3, "output_size": [16, 24, 32], "spacing": [1.5, 1.2, 2.0], "modality": 1}
ENVIRONMENT = {
    "trained_autoencoder_path": "models/autoencoder_v1.pt",
    "trained_diffusion_path": "models/diff_unet_3d_rflow-ct.pt",
    "trained_controlnet_path": "models/controlnet_3d_rflow-ct.pt",
}


def resolved(d):
    out = {}
    for k, v in d.items():
        if k == "_target_":
            continue
        out[k] = NETWORK[v[1:]] if isinstance(v, str) and v.startswith("@") else v
    return out


def randomise(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:
                (p.uniform_(0.5, 1.5) if "norm" in name and name.endswith("weight") else p.uniform_(-0.2, 0.2))
            else:
                p.normal_(0.0, 0.5 / (p[0].numel() ** 0.5))


def main():
    torch.manual_seed(0)
    os.makedirs("maisi_folder/configs", exist_ok=True)
    os.makedirs("maisi_folder/models", exist_ok=True)
    for name, body in (("config_network_rflow.json", NETWORK), ("config_infer.json", INFER),
                       ("environment_rflow-ct.json", ENVIRONMENT)):
        with open(f"maisi_folder/configs/{name}", "w") as f:
            json.dump(body, f, indent=4)
    ae = AutoencoderKlMaisi(**resolved(NETWORK["autoencoder_def"]), save_mem=False).eval()
    unet = DiffusionModelUNetMaisi(**resolved(NETWORK["diffusion_unet_def"])).eval()
    controlnet = ControlNetMaisi(**resolved(NETWORK["controlnet_def"])).eval()
    for m in (ae, unet, controlnet):
        randomise(m)
    with torch.no_grad():  # strong zero convolutions, so that steering shows in the image
        for name, p in controlnet.named_parameters():
            if name.startswith(("controlnet_down_blocks", "controlnet_mid_block")):
                p.mul_(8.0)
    scale_factor = torch.tensor(0.87)
    torch.save(ae.state_dict(), "maisi_folder/models/autoencoder_v1.pt")
    torch.save({"unet_state_dict": unet.state_dict(), "scale_factor": scale_factor, "epoch": 10},
               "maisi_folder/models/diff_unet_3d_rflow-ct.pt")
    torch.save({"controlnet_state_dict": controlnet.state_dict()}, "maisi_folder/models/controlnet_3d_rflow-ct.pt")

    label = torch.zeros(INFER["output_size"], dtype=torch.long)
    label[2:10, 4:20, 6:26] = 1
    label[5:12, 8:14, 10:20] = 5
    label[9:14, 2:9, 20:30] = 12
    label[0:4, 18:24, 0:8] = 3
    tensors = {"io.image_xyz": sample(ae, unet, scale_factor),
               "io.label_xyz": label.float(),
               "io.image_from_label_xyz": sample(ae, unet, scale_factor, controlnet, label)}
    write_safetensors("maisi_folder_expected.safetensors", tensors,
                      source="NV-Generate-style rflow sampling with MONAI 1.6.1, make_maisi_folder.py")


def binary_channels(label, bits=8):
    # MAISI's binarize_labels: bit b of each voxel's value in channel b.
    mask = 2 ** torch.arange(bits)
    return label.unsqueeze(-1).bitwise_and(mask).ne(0).float().permute(3, 0, 1, 2).unsqueeze(0)


def sample(ae, unet, scale_factor, controlnet=None, label=None):
    """NV-Generate's sampling loop (with a ControlNet: image-from-mask), float32 on the CPU."""
    size = INFER["output_size"]
    latent_shape = [1, 4] + [s // 4 for s in size]
    latents = torch.randn(latent_shape, generator=torch.Generator().manual_seed(SEED))
    scheduler = RFlowScheduler(**resolved(NETWORK["noise_scheduler"]))
    scheduler.set_timesteps(INFER["num_inference_steps"], input_img_size_numel=torch.prod(torch.tensor(latent_shape[2:])))
    spacing = torch.tensor(INFER["spacing"], dtype=torch.float32).unsqueeze(0) * 1e2
    modality = INFER["modality"] * torch.ones(1, dtype=torch.long)
    timesteps = scheduler.timesteps
    next_timesteps = torch.cat((timesteps[1:], torch.tensor([0], dtype=timesteps.dtype)))
    with torch.no_grad():
        for t, next_t in zip(timesteps, next_timesteps):
            residuals = {}
            if controlnet is not None:
                down, mid = controlnet(x=latents, timesteps=torch.Tensor((t,)), controlnet_cond=binary_channels(label),
                                       class_labels=modality)
                residuals = {"down_block_additional_residuals": down, "mid_block_additional_residual": mid}
            out = unet(x=latents, timesteps=torch.Tensor((t,)), spacing_tensor=spacing, class_labels=modality, **residuals)
            latents, _ = scheduler.step(out, t, latents, next_t)
        image = ae.decode_stage_2_outputs(latents / scale_factor)
    return (torch.clip(image, 0.0, 1.0) * 2000.0 - 1000.0)[0, 0]


if __name__ == "__main__":
    main()
