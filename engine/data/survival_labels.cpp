#include "data/survival_labels.hpp"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "data/counter_rng.hpp"

namespace medsynth {
namespace {

double number_cell(const VolumeEntry& e, const std::string& column) {
  const std::string& text = e.columns.at(column);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || !std::isfinite(v))
    throw DataError(e.source, "column '" + column + "' is not a number ('" + text + "')");
  return v;
}

}  // namespace

std::vector<SurvivalLabel> survival_labels_from_manifest(const std::string& csv_path, const std::vector<VolumeEntry>& entries,
                                                         const std::vector<std::string>& covariates) {
  std::vector<std::string> needed{"time", "event"};
  needed.insert(needed.end(), covariates.begin(), covariates.end());
  std::vector<SurvivalLabel> labels;
  for (const auto& e : entries) {
    for (const auto& column : needed)
      if (!e.columns.count(column)) {
        std::string names;
        for (const auto& [name, value] : e.columns) names += (names.empty() ? "" : ", ") + name;
        throw DataError(csv_path + ":1", "no column '" + column + "' in the header (columns: " + names + ")");
      }
    SurvivalLabel l;
    l.time = number_cell(e, "time");
    if (l.time < 0) throw DataError(e.source, "column 'time' is negative (" + e.columns.at("time") + ")");
    const std::string& event = e.columns.at("event");
    if (event != "0" && event != "1") throw DataError(e.source, "column 'event' must be 0 (censored) or 1 (event), not '" + event + "'");
    l.event = event == "1" ? 1 : 0;
    for (const auto& c : covariates) l.covariates.push_back(number_cell(e, c));
    labels.push_back(std::move(l));
  }
  return labels;
}

SimulatedSurvival simulate_survival(std::uint64_t seed, const std::array<double, 3>& fov, const SurvivalSimulation& o) {
  CounterRng rng({seed, 0x7375727669766Cull});  // "survivl"
  SimulatedSurvival s;
  // Inside the torso: within the central fifth of the field of view.
  for (int d = 0; d < 3; ++d) s.lesion.center_mm[d] = rng.uniform(-0.1, 0.1) * fov[d];
  const double u = rng.uniform();
  s.lesion.radius_mm = o.radius_min_mm + u * (o.radius_max_mm - o.radius_min_mm);
  const double standardised = (u - 0.5) / std::sqrt(1.0 / 12.0);  // uniform: mean 1/2, sd sqrt(1/12)
  const double hazard = o.base_hazard * std::exp(o.beta * standardised);
  const double event_time = -std::log(1.0 - rng.uniform()) / hazard;
  const double censor_time = rng.uniform(0.0, o.censor_max);
  s.label.time = std::min(event_time, censor_time);
  s.label.event = event_time <= censor_time ? 1 : 0;
  return s;
}

void paint_lesion(at::Tensor& image, const std::array<double, 3>& spacing, const SimulatedLesion& lesion, const std::array<double, 2>& window) {
  const auto Z = image.size(-3), Y = image.size(-2), X = image.size(-1);
  auto axis = [](std::int64_t n, double step, double centre) {
    return (at::arange(n, at::kFloat) - (n - 1) / 2.0) * step - centre;
  };
  at::Tensor z = axis(Z, spacing[2], lesion.center_mm[2]).view({-1, 1, 1});
  at::Tensor y = axis(Y, spacing[1], lesion.center_mm[1]).view({1, -1, 1});
  at::Tensor x = axis(X, spacing[0], lesion.center_mm[0]).view({1, 1, -1});
  at::Tensor inside = (z * z + y * y + x * x) <= lesion.radius_mm * lesion.radius_mm;
  const double value = std::clamp((lesion.hu - window[0]) / (window[1] - window[0]), 0.0, 1.0);
  image.view({Z, Y, X}).masked_fill_(inside, value);
}

}  // namespace medsynth
