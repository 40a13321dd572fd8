#include "eval/evaluation.hpp"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "data/volume_tensor.hpp"
#include "metrics/distribution_metrics.hpp"
#include "eval/feature_network.hpp"
#include "eval/label_hu_check.hpp"
#include "eval/parallel_map.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
// MONAI's MultiScaleSSIMMetric default weights.
const std::vector<double> k_monai_weights{0.0448, 0.2856, 0.3001, 0.2363, 0.1333};

struct LoadedSet {
  std::vector<std::string> names;
  std::vector<at::Tensor> scaled;  // [1, 1, Z, Y, X] in [0, 1] on the grid
  at::Tensor histogram_counts;     // voxel counts per HU bin
  double outside = 0, voxels = 0, hu_sum = 0;
  std::vector<std::map<int, double>> label_medians;  // of the cases with a label map beside them
};

at::Tensor to_grid(const at::Tensor& t, const std::array<std::int64_t, 3>& grid) {
  if (t.size(2) == grid[0] && t.size(3) == grid[1] && t.size(4) == grid[2]) return t;
  return at::upsample_trilinear3d(t, {grid[0], grid[1], grid[2]}, /*align_corners=*/false);
}

void report_progress(const EvaluationOptions& o, std::string_view phase, std::int64_t done, std::int64_t total) {
  if (o.on_progress) o.on_progress(phase, done, total);
}

