#include "data/spatial_transforms.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace medsynth {
namespace {

// Linear interpolation along one axis to `new_n` samples, `step` input voxels apart.
Volume resample_axis(const Volume& in, int axis, std::size_t new_n, double step) {
  const std::size_t n = in.size[axis];
  std::vector<std::size_t> i0(new_n), i1(new_n);
  std::vector<double> frac(new_n);
  for (std::size_t j = 0; j < new_n; ++j) {
    const double pos = std::clamp(double(j) * step, 0.0, double(n - 1));
    i0[j] = static_cast<std::size_t>(std::floor(pos));
    i1[j] = std::min(i0[j] + 1, n - 1);
    frac[j] = pos - double(i0[j]);
  }
  Volume out = in;
  out.size[axis] = new_n;
  out.voxels.assign(out.voxel_count(), 0.0f);
  const auto& s = out.size;
  at::parallel_for(0, std::int64_t(s[2]), 1, [&](std::int64_t z0, std::int64_t z1) {
    for (std::size_t z = std::size_t(z0); z < std::size_t(z1); ++z) {
      for (std::size_t y = 0; y < s[1]; ++y) {
        for (std::size_t x = 0; x < s[0]; ++x) {
          std::array<std::size_t, 3> a{x, y, z}, b{x, y, z};
          const std::size_t j = axis == 0 ? x : axis == 1 ? y : z;
          a[axis] = i0[j];
          b[axis] = i1[j];
          const double va = in.at(a[0], a[1], a[2]);
          const double vb = in.at(b[0], b[1], b[2]);
          out.at(x, y, z) = static_cast<float>(va + frac[j] * (vb - va));
        }
      }
    }
  });
  return out;
}

}  // namespace

Volume resample_to_spacing(const Volume& volume, const std::array<double, 3>& spacing) {
  for (double s : spacing) {
    if (!(s > 0.0) || !std::isfinite(s)) {
      throw ConfigError({{"data.target_spacing", "every spacing must be finite and > 0 (got " + std::to_string(s) + ")"}});
    }
  }
  Volume out = volume;
  for (int axis = 0; axis < 3; ++axis) {
    if (out.size[axis] == 0 || out.spacing[axis] == spacing[axis]) {
      out.spacing[axis] = spacing[axis];
      continue;
    }
    const double ratio = spacing[axis] / out.spacing[axis];  // input voxels per output voxel
    const auto new_n = static_cast<std::size_t>(std::max(1.0, std::round(double(out.size[axis]) / ratio)));
    out = resample_axis(out, axis, new_n, ratio);
    out.spacing[axis] = spacing[axis];
  }
  return out;
}

PatchPlacement random_patch_placement(const std::array<std::size_t, 3>& volume_size,
                                      const std::array<int, 3>& patch_size, bool random_flip, CounterRng& rng) {
  PatchPlacement p;
  for (int a = 0; a < 3; ++a) {
    const auto n = std::int64_t(volume_size[a]);
    const auto k = std::int64_t(patch_size[a]);
    const std::uint64_t draw = rng.next();
    if (n >= k) {
      p.start[a] = std::int64_t((static_cast<unsigned __int128>(draw) * std::uint64_t(n - k + 1)) >> 64);
    } else {
      p.start[a] = -((k - n) / 2);
    }
  }
  for (int a = 0; a < 3; ++a) {
    const bool coin = rng.uniform() < 0.5;
    p.flip[a] = random_flip && coin;
  }
  return p;
}

float volume_minimum(const Volume& volume) {
  if (volume.voxels.empty()) return 0.0f;
  return *std::min_element(volume.voxels.begin(), volume.voxels.end());
}

void copy_patch(const Volume& volume, const PatchPlacement& placement, const std::array<int, 3>& patch_size,
                float* out) {
  const std::array<std::int64_t, 3> n{std::int64_t(volume.size[0]), std::int64_t(volume.size[1]),
                                      std::int64_t(volume.size[2])};
  const std::array<std::int64_t, 3> k{patch_size[0], patch_size[1], patch_size[2]};
  bool needs_pad = false;
  for (int a = 0; a < 3; ++a) needs_pad |= placement.start[a] < 0 || placement.start[a] + k[a] > n[a];
  const float pad = needs_pad ? volume_minimum(volume) : 0.0f;

  // Source coordinate of window coordinate i along axis a, or -1 for padding.
  auto source = [&](int a, std::int64_t i) {
    const std::int64_t w = placement.flip[a] ? k[a] - 1 - i : i;
    const std::int64_t s = placement.start[a] + w;
    return (s >= 0 && s < n[a]) ? s : std::int64_t(-1);
  };
  std::vector<std::int64_t> sx(static_cast<std::size_t>(k[0]));
  for (std::int64_t x = 0; x < k[0]; ++x) sx[std::size_t(x)] = source(0, x);
  for (std::int64_t z = 0; z < k[2]; ++z) {
    const std::int64_t sz = source(2, z);
    for (std::int64_t y = 0; y < k[1]; ++y) {
      const std::int64_t sy = source(1, y);
      float* row = out + (z * k[1] + y) * k[0];
      if (sz < 0 || sy < 0) {
        std::fill(row, row + k[0], pad);
        continue;
      }
      const float* src = volume.voxels.data() + (sz * n[1] + sy) * n[0];
      for (std::int64_t x = 0; x < k[0]; ++x) row[x] = sx[std::size_t(x)] >= 0 ? src[sx[std::size_t(x)]] : pad;
    }
  }
}

Volume extract_patch(const Volume& volume, const PatchPlacement& placement, const std::array<int, 3>& patch_size) {
  for (int a = 0; a < 3; ++a) {
    if (patch_size[a] < 1) throw RuntimeError("extract_patch: patch sizes must be >= 1");
  }
  Volume out = make_volume({std::size_t(patch_size[0]), std::size_t(patch_size[1]), std::size_t(patch_size[2])},
                           volume.spacing);
  out.direction = volume.direction;
  for (int r = 0; r < 3; ++r) {
    out.origin[r] = volume.origin[r];
    for (int c = 0; c < 3; ++c) out.origin[r] += volume.direction[r * 3 + c] * double(placement.start[c]) * volume.spacing[c];
  }
  copy_patch(volume, placement, patch_size, out.voxels.data());
  return out;
}

Volume crop_or_pad(const Volume& volume, const std::array<std::size_t, 3>& size) {
  PatchPlacement p;
  std::array<int, 3> k{};
  for (int a = 0; a < 3; ++a) {
    const auto n = std::int64_t(volume.size[a]);
    const auto t = std::int64_t(size[a]);
    p.start[a] = n >= t ? (n - t) / 2 : -((t - n) / 2);
    k[a] = int(t);
  }
  return extract_patch(volume, p, k);
}

void flip_axis(Volume& volume, int axis) {
  if (axis < 0 || axis > 2) throw RuntimeError("flip_axis: axis must be 0, 1 or 2 (got " + std::to_string(axis) + ")");
  const auto& s = volume.size;
  for (std::size_t z = 0; z < s[2]; ++z) {
    for (std::size_t y = 0; y < s[1]; ++y) {
      for (std::size_t x = 0; x < s[0]; ++x) {
        std::array<std::size_t, 3> a{x, y, z};
        std::array<std::size_t, 3> b = a;
        b[axis] = s[axis] - 1 - a[axis];
        if (a[axis] < b[axis]) std::swap(volume.at(a[0], a[1], a[2]), volume.at(b[0], b[1], b[2]));
      }
    }
  }
}

}  // namespace medsynth
