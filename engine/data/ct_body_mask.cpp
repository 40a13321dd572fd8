#include "data/ct_body_mask.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

namespace medsynth {

namespace {

// Air is about -1000 HU, fat -100: a threshold between them outlines the body.
constexpr float k_body_threshold_hu = -500.0f;

using Mask = std::vector<std::uint8_t>;

// Plain loops over the voxels, as label_preparation's convex hull is: the
// engine keeps ITK to volume IO (engine/volume/itk_*, no ITK type past it),
// and LibTorch has no connected-component op.

// Erosion (min) or dilation (max) by a square of radius r in each axial
// slice, one axis at a time (a square is separable). Outside the volume
// counts as body for erosion: a body cut by the field of view keeps its edge.
void square_filter(Mask& mask, const std::array<std::size_t, 3>& size, std::size_t r, bool erode) {
  const std::size_t nx = size[0], ny = size[1], nz = size[2];
  Mask out(mask.size());
  for (int axis = 0; axis < 2; ++axis) {
    const std::size_t n = axis == 0 ? nx : ny, stride = axis == 0 ? 1 : nx;
    for (std::size_t z = 0; z < nz; ++z)
      for (std::size_t other = 0; other < (axis == 0 ? ny : nx); ++other) {
        const std::size_t base = z * nx * ny + (axis == 0 ? other * nx : other);
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t lo = i >= r ? i - r : 0, hi = std::min(n - 1, i + r);
          std::uint8_t v = mask[base + lo * stride];
          for (std::size_t j = lo + 1; j <= hi; ++j)
            v = erode ? std::min(v, mask[base + j * stride]) : std::max(v, mask[base + j * stride]);
          out[base + i * stride] = v;
        }
      }
    mask.swap(out);
  }
}

// Calls `visit` with each of voxel i's 6 face neighbours inside the volume.
template <class Visit>
void for_each_neighbour(std::size_t i, const std::array<std::size_t, 3>& size, Visit visit) {
  const std::size_t nx = size[0], ny = size[1], nz = size[2];
  const std::size_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
  if (x > 0) visit(i - 1);
  if (x + 1 < nx) visit(i + 1);
  if (y > 0) visit(i - nx);
  if (y + 1 < ny) visit(i + nx);
  if (z > 0) visit(i - nx * ny);
  if (z + 1 < nz) visit(i + nx * ny);
}

// Keeps the 6-connected parts of `mask` that hold at least half the voxels
// of the largest; returns false when it has none.
bool keep_large_parts(Mask& mask, const std::array<std::size_t, 3>& size) {
  std::vector<std::uint32_t> part(mask.size(), 0);
  std::vector<std::size_t> voxels{0}, stack;
  for (std::size_t seed = 0; seed < mask.size(); ++seed) {
    if (!mask[seed] || part[seed]) continue;
    const auto id = static_cast<std::uint32_t>(voxels.size());
    std::size_t count = 0;
    part[seed] = id;
    stack.push_back(seed);
    while (!stack.empty()) {
      const std::size_t i = stack.back();
      stack.pop_back();
      ++count;
      for_each_neighbour(i, size, [&](std::size_t j) {
        if (mask[j] && !part[j]) part[j] = id, stack.push_back(j);
      });
    }
    voxels.push_back(count);
  }
  const std::size_t largest = *std::max_element(voxels.begin(), voxels.end());
  if (largest == 0) return false;
  for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = mask[i] && 2 * voxels[part[i]] >= largest;
  return true;
}

// The 6-connected parts of `mask` that hold a voxel of `seeds`.
Mask parts_reached(const Mask& mask, const Mask& seeds, const std::array<std::size_t, 3>& size) {
  Mask out(mask.size(), 0);
  std::vector<std::size_t> stack;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (seeds[i] && mask[i] && !out[i]) out[i] = 1, stack.push_back(i);
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    for_each_neighbour(i, size, [&](std::size_t j) {
      if (mask[j] && !out[j]) out[j] = 1, stack.push_back(j);
    });
  }
  return out;
}

// Fills the holes of one axial slice of `mask`: every pixel that the
// outside (the slice's border) cannot reach through unmasked pixels.
void fill_slice_holes(Mask& mask, std::size_t nx, std::size_t ny, std::size_t z) {
  const std::size_t base = z * nx * ny;
  Mask outside(nx * ny, 0);
  std::vector<std::size_t> stack;
  auto push = [&](std::size_t x, std::size_t y) {
    const std::size_t i = y * nx + x;
    if (!outside[i] && !mask[base + i]) {
      outside[i] = 1;
      stack.push_back(i);
    }
  };
  for (std::size_t x = 0; x < nx; ++x) push(x, 0), push(x, ny - 1);
  for (std::size_t y = 0; y < ny; ++y) push(0, y), push(nx - 1, y);
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    const std::size_t x = i % nx, y = i / nx;
    if (x > 0) push(x - 1, y);
    if (x + 1 < nx) push(x + 1, y);
    if (y > 0) push(x, y - 1);
    if (y + 1 < ny) push(x, y + 1);
  }
  for (std::size_t i = 0; i < nx * ny; ++i)
    if (!outside[i]) mask[base + i] = 1;
}

}  // namespace

std::vector<std::uint8_t> ct_body_mask(const Volume& image) {
  Mask threshold(image.voxels.size(), 0);
  for (std::size_t i = 0; i < threshold.size(); ++i) threshold[i] = image.voxels[i] > k_body_threshold_hu;
  Mask body = threshold;
  square_filter(body, image.size, k_body_opening_voxels, /*erode=*/true);
  if (keep_large_parts(body, image.size)) {
    // Dilated back twice as far as eroded, within the parts of the threshold
    // mask the kept ones lie in: the body's sharp edges (a 5 x 5 square does
    // not fit a tapering tip) come back, a detached table does not, and of
    // a table touching the body only a strip beside it.
    const Mask kept = body;
    square_filter(body, image.size, 2 * k_body_opening_voxels, /*erode=*/false);
    const Mask reached = parts_reached(threshold, kept, image.size);
    for (std::size_t i = 0; i < body.size(); ++i) body[i] = body[i] && reached[i];
  } else {
    // A body thinner than the erosion everywhere: its parts, unopened.
    body = threshold;
    keep_large_parts(body, image.size);
  }
  for (std::size_t z = 0; z < image.size[2]; ++z) fill_slice_holes(body, image.size[0], image.size[1], z);
  return body;
}

}  // namespace medsynth