LoadedSet load_set(const std::vector<std::string>& paths, const EvaluationOptions& o, std::array<std::int64_t, 3>& grid,
                   std::string_view phase) {
  LoadedSet set;
  for (const auto& path : paths) {
    const Volume volume = read_volume(path);
    if (const auto label = sibling_label_path(path)) set.label_medians.push_back(label_medians(volume, read_volume(*label), *label));
    at::Tensor hu = volume_to_tensor(volume);  // [1, 1, Z, Y, X] float32
    if (grid[0] == 0) grid = {hu.size(2), hu.size(3), hu.size(4)};
    const double n = static_cast<double>(hu.numel());
    const at::Tensor counts = hu_histogram({hu}, o.histogram) * n;
    set.histogram_counts = set.histogram_counts.defined() ? set.histogram_counts + counts : counts;
    set.outside += fraction_outside({hu}, o.histogram.lo, o.histogram.hi) * n;
    set.voxels += n;
    set.hu_sum += hu.to(at::kDouble).nan_to_num(0.0, 0.0, 0.0).sum().item<double>();
    const at::Tensor scaled = ((hu - o.window[0]) / (o.window[1] - o.window[0])).clamp(0.0, 1.0);
    set.scaled.push_back(to_grid(scaled, grid));
    set.names.push_back(path);
    report_progress(o, phase, static_cast<std::int64_t>(set.names.size()), static_cast<std::int64_t>(paths.size()));
  }
  return set;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return k_nan;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double ms_ssim_pair(const at::Tensor& a, const at::Tensor& b, const MsSsimOptions& o) { return ms_ssim3d_per_sample(a, b, o).at(0); }

std::string describe(const MsSsimOptions& o) {
  std::ostringstream s;
  s << "kernel " << o.ssim.kernel_size << ", sigma " << o.ssim.sigma << ", " << o.weights.size() << " scales";
  return s.str();
}

// NV-Generate's 2.5D input: gray replicated to 3 channels (BGR order), the
// volume-plane's slices min-max scaled together, ImageNet BGR means subtracted.
at::Tensor slices_for_2d_network(const at::Tensor& slices) {
  auto x = slices.repeat({1, 3, 1, 1});
  const double lo = x.min().item<double>(), hi = x.max().item<double>();
  x = (x - lo) / (hi - lo + 1e-10);
  const auto mean = at::tensor({0.406, 0.456, 0.485}, x.options()).view({1, 3, 1, 1});
  return x - mean;
}

// The slices of one plane of a [1, 1, Z, Y, X] volume: `axis` 2 (XY planes),
// 4 (YZ) or 3 (ZX); the middle `ratio` of the axis, every k-th.
at::Tensor plane_slices(const at::Tensor& v, int axis, double ratio, int every_k) {
  const auto n = v.size(axis);
  const auto begin = ratio < 1.0 ? static_cast<std::int64_t>((1.0 - ratio) / 2.0 * static_cast<double>(n)) : 0;
  const auto end = ratio < 1.0 ? static_cast<std::int64_t>((1.0 + ratio) / 2.0 * static_cast<double>(n)) : n;
  auto part = v.slice(axis, begin, std::max(end, begin + 1), every_k);
  // -> [S, 1, a, b] with the slicing axis first
  return part.movedim(axis, 0).squeeze(1).squeeze(1).unsqueeze(1).contiguous();
}

at::Tensor features_2d(const FeatureNetwork& net, const at::Tensor& slices) {
  std::vector<at::Tensor> parts;
  const auto input = slices_for_2d_network(slices);
  for (std::int64_t i = 0; i < input.size(0); i += 32) parts.push_back(net.features(input.slice(0, i, std::min(input.size(0), i + 32))));
  return at::cat(parts, 0);
}

at::Tensor features_3d(const FeatureNetwork& net, const at::Tensor& v) {
  // MedicalNet's normalisation: zero mean, unit deviation per volume.
  const auto z = (v - v.mean()) / (v.std() + 1e-5);
  return net.features(z);
}

// Feature rows of items 0..count-1 (f(i) is [rows_i, F]), spread over the ranks:
// the width comes from item 0, which every rank computes.
at::Tensor feature_rows(std::size_t count, const std::function<at::Tensor(std::size_t)>& f, const ParallelMap& map) {
  const at::Tensor first = f(0);
  const auto rows_each = first.size(0), width = first.size(1);
  const auto flat = map.rows(count, static_cast<std::size_t>(rows_each * width), [&](std::size_t i) {
    const at::Tensor t = (i == 0 ? first : f(i)).contiguous();
    if (t.size(0) != rows_each || t.size(1) != width) throw RuntimeError("evaluate: the feature network's output changed shape between inputs");
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
  });
  std::vector<at::Tensor> parts;
  for (const auto& row : flat) parts.push_back(at::tensor(row, at::kDouble).view({rows_each, width}));
  return at::cat(parts, 0);
}

void add_fid_rows(EvaluationReport& r, const LoadedSet& gen, const LoadedSet& ref, const EvaluationOptions& o, const ParallelMap& map) {
  const FeatureNetwork net(o.feature_network, o.trust_torchscript);
  const std::string source = "features of " + o.feature_network + (net.is_torchscript() ? " (TorchScript, trusted)" : "");
  if (o.feature_mode == "3d") {
    const auto a = feature_rows(gen.scaled.size(), [&](std::size_t i) { return features_3d(net, gen.scaled[i]); }, map);
    const auto b = feature_rows(ref.scaled.size(), [&](std::size_t i) { return features_3d(net, ref.scaled[i]); }, map);
    r.rows.push_back({"fid_3d", frechet_distance(a, b),
                      source + " (" + std::to_string(a.size(0)) + " vs " + std::to_string(b.size(0)) + " volumes, " +
                          std::to_string(a.size(1)) + " features; z-scored per volume)"});
    return;
  }
  const std::pair<const char*, int> planes[] = {{"xy", 2}, {"yz", 4}, {"zx", 3}};
  double sum = 0;
  for (const auto& [name, axis] : planes) {
    auto slices_of = [&, axis = axis](const at::Tensor& v) { return features_2d(net, plane_slices(v, axis, o.center_slices_ratio, o.every_k_slices)); };
    const auto a = feature_rows(gen.scaled.size(), [&](std::size_t i) { return slices_of(gen.scaled[i]); }, map);
    const auto b = feature_rows(ref.scaled.size(), [&](std::size_t i) { return slices_of(ref.scaled[i]); }, map);
    const double fid = frechet_distance(a, b);
    sum += fid;
    r.rows.push_back({std::string("fid_2.5d_") + name, fid,
                      source + " (" + std::to_string(a.size(0)) + " vs " + std::to_string(b.size(0)) + " slices, " +
                          std::to_string(a.size(1)) + " features)"});
  }
  r.rows.push_back({"fid_2.5d", sum / 3.0, "mean of the three planes"});
}

// MAISI's per-organ check: one row per label, the share of generated cases
// whose median HU in that label is outside the reference cases' range.
void add_label_rows(EvaluationReport& r, const LoadedSet& gen, const LoadedSet& ref) {
  if (gen.label_medians.empty() || ref.label_medians.empty()) return;
  for (const auto& row : compare_label_medians(gen.label_medians, ref.label_medians)) {
    char note[200];
    std::snprintf(note, sizeof note, "median HU in label %d: generated %.0f..%.0f (%zu cases), reference %.0f..%.0f (%zu cases); share outside",
                  row.label, row.generated_min, row.generated_max, row.generated_cases, row.reference_min, row.reference_max,
                  row.reference_cases);
    r.rows.push_back({"hu_label_" + std::to_string(row.label) + "_outside",
                      static_cast<double>(row.generated_outside) / static_cast<double>(row.generated_cases), note});
  }
}

}  // namespace

