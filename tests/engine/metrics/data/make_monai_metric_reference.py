#!/usr/bin/env python3
"""Writes monai_metrics.safetensors, read by distribution_metrics_test.cpp:
MONAI 1.6.1's FIDMetric, MMDMetric and MultiScaleSSIMMetric on inputs that
both sides build from the same formulas (so the fixture holds only small
tensors: the feature sets, and MONAI's results).

Needs torch, monai and scipy (pip; FIDMetric's matrix square root is
scipy's). Run from this folder:  python3 make_monai_metric_reference.py
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import os
import sys

import torch
from monai.metrics import FIDMetric, MMDMetric, MultiScaleSSIMMetric

# One safetensors writer for all MONAI fixtures (the models' script).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "data"))
from make_monai_reference import write_safetensors  # noqa: E402


def pattern_volume(batch, size, phase):
    """[batch, 1, size, size, size] in [0, 1]: smooth structure plus a
    high-frequency term, from sines only (metric_inputs.cpp builds the same)."""
    out = torch.empty(batch, 1, size, size, size, dtype=torch.float64)
    r = torch.arange(size, dtype=torch.float64)
    i, j, k = torch.meshgrid(r, r, r, indexing="ij")
    for b in range(batch):
        p = phase + 0.7 * b
        v = 0.5 + 0.25 * torch.sin(0.21 * i + p) * torch.cos(0.17 * j - 0.5 * p) + 0.15 * torch.sin(0.11 * k + 0.3 * i + p)
        v = v + 0.08 * torch.sin(12.9898 * i + 78.233 * j + 37.719 * k + 3.0 * p)
        out[b, 0] = v.clamp(0.0, 1.0)
    return out.to(torch.float32)


def feature_set(n, f, phase):
    """[n, f]: correlated, non-Gaussian features from sines."""
    a = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    c = torch.arange(f, dtype=torch.float64).unsqueeze(0)
    return torch.sin(1.3 * a * (c + 1) + phase) + 0.5 * torch.cos(0.7 * a + 0.9 * c * c + 2 * phase) + 0.1 * c


def main():
    torch.set_default_dtype(torch.float32)
    t = {}
    fa, fb = feature_set(40, 12, 0.3), feature_set(33, 12, 1.1)
    t["fid.a"], t["fid.b"] = fa, fb
    t["fid.value"] = FIDMetric()(fa, fb).reshape(1)

    y, y_pred = pattern_volume(4, 12, 0.0), pattern_volume(4, 12, 0.4)
    t["mmd.value"] = MMDMetric()(y, y_pred).reshape(1).double()

    x, ref = pattern_volume(2, 48, 0.0), pattern_volume(2, 48, 0.25)
    three = MultiScaleSSIMMetric(spatial_dims=3, data_range=1.0, kernel_size=7, kernel_sigma=1.5, weights=(0.2, 0.3, 0.5), reduction="none")
    t["ms_ssim.k7_w3"] = three(x, ref).reshape(-1).double()
    five = MultiScaleSSIMMetric(spatial_dims=3, data_range=1.0, kernel_size=5, kernel_sigma=1.0, reduction="none")
    x80, ref80 = pattern_volume(1, 80, 0.0), pattern_volume(1, 80, 0.5)
    t["ms_ssim.k5_default_weights"] = five(x80, ref80).reshape(-1).double()
    write_safetensors("monai_metrics.safetensors", t, torch.float64, "MONAI 1.6.1 metrics, make_monai_metric_reference.py")
    for k, v in t.items():
        if k.endswith("value") or k.startswith("ms_ssim"):
            print(k, v.tolist())


if __name__ == "__main__":
    main()
