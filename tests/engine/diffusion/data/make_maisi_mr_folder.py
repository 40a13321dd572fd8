#!/usr/bin/env python3
"""Writes maisi_folder_mr/: a miniature NV-Generate-CTMR folder for `--model rflow-mr`.

The layout is NV-Generate's for its MR model (configs/config_network_rflow.json,
configs/config_infer.json, configs/config_maisi_diff_model_rflow-mr.json,
configs/environment_rflow-mr.json, models/autoencoder_v1.pt,
models/diff_unet_3d_rflow-mr.pt); the .pt files are written by torch.save from
MONAI 1.6.1's MAISI modules, tiny and with random weights. The networks are
make_maisi_folder.py's, except that the diffusion UNet (and the unused
ControlNet definition) has 16 class embeddings, so that the MR modality labels
8..15 are valid (the real model has 128); no ControlNet weights are written.

Beside it, maisi_folder_mr_expected.safetensors holds the images
NV-Generate's scripts/diff_model_infer.py makes from them in float32 on the CPU
with the per-model file's settings (seed 7, modality 9, 3 RFlow steps):
  io.mr_guided_xyz    with classifier-free guidance, cfg_guidance_scale 15: at
                      every step the UNet runs on a doubled batch (every input
                      repeated, class labels [9, 0]) and its output is
                      uncond + 15 * (cond - uncond);
  io.mr_unguided_xyz  the same with cfg_guidance_scale 0 (one pass, label 9).
Both are in NV-Generate's MR output range: decoded image * 1000, clipped
below at 0 and not above. The spacing input is float32 spacing * 100, as in
make_maisi_folder.py (120.0000076 for 1.2). The latent is a quarter of the image size per axis
(the autoencoder's downsampling; NV-Generate derives the same divisor from the
real UNet's four levels). With make_maisi_folder.py's randomisation alone the
guidance changed the image by only 4 output units at most, so the UNet's class
embedding weights are multiplied by 32 after it (the images then differ by up
to about 70 units; the script prints the difference and stops if it falls
below 20).

Needs torch, monai and einops (pip), and make_maisi_folder.py beside it (its
networks and randomisation). Run from this folder:
    python3 make_maisi_mr_folder.py
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import copy
import json
import os
import sys

import torch
from monai.apps.generation.maisi.networks.autoencoderkl_maisi import AutoencoderKlMaisi
from monai.apps.generation.maisi.networks.diffusion_model_unet_maisi import DiffusionModelUNetMaisi
from monai.networks.schedulers.rectified_flow import RFlowScheduler

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "models", "data"))
from make_maisi_folder import NETWORK as CT_NETWORK, randomise  # noqa: E402
from make_monai_reference import write_safetensors  # noqa: E402

FOLDER = "maisi_folder_mr"

NETWORK = copy.deepcopy(CT_NETWORK)
NETWORK["diffusion_unet_def"]["num_class_embeds"] = 16
NETWORK["controlnet_def"]["num_class_embeds"] = 16
INFER = {"num_inference_steps": 3, "output_size": [16, 24, 32], "spacing": [1.5, 1.2, 2.0], "modality": 1,
         "cfg_guidance_scale": 0.0}
MODEL = {
    "diffusion_unet_train": {"batch_size": 1, "cache_rate": 0, "lr": 0.00001, "n_epochs": 1000},
    "diffusion_unet_inference": {
        "dim": [16, 24, 32], "spacing": [1.5, 1.2, 2.0], "top_region_index": [0, 1, 0, 0],
        "bottom_region_index": [0, 0, 1, 0], "random_seed": 7, "num_inference_steps": 3, "modality": 9,
        "cfg_guidance_scale": 15,
    },
}
ENVIRONMENT = {
    "trained_autoencoder_path": "models/autoencoder_v1.pt",
    "trained_diffusion_path": "models/diff_unet_3d_rflow-mr.pt",
}


def resolved(d):
    out = {}
    for k, v in d.items():
        if k == "_target_":
            continue
        out[k] = NETWORK[v[1:]] if isinstance(v, str) and v.startswith("@") else v
    return out


def main():
    torch.manual_seed(1)
    os.makedirs(f"{FOLDER}/configs", exist_ok=True)
    os.makedirs(f"{FOLDER}/models", exist_ok=True)
    for name, body in (("config_network_rflow.json", NETWORK), ("config_infer.json", INFER),
                       ("config_maisi_diff_model_rflow-mr.json", MODEL), ("environment_rflow-mr.json", ENVIRONMENT)):
        with open(f"{FOLDER}/configs/{name}", "w") as f:
            json.dump(body, f, indent=4)
    ae = AutoencoderKlMaisi(**resolved(NETWORK["autoencoder_def"]), save_mem=False).eval()
    unet = DiffusionModelUNetMaisi(**resolved(NETWORK["diffusion_unet_def"])).eval()
    for m in (ae, unet):
        randomise(m)
    with torch.no_grad():  # strong class embeddings, so that guidance shows in the image
        unet.class_embedding.weight.mul_(32.0)
    scale_factor = torch.tensor(0.87)
    torch.save(ae.state_dict(), f"{FOLDER}/models/autoencoder_v1.pt")
    torch.save({"unet_state_dict": unet.state_dict(), "scale_factor": scale_factor, "epoch": 10},
               f"{FOLDER}/models/diff_unet_3d_rflow-mr.pt")

    inference = MODEL["diffusion_unet_inference"]
    guided = sample(ae, unet, scale_factor, inference["cfg_guidance_scale"])
    unguided = sample(ae, unet, scale_factor, 0.0)
    difference = (guided - unguided).abs().max().item()
    print(f"max |guided - unguided| = {difference:.3f}")
    print(f"guided   range [{guided.min().item():.3f}, {guided.max().item():.3f}]")
    print(f"unguided range [{unguided.min().item():.3f}, {unguided.max().item():.3f}]")
    if difference < 20.0:
        sys.exit("guidance barely changes the image: strengthen the randomisation")
    write_safetensors(f"{FOLDER}_expected.safetensors", {"io.mr_guided_xyz": guided, "io.mr_unguided_xyz": unguided},
                      source="NV-Generate-style rflow-mr sampling (CFG) with MONAI 1.6.1, make_maisi_mr_folder.py")


def sample(ae, unet, scale_factor, cfg_guidance_scale):
    """NV-Generate's diff_model_infer loop, float32 on the CPU, with classifier-free guidance when the scale is > 0."""
    inference = MODEL["diffusion_unet_inference"]
    size = inference["dim"]
    latent_shape = [1, NETWORK["latent_channels"]] + [s // 4 for s in size]
    latents = torch.randn(latent_shape, generator=torch.Generator().manual_seed(inference["random_seed"]))
    scheduler = RFlowScheduler(**resolved(NETWORK["noise_scheduler"]))
    scheduler.set_timesteps(inference["num_inference_steps"], input_img_size_numel=torch.prod(torch.tensor(latent_shape[2:])))
    spacing = torch.tensor(inference["spacing"], dtype=torch.float32).unsqueeze(0) * 1e2
    modality = inference["modality"] * torch.ones(1, dtype=torch.long)
    timesteps = scheduler.timesteps
    next_timesteps = torch.cat((timesteps[1:], torch.tensor([0], dtype=timesteps.dtype)))
    with torch.no_grad():
        for t, next_t in zip(timesteps, next_timesteps):
            inputs = {"x": latents, "timesteps": torch.Tensor((t,)), "spacing_tensor": spacing, "class_labels": modality}
            if cfg_guidance_scale > 0:
                # The conditioned and the unconditioned (class 0) pass in one batch of two.
                inputs = {k: torch.cat([v, torch.zeros_like(modality)]) if k == "class_labels" else torch.cat([v, v])
                          for k, v in inputs.items()}
                conditioned, unconditioned = unet(**inputs).chunk(2)
                out = unconditioned + cfg_guidance_scale * (conditioned - unconditioned)
            else:
                out = unet(**inputs)
            latents, _ = scheduler.step(out, t, latents, next_t)
        image = ae.decode_stage_2_outputs(latents / scale_factor)
    return (image.clamp(min=0.0) * 1000.0)[0, 0]


if __name__ == "__main__":
    main()