void EvaluationOptions::validate() const {
  if (generated.size() < 1) throw UsageError("evaluate: no generated volumes");
  if (reference.size() < 1) throw UsageError("evaluate: --reference holds no volumes");
  if (!(window[0] < window[1])) throw UsageError("evaluate: --window needs low < high");
  for (auto g : grid)
    if (g < 0) throw UsageError("evaluate: --grid sizes must be > 0");
  histogram.validate();
  if (feature_mode != "2.5d" && feature_mode != "3d") throw UsageError("evaluate: --feature-mode must be 2.5d or 3d (got '" + feature_mode + "')");
  if (!(center_slices_ratio > 0.0 && center_slices_ratio <= 1.0)) throw UsageError("evaluate: --center-slices-ratio must be in (0, 1]");
  if (every_k_slices < 1) throw UsageError("evaluate: --every-k-slices must be >= 1");
  if (!(memorization_threshold >= 0.0)) throw UsageError("evaluate: --memorization-threshold must be >= 0");
}

MsSsimOptions ms_ssim_options_for(const std::array<std::int64_t, 3>& grid) {
  const std::int64_t shortest = std::min({grid[0], grid[1], grid[2]});
  for (std::size_t scales = 5; scales >= 2; --scales) {
    for (int kernel = 11; kernel >= 3; kernel -= 2) {
      const auto divisor = static_cast<std::int64_t>((scales - 1) * (scales - 1));
      if (shortest / divisor <= kernel - 1 || (shortest >> (scales - 1)) < kernel) continue;
      MsSsimOptions o;
      o.ssim.kernel_size = kernel;
      o.weights.assign(k_monai_weights.begin(), k_monai_weights.begin() + static_cast<std::ptrdiff_t>(scales));
      if (scales < 5) {
        double total = 0;
        for (double w : o.weights) total += w;
        for (double& w : o.weights) w /= total;
      }
      return o;
    }
  }
  throw UsageError("evaluate: the grid is too small for MS-SSIM (" + std::to_string(shortest) + " voxels on its shortest axis; at least 6 needed)");
}

