#!/usr/bin/env python3
"""Writes medicalnet_resnet10.pth and medicalnet_resnet10_io.safetensors for feature_network_test.cpp.

The .pth is laid out like MedicalNet's released weights: torch.save in the
legacy (non-zip) format of {'state_dict': OrderedDict('module.<name>': ...)},
from MONAI 1.6.1's resnet10(spatial_dims=3, n_input_channels=1,
feed_forward=False, shortcut_type="B", bias_downsample=False) - the way MONAI
loads MedicalNet - narrowed (widen_factor 0.125) to stay small, with random
weights and random batch-norm statistics. The safetensors file holds an
input and MONAI's features for it (the pooled layer4 output).

Needs torch, monai (pip). Run from this folder:  python3 make_medicalnet_fixture.py
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import os
import sys
from collections import OrderedDict

import torch
from monai.networks.nets import resnet10

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "data"))
from make_monai_reference import write_safetensors  # noqa: E402


def main():
    torch.manual_seed(3)
    net = resnet10(spatial_dims=3, n_input_channels=1, feed_forward=False, shortcut_type="B", bias_downsample=False,
                   widen_factor=0.125).eval()
    with torch.no_grad():
        for name, b in net.named_buffers():
            if name.endswith("running_mean"):
                b.uniform_(-0.2, 0.2)
            elif name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
        for name, p in net.named_parameters():
            if p.dim() == 1:
                p.uniform_(0.5, 1.5) if name.endswith("weight") else p.uniform_(-0.2, 0.2)
    state = OrderedDict(("module." + k, v) for k, v in net.state_dict().items())
    torch.save({"state_dict": state}, "medicalnet_resnet10.pth", _use_new_zipfile_serialization=False)
    x = torch.randn(2, 1, 16, 20, 12)
    with torch.no_grad():
        features = net(x)
    write_safetensors("medicalnet_resnet10_io.safetensors", {"io.x": x, "io.features": features},
                      source="MONAI resnet10 with MedicalNet-style loading, make_medicalnet_fixture.py")


if __name__ == "__main__":
    main()
