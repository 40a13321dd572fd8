// The per-organ intensity check of MAISI's image-from-mask generation, as
// NV-Generate's quality_check.py judges a generated CT (issue 39 item 3): for
// each organ group of the label map (liver, spleen, pancreas, kidney, lung,
// brain, bone and the tumours), the median HU of the image inside it must lie
// within [min(sigma_6_low, percentile_0_5), max(sigma_6_high,
// percentile_99_5)] of the real CTs' medians (bone's upper bound is 1000 HU),
// read from the user's statistics file in the layout of NV-Generate's
// configs/image_median_statistics_ct.json. A group absent from the label map
// is not judged. generate --quality-check regenerates a failing image with the
// next seed (diffusion/generate_stage.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "volume/volume.hpp"

namespace medsynth {

struct OrganRange {
  double low = 0, high = 0;  // HU, the accepted medians
};

struct OrganStatistics {
  std::string source;                        // the file, for messages and the report
  std::map<std::string, OrganRange> organs;  // by organ group name ("liver", "kidney", ...)
};

// Reads NV-Generate's statistics layout: {"<organ>": {"sigma_6_low": HU,
// "sigma_6_high": HU, "percentile_0_5": HU, "percentile_99_5": HU, ...}, ...}.
// DataError naming the file and the entry: not JSON, nested too deep, a
// missing or non-finite number, low above high, or an organ group MAISI CT
// has no classes for (maisi_ct_organ_groups lists them).
OrganStatistics read_organ_statistics(const std::string& path);

struct OrganCheck {
  std::string organ;
  std::size_t voxels = 0;        // of the group in the label map
  std::optional<double> median;  // HU; none when the group is absent
  OrganRange range;
  bool outlier = false;
};

struct OrganQualityReport {
  std::vector<OrganCheck> organs;  // one per organ of the statistics, in its order by name
  bool passed() const;
  // "liver median 312.4 HU outside [-21.6, 156.3]; ..." for the outliers.
  std::string failures() const;
};

// Judges `image` (HU) on the grid of `label` (MAISI CT classes). DataError
// naming `label_source` when the two grids differ in size.
OrganQualityReport check_organ_intensities(const Volume& image, const Volume& label, const OrganStatistics& statistics,
                                           const std::string& label_source);

// One try of generate --quality-check: the seed sampled and its judgement.
struct OrganQualityTry {
  std::int64_t seed = 0;
  OrganQualityReport report;
};

// The report written beside a checked image (..._quality.json): the image's
// file name, the statistics file, whether the kept image passed, and per try
// the seed and each organ's voxels, median, range and verdict.
std::string organ_quality_json(const std::vector<OrganQualityTry>& tries, const std::string& image_name,
                               const std::string& statistics_source);

}  // namespace medsynth
