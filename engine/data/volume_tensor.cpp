#include "data/volume_tensor.hpp"

#include <ATen/ATen.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace medsynth {
namespace {

std::vector<std::int64_t> tensor_shape(const Volume& v) {
  return {1, 1, std::int64_t(v.size[2]), std::int64_t(v.size[1]), std::int64_t(v.size[0])};
}

std::string shape_text(at::IntArrayRef sizes) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

void check_voxels(const Volume& v) {
  if (v.voxels.size() != v.voxel_count()) {
    throw RuntimeError("volume_to_tensor: " + std::to_string(v.voxels.size()) + " voxels for a size of " +
                       std::to_string(v.voxel_count()));
  }
}

}  // namespace

at::Tensor volume_to_tensor(const Volume& volume) {
  check_voxels(volume);
  at::Tensor t = at::empty(tensor_shape(volume), at::TensorOptions().dtype(at::kFloat));
  if (!volume.voxels.empty()) std::memcpy(t.data_ptr<float>(), volume.voxels.data(), volume.voxels.size() * sizeof(float));
  return t;
}

at::Tensor volume_to_tensor(Volume&& volume) {
  check_voxels(volume);
  if (volume.voxels.empty()) return volume_to_tensor(static_cast<const Volume&>(volume));
  const auto shape = tensor_shape(volume);
  auto owner = std::make_unique<std::vector<float>>(std::move(volume.voxels));
  volume.voxels.clear();
  float* data = owner->data();
  at::Tensor t = at::from_blob(
      data, shape, [holder = owner.get()](void*) { delete holder; }, at::TensorOptions().dtype(at::kFloat));
  owner.release();  // the tensor's storage frees it from now on
  return t;
}

Volume tensor_to_volume(const at::Tensor& tensor, const Volume& geometry) {
  at::Tensor t = tensor.detach();
  while (t.dim() > 3 && t.size(0) == 1) t = t.squeeze(0);
  const bool matches = t.dim() == 3 && t.size(0) == std::int64_t(geometry.size[2]) &&
                       t.size(1) == std::int64_t(geometry.size[1]) && t.size(2) == std::int64_t(geometry.size[0]);
  if (!matches) {
    throw RuntimeError("tensor_to_volume: a tensor of shape " + shape_text(tensor.sizes()) +
                       " does not fit a volume of " + std::to_string(geometry.size[0]) + "x" +
                       std::to_string(geometry.size[1]) + "x" + std::to_string(geometry.size[2]) +
                       " voxels (expected [1, 1, Z, Y, X])");
  }
  t = t.to(at::kCPU, at::kFloat).contiguous();
  Volume out;
  out.size = geometry.size;
  out.spacing = geometry.spacing;
  out.origin = geometry.origin;
  out.direction = geometry.direction;
  const float* src = t.data_ptr<float>();
  out.voxels.assign(src, src + t.numel());
  return out;
}

}  // namespace medsynth
