// BraTS-shaped data written by tests (issue 35): one folder per case holding
// its contrasts and segmentation as NIfTI files, named as BraTS 2023
// (BraTS-GLI-00000-000/BraTS-GLI-00000-000-t1n.nii.gz) or BraTS 2021
// (BraTS2021_00000/BraTS2021_00000_t1.nii.gz) names them. Every case is a
// small head: brain, ventricles and a lesion placed by the case's number,
// each tissue with its own intensity per contrast, so FLAIR is a function of
// the other contrasts that a network can learn. Header-only: the test links
// the volume writer through medsynth_engine.
#pragma once

#include <array>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "volume/volume.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::test {

enum class BratsNaming { brats2023, brats2021 };

// The four contrasts and the segmentation, in each naming; same order.
inline std::vector<std::string> brats_suffixes(BratsNaming naming) {
  if (naming == BratsNaming::brats2023) return {"t1n", "t1c", "t2w", "t2f", "seg"};
  return {"t1", "t1ce", "t2", "flair", "seg"};
}

inline std::string brats_case_id(BratsNaming naming, int n) {
  char text[64];
  if (naming == BratsNaming::brats2023)
    std::snprintf(text, sizeof text, "BraTS-GLI-%05d-000", n);
  else
    std::snprintf(text, sizeof text, "BraTS2021_%05d", n);
  return text;
}

inline char brats_separator(BratsNaming naming) { return naming == BratsNaming::brats2023 ? '-' : '_'; }

// The tissue map of case n: 0 background, 1 brain, 2 ventricles, 3 lesion.
inline Volume brats_tissue(int n, std::array<std::size_t, 3> size) {
  Volume v = make_volume(size);
  const double cx = size[0] / 2.0, cy = size[1] / 2.0, cz = size[2] / 2.0;
  const double lx = cx + (n % 2 ? 3.0 : -3.0), ly = cy + (n % 3 - 1) * 2.5, lz = cz + (n % 2 ? -2.0 : 2.0);
  for (std::size_t z = 0; z < size[2]; ++z)
    for (std::size_t y = 0; y < size[1]; ++y)
      for (std::size_t x = 0; x < size[0]; ++x) {
        const double bx = (x - cx) / (0.42 * size[0]), by = (y - cy) / (0.42 * size[1]),
                     bz = (z - cz) / (0.42 * size[2]);
        float t = 0;
        if (bx * bx + by * by + bz * bz < 1) t = 1;
        if (std::fabs(x - cx) < 1.5 && std::fabs(y - cy) < 2.5 && std::fabs(z - cz) < 2.5) t = 2;
        if (std::hypot(x - lx, y - ly, z - lz) < 2.2) t = 3;
        v.at(x, y, z) = t;
      }
  return v;
}

// Writes case folders 0..cases-1 under `root`; `skip` = "case/suffix" leaves one file out.
inline void write_brats_folder(const std::filesystem::path& root, BratsNaming naming, int cases,
                               std::array<std::size_t, 3> size = {20, 20, 16}) {
  // Per contrast, the intensity of background, brain, ventricles, lesion (MR-like units).
  const std::array<std::array<float, 4>, 4> intensity{{
      {0, 600, 200, 400},  // T1
      {0, 600, 200, 900},  // T1 with contrast: the lesion enhances
      {0, 400, 900, 700},  // T2
      {0, 500, 100, 950},  // FLAIR: ventricles dark, lesion bright
  }};
  const auto suffixes = brats_suffixes(naming);
  for (int n = 0; n < cases; ++n) {
    const std::string id = brats_case_id(naming, n);
    const auto folder = root / id;
    std::filesystem::create_directories(folder);
    const Volume tissue = brats_tissue(n, size);
    for (std::size_t c = 0; c < suffixes.size(); ++c) {
      Volume v = tissue;
      if (c < 4)
        for (std::size_t i = 0; i < v.voxels.size(); ++i)
          v.voxels[i] = intensity[c][static_cast<std::size_t>(tissue.voxels[i])] + 5.0f * std::sin(0.7f * i + n + c);
      write_volume(v, (folder / (id + brats_separator(naming) + suffixes[c] + ".nii.gz")).string());
    }
  }
}

}  // namespace medsynth::test
