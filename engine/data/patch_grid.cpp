#include "data/patch_grid.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace medsynth {

void PatchGridOptions::validate(const std::string& field_prefix) const {
  static const char* axis[] = {"z", "y", "x"};
  for (int d = 0; d < 3; ++d) {
    if (patch[d] < 1) throw UsageError(field_prefix + ".patch_size: every entry must be >= 1 (axis " + axis[d] + " is " + std::to_string(patch[d]) + ")");
    if (stride[d] < 1 || stride[d] > patch[d])
      throw UsageError(field_prefix + ".patch_stride: every entry must be between 1 and the patch size (axis " + axis[d] + ": stride " +
                       std::to_string(stride[d]) + ", patch " + std::to_string(patch[d]) + "); a larger stride would skip voxels");
  }
}

PatchGrid make_patch_grid(const Index3& volume, const PatchGridOptions& options) {
  options.validate();
  PatchGrid grid;
  grid.volume = volume;
  grid.patch = options.patch;
  grid.stride = options.stride;
  std::array<std::vector<std::int64_t>, 3> starts;
  for (int d = 0; d < 3; ++d) {
    if (volume[d] < 1) throw UsageError("patch grid: volume axis " + std::to_string(d) + " is empty");
    const std::int64_t p = options.patch[d], s = options.stride[d];
    const std::int64_t count = volume[d] <= p ? 1 : (volume[d] - p + s - 1) / s + 1;
    grid.padded[d] = (count - 1) * s + p;
    for (std::int64_t k = 0; k < count; ++k) starts[d].push_back(k * s);
  }
  for (auto z : starts[0])
    for (auto y : starts[1])
      for (auto x : starts[2]) grid.origins.push_back({z, y, x});
  return grid;
}

at::Tensor extract_patch(const at::Tensor& image, const PatchGrid& grid, std::size_t i, double fill) {
  at::Tensor v = image.dim() == 5 ? image.squeeze(0) : image;
  const Index3& o = grid.origins.at(i);
  at::Tensor out = at::full({v.size(0), grid.patch[0], grid.patch[1], grid.patch[2]}, fill, v.options());
  Index3 n{};
  for (int d = 0; d < 3; ++d) n[d] = std::min(grid.patch[d], grid.volume[d] - o[d]);
  out.slice(1, 0, n[0]).slice(2, 0, n[1]).slice(3, 0, n[2]).copy_(v.slice(1, o[0], o[0] + n[0]).slice(2, o[1], o[1] + n[1]).slice(3, o[2], o[2] + n[2]));
  return out;
}

double foreground_fraction(const at::Tensor& patch, double threshold) {
  return (patch > threshold).to(at::kFloat).mean().item<double>();
}

std::vector<std::size_t> foreground_patches(const at::Tensor& image, const PatchGrid& grid, double threshold, double min_fraction) {
  std::vector<std::size_t> kept;
  const double fill = image.min().item<double>();
  for (std::size_t i = 0; i < grid.size(); ++i)
    if (min_fraction <= 0 || foreground_fraction(extract_patch(image, grid, i, fill), threshold) >= min_fraction) kept.push_back(i);
  return kept;
}

at::Tensor gaussian_importance(const Index3& size, double sigma_scale, const at::TensorOptions& options) {
  std::vector<at::Tensor> axes;
  for (int d = 0; d < 3; ++d) {
    const double center = (size[d] - 1) / 2.0;
    const double sigma = std::max(1e-3, sigma_scale * size[d]);
    at::Tensor x = at::arange(size[d], options.dtype(at::kFloat));
    axes.push_back(at::exp(-(x - center).pow(2) / (2 * sigma * sigma)));
  }
  at::Tensor g = axes[0].view({-1, 1, 1}) * axes[1].view({1, -1, 1}) * axes[2].view({1, 1, -1});
  return (g / g.max()).clamp_min(1e-3);
}

PatchStitcher::PatchStitcher(const PatchGrid& grid, std::int64_t channels, PatchBlend blend, const at::TensorOptions& options)
    : grid_(grid), added_(grid.size(), false) {
  const auto f = options.dtype(at::kFloat);
  sum_ = at::zeros({channels, grid.padded[0], grid.padded[1], grid.padded[2]}, f);
  weight_ = at::zeros({grid.padded[0], grid.padded[1], grid.padded[2]}, f);
  const bool overlap = grid.stride != grid.patch;
  patch_weight_ = blend == PatchBlend::gaussian && overlap ? gaussian_importance(grid.patch, 0.125, f) : at::ones({grid.patch[0], grid.patch[1], grid.patch[2]}, f);
}

void PatchStitcher::add(std::size_t i, const at::Tensor& patch) {
  const Index3& o = grid_.origins.at(i);
  auto region = [&](const at::Tensor& t, int first) {
    return t.slice(first, o[0], o[0] + grid_.patch[0]).slice(first + 1, o[1], o[1] + grid_.patch[1]).slice(first + 2, o[2], o[2] + grid_.patch[2]);
  };
  region(sum_, 1).add_(patch.to(sum_.device(), at::kFloat) * patch_weight_);
  region(weight_, 0).add_(patch_weight_);
  added_[i] = true;
}

bool PatchStitcher::complete() const {
  return std::all_of(added_.begin(), added_.end(), [](bool b) { return b; });
}

at::Tensor PatchStitcher::result() const {
  if (!complete()) throw RuntimeError("patch stitcher: not every grid patch was added");
  return (sum_ / weight_).slice(1, 0, grid_.volume[0]).slice(2, 0, grid_.volume[1]).slice(3, 0, grid_.volume[2]);
}

}  // namespace medsynth
