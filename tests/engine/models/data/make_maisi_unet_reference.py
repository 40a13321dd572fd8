#!/usr/bin/env python3
"""Writes the MONAI reference fixtures read by maisi_unet_parity_test.cpp.

Each <name>.safetensors holds the state_dict of a tiny MONAI 1.6.1
DiffusionModelUNetMaisi or ControlNetMaisi under MONAI's own names, with every
parameter randomised (MONAI zero-initialises conv2, proj_out, the output conv
and the ControlNet's zero convolutions; a swapped or ignored weight would not
show against zeros), plus "io.*" tensors: the inputs and MONAI's outputs.
Integer inputs (class labels) are stored as F32 and converted by the test.

Run from this folder with the MONAI environment:
    /work/venv-monai/bin/python make_maisi_unet_reference.py [fixture names...]   (default: all)
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import os
import sys

import torch
from monai.apps.generation.maisi.networks.controlnet_maisi import ControlNetMaisi
from monai.apps.generation.maisi.networks.diffusion_model_unet_maisi import DiffusionModelUNetMaisi

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "data"))
from make_monai_reference import write_safetensors  # noqa: E402

SOURCE = "MONAI reference, make_maisi_unet_reference.py"


def randomise(net):
    with torch.no_grad():
        for name, p in net.named_parameters():
            if p.dim() == 1:
                (p.uniform_(0.5, 1.5) if "norm" in name and name.endswith("weight") else p.uniform_(-0.2, 0.2))
            elif "class_embedding" in name:
                p.normal_(0.0, 1.0)
            else:
                p.normal_(0.0, 0.3 / (p[0].numel() ** 0.5))
    return net.eval()


def save(name, net, io):
    write_safetensors(f"{name}.safetensors", {**net.state_dict(), **io}, source=SOURCE)


def unet(name, batch=2, size=8, context_shape=None, **cfg):
    net = randomise(DiffusionModelUNetMaisi(spatial_dims=3, norm_eps=1e-6, **cfg))
    io = {"io.x": torch.randn(batch, cfg["in_channels"], size, size, size), "io.t": torch.tensor([17.0, 731.5])[:batch]}
    kwargs = {}
    if cfg.get("num_class_embeds"):
        io["io.class_labels"] = torch.randint(0, cfg["num_class_embeds"], (batch,)).float()
        kwargs["class_labels"] = io["io.class_labels"].long()
    for option, key, arg, shape in (("include_top_region_index_input", "io.top_region_index", "top_region_index_tensor", 4),
                                    ("include_bottom_region_index_input", "io.bottom_region_index", "bottom_region_index_tensor", 4),
                                    ("include_spacing_input", "io.spacing", "spacing_tensor", 3)):
        if cfg.get(option):
            io[key] = torch.rand(batch, shape) * (1.0 if shape == 4 else 2.0)
            kwargs[arg] = io[key]
    if context_shape:
        io["io.context"] = torch.randn(batch, *context_shape)
        kwargs["context"] = io["io.context"]
    with torch.no_grad():
        io["io.y"] = net(io["io.x"], io["io.t"], **kwargs)
    save(name, net, io)


def controlnet(name, unet_cfg, scale=0.7, batch=2, size=8, **cfg):
    """The ControlNet's residuals, and a UNet (a second file) fed with them."""
    net = randomise(ControlNetMaisi(spatial_dims=3, norm_eps=1e-6, use_checkpointing=False, **cfg))
    factor = 2 ** (len(cfg["conditioning_embedding_num_channels"]) - 1)
    x = torch.randn(batch, cfg["in_channels"], size, size, size)
    t = torch.tensor([17.0, 731.5])[:batch]
    cond = torch.randn(batch, cfg["conditioning_embedding_in_channels"], size * factor, size * factor, size * factor)
    labels = torch.randint(0, cfg["num_class_embeds"], (batch,))
    with torch.no_grad():
        down, mid = net(x, t, cond, conditioning_scale=scale, class_labels=labels)
    io = {"io.x": x, "io.t": t, "io.cond": cond, "io.class_labels": labels.float(), "io.conditioning_scale": torch.tensor([scale]),
          "io.mid": mid, **{f"io.down.{i}": d for i, d in enumerate(down)}}
    save(name, net, io)

    model = randomise(DiffusionModelUNetMaisi(spatial_dims=3, norm_eps=1e-6, **unet_cfg))
    spacing = torch.rand(batch, 3) * 2.0
    with torch.no_grad():
        # MONAI adds the residuals in place: pass copies so that `down` stays as stored.
        y = model(x, t, class_labels=labels, spacing_tensor=spacing, mid_block_additional_residual=mid.clone(),
                  down_block_additional_residuals=[d.clone() for d in down])
    save(f"{name}_unet", model, {**io, "io.spacing": spacing, "io.y": y})


TRUNK = dict(in_channels=2, num_channels=(4, 8, 8), norm_num_groups=4)  # small: each file well under 1 MB

# Each fixture with its own seed, so that one can be remade alone.
FIXTURES = {
    # (a) rflow-ct style: modality class embedding + spacing, self-attention at
    # the two coarse levels without out_proj and with one qkv projection.
    "maisi_unet_rflow": lambda n: unet(
        n, **TRUNK, out_channels=2, num_res_blocks=(2, 1, 1), attention_levels=(False, True, True), num_head_channels=(0, 4, 4),
        num_class_embeds=5, include_spacing_input=True, include_fc=False, use_combined_linear=True),
    # (b) ddpm-ct style: top and bottom region indices + spacing, resnet
    # blocks as down/upsamplers, out_proj and separate q/k/v.
    "maisi_unet_ddpm": lambda n: unet(
        n, **TRUNK, out_channels=1, num_res_blocks=(1, 2, 1), attention_levels=(False, False, True), num_head_channels=(4, 4, 4),
        include_top_region_index_input=True, include_bottom_region_index_input=True, include_spacing_input=True,
        resblock_updown=True, include_fc=True),
    # (c) cross-attention: two transformer layers, a context of 3 tokens, upcast;
    # at the last level 8 channels with 3 per head give 2 heads and an inner width of 6.
    "maisi_unet_cross_attention": lambda n: unet(
        n, **TRUNK, out_channels=2, num_res_blocks=(1, 1, 1), attention_levels=(False, True, True), num_head_channels=(4, 4, 3),
        with_conditioning=True, cross_attention_dim=6, transformer_num_layers=2, upcast_attention=True, include_fc=False,
        use_combined_linear=True, dropout_cattn=0.1, use_flash_attention=False, context_shape=(3, 6)),
    # (d) ControlNetMaisi (and a UNet fed with its residuals), conditioning_scale 0.7.
    "maisi_controlnet": lambda n: controlnet(
        n, **TRUNK, num_res_blocks=(1, 2, 1), attention_levels=(False, True, True), num_head_channels=(4, 4, 4),
        num_class_embeds=3, resblock_updown=True, include_fc=True, conditioning_embedding_in_channels=3,
        conditioning_embedding_num_channels=(4, 8),
        unet_cfg=dict(**TRUNK, out_channels=2, num_res_blocks=(1, 2, 1), attention_levels=(False, True, True),
                      num_head_channels=(4, 4, 4), num_class_embeds=3, resblock_updown=True, include_fc=True,
                      include_spacing_input=True)),
}

if __name__ == "__main__":
    for index, fixture in enumerate(FIXTURES):
        if len(sys.argv) < 2 or fixture in sys.argv[1:]:
            torch.manual_seed(100 + index)
            FIXTURES[fixture](fixture)
