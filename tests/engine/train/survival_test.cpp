// The survival workflow (seed 004): Cox loss and Harrell's C-index against
// values worked out by hand (ties, censoring), MONAI's SmartCache (replacement
// counts, determinism, resume), CSV label errors with line numbers on real
// NIfTI files, the simulated data's signal, the ResNet's layouts, and
// survival-tiny end to end through the real binary.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "data/smart_cache.hpp"
#include "data/survival_labels.hpp"
#include "data/volume_listing.hpp"
#include "models/resnet3d.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "metrics/survival_metrics.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

TEST(CoxLoss, MatchesTheBreslowFormulaWorkedByHand) {
  // times 2, 3, 3, 5; risks 0.5, -0.2, 1.0, 0.0.
  // Risk sets (Breslow: ties share the set): t>=2 -> all, t>=3 -> {1, 2, 3}, t>=5 -> {3}.
  //   log(e^.5 + e^-.2 + e^1 + e^0) = log 6.185734 = 1.822250
  //   log(e^-.2 + e^1 + e^0)        = log 4.537013 = 1.512271
  at::Tensor risk = at::tensor({0.5, -0.2, 1.0, 0.0}, at::kDouble);
  at::Tensor time = at::tensor({2.0, 3.0, 3.0, 5.0}, at::kDouble);
  // Subject 2 censored: -[(0.5 - 1.822250) + (-0.2 - 1.512271) + (0 - 0)] / 3 = 1.011507
  EXPECT_NEAR(cox_partial_likelihood_loss(risk, time, at::tensor({1.0, 1.0, 0.0, 1.0}, at::kDouble)).item<double>(), 1.011507, 1e-5);
  // Both tied subjects with events: the second adds (1.0 - 1.512271); / 4 events = 0.886698.
  EXPECT_NEAR(cox_partial_likelihood_loss(risk, time, at::tensor({1.0, 1.0, 1.0, 1.0}, at::kDouble)).item<double>(), 0.886698, 1e-5);
  // The order of the rows does not matter (the loss sorts).
  at::Tensor perm = at::tensor({3, 1, 0, 2}, at::kLong);
  EXPECT_NEAR(cox_partial_likelihood_loss(risk.index_select(0, perm), time.index_select(0, perm),
                                          at::tensor({1.0, 1.0, 1.0, 1.0}, at::kDouble))
                  .item<double>(),
              0.886698, 1e-5);
}

TEST(CoxLoss, NoEventGivesZeroAndAGradientPushesRiskTowardsEarlyEvents) {
  at::Tensor risk = at::zeros({3}, at::kFloat).requires_grad_(true);
  at::Tensor none = cox_partial_likelihood_loss(risk, at::tensor({1.0, 2.0, 3.0}), at::zeros({3}));
  EXPECT_EQ(none.item<double>(), 0.0);
  none.backward();
  EXPECT_EQ(risk.grad().abs().sum().item<double>(), 0.0);
  risk.mutable_grad() = at::Tensor();
  cox_partial_likelihood_loss(risk, at::tensor({1.0, 2.0, 3.0}), at::tensor({1.0, 0.0, 0.0})).backward();
  // Descending the loss raises the risk of the subject with the early event, lowers the others'.
  EXPECT_LT(risk.grad()[0].item<double>(), 0);
  EXPECT_GT(risk.grad()[2].item<double>(), 0);
}

