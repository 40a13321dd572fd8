// Simulated CT volumes: a deterministic torso phantom in Hounsfield units, the
// training data of `data.source: simulated` (the seeds' default mode: MAISI
// trains on simulated data when no real images are given). Called by
// VolumeDataset and by tests and benchmarks that need realistic volumes
// without files.
//
// The anatomy is a continuous model in millimetres, sized to the field of view
// (size * spacing): the same seed with the same field of view at another
// size/spacing gives the same anatomy resampled. Every size, position and
// intensity varies slightly with the seed; nothing depends on global random
// state or on the number of threads (voxels are computed independently, noise
// is keyed on the voxel index), so equal inputs give bit-identical volumes.
#pragma once

#include <array>
#include <cstdint>

#include "volume/volume.hpp"

namespace medsynth {

struct PhantomOptions {
  std::array<int, 3> size{64, 64, 64};            // voxels x, y, z
  std::array<double, 3> spacing{4.0, 4.0, 4.0};   // mm
  double noise_hu = 10.0;                         // standard deviation of the Gaussian noise, HU
};

// Builds the phantom of `seed`. The volume is centred on the scanner origin
// (LPS: +x left, +y posterior, +z superior), identity direction.
// Throws ConfigError (fields data.phantom_size, data.phantom_spacing,
// data.noise_hu) for sizes < 1, over 2^28 voxels, spacing <= 0 or noise < 0.
Volume make_ct_phantom(std::uint64_t seed, const PhantomOptions& options = {});

// The checks make_ct_phantom runs, for callers that want to fail early.
void validate_phantom_options(const PhantomOptions& options);

}  // namespace medsynth
