#!/usr/bin/env python3
"""Writes radimagenet_resnet50_narrow.pth and radimagenet_resnet50_narrow_io.safetensors
for feature_network_test.cpp.

The .pth is laid out like RadImageNet's ResNet-50 as torch.hub's
"Warvito/radimagenet-models" loads it (`RadImageNet-ResNet50_notop.pth`, the
network of NV-Generate's 2.5D FID): a plain state dict, torch.save's zip
format, of Keras' ResNet50 v1 written in PyTorch - every convolution has a
bias, a bottleneck strides in its first 1x1 convolution, batch norms use eps
1.001e-5, conv1 7x7/2, max-pool 3/2, blocks 3/4/6/3, no classifier. It is
narrowed (8 channels where ResNet-50 has 64) to stay small, with random
weights and batch-norm statistics measured on random slices. The safetensors file holds a batch of
slices and the network's spatially averaged layer4 output for them (what
NV-Generate's spatial_average gives).

Needs torch (pip). Run from this folder:  python3 make_radimagenet_fixture.py
Made with torch 2.15.0.
"""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "data"))
from make_monai_reference import write_safetensors  # noqa: E402

EPS = 1.001e-5


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        cout = 4 * width
        self.conv1 = nn.Conv2d(cin, width, 1, stride=stride)
        self.bn1 = nn.BatchNorm2d(width, eps=EPS)
        self.conv2 = nn.Conv2d(width, width, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(width, eps=EPS)
        self.conv3 = nn.Conv2d(width, cout, 1)
        self.bn3 = nn.BatchNorm2d(cout, eps=EPS)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride), nn.BatchNorm2d(cout, eps=EPS))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = torch.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return torch.relu(y + (x if self.downsample is None else self.downsample(x)))


class KerasResNet50(nn.Module):
    def __init__(self, stem=64, widths=(64, 128, 256, 512), blocks=(3, 4, 6, 3)):
        super().__init__()
        self.conv1 = nn.Conv2d(3, stem, 7, stride=2, padding=3)
        self.bn1 = nn.BatchNorm2d(stem, eps=EPS)
        cin = stem
        for i, (width, count) in enumerate(zip(widths, blocks)):
            layer = []
            for b in range(count):
                layer.append(Bottleneck(cin, width, 2 if (b == 0 and i > 0) else 1))
                cin = 4 * width
            setattr(self, f"layer{i + 1}", nn.Sequential(*layer))

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 3, stride=2, padding=1)
        return self.layer4(self.layer3(self.layer2(self.layer1(x))))


def calibrated(net, sample_shape):
    """Random weights that keep the signal alive through every block (He-scaled
    kernels, small biases) and batch-norm statistics measured on a random
    sample_shape batch, so that the features depend on the input: a network
    whose output is its biases would pass a parity test with wrong kernels.
    Also used by ../../metrics/data/make_monai_perceptual_reference.py."""
    with torch.no_grad():
        for name, p in net.named_parameters():
            if p.dim() > 1:
                nn.init.kaiming_normal_(p, nonlinearity="relu")
            elif name.endswith("weight"):
                p.uniform_(0.8, 1.2)
            else:
                p.uniform_(-0.05, 0.05)
        for m in net.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.momentum = None  # a cumulative average over the calibration batch
        net.train()
        net(torch.randn(sample_shape))
    return net.eval()


def main():
    torch.manual_seed(5)
    net = calibrated(KerasResNet50(stem=8, widths=(8, 16, 32, 64)), (16, 3, 64, 48))
    torch.save(net.state_dict(), "radimagenet_resnet50_narrow.pth")
    x = torch.randn(3, 3, 64, 48)
    with torch.no_grad():
        features = net(x).mean(dim=(2, 3))
    write_safetensors("radimagenet_resnet50_narrow_io.safetensors", {"io.x": x, "io.features": features},
                      source="Keras-layout ResNet-50 as RadImageNet's PyTorch weights, make_radimagenet_fixture.py")


if __name__ == "__main__":
    main()