TEST(CIndex, HarrellsDefinitionWithTiesAndCensoring) {
  EXPECT_DOUBLE_EQ(harrell_c_index({0.9, 0.5, 0.3, 0.1}, {1, 2, 3, 4}, {1, 1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(harrell_c_index({0.1, 0.3, 0.5, 0.9}, {1, 2, 3, 4}, {1, 1, 1, 1}), 0.0);
  // times 1, 2, 2, 4; events 1, 0, 1, 1; risks .8, .8, .4, .1.
  // Comparable pairs: (0,1) tie in risk -> 1/2, (0,2) 1, (0,3) 1, (2,3) 1; subject 1 is
  // censored (no pairs of its own); (1,2) share a time, so not comparable. 3.5 / 4.
  EXPECT_DOUBLE_EQ(harrell_c_index({0.8, 0.8, 0.4, 0.1}, {1, 2, 2, 4}, {1, 0, 1, 1}), 0.875);
  EXPECT_TRUE(std::isnan(harrell_c_index({1, 2}, {1, 2}, {0, 0})));
}

SmartCache::Loader counting_loader(std::vector<int>& calls) {
  return [&calls](std::size_t item) {
    ++calls[item];
    return at::full({2}, static_cast<double>(item));
  };
}

std::vector<std::size_t> iota(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i * 3 + 1;  // item ids need not be 0..n-1
  return v;
}

TEST(SmartCache, ReplacesReplaceRateOfTheCacheEachEpoch) {
  std::vector<int> calls(64, 0);
  SmartCacheOptions o;
  o.cache_rate = 0.5;
  o.replace_rate = 0.2;
  o.seed = 7;
  o.background = false;
  SmartCache cache(iota(20), counting_loader(calls), o);
  EXPECT_EQ(cache.cache_num(), 10u);
  EXPECT_EQ(cache.replace_num(), 2u);
  std::vector<std::size_t> previous;
  for (int epoch = 0; epoch < 5; ++epoch) {
    auto items = cache.set_epoch(epoch);
    EXPECT_EQ(items.size(), 10u);
    for (std::size_t item : items) EXPECT_EQ(cache.get(item)[0].item<double>(), static_cast<double>(item));
    if (epoch > 0) {
      std::set<std::size_t> a(previous.begin(), previous.end()), b(items.begin(), items.end());
      std::size_t kept = 0;
      for (auto i : b) kept += a.count(i);
      EXPECT_EQ(kept, 8u) << "epoch " << epoch << " should replace exactly 2 of 10";
    }
    previous = items;
  }
  EXPECT_EQ(cache.replaced(), 8u);
  // 10 for epoch 0, then 2 per epoch, prefetched one epoch ahead: 10 + 2 x 5.
  EXPECT_EQ(cache.loads(), 20u);
  for (int c : calls) EXPECT_LE(c, 1) << "an item was loaded twice while its window was still cached";
  EXPECT_THROW(cache.get(previous.empty() ? 0 : 999), UsageError);
}

TEST(SmartCache, DeterministicUnderTheSeedAndResumesAtAnyEpoch) {
  std::vector<int> calls(64, 0);
  SmartCacheOptions o;
  o.cache_rate = 0.3;
  o.replace_rate = 0.5;
  o.seed = 11;
  SmartCache a(iota(20), counting_loader(calls), o), b(iota(20), counting_loader(calls), o);
  for (int e = 0; e < 4; ++e) a.set_epoch(e);
  EXPECT_EQ(a.set_epoch(4), b.set_epoch(4)) << "a resumed cache must hold the same window";
  o.seed = 12;
  SmartCache c(iota(20), counting_loader(calls), o);
  EXPECT_NE(c.window(0), a.window(0));
  // A full cache never replaces.
  o.cache_rate = 1.0;
  SmartCache full(iota(20), counting_loader(calls), o);
  EXPECT_EQ(full.replace_num(), 0u);
  EXPECT_EQ(full.window(0), full.window(9));
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

std::string error_of(const fs::path& csv) {
  try {
    const auto entries = read_volume_manifest(csv.string());
    survival_labels_from_manifest(csv.string(), entries, {"age"});
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

TEST(SurvivalCsv, ErrorsNameTheFileAndLine) {
  test::TempDir dir("survival-csv");
  write_volume(make_volume({8, 8, 8}), (dir / "a.nii.gz").string());
  write_volume(make_volume({8, 8, 8}), (dir / "b.nii.gz").string());
  const fs::path csv = dir / "cohort.csv";
  write_text(csv, "image,time,event,age\na.nii.gz,12.5,1,61\nb.nii.gz,30,0,55\n");
  const auto entries = read_volume_manifest(csv.string());
  const auto labels = survival_labels_from_manifest(csv.string(), entries, {"age"});
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_DOUBLE_EQ(labels[0].time, 12.5);
  EXPECT_EQ(labels[1].event, 0);
  EXPECT_EQ(labels[1].covariates, std::vector<double>{55});

  write_text(csv, "image,event,age\na.nii.gz,1,61\n");
  EXPECT_NE(error_of(csv).find("cohort.csv:1: no column 'time'"), std::string::npos) << error_of(csv);
  write_text(csv, "image,time,event,age\na.nii.gz,12.5,1,61\nb.nii.gz,soon,0,55\n");
  EXPECT_NE(error_of(csv).find("cohort.csv:3: column 'time' is not a number ('soon')"), std::string::npos) << error_of(csv);
  write_text(csv, "image,time,event,age\na.nii.gz,12.5,2,61\n");
  EXPECT_NE(error_of(csv).find("cohort.csv:2: column 'event' must be 0 (censored) or 1 (event), not '2'"), std::string::npos) << error_of(csv);
  write_text(csv, "image,time,event,age\na.nii.gz,-3,1,61\n");
  EXPECT_NE(error_of(csv).find("cohort.csv:2: column 'time' is negative"), std::string::npos) << error_of(csv);
  write_text(csv, "image,time,event,age\na.nii.gz,3,1,61\nmissing.nii.gz,4,0,50\n");
  EXPECT_NE(error_of(csv).find("cohort.csv:3: image 'missing.nii.gz' does not exist"), std::string::npos) << error_of(csv);
  write_text(csv, "image,time,event,age\na.nii.gz,3,1,old\n");
  EXPECT_NE(error_of(csv).find("cohort.csv:2: column 'age' is not a number"), std::string::npos) << error_of(csv);
}

TEST(SimulatedSurvival, TheLesionCarriesTheRiskAndTheLabelsAreDeterministic) {
  std::vector<double> radius, time;
  std::vector<int> event;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const auto s = simulate_survival(seed, {320, 320, 320});
    radius.push_back(s.lesion.radius_mm);
    time.push_back(s.label.time);
    event.push_back(s.label.event);
    EXPECT_EQ(s.label.time, simulate_survival(seed, {320, 320, 320}).label.time);
  }
  const double events = std::accumulate(event.begin(), event.end(), 0.0) / event.size();
  EXPECT_GT(events, 0.3);
  EXPECT_LT(events, 0.95);
  // An oracle that knows the radius ranks patients well; a constant does not.
  EXPECT_GT(harrell_c_index(radius, time, event), 0.75);
  EXPECT_DOUBLE_EQ(harrell_c_index(std::vector<double>(300, 1.0), time, event), 0.5);
  // The lesion is painted where and as large as simulated.
  at::Tensor image = at::zeros({1, 1, 32, 32, 32});
  SimulatedLesion lesion;
  lesion.radius_mm = 40;
  paint_lesion(image, {10, 10, 10}, lesion, {-1000, 1000});
  const double voxels = (image > 0.6).sum().item<double>();
  EXPECT_NEAR(voxels, 4.0 / 3.0 * M_PI * 4 * 4 * 4, 60.0);
}

TEST(ResNet3d, DepthsUseMonaisBlocksAndNames) {
  ResNet3dOptions o;
  o.block_inplanes = {4, 8, 8, 16};
  o.depth = 50;
  ResNet3d deep(o);
  std::set<std::string> names;
  for (const auto& p : deep->named_parameters()) names.insert(p.key());
  EXPECT_TRUE(names.count("layer1.0.conv3.weight")) << "depth 50 uses Bottleneck blocks";
  EXPECT_TRUE(names.count("layer4.2.bn3.weight"));
  EXPECT_TRUE(names.count("layer1.0.downsample.0.weight"));
  EXPECT_EQ(deep->fc->weight.size(1), 64) << "16 planes x expansion 4";
  o.depth = 18;
  ResNet3d shallow(o);
  names.clear();
  for (const auto& p : shallow->named_parameters()) names.insert(p.key());
  EXPECT_FALSE(names.count("layer1.0.conv3.weight"));
  EXPECT_TRUE(names.count("layer4.1.conv2.weight"));
  EXPECT_FALSE(names.count("layer4.2.conv2.weight"));
  at::Tensor risk = shallow->forward(at::rand({3, 1, 16, 16, 16}));
  EXPECT_EQ(risk.sizes(), (std::vector<std::int64_t>{3}));
  o.depth = 20;
  EXPECT_THROW(ResNet3d bad(o), UsageError);
}

TEST(SurvivalTiny, ReachesACIndexOfAtLeastPoint7AndWritesTheRiskCsv) {
  test::TempDir dir("survival-tiny");
  const std::string job = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/survival-tiny.yaml";
  auto r = test::run_process({test::engine_binary(), "train", job, "--runs-dir", (dir / "runs").string(), "--no-progress"}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path run;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path();
  double best = 0;
  int validations = 0;
  int val_volumes = -1;
  std::istringstream in(test::read_bytes(run / "events.jsonl"));
  for (std::string line; std::getline(in, line);) {
    auto e = nlohmann::json::parse(line);
    if (e.value("type", "") == "run_started") val_volumes = e["extra"].value("val_volumes", -1);
    if (e.value("type", "") == "metric" && e.value("name", "") == "val/c_index") {
      best = std::max(best, e.value("value", 0.0));
      ++validations;
    }
  }
  EXPECT_GE(validations, 3);
  EXPECT_GE(best, 0.70);
  EXPECT_EQ(val_volumes, 48) << "run_started names the job's validation volumes (data.num_val)";
  std::istringstream csv(test::read_bytes(run / "output" / "risk_scores.csv"));
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "id,time,event,risk");
  int rows = 0;
  for (std::string line; std::getline(csv, line);) rows += line.rfind("phantom-", 0) == 0;
  EXPECT_EQ(rows, 48);
  bool best_named = false;
  for (const auto& entry : fs::directory_iterator(run / "checkpoints")) best_named |= entry.path().filename().string().rfind("best-val_c_index-", 0) == 0;
  EXPECT_TRUE(best_named);
}

}  // namespace
}  // namespace medsynth
