// Conversions between medsynth::Volume (x fastest) and LibTorch tensors
// [1, 1, Z, Y, X] float32: the memory layouts are the same, so a voxel
// keeps its index. Called by the batch loader's users, by tasks' validation
// (volume in, reconstruction out) and by generate (samples written to disk).
#pragma once

#include <ATen/core/Tensor.h>

#include "volume/volume.hpp"

namespace medsynth {

// A CPU float32 tensor [1, 1, Z, Y, X] holding a copy of the voxels (the
// volume may be a cached one that must not change under the tensor).
at::Tensor volume_to_tensor(const Volume& volume);
// The same without copying: the voxel buffer moves into the tensor, which
// owns it (freed with the tensor's storage). `volume` is left without voxels.
at::Tensor volume_to_tensor(Volume&& volume);

// The voxels of a tensor of shape [Z, Y, X], [1, Z, Y, X] or [1, 1, Z, Y, X]
// (any device and floating type) with the geometry (spacing, origin,
// direction) of `geometry`, whose size must match. Throws RuntimeError naming
// both shapes otherwise.
Volume tensor_to_volume(const at::Tensor& tensor, const Volume& geometry);

}  // namespace medsynth