namespace {

// The pooled HU histograms, their distance, means and shares outside the
// valid range; then the per-label check.
void add_hu_rows(EvaluationReport& r, const LoadedSet& gen, const LoadedSet& ref, const EvaluationOptions& o) {
  const at::Tensor gen_hist = gen.histogram_counts / gen.voxels, ref_hist = ref.histogram_counts / ref.voxels;
  r.hu_histogram_generated.assign(gen_hist.data_ptr<double>(), gen_hist.data_ptr<double>() + gen_hist.numel());
  r.hu_histogram_reference.assign(ref_hist.data_ptr<double>(), ref_hist.data_ptr<double>() + ref_hist.numel());
  r.rows.push_back({"hu_w1", histogram_w1_hu(gen_hist, ref_hist, o.histogram),
                    "Wasserstein-1 between the pooled HU histograms, HU"});
  r.rows.push_back({"hu_mean_generated", gen.hu_sum / gen.voxels, "HU"});
  r.rows.push_back({"hu_mean_reference", ref.hu_sum / ref.voxels, "HU"});
  char range[64];
  std::snprintf(range, sizeof range, "outside [%g, %g] HU", o.histogram.lo, o.histogram.hi);
  r.rows.push_back({"outside_valid_hu_generated", gen.outside / gen.voxels, std::string("share of voxels ") + range});
  r.rows.push_back({"outside_valid_hu_reference", ref.outside / ref.voxels, std::string("share of voxels ") + range});
  add_label_rows(r, gen, ref);
}

// MS-SSIM's options for the grid, or why the grid is too small for it.
struct MsSsimChoice {
  MsSsimOptions options;
  std::string problem;  // empty: options apply
};

MsSsimChoice choose_ms_ssim(const std::array<std::int64_t, 3>& grid) {
  MsSsimChoice c;
  try {
    c.options = ms_ssim_options_for(grid);
  } catch (const UsageError& e) {
    c.problem = e.what();
  }
  return c;
}

// Diversity (within each set's pairs) and fidelity (generated x reference),
// with each generated volume's own fidelity; NaN rows when MS-SSIM cannot run.
void add_ms_ssim_rows(EvaluationReport& r, const LoadedSet& gen, const LoadedSet& ref, const MsSsimChoice& choice,
                      const ParallelMap& map) {
  const MsSsimOptions& ms = choice.options;
  const std::string& ms_problem = choice.problem;
  if (ms_problem.empty()) {
    auto diversity = [&](const LoadedSet& s) {
      std::vector<std::pair<std::size_t, std::size_t>> pairs;
      for (std::size_t i = 0; i < s.scaled.size(); ++i)
        for (std::size_t j = i + 1; j < s.scaled.size(); ++j) pairs.emplace_back(i, j);
      return mean_of(map.values(pairs.size(), [&](std::size_t k) {
        return ms_ssim_pair(s.scaled[pairs[k].first], s.scaled[pairs[k].second], ms);
      }));
    };
    r.rows.push_back(
        {"ms_ssim_diversity", diversity(gen), "mean over generated pairs (lower: more diverse); " + describe(ms)});
    r.rows.push_back({"ms_ssim_diversity_reference", diversity(ref), "the same over reference pairs: the target"});
    const std::size_t n_ref = ref.scaled.size();
    const auto all = map.values(gen.scaled.size() * n_ref, [&](std::size_t k) {
      return ms_ssim_pair(gen.scaled[k / n_ref], ref.scaled[k % n_ref], ms);
    });
    for (std::size_t i = 0; i < gen.scaled.size(); ++i)
      r.per_volume_fidelity.emplace_back(
          gen.names[i], mean_of(std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(i * n_ref),
                                                    all.begin() + static_cast<std::ptrdiff_t>((i + 1) * n_ref))));
    r.rows.push_back({"ms_ssim_fidelity", mean_of(all), "mean over generated x reference pairs; " + describe(ms)});
  } else {
    r.rows.push_back({"ms_ssim_diversity", k_nan, ms_problem});
    r.rows.push_back({"ms_ssim_fidelity", k_nan, ms_problem});
  }
}

void add_mmd_row(EvaluationReport& r, const LoadedSet& gen, const LoadedSet& ref) {
  if (gen.scaled.size() >= 2 && ref.scaled.size() >= 2)
    r.rows.push_back({"mmd", linear_mmd(at::cat(ref.scaled, 0), at::cat(gen.scaled, 0)),
                      "MONAI's MMDMetric (linear kernel), volumes in [0, 1]"});
  else
    r.rows.push_back({"mmd", k_nan, "needs at least 2 generated and 2 reference volumes"});
}

