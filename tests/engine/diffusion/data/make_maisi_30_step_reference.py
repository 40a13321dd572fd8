#!/usr/bin/env python3
"""Writes maisi_30_step_expected.safetensors: NV-Generate's loop at its own 30 steps.

Issue 49, item 7: at NV-Generate's default of 30 rectified-flow steps MONAI's
RFlowScheduler rounds the timesteps to float16 and its step() truncates the
next timestep to an integer, so NV-Generate's images differ from an exact
integration by up to 0.64 HU; the 3-step fixtures of make_maisi_folder.py
never showed it. This script loads the committed miniature folders'
weights (maisi_folder/models/*.pt, maisi_folder_mr/models/*.pt; it writes no
network) into MONAI 1.6.1's classes and runs the sampling loops of
make_maisi_folder.py and make_maisi_mr_folder.py with 30 steps:
  io.ct_xyz             plain CT (seed 0, modality 1), HU
  io.ct_from_label_xyz  CT steered by the ControlNet from io.label_xyz of
                        maisi_folder_expected.safetensors, HU, then cropped
                        to the label's body (0 -> -1000 HU, crop_img_body_mask)
  io.mr_guided_xyz      MR with guidance 15 (seed 7, modality 9), MR units
  io.ct_exact_xyz       plain CT with MONAI's two quirks removed (float64
                        timesteps, the next timestep not truncated): what
                        medsynth's exact integration is held to
  io.window_latent_xyz  a seeded latent [4, 8, 10, 12] (item 8) and
  io.window_decode_xyz  its decode through MONAI's SlidingWindowInferer as
                        NV-Generate decodes (roi 6 latent voxels, overlap
                        0.6666, gaussian, the latent / scale_factor), HU

Needs torch, monai and einops (pip). Run from this folder:
    python3 make_maisi_30_step_reference.py
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import os
import sys

import torch
from monai.apps.generation.maisi.networks.autoencoderkl_maisi import AutoencoderKlMaisi
from monai.apps.generation.maisi.networks.controlnet_maisi import ControlNetMaisi
from monai.apps.generation.maisi.networks.diffusion_model_unet_maisi import DiffusionModelUNetMaisi
from monai.inferers import SlidingWindowInferer
from monai.networks.schedulers.rectified_flow import RFlowScheduler

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "models", "data"))
import make_maisi_folder as ct  # noqa: E402
import make_maisi_mr_folder as mr  # noqa: E402
from make_monai_reference import write_safetensors  # noqa: E402

STEPS = 30


class ExactRFlow:
    """RFlowScheduler's timesteps and Euler step without float16 or int(): the exact integration."""

    def __init__(self, scheduler):
        self.inner = scheduler

    def timesteps_for(self, steps, numel):
        T = self.inner.num_train_timesteps
        s = torch.tensor([1.0 - i / steps for i in range(steps)], dtype=torch.float64)
        r = (numel / self.inner.base_img_size_numel) ** (1.0 / 3.0)
        return (r * s / (1 + (r - 1) * s)) * T

    def step(self, out, t, latents, next_t):
        return latents + out * ((float(t) - float(next_t)) / self.inner.num_train_timesteps)


def loop(unet, latents, spacing, modality, scheduler, exact=False, guidance=0.0, controlnet=None, label=None):
    numel = int(torch.prod(torch.tensor(latents.shape[2:])))
    if exact:
        exact_rflow = ExactRFlow(scheduler)
        timesteps = exact_rflow.timesteps_for(STEPS, numel)
    else:
        scheduler.set_timesteps(STEPS, input_img_size_numel=numel)
        timesteps = scheduler.timesteps
    next_timesteps = torch.cat((timesteps[1:], torch.tensor([0], dtype=timesteps.dtype)))
    with torch.no_grad():
        for t, next_t in zip(timesteps, next_timesteps):
            residuals = {}
            if controlnet is not None:
                down, mid = controlnet(x=latents, timesteps=torch.Tensor((float(t),)),
                                       controlnet_cond=ct.binary_channels(label), class_labels=modality)
                residuals = {"down_block_additional_residuals": down, "mid_block_additional_residual": mid}
            inputs = {"x": latents, "timesteps": torch.Tensor((float(t),)), "spacing_tensor": spacing,
                      "class_labels": modality}
            if guidance > 0:
                inputs = {k: torch.cat([v, torch.zeros_like(modality)]) if k == "class_labels" else torch.cat([v, v])
                          for k, v in inputs.items()}
                conditioned, unconditioned = unet(**inputs).chunk(2)
                out = unconditioned + guidance * (conditioned - unconditioned)
            else:
                out = unet(**inputs, **residuals)
            if exact:
                latents = exact_rflow.step(out, t, latents, next_t)
            else:
                latents, _ = scheduler.step(out, t, latents, next_t)
    return latents


