#include "eval/organ_quality_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "data/label_vocabulary.hpp"
#include "eval/median.hpp"

namespace medsynth {

namespace {

constexpr double k_bone_high = 1000.0;  // NV-Generate's quality check caps bone's upper bound here

double number(const nlohmann::json& entry, const char* key, const std::string& organ, const std::string& path) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_number())
    throw DataError(path, "organ \"" + organ + "\": \"" + key + "\" is missing or not a number");
  const double v = it->get<double>();
  if (!std::isfinite(v)) throw DataError(path, "organ \"" + organ + "\": \"" + key + "\" is not finite");
  return v;
}

std::string hu(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

}  // namespace

OrganStatistics read_organ_statistics(const std::string& path) {
  const nlohmann::json root =
      read_bounded_json_file(path, k_document_json_cap, "cannot open the organ statistics file");
  if (!root.is_object() || root.empty())
    throw DataError(path,
                    "expected an object of organs ({\"liver\": {\"sigma_6_low\": ...}, ...}), as NV-Generate's "
                    "image_median_statistics_ct.json");
  const auto& groups = maisi_ct_organ_groups();
  OrganStatistics out;
  out.source = path;
  for (const auto& [organ, entry] : root.items()) {
    if (!groups.count(organ)) {
      std::string known;
      for (const auto& [name, ids] : groups) known += (known.empty() ? "" : ", ") + name;
      throw DataError(path, "organ \"" + organ + "\" is not an organ group of MAISI CT (" + known + ")");
    }
    if (!entry.is_object()) throw DataError(path, "organ \"" + organ + "\": expected an object of statistics");
    OrganRange r;
    r.low = std::min(number(entry, "sigma_6_low", organ, path), number(entry, "percentile_0_5", organ, path));
    r.high = std::max(number(entry, "sigma_6_high", organ, path), number(entry, "percentile_99_5", organ, path));
    if (organ == "bone") r.high = k_bone_high;
    if (r.low > r.high)
      throw DataError(path,
                      "organ \"" + organ + "\": the accepted range [" + hu(r.low) + ", " + hu(r.high) + "] is empty");
    out.organs[organ] = r;
  }
  return out;
}

bool OrganQualityReport::passed() const {
  return std::none_of(organs.begin(), organs.end(), [](const OrganCheck& c) { return c.outlier; });
}

std::string OrganQualityReport::failures() const {
  std::string out;
  for (const auto& c : organs)
    if (c.outlier)
      out += (out.empty() ? "" : "; ") + c.organ + " median " + hu(*c.median) + " HU outside [" + hu(c.range.low) +
             ", " + hu(c.range.high) + "]";
  return out;
}

OrganQualityReport check_organ_intensities(const Volume& image, const Volume& label, const OrganStatistics& statistics,
                                           const std::string& label_source) {
  if (image.size != label.size)
    throw DataError(label_source, "is " + std::to_string(label.size[0]) + " x " + std::to_string(label.size[1]) +
                                      " x " + std::to_string(label.size[2]) + " voxels, its image " +
                                      std::to_string(image.size[0]) + " x " + std::to_string(image.size[1]) + " x " +
                                      std::to_string(image.size[2]));
  // One pass over the voxels: each MAISI class belongs to at most one group.
  const auto& groups = maisi_ct_organ_groups();
  std::vector<std::pair<std::string, OrganRange>> judged(statistics.organs.begin(), statistics.organs.end());
  std::map<int, std::size_t> group_of_class;
  for (std::size_t g = 0; g < judged.size(); ++g)
    for (const int id : groups.at(judged[g].first)) group_of_class[id] = g;
  std::vector<std::vector<float>> values(judged.size());
  for (std::size_t i = 0; i < label.voxels.size(); ++i) {
    const float l = label.voxels[i];
    if (!(l > 0.0f && l <= 65535.0f) || l != std::nearbyint(l) || std::isnan(image.voxels[i])) continue;
    const auto it = group_of_class.find(static_cast<int>(l));
    if (it != group_of_class.end()) values[it->second].push_back(image.voxels[i]);
  }
  OrganQualityReport report;
  for (std::size_t g = 0; g < judged.size(); ++g) {
    OrganCheck check{judged[g].first, values[g].size(), std::nullopt, judged[g].second, false};
    if (!values[g].empty()) {
      check.median = numpy_median(values[g]);
      check.outlier = *check.median < check.range.low || *check.median > check.range.high;
    }
    report.organs.push_back(check);
  }
  return report;
}

std::string organ_quality_json(const std::vector<OrganQualityTry>& tries, const std::string& image_name,
                               const std::string& statistics_source) {
  nlohmann::json out;
  out["image"] = image_name;
  out["statistics"] = statistics_source;
  out["passed"] = !tries.empty() && tries.back().report.passed();
  out["seed"] = tries.empty() ? nlohmann::json() : nlohmann::json(tries.back().seed);
  out["tries"] = nlohmann::json::array();
  for (const auto& t : tries) {
    nlohmann::json organs = nlohmann::json::array();
    for (const auto& c : t.report.organs)
      organs.push_back({{"organ", c.organ},
                        {"voxels", c.voxels},
                        {"median_hu", c.median ? nlohmann::json(*c.median) : nlohmann::json()},
                        {"low_hu", c.range.low},
                        {"high_hu", c.range.high},
                        {"outlier", c.outlier}});
    out["tries"].push_back({{"seed", t.seed}, {"passed", t.report.passed()}, {"organs", organs}});
  }
  return out.dump(2);
}

}  // namespace medsynth