// The memorization audit against o.training: the generated volumes' distances
// to their nearest training case, and the rows that sum it up.
void add_memorization_rows(EvaluationReport& r, const LoadedSet& gen, const EvaluationOptions& o,
                           const MsSsimChoice& choice, const ParallelMap& map) {
  std::array<std::int64_t, 3> grid = r.grid;
  const LoadedSet train = load_set(o.training, o, grid, "reading training volumes");
  if (!choice.problem.empty()) throw UsageError("memorization audit: " + choice.problem);
  MemorizationOptions mo;
  mo.threshold = o.memorization_threshold;
  mo.ms_ssim = choice.options;
  r.memorization = audit_memorization(gen.scaled, gen.names, train.scaled, train.names, mo, o.encoder, map);
  r.audited = true;
  int flagged = 0;
  double lowest = std::numeric_limits<double>::infinity();
  for (const auto& c : r.memorization.cases) {
    flagged += c.flagged;
    lowest = std::min(lowest, std::isnan(c.latent_ratio) ? c.ms_ssim_ratio : std::min(c.ms_ssim_ratio, c.latent_ratio));
  }
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g", o.memorization_threshold);
  r.rows.push_back({"memorization_flagged", static_cast<double>(flagged),
                    std::string("generated volumes closer to a training case than ") + threshold +
                        " x the training set's own median nearest-neighbour distance" +
                        (o.encoder ? " (MS-SSIM or latent)" : " (MS-SSIM)")});
  r.rows.push_back(
      {"memorization_min_ratio", lowest, "the closest generated volume's ratio (1: as close as two training cases)"});
}

}  // namespace

EvaluationReport evaluate_volumes(const EvaluationOptions& o) {
  at::NoGradGuard no_grad;
  o.validate();
  EvaluationReport r;
  r.grid = o.grid;
  const ParallelMap map(o.dist);
  const LoadedSet gen = load_set(o.generated, o, r.grid, "reading generated volumes");
  const LoadedSet ref = load_set(o.reference, o, r.grid, "reading reference volumes");
  // The metric groups: MS-SSIM, MMD, the memorization audit, FID.
  const std::int64_t groups = 2 + (o.training.empty() ? 0 : 1) + (o.feature_network.empty() ? 0 : 1);
  std::int64_t groups_done = 0;
  const auto group_done = [&] { report_progress(o, "metrics", ++groups_done, groups); };
  r.generated = gen.scaled.size();
  r.reference = ref.scaled.size();

  add_hu_rows(r, gen, ref, o);

  const MsSsimChoice ms = choose_ms_ssim(r.grid);
  add_ms_ssim_rows(r, gen, ref, ms, map);
  group_done();

  add_mmd_row(r, gen, ref);
  group_done();

  if (!o.training.empty()) {
    add_memorization_rows(r, gen, o, ms, map);
    group_done();
  }

  if (!o.feature_network.empty()) {
    if (gen.scaled.size() < 2 || ref.scaled.size() < 2) {
      r.rows.push_back({"fid", k_nan, "needs at least 2 generated and 2 reference volumes"});
    } else {
      add_fid_rows(r, gen, ref, o, map);
    }
    group_done();
  } else {
    r.rows.push_back({"fid", k_nan, "no --features network given (nothing is downloaded)"});
  }
  return r;
}

std::string format_report(const EvaluationReport& r) {
  std::ostringstream s;
  s << r.generated << " generated vs " << r.reference << " reference volumes on a " << r.grid[2] << "x" << r.grid[1] << "x" << r.grid[0]
    << " grid\n";
  std::size_t width = 6;
  for (const auto& row : r.rows) width = std::max(width, row.metric.size());
  char value[64];
  for (const auto& row : r.rows) {
    if (std::isnan(row.value))
      std::snprintf(value, sizeof value, "%12s", "-");
    else
      std::snprintf(value, sizeof value, "%12.6g", row.value);
    s << row.metric << std::string(width - row.metric.size() + 2, ' ') << value << "  " << row.note << "\n";
  }
  return s.str();
}

}  // namespace medsynth
