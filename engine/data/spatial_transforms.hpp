// Geometric transforms of volumes: resampling to a target spacing, centred
// crop/pad, flips, and the random training patches the batch loader cuts.
// Called by the dataset's preprocessing (resampling), by the batch loader
// (patches, flips) and by tools that need a fixed size (crop_or_pad).
//
// Padding rule (RELIABILITY.md item 21): wherever a volume is smaller than the
// requested size along an axis — including a 1-voxel-thick volume — it is
// padded symmetrically (the extra voxel, if odd, goes after) with the volume's
// minimum, which is air/background after intensity normalisation. A patch
// from such a volume therefore holds the whole volume centred along that axis.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "data/counter_rng.hpp"
#include "volume/volume.hpp"

namespace medsynth {

// How resampling reads between voxels: linearly (images) or from the nearest
// voxel (label maps, whose values are classes).
enum class Interpolation { linear, nearest };

// Trilinear resampling to `spacing` (mm). The origin (centre of voxel 0) and
// the direction are kept; the new size is round(size * old / new) (at least
// 1), which keeps the physical extent up to one new voxel. Samples beyond the
// last input voxel take the edge value. Throws ConfigError (data.target_spacing)
// for a spacing that is not finite and > 0, and DataError(source, ...) before
// allocating when the output (or the grid after any one axis) would hold more
// voxels than reading allows (VolumeReadOptions::max_voxels): a file's
// spacing sizes the output, and a 24^3 map of 1e6 mm voxels asked for 55 GB.
Volume resample_to_spacing(const Volume& volume, const std::array<double, 3>& spacing,
                           Interpolation mode = Interpolation::linear, const std::string& source = "the volume");

// Each axis resized (linear interpolation as torch's trilinear without
// align_corners, MONAI's Resized) to the nearest multiple of `multiple`
// voxels, at least one: NV-Generate's preparation of MAISI training data
// (multiple 128). The physical extent is kept: spacing and origin follow.
// multiple <= 0: unchanged.
Volume resize_to_multiple(const Volume& volume, int multiple, Interpolation mode = Interpolation::linear);

// The voxels reordered and mirrored so that index k grows toward letter k of
// `code` (RAS: x toward the patient's right, y anterior, z superior), the
// physical image unchanged (MONAI's Orientationd): each axis takes the stored
// axis closest to its direction. ConfigError (data.orientation) for a code
// that is not three distinct directions.
Volume reorient(const Volume& volume, const std::string& code);

// Where a patch (or a crop/pad window) sits in a volume: the voxel of the
// volume under the window's voxel 0 (negative or past the end = padding), and
// whether the window's content is mirrored along x, y, z.
struct PatchPlacement {
  std::array<std::int64_t, 3> start{0, 0, 0};
  std::array<bool, 3> flip{false, false, false};
};

// A random patch position: uniform over all positions that fit along axes
// where the volume is at least as large as the patch; centred padding along the
// others (see the padding rule). With random_flip each axis is mirrored with
// p = 0.5. Draws a fixed number of values from rng whatever the sizes, so that
// the stream stays aligned. patch sizes must be >= 1.
PatchPlacement random_patch_placement(const std::array<std::size_t, 3>& volume_size,
                                      const std::array<int, 3>& patch_size, bool random_flip, CounterRng& rng);

// Copies the window into `out` (patch_size[0]*[1]*[2] floats, x fastest),
// padding with the volume's minimum outside it. The batch loader calls this to
// fill its tensors without an intermediate volume.
void copy_patch(const Volume& volume, const PatchPlacement& placement, const std::array<int, 3>& patch_size,
                float* out);

// The window as a volume. Its origin is the physical position of the window's
// voxel 0 (flips do not move it); spacing and direction are the volume's.
Volume extract_patch(const Volume& volume, const PatchPlacement& placement, const std::array<int, 3>& patch_size);

// Centred crop along axes larger than `size`, centred pad (padding rule) along
// smaller ones — MONAI's ResizeWithPadOrCrop. Origin updated to match.
Volume crop_or_pad(const Volume& volume, const std::array<std::size_t, 3>& size);

// Mirrors the voxels along one axis (0 = x, 1 = y, 2 = z) in place; the
// geometry is left as it is (an augmentation, not a reorientation).
void flip_axis(Volume& volume, int axis);

// The smallest voxel value (0 for an empty volume).
float volume_minimum(const Volume& volume);

}  // namespace medsynth