def read_safetensors(path):
    """The float32 tensors of a safetensors file (its JSON header, then the raw data)."""
    import json
    import struct
    with open(path, "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        blob = bytearray(data[8 + size + begin:8 + size + end])
        out[name] = torch.frombuffer(blob, dtype=torch.float32).reshape(entry["shape"]).clone()
    return out


def load(module, path, key=None):
    state = torch.load(path, map_location="cpu", weights_only=False)
    module.load_state_dict(state[key] if key else state)
    return module.eval()


def main():
    folder = os.path.join(here, "maisi_folder")
    ae = load(AutoencoderKlMaisi(**ct.resolved(ct.NETWORK["autoencoder_def"]), save_mem=False),
              f"{folder}/models/autoencoder_v1.pt")
    unet = load(DiffusionModelUNetMaisi(**ct.resolved(ct.NETWORK["diffusion_unet_def"])),
                f"{folder}/models/diff_unet_3d_rflow-ct.pt", "unet_state_dict")
    controlnet = load(ControlNetMaisi(**ct.resolved(ct.NETWORK["controlnet_def"])),
                      f"{folder}/models/controlnet_3d_rflow-ct.pt", "controlnet_state_dict")
    scale_factor = torch.load(f"{folder}/models/diff_unet_3d_rflow-ct.pt", weights_only=False)["scale_factor"]
    size = ct.INFER["output_size"]
    shape = [1, 4] + [s // 4 for s in size]
    spacing = torch.tensor(ct.INFER["spacing"], dtype=torch.float32).unsqueeze(0) * 1e2
    modality = ct.INFER["modality"] * torch.ones(1, dtype=torch.long)

    def noise():
        return torch.randn(shape, generator=torch.Generator().manual_seed(ct.SEED))

    def ct_image(latents):
        with torch.no_grad():
            image = ae.decode_stage_2_outputs(latents / scale_factor)
        return (torch.clip(image, 0.0, 1.0) * 2000.0 - 1000.0)[0, 0]

    scheduler = RFlowScheduler(**ct.resolved(ct.NETWORK["noise_scheduler"]))
    label = read_safetensors(os.path.join(here, "maisi_folder_expected.safetensors"))["io.label_xyz"].long()
    tensors = {
        "io.ct_xyz": ct_image(loop(unet, noise(), spacing, modality, scheduler)),
        "io.ct_exact_xyz": ct_image(loop(unet, noise(), spacing, modality, scheduler, exact=True)),
        "io.ct_from_label_xyz": ct_image(loop(unet, noise(), spacing, modality, scheduler, controlnet=controlnet,
                                              label=label)),
    }
    # NV-Generate's crop_img_body_mask: outside the label's body, -1000 HU.
    tensors["io.ct_from_label_xyz"][label == 0] = -1000.0

    window_latent = torch.randn([1, 4, 8, 10, 12], generator=torch.Generator().manual_seed(5))
    inferer = SlidingWindowInferer(roi_size=[6, 6, 6], sw_batch_size=1, mode="gaussian", overlap=0.6666)
    with torch.no_grad():
        window_image = inferer(network=lambda z: ae.decode_stage_2_outputs(z / scale_factor), inputs=window_latent)
    tensors["io.window_latent_xyz"] = window_latent[0]
    tensors["io.window_decode_xyz"] = (torch.clip(window_image, 0.0, 1.0) * 2000.0 - 1000.0)[0, 0]

    mr_folder = os.path.join(here, "maisi_folder_mr")
    mr_ae = load(AutoencoderKlMaisi(**mr.resolved(mr.NETWORK["autoencoder_def"]), save_mem=False),
                 f"{mr_folder}/models/autoencoder_v1.pt")
    mr_unet = load(DiffusionModelUNetMaisi(**mr.resolved(mr.NETWORK["diffusion_unet_def"])),
                   f"{mr_folder}/models/diff_unet_3d_rflow-mr.pt", "unet_state_dict")
    mr_scale = torch.load(f"{mr_folder}/models/diff_unet_3d_rflow-mr.pt", weights_only=False)["scale_factor"]
    inference = mr.MODEL["diffusion_unet_inference"]
    mr_shape = [1, mr.NETWORK["latent_channels"]] + [s // 4 for s in inference["dim"]]
    mr_latents = torch.randn(mr_shape, generator=torch.Generator().manual_seed(inference["random_seed"]))
    mr_spacing = torch.tensor(inference["spacing"], dtype=torch.float32).unsqueeze(0) * 1e2
    mr_modality = inference["modality"] * torch.ones(1, dtype=torch.long)
    mr_scheduler = RFlowScheduler(**mr.resolved(mr.NETWORK["noise_scheduler"]))
    latents = loop(mr_unet, mr_latents, mr_spacing, mr_modality, mr_scheduler, guidance=inference["cfg_guidance_scale"])
    with torch.no_grad():
        image = mr_ae.decode_stage_2_outputs(latents / mr_scale)
    tensors["io.mr_guided_xyz"] = (image.clamp(min=0.0) * 1000.0)[0, 0]

    gap = (tensors["io.ct_xyz"] - tensors["io.ct_exact_xyz"]).abs().max().item()
    print(f"max |MONAI arithmetic - exact| at {STEPS} steps: {gap:.4f} HU")
    write_safetensors(os.path.join(here, "maisi_30_step_expected.safetensors"), tensors,
                      source="NV-Generate's loop at 30 rflow steps with MONAI 1.6.1, make_maisi_30_step_reference.py")


if __name__ == "__main__":
    main()
