#!/usr/bin/env python3
"""Writes torch_save/medicalnet_resnet10_tiny.pth, read by tests/engine/train/init_weights_test.cpp.

A file laid out as Tencent MedicalNet's published 3D ResNet weights are:
  {'state_dict': DataParallel(model).state_dict()}   (every key 'module.'-prefixed)
in torch's legacy (pre-1.6) format. The model is a ResNet-10 built the way
MedicalNet builds it (module names conv1, bn1, layer1..4 of BasicBlocks with
conv1/bn1/conv2/bn2 and a type-B shortcut downsample.0/.1; layer2 strides,
layer3/4 dilate; a segmentation head conv_seg), written here from its paper's
description, with tiny widths so that the file stays a few tens of KB:
  block_inplanes (2, 4, 8, 16), conv1 7^3 on 1 channel, conv_seg of 4 channels.
Our survival ResNet (engine/models/resnet3d) of depth 10 with these widths
takes every tensor except conv_seg.*; its own head (fc) is not in the file.

Every value is exact and recomputable in the C++ test: floating tensor i of
the state dict (in its order, counting every entry) holds
(arange(numel) + 1000 * i) / 1024, reshaped; num_batches_tracked holds 7.

Run from this folder with torch installed (made with torch 2.15.0):
    ../../../../.deps/venv/bin/python make_medicalnet_fixture.py
"""
import os

import torch
from torch import nn

OUT = "torch_save/medicalnet_resnet10_tiny.pth"
WIDTHS = (2, 4, 8, 16)
SEG_CHANNELS = 4


def conv3(c_in, c_out, stride=1, dilation=1):
    return nn.Conv3d(c_in, c_out, 3, stride=stride, padding=dilation, dilation=dilation, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, c_in, planes, stride, dilation, downsample):
        super().__init__()
        self.conv1 = conv3(c_in, planes, stride, dilation)
        self.bn1 = nn.BatchNorm3d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3(planes, planes, dilation=dilation)
        self.bn2 = nn.BatchNorm3d(planes)
        self.downsample = downsample


class MedicalNetResNet10(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv3d(1, WIDTHS[0], 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm3d(WIDTHS[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool3d(3, stride=2, padding=1)
        self.in_planes = WIDTHS[0]
        for index, (planes, stride, dilation) in enumerate(zip(WIDTHS, (1, 2, 1, 1), (1, 1, 2, 4)), start=1):
            setattr(self, f"layer{index}", self.layer(planes, stride, dilation))
        self.conv_seg = nn.Sequential(
            nn.ConvTranspose3d(self.in_planes, SEG_CHANNELS, 2, stride=2), nn.BatchNorm3d(SEG_CHANNELS), nn.ReLU(inplace=True),
            nn.Conv3d(SEG_CHANNELS, SEG_CHANNELS, 3, padding=1, bias=False), nn.BatchNorm3d(SEG_CHANNELS),
            nn.ReLU(inplace=True), nn.Conv3d(SEG_CHANNELS, 2, 1, bias=False))

    def layer(self, planes, stride, dilation):
        downsample = None
        if stride != 1 or self.in_planes != planes:  # shortcut type B
            downsample = nn.Sequential(nn.Conv3d(self.in_planes, planes, 1, stride=stride, bias=False), nn.BatchNorm3d(planes))
        block = BasicBlock(self.in_planes, planes, stride, dilation, downsample)
        self.in_planes = planes
        return nn.Sequential(block)


def main():
    model = nn.DataParallel(MedicalNetResNet10())
    state = model.state_dict()
    with torch.no_grad():
        for i, value in enumerate(state.values()):
            if value.is_floating_point():
                value.copy_(((torch.arange(value.numel(), dtype=torch.float64) + 1000 * i) / 1024).reshape(value.shape))
            else:
                value.fill_(7)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    torch.save({"state_dict": state}, OUT, _use_new_zipfile_serialization=False)
    loaded = torch.load(OUT, weights_only=True)["state_dict"]
    assert all(k.startswith("module.") for k in loaded)
    assert list(loaded) == list(state) and all(torch.equal(loaded[k], state[k]) for k in state)
    print(f"{OUT}: {len(state)} tensors, {os.path.getsize(OUT)} bytes")
    for name, value in loaded.items():
        print(f"  {name} {tuple(value.shape)}")


if __name__ == "__main__":
    main()
