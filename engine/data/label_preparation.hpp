// A segmentation made ready for MAISI's image-from-mask generation
// (`medsynth-engine prepare-label`, issue 39): its labels remapped to MAISI
// CT's classes (label_vocabulary.hpp), the body envelope (label 200) added
// where it is absent — generation degrades without it (MONAI tutorials
// #1940, #2047) — the map resampled (nearest voxel) to the generation grid,
// and that grid checked against the sizes and spacings NV-Generate's CT
// networks take (out of distribution is a warning naming the axis).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "volume/volume.hpp"

namespace medsynth {

struct LabelPreparationOptions {
  std::string from;                              // label_mapping(): totalsegmentator, vista3d or a JSON map
  std::optional<std::array<double, 3>> spacing;  // the generation grid's mm, x y z; unset: the segmentation's
  std::optional<std::array<std::size_t, 3>>
      size;  // its voxels, x y z (centred crop or pad); unset: the resampled extent
};

struct PreparedLabel {
  Volume label;                         // MAISI CT classes on the generation grid
  std::map<int, std::int64_t> classes;  // MAISI class -> voxels, in the output
  std::map<int, std::int64_t> dropped;  // source label -> voxels set to 0 (no MAISI class)
  std::string envelope;                 // how label 200 was made; empty: the segmentation had it
  std::vector<std::string> warnings;    // dropped labels, the grid out of NV-Generate's range
};

// `image`: the CT the segmentation was made from, on its grid, for the body
// envelope (HU > -500 without the scanner table, holes filled slice by
// slice: data/ct_body_mask.hpp); without it the envelope
// is each axial slice's convex hull of the labels, a coarser outline, said
// in `envelope`. DataError naming `source` for an image on another grid or
// a voxel that is not a whole number.
PreparedLabel prepare_label(const Volume& segmentation, const std::string& source,
                            const LabelPreparationOptions& options, const Volume* image = nullptr);

// NV-Generate's CT grid (its sample_mask.py check_input_ct): x and y equal,
// one of 256, 384, 512 voxels; z one of 128, 256, ..., 768; x and y spacing
// equal, 0.5-3.0 mm; z 0.5-5.0 mm; a field of view of at least 256 mm in x
// and y (head), 384 mm recommended for the body. One line per departure.
std::vector<std::string> maisi_ct_grid_warnings(const std::array<std::size_t, 3>& size,
                                                const std::array<double, 3>& spacing);

}  // namespace medsynth
