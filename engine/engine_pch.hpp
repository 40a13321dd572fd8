// Precompiled header of medsynth_engine: the narrow LibTorch headers used by
// most engine TUs (never <torch/torch.h>, which pulls in everything).
#pragma once
#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/conv.h>
#include <torch/nn/functional/normalization.h>
#include <torch/nn/functional/upsampling.h>
#include <torch/optim/adamw.h>
#include <torch/autograd.h>
#include <torch/types.h>
