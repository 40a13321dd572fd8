// Patches on a regular grid over a large volume, and the way back: the
// patch-based VQ-GAN (seed 002: 128^3 patches, stride 128, of 512x512x604 CTPA
// volumes, about 80 per volume) trains on grid patches and validates on whole
// volumes stitched from decoded patches. Used by the VQ-GAN task's batch
// source and validation, and by sliding_window_inference (the Gaussian map).
//
// Along an axis of n voxels with patch p and stride s the grid has
// ceil((n - p) / s) + 1 patches (1 when n <= p); the volume is padded at the
// high end to (count - 1) * s + p with a fill value (the volume's minimum:
// air), and stitching crops the padding off again. With s == p the patches
// tile the padded volume exactly; with s < p overlapping voxels are blended.
// All sizes are in tensor order (z, y, x).
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace medsynth {

using Index3 = std::array<std::int64_t, 3>;

struct PatchGridOptions {
  Index3 patch{128, 128, 128};
  Index3 stride{128, 128, 128};
  // Throws UsageError naming `field_prefix`.patch_size / .stride for values < 1
  // or a stride larger than the patch (voxels would be skipped).
  void validate(const std::string& field_prefix = "data") const;
};

struct PatchGrid {
  Index3 volume{};                 // the original size
  Index3 padded{};                 // what the patches cover
  Index3 patch{};
  Index3 stride{};
  std::vector<Index3> origins;     // z-major order
  std::size_t size() const { return origins.size(); }
};

PatchGrid make_patch_grid(const Index3& volume, const PatchGridOptions& options);

// Patch `i` of `image` [C, Z, Y, X] (or [1, C, Z, Y, X]), the parts outside
// the volume filled with `fill`. Returns [C, pz, py, px].
at::Tensor extract_patch(const at::Tensor& image, const PatchGrid& grid, std::size_t i, double fill);

// Fraction of a patch's voxels above `threshold` (e.g. body vs air in [0, 1] CT).
double foreground_fraction(const at::Tensor& patch, double threshold);

// Indices of the grid patches with at least `min_fraction` foreground (all when 0).
std::vector<std::size_t> foreground_patches(const at::Tensor& image, const PatchGrid& grid, double threshold, double min_fraction);

// Gaussian weight over one patch (MONAI's importance map: sigma = scale * size,
// peak 1, floor 1e-3 so every voxel keeps some weight). [pz, py, px] float.
at::Tensor gaussian_importance(const Index3& size, double sigma_scale, const at::TensorOptions& options);

enum class PatchBlend { constant, gaussian };

// Accumulates (weighted) patches and returns the stitched volume [C, Z, Y, X]
// cropped to grid.volume. Without overlap every voxel comes from one patch
// and the weights are 1 whatever the blend, so stitch(extract(x)) == x exactly.
class PatchStitcher {
 public:
  PatchStitcher(const PatchGrid& grid, std::int64_t channels, PatchBlend blend, const at::TensorOptions& options);
  void add(std::size_t i, const at::Tensor& patch);  // [C, pz, py, px]
  at::Tensor result() const;
  // Every grid patch added? (A voxel never covered would divide by zero.)
  bool complete() const;

 private:
  const PatchGrid& grid_;
  at::Tensor sum_, weight_, patch_weight_;
  std::vector<bool> added_;
};

}  // namespace medsynth
