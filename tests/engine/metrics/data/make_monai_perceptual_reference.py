#!/usr/bin/env python3
"""Writes the fixtures of perceptual_loss_test.cpp: MONAI 1.6.1's
PerceptualLoss with small random networks in the layouts of the released
weights, and its values (and input gradients) on fixed inputs.

- medicalnet_perceptual_resnet10.pth: a ResNet-10 in MedicalNet's own layout
  (the one torch.hub "Warvito/MedicalNet-models" builds: conv1 7^3 stride 2,
  max-pool 3/2, layer2 stride 2, layer3/layer4 stride 1 with dilation 2/4,
  shortcut B, no biases), saved as resnet_10_23dataset.pth is: a plain state
  dict. Narrowed (4/8/12/16 channels for 64/128/256/512) to stay small.
- The 2.5D RadImageNet variant reuses ../../eval/data/radimagenet_resnet50_narrow.pth
  (make_radimagenet_fixture.py), already in the RadImageNet release's layout.

torch.hub cannot reach the network here, so the script hands MONAI these
networks through torch.hub.load; everything after that is MONAI's own code.
fake_3d_ratio is 1 (every slice): MONAI draws a random subset otherwise.

Needs torch and monai (pip). Run from this folder:
    python3 make_monai_perceptual_reference.py
Made with torch 2.15.0 and MONAI 1.6.1.
"""
import os
import sys

import torch
from torch import nn

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "models", "data"))
sys.path.insert(0, os.path.join(here, "..", "..", "eval", "data"))
from make_monai_reference import write_safetensors  # noqa: E402
from make_radimagenet_fixture import KerasResNet50, calibrated  # noqa: E402


class DilatedBasicBlock(nn.Module):
    def __init__(self, cin, cout, stride, dilation):
        super().__init__()
        self.conv1 = nn.Conv3d(cin, cout, 3, stride=stride, padding=dilation, dilation=dilation, bias=False)
        self.bn1 = nn.BatchNorm3d(cout)
        self.conv2 = nn.Conv3d(cout, cout, 3, padding=dilation, dilation=dilation, bias=False)
        self.bn2 = nn.BatchNorm3d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv3d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm3d(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(y + (x if self.downsample is None else self.downsample(x)))


class MedicalNetResNet10(nn.Module):
    """MedicalNet's ResNet-10 (one BasicBlock per layer); forward gives layer4's map."""

    def __init__(self, widths=(64, 128, 256, 512)):
        super().__init__()
        self.conv1 = nn.Conv3d(1, widths[0], 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm3d(widths[0])
        cin = widths[0]
        for i, (w, stride, dilation) in enumerate(zip(widths, (1, 2, 1, 1), (1, 1, 2, 4))):
            setattr(self, f"layer{i + 1}", nn.Sequential(DilatedBasicBlock(cin, w, stride, dilation)))
            cin = w

    def forward(self, x):
        x = nn.functional.max_pool3d(torch.relu(self.bn1(self.conv1(x))), 3, stride=2, padding=1)
        return self.layer4(self.layer3(self.layer2(self.layer1(x))))


def monai_loss(network, **kwargs):
    from monai.losses import PerceptualLoss

    real_load = torch.hub.load
    torch.hub.load = lambda *a, **k: network
    try:
        return PerceptualLoss(spatial_dims=3, **kwargs)
    finally:
        torch.hub.load = real_load


def value_and_gradient(loss, x, y):
    x = x.clone().requires_grad_(True)
    value = loss(x, y)
    value.backward()
    return value.detach().reshape(1), x.grad


def smooth_volume(shape, seed):
    g = torch.Generator().manual_seed(seed)
    v = torch.rand(shape, generator=g)
    v = nn.functional.avg_pool3d(v.flatten(0, 1).unsqueeze(1), 3, stride=1, padding=1).view(shape)
    return (v - v.min()) / (v.max() - v.min())


def main():
    torch.manual_seed(11)
    net = calibrated(MedicalNetResNet10(widths=(4, 8, 12, 16)), (4, 1, 24, 24, 24))
    torch.save(net.state_dict(), "medicalnet_perceptual_resnet10.pth")
    loss = monai_loss(net, network_type="medicalnet_resnet10_23datasets", is_fake_3d=False)
    x = smooth_volume((2, 2, 16, 16, 8), 1)
    y = (x + 0.1 * torch.randn(x.shape)).clamp(0, 1)
    value, grad = value_and_gradient(loss, x, y)
    out = {"medicalnet.x": x, "medicalnet.y": y, "medicalnet.loss": value, "medicalnet.grad": grad}

    radimagenet = KerasResNet50(stem=8, widths=(8, 16, 32, 64))
    radimagenet.load_state_dict(torch.load(os.path.join(here, "..", "..", "eval", "data", "radimagenet_resnet50_narrow.pth")))
    loss = monai_loss(radimagenet.eval(), network_type="radimagenet_resnet50", is_fake_3d=True, fake_3d_ratio=1.0)
    x = smooth_volume((1, 1, 32, 32, 24), 2)
    y = (x + 0.1 * torch.randn(x.shape)).clamp(0, 1)
    value, _ = value_and_gradient(loss, x, y)  # the gradient path is the 3D case's; kept out for size
    out.update({"radimagenet.x": x, "radimagenet.y": y, "radimagenet.loss": value})
    write_safetensors("monai_perceptual.safetensors", out, source="MONAI 1.6.1 PerceptualLoss, make_monai_perceptual_reference.py")
    print({k: v.item() for k, v in out.items() if k.endswith("loss")})


if __name__ == "__main__":
    main()
