#include "data/spatial_transforms.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

// Linear interpolation along one axis to `new_n` samples, `step` input voxels
// apart, the first at input position `first` (clamped to the volume).
// `nearest`: the closest input voxel instead (label maps keep their values).
Volume resample_axis(const Volume& in, int axis, std::size_t new_n, double step, double first = 0.0,
                     Interpolation mode = Interpolation::linear) {
  const std::size_t n = in.size[axis];
  std::vector<std::size_t> i0(new_n), i1(new_n);
  std::vector<double> frac(new_n);
  for (std::size_t j = 0; j < new_n; ++j) {
    const double pos = std::clamp(first + double(j) * step, 0.0, double(n - 1));
    i0[j] = static_cast<std::size_t>(mode == Interpolation::nearest ? std::round(pos) : std::floor(pos));
    i1[j] = std::min(i0[j] + 1, n - 1);
    frac[j] = mode == Interpolation::nearest ? 0.0 : pos - double(i0[j]);
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

// "24x24x24" or "1e+06x1e+06x1e+06": a triple as messages show it.
std::string triple_text(const std::array<double, 3>& v) {
  char text[96];
  std::snprintf(text, sizeof text, "%gx%gx%g", v[0], v[1], v[2]);
  return text;
}

}  // namespace

Volume resample_to_spacing(const Volume& volume, const std::array<double, 3>& spacing, Interpolation mode,
                           const std::string& source) {
  for (double s : spacing) {
    if (!(s > 0.0) || !std::isfinite(s)) {
      throw ConfigError({{"data.target_spacing", "every spacing must be finite and > 0 (got " + std::to_string(s) + ")"}});
    }
  }
  // Every axis's new length first, and the grid after each axis checked
  // against the cap, before anything is allocated. In double: a length from
  // a hostile spacing may not fit 64 bits.
  const std::uint64_t cap = VolumeReadOptions{}.max_voxels;
  std::array<double, 3> grid{double(volume.size[0]), double(volume.size[1]), double(volume.size[2])};
  std::array<double, 3> ratio{0, 0, 0};  // input voxels per output voxel; 0: the axis stays
  for (int axis = 0; axis < 3; ++axis) {
    if (volume.size[axis] == 0 || volume.spacing[axis] == spacing[axis]) continue;
    ratio[axis] = spacing[axis] / volume.spacing[axis];
    grid[axis] = std::max(1.0, std::round(double(volume.size[axis]) / ratio[axis]));
    if (grid[0] * grid[1] * grid[2] > double(cap))
      throw DataError(source, "resampling its " + triple_text(volume.spacing) + " mm voxels to " +
                                  triple_text(spacing) + " mm would make " + triple_text(grid) +
                                  " voxels, over the cap of " + std::to_string(cap) +
                                  " that reading holds every volume to");
  }
  Volume out = volume;
  for (int axis = 0; axis < 3; ++axis) {
    if (ratio[axis] > 0) out = resample_axis(out, axis, static_cast<std::size_t>(grid[axis]), ratio[axis], 0.0, mode);
    out.spacing[axis] = spacing[axis];
  }
  return out;
}

// NV-Generate's round_number: the nearest multiple, at least one. Python's
// round() takes halves to even (2.5 -> 2), as nearbyint does by default.
std::size_t nearest_multiple(std::size_t n, int multiple) {
  const auto m = static_cast<double>(multiple);
  return static_cast<std::size_t>(std::max(std::nearbyint(static_cast<double>(n) / m), 1.0) * m);
}

Volume resize_to_multiple(const Volume& volume, int multiple, Interpolation mode) {
  if (multiple <= 0) return volume;
  Volume out = volume;
  for (int axis = 0; axis < 3; ++axis) {
    const std::size_t n = out.size[axis], new_n = nearest_multiple(n, multiple);
    if (n == 0 || new_n == n) continue;
    // torch's trilinear interpolate without align_corners (MONAI Resized):
    // output voxel j samples input position (j + 0.5) * n / new_n - 0.5.
    const double step = double(n) / double(new_n), first = 0.5 * step - 0.5;
    out = resample_axis(out, axis, new_n, step, first, mode);
    for (int w = 0; w < 3; ++w) out.origin[w] += volume.direction[w * 3 + axis] * first * out.spacing[axis];
    out.spacing[axis] *= step;
  }
  return out;
}

Volume reorient(const Volume& volume, const std::string& code) {
  // Each code letter is where the axis points, as a signed LPS world axis.
  std::array<int, 3> world{};
  std::array<double, 3> sign{};
  for (int k = 0; k < 3; ++k) {
    const char c = k < static_cast<int>(code.size()) ? code[k] : '?';
    const std::string letters = "LRPAIS";
    const auto at = letters.find(c);
    if (code.size() != 3 || at == std::string::npos)
      throw ConfigError(
          {{"data.orientation", "must be three of L/R, P/A, I/S such as RAS or LPS (got '" + code + "')"}});
    world[k] = static_cast<int>(at / 2);
    sign[k] = (c == 'L' || c == 'P' || c == 'S') ? 1.0 : -1.0;
  }
  if (world[0] == world[1] || world[0] == world[2] || world[1] == world[2])
    throw ConfigError({{"data.orientation", "names one direction twice (got '" + code + "')"}});
  // The stored axis closest to each world axis (MONAI's nearest orientation).
  std::array<int, 3> source{-1, -1, -1};
  std::array<bool, 3> flip{};
  std::array<bool, 3> taken{};
  for (int k = 0; k < 3; ++k) {
    int best = -1;
    double best_value = -1.0;
    for (int i = 0; i < 3; ++i) {
      const double v = std::abs(volume.direction[world[k] * 3 + i]);
      if (!taken[i] && v > best_value) best = i, best_value = v;
    }
    taken[best] = true;
    source[k] = best;
    flip[k] = volume.direction[world[k] * 3 + best] * sign[k] < 0;
  }
  Volume out = volume;
  for (int k = 0; k < 3; ++k) {
    out.size[k] = volume.size[source[k]];
    out.spacing[k] = volume.spacing[source[k]];
    for (int w = 0; w < 3; ++w) out.direction[w * 3 + k] = volume.direction[w * 3 + source[k]] * (flip[k] ? -1.0 : 1.0);
  }
  // The new voxel 0 is the stored voxel at the flipped axes' far ends.
  for (int k = 0; k < 3; ++k)
    if (flip[k])
      for (int w = 0; w < 3; ++w)
        out.origin[w] +=
            volume.direction[w * 3 + source[k]] * double(volume.size[source[k]] - 1) * volume.spacing[source[k]];
  for (std::size_t z = 0; z < out.size[2]; ++z)
    for (std::size_t y = 0; y < out.size[1]; ++y)
      for (std::size_t x = 0; x < out.size[0]; ++x) {
        const std::array<std::size_t, 3> at_out{x, y, z};
        std::array<std::size_t, 3> at_in{};
        for (int k = 0; k < 3; ++k) at_in[source[k]] = flip[k] ? volume.size[source[k]] - 1 - at_out[k] : at_out[k];
        out.at(x, y, z) = volume.at(at_in[0], at_in[1], at_in[2]);
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
