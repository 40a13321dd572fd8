// Every 3D convolution of our networks runs through conv3d_forward, which
// works around a LibTorch 2.15 CPU bug: under bf16 autocast, a convolution
// whose kernel is larger than its input along a spatial axis (a 3^3 kernel
// on a 2^3 map, a 4^3 kernel on a 3^3 map, a strided 3^3 kernel on 1^3)
// returns weight gradients that are uninitialised memory: values up to 1e37,
// different from call to call, sometimes NaN. Measured on an EPYC with
// AVX512-BF16 (oneDNN's bf16 path), in PyTorch as in our engine; fp32 is
// right. Such layers (the PatchGAN's last two, a diffusion UNet's deepest
// level on a small latent, ResNet's layer4 on small volumes) are tiny, so they
// run in fp32. docs/reliability.md, "bf16 convolutions on tiny maps".
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/modules/conv.h>

namespace medsynth {

// Whether `conv` on `x` is a case the bug hits: bf16 autocast on the CPU, a
// kernel larger than x along a spatial axis, and a weight gradient to come
// (grad mode on, the weight requiring it): the forward itself is right.
bool conv3d_needs_fp32(const torch::nn::Conv3dImpl& conv, const at::Tensor& x);

// conv->forward(x), in fp32 with autocast off where conv3d_needs_fp32 says so
// (the output is then fp32; the next layer casts it as autocast would).
at::Tensor conv3d_forward(torch::nn::Conv3dImpl& conv, const at::Tensor& x);

}  // namespace medsynth
