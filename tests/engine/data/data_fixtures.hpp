// Small fixtures shared by the data tests: tiny NIfTI files written with
// write_volume, and a simulated DataSpec with phantoms small enough to build
// in a millisecond.
#pragma once

#include <filesystem>
#include <string>

#include "config/job_spec.hpp"
#include "volume/volume.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::test {

// A 6x5x4 volume whose voxel i holds base_hu + i (HU, inside the CT window).
inline Volume small_ct_volume(float base_hu) {
  Volume v = make_volume({6, 5, 4}, {1.0, 1.5, 2.0});
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = base_hu + float(i);
  return v;
}

inline std::string write_small_ct(const std::filesystem::path& path, float base_hu) {
  write_volume(small_ct_volume(base_hu), path.string());
  return path.string();
}

inline DataSpec tiny_simulated_spec(int num_train, int num_val) {
  DataSpec spec;
  spec.source = DataSource::simulated;
  spec.num_train = num_train;
  spec.num_val = num_val;
  spec.phantom_size = {12, 12, 10};
  spec.phantom_spacing = {20.0, 20.0, 24.0};
  spec.patch_size = {8, 8, 8};
  return spec;
}

}  // namespace medsynth::test
